#!/bin/sh
# sframe-fork: processes forked without exec are unwound at once.
# forkdeep (SFrame, no frame pointers) forks workers and a grandchild at
# depth, from a process started after the module loaded, from one
# started before (it forks after the load) and from one with a second
# thread (its children are rescanned: forks_rescanned); then Debian's
# python3 forks workers with load --system's sidecars.  The host measures the forked
# processes' samples, by tid.  First, as a control of the expected chains,
# the frame-pointer build without the module.  arm64 guests run forkdeep
# cross-built, and not the python half: they get no python3 (the harness
# packs the host's, an x86-64 one).
# needs: module python
# kernels: debian-5.10 debian-6.1 debian-6.12 debug arm64-debian-6.1 arm64-debian-6.12
# default: debian-5.10 debian-6.1 debian-6.12 debug arm64-debian-6.12
# timeout: 600
. /vmtest/lib.sh
FORKDEEP=/workloads/project/sframe/forkdeep
WORKERS=2

unload_module sframe_unwind
record_callgraph fp fp /workloads/project/fp/forkdeep $WORKERS "$PATTERN_SECONDS"
artefact fp.out /tmp/fp.out

# Started before the module loads; forks once /tmp/go exists.
rm -f /tmp/go
perf record -q -N -B -g -e cpu-clock -F "$PERF_FREQ" -o /tmp/before.data -- \
	$FORKDEEP $WORKERS "$PATTERN_SECONDS" /tmp/go > /tmp/before.out 2> /tmp/before.err &
perf_pid=$!
wait_exe $FORKDEEP 30 > /dev/null || result fail "$FORKDEEP did not start under perf"
load_module sframe_unwind
# The load-time scan of running processes is done by a worker: forkdeep
# forks once the scan has put its section in its map.
wait_section $FORKDEEP 30000 > /dev/null ||
	result fail "the scan at load did not find $FORKDEEP's section in 30 s"
touch /tmp/go
wait $perf_pid || result fail "perf record of forkdeep (started before load): exit $?"
cat /tmp/before.out /tmp/before.err
perf_script before
artefact before.out /tmp/before.out

# Started after the module loaded.
record_callgraph after fp $FORKDEEP $WORKERS "$PATTERN_SECONDS"
cat /tmp/after.out
artefact after.out /tmp/after.out
metric forks_inherited "$(stat_value forks_inherited)"

# The same from a parent with a second thread: its children scan their
# own mappings instead of inheriting its map.
rescanned0=$(stat_value forks_rescanned)
export FORKDEEP_THREAD=1
record_callgraph threaded fp $FORKDEEP $WORKERS "$PATTERN_SECONDS"
unset FORKDEEP_THREAD
artefact threaded.out /tmp/threaded.out
metric forks_rescanned $(($(stat_value forks_rescanned) - rescanned0))
# perf's walks so far, and those of their frames the step cache gave
metric frames_sframe "$(stat_value frames_sframe)"
metric frames_cached "$(stat_value frames_cached)"

# Python workers (posix.fork, no exec) with sidecars.  Python reads
# /dev/urandom at start-up: wait for the entropy pool first.
python_workers()
{
	head -c 1 /dev/random > /dev/null
	PYFORK="python3 -I -S /workloads/project/pyrecurse.py $PATTERN_SECONDS 40 2"
	# control of the workers' measurement: perf's own DWARF unwinder
	record_callgraph pydwarf dwarf $PYFORK
	artefact pydwarf.out /tmp/pydwarf.out
	/workloads/project/sframectl load --system > /tmp/load-system.txt 2>&1 ||
		result fail "sframectl load --system: exit $?"
	tail -n 1 /tmp/load-system.txt
	record_callgraph pyfork fp $PYFORK
	cat /tmp/pyfork.out
	artefact pyfork.out /tmp/pyfork.out
}

case $KERNEL in
arm64-*)
	echo "python half not run: x86-64 only, $KERNEL's guest has no python3"
	;;
*)
	python_workers
	;;
esac
sframe_done module
