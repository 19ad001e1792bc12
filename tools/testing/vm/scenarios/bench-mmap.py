"""Host half of bench-mmap: the mmap cost figures are there and plausible."""

MODES = ("exec", "dlopen")
# A regression tripwire, not a performance claim: under TCG one exec costs
# milliseconds and the noise between runs is tens of percent.  Only an
# order-of-magnitude slowdown (say, a section read again at every mapping)
# should fail here; the figures themselves are reported as metrics.
MAX_RATIO = 3.0


def check(run):
    """Assert positive timings and a module/stock ratio below MAX_RATIO."""
    for mode in MODES:
        try:
            stock = float(run.metrics[f"{mode}_us_stock"])
            module = float(run.metrics[f"{mode}_us_module"])
        except (KeyError, ValueError):
            run.fail(f"{mode}: no timings from the guest")
            continue
        if stock <= 0 or module <= 0:
            run.fail(f"{mode}: timings not positive ({stock} us, {module} us)")
        elif module / stock < MAX_RATIO:
            run.passed(f"{mode}: {module} us with the module, {stock} us without "
                       f"(ratio {module / stock:.2f} < {MAX_RATIO})")
        else:
            run.fail(f"{mode}: {module} us with the module, {stock} us without: "
                     f"ratio {module / stock:.2f} >= {MAX_RATIO}")
