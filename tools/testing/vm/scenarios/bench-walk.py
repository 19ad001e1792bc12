"""Host half of bench-walk: ns per frame, SFrame against frame pointers."""

DEPTH = 48          # frames each walk must find (walkbench's descend())
TARGET = 1.5        # the goal for SFrame / frame pointers per frame
FRAMES = {"narrow": "16-byte frames", "wide": "frames with 128 bytes of locals"}


def check_frames(run, frames, what):
    """Every walker walks every frame; report ns/frame and the ratios."""
    m = {k[len(frames) + 1:]: v for k, v in run.metrics.items()
         if k.startswith(frames + "_")}
    modes = ("sframe", "fp", "fp2")
    need = ["walks", "ratio_milli", "ratio2_milli", "sframe_rule_frames"]
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
    # The SFrame walker's figure is the rules' only if no frame fell back.
    rules = int(m["sframe_rule_frames"])
    if rules == int(m["sframe_frames"]):
        run.passed(f"{frames}: every SFrame walker frame stepped by a rule")
    else:
        run.fail(f"{frames}: {rules} of {m['sframe_frames']} SFrame walker "
                 "frames stepped by a rule: the others fell back")
    ratio = int(m["ratio_milli"]) / 1000
    ratio2 = int(m["ratio2_milli"]) / 1000
    run.metric(f"{frames}_sframe_to_fp_ratio", f"{ratio:.2f}")
    run.metric(f"{frames}_sframe_to_fp2_ratio", f"{ratio2:.2f}")
    # Reported, not asserted: TCG's cost model is not a CPU's.
    run.passed(f"{what}: SFrame {ns['sframe']:.1f} ns/frame; frame pointers "
               f"{ns['fp']:.1f} ns/frame with one read per frame "
               f"({ratio:.2f}x), {ns['fp2']:.1f} ns/frame with two, "
               f"as the stock walker reads ({ratio2:.2f}x); "
               f"target <= {TARGET}x")


def check(run):
    for frames, what in FRAMES.items():
        check_frames(run, frames, what)
