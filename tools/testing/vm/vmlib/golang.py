"""A current Go toolchain for arm64 guests' Go workloads (needs: golang).

Debian 12's go 1.19 leaves stale frame pointers on arm64 when it copies
a goroutine's stack (golang/go#58432, fixed in Go 1.21), so no walk of
its programs reaches the goroutine's start there.  Debian 13's
golang-1.24 (the amd64 host's compiler, and its standard library's
source, which cross-builds for arm64) is downloaded with the private
apt and unpacked under cache/golang/VERSION, never installed; the
Makefile rebuilds a workload when the toolchain's version changes.
"""

import os

from .kernels import unpacked_packages
from .util import HarnessError

SUITE = "trixie"
PACKAGES = ("golang-1.24-go", "golang-1.24-src")
# GOROOT inside the unpacked packages; its src/ links to /usr/share.
GOROOT = "usr/lib/go-1.24"


def go_program(cache):
    """Return the host path of trixie's go, unpacked in the cache if not yet."""
    root = unpacked_packages(cache, "golang", SUITE, PACKAGES)
    program = os.path.join(root, GOROOT, "bin", "go")
    if not os.access(program, os.X_OK):
        raise HarnessError(f"{' and '.join(PACKAGES)} in {root}: no {GOROOT}/bin/go")
    return program
