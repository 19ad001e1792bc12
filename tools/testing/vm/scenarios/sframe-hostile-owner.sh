#!/bin/sh
# sframe-hostile-owner: a user's mapping of a file the module read before
# the service watched is reported charged to that user, not to root, whose
# credentials the module's rescan worker, which makes the report, has:
# root's work has no pace, no per-owner queue and no share of children,
# file size or disk.  So is one made by a process forked from root that
# became the user without exec (a daemon giving up root), whose mm the
# module first saw as root's.  A sweep's report of a file first read
# for one user and mapped now by another alone is charged to the one
# mapping it.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 120
. /vmtest/lib.sh
P=/workloads/project
F=/tmp/owned

load_module sframe_unwind

# read_for_1000 FILE: a program without SFrame copied to FILE, read once
# for uid 1000 before any watcher (no report then), and no longer mapped.
read_for_1000()
{
	cp /workloads/nosframe/deep $1
	chmod 755 $1
	$P/runas 1000 $P/execmap hold $1 > /tmp/hold.out 2>&1 &
	holder=$!
	wait_text /sys/kernel/debug/sframe_unwind/files "^$1: no PT_GNU_SFRAME" 30 ||
		result fail "$1 was not read within 30 s: $(cat /sys/kernel/debug/sframe_unwind/files)"
	kill $holder
	wait $holder 2> /dev/null
}

# judge NAME UID: reportowner's verdict ($st, $out) on a report for UID.
judge()
{
	case $st in
	0)	result ok "$1: $out" ;;
	1)	result fail "$1: $out, not uid $2" ;;
	*)	result fail "$1: reportowner failed (status $st): $out" ;;
	esac
}

# owned NAME FILE MAPPER...: FILE, read for uid 1000, then mapped by
# MAPPER as uid 1000 under a watcher: the report must name uid 1000.
owned()
{
	name=$1 f=$2
	shift 2
	read_for_1000 $f
	out=$($P/reportowner 1000 $f "$@" 2>&1)
	st=$?
	judge "$name" 1000
}

owned "a user's mapping, reported from the rescan worker" $F \
	$P/execmap hold $F
owned "a mapping made after setuid without exec" $F.setuid -

# FILE read for uid 1000, then mapped by uid 1001 alone before any
# watcher: the watcher's sweep must charge 1001, who uses it now.
f=$F.swept
read_for_1000 $f
$P/runas 1001 $P/execmap hold $f > /tmp/hold.out 2>&1 &
holder=$!
wait_text /proc/$holder/maps "$f" 30 ||
	result fail "uid 1001 did not map $f within 30 s"
out=$($P/reportowner 1001 $f sweep 2>&1)
st=$?
kill $holder
wait $holder 2> /dev/null
judge "a sweep's report, charged to the one mapping it now" 1001
sframe_done sframe_unwind
