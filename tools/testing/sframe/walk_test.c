// SPDX-License-Identifier: GPL-2.0
/*
 * The walker's step logic on synthetic stacks, in user space: the cases of
 * kernel/sframe/tests/walk_cases.h, which the KUnit suite runs in the kernel,
 * for x86-64 and AArch64.  Each runs four times: rules found by decoding,
 * by the flattened table, and by the table through a step cache, which
 * the third pass fills and the fourth uses; then as the module walks, by
 * one sframe_walk_fill() of every frame, and over moved and other
 * sections.
 *
 * usage: walk_test FIXTURES_DIR
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "../../../kernel/sframe/tests/flat_check.h"
#include "../../../kernel/sframe/tests/walk_cases.h"
#include "tap.h"

static struct walk_env env;

/* Run @suite's cases over @sec: the steps taken from env.cache. */
static unsigned int run_cases(const struct walk_suite *suite,
			      const struct sframe_section *sec,
			      const char *how)
{
	unsigned int i, k, cached = 0;

	for (i = 0; i < suite->nr_cases; i++) {
		const struct walk_case *c = &suite->cases[i];
		u64 got[WALK_MAX_FRAMES];
		enum sframe_walk_stop stop;
		bool same = true;

		stop = walk_case_run(suite, c, sec, &env, got);
		cached += env.cached_steps;
		for (k = 0; k < WALK_MAX_FRAMES && (c->want[k] || got[k]); k++)
			same &= c->want[k] == got[k];
		if (!tap_ok(same && stop == c->want_stop &&
			    env.fp_fallback_steps == c->want_fallback &&
			    (env.batch || !env.code_rereads) &&
			    env.record_cfa_steps == c->want_record_cfa &&
			    env.cached_steps <= env.sframe_steps,
			    "%s: %s, %s: %s", suite->name, c->name, how,
			    sframe_walk_stop_str(c->want_stop))) {
			for (k = 0; got[k]; k++)
				tap_diag("frame %u: 0x%" PRIx64, k, got[k]);
			tap_diag("stopped: %s", sframe_walk_stop_str(stop));
			tap_diag("frame-pointer steps where SFrame had none: %u (want %u)",
				 env.fp_fallback_steps, c->want_fallback);
			tap_diag("words of code read twice in a step: %u",
				 env.code_rereads);
			tap_diag("SFrame steps with the CFA from a record: %u (want %u)",
				 env.record_cfa_steps, c->want_record_cfa);
			tap_diag("SFrame steps: %u, of them by the step cache: %u",
				 env.sframe_steps, env.cached_steps);
		}
		/* Every frame in one object: the walk asks once. */
		if (!c->no_sframe_below && !c->tramp)
			tap_ok(env.lookups == 1, "%s: %s, %s: one lookup (%u)",
			       suite->name, c->name, how, env.lookups);
	}
	return cached;
}

/*
 * Through a step cache, the same answers: the cache shared by all the
 * cases (other stacks, the same section), then by the same cases over
 * a section with another id, which must find nothing in it.
 */
static void run_cached(const struct walk_suite *suite,
		       struct sframe_section *sec)
{
	unsigned int filling, filled, other, fresh;

	env.cache = calloc(1, sizeof(*env.cache));
	if (!tap_ok(env.cache != NULL, "%s: a step cache", suite->name))
		return;
	sec->id = 1;
	filling = run_cases(suite, sec, "step cache filling");
	filled = run_cases(suite, sec, "step cache filled");
	tap_ok(filled > filling, "%s: the filled step cache steps more frames (%u, filling %u)",
	       suite->name, filled, filling);
	/* As the module walks: every frame by one fill, over the filled cache. */
	env.batch = true;
	tap_ok(run_cases(suite, sec, "step cache filled, one batch") == filled,
	       "%s: one batch steps as many frames by the cache as a step at a time (%u)",
	       suite->name, filled);
	env.batch = false;
	/*
	 * The same object in another process, 8 bytes lower: x86-64's
	 * outermost return address (0x1460, in a function with no RA: the
	 * walk ends there) lands where call_drap's (0x1458) was, which has
	 * a rule, so an entry keyed by the PC rather than by the address in
	 * the object would step past the outermost frame.  (AArch64's cases
	 * meet no such entry at this distance: for them the move only checks
	 * that the answers stay right.)
	 */
	env.delta = -8ULL;
	run_cases(suite, sec, "step cache, the object at another address");
	env.delta = 0;
	sec->id = 2;
	other = run_cases(suite, sec, "step cache, another section");
	memset(env.cache, 0, sizeof(*env.cache));
	fresh = run_cases(suite, sec, "step cache, another section, empty");
	tap_ok(other == fresh, "%s: another section's id finds nothing in the cache (%u, %u)",
	       suite->name, other, fresh);
	free(env.cache);
	env.cache = NULL;
}

/* A suite's cases over its section, decoded and through the flat table. */
static void run_suite(const struct walk_suite *suite)
{
	struct sframe_section sec;
	struct sframe_flat flat;
	void *mem;
	int err;

	if (!tap_ok(sframe_validate(&sec, suite->sframe, suite->size,
				    suite->vaddr, SFRAME_REQUIRE_SORTED,
				    NULL) == 0, "%s: the section validates",
		    suite->name))
		return;
	run_cases(suite, &sec, "decoded");
	mem = flat_check_build(&sec, &flat, &err);
	if (tap_ok(mem != NULL, "%s: the section flattens (%d)", suite->name,
		   err))
		run_cases(suite, &sec, "flat table");
	if (mem)
		run_cached(suite, &sec);
	sframe_free(mem);
}

int main(int argc, char **argv)
{
	char path[1024], msg[SFRAME_MSG_MAX];
	struct sframe_input in;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	/* The x86-64 cases' section is the fixture program's, byte for byte. */
	snprintf(path, sizeof(path), "%s/sid-2.47.50/prog", argv[1]);
	if (tap_ok(sframe_input_load(&in, path, false, msg, sizeof(msg)) == 0,
		   "sid-2.47.50/prog loads")) {
		tap_ok(in.size == sizeof(sid_prog) && in.vaddr == PROG_SFRAME_VADDR &&
		       !memcmp(in.bytes, sid_prog, in.size),
		       "the x86-64 cases walk sid-2.47.50/prog's .sframe");
		sframe_input_free(&in);
	}
	run_suite(&walk_suite_x86_64);
	run_suite(&walk_suite_aarch64);
	return tap_done();
}
