"""Obtain the kernels the harness boots: Debian's stock ones and a debug build.

Each kernel ends up described by a Kernel: a bootable bzImage and a build
directory that `make -C KDIR M=dir modules` accepts.  Everything lives in the
cache and is reused by later runs.
"""

import glob
import json
import re
import os
import shutil
import subprocess

from .apt import PrivateApt
from .util import HarnessError, log, run, sha256_of

# name -> (suite, kind); kind "debian" = stock image + headers, "debug" = built here
KERNELS = {
    "debian-5.10": ("bullseye", "debian"),
    "debian-6.1": ("bookworm", "debian"),
    "debian-6.12": ("bookworm-backports", "debian"),
    "debug": ("bookworm-backports", "debug"),
    "debian-7.x": ("sid", "debian"),
    "debian-experimental": ("experimental", "debian"),
    "arm64-debian-6.1": ("bookworm", "debian"),
    "arm64-debian-6.12": ("bookworm-backports", "debian"),
}
DEFAULT_KERNELS = ["debian-5.10", "debian-6.1", "debian-6.12", "debian-7.x",
                   "debian-experimental", "debug", "arm64-debian-6.1",
                   "arm64-debian-6.12"]
# A partial suite, which holds only the packages it changes, and the suite
# whose chroot builds modules for its kernels (it is built on that one's).
BASE_SUITE = {"experimental": "sid", "bookworm-backports": "bookworm"}
# the guest architecture of the kernels that are not amd64 (vmlib/arch.py)
ARCH_OF = {"arm64-debian-6.1": "arm64", "arm64-debian-6.12": "arm64"}


def chroot_suite(suite):
    """Return the suite whose chroot builds modules for suite's kernels."""
    return BASE_SUITE.get(suite, suite)


def arch_of(name):
    """Return the Debian architecture of the kernel called name."""
    return ARCH_OF.get(name, "amd64")


class Kernel:
    """A prepared kernel: what to boot and what to build modules against."""

    def __init__(self, name, release, bzimage, kdir, has_kunit, notes="", arch="amd64"):
        self.name = name
        self.release = release
        self.bzimage = bzimage          # what QEMU's -kernel boots (arm64: Image)
        self.kdir = kdir
        self.has_kunit = has_kunit
        self.notes = notes
        self.arch = arch

    def save(self, path):
        """Write this description as JSON to path."""
        with open(path, "w") as f:
            json.dump(self.__dict__, f, indent=1)

    @classmethod
    def load(cls, path):
        """Read a description written by save(); None if absent or stale."""
        try:
            with open(path) as f:
                kernel = cls(**json.load(f))
        except (OSError, ValueError, TypeError):
            return None
        if not (os.path.exists(kernel.bzimage) and os.path.isdir(kernel.kdir)):
            return None
        return kernel


