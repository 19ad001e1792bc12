// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve's scheduler: the files waiting for a generator child,
 * and each owner's share (design.rst, "Whose files, in what order").
 * What is being mapped now goes before what a sweep found; an owner but
 * root has at most SERVE_QUEUE_OWNER files waiting, one child fewer than
 * --jobs, --owner-cache-mb of disk cache a run, and its pace
 * (SERVE_OWNER_PACE_MS a file, SERVE_OWNER_BURST at once).
 *
 * The service admits a file when it cannot start it now, asks for the
 * next one whenever a child may have become free, and says when a child
 * starts and is done; the scheduler keeps the counts, never the children.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_queue.h"

#define SERVE_OWNER_CREDIT_MAX	(SERVE_OWNER_BURST * SERVE_OWNER_PACE_MS)

/* @owner's share if it has one (root never has). */
static struct serve_share *serve_share_find(struct serve_queue *q,
					    uid_t owner)
{
	size_t i;

	for (i = 0; i < q->nr_shares; i++)
		if (q->shares[i].owner == owner)
			return &q->shares[i];
	return NULL;
}

/* @owner's share (not root's), new with full credit; NULL on ENOMEM. */
static struct serve_share *serve_share(struct serve_queue *q, uid_t owner)
{
	struct serve_share *sh = serve_share_find(q, owner);

	if (sh)
		return sh;
	sh = reallocarray(q->shares, q->nr_shares + 1, sizeof(*sh));
	if (!sh)
		return NULL;
	q->shares = sh;
	sh = &q->shares[q->nr_shares++];
	*sh = (struct serve_share){
		.owner = owner, .credit_ms = SERVE_OWNER_CREDIT_MAX,
		.at_ms = q->now(),
	};
	return sh;
}

