"""The kernel's own modules a scenario needs (`# kmods: overlay`), as plain .ko files.

A Debian kernel ships them in its image package (linux-image-R, or from
7.x linux-binary-R), compressed: the member kernel/.../NAME.ko.xz is taken
from the package already in the apt cache and decompressed, once, into
the kernel's cache directory.  A kernel built here (debug) has them in its
build tree.  Busybox insmod then loads /modules/NAME.ko in the guest.
"""

import glob
import lzma
import os
import shutil
import subprocess

from .util import HarnessError, run

SUFFIXES = (".ko", ".ko.xz", ".ko.zst")


def _from_build_tree(kernel, name):
    """Return NAME.ko from a kernel built here, or None."""
    found = glob.glob(os.path.join(kernel.kdir, "**", f"{name}.ko"), recursive=True)
    return sorted(found)[0] if found else None


def _image_debs(cache, release):
    """Return the cached packages that may hold release's modules."""
    debs = glob.glob(os.path.join(cache, "apt", "*", "debs", f"linux-image-{release}_*.deb"))
    debs += glob.glob(os.path.join(cache, "apt", "*", "debs", f"linux-binary-{release}_*.deb"))
    return sorted(debs)


def _member(deb, name):
    """Return the tar member of deb that is module name, or None."""
    listing = run(["dpkg-deb", "-c", deb], quiet=True).split()
    for member in listing:
        base = os.path.basename(member)
        if "/kernel/" in member and any(base == name + s for s in SUFFIXES):
            return member
    return None


def _decompress(src, dest):
    """Write src (.ko, .ko.xz or .ko.zst) to dest uncompressed."""
    if src.endswith(".xz"):
        with lzma.open(src) as f, open(dest + ".tmp", "wb") as out:
            out.write(f.read())
    elif src.endswith(".zst"):
        with open(dest + ".tmp", "wb") as out:
            if subprocess.run(["zstd", "-dc", src], stdout=out).returncode:
                raise HarnessError(f"zstd could not decompress {src}")
    else:
        with open(src, "rb") as f, open(dest + ".tmp", "wb") as out:
            out.write(f.read())
    os.replace(dest + ".tmp", dest)


def stock_module(kernel, name, cache):
    """Return the path of kernel's own module name, uncompressed."""
    built = _from_build_tree(kernel, name)
    if built:
        return built
    dest_dir = os.path.join(cache, "kernels", kernel.name, kernel.release, "kmods")
    dest = os.path.join(dest_dir, f"{name}.ko")
    if os.path.exists(dest):
        return dest
    for deb in _image_debs(cache, kernel.release):
        member = _member(deb, name)
        if not member:
            continue
        tmp = os.path.join(dest_dir, "deb")
        os.makedirs(tmp, exist_ok=True)
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
        untar = subprocess.run(["tar", "-x", "-C", tmp, member], stdin=tar.stdout)
        tar.stdout.close()
        if tar.wait() or untar.returncode:
            raise HarnessError(f"extracting {member} from {deb} failed")
        _decompress(os.path.join(tmp, member), dest)
        shutil.rmtree(tmp)
        return dest
    raise HarnessError(f"{kernel.name}: module {name} not found in its build tree "
                       f"or in the cached packages of {kernel.release}")
