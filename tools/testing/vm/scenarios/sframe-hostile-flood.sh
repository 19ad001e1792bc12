#!/bin/sh
# sframe-hostile-flood: an unprivileged user floods the SFrame cache with
# distinct executable maps (memfd copies, then a file grown and re-mapped);
# max_user_mb bounds it (the user's idle entries giving way to its new
# ones), root's programs and sidecars still load, and the memory comes back
# idle_seconds after the flood exits.
# needs: module
# kernels: all
# default: debug
# timeout: 600
. /vmtest/lib.sh
P=/workloads/project
WIDE=$P/sframe/wide
USER_MB=8
# The root-owned sections loaded during the flood, plus rounding.
SLACK_BYTES=$((1024 * 1024))
LIMIT=$((USER_MB * 1024 * 1024 + SLACK_BYTES))
FLOOD_MAPS=1000
IDLE_S=5

# An unknown parameter is only warned about: look for it once loaded.
load_module sframe_unwind max_user_mb=$USER_MB idle_seconds=$IDLE_S
if [ "$(cat /sys/module/sframe_unwind/parameters/max_user_mb 2> /dev/null)" != $USER_MB ]; then
	result fail "the module has no max_user_mb parameter: no per-user bound"
fi
files0=$(stat_value files_cached)
bytes0=$(stat_value kernel_bytes)
metric files_before "$files0"
metric kernel_bytes_before "$bytes0"
peak=$bytes0

# flood MODE COUNT: run one flood as uid 1000 until it holds its maps,
# sampling kernel_bytes meanwhile; leaves its pid in $flooder.
flood()
{
	rm -f /tmp/flood.out
	$P/runas 1000 $P/execmap "$1" $WIDE "$2" > /tmp/flood.out 2>&1 &
	flooder=$!
	while ! grep -q "holding" /tmp/flood.out; do
		if ! kill -0 $flooder 2> /dev/null; then
			cat /tmp/flood.out
			result fail "execmap $1 died"
			return 1
		fi
		b=$(stat_value kernel_bytes)
		[ "$b" -gt "$peak" ] && peak=$b
		sleep 0.2
	done
	sleep 2
	b=$(stat_value kernel_bytes)
	[ "$b" -gt "$peak" ] && peak=$b
	cat /tmp/flood.out
}

# over_limit WHAT: check kernel_bytes against max_user_mb plus the slack.
over_limit()
{
	b=$(stat_value kernel_bytes)
	grown=$((b - bytes0))
	metric "kernel_bytes_$1" "$b"
	verdict "$1: cache grew by $grown bytes (<= $LIMIT)" \
		"$1: cache grew by $grown bytes, over max_user_mb=$USER_MB + slack ($LIMIT)" \
		[ $grown -le $LIMIT ]
}

flood memfd "$FLOOD_MAPS" || exit 1
memfd_flooder=$flooder
over_limit memfd_flood
grep "over max_user_mb\|over max_cache_mb" /sys/kernel/debug/sframe_unwind/stats

# Root's programs are not starved: a fresh SFrame program unwinds and a
# sidecar loads while the flood holds its maps.
record_pattern $P/sframe/deep chain
if /workloads/project/sframectl load /workloads/nosframe/deep; then
	result ok "a root sidecar loaded during the flood"
	/workloads/project/sframectl unload /workloads/nosframe/deep ||
		result fail "sframectl unload failed"
else
	result fail "sframectl load of a root sidecar failed during the flood"
fi

# The same user also grows one file and maps it again and again.
flood append $((FLOOD_MAPS / 4)) || exit 1
over_limit both_floods
metric kernel_bytes_peak "$peak"
sframe_state flood

kill $memfd_flooder $flooder
wait
settle=$((IDLE_S * 2 + 10))
if stat_settles files_cached "$files0" $settle && stat_settles kernel_bytes "$bytes0" $settle; then
	result ok "after the flood: $files0 files, $bytes0 bytes again"
else
	result fail "after the flood: files_cached $files0 -> $(stat_value files_cached), kernel_bytes $bytes0 -> $(stat_value kernel_bytes)"
fi
sframe_done after
