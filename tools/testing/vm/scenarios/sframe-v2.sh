#!/bin/sh
# sframe-v2: perf -g on the v2-binutils-2.44 build of the deep workload (omit-frame-pointer,
# SFrame) with sframe_unwind loaded; the host wants complete chains.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: none
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
record_patterns /workloads/v2-binutils-2.44/deep
sframe_done module
