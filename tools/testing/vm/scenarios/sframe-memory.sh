#!/bin/sh
# sframe-memory: kernel memory the cache holds per byte of .sframe (small
# sections, and a sidecar as large as libc's), that it does not grow with
# the number of processes mapping a file, that an entry no process maps is
# kept idle for idle_seconds and then given back.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
W=/workloads/v3-binutils-2.47/deep
IDLE=3
load_module sframe_unwind idle_seconds=$IDLE
sleep 1
before=$(stat_value kernel_bytes)
# The workloads run until killed: a slow kernel must not see them exit
# before the snapshots.
$W chain 600 > /dev/null &
pids=$!
# Counted once the section is loaded and in the process's map.
wait_maps "^$pids .* FDEs $W\$" 30000 > /dev/null ||
	result fail "$W's section not in its map after 30 s"
one=$(stat_value kernel_bytes)
for i in 1 2 3 4 5 6 7 8 9 10; do
	$W chain 600 > /dev/null &
	pids="$pids $!"
done
for p in $pids; do
	wait_maps "^$p .* FDEs $W\$" 30000 > /dev/null ||
		result fail "$W's section not in process $p's map after 30 s"
done
eleven=$(stat_value kernel_bytes)
metric kernel_bytes_1_process "$one"
metric kernel_bytes_11_processes "$eleven"
verdict "cache holds $one bytes for 1 and for 11 processes" \
	"cache grew from $one to $eleven bytes with 10 more processes" \
	[ "$one" = "$eleven" ]
sframe_state module
kill $pids
wait
# Unmapped, the entry stays idle for a while ($IDLE s), then goes.
files_idle()
{
	[ "$(stat_value files_idle)" -ge 1 ]
}
wait_for 2000 files_idle > /dev/null
idle=$(stat_value files_idle)
held=$(stat_value kernel_bytes)
if [ "$idle" -ge 1 ] && [ "$held" = "$eleven" ]; then
	result ok "$idle idle entries keep the $held bytes after the processes exited"
else
	result fail "after exit: $idle idle entries, $held bytes (running: $eleven)"
fi
after=$held
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$after" = "$before" ] && break
	sleep 1
	after=$(stat_value kernel_bytes)
done
metric kernel_bytes_after_exit "$after"
verdict "cache back to $before bytes ${IDLE}s or more after the processes exited" \
	"cache holds $after bytes well after the processes exited, $before before" \
	[ "$after" = "$before" ]
# A libc-sized section: the table, not the section's bytes, stays.
SF=/workloads/project/sframectl
LIBC=/lib/x86_64-linux-gnu/libc.so.6
must $SF gen --raw -o /tmp/libc.sframe $LIBC
must $SF load $LIBC
metric libc_sframe_bytes "$(wc -c < /tmp/libc.sframe)"
metric libc_sidecar_kernel_bytes \
	"$(sed -n 's|.*/libc\.so\.6: .*, \([0-9]*\) bytes$|\1|p' /dev/sframe_unwind)"
must $SF unload $LIBC
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
