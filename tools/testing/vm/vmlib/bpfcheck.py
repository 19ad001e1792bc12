"""Read the dump of tools/testing/workloads/bpfstack as the stack checker's input.

bpfstack writes the sampled program's /proc/PID/maps and every BPF user
stack (bpf_get_stackid with BPF_F_USER_STACK) with the number of samples
that had it.  The stacks are written in the shape of `perf script -F
comm,tid,ip,sym,dso`, each repeated as many times as it was sampled, so
that stackcheck.completeness() weighs them by their counts.
"""

from vmlib.ftracecheck import frame_line, parse_maps


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
