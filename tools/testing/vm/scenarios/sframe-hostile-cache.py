"""Host half of sframe-hostile-cache: the doctored copy's sidecar never reaches the real library."""

from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import check_patterns


def check(run):
    """The real library's users unwind completely although a copy with its
    build ID and wrong CFA rules was mapped first."""
    realise_artefacts(run, workload_path("nosframe/deep"))
    check_patterns(run, {"dlopen": (">=", 0.99)})
