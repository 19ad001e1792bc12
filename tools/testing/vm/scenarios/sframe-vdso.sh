#!/bin/sh
# sframe-vdso: perf -g of a loop in clock_gettime(), whose samples land in
# the vDSO.  Without the vDSO's section a walk steps out of the vDSO by
# frame pointers, as the stock walker does, and is never worse than the
# stock walker's (recorded first, without the module); with the one
# `sframectl load --vdso` makes from the vDSO's own .eh_frame it reaches
# main, every frame a known function.
# needs: module
# kernels: all
# default: debian-6.1 debian-6.12
# timeout: 300
. /vmtest/lib.sh
SF=/workloads/project/sframectl
W=/workloads/project/sframe/vdsoloop
LIBC=/lib/x86_64-linux-gnu/libc.so.6
LDSO=/lib64/ld-linux-x86-64.so.2

for f in "$W" "$LIBC" "$LDSO"; do
	if [ ! -f "$f" ]; then
		result fail "$f is missing"
		exit 1
	fi
done
unload_module sframe_unwind
record_callgraph stock fp "$W" "$PATTERN_SECONDS" && cat /tmp/stock.out

load_module sframe_unwind
# libc and ld.so have neither SFrame nor frame pointers: their sidecars
# carry the walk through clock_gettime()'s wrapper, past main and through
# start-up, in both runs, so that the vDSO is the only object in question.
for f in "$LIBC" "$LDSO"; do
	$SF load "$f" || result fail "sframectl load $f: exit $?"
done

record_callgraph novdso fp "$W" "$PATTERN_SECONDS" && cat /tmp/novdso.out

$SF load --vdso > /tmp/load-vdso.txt 2>&1 ||
	result fail "sframectl load --vdso: exit $?"
cat /tmp/load-vdso.txt
artefact load-vdso.txt /tmp/load-vdso.txt
$SF status > /tmp/status.txt || result fail "sframectl status: exit $?"
artefact status.txt /tmp/status.txt

record_callgraph vdso fp "$W" "$PATTERN_SECONDS" && cat /tmp/vdso.out

$SF unload --vdso || result fail "sframectl unload --vdso: exit $?"
if $SF status | grep -q '^\[vdso\]'; then
	result fail "status lists the vDSO's section after unload --vdso"
fi
if $SF unload --vdso 2> /dev/null; then
	result fail "a second unload --vdso succeeded"
fi
sframe_done module
