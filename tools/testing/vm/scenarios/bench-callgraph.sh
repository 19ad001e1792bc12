#!/bin/sh
# bench-callgraph: perf -g with the module against perf --call-graph dwarf
# on the same SFrame workload: perf.data bytes per sample and stack
# completeness of each (the project's build: 41-deep recursion).
# needs: module
# kernels: debian-6.12
# timeout: 600
. /vmtest/lib.sh
load_module sframe_unwind
W=/workloads/project/sframe/deep
for mode in sframe dwarf; do
	if [ $mode = sframe ]; then
		set -- -g
	else
		set -- --call-graph dwarf
	fi
	perf record -q -N -B "$@" -e cpu-clock -F "$PERF_FREQ" -o /tmp/$mode.data \
		-- $W recurse "$PATTERN_SECONDS" > /tmp/recurse.expect 2> /tmp/$mode.err ||
		{ cat /tmp/$mode.err; result fail "perf record ($mode) failed"; }
	metric ${mode}_data_bytes "$(wc -c < /tmp/$mode.data)"
	perf script -i /tmp/$mode.data --no-inline -F comm,tid,ip,sym,dso \
		> /tmp/$mode.perf 2> /tmp/$mode.err
	artefact $mode.perf /tmp/$mode.perf
done
artefact recurse.expect /tmp/recurse.expect
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
