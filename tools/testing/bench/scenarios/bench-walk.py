"""Host half of bench-walk: ns per frame, SFrame against frame pointers."""

DEPTH = 48          # frames each walk must find (walkbench's descend())
TARGET = 1.5        # the goal for SFrame / frame pointers per frame
FRAMES = {"narrow": "16-byte frames", "wide": "frames with 128 bytes of locals"}


def check_frames(run, frames, what):
    """Every walker walks every frame; report ns/frame and the ratios."""
    m = {k[len(frames) + 1:]: v for k, v in run.metrics.items()
         if k.startswith(frames + "_")}
    modes = ("sframe", "fp", "fp2", "cold")
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
        if got == walks * DEPTH:
            run.passed(f"{frames}: {mode}: {DEPTH} frames in each of {walks} walks")
        else:
            run.fail(f"{frames}: {mode}: {got} frames in {walks} walks, "
                     f"want {walks * DEPTH}")
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
    if cached >= walks * (DEPTH - 2):
        run.passed(f"{frames}: {cached} of the warm walker's frames from the step cache")
    else:
        run.fail(f"{frames}: only {cached} of the warm walker's frames from "
                 f"the step cache, want {walks * (DEPTH - 2)} at least")
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


def check(run):
    for frames, what in FRAMES.items():
        check_frames(run, frames, what)
