"""Host half of sframe-pac: signed return addresses walked to main.

perf (6.1, as Debian's arm64 perf) records LR with every -g sample on
arm64 and, where libdw can unwind the leaf from it, as it can in these
-mbranch-protection builds' CFI, inserts the leaf's caller after the leaf
as LR - 1 (perf script -D shows the kernel's chain without it).  arm64
code is 4-byte aligned: the kernel's walk never gives such an address, so
those frames are dropped (and counted) before the chains are judged.
"""

from vmlib.machinecode import disassembly, realise_artefacts, workload_path
from vmlib.stackcheck import PATTERNS, check_recording, drop_perf_lr_frames

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
        dropped = 0
        for pattern in PATTERNS:
            name = f"{build}-{pattern}.perf"
            if name in run.artefacts:
                text, n = drop_perf_lr_frames(run.artefacts[name].decode(errors="replace"))
                run.artefacts[name] = text.encode()
                dropped += n
        run.metric(f"{build}_perf_lr_frames_dropped", str(dropped))
        for pattern in PATTERNS:
            limit = (">=", 0.99) if pattern in COMPLETE else None
            check_recording(run, f"{build}-{pattern}", limit)
