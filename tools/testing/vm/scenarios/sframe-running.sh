#!/bin/sh
# sframe-running: the module, loaded while a workload already runs,
# unwinds it (its mappings are found by the scan at load).
# needs: module
# kernels: all
# timeout: 300
. /vmtest/lib.sh
# The workload outlives the recording whatever the load and insmod take,
# and is stopped after it: SIGTERM is its only expected end.
W=/workloads/v3-binutils-2.47/deep
$W chain 300 > /tmp/chain.expect &
pid=$!
wait_exe $W 30 > /dev/null || { result fail "$W did not start"; exit 1; }
load_module sframe_unwind
# The scan at load has found it once its section is in its map.
if ! ms=$(wait_maps "^$pid .* FDEs $W\$" 30000); then
	cat /sys/kernel/debug/sframe_unwind/maps
	result fail "the scan at load did not find $W's section in 30 s"
	exit 1
fi
metric scan_found_ms "$ms"
perf record -q -N -B -g -e cpu-clock -F "$PERF_FREQ" -p $pid -o /tmp/run.data -- sleep 4
kill $pid
wait $pid
rc=$?
[ $rc = 143 ] || result fail "workload ended before it was stopped: exit $rc"
perf script -i /tmp/run.data --no-inline -F comm,tid,ip,sym,dso > /tmp/chain.perf
artefact chain.expect /tmp/chain.expect
artefact chain.perf /tmp/chain.perf
sframe_done module
