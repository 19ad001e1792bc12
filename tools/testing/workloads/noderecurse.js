// SPDX-License-Identifier: GPL-2.0
// A CPU-bound recursive JavaScript function, for profiling Node.js: V8's
// JIT and interpreter frames (frame pointers, no unwind tables) between
// libnode's C++ frames (.eh_frame, no frame pointers).
//
// Usage: node [--no-concurrent-recompilation] noderecurse.js [DEPTH]
//
// Calls descend(DEPTH) over and over until killed.  The arithmetic stays
// within small integers, so that the loop allocates nothing and V8's
// garbage collector threads stay idle; with --no-concurrent-recompilation
// TurboFan compiles descend() on the main thread too, and all the
// samples are the main thread's.
'use strict';

const DEFAULT_DEPTH = 30;

// Recurse depth levels deep and do a little arithmetic on the way back.
function descend(depth) {
	if (depth === 0)
		return 1;
	return (descend(depth - 1) * 3 + depth) % 1000003;
}

const depth = process.argv.length > 2 ? Number(process.argv[2]) : DEFAULT_DEPTH;
if (!Number.isInteger(depth) || depth < 0) {
	console.error('usage: node noderecurse.js [DEPTH]');
	process.exit(2);
}
let sum = 0;
for (;;)
	sum = (sum + descend(depth)) % 1000003;
