"""Host half of sframe-storm: the steady workload's stacks stay complete."""

import os

from vmlib.machinecode import project_workloads_dir, realised_expect
from vmlib.stackcheck import MIN_SAMPLES, completeness, samples_outside

# Around each module reload the steady workload has no section: from rmmod
# until the guest saw its section again, plus this much for the difference
# between perf's clock and the guest's /proc/uptime.
CLOCK_SLACK_S = 0.5


def check(run):
    """>= 99 % of the steady workload's samples outside the reloads complete."""
    need = ("steady.expect", "steady.perf", "windows")
    missing = [n for n in need if n not in run.artefacts]
    if missing:
        run.fail(f"no {', '.join(missing)} from the guest")
        return
    windows = []
    for line in run.artefacts["windows"].decode().split("\n"):
        if line.strip():
            start, end = (int(v) / 1000 for v in line.split())
            windows.append((start - CLOCK_SLACK_S, end + CLOCK_SLACK_S))
    binary = os.path.join(project_workloads_dir(), "sframe", "deep")
    expect = realised_expect(run.artefacts["steady.expect"].decode(), binary)
    try:
        perf, dropped = samples_outside(run.artefacts["steady.perf"].decode(errors="replace"),
                                        windows)
    except ValueError as e:
        run.fail(str(e))
        return
    complete, eligible = completeness(expect, perf)
    frac = complete / eligible if eligible else 0.0
    run.metric("steady_samples", str(eligible))
    run.metric("steady_samples_in_reloads", str(dropped))
    run.metric("steady_complete_pct", f"{100 * frac:.1f}")
    if eligible < MIN_SAMPLES:
        run.fail(f"steady workload: only {eligible} samples in its hot leaf")
    elif frac >= 0.99:
        run.passed(f"steady workload {100 * frac:.1f}% complete over {eligible} samples")
    else:
        run.fail(f"steady workload {100 * frac:.1f}% complete over {eligible} samples, "
                 "want >= 99%")
