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
 * loop goes on serving: what is cached is loaded at once whatever is
 * being translated.
 *
 * What it has done is published for sframectl status in its runtime
 * directory (serve_status.c), rewritten after each object and batch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include "serve_cache.h"
#include "serve_gen.h"
#include "sframectl.h"

#define SERVE_CACHE_DIR	"/var/cache/sframe-unwind"
#define SERVE_EVENTS	16		/* records per read() */
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
 * A child's budgets: wall-clock time (TCG included), CPU time, and
 * address space beyond what it inherits: a base plus a multiple of the
 * input's size; its result is at most what the module takes.
 */
#define SERVE_GEN_WALL_MS	60000
#define SERVE_GEN_CPU_SECONDS	60
#define SERVE_GEN_MEMORY	(256ULL << 20)
#define SERVE_GEN_MEMORY_PER_BYTE 32
#define SERVE_GEN_OUT_MAX	(64U << 20)

/* A file already handled, by identity. */
struct serve_seen {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool no_sidecar;		/* none from us: own SFrame, failed */
	bool digested;			/* digest holds its bytes' */
	u8 digest[SERVE_CACHE_DIGEST];	/* serve_cache_file_digest() */
};

/* A file being translated by a generator child. */
struct serve_work {
	struct serve_gen_job gen;	/* gen.pid 0: this worker is free */
	int fd;				/* the report's, held until the end */
	size_t seen;			/* its index in serve->seen */
	struct sframe_input obj;
	struct sframe_code code;
	bool fill;
	bool swept;			/* a sweep found it */
	uid_t owner;			/* whose share it counts against */
	struct serve_gen_input in;	/* the child's: obj's bytes */
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

/* What an owner's sidecars have stored in the disk cache this run. */
struct serve_share {
	uid_t owner;
	unsigned long long stored;	/* bytes */
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
	struct serve_seen *seen;
	size_t nr_seen, cap_seen;
	bool lost;			/* reports were lost: sweep */
	bool resweep;			/* swept files were put off: sweep */
	struct sframe_serve_state st;
	struct serve_work work[SERVE_JOBS_MAX];
	unsigned int jobs;		/* of work[] in use at most */
	unsigned int running;
	struct serve_waiting queue[SERVE_QUEUE_MAX];
	unsigned int queued;
	unsigned int queued_swept;	/* of queue[], those swept */
	unsigned int running_swept;	/* of the children, those swept */
};

/* Has SIGTERM or SIGINT come (blocked, read through a signalfd)? */
static bool serve_stopping(const struct serve *s)
{
	struct pollfd p = { .fd = s->sig, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * What is known of this file: its record, new (*@first) if it was never
 * handled before.  NULL on ENOMEM.
 */
static struct serve_seen *serve_remember(struct serve *s,
					 const struct stat *st, bool *first)
{
	struct serve_seen *n;
	size_t i;

	*first = false;
	for (i = 0; i < s->nr_seen; i++) {
		n = &s->seen[i];
		if (n->dev == st->st_dev && n->ino == st->st_ino &&
		    n->size == st->st_size &&
		    n->mtime.tv_sec == st->st_mtim.tv_sec &&
		    n->mtime.tv_nsec == st->st_mtim.tv_nsec)
			return n;
	}
	if (s->nr_seen == s->cap_seen) {
		size_t cap = s->cap_seen ? 2 * s->cap_seen : 256;

		n = reallocarray(s->seen, cap, sizeof(*n));
		if (!n)
			return NULL;
		s->seen = n;
		s->cap_seen = cap;
	}
	n = &s->seen[s->nr_seen++];
	*n = (struct serve_seen){
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime = st->st_mtim,
	};
	*first = true;
	return n;
}

/* The name @fd's file has now, for messages only. */
static void serve_fd_name(int fd, char *name, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, name, size - 1);
	if (n <= 0)
		n = snprintf(name, size, "(descriptor %d)", fd);
	else
		name[n] = '\0';
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

/* Count what loading @seen's sidecar (from the cache or not) came to. */
static void serve_loaded(struct serve *s, size_t seen, int ret,
			 bool from_cache, bool fill)
{
	if (ret == -ENODATA)
		s->st.own++;
	else if (ret == -EEXIST)
		s->st.by_hand++;
	else if (ret > 0)
		s->st.failed[SFRAME_SERVE_NOT_LOADED]++;
	else if (!ret && from_cache)
		s->st.cached++;
	else if (!ret)
		s->st.generated++;
	s->st.filled += fill && !ret;
	/* The module's refusal for want of memory may not last. */
	s->seen[seen].no_sidecar = ret == EXIT_INVALID || ret == -ENODATA;
}

/*
 * May @size more bytes of @owner's go to the disk cache?  Counted as
 * stored if so.
 */
static bool serve_may_store(struct serve *s, uid_t owner, size_t size)
{
	struct serve_share *sh;
	size_t i;

	if (!owner)
		return true;
	for (i = 0; i < s->nr_shares && s->shares[i].owner != owner; i++)
		;
	if (i == s->nr_shares) {
		sh = reallocarray(s->shares, i + 1, sizeof(*sh));
		if (!sh)
			return false;
		s->shares = sh;
		s->shares[s->nr_shares++] = (struct serve_share){ owner, 0 };
	}
	sh = &s->shares[i];
	if (sh->stored + size > s->owner_cache_max)
		return false;
	sh->stored += size;
	return true;
}

/* The child's words fit for our log: no control character, no newline. */
static void serve_printable(unsigned char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (text[i] < 0x20 || text[i] >= 0x7f)
			text[i] = '?';
}

/*
 * Worker @w's job has ended as @end: check and load its result, then
 * cache it.  It came from untrusted code: the load checks it as load
 * checks a file, once, and only what passed is cached.
 */
static void serve_job_end(struct serve *s, struct serve_work *w,
			  enum serve_gen_end end)
{
	bool invalid = false;
	int fail = -1, ret = 0;

	if (end == SERVE_GEN_DONE) {
		ret = sframe_load_sidecar_obj(s->dev, w->fd, w->name, &w->obj,
					      &w->code, w->key.path,
					      w->gen.buf, w->gen.len, w->fill);
		invalid = ret == EXIT_INVALID;
	}

	switch (invalid ? SERVE_GEN_TOO_LARGE : end) {
	case SERVE_GEN_DONE:
		serve_loaded(s, w->seen, ret, false, w->fill);
		/* Refused for want of memory: perhaps before the checks. */
		if (ret > 0)
			break;
		ret = 0;
		if (serve_may_store(s, w->owner, w->gen.len))
			ret = serve_cache_put(&s->cache, &w->key, w->gen.buf,
					      w->gen.len);
		else
			s->st.not_stored++;
		if (ret) {
			fprintf(stderr, "sframectl: serve: %s: %s\n",
				w->key.path, strerror(-ret));
			fail = SFRAME_SERVE_CACHE;
		}
		break;
	case SERVE_GEN_FAILED:
		serve_printable(w->gen.buf, w->gen.len);
		fprintf(stderr, "sframectl: serve: %s: cannot generate SFrame: %.*s\n",
			w->name, (int)(w->gen.len < SFRAME_MSG_MAX ?
				       w->gen.len : SFRAME_MSG_MAX),
			(char *)w->gen.buf);
		fail = SFRAME_SERVE_NO_SFRAME;
		break;
	case SERVE_GEN_NOT_STARTED:
		fprintf(stderr, "sframectl: serve: %s: cannot generate SFrame: no generator child: %s\n",
			w->name, strerror(errno));
		fail = SFRAME_SERVE_NO_SFRAME;
		break;
	case SERVE_GEN_KILLED:
		fprintf(stderr, "sframectl: serve: %s: generator killed by signal %d\n",
			w->name, w->gen.signal);
		fail = SFRAME_SERVE_GEN_KILLED;
		break;
	case SERVE_GEN_OVER_TIME:
		fprintf(stderr, "sframectl: serve: %s: generator over time (%u ms): killed\n",
			w->name, SERVE_GEN_WALL_MS);
		fail = SFRAME_SERVE_GEN_OVER_TIME;
		break;
	default:
		fprintf(stderr, "sframectl: serve: %s: generator output invalid%s\n",
			w->name, invalid ? "" : ": too large");
		fail = SFRAME_SERVE_GEN_INVALID;
		break;
	}
	if (fail >= 0) {
		s->st.failed[fail]++;
		s->seen[w->seen].no_sidecar = true;
	}
	serve_gen_free(&w->gen);
	sframe_input_free(&w->obj);
	close(w->fd);
	w->fd = -1;
	s->running--;
	s->running_swept -= w->swept;
}

/* Children running for @owner, and files of its waiting. */
static unsigned int serve_owner_running(const struct serve *s, uid_t owner)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->jobs; i++)
		n += s->work[i].gen.pid && s->work[i].owner == owner;
	return n;
}

static unsigned int serve_owner_waiting(const struct serve *s, uid_t owner)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->queued; i++)
		n += s->queue[i].owner == owner;
	return n;
}