def config_compiler(config):
    """Return the compiler a kernel's .config at config names, or None."""
    try:
        with open(config) as f:
            m = re.search(r'^CONFIG_CC_VERSION_TEXT="(\S+)', f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def missing_compiler(kdir):
    """Return the compiler kdir's kernel was built with if the host lacks it."""
    cc = config_compiler(os.path.join(kdir, ".config"))
    if not cc:
        return None
    major = re.search(r"gcc-(\d+)$", cc)
    if shutil.which(cc) or (major and shutil.which(f"gcc-{major.group(1)}")):
        return None
    return cc


class KernelUnavailable(HarnessError):
    """The kernel cannot be had here (e.g. the suite does not carry it)."""


def extract_deb(deb, dest, members=None):
    """Extract deb (optionally only the given tar members) into dest."""
    os.makedirs(dest, exist_ok=True)
    if not members:
        run(["dpkg-deb", "-x", deb, dest], quiet=True)
        return
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    run_tar = subprocess.run(["tar", "-x", "-C", dest] + members, stdin=tar.stdout)
    tar.stdout.close()
    if tar.wait() or run_tar.returncode:
        raise HarnessError(f"extracting {members} from {deb} failed")


def relink_absolute_symlinks(root):
    """Make absolute symlinks under root point inside root, relatively."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            link = os.path.join(dirpath, name)
            if not os.path.islink(link):
                continue
            target = os.readlink(link)
            if target.startswith("/"):
                inside = os.path.join(root, target.lstrip("/"))
                os.unlink(link)
                os.symlink(os.path.relpath(inside, dirpath), link)


def _rewrite_absolute_paths(kdir, root):
    """Point absolute /usr/src paths in the headers' Makefiles into root."""
    for path in glob.glob(os.path.join(kdir, "Makefile")):
        with open(path) as f:
            text = f.read()
        fixed = re.sub(r"(?<=[\s=])/usr/src/", os.path.join(root, "usr/src") + "/", text)
        if fixed != text:
            with open(path, "w") as f:
                f.write(fixed)


def _pick(deps, prefix, suffix=""):
    """Return the (name, version) dependency with the given prefix/suffix."""
    for name, version in deps:
        if name.startswith(prefix) and name.endswith(suffix):
            if version is None:
                raise HarnessError(f"dependency {name} is not in the suite")
            return name, version
    raise HarnessError(f"no dependency {prefix}*{suffix} in {deps}")


def _deb_with_vmlinuz(apt, image, version, release):
    """Return (.deb, member) of the kernel image file.

    Up to 6.x it is the image package's /boot/vmlinuz-R; from 7.x Debian
    ships it in linux-binary-R as /usr/lib/modules/R/vmlinuz.
    """
    names = [(image, version)] + [(n, v) for n, v in apt.depends(image)
                                  if n.startswith("linux-binary-") and n.endswith(release)]
    wanted = [f"./boot/vmlinuz-{release}", f"./usr/lib/modules/{release}/vmlinuz"]
    for pkg, ver in names:
        deb = apt.download(pkg, ver)
        listing = run(["dpkg-deb", "-c", deb], quiet=True).split()
        for member in wanted:
            if member in listing:
                return deb, member
    raise HarnessError(f"no package of {image} holds a vmlinuz for {release}")


def headers_debs(apt, release, version, host_apt=None):
    """Return (debs, packages) that build modules for release in a chroot.

    debs: the .debs of release's headers at version, their common part
    and kbuild, from apt's suite; packages: the others kbuild's programs
    need, which the chroot's suite carries.  host_apt: the amd64 apt of
    the suite, whose kbuild's host programs run in an amd64 chroot where
    apt is another architecture's (as in fetch_debian()).
    """
    headers, host_apt = f"linux-headers-{release}", host_apt or apt
    deps = [(n, v) for n, v in apt.depends(headers)
            if n.startswith(("linux-headers-", "linux-kbuild-")) and v]
    wanted = [(apt, headers, version)] + [
        (host_apt if n.startswith("linux-kbuild-") else apt, n, v) for n, v in deps]
    packages = set()
    for source, n, _ in wanted:
        packages.update(d for d, _ in source.depends(n) if not d.startswith(("linux-", "gcc-")))
    return [source.download(n, v) for source, n, v in wanted], sorted(packages)


def chroot_headers(cache, name, release):
    """Return what a chroot of another suite needs to build for kernel name.

    None where the kernel's own suite has a chroot (its headers are one of
    its packages); else headers_debs() of release from the kernel's suite.
    """
    suite = KERNELS[name][0]
    if suite not in BASE_SUITE:
        return None
    apt = private_apt(cache, suite)
    apt.update()
    return headers_debs(apt, release, apt.candidate(f"linux-headers-{release}"))


def private_apt(cache, suite, arch="amd64"):
    """Return the cache's PrivateApt for suite and arch (amd64: apt/SUITE)."""
    sub = suite if arch == "amd64" else f"{suite}-{arch}"
    return PrivateApt(os.path.join(cache, "apt", sub), suite, arch)


def unpacked_packages(cache, kind, suite, packages, arch="amd64"):
    """Return cache/KIND/VERSION-ARCH: packages of suite unpacked there, once.

    VERSION is the first package's candidate; each package comes at its
    own.  Unpacked under a .partial name and renamed, so that an unpack
    cut short is done again, not used.
    """
    apt = private_apt(cache, suite, arch)
    apt.update()
    versions = [apt.candidate(package) for package in packages]
    root = os.path.join(cache, kind, f"{versions[0]}-{arch}".replace(":", "_"))
    if os.path.isdir(root):
        return root
    partial = root + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    for package, version in zip(packages, versions):
        log(f"{kind}: unpacking {package} {version} ({suite}, {arch})")
        extract_deb(apt.download(package, version), partial)
    os.rename(partial, root)
    return root


def fetch_debian(name, cache, refresh=False):
    """Download and unpack a stock Debian kernel with its headers.

    For another architecture, kbuild's host programs (fixdep, modpost)
    come from the amd64 linux-kbuild package of the same version, which
    the headers' scripts/ and tools/ links point into as they do on amd64.
    """
    suite = KERNELS[name][0]
    arch = arch_of(name)
    desc = os.path.join(cache, "kernels", name, "kernel.json")
    kernel = None if refresh else Kernel.load(desc)
    if kernel:
        return kernel
    apt = private_apt(cache, suite, arch)
    apt.update(force=refresh)
    try:
        image, version = _pick(apt.depends(f"linux-image-{arch}"), "linux-image-")
    except HarnessError as e:
        raise KernelUnavailable(f"{suite} has no linux-image-{arch}: {e}") from e
    release = image[len("linux-image-"):]
    headers = f"linux-headers-{release}"
    hdeps = apt.depends(headers)
    common = _pick(hdeps, "linux-headers-", "-common")
    kbuild = _pick(hdeps, "linux-kbuild-")
    root = os.path.join(cache, "kernels", name, release)
    shutil.rmtree(root, ignore_errors=True)
    log(f"{name}: downloading {image} {version}")
    deb, member = _deb_with_vmlinuz(apt, image, version, release)
    extract_deb(deb, root, [member])
    for pkg, ver in [(headers, version), common]:
        extract_deb(apt.download(pkg, ver), root)
    host_apt = apt
    if arch != "amd64":
        host_apt = private_apt(cache, suite)
        host_apt.update(force=refresh)
    extract_deb(host_apt.download(*kbuild), root)
    relink_absolute_symlinks(root)
    kdir = os.path.join(root, "usr/src", headers)
    _rewrite_absolute_paths(kdir, root)
    kernel = Kernel(name, release, os.path.normpath(os.path.join(root, member)), kdir,
                    has_kunit=False,
                    notes=f"Debian {suite} {arch} {version}", arch=arch)
    kernel.save(desc)
    return kernel


def _read_fragment(path):
    """Return {option: value} of a config fragment ('n' for 'is not set')."""
    want = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# CONFIG_") and line.endswith(" is not set"):
                want[line[2:].split()[0]] = "n"
            elif line.startswith("CONFIG_"):
                key, _, val = line.partition("=")
                want[key] = val
    return want


def _apply_fragment(src, out, want, logfile):
    """Set the fragment's options in out/.config with scripts/config."""
    args = []
    for key, val in want.items():
        opt = key[len("CONFIG_"):]
        if val == "y":
            args += ["--enable", opt]
        elif val == "n":
            args += ["--disable", opt]
        else:
            args += ["--set-val", opt, val]
    run([os.path.join(src, "scripts/config"), "--file", os.path.join(out, ".config")]
        + args, logfile=logfile, quiet=True)


def _verify_config(out, want):
    """Fail loudly if an option of the fragment did not survive olddefconfig."""
    have = {}
    with open(os.path.join(out, ".config")) as f:
        for line in f:
            if line.startswith("CONFIG_"):
                key, _, val = line.strip().partition("=")
                have[key] = val
    wrong = [f"{k}={v} (have {have.get(k, 'unset')})" for k, v in want.items()
             if have.get(k, "n") != v]
    if wrong:
        raise HarnessError("debug kernel config lost options: " + ", ".join(wrong))


def _fetch_linux_source(cache, refresh):
    """Download and unpack linux-source-6.12 (backports) or -6.1; return the tree."""
    for suite, package in [("bookworm-backports", "linux-source-6.12"),
                           ("bookworm", "linux-source-6.1")]:
        apt = PrivateApt(os.path.join(cache, "apt", suite), suite)
        apt.update(force=refresh)
        try:
            version = apt.candidate(package)
            break
        except HarnessError:
            log(f"debug: {package} is not in {suite}, falling back")
    else:
        raise HarnessError("no linux-source package in bookworm(-backports)")
    top = os.path.join(cache, "debug", f"src-{version}")
    tree = os.path.join(top, package)
    if os.path.exists(os.path.join(tree, "Makefile")):
        return tree, version
    shutil.rmtree(top, ignore_errors=True)
    deb = apt.download(package, version)
    extract_deb(deb, os.path.join(top, "deb"))
    tarball = glob.glob(os.path.join(top, "deb/usr/src", f"{package}.tar.*"))
    if not tarball:
        raise HarnessError(f"{deb} holds no source tarball")
    log(f"debug: unpacking {os.path.basename(tarball[0])}")
    run(["tar", "-x", "-C", top, "-f", tarball[0]], quiet=True)
    shutil.rmtree(os.path.join(top, "deb"))
    return tree, version


def build_debug(cache, fragment, refresh=False, jobs=None):
    """Build the small debug kernel (tinyconfig + fragment) into the cache."""
    with open(fragment) as f:
        frag_text = f.read()
    tree, version = _fetch_linux_source(cache, refresh)
    cc = shutil.which("gcc-12") or "gcc"
    key = sha256_of(frag_text, version, cc)
    out = os.path.join(cache, "debug", f"build-{key}")
    desc = os.path.join(out, "kernel.json")
    kernel = Kernel.load(desc)
    if kernel:
        return kernel
    os.makedirs(out, exist_ok=True)
    logfile = os.path.join(out, "build.log")
    log(f"debug: building {version} in {out} (log: {logfile})")
    jobs = str(jobs or os.cpu_count() or 2)
    make = ["make", "-C", tree, f"O={out}", f"CC={cc}", f"HOSTCC={cc}", f"-j{jobs}"]
    want = _read_fragment(fragment)
    run(make + ["tinyconfig"], logfile=logfile, quiet=True)
    _apply_fragment(tree, out, want, logfile)
    run(make + ["olddefconfig"], logfile=logfile, quiet=True)
    _verify_config(out, want)
    run(make + ["bzImage", "modules_prepare"], logfile=logfile, quiet=True)
    run(make + ["modules"], logfile=logfile, quiet=True)
    release = run(make + ["-s", "kernelrelease"], quiet=True).strip().splitlines()[-1]
    kernel = Kernel("debug", release, os.path.join(out, "arch/x86/boot/bzImage"), out,
                    has_kunit=True, notes=f"linux-source {version}, tinyconfig + {fragment}")
    kernel.save(desc)
    _prune_old_builds(os.path.join(cache, "debug"), keep=[out, os.path.dirname(tree)])
    return kernel


def _prune_old_builds(debug_dir, keep):
    """Remove debug source trees and build trees other than those in keep."""
    for path in glob.glob(os.path.join(debug_dir, "*")):
        if os.path.isdir(path) and path not in keep:
            log(f"debug: removing stale {path}")
            shutil.rmtree(path, ignore_errors=True)


def headers_config(kdir):
    """Return {option: value} of the .config in a kernel's headers (or build tree)."""
    have = {}
    with open(os.path.join(kdir, ".config")) as f:
        for line in f:
            key, sep, val = line.strip().partition("=")
            if sep and key.startswith("CONFIG_"):
                have[key] = val
    return have
