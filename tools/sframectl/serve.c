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
 * The service reads files others may have written, so by default it
 * supplies only files owned by root and writable by no one else
 * (--all-owners: any); the kernel does not report files on a filesystem
 * a user could make hang (FUSE, network).
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
#include "serve_cache.h"
#include "sframectl.h"

#define SERVE_CACHE_DIR	"/var/cache/sframe-unwind"
#define SERVE_EVENTS	16		/* records per read() */

/* A file already handled, by identity. */
struct serve_seen {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool no_sidecar;		/* none from us: own SFrame, failed */
};

struct serve {
	const char *dir;
	struct serve_cache cache;
	const char *run_dir;		/* where status finds our state */
	bool all_owners;
	int dev;			/* /dev/sframe_unwind */
	int watch;			/* its SFRAME_IOC_WATCH descriptor */
	int sig;			/* signalfd: SIGTERM, SIGINT */
	int lock;			/* held while we run (serve_status.c) */
	bool publish_failed;		/* said once */
	struct serve_seen *seen;
	size_t nr_seen, cap_seen;
	bool lost;			/* reports were lost: sweep */
	struct sframe_serve_state st;
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

/*
 * Write @size bytes at @data to @path in the directory @dir atomically (a
 * new name, renamed): a reader sees the old file or the whole new one.
 */
static int serve_write_file(const char *dir, const char *path,
			    const void *data, size_t size)
{
	char tmp[PATH_MAX];
	size_t done = 0;
	ssize_t n;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s/.new-XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	while (done < size) {
		n = write(fd, (const u8 *)data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	if (done < size || fchmod(fd, 0644) || fsync(fd) || close(fd) ||
	    rename(tmp, path)) {
		int err = errno ? errno : EIO;

		unlink(tmp);
		return -err;
	}
	return 0;
}

/*
 * Generate @name's sidecar from @obj (with @fill, for the gaps of its own
 * section) into *@data (*@size bytes) and the cache entry @key; a
 * failure is counted with its reason.
 */
static int serve_generate(struct serve *s, const char *name,
			  const struct sframe_input *obj, bool fill,
			  const struct serve_cache_key *key, u8 **data,
			  size_t *size)
{
	char msg[SFRAME_MSG_MAX] = "";
	int ret;

	if (sframe_gen_file(name, obj->file, obj->file_size, fill, data,
			    size, msg, sizeof(msg))) {
		fprintf(stderr, "sframectl: serve: %s: cannot generate SFrame: %s\n",
			name, msg);
		s->st.failed[SFRAME_SERVE_NO_SFRAME]++;
		return -1;
	}
	ret = serve_cache_put(&s->cache, key, *data, *size);
	if (ret) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", key->path,
			strerror(-ret));
		s->st.failed[SFRAME_SERVE_CACHE]++;
		free(*data);
		*data = NULL;
		return -1;
	}
	return 0;
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
	ret = serve_write_file(s->run_dir, path, text, size);
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
 * Supply the object the module reported open at @fd, unless it is not
 * ours to do or is known to need nothing from us.  A report says it has
 * no sidecar now (never had one, or it was released with the file's
 * entry): one supplied before is supplied again, from the cache.
 */
static void serve_file(struct serve *s, int fd)
{
	char msg[SFRAME_MSG_MAX] = "", name[PATH_MAX];
	struct serve_cache_key key;
	struct sframe_input obj;
	struct sframe_code code;
	struct serve_seen *seen;
	bool first, from_cache, fill;
	u8 *side = NULL;
	size_t size;
	struct stat st;
	int ret;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	/* Before remembering it: a user's flood must not grow our memory. */
	if (!s->all_owners && (st.st_uid != 0 || (st.st_mode & 0022))) {
		s->st.not_roots++;
		return;
	}
	seen = serve_remember(s, &st, &first);
	if (!seen || (!first && seen->no_sidecar))
		return;
	/* What fails before the hand-over is logged once, not tried again. */
	seen->no_sidecar = true;
	serve_fd_name(fd, name, sizeof(name));
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
	if (serve_cache_key(&s->cache, obj.file, obj.file_size, fill, &key)) {
		s->st.failed[SFRAME_SERVE_CACHE]++;
		goto out;
	}
	from_cache = !serve_cache_get(&s->cache, &key, &side, &size);
	if (!from_cache &&
	    serve_generate(s, name, &obj, fill, &key, &side, &size))
		goto out;
	ret = sframe_load_sidecar_obj(s->dev, fd, name, &obj, &code, key.path,
				      side, size, fill);
	if (ret == EXIT_INVALID && from_cache) {
		fprintf(stderr, "sframectl: serve: %s: not a sidecar for %s; made again\n",
			key.path, name);
		serve_cache_drop(&s->cache, &key);
		free(side);
		side = NULL;
		from_cache = false;
		ret = serve_generate(s, name, &obj, fill, &key, &side, &size) ?
		      -1 : sframe_load_sidecar_obj(s->dev, fd, name, &obj,
						   &code, key.path, side, size,
						   fill);
	}
	if (ret == -ENODATA)
		s->st.own++;
	else if (ret == -EEXIST)
		s->st.by_hand++;
	else if (ret > 0)		/* -1: serve_generate() counted it */
		s->st.failed[SFRAME_SERVE_NOT_LOADED]++;
	else if (!ret && from_cache)
		s->st.cached++;
	else if (!ret)
		s->st.generated++;
	s->st.filled += fill && !ret;
	/* The module's refusal for want of memory may not last. */
	seen->no_sidecar = ret == EXIT_INVALID || ret == -ENODATA || ret == -1;
out:
	free(side);
	sframe_input_free(&obj);
published:
	serve_publish(s, s->st.doing);
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
	struct sframe_event ev[SERVE_EVENTS];
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
			serve_file(s, ev[i].fd);
			close(ev[i].fd);
		} else if (ev[i].type == SFRAME_EVENT_OVERFLOW) {
			fprintf(stderr, "sframectl: serve: %llu reports lost; asking the module for what is mapped\n",
				(unsigned long long)ev[i].lost);
			s->lost = true;
		}
	}
	serve_publish(s, "idle");
	fflush(stdout);
	return n / sizeof(*ev);
}

