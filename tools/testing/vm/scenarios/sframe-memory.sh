#!/bin/sh
# sframe-memory: kernel memory the cache holds per byte of .sframe, that
# it does not grow with the number of processes mapping a file, and that
# it is given back when they have exited.
# needs: module
# kernels: all
# timeout: 300
. /vmtest/lib.sh
W=/workloads/v3-binutils-2.47/deep
load_module sframe_unwind
sleep 1
before=$(stat_value kernel_bytes)
$W chain 6 > /dev/null &
first=$!
sleep 2
one=$(stat_value kernel_bytes)
pids=
for i in 1 2 3 4 5 6 7 8 9 10; do
	$W chain 3 > /dev/null &
	pids="$pids $!"
done
sleep 2
eleven=$(stat_value kernel_bytes)
metric kernel_bytes_1_process "$one"
metric kernel_bytes_11_processes "$eleven"
if [ "$one" = "$eleven" ]; then
	result ok "cache holds $one bytes for 1 and for 11 processes"
else
	result fail "cache grew from $one to $eleven bytes with 10 more processes"
fi
sframe_state module
for p in $first $pids; do
	wait $p || result fail "workload $p failed"
done
# Entries go with their last mapping, after a grace period or two.
after=$(stat_value kernel_bytes)
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$after" = "$before" ] && break
	sleep 1
	after=$(stat_value kernel_bytes)
done
metric kernel_bytes_after_exit "$after"
if [ "$after" = "$before" ]; then
	result ok "cache back to $before bytes once the processes exited"
else
	result fail "cache holds $after bytes after the processes exited, $before before"
fi
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
