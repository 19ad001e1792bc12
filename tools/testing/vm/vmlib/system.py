"""The packaged-system test (vmtest --system): the Debian packages on a booted Debian 12.

The install scenario, per kernel: the freshly built packages (make
deb) go on a cached Debian 12 system image (debootstrap, systemd as init,
DKMS, the kernel's own image and headers packages), which boots twice
under QEMU.  The first boot installs them with apt (offline), checks that
DKMS built the module for the running kernel and that the service runs,
and records `perf record -a -g` over stock Debian programs (perl, xz,
sqlite3, lzip, node running noderecurse.js) started afterwards, then
bpftrace and bcc's profile over perl and xz beside perf, then xz again
after a new liblzma5 went in with dpkg -i; the second checks that the
service generated nothing (every sidecar from its on-disk cache),
compares the module's kernel bytes with those of `sframectl load
--system`, then purges the packages and checks that the module, the unit
and the cache are gone.  The host judges how many samples reach the
programs' main and reports their mean depth.  Explicit only: make
check-system.

--servers, for make check: one boot, on debian-6.12, of an image with
Debian's PostgreSQL, Redis and nginx running as their packages start
them: pooled PostgreSQL recorded by perf's own walker first (the
control), then the packages installed, DKMS and the service checked,
and once the service has served what runs, each server under its stock
client recorded by perf -a -g and each of its processes judged; then the
purge.

--throughput, for make bench: the same image and boot, each server's
client rate without perf, then under perf record -a -g with perf's own
walker, with the module while the service warms up from an empty cache,
with the module once the service is idle, without perf with the module
loaded, and perf's walker and the warm module once more; the ratios
reported.

Usage:
    vmtest --system [--servers | --throughput] [--kernel K]...
                    [--results DIR] [--refresh]
"""

import datetime
import glob
import json
import os
import shutil
import subprocess

from . import channel, console, kernels, qemu, sysimage
from .scenario import module_stat
from .stackcheck import (MIN_SAMPLES, bpftrace_stacks, folded_stacks,
                         mean_user_frames, samples_started, samples_through,
                         stacks_through)
from .tap import Tap
from .util import HarnessError, Stopwatch, cache_dir, cache_lock, log, run

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.abspath(os.path.join(VM_DIR, "..", "..", ".."))
# node's JavaScript, beside the guest script on the test disk.
NODE_WORKLOAD = os.path.join(REPO, "tools", "testing", "workloads", "noderecurse.js")
DEFAULT_KERNELS = ["debian-6.12", "debian-6.1"]
SERVER_KERNELS = ["debian-6.12"]
BOOT_LIMIT = 2400               # seconds per boot: DKMS compiles under TCG
# The throughput phase's boot: seven windows a server and two warm-ups.
BOOT_LIMITS = {"throughput": 4800}
# The throughput phase's guest has one CPU.  Single-threaded TCG runs a
# guest's CPUs in turn on one host core, so with two, whatever ran on the
# CPU the server left idle (the service, perf's own process) would take
# its time from the server's CPU, which on a machine it never does.  With
# one, the guest's scheduler shares it, by the units' weights, as on a
# machine whose every CPU the server keeps busy: the case that matters.
BOOT_CPUS = {"throughput": 1}
# The throughput phase's guest counts instructions (qemu.ICOUNT_ARGS): a
# guest second is 10^9 of them, so a window's rate is per instruction
# the guest ran, the same run after run whatever else the host does,
# where timed by the host's clock the same setting's two windows were
# up to a quarter apart.  It measures what profiling costs in CPU work,
# which is what it takes from a server that keeps its CPU busy.  A wait
# for the host's disk takes no guest time but jumps the clock to the
# guest's next timer, again and again: a task waiting a few host
# seconds can seem blocked for minutes, so that boot turns the hung-task
# check off (BOOT_ARGS).
BOOT_ICOUNT = {"throughput": True}
BOOT_ARGS = {"throughput": ["sysctl.kernel.hung_task_timeout_secs=0"]}
IDLE_LIMIT = 900                # apt and DKMS print nothing on the ports meanwhile
GUEST_SETTINGS = {"PERF_FREQ": "499", "PERF_SECONDS": "10",
                  "THROUGHPUT_FREQ": "999", "THROUGHPUT_SECONDS": "10"}
