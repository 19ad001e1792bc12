#!/bin/sh
# sframe-jit-reuse: JIT code where an SFrame library's text was is never
# unwound with that library's rules.  jitreuse takes libdeepso.so's text
# away (munmap, or mprotect PROT_NONE without munmap), maps anonymous
# RWX memory over it with MAP_FIXED and runs a frame-pointer function
# there under perf -g: the chain from it must be exactly its C callers.
# Control: the same without the module.
# needs: module
# kernels: all
# default: debian-5.10 debian-6.12
# timeout: 300
. /vmtest/lib.sh
JITREUSE=/workloads/project/sframe-fp/jitreuse
LIB=/workloads/project/sframe/libdeepso.so

# run NAME munmap|mprotect: record jitreuse; send its output as NAME.out.
run()
{
	record_callgraph "$1" fp $JITREUSE "$2" "$PATTERN_SECONDS" $LIB || return 1
	cat "/tmp/$1.out"
	artefact "$1.out" "/tmp/$1.out"
}

unload_module sframe_unwind
run stock mprotect
load_module sframe_unwind
run munmap munmap
run mprotect mprotect
metric lookups_in_changed_range "$(stat_value lookups_in_changed_range)"
sframe_done module
