"""Host half of sframe-running: a process older than the module unwinds."""

from vmlib.stackcheck import check_patterns


def check(run):
    """Assert >= 99 % complete chains for the pre-existing process."""
    check_patterns(run, {"chain": (">=", 0.99)})
