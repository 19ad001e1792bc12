"""Host half of bench-mmap: the mmap cost figures are there and plausible."""

NAMES = ("exec_sframe", "exec_nosframe", "dlopen_sframe", "dlopen_nosframe",
         "forkdl_sframe", "forkdl_nosframe")
CONFIGS = ("module", "service")
# A regression tripwire, not a performance claim: under TCG one exec costs
# milliseconds and the noise between runs is tens of percent.  Only an
# order-of-magnitude slowdown (say, a section read again at every mapping)
# should fail here; the figures themselves are reported as metrics.
MAX_RATIO = 3.0


def check(run):
    """Assert positive timings and a module/stock ratio below MAX_RATIO."""
    for name in NAMES:
        for config in CONFIGS:
            try:
                stock = float(run.metrics[f"{name}_us_stock"])
                us = float(run.metrics[f"{name}_us_{config}"])
            except (KeyError, ValueError):
                run.fail(f"{name}, {config}: no timings from the guest")
                continue
            what = f"{name}: {us} us with the {config}, {stock} us without"
            if stock <= 0 or us <= 0:
                run.fail(f"{what}: not positive")
            else:
                run.verdict(us / stock < MAX_RATIO,
                            f"{what} (ratio {us / stock:.2f} < {MAX_RATIO})",
                            f"{what}: ratio {us / stock:.2f} >= {MAX_RATIO}")
