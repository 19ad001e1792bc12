"""A debootstrapped Debian chroot that builds modules for a newer kernel.

Debian unstable's kernel headers are made for its own compiler (gcc-16 for
7.x), which Debian 12 lacks; a minimal chroot of that suite, kept in the
cache, holds the compiler and the matching headers.  Experimental is no
suite of its own (its packages are built on unstable's): its kernel's
headers are unpacked into a chroot of unstable.
"""

import glob
import os
import re
import shlex
import shutil

from . import modules
from .apt import KEYRING, debian_mirror
from .arch import ARCHES
from .util import HarnessError, log, need_tool, run

READY = ".vmtest-ready"          # made last: the chroot is complete


class ChrootUnavailable(HarnessError):
    """The chroot could not be created (no debootstrap, no network, ...)."""


def compiler_package(cc, arch="amd64"):
    """Return the Debian package of a CONFIG_CC_VERSION_TEXT compiler name.

    For a kernel of arch, built in an amd64 chroot: another arch's is the
    cross compiler of that version (gcc-12-aarch64-linux-gnu), whichever
    of its names the kernel's build used (gcc-12, aarch64-linux-gnu-gcc-12).
    """
    m = re.search(r"gcc-(\d+)$", cc)
    if not m:
        raise HarnessError(f"cannot tell the package of compiler {cc}")
    target = ARCHES[arch]
    return f"gcc-{m.group(1)}" + ("" if target.native else f"-{target.multiarch}")


def unpack_into(deb, root, logfile):
    """Unpack deb's files into the chroot at root, as dpkg would.

    Through the chroot's directory symlinks: a merged-/usr chroot's /lib
    is one, and older headers packages hold ./lib/modules/R/build, which
    dpkg-deb -x would make a directory in its place, hiding the C library.
    """
    script = (f"dpkg-deb --fsys-tarfile {shlex.quote(deb)} | "
              f"tar -x --keep-directory-symlink -C {shlex.quote(root)}")
    run(["bash", "-c", "set -o pipefail; " + script], logfile=logfile, quiet=True)


def ready_chroot(cache, name, release):
    """Return kernel name's chroot for release if it was made, else None."""
    root = os.path.join(cache, "chroots", name, release)
    return root if os.path.exists(os.path.join(root, READY)) else None


def ensure_chroot(cache, name, suite, release, cc, logfile, headers=None):
    """Create (once) kernel name's minbase chroot of suite, with cc and headers.

    cc: the headers' compiler (CONFIG_CC_VERSION_TEXT's), or None where
    their packages name the compilers.  headers, called only when the
    chroot is made: None, release's headers come from suite; else (debs,
    packages): the .debs of the headers, unpacked into the chroot, and the
    packages of suite they need.  One chroot per kernel name: a new
    release's replaces the old one.
    """
    top = os.path.join(cache, "chroots", name)
    root = ready_chroot(cache, name, release)
    if root:
        return root
    root = os.path.join(top, release)
    need_tool("debootstrap")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(top, exist_ok=True)
    debs, packages = (headers and headers()) or ([], [f"linux-headers-{release}"])
    compilers = [compiler_package(cc)] if cc else []
    include = ",".join(compilers + ["make", "libc6-dev"] + packages)
    log(f"debootstrapping {suite} for {release} into {root} (log: {logfile})")
    run(["debootstrap", "--variant=minbase", f"--keyring={KEYRING}",
         f"--include={include}", suite, root, debian_mirror()], logfile=logfile, quiet=True)
    for deb in debs:
        unpack_into(deb, root, logfile)
    open(os.path.join(root, READY), "w").close()
    for stale in glob.glob(os.path.join(top, "*")):
        if stale != root:
            log(f"removing stale chroot {stale}")
            shutil.rmtree(stale, ignore_errors=True)
    return root


def build_in_chroot(repo, root, release, name, logfile, bench=True, make_vars=()):
    """Build repo's kernel/ inside the chroot; return {module: .ko path}.

    bench: with the walk's benchmark (bench-walk), which DKMS's build lacks;
    make_vars: the kernel's architecture's (arch.py: arm64's cross-build).
    """
    inside = f"/build/{name}"
    work = os.path.join(root, inside.lstrip("/"))
    shutil.rmtree(work, ignore_errors=True)
    modules.copy_sources(repo, work)
    jobs = str(os.cpu_count() or 2)
    # objtool reads /proc; a private mount namespace drops the mount on exit
    script = (f"mount -t proc proc /proc && exec make -C {inside}/kernel "
              f"KDIR=/usr/src/linux-headers-{release} -j{jobs}"
              + (" CONFIG_SFRAME_UNWIND_BENCH=y" if bench else "")
              + "".join(f" {shlex.quote(v)}" for v in make_vars))
    run(["unshare", "--mount", "--propagation", "private", "chroot", root,
         "sh", "-c", script], logfile=logfile)
    kos = glob.glob(os.path.join(work, "kernel", "**", "*.ko"), recursive=True)
    if not kos:
        raise HarnessError(f"the chroot build made no .ko (see {logfile})")
    return {os.path.basename(p)[:-3]: p for p in kos}
