#!/bin/sh
# sframe-corrupt: a program whose .sframe is damaged (FRE type 3) is
# rejected with the reason in the log and the stats, and runs to the end.
# needs: module
# kernels: all
# default: debian-6.12 debug
# timeout: 300
. /vmtest/lib.sh
load_module sframe_unwind
PATTERNS=chain
record_patterns /workloads/project/sframe/deep-corrupt
if dmesg | grep -q "sframe_unwind: .*/deep-corrupt: invalid .sframe: unknown FRE type"; then
	result ok "rejection logged with file and reason"
else
	result fail "no log line for the rejected section"
fi
rejected=$(stat_value "rejected: unknown FRE type")
verdict "stats: rejected: unknown FRE type: 1" \
	"stats: rejected: unknown FRE type: $rejected, want 1" \
	[ "$rejected" = 1 ]
sframe_done module
