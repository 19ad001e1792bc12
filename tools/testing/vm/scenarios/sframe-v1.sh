#!/bin/sh
# sframe-v1: perf -g on the v1-binutils-2.40 build of the deep workload (omit-frame-pointer,
# SFrame) with sframe_unwind loaded; the host wants complete chains.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: debian-6.12 arm64-debian-6.1
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
record_patterns /workloads/v1-binutils-2.40/deep
sframe_done module
