"""Host half of bench-walk: ns per frame, SFrame against frame pointers."""

DEPTH = 48          # frames each walk must find (walkbench's descend())
TARGET = 1.5        # the goal for SFrame / frame pointers per frame


def check(run):
    """Both walkers walk every frame; report ns/frame and the ratio."""
    m = run.metrics
    need = ("walks", "sframe_frames", "fp_frames", "sframe_ps_per_frame",
            "fp_ps_per_frame", "ratio_milli")
    if any(k not in m for k in need):
        run.fail("walkbench gave no result")
        return
    walks = int(m["walks"])
    for mode in ("sframe", "fp"):
        frames = int(m[f"{mode}_frames"])
        if frames == walks * DEPTH:
            run.passed(f"{mode}: {DEPTH} frames in each of {walks} walks")
        else:
            run.fail(f"{mode}: {frames} frames in {walks} walks, want {walks * DEPTH}")
    sf = int(m["sframe_ps_per_frame"]) / 1000
    fp = int(m["fp_ps_per_frame"]) / 1000
    ratio = int(m["ratio_milli"]) / 1000
    run.metric("sframe_ns_per_frame", f"{sf:.1f}")
    run.metric("fp_ns_per_frame", f"{fp:.1f}")
    run.metric("sframe_to_fp_ratio", f"{ratio:.2f}")
    # Reported, not asserted: TCG's cost model is not a CPU's.
    run.passed(f"SFrame {sf:.1f} ns/frame, frame pointers {fp:.1f} ns/frame: "
               f"{ratio:.2f}x (target <= {TARGET}x on hardware)")
