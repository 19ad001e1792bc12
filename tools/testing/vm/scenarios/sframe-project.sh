#!/bin/sh
# sframe-project: perf -g with the module on the project's own build of the
# deep workload (this machine's gcc and binutils, real recursion).
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 900
. /vmtest/lib.sh
load_module sframe_unwind
record_patterns /workloads/project/sframe/deep
sframe_done module
