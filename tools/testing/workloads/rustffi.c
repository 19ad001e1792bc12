// SPDX-License-Identifier: GPL-2.0
/*
 * rustffi: the C half of rustrecurse, built without frame pointers: it
 * recurses @depth levels, then calls back into Rust.
 */
#include <stdint.h>

/* Global, so the compiler reads it after each call: no loop, no tail call. */
uint32_t c_bias;

uint64_t c_through(uint32_t depth, uint64_t (*callback)(uint32_t))
{
	uint64_t below;

	if (depth == 0)
		return callback(c_bias + 6);
	below = c_through(depth - 1, callback);
	return below + c_bias;
}
