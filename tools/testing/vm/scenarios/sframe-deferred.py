"""Host half of sframe-deferred: deferred perf callchains with the module."""

from vmlib.bpfcheck import check_stacks

# The stock deferred unwinder follows frame pointers only (7.2 has no
# SFrame in unwind_user), which this build has not got.
LIMITS = {"stock": ("<", 0.10), "module": (">=", 0.99)}


def check(run):
    """Assert the chain's deferred callchains (weighted) against LIMITS."""
    check_stacks(run, "v3-binutils-2.47/deep", LIMITS, "deferred callchains")
    hooked = run.metrics.get("module_deferred_hooked")
    run.verdict(hooked == "1", "the module hooked unwind_user()",
                f"the module did not hook unwind_user() (deferred={hooked})")
