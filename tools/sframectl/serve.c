// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: keep sframe_unwind supplied with sidecars, with no
 * command from anyone.  Every executable object the module reports
 * mapped without SFrame (SFRAME_IOC_WATCH; include/sframe/ioctl.h): at
 * start, and after reports were lost, those it finds mapped when asked
 * (SFRAME_IOC_REPORT_MAPPED); in between, each as it is first mapped.
 * Each is read through a descriptor the kernel opened, never a path, so
 * the service needs no right to other processes: its user's write access
 * to the device is all (design.rst, "Privileges").  Its sidecar is
 * generated once and kept in the cache directory under a digest of the
 * file's bytes (serve_cache.c: never its build ID, which any copy can
 * claim), so a restart or a second machine with the same files
 * generates nothing again.  The module keeps a sidecar of ours only
 * while its file is mapped (SFRAME_SIDECAR_WHILE_MAPPED) and reports the
 * file again when it is next mapped: it is then loaded again from the
 * cache.
 *
 * It serves every owner's files (--root-only: only those root owns and
 * no one else may write); the kernel does not report files on a
 * filesystem a user could make hang (FUSE, network).  What a user maps
 * cannot harm others through it: a file's bytes are parsed only by a
 * confined child (serve_gen.c, sandbox.c) whose result is checked as
 * load checks a file, the cache is named by the bytes, and each report
 * names the owner charged for the file (the mapper's, in the initial
 * user namespace), whose share is bounded: files waiting, children at
 * once, and disk cache bytes per run.  Files root owns and no one else
 * may write are root's, whoever maps them.
 *
 * This file is the event loop: one poll() over the module's reports, the
 * signals that end the service and the generator children's pipes.  What
 * is done with a report is serve_supply.c's; a sidecar not in the cache
 * is made by a child, a few at once, while the loop goes on serving
 * (serve_jobs.c, serve_queue.c): what is cached is loaded at once
 * whatever is being translated.
 *
 * What it has done is published for sframectl status in its runtime
 * directory (serve_status.c), rewritten after each object and batch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include <sframe/ioctl.h>
#include "serve_supply.h"

#define SERVE_CACHE_DIR	"/var/cache/sframe-unwind"
#define SERVE_EVENTS	16		/* records per read() */
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
 * Where a sweep is (SFRAME_IOC_REPORT_MAPPED): none; the module has more
 * to report once its queue is read; or it has reported all.
 */
enum serve_sweep {
	SERVE_SWEEP_NONE,
	SERVE_SWEEP_MORE,
	SERVE_SWEEP_LAST,
};

/* The loop's own state, around the supply's. */
struct serve_loop {
	struct serve s;
	int watch;			/* its SFRAME_IOC_WATCH descriptor */
	int sig;			/* signalfd: SIGTERM, SIGINT */
	int lock;			/* held while we run (serve_status.c) */
	bool once;			/* --once */
	bool stopped;			/* SIGTERM or SIGINT came */
	bool lost;			/* reports were lost: sweep */
	enum serve_sweep sweep;
	long long swept_at;		/* serve_gen_now() at the last sweep's end */
	unsigned int sweeps, resweeps;
	struct sframe_event ev[SERVE_EVENTS];	/* read, not yet handled */
	unsigned int ev_next, ev_nr;
};

static void serve_report(const struct serve *s, const char *when)
{
	printf("sframectl serve: %s: %u sidecars generated, %u from the cache, %u objects with SFrame of their own, %u of them with gaps filled, %u not root's, %u failed, %u loaded by hand\n",
	       when, s->st.generated, s->st.cached, s->st.own + s->st.filled,
	       s->st.filled, s->st.not_roots, sframe_serve_failed(&s->st),
	       s->st.by_hand);
}

/*
 * Ask the module for every object mapped now that needs a sidecar: a new
 * sweep, or (@how SFRAME_REPORT_CONTINUE) the rest of this one, once the
 * loop has read what the last part queued.  The module queues only what
 * its queue has room for, so a sweep never overflows it.  Reports lost
 * meanwhile leave l->lost set for the next sweep, which serve_sweep_due()
 * spaces out.  0, or -1 when the service must end (said).
 */
static int serve_sweep_ask(struct serve_loop *l, unsigned long how)
{
	int ret;

	if (!how) {
		l->lost = false;
		l->resweeps += l->s.resweep;
		l->s.resweep = false;
		serve_publish(&l->s, "scanning");
	}
	ret = ioctl(l->watch, SFRAME_IOC_REPORT_MAPPED, how);
	if (ret < 0) {
		fprintf(stderr, "sframectl: serve: %s: cannot ask for what is mapped: %s\n",
			SFRAME_DEVICE, strerror(errno));
		return -1;
	}
	l->sweep = ret ? SERVE_SWEEP_MORE : SERVE_SWEEP_LAST;
	return 0;
}

