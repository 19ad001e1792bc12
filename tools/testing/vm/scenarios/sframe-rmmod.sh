#!/bin/sh
# sframe-rmmod: unload the module 20 times in a row while perf samples an
# SFrame workload at a high rate; the console must stay clean.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: all arm64-debian-6.12
# timeout: 600
. /vmtest/lib.sh
i=0
while [ $i -lt 20 ]; do
	load_module sframe_unwind
	perf record -q -N -B -g -e cpu-clock -F 4000 -o /tmp/rmmod.data -- \
		/workloads/v3-binutils-2.47/deep chain 2 > /dev/null 2>&1 &
	pid=$!
	sleep 1
	if ! rmmod sframe_unwind; then
		result fail "rmmod $i failed"
		exit 1
	fi
	if ! wait $pid; then
		result fail "perf record failed around rmmod $i"
		exit 1
	fi
	i=$((i + 1))
done
result ok "20 unloads during perf sampling"
