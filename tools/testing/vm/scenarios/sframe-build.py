"""Host half of sframe-build: the toolchain's stacks per build, and sidecar latency.

A sample of one of the toolchain's programs counts when it has a user
frame; it is complete when its walk reached the process's start: a frame
in libc named __libc_start_main (Debian strips the programs, so main and
_start have no name, but every stack under main goes through it), or,
before main, an outermost frame in the loader's entry code (RTLD_START:
the return address of its call of _dl_start or of _dl_init), or, in a
child of posix_spawn (make's), libc's __clone3 calling the child's
function: a thread's start.  Debian's ld.so and libc keep no symbol
table, so those two are known by their addresses: within
LOADER_START_BYTES after ld.so's ELF entry point; the return address of
the first indirect call after libc's clone3 system call.
"""

import os
import re

from vmlib.machinecode import disassembly, program_headers, to_file_offset
from vmlib.stackcheck import USER_TOP, judge, parse_perf_samples

PROGRAMS = ("cc1", "as", "ld", "collect2", "make", "gcc")
# Each must have this many samples in each build it is judged in.
JUDGED = ("cc1", "as", "ld")
MIN_PROGRAM_SAMPLES = 10
BUILDS = ("build1", "build2", "build3", "stock")
WARM = ("build2", "build3")
COMPLETE_BOUND = 0.95
STOCK_BOUND = 0.20
# Once cached, a sidecar is in use within this of its file's first mapping
# in a build (0 while still loaded; a load from the cache under TCG takes
# a few hundred ms, and the poll of the module's maps about 400 ms).
WARM_P95_BOUND_MS = 5000
LOADER = "/lib64/ld-linux-x86-64.so.2"       # the guest's is the host's
LOADER_START_BYTES = 64
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
CLONE3 = 435        # x86-64's clone3 system call number


def loader_start(loader=LOADER):
    """Return the [start, end] file offsets of the loader's entry code."""
    entry, loads = program_headers(loader)
    start = to_file_offset(loads, entry)
    return start, start + LOADER_START_BYTES


def clone3_child_start(libc=LIBC):
    """Return the return address at which a clone3 child starts.

    libc's __clone3 makes the system call, then in the child calls the
    function it was given: the first indirect call after it.  The address
    is also the file offset perf prints: libc's text lies at its offset.
    """
    return clone3_return(disassembly(libc))


def clone3_return(disassembly):
    """Return the address after the first `call *%reg` that follows clone3's number."""
    lines = iter(disassembly.splitlines())
    for line in lines:
        if re.search(rf"mov\s+\$0x{CLONE3:x},%eax", line):
            break
    for line in lines:
        if re.search(r"call\s+\*%r", line):
            following = next(lines, "")
            m = re.match(r"\s*([0-9a-f]+):", following)
            if m:
                return int(m.group(1), 16)
    raise ValueError("no indirect call after the clone3 system call")


def complete(user, start):
    """Tell whether user frames (leaf first) reach the process's start.

    start is (the loader's entry code as loader_start() gives it, the
    clone3 child's return address as clone3_child_start() gives it).
    """
    if any(os.path.basename(f.dso).startswith("libc.so") and f.sym == "__libc_start_main"
           for f in user):
        return True
    outer, ip = os.path.basename(user[-1].dso), int(user[-1].ip, 16)
    loader, child = start
    return ((outer.startswith("ld-linux") and loader[0] <= ip <= loader[1]) or
            (outer.startswith("libc.so") and ip == child))


def measure(perf_text, start):
    """Return {program: (complete, samples)} of one recording."""
    counts = {p: [0, 0] for p in PROGRAMS}
    for comm, frames in parse_perf_samples(perf_text):
        user = [f for f in frames if int(f.ip, 16) < USER_TOP]
        if comm not in counts or not user:
            continue
        counts[comm][1] += 1
        counts[comm][0] += complete(user, start)
    return {p: tuple(c) for p, c in counts.items()}


def percentile(values, share):
    """Return the value below which share of sorted values lie (nearest rank)."""
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(share * len(values) + 0.5) - 1))]


