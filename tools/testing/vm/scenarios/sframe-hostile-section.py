"""Host half of sframe-hostile-section: how deep the hostile programs' walks went."""

import statistics

from vmlib.stackcheck import parse_perf_samples, USER_TOP

# hostile-sframe's programs call themselves 120 times below their entry.
FLATTENED_MIN_DEPTH = 100
# A refused section leaves the frame-pointer walk, and the program's
# frame pointer is 0 from its first instruction: the sampled IP at most.
REFUSED_MAX_DEPTH = 2
MIN_SAMPLES = 20


def user_depths(samples, comm):
    """Number of user frames of each sample of comm."""
    return [sum(1 for f in frames if int(f.ip, 16) < USER_TOP)
            for c, frames in samples if c == comm]


def check(run):
    """huge-function is walked through its table, big-plt gets no SFrame."""
    perf = run.artefacts.get("hostile.perf")
    if perf is None:
        run.fail("no perf output for the hostile programs")
        return
    samples = parse_perf_samples(perf.decode(errors="replace"))
    huge = user_depths(samples, "huge-function")
    plt = user_depths(samples, "big-plt")
    if len(huge) < MIN_SAMPLES or len(plt) < MIN_SAMPLES:
        run.fail(f"too few samples: huge-function {len(huge)}, big-plt {len(plt)}")
        return
    median = statistics.median(huge)
    run.metric("huge_function_median_depth", str(median))
    run.metric("big_plt_max_depth", str(max(plt)))
    run.verdict(median >= FLATTENED_MIN_DEPTH,
                f"huge-function: median {median} user frames in {len(huge)} samples",
                f"huge-function: median {median} user frames, want >= {FLATTENED_MIN_DEPTH}")
    run.verdict(max(plt) <= REFUSED_MAX_DEPTH,
                f"big-plt: at most {max(plt)} user frames: its section was not used",
                f"big-plt: {max(plt)} user frames, want <= {REFUSED_MAX_DEPTH}")
