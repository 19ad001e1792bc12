"""Host half of sframe-python: Debian's python3 unwound to main, three ways."""

import re

from vmlib.pythoncheck import (SIDECAR_PROCESS_LIMITS, assert_reach, python_main, reach,
                               reach_after_loader)
from vmlib.stackcheck import parse_perf_script

# perf.data of each mode: stock kernel (-g, frame pointers), perf's DWARF
# unwinder (stock kernel too) and -g with load --system's sidecars.
MODES = ("stock", "dwarf", "sidecar")
LIMITS = {"sidecar": SIDECAR_PROCESS_LIMITS, "stock": {"main": ("<", 0.5)}}
# How far below DWARF's fraction the sidecars' may fall.  Compared without
# the samples whose user frames all lie in the dynamic loader: taken before
# main exists, no unwinder can reach it from them, and their share follows
# the cost of exec and mmap, which varies between runs (on the debug
# kernel, 4.1 % of one recording and 6.8 % of the next).
DWARF_SLACK = 0.02
SUMMARY = re.compile(
    r"(?P<objects>\d+) ELF objects: (?P<sidecars>\d+) sidecars loaded "
    r"\((?P<fdes>\d+) FDEs, (?P<bytes>\d+) bytes\), (?P<own_sframe>\d+) have their own "
    r"SFrame, (?P<no_eh_frame>\d+) without usable \.eh_frame, (?P<rejected>\d+) rejected, "
    r"(?P<not_loadable>\d+) not loadable; (?P<seconds>[\d.]+) s")


def check(run):
    """Report each mode's reach and size; assert the sidecars' and stock's."""
    python, ranges = python_main()
    run.metric("main_frames", " ".join(f"{a:#x}-{b:#x}" for a, b in ranges))
    measured = {mode: measure(run, mode, python, ranges) for mode in MODES}
    for mode, limits in LIMITS.items():
        if measured[mode]:
            assert_reach(run, mode, measured[mode], limits)
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
    result = reach(run, mode, text, python, ranges)
    if result is None:
        return None
    result["main_after_loader"] = reach_after_loader(run, mode, text, python, ranges)
    result["bytes_per_sample"] = int(size) / max(len(parse_perf_script(text)), 1)
    run.metric(f"{mode}_bytes_per_sample", f"{result['bytes_per_sample']:.0f}")
    return result


def compare_with_dwarf(run, sidecar, dwarf):
    """Sidecars reach main as often as DWARF does, in smaller samples."""
    kind = "main_after_loader"
    if sidecar[kind] >= dwarf[kind] - DWARF_SLACK:
        run.passed("sidecars reach main as often as DWARF does, once the "
                   "loader is done")
    else:
        run.fail(f"sidecars reach main less often than DWARF once the loader "
                 f"is done ({100 * sidecar[kind]:.1f}% < {100 * dwarf[kind]:.1f}%)")
    run.verdict(sidecar["bytes_per_sample"] < dwarf["bytes_per_sample"],
                "sidecar samples are smaller than DWARF ones",
                "sidecar samples are not smaller than DWARF ones")


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
        run.verdict(any(path == name or path.endswith(name) for path in loaded),
                    f"status lists a sidecar for {name}",
                    f"status lists no sidecar for {name}")
    if status.strip():
        run.metric("status_total", status.strip().splitlines()[-1])
    run.verdict(run.metrics.get("sidecars_rejected") == "0", "the module rejected no sidecar",
                f"the module rejected {run.metrics.get('sidecars_rejected')} sidecars")
