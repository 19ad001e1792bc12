#!/bin/sh
# sframe-python313: CPython 3.13's -X perf stacks, in a Debian 13 userland.
# trixie's python3.13 (no .sframe, no frame pointers; vmlib/python313.py)
# runs pyrecurse.py with -X perf in a root container (mount and pid
# namespaces, chroot to /python313): its trampolines, anonymous code
# with neither a frame record nor a table, stand between the eval loop's C
# frames, and it names them in the container's /tmp/perf-1.map.  perf -a
# -g records the whole guest without the module, then with `sframectl
# serve`, which must supply python3.13, libc and ld.so; the map goes to
# the guest's /tmp under python's pid as perf sees it.  How many samples
# are named (py::...), how many names each carries, how many end at a
# trampoline (3.13's keeps no frame record: the module steps over it by
# its epilogue, Documentation/design.rst) or reach python's main is
# judged on the host.
# needs: module python313
# kernels: debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
SF=/workloads/project/sframectl
CACHE=/tmp/py313-cache
ROOT=/python313
RECORD_SECONDS=6
# Python calls on the stack at most: with -X perf each goes through the
# trampoline and several C frames, and a stack deeper than perf's
# max_stack (127) would not reach main.
DEPTH=12
# The container's files as the module names them: by their path in the
# container's root or, on 6.1, in the guest's ($ROOT/...).
LIB=/usr/lib/x86_64-linux-gnu
FILES="/usr/bin/python3.13 $LIB/libc.so.6 $LIB/ld-linux-x86-64.so.2"
# A file first mapped must have its sidecar within this (TCG).
LIMIT_MS=60000

# start NAME: run pyrecurse.py -X perf in the container until stopped;
# $py is its pid outside the namespaces, $container unshare's.
start()
{
	unshare -m -p -f chroot $ROOT /usr/bin/python3.13 -I -S -X perf \
		/root/pyrecurse.py 600 $DEPTH > /dev/null 2> "/tmp/$1.py.err" &
	container=$!
	py=
	for _ in $(seq 100); do
		py=$(pidof python3.13) && break
		sleep 0.1
	done
	if [ -z "$py" ]; then
		cat "/tmp/$1.py.err"
		result fail "$1: python3.13 did not start in its container"
		return 1
	fi
	grep -E "python|\.so" "/proc/$py/maps" | sed 's/.* //' | sort -u
}

# record NAME: perf -a -g of the whole guest for RECORD_SECONDS; stop
# python, then give perf its map (the container's /tmp/perf-NSPID.map as
# the guest's /tmp/perf-PID.map: perf script looks for the pid it
# recorded, in its own /tmp, once the process and its namespaces are gone).
record()
{
	perf record -q -N -B -a -g -e cpu-clock -F "$PERF_FREQ" \
		-o "/tmp/$1.data" -- sleep $RECORD_SECONDS 2> "/tmp/$1.err" ||
		result fail "$1: perf record -a failed"
	nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$py/status" 2> /dev/null)
	if [ -z "$nspid" ]; then
		wait "$container"
		result fail "$1: python3.13 ended before perf did (status $?): $(cat "/tmp/$1.py.err")"
		df -k / /tmp
		free -k
	fi
	kill -KILL "$py"
	wait "$container"
	if mv "$ROOT/tmp/perf-$nspid.map" "/tmp/perf-$py.map"; then
		metric "$1_perf_map_entries" "$(wc -l < "/tmp/perf-$py.map")"
		artefact "$1.map" "/tmp/perf-$py.map"
	else
		result fail "$1: python3.13 wrote no /tmp/perf-$nspid.map"
	fi
	perf_script "$1"
	rm -f "/tmp/perf-$py.map"
}

# served: the module's sidecars for python's files, in use; how long from
# its start (metric first_mapping_to_sidecars_ms).
served()
{
	if ! wait_sidecars "$py" "$ROOT" $LIMIT_MS $FILES; then
		result fail "no sidecar for the container's $missing within $LIMIT_MS ms"
		return 1
	fi
	metric first_mapping_to_sidecars_ms $(($(uptime_ms) - started))
	grep -A8 "^pid $py\$" /sys/kernel/debug/sframe_unwind/maps
	result ok "sidecars in use for the container's $FILES"
}

unload_module sframe_unwind
# Python seeds its hashes with getrandom(GRND_NONBLOCK) and falls back to
# /dev/urandom, which the container has not: wait for the entropy pool of
# a freshly booted guest here.
head -c 1 /dev/random > /dev/null
start stock || exit 1
record stock

load_module sframe_unwind
serve python313 || { unload_module sframe_unwind; exit 1; }
started=$(uptime_ms)
if start served; then
	served
	$SF status > /tmp/status.txt
	cat /tmp/status.txt
	artefact status.txt /tmp/status.txt
	record served
	metric frames_epilogue "$(stat_value frames_epilogue)"
fi
stop_serve python313
sframe_done module
