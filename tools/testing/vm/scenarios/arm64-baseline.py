"""Host half of arm64-baseline: frame records give complete chains on arm64.

The frame-pointer build must reach main in >= 90 % of the chain pattern's
samples; every other pattern and the build without frame pointers are
measured (fp-PATTERN_complete_pct, nofp-...).  What the kernel offers a
module becomes metrics too: per function of offers.txt whether kallsyms
names it and ftrace can trace it, and the headers' ftrace and user stack
trace options.
"""

from vmlib.kernels import headers_config
from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import PATTERNS, check_recording

# recording prefix: the committed arm64 build (tools/testing/workloads/aarch64)
BUILDS = {"fp": "baseline/deep-fp", "nofp": "nosframe/deep"}
CONFIGS = ["CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_DYNAMIC_FTRACE_WITH_ARGS",
           "CONFIG_USER_STACKTRACE_SUPPORT"]


def check(run):
    """Assert the frame-pointer chain; measure the rest; report the offers."""
    for build, binary in BUILDS.items():
        realise_artefacts(run, workload_path(binary, run.kernel), f"{build}-")
        for pattern in PATTERNS:
            limit = (">=", 0.90) if (build, pattern) == ("fp", "chain") else None
            check_recording(run, f"{build}-{pattern}", limit)
    offers = run.artefacts.get("offers.txt")
    if offers is None:
        run.fail("the guest sent no offers.txt")
    else:
        for line in offers.decode().splitlines():
            func, *fields = line.split()
            for field in fields:
                key, _, val = field.partition("=")
                run.metric(f"{func}_{key}", val.rstrip(",") or "none")
    config = headers_config(run.context["kdir"])
    for option in CONFIGS:
        run.metric(option, config.get(option, "n"))