/*
 * The module's queue is read to the end during a sweep: ask for the rest,
 * or, if it has reported all, the sweep is over.
 */
static int serve_sweep_step(struct serve_loop *l)
{
	if (l->sweep == SERVE_SWEEP_MORE)
		return serve_sweep_ask(l, SFRAME_REPORT_CONTINUE);
	/* From its end: a sweep slower than the spacing is not run again. */
	l->sweep = SERVE_SWEEP_NONE;
	l->swept_at = serve_gen_now();
	if (!l->sweeps++)
		serve_report(&l->s, "mapped at start");
	serve_publish(&l->s, serve_idle(&l->s));
	return 0;
}

/*
 * Must we sweep now: reports were lost and the last sweep ended
 * SERVE_LOST_SWEEP_MS ago; or files were put off, those a sweep found
 * are done, and the last sweep ended SERVE_RESWEEP_MS ago (--once: one
 * such sweep at most)?  Otherwise in *@wait, how long until a sweep put
 * off for time is due, -1 if none.
 */
static bool serve_sweep_due(const struct serve_loop *l, int *wait)
{
	const struct serve_queue *q = &l->s.queue;
	long long now = serve_gen_now();
	long long left = l->swept_at + SERVE_RESWEEP_MS - now;

	*wait = -1;
	/* Not during a sweep, nor before the reports in hand are served. */
	if (l->sweep || l->ev_next < l->ev_nr)
		return false;
	if (l->lost) {
		left = l->swept_at + SERVE_LOST_SWEEP_MS - now;
		if (left <= 0)
			return true;
		*wait = left;
		return false;
	}
	if (!l->s.resweep || q->queued_swept || q->running_swept ||
	    (l->once && l->resweeps))
		return false;
	if (left <= 0 || l->once)
		return true;
	*wait = left;
	return false;
}

/*
 * Read the module's next reports (one batch) into l->ev: how many, 0 if
 * none waited, -1 when the service must end.
 */
static int serve_read(struct serve_loop *l)
{
	ssize_t n = read(l->watch, l->ev, sizeof(l->ev));

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;		/* never from the module */
	l->ev_next = 0;
	l->ev_nr = n / sizeof(*l->ev);
	l->s.st.in_hand = l->ev_nr;
	serve_publish(&l->s, "serving");
	return l->ev_nr;
}

/*
 * Act on the reports read, in order, while the queue has room: a file
 * mapped now is never dropped for want of a place, so one that finds the
 * queue full stays in hand until a child's end makes room.  Lost reports
 * set l->lost: a sweep is due.
 */
static void serve_handle(struct serve_loop *l)
{
	struct sframe_event *ev;
	bool swept;

	while (l->ev_next < l->ev_nr) {
		ev = &l->ev[l->ev_next];
		swept = ev->flags & SFRAME_EVENT_F_SWEPT;
		if (ev->type == SFRAME_EVENT_NEED_SIDECAR && ev->fd >= 0 &&
		    !swept && !serve_queue_room(&l->s.queue))
			return;
		/* Those after it, while it is served. */
		l->s.st.in_hand = l->ev_nr - ++l->ev_next;
		if (ev->type == SFRAME_EVENT_NEED_SIDECAR && ev->fd >= 0) {
			serve_file(&l->s, ev->fd, swept, ev->owner);
			close(ev->fd);
		} else if (ev->type == SFRAME_EVENT_OVERFLOW) {
			fprintf(stderr, "sframectl: serve: %llu reports lost; asking the module for what is mapped\n",
				(unsigned long long)ev->lost);
			l->lost = true;
		}
	}
	if (l->ev_nr) {
		l->ev_nr = 0;
		serve_publish(&l->s, l->sweep ? "scanning" : serve_idle(&l->s));
		fflush(stdout);
	}
}

/*
 * One turn of the loop: poll() the module's reports (unless some are in
 * hand still), the signals and every child's pipe, for at most @wait ms
 * (-1: no limit) and no later than the first child's deadline or the
 * first waiting file's credit; end the children that finished or ran out
 * of time, start the files waiting, and read the next reports (during a
 * sweep, before anything else).  1 to go on, 0 when poll() timed out, -1
 * when the service must end.
 */
