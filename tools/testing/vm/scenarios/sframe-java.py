"""Host half of sframe-java: HotSpot's main thread judged by its outermost frame.

The launcher (libjli) runs the VM and main() on a thread of its own,
ThreadJavaMain, which libc's start_thread calls (and clone3 starts; the
stock walker stops at start_thread, whose caller leaves no frame pointer,
the module's walk goes on to clone3, whose CFI ends the stack).  So a
sample of that thread is complete when its user frames reach
ThreadJavaMain and only libc's frames lie beyond it.  Debian's libc has
no symbols for those two, hence "libc's frames" rather than their names.
The arm64 libjvm's symbol table names C++ functions with their
arguments ("thread_native_entry(Thread*)"): the name before "(" counts.
The VM's own threads (compiler, GC, VM thread) start in libjvm's
thread_native_entry the same way: they are reported, not judged, since
how many samples they get depends on when the compiler runs.

The main thread's samples are those of the thread id the workload
prints; they are divided into those with a frame of the JNI library
(JIT -> C -> libjvm -> JIT ...) and the others (JIT frames, the
interpreter and libjvm only).

Each crossing into the library has a frame only the library's stack
leads to: the native method's own JIT frame (its native wrapper), whose
return address the library saved.  The stock walker skips it on arm64
and goes astray there on x86-64.  The VM's perf map
(-XX:+DumpPerfMapAtExit) names it; a JNI sample "has its crossings"
when the caller of every frame of the library is that method's.  Where
the method was called from interpreted code (the first calls, before
C1 compiles descend()), the interpreter's native entry takes the
wrapper's place, and the perf map names it and its caller alike
("Interpreter"): such samples are counted, not judged.  perf on arm64
inserts the leaf's LR - 1 after the leaf (sframe-pac.py): frames at
IPs that are not 4-byte aligned are left out there.  The crossings are
judged on both machines.
"""

import collections
import re

from vmlib.stackcheck import MIN_SAMPLES, NEVER_WORSE_SLACK, USER_TOP, judge, parse_perf_tasks, \
    worse_than_stock

MAIN_ENTRY = "ThreadJavaMain"
VM_THREAD_ENTRY = "thread_native_entry"
LIBC = "libc.so.6"
JNI_LIBRARY = "libjavacallback.so"
# The native method, as the perf map names its wrapper and perf script
# prints it, and the interpreter's code.
NATIVE_METHOD = "JavaRecurse.through"
INTERPRETER = "Interpreter"
GROUPS = {"": "main thread", "_jni": "main thread, JNI", "_jit": "main thread, no JNI"}
COMPLETE_BOUND = 0.98
# Without the module a JNI sample's walk goes astray above the library,
# which keeps no frame pointers (libjvm and libjli keep them).  Not on
# arm64: there the library leaves x29 alone, so the stock walker follows
# libjvm's frame record past it to the JIT frames, complete but one frame
# short per crossing, the native method's, which the module finds
# (Documentation/results.rst): there the crossings tell the two apart,
# and both groups are judged never worse than stock by complete share.
STOCK_JNI_BOUND = 0.10
# Complete JNI samples among the complete ones: the workload spends
# about half its time in the JNI phase, so a fifth at least.
JNI_SHARE_BOUND = 0.20
# JNI samples with every crossing's frame: the module's at least
# COMPLETE_BOUND; stock's under this, since it skips them all.
STOCK_CROSSINGS_BOUND = 0.10


def check(run):
    """Measure both recordings; assert the module's completeness, stock's shortfall."""
    measured = {}
    for mode, prefix in (("stock", "java_stock"), ("module", "java")):
        measured[mode] = measure(run, mode, prefix)
    module, stock = measured["module"], measured["stock"]
    if module:
        for group, label in GROUPS.items():
            judge(run, f"module, {label}: complete", module[group][0], ">=",
                  COMPLETE_BOUND)
        judge(run, "module: complete samples through JNI",
              module["_jni"][2] / max(module[""][2], 1), ">=", JNI_SHARE_BOUND)
    arm64 = run.kernel.startswith("arm64-")
    if stock and not arm64:
        judge(run, f"stock, {GROUPS['_jni']}: complete", stock["_jni"][0], "<",
              STOCK_JNI_BOUND)
    if module and stock:
        judge(run, "module, JNI samples with every crossing's frame",
              module["crossings"], ">=", COMPLETE_BOUND)
        judge(run, "stock, JNI samples with every crossing's frame",
              stock["crossings"], "<", STOCK_CROSSINGS_BOUND)
    if module and stock:
        for group in ("_jni", "_jit") if arm64 else ("_jit",):
            mine, theirs = module[group], stock[group]
            verdict = (f"module, {GROUPS[group]}: {100 * mine[0]:.1f}% complete, "
                       f"{mine[1]:.1f} frames; stock {100 * theirs[0]:.1f}%, "
                       f"{theirs[1]:.1f} frames")
            # arm64: the same frame-record walk both ways but for the
            # crossings (judged above), so the mean depth differs by
            # little more than where two recordings' samples fall
            worse = (mine[0] < theirs[0] - NEVER_WORSE_SLACK if arm64 else
                     worse_than_stock(mine[:2], theirs[:2]))
            run.verdict(not worse, f"{verdict}: never worse", f"{verdict}: never worse")


