"""Host half of sframe-python313: python3.13 -X perf, named, and where it ends.

CPython 3.13's x86-64 trampoline (endbr64; sub $8, %rsp; call *%rcx;
add $8, %rsp; ret) keeps no frame record and has no table, and trixie's
python3.13 keeps no frame pointers: the stock walker cannot step past it;
the module steps over it by its epilogue (Documentation/design.rst,
"Frames at a plain epilogue").  What is asserted, per recording (EXPECT):

* named: the share of samples with a Python name (py::...), which the
  stock walker gets only when the leaf is a trampoline;
* main: the share reaching python3.13's main (machinecode's, through its
  tail call to Py_BytesMain), the issue's goal;
* py_levels: the mean number of Python names a sample carries, one per
  Python call on the stack (pyrecurse.py recurses DEPTH deep).

ends_at_trampoline, the share whose outermost user frame is a
trampoline (where the walk ended before the epilogue step), is measured.
"""

from vmlib.machinecode import main_frame_offsets
from vmlib.python313 import GUEST_ROOT, PROGRAM, program_path
from vmlib.stackcheck import (MIN_SAMPLES, USER_TOP, judge, mean_user_frames,
                              parse_perf_samples, samples_reaching)
from vmlib.util import cache_dir

COMM = "python3.13"
DSO = GUEST_ROOT + PROGRAM
# perf's names of the trampolines: py::FUNCTION:FILE.
PYTHON_NAME = "py::"
# recording -> {what: (comparison, bound on the share)}
EXPECT = {
    "stock": {"named": ("<", 0.10), "main": ("<", 0.10)},
    "served": {"named": (">=", 0.98), "main": (">=", 0.98)},
}
# recording -> the least mean of Python names a sample must carry
MIN_PY_LEVELS = {"served": 3.0}


def python_shares(perf_text):
    """Return ({named, ends_at_trampoline: count}, samples, Python names) of COMM."""
    counts, samples, names = {"named": 0, "ends_at_trampoline": 0}, 0, 0
    for comm, frames in parse_perf_samples(perf_text):
        if comm != COMM:
            continue
        samples += 1
        user = [f.sym for f in frames if int(f.ip, 16) < USER_TOP]
        named = sum(sym.startswith(PYTHON_NAME) for sym in user)
        names += named
        counts["named"] += named > 0
        counts["ends_at_trampoline"] += bool(user) and user[-1].startswith(PYTHON_NAME)
    return counts, samples, names


def check(run):
    """Each recording names Python and ends where EXPECT says."""
    ranges = main_frame_offsets(program_path(cache_dir()))
    for name, limits in EXPECT.items():
        perf = run.artefacts.get(f"{name}.perf")
        if perf is None:
            run.fail(f"{name}: no perf output from the guest")
            continue
        text = perf.decode(errors="replace")
        counts, samples, names = python_shares(text)
        counts["main"], _ = samples_reaching(text, COMM, DSO, ranges)
        run.metric(f"{name}_samples", str(samples))
        run.metric(f"{name}_user_frames", f"{mean_user_frames(text, COMM):.1f}")
        if samples < MIN_SAMPLES:
            run.fail(f"{name}: only {samples} samples of {COMM}")
            continue
        for what, count in counts.items():
            run.metric(f"{name}_{what}_pct", f"{100 * count / samples:.1f}")
        run.metric(f"{name}_py_levels", f"{names / samples:.1f}")
        if name in MIN_PY_LEVELS:
            verdict = (f"{name}: {names / samples:.1f} Python names a sample, "
                       f"want >= {MIN_PY_LEVELS[name]:.0f}")
            run.verdict(names / samples >= MIN_PY_LEVELS[name], verdict, verdict)
        for what, (op, bound) in limits.items():
            judge(run, f"{name}: {what}, of {samples} samples of {COMM},",
                  counts[what] / samples, op, bound)
