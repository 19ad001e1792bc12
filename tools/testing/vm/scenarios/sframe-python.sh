#!/bin/sh
# sframe-python: Debian's python3 unwound to main with load --system.
# Debian's own python3 (stripped, no frame pointers, no SFrame) runs a
# recursive pure-Python function: how many samples' native stacks reach
# main on the stock kernel (-g), with perf --call-graph dwarf (also
# without the module) and with the sidecars `sframectl load --system`
# makes for every program and library; what load --system costs in time
# and kernel memory.
# needs: module python
# kernels: all
# default: debian-6.1 debian-6.12
# timeout: 600
. /vmtest/lib.sh
SF=/workloads/project/sframectl
PY=/workloads/project/pyrecurse.py

# callgraph NAME fp|dwarf: record the workload; report perf.data's size.
callgraph()
{
	record_callgraph "$1" "$2" python3 -I -S $PY "$PATTERN_SECONDS" || return 1
	cat "/tmp/$1.out"
	metric "$1_data_bytes" "$recorded_bytes"
}

unload_module sframe_unwind
# Python reads /dev/urandom at start-up, which waits for the entropy pool
# of a freshly booted guest (seconds of samples in the kernel): wait for
# it here, so that every run measures the same thing.
head -c 1 /dev/random > /dev/null
callgraph stock fp
callgraph dwarf dwarf

load_module sframe_unwind
metric kernel_bytes_before "$(stat_value kernel_bytes)"
start=$(uptime_ms)
$SF load --system > /tmp/load-system.txt 2>&1 ||
	result fail "sframectl load --system: exit $?"
metric load_system_ms $(($(uptime_ms) - start))
cat /tmp/load-system.txt
artefact load-system.txt /tmp/load-system.txt
metric kernel_bytes "$(stat_value kernel_bytes)"
metric sidecars_loaded "$(stat_value sidecars_loaded)"
metric sidecars_rejected "$(stat_value sidecars_rejected)"
$SF status > /tmp/status.txt || result fail "sframectl status: exit $?"
tail -n 1 /tmp/status.txt
artefact status.txt /tmp/status.txt
callgraph sidecar fp
sframe_done module
