"""How complete the stacks of forked processes are, process by process.

Workloads that fork (forkdeep, pyrecurse.py with workers) print one line
"pid PID ROLE" per process, and forkdeep one "expect ROLE: leaf ... main"
line per role.  perf script's `tid` field tells the samples apart; each
role's samples are measured against its own chain with the stack checker's
rules (vmlib/stackcheck.py).
"""

import re

from vmlib.stackcheck import MIN_SAMPLES, chain_matches, parse_expect, parse_perf_tasks

PID_LINE = re.compile(r"^pid (\d+) (\w+)$", re.M)
EXPECT_LINE = re.compile(r"^expect (\w+): (.*)$", re.M)


def pids_by_role(out_text):
    """Return {role: {pid}} from the workload's "pid PID ROLE" lines."""
    roles = {}
    for pid, role in PID_LINE.findall(out_text):
        roles.setdefault(role, set()).add(int(pid))
    return roles


def chains_by_role(out_text):
    """Return {role: [frame names]} from forkdeep's "expect ROLE:" lines."""
    return {role: parse_expect(f"expect: {chain}") for role, chain in EXPECT_LINE.findall(out_text)}


def role_completeness(out_text, perf_text):
    """Return {role: (complete, eligible)} for every role that has a chain.

    A sample is eligible when its thread belongs to the role and its leaf
    is the chain's first name; complete when it follows the chain to main.
    """
    tids = pids_by_role(out_text)
    chains = chains_by_role(out_text)
    counts = {role: [0, 0] for role in chains}
    owner = {tid: role for role, pids in tids.items() if role in chains for tid in pids}
    for _, tid, frames in parse_perf_tasks(perf_text):
        role = owner.get(tid)
        if role is None or not frames or frames[0].sym != chains[role][0]:
            continue
        counts[role][1] += 1
        counts[role][0] += chain_matches(frames, chains[role])
    return {role: tuple(c) for role, c in counts.items()}


def check_forked(run, name, bound):
    """Assert that every forked role of run NAME is at least bound complete.

    Uses the artefacts NAME.out (the workload's output) and NAME.perf;
    reports NAME_ROLE_complete_pct and NAME_ROLE_samples.
    """
    out, perf = run.artefacts.get(f"{name}.out"), run.artefacts.get(f"{name}.perf")
    if out is None or perf is None:
        run.fail(f"{name}: no workload output or perf output from the guest")
        return
    out_text = out.decode(errors="replace")
    roles = pids_by_role(out_text)
    counts = role_completeness(out_text, perf.decode(errors="replace"))
    forked = [role for role in counts if role != "parent"]
    if not forked:
        run.fail(f"{name}: the workload printed no expected chain of a forked process")
    for role in forked:
        complete, eligible = counts[role]
        frac = complete / eligible if eligible else 0.0
        run.metric(f"{name}_{role}_complete_pct", f"{100 * frac:.1f}")
        run.metric(f"{name}_{role}_samples", str(eligible))
        run.metric(f"{name}_{role}_processes", str(len(roles.get(role, ()))))
        if eligible < MIN_SAMPLES:
            run.fail(f"{name} {role}: only {eligible} samples in the hot leaf")
        else:
            run.verdict(frac >= bound,
                        f"{name} {role}: {100 * frac:.1f}% complete >= {100 * bound:.0f}%",
                        f"{name} {role}: {100 * frac:.1f}% complete, want >= {100 * bound:.0f}%")
