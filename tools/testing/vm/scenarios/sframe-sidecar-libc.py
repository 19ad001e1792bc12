"""Host half of sframe-sidecar-libc: libc's sidecars complete qsort and signal."""

from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.scenario import module_stat
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
    for counter, want in WANT_STATS.items():
        got = module_stat(run.artefacts, counter)
        run.verdict(got == want, f"stats: {counter} {want}",
                    f"stats: {counter} {got if got is not None else 'missing'}, want {want}")