# Each mode's phases in order, one boot each (the guest script's
# functions NAME_phase), and each phase's perf recordings: NAME.perf, of
# the program whose command name is given.  xz-upgrade: xz started again
# after a new liblzma5 was installed with dpkg -i.  The image of the same
# kind (sysimage.IMAGES) holds what the mode's phases run.
PROGRAMS = {"perl": "perl", "xz": "xz", "sqlite3": "sqlite3", "lzip": "lzip", "node": "node"}
# The servers mode's recordings, each a stock server under its stock
# client (the guest's load), and their processes by command name: True
# for those that must have samples enough to be judged, False for those
# judged when they have (a client, or threads the load may leave idle
# under TCG).  PostgreSQL: pgbench over 4 pooled connections, then a
# connection per transaction, each a forked backend that dlopens
# plpgsql.so and recurses in PL/pgSQL; Redis with 2 I/O threads; nginx's
# workers, gzip on.
SERVERS = {
    "pg-pooled": {"postgres": True, "pgbench": False},
    "pg-connect": {"postgres": True, "pgbench": False},
    "redis": {"redis-server": True, "io_thd_1": False, "io_thd_2": False,
              "redis-benchmark": False},
    "nginx": {"nginx": True, "ab": False},
}
# A server's processes, the backends forked per connection among them
# (each dlopening plpgsql.so and living a fraction of a second): whole
# in 99 % of the samples.  Those backends were 99.7 % whole in one run
# (7,051 samples); the rest stop in ld.so's lazy binding (below
# _dl_runtime_resolve, whose CFA is based on RBX, which the walk does not
# recover) and in OpenSSL's AES_encrypt (a CFA expression SFrame cannot
# hold).
SERVER_REACH_LIMIT = 0.99
# The servers mode's control: pooled PostgreSQL recorded by perf's own
# walker, before the packages go in.  The judge must find it incomplete,
# or it could not tell the module's stacks from the stock walker's.
SERVER_CONTROL = {"pg-pooled-stock": "postgres"}
# Where a whole walk ends, as perf names it by Debian 12's libc's dynamic
# symbols: below main (forked workers too), or at a thread's start in
# clone, which a unit's SystemCallFilter= makes libc use (it refuses
# clone3 with ENOSYS; redis-server's unit has one).  clone3, where other
# threads start, has no such symbol, so the clients run on one thread
# (pgbench -j 1).
STARTS = ("__libc_start_main", "__clone")
MODES = {"full": {"install": {**PROGRAMS, "xz-upgrade": "xz"}, "reboot": PROGRAMS},
         "servers": {"servers": SERVERS},
         "throughput": {"throughput": {}}}
# The image each mode boots, where it is not the mode's own kind.
IMAGE_OF = {"throughput": "servers"}
KERNELS_OF = {"full": DEFAULT_KERNELS, "servers": SERVER_KERNELS,
              "throughput": SERVER_KERNELS}
# The throughput phase's figures: each load's rate (metric LOAD_HOW) with
# each HOW: no perf, perf's own walker, the module while the service
# warms up, the module once it is idle; perf's walker and the warm module
# twice each, in turns (LOAD_HOW and LOAD_HOW_2), compared by their means;
# last the module and its service without perf (module), against none.
THROUGHPUT_LOADS = ("pg_pooled", "pg_connect", "redis", "nginx")
THROUGHPUT_WINDOWS = {"none": ("none",), "stock": ("stock", "stock_2"),
                      "warming": ("warming",), "warm": ("warm", "warm_2"),
                      "module": ("module",)}
# What the module aims at, as a share of the rate under perf's own
# walker.  Reported beside each ratio, not asserted: TCG's timings are
# not a machine's, and one run of each is noisy.
THROUGHPUT_GOALS = {"warming": 0.8, "warm": 0.97}
# A frame each sample's walk must reach, when the program's own named
# frames go through it: (recording, its library's file name, symbol).
THROUGH = {"sqlite3": ("libsqlite3.so", "sqlite3_step")}
# Samples whose walk reaches main, of all the program's samples: its
# sidecars (and libc's and the library's) are in use before perf starts.
REACH_LIMIT = 0.98
# Debian's programs are stripped: a walk that went through main is seen
# in the C library's frame that called it, which perf names by libc's
# dynamic symbols.
START_MAIN = "__libc_start_main"
# Programs judged by their outermost frame instead: (its object's file
# name, symbol).  /usr/bin/node exports its symbols for native addons,
# _start among them, so perf names the frame below __libc_start_main
# (node's main jumps to node::Start in libnode and leaves no frame).  Its
# walks go from V8's JIT frames (frame pointers, no unwind tables)
# through libnode's C++ (a sidecar) to there.
OUTERMOST = {"node": ("node", "_start")}
# The install phase's clients.*: perf, bpftrace and bcc's profile in turn
# over perl and xz running together; each client's stacks must reach
# main as often as REACH_LIMIT asks of perf's.
CLIENTS = {"bpftrace": bpftrace_stacks, "bcc": folded_stacks}
CLIENT_PROGRAMS = ["perl", "xz"]

