"""Host half of bench-callgraph: bytes per sample and completeness, both ways."""

import re

from vmlib.machinecode import guest_workload_path, realised_expect
from vmlib.stackcheck import completeness, parse_perf_script

# `perf version --build-options` lines of the DWARF unwinders --call-graph dwarf can use
DWARF_UNWINDERS = ("libdw-dwarf-unwind", "libunwind")


def dwarf_unwinders(build_options):
    """Return the DWARF unwinders a perf's build options say it has."""
    return [name for name in DWARF_UNWINDERS
            if re.search(rf"^\s*{name}: \[ on\s*\]", build_options, re.M)]


def check(run):
    """Report both modes; assert SFrame complete and smaller per sample."""
    expect = run.artefacts.get("recurse.expect")
    workload = run.artefacts.get("workload")
    if expect is None or workload is None:
        run.fail("no expect line or workload from the guest")
        return
    unwinders = dwarf_unwinders(run.artefacts.get("perf-build-options", b"").decode())
    run.metric("perf_dwarf_unwinders", ",".join(unwinders) or "none")
    if not unwinders:
        run.fail("the guest's perf has no DWARF unwinder (perf version --build-options)")
    expect = realised_expect(expect.decode(),
                             guest_workload_path(workload.decode().strip(), run.kernel))
    per_sample, frac = {}, {}
    for mode in ("sframe", "dwarf"):
        perf = run.artefacts.get(f"{mode}.perf")
        size = run.metrics.get(f"{mode}_data_bytes")
        if perf is None or size is None:
            run.fail(f"{mode}: no perf output")
            return
        text = perf.decode(errors="replace")
        samples = len(parse_perf_script(text))
        complete, eligible = completeness(expect, text)
        per_sample[mode] = int(size) / max(samples, 1)
        frac[mode] = complete / eligible if eligible else 0.0
        run.metric(f"{mode}_samples", samples)
        run.metric(f"{mode}_leaf_samples", eligible)
        run.metric(f"{mode}_bytes_per_sample", f"{per_sample[mode]:.0f}")
        run.metric(f"{mode}_complete_pct", f"{100 * frac[mode]:.1f}")
    run.metric("dwarf_to_sframe_bytes_ratio", f"{per_sample['dwarf'] / per_sample['sframe']:.1f}")
    run.verdict(frac["sframe"] >= 0.99, f"SFrame {100 * frac['sframe']:.1f}% complete",
                f"SFrame only {100 * frac['sframe']:.1f}% complete")
    run.verdict(per_sample["sframe"] < per_sample["dwarf"],
                "SFrame samples are smaller than DWARF ones",
                "SFrame samples are not smaller than DWARF ones")
