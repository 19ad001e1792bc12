"""Host half of sframe-pac: signed return addresses walked to main."""

from vmlib.machinecode import disassembly, realise_artefacts, workload_path
from vmlib.stackcheck import PATTERNS, check_recording

# recording prefix: the PAC build; what must be complete is what sframe-v1
# and -v3 require (qsort and signal go through libc, measured only)
BUILDS = {"v1": "v1-pac-binutils-2.40/deep", "v3": "v3-pac-binutils-2.47/deep"}
COMPLETE = ("chain", "recurse", "vla", "realign", "threads", "dlopen")


def check(run):
    """Assert the builds sign return addresses and their chains are complete."""
    for build, relative in BUILDS.items():
        binary = workload_path(relative, run.kernel)
        if "paciasp" not in disassembly(binary):
            run.fail(f"{relative} signs no return address (no paciasp)")
        realise_artefacts(run, binary, f"{build}-")
        for pattern in PATTERNS:
            limit = (">=", 0.99) if pattern in COMPLETE else None
            check_recording(run, f"{build}-{pattern}", limit)
