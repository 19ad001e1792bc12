"""Host half of baseline-fp: frame pointers must give complete chains."""

from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import check_patterns


def check(run):
    """Assert that >= 90 % of the chain pattern's samples reach main."""
    realise_artefacts(run, workload_path("baseline/deep-fp"))
    check_patterns(run, {"chain": (">=", 0.90)})
