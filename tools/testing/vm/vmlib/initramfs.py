"""Build the guest's initramfs: busybox, perf, workloads, modules, scenarios.

Dynamic programs are copied with every library ldd names and the loader, at
the paths ldd prints, so they run unchanged in the guest.  For a guest of
another architecture (arm64) busybox, perf and the libraries come from
that architecture's Debian packages instead (vmlib/sysroot.py).  Debian's python3
comes along only for scenarios that declare "needs: python".
"""

import os
import re
import shlex
import shutil
import subprocess

from .util import HarnessError, need_tool, run

GUEST_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "guest")
DEBIAN_PYTHON = "/usr/bin/python3"     # the machine's own, for scenarios that need python


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


def python_loads(python, argv, launcher=()):
    """Return (source, destination) of each file `python -I -S argv` loads.

    The run has an empty environment, as in the guest; launcher is a
    command prefix (another userland's loader and its --library-path).
    A module compiled into __pycache__ goes to the destination a
    sourceless import finds (dir/__pycache__/name.cpython-311.pyc becomes
    dir/name.pyc).
    """
    proc = subprocess.run([*launcher, python, "-I", "-S", "-v"] + list(argv), env={},
                          capture_output=True, text=True, check=False)
    if proc.returncode:
        raise HarnessError(f"{python} {' '.join(argv)} failed on the host:\n"
                           f"{proc.stderr[-2000:]}")
    return parse_python_verbose(proc.stderr)


def parse_python_verbose(text):
    """Return (source, destination) of the files a `python -v` trace loaded.

    A module read from its cached bytecode and an extension module are
    traced with the path quoted; one compiled from its source (no
    __pycache__ yet: Debian's packages ship none, and a fresh sysroot
    has none until a first run writes it) without quotes.
    """
    files = []
    for m in re.finditer(r"^# (?:code object from|extension module '[\w.]+' loaded from) "
                         r"(?:'([^']+)'|(/[^'\n]+))$", text, re.M):
        src = m.group(1) or m.group(2)
        folder, name = os.path.split(src)
        if os.path.basename(folder) == "__pycache__":
            module = name.split(".")[0]
            files.append((src, os.path.join(os.path.dirname(folder), module + ".pyc")))
        else:
            files.append((src, src))
    return files


def is_elf(path):
    """Tell whether path is an ELF file."""
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


class Initramfs:
    """A staging tree that becomes a gzip'd newc cpio archive."""

    def __init__(self, staging, sysroot=None):
        self.root = staging
        self.sysroot = sysroot          # a Sysroot for a foreign guest, else None
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
        if self.sysroot:
            libs = [(self.sysroot.path(lib), lib) for lib in self.sysroot.libraries(binary)]
        else:
            libs = [(lib, lib) for lib in shared_libraries(binary)]
        for src, lib in libs:
            if not os.path.exists(os.path.join(self.root, lib.lstrip("/"))):
                self.add_file(src, lib)

    def add_busybox(self):
        """Install busybox-static as /bin/busybox plus its applet links.

        A foreign guest's busybox cannot list its applets here: it gets
        /bin/sh only, and /init installs the other links at boot.
        """
        if self.sysroot:
            self.sysroot.install("busybox-static")
            self.add_file(self.sysroot.path("/bin/busybox"), "/bin/busybox")
            if self.sysroot.libraries(self.sysroot.path("/bin/busybox")):
                raise HarnessError("the guest's busybox-static is not static")
            os.symlink("busybox", os.path.join(self.root, "bin/sh"))
            return
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
        if self.sysroot:
            self.sysroot.install("linux-perf")
            perf = self.sysroot.path("/usr/bin/perf")
        else:
            perf = find_perf()
        self.add_file(perf, "/usr/bin/perf")
        self.add_libraries_of(perf)

    def add_python(self, python, argv):
        """Install the python interpreter and the part of its library argv needs.

        Only what `python -I -S argv` loads from disk on this machine comes
        along (compiled modules as sourceless .pyc files, which need no
        matching source time stamps), plus os.py and lib-dynload/, the
        landmarks by which the interpreter finds its prefix.
        """
        real = os.path.realpath(python)
        self.add_file(real, real)
        if real != python:
            os.symlink(real, os.path.join(self.root, python.lstrip("/")))
        self.add_libraries_of(real)
        stdlib = os.path.dirname(run([real, "-I", "-S", "-c", "import os; print(os.__file__)"],
                                     quiet=True).strip())
        self.add_file(os.path.join(stdlib, "os.py"), os.path.join(stdlib, "os.py"))
        os.makedirs(os.path.join(self.root, stdlib.lstrip("/"), "lib-dynload"), exist_ok=True)
        for src, dest in python_loads(real, argv):
            self.add_file(src, dest)
            if dest.endswith(".so"):
                self.add_libraries_of(src)

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
