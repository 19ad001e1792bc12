"""The stock Debian kernels' own modules, for scenarios that need a driver.

Debian builds block devices and disk filesystems as modules, which the
harness does not unpack with the kernel.  A scenario that declares
"needs: blockfs" gets brd (a RAM block device) and ext4 (which also mounts
ext2) with crc32c, and their dependencies, from the kernel's image package: unpacked
into the cache as they are asked for, decompressed (busybox insmod reads
plain ELF), listed dependencies first.
"""

import glob
import os
import subprocess
import tarfile

from .apt import PrivateApt
from .kernels import KERNELS
from .util import HarnessError, run

# what each "needs:" word brings, by module name; ext4 looks crc32c up
# through the crypto API (a soft dependency, which modinfo's "depends"
# does not list)
NEEDS = {"blockfs": ["brd", "crc32c_generic", "ext4"]}


def _image_deb(kernel, cache):
    """Return the cached (or downloaded) image package of a Debian kernel."""
    suite, kind = KERNELS[kernel.name]
    if kind != "debian":
        raise HarnessError(f"{kernel.name} is not a Debian kernel: it has no stock modules")
    apt = PrivateApt(os.path.join(cache, "apt", suite), suite)
    package = f"linux-image-{kernel.release}"
    found = glob.glob(os.path.join(apt.root, "debs", f"{package}_*.deb"))
    return found[0] if found else apt.download(package, apt.candidate(package))


def _module_members(deb):
    """Return {module name: tar member} of the .ko.xz files in deb."""
    members = {}
    proc = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True, check=False)
    if proc.returncode:
        raise HarnessError(f"dpkg-deb -c {deb} failed:\n{proc.stderr[-2000:]}")
    for line in proc.stdout.splitlines():
        member = line.split()[-1]
        if member.endswith(".ko.xz"):
            members[os.path.basename(member)[:-len(".ko.xz")].replace("-", "_")] = member
    return members


def _extract(deb, member, path):
    """Write member of deb, decompressed, to path."""
    # stops reading at the member: dpkg-deb's broken pipe is expected
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
    with tarfile.open(fileobj=tar.stdout, mode="r|*") as archive:
        for entry in archive:
            if entry.name == member:
                data = archive.extractfile(entry).read()
                break
        else:
            data = None
    tar.stdout.close()
    tar.wait()
    if data is None:
        raise HarnessError(f"{member} not found in {deb}")
    plain = subprocess.run(["xz", "-dc"], input=data, capture_output=True, check=False)
    if plain.returncode:
        raise HarnessError(f"xz -dc {member} failed")
    with open(path + ".tmp", "wb") as out:
        out.write(plain.stdout)
    os.rename(path + ".tmp", path)


def stock_modules(kernel, cache, names):
    """Return [(name, plain .ko path)] of names and their dependencies, dependencies first."""
    dest = os.path.join(cache, "kernels", kernel.name, kernel.release, "stock-modules")
    os.makedirs(dest, exist_ok=True)
    deb = _image_deb(kernel, cache)
    members = None
    ordered = []

    def visit(name):
        name = name.replace("-", "_")
        if any(n == name for n, _ in ordered):
            return
        plain = os.path.join(dest, f"{name}.ko")
        if not os.path.exists(plain):
            nonlocal members
            members = members or _module_members(deb)
            if name not in members:
                raise HarnessError(f"{kernel.name} has no module {name}")
            _extract(deb, members[name], plain)
        for dep in run(["modinfo", "-F", "depends", plain], quiet=True).strip().split(","):
            if dep:
                visit(dep)
        ordered.append((name, plain))

    for name in names:
        visit(name)
    return ordered
