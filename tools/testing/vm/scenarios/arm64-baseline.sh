#!/bin/sh
# arm64-baseline: perf -g on arm64's deep with and without frame pointers.
# Proves the arm64 harness: the probe module loads, the frame-pointer build
# gives complete stacks; and records what the kernel offers a module (its
# symbols and the functions ftrace can trace).
# needs: probe
# kernels: arm64-debian-6.1 arm64-debian-6.12
# default: none
# timeout: 1200
. /vmtest/lib.sh

load_module vmtest_probe
if ! dmesg | grep -q "vmtest_probe: loaded on $(uname -r)"; then
	result fail "vmtest_probe loaded but did not say so"
fi
unload_module vmtest_probe
result ok "the harness's arm64 module build loads and unloads"

for p in $PATTERNS; do
	record_pattern /workloads/baseline/deep-fp "$p" "fp-$p"
	record_pattern /workloads/nosframe/deep "$p" "nofp-$p"
done

# offers.txt: per function, whether /proc/kallsyms names it and whether
# ftrace can trace it (available_filter_functions), with suffixed copies
# the compiler made (.isra, .constprop)
funcs="perf_callchain_user arch_stack_walk_user exit_mmap vm_area_free copy_vma
perf_event_mmap perf_event_fork"
filter=/sys/kernel/tracing/available_filter_functions
if [ ! -r $filter ]; then
	result fail "no $filter"
	exit 1
fi
for f in $funcs; do
	sym=$(awk -v f="$f" '$3 == f || index($3, f ".") == 1 { print $3 }' /proc/kallsyms |
		sort -u | tr '\n' ',')
	traced=$(awk -v f="$f" '$1 == f || index($1, f ".") == 1 { print $1 }' $filter |
		sort -u | tr '\n' ',')
	echo "$f kallsyms=${sym:-none} traceable=${traced:-none}"
done > /tmp/offers.txt
artefact offers.txt /tmp/offers.txt
