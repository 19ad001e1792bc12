"""Host half of sframe-shortlived: short-lived processes complete from their first sample."""

from vmlib.forkcheck import chains_by_role, pids_by_role
from vmlib.kernels import arch_of
from vmlib.stackcheck import MIN_SAMPLES, chain_matches, drop_perf_lr_frames, parse_perf_tasks

# Every child sample in the library, forked or exec'd, reaches main: the
# library's file is known, so its mapping has rules from its hook on.
CHILD_BOUND = 0.99
# Without the module the library's frames (no frame pointers) end the walk.
STOCK_BOUND = 0.05
# Children of a role whose first sample in the library may end there: a
# walk that meets its mm's writer mid-update (an odd sequence count) uses
# no map at all rather than wait (design.rst), and under TCG a vCPU can
# be descheduled inside that update.  Without fresh ranges, about half of
# the forked children's first samples end in the library.
FIRST_INCOMPLETE_MAX = 1
ROLES = ("forked", "execed")


def check(run):
    """Assert the children's completeness with the module, and the control's lack of it."""
    stock = measure(run, "stock")
    module = measure(run, "module")
    if stock is None or module is None:
        return
    for role in ROLES:
        frac, _, _ = stock[role]
        run.verdict(frac <= STOCK_BOUND,
                    f"stock {role}: {100 * frac:.1f}% complete (control)",
                    f"stock {role}: {100 * frac:.1f}% complete, "
                    f"want <= {100 * STOCK_BOUND:.0f}%: the control unwinds the library")
        frac, first_bad, children = module[role]
        run.verdict(frac >= CHILD_BOUND,
                    f"module {role}: {100 * frac:.1f}% complete >= {100 * CHILD_BOUND:.0f}%",
                    f"module {role}: {100 * frac:.1f}% complete, want >= {100 * CHILD_BOUND:.0f}%")
        run.verdict(first_bad <= FIRST_INCOMPLETE_MAX,
                    f"module {role}: {children - first_bad} of {children} children complete "
                    "from their first sample in the library",
                    f"module {role}: {first_bad} of {children} children's first sample in "
                    f"the library incomplete, want <= {FIRST_INCOMPLETE_MAX}")
    fresh = run.metrics.get("ranges_fresh", "")
    run.verdict(fresh.isdigit() and int(fresh) > 0,
                f"{fresh} mappings published by their hook",
                f"ranges_fresh '{fresh}', want > 0: no mapping was published by its hook")


def measure(run, name):
    """Return {role: (fraction complete, children whose first sample is not, children)}.

    None if run NAME cannot be measured.  A sample counts when its thread
    is a child of the role and its leaf is the chain's first name.
    """
    out, perf = run.artefacts.get(f"{name}.out"), run.artefacts.get(f"{name}.perf")
    if out is None or perf is None:
        run.fail(f"{name}: no workload output or perf output from the guest")
        return None
    out_text, perf_text = out.decode(errors="replace"), perf.decode(errors="replace")
    if arch_of(run.kernel) != "amd64":
        # perf's own LR - 1 after the leaf (sframe-pac.py), not the kernel's
        perf_text, _ = drop_perf_lr_frames(perf_text)
    chains, pids = chains_by_role(out_text), pids_by_role(out_text)
    owner = {tid: role for role in ROLES for tid in pids.get(role, ())}
    counts = {role: [0, 0] for role in ROLES}
    first = {}
    for _, tid, frames in parse_perf_tasks(perf_text):
        role = owner.get(tid)
        if role is None or role not in chains or not frames or frames[0].sym != chains[role][0]:
            continue
        complete = chain_matches(frames, chains[role])
        counts[role][0] += complete
        counts[role][1] += 1
        first.setdefault(tid, complete)
    result = {}
    for role in ROLES:
        complete, eligible = counts[role]
        children = [tid for tid in pids.get(role, ()) if tid in first]
        first_bad = sum(not first[tid] for tid in children)
        run.metric(f"{name}_{role}_complete_pct",
                   f"{100 * complete / eligible:.1f}" if eligible else "")
        run.metric(f"{name}_{role}_samples", str(eligible))
        run.metric(f"{name}_{role}_first_incomplete", f"{first_bad}/{len(children)}")
        if eligible < MIN_SAMPLES:
            run.fail(f"{name} {role}: only {eligible} samples in the library, want >= {MIN_SAMPLES}")
            return None
        result[role] = (complete / eligible, first_bad, len(children))
    return result
