"""Host half of sframe-fill: a static binary's gaps filled by a sidecar."""

import re
import subprocess

from vmlib.machinecode import check_callers_real, realise_artefacts, workload_path
from vmlib.stackcheck import check_recording

STATIC = "v3-binutils-2.47/deep-static"
DYNAMIC = "v3-binutils-2.47/deep"


def defined_symbols(binary):
    """Names of the functions binary defines."""
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tTwW"}


def libc_frames_marked(perf_text, libc_syms):
    """perf_text with the static binary's C library frames shown as libc's.

    The judge knows libc frames by their object (libc.so.6); linked
    statically they are in the program's file, and are told apart by
    name: functions the dynamic build of the program does not define.
    """
    def mark(match):
        if match.group(2) in libc_syms:
            return f"{match.group(1)}{match.group(2)} (libc.so.6)"
        return match.group(0)
    return re.sub(r"^(\s+[0-9a-f]+ )(\S+) \(\S*/deep-static\)$", mark,
                  perf_text, flags=re.M)


def check(run):
    """Without the fill, qsort stops in libc; with it, both reach main."""
    static = workload_path(STATIC)
    libc_syms = defined_symbols(static) - defined_symbols(workload_path(DYNAMIC))
    recordings = [name for name in ("own-qsort", "qsort", "chain")
                  if f"{name}.perf" in run.artefacts]
    # Every caller the module reports is in the program, after a call.
    # Without the fill the walk leaves the program's own section in libc,
    # whose code keeps no frame pointer: the frame-pointer floor must then
    # stop, not report the words RBP points at (the stock walker's, and
    # the module's before it checked, were data: "[unknown]" callers).
    check_callers_real(run, {"/deep-static": static}, recordings, unknown_invented=True)
    for name in recordings:
        run.artefacts[f"{name}.perf"] = libc_frames_marked(
            run.artefacts[f"{name}.perf"].decode(), libc_syms).encode()
    realise_artefacts(run, static)
    check_recording(run, "own-qsort", ("<", 0.5))
    check_recording(run, "qsort", (">=", 0.99))
    check_recording(run, "chain", (">=", 0.99))
