// SPDX-License-Identifier: GPL-2.0
/*
 * The format core and every architecture's walk facts, compiled into the
 * KUnit module itself: the suites test exactly the code sframe_unwind.ko
 * runs, and walk other machines' stacks too, without the test module
 * having to load the unwinder or the unwinder having to export its
 * internals.
 */
#include "core/decode.c"
#include "core/validate.c"
#include "core/lookup.c"
#include "core/flat.c"
#include "core/walk.c"
#include "arch/x86_64.c"
#include "arch/aarch64.c"
