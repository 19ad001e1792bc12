"""Host half of sframe-sidecar: sidecars make a program without SFrame unwind."""

from vmlib.kernels import arch_of
from vmlib.machinecode import realise_artefacts, realised_expect, workload_path
from vmlib.stackcheck import PATTERNS, check_chain_recordings, check_patterns

LOADERS = {"amd64": "ld-linux-x86-64.so.2", "arm64": "ld-linux-aarch64.so.1"}


def check(run):
    """Every pattern complete with sidecars; bad input changed nothing."""
    binary = workload_path("nosframe/deep", run.kernel)
    realise_artefacts(run, binary)
    check_patterns(run, {p: (">=", 0.99) for p in PATTERNS})
    status = run.artefacts.get("status.txt")
    if status is None:
        run.fail("no sframectl status output")
    else:
        text = status.decode()
        for name in ("/workloads/nosframe/deep", "libdeepso.so", "libc.so.6",
                     LOADERS[arch_of(run.kernel)]):
            run.verdict(name in text, f"status lists {name}", f"status does not list {name}")
        totals = [line for line in text.splitlines() if line.startswith("total:")]
        run.metric("sidecar_status_total", totals[-1] if totals else "none")
    check_chain_recordings(run, {"after-bad": (">=", 0.99), "unloaded": ("<", 0.5)},
                           lambda _, text: realised_expect(text, binary))
