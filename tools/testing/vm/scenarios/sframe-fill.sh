#!/bin/sh
# sframe-fill: a static binary whose own .sframe covers its program but
# not the libc linked into it (the v3 build's deep-static).  Without a
# sidecar a stack through libc's qsort stops in libc.  The sidecar
# service, told by the module that the file has a section of its own,
# makes a sidecar of only what that section leaves out (gen --fill) and
# loads it behind the file's own (SFRAME_SIDECAR_FILL): qsort then unwinds
# to main, and chain, which the file's own section describes, still does.
# The module read the file before the service came: a mapping of it is
# reported to the new watcher all the same.
# A restart of the service takes the sidecar from its cache (its log
# says so of each object loaded).
# In every recording, each caller reported must be in the program and
# follow a call instruction (the host half disassembles it): where the
# walk leaves the program's section in libc without the fill, the frame
# pointers lead to words no call left, which the stock walker reports.
# needs: module
# kernels: all
# default: debug
# timeout: 600
. /vmtest/lib.sh
SF=/workloads/project/sframectl
W=/workloads/v3-binutils-2.47/deep-static
CACHE=/tmp/fill-cache
case $KERNEL in
debug)	LIMIT_MS=40000 ;;
*)	LIMIT_MS=20000 ;;
esac

# filled NAME: map the program and wait for its gaps to be filled.
filled()
{
	$W chain 600 > /dev/null &
	mapper=$!
	if ms=$(wait_maps " v[0-9]+ [0-9]+ FDEs \+ fill $W\$" $LIMIT_MS); then
		metric "$1_mapping_to_fill_ms" "$ms"
		result ok "$1: the service filled $W's gaps in $ms ms"
	else
		result fail "$1: no sidecar filling $W's gaps after $LIMIT_MS ms"
	fi
	kill $mapper
	wait $mapper 2> /dev/null
}

load_module sframe_unwind
record_pattern $W qsort own-qsort
# The module read the file before the service watched, and keeps it
# (idle for idle_seconds): its next mapping must be reported all the same.
serve first || { unload_module sframe_unwind; exit 1; }
filled first
record_pattern $W qsort qsort
record_pattern $W chain chain
sframe_state module
stop_serve first
grep -q "^$W: loaded (.*, generated)\$" /tmp/first.log &&
grep -q "at exit: .*, 1 of them with gaps filled," /tmp/first.log ||
	result fail "first: the service did not say it filled one object, $W"

# A restart: the sidecar is still loaded; unload it and let the service
# find the running program and take the sidecar from its cache.
$W chain 600 > /dev/null &
runner=$!
must $SF unload $W
serve restart || { unload_module sframe_unwind; exit 1; }
if wait_maps " v[0-9]+ [0-9]+ FDEs \+ fill $W\$" $LIMIT_MS > /dev/null; then
	result ok "restart: the running program's gaps are filled again"
else
	result fail "restart: no sidecar filling $W's gaps"
fi
kill $runner
wait $runner 2> /dev/null
stop_serve restart
# Other files may be new to this run; the program's sidecar is not.
if grep -q "^$W: loaded (.*, from the cache)\$" /tmp/restart.log &&
   ! grep -q "^$W: loaded (.*, generated)\$" /tmp/restart.log; then
	result ok "restart: $W's sidecar came from the cache"
else
	result fail "restart: $W's sidecar did not come from the cache"
fi
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
rm -rf $CACHE
