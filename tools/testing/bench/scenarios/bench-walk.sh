#!/bin/sh
# bench-walk: the module's per-frame cost, SFrame walk against a plain
# frame-pointer walk, on one captured user stack (debugfs "bench"; the
# walkbench workload is built with both frame pointers and SFrame), once
# with 16-byte frames and once with frames holding 128 bytes of locals.
# needs: module
# kernels: debian-6.12 arm64-debian-6.12
# default: none
# timeout: 600
. /vmtest/lib.sh
load_module sframe_unwind
W=/workloads/project/sframe-fp/walkbench
# 48 frames of descend() are walked; main and libc lie beyond them.
for frames in narrow wide; do
	if out=$($W 20000 48 $frames); then
		echo "$frames: $out"
		set -- $out
		while [ $# -ge 2 ]; do
			metric "${frames}_$1" "$2"
			shift 2
		done
	else
		result fail "walkbench $frames failed"
	fi
done
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
