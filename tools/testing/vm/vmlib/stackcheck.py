"""Measure how complete perf's user callchains are for the deep workload.

A sample counts when its leaf is the workload's hot leaf (the first name of
its `expect:` line); it is complete when the frames from the leaf outwards
match the expected chain, frame by frame, down to its last named function
(main, or thread_main for threads).  Usable as a library or as a command:
    stackcheck.py EXPECT_FILE PERF_SCRIPT_FILE
"""

import os
import re
import sys

PATTERNS = ["chain", "recurse", "vla", "realign", "qsort", "signal", "threads", "dlopen"]
MIN_SAMPLES = 50
# User addresses lie below on both machines (x86-64: 47 bits, AArch64: 48),
# perf prints the kernel's, in the upper half of the address space, above.
USER_TOP = 1 << 63


class Frame:
    """One callchain entry of a perf script sample."""

    def __init__(self, ip, sym, dso):
        self.ip = ip
        self.sym = sym
        self.dso = dso

    def in_libc(self):
        """Tell whether the frame is inside the C library."""
        return os.path.basename(self.dso).startswith("libc.so")


def parse_perf_script(text):
    """Return the samples of `perf script -F comm,tid,ip,sym,dso` as [[Frame]]."""
    return [frames for _, frames in parse_perf_samples(text)]


def parse_perf_samples(text):
    """Return the samples of `perf script -F comm,tid,ip,sym,dso` as [(comm, [Frame])]."""
    return [(comm, frames) for comm, _, frames in parse_perf_tasks(text)]


def parse_perf_tasks(text):
    """Return the samples of `perf script -F comm,tid,ip,sym,dso` as [(comm, tid, [Frame])]."""
    samples, frames = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            frames = []
            comm, _, tid = line.strip().rpartition(" ")
            samples.append((comm.strip(), int(tid) if tid.isdigit() else None, frames))
            continue
        if frames is None:
            continue
        ip, _, rest = line.strip().partition(" ")
        sym, dso = rest, ""
        if rest.endswith(")") and " (" in rest:
            sym, _, dso = rest.rpartition(" (")
            dso = dso[:-1]
        frames.append(Frame(ip, sym.strip(), dso))
    return samples


PERF_FRAME_IP = re.compile(r"^\s+([0-9a-f]+) ")


def drop_perf_lr_frames(text):
    """Return perf script text without frames at unaligned IPs, and their number.

    perf on arm64 inserts the leaf's LR - 1 after the leaf where libdw
    can unwind the leaf (sframe-pac.py); arm64 code is 4-byte aligned, and
    the kernel's walk never gives such an address.
    """
    kept, dropped = [], 0
    for line in text.splitlines(keepends=True):
        m = PERF_FRAME_IP.match(line)
        if m and int(m.group(1), 16) % 4:
            dropped += 1
        else:
            kept.append(line)
    return "".join(kept), dropped


def parse_expect(text):
    """Return the expected chain of an `expect:` line, repeats expanded."""
    for line in text.splitlines():
        if line.startswith("expect:"):
            chain = []
            for token in line.split()[1:]:
                name, star, count = token.partition("*")
                chain += [name] * (int(count) if star else 1)
            while chain and chain[-1].startswith("<"):
                chain.pop()
            return chain
    raise ValueError("no 'expect:' line")


def chain_matches(frames, chain):
    """Tell whether frames, from the leaf, follow chain down to its end."""
    if not chain:
        return True
    if not frames:
        return False
    token, rest = chain[0], chain[1:]
    if token == "<sigreturn>" and frames[0].dso == "[vdso]":
        # arm64's trampoline, __kernel_rt_sigreturn, is the vDSO's
        return chain_matches(frames[1:], rest)
    if token in ("<libc>", "<sigreturn>"):
        # one or more C library frames (the signal trampoline lives there)
        i = 0
        while i < len(frames) and frames[i].in_libc():
            i += 1
            if chain_matches(frames[i:], rest):
                return True
        return False
    return frames[0].sym == token and chain_matches(frames[1:], rest)


def chain_frames_found(frames, chain):
    """Return how many of chain's names frames has, in order.

    The longest common subsequence of the two name lists: a walker that
    skips a frame (a frame-pointer step over a function that keeps no
    frame pointer) still gets the frames before and after it.
    """
    row = [0] * (len(chain) + 1)
    for frame in frames:
        diagonal = 0
        for i, name in enumerate(chain):
            above = row[i + 1]
            row[i + 1] = diagonal + 1 if frame.sym == name else max(above, row[i])
            diagonal = above
    return row[-1]


