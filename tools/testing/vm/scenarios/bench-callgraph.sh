#!/bin/sh
# bench-callgraph: perf -g with the module against perf --call-graph dwarf
# on the same SFrame workload: perf.data bytes per sample and stack
# completeness of each (the project's build: 41-deep recursion).
# needs: module
# kernels: debian-6.12
# default: none
# timeout: 600
. /vmtest/lib.sh
load_module sframe_unwind
W=/workloads/project/sframe/deep
for mode in sframe dwarf; do
	how=$mode
	[ $mode = sframe ] && how=fp
	record_callgraph $mode $how $W recurse "$PATTERN_SECONDS" &&
		metric ${mode}_data_bytes "$recorded_bytes"
done
artefact recurse.expect /tmp/sframe.out
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
