#!/bin/sh
# sframe-sidecar-libc: Debian's arm64 libc has no SFrame, so the v3 build's
# qsort and signal stop in it.  `sframectl load` (the arm64 sframectl,
# cross-built) generates sidecars in the guest from the .eh_frame of libc
# and ld.so; with them both patterns must unwind to main.
# needs: module sframectl
# kernels: arm64-debian-6.1 arm64-debian-6.12
# default: arm64-debian-6.1 arm64-debian-6.12
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
SF=/workloads/project/sframectl
W=/workloads/v3-binutils-2.47/deep

record_pattern $W qsort qsort-bare
record_pattern $W signal signal-bare
must $SF load /lib/aarch64-linux-gnu/libc.so.6
must $SF load /lib/ld-linux-aarch64.so.1
$SF status > /tmp/status.txt
cat /tmp/status.txt
artefact status.txt /tmp/status.txt
record_pattern $W qsort
record_pattern $W signal
sframe_state module
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
