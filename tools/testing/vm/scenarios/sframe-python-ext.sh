#!/bin/sh
# sframe-python-ext: Debian's python3 through a C extension, unwound to main.
# pyrecurse.py --callback recurses Python -> C -> Python ... through
# pycallback.so (built here: no frame pointers, .eh_frame, no SFrame),
# spinning in Python at the leaf: how many samples' native stacks reach
# main on the stock kernel (-g), with load --system's sidecars (python,
# libc, ld.so; none for the extension, which lies outside the system's
# folders) and with the extension's own sidecar loaded too.  Then
# pyrecurse.py --qsort, through libc's qsort and ctypes' libffi closures,
# with load --system's sidecars (libffi's and _ctypes' among them).
# needs: module python
# kernels: all
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
SF=/workloads/project/sframectl
PY=/workloads/project/pyrecurse.py
EXT=/workloads/project/pycallback.so
# Python -> C crossings per descent: 4 native frames each through the
# extension, 13 through ctypes and qsort, so that the whole stack stays
# within perf's default 127 frames.
CALLBACK_DEPTH=8
QSORT_DEPTH=6

# callgraph NAME HOW DEPTH: record the workload with -g, descending DEPTH
# levels through C as HOW (--callback, --qsort) says.
callgraph()
{
	record_callgraph "$1" fp python3 -I -S $PY "$2" "$PATTERN_SECONDS" "$3" &&
		cat "/tmp/$1.out"
}

metric callback_depth $CALLBACK_DEPTH
metric qsort_depth $QSORT_DEPTH
unload_module sframe_unwind
# Python reads /dev/urandom at start-up: wait for the entropy pool first
# (as sframe-python does), so that no run measures the wait.
head -c 1 /dev/random > /dev/null
callgraph stock --callback $CALLBACK_DEPTH

load_module sframe_unwind
$SF load --system > /tmp/load-system.txt 2>&1 ||
	result fail "sframectl load --system: exit $?"
cat /tmp/load-system.txt
callgraph system --callback $CALLBACK_DEPTH

$SF load $EXT > /tmp/load-ext.txt 2>&1
rc=$?
cat /tmp/load-ext.txt
if [ $rc -eq 0 ]; then
	callgraph sidecar --callback $CALLBACK_DEPTH
else
	result fail "sframectl load $EXT: exit $rc"
fi
callgraph qsort --qsort $QSORT_DEPTH
sframe_done module