def guest_setting(name):
    """Return the guest's setting name (GUEST_SETTINGS), or VMTEST_<name>."""
    return os.environ.get(f"VMTEST_{name}", GUEST_SETTINGS[name])


def make_debs(results):
    """Build the packages with make deb; return [the two .debs]."""
    logfile = os.path.join(results, "deb.log")
    run(["make", "-s", "-C", REPO, "deb"], logfile=logfile)
    debs = [d for d in glob.glob(os.path.join(REPO, "build", "deb", "*.deb"))
            if "-dbgsym_" not in d]
    if len(debs) != 2:
        raise HarnessError(f"make deb gave {len(debs)} packages, want 2 (see {logfile})")
    return sorted(debs)


def make_test_disk(debs, kernel, phases, path):
    """Make the second disk: the guest scripts, lib.sh, settings, the .debs, node's JS."""
    staging = path + ".d"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(os.path.join(staging, "debs"))
    for name in ("systest.sh", "servers.sh", "lib.sh"):
        shutil.copyfile(os.path.join(VM_DIR, "guest", name), os.path.join(staging, name))
    shutil.copyfile(NODE_WORKLOAD, os.path.join(staging, os.path.basename(NODE_WORKLOAD)))
    for deb in debs:
        shutil.copyfile(deb, os.path.join(staging, "debs", os.path.basename(deb)))
    settings = {k: guest_setting(k) for k in GUEST_SETTINGS}
    settings["KERNEL"] = kernel
    settings["PHASES"] = " ".join(phases)
    with open(os.path.join(staging, "settings"), "w") as f:
        f.write("".join(f"{k}='{v}'\n" for k, v in settings.items()))
    run(["mkfs.ext4", "-q", "-F", "-L", "vmtest", "-d", staging, path, "64M"], quiet=True)
    shutil.rmtree(staging)


def judge_fraction(report, what, reaching, samples, failures, passes, reach="main",
                   note="", limit=REACH_LIMIT, below=False):
    """Report what's share of samples reaching reach; judge it against limit.

    below: the share must stay under limit instead (a control).
    """
    frac = reaching / samples if samples else 0.0
    report.metrics[f"{what}_{reach.strip('_')}_pct"] = f"{100 * frac:.1f}"
    report.metrics[f"{what}_samples"] = str(samples)
    verdict = f"{what}: {100 * frac:.1f}% of {samples} samples reach {reach}{note}, " \
              f"want {'<' if below else '>='} {100 * limit:.0f}%"
    if samples < MIN_SAMPLES:
        failures.append(f"{what}: only {samples} samples")
    else:
        (passes if (frac < limit) == below else failures).append(verdict)


def recording(report, name, failures):
    """Return the text of the recording name.perf, or None (a failure said)."""
    perf = report.artefacts.get(f"{name}.perf")
    if perf is None:
        failures.append(f"{name}: no perf output")
        return None
    return perf.decode(errors="replace")


def judge_servers(report, recordings):
    """Return (failures, passes): each server's processes, complete as REACH_LIMIT asks."""
    failures, passes = [], []
    for name, comms in recordings.items():
        text = recording(report, name, failures)
        if text is None:
            continue
        for comm, required in comms.items():
            started, samples = samples_started(text, comm, STARTS)
            what = f"{name}_{comm.replace('-', '_')}"
            if samples < MIN_SAMPLES and not required:
                report.metrics[f"{what}_samples"] = str(samples)
                continue
            frames = mean_user_frames(text, comm)
            report.metrics[f"{what}_frames_mean"] = f"{frames:.1f}"
            judge_fraction(report, what, started, samples, failures, passes, "start",
                           f" ({' or '.join(STARTS)}), {frames:.1f} frames on average",
                           SERVER_REACH_LIMIT)
    for name, comm in SERVER_CONTROL.items():
        text = recording(report, name, failures)
        if text is not None:
            judge_fraction(report, f"{name}_{comm}", *samples_started(text, comm, STARTS),
                           failures, passes, "start", " with perf's own walker (the control)",
                           SERVER_REACH_LIMIT, below=True)
    return failures, passes


