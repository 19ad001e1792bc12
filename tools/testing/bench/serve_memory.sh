#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What sframectl serve costs in memory to supply one object: the peak
# charged to a memory cgroup holding the service and its generator child
# (what the unit's MemoryMax= bounds), and the service's own peak
# resident size.  The module is stood in for by fakedev.so, which reports
# OBJECT as mapped, and the cache starts empty.  A figure, not a test.
#
# usage: serve_memory.sh SFRAMECTL FAKEDEV_SO [OBJECT...]
#        (default: the largest library in /usr/lib/x86_64-linux-gnu or
#        /usr/lib/aarch64-linux-gnu; as root, with cgroup v1's or v2's
#        memory controller mounted at /sys/fs/cgroup)

set -u
SFRAMECTL=$1
FAKEDEV=$2
shift 2
TMP=$(mktemp -d)
CG=
cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# A fresh memory cgroup, and the file that holds its peak.
if [ -f /sys/fs/cgroup/cgroup.controllers ] &&
   grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	CG=/sys/fs/cgroup/serve-memory-$$
	PEAK=memory.peak
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/serve-memory-$$
	PEAK=memory.max_usage_in_bytes
else
	echo "serve_memory.sh: no memory cgroup controller mounted at /sys/fs/cgroup" >&2
	exit 1
fi

if [ $# = 0 ]; then
	set -- "$(ls -S /usr/lib/x86_64-linux-gnu/*.so* \
		/usr/lib/aarch64-linux-gnu/*.so* 2>/dev/null | head -1)"
fi

# one OBJECT: serve it once in a cgroup of its own; print the figures.
one() {
	local pid hwm peak

	mkdir "$CG" || exit 1
	rm -rf "$TMP/cache" "$TMP/run" "$TMP/log"
	cat "$1" >/dev/null	# its page cache is charged elsewhere, before
	(echo $BASHPID >"$CG/cgroup.procs" &&
	 exec env LD_PRELOAD="$FAKEDEV" FAKEDEV_LOG="$TMP/log" \
		FAKEDEV_FRESH="$1" "$SFRAMECTL" serve --jobs 1 \
		--cache "$TMP/cache" --run-dir "$TMP/run") >"$TMP/out" 2>&1 &
	pid=$!
	for _ in $(seq 1200); do
		grep -q '^load ' "$TMP/log" 2>/dev/null && break
		sleep 0.1
	done
	hwm=$(sed -n 's/^VmHWM:[ \t]*\([0-9]*\) kB/\1/p' /proc/$pid/status)
	peak=$(cat "$CG/$PEAK")
	kill $pid
	wait $pid 2>/dev/null
	if ! grep -q '^load ' "$TMP/log"; then
		echo "serve_memory.sh: $1: no sidecar loaded" >&2
		cat "$TMP/out" >&2
		exit 1
	fi
	printf '%-32s %8d %10d %10d\n' "$(basename "$1")" \
		$(($(stat -c %s "$1") >> 20)) $((peak >> 20)) $((hwm >> 10))
	rmdir "$CG"
}

printf '%-32s %8s %10s %10s\n' object MiB "cgroup MiB" "serve MiB"
for f in "$@"; do
	one "$f"
done
