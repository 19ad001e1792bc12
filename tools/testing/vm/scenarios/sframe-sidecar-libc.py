"""Host half of sframe-sidecar-libc: libc's sidecars complete qsort and signal."""

import re

from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import check_patterns, check_recording

# the module's counters at the end: libc's and ld.so's sidecars loaded,
# ld.so's for libc refused (-ESTALE)
WANT_STATS = {"sidecars_loaded": 2, "sidecars_rejected": 1}


def check(run):
    """Short without the sidecars, >= 99 % complete with them, counted."""
    realise_artefacts(run, workload_path("v3-binutils-2.47/deep", run.kernel))
    for pattern in ("qsort", "signal"):
        check_recording(run, f"{pattern}-bare", ("<", 0.5))
    check_patterns(run, {"qsort": (">=", 0.99), "signal": (">=", 0.99)})
    status = run.artefacts.get("status.txt")
    text = status.decode() if status else ""
    for name in ("libc.so.6", "ld-linux-aarch64.so.1"):
        run.verdict(name in text, f"status lists {name}", f"status does not list {name}")
    stats = (run.artefacts.get("module.stats") or b"").decode()
    for counter, want in WANT_STATS.items():
        m = re.search(rf"^{counter}: (\d+)$", stats, re.M)
        run.verdict(m and int(m.group(1)) == want, f"stats: {counter} {want}",
                    f"stats: {counter} {m.group(1) if m else 'missing'}, want {want}")
