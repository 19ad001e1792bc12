// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: the files waiting for a generator child, and each
 * owner's share (design.rst, "Whose files, in what order").  What is
 * being mapped now goes before what a sweep found; an owner but root has
 * at most SERVE_QUEUE_OWNER files waiting, one child fewer than --jobs
 * and --owner-cache-mb of disk cache a run.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "serve.h"

/*
 * May @size more bytes of @owner's go to the disk cache?  Counted as
 * stored if so.
 */
bool serve_may_store(struct serve *s, uid_t owner, size_t size)
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
bool serve_may_start(const struct serve *s, bool swept, uid_t owner)
{
	unsigned int most = s->jobs < 2 ? s->jobs : s->jobs - 1;

	if (s->running >= s->jobs || (swept && s->running_swept >= most))
		return false;
	return !owner || serve_owner_running(s, owner) < most;
}

/*
 * Queue the file open at @fd (its record: s->seen.rec[@seen]) until a worker
 * is free for it.  A file a sweep found that has no place is put off
 * until the next sweep, which finds it again; one mapped now that has
 * none is dropped and counted (serve_drain() waits for room first).
 */
void serve_wait(struct serve *s, int fd, size_t seen, bool swept,
		       uid_t owner, const char *name)
{
	bool shared = !owner || serve_owner_waiting(s, owner) < SERVE_QUEUE_OWNER;
	bool room = s->queued < SERVE_QUEUE_MAX &&
		    (!swept || s->queued_swept < SERVE_QUEUE_SWEPT);

	fd = room && shared ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	s->seen.rec[seen].no_sidecar = false;
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
 * Is a child translating the file of s->seen.rec[@seen], or waiting to?  One
 * waiting that a mapping made now (not @swept) reports again is no
 * longer put after what is being mapped now.
 */
bool serve_busy(struct serve *s, size_t seen, bool swept)
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
 * The waiting file to start next: the first being mapped now that its
 * owner's share lets start, else the first such a sweep found; -1 if none
 * may start now.
 */
int serve_next(const struct serve *s)
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