def measure(run, mode, prefix):
    """Return {group: (complete share, mean user frames, complete)} of mode's main thread.

    group is "" (all the main thread's samples), "_jni" or "_jit"; each
    is reported as <prefix><group>_complete_pct, _samples and
    _mean_frames, the VM's threads as <prefix>_vm_threads_*.  Also
    "crossings": the share of JNI samples from compiled code with
    every crossing's frame (crossings_found()), reported as
    <prefix>_jni_crossings_pct, and <prefix>_jni_interpreted_samples.
    """
    perf, out = run.artefacts.get(f"{mode}.perf"), run.artefacts.get(f"{mode}.out")
    if perf is None or out is None:
        run.fail(f"{mode}: no perf output or no workload output")
        return None
    found = re.search(r"^tid (\d+)$", out.decode(errors="replace"), re.M)
    if not found:
        run.fail(f"{mode}: the workload printed no thread id")
        return None
    main_tid = int(found.group(1))
    counts = {group: [0, 0, 0] for group in ("", "_jni", "_jit", "_vm_threads")}
    crossings = collections.Counter()
    arm64 = run.kernel.startswith("arm64-")
    for comm, tid, frames in parse_perf_tasks(perf.decode(errors="replace")):
        user = [f for f in frames if int(f.ip, 16) < USER_TOP]
        if tid == main_tid:
            groups = ("", "_jni" if any(f.dso.endswith(JNI_LIBRARY) for f in user)
                      else "_jit")
            complete = reaches(user, MAIN_ENTRY)
            if groups[1] == "_jni":
                crossings[crossings_found(user, arm64)] += 1
        elif comm != "java":
            groups = ("_vm_threads",)
            complete = reaches(user, VM_THREAD_ENTRY)
        else:
            continue        # the launcher's first thread: start-up and a join
        for group in groups:
            counts[group][0] += 1
            counts[group][1] += len(user)
            counts[group][2] += complete
    shares = {}
    for group, (samples, frames, complete) in counts.items():
        run.metric(f"{prefix}{group}_samples", samples)
        if samples == 0:
            continue
        shares[group] = (complete / samples, frames / samples, complete)
        run.metric(f"{prefix}{group}_complete_pct", f"{100 * complete / samples:.1f}")
        run.metric(f"{prefix}{group}_mean_frames", f"{frames / samples:.1f}")
    for group in ("_jni", "_jit"):
        if counts[group][0] < MIN_SAMPLES:
            run.fail(f"{mode}: {counts[group][0]} samples of the {GROUPS[group]}, "
                     f"want >= {MIN_SAMPLES}")
            return None
    judged = crossings[True] + crossings[False]
    run.metric(f"{prefix}_jni_interpreted_samples", crossings[None])
    if judged < MIN_SAMPLES:
        run.fail(f"{mode}: {judged} JNI samples from compiled code, want >= {MIN_SAMPLES}")
        return None
    shares["crossings"] = crossings[True] / judged
    run.metric(f"{prefix}_jni_crossings_pct", f"{100 * shares['crossings']:.1f}")
    return shares


def crossings_found(user, arm64):
    """Tell whether the caller of each JNI library frame is the native method's.

    None: a crossing from interpreted code, which the names cannot tell.
    """
    if arm64:
        user = [f for f in user if int(f.ip, 16) % 4 == 0]
    callers = [user[k + 1].sym if k + 1 < len(user) else ""
               for k, frame in enumerate(user) if frame.dso.endswith(JNI_LIBRARY)]
    if INTERPRETER in callers:
        return None
    return all(NATIVE_METHOD in sym for sym in callers)


def reaches(user, entry):
    """Tell whether the user frames end at entry, then libc's frames only."""
    outer = len(user)
    while outer > 0 and user[outer - 1].dso.endswith("/" + LIBC):
        outer -= 1
    return 0 < outer < len(user) and user[outer - 1].sym.split("(")[0] == entry