# Two recordings' sampling noise: of the samples, and of a frame per sample.
NEVER_WORSE_SLACK = 0.01


def meets(fraction, op, bound):
    """Tell whether fraction is op (">=" or "<") bound."""
    return (fraction >= bound) == (op == ">=")


def judge(run, label, fraction, op, bound):
    """One verdict on a share: "LABEL F%, want OP B%"."""
    verdict = f"{label} {100 * fraction:.1f}%, want {op} {100 * bound:.0f}%"
    run.verdict(meets(fraction, op, bound), verdict, verdict)


def worse_than_stock(module, stock):
    """Tell whether the module's stacks are worse than the stock walker's.

    Each is (complete share, mean frames of the chain found) over one
    recording of the same workload; the module's may fall short of
    stock's by NEVER_WORSE_SLACK at most in either.
    """
    return (module[0] < stock[0] - NEVER_WORSE_SLACK or
            module[1] < stock[1] - NEVER_WORSE_SLACK)


def completeness(expect_text, perf_text):
    """Return (complete, eligible) sample counts for one pattern's run."""
    chain = parse_expect(expect_text)
    eligible = complete = 0
    for frames in parse_perf_script(perf_text):
        if not frames or frames[0].sym != chain[0]:
            continue
        eligible += 1
        complete += chain_matches(frames, chain)
    return complete, eligible


def samples_reaching(perf_text, comm, dso, ranges, leaf_in_dso=False, tids=None,
                     skip_only_in=None):
    """Return (reaching, samples) of comm: how many have a frame of dso in ranges.

    ranges are [start, end) addresses as perf script prints them for dso;
    a frame counts when start < ip <= end, which holds for a return
    address (just after its call) and for a return address minus one, as
    perf's DWARF unwinder prints it.  With leaf_in_dso, only the samples
    whose user-space leaf (first frame below the kernel's addresses) is in
    dso are counted; with tids, only those of these threads; with
    skip_only_in, not those whose user-space frames all lie in that DSO.
    """
    reaching = total = 0
    for name, tid, frames in parse_perf_tasks(perf_text):
        user = [f for f in frames if int(f.ip, 16) < USER_TOP]
        if name != comm or (leaf_in_dso and not (user and user[0].dso == dso)):
            continue
        if tids is not None and tid not in tids:
            continue
        if skip_only_in and user and all(f.dso == skip_only_in for f in user):
            continue
        total += 1
        reaching += any(f.dso == dso and any(a < int(f.ip, 16) <= b for a, b in ranges)
                        for f in user)
    return reaching, total


def samples_through(perf_text, comm, sym, dso="libc.so"):
    """Return (through, samples) of comm: how many have a user frame named sym in dso.

    dso is the start of the object's file name.  For stripped programs,
    whose main has no name: a walk that reached __libc_start_main, which
    perf names by libc's dynamic symbols, went through main.
    """
    through = total = 0
    for name, frames in parse_perf_samples(perf_text):
        if name != comm:
            continue
        total += 1
        through += any(int(f.ip, 16) < USER_TOP and f.sym == sym and
                       os.path.basename(f.dso).startswith(dso) for f in frames)
    return through, total


def samples_started(perf_text, comm, starts):
    """Return (started, samples) of comm: how many reach one of starts in libc.

    starts are the symbols, as perf names them by libc's dynamic symbols,
    of the frames where a process's or a thread's walk ends when it is
    whole: __libc_start_main below main, __clone below a thread's start.
    """
    started = total = 0
    for name, frames in parse_perf_samples(perf_text):
        if name != comm:
            continue
        total += 1
        started += any(int(f.ip, 16) < USER_TOP and f.sym in starts and
                       os.path.basename(f.dso).startswith("libc.so") for f in frames)
    return started, total


def mean_user_frames(perf_text, comm):
    """Return the mean number of user frames in comm's samples (0.0 without any)."""
    counts = [sum(int(f.ip, 16) < USER_TOP for f in frames)
              for name, frames in parse_perf_samples(perf_text) if name == comm]
    return sum(counts) / len(counts) if counts else 0.0


def bpftrace_stacks(text):
    """Return bpftrace's printed map `@[comm, ustack] = count()` as [(comm, count, [sym])].

    A frame is "sym+offset" or, unresolved, an address; the offset is dropped.
    """
    return [(m.group(1), int(m.group(3)),
             [ln.strip().rpartition("+")[0] or ln.strip()
              for ln in m.group(2).splitlines() if ln.strip()])
            for m in re.finditer(r"^@\[([^,\n]*),(.*?)\]: (\d+)$", text, re.S | re.M)]


