#!/bin/sh
# sframe-v3: perf -g on the v3-binutils-2.47 build of the deep workload (omit-frame-pointer,
# SFrame) with sframe_unwind loaded; the host wants complete chains.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: debian-5.10 arm64-debian-6.12
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
record_patterns /workloads/v3-binutils-2.47/deep
sframe_done module
