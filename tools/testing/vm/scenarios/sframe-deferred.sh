#!/bin/sh
# sframe-deferred: perf's deferred user callchains (defer_callchain; the
# kernel walks with unwind_user() before the task returns to user space)
# of the v3 workload's chain, without and with the module.  Only kernels
# with the deferred unwinder have it.
# needs: module
# kernels: debian-7.x debian-experimental
# timeout: 300
. /vmtest/lib.sh
B=/workloads/project/bpfstack
W=/workloads/v3-binutils-2.47/deep

# deferred_stacks LABEL: sample the chain pattern; send LABEL.expect and
# LABEL.stacks (bpfstack -D's dump: maps and counted callchains).
deferred_stacks()
{
	if ! $B -D -F "$PERF_FREQ" /tmp/$1.stacks $W chain "$PATTERN_SECONDS" \
		> /tmp/$1.expect 2> /tmp/$1.err; then
		cat /tmp/$1.err
		result fail "bpfstack -D ($1) failed"
		return 1
	fi
	cat /tmp/$1.err
	artefact $1.expect /tmp/$1.expect
	artefact $1.stacks /tmp/$1.stacks
}

deferred_stacks stock
load_module sframe_unwind
metric module_deferred_hooked "$(dmesg | sed -n "s/.*sframe_unwind: loaded.*deferred=\([01]\).*/\1/p" | tail -n 1)"
deferred_stacks module
sframe_done module