/*
 * May a child start now on a file of @owner's (@swept: only a sweep
 * reported it)?  With two workers or more, one is always left for what
 * is being mapped now: neither swept files nor any one owner but root
 * may take them all.
 */
static bool serve_may_start(const struct serve *s, bool swept, uid_t owner)
{
	unsigned int most = s->jobs < 2 ? s->jobs : s->jobs - 1;

	if (s->running >= s->jobs || (swept && s->running_swept >= most))
		return false;
	return !owner || serve_owner_running(s, owner) < most;
}

/*
 * Queue the file open at @fd (its record: s->seen[@seen]) until a worker
 * is free for it.  A file a sweep found that has no place is put off
 * until the next sweep, which finds it again; one mapped now that has
 * none is dropped and counted (serve_drain() waits for room first).
 */
static void serve_wait(struct serve *s, int fd, size_t seen, bool swept,
		       uid_t owner, const char *name)
{
	bool shared = !owner || serve_owner_waiting(s, owner) < SERVE_QUEUE_OWNER;
	bool room = s->queued < SERVE_QUEUE_MAX &&
		    (!swept || s->queued_swept < SERVE_QUEUE_SWEPT);

	fd = room && shared ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	s->seen[seen].no_sidecar = false;
	if (fd < 0 && swept) {
		s->resweep = true;
		return;
	}
	if (fd < 0 && !shared) {
		fprintf(stderr, "sframectl: serve: %s: %u files of uid %u waiting already; dropped\n",
			name, SERVE_QUEUE_OWNER, (unsigned int)owner);
		s->st.failed[SFRAME_SERVE_OWNER_SHARE]++;
		return;
	}
	if (fd < 0) {
		fprintf(stderr, "sframectl: serve: %s: %u files waiting already; dropped\n",
			name, s->queued);
		s->st.failed[SFRAME_SERVE_QUEUE_FULL]++;
		return;
	}
	s->queue[s->queued++] = (struct serve_waiting){ fd, seen, swept, owner };
	s->queued_swept += swept;
}

