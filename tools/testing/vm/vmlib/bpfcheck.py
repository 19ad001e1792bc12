"""Read the dump of tools/testing/workloads/bpfstack as the stack checker's input.

bpfstack writes the sampled program's /proc/PID/maps and every BPF user
stack (bpf_get_stackid with BPF_F_USER_STACK; with -D, every deferred perf
callchain) with the number of samples that had it.  The stacks are written in the shape of `perf script -F
comm,tid,ip,sym,dso`, each repeated as many times as it was sampled, so
that stackcheck.completeness() weighs them by their counts.
"""

from vmlib.ftracecheck import Symbols, frame_line, parse_maps
from vmlib.machinecode import realise_artefacts, workload_path
from vmlib.stackcheck import MIN_SAMPLES, completeness, meets


class Dump:
    """One bpfstack output: maps, [(count, [ip])] and {errno: count}."""

    def __init__(self, text):
        self.stacks, self.errors = [], {}
        maps, section = [], None
        for line in text.splitlines():
            fields = line.split()
            if line.startswith("@@ maps"):
                section = maps
            elif line.startswith("@@ stack "):
                section = []
                self.stacks.append((int(fields[4]), section))
            elif line.startswith("@@ error "):
                self.errors[int(fields[2])] = int(fields[4])
                section = None
            elif section is maps:
                maps.append(line)
            elif section is not None and line.strip():
                section.append(int(line, 16))
        self.maps = parse_maps("\n".join(maps))

    def samples(self):
        """Number of samples whose stack was stored."""
        return sum(count for count, _ in self.stacks)

    def refused(self):
        """Number of samples bpf_get_stackid() failed on."""
        return sum(self.errors.values())

    def to_perf_script(self, comm, symbols_by_path):
        """Return the stacks as perf-script text, one sample per count.

        symbols_by_path: {guest path: ftracecheck.Symbols} for the objects
        whose frames should get names.
        """
        out = []
        for count, ips in self.stacks:
            sample = [f"{comm} 0"] + [frame_line(ip, self.maps, symbols_by_path)
                                      for ip in ips]
            out += sample * count
        return "\n".join(out) + "\n"


def check_stacks(run, build, limits, what):
    """Assert each label's stacks of the chain pattern against limits.

    build: the workload build under the fixtures ("v3-binutils-2.47/deep"),
    which the guest ran as /workloads/BUILD (an arm64 guest: the committed
    AArch64 build of that name).  limits: {label: (op, bound)},
    where LABEL.expect and LABEL.stacks are the guest's artefacts and op is
    ">=" or "<".  Stacks are weighted by their counts.
    """
    binary = workload_path(build, run.kernel)
    realise_artefacts(run, binary)
    symbols = {f"/workloads/{build}": Symbols(binary)}
    comm = build.rsplit("/", 1)[-1]
    for label, (op, bound) in limits.items():
        expect = run.artefacts.get(f"{label}.expect")
        stacks = run.artefacts.get(f"{label}.stacks")
        if expect is None or stacks is None:
            run.fail(f"{label}: no {what} from the guest")
            continue
        dump = Dump(stacks.decode(errors="replace"))
        complete, eligible = completeness(expect.decode(),
                                          dump.to_perf_script(comm, symbols))
        frac = complete / eligible if eligible else 0.0
        run.metric(f"{label}_complete_pct", f"{100 * frac:.1f}")
        run.metric(f"{label}_samples", str(eligible))
        run.metric(f"{label}_refused_samples", str(dump.refused()))
        if eligible < MIN_SAMPLES:
            run.fail(f"{label}: only {eligible} {what} in the hot leaf")
        elif meets(frac, op, bound):
            run.passed(f"{label}: {100 * frac:.1f}% {op} {100 * bound:.0f}% of {what} "
                       "complete")
        else:
            run.fail(f"{label}: {100 * frac:.1f}% of {what} complete, "
                     f"want {op} {100 * bound:.0f}%")