static int serve_turn(struct serve_loop *l, int wait)
{
	struct pollfd pfd[2 + SERVE_JOBS_MAX];
	struct serve_job *ended[SERVE_JOBS_MAX];
	bool in_hand = l->ev_next < l->ev_nr, reports;
	unsigned int i, k;
	int n, left;

	/*
	 * A waiting file whose owner's credit came due while others were
	 * served starts now: the wait below counts only credit still to come.
	 */
	serve_pump(&l->s);
	pfd[0] = (struct pollfd){ .fd = l->sig, .events = POLLIN };
	pfd[1] = (struct pollfd){
		.fd = in_hand ? -1 : l->watch, .events = POLLIN,
	};
	k = serve_jobs_poll(&l->s.jobs, pfd + 2, &wait);
	/* Files waiting for their owner's credit: until the first has it. */
	left = serve_queue_wait_ms(&l->s.queue);
	if (left >= 0 && (wait < 0 || left < wait))
		wait = left;
	n = poll(pfd, 2 + k, wait);
	if (n < 0 && errno != EINTR)
		return -1;
	if (n > 0 && pfd[0].revents) {
		l->stopped = true;
		return -1;
	}
	reports = n > 0 && pfd[1].revents;
	/*
	 * A sweep's reports before the children: the module's queue, which
	 * the sweep fills, must be read before files that wait are read.
	 */
	if (l->sweep && reports)
		return serve_read(l) < 0 ? -1 : 1;
	k = serve_jobs_reap(&l->s.jobs, pfd + 2, n > 0, ended);
	for (i = 0; i < k; i++)
		serve_complete(&l->s, ended[i]);
	serve_pump(&l->s);
	if (k && l->s.st.doing && (!strcmp(l->s.st.doing, "generating") ||
				   !strcmp(l->s.st.doing, "idle")))
		serve_publish(&l->s, serve_idle(&l->s));
	if (reports)
		return serve_read(l) < 0 ? -1 : 1;
	/* A sweep goes on once its part is read to the end. */
	if (l->sweep && !in_hand && serve_sweep_step(l))
		return -1;
	return n != 0;
}

/*
 * Serve until a signal ends the service (--once: until what the sweeps
 * started has ended): 0; or until it must end for another reason (said):
 * -1.
 */
static int serve_loop(struct serve_loop *l)
{
	int wait, n;

	for (;;) {
		bool done = l->once && l->sweeps && !l->sweep && !l->lost &&
			    l->ev_next >= l->ev_nr &&
			    serve_queue_idle(&l->s.queue) &&
			    (!l->s.resweep || l->resweeps);

		if (serve_sweep_due(l, &wait)) {
			if (serve_sweep_ask(l, 0))
				return -1;
			continue;
		}
		serve_handle(l);
		/* During a sweep, only as long as it takes to read its part. */
		if (l->sweep && l->ev_next >= l->ev_nr)
			wait = 0;
		n = serve_turn(l, done ? 0 : wait);
		if (n < 0)
			return l->stopped ? 0 : -1;
		if (!n && done)
			return 0;
	}
}

/* The service ends: the reports read and not served are let go. */
static void serve_drop_in_hand(struct serve_loop *l)
{
	for (; l->ev_next < l->ev_nr; l->ev_next++)
		if (l->ev[l->ev_next].type == SFRAME_EVENT_NEED_SIDECAR &&
		    l->ev[l->ev_next].fd >= 0)
			close(l->ev[l->ev_next].fd);
}

/* We end: nothing of ours for status to read. */
static void serve_unpublish(struct serve *s)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/status", s->run_dir);
	unlink(path);
}

/* The cache or runtime directory: ours, and writable by no one else. */
static int serve_own_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 0022)) {
		fprintf(stderr, "sframectl: serve: %s: not a directory of ours that only we can write\n",
			dir);
		return -1;
	}
	return 0;
}

/* A size in MiB, at least 1: 0, or -1 (said). */
static int serve_mib(const char *opt, const char *arg, unsigned int *mib)
{
	char *end;

	errno = 0;
	*mib = strtoul(arg, &end, 10);
	if (!errno && !*end && *mib)
		return 0;
	fprintf(stderr, "sframectl: serve: %s %s: not a size in MiB\n", opt,
		arg);
	return -1;
}

static const struct option serve_options[] = {
	{ "cache", required_argument, NULL, 'c' },
	{ "cache-max-mb", required_argument, NULL, 'm' },
	{ "owner-cache-mb", required_argument, NULL, 'o' },
	{ "run-dir", required_argument, NULL, 'r' },
	{ "root-only", no_argument, NULL, 'R' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "once", no_argument, NULL, '1' },
	{ NULL, 0, NULL, 0 },
};

