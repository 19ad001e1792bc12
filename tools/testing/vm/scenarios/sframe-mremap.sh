#!/bin/sh
# sframe-mremap: code that mremap() moved is unwound with its file's
# SFrame at the new address.  mremaptext dlopens libmremaptext.so (SFrame,
# no frame pointers), moves its text with mremap(MREMAP_FIXED) and runs a
# recursion there under perf -g.  The module must have observed the move
# (copy_vma()): its map gets a range at the new address, and the host
# checks the chains through the moved frames.  Control: the stock walker.
# x86-64 only (mremaptext is built for the host), and not on debug: that
# kernel has no BTF, against which the module checks copy_vma()'s
# prototype before it hooks it.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
W=/workloads/project/sframe-fp/mremaptext
LIB=/workloads/project/sframe/libmremaptext.so
RANGE_LIMIT_MS=5000		# the workload waits 1 s after the move

# record NAME: perf -g mremaptext in the background ($recorder), its
# output in /tmp/NAME.out.
record()
{
	perf record -q -N -B --call-graph=fp -e cpu-clock -F "$PERF_FREQ" \
		-o "/tmp/$1.data" -- $W "$PATTERN_SECONDS" $LIB \
		> "/tmp/$1.out" 2> "/tmp/$1.err" &
	recorder=$!
}

# finish NAME: wait for the recording; send NAME.out and NAME.perf.
finish()
{
	if ! wait $recorder; then
		cat "/tmp/$1.err" "/tmp/$1.out"
		result fail "$1: perf record $W failed"
		return 1
	fi
	cat "/tmp/$1.out"
	artefact "$1.out" "/tmp/$1.out"
	perf_script "$1"
}

# moved_range NAME: the range the text moved to, as the module's maps
# print it (start-end, hexadecimal), once the workload has printed it.
moved_range()
{
	wait_text "/tmp/$1.out" "^new " 60 &&
		sed -n 's/^new 0x\([0-9a-f]*\) 0x\([0-9a-f]*\)$/\1-\2/p' "/tmp/$1.out"
}

if [ ! -x $W ] || [ ! -f $LIB ]; then
	result fail "workload $W or $LIB is missing"
	exit 1
fi
unload_module sframe_unwind
record stock
finish stock
load_module sframe_unwind
record module
if range=$(moved_range module) && [ -n "$range" ]; then
	if ms=$(wait_maps " $range bias [0-9a-f]+ v[0-9]+ [0-9]+ FDEs $LIB\$" \
		$RANGE_LIMIT_MS); then
		metric moved_range_ms "$ms"
		result ok "the module walks $LIB's SFrame at the moved text $range"
	else
		cat /sys/kernel/debug/sframe_unwind/maps
		result fail "no range of $LIB at the moved text $range after $RANGE_LIMIT_MS ms"
	fi
else
	result fail "mremaptext did not say where its text moved"
fi
finish module
sframe_done module
