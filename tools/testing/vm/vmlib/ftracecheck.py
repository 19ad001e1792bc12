"""Read ftrace's userstacktrace output as the stack checker's input.

With options/userstacktrace set, every traced event is followed by a
"<user stack trace>" record of raw return addresses.  Each address is
resolved through the process's /proc/PID/maps and the object's symbols,
and the stacks are written in the shape of `perf script -F
comm,tid,ip,sym,dso`, so that stackcheck.completeness() judges them.
"""

import bisect
import re
import struct
import subprocess

TRACE_HEAD = re.compile(r"^\s*(\S+)-(\d+)\s+\[\d+\].*<user stack trace>")
TRACE_ADDR = re.compile(r"^\s*=>\s*<([0-9a-f]+)>")


def parse_maps(text):
    """Return [(start, end, offset, path)] of the file mappings in a maps file."""
    maps = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 6 or not fields[5].startswith("/"):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        maps.append((start, end, int(fields[2], 16), fields[5]))
    return maps


def load_segments(binary):
    """Return [(offset, vaddr, filesz)] of an ELF64 LE object's PT_LOADs."""
    with open(binary, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            segs.append((p_offset, p_vaddr, p_filesz))
    return segs


class Symbols:
    """Function symbols of one object, looked up by link-time address."""

    def __init__(self, binary):
        out = subprocess.run(["nm", "-n", "--defined-only", binary],
                             capture_output=True, text=True, check=True).stdout
        self.addrs, self.names = [], []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                self.addrs.append(int(parts[0], 16))
                self.names.append(parts[2])
        self.segments = load_segments(binary)

    def name_at_offset(self, file_offset):
        """The function containing file offset, or None."""
        for offset, vaddr, filesz in self.segments:
            if offset <= file_offset < offset + filesz:
                i = bisect.bisect_right(self.addrs, vaddr + file_offset - offset) - 1
                return self.names[i] if i >= 0 else None
        return None


def to_perf_script(trace_text, maps_by_pid, symbols_by_path):
    """Convert userstacktrace records to perf-script text.

    maps_by_pid: {pid: parse_maps(...)}; symbols_by_path: {guest path:
    Symbols} for the objects whose frames should get names.
    """
    out, pid = [], None
    for line in trace_text.splitlines():
        head = TRACE_HEAD.match(line)
        if head:
            pid = int(head.group(2))
            out.append(f"{head.group(1)} {pid}")
            continue
        addr = TRACE_ADDR.match(line)
        if not addr or pid is None:
            if line.strip() and not line.startswith("#"):
                pid = None
            continue
        out.append(frame_line(int(addr.group(1), 16), maps_by_pid.get(pid, []),
                              symbols_by_path))
    return "\n".join(out) + "\n"


def frame_line(ip, maps, symbols_by_path):
    """Return ip as a perf-script frame line: tab, IP, SYM, (DSO).

    maps: parse_maps() of the process; symbols_by_path: {guest path:
    Symbols} for the objects whose frames should get names.
    """
    sym, dso = "[unknown]", "[unknown]"
    for start, end, offset, path in maps:
        if start <= ip < end:
            dso = path
            if path in symbols_by_path:
                sym = symbols_by_path[path].name_at_offset(ip - start + offset) or sym
            break
    return f"\t{ip:x} {sym} ({dso})"