/*
 * Translate @obj, @name's bytes (ours to keep), in a child; or queue the
 * file, open at @fd, for later when no worker is free for it (@swept:
 * only a sweep reported it).
 */
static void serve_generate(struct serve *s, int fd, size_t seen, bool swept,
			   uid_t owner, const char *name, struct sframe_input *obj,
			   const struct sframe_code *code, bool fill,
			   const struct serve_cache_key *key)
{
	struct sandbox_limits lim = { .cpu_seconds = SERVE_GEN_CPU_SECONDS };
	struct serve_work *w = s->work;
	enum serve_gen_end end;

	while (w < s->work + s->jobs && w->gen.pid)
		w++;
	if (w == s->work + s->jobs || !serve_may_start(s, swept, owner)) {
		serve_wait(s, fd, seen, swept, owner, name);
		return;
	}
	w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	w->seen = seen;
	w->obj = *obj;
	memset(obj, 0, sizeof(*obj));
	w->code = *code;
	w->fill = fill;
	w->swept = swept;
	w->owner = owner;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->key = *key;
	lim.address_space = serve_gen_address_space(SERVE_GEN_MEMORY +
		SERVE_GEN_MEMORY_PER_BYTE * (unsigned long long)w->obj.file_size);
	w->in = (struct serve_gen_input){
		.name = w->name, .file = w->obj.file,
		.file_size = w->obj.file_size, .fill = fill,
	};
	s->running++;
	s->running_swept += swept;
	end = serve_gen_start(&w->gen, &lim, SERVE_GEN_WALL_MS,
			      SERVE_GEN_OUT_MAX, serve_gen_translate, &w->in);
	if (end != SERVE_GEN_RUNNING || w->fd < 0)
		serve_job_end(s, w, SERVE_GEN_NOT_STARTED);
}

