"""Host half of sframe-odirect: an O_DIRECT mapping caches no failure.

Whatever a read through an O_DIRECT file gives (an error, a short read:
the module of 2026-11-23 counted it "not an x86-64 ELF object"), the
file must not be refused: every "not loaded:" counter of stats stays 0,
after the O_DIRECT mapping and after the program ran.
"""

import re

from vmlib.stackcheck import check_patterns, check_recording

PROGRAM = "/mnt/odirect/deep"
NOT_LOADED = re.compile(r"^not loaded: (.+): (\d+)$", re.M)


def check(run):
    """Assert >= 99 % complete chains and no load failure counted."""
    # the copy that only ran normally: ext2 itself is no obstacle
    check_recording(run, "control", (">=", 0.99))
    check_patterns(run, {"chain": (">=", 0.99)})
    for state in ("odirect", "module"):
        stats = run.artefacts.get(f"{state}.stats")
        if stats is None:
            run.fail(f"{state}: no stats from the guest")
            continue
        failed = {reason: n for reason, n in NOT_LOADED.findall(stats.decode()) if n != "0"}
        run.metric(f"{state}_not_loaded",
                   ", ".join(f"{r}: {n}" for r, n in failed.items()) or "none")
        run.verdict(not failed, f"{state}: stats count no file not loaded",
                    f"{state}: stats count files not loaded: {failed}")
    files = run.artefacts.get("module.files", b"").decode(errors="replace")
    line = next((ln for ln in files.splitlines() if ln.startswith(f"{PROGRAM}: ")), None)
    run.metric("program_file_status", line[len(PROGRAM) + 2:] if line else "not listed")
