#!/bin/sh
# bench-walk: the module's per-frame cost, SFrame walk against a plain
# frame-pointer walk, on one captured user stack (debugfs "bench"; the
# walkbench workload is built with both frame pointers and SFrame).
# needs: module
# kernels: debian-6.12
# timeout: 600
. /vmtest/lib.sh
load_module sframe_unwind
W=/workloads/project/sframe-fp/walkbench
# 48 frames of descend() are walked; main and libc lie beyond them.
if out=$($W 20000 48); then
	echo "$out"
	set -- $out
	while [ $# -ge 2 ]; do
		metric "$1" "$2"
		shift 2
	done
else
	result fail "walkbench failed"
fi
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
