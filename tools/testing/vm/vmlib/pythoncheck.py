"""How many of Debian's python3 samples reach main, and the limits on it.

Shared by sframe-python (one process, three ways of unwinding) and
sframe-fork (forked workers with sidecars).  main's frames are found
without symbols (vmlib/machinecode.py: main_frame_offsets); a sample
reaches main when one of its python3 frames lies in them.
"""

import os

from vmlib.initramfs import DEBIAN_PYTHON
from vmlib.machinecode import main_frame_offsets
from vmlib.stackcheck import MIN_SAMPLES, judge, samples_reaching

# Which samples are measured: all of python3's, and those whose user-space
# leaf is in python3 itself (where only _start and _fini lie outside main).
KINDS = (("main", False), ("main_from_python", True))
# Samples taken before main (execve, ld.so relocating, IFUNC resolvers,
# the libraries' .init) or after it returned (_fini) cannot reach it in
# any mode.  In forked workers there are none of the first kind, so with
# sidecars all their samples must reach main at 90 %; those whose
# user-space leaf is in python itself, where only page faults in _start
# and _fini were outside main, at 99 %.
SIDECAR_LIMITS = {"main": (">=", 0.90), "main_from_python": (">=", 0.99)}
# A whole process, from execve on: its share of samples in the dynamic
# loader follows the cost of exec and mmap and varies between recordings
# (on the debug kernel 4 to 12 %, in every mode), so the bound on all
# samples applies to those taken once the loader is done (the libraries'
# initialisers and _fini still count against it).
SIDECAR_PROCESS_LIMITS = {"main_after_loader": (">=", 0.95),
                          "main_from_python": SIDECAR_LIMITS["main_from_python"]}
# python3's samples are those of this command name; its dynamic loader, as
# perf script names it.
COMM = os.path.basename(DEBIAN_PYTHON)
LOADER = "/lib64/ld-linux-x86-64.so.2"


def python_main():
    """Return (python3's real path, main's frame ranges in it)."""
    python = os.path.realpath(DEBIAN_PYTHON)
    return python, main_frame_offsets(python)


def reach(run, label, perf_text, python, ranges, tids=None):
    """Return {kind: fraction reaching main} of a run; None if too few samples.

    tids limits it to these threads.  Reports LABEL_KIND_pct and
    LABEL_KIND_samples.
    """
    result = {}
    for kind, leaf_in_dso in KINDS:
        reaching, samples = samples_reaching(perf_text, COMM, python, ranges, leaf_in_dso, tids)
        if samples < MIN_SAMPLES:
            run.fail(f"{label}: only {samples} samples for {kind}")
            return None
        result[kind] = reaching / samples
        run.metric(f"{label}_{kind}_pct", f"{100 * result[kind]:.1f}")
        run.metric(f"{label}_{kind}_samples", str(samples))
    return result


def reach_after_loader(run, label, perf_text, python, ranges):
    """Return the fraction of all samples reaching main, leaving out those
    whose user-space frames all lie in the dynamic loader (taken before main
    exists).  Reports LABEL_main_after_loader_pct.
    """
    reaching, samples = samples_reaching(perf_text, COMM, python, ranges,
                                         skip_only_in=LOADER)
    fraction = reaching / max(samples, 1)
    run.metric(f"{label}_main_after_loader_pct", f"{100 * fraction:.1f}")
    return fraction


def assert_reach(run, label, measured, limits):
    """Assert limits {kind: (">=" or "<", fraction)} on a reach() result."""
    for kind, (op, bound) in limits.items():
        judge(run, f"{label}: {kind}", measured[kind], op, bound)
