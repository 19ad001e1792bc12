#!/bin/sh
# sframe-sidecar-libc: Debian's arm64 libc has no SFrame, so the v3 build's
# qsort and signal stop in it.  `sframectl load` (the arm64 sframectl,
# cross-built) generates sidecars in the guest from the .eh_frame of libc
# and ld.so; with them both patterns must unwind to main.  Before them,
# ld.so's sidecar handed over for libc: sframectl refuses it, and forced
# past that, the module finds libc's own build ID differs (-ESTALE).
# needs: module sframectl
# kernels: arm64-debian-6.1 arm64-debian-6.12
# default: arm64-debian-6.1 arm64-debian-6.12
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
SF=/workloads/project/sframectl
W=/workloads/v3-binutils-2.47/deep
LIBC=/lib/aarch64-linux-gnu/libc.so.6
LDSO=/lib/ld-linux-aarch64.so.1

record_pattern $W qsort qsort-bare
record_pattern $W signal signal-bare
must $SF gen -o /tmp/ldso.sframe $LDSO
refused 1 "/tmp/ldso.sframe is not for $LIBC: made for build ID" \
	$SF load $LIBC /tmp/ldso.sframe
refused 1 "$LIBC: the module refused the sidecar: made for build ID .*, which is not the file's (Stale file handle)" \
	$SF load --force $LIBC /tmp/ldso.sframe
must $SF load $LIBC
must $SF load $LDSO
$SF status > /tmp/status.txt
cat /tmp/status.txt
artefact status.txt /tmp/status.txt
record_pattern $W qsort
record_pattern $W signal
sframe_done module
