"""Build the module, without booting, for every kernel Debian carries.

make check boots one kernel per suite, the generic flavour; a user may run
another flavour (cloud, rt: PREEMPT_RT, whose locks sleep, arm64-16k: 16K
pages) or the kernel of a suite no scenario boots (trixie).  Each suite's
newest headers of each flavour, amd64 and arm64, are built against, in a
chroot of the suite made for it (its compiler), so that a kernel the
module does not build for is known before a user's DKMS meets it.  A
partial suite (backports, experimental) has no chroot of its own: its
headers are unpacked into one of the suite it is built on
(kernels.BASE_SUITE), as for debian-experimental (chroot.py).

An arm64 kernel is cross-built in the same chroot: with the suite's cross
compiler of its version (chroot.compiler_package), the amd64 linux-kbuild
of its version, whose host programs run there (kernels.headers_debs), and
arm64's make variables (vmlib/arch.py).
"""

import collections
import os
import shutil
import tempfile

from . import chroot, kernels
from .arch import ARCHES
from .util import HarnessError, Stopwatch, log

SUITES = ["bullseye", "bookworm", "bookworm-backports", "trixie", "sid", "experimental"]
# each architecture's flavours: a suite carries some of them (arm64-16k: 6.12 on)
FLAVOURS = {"amd64": ["amd64", "cloud-amd64", "rt-amd64"],
            "arm64": ["arm64", "cloud-arm64", "rt-arm64", "arm64-16k"]}
HEADERS_LIST = ".vmtest-headers"     # in a suite's chroot: "release version" lines

# one kernel's headers in a suite
Headers = collections.namedtuple("Headers", "arch flavour release version")


def suite_apts(cache, suite):
    """Return {arch: PrivateApt} of suite for each architecture, lists fresh."""
    apts = {}
    for arch in FLAVOURS:
        apts[arch] = kernels.private_apt(cache, suite, arch)
        apts[arch].update()
    return apts


def suite_headers(apts):
    """Return [Headers] of each flavour the suites of apts ({arch: apt}) carry.

    A flavour the suite does not carry is left out (a partial suite may
    carry some flavours, or none).
    """
    found = []
    for arch, apt in apts.items():
        for flavour in FLAVOURS[arch]:
            try:
                deps = apt.depends(f"linux-headers-{flavour}")
            except HarnessError:
                continue
            for name, version in deps:
                if name.startswith("linux-headers-") and name.endswith(flavour) and version:
                    found.append(Headers(arch, flavour, name[len("linux-headers-"):], version))
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


def headers_listing(found):
    """Return the HEADERS_LIST of a chroot that holds the headers found."""
    return "".join(f"{h.release} {h.version}\n" for h in found)


def made_chroot(cache, name, found):
    """Return chroot name if it was made with just the headers found, else None."""
    root = chroot.ready_chroot(cache, name, found[0].version)
    if not root:
        return None
    try:
        with open(os.path.join(root, HEADERS_LIST)) as f:
            return root if f.read() == headers_listing(found) else None
    except OSError:
        return None


def fetch_headers(apts, found):
    """Return (debs, packages, withheld) that build for the kernels found.

    debs and packages as kernels.headers_debs(), with each kernel's
    compiler (an arm64 one's: the cross compiler); withheld: {Headers:
    why} of those the archive withholds.
    """
    debs, packages, withheld = [], set(), {}
    for h in found:
        try:
            more, needs = kernels.headers_debs(apts[h.arch], h.release, h.version,
                                               apts["amd64"])
            cc = compiler_of(more[0], h.release)
            packages.add(chroot.compiler_package(cc, h.arch))
        except HarnessError as e:
            withheld[h] = str(e).splitlines()[0]
            continue
        debs += [d for d in more if d not in debs]
        packages.update(needs)
    return debs, sorted(packages), withheld


def suite_chroot(cache, suite, apts, found, logfile):
    """Return (chroot, withheld): the chroot that builds for the kernels found.

    One per suite, named by the first kernel's version: a new version
    makes a new one.  Every kernel's headers are unpacked into it, and
    listed in its HEADERS_LIST: another list (a flavour more or less)
    makes it again.  The headers are fetched, and their compilers read,
    only to make it; those fetch_headers() finds withheld are left out
    (no chroot if all are).
    """
    name = f"builds-{suite}"
    root = made_chroot(cache, name, found)
    if root:
        return root, {}
    debs, packages, withheld = fetch_headers(apts, found)
    fetched = [h for h in found if h not in withheld]
    if not fetched:
        return None, withheld
    root = made_chroot(cache, name, fetched)
    if root:
        return root, withheld
    stale = chroot.ready_chroot(cache, name, fetched[0].version)
    if stale:
        log(f"builds: {suite}: other headers than its chroot's; making it again")
        shutil.rmtree(stale)
    root = chroot.ensure_chroot(cache, name, kernels.chroot_suite(suite),
                                fetched[0].version, None, logfile, lambda: (debs, packages))
    with open(os.path.join(root, HEADERS_LIST), "w") as f:
        f.write(headers_listing(fetched))
    return root, withheld


def first_error(logfile, offset):
    """Return the first compiler or modpost error logged past offset, or None."""
    try:
        with open(logfile, errors="replace") as f:
            f.seek(offset)
            for line in f:
                if "error:" in line or line.startswith("ERROR:"):
                    return line.strip()
    except OSError:
        pass
    return None


def build_one(repo, root, suite, headers, logfile, tap):
    """Build the module in suite's chroot at root for headers; report it.

    A failure says the build's first error, not only where its log is.
    """
    what = f"build {suite} {headers.release} ({headers.version})"
    offset = os.path.getsize(logfile) if os.path.exists(logfile) else 0
    try:
        with Stopwatch(what):
            chroot.build_in_chroot(repo, root, headers.release, f"{suite}-{headers.flavour}",
                                   logfile, bench=False,
                                   make_vars=ARCHES[headers.arch].make_vars)
    except HarnessError as e:
        tap.test(False, what, first_error(logfile, offset) or str(e).splitlines()[0])
        return
    except OSError as e:
        tap.skip(what, f"this host cannot build in a chroot: {e}")
        return
    tap.test(True, what)


def build_suite(repo, cache, suite, results, tap):
    """Build the module for each flavour of suite's newest kernels; report each.

    What the network or the archive withholds (lists, packages, a chroot)
    is a SKIP with the reason; a build that fails is a failure.
    """
    logfile = os.path.join(results, f"build-{suite}.log")
    try:
        apts = suite_apts(cache, suite)
        found = suite_headers(apts)
        if not found:
            tap.skip(f"build {suite}", "the suite carries no kernel headers")
            return
        root, withheld = suite_chroot(cache, suite, apts, found, logfile)
    except (HarnessError, OSError) as e:
        tap.skip(f"build {suite}", str(e).splitlines()[0])
        return
    for headers in found:
        if headers in withheld:
            tap.skip(f"build {suite} {headers.release} ({headers.version})",
                     withheld[headers])
        else:
            build_one(repo, root, suite, headers, logfile, tap)


def run_builds(repo, cache, results, tap):
    """Build the module for every flavour of every suite's newest kernels."""
    os.makedirs(results, exist_ok=True)
    for suite in SUITES:
        log(f"builds: {suite}")
        build_suite(repo, cache, suite, results, tap)