/*
 * The cache entry of @obj (its record: @rec) for @fill in *@key: its
 * bytes are digested once a run, unless @fresh asks them digested again.
 */
static int serve_key(struct serve *s, struct serve_seen *rec,
		     const struct sframe_input *obj, bool fill, bool fresh,
		     struct serve_cache_key *key)
{
	if (fresh || !rec->digested) {
		if (serve_cache_file_digest(obj->file, obj->file_size,
					    rec->digest))
			return -ENOMEM;
		rec->digested = true;
	}
	return serve_cache_key(&s->cache, rec->digest, fill, key);
}

/*
 * Supply the object open at @fd (its record: s->seen[@seen]): its sidecar
 * from the cache at once, else from a generator child (@swept: only a
 * sweep reported it).
 */
static void serve_supply(struct serve *s, int fd, size_t seen, bool swept,
			 uid_t owner)
{
	char msg[SFRAME_MSG_MAX] = "", name[PATH_MAX];
	struct serve_seen *rec = &s->seen[seen];
	bool fill, digested = rec->digested;
	struct serve_cache_key key;
	struct sframe_input obj;
	struct sframe_code code;
	u8 *side = NULL;
	size_t size;
	int ret;

	serve_fd_name(fd, name, sizeof(name));
	/* A file that waited was read once already through this open. */
	if (lseek(fd, 0, SEEK_SET)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", name,
			strerror(errno));
		s->st.failed[SFRAME_SERVE_UNREADABLE]++;
		goto published;
	}
	if (sframe_input_load_fd(&obj, fd, name, true, msg, sizeof(msg)) !=
	    SFRAME_LOAD_OK) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", name, msg);
		s->st.failed[SFRAME_SERVE_UNREADABLE]++;
		goto published;
	}
	if (sframe_elf_code(obj.file, obj.file_size, &code, msg,
			    sizeof(msg))) {
		s->st.not_elf++;
		goto out;
	}
	/* Its own section may leave code out: fill only that. */
	fill = code.has_sframe;
	if (serve_key(s, rec, &obj, fill, false, &key)) {
		s->st.failed[SFRAME_SERVE_CACHE]++;
		goto out;
	}
	if (!serve_cache_get(&s->cache, &key, &side, &size)) {
		ret = sframe_load_sidecar_obj(s->dev, fd, name, &obj, &code,
					      key.path, side, size, fill);
		if (ret != EXIT_INVALID) {
			serve_loaded(s, seen, ret, true, fill);
			goto out;
		}
		fprintf(stderr, "sframectl: serve: %s: not a sidecar for %s; made again\n",
			key.path, name);
		serve_cache_drop(&s->cache, &key);
	}
	/* What is stored is named by the bytes it is made from, these. */
	if (digested && serve_key(s, rec, &obj, fill, true, &key)) {
		s->st.failed[SFRAME_SERVE_CACHE]++;
		goto out;
	}
	serve_generate(s, fd, seen, swept, owner, name, &obj, &code, fill,
		       &key);
out:
	free(side);
	sframe_input_free(&obj);
published:
	serve_publish(s, s->st.doing);
}

/*
 * Is a child translating the file of s->seen[@seen], or waiting to?  One
 * waiting that a mapping made now (not @swept) reports again is no
 * longer put after what is being mapped now.
 */
static bool serve_busy(struct serve *s, size_t seen, bool swept)
{
	unsigned int i;

	for (i = 0; i < s->jobs; i++)
		if (s->work[i].gen.pid && s->work[i].seen == seen)
			return true;
	for (i = 0; i < s->queued; i++) {
		if (s->queue[i].seen != seen)
			continue;
		if (s->queue[i].swept && !swept) {
			s->queue[i].swept = false;
			s->queued_swept--;
		}
		return true;
	}
	return false;
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
	seen = serve_remember(s, &st, &first);
	/* One child per file: its end supplies every mapping of it. */
	if (!seen || (!first && (seen->no_sidecar ||
				 serve_busy(s, seen - s->seen, swept))))
		return;
	/* What fails before the hand-over is logged once, not tried again. */
	seen->no_sidecar = true;
	serve_supply(s, fd, seen - s->seen, swept, owner);
}

/* "idle" once no child runs and none waits. */
static const char *serve_idle(const struct serve *s)
{
	return s->running || s->queued ? "generating" : "idle";
}

