#!/bin/sh
# sframe-python-ext: Debian's python3 through a C extension, unwound to main.
# pyrecurse.py --callback recurses Python -> C -> Python ... through
# pycallback.so (built here: no frame pointers, .eh_frame, no SFrame),
# spinning in Python at the leaf: how many samples' native stacks reach
# main on the stock kernel (-g), with load --system's sidecars (python,
# libc, ld.so; none for the extension, which lies outside the system's
# folders) and with the extension's own sidecar loaded too.
# needs: module python
# kernels: all
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
SF=/workloads/project/sframectl
PY=/workloads/project/pyrecurse.py
EXT=/workloads/project/pycallback.so
# Python -> C crossings per descent: 4 native frames each, so the
# whole stack stays within perf's default 127 frames.
DEPTH=8

# callgraph NAME: record the workload with -g.
callgraph()
{
	record_callgraph "$1" fp python3 -I -S $PY --callback "$PATTERN_SECONDS" $DEPTH &&
		cat "/tmp/$1.out"
}

metric callback_depth $DEPTH
unload_module sframe_unwind
# Python reads /dev/urandom at start-up: wait for the entropy pool first
# (as sframe-python does), so that no run measures the wait.
head -c 1 /dev/random > /dev/null
callgraph stock

load_module sframe_unwind
$SF load --system > /tmp/load-system.txt 2>&1 ||
	result fail "sframectl load --system: exit $?"
cat /tmp/load-system.txt
callgraph system

$SF load $EXT > /tmp/load-ext.txt 2>&1
rc=$?
cat /tmp/load-ext.txt
if [ $rc -eq 0 ]; then
	callgraph sidecar
else
	result fail "sframectl load $EXT: exit $rc"
fi
sframe_state module
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
