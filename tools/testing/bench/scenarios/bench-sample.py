"""Host half of bench-sample: the mean walk must not grow with the CPUs."""

# A tripwire, not a claim: under TCG one vCPU's timing moves by tens of
# percent between runs.  A lock or a shared cache line on the sample path
# shows as a multiple once two CPUs walk at once.
MAX_RATIO = 1.5


def check(run):
    """Report ns per walk on one and two CPUs and their ratio."""
    try:
        one = int(run.metrics["cpu1_ns_per_walk"])
        two = int(run.metrics["cpu2_ns_per_walk"])
    except (KeyError, ValueError):
        run.fail("no ns per walk from the guest")
        return
    ratio = two / one if one else float("inf")
    run.metric("two_to_one_cpu_ratio", f"{ratio:.2f}")
    if ratio < MAX_RATIO:
        run.passed(f"{two} ns per walk on two CPUs, {one} on one (ratio {ratio:.2f} "
                   f"< {MAX_RATIO})")
    else:
        run.fail(f"{two} ns per walk on two CPUs, {one} on one: ratio {ratio:.2f} "
                 f">= {MAX_RATIO}")