/*
 * The waiting file to start next: the first being mapped now that its
 * owner's share lets start, else the first such a sweep found; -1 if none
 * may start now.
 */
static int serve_next(const struct serve *s)
{
	unsigned int i;
	int swept;

	for (swept = 0; swept < 2; swept++)
		for (i = 0; i < s->queued; i++)
			if (s->queue[i].swept == swept &&
			    serve_may_start(s, swept, s->queue[i].owner))
				return i;
	return -1;
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

/* The service ends: its children with it, and the waiting forgotten. */
static void serve_stop_jobs(struct serve *s)
{
	unsigned int i;

	for (i = 0; i < s->jobs; i++) {
		if (!s->work[i].gen.pid)
			continue;
		serve_gen_free(&s->work[i].gen);
		sframe_input_free(&s->work[i].obj);
		close(s->work[i].fd);
	}
	for (i = 0; i < s->queued; i++)
		close(s->queue[i].fd);
	s->running = s->queued = s->running_swept = s->queued_swept = 0;
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
 * start, whenever reports were lost meanwhile, and when swept files were
 * put off and the others swept are done), and serve its reports as they
 * come.  The module's queue takes only so many at a time, so it is
 * drained and asked to go on until the sweep is done.  0, or -1 when the
 * service must end (said).
 */
static int serve_sweep(struct serve *s)
{
	unsigned long how = 0;
	int ret, n;

	s->lost = false;
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
		if (s->lost) {
			how = 0;
			s->lost = false;
		} else if (ret) {
			how = SFRAME_REPORT_CONTINUE;
		} else {
			break;
		}
	}
	serve_publish(s, serve_idle(s));
	return 0;
}

/* Must we sweep now? */
static bool serve_sweep_due(const struct serve *s)
{
	return s->lost ||
	       (s->resweep && !s->queued_swept && !s->running_swept);
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
	int i, ret = EXIT_USAGE;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cache") && i + 1 < argc) {
			s.dir = argv[++i];
		} else if (!strcmp(argv[i], "--cache-max-mb") && i + 1 < argc) {
			if (serve_mib(argv[i], argv[i + 1], &cache_max_mb))
				return EXIT_USAGE;
			i++;
		} else if (!strcmp(argv[i], "--owner-cache-mb") &&
			   i + 1 < argc) {
			if (serve_mib(argv[i], argv[i + 1], &owner_mb))
				return EXIT_USAGE;
			i++;
		} else if (!strcmp(argv[i], "--run-dir") && i + 1 < argc) {
			s.run_dir = argv[++i];
		} else if (!strcmp(argv[i], "--root-only")) {
			s.root_only = true;
		} else if (!strcmp(argv[i], "--once")) {
			once = true;
		} else if (!strcmp(argv[i], "--jobs") && i + 1 < argc &&
			   atoi(argv[i + 1]) >= 1 &&
			   atoi(argv[i + 1]) <= SERVE_JOBS_MAX) {
			s.jobs = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: sframectl serve [--cache DIR] [--cache-max-mb N] [--owner-cache-mb N] [--run-dir DIR] [--root-only] [--jobs 1-%d] [--once]\n",
				SERVE_JOBS_MAX);
			return EXIT_USAGE;
		}
	}
	s.owner_cache_max = (unsigned long long)owner_mb << 20;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (serve_own_dir(s.dir) || serve_own_dir(s.run_dir))
		return EXIT_USAGE;
	ret = serve_cache_open(&s.cache, s.dir, cache_max_mb, &s.st.cache);
	if (ret) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", s.dir,
			strerror(-ret));
		return EXIT_USAGE;
	}
	ret = EXIT_USAGE;
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
		/* --once: until what the sweep started has ended. */
		int n = serve_poll(&s, pfd, 2,
				   once && !s.running && !s.queued ? 0 : -1);

		if ((n < 0 && errno != EINTR) ||
		    (n == 0 && once && !s.running && !s.queued &&
		     !s.resweep) ||
		    (n > 0 && pfd[1].revents))
			break;
		if (n > 0 && pfd[0].revents && serve_drain(&s) < 0)
			break;
		if (serve_sweep_due(&s) && serve_sweep(&s))
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
	free(s.seen);
	free(s.shares);
	return ret;
}
