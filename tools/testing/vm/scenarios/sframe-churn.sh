#!/bin/sh
# sframe-churn: exec and dlopen/dlclose loops for a minute; afterwards the
# cache has not grown and no exited process is left in the maps.
# needs: module
# kernels: all
# default: debug
# timeout: 300
. /vmtest/lib.sh
load_module sframe_unwind
W=/workloads/v3-binutils-2.47/deep
$W dlopen 0.05 > /dev/null
wait_loads 10000 > /dev/null || result fail "a file still loading after 10 s"
files=$(stat_value files_cached)
bytes=$(stat_value kernel_bytes)
end=$(($(date +%s) + 60))
runs=0
while [ "$(date +%s)" -lt $end ]; do
	$W dlopen 0.01 > /dev/null || { result fail "workload failed"; exit 1; }
	runs=$((runs + 1))
done
wait_loads 10000 > /dev/null || result fail "a file still loading after 10 s"
metric churn_runs $runs
if [ "$(stat_value files_cached)" = "$files" ] && [ "$(stat_value kernel_bytes)" = "$bytes" ]; then
	result ok "$runs exec+dlopen runs: cache stayed at $files files, $bytes bytes"
else
	result fail "cache grew: $files -> $(stat_value files_cached) files, $bytes -> $(stat_value kernel_bytes) bytes"
fi
if grep -q deep /sys/kernel/debug/sframe_unwind/maps; then
	result fail "exited processes left in the maps"
else
	result ok "no exited process left in the maps"
fi
sframe_done module
