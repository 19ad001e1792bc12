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
 * A sidecar not in the cache is made by a child, a few at once, while the
 * loop goes on serving (serve_jobs.c, serve_queue.c): what is cached is
 * loaded at once whatever is being translated.
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
#include "atomic_write.h"
#include "serve.h"

#define SERVE_CACHE_DIR	"/var/cache/sframe-unwind"
#define SERVE_EVENTS	16		/* records per read() */
/* Has SIGTERM or SIGINT come (blocked, read through a signalfd)? */
static bool serve_stopping(const struct serve *s)
{
	struct pollfd p = { .fd = s->sig, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* The name @fd's file has now, for messages only. */
static void serve_fd_name(int fd, char *name, size_t size)
{
	char link[64], path[PATH_MAX];
	size_t i, k = 0;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path));
	if (n <= 0) {
		snprintf(name, size, "(descriptor %d)", fd);
		return;
	}
	/* A user names his files: no byte of a name may forge a log line. */
	for (i = 0; i < (size_t)n && k + 5 <= size; i++) {
		unsigned char c = path[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			k += snprintf(name + k, size - k, "\\%03o", c);
		else
			name[k++] = c;
	}
	name[k] = '\0';
}

/* Tell sframectl status what we are doing and have done. */
static void serve_publish(struct serve *s, const char *doing)
{
	char path[PATH_MAX], text[1024];
	size_t size;
	int ret;

	s->st.doing = doing;
	size = sframe_serve_format(&s->st, text, sizeof(text));
	snprintf(path, sizeof(path), "%s/status", s->run_dir);
	ret = atomic_write(s->run_dir, path, &(struct iovec){ text, size }, 1);
	if (ret && !s->publish_failed) {
		fprintf(stderr, "sframectl: serve: %s: %s; status will not show us\n",
			path, strerror(-ret));
		s->publish_failed = true;
	}
}

/* We end: nothing of ours for status to read. */
static void serve_unpublish(struct serve *s)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/status", s->run_dir);
	unlink(path);
}

/*
 * The cache entry of @obj for @fill in *@key: named by a digest of the
 * bytes read for it now, every time.  A digest kept from an earlier
 * supply would name another file's sidecar once a user's file with the
 * same identity gave way to it (an inode reused, times set back).
 */
static int serve_key(struct serve *s, const struct sframe_input *obj,
		     bool fill, struct serve_cache_key *key)
{
	u8 digest[SERVE_CACHE_DIGEST];

	if (serve_cache_file_digest(obj->file, obj->file_size, digest))
		return -ENOMEM;
	return serve_cache_key(&s->cache, digest, fill, key);
}

/*
 * Is the file open at @fd no longer what its record @rec says it was when
 * reported: another size, or another change time, which no user can set
 * back?  Best effort: a store through a shared mapping moves no time
 * until written back.  What names the cache entry is the digest of the
 * bytes read, whatever this says.
 */
static bool serve_changed(int fd, const struct serve_seen *rec)
{
	struct stat st;

	return fstat(fd, &st) || st.st_size != rec->size ||
	       st.st_ctim.tv_sec != rec->ctime.tv_sec ||
	       st.st_ctim.tv_nsec != rec->ctime.tv_nsec;
}

/*
 * Supply the object open at @fd (its record: s->seen.rec[@seen]): its sidecar
 * from the cache at once, else from a generator child (@swept: only a
 * sweep reported it).
 */
