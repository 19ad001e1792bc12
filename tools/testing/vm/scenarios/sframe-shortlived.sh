#!/bin/sh
# sframe-shortlived: a process is unwound from its first sample after it
# maps a file the module knows.  shortlived runs children one after the
# other, each living 40 ms, forked (no exec) or exec'd, each mapping
# libshortlived.so (SFrame, no frame pointers) with dlopen() and running
# it at once; the parent mapped it first, so the file has an entry.  A
# mapping is then published by its hook (a fresh range, design.rst), not
# by the rescan it queues, and the host measures the children's samples
# by role, and each child's first sample in the library: each must reach
# main.  Sampled at 2999 Hz, so that a child's first samples fall in the
# first milliseconds after its dlopen() (without fresh ranges, about half
# the forked children on debian-6.12 have their first samples end in the
# library: they came before the rescan).  arm64 maps a library's text
# first, then its data over the rest of that mapping (design.rst).
# Control: the same without the module.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12 debian-7.x debian-experimental debug arm64-debian-6.1 arm64-debian-6.12
# default: debian-5.10 debian-6.12 debian-7.x debian-experimental arm64-debian-6.12
# timeout: 300
. /vmtest/lib.sh
SHORTLIVED=/workloads/project/sframe/shortlived
LIB=/workloads/project/sframe/libshortlived.so
CHILDREN=60
PERF_FREQ=2999

run()
{
	record_callgraph "$1" fp $SHORTLIVED $CHILDREN 40 $LIB || return 1
	artefact "$1.out" "/tmp/$1.out"
}

unload_module sframe_unwind
run stock
load_module sframe_unwind
run module
for s in ranges_fresh lookups_fresh lookups_in_changed_range fresh_slots_full \
	lookups_unread lookups_without_section; do
	metric "$s" "$(stat_value "$s")"
done
sframe_done module
