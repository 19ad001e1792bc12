"""Host half of sframe-fp: frame pointers still work with the module."""

from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import check_patterns

# What the stock kernel completes on this build (baseline-fp): all of them.
COMPLETE = ("chain", "recurse", "vla", "realign", "threads", "dlopen")


def check(run):
    """Assert the frame-pointer fallback completes what stock completes."""
    realise_artefacts(run, workload_path("baseline/deep-fp", run.kernel))
    check_patterns(run, {p: (">=", 0.99) for p in COMPLETE})
