"""Host half of sframe-gorust: Go and Rust samples judged by their outermost frame.

A sample is measured when its user-space leaf is one of the workload's own
functions (not the runtime's start-up, its garbage collector or the
loader), and complete when its outermost user frame is the one every walk
of that program must end at: runtime.goexit for a Go goroutine (the
return address runtime.main's frame holds; perf prints it with Go's ABI
suffix, runtime.goexit.abi0), _start for Rust, whose main is reached
through libc's __libc_start_call_main and __libc_start_main.

An arm64 guest records Go alone, built by Debian 13's go 1.24 (1.19 does
not move the frame pointers it saved when it copies a goroutine's stack,
golang/go#58432, so no walk reached goexit there).  Its cgo calls run C
on the thread's system stack with the frame pointer that stack saved,
which Go leaves 0: a C sample's chain ends in runtime.asmcgocall, and
only Go's g structure leads back to the goroutine
(Documentation/results.rst, "sframe-gorust on arm64").  There a sample
of C is complete when it reaches asmcgocall, which needs the C frames'
rules: frame records cannot walk them, and the stock walker stops at the
leaf.
"""

from vmlib.kernels import arch_of
from vmlib.machinecode import (check_callers_real, code_after_call, count_invented,
                               function_starts, guest_workload_path, planted_sequences)
from vmlib.stackcheck import MIN_SAMPLES, USER_TOP, judge, parse_perf_samples, worse_than_stock

# name: (command name, leaves measured, outermost frame's name prefix,
# the frame of the call into C, the frame called back from C or None).
PROGRAMS = {
    "go": ("gorecurse", {"main.goLeaf", "main.recurse", "c_leaf", "c_spin"},
           "runtime.goexit", "c_leaf", None),
    "rust": ("rustrecurse", {"rust_leaf", "rust_recurse", "rust_callback", "c_through"},
             "_start", "c_through", "rust_callback"),
}
COMPLETE_BOUND = 0.98
# The stock walker's bound for Rust: without frame pointers it stops at
# the leaf's caller at best.
RUST_STOCK_BOUND = 0.10
# Complete samples that went through C: the workloads spend about half
# their time there, so a fifth at least.
FFI_SHARE_BOUND = 0.20
# arm64: the frame where cgo's C joins the Go runtime on the system stack
CGO_SWITCH = "runtime.asmcgocall"
# the stock walker's bound there: it has no rule for C without frame records
CGO_SWITCH_STOCK_BOUND = 0.10
# Go's leaves, which every walk of a current Go reaches goexit from
GO_LEAVES = {"main.goLeaf", "main.recurse"}


def check(run):
    """Measure each recording; assert the module's completeness and never-worse."""
    native = arch_of(run.kernel) == "amd64"
    programs = ("go", "rust") if native else ("go",)
    measured = {}
    for mode in ("go-stock", "go-bare", "go-module", "rust-stock", "rust-module"):
        if mode.partition("-")[0] in programs:
            measured[mode] = measure(run, mode, *PROGRAMS[mode.partition("-")[0]],
                                     cgo_ends=not native)
    if native:
        judge_complete(run, measured, programs)
    else:
        judge_arm64(run, measured)
    for mode in ("go-bare", "go-module"):
        if measured[mode] and measured["go-stock"]:
            never_worse(run, mode, measured[mode], measured["go-stock"])
    judge_callers(run, programs)
    judge_planted(run)


def judge_planted(run):
    """The Go program's runtime.asyncPreempt is one the walk knows.

    Go's preemption signal plants the interrupted IP as asyncPreempt's
    return address; the walk takes it where the code after asyncPreempt's
    call of asyncPreempt2 is one of the module's planted sequences
    (Documentation/design.rst, "Only frames that are real").  A Go
    release that lays asyncPreempt out anew fails here first.
    """
    binary = guest_workload_path(f"/workloads/project/gorust/{PROGRAMS['go'][0]}", run.kernel)
    names = [name for _, name in function_starts(binary)
             if name.startswith("runtime.asyncPreempt") and
             not name.startswith("runtime.asyncPreempt2")]
    seqs = planted_sequences(binary)
    found = [code_after_call(binary, name, "runtime.asyncPreempt2", len(seq))
             for name in names for seq in seqs]
    name = names[0] if names else "runtime.asyncPreempt"
    run.verdict(any(code in seqs for code in found),
                f"{name}: the code after its call of asyncPreempt2 is the walk's",
                f"{name}: the code after its call of asyncPreempt2 "
                f"({', '.join(c.hex() for c in found if c) or 'none'}) is none of "
                f"the walk's ({', '.join(seq.hex() for seq in seqs)})")


def judge_callers(run, programs):
    """Every caller the module reports in the programs follows a call, or is
    Go's goexit + 1 (vmlib/machinecode.py); stock's are only counted."""
    objects = {f"/{PROGRAMS[p][0]}": guest_workload_path(f"/workloads/project/gorust/{PROGRAMS[p][0]}",
                                                        run.kernel) for p in programs}
    check_callers_real(run, objects, [m for p in programs for m in (f"{p}-module", f"{p}-bare")
                                      if f"{m}.perf" in run.artefacts])
    count_invented(run, objects, [f"{p}-stock" for p in programs])


