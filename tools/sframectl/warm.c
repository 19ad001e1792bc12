// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl warm: fill the service's disk cache before the objects are
 * used.  Each of root's ELF objects under some directories (objects.c;
 * by default the system's) whose entry the cache lacks is translated by
 * a confined generator child, as serve has it done, checked as load
 * checks a sidecar, and stored under the digest of its bytes
 * (serve_cache.c); a process that maps it later gets its sidecar from
 * the cache at once.  It runs at idle CPU and I/O priority, one child at
 * a time, as the cache's owner, beside a running service.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "objects.h"
#include "serve_cache.h"
#include "serve_gen.h"
#include "serve_supply.h"

#define WARM_CACHE_DIR	"/var/cache/sframe-unwind"
#define WARM_STAMP_MAX	128	/* a stamp's text, at most */

/* ioprio_set(2), which the C library does not wrap. */
#define WARM_IOPRIO_WHO_PROCESS	1
#define WARM_IOPRIO_CLASS_IDLE	3
#define WARM_IOPRIO_CLASS_SHIFT	13

struct warm {
	struct serve_cache cache;
	struct sframe_serve_cache_state cache_st;
	unsigned int made, cached, own, not_roots, too_large, no_sframe,
		     full, failed;
	bool again;			/* failed, not for the file's sake */
};

/*
 * Drop to the owner of the cache directory @dir when root: the service
 * that reads the entries runs as that user, and the files warm reads
 * are root's, which that user can read as the service reads them.
 * 0, or -1 (said).
 */
