/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service's generator children: the job that starts one as a program
 * of its own, bounds and reaps it (serve_gen.c), and the child's side
 * that enters its sandbox (sandbox.h) and translates (serve_gen_child.c).
 */
#ifndef _SFRAMECTL_SERVE_GEN_H
#define _SFRAMECTL_SERVE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox.h"
#include "sframectl.h"

/*
 * A translation's budgets: wall-clock time (TCG included), CPU time, and
 * address space beyond what the child holds at its start (its program
 * and its input): a base plus a multiple of the input's size; its result
 * is at most what the module takes.
 */
#define SERVE_GEN_WALL_MS	60000
/*
 * A child on a loaded machine may wait for a CPU: its wall-clock budget is
 * spent only by the CPU time it gets, and in all it has at most this many
 * times that budget (10 min for a translation).
 */
#define SERVE_GEN_WALL_STARVED	10
#define SERVE_GEN_CPU_SECONDS	60
#define SERVE_GEN_MEMORY	(256ULL << 20)
#define SERVE_GEN_MEMORY_PER_BYTE 32
#define SERVE_GEN_OUT_MAX	(64U << 20)

/*
 * How a job ended; SERVE_GEN_RUNNING until it has.  SERVE_GEN_NOT_STARTED:
 * no child, or one that could not run (its exit EXIT_USAGE), whatever the
 * input; out holds why.
 */
enum serve_gen_end {
	SERVE_GEN_RUNNING,
	SERVE_GEN_DONE,			/* exit 0: out holds the result */
	SERVE_GEN_FAILED,		/* its own exit: out holds why */
	SERVE_GEN_KILLED,		/* a signal: seccomp, RLIMIT_CPU, OOM */
	SERVE_GEN_OVER_TIME,		/* past its wall-clock or CPU budget */
	SERVE_GEN_STARVED,		/* given too little CPU time to finish */
	SERVE_GEN_TOO_LARGE,		/* wrote more than it may */
	SERVE_GEN_NOT_STARTED,		/* see above */
};

/*
 * The argument that makes sframectl (or a test program) a generator
 * child: serve_gen_start() executes the program again with it, so that the
 * child holds nothing of its parent's memory, other files' bytes included.
 */
#define SERVE_GEN_CHILD_ARG	"--generator-child"
#define SERVE_GEN_ARGS_MAX	8	/* a mode and the words after it */

/* What an executed child has: its input, mapped read-only, and its words. */
struct serve_gen_child {
	const u8 *input;		/* descriptor 0's bytes; NULL if none */
	size_t input_size;
	char **args;			/* after the mode's name; NULL-ended */
};

/*
 * A child's work, in the sandbox: write the result to @out and return 0,
 * or write why not and return non-zero.
 */
typedef int (*serve_gen_work)(const struct serve_gen_child *c, int out);

struct serve_gen_mode {
	const char *name;
	serve_gen_work work;
};

/*
 * What a "translate" child writes when it succeeds, and what the
 * service's cache holds (gen_result.c): these fields, in the machine's
 * byte order, then the section's bytes.
 */
#define SFRAME_GEN_RESULT_MAGIC	"SFRGEN\0\1"

struct sframe_gen_result {
	char magic[8];			/* SFRAME_GEN_RESULT_MAGIC */
	u64 vaddr;			/* link address of the section */
	u32 section_size;		/* bytes after this header */
	u32 build_id_size;		/* 0: none; > SFRAME_BUILD_ID_MAX: too long */
	u8 build_id[SFRAME_BUILD_ID_MAX];	/* the input's NT_GNU_BUILD_ID */
};

int sframe_gen_result(const u8 *file, size_t file_size, bool fill, u8 **out,
		      size_t *out_size, char *msg, size_t msg_size);
enum sframe_load_status sframe_gen_result_read(const u8 *buf, size_t len,
					       struct sframe_gen_result *h,
					       const u8 **sec, char *msg,
					       size_t msg_size);

/* "translate fill|whole": the input's result (struct sframe_gen_result). */
int serve_gen_translate(const struct serve_gen_child *c, int out);
extern const struct serve_gen_mode serve_gen_modes[];
_Noreturn void serve_gen_child_main(int argc, char **argv,
				    const struct serve_gen_mode *modes);
_Noreturn void serve_gen_refuse(int out, const char *what, int err);

struct serve_gen_job {
	pid_t pid;			/* 0: no child */
	int out;			/* read end of its result pipe */
	long long start, deadline;	/* serve_gen_now() */
	unsigned int wall_ms;		/* its budget, spent by CPU time */
	long long cpu_ms_max;		/* its RLIMIT_CPU */
	size_t max;			/* bytes it may write */
	unsigned char *buf;		/* what it wrote */
	size_t len, cap;
	int signal;			/* SERVE_GEN_KILLED: which */
};

long long serve_gen_now(void);
enum serve_gen_end serve_gen_start(struct serve_gen_job *j,
				   const struct sandbox_limits *lim,
				   unsigned int wall_ms, size_t max, int input,
				   const char *const args[]);
enum serve_gen_end serve_gen_start_translate(struct serve_gen_job *j,
					     int input, size_t input_size,
					     bool fill);
enum serve_gen_end serve_gen_wait(struct serve_gen_job *j,
				  enum serve_gen_end end);
enum serve_gen_end serve_gen_not_started(struct serve_gen_job *j,
					 const char *what, int err);
enum serve_gen_end serve_gen_read(struct serve_gen_job *j);
enum serve_gen_end serve_gen_expire(struct serve_gen_job *j,
				    long long now);
const char *serve_gen_why(struct serve_gen_job *j, char *why, size_t size);
void serve_gen_stop(struct serve_gen_job *j);
void serve_gen_free(struct serve_gen_job *j);
const char *serve_gen_end_str(enum serve_gen_end end);

#endif /* _SFRAMECTL_SERVE_GEN_H */
