#!/bin/sh
# sframe-rmmod: unload the module while perf samples an SFrame workload
# at a high rate, 20 times in a row on the debug kernel (KASAN and
# lockdep watch each round), 6 times elsewhere; the console must stay
# clean.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: all arm64-debian-6.12
# timeout: 600
. /vmtest/lib.sh
case $KERNEL in
debug)	ROUNDS=20 ;;
*)	ROUNDS=6 ;;
esac
i=0
while [ $i -lt $ROUNDS ]; do
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
result ok "$ROUNDS unloads during perf sampling"
