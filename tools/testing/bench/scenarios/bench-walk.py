"""Host half of bench-walk: ns per frame, SFrame against frame pointers."""

DEPTH = 48          # frames each walk must find (walkbench's descend())
HALF = 24           # the same walks, stopped half way (NAME_half)
TARGET = 1.5        # the goal for SFrame / frame pointers per frame
FRAMES = {"narrow": "16-byte frames", "wide": "frames with 128 bytes of locals"}
MODES = ("sframe", "fp", "fp2", "cold")


def run_metrics(run, name):
    """The metrics of walkbench's run NAME, without the NAME_ prefix."""
    prefix = name + "_"
    return {k[len(prefix):]: v for k, v in run.metrics.items()
            if k.startswith(prefix) and not k.startswith(prefix + "half_")}


def check_frames(run, frames, what, depth=DEPTH):
    """Every walker walks every frame; report ns/frame and the ratios."""
    m = run_metrics(run, frames)
    modes = MODES
    need = ["walks", "ratio_milli", "ratio2_milli", "sframe_rule_frames",
            "cold_rule_frames", "sframe_cached_frames", "cold_ratio_milli",
            "cold_ratio2_milli"]
    need += [f"{mode}_{what}" for mode in modes
             for what in ("frames", "ps_per_frame")]
    if any(k not in m for k in need):
        run.fail(f"{frames}: walkbench gave no result")
        return
    walks = int(m["walks"])
    ns = {}
    for mode in modes:
        got = int(m[f"{mode}_frames"])
        if got == walks * depth:
            run.passed(f"{frames}: {mode}: {depth} frames in each of {walks} walks")
        else:
            run.fail(f"{frames}: {mode}: {got} frames in {walks} walks, "
                     f"want {walks * depth}")
        ns[mode] = int(m[f"{mode}_ps_per_frame"]) / 1000
        run.metric(f"{frames}_{mode}_ns_per_frame", f"{ns[mode]:.1f}")
    # The SFrame walkers' figures are the rules' only if no frame fell back.
    for mode in ("sframe", "cold"):
        rules = int(m[f"{mode}_rule_frames"])
        if rules == int(m[f"{mode}_frames"]):
            run.passed(f"{frames}: every {mode} SFrame walker frame stepped by a rule")
        else:
            run.fail(f"{frames}: {rules} of {m[f'{mode}_frames']} {mode} SFrame "
                     "walker frames stepped by a rule: the others fell back")
    # Warm, every return address is in the step cache: only the
    # interrupted frame, and each walk's first, are not.
    cached = int(m["sframe_cached_frames"])
    if cached >= walks * (depth - 2):
        run.passed(f"{frames}: {cached} of the warm walker's frames from the step cache")
    else:
        run.fail(f"{frames}: only {cached} of the warm walker's frames from "
                 f"the step cache, want {walks * (depth - 2)} at least")
    for mode, key in (("sframe", ""), ("cold", "cold_")):
        ratio = int(m[f"{key}ratio_milli"]) / 1000
        ratio2 = int(m[f"{key}ratio2_milli"]) / 1000
        run.metric(f"{frames}_{mode}_to_fp_ratio", f"{ratio:.2f}")
        run.metric(f"{frames}_{mode}_to_fp2_ratio", f"{ratio2:.2f}")
        label = ("SFrame, step cache warm (a profile's repeated call sites)"
                 if mode == "sframe" else
                 "SFrame, no step cache (a call site's first sample)")
        # Reported, not asserted: TCG's cost model is not a CPU's.
        run.passed(f"{what}: {label} {ns[mode]:.1f} ns/frame; frame pointers "
                   f"{ns['fp']:.1f} ns/frame with one read per frame "
                   f"({ratio:.2f}x), {ns['fp2']:.1f} ns/frame with two, "
                   f"as the stock walker reads ({ratio2:.2f}x); "
                   f"target <= {TARGET}x")


def check_marginal(run, frames):
    """A frame's cost apart from a walk's: the deep run less the half one.

    A walk pays once for its start (the interrupted frame, which takes
    the full step, and the first lookup) and then per frame; the two
    depths tell the parts apart, per walker: the 24 frames the deep walk
    adds cost its time less the half walk's.
    """
    deep, half = run_metrics(run, frames), run_metrics(run, frames + "_half")
    key = "{}_ps_per_frame"
    if any(key.format(mode) not in m for m in (deep, half) for mode in MODES):
        run.fail(f"{frames}: no half-depth result to tell a frame from a walk")
        return
    per_frame, per_walk = {}, {}
    for mode in MODES:
        deep_walk = int(deep[key.format(mode)]) * DEPTH / 1000
        half_walk = int(half[key.format(mode)]) * HALF / 1000
        per_frame[mode] = (deep_walk - half_walk) / (DEPTH - HALF)
        per_walk[mode] = half_walk - per_frame[mode] * HALF
        run.metric(f"{frames}_{mode}_ns_per_added_frame", f"{per_frame[mode]:.1f}")
        run.metric(f"{frames}_{mode}_ns_per_walk_start", f"{per_walk[mode]:.0f}")
    if per_frame["fp"] <= 0:
        run.fail(f"{frames}: the deeper frame-pointer walk took no longer")
        return
    for mode in ("sframe", "cold"):
        ratio = per_frame[mode] / per_frame["fp"]
        run.metric(f"{frames}_{mode}_added_frame_to_fp_ratio", f"{ratio:.2f}")
        run.passed(f"{frames}: {mode}: a frame {per_frame[mode]:.1f} ns beyond the "
                   f"walk's start ({ratio:.2f}x fp's {per_frame['fp']:.1f}), "
                   f"the start {per_walk[mode]:.0f} ns (fp's {per_walk['fp']:.0f})")


def check(run):
    for frames, what in FRAMES.items():
        check_frames(run, frames, what)
        check_frames(run, frames + "_half", what + ", half as deep", HALF)
        check_marginal(run, frames)
