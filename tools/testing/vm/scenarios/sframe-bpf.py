"""Host half of sframe-bpf: BPF user stacks are complete with the module only."""

from vmlib.bpfcheck import check_stacks

# Without the module the stock walker follows frame pointers, which this
# build has not got: nearly no chain reaches main.  The bound shows that
# the check can fail, as baseline-nosframe does for perf.
LIMITS = {"stock": ("<", 0.10), "module": (">=", 0.99)}


def check(run):
    """Assert the chain's BPF stacks (weighted by count) against LIMITS."""
    check_stacks(run, "v3-binutils-2.47/deep", LIMITS, "BPF stacks")
