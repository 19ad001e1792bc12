"""Host half of sframe-python-ext: python3 through a C extension, to main."""

import os

from vmlib.pythoncheck import COMM, assert_reach, python_main, reach, reach_after_loader
from vmlib.stackcheck import USER_TOP, parse_perf_samples

# perf.data of each mode: stock kernel, the module with load --system's
# sidecars (none for the extension) and with the extension's too; qsort:
# through libc's qsort and ctypes, with load --system's sidecars.
MODES = ("stock", "system", "sidecar", "qsort")
COMPLETE = {"main_after_loader": (">=", 0.98), "main_from_python": (">=", 0.99)}
LIMITS = {"sidecar": COMPLETE, "qsort": COMPLETE, "stock": {"main": ("<", 0.5)}}
# What a sample holds once per level of a complete descent through C:
# mode: (the metric giving the depth, what the frame is, its test).
CROSSINGS = {
    "sidecar": ("callback_depth", "frames of pycallback.so",
                lambda f: os.path.basename(f.dso) == "pycallback.so"),
    "qsort": ("qsort_depth", "qsort_r frames of libc",
              lambda f: f.sym == "qsort_r" and os.path.basename(f.dso).startswith("libc.so")),
}
# Share of those modes' samples that must hold a frame at every level of
# the descent: the workload spins at its leaf (pyrecurse.py: LEAF_ROUNDS),
# so nearly all of them do.
THROUGH_ALL_MIN = 0.5


def check(run):
    """Report each mode's reach; assert the sidecars', stock's and the crossings."""
    python, ranges = python_main()
    for mode in MODES:
        perf = run.artefacts.get(f"{mode}.perf")
        if perf is None:
            run.fail(f"{mode}: no perf output")
            continue
        text = perf.decode(errors="replace")
        measured = reach(run, mode, text, python, ranges)
        if measured is None:
            continue
        measured["main_after_loader"] = reach_after_loader(run, mode, text, python, ranges)
        if mode in LIMITS:
            assert_reach(run, mode, measured, LIMITS[mode])
        if mode in CROSSINGS:
            check_crossings(run, mode, text)


def check_crossings(run, mode, text):
    """Assert that most of mode's samples hold a crossing at every level."""
    metric, what, is_crossing = CROSSINGS[mode]
    depth = int(run.metrics.get(metric, "0"))
    through = total = 0
    for name, frames in parse_perf_samples(text):
        if name != COMM:
            continue
        total += 1
        through += sum(int(f.ip, 16) < USER_TOP and is_crossing(f) for f in frames) >= depth
    share = through / max(total, 1)
    run.metric(f"{mode}_through_all_pct", f"{100 * share:.1f}")
    verdict = (f"{mode}: {100 * share:.1f}% of the samples walked through all {depth} "
               f"{what}, want >= {100 * THROUGH_ALL_MIN:.0f}%")
    run.verdict(depth > 0 and share >= THROUGH_ALL_MIN, verdict, verdict)
