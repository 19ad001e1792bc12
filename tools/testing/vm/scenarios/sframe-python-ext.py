"""Host half of sframe-python-ext: python3 through a C extension, to main."""

import os

from vmlib.pythoncheck import COMM, assert_reach, python_main, reach, reach_after_loader
from vmlib.stackcheck import USER_TOP, parse_perf_samples

# perf.data of each mode: stock kernel, the module with load --system's
# sidecars (none for the extension) and with the extension's too.
MODES = ("stock", "system", "sidecar")
LIMITS = {"sidecar": {"main_after_loader": (">=", 0.98), "main_from_python": (">=", 0.99)},
          "stock": {"main": ("<", 0.5)}}
EXTENSION = "pycallback.so"
# Share of the sidecar mode's samples that must hold a frame of the
# extension at every level of the descent: the workload spins at its leaf
# (pyrecurse.py: LEAF_ROUNDS), so nearly all of them do.
THROUGH_ALL_MIN = 0.5


def check(run):
    """Report each mode's reach; assert the sidecars', stock's and the crossings."""
    python, ranges = python_main()
    depth = int(run.metrics.get("callback_depth", "0"))
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
        if mode == "sidecar":
            check_crossings(run, mode, text, depth)


def check_crossings(run, mode, text, depth):
    """Assert that most samples hold depth frames of the extension."""
    through = total = 0
    for name, frames in parse_perf_samples(text):
        if name != COMM:
            continue
        total += 1
        through += sum(int(f.ip, 16) < USER_TOP and os.path.basename(f.dso) == EXTENSION
                       for f in frames) >= depth
    share = through / max(total, 1)
    run.metric(f"{mode}_through_all_pct", f"{100 * share:.1f}")
    verdict = (f"{mode}: {100 * share:.1f}% of the samples walked through all {depth} "
               f"frames of {EXTENSION}, want >= {100 * THROUGH_ALL_MIN:.0f}%")
    (run.passed if depth > 0 and share >= THROUGH_ALL_MIN else run.fail)(verdict)
