/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl serve's scheduler (serve_queue.c): the files waiting for a
 * generator child, which may start next, and each owner's share
 * (design.rst, "Whose files, in what order").  It holds descriptors and
 * numbers only; the children are serve_jobs.c's, the files' records
 * serve_seen.c's.
 */
#ifndef _SFRAMECTL_SERVE_QUEUE_H
#define _SFRAMECTL_SERVE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Files waiting for a child: a report beyond them is dropped and
 * counted.  What is being mapped now comes first: files a sweep found
 * take at most SERVE_QUEUE_SWEPT of the places, and one child fewer than
 * --jobs when there are two or more; a swept file with no place left is
 * found again by the next sweep.
 */
#define SERVE_QUEUE_MAX		64
#define SERVE_QUEUE_SWEPT	48
/*
 * An owner's share, root's excepted: files waiting; children, as swept
 * files (one fewer than --jobs); disk cache bytes stored per run
 * (--owner-cache-mb), beyond which its sidecars are loaded, not stored.
 */
#define SERVE_QUEUE_OWNER	16
#define SERVE_OWNER_CACHE_MB	32
/*
 * And its pace: each of its files supplied costs SERVE_OWNER_PACE_MS of
 * credit, and as much again per SERVE_OWNER_PACE_BYTES of the file (the
 * service reads and digests it whole), which accrues with time up to
 * SERVE_OWNER_BURST small files' worth; a file without credit waits its
 * turn in the queue, or is dropped and found again by a later sweep if it
 * is still mapped.  A flood of one user's files, cached or not, cannot
 * hold up others' reports.
 */
#define SERVE_OWNER_PACE_MS	125
#define SERVE_OWNER_PACE_BYTES	(16LL << 20)
#define SERVE_OWNER_BURST	4

/*
 * A file waiting: its descriptor (the queue's), its record's index, its
 * size as reported, whether only a sweep has reported it so far, and
 * whose share it counts against (0: root's, unbounded).
 */
struct serve_waiting {
	int fd;
	size_t seen;
	off_t size;
	bool swept;
	uid_t owner;
};

/*
 * An owner's share this run: what its sidecars stored in the disk cache,
 * its credit for supplying its reports, and its children running.
 */
struct serve_share {
	uid_t owner;
	unsigned long long stored;	/* bytes */
	long long credit_ms;		/* as of at_ms */
	long long at_ms;		/* serve_queue's now() */
	unsigned int running;
};

struct serve_queue {
	struct serve_waiting wait[SERVE_QUEUE_MAX];
	unsigned int queued;
	unsigned int queued_swept;	/* of wait[], those swept */
	unsigned int jobs;		/* children at once, at most */
	unsigned int running;
	unsigned int running_swept;	/* of the children, those swept */
	unsigned long long owner_cache_max;	/* bytes; root's unbounded */
	long long (*now)(void);		/* a monotonic clock, in ms */
	struct serve_share *shares;
	size_t nr_shares;
};

/* What serve_queue_admit() did with a file. */
enum serve_admit {
	SERVE_ADMITTED,
	SERVE_PUT_OFF,			/* swept, no place: the next sweep's */
	SERVE_OWNER_FULL,		/* SERVE_QUEUE_OWNER of its owner's wait */
	SERVE_QUEUE_FULL,		/* no place, or no descriptor */
};

enum serve_admit serve_queue_admit(struct serve_queue *q,
				   const struct serve_waiting *w);
bool serve_queue_room(const struct serve_queue *q);
bool serve_queue_holds(struct serve_queue *q, size_t seen, bool swept);
bool serve_queue_next(struct serve_queue *q, struct serve_waiting *w);
int serve_queue_wait_ms(struct serve_queue *q);

bool serve_queue_may_start(struct serve_queue *q, bool swept, uid_t owner);
void serve_queue_started(struct serve_queue *q, bool swept, uid_t owner);
void serve_queue_done(struct serve_queue *q, bool swept, uid_t owner);
bool serve_queue_idle(const struct serve_queue *q);

bool serve_queue_paced(struct serve_queue *q, uid_t owner, off_t size,
		       bool take);
void serve_queue_refund(struct serve_queue *q, uid_t owner, off_t size);
bool serve_queue_may_store(struct serve_queue *q, uid_t owner, size_t size);

unsigned int serve_queue_seen(struct serve_queue *q, size_t **in_use);
void serve_queue_clear(struct serve_queue *q);

#endif /* _SFRAMECTL_SERVE_QUEUE_H */
