// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar service's published state: the lock serve holds while it
 * runs and the status file it rewrites in its runtime directory, and
 * status's reading of both.  Only files owned by root (or by the caller)
 * and writable by no one else are believed, and only while their writer
 * holds the lock, so a crashed service's last words are never shown.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sframectl.h"

#define SERVE_LOCK_FILE		"serve.lock"
#define SERVE_STATUS_FILE	"status"
#define SERVE_STATUS_MAX	4096	/* bytes; a status file is ~450 */
#define SFRAME_STATS		"/sys/kernel/debug/sframe_unwind/stats"

/* The counters of struct sframe_serve_state, by their status file keys. */
static const struct {
	const char *key;
	size_t offset;
} serve_counters[] = {
	{ "generated", offsetof(struct sframe_serve_state, generated) },
	{ "from_cache", offsetof(struct sframe_serve_state, cached) },
	{ "gaps_filled", offsetof(struct sframe_serve_state, filled) },
	{ "by_hand", offsetof(struct sframe_serve_state, by_hand) },
	{ "own_sframe", offsetof(struct sframe_serve_state, own) },
	{ "not_roots", offsetof(struct sframe_serve_state, not_roots) },
	{ "not_elf", offsetof(struct sframe_serve_state, not_elf) },
	{ "in_hand", offsetof(struct sframe_serve_state, in_hand) },
	{ "failed_unreadable",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_UNREADABLE]) },
	{ "failed_no_sframe",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_NO_SFRAME]) },
	{ "failed_cache",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_CACHE]) },
	{ "failed_not_loaded",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_NOT_LOADED]) },
	{ "cache_entries", offsetof(struct sframe_serve_state, cache.entries) },
	{ "cache_kib", offsetof(struct sframe_serve_state, cache.kib) },
	{ "cache_max_mib", offsetof(struct sframe_serve_state, cache.max_mib) },
	{ "cache_refused", offsetof(struct sframe_serve_state, cache.refused) },
	{ "cache_evicted", offsetof(struct sframe_serve_state, cache.evicted) },
	{ "cache_stale", offsetof(struct sframe_serve_state, cache.stale) },
	{ "failed_gen_killed",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_GEN_KILLED]) },
	{ "failed_gen_over_time",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_GEN_OVER_TIME]) },
	{ "failed_gen_invalid",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_GEN_INVALID]) },
	{ "failed_queue_full",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_QUEUE_FULL]) },
	{ "failed_owner_share",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_OWNER_SHARE]) },
	{ "not_stored", offsetof(struct sframe_serve_state, not_stored) },
	{ "failed_changed",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_CHANGED]) },
	{ "failed_too_large",
	  offsetof(struct sframe_serve_state, failed[SFRAME_SERVE_TOO_LARGE]) },
};

/* Why an object got no sidecar, as status prints it. */
static const char * const serve_fail_names[SFRAME_SERVE_NR_FAILS] = {
	[SFRAME_SERVE_UNREADABLE] = "unreadable",
	[SFRAME_SERVE_NO_SFRAME] = "cannot generate SFrame",
	[SFRAME_SERVE_CACHE] = "cache not writable",
	[SFRAME_SERVE_NOT_LOADED] = "not loaded",
	[SFRAME_SERVE_GEN_KILLED] = "generator killed",
	[SFRAME_SERVE_GEN_OVER_TIME] = "generator over time",
	[SFRAME_SERVE_GEN_INVALID] = "generator output invalid",
	[SFRAME_SERVE_QUEUE_FULL] = "queue full",
	[SFRAME_SERVE_OWNER_SHARE] = "owner's share full",
	[SFRAME_SERVE_CHANGED] = "changed after its report",
	[SFRAME_SERVE_TOO_LARGE] = "too large",
};

static unsigned int *serve_counter(struct sframe_serve_state *st,
				   unsigned int i)
{
	return (unsigned int *)((char *)st + serve_counters[i].offset);
}

static unsigned int serve_counter_value(const struct sframe_serve_state *st,
					unsigned int i)
{
	return *(const unsigned int *)((const char *)st +
				       serve_counters[i].offset);
}

unsigned int sframe_serve_failed(const struct sframe_serve_state *st)
{
	unsigned int i, n = 0;

	for (i = 0; i < SFRAME_SERVE_NR_FAILS; i++)
		n += st->failed[i];
	return n;
}

