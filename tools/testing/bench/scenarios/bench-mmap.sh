#!/bin/sh
# bench-mmap: extra time per exec and per dlopen/dlclose with the module
# loaded, and with the module and `sframectl serve` (perf not running), from
# loop benchmarks: of an SFrame object (sframe/true, sframe/libdeepso.so)
# and of one without, which the service gives a sidecar (nosframe/true,
# nosframe/libdeepso.so: a stock Debian system's case).  Runs without the
# module, with it, and with it and the service alternate to even out drift,
# and each figure is the median of its rounds.
# needs: module
# kernels: debian-6.12
# default: none
# timeout: 600
. /vmtest/lib.sh
B=/workloads/project/mmapbench
SF=/workloads/project/sframectl
CACHE=/tmp/mmap-cache
ROUNDS="1 2 3"
CONFIGS="stock module service"
# name, mode, loop length (a few seconds per run under TCG), target
TARGETS="exec_sframe exec 60 /workloads/project/sframe/true
exec_nosframe exec 60 /workloads/project/nosframe/true
dlopen_sframe dlopen 600 /workloads/project/sframe/libdeepso.so
dlopen_nosframe dlopen 600 /workloads/nosframe/libdeepso.so
forkdl_sframe forkdl 60 /workloads/project/sframe/libdeepso.so
forkdl_nosframe forkdl 60 /workloads/nosframe/libdeepso.so"

# bench MODE N TARGET: run one loop, print its mean microseconds per operation.
bench()
{
	us=$($B "$@" | sed -n "s/^$1_us: //p")
	if [ -z "$us" ]; then
		result fail "mmapbench $* failed"
		exit 1
	fi
	echo "$us"
}

# bench_all N: every target once, loops of 1/N of their length.
bench_all()
{
	echo "$TARGETS" | while read -r name mode n target; do
		bench $mode $((n / $1)) $target > /dev/null
	done
}

# cache_state: files cached, kernel bytes and sections loaded, as one word.
cache_state()
{
	echo "$(stat_value files_cached)/$(stat_value kernel_bytes)/$(stat_value sections_loaded)"
}

# median FILE: the median of the numbers in FILE, one per line.
median()
{
	sort -n "$1" | awk '{ v[NR] = $1 }
		END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# service_state: what sframectl status says, but for the service's uptime.
service_state()
{
	$SF status | grep -v '^service: running, '
}

# served LOG FILE...: wait for the service (its LOG) to load the sidecar
# of each FILE.
served()
{
	sv_log=$1
	shift
	for f in "$@"; do
		wait_text "$sv_log" "$f: loaded" 60 ||
			result fail "$f: no sidecar within 60 s of its mapping"
	done
}

for round in $ROUNDS; do
	for config in $CONFIGS; do
		if [ $config != stock ]; then
			# The loops time a warm cache: an entry no process
			# maps must outlast the other targets' loops, which
			# in guest time (a nanosecond per instruction under
			# VMTEST_ICOUNT) can exceed the default 30 s.
			load_module sframe_unwind idle_seconds=3600
			if [ $config = service ]; then
				serve "service$round" || exit 1
				bench_all 10
				served /tmp/service$round.log \
					/workloads/project/nosframe/true \
					/workloads/nosframe/libdeepso.so
			fi
			# map every object until the cache has them: a
			# process that is gone before its map is scanned
			# leaves nothing, so one short run may not be enough
			before=
			for warm in 1 2 3 4 5; do
				bench_all 10
				sleep 1
				state=$(cache_state)
				[ "$state" = "$before" ] && break
				before=$state
			done
			[ $config = service ] && service_state > /tmp/status.before
		fi
		line="round $round $config:"
		echo "$TARGETS" | {
			while read -r name mode n target; do
				us=$(bench $mode $n $target)
				echo "$us" >> /tmp/$name.$config
				line="$line $name $us us"
			done
			echo "$line"
		}
		[ $config = stock ] && continue
		sleep 1
		after=$(cache_state)
		if [ "$before" = "$after" ]; then
			result ok "round $round $config: cache stayed at $after" \
				"(files/bytes/loads) over the loops"
		else
			result fail "round $round $config: cache grew from $before" \
				"to $after (files/bytes/loads) over the loops"
		fi
		if [ $config = service ]; then
			service_state > /tmp/status.after
			if diff /tmp/status.before /tmp/status.after; then
				result ok "round $round service: nothing read," \
					"generated or loaded over the loops"
			else
				result fail "round $round service: its status" \
					"changed over the loops"
			fi
			stop_serve "service$round"
		fi
		rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
	done
done
echo "$TARGETS" | while read -r name mode n target; do
	stock=$(median /tmp/$name.stock)
	metric ${name}_us_stock "$stock"
	for config in module service; do
		us=$(median /tmp/$name.$config)
		metric ${name}_us_$config "$us"
		metric ${name}_ratio_$config \
			"$(awk "BEGIN { printf \"%.3f\", $us / $stock }")"
	done
done
