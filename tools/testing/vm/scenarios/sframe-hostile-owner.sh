#!/bin/sh
# sframe-hostile-owner: a user's mapping of a file the module read before
# the service watched is reported charged to that user, not to root, whose
# credentials the module's rescan worker, which makes the report, has:
# root's work has no pace, no per-owner queue and no share of children,
# file size or disk.  So is one made by a process forked from root that
# became the user without exec (a daemon giving up root), whose mm the
# module first saw as root's.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 120
. /vmtest/lib.sh
P=/workloads/project
F=/tmp/owned

load_module sframe_unwind

# owned NAME FILE MAPPER...: FILE, read once for uid 1000 before any
# watcher (no report then), then mapped by MAPPER as uid 1000 under a
# watcher: the report must name uid 1000.
owned()
{
	name=$1 f=$2
	shift 2
	cp /workloads/nosframe/deep $f
	chmod 755 $f
	$P/runas 1000 $P/execmap hold $f > /tmp/hold.out 2>&1 &
	holder=$!
	wait_text /sys/kernel/debug/sframe_unwind/files "^$f: no PT_GNU_SFRAME" 30 ||
		result fail "$f was not read within 30 s: $(cat /sys/kernel/debug/sframe_unwind/files)"
	kill $holder
	wait $holder 2> /dev/null
	out=$($P/reportowner 1000 $f "$@" 2>&1)
	st=$?
	case $st in
	0)	result ok "$name: $out" ;;
	1)	result fail "$name: $out, not uid 1000" ;;
	*)	result fail "$name: reportowner failed (status $st): $out" ;;
	esac
}

owned "a user's mapping, reported from the rescan worker" $F \
	$P/execmap hold $F
owned "a mapping made after setuid without exec" $F.setuid -
sframe_done sframe_unwind
