#!/bin/sh
# sframe-hostile-mmaplock: an unprivileged user holds his own mmap_lock (a
# /proc/self/mem read of a page his FUSE server never sends, a munmap
# waiting behind it) while the module loads and rescans every process: the
# rescan tries again later instead of sleeping on that lock, a bounded
# number of times, rmmod completes, no task hangs; once the lock is free,
# his next change is rescanned.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12 debug
# default: debug
# timeout: 240
# kmods: fuse
. /vmtest/lib.sh
P=/workloads/project
MNT=/mnt/stall
FILE=$MNT/true
HUNG_S=10
RMMOD_LIMIT_S=10
# Past the rescan's retries: SFRAME_RESCAN_RETRIES x SFRAME_RESCAN_RETRY_MS
# (kernel/sframe/mms.c) is 5 s, each try at most about 10 ms more.
GIVE_UP_S=$((HUNG_S + 5))

load_kmods
watch_hung_tasks $HUNG_S

# munmap_waits PID: PID's thread "munmap" sleeps (D) on the mmap_lock.
# Reads only the task's stat and comm, which never take that lock.
munmap_waits()
{
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2> /dev/null)" = munmap ] || continue
		[ "$(awk '{ print $3 }' "$t/stat")" = D ] && return 0
	done
	return 1
}

# timed_rmmod: rmmod within RMMOD_LIMIT_S, a result either way.
timed_rmmod()
{
	tr_start=$(uptime_ms)
	rmmod sframe_unwind &
	tr_pid=$!
	if wait_exit $tr_pid $RMMOD_LIMIT_S; then
		tr_took=$(($(uptime_ms) - tr_start))
		metric "rmmod_$1_ms" "$tr_took"
		if wait $tr_pid; then
			result ok "rmmod ($1) completed in $tr_took ms"
		else
			result fail "rmmod ($1) failed"
		fi
		return 0
	fi
	result fail "rmmod ($1) still blocked after $RMMOD_LIMIT_S s; aborting the FUSE connection"
	abort_fuse
	wait_exit $tr_pid 30 || result fail "rmmod blocked even after the abort"
	return 1
}

# retried_settles: wait (up to 20 s) until rescans_retried stays the
# same for 2 s; 1 if it keeps growing.
retried_settles()
{
	rs_last=-1
	for rs_i in 1 2 3 4 5 6 7 8 9 10; do
		rs_now=$(stat_value rescans_retried)
		[ "$rs_now" = "$rs_last" ] && return 0
		rs_last=$rs_now
		sleep 2
	done
	return 1
}

mkdir -p $MNT
$P/stallfs $MNT $P/sframe/true > /tmp/stallfs.out 2>&1 &
server=$!
if ! wait_text /tmp/stallfs.out "stallfs: ready" 5; then
	cat /tmp/stallfs.out
	result fail "the FUSE server did not come up"
	exit 1
fi

$P/runas 1000 $P/lockmm $FILE > /tmp/lockmm.out 2>&1 &
locker=$!
wait_text /tmp/stallfs.out "READ" 30 ||
	result fail "uid 1000's read of $FILE never reached the server"
i=0
until munmap_waits $locker; do
	i=$((i + 1))
	if [ $i -ge 50 ]; then
		cat /tmp/lockmm.out /tmp/stallfs.out
		result fail "uid 1000's munmap never waited for his mmap_lock"
		abort_fuse
		exit 1
	fi
	sleep 0.1
done
result ok "uid 1000 holds his mmap_lock, a munmap waiting behind it"

# The load rescans every process, this one included.
load_module sframe_unwind
i=0
until [ "$(stat_value rescans_retried)" -gt 0 ] 2> /dev/null; do
	i=$((i + 1))
	if [ $i -ge 30 ]; then
		result fail "no rescan was retried within 3 s (rescans_retried: $(stat_value rescans_retried))"
		break
	fi
	sleep 0.1
done
[ $i -lt 30 ] && result ok "the rescan of uid 1000's process is retried later"
# Unloaded while a retry is due: the exit waits for it, not for the lock.
timed_rmmod retrying

load_module sframe_unwind
sleep $GIVE_UP_S
retried_settles || result fail "rescans_retried still grows after $GIVE_UP_S s"
retried=$(stat_value rescans_retried)
metric rescans_retried "$retried"
busy=$(stat_value rescan_mms_busy)
if [ "$busy" -ge 1 ] 2> /dev/null && [ "$retried" -ge 1 ]; then
	result ok "the rescan gave up after $retried retries (rescan_mms_busy: $busy)"
else
	result fail "rescans_retried: $retried, rescan_mms_busy: $busy; want retries that end"
fi
if timeout 5 cat /sys/kernel/debug/sframe_unwind/maps | grep -q "^pid $locker\$"; then
	result ok "the stalled process's entry is kept, its map not rescanned"
else
	result fail "no entry for the stalled process $locker"
fi

# The lock is released: the munmap goes ahead and its change is rescanned.
abort_fuse
if wait_text /tmp/lockmm.out "lockmm: released" 10; then
	cat /tmp/lockmm.out
else
	result fail "uid 1000's threads did not end after the abort"
fi
if ms=$(wait_maps "^$locker .* $P/lockmm\$" 5000); then
	result ok "rescanned $ms ms after the lock came free"
else
	result fail "the process's map was not rescanned within 5 s of the lock coming free"
fi
sframe_state mmaplock
timed_rmmod idle

kill $server $locker 2> /dev/null
umount -l $MNT
wait_exit $locker 10 || result fail "lockmm did not exit"
wait
