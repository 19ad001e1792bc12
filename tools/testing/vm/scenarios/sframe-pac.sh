#!/bin/sh
# sframe-pac: perf -g on the arm64 builds whose return addresses are signed
# (-mbranch-protection=standard, SFrame v1 and v3) with sframe_unwind loaded;
# the host wants complete chains.
# needs: module
# kernels: arm64-debian-6.1 arm64-debian-6.12
# default: arm64-debian-6.12
# timeout: 1500
. /vmtest/lib.sh
# Without the CPU's address authentication the PAC instructions are NOPs and
# the return addresses on the stack unsigned: the scenario would prove nothing.
if ! grep -q '^Features.* paca' /proc/cpuinfo; then
	result fail "the CPU has no address authentication (paca)"
	exit 1
fi
load_module sframe_unwind
for p in $PATTERNS; do
	record_pattern /workloads/v1-pac-binutils-2.40/deep "$p" "v1-$p"
	record_pattern /workloads/v3-pac-binutils-2.47/deep "$p" "v3-$p"
done
sframe_done module
