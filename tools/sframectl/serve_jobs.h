/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl serve's workers (serve_jobs.c): the generator children that
 * run at once, each with the file it translates.  They start a child,
 * give the service the descriptors to poll, and return the children that
 * ended; what a result means is the service's (serve_supply.c), which
 * files wait and which start is the scheduler's (serve_queue.c).
 */
#ifndef _SFRAMECTL_SERVE_JOBS_H
#define _SFRAMECTL_SERVE_JOBS_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>

#include "serve_cache.h"
#include "serve_gen.h"
#include "sframectl.h"

/* Children at once (--jobs), and at most. */
#define SERVE_JOBS		2
#define SERVE_JOBS_MAX		8

/* A file being translated by a generator child, and what it is for. */
struct serve_job {
	bool held;			/* from its start until released */
	struct serve_gen_job gen;	/* gen.pid 0: no child running */
	enum serve_gen_end end;		/* SERVE_GEN_RUNNING until it ended */
	int fd;				/* the report's, held until the end */
	size_t seen;			/* its record's index (serve_seen.h) */
	struct sframe_code code;
	bool fill;
	bool swept;			/* a sweep found it */
	uid_t owner;			/* whose share it counts against */
	char name[PATH_MAX];
	struct serve_cache_key key;	/* its cache entry */
};

struct serve_jobs {
	struct serve_job job[SERVE_JOBS_MAX];
	unsigned int nr;		/* of job[] in use at most: --jobs */
};

struct serve_job *serve_jobs_free(struct serve_jobs *js);
void serve_jobs_start(struct serve_job *j, int fd, int input, size_t size);
bool serve_jobs_busy(const struct serve_jobs *js, size_t seen);
unsigned int serve_jobs_poll(const struct serve_jobs *js,
			     struct pollfd *pfd, int *wait);
unsigned int serve_jobs_reap(struct serve_jobs *js, const struct pollfd *pfd,
			     bool polled, struct serve_job **ended);
void serve_jobs_release(struct serve_job *j);
unsigned int serve_jobs_seen(struct serve_jobs *js, size_t **in_use);
void serve_jobs_stop(struct serve_jobs *js);

#endif /* _SFRAMECTL_SERVE_JOBS_H */
