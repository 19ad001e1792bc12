#!/bin/sh
# sframe-bpf: BPF user stacks (bpf_get_stackid with BPF_F_USER_STACK, which
# is perf's walker) of the v3 workload's chain, without and with the module.
# The program and its syscalls are arch-neutral: arm64 guests run the
# cross-built bpfstack on the committed AArch64 v3 build.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: all arm64-debian-6.12
# timeout: 300
. /vmtest/lib.sh
B=/workloads/project/bpfstack
W=/workloads/v3-binutils-2.47/deep

# bpf_stacks LABEL: sample the chain pattern from a BPF program; send
# LABEL.expect and LABEL.stacks (bpfstack's dump: maps and counted stacks).
bpf_stacks()
{
	if ! $B -F "$PERF_FREQ" /tmp/$1.stacks $W chain "$PATTERN_SECONDS" \
		> /tmp/$1.expect 2> /tmp/$1.err; then
		cat /tmp/$1.err
		result fail "bpfstack ($1) failed"
		return 1
	fi
	artefact $1.expect /tmp/$1.expect
	artefact $1.stacks /tmp/$1.stacks
}

bpf_stacks stock
load_module sframe_unwind
bpf_stacks module
sframe_done module
