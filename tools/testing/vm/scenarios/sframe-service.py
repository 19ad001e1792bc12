"""Host half of sframe-service: sidecars the service supplied make stacks complete."""

from vmlib.machinecode import realise_artefacts, realised_expect, workload_path
from vmlib.stackcheck import PATTERNS, check_chain_recordings, check_patterns


def check(run):
    """Every pattern complete with the service's sidecars, after its restart,
    and with sidecars released and loaded again from its cache."""
    binary = workload_path("nosframe/deep")
    realise_artefacts(run, binary)
    check_patterns(run, {p: (">=", 0.99) for p in PATTERNS})
    check_chain_recordings(run, {"restart": (">=", 0.99), "released": (">=", 0.99)},
                           lambda _, text: realised_expect(text, binary))
