#!/bin/sh
# bench-callgraph: perf -g with the module against perf --call-graph dwarf
# on the same SFrame workload: perf.data bytes per sample and stack
# completeness of each (41-deep recursion; x86-64: the project's build,
# arm64: the committed v3 build, there being no project build of it).
# needs: module
# kernels: debian-6.12 arm64-debian-6.1 arm64-debian-6.12
# default: none
# timeout: 600
. /vmtest/lib.sh
case $(uname -m) in
aarch64)
	W=/workloads/v3-binutils-2.47/deep
	# perf asks for SVE's VG register with DWARF samples when the CPU
	# has SVE (-cpu max does); the kernel gives it only from a PMU with
	# PERF_PMU_CAP_EXTENDED_REGS, so cpu-clock fails --call-graph dwarf
	# (EOPNOTSUPP): both modes sample QEMU's emulated PMUv3 cycles.
	SAMPLE_EVENT=cycles
	# The PMU's interrupts are timed (cpu-clock's hrtimer is not), and
	# under TCG they take 20 to 200 us, more than perf allows: it would
	# lower the sampling rate and print what fails the run.  0 turns
	# the check off, for this scenario only.
	max_percent=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)
	echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
	;;
*) W=/workloads/project/sframe/deep ;;
esac
# the host finds the same binary by this path and reads perf's unwinders
echo "$W" > /tmp/workload
artefact workload /tmp/workload
perf version --build-options > /tmp/perf-build-options 2>&1
artefact perf-build-options /tmp/perf-build-options
load_module sframe_unwind
for mode in sframe dwarf; do
	how=$mode
	[ $mode = sframe ] && how=fp
	record_callgraph $mode $how $W recurse "$PATTERN_SECONDS" &&
		metric ${mode}_data_bytes "$recorded_bytes"
done
artefact recurse.expect /tmp/sframe.out
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
[ -z "$max_percent" ] ||
	echo "$max_percent" > /proc/sys/kernel/perf_cpu_time_max_percent