/* Seconds since boot, suspend included: "up" survives clock changes. */
long sframe_serve_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec;
}

/*
 * Can we believe @st: ours, root's or the service's user's (the unit's
 * User=), and writable by no one else?
 */
static bool serve_trusted(const struct stat *st)
{
	const struct passwd *pw = NULL;

	if (st->st_uid != 0 && st->st_uid != geteuid())
		pw = getpwnam(SFRAME_SERVICE_USER);
	return (st->st_uid == 0 || st->st_uid == geteuid() ||
		(pw && pw->pw_uid == st->st_uid)) && !(st->st_mode & 0022);
}

/*
 * Take the lock that says a service runs, for as long as the returned
 * descriptor stays open; -1 (said why) if it cannot.  A POSIX record lock,
 * so that status learns the holder's PID from F_GETLK and the kernel
 * drops it however the service ends.
 */
int sframe_serve_lock(const char *dir)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, SERVE_LOCK_FILE);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 0022)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", path,
			fd < 0 ? strerror(errno) :
			"not a file of ours that only we can write");
		goto fail;
	}
	if (fcntl(fd, F_SETLK, &lk)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", path,
			errno == EAGAIN || errno == EACCES ?
			"another sframectl serve is running" : strerror(errno));
		goto fail;
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* @st as the status file holds it; the length written to @buf. */
size_t sframe_serve_format(const struct sframe_serve_state *st, char *buf,
			   size_t size)
{
	size_t n;
	unsigned int i;

	n = snprintf(buf, size, "pid %d\nstarted %ld\nstate %s\n", getpid(),
		     st->started, st->doing);
	for (i = 0; i < ARRAY_SIZE(serve_counters) && n < size; i++)
		n += snprintf(buf + n, size - n, "%s %u\n",
			      serve_counters[i].key, serve_counter_value(st, i));
	return n < size ? n : size;
}

/* Read all of @name in the directory @dir into @buf; -errno or 0. */
static int serve_read_trusted(int dir, const char *name, char *buf,
			      size_t size)
{
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !serve_trusted(&st) ||
	    st.st_size >= (off_t)size) {
		ret = -EPERM;
	} else {
		n = read(fd, buf, size - 1);
		if (n < 0)
			ret = -errno;
		else
			buf[n] = '\0';
	}
	close(fd);
	return ret;
}

/* Parse the status file @buf into @st; its writer's PID, or -1. */
static long serve_parse(char *buf, struct sframe_serve_state *st,
			char *doing, size_t doing_size)
{
	char *line, *save = NULL, key[32], word[32];
	long pid = -1, value;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	snprintf(doing, doing_size, "?");
	st->doing = doing;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s %31s", key, word) != 2)
			continue;
		if (!strcmp(key, "state")) {
			snprintf(doing, doing_size, "%s", word);
			continue;
		}
		value = strtol(word, NULL, 10);
		if (!strcmp(key, "pid"))
			pid = value;
		else if (!strcmp(key, "started"))
			st->started = value;
		for (i = 0; i < ARRAY_SIZE(serve_counters); i++)
			if (!strcmp(key, serve_counters[i].key))
				*serve_counter(st, i) = value;
	}
	return pid;
}

/*
 * The PID holding the service's lock in the directory @dir: 0 when no
 * service runs, -1 when the lock cannot be believed (said in @why).
 */
static long serve_holder(int dir, char *why, size_t why_size)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	int fd;

	fd = openat(dir, SERVE_LOCK_FILE,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) || fcntl(fd, F_GETLK, &lk)) {
		snprintf(why, why_size, "%s: %s", SERVE_LOCK_FILE,
			 strerror(errno));
		lk.l_pid = -1;
	} else if (!S_ISREG(st.st_mode) || !serve_trusted(&st)) {
		snprintf(why, why_size, "%s: not root's, or writable by others",
			 SERVE_LOCK_FILE);
		lk.l_pid = -1;
	} else if (lk.l_type == F_UNLCK) {
		lk.l_pid = 0;
	}
	if (fd >= 0)
		close(fd);
	return lk.l_pid;
}