static int warm_become_owner(const char *dir)
{
	struct passwd *pw;
	struct stat st;

	if (geteuid())
		return 0;
	errno = 0;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", dir,
			errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (!st.st_uid)
		return 0;
	/* The owner's own group, not the directory's, which may be root's. */
	pw = getpwuid(st.st_uid);
	if (!pw || !pw->pw_gid) {
		fprintf(stderr, "sframectl: warm: %s: its owner, uid %u, has %s\n",
			dir, (unsigned int)st.st_uid,
			pw ? "root's group" : "no user entry");
		return -1;
	}
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(st.st_uid)) {
		fprintf(stderr, "sframectl: warm: cannot become uid %u, the owner of %s: %s\n",
			(unsigned int)st.st_uid, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Idle CPU and I/O priority, inherited by the generator children: a
 * machine's own work always goes first.  Where the system refuses one,
 * said, and warm goes on at what it has.
 */
static void warm_idle(void)
{
	struct sched_param p = { 0 };

	if (setpriority(PRIO_PROCESS, 0, 19) ||
	    sched_setscheduler(0, SCHED_IDLE, &p) ||
	    syscall(SYS_ioprio_set, WARM_IOPRIO_WHO_PROCESS, 0,
		    WARM_IOPRIO_CLASS_IDLE << WARM_IOPRIO_CLASS_SHIFT))
		fprintf(stderr, "sframectl: warm: cannot lower its priority: %s\n",
			strerror(errno));
}

/*
 * Translate the object @name (escaped, for messages), open at @fd and
 * sealed in @input, into @key's entry.
 */
static void warm_generate(struct warm *w, const char *name, int fd,
			  int input, size_t size,
			  const struct sframe_code *code, bool fill,
			  const struct serve_cache_key *key)
{
	struct serve_gen_job j = { .out = -1 };
	char why[SFRAME_MSG_MAX];
	enum serve_gen_end end;
	int ret;

	end = serve_gen_start_translate(&j, input, size, fill);
	end = serve_gen_wait(&j, end);
	if (end == SERVE_GEN_FAILED) {
		fprintf(stderr, "sframectl: warm: %s: cannot generate SFrame: %s\n",
			name, serve_gen_why(&j, why, sizeof(why)));
		w->no_sframe++;
	} else if (end != SERVE_GEN_DONE) {
		fprintf(stderr, "sframectl: warm: %s: generator %s\n", name,
			serve_gen_end_str(end));
		w->failed++;
		/*
		 * No child, the OOM killer's kill, or no CPU time for it:
		 * the next run tries again.
		 */
		w->again |= end == SERVE_GEN_NOT_STARTED ||
			    end == SERVE_GEN_STARVED ||
			    (end == SERVE_GEN_KILLED && j.signal == SIGKILL);
	} else {
		/* From a child: checked as load checks it, before it is kept. */
		ret = sframe_load_sidecar_obj(-1, fd, name, code, key->path,
					      j.buf, j.len, fill, false);
		if (ret == -ENODATA) {
			w->own++;
		} else if (ret) {
			w->failed++;
		} else if (serve_cache_full(&w->cache, j.len)) {
			/* The service's entries stay: it uses them. */
			w->full++;
		} else {
			ret = serve_cache_put(&w->cache, key, j.buf, j.len);
			if (ret) {
				fprintf(stderr, "sframectl: warm: %s: %s\n",
					key->path, strerror(-ret));
				w->again = true;
				w->failed++;
			} else {
				w->made++;
			}
		}
	}
	serve_gen_free(&j);
}

/*
 * Open @path (@name in messages) for warm: a regular file root owns and
 * no one else may write, as the service treats as root's whoever maps
 * it, no larger than the service reads.  The descriptor, or -1
 * (counted).
 */
static int warm_open(struct warm *w, const char *path, const char *name,
		     struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

	if (fd < 0 || fstat(fd, st) || !S_ISREG(st->st_mode)) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", name,
			fd < 0 || errno ? strerror(errno) : "not a regular file");
		w->failed++;
	} else if (!serve_roots(st)) {
		w->not_roots++;
	} else if (st->st_size > SERVE_FILE_MAX) {
		fprintf(stderr, "sframectl: warm: %s: %lld bytes, over the %lld the service reads of a file\n",
			name, (long long)st->st_size, SERVE_FILE_MAX);
		w->too_large++;
	} else {
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Make sure the cache holds the entry of the object at @path. */
static void warm_one(struct warm *w, const char *path)
{
	u8 digest[SERVE_CACHE_DIGEST], *side = NULL;
	char msg[SFRAME_MSG_MAX] = "", name[PATH_MAX];
	struct serve_cache_key key;
	struct sframe_input obj;
	struct sframe_code code;
	struct stat st;
	int fd, input;
	size_t size;
	bool fill;

	/* Whoever named it: only escaped in a message. */
	sframe_log_name(path, strlen(path), name, sizeof(name));
	errno = 0;
	fd = warm_open(w, path, name, &st);
	if (fd < 0)
		return;
	/* Read once, no more than it had; the child gets these bytes. */
	input = sframe_input_load_sealed(&obj, fd, name, st.st_size, msg,
					 sizeof(msg));
	if (input < 0) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", name, msg);
		w->failed++;
		goto out;
	}
	if (sframe_elf_code(obj.file, obj.file_size, &code, msg,
			    sizeof(msg))) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", name, msg);
		w->failed++;
		goto out;
	}
	/* What serve makes of it: only the gaps of a section of its own. */
	fill = code.has_sframe;
	if (serve_cache_file_digest(obj.file, obj.file_size, digest) ||
	    serve_cache_key(&w->cache, digest, fill, &key)) {
		fprintf(stderr, "sframectl: warm: %s: out of memory\n", name);
		w->failed++;
		goto out;
	}
	if (!serve_cache_get(&w->cache, &key, &side, &size))
		w->cached++;
	else
		warm_generate(w, name, fd, input, obj.file_size, &code, fill,
			      &key);
out:
	free(side);
	sframe_input_free(&obj);
	if (input >= 0)
		close(input);
	close(fd);
}

/*
 * What a stamp says besides its time: the cache format and generator
 * version of the entries its run made.  One of another version says
 * nothing of this one's entries (the service removes those at start).
 */
static void warm_stamp_text(char *buf, size_t size)
{
	snprintf(buf, size, "sframectl warm: %s\n", serve_cache_version());
}

/*
 * The time of the run @stamp records, into *@t: 0; 1 when there is no
 * stamp of this version (then every object is read); -1 (said).
 */