static void serve_supply(struct serve *s, int fd, size_t seen, bool swept,
			 uid_t owner)
{
	char msg[SFRAME_MSG_MAX] = "", name[PATH_MAX];
	struct serve_seen *rec = &s->seen.rec[seen];
	bool fill, changed;
	struct serve_cache_key key;
	struct sframe_input obj;
	struct sframe_code code;
	u8 *side = NULL;
	int ret, input = -1;
	size_t size;

	serve_paced(s, owner, rec->size, true);	/* what it costs its owner */
	serve_fd_name(fd, name, sizeof(name));
	/* A file that waited was read once already through this open. */
	if (lseek(fd, 0, SEEK_SET)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", name,
			strerror(errno));
		s->st.failed[SFRAME_SERVE_UNREADABLE]++;
		goto published;
	}
	/*
	 * No more than its report's size, on which its share was judged;
	 * held once, sealed, as a child would get it.
	 */
	input = sframe_input_load_sealed(&obj, fd, name, rec->size, msg,
					 sizeof(msg));
	changed = serve_changed(fd, rec);
	if (input < 0 || changed) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", name,
			changed ? "changed after it was reported; not served" :
				  msg);
		s->st.failed[changed ? SFRAME_SERVE_CHANGED :
				       SFRAME_SERVE_UNREADABLE]++;
		/* Its new self gets a record of its own when swept again. */
		s->resweep |= changed;
		goto out;
	}
	if (sframe_elf_code(obj.file, obj.file_size, &code, msg,
			    sizeof(msg))) {
		s->st.not_elf++;
		goto out;
	}
	/* Its own section may leave code out: fill only that. */
	fill = code.has_sframe;
	if (serve_key(s, &obj, fill, &key)) {
		s->st.failed[SFRAME_SERVE_CACHE]++;
		goto out;
	}
	if (!serve_cache_get(&s->cache, &key, &side, &size)) {
		ret = sframe_load_sidecar_obj(s->dev, fd, name, &code,
					      key.path, side, size, fill);
		if (ret != EXIT_INVALID) {
			serve_loaded(s, seen, ret, true, fill);
			goto out;
		}
		fprintf(stderr, "sframectl: serve: %s: not a sidecar for %s; made again\n",
			key.path, name);
		serve_cache_drop(&s->cache, &key);
	}
	serve_generate(s, fd, seen, swept, owner, name, input, obj.file_size,
		       &code, fill, &key);
out:
	free(side);
	sframe_input_free(&obj);
	if (input >= 0)
		close(input);
published:
	serve_publish(s, s->st.doing);
}

/*
 * The record of every file handled is full: forget all but those of the
 * files in flight (running or waiting), whose indices are renumbered.
 * 0, or -1 without memory.
 */
static int serve_forget(struct serve *s)
{
	size_t *in_use[SERVE_JOBS_MAX + SERVE_QUEUE_MAX];
	unsigned int i, n = 0;

	for (i = 0; i < s->jobs; i++)
		if (s->work[i].gen.pid)
			in_use[n++] = &s->work[i].seen;
	for (i = 0; i < s->queued; i++)
		in_use[n++] = &s->queue[i].seen;
	return serve_seen_keep(&s->seen, in_use, n);
}

/*
 * Supply the object the module reported open at @fd (@swept: found by a
 * sweep; @owner: charged for it), unless it is not ours to do or is
 * known to need nothing from us.  A report says it has no sidecar now
 * (never had one, or it was released with the file's entry): one
 * supplied before is supplied again, from the cache.
 */
static void serve_file(struct serve *s, int fd, bool swept, uid_t owner)
{
	char name[PATH_MAX];
	struct serve_seen *seen;
	struct stat st;
	bool first, roots;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	roots = st.st_uid == 0 && !(st.st_mode & 0022);
	/* Before remembering it: a user's flood must not grow our memory. */
	if (s->root_only && !roots) {
		s->st.not_roots++;
		return;
	}
	if (roots)
		owner = 0;
	if (owner && st.st_size > SERVE_OWNER_FILE_MAX) {
		serve_fd_name(fd, name, sizeof(name));
		fprintf(stderr, "sframectl: serve: %s: %lld bytes, over the %lld a file of uid %u may have; not served\n",
			name, (long long)st.st_size, SERVE_OWNER_FILE_MAX,
			(unsigned int)owner);
		s->st.failed[SFRAME_SERVE_OWNER_SHARE]++;
		return;
	}
	if (st.st_size > SERVE_FILE_MAX) {
		serve_fd_name(fd, name, sizeof(name));
		fprintf(stderr, "sframectl: serve: %s: %lld bytes, over the %lld the service reads of a file; not served\n",
			name, (long long)st.st_size, SERVE_FILE_MAX);
		s->st.failed[SFRAME_SERVE_TOO_LARGE]++;
		return;
	}
	seen = serve_remember(&s->seen, &st, &first);
	/* All remembered: forget all but those in flight. */
	if (!seen && s->seen.nr == SERVE_SEEN_MAX && !serve_forget(s))
		seen = serve_remember(&s->seen, &st, &first);
	if (!seen) {
		serve_fd_name(fd, name, sizeof(name));
		fprintf(stderr, "sframectl: serve: %s: no memory to remember it; put off\n",
			name);
		s->st.failed[SFRAME_SERVE_QUEUE_FULL]++;
		s->resweep = true;
		return;
	}
	/* One child per file: its end supplies every mapping of it. */
	if (!first && (seen->no_sidecar ||
			serve_busy(s, seen - s->seen.rec, swept)))
		return;
	/* Its owner's pace first: a flood of one user's waits its turn. */
	if (!serve_paced(s, owner, st.st_size, false)) {
		serve_fd_name(fd, name, sizeof(name));
		serve_wait(s, fd, seen - s->seen.rec, swept, owner, name);
		return;
	}
	/* What fails before the hand-over is logged once, not tried again. */
	seen->no_sidecar = true;
	serve_supply(s, fd, seen - s->seen.rec, swept, owner);
}