def latencies(run, log_text, build):
    """Return each file's ms from first seen mapped to first seen with its sidecar.

    The files seen mapped from perf's start to a second after make's end;
    a file whose sidecar was never seen then is left out and counted in
    BUILD_no_sidecar.
    """
    start = int(run.metrics[f"{build}_record_ms"])
    end = int(run.metrics[f"{build}_end_ms"])
    first, served = {}, {}
    for line in log_text.splitlines():
        ms, state, path = line.split(" ", 2)
        ms = int(ms)
        if ms < start or ms > end + 1000:
            continue
        first.setdefault(path, ms)
        if state == "sidecar":
            served.setdefault(path, ms)
    run.metric(f"{build}_no_sidecar", str(len(set(first) - set(served))))
    return {p: served[p] - first[p] for p in first if p in served}


def check(run):
    """Judge each build's completeness and report the sidecars' latency."""
    start = (loader_start(), clone3_child_start())
    measured = {}
    for build in BUILDS:
        perf = run.artefacts.get(f"{build}.perf")
        if perf is None:
            run.fail(f"{build}: no perf output")
            continue
        measured[build] = measure(perf.decode(errors="replace"), start)
        report(run, build, measured[build])
    for build in WARM:
        for program in JUDGED:
            samples = measured.get(build, {}).get(program, (0, 0))[1]
            if samples < MIN_PROGRAM_SAMPLES:
                run.fail(f"{build}: {samples} samples of {program}, "
                         f"want >= {MIN_PROGRAM_SAMPLES}")
    warm = [measured[b] for b in WARM if b in measured]
    judge(run, "builds 2 and 3: complete", share(warm), ">=", COMPLETE_BOUND)
    if "stock" in measured:
        judge(run, "stock: complete", share([measured["stock"]]), "<", STOCK_BOUND)
    log = run.artefacts.get("build-maps.log")
    if log is None:
        run.fail("no log of the module's maps")
        return
    polls = sorted({int(line.split(" ", 1)[0]) for line in log.decode().splitlines()})
    if len(polls) > 1:
        run.metric("maps_poll_ms", str((polls[-1] - polls[0]) // (len(polls) - 1)))
    for build in BUILDS[:3]:
        files = latencies(run, log.decode(), build)
        report_latency(run, build, files)
        if build in WARM:
            judge_warm_latency(run, build, files)


def share(recordings):
    """Return the complete share of all samples of recordings (0.0 without any)."""
    done = sum(c for r in recordings for c, _ in r.values())
    samples = sum(n for r in recordings for _, n in r.values())
    return done / samples if samples else 0.0


def report(run, build, counts):
    """Report BUILD_PROGRAM_complete_pct and _samples, and BUILD_complete_pct."""
    for program, (done, samples) in counts.items():
        run.metric(f"{build}_{program}_samples", str(samples))
        if samples:
            run.metric(f"{build}_{program}_complete_pct", f"{100 * done / samples:.1f}")
    run.metric(f"{build}_samples", str(sum(n for _, n in counts.values())))
    run.metric(f"{build}_complete_pct", f"{100 * share([counts]):.1f}")


def report_latency(run, build, files):
    """Report BUILD_sidecar_p50_ms, _p95_ms and _files: first mapping to sidecar in use."""
    run.metric(f"{build}_sidecar_files", str(len(files)))
    if not files:
        return
    run.metric(f"{build}_sidecar_p50_ms", str(percentile(files.values(), 0.50)))
    run.metric(f"{build}_sidecar_p95_ms", str(percentile(files.values(), 0.95)))
    slowest = max(files, key=files.get)
    run.metric(f"{build}_sidecar_slowest", f"{os.path.basename(slowest)} {files[slowest]}")


def judge_warm_latency(run, build, files):
    """Assert that every file of a warm build had its sidecar, soon."""
    missing = int(run.metrics[f"{build}_no_sidecar"])
    if not files or missing:
        run.fail(f"{build}: {missing} files without a sidecar, {len(files)} with")
        return
    p95 = percentile(files.values(), 0.95)
    verdict = f"{build}: first mapping to sidecar p95 {p95} ms, want <= {WARM_P95_BOUND_MS}"
    run.verdict(p95 <= WARM_P95_BOUND_MS, verdict, verdict)
