"""Host half of bench-callgraph: bytes per sample and completeness, both ways."""

import os

from vmlib.machinecode import project_workloads_dir, realised_expect
from vmlib.stackcheck import completeness, parse_perf_script


def check(run):
    """Report both modes; assert SFrame complete and smaller per sample."""
    expect = run.artefacts.get("recurse.expect")
    if expect is None:
        run.fail("no expect line from the guest")
        return
    expect = realised_expect(expect.decode(),
                             os.path.join(project_workloads_dir(), "sframe", "deep"))
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
        run.metric(f"{mode}_bytes_per_sample", f"{per_sample[mode]:.0f}")
        run.metric(f"{mode}_complete_pct", f"{100 * frac[mode]:.1f}")
    run.metric("dwarf_to_sframe_bytes_ratio", f"{per_sample['dwarf'] / per_sample['sframe']:.1f}")
    if frac["sframe"] >= 0.99:
        run.passed(f"SFrame {100 * frac['sframe']:.1f}% complete")
    else:
        run.fail(f"SFrame only {100 * frac['sframe']:.1f}% complete")
    if per_sample["sframe"] < per_sample["dwarf"]:
        run.passed("SFrame samples are smaller than DWARF ones")
    else:
        run.fail("SFrame samples are not smaller than DWARF ones")
