#!/bin/sh
# demo: perf -g call graphs of one workload, without and then with sframe_unwind.
# timeout: 300
. /vmtest/lib.sh

# demo_record LABEL: record the demo workload and send perf report's call graph.
demo_record()
{
	perf record -q -N -B -g -e cpu-clock -F "$PERF_FREQ" -o "/tmp/$1.data" \
		-- "/workloads/$DEMO_BUILD/deep" "$DEMO_PATTERN" "$PATTERN_SECONDS" > /dev/null
	perf report -i "/tmp/$1.data" --stdio --no-children --comm deep \
		--sort sym --percent-limit 20 -g caller,10,callee,function,percent \
		> "/tmp/$1.txt" 2> /dev/null
	perf script -i "/tmp/$1.data" --no-inline -F comm,tid,ip,sym,dso > "/tmp/$1.perf"
	artefact "$1.txt" "/tmp/$1.txt"
	artefact "$1.perf" "/tmp/$1.perf"
}

"/workloads/$DEMO_BUILD/deep" "$DEMO_PATTERN" 0 > /tmp/expect
artefact expect /tmp/expect
demo_record without
if [ ! -f /modules/sframe_unwind.ko ]; then
	result fail "sframe_unwind.ko was not built"
	exit 1
fi
insmod /modules/sframe_unwind.ko || { result fail "insmod sframe_unwind.ko failed"; exit 1; }
demo_record with
result ok "recorded with and without the module"