/* "idle" once no child runs and none waits. */
static const char *serve_idle(const struct serve *s)
{
	return s->running || s->queued ? "generating" : "idle";
}

/* Start the files waiting while workers are free for them. */
static void serve_pump(struct serve *s)
{
	struct serve_waiting next;
	int i;

	while ((i = serve_next(s)) >= 0) {
		next = s->queue[i];
		memmove(s->queue + i, s->queue + i + 1,
			(--s->queued - i) * sizeof(*s->queue));
		s->queued_swept -= next.swept;
		/* As serve_file(): a failure is logged once. */
		s->seen.rec[next.seen].no_sidecar = true;
		serve_supply(s, next.fd, next.seen, next.swept, next.owner);
		close(next.fd);
	}
}

/*
 * poll() the @nr descriptors @pfd and every child's pipe, for at most
 * @wait ms (-1: no limit) and no later than the first child's deadline;
 * then end every child that finished or ran out of time, and start the
 * files waiting.  poll()'s result; @pfd's revents as it set them.
 */
static int serve_poll(struct serve *s, struct pollfd *pfd, unsigned int nr,
		      int wait)
{
	struct pollfd all[2 + SERVE_JOBS_MAX];
	struct serve_work *job[SERVE_JOBS_MAX];
	long long now = serve_gen_now(), left;
	enum serve_gen_end end;
	unsigned int i, k = 0;
	int n;

	memcpy(all, pfd, nr * sizeof(*pfd));
	for (i = 0; i < s->jobs; i++) {
		if (!s->work[i].gen.pid)
			continue;
		job[k] = &s->work[i];
		all[nr + k++] = (struct pollfd){
			.fd = s->work[i].gen.out, .events = POLLIN,
		};
		left = s->work[i].gen.deadline - now;
		left = left < 0 ? 0 : left;
		if (wait < 0 || left < wait)
			wait = left;
	}
	/* Files waiting for their owner's credit: until the first has it. */
	left = serve_pace_wait(s);
	if (left >= 0 && (wait < 0 || left < wait))
		wait = left;
	n = poll(all, nr + k, wait);
	memcpy(pfd, all, nr * sizeof(*pfd));
	for (i = 0; i < k; i++) {
		end = SERVE_GEN_RUNNING;
		if (n > 0 && all[nr + i].revents)
			end = serve_gen_read(&job[i]->gen);
		if (end == SERVE_GEN_RUNNING)
			end = serve_gen_expire(&job[i]->gen, serve_gen_now());
		if (end != SERVE_GEN_RUNNING)
			serve_job_end(s, job[i], end);
	}
	serve_pump(s);
	if (k && (!strcmp(s->st.doing, "generating") ||
		  !strcmp(s->st.doing, "idle")))
		serve_publish(s, serve_idle(s));
	return n;
}

static void serve_report(const struct serve *s, const char *when)
{
	printf("sframectl serve: %s: %u sidecars generated, %u from the cache, %u objects with SFrame of their own, %u of them with gaps filled, %u not root's, %u failed, %u loaded by hand\n",
	       when, s->st.generated, s->st.cached, s->st.own + s->st.filled,
	       s->st.filled, s->st.not_roots, sframe_serve_failed(&s->st),
	       s->st.by_hand);
}

