#!/bin/sh
# sframe-shrink: under memory pressure the idle file entries go before
# their idle_seconds, through the module's shrinker, and entries in use
# stay: twelve programs run and exit (their entries idle for ten
# minutes), one keeps running; dropping the kernel's caches (as reclaim
# does) frees the twelve and keeps the running one's.
# needs: module
# kernels: all
# default: debug
# timeout: 300
. /vmtest/lib.sh
P=/workloads/project
N=12

load_module sframe_unwind idle_seconds=600
files0=$(stat_value files_cached)
i=0
while [ $i -lt $N ]; do
	cp $P/sframe/true /tmp/true$i
	/tmp/true$i || result fail "/tmp/true$i failed"
	i=$((i + 1))
done
cp $P/sframe/deep /tmp/kept
/tmp/kept chain 600 > /dev/null &
kept=$!
# Each program's read is a queued load: wait until all have gone idle.
end=$(($(uptime_ms) + 30000))
while [ "$(stat_value files_idle)" -lt $N ] && [ "$(uptime_ms)" -lt $end ]; do
	sleep 0.2
done
idle=$(stat_value files_idle)
metric files_idle_before "$idle"
verdict "$idle idle entries after $N programs exited" \
	"$idle idle entries after $N programs exited, not $N" \
	[ "$idle" -ge $N ]
sframe_state before
echo 2 > /proc/sys/vm/drop_caches
idle=$(stat_value files_idle)
shrunk=$(stat_value files_shrunk)
metric files_idle_after "$idle"
metric files_shrunk "$shrunk"
if [ "$idle" = 0 ] && [ "${shrunk:-0}" -ge $N ]; then
	result ok "memory pressure: the shrinker freed $shrunk idle entries"
else
	result fail "memory pressure: $idle idle entries left, files_shrunk ${shrunk:-missing}"
fi
if grep -q '^/tmp/kept: ok' /sys/kernel/debug/sframe_unwind/files; then
	result ok "the running program's entry stays"
else
	result fail "the running program's entry went under memory pressure"
fi
sframe_state after
kill $kept
wait
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