def folded_stacks(text):
    """Return folded stacks ("comm;outermost;...;leaf count") as [(comm, count, [sym])].

    The frames are leaf first, as bpftrace and perf print them.
    """
    stacks = []
    for line in text.splitlines():
        stack, _, count = line.strip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        comm, *frames = stack.split(";")
        stacks.append((comm, int(count), frames[::-1]))
    return stacks


def stacks_through(stacks, comm, prefix):
    """Return (through, samples) of comm's counted stacks with a frame starting with prefix."""
    through = total = 0
    for name, count, frames in stacks:
        if name != comm:
            continue
        total += count
        through += count * any(f.startswith(prefix) for f in frames)
    return through, total


def samples_outside(perf_text, windows):
    """Drop the samples taken inside any of windows; return (text, dropped).

    perf_text is `perf script` output with the time field (after tid);
    windows are (start, end) pairs in seconds on the same clock.  The
    result has the time field removed, as parse_perf_samples expects.
    """
    kept, dropped, keep = [], 0, True
    for line in perf_text.splitlines():
        if line.strip() and not line[0].isspace():
            m = re.match(r"(.*\S)\s+(\d+\.\d+):\s*$", line)
            if not m:
                raise ValueError(f"no time field in sample line: {line!r}")
            keep = not any(a <= float(m.group(2)) <= b for a, b in windows)
            dropped += not keep
            line = m.group(1)
        if keep:
            kept.append(line)
    return "\n".join(kept) + "\n", dropped


def check_patterns(run, limits):
    """Record per-pattern completeness metrics of run; assert limits.

    limits maps a pattern to (">=" or "<", fraction).  Patterns without a
    limit are measured only, if the guest recorded them; a pattern with a
    limit must have been recorded.
    """
    recorded = [p for p in PATTERNS if f"{p}.expect" in run.artefacts]
    if not recorded:
        run.fail("the guest recorded no pattern")
    for pattern in PATTERNS:
        check_recording(run, pattern, limits.get(pattern))


def check_recording(run, name, limit=None):
    """Measure the recording NAME.expect/NAME.perf; assert limit if given.

    Reports NAME_complete_pct and NAME_samples; with limit (">=" or "<",
    fraction) the recording must exist and have MIN_SAMPLES in the leaf.
    """
    expect = run.artefacts.get(f"{name}.expect")
    perf = run.artefacts.get(f"{name}.perf")
    if expect is None or perf is None:
        if limit:
            run.fail(f"{name}: no perf output from the guest")
        return
    try:
        complete, eligible = completeness(expect.decode(), perf.decode(errors="replace"))
    except ValueError as e:
        run.fail(f"{name}: {e}")
        return
    frac = complete / eligible if eligible else 0.0
    run.metric(f"{name}_complete_pct", f"{100 * frac:.1f}")
    run.metric(f"{name}_samples", str(eligible))
    if not limit:
        return
    op, bound = limit
    if eligible < MIN_SAMPLES:
        run.fail(f"{name}: only {eligible} samples in the hot leaf")
    else:
        run.verdict(meets(frac, op, bound), f"{name} {100 * frac:.1f}% {op} {100 * bound:.0f}%",
                    f"{name}: {100 * frac:.1f}% complete, want {op} {100 * bound:.0f}%")


def check_chain_recordings(run, limits, realise):
    """Judge recordings of the chain pattern under other names.

    limits maps a recording NAME (NAME.expect, NAME.perf) to (">=" or
    "<", fraction); realise(name, expect_text) gives the expect line for
    the binary that ran.  Reports NAME_chain_complete_pct.
    """
    for name, (op, bound) in limits.items():
        expect, perf = run.artefacts.get(f"{name}.expect"), run.artefacts.get(f"{name}.perf")
        if expect is None or perf is None:
            run.fail(f"{name}: no perf output")
            continue
        complete, eligible = completeness(realise(name, expect.decode()),
                                          perf.decode(errors="replace"))
        frac = complete / eligible if eligible else 0.0
        run.metric(f"{name}_chain_complete_pct", f"{100 * frac:.1f}")
        if eligible and meets(frac, op, bound):
            run.passed(f"{name}: chain {100 * frac:.1f}% {op} {100 * bound:.0f}% "
                       f"of {eligible} samples")
        else:
            run.fail(f"{name}: chain {100 * frac:.1f}% of {eligible}, "
                     f"want {op} {100 * bound:.0f}%")


def main(argv):
    """Command-line entry: print complete/eligible for one pattern's files."""
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as e, open(argv[2], errors="replace") as p:
        complete, eligible = completeness(e.read(), p.read())
    print(f"{complete}/{eligible} complete "
          f"({100 * complete / eligible if eligible else 0:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