/*
 * Read the module's reports waiting (one batch) and act on them: how
 * many there were, 0 if none waited, -1 when the service must end.  Lost
 * reports set s->lost: the caller sweeps.
 */
static int serve_drain(struct serve *s)
{
	struct pollfd stop = { .fd = s->sig, .events = POLLIN };
	struct sframe_event ev[SERVE_EVENTS];
	bool swept;
	ssize_t n;
	int i;

	n = read(s->watch, ev, sizeof(ev));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;		/* never from the module */
	s->st.in_hand = n / sizeof(*ev);
	serve_publish(s, "serving");
	for (i = 0; i < n / (ssize_t)sizeof(*ev); i++) {
		s->st.in_hand--;
		if (ev[i].type == SFRAME_EVENT_NEED_SIDECAR && ev[i].fd >= 0) {
			swept = ev[i].flags & SFRAME_EVENT_F_SWEPT;
			/* Wait for room rather than drop a file mapped now. */
			while (!swept && s->queued == SERVE_QUEUE_MAX &&
			       !serve_stopping(s))
				serve_poll(s, &stop, 1, -1);
			serve_file(s, ev[i].fd, swept, ev[i].owner);
			close(ev[i].fd);
		} else if (ev[i].type == SFRAME_EVENT_OVERFLOW) {
			fprintf(stderr, "sframectl: serve: %llu reports lost; asking the module for what is mapped\n",
				(unsigned long long)ev[i].lost);
			s->lost = true;
		}
	}
	serve_publish(s, serve_idle(s));
	fflush(stdout);
	return n / sizeof(*ev);
}

/*
 * Ask the module for every object mapped now that needs a sidecar (at
 * start, when reports were lost, and when swept files were put off and
 * the others swept are done), and serve its reports as they come.  The
 * module's queue takes only so many at a time, so it is drained and
 * asked to go on until the sweep is done.  Reports lost meanwhile leave
 * s->lost set for the next sweep, which serve_sweep_due() spaces out.
 * 0, or -1 when the service must end (said).
 */
static int serve_sweep(struct serve *s)
{
	unsigned long how = 0;
	int ret, n;

	s->lost = false;
	s->resweeps += s->resweep;
	s->resweep = false;
	serve_publish(s, "scanning");
	while (!serve_stopping(s)) {
		ret = ioctl(s->watch, SFRAME_IOC_REPORT_MAPPED, how);
		if (ret < 0) {
			fprintf(stderr, "sframectl: serve: %s: cannot ask for what is mapped: %s\n",
				SFRAME_DEVICE, strerror(errno));
			return -1;
		}
		while ((n = serve_drain(s)) > 0 && !serve_stopping(s))
			;
		if (n < 0)
			return -1;
		if (!ret)
			break;
		how = SFRAME_REPORT_CONTINUE;
	}
	/* From its end: a sweep slower than the spacing is not run again. */
	s->swept_at = serve_gen_now();
	serve_publish(s, serve_idle(s));
	return 0;
}

/*
 * Must we sweep now: reports were lost and the last sweep ended
 * SERVE_LOST_SWEEP_MS ago, or files were put off, those a sweep found
 * are done, and the last sweep ended SERVE_RESWEEP_MS ago (--once: one such
 * sweep at most, @once)?  Otherwise in *@wait, how long until a sweep put
 * off for time is due, -1 if none.
 */
