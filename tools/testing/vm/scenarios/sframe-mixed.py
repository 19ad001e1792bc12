"""Host half of sframe-mixed: the module's stacks against the stock walker's.

For each pattern, over the samples whose leaf is the pattern's leaf:
complete, the share whose frames follow the expected chain down to main;
found, the mean number of the chain's frames a sample has, in order (a
walker that skips a frame finds fewer).  With the module both must be at
least the stock walker's, less two runs' sampling noise (worse_than_stock);
on x86-64, where a frame record ends its frame and hands SFrame an exact
SP, every pattern must also be COMPLETE.  On AArch64 a frame record gives
no SP: an SFrame caller after one is stepped by the next record, as the
stock walker steps it (design.rst), and only never-worse is asserted
there, and completeness of the all-SFrame control.

Every caller the module reports in mixwalk and its library must follow a
call instruction (frames the stock walker invents count for nothing: they
match no name of the chain; check_callers_real() in vmlib/machinecode.py).
"""

from vmlib.kernels import arch_of
from vmlib.machinecode import check_callers_real, count_invented, guest_workload_path
from vmlib.stackcheck import (MIN_SAMPLES, chain_frames_found, chain_matches, parse_expect,
                              parse_perf_script, worse_than_stock)

PATTERNS = ("sframe", "nocfi", "jit", "fplib", "mixed", "nocfileaf", "fpleaf")
OBJECTS = ("/workloads/project/mixed/mixwalk", "/workloads/project/mixed/libmixfp.so")
COMPLETE = 0.99


def measure(expect_text, perf_text):
    """Return (samples, complete share, mean frames found) of one recording."""
    chain = parse_expect(expect_text)
    samples = complete = found = 0
    for frames in parse_perf_script(perf_text):
        if not frames or frames[0].sym != chain[0]:
            continue
        samples += 1
        complete += chain_matches(frames, chain)
        found += chain_frames_found(frames, chain)
    if not samples:
        return 0, 0.0, 0.0
    return samples, complete / samples, found / samples


def recording(run, name):
    """Return measure() of recording NAME, or None after failing the run."""
    expect, perf = run.artefacts.get(f"{name}.expect"), run.artefacts.get(f"{name}.perf")
    if expect is None or perf is None:
        run.fail(f"{name}: no perf output from the guest")
        return None
    samples, complete, found = measure(expect.decode(), perf.decode(errors="replace"))
    run.metric(f"{name}_complete_pct", f"{100 * complete:.1f}")
    run.metric(f"{name}_frames", f"{found:.2f}")
    if samples < MIN_SAMPLES:
        run.fail(f"{name}: only {samples} samples in the leaf")
        return None
    return samples, complete, found


def check(run):
    """Assert the module's stacks are never worse than stock's, per pattern."""
    x86 = arch_of(run.kernel) != "arm64"
    objects = {path: guest_workload_path(path, run.kernel) for path in OBJECTS}
    check_callers_real(run, objects, [f"module-{p}" for p in PATTERNS])
    count_invented(run, objects, [f"stock-{p}" for p in PATTERNS])
    for p in PATTERNS:
        stock, module = recording(run, f"stock-{p}"), recording(run, f"module-{p}")
        if not stock or not module:
            continue
        what = (f"{p}: module {100 * module[1]:.1f}% complete, {module[2]:.2f} frames;"
                f" stock {100 * stock[1]:.1f}%, {stock[2]:.2f}")
        if worse_than_stock(module[1:], stock[1:]):
            run.fail(f"{what}: worse than stock")
        elif (x86 or p == "sframe") and module[1] < COMPLETE:
            run.fail(f"{what}: want >= {100 * COMPLETE:.0f}% complete")
        else:
            run.passed(what)
