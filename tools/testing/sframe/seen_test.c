// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve's record of the files it handled (serve_seen.c), on
 * its own: each file found again by its identity after the set grew, a
 * changed file (size, modification time) a new record, no more than
 * SERVE_SEEN_MAX records, and a full set made to keep only the records
 * of files in flight, renumbered.
 */
#include <string.h>

#include "../../sframectl/serve_seen.h"
#include "tap.h"

static struct stat file_stat(unsigned long n)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = 8 + n % 3;
	st.st_ino = 1000 + n;
	st.st_size = 4096;
	st.st_mtim.tv_sec = 1700000000;
	return st;
}

int main(void)
{
	struct serve_seen_set set = { 0 };
	size_t in_flight[4], *in_use[4];
	struct serve_seen *n, *first_rec;
	unsigned long i, again = 0, found = 0;
	struct stat st;
	bool first;

	st = file_stat(0);
	first_rec = serve_remember(&set, &st, &first);
	tap_ok(first_rec && first, "a new file: a new record");
	first_rec->no_sidecar = true;
	for (i = 1; i < SERVE_SEEN_MAX; i++) {
		st = file_stat(i);
		n = serve_remember(&set, &st, &first);
		if (!n || !first)
			break;
	}
	tap_ok(i == SERVE_SEEN_MAX && set.nr == SERVE_SEEN_MAX,
	       "%lu files remembered, want %d", i, SERVE_SEEN_MAX);
	for (i = 0; i < SERVE_SEEN_MAX; i++) {
		st = file_stat(i);
		n = serve_remember(&set, &st, &first);
		again += n && !first;
		found += n && n->ino == st.st_ino && n->dev == st.st_dev;
	}
	tap_ok(again == SERVE_SEEN_MAX && found == SERVE_SEEN_MAX,
	       "each found again by its identity after the set grew: %lu of %d",
	       found, SERVE_SEEN_MAX);
	st = file_stat(0);
	n = serve_remember(&set, &st, &first);
	tap_ok(n && n->no_sidecar, "a record keeps what was learnt of its file");
	st.st_mtim.tv_nsec = 1;
	n = serve_remember(&set, &st, &first);
	tap_ok(!n, "full: a changed file gets no record (SERVE_SEEN_MAX %d)",
	       SERVE_SEEN_MAX);
	/* Files SERVE_SEEN_MAX - 1, 7 and 0 in flight, one named twice. */
	in_flight[0] = SERVE_SEEN_MAX - 1;
	in_flight[1] = 7;
	in_flight[2] = 0;
	in_flight[3] = 7;
	for (i = 0; i < 4; i++)
		in_use[i] = &in_flight[i];
	tap_ok(!serve_seen_keep(&set, in_use, 4) && set.nr == 3,
	       "full: all but the 3 files in flight forgotten (%zu kept)",
	       set.nr);
	tap_ok(in_flight[0] == 0 && in_flight[1] == 1 && in_flight[2] == 2 &&
	       in_flight[3] == 1 &&
	       set.rec[0].ino == 1000 + SERVE_SEEN_MAX - 1 &&
	       set.rec[1].ino == 1007 && set.rec[2].ino == 1000 &&
	       set.rec[2].no_sidecar,
	       "those renumbered, each record with its file's identity and what was learnt");
	st = file_stat(7);
	n = serve_remember(&set, &st, &first);
	tap_ok(n == &set.rec[1] && !first, "a file in flight found again");
	st = file_stat(8);
	n = serve_remember(&set, &st, &first);
	tap_ok(n && first && set.nr == 4, "a forgotten one is new");
	serve_seen_free(&set);
	return tap_done();
}