def window_values(report, load, how, suffix=""):
    """Return the metric LOAD_WINDOW<suffix> of each of load's windows of
    how, as numbers, or None if one is missing or not a number."""
    try:
        return [float(report.metrics[f"{load}_{window}{suffix}"])
                for window in THROUGHPUT_WINDOWS[how]]
    except (KeyError, ValueError):
        return None


def throughput_rate(report, load, how):
    """Return the mean of load's windows of how, or 0.0 if one measured nothing."""
    rates = window_values(report, load, how)
    return sum(rates) / len(rates) if rates and min(rates) > 0 else 0.0


def throughput_noise(report, load):
    """Return what load's repeated windows say of the run's noise, as text.

    Perf's walker and the warm module each ran twice: how far apart each
    pair's rates are (LOAD_HOW_spread, the difference over the mean) is
    what the same setting moved by within the run.  With the guest
    counting instructions (BOOT_ICOUNT) the clock adds no noise, and a
    spread is the setting's own: the second warm window follows the
    service's restart on its cache, which supplies the client's files
    again once it starts.
    """
    spreads = []
    for how in ("stock", "warm"):
        rates = window_values(report, load, how)
        spread = (max(rates) - min(rates)) / (sum(rates) / len(rates))
        report.metrics[f"{load}_{how}_spread"] = f"{spread:.2f}"
        spreads.append(spread)
    return f"the same setting's two windows {max(spreads):.2f} apart at most"


def throughput_shares(report, load):
    """Return where the module's and the service's CPU time went, as text.

    Measured, not inferred from the rates: the walks' CPU time
    (LOAD_HOW_walk_ms), the service's with its children
    (LOAD_HOW_service_ms), the kernel's workers', where the module reads
    and rescans (LOAD_HOW_kworker_ms), and the time the CPU stood idle
    (LOAD_HOW_idle_ms), each as a share of the guest's CPU time in the
    window (LOAD_HOW_walk_share and so on), under perf's walker, while
    the service warms up and once it is idle.  A load that leaves the CPU
    idle waits on something other than the CPU time the rest took.
    """
    cpu_ms = float(guest_setting("THROUGHPUT_SECONDS")) * 1000 * BOOT_CPUS["throughput"]
    said = []
    for how in ("stock", "warming", "warm"):
        shares = []
        for what in ("walk", "service", "kworker", "idle"):
            ms = window_values(report, load, how, f"_{what}_ms")
            if ms is None:
                continue
            share = sum(ms) / len(ms) / cpu_ms
            report.metrics[f"{load}_{how}_{what}_share"] = f"{share:.3f}"
            shares.append(f"{what} {share:.1%}")
        if shares:
            said.append(f"{how}: " + ", ".join(shares))
    if not said:
        return "no CPU times"
    return "of the guest's CPU time, " + "; ".join(said)


def judge_throughput(report):
    """Return (failures, passes): each load's rates there, their ratios as metrics."""
    failures, passes = [], []
    for load in THROUGHPUT_LOADS:
        rates = {how: throughput_rate(report, load, how) for how in THROUGHPUT_WINDOWS}
        missing = [how for how, rate in rates.items() if rate <= 0]
        if missing:
            failures.append(f"{load}: no rate {' or '.join(missing)}")
            continue
        stock, none = rates["stock"], rates["none"]
        report.metrics[f"{load}_stock_ratio"] = f"{stock / none:.2f}"
        report.metrics[f"{load}_module_ratio"] = f"{rates['module'] / none:.2f}"
        said = [f"without perf {rates['module'] / none:.2f}x with the module loaded than "
                f"without, {stock:g}/s with perf's walker ({stock / none:.2f}x of no perf)"]
        for how, goal in THROUGHPUT_GOALS.items():
            ratio = rates[how] / stock
            report.metrics[f"{load}_{how}_ratio"] = f"{ratio:.2f}"
            said.append(f"{how} {ratio:.2f}x of it (goal {goal:.2f}x)")
        said.append(throughput_noise(report, load))
        said.append(throughput_shares(report, load))
        windows = [w for how in ("stock", "warming", "warm") for w in THROUGHPUT_WINDOWS[how]]
        said.append("each window's rate, perf's MB and walk ms: " + ", ".join(
            f"{w} " + "/".join(report.metrics.get(f"{load}_{w}{m}", "-")
                               for m in ("", "_mb", "_walk_ms"))
            for w in windows))
        passes.append(f"{load}: " + ", ".join(said))
    return failures, passes


