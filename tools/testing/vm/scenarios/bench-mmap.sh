#!/bin/sh
# bench-mmap: extra time per exec and per dlopen/dlclose of an SFrame object
# with the module loaded (perf not running), from loop benchmarks; runs
# without and with the module alternate to even out drift, and each figure
# is the median of its rounds.
# needs: module
# kernels: debian-6.12
# default: none
# timeout: 300
. /vmtest/lib.sh
B=/workloads/project/mmapbench
TRUE=/workloads/project/sframe/true
LIB=/workloads/project/sframe/libdeepso.so
ROUNDS="1 2 3"
# loop lengths: a few seconds per run under TCG
EXEC_N=200
DLOPEN_N=2000

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

: > /tmp/exec.stock
: > /tmp/exec.module
: > /tmp/dlopen.stock
: > /tmp/dlopen.module
for round in $ROUNDS; do
	for config in stock module; do
		if [ $config = module ]; then
			load_module sframe_unwind
			# map both objects until the cache has them: a
			# process that is gone before its map is scanned
			# leaves nothing, so one short run may not be enough
			before=
			for warm in 1 2 3 4 5; do
				bench exec 20 $TRUE > /dev/null
				bench dlopen 200 $LIB > /dev/null
				sleep 1
				state=$(cache_state)
				[ "$state" = "$before" ] && break
				before=$state
			done
		fi
		bench exec $EXEC_N $TRUE >> /tmp/exec.$config
		bench dlopen $DLOPEN_N $LIB >> /tmp/dlopen.$config
		echo "round $round $config: exec $(tail -n 1 /tmp/exec.$config) us," \
			"dlopen $(tail -n 1 /tmp/dlopen.$config) us"
		if [ $config = module ]; then
			sleep 1
			after=$(cache_state)
			if [ "$before" = "$after" ]; then
				result ok "round $round: cache stayed at $after (files/bytes/loads)" \
					"over $EXEC_N execs and $DLOPEN_N dlopens"
			else
				result fail "round $round: cache grew from $before to $after" \
					"(files/bytes/loads) over the loops"
			fi
			rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
		fi
	done
done
for mode in exec dlopen; do
	stock=$(median /tmp/$mode.stock)
	module=$(median /tmp/$mode.module)
	metric ${mode}_us_stock "$stock"
	metric ${mode}_us_module "$module"
	metric ${mode}_extra_us "$(awk "BEGIN { printf \"%.1f\", $module - $stock }")"
	metric ${mode}_ratio "$(awk "BEGIN { printf \"%.3f\", $module / $stock }")"
done