/* @sh's credit now, in ms. */
static long long serve_credit(struct serve_queue *q, struct serve_share *sh)
{
	long long now = q->now();

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
bool serve_queue_paced(struct serve_queue *q, uid_t owner, off_t size,
		       bool take)
{
	struct serve_share *sh;

	if (!owner)
		return true;
	sh = serve_share(q, owner);
	if (!sh || serve_credit(q, sh) < serve_pace_needed(size))
		return false;
	if (take)
		sh->credit_ms -= serve_pace_cost(size);
	return true;
}

/* Give back what serve_queue_paced() took: the file waits after all. */
void serve_queue_refund(struct serve_queue *q, uid_t owner, off_t size)
{
	struct serve_share *sh = owner ? serve_share_find(q, owner) : NULL;

	if (sh)
		sh->credit_ms += serve_pace_cost(size);
}

/*
 * How long until a waiting file's owner has credit for it, in ms: what the
 * service's poll() may wait at most; -1 if none waits for credit.
 */
int serve_queue_wait_ms(struct serve_queue *q)
{
	long long wait = -1, left;
	struct serve_share *sh;
	unsigned int i;

	for (i = 0; i < q->queued; i++) {
		if (!q->wait[i].owner)
			continue;
		sh = serve_share(q, q->wait[i].owner);
		left = sh ? serve_pace_needed(q->wait[i].size) -
			    serve_credit(q, sh) : SERVE_OWNER_PACE_MS;
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
bool serve_queue_may_store(struct serve_queue *q, uid_t owner, size_t size)
{
	struct serve_share *sh;

	if (!owner)
		return true;
	sh = serve_share(q, owner);
	if (!sh || sh->stored + size > q->owner_cache_max)
		return false;
	sh->stored += size;
	return true;
}

/* Files of @owner's waiting. */
static unsigned int serve_owner_waiting(const struct serve_queue *q,
					uid_t owner)
{
	unsigned int i, n = 0;

	for (i = 0; i < q->queued; i++)
		n += q->wait[i].owner == owner;
	return n;
}

/*
 * May a child start now on a file of @owner's (@swept: only a sweep
 * reported it)?  With two children or more, one is always left for what
 * is being mapped now: neither swept files nor any one owner but root
 * may take them all.
 */
bool serve_queue_may_start(struct serve_queue *q, bool swept, uid_t owner)
{
	unsigned int most = q->jobs < 2 ? q->jobs : q->jobs - 1;
	struct serve_share *sh;

	if (q->running >= q->jobs || (swept && q->running_swept >= most))
		return false;
	if (!owner)
		return true;
	sh = serve_share(q, owner);
	return sh && sh->running < most;
}

/* A child started on a file of @owner's: it counts until its end. */
void serve_queue_started(struct serve_queue *q, bool swept, uid_t owner)
{
	struct serve_share *sh = owner ? serve_share_find(q, owner) : NULL;

	q->running++;
	q->running_swept += swept;
	if (sh)
		sh->running++;
}

/* That child has ended: a place for the next. */
void serve_queue_done(struct serve_queue *q, bool swept, uid_t owner)
{
	struct serve_share *sh = owner ? serve_share_find(q, owner) : NULL;

	q->running--;
	q->running_swept -= swept;
	if (sh && sh->running)
		sh->running--;
}

/* Does no child run and no file wait? */
bool serve_queue_idle(const struct serve_queue *q)
{
	return !q->running && !q->queued;
}

/* Is there a place for a file being mapped now? */
bool serve_queue_room(const struct serve_queue *q)
{
	return q->queued < SERVE_QUEUE_MAX;
}

/*
 * Queue @w until a child, or its owner's credit, is there for it: the
 * queue holds a descriptor of its own for it.  A file mapped now has a
 * place whenever serve_queue_room() said so; a swept one, only within
 * SERVE_QUEUE_SWEPT.
 */
enum serve_admit serve_queue_admit(struct serve_queue *q,
				   const struct serve_waiting *w)
{
	int fd;

	if (w->owner && serve_owner_waiting(q, w->owner) >= SERVE_QUEUE_OWNER)
		return w->swept ? SERVE_PUT_OFF : SERVE_OWNER_FULL;
	if (!serve_queue_room(q) ||
	    (w->swept && q->queued_swept >= SERVE_QUEUE_SWEPT))
		return w->swept ? SERVE_PUT_OFF : SERVE_QUEUE_FULL;
	fd = fcntl(w->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return w->swept ? SERVE_PUT_OFF : SERVE_QUEUE_FULL;
	q->wait[q->queued] = *w;
	q->wait[q->queued++].fd = fd;
	q->queued_swept += w->swept;
	return SERVE_ADMITTED;
}

/*
 * Is the file of record @seen waiting?  One waiting that a mapping made
 * now (not @swept) reports again is no longer put after what is being
 * mapped now.
 */
bool serve_queue_holds(struct serve_queue *q, size_t seen, bool swept)
{
	unsigned int i;

	for (i = 0; i < q->queued; i++) {
		if (q->wait[i].seen != seen)
			continue;
		if (q->wait[i].swept && !swept) {
			q->wait[i].swept = false;
			q->queued_swept--;
		}
		return true;
	}
	return false;
}

/*
 * Take the file to start next into *@w (its descriptor is the caller's
 * now): the first being mapped now that its owner's share and pace let
 * start, else the first such a sweep found.  False if none may start now.
 */
bool serve_queue_next(struct serve_queue *q, struct serve_waiting *w)
{
	unsigned int i;
	int swept;

	for (swept = 0; swept < 2; swept++) {
		for (i = 0; i < q->queued; i++) {
			*w = q->wait[i];
			if (w->swept == swept &&
			    serve_queue_may_start(q, swept, w->owner) &&
			    serve_queue_paced(q, w->owner, w->size, false))
				goto take;
		}
	}
	return false;
take:
	memmove(q->wait + i, q->wait + i + 1,
		(--q->queued - i) * sizeof(*q->wait));
	q->queued_swept -= w->swept;
	return true;
}

/* Where the waiting files' record indices are, for renumbering them. */
unsigned int serve_queue_seen(struct serve_queue *q, size_t **in_use)
{
	unsigned int i;

	for (i = 0; i < q->queued; i++)
		in_use[i] = &q->wait[i].seen;
	return i;
}

/* The service ends: the waiting forgotten, the shares freed. */
void serve_queue_clear(struct serve_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->queued; i++)
		close(q->wait[i].fd);
	q->queued = q->queued_swept = 0;
	free(q->shares);
	q->shares = NULL;
	q->nr_shares = 0;
}
