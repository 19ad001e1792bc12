#!/bin/sh
# sframe-plt: a static program with its own .sframe for its code, whose
# time goes to the C library's IFUNC'd strlen() and memcpy() through the
# IPLT stubs (ld's .iplt, in .plt), at the end of a recursive chain.
# Neither .eh_frame nor the linker's .sframe describes the stubs: the
# sidecar the service makes (gen --fill) must, or a sample in a stub
# loses its caller.  Recorded with perf -g once the sidecar is in use;
# the host checks how many samples reach main through the whole chain.
# needs: module
# kernels: debian-6.12
# default: debian-6.12
# timeout: 180
. /vmtest/lib.sh
W=/workloads/project/sframe/ifuncloop
CACHE=/tmp/plt-cache
LIMIT_MS=20000
RECORD_SECONDS=4		# of the workload's CPU time

load_module sframe_unwind
serve plt || { unload_module sframe_unwind; exit 1; }
$W 600 > /dev/null &
mapper=$!
if ms=$(wait_maps " v[0-9]+ [0-9]+ FDEs \+ fill $W\$" $LIMIT_MS); then
	metric mapping_to_fill_ms "$ms"
	result ok "the service filled $W's gaps in $ms ms"
else
	result fail "no sidecar filling $W's gaps after $LIMIT_MS ms"
fi
kill $mapper
wait $mapper 2> /dev/null
record_callgraph plt fp $W $RECORD_SECONDS && cat /tmp/plt.out
sframe_state module
stop_serve plt
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
rm -rf $CACHE