static int warm_stamp_read(const char *stamp, struct timespec *t)
{
	char want[WARM_STAMP_MAX], have[WARM_STAMP_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(stamp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 1;
	errno = 0;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", stamp,
			errno ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	warm_stamp_text(want, sizeof(want));
	n = read(fd, have, sizeof(have));
	close(fd);
	if (n != (ssize_t)strlen(want) || memcmp(have, want, n)) {
		fprintf(stderr, "sframectl: warm: %s: not of this version; every object is read\n",
			stamp);
		return 1;
	}
	*t = st.st_mtim;
	return 0;
}

/*
 * Begin this run's stamp, @tmp (@stamp ".new"), now: its file system's
 * time, the clock change times are taken from, is the run's, in *@t.
 * 0, or -1 (said).
 */
static int warm_stamp_begin(const char *stamp, char *tmp, size_t size,
			    struct timespec *t)
{
	char text[WARM_STAMP_MAX];
	struct stat st;
	int fd, ret;

	snprintf(tmp, size, "%s.new", stamp);
	warm_stamp_text(text, sizeof(text));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = sframe_write_all(fd, text, strlen(text));
		if (!ret && fstat(fd, &st))
			ret = -errno;
		close(fd);
	}
	if (ret) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", tmp,
			strerror(-ret));
		if (fd >= 0)
			unlink(tmp);
		return -1;
	}
	*t = st.st_mtim;
	return 0;
}

/* End the run's stamp @tmp: put it at @stamp if @done.  0, or -1 (said). */
static int warm_stamp_end(const char *stamp, const char *tmp, bool done)
{
	if (done && !rename(tmp, stamp))
		return 0;
	if (done)
		fprintf(stderr, "sframectl: warm: %s: %s\n", stamp,
			strerror(errno));
	unlink(tmp);
	return done ? -1 : 0;
}

static const struct option warm_options[] = {
	{ "cache", required_argument, NULL, 'c' },
	{ "cache-max-mb", required_argument, NULL, 'm' },
	{ "stamp", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

/* Its options: 0, or -1 (the usage said). */
static int warm_args(int argc, char **argv, const char **dir,
		     unsigned int *max_mb, const char **stamp)
{
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", warm_options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			*dir = optarg;
			break;
		case 'm':
			errno = 0;
			*max_mb = strtoul(optarg, &end, 10);
			if (errno || *end || !*max_mb)
				goto usage;
			break;
		case 's':
			*stamp = optarg;
			break;
		default:
			goto usage;
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: sframectl warm [--cache DIR] [--cache-max-mb N] [--stamp FILE] [DIR|FILE...]\n");
	return -1;
}

/*
 * sframectl warm [--cache DIR] [--cache-max-mb N] [--stamp FILE]
 *                [DIR|FILE...]
 */
int sframe_warm_command(int argc, char **argv)
{
	unsigned int max_mb = SERVE_CACHE_MAX_MB;
	const char *dir = WARM_CACHE_DIR, *stamp = NULL;
	struct timespec since, began, a, b;
	char tmp[PATH_MAX];
	struct sframe_objects o;
	struct warm w = { 0 };
	int ret, fresh = 1;
	size_t i;

	if (warm_args(argc, argv, &dir, &max_mb, &stamp) ||
	    warm_become_owner(dir))
		return EXIT_USAGE;
	warm_idle();
	ret = serve_cache_join(&w.cache, dir, max_mb, &w.cache_st);
	if (ret) {
		fprintf(stderr, "sframectl: warm: %s: %s\n", dir, strerror(-ret));
		return EXIT_USAGE;
	}
	if (stamp) {
		fresh = warm_stamp_read(stamp, &since);
		if (fresh < 0 ||
		    warm_stamp_begin(stamp, tmp, sizeof(tmp), &began))
			return EXIT_USAGE;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (sframe_objects_find(&o, argc - optind, argv + optind,
				fresh ? NULL : &since)) {
		fprintf(stderr, "sframectl: warm: out of memory\n");
		w.again = true;
	}
	/* A directory not walked is walked again by the next run. */
	w.again |= o.unwalked;
	for (i = 0; i < o.nr; i++)
		warm_one(&w, o.path[i]);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("sframectl warm: %zu ELF objects%s: %u sidecars made, %u in the cache already, %u with SFrame of their own that leaves nothing out, %u without usable .eh_frame, %u not root's, %u too large, %u not stored for a full cache, %u failed; %.1f s\n",
	       o.nr, fresh ? "" : " changed since the stamp", w.made,
	       w.cached, w.own, w.no_sframe, w.not_roots, w.too_large,
	       w.full, w.failed,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	sframe_objects_free(&o);
	/* Not past what failed for want of a child, a cache or a walk. */
	if (stamp && warm_stamp_end(stamp, tmp, !w.again))
		return EXIT_USAGE;
	return w.again ? EXIT_USAGE : 0;
}
