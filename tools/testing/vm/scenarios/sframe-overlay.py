"""Host half of sframe-overlay: stacks through an overlayfs mount, never mis-bound."""

import os

from vmlib.machinecode import project_workloads_dir, realised_expect, workload_path
from vmlib.stackcheck import completeness

# recording -> (the binary that ran, comparison, bound on complete chains)
EXPECT = {
    "own": ("project", ">=", 0.99),
    "none": ("nosframe", "<", 0.5),
    "via-lower": ("nosframe", ">=", 0.99),
    "via-overlay": ("nosframe", ">=", 0.99),
    "replaced": ("project", ">=", 0.99),
    "lower-after": ("nosframe", ">=", 0.99),
}


def check(run):
    """Each recording of the chain pattern is as complete as its binding allows."""
    binaries = {"project": os.path.join(project_workloads_dir(), "sframe", "deep"),
                "nosframe": workload_path("nosframe/deep")}
    for name, (which, op, bound) in EXPECT.items():
        expect, perf = run.artefacts.get(f"{name}.expect"), run.artefacts.get(f"{name}.perf")
        if expect is None or perf is None:
            run.fail(f"{name}: no perf output")
            continue
        complete, eligible = completeness(realised_expect(expect.decode(), binaries[which]),
                                          perf.decode(errors="replace"))
        frac = complete / eligible if eligible else 0.0
        run.metric(f"{name}_chain_complete_pct", f"{100 * frac:.1f}")
        if eligible and (frac >= bound) == (op == ">="):
            run.passed(f"{name}: chain {100 * frac:.1f}% {op} {100 * bound:.0f}% "
                       f"of {eligible} samples")
        else:
            run.fail(f"{name}: chain {100 * frac:.1f}% of {eligible}, "
                     f"want {op} {100 * bound:.0f}%")