def judge_stacks(report, recordings):
    """Return (failures, passes) for the samples of the phase's recordings."""
    if report.name == "servers":
        return judge_servers(report, recordings)
    if report.name == "throughput":
        return judge_throughput(report)
    failures, passes = [], []
    for name, comm in recordings.items():
        text = recording(report, name, failures)
        if text is None:
            continue
        frames = mean_user_frames(text, comm)
        report.metrics[f"{name}_frames_mean"] = f"{frames:.1f}"
        note = f", {frames:.1f} frames on average"
        if comm in OUTERMOST:
            dso, sym = OUTERMOST[comm]
            judge_fraction(report, name, *samples_through(text, comm, sym, dso),
                           failures, passes, sym, f" in {dso}" + note)
        else:
            judge_fraction(report, name, *samples_through(text, comm, START_MAIN),
                           failures, passes, note=f" ({START_MAIN})" + note)
        if name in THROUGH:
            dso, sym = THROUGH[name]
            judge_fraction(report, f"{name}_{sym}",
                           *samples_through(text, comm, sym, dso), failures, passes)
    if report.name == "install":
        judge_clients(report, failures, passes)
    elif report.name == "reboot":
        judge_memory(report, failures, passes)
    return failures, passes


def judge_memory(report, failures, passes):
    """The service's kernel bytes after the workloads against load --system's."""
    service = module_stat(report.artefacts, "kernel_bytes")
    system = module_stat(report.artefacts, "kernel_bytes", "system.stats")
    if service is None or system is None:
        failures.append("memory: no kernel_bytes from the service or from load --system")
        return
    report.metrics["kernel_bytes_service"] = str(service)
    report.metrics["kernel_bytes_load_system"] = str(system)
    verdict = f"memory: the service holds {service} kernel bytes, load --system {system}"
    (passes if service < system else failures).append(verdict)


def judge_clients(report, failures, passes):
    """Judge perf's, bpftrace's and bcc's stacks of CLIENT_PROGRAMS."""
    perf = report.artefacts.get("clients.perf")
    if perf is None:
        failures.append("clients: no perf output")
    for comm in CLIENT_PROGRAMS if perf else []:
        judge_fraction(report, f"clients_perf_{comm}",
                       *samples_through(perf.decode(errors="replace"), comm, START_MAIN),
                       failures, passes)
    for client, parse in CLIENTS.items():
        out = report.artefacts.get(f"clients.{client}")
        if out is None:
            failures.append(f"clients: no {client} output")
            continue
        stacks = parse(out.decode(errors="replace"))
        for comm in CLIENT_PROGRAMS:
            judge_fraction(report, f"clients_{client}_{comm}",
                           *stacks_through(stacks, comm, START_MAIN), failures, passes)

