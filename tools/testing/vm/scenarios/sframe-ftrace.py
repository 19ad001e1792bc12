"""Host half of sframe-ftrace: userstacktrace chains are right."""

from vmlib.ftracecheck import Symbols, parse_maps, to_perf_script
from vmlib.kernels import headers_config
from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import completeness, parse_expect

GUEST_BINARY = "/workloads/v3-binutils-2.47/deep"
MIN_STACKS = 20
# ftrace keeps 8 user return addresses per event (FTRACE_STACK_ENTRIES in
# kernel/trace/trace.h), stock walker or not: judge the first 8 frames.
FTRACE_USER_ENTRIES = 8


def split_maps(text):
    """Return {pid: maps text} from the guest's '@@ pid N' separated file."""
    maps, pid = {}, None
    for line in text.splitlines():
        if line.startswith("@@ pid "):
            pid = int(line.split()[2])
            maps[pid] = []
        elif pid is not None:
            maps[pid].append(line)
    return {pid: parse_maps("\n".join(lines)) for pid, lines in maps.items()}


def check_no_user_stacks(run):
    """On a kernel without a user stack walk for ftrace, assert there is none.

    Without CONFIG_USER_STACKTRACE_SUPPORT (arm64's 6.1) the option is
    accepted and ignored: no stack walker to replace, nothing to judge.
    """
    why = f"{run.kernel} lacks CONFIG_USER_STACKTRACE_SUPPORT"
    if b"<user stack trace>" in run.artefacts["trace"]:
        run.fail(f"user stack traces, yet {why}")
        return
    if b"sched_switch:" not in run.artefacts["trace"]:
        run.fail("no sched_switch events traced")
        return
    run.passed(f"sched_switch traced without user stacks: {why}")
    run.subtest("userstacktrace chain", True, f"SKIP {why}")


def check(run):
    """Assert >= 99 % of the stacks taken in leaf_spin are right to 8 deep."""
    needed = ("chain.expect", "maps", "trace")
    if any(name not in run.artefacts for name in needed):
        run.fail("missing artefacts from the guest")
        return
    if headers_config(run.context["kdir"]).get("CONFIG_USER_STACKTRACE_SUPPORT") != "y":
        check_no_user_stacks(run)
        return
    binary = workload_path("v3-binutils-2.47/deep", run.kernel)
    realise_artefacts(run, binary)
    perf_text = to_perf_script(run.artefacts["trace"].decode(errors="replace"),
                               split_maps(run.artefacts["maps"].decode()),
                               {GUEST_BINARY: Symbols(binary)})
    chain = parse_expect(run.artefacts["chain.expect"].decode())[:FTRACE_USER_ENTRIES]
    complete, eligible = completeness("expect: " + " ".join(chain), perf_text)
    frac = complete / eligible if eligible else 0.0
    run.metric("chain_complete_pct", f"{100 * frac:.1f}")
    run.metric("chain_stacks", str(eligible))
    if eligible < MIN_STACKS:
        run.fail(f"only {eligible} user stacks taken in leaf_spin")
    else:
        run.verdict(frac >= 0.99, f"userstacktrace chain {100 * frac:.1f}% >= 99%",
                    f"userstacktrace chain {100 * frac:.1f}% complete, want >= 99%")
