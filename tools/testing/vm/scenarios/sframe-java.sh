#!/bin/sh
# sframe-java: Debian 12's OpenJDK 17 (HotSpot) unwound to its thread's start.
# JavaRecurse (-XX:+PreserveFramePointer: JIT frames keep frame
# pointers, no unwind tables) recurses in Java and through a JNI library
# built without frame pointers that calls back into Java, on the main
# thread, which the launcher starts with pthread_create (Debian's
# libjvm.so and libjli.so keep frame pointers in most functions).
# Recorded without the module, then with it and the sidecars `sframectl
# load --system` makes for the runtime, the JNI library and libc; the
# host judges the main thread's samples by their outermost frame.  An
# arm64 guest runs Debian's arm64 JDK and the library cross-built.
# needs: module sframectl java
# kernels: all arm64-debian-6.12
# default: debian-6.12 arm64-debian-6.12
# timeout: 240
. /vmtest/lib.sh
SF=/workloads/project/sframectl
CLASSES=/workloads/project/java
JAVA=/opt/java/bin/java
# Seconds of each recording: the VM's start-up takes about one of them.
JAVA_SECONDS=6

# callgraph NAME: record the workload with -g.  C1 only, a small heap
# and the serial collector: few compiler and GC threads, a quick start.
# The perf map the VM writes at exit names the JIT frames in perf script.
callgraph()
{
	record_callgraph "$1" fp $JAVA -Xshare:auto -Xmx64m -XX:+UseSerialGC \
		-XX:-UsePerfData -XX:TieredStopAtLevel=1 -XX:+PreserveFramePointer \
		-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
		-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,JavaRecurse::* \
		-Djava.library.path=$CLASSES -cp $CLASSES JavaRecurse $JAVA_SECONDS &&
		cat "/tmp/$1.out" && artefact "$1.out" "/tmp/$1.out"
}

metric java_seconds $JAVA_SECONDS
unload_module sframe_unwind
callgraph stock

load_module sframe_unwind
# Debian's arm64 vDSO has no .eh_frame: load --system notes it, as it
# does a library without one, and goes on.
$SF load --system /lib /lib64 /usr/lib /opt/java $CLASSES > /tmp/load-system.txt 2>&1 ||
	result fail "sframectl load --system: exit $?"
if [ "$(uname -m)" = aarch64 ] &&
		! grep -qxF "[vdso]: no .eh_frame, nothing to load" /tmp/load-system.txt; then
	result fail "sframectl load --system: no note of the vDSO without .eh_frame"
fi
tail -3 /tmp/load-system.txt
callgraph module
sframe_done module
