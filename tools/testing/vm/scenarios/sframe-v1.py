"""Host half of sframe-v1: with the module, chains are complete."""

from vmlib.machinecode import check_callers_real, realise_artefacts, workload_path
from vmlib.stackcheck import check_patterns

# Patterns whose whole stack has SFrame (qsort and signal go through libc).
COMPLETE = ("chain", "recurse", "vla", "realign", "threads", "dlopen")


def check(run):
    """Assert >= 99 % complete chains where SFrame covers the whole stack."""
    realise_artefacts(run, workload_path("v1-binutils-2.40/deep", run.kernel))
    check_patterns(run, {p: (">=", 0.99) for p in COMPLETE})
    check_callers_real(run, {"/deep": workload_path("v1-binutils-2.40/deep", run.kernel),
                             "/libdeepso.so": workload_path("v1-binutils-2.40/libdeepso.so", run.kernel)})
