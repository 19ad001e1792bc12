"""Host half of sframe-plt: samples in IFUNC stubs of a static program complete."""

import os
import subprocess

from vmlib.machinecode import project_workloads_dir
from vmlib.stackcheck import MIN_SAMPLES, USER_TOP, parse_perf_samples

COMM = "ifuncloop"
DEPTH = 8                     # ifuncloop.c's IFUNC_DEPTH
CHAIN = ["ifunc_leaf"] + ["ifunc_rec"] * DEPTH + ["ifunc_outer", "main"]
COMPLETE = 0.98


def plt_ranges(binary):
    """Return the [start, end) of binary's .plt, where ld puts the IPLT stubs.

    Twice: as addresses and as file offsets, which is what perf script
    prints for a static program's frames.  The two cannot be confused:
    the file ends far below the address it is linked at.
    """
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        fields = line.split("]", 1)[-1].split()
        if fields and fields[0] == ".plt":
            addr, off, size = (int(fields[i], 16) for i in (2, 3, 4))
            return [(addr, addr + size), (off, off + size)]
    raise ValueError(f"{binary} has no .plt")


def in_stub(frame, ranges):
    """Tell whether frame lies in one of ranges."""
    ip = int(frame.ip, 16)
    return any(lo <= ip < hi for lo, hi in ranges)


def complete(user):
    """Tell whether a sample's frames reach main through the whole chain.

    Frames of the library (the stubs, strlen's and memcpy's variants, the
    clock) come first, and only ifunc_leaf calls them; from the first of
    the chain's functions on, the names must be the end of CHAIN.
    """
    names = [f.sym for f in user]
    i = 0
    while i < len(names) and names[i] not in CHAIN:
        i += 1
    if i and (i == len(names) or names[i] != CHAIN[0]):
        return False
    names = names[i:]
    if "main" not in names:
        return False
    names = names[:names.index("main") + 1]
    return names == CHAIN[len(CHAIN) - len(names):]


def check(run):
    """At least COMPLETE of the samples, and those in the stubs, reach main."""
    perf = run.artefacts.get("plt.perf")
    if perf is None:
        run.fail("plt: no perf output from the guest")
        return
    ranges = plt_ranges(os.path.join(project_workloads_dir(), "sframe", COMM))
    samples = [[f for f in frames if int(f.ip, 16) < USER_TOP]
               for comm, frames in parse_perf_samples(perf.decode(errors="replace"))
               if comm == COMM]
    samples = [user for user in samples if user]
    stubs = [user for user in samples if in_stub(user[0], ranges)]
    done = sum(complete(user) for user in samples)
    stubs_done = sum(complete(user) for user in stubs)
    frac = done / len(samples) if samples else 0.0
    run.metric("plt_samples", str(len(samples)))
    run.metric("plt_complete_pct", f"{100 * frac:.1f}")
    run.metric("plt_stub_samples", str(len(stubs)))
    run.metric("plt_stub_complete", str(stubs_done))
    if len(samples) < MIN_SAMPLES:
        run.fail(f"plt: only {len(samples)} samples")
    else:
        run.verdict(frac >= COMPLETE, f"plt {100 * frac:.1f}% complete >= {100 * COMPLETE:.0f}%",
                    f"plt: {100 * frac:.1f}% complete, want >= {100 * COMPLETE:.0f}%")
    if not stubs:
        run.fail("plt: no sample in the IPLT stubs: the workload does not test them")
    elif stubs_done < len(stubs):
        run.fail(f"plt: {len(stubs) - stubs_done} of {len(stubs)} samples in the stubs "
                 "do not reach main")
    else:
        run.passed(f"plt: all {len(stubs)} samples in the stubs reach main")