/*
 * Ask the module for every object mapped now that needs a sidecar (at
 * start, and again whenever reports were lost meanwhile), and serve its
 * reports as they come.  A sweep fills the queue only as far as it has
 * room, so it is drained and asked to go on until it is done.  0, or -1
 * when the service must end (said).
 */
static int serve_sweep(struct serve *s)
{
	unsigned long how = 0;
	int ret, n;

	s->lost = false;
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
	serve_publish(s, "idle");
	return 0;
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

/*
 * sframectl serve [--cache DIR] [--cache-max-mb N] [--run-dir DIR]
 *                 [--all-owners] [--once]
 */
int sframe_serve_command(int argc, char **argv)
{
	struct serve s = {
		.dir = SERVE_CACHE_DIR, .run_dir = SFRAME_RUN_DIR, .dev = -1,
		.watch = -1, .sig = -1, .lock = -1,
	};
	unsigned int cache_max_mb = SERVE_CACHE_MAX_MB;
	struct pollfd pfd[2];
	bool once = false;
	char *end;
	sigset_t stop;
	int i, ret = EXIT_USAGE;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cache") && i + 1 < argc) {
			s.dir = argv[++i];
		} else if (!strcmp(argv[i], "--cache-max-mb") && i + 1 < argc) {
			errno = 0;
			cache_max_mb = strtoul(argv[++i], &end, 10);
			if (errno || *end || !cache_max_mb) {
				fprintf(stderr, "sframectl: serve: --cache-max-mb %s: not a size in MiB\n",
					argv[i]);
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--run-dir") && i + 1 < argc) {
			s.run_dir = argv[++i];
		} else if (!strcmp(argv[i], "--all-owners")) {
			s.all_owners = true;
		} else if (!strcmp(argv[i], "--once")) {
			once = true;
		} else {
			fprintf(stderr, "usage: sframectl serve [--cache DIR] [--cache-max-mb N] [--run-dir DIR] [--all-owners] [--once]\n");
			return EXIT_USAGE;
		}
	}
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
		int n = poll(pfd, 2, once ? 0 : -1);

		if ((n < 0 && errno != EINTR) || (n == 0 && once) ||
		    (n > 0 && pfd[1].revents))
			break;
		if (n > 0 && pfd[0].revents &&
		    (serve_drain(&s) < 0 || (s.lost && serve_sweep(&s))))
			break;
	}
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
	return ret;
}
