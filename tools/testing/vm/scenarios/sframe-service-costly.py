"""Host half of sframe-service-costly: a program served while a costly file
is translated has complete stacks."""

from vmlib.machinecode import realised_expect, workload_path
from vmlib.stackcheck import check_chain_recordings


def check(run):
    """The chain pattern, recorded while the costly file was translated."""
    binary = workload_path("nosframe/deep")
    check_chain_recordings(run, {"costly": (">=", 0.99)},
                           lambda _, text: realised_expect(text, binary))
