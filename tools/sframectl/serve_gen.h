/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service's generator children: the job that runs, bounds and reaps
 * one in its sandbox (sandbox.h), and the translation it runs
 * (serve_gen.c).
 */
#ifndef _SFRAMECTL_SERVE_GEN_H
#define _SFRAMECTL_SERVE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox.h"
#include "sframectl.h"

/* How a job ended; SERVE_GEN_RUNNING until it has. */
enum serve_gen_end {
	SERVE_GEN_RUNNING,
	SERVE_GEN_DONE,			/* exit 0: out holds the result */
	SERVE_GEN_FAILED,		/* its own exit: out holds why */
	SERVE_GEN_KILLED,		/* a signal: seccomp, RLIMIT_CPU */
	SERVE_GEN_OVER_TIME,		/* past its wall-clock budget */
	SERVE_GEN_TOO_LARGE,		/* wrote more than it may */
	SERVE_GEN_NOT_STARTED,		/* pipe or fork failed */
};

/*
 * The child's work, in the sandbox: write the result to @out and return
 * 0, or write why not and return non-zero.
 */
typedef int (*serve_gen_work)(void *arg, int out);

/* What serve_gen_translate() translates: a file's bytes, in memory. */
struct serve_gen_input {
	const char *name;		/* for messages */
	const u8 *file;
	size_t file_size;
	bool fill;			/* gen --fill */
};

int serve_gen_translate(void *arg, int out);

struct serve_gen_job {
	pid_t pid;			/* 0: no child */
	int out;			/* read end of its result pipe */
	long long deadline;		/* serve_gen_now() */
	size_t max;			/* bytes it may write */
	unsigned char *buf;		/* what it wrote */
	size_t len, cap;
	int signal;			/* SERVE_GEN_KILLED: which */
};

long long serve_gen_now(void);
rlim_t serve_gen_address_space(unsigned long long extra);
enum serve_gen_end serve_gen_start(struct serve_gen_job *j,
				   const struct sandbox_limits *lim,
				   unsigned int wall_ms, size_t max,
				   serve_gen_work work, void *arg);
enum serve_gen_end serve_gen_read(struct serve_gen_job *j);
enum serve_gen_end serve_gen_expire(struct serve_gen_job *j,
				    long long now);
void serve_gen_stop(struct serve_gen_job *j);
void serve_gen_free(struct serve_gen_job *j);
const char *serve_gen_end_str(enum serve_gen_end end);

#endif /* _SFRAMECTL_SERVE_GEN_H */
