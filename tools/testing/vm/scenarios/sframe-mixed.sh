#!/bin/sh
# sframe-mixed: with the module, no stack is shorter or less complete than
# the stock walker makes it.  mixwalk's stacks mix SFrame code with code
# that only frame pointers describe (functions without CFI inside the
# SFrame executable, a JIT stub in anonymous memory, a library without
# unwind tables); each pattern is recorded without the module, then with
# it, and the host compares them.  The walks' time stays within
# check_walk_time's bounds and perf never lowers its sample rate.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: debian-6.12 arm64-debian-6.12
# timeout: 900
. /vmtest/lib.sh
MIXWALK=/workloads/project/mixed/mixwalk
MIX_PATTERNS="sframe nocfi jit fplib mixed nocfileaf fpleaf"

if [ ! -x $MIXWALK ]; then
	result fail "workload $MIXWALK is missing"
	exit 1
fi
unload_module sframe_unwind
for p in $MIX_PATTERNS; do
	record_pattern $MIXWALK $p "stock-$p"
done
load_module sframe_unwind
rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
for p in $MIX_PATTERNS; do
	record_pattern $MIXWALK $p "module-$p"
done
rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
verdict "perf_event_max_sample_rate kept: $rate_after" \
	"perf_event_max_sample_rate fell from $rate_before to $rate_after" \
	[ "$rate_after" -ge "$rate_before" ]
check_walk_time
metric frames_fp_fallback "$(stat_value frames_fp_fallback)"
sframe_done module
