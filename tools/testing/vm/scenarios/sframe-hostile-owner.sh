#!/bin/sh
# sframe-hostile-owner: a user's mapping of a file the module read before
# the service watched is reported charged to that user, not to root, whose
# credentials the module's rescan worker, which makes the report, has:
# root's work has no pace, no per-owner queue and no share of children,
# file size or disk.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 120
. /vmtest/lib.sh
P=/workloads/project
F=/tmp/owned

load_module sframe_unwind
cp /workloads/nosframe/deep $F
chmod 755 $F
# Read once for uid 1000, before any watcher: no report then.
$P/runas 1000 $P/execmap hold $F > /tmp/hold.out 2>&1 &
holder=$!
wait_text /sys/kernel/debug/sframe_unwind/files "^$F: no PT_GNU_SFRAME" 30 ||
	result fail "$F was not read within 30 s: $(cat /sys/kernel/debug/sframe_unwind/files)"
kill $holder
wait $holder 2> /dev/null
out=$($P/reportowner 1000 $F $P/execmap hold $F 2>&1)
st=$?
case $st in
0)	result ok "a user's mapping, reported from the rescan worker: $out" ;;
1)	result fail "a user's mapping, reported from the rescan worker: $out, not uid 1000" ;;
*)	result fail "reportowner failed (status $st): $out" ;;
esac
sframe_done sframe_unwind