def judge_complete(run, measured, programs):
    """The module's stacks reach the program's start, through C too; stock's Rust do not."""
    for program in programs:
        module = measured[f"{program}-module"]
        if module:
            judge(run, f"{program}-module: complete", module[0], ">=", COMPLETE_BOUND)
            judge(run, f"{program}-module: complete samples through C",
                  module[2] / max(module[3], 1), ">=", FFI_SHARE_BOUND)
    if measured["rust-stock"]:
        judge(run, "rust-stock: complete", measured["rust-stock"][0], "<", RUST_STOCK_BOUND)


def judge_arm64(run, measured):
    """Go's stacks reach goexit, stock's too; only the module's C reach asmcgocall."""
    for mode in ("go-stock", "go-bare", "go-module"):
        if measured[mode]:
            judge(run, f"{mode}: Go leaves' samples complete",
                  leaf_share(measured[mode], GO_LEAVES), ">=", COMPLETE_BOUND)
    if measured["go-module"]:
        judge(run, "go-module: complete (C leaves: to asmcgocall)",
              measured["go-module"][0], ">=", COMPLETE_BOUND)
    judge(run, f"go-module: C samples reaching {CGO_SWITCH}",
          cgo_switch_share(run, "go-module"), ">=", COMPLETE_BOUND)
    judge(run, f"go-stock: C samples reaching {CGO_SWITCH}",
          cgo_switch_share(run, "go-stock"), "<", CGO_SWITCH_STOCK_BOUND)


def leaf_share(measured, leaves):
    """Return the complete share of the samples whose leaf is in leaves."""
    counts = [measured[1][leaf] for leaf in leaves if leaf in measured[1]]
    return sum(c[0] for c in counts) / max(sum(c[1] for c in counts), 1)


def measure(run, mode, comm, leaves, outermost, into_c, back, cgo_ends=False):
    """Return (complete share, {leaf: (complete, samples, mean user frames)},
    complete through C, complete).

    With cgo_ends (arm64), a sample whose leaf is C is complete when it
    reaches CGO_SWITCH.  Reports <mode>_complete_pct, <mode>_samples,
    <mode>_mean_frames (of the measured samples) and <mode>_ffi_samples,
    with mode's dash an underscore.
    """
    perf = run.artefacts.get(f"{mode}.perf")
    if perf is None:
        run.fail(f"{mode}: no perf output")
        return None
    samples = complete = ffi = 0
    depths = {}
    for user in workload_stacks(perf, comm, leaves):
        samples += 1
        ends = CGO_SWITCH if cgo_ends and user[0] not in GO_LEAVES else outermost
        depths.setdefault(user[0], []).append((len(user), user[-1].startswith(ends)))
        if not depths[user[0]][-1][1]:
            continue
        complete += 1
        ffi += into_c in user and (back is None or back in user)
    label = mode.replace("-", "_")
    run.metric(f"{label}_samples", samples)
    if samples < MIN_SAMPLES:
        run.fail(f"{mode}: {samples} samples of the workload, want >= {MIN_SAMPLES}")
        return None
    share = complete / samples
    frames = sum(d[0] for leaf in depths.values() for d in leaf) / samples
    run.metric(f"{label}_complete_pct", f"{100 * share:.1f}")
    run.metric(f"{label}_mean_frames", f"{frames:.1f}")
    run.metric(f"{label}_ffi_samples", ffi)
    means = {leaf: (sum(d[1] for d in got), len(got), sum(d[0] for d in got) / len(got))
             for leaf, got in depths.items() if len(got) >= MIN_SAMPLES}
    return share, means, ffi, complete


def workload_stacks(perf, comm, leaves):
    """Yield the user frames' names of comm's samples whose leaf is in leaves."""
    for name, frames in parse_perf_samples(perf.decode(errors="replace")):
        user = [f.sym for f in frames if int(f.ip, 16) < USER_TOP]
        if name == comm and user and user[0] in leaves:
            yield user


def cgo_switch_share(run, mode):
    """Return the share of the C leaf's samples whose outermost frame is CGO_SWITCH."""
    comm, _, _, into_c, _ = PROGRAMS["go"]
    perf = run.artefacts.get(f"{mode}.perf") or b""
    stacks = list(workload_stacks(perf, comm, {into_c}))
    reached = sum(user[-1].startswith(CGO_SWITCH) for user in stacks)
    run.metric(f"{mode.replace('-', '_')}_cgo_switch_samples", f"{reached}/{len(stacks)}")
    return reached / max(len(stacks), 1)


def never_worse(run, mode, module, stock):
    """The module's Go stacks are as complete and as deep as stock's, leaf by leaf.

    Leaf by leaf: how the samples divide between Go and C moves from one
    recording to the next, and a cgo sample is deeper than a Go one.
    """
    for leaf in sorted(set(module[1]) & set(stock[1])):
        mine, theirs = module[1][leaf], stock[1][leaf]
        mine, theirs = (mine[0] / mine[1], mine[2]), (theirs[0] / theirs[1], theirs[2])
        verdict = (f"{mode}, leaf {leaf}: {100 * mine[0]:.1f}% complete, {mine[1]:.1f} "
                   f"frames; stock {100 * theirs[0]:.1f}%, {theirs[1]:.1f} frames")
        run.verdict(not worse_than_stock(mine, theirs), f"{verdict}: never worse",
                    f"{verdict}: never worse")
    if not set(module[1]) & set(stock[1]):
        run.fail(f"{mode}: no leaf with {MIN_SAMPLES} samples in both recordings")