static bool serve_sweep_due(const struct serve *s, bool once, int *wait)
{
	long long now = serve_gen_now();
	long long left = s->swept_at + SERVE_RESWEEP_MS - now;

	*wait = -1;
	if (s->lost) {
		left = s->swept_at + SERVE_LOST_SWEEP_MS - now;
		if (left <= 0)
			return true;
		*wait = left;
		return false;
	}
	if (!s->resweep || s->queued_swept || s->running_swept ||
	    (once && s->resweeps))
		return false;
	if (left <= 0 || once)
		return true;
	*wait = left;
	return false;
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

/* Its options into @s and the rest: 0, or -1 (the usage said). */
static int serve_args(int argc, char **argv, struct serve *s,
		      unsigned int *cache_max_mb, unsigned int *owner_mb,
		      bool *once)
{
	int opt, bad = 0;

	while (!bad && (opt = getopt_long(argc, argv, "", serve_options,
					  NULL)) != -1) {
		switch (opt) {
		case 'c':
			s->dir = optarg;
			break;
		case 'm':
			bad = serve_mib("--cache-max-mb", optarg, cache_max_mb);
			break;
		case 'o':
			bad = serve_mib("--owner-cache-mb", optarg, owner_mb);
			break;
		case 'r':
			s->run_dir = optarg;
			break;
		case 'R':
			s->root_only = true;
			break;
		case 'j':
			s->jobs = atoi(optarg);
			bad = s->jobs < 1 || s->jobs > SERVE_JOBS_MAX;
			break;
		case '1':
			*once = true;
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

/*
 * sframectl serve [--cache DIR] [--cache-max-mb N] [--owner-cache-mb N]
 *                 [--run-dir DIR] [--root-only] [--jobs N] [--once]
 */
int sframe_serve_command(int argc, char **argv)
{
	struct serve s = {
		.dir = SERVE_CACHE_DIR, .run_dir = SFRAME_RUN_DIR, .dev = -1,
		.watch = -1, .sig = -1, .lock = -1, .jobs = SERVE_JOBS,
	};
	unsigned int cache_max_mb = SERVE_CACHE_MAX_MB;
	unsigned int owner_mb = SERVE_OWNER_CACHE_MB;
	struct pollfd pfd[2];
	bool once = false;
	sigset_t stop;
	int err, ret = EXIT_USAGE;

	if (serve_args(argc, argv, &s, &cache_max_mb, &owner_mb, &once))
		return EXIT_USAGE;
	s.owner_cache_max = (unsigned long long)owner_mb << 20;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (serve_own_dir(s.dir) || serve_own_dir(s.run_dir))
		return EXIT_USAGE;
	s.dev = sframe_open_device();
	if (s.dev < 0)
		return EXIT_USAGE;
	/* Watch first, then sweep: a file mapped in between is reported. */
	s.watch = ioctl(s.dev, SFRAME_IOC_WATCH);
	if (s.watch < 0 || fcntl(s.watch, F_SETFL, O_NONBLOCK)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", SFRAME_DEVICE,
			errno == EBUSY ? "another sframectl serve is running" :
			strerror(errno));
		goto out;
	}
	s.lock = sframe_serve_lock(s.run_dir);
	if (s.lock < 0)
		goto out;
	/*
	 * Only the one service may open the cache: opening removes what an
	 * unfinished write left, which a running service may be writing.
	 */
	err = serve_cache_open(&s.cache, s.dir, cache_max_mb, &s.st.cache);
	if (err) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", s.dir,
			strerror(-err));
		goto out;
	}
	s.st.started = sframe_serve_clock();
	serve_publish(&s, "scanning");
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	if (!sigprocmask(SIG_BLOCK, &stop, NULL))
		s.sig = signalfd(-1, &stop, SFD_CLOEXEC);
	if (s.sig < 0) {
		fprintf(stderr, "sframectl: serve: signalfd: %s\n", strerror(errno));
		goto out;
	}
	if (serve_sweep(&s))
		goto out;
	serve_report(&s, "mapped at start");
	pfd[0] = (struct pollfd){ .fd = s.watch, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = s.sig, .events = POLLIN };
	for (;;) {
		/* --once: until what the sweeps started has ended. */
		bool done = once && !s.running && !s.queued && !s.lost &&
			    (!s.resweep || s.resweeps);
		int n, wait;

		if (serve_sweep_due(&s, once, &wait)) {
			if (serve_sweep(&s))
				break;
			continue;
		}
		n = serve_poll(&s, pfd, 2, done ? 0 : wait);
		if ((n < 0 && errno != EINTR) || (n == 0 && done) ||
		    (n > 0 && pfd[1].revents))
			break;
		if (n > 0 && pfd[0].revents && serve_drain(&s) < 0)
			break;
	}
	serve_stop_jobs(&s);
	serve_report(&s, "at exit");
	ret = 0;
out:
	if (s.lock >= 0) {
		serve_unpublish(&s);
		close(s.lock);
	}
	if (s.sig >= 0)
		close(s.sig);
	if (s.watch >= 0)
		close(s.watch);
	close(s.dev);
	serve_seen_free(&s.seen);
	free(s.shares);
	return ret;
}
