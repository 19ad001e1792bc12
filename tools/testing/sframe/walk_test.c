// SPDX-License-Identifier: GPL-2.0
/*
 * The walker's step logic on synthetic stacks, in user space: the cases of
 * kernel/sframe/walk_cases.h, which the KUnit suite runs in the kernel.
 * Each runs twice: rules found by decoding, then by the flattened table.
 *
 * usage: walk_test FIXTURES_DIR
 */
#include <inttypes.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "../../../kernel/sframe/flat_check.h"
#include "../../../kernel/sframe/walk_cases.h"
#include "tap.h"

static void run_cases(const struct sframe_section *sec, const char *how)
{
	static struct walk_env env;
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(walk_cases); i++) {
		const struct walk_case *c = &walk_cases[i];
		u64 got[WALK_MAX_FRAMES];
		enum sframe_walk_stop stop;
		bool same = true;

		stop = walk_case_run(c, sec, &env, got);
		for (k = 0; k < WALK_MAX_FRAMES && (c->want[k] || got[k]); k++)
			same &= c->want[k] == got[k];
		if (!tap_ok(same && stop == c->want_stop, "%s, %s: %s", c->name,
			    how, sframe_walk_stop_str(c->want_stop))) {
			for (k = 0; got[k]; k++)
				tap_diag("frame %u: 0x%" PRIx64, k, got[k]);
			tap_diag("stopped: %s", sframe_walk_stop_str(stop));
		}
		/* Every frame in one object: the walk asks once. */
		if (!c->no_sframe_below && !c->tramp)
			tap_ok(env.lookups == 1, "%s, %s: one lookup (%u)",
			       c->name, how, env.lookups);
	}
}

int main(int argc, char **argv)
{
	char path[1024], msg[SFRAME_MSG_MAX];
	struct sframe_section sec;
	struct sframe_flat flat;
	struct sframe_input in;
	void *mem;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/sframe/sid-2.47.50/prog", argv[1]);
	if (!tap_ok(sframe_input_load(&in, path, false, msg, sizeof(msg)) == 0 &&
		    sframe_validate(&sec, in.bytes, (u32)in.size, in.vaddr,
				    SFRAME_REQUIRE_SORTED, NULL) == 0,
		    "sid-2.47.50/prog loads"))
		return tap_done();

	run_cases(&sec, "decoded");
	mem = flat_check_build(&sec, &flat, &err);
	if (tap_ok(mem != NULL, "sid-2.47.50/prog flattens (%d)", err))
		run_cases(&sec, "flat table");
	free(mem);
	sframe_input_free(&in);
	return tap_done();
}
