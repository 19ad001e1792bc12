"""Host half of sframe-corrupt: the program was sampled all the way."""

from vmlib.stackcheck import completeness, MIN_SAMPLES


def check(run):
    """The damaged program ran and was sampled in its hot leaf."""
    expect, perf = run.artefacts.get("chain.expect"), run.artefacts.get("chain.perf")
    if expect is None or perf is None:
        run.fail("no perf output for the damaged program")
        return
    _, eligible = completeness(expect.decode(), perf.decode(errors="replace"))
    run.metric("chain_samples", str(eligible))
    run.verdict(eligible >= MIN_SAMPLES, f"{eligible} samples in the damaged program's hot leaf",
                f"only {eligible} samples: did the damaged program run?")
