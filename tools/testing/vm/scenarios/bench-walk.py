"""Host half of bench-walk: ns per frame, SFrame against frame pointers."""

DEPTH = 48          # frames each walk must find (walkbench's descend())
TARGET = 1.5        # the goal for SFrame / frame pointers per frame


def check(run):
    """Every walker walks every frame; report ns/frame and the ratios."""
    m = run.metrics
    modes = ("sframe", "fp", "fp2")
    need = ["walks", "ratio_milli", "ratio2_milli"]
    need += [f"{mode}_{what}" for mode in modes
             for what in ("frames", "ps_per_frame")]
    if any(k not in m for k in need):
        run.fail("walkbench gave no result")
        return
    walks = int(m["walks"])
    for mode in modes:
        frames = int(m[f"{mode}_frames"])
        if frames == walks * DEPTH:
            run.passed(f"{mode}: {DEPTH} frames in each of {walks} walks")
        else:
            run.fail(f"{mode}: {frames} frames in {walks} walks, want {walks * DEPTH}")
        run.metric(f"{mode}_ns_per_frame",
                   f"{int(m[f'{mode}_ps_per_frame']) / 1000:.1f}")
    ratio = int(m["ratio_milli"]) / 1000
    ratio2 = int(m["ratio2_milli"]) / 1000
    run.metric("sframe_to_fp_ratio", f"{ratio:.2f}")
    run.metric("sframe_to_fp2_ratio", f"{ratio2:.2f}")
    # Reported, not asserted: TCG's cost model is not a CPU's.
    run.passed(f"SFrame {m['sframe_ns_per_frame']} ns/frame; frame pointers "
               f"{m['fp_ns_per_frame']} ns/frame with one read per frame "
               f"({ratio:.2f}x), {m['fp2_ns_per_frame']} ns/frame with two, "
               f"as the stock walker reads ({ratio2:.2f}x); "
               f"target <= {TARGET}x on hardware")
