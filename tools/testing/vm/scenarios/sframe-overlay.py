"""Host half of sframe-overlay: stacks through an overlayfs mount, never mis-bound."""

import os

from vmlib.machinecode import project_workloads_dir, realised_expect, workload_path
from vmlib.stackcheck import check_chain_recordings

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
    check_chain_recordings(run, {name: (op, bound) for name, (_, op, bound) in EXPECT.items()},
                           lambda name, text: realised_expect(text, binaries[EXPECT[name][0]]))
