#!/bin/sh
# baseline-nosframe: perf -g on the -fomit-frame-pointer build without the
# module.  Proves the problem: the host checks that chains are truncated.
# needs:
# kernels: all
# default: debian-6.1
# timeout: 600
. /vmtest/lib.sh
record_patterns /workloads/nosframe/deep
