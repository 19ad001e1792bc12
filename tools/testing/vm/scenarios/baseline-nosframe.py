"""Host half of baseline-nosframe: without the module chains are truncated."""

from vmlib.stackcheck import check_patterns


def check(run):
    """Assert that < 10 % of the chain pattern's samples reach main."""
    check_patterns(run, {"chain": ("<", 0.10)})
