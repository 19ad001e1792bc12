"""Host half of baseline-nosframe: without the module chains are truncated."""

from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import check_patterns


def check(run):
    """Assert that < 10 % of the chain pattern's samples reach main."""
    realise_artefacts(run, workload_path("nosframe/deep"))
    check_patterns(run, {"chain": ("<", 0.10)})
