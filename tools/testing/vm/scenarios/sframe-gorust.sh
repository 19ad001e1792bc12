#!/bin/sh
# sframe-gorust: Go and Rust release builds unwound to their start.
# gorecurse (Debian's go 1.19: frame pointers, no .eh_frame for Go code)
# recurses and calls through cgo into C without frame pointers;
# rustrecurse (Debian's rustc 1.63, -C opt-level=2: .eh_frame, no frame
# pointers) recurses and calls C, which calls back into Rust.  Each is
# recorded without the module, then with it and the sidecars `sframectl
# load` makes for the program and libc (Go also with the module alone);
# the host judges each sample by its outermost frame.  An arm64 guest runs
# the Go part alone, cross-built with cgo by Debian 13's go 1.24 (1.19
# leaves stale frame pointers there): Debian 12's rustc has no AArch64
# standard library.
# needs: module sframectl golang
# kernels: all arm64-debian-6.12
# default: debian-6.12 arm64-debian-6.12
# timeout: 300
. /vmtest/lib.sh
SF=/workloads/project/sframectl
GO=/workloads/project/gorust/gorecurse
RUST=/workloads/project/gorust/rustrecurse
LIBC=/lib/$(uname -m)-linux-gnu/libc.so.6

# callgraph NAME PROGRAM: record PROGRAM for $PATTERN_SECONDS with -g.
callgraph()
{
	record_callgraph "$1" fp "$2" "$PATTERN_SECONDS" && cat "/tmp/$1.out"
}

[ "$(uname -m)" = x86_64 ] || RUST=

unload_module sframe_unwind
callgraph go-stock $GO
[ -z "$RUST" ] || callgraph rust-stock $RUST
load_module sframe_unwind
callgraph go-bare $GO
must $SF load $GO
[ -z "$RUST" ] || must $SF load $RUST
must $SF load $LIBC
callgraph go-module $GO
[ -z "$RUST" ] || callgraph rust-module $RUST
metric frames_fp_fallback "$(stat_value frames_fp_fallback)"
sframe_done module
