#!/bin/sh
# sframe-sidecar: the fixtures' nosframe build (no SFrame, no frame
# pointers anywhere) with sidecars: generated here by `sframectl load` for
# the program, libc and ld.so, made on the host by `sframectl gen` for
# libdeepso.so.  Every pattern, qsort and signal included, must unwind to
# main.  Then bad input, each refused with its reason and nothing else
# affected (a sidecar for another build of the program included: -ESTALE
# from the module), and unload.  arm64 guests run it on the committed
# AArch64 nosframe build, with the cross-built sframectl and the host's
# sidecars made for that build and for the sysroot's libc.
# needs: module sframectl
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: debian-5.10 debug
# timeout: 1200
. /vmtest/lib.sh
load_module sframe_unwind
SF=/workloads/project/sframectl
SC=/workloads/project/sidecars
W=/workloads/nosframe/deep
SO=/workloads/nosframe/libdeepso.so
LIBC=/lib/$(uname -m)-linux-gnu/libc.so.6
case $(uname -m) in
aarch64)
	LDSO=/lib/ld-linux-aarch64.so.1
	;;
*)
	LDSO=/lib64/ld-linux-x86-64.so.2
	;;
esac

must $SF load $W
must $SF load $SO $SC/libdeepso.so.sframe
must $SF load $LIBC
must $SF load $LDSO
$SF status > /tmp/status.txt
cat /tmp/status.txt
artefact status.txt /tmp/status.txt
record_patterns $W

# Bad input.  sframectl's own checks first, then the kernel's (--force).
before=$(stat_value sidecars_rejected)
refused 1 "is not for $W" $SF load $W $SC/libdeepso.so.sframe
refused 1 "the module refused the sidecar: Invalid argument" \
	$SF load --force $W $SC/libc-noid.sframe
refused 1 "invalid:" $SF load $SO $SC/truncated.sframe
refused 1 "the module refused the sidecar" \
	$SF load --force $SO $SC/truncated.sframe
refused 2 "sidecars need write access to it" \
	/workloads/project/runas 65534 $SF load $W
refused 1 "no sidecar loaded" $SF unload /workloads/v3-binutils-2.47/deep
after=$(stat_value sidecars_rejected)
if [ "$after" = $((before + 2)) ]; then
	result ok "stats: sidecars_rejected went from $before to $after"
else
	result fail "stats: sidecars_rejected $before -> $after, want +2"
fi
if dmesg | grep -q "sframe_unwind: $W: sidecar rejected: FDE 0 is outside the file's code" &&
   dmesg | grep -q "sframe_unwind: $SO: invalid sidecar: "; then
	result ok "both kernel rejections logged with file and reason"
else
	dmesg | grep sframe_unwind
	result fail "kernel rejections not logged as expected"
fi

# The build ID: a sidecar made for the program is not for another build of
# the same code.  sframectl says so; forced past it, the module checks the
# file's own note and answers -ESTALE.
OTHER=/workloads/project/otherid/deep
must $SF gen -o /tmp/deep.sframe $W
refused 1 "/tmp/deep.sframe is not for $OTHER: made for build ID" \
	$SF load $OTHER /tmp/deep.sframe
refused 1 "$OTHER: the module refused the sidecar: made for build ID .*, which is not the file's (Stale file handle)" \
	$SF load --force $OTHER /tmp/deep.sframe
refused 1 "no sidecar loaded" $SF unload $OTHER

# Nothing was lost: the chain still unwinds; then without the program's
# sidecar it no longer does.
record_pattern $W chain after-bad
must $SF unload $W
must $SF status
record_pattern $W chain unloaded
sframe_done module
