"""Host half of sframe-container: a container's own xz unwound to its main.

main is found in the very file the container ran (Debian 13's xz in the
cache, vmlib/container.py) without symbols (machinecode.main_frame_offsets);
a sample of xz reaches it when one of its frames in xz, as perf names
the file (by its overlay path), lies in main.
"""

from vmlib.container import PROGRAM, program_path
from vmlib.machinecode import main_frame_offsets
from vmlib.stackcheck import MIN_SAMPLES, mean_user_frames, meets, samples_reaching
from vmlib.util import cache_dir

COMM = "xz"
# Where the guest mounts each container (sframe-container.sh: $O/KIND/merged).
MERGED = "/tmp/ctr/{}/merged"
# recording (what-KIND) -> (metric name, comparison, bound on the share
# reaching main)
EXPECT = {
    "stock-root": ("container_stock", "<", 0.10),
    "served-root": ("container_root", ">=", 0.95),
    "served-user": ("container_rootless", ">=", 0.95),
}


def check(run):
    """Each recording reaches xz's main as often as its EXPECT bound says."""
    ranges = main_frame_offsets(program_path(cache_dir()))
    for name, (metric, op, bound) in EXPECT.items():
        perf = run.artefacts.get(f"{name}.perf")
        if perf is None:
            run.fail(f"{name}: no perf output from the guest")
            continue
        text = perf.decode(errors="replace")
        dso = MERGED.format(name.partition("-")[2]) + PROGRAM
        reaching, samples = samples_reaching(text, COMM, dso, ranges)
        share = reaching / max(samples, 1)
        run.metric(f"{metric}_complete_pct", f"{100 * share:.1f}")
        run.metric(f"{metric}_samples", str(samples))
        run.metric(f"{metric}_user_frames", f"{mean_user_frames(text, COMM):.1f}")
        verdict = (f"{name}: {100 * share:.1f}% of {samples} samples of {dso} reach "
                   f"main, want {op} {100 * bound:.0f}%")
        if samples < MIN_SAMPLES:
            run.fail(f"{name}: only {samples} samples of xz")
        else:
            run.verdict(meets(share, op, bound), verdict, verdict)
