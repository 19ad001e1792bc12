"""Host half of sframe-python: Debian's python3 unwound to main, three ways."""

import os
import re

from vmlib.initramfs import DEBIAN_PYTHON
from vmlib.machinecode import main_frame_offsets
from vmlib.stackcheck import MIN_SAMPLES, parse_perf_script, samples_reaching

# perf.data of each mode: stock kernel (-g, frame pointers), perf's DWARF
# unwinder (stock kernel too) and -g with load --system's sidecars.
MODES = ("stock", "dwarf", "sidecar")
# Samples taken before main (execve, ld.so relocating, IFUNC resolvers,
# the libraries' .init) or after it returned (_fini) cannot reach it in
# any mode: 1.5 % of a 2 s run on the Debian kernels under TCG, 4 % on the
# debug kernel, whose exec and mmap are slower.  So all samples must reach
# main at 90 %; those whose user-space leaf is in python itself, where
# only page faults in _start and _fini were outside main, at 99 %.
LIMITS = {("sidecar", "main"): (">=", 0.90), ("sidecar", "main_from_python"): (">=", 0.99),
          ("stock", "main"): ("<", 0.5)}
# How far below DWARF's fraction the sidecars' may fall: start-up samples
# vary by a few between runs.
DWARF_SLACK = 0.02
SUMMARY = re.compile(
    r"(?P<objects>\d+) ELF objects: (?P<sidecars>\d+) sidecars loaded "
    r"\((?P<fdes>\d+) FDEs, (?P<bytes>\d+) bytes\), (?P<own_sframe>\d+) have their own "
    r"SFrame, (?P<no_eh_frame>\d+) without usable \.eh_frame, (?P<rejected>\d+) rejected, "
    r"(?P<not_loadable>\d+) not loadable; (?P<seconds>[\d.]+) s")


def check(run):
    """Report each mode's reach and size; assert the sidecars' and stock's."""
    python = os.path.realpath(DEBIAN_PYTHON)
    ranges = main_frame_offsets(python)
    run.metric("main_frames", " ".join(f"{a:#x}-{b:#x}" for a, b in ranges))
    measured = {mode: measure(run, mode, python, ranges) for mode in MODES}
    for (mode, what), (op, bound) in LIMITS.items():
        if not measured[mode]:
            continue
        frac = measured[mode][what]
        verdict = f"{mode}: {what} {100 * frac:.1f}%, want {op} {100 * bound:.0f}%"
        (run.passed if (frac >= bound) == (op == ">=") else run.fail)(verdict)
    if measured["sidecar"] and measured["dwarf"]:
        compare_with_dwarf(run, measured["sidecar"], measured["dwarf"])
    check_load_system(run, python)


def measure(run, mode, python, ranges):
    """Return one mode's fractions reaching main and perf.data bytes per sample.

    Keys: main (all samples of python3), main_from_python (those whose
    user-space leaf is in python3 itself), bytes_per_sample.
    """
    perf, size = run.artefacts.get(f"{mode}.perf"), run.metrics.get(f"{mode}_data_bytes")
    if perf is None or size is None:
        run.fail(f"{mode}: no perf output")
        return None
    text = perf.decode(errors="replace")
    comm = os.path.basename(DEBIAN_PYTHON)
    result = {"bytes_per_sample": int(size) / max(len(parse_perf_script(text)), 1)}
    for what, leaf_in_dso in (("main", False), ("main_from_python", True)):
        reaching, samples = samples_reaching(text, comm, python, ranges, leaf_in_dso)
        if samples < MIN_SAMPLES:
            run.fail(f"{mode}: only {samples} samples for {what}")
            return None
        result[what] = reaching / samples
        run.metric(f"{mode}_{what}_pct", f"{100 * result[what]:.1f}")
        run.metric(f"{mode}_{what}_samples", str(samples))
    run.metric(f"{mode}_bytes_per_sample", f"{result['bytes_per_sample']:.0f}")
    return result


def compare_with_dwarf(run, sidecar, dwarf):
    """Sidecars reach main as often as DWARF does, in smaller samples."""
    if sidecar["main"] >= dwarf["main"] - DWARF_SLACK:
        run.passed("sidecars reach main as often as DWARF does")
    else:
        run.fail(f"sidecars reach main less often than DWARF "
                 f"({100 * sidecar['main']:.1f}% < {100 * dwarf['main']:.1f}%)")
    if sidecar["bytes_per_sample"] < dwarf["bytes_per_sample"]:
        run.passed("sidecar samples are smaller than DWARF ones")
    else:
        run.fail("sidecar samples are not smaller than DWARF ones")


def check_load_system(run, python):
    """Report load --system's summary; python, libc and ld.so got sidecars."""
    summary = SUMMARY.search(run.artefacts.get("load-system.txt", b"").decode(errors="replace"))
    if summary is None:
        run.fail("no summary line from sframectl load --system")
    else:
        for key, value in summary.groupdict().items():
            run.metric(f"load_system_{key}", value)
    status = run.artefacts.get("status.txt", b"").decode(errors="replace")
    loaded = re.findall(r"^(/\S+): v\d+,", status, re.M)
    for name in (python, "/libc.so.6", "/ld-linux-x86-64.so.2"):
        if any(path == name or path.endswith(name) for path in loaded):
            run.passed(f"status lists a sidecar for {name}")
        else:
            run.fail(f"status lists no sidecar for {name}")
    if status.strip():
        run.metric("status_total", status.strip().splitlines()[-1])
    if run.metrics.get("sidecars_rejected") == "0":
        run.passed("the module rejected no sidecar")
    else:
        run.fail(f"the module rejected {run.metrics.get('sidecars_rejected')} sidecars")
