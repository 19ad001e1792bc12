"""Host half of sframe-sidecar: sidecars make a program without SFrame unwind."""

from vmlib.machinecode import realise_artefacts, realised_expect, workload_path
from vmlib.stackcheck import PATTERNS, check_patterns, completeness


def check(run):
    """Every pattern complete with sidecars; bad input changed nothing."""
    binary = workload_path("nosframe/deep")
    realise_artefacts(run, binary)
    check_patterns(run, {p: (">=", 0.99) for p in PATTERNS})
    status = run.artefacts.get("status.txt")
    if status is None:
        run.fail("no sframectl status output")
    else:
        text = status.decode()
        for name in ("/workloads/nosframe/deep", "libdeepso.so", "libc.so.6",
                     "ld-linux-x86-64.so.2"):
            if name in text:
                run.passed(f"status lists {name}")
            else:
                run.fail(f"status does not list {name}")
        run.metric("sidecar_status_total", text.strip().splitlines()[-1])
    for name, op, bound in (("after-bad", ">=", 0.99), ("unloaded", "<", 0.5)):
        expect, perf = run.artefacts.get(f"{name}.expect"), run.artefacts.get(f"{name}.perf")
        if expect is None or perf is None:
            run.fail(f"{name}: no perf output")
            continue
        complete, eligible = completeness(realised_expect(expect.decode(), binary),
                                          perf.decode(errors="replace"))
        frac = complete / eligible if eligible else 0.0
        run.metric(f"{name}_chain_complete_pct", f"{100 * frac:.1f}")
        if eligible and (frac >= bound) == (op == ">="):
            run.passed(f"{name}: chain {100 * frac:.1f}% {op} {100 * bound:.0f}%")
        else:
            run.fail(f"{name}: chain {100 * frac:.1f}% of {eligible}, want {op} {100 * bound:.0f}%")