/* Its options into @l and the rest: 0, or -1 (the usage said). */
static int serve_args(int argc, char **argv, struct serve_loop *l,
		      const char **dir, unsigned int *cache_max_mb,
		      unsigned int *owner_mb)
{
	int opt, bad = 0;

	while (!bad && (opt = getopt_long(argc, argv, "", serve_options,
					  NULL)) != -1) {
		switch (opt) {
		case 'c':
			*dir = optarg;
			break;
		case 'm':
			bad = serve_mib("--cache-max-mb", optarg, cache_max_mb);
			break;
		case 'o':
			bad = serve_mib("--owner-cache-mb", optarg, owner_mb);
			break;
		case 'r':
			l->s.run_dir = optarg;
			break;
		case 'R':
			l->s.root_only = true;
			break;
		case 'j':
			l->s.jobs.nr = atoi(optarg);
			bad = l->s.jobs.nr < 1 || l->s.jobs.nr > SERVE_JOBS_MAX;
			break;
		case '1':
			l->once = true;
			break;
		default:
			bad = 1;
		}
	}
	if (!bad && optind == argc)
		return 0;
	fprintf(stderr, "usage: sframectl serve [--cache DIR] [--cache-max-mb N] [--owner-cache-mb N] [--run-dir DIR] [--root-only] [--jobs 1-%d] [--once]\n",
		SERVE_JOBS_MAX);
	return -1;
}

/* The service's state before anything is opened. */
static void serve_init(struct serve_loop *l)
{
	*l = (struct serve_loop){
		.s = {
			.dev = -1, .run_dir = SFRAME_RUN_DIR,
			.jobs.nr = SERVE_JOBS,
			.queue.now = serve_gen_now,
		},
		.watch = -1, .sig = -1, .lock = -1,
	};
}

/* Block SIGTERM and SIGINT, to be read through l->sig: 0, or -1 (said). */
static int serve_signals(struct serve_loop *l)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	if (!sigprocmask(SIG_BLOCK, &stop, NULL))
		l->sig = signalfd(-1, &stop, SFD_CLOEXEC);
	if (l->sig >= 0)
		return 0;
	fprintf(stderr, "sframectl: serve: signalfd: %s\n", strerror(errno));
	return -1;
}

/*
 * sframectl serve [--cache DIR] [--cache-max-mb N] [--owner-cache-mb N]
 *                 [--run-dir DIR] [--root-only] [--jobs N] [--once]
 */
int sframe_serve_command(int argc, char **argv)
{
	unsigned int cache_max_mb = SERVE_CACHE_MAX_MB;
	unsigned int owner_mb = SERVE_OWNER_CACHE_MB;
	const char *dir = SERVE_CACHE_DIR;
	struct serve_loop l;
	struct serve *s = &l.s;
	int err, ret = EXIT_USAGE;

	serve_init(&l);
	if (serve_args(argc, argv, &l, &dir, &cache_max_mb, &owner_mb))
		return EXIT_USAGE;
	s->queue.jobs = s->jobs.nr;
	s->queue.owner_cache_max = (unsigned long long)owner_mb << 20;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (serve_own_dir(dir) || serve_own_dir(s->run_dir))
		return EXIT_USAGE;
	s->dev = sframe_open_device();
	if (s->dev < 0)
		return EXIT_USAGE;
	/* Watch first, then sweep: a file mapped in between is reported. */
	l.watch = ioctl(s->dev, SFRAME_IOC_WATCH);
	if (l.watch < 0 || fcntl(l.watch, F_SETFL, O_NONBLOCK)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", SFRAME_DEVICE,
			errno == EBUSY ? "another sframectl serve is running" :
			strerror(errno));
		goto out;
	}
	l.lock = sframe_serve_lock(s->run_dir);
	if (l.lock < 0)
		goto out;
	/*
	 * Only the one service may open the cache: opening removes what an
	 * unfinished write left, which a running service may be writing.
	 */
	err = serve_cache_open(&s->cache, dir, cache_max_mb, &s->st.cache);
	if (err) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", dir,
			strerror(-err));
		goto out;
	}
	s->st.started = sframe_serve_clock();
	if (serve_signals(&l) || serve_sweep_ask(&l, 0))
		goto out;
	err = serve_loop(&l);
	serve_jobs_stop(&s->jobs);
	serve_drop_in_hand(&l);
	/* A service that could not finish its first sweep never started. */
	if (err && !l.sweeps)
		goto out;
	serve_report(s, "at exit");
	ret = 0;
out:
	if (l.lock >= 0) {
		serve_unpublish(s);
		close(l.lock);
	}
	if (l.sig >= 0)
		close(l.sig);
	if (l.watch >= 0)
		close(l.watch);
	close(s->dev);
	serve_seen_free(&s->seen);
	serve_queue_clear(&s->queue);
	return ret;
}
