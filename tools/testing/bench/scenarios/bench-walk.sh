#!/bin/sh
# bench-walk: the module's per-frame cost, SFrame walk against a plain
# frame-pointer walk, on one captured user stack (debugfs "bench"; the
# walkbench workload is built with both frame pointers and SFrame), once
# with 16-byte frames and once with frames holding 128 bytes of locals;
# each also half as deep (narrow_half, wide_half), so that the host can
# tell the cost of a frame from the cost of a walk.
# needs: module
# kernels: debian-6.12 arm64-debian-6.12
# default: none
# timeout: 600
. /vmtest/lib.sh
load_module sframe_unwind
W=/workloads/project/sframe-fp/walkbench
# 48 frames of descend() are walked (24 for _half); main and libc lie
# beyond them.
for run in narrow:48 wide:48 narrow_half:24 wide_half:24; do
	name=${run%:*} depth=${run#*:} frames=${name%_half}
	if out=$($W 20000 $depth $frames); then
		echo "$name: $out"
		set -- $out
		while [ $# -ge 2 ]; do
			metric "${name}_$1" "$2"
			shift 2
		done
	else
		result fail "walkbench $name failed"
	fi
done
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
