#!/bin/sh
# sframe-fp: the frame-pointer build (no .sframe) with the module loaded
# unwinds as well as the stock kernel does.
# needs: module
# kernels: all arm64-debian-6.1 arm64-debian-6.12
# default: debian-6.1 debian-6.12 arm64-debian-6.1
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
record_patterns /workloads/baseline/deep-fp
sframe_done module
