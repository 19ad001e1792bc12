"""Host half of bench-service: the service's latency, CPU and memory figures."""

ROUNDS = ("cold", "cached")
KINDS = ("deep", "libc")


def check(run):
    """Every figure there and plausible; the figures themselves are metrics."""
    need = [f"{r}_{k}_{w}_ms" for r in ROUNDS for k in KINDS for w in ("median", "worst")]
    need += ["burst_median_ms", "burst_worst_ms", "burst_cpu_ms", "burst_files",
             "steady_cpu_ms_per_minute", "steady_rss_kb", "steady_hwm_kb",
             "burst_rss_max_kb", "burst_hwm_kb"]
    missing = [k for k in need if not run.metrics.get(k, "").isdigit()]
    if missing:
        run.fail(f"no figures from the guest: {', '.join(missing)}")
        return
    m = {k: int(run.metrics[k]) for k in need}
    for r in ROUNDS:
        for k in KINDS:
            median, worst = m[f"{r}_{k}_median_ms"], m[f"{r}_{k}_worst_ms"]
            if 0 < median <= worst:
                run.passed(f"{r} {k}: median {median} ms, worst {worst} ms "
                           "from first mapping to sidecar in use")
            else:
                run.fail(f"{r} {k}: median {median} ms, worst {worst} ms")
    # Reported, not asserted: TCG's timings are not a machine's.
    run.passed(f"burst of {m['burst_files']} files: median {m['burst_median_ms']} ms, "
               f"all in use after {m['burst_worst_ms']} ms; service CPU "
               f"{m['burst_cpu_ms']} ms, RSS up to {m['burst_rss_max_kb']} kB "
               f"(steady {m['steady_rss_kb']} kB, "
               f"{m['steady_cpu_ms_per_minute']} ms CPU a minute)")
