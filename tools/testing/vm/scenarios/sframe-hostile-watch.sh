#!/bin/sh
# sframe-hostile-watch: the sidecar service's report descriptor, leaked to
# another user (passed on, or kept across a drop of privileges), reads
# nothing for that user: each report carries a descriptor for a file
# anyone may have mapped.  The read is refused and counted.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 120
. /vmtest/lib.sh
P=/workloads/project

load_module sframe_unwind
cp /workloads/nosframe/deep /tmp/reported
out=$($P/watchleak 1000 /tmp/reported 2>&1)
st=$?
echo "$out"
case $st in
0)	result ok "a leaked watcher read by uid 1000: $out" ;;
1)	result fail "a leaked watcher read by uid 1000: $out" ;;
*)	result fail "watchleak failed (status $st): $out" ;;
esac
expect_refused=$(stat_value events_reads_refused)
verdict "events_reads_refused: $expect_refused" \
	"events_reads_refused: '${expect_refused}', not counted" \
	[ "${expect_refused:-0}" -ge 1 ]
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
