#!/bin/sh
# bench-sample: the module's cost per sample under system-wide perf -g,
# with one CPU online and one busy program, then with two CPUs online and
# two busy programs: the mean ns per walk (walk_ns_total / samples) must
# not grow with the CPU count (no lock, no shared counter on the path).
# needs: module
# kernels: debian-6.12
# default: none
# timeout: 300
. /vmtest/lib.sh
W=/workloads/v3-binutils-2.47/deep
SECONDS_PER_PHASE=10
CPU1=/sys/devices/system/cpu/cpu1/online

# phase NAME CPUS: CPUS busy programs under perf record -a -g; report the
# walks and the mean ns per walk.
phase()
{
	pids=
	for i in $(seq "$2"); do
		$W chain 600 > /dev/null &
		pids="$pids $!"
	done
	sleep 1
	s0=$(stat_value samples)
	t0=$(stat_value walk_ns_total)
	if ! perf record -a -g -e cpu-clock -F "$PERF_FREQ" -o /tmp/bench.data \
			-- sleep $SECONDS_PER_PHASE > /dev/null 2> /tmp/bench.err; then
		cat /tmp/bench.err
		result fail "perf record -a -g failed ($1)"
	fi
	s1=$(stat_value samples)
	t1=$(stat_value walk_ns_total)
	kill $pids
	wait
	rm -f /tmp/bench.data
	walks=$((s1 - s0))
	metric "${1}_walks" "$walks"
	if [ "$walks" -lt 100 ]; then
		result fail "$1: only $walks walks"
		return
	fi
	metric "${1}_ns_per_walk" $(((t1 - t0) / walks))
	echo "$1: $walks walks, $(((t1 - t0) / walks)) ns each"
}

if [ "$(cat /sys/devices/system/cpu/online)" != "0-1" ]; then
	result fail "want CPUs 0-1 online, have $(cat /sys/devices/system/cpu/online)"
	exit 1
fi
load_module sframe_unwind
echo 0 > $CPU1 || result fail "cannot take CPU 1 offline"
phase cpu1 1
echo 1 > $CPU1 || result fail "cannot bring CPU 1 back online"
phase cpu2 2
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
