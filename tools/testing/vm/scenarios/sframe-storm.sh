#!/bin/sh
# sframe-storm: perf -a -g over a storm of exec, dlopen and mmap by three
# unprivileged users, sidecar load/unload by root and two module reloads;
# a steady SFrame workload stays complete and the cache ends where it began.
# needs: module
# kernels: all
# default: debug
# timeout: 400
. /vmtest/lib.sh
P=/workloads/project
# VMTEST_STORM_SECONDS=60 gives the issue's one-minute storm; make check
# keeps it shorter, and shorter again under the debug kernel.
# After a reload every process is rescanned and every file read again,
# by kworkers that share two vCPUs with the storm and perf.  Under the
# debug kernel (KASAN, lockdep, kmemleak) in TCG that took 0.16 s before
# the storm and once over 5 s in it (CI); on debian-6.12 with four other
# TCG guests on the host's two cores, over 10 s (and the steady workload
# complete again after it).  reload2_section_ms reports it; the bound
# only tells "slow" from "never".
case $KERNEL in
debug)	STORM_S=$((STORM_SECONDS / 2 + 1))
	BACK_MS=60000 ;;
*)	STORM_S=$STORM_SECONDS
	BACK_MS=30000 ;;
esac
# Entries of files no process maps any more go after IDLE_S.
IDLE_S=3
# The storm lasts STORM_S and until root has loaded and unloaded a
# sidecar MIN_CYCLES times, at most CYCLES_S more: under the debug kernel
# in TCG, with the storm on both vCPUs, each start of sframectl takes
# seconds (sidecar_cycle_ms_max), and a cycle cut by a reload does not
# count.
MIN_CYCLES=2
CYCLES_S=90
NOSFRAME=/workloads/nosframe/deep

load_module sframe_unwind idle_seconds=$IDLE_S
for s in mms_tracked files_cached kernel_bytes; do
	[ -n "$(stat_value $s)" ] || result fail "stats has no $s line"
done

# The steady workload runs until the checks below are done and is then
# stopped: a reload's rmmod retries once took 10 s under the debug
# kernel, and a workload timed to outlive perf ended before the module
# was back, so that its section could never come back.
$P/sframe/deep chain 3600 > /tmp/steady.out &
steady=$!
wait_section $P/sframe/deep 5000 > /dev/null ||
	result fail "the steady workload got no section"
# perf outlives the storm so that the same processes exist at both
# samples: its workload waits for a writer on /tmp/perf.hold.
rm -f /tmp/perf.hold
mkfifo /tmp/perf.hold
perf record -q -a -g -e cpu-clock -F "$PERF_FREQ" -o /tmp/storm.data -- \
	cat /tmp/perf.hold > /dev/null 2>&1 &
perf_pid=$!
# Root's sidecar, made once, before the storm: a cycle is a load and an
# unload, not a generation.
$P/sframectl gen -o /tmp/deep.sframe $NOSFRAME > /dev/null ||
	result fail "sframectl gen $NOSFRAME failed"
sleep 2

# reload N: unload and load the module with perf running; the window in
# which the steady workload may lack its section goes to /tmp/windows.
reload()
{
	touch /tmp/reloading
	from=$(uptime_ms)
	i=0
	while ! rmmod sframe_unwind 2> /dev/null; do
		i=$((i + 1))
		if [ $i -ge 50 ]; then
			result fail "reload $1: rmmod kept failing"
			return 1
		fi
		sleep 0.1
	done
	load_module sframe_unwind idle_seconds=$IDLE_S
	if ms=$(wait_section $P/sframe/deep $BACK_MS); then
		metric "reload${1}_section_ms" "$ms"
	else
		result fail "reload $1: the steady workload's section did not come back within $BACK_MS ms"
	fi
	echo "$from $(uptime_ms)" >> /tmp/windows
	rm -f /tmp/reloading
}

