"""Host half of sframe-fork: forked processes' stacks are complete."""

from vmlib.forkcheck import check_forked, pids_by_role
from vmlib.kernels import arch_of
from vmlib.pythoncheck import SIDECAR_LIMITS, assert_reach, python_main, reach

# forkdeep's workers and grandchild: the frame-pointer build on the stock
# kernel (the control), and the SFrame build with the module, whose
# children inherit the parent's map at fork: as complete as
# sframe-project's chain.
FORKED_BOUND = 0.99


def check(run):
    """Assert forkdeep's children and python's workers unwind to main."""
    for name in ("fp", "before", "after", "threaded"):
        check_forked(run, name, FORKED_BOUND)
    check_step_cache(run)
    check_threaded_forks(run)
    if arch_of(run.kernel) != "amd64":
        run.subtest("python workers", True, f"SKIP x86-64 only: the {arch_of(run.kernel)} "
                    "guest gets no python3 (the harness packs the host's)")
        return
    python, ranges = python_main()
    for name in ("pydwarf", "pyfork"):
        measured = python_workers(run, name, python, ranges)
        if measured:
            assert_reach(run, f"{name}_workers", measured, SIDECAR_LIMITS)


def check_step_cache(run):
    """perf's samples of the same call sites stepped through the step cache."""
    try:
        sframe = int(run.metrics.get("frames_sframe", ""))
        cached = int(run.metrics.get("frames_cached", ""))
    except ValueError:
        run.fail("the module's stats gave no frames_sframe or frames_cached")
        return
    # Samples repeat forkdeep's few call sites thousands of times: most
    # of the rules' frames come from the cache.
    what = f"{cached} of {sframe} frames stepped by SFrame rules came from the step cache"
    run.verdict(0 < sframe and sframe // 2 < cached <= sframe, what, f"{what}, want more than half")


def check_threaded_forks(run):
    """A threaded parent's children were rescanned, not given its map."""
    rescanned = run.metrics.get("forks_rescanned", "")
    run.verdict(rescanned.isdigit() and int(rescanned) >= 1,
                f"a threaded parent's {rescanned} children scanned their own mappings",
                f"forks_rescanned '{rescanned}' after a threaded parent forked, want >= 1")


def python_workers(run, name, python, ranges):
    """Return reach() of the python workers' samples of run NAME."""
    out, perf = run.artefacts.get(f"{name}.out"), run.artefacts.get(f"{name}.perf")
    if out is None or perf is None:
        run.fail(f"{name}: no workload output or perf output from the guest")
        return None
    workers = pids_by_role(out.decode(errors="replace")).get("worker", set())
    if len(workers) != 2:
        run.fail(f"{name}: {len(workers)} python workers reported their pid, want 2")
        return None
    return reach(run, f"{name}_workers", perf.decode(errors="replace"), python, ranges,
                 tids=workers)
