#!/bin/sh
# sframe-hostile-section: an unprivileged user runs programs whose .sframe
# is pathological (hostile-sframe: one function of 2 million FREs; 2
# million distinct rules; a PC-mask FDE of 255 FREs) while perf samples
# every CPU at 4000 Hz with call graphs.  The first is flattened and walked
# 120 frames deep, the other two are refused with their reasons, and the
# walks' time stays within check_walk_time's bounds.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
GEN=/workloads/project/hostile-sframe
RUNAS=/workloads/project/runas
NOBODY=65534
KINDS="huge-function many-rules big-plt"
SECONDS_SAMPLED=20

dir=/tmp/hostile
mkdir -p $dir && chmod 755 $dir
for k in $KINDS; do
	if ! $GEN $k $dir/$k; then
		result fail "hostile-sframe $k failed"
		exit 1
	fi
done
load_module sframe_unwind

$RUNAS $NOBODY $dir/huge-function &
pid_huge=$!
$RUNAS $NOBODY $dir/many-rules &
pid_rules=$!
$RUNAS $NOBODY $dir/big-plt &
pid_plt=$!
pids="$pid_huge $pid_rules $pid_plt"

# The module reads sections in the background: wait until it has judged
# all three (a 20 MB file takes seconds under TCG).
judged()
{
	for k in $KINDS; do
		grep "^$dir/$k: " /sys/kernel/debug/sframe_unwind/files |
			grep -qv "^$dir/$k: loading," || return 1
	done
}
waited=0
while ! judged && [ $waited -lt 60 ]; do
	sleep 1
	waited=$((waited + 1))
done
if judged; then
	result ok "all three sections judged within $waited s"
else
	result fail "sections not judged within 60 s"
fi

expect_stat "rejected: PC-mask FDE with too many FREs" 1
expect_stat "rejected: too many distinct rules for the lookup table" 1
if grep -q "^$dir/huge-function: ok" /sys/kernel/debug/sframe_unwind/files; then
	result ok "huge-function: section loaded"
else
	result fail "huge-function: section not loaded"
fi

rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
if perf record -q -a -g -e cpu-clock -F 4000 -o - -- sleep $SECONDS_SAMPLED \
	2> /tmp/hostile-all.err | wc -c > /tmp/hostile-all.bytes; then
	result ok "perf record -a -g for $SECONDS_SAMPLED s: $(cat /tmp/hostile-all.bytes) bytes"
else
	cat /tmp/hostile-all.err
	result fail "perf record -a -g failed"
fi
metric perf_max_sample_rate_before "$rate_before"
metric perf_max_sample_rate_after "$(cat /proc/sys/kernel/perf_event_max_sample_rate)"

# Call graphs of the flattened one and of a refused one, for the host
# check: how deep the walks went in each.
perf record -q -g -e cpu-clock -F 200 -p "$pid_huge,$pid_plt" \
	-o /tmp/hostile.data -- sleep 3 2> /tmp/hostile.err
perf script -i /tmp/hostile.data --no-inline -F comm,tid,ip,sym,dso \
	> /tmp/hostile.perf 2>> /tmp/hostile.err
artefact hostile.perf /tmp/hostile.perf
rm -f /tmp/hostile.data

kill $pids 2> /dev/null
for p in $pids; do
	wait $p
done

check_walk_time
sframe_state module
rm -rf $dir
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
