#!/bin/sh
# baseline-fp: perf -g on the frame-pointer build of the deep workload.
# Frame pointers are the reference: the host checks that chains reach main.
# needs:
# kernels: all
# default: debian-6.1
# timeout: 600
. /vmtest/lib.sh
record_patterns /workloads/baseline/deep-fp
