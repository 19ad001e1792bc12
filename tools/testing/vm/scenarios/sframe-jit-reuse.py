"""Host half of sframe-jit-reuse: no frame from a gone object's rules.

A sample whose user-space leaf is in the JIT function is correct when the
frames after it are exactly jit_caller_c, jit_caller_b, jit_caller_a and
main: the JIT frame has a frame-pointer prologue, so a walker that knows
no rule there steps out by %rbp.  A walker that still applies the old
library's SFrame rules at that address reads a return address from the
wrong slot: a wrong or missing caller.  A frame other than the leaf that
lies in the old text's range, or that perf names in libdeepso.so, can
only come from such a walk; none may appear.
"""

import re

from vmlib.stackcheck import MIN_SAMPLES, USER_TOP, parse_perf_tasks

RUNS = ("stock", "munmap", "mprotect")
BOUND = 0.99
RANGE = re.compile(r"^(old|jit) (0x[0-9a-f]+) (0x[0-9a-f]+)$", re.M)
EXPECT = re.compile(r"^expect: <jit> (.*)$", re.M)


def measure(out_text, perf_text):
    """Return (correct, stale, samples) of the samples whose leaf is JIT code."""
    ranges = {kind: (int(a, 16), int(b, 16)) for kind, a, b in RANGE.findall(out_text)}
    expect = EXPECT.search(out_text)
    if set(ranges) != {"old", "jit"} or not expect:
        raise ValueError("jitreuse printed no old/jit ranges or expected chain")
    chain = expect.group(1).split()
    (old_lo, old_hi), (jit_lo, jit_hi) = ranges["old"], ranges["jit"]
    correct = stale = samples = 0
    for _, _, frames in parse_perf_tasks(perf_text):
        user = [f for f in frames if int(f.ip, 16) < USER_TOP]
        if not user or not jit_lo <= int(user[0].ip, 16) < jit_hi:
            continue
        samples += 1
        callers = user[1:]
        correct += [f.sym for f in callers[:len(chain)]] == chain
        stale += any(old_lo <= int(f.ip, 16) < old_hi or f.dso.endswith("libdeepso.so")
                     for f in callers)
    return correct, stale, samples


def check(run):
    """Assert exact caller chains and no stale frame, with and without the module."""
    for name in RUNS:
        out, perf = run.artefacts.get(f"{name}.out"), run.artefacts.get(f"{name}.perf")
        if out is None or perf is None:
            run.fail(f"{name}: no workload output or perf output from the guest")
            continue
        try:
            correct, stale, samples = measure(out.decode(errors="replace"),
                                              perf.decode(errors="replace"))
        except ValueError as e:
            run.fail(f"{name}: {e}")
            continue
        run.metric(f"{name}_jit_samples", str(samples))
        if samples < MIN_SAMPLES:
            run.fail(f"{name}: only {samples} samples in the JIT code")
            continue
        frac = correct / samples
        run.metric(f"{name}_correct_pct", f"{100 * frac:.1f}")
        run.metric(f"{name}_stale_frame_pct", f"{100 * stale / samples:.1f}")
        if frac >= BOUND:
            run.passed(f"{name}: {100 * frac:.1f}% of JIT samples have exactly the C callers")
        else:
            run.fail(f"{name}: {100 * frac:.1f}% of JIT samples have exactly the C callers, "
                     f"want >= {100 * BOUND:.0f}%")
        run.verdict(not stale, f"{name}: no frame in the old library's text",
                    f"{name}: {stale} of {samples} JIT samples have a frame in the old library")
