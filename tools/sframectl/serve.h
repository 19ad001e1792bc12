/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl serve's state, shared by its parts: the event loop
 * (serve.c), the generator children (serve_jobs.c), the files waiting
 * and each owner's share (serve_queue.c), and the files handled
 * (serve_seen.c).
 */
#ifndef _SFRAMECTL_SERVE_H
#define _SFRAMECTL_SERVE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "serve_cache.h"
#include "serve_gen.h"
#include "sframectl.h"

/*
 * Generator children at once (--jobs, at most SERVE_JOBS_MAX), and files
 * waiting for one: a report beyond them is dropped and counted.  What is
 * being mapped now comes first (serve_pump()): files a sweep found take
 * at most SERVE_QUEUE_SWEPT of the places, and one child fewer than
 * --jobs when there are two or more; a swept file with no place left is
 * found again by the next sweep.
 */
#define SERVE_JOBS		2
#define SERVE_JOBS_MAX		8
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
 * loop reads and digests it whole), which accrues with time up to
 * SERVE_OWNER_BURST small files' worth; a file without credit waits its
 * turn in the queue, or is dropped and found again by a later sweep if it
 * is still mapped.  A flood of one user's files, cached or not, cannot
 * hold up others' reports; nor can his files over SERVE_OWNER_FILE_MAX,
 * which are not served.
 */
#define SERVE_OWNER_PACE_MS	125
#define SERVE_OWNER_PACE_BYTES	(16LL << 20)
#define SERVE_OWNER_BURST	4
#define SERVE_OWNER_FILE_MAX	(256LL << 20)
/*
 * Nor is anyone's file over SERVE_FILE_MAX, root's included: the service
 * holds each file it reads whole, in a memory file its child maps, up to
 * --jobs + 1 at once, and its unit's MemoryMax= allows for that.
 */
#define SERVE_FILE_MAX		(1LL << 30)
/*
 * Sweeps to find again what was put off or dropped: at most one per
 * SERVE_RESWEEP_MS, and with --once only one.
 */
#define SERVE_RESWEEP_MS	10000
/*
 * Sweeps after the module lost reports: at most one per
 * SERVE_LOST_SWEEP_MS.  A sweep holds each process's mmap lock a moment,
 * and any user can make the module lose reports (map files faster than
 * the queue drains), so without a bound his flood would sweep everyone's
 * processes back to back.
 */
#define SERVE_LOST_SWEEP_MS	1000

/*
 * A file already handled, by identity (serve_seen.c).  The identity says
 * only whether to supply it again; what is supplied is always named by
 * a digest of the bytes read for it then (serve.c).
 */
struct serve_seen {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct timespec ctime;		/* which no user can set back */
	bool no_sidecar;		/* none from us: own SFrame, failed */
};

/*
 * The files handled: records by identity, found through an open-addressing
 * index (0 empty, else a record's index + 1); at most SERVE_SEEN_MAX.
 */
struct serve_seen_set {
	struct serve_seen *rec;
	size_t nr, cap;
	size_t *index;
	size_t index_size;		/* a power of two, >= 2 * cap */
};

/* A file being translated by a generator child. */
struct serve_work {
	struct serve_gen_job gen;	/* gen.pid 0: this worker is free */
	int fd;				/* the report's, held until the end */
	size_t seen;			/* its index in serve->seen.rec */
	struct sframe_code code;
	bool fill;
	bool swept;			/* a sweep found it */
	uid_t owner;			/* whose share it counts against */
	char name[PATH_MAX];
	struct serve_cache_key key;	/* its cache entry */
};

/*
 * A file waiting for a worker: its descriptor (ours) and record, and
 * whether only a sweep has reported it so far.
 */
struct serve_waiting {
	int fd;
	size_t seen;
	bool swept;
	uid_t owner;
};

/*
 * An owner's share this run: what its sidecars stored in the disk cache,
 * and its credit for supplying its reports.
 */
struct serve_share {
	uid_t owner;
	unsigned long long stored;	/* bytes */
	long long credit_ms;		/* as of at_ms */
	long long at_ms;		/* serve_gen_now() */
};

struct serve {
	const char *dir;
	struct serve_cache cache;
	const char *run_dir;		/* where status finds our state */
	bool root_only;
	unsigned long long owner_cache_max;	/* bytes; root's unbounded */
	struct serve_share *shares;
	size_t nr_shares;
	int dev;			/* /dev/sframe_unwind */
	int watch;			/* its SFRAME_IOC_WATCH descriptor */
	int sig;			/* signalfd: SIGTERM, SIGINT */
	int lock;			/* held while we run (serve_status.c) */
	bool publish_failed;		/* said once */
	struct serve_seen_set seen;
	bool lost;			/* reports were lost: sweep */
	bool resweep;			/* files were put off: sweep */
	long long swept_at;		/* serve_gen_now() at the last sweep's end */
	unsigned int resweeps;
	struct sframe_serve_state st;
	struct serve_work work[SERVE_JOBS_MAX];
	unsigned int jobs;		/* of work[] in use at most */
	unsigned int running;
	struct serve_waiting queue[SERVE_QUEUE_MAX];
	unsigned int queued;
	unsigned int queued_swept;	/* of queue[], those swept */
	unsigned int running_swept;	/* of the children, those swept */
};

/*
 * Files remembered at most: a user's flood of new files must not grow the
 * service's memory without bound.
 */
#define SERVE_SEEN_MAX		65536

struct serve_seen *serve_remember(struct serve_seen_set *set,
				  const struct stat *st, bool *first);
int serve_seen_keep(struct serve_seen_set *set, size_t **in_use,
		    unsigned int nr);
void serve_seen_free(struct serve_seen_set *set);

bool serve_may_start(const struct serve *s, bool swept, uid_t owner);
bool serve_may_store(struct serve *s, uid_t owner, size_t size);
bool serve_paced(struct serve *s, uid_t owner, off_t size, bool take);
void serve_pace_refund(struct serve *s, uid_t owner, off_t size);
int serve_pace_wait(struct serve *s);
void serve_wait(struct serve *s, int fd, size_t seen, bool swept,
		uid_t owner, const char *name);
bool serve_busy(struct serve *s, size_t seen, bool swept);
int serve_next(struct serve *s);

void serve_loaded(struct serve *s, size_t seen, int ret, bool from_cache,
		  bool fill);
void serve_generate(struct serve *s, int fd, size_t seen, bool swept,
		    uid_t owner, const char *name, int input, size_t size,
		    const struct sframe_code *code, bool fill,
		    const struct serve_cache_key *key);
void serve_job_end(struct serve *s, struct serve_work *w,
		   enum serve_gen_end end);
void serve_stop_jobs(struct serve *s);

#endif /* _SFRAMECTL_SERVE_H */
