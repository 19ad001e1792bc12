"""Host half of sframe-project: complete chains, 41-deep recursion included."""

import os

from vmlib.machinecode import project_workloads_dir, realise_artefacts
from vmlib.stackcheck import check_patterns

COMPLETE = ("chain", "recurse", "vla", "realign", "threads", "dlopen")


def check(run):
    """Assert >= 99 % complete chains where SFrame covers the whole stack."""
    realise_artefacts(run, os.path.join(project_workloads_dir(), "sframe", "deep"))
    check_patterns(run, {p: (">=", 0.99) for p in COMPLETE})
