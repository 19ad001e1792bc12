"""Host half of sframe-fp: frame pointers still work with the module."""

from vmlib.kernels import arch_of
from vmlib.machinecode import check_callers_real, realise_artefacts, workload_path
from vmlib.scenario import module_stat
from vmlib.stackcheck import check_patterns

# What the stock kernel completes on this build (baseline-fp): all of them
# but qsort and signal on x86-64, whose libc keeps no frame pointers;
# everything on arm64 (arm64-baseline), where Debian's libc keeps frame
# records.
COMPLETE = ("chain", "recurse", "vla", "realign", "threads", "dlopen")
COMPLETE_ARM64 = COMPLETE + ("qsort", "signal")


def check(run):
    """Assert the frame-pointer fallback completes what stock completes."""
    realise_artefacts(run, workload_path("baseline/deep-fp", run.kernel))
    want = COMPLETE_ARM64 if arch_of(run.kernel) == "arm64" else COMPLETE
    check_patterns(run, {p: (">=", 0.99) for p in want})
    # The frame-pointer floor reports no caller the chain does not lead
    # to after a call (the stock walker's qsort and signal stacks do).
    check_callers_real(run, {"/deep-fp": workload_path("baseline/deep-fp", run.kernel),
                             "/libdeepso.so": workload_path("baseline/libdeepso.so", run.kernel)})
    # No SFrame and no service: its frames are counted as such.
    without = module_stat(run.artefacts, "lookups_without_section")
    run.verdict(without is not None and without > 0,
                f"stats: {without} lookups in files without a section",
                f"stats: lookups_without_section {without}, want > 0")