def boot_phase(name, phase, recordings, image, disks, outdir, tap, timings):
    """Boot the image once and report the phase; return its summary entry."""
    console_log = os.path.join(outdir, f"console-{phase}.log")
    channel_log = os.path.join(outdir, f"channel-{phase}.log")
    limit = BOOT_LIMITS.get(phase, BOOT_LIMIT)
    log(f"{name}: boot for {phase}, limit {limit} s, console: {console_log}")
    result = qemu.boot(image.vmlinuz, image.initrd, console_log, channel_log, limit,
                       extra_args=["root=/dev/vda", "rw"] + BOOT_ARGS.get(phase, []),
                       disks=disks, idle_timeout=IDLE_LIMIT,
                       cpus=BOOT_CPUS.get(phase, qemu.CPUS),
                       icount=BOOT_ICOUNT.get(phase))
    timings[f"{name} {phase} boot"] = round(result.seconds, 1)
    with open(console_log, errors="replace") as f:
        sections = console.split_sections(f.read())
    with open(channel_log, errors="replace") as f:
        chan = channel.parse_channel(f.read())
    report = chan.reports.get(phase)
    channel.save_artefacts(report or channel.GuestReport(phase), os.path.join(outdir, phase))
    failures = [f"{reason}: {line}" for reason, line in
                console.kernel_problems([ln for lines in sections.values() for ln in lines])]
    if result.stopped:
        failures.insert(0, result.stopped)
    if report is None:
        failures.insert(0, f"the guest never began {phase}")
        passes = []
    else:
        passes = [m for ok, m in report.results if ok]
        failures += [m for ok, m in report.results if not ok]
        if report.rc is None or not chan.done:
            failures.append(f"{phase} did not finish")
        more_failures, more_passes = judge_stacks(report, recordings)
        failures += more_failures
        passes += more_passes
    metrics = report.metrics if report else {}
    diags = [f"release={chan.booted}", f"seconds={result.seconds:.0f}"] + \
        [f"{k}={v}" for k, v in metrics.items()] + \
        [f"fail: {m}" for m in failures] + [f"pass: {m}" for m in passes]
    ok = not failures and bool(passes)
    tap.test(ok, f"{name} {phase}", failures[0] if failures else "", diags)
    return {"kernel": name, "phase": phase, "ok": ok, "metrics": metrics,
            "failures": failures, "seconds": round(result.seconds, 1),
            "finished": bool(report and report.rc is not None and chan.done)}


def test_kernel(name, mode, args, debs, results, tap, summary, timings):
    """Build or reuse the kernel's image of mode's kind, boot it for each phase."""
    outdir = os.path.join(results, name)
    os.makedirs(outdir, exist_ok=True)
    phases = list(MODES[mode])
    disk = os.path.join(outdir, "root.img")
    test_disk = os.path.join(outdir, "vmtest.img")
    with cache_lock():
        kernel = kernels.fetch_debian(name, cache_dir(), refresh=args.refresh)
        suite = kernels.KERNELS[name][0]
        with Stopwatch(f"{name} image", timings):
            image = sysimage.ensure_image(cache_dir(), kernel, suite,
                                          IMAGE_OF.get(mode, mode),
                                          sysimage.deb_dependencies(debs),
                                          os.path.join(outdir, "image-build.log"))
        tap.test(True, f"{name} image", diagnostics=[image.dir])
        with Stopwatch(f"{name} disks", timings):
            run(["cp", "--sparse=always", image.disk, disk], quiet=True)
            make_test_disk(debs, name, phases, test_disk)
    for phase, recordings in MODES[mode].items():
        outcome = boot_phase(name, phase, recordings, image, [disk, test_disk], outdir,
                             tap, timings)
        summary.append(outcome)
        if not outcome["finished"] and phase != phases[-1]:
            tap.skip(f"{name} {phases[-1]}", f"{phase} did not finish")
            break
    os.unlink(disk)         # a few GB; the cached image stays


def check_kernels(names):
    """Refuse a kernel the system test has no image for."""
    for name in names:
        if name not in DEFAULT_KERNELS:
            raise HarnessError(f"--system: no Debian 12 system image for {name} "
                               f"(only {' '.join(DEFAULT_KERNELS)})")


def main(args):
    """vmtest --system with vmtest's parsed args: returns the exit status."""
    check_kernels(args.kernel or [])
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    results = os.path.abspath(args.results or os.path.join(REPO, "results", f"systest-{stamp}"))
    os.makedirs(results, exist_ok=True)
    log(f"results in {results}")
    tap, summary, timings = Tap(), [], {}
    try:
        with cache_lock(), Stopwatch("make deb", timings):
            debs = make_debs(results)
    except HarnessError as e:
        tap.test(False, "make deb", str(e).splitlines()[0])
        tap.finish()
        return 1
    tap.test(True, "make deb", diagnostics=[os.path.basename(d) for d in debs])
    mode = next((m for m in ("servers", "throughput") if getattr(args, m)), "full")
    for name in args.kernel or KERNELS_OF[mode]:
        try:
            test_kernel(name, mode, args, debs, results, tap, summary, timings)
        except (HarnessError, subprocess.CalledProcessError, ValueError) as e:
            tap.test(False, f"{name} harness", str(e).splitlines()[0])
    with open(os.path.join(results, "tap.txt"), "w") as f:
        f.write("\n".join(tap.lines) + "\n")
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump({"mode": mode, "runs": summary, "timings_s": timings}, f, indent=1)
    tap.finish()
    return 0 if tap.failed == 0 and tap.count > 0 else 1