/* The module's statistic @name (debugfs), or -1 (why in @why). */
static long long sframe_stat(const char *name, char *why, size_t why_size)
{
	char line[128];
	size_t len = strlen(name);
	long long v = -1;
	FILE *f;

	f = fopen(SFRAME_STATS, "re");
	if (!f) {
		snprintf(why, why_size, "%s: %s", SFRAME_STATS,
			 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			v = strtoll(line + len + 1, NULL, 10);
	fclose(f);
	if (v < 0)
		snprintf(why, why_size, "%s: no %s", SFRAME_STATS, name);
	return v;
}

static void serve_show_state(FILE *out, long pid,
			     const struct sframe_serve_state *st)
{
	char why[PATH_MAX + 64];
	long long queued;
	unsigned int i;

	queued = sframe_stat("events_pending", why, sizeof(why));
	fprintf(out, "service: running, pid %ld, up %ld s, %s\n", pid,
		sframe_serve_clock() - st->started, st->doing);
	fprintf(out, "service: objects covered: %u (generated %u, from the cache %u)\n",
		st->generated + st->cached, st->generated, st->cached);
	fprintf(out, "service: gaps filled: %u (behind SFrame of their own)\n",
		st->filled);
	if (queued >= 0)
		fprintf(out, "service: pending: %lld (read %u, queued in the module %lld)\n",
			st->in_hand + queued, st->in_hand, queued);
	else
		fprintf(out, "service: pending: ? (read %u, queued in the module ?)\n",
			st->in_hand);
	fprintf(out, "service: failed: %u (", sframe_serve_failed(st));
	for (i = 0; i < SFRAME_SERVE_NR_FAILS; i++)
		fprintf(out, "%s%s %u", i ? ", " : "", serve_fail_names[i],
			st->failed[i]);
	fprintf(out, ")\n");
	fprintf(out, "service: disk cache: %u entries, %u KiB of %u MiB (refused %u, evicted %u, of an earlier version %u, not stored for an owner's share %u)\n",
		st->cache.entries, st->cache.kib, st->cache.max_mib,
		st->cache.refused, st->cache.evicted, st->cache.stale,
		st->not_stored);
	fprintf(out, "service: not served: %u (SFrame of their own %u, not root's %u, not ELF %u, loaded by hand %u)\n",
		st->own + st->not_roots + st->not_elf + st->by_hand, st->own,
		st->not_roots, st->not_elf, st->by_hand);
}

/*
 * Print the service's view, as published in its runtime directory @dir,
 * and the module's kernel memory.  0, or 1 when what is there cannot be
 * believed (said why).
 */
int sframe_serve_show(FILE *out, const char *dir)
{
	char buf[SERVE_STATUS_MAX], doing[32], why[PATH_MAX + 64];
	struct sframe_serve_state st;
	struct stat dst;
	long long bytes;
	long pid = 0;
	int fd, ret = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		pid = -1;
	} else if (fd >= 0 && (fstat(fd, &dst) || !serve_trusted(&dst))) {
		snprintf(why, sizeof(why), "not root's, or writable by others");
		pid = -1;
	} else if (fd >= 0) {
		pid = serve_holder(fd, why, sizeof(why));
	}
	if (pid < 0) {
		fprintf(out, "service: unknown: %s: %s\n", dir, why);
		ret = 1;
	} else if (!pid) {
		fprintf(out, "service: not running\n");
	} else {
		ret = serve_read_trusted(fd, SERVE_STATUS_FILE, buf, sizeof(buf));
		if (ret == -EPERM) {
			fprintf(out, "service: unknown: %s/%s: not root's, writable by others, or too large\n",
				dir, SERVE_STATUS_FILE);
			ret = 1;
		} else if (ret || serve_parse(buf, &st, doing, sizeof(doing)) != pid) {
			/* Between taking the lock and its first status. */
			fprintf(out, "service: running, pid %ld, starting\n", pid);
			ret = 0;
		} else {
			serve_show_state(out, pid, &st);
		}
	}
	if (fd >= 0)
		close(fd);
	bytes = sframe_stat("kernel_bytes", why, sizeof(why));
	if (bytes >= 0)
		fprintf(out, "kernel memory: %lld bytes\n", bytes);
	else
		fprintf(out, "kernel memory: unknown (%s)\n", why);
	return ret;
}
