"""Host half of sframe-hostile-flood: root's stacks complete during the flood."""

import os

from vmlib.machinecode import project_workloads_dir, realise_artefacts
from vmlib.stackcheck import check_patterns


def check(run):
    """Root's chain, recorded while the flood holds its maps, >= 99 % complete."""
    realise_artefacts(run, os.path.join(project_workloads_dir(), "sframe", "deep"))
    check_patterns(run, {"chain": (">=", 0.99)})
