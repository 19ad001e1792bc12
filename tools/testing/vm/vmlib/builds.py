"""Build the module, without booting, for every amd64 kernel Debian carries.

make check boots one kernel per suite, the generic flavour; a user may run
another flavour (cloud, rt: PREEMPT_RT, whose locks sleep) or the kernel of
a suite no scenario boots (trixie).  Each suite's newest headers of each
flavour are built against, in a chroot of the suite made for it (its
compiler), so that a kernel the module does not build for is known before
a user's DKMS meets it.  A partial suite (backports, experimental) has no
chroot of its own: its headers are unpacked into one of the suite it is
built on (kernels.BASE_SUITE), as for debian-experimental (chroot.py).
"""

import os
import shutil
import tempfile

from . import chroot, kernels
from .util import HarnessError, Stopwatch, log

SUITES = ["bullseye", "bookworm", "bookworm-backports", "trixie", "sid", "experimental"]
FLAVOURS = ["amd64", "cloud-amd64", "rt-amd64"]
HEADERS_LIST = ".vmtest-headers"     # in a suite's chroot: "release version" lines


def suite_headers(apt):
    """Return [(flavour, release, version)] of the headers apt's suite carries.

    A flavour the suite does not carry is left out (a partial suite may
    carry some flavours, or none).
    """
    found = []
    for flavour in FLAVOURS:
        try:
            deps = apt.depends(f"linux-headers-{flavour}")
        except HarnessError:
            continue
        for name, version in deps:
            if name.startswith("linux-headers-") and name.endswith(flavour) and version:
                found.append((flavour, name[len("linux-headers-"):], version))
                break
    return found


def compiler_of(deb, release):
    """Return CONFIG_CC_VERSION_TEXT's compiler of the headers package deb."""
    with tempfile.TemporaryDirectory() as tmp:
        member = f"./usr/src/linux-headers-{release}/.config"
        kernels.extract_deb(deb, tmp, [member])
        cc = kernels.config_compiler(os.path.join(tmp, member))
    if not cc:
        raise HarnessError(f"{deb}: no CONFIG_CC_VERSION_TEXT in its .config")
    return cc


def suite_chroot(cache, suite, apt, found, logfile):
    """Return the chroot that builds for the kernels found in suite (apt's).

    One per suite, named by the first kernel's version: a new version
    makes a new one.  Every flavour's headers are unpacked into it, and
    listed in its HEADERS_LIST: another list (a flavour more or less)
    makes it again.  The headers are fetched, and their compiler read,
    only to make it.
    """
    name = f"builds-{suite}"
    listing = "".join(f"{release} {version}\n" for _, release, version in found)
    root = chroot.ready_chroot(cache, name, found[0][2])
    if root:
        try:
            with open(os.path.join(root, HEADERS_LIST)) as f:
                if f.read() == listing:
                    return root
        except OSError:
            pass
        log(f"builds: {suite}: other headers than its chroot's; making it again")
        shutil.rmtree(root)
    debs, packages = [], set()
    for _, release, version in found:
        more, needs = kernels.headers_debs(apt, release, version)
        debs += more
        packages.update(needs)
    cc = compiler_of(debs[0], found[0][1])
    root = chroot.ensure_chroot(cache, name, kernels.chroot_suite(suite),
                                found[0][2], cc, logfile, lambda: (debs, sorted(packages)))
    with open(os.path.join(root, HEADERS_LIST), "w") as f:
        f.write(listing)
    return root


def build_suite(repo, cache, suite, results, tap):
    """Build the module for each flavour of suite's newest kernel; report each.

    What the network or the archive withholds (lists, packages, a chroot)
    is a SKIP with the reason; a build that fails is a failure.
    """
    logfile = os.path.join(results, f"build-{suite}.log")
    try:
        apt = kernels.private_apt(cache, suite)
        apt.update()
        found = suite_headers(apt)
        if not found:
            tap.skip(f"build {suite}", "the suite carries no amd64 kernel headers")
            return
        root = suite_chroot(cache, suite, apt, found, logfile)
    except (HarnessError, OSError) as e:
        tap.skip(f"build {suite}", str(e).splitlines()[0])
        return
    for flavour, release, version in found:
        what = f"build {suite} {release} ({version})"
        try:
            with Stopwatch(what):
                chroot.build_in_chroot(repo, root, release, f"{suite}-{flavour}", logfile,
                                       bench=False)
        except HarnessError as e:
            tap.test(False, what, str(e).splitlines()[0])
            continue
        except OSError as e:
            tap.skip(what, f"this host cannot build in a chroot: {e}")
            continue
        tap.test(True, what)


def run_builds(repo, cache, results, tap):
    """Build the module for every flavour of every suite's newest amd64 kernel."""
    os.makedirs(results, exist_ok=True)
    for suite in SUITES:
        log(f"builds: {suite}")
        build_suite(repo, cache, suite, results, tap)
