#!/bin/sh
# sframe-ftrace: ftrace's userstacktrace (arch_stack_walk_user) on
# sched_switch from the v3 workload, with the module: right chains (ftrace
# keeps 8 user frames per event).
# Three copies on two vCPUs make them preempt each other.  The workload's
# section is loaded before they start, as in a system where it is known:
# what is judged is ftrace's walk, not the wait for a file's first load
# (design.rst: its first mapping queues a load), whose frames the walk
# steps by frame pointers, which this build lacks.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: all arm64-debian-6.12
# timeout: 300
. /vmtest/lib.sh
T=/sys/kernel/tracing
W=/workloads/v3-binutils-2.47/deep
load_module sframe_unwind
$W chain 30 > /dev/null &
warm=$!
wait_section $W 30000 > /dev/null || result fail "$W's section not loaded in 30 s"
kill $warm
wait $warm
echo 0 > $T/tracing_on
echo 8192 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $T/options/userstacktrace
echo 'prev_comm == "deep"' > $T/events/sched/sched_switch/filter
echo 1 > $T/events/sched/sched_switch/enable
echo 1 > $T/tracing_on
pids=
for i in 1 2 3; do
	$W chain 10 > /tmp/chain.expect &
	pids="$pids $!"
done
# Each copy's addresses, for the host, read once its exec is done.  The
# walk has the section from the exec's own mapping (a fresh range: the
# file is known); whether the module's published map has it yet depends
# on when its rescan ran, which on a loaded TCG host can take longer than
# the copy lives, and is not what is judged: the chains are.
: > /tmp/maps
for p in $pids; do
	wait_for 30000 grep -q " $W\$" "/proc/$p/maps" > /dev/null ||
		result fail "process $p did not exec $W within 30 s"
	echo "@@ pid $p" >> /tmp/maps
	cat /proc/$p/maps >> /tmp/maps ||
		result fail "process $p ended before its maps were read"
done
for p in $pids; do
	wait $p || result fail "workload $p failed"
done
echo 0 > $T/tracing_on
echo 0 > $T/events/sched/sched_switch/enable
echo 0 > $T/options/userstacktrace
cat $T/trace > /tmp/trace
artefact chain.expect /tmp/chain.expect
artefact maps /tmp/maps
artefact trace /tmp/trace
sframe_done module
