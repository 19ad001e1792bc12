// SPDX-License-Identifier: GPL-2.0
/*
 * The format core and every architecture's walk facts, compiled into the
 * KUnit module itself: the suites test the source sframe_unwind.ko is
 * built from, and walk other machines' stacks too, without the test
 * module having to load the unwinder or the unwinder having to export its
 * internals.  The walk is the same template (core/walk_impl.h) built
 * with other callbacks: sframe_unwind.ko's calls the module's own lookup
 * and stack read directly (walk_user.c); here it calls every callback
 * through its ops (core/walk_ops.c), as the suites need.  Those direct
 * calls are left to the VM tests.
 */
#include "../core/decode.c"
#include "../core/validate.c"
#include "../core/lookup.c"
#include "../core/flat.c"
#include "../core/walk.c"
#include "../core/walk_ops.c"
#include "../arch/x86/machine.c"
#include "../arch/arm64/machine.c"
