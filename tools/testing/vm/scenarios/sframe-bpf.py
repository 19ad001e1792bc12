"""Host half of sframe-bpf: BPF user stacks are complete with the module only."""

from vmlib.bpfcheck import Dump
from vmlib.ftracecheck import Symbols
from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import MIN_SAMPLES, completeness

GUEST_BINARY = "/workloads/v3-binutils-2.47/deep"
# Without the module the stock walker follows frame pointers, which this
# build has not got: nearly no chain reaches main.  The bound shows that
# the check can fail, as baseline-nosframe does for perf.
LIMITS = {"stock": ("<", 0.10), "module": (">=", 0.99)}


def check(run):
    """Assert the chain's BPF stacks (weighted by count) against LIMITS."""
    binary = workload_path("v3-binutils-2.47/deep")
    realise_artefacts(run, binary)
    symbols = {GUEST_BINARY: Symbols(binary)}
    for label, (op, bound) in LIMITS.items():
        expect = run.artefacts.get(f"{label}.expect")
        stacks = run.artefacts.get(f"{label}.stacks")
        if expect is None or stacks is None:
            run.fail(f"{label}: no BPF stacks from the guest")
            continue
        dump = Dump(stacks.decode(errors="replace"))
        complete, eligible = completeness(expect.decode(),
                                          dump.to_perf_script("deep", symbols))
        frac = complete / eligible if eligible else 0.0
        run.metric(f"{label}_complete_pct", f"{100 * frac:.1f}")
        run.metric(f"{label}_samples", str(eligible))
        run.metric(f"{label}_refused_samples", str(dump.refused()))
        if eligible < MIN_SAMPLES:
            run.fail(f"{label}: only {eligible} BPF stacks in the hot leaf")
        elif (frac >= bound) == (op == ">="):
            run.passed(f"{label}: {100 * frac:.1f}% {op} {100 * bound:.0f}% of BPF stacks "
                       "complete")
        else:
            run.fail(f"{label}: {100 * frac:.1f}% of BPF stacks complete, "
                     f"want {op} {100 * bound:.0f}%")