# storm_user UID: exec, dlopen/dlclose and mmap/munmap loops as UID until
# the storm ends (/tmp/storm.over).
storm_user()
{
	$P/runas "$1" /bin/sh -c "
		while [ ! -e /tmp/storm.over ]; do
			$P/mmapbench exec 10 $P/sframe/true || exit 1
			$P/mmapbench dlopen 10 $P/sframe/libdeepso.so || exit 1
			$P/execmap cycle $P/sframe/deep 1 || exit 1
		done" > "/tmp/user$1.out" 2>&1
}

: > /tmp/windows
reload 1
sleep 3
mms0=$(stat_value mms_tracked)
files0=$(stat_value files_cached)
bytes0=$(stat_value kernel_bytes)
metric mms_tracked_before "$mms0"
metric files_cached_before "$files0"
metric kernel_bytes_before "$bytes0"

end=$(($(date +%s) + STORM_S))
rm -f /tmp/storm.over
users=
for uid in 1001 1002 1003; do
	storm_user $uid &
	users="$users $!"
done
(
	ok=0
	bad=0
	slowest=0
	while [ "$(date +%s)" -lt $end ] || [ $ok -lt $MIN_CYCLES ]; do
		[ "$(date +%s)" -ge $((end + CYCLES_S)) ] && break
		[ -e /tmp/reloading ] && was=1 || was=0
		t0=$(uptime_ms)
		if $P/sframectl load $NOSFRAME /tmp/deep.sframe > /dev/null \
			2>&1 && $P/sframectl unload $NOSFRAME > /dev/null 2>&1; then
			ok=$((ok + 1))
			t=$(($(uptime_ms) - t0))
			[ $t -gt $slowest ] && slowest=$t
		elif [ $was = 0 ] && [ ! -e /tmp/reloading ]; then
			bad=$((bad + 1))
		fi
	done
	echo "$ok $bad $slowest $(($(date +%s) - end))" > /tmp/sidecar.count
	touch /tmp/storm.over
) &
root_loop=$!

sleep $((STORM_S / 2))
reload 2
for p in $users; do
	wait "$p" || result fail "a storm user's loop failed"
done
wait $root_loop
cat /tmp/user1001.out /tmp/user1002.out /tmp/user1003.out | tail -6
read -r ok bad slowest over < /tmp/sidecar.count
metric sidecar_cycles "$ok"
metric sidecar_cycle_ms_max "$slowest"
metric storm_extra_s "$over"
metric sidecar_failures "$bad"
if [ "$ok" -ge $MIN_CYCLES ] && [ "$bad" = 0 ]; then
	result ok "$ok sidecar load/unload cycles, none failed outside a reload"
else
	result fail "sidecar cycles: $ok ok, $bad failed outside a reload"
fi

# back_to NAME VALUE: the stats line NAME must come back to VALUE or
# below (a short-lived process counted before, a shell's sed, may be gone;
# a leak only adds).
back_to()
{
	if [ -z "$2" ]; then
		result fail "no $1 to compare"
		return
	fi
	bt_end=$(($(uptime_ms) + (IDLE_S * 2 + 10) * 1000))
	while [ "$(stat_value "$1")" -gt "$2" ]; do
		if [ "$(uptime_ms)" -ge $bt_end ]; then
			result fail "$1: $2 before the storm, $(stat_value "$1") after"
			return
		fi
		sleep 0.2
	done
	result ok "$1 back to $(stat_value "$1") (<= $2) after the storm"
}

back_to mms_tracked "$mms0"
back_to files_cached "$files0"
back_to kernel_bytes "$bytes0"
sframe_state after

timeout 10 sh -c "echo > /tmp/perf.hold"
wait $perf_pid || result fail "perf record failed"
kill "$steady" 2> /dev/null
wait "$steady"
rc=$?
# 143: stopped by that SIGTERM; anything else, it ended on its own.
[ $rc = 143 ] || result fail "the steady workload ended before the checks (exit $rc)"
artefact steady.expect /tmp/steady.out
artefact windows /tmp/windows
metric samples_all "$(perf script -i /tmp/storm.data -F comm 2> /dev/null | wc -l)"
perf script -i /tmp/storm.data --comms deep --no-inline -F comm,tid,time,ip,sym,dso \
	> /tmp/steady.perf 2> /dev/null
artefact steady.perf /tmp/steady.perf
rm -f /tmp/storm.data
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
