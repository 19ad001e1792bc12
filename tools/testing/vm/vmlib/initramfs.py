"""Build the guest's initramfs: busybox, perf, workloads, modules, scenarios.

Dynamic programs are copied with every library ldd names and the loader, at
the paths ldd prints, so they run unchanged in the guest.
"""

import os
import re
import shlex
import shutil
import subprocess

from .util import HarnessError, need_tool, run

GUEST_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "guest")


def find_perf():
    """Return the real perf binary (Debian's /usr/bin/perf may be a wrapper)."""
    path = need_tool("perf")
    with open(path, "rb") as f:
        if f.read(4) == b"\x7fELF":
            return path
    candidates = sorted(p for p in os.listdir("/usr/bin") if re.match(r"perf_\d", p))
    if not candidates:
        raise HarnessError("only a perf wrapper found: install linux-perf")
    return os.path.join("/usr/bin", candidates[-1])


def shared_libraries(binary):
    """Return the absolute paths of the libraries (and loader) binary needs."""
    proc = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if proc.returncode and "not a dynamic executable" in proc.stdout + proc.stderr:
        return []
    libs = []
    for line in proc.stdout.splitlines():
        if "not found" in line:
            raise HarnessError(f"{binary}: {line.strip()}")
        m = re.search(r"(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
    return libs


def is_elf(path):
    """Tell whether path is an ELF file."""
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


class Initramfs:
    """A staging tree that becomes a gzip'd newc cpio archive."""

    def __init__(self, staging):
        self.root = staging
        shutil.rmtree(staging, ignore_errors=True)
        for d in ("bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev", "tmp",
                  "modules", "vmtest/scenarios", "mnt"):
            os.makedirs(os.path.join(staging, d), exist_ok=True)

    def add_file(self, src, dest, mode=None):
        """Copy src (following symlinks) to dest inside the tree."""
        target = os.path.join(self.root, dest.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(src, target)
        shutil.copymode(src, target)
        if mode is not None:
            os.chmod(target, mode)

    def add_libraries_of(self, binary):
        """Copy the shared libraries binary needs, once each."""
        for lib in shared_libraries(binary):
            if not os.path.exists(os.path.join(self.root, lib.lstrip("/"))):
                self.add_file(lib, lib)

    def add_busybox(self):
        """Install busybox-static as /bin/busybox plus its applet links."""
        busybox = need_tool("busybox")
        if shared_libraries(busybox):
            raise HarnessError(f"{busybox} is not static: install busybox-static")
        self.add_file(busybox, "/bin/busybox")
        applets = run([busybox, "--list-full"], quiet=True).split()
        for applet in applets:
            link = os.path.join(self.root, applet)
            if not os.path.lexists(link):
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink("/bin/busybox", link)

    def add_perf(self):
        """Install the real perf binary as /usr/bin/perf with its libraries."""
        perf = find_perf()
        self.add_file(perf, "/usr/bin/perf")
        self.add_libraries_of(perf)

    def add_tree(self, src, dest):
        """Copy a directory tree, then the libraries of its dynamic ELF files."""
        target = os.path.join(self.root, dest.lstrip("/"))
        shutil.copytree(src, target, symlinks=False, dirs_exist_ok=True)
        for dirpath, _, files in os.walk(target):
            for name in files:
                path = os.path.join(dirpath, name)
                if os.access(path, os.X_OK) and is_elf(path) and not name.endswith(".so"):
                    self.add_libraries_of(path)

    def add_guest_scripts(self, plan, settings):
        """Install /init, the guest library, the planned scenarios and settings."""
        self.add_file(os.path.join(GUEST_DIR, "init"), "/init", 0o755)
        self.add_file(os.path.join(GUEST_DIR, "lib.sh"), "/vmtest/lib.sh", 0o644)
        for scenario in plan:
            self.add_file(scenario.path, f"/vmtest/scenarios/{scenario.name}.sh", 0o755)
        with open(os.path.join(self.root, "vmtest/plan"), "w") as f:
            f.write("".join(f"{s.name} {s.timeout}\n" for s in plan))
        with open(os.path.join(self.root, "vmtest/settings"), "w") as f:
            f.write("".join(f"{k}={shlex.quote(str(v))}\n" for k, v in settings.items()))

    def write(self, path):
        """Pack the tree into path as a gzip'd newc cpio archive; drop the tree."""
        need_tool("cpio")
        files = subprocess.run(["find", "."], cwd=self.root, capture_output=True,
                               check=True).stdout
        with open(path, "wb") as out:
            cpio = subprocess.Popen(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"],
                                    cwd=self.root, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE)
            gz = subprocess.Popen(["gzip", "-1"], stdin=cpio.stdout, stdout=out)
            cpio.stdout.close()
            cpio.stdin.write(files)
            cpio.stdin.close()
            if cpio.wait() or gz.wait():
                raise HarnessError(f"packing {path} failed")
        shutil.rmtree(self.root)
