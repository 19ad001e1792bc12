"""The kernel's own modules a scenario names (`# kmods: fuse overlay ...`).

Debian builds filesystems and block drivers as modules, which the harness
does not unpack with the kernel.  A scenario's kmods: header names the
ones it needs; each comes, with the modules it depends on, from the
kernel's build tree (debug) or its image package (linux-image-R, from 7.x
linux-binary-R; downloaded with the kernel, or now), decompressed once
into the kernel's cache directory (busybox insmod reads plain ELF).  One
the kernel has built in needs nothing.  The guest's load_kmods loads
/kmodules/order, dependencies first.
"""

import glob
import lzma
import os
import shutil
import subprocess

from .kernels import KERNELS, extract_deb, private_apt
from .util import HarnessError, run

SUFFIXES = (".ko", ".ko.xz", ".ko.zst")
# soft dependencies modinfo's "depends" does not list: ext4 looks crc32c
# up through the crypto API
SOFT_DEPENDS = {"ext4": ["crc32c_generic"]}


def _norm(name):
    return name.replace("-", "_")


def _builtin(listing, name):
    """Whether a modules.builtin text lists module name."""
    return any(_norm(os.path.basename(line.strip()))[:-len(".ko")] == name
               for line in listing.splitlines() if line.strip().endswith(".ko"))


class _BuildTree:
    """Modules of a kernel built here (its .ko files, modules.builtin)."""

    def __init__(self, kdir):
        self.kdir = kdir
        self.builtin_list = None

    def find(self, name, dest):
        """Return name's .ko path, None if built in; raise if neither."""
        for path in glob.glob(os.path.join(self.kdir, "**", "*.ko"), recursive=True):
            if _norm(os.path.basename(path))[:-len(".ko")] == name:
                return path
        if self.builtin_list is None:
            path = os.path.join(self.kdir, "modules.builtin")
            self.builtin_list = open(path).read() if os.path.exists(path) else ""
        if _builtin(self.builtin_list, name):
            return None
        raise HarnessError(f"module {name} is neither built nor built in ({self.kdir})")


class _Package:
    """Modules of a Debian kernel, from its image package."""

    def __init__(self, kernel, cache):
        self.kernel = kernel
        self.cache = cache
        self.deb = None
        self.members = None
        self.builtin_member = None
        self.builtin_list = None

    def _image_deb(self):
        release = self.kernel.release
        debs = []
        for prefix in ("linux-image", "linux-binary"):
            debs += glob.glob(os.path.join(self.cache, "apt", "*", "debs",
                                           f"{prefix}-{release}_*.deb"))
        if debs:
            return sorted(debs)[0]
        suite, kind = KERNELS[self.kernel.name]
        if kind != "debian":
            raise HarnessError(f"{self.kernel.name} is not a Debian kernel: no image package")
        apt = private_apt(self.cache, suite, self.kernel.arch)
        package = f"linux-image-{release}"
        return apt.download(package, apt.candidate(package))

    def _listing(self):
        if self.members is None:
            self.deb = self._image_deb()
            self.members = {}
            for member in run(["dpkg-deb", "-c", self.deb], quiet=True).split():
                base = os.path.basename(member)
                if base == "modules.builtin":
                    self.builtin_member = member
                for suffix in SUFFIXES:
                    if "/kernel/" in member and base.endswith(suffix):
                        self.members[_norm(base[:-len(suffix)])] = member
        return self.members

    def _builtin(self, name, dest):
        if self.builtin_list is None:
            self.builtin_list = ""
            if self.builtin_member:
                path = os.path.join(dest, "modules.builtin")
                if not os.path.exists(path):
                    _extract(self.deb, self.builtin_member, path)
                with open(path) as f:
                    self.builtin_list = f.read()
        return _builtin(self.builtin_list, name)

    def find(self, name, dest):
        """Return name's .ko unpacked into dest, None if built in; raise if neither."""
        plain = os.path.join(dest, f"{name}.ko")
        if os.path.exists(plain):
            return plain
        member = self._listing().get(name)
        if member:
            _extract(self.deb, member, plain)
            return plain
        if self._builtin(name, dest):
            return None
        raise HarnessError(f"{self.kernel.name}: module {name} is neither in {self.deb} "
                           "nor built in")


def _extract(deb, member, path):
    """Write member of deb, decompressed, to path."""
    tmp = path + ".deb.d"
    extract_deb(deb, tmp, [member])
    packed = os.path.join(tmp, member)
    if member.endswith(".zst"):
        proc = subprocess.run(["zstd", "-dc", packed], capture_output=True, check=False)
        if proc.returncode:
            raise HarnessError(f"zstd -dc {member} failed")
        data = proc.stdout
    else:
        with (lzma.open if member.endswith(".xz") else open)(packed, "rb") as f:
            data = f.read()
    shutil.rmtree(tmp)
    with open(path + ".tmp", "wb") as out:
        out.write(data)
    os.replace(path + ".tmp", path)


def _depends(path):
    """Return the modules path's .modinfo says it depends on."""
    out = run(["modinfo", "-F", "depends", path], quiet=True).strip()
    return [_norm(d) for d in out.split(",") if d]


def stock_modules(kernel, cache, names):
    """Return [(name, plain .ko path)] for names and what they depend on.

    Dependencies come first; modules the kernel has built in are left out.
    """
    dest = os.path.join(cache, "kernels", kernel.name, kernel.release, "kmods")
    os.makedirs(dest, exist_ok=True)
    source = _BuildTree(kernel.kdir) if KERNELS.get(kernel.name, ("", ""))[1] != "debian" \
        else _Package(kernel, cache)
    ordered = []
    seen = set()

    def visit(name):
        name = _norm(name)
        if name in seen:
            return
        seen.add(name)
        path = source.find(name, dest)
        if path is None:
            return
        for dep in _depends(path) + SOFT_DEPENDS.get(name, []):
            visit(dep)
        ordered.append((name, path))

    for name in names:
        visit(name)
    return ordered
