"""Host half of sframe-vdso: the vDSO unwound by its section, else as stock."""

import os

from vmlib.stackcheck import (MIN_SAMPLES, USER_TOP, chain_frames_found, parse_perf_samples,
                              worse_than_stock)

COMM = "vdsoloop"
PROGRAM = "/workloads/project/sframe/vdsoloop"
CHAIN = ["vdso_spin", "vdso_middle", "vdso_outer", "main"]
VDSO = "[vdso]"
COMPLETE = 0.99


def known(frame):
    """Tell whether a user frame lies in code the workload runs.

    That is in the vDSO, libc or ld.so (perf names no local function of
    Debian's stripped libraries), or in a named function of the program;
    an address in no object is [unknown] to perf.
    """
    if frame.dso == PROGRAM:
        return frame.sym != "[unknown]"
    return frame.dso == VDSO or os.path.basename(frame.dso).startswith(("libc.so", "ld-linux"))


def user_samples(run, name):
    """Return the workload's samples of run NAME as lists of user frames."""
    perf = run.artefacts.get(f"{name}.perf")
    if perf is None:
        run.fail(f"{name}: no perf output from the guest")
        return None
    samples = [[f for f in frames if int(f.ip, 16) < USER_TOP]
               for comm, frames in parse_perf_samples(perf.decode(errors="replace"))
               if comm == COMM]
    return [user for user in samples if user]


def complete(user):
    """Tell whether frames from a vDSO leaf go through libc to main.

    The program's frames down to main must be the end of CHAIN: main
    itself calls clock_gettime() once, for the deadline.
    """
    i = 0
    while i < len(user) and user[i].dso == VDSO:
        i += 1
    while i < len(user) and os.path.basename(user[i].dso).startswith("libc.so"):
        i += 1
    names = [f.sym for f in user[i:i + len(CHAIN)]]
    if "main" not in names:
        return False
    names = names[:names.index("main") + 1]
    return names == CHAIN[len(CHAIN) - len(names):]


def start_up(user):
    """Tell whether a sample is ld.so's, before the program ran.

    The module learns a new program's mappings by a rescan that exec
    queues; a sample before it lands is walked as the stock walker walks
    it, by frame pointers, which ld.so's start-up code does not keep.
    """
    return (os.path.basename(user[0].dso).startswith("ld-linux")
            and all(f.dso != PROGRAM for f in user))


def check_known(run, name, samples):
    """Assert that no frame the walk found in run NAME is a guess.

    The walk's frames are the user frames after the leaf; the leaf comes
    from the registers (during execve perf knows no object for it yet).
    Samples of ld.so's start-up are left out (start_up()).
    """
    early = [user for user in samples if start_up(user)]
    run.metric(f"{name}_start_up_samples", str(len(early)))
    bad = [(i, f) for i, user in enumerate(samples) if not start_up(user)
           for f in user[1:] if not known(f)]
    run.metric(f"{name}_unknown_frames", str(len(bad)))
    if bad:
        run.fail(f"{name}: {len(bad)} frames are not known functions, e.g. "
                 + ", ".join(f"{f.ip} {f.sym} ({f.dso})" for _, f in bad[:3]))
    else:
        run.passed(f"{name}: every frame the walks of {len(samples)} samples found is known")


def quality(in_vdso):
    """Return (complete share, mean CHAIN frames found) of vDSO-leaf samples."""
    found = sum(chain_frames_found(user, CHAIN) for user in in_vdso)
    return sum(map(complete, in_vdso)) / len(in_vdso), found / len(in_vdso)


def check(run):
    """Without the section: never worse than stock; with it: 99 % reach main."""
    measured = {}
    for name in ("stock", "novdso", "vdso"):
        samples = user_samples(run, name)
        if samples is None:
            continue
        if name == "vdso":
            check_known(run, name, samples)
        in_vdso = [user for user in samples if user[0].dso == VDSO]
        run.metric(f"{name}_samples", str(len(samples)))
        run.metric(f"{name}_vdso_leaf_samples", str(len(in_vdso)))
        if len(in_vdso) < MIN_SAMPLES:
            run.fail(f"{name}: only {len(in_vdso)} samples in the vDSO")
            continue
        measured[name] = quality(in_vdso)
        run.metric(f"{name}_complete_pct", f"{100 * measured[name][0]:.1f}")
        run.metric(f"{name}_frames", f"{measured[name][1]:.2f}")
    if "stock" in measured and "novdso" in measured:
        (sc, sf), (nc, nf) = measured["stock"], measured["novdso"]
        what = f"novdso: {100 * nc:.1f}% complete, {nf:.2f} frames; stock {100 * sc:.1f}%, {sf:.2f}"
        run.verdict(not worse_than_stock(measured["novdso"], measured["stock"]), what,
                    f"{what}: worse than stock")
    if "vdso" in measured:
        frac = measured["vdso"][0]
        run.metric("vdso_complete_pct", f"{100 * frac:.1f}")
        if frac >= COMPLETE:
            run.passed(f"vdso: {100 * frac:.1f}% of vDSO samples complete to main")
        else:
            run.fail(f"vdso: {100 * frac:.1f}% of vDSO samples complete to main, "
                     f"want >= {100 * COMPLETE:.0f}%")
    status = run.artefacts.get("status.txt", b"").decode(errors="replace")
    run.verdict(any(line.startswith("[vdso] build ID ") for line in status.splitlines()),
                "status lists the vDSO's section",
                "status does not list the vDSO's section")
