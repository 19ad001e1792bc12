// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: the files waiting for a generator child, and each
 * owner's share (design.rst, "Whose files, in what order").  What is
 * being mapped now goes before what a sweep found; an owner but root has
 * at most SERVE_QUEUE_OWNER files waiting, one child fewer than --jobs,
 * --owner-cache-mb of disk cache a run, and its pace (SERVE_OWNER_PACE_MS
 * a file, SERVE_OWNER_BURST at once).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "serve.h"

#define SERVE_OWNER_CREDIT_MAX	(SERVE_OWNER_BURST * SERVE_OWNER_PACE_MS)

/* @owner's share (not root's), new with full credit; NULL on ENOMEM. */
static struct serve_share *serve_share(struct serve *s, uid_t owner)
{
	struct serve_share *sh;
	size_t i;

	for (i = 0; i < s->nr_shares && s->shares[i].owner != owner; i++)
		;
	if (i < s->nr_shares)
		return &s->shares[i];
	sh = reallocarray(s->shares, i + 1, sizeof(*sh));
	if (!sh)
		return NULL;
	s->shares = sh;
	s->shares[s->nr_shares++] = (struct serve_share){
		.owner = owner, .credit_ms = SERVE_OWNER_CREDIT_MAX,
		.at_ms = serve_gen_now(),
	};
	return &s->shares[i];
}

/* @sh's credit now, in ms. */
static long long serve_credit(struct serve_share *sh)
{
	long long now = serve_gen_now();

	sh->credit_ms += now - sh->at_ms;
	if (sh->credit_ms > SERVE_OWNER_CREDIT_MAX)
		sh->credit_ms = SERVE_OWNER_CREDIT_MAX;
	sh->at_ms = now;
	return sh->credit_ms;
}

/* What supplying a file of @size bytes costs its owner, in ms. */
static long long serve_pace_cost(off_t size)
{
	return SERVE_OWNER_PACE_MS * (1 + size / SERVE_OWNER_PACE_BYTES);
}

/*
 * The credit that must be there before it is supplied: its cost, or for
 * a file costing more than there can ever be, all there can be.
 */
static long long serve_pace_needed(off_t size)
{
	long long cost = serve_pace_cost(size);

	return cost < SERVE_OWNER_CREDIT_MAX ? cost : SERVE_OWNER_CREDIT_MAX;
}

/*
 * May a file of @owner's, of @size bytes, be supplied now?  Root's
 * always may; another owner's when it has credit (a file costing more
 * than the most there can be: when the credit is full), spent if @take.
 */
bool serve_paced(struct serve *s, uid_t owner, off_t size, bool take)
{
	struct serve_share *sh;

	if (!owner)
		return true;
	sh = serve_share(s, owner);
	if (!sh || serve_credit(sh) < serve_pace_needed(size))
		return false;
	if (take)
		sh->credit_ms -= serve_pace_cost(size);
	return true;
}

/* Give back what serve_paced() took: the file was put off after all. */
void serve_pace_refund(struct serve *s, uid_t owner, off_t size)
{
	struct serve_share *sh = owner ? serve_share(s, owner) : NULL;

	if (sh)
		sh->credit_ms += serve_pace_cost(size);
}

/*
 * How long until a waiting file's owner has credit for it, in ms: what the
 * loop's poll() may wait at most; -1 if none waits for credit.
 */
int serve_pace_wait(struct serve *s)
{
	long long wait = -1, left;
	struct serve_share *sh;
	unsigned int i;

	for (i = 0; i < s->queued; i++) {
		if (!s->queue[i].owner)
			continue;
		sh = serve_share(s, s->queue[i].owner);
		left = sh ? serve_pace_needed(s->seen.rec[s->queue[i].seen].size) -
			    serve_credit(sh) : SERVE_OWNER_PACE_MS;
		/* With credit, it waits for a child, whose end wakes us. */
		if (left <= 0)
			continue;
		if (wait < 0 || left < wait)
			wait = left;
	}
	return wait;
}

/*
 * May @size more bytes of @owner's go to the disk cache?  Counted as
 * stored if so.
 */
bool serve_may_store(struct serve *s, uid_t owner, size_t size)
{
	struct serve_share *sh;

	if (!owner)
		return true;
	sh = serve_share(s, owner);
	if (!sh || sh->stored + size > s->owner_cache_max)
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
 * Queue the file open at @fd (its record: s->seen.rec[@seen]) until a
 * worker, or its owner's credit, is there for it.  One that has no place
 * is put off until the next sweep, which finds it again if it is still
 * mapped; one mapped now is also counted (serve_drain() waits for room
 * in the whole queue first).
 */
void serve_wait(struct serve *s, int fd, size_t seen, bool swept,
		uid_t owner, const char *name)
{
	bool shared = !owner || serve_owner_waiting(s, owner) < SERVE_QUEUE_OWNER;
	bool room = s->queued < SERVE_QUEUE_MAX &&
		    (!swept || s->queued_swept < SERVE_QUEUE_SWEPT);

	fd = room && shared ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	s->seen.rec[seen].no_sidecar = false;
	s->resweep |= fd < 0;
	if (fd < 0 && swept)
		return;
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
 * owner's share and pace let start, else the first such a sweep found;
 * -1 if none may start now.  Its supply spends the credit.
 */
int serve_next(struct serve *s)
{
	unsigned int i;
	int swept;

	for (swept = 0; swept < 2; swept++)
		for (i = 0; i < s->queued; i++)
			if (s->queue[i].swept == swept &&
			    serve_may_start(s, swept, s->queue[i].owner) &&
			    serve_paced(s, s->queue[i].owner,
					s->seen.rec[s->queue[i].seen].size,
					false))
				return i;
	return -1;
}
