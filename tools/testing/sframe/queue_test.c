// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve's scheduler (serve_queue.c), on its own, on a clock
 * the test moves: what is being mapped now before what a sweep found, an
 * owner's share of the children, of the places and of the disk cache,
 * its pace, and a file waiting found again.
 */
#include <fcntl.h>
#include <unistd.h>

#include "../../sframectl/serve_queue.h"
#include "tap.h"

static long long clock_ms;

static long long test_now(void)
{
	return clock_ms;
}

static struct serve_waiting file(int fd, size_t seen, bool swept,
				 uid_t owner)
{
	return (struct serve_waiting){
		.fd = fd, .seen = seen, .size = 4096, .swept = swept,
		.owner = owner,
	};
}

/* Admit @n files of @owner's from record @seen on: how many were. */
static unsigned int admit(struct serve_queue *q, int fd, size_t seen,
			  unsigned int n, bool swept, uid_t owner,
			  enum serve_admit *last)
{
	struct serve_waiting w;
	unsigned int i, in = 0;

	for (i = 0; i < n; i++) {
		w = file(fd, seen + i, swept, owner);
		*last = serve_queue_admit(q, &w);
		in += *last == SERVE_ADMITTED;
	}
	return in;
}

/* Children and places: what is mapped now first, one child left for it. */
static void test_shares(int fd)
{
	struct serve_queue q = { .jobs = 2, .now = test_now };
	struct serve_waiting w;
	enum serve_admit last;
	unsigned int n;

	tap_ok(serve_queue_may_start(&q, true, 1001),
	       "an idle service starts a user's swept file");
	serve_queue_started(&q, true, 1001);
	tap_ok(!serve_queue_may_start(&q, true, 0) &&
	       !serve_queue_may_start(&q, false, 1001) &&
	       serve_queue_may_start(&q, false, 0),
	       "with 2 children, one swept file or one user's file leaves the other for root's file mapped now");
	serve_queue_done(&q, true, 1001);
	tap_ok(serve_queue_may_start(&q, false, 1001) && q.running == 0,
	       "its end gives the place back");

	n = admit(&q, fd, 200, 60, true, 0, &last);
	tap_ok(n == SERVE_QUEUE_SWEPT && last == SERVE_PUT_OFF &&
	       serve_queue_room(&q),
	       "root's swept files: %u places of %u, the rest put off", n,
	       SERVE_QUEUE_MAX);
	n = admit(&q, fd, 0, 20, false, 1001, &last);
	tap_ok(n == SERVE_QUEUE_OWNER && last == SERVE_OWNER_FULL,
	       "one user's files mapped now: %u wait, the rest dropped (%d)",
	       n, last);
	n = admit(&q, fd, 100, 1, true, 1001, &last);
	tap_ok(!n && last == SERVE_PUT_OFF,
	       "his swept file: put off for the next sweep, not dropped");
	n = admit(&q, fd, 300, 1, false, 0, &last);
	tap_ok(!n && last == SERVE_QUEUE_FULL && !serve_queue_room(&q),
	       "all %u places taken: root's file mapped now dropped",
	       SERVE_QUEUE_MAX);

	tap_ok(serve_queue_holds(&q, 201, false) &&
	       q.queued_swept == SERVE_QUEUE_SWEPT - 1,
	       "a swept file mapped again is found waiting, as mapped now");
	tap_ok(serve_queue_next(&q, &w) && !w.swept && w.seen == 201,
	       "next: the first mapped now, in the order they came (record %zu)",
	       w.seen);
	close(w.fd);
	serve_queue_started(&q, w.swept, w.owner);
	tap_ok(serve_queue_next(&q, &w) && w.seen == 0 && w.owner == 1001,
	       "then the user's first, before root's swept ones (record %zu)",
	       w.seen);
	close(w.fd);
	serve_queue_started(&q, w.swept, w.owner);
	tap_ok(!serve_queue_next(&q, &w) && !serve_queue_idle(&q),
	       "both children busy: none next");
	serve_queue_done(&q, false, 0);
	tap_ok(serve_queue_next(&q, &w) && w.seen == 200 && w.swept,
	       "root's ends: the user's next held back by his share, so root's swept file (record %zu)",
	       w.seen);
	close(w.fd);
	serve_queue_clear(&q);
}

/* An owner's pace and disk cache. */
static void test_pace(int fd)
{
	struct serve_queue q = {
		.jobs = 8, .now = test_now, .owner_cache_max = 1 << 20,
	};
	struct serve_waiting w;
	enum serve_admit last;
	unsigned int i;

	for (i = 0; i < SERVE_OWNER_BURST; i++)
		if (!serve_queue_paced(&q, 1001, 4096, true))
			break;
	tap_ok(i == SERVE_OWNER_BURST && !serve_queue_paced(&q, 1001, 4096, false),
	       "a user's burst: %u files at once, then none", i);
	tap_ok(serve_queue_paced(&q, 0, 1LL << 30, true),
	       "root's files are never paced");
	admit(&q, fd, 0, 1, false, 1001, &last);
	tap_ok(serve_queue_wait_ms(&q) == SERVE_OWNER_PACE_MS &&
	       !serve_queue_next(&q, &w),
	       "his waiting file: due in %d ms, not before",
	       serve_queue_wait_ms(&q));
	clock_ms += SERVE_OWNER_PACE_MS;
	tap_ok(serve_queue_next(&q, &w) && w.seen == 0 &&
	       serve_queue_wait_ms(&q) == -1,
	       "after %d ms, it is next", SERVE_OWNER_PACE_MS);
	close(w.fd);
	serve_queue_paced(&q, 1001, 4096, true);
	serve_queue_refund(&q, 1001, 4096);
	tap_ok(serve_queue_paced(&q, 1001, 4096, false),
	       "a supply put off is refunded");
	clock_ms += 10 * SERVE_OWNER_BURST * SERVE_OWNER_PACE_MS;
	tap_ok(serve_queue_paced(&q, 1001, 1LL << 30, true) &&
	       !serve_queue_paced(&q, 1001, 4096, false),
	       "a file costing more than the burst: taken at full credit, all of it spent");
	tap_ok(serve_queue_may_store(&q, 1001, 1 << 19) &&
	       serve_queue_may_store(&q, 1001, 1 << 19) &&
	       !serve_queue_may_store(&q, 1001, 1) &&
	       serve_queue_may_store(&q, 0, 1 << 30),
	       "his disk cache share: 1 MiB, root's unbounded");
	serve_queue_clear(&q);
}

int main(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 1;
	test_shares(fd);
	test_pace(fd);
	/* Every descriptor the queue took was closed: the next is fd + 1. */
	{
		int next = dup(fd);

		tap_ok(next == fd + 1, "every descriptor the queue held closed (next %d)",
		       next);
		close(next);
	}
	close(fd);
	return tap_done();
}
