"""Host half of sframe-plt: samples in IFUNC stubs of a static program complete."""

import collections
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
    """Tell whether a sample's frames reach the program's start, _start.

    Where they pass through the chain: frames of the library (the stubs,
    strlen's and memcpy's variants, the clock) come first, and only
    ifunc_leaf calls them; from the first of the chain's functions on,
    the names must be the end of CHAIN.  Samples before main (the C
    library's start), in main's own calls (printf) and after it (exit
    handlers) reach _start without the chain.
    """
    names = [f.sym for f in user]
    if names[-1] != "_start":
        return False
    i = 0
    while i < len(names) and names[i] not in CHAIN[:-1]:
        i += 1
    if i == len(names):
        return True
    if i and names[i] != CHAIN[0]:
        return False
    names = names[i:]
    if "main" not in names:
        return False
    names = names[:names.index("main") + 1]
    return names == CHAIN[len(CHAIN) - len(names):]


def in_program(user):
    """Tell whether a sample's leaf is in a mapping perf knows.

    One taken inside execve, after the process took the program's name
    but before its first instruction, has the old program's address in
    the new one's address space: no walker has a stack to find there.
    """
    return user[0].dso != "[unknown]"


def check(run):
    """At least COMPLETE of the samples, and all those in the stubs, are complete."""
    perf = run.artefacts.get("plt.perf")
    if perf is None:
        run.fail("plt: no perf output from the guest")
        return
    ranges = plt_ranges(os.path.join(project_workloads_dir(), "sframe", COMM))
    samples = [[f for f in frames if int(f.ip, 16) < USER_TOP]
               for comm, frames in parse_perf_samples(perf.decode(errors="replace"))
               if comm == COMM]
    samples = [user for user in samples if user and in_program(user)]
    stubs = [user for user in samples if in_stub(user[0], ranges)]
    short = collections.Counter(f"{user[0].sym} ({len(user)} frames)"
                                for user in samples if not complete(user))
    done = len(samples) - sum(short.values())
    # Only ifunc_leaf calls through the stubs: a stub's caller is the chain.
    stubs_done = sum(complete(user) and any(f.sym == CHAIN[0] for f in user)
                     for user in stubs)
    frac = done / len(samples) if samples else 0.0
    run.metric("plt_samples", str(len(samples)))
    run.metric("plt_complete_pct", f"{100 * frac:.1f}")
    run.metric("plt_stub_samples", str(len(stubs)))
    run.metric("plt_stub_complete", str(stubs_done))
    why = "".join(f"; {n} incomplete in {leaf}" for leaf, n in short.most_common(4))
    if len(samples) < MIN_SAMPLES:
        run.fail(f"plt: only {len(samples)} samples")
    else:
        run.verdict(frac >= COMPLETE,
                    f"plt {100 * frac:.1f}% complete >= {100 * COMPLETE:.0f}%{why}",
                    f"plt: {100 * frac:.1f}% complete, want >= {100 * COMPLETE:.0f}%{why}")
    if not stubs:
        run.fail("plt: no sample in the IPLT stubs: the workload does not test them")
    elif stubs_done < len(stubs):
        run.fail(f"plt: {len(stubs) - stubs_done} of {len(stubs)} samples in the stubs "
                 "do not reach main")
    else:
        run.passed(f"plt: all {len(stubs)} samples in the stubs reach main")
