"""A container's userland the guest never had: Debian 13's xz, libc and ld.so.

For scenarios that declare "needs: container": xz-utils of trixie amd64
with the libraries it depends on, unpacked in the cache
(cache/sysroot/trixie-amd64, vmlib/sysroot.py), and packed into the
initramfs as a merged-/usr root under /container: xz, liblzma, libc and
the loader, nothing else.  None of them has .sframe or frame pointers,
and none is the guest's own (the host's libc), so every sidecar the
service makes for them is for a file it has never seen.
"""

import os

from .sysroot import Sysroot

SUITE = "trixie"
ARCH = "amd64"
MULTIARCH = "x86_64-linux-gnu"
PACKAGE = "xz-utils"
PROGRAM = "/usr/bin/xz"
GUEST_ROOT = "/container"
# What base-files makes of a merged /usr; the loader's path is /lib64's.
MERGED = {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64"}


def userland(cache, packages=(PACKAGE,)):
    """Return the trixie Sysroot with packages unpacked and /usr merged."""
    sysroot = Sysroot(cache, SUITE, ARCH, MULTIARCH)
    for package in packages:
        sysroot.install(package)
    for link, target in MERGED.items():
        if not os.path.lexists(sysroot.path(link)):
            os.symlink(target, sysroot.path(link))
    return sysroot


def program_path(cache, program=PROGRAM, packages=(PACKAGE,)):
    """Return the host path of the container's program (for the host check)."""
    return os.path.realpath(userland(cache, packages).path(program))


def add_container(tree, cache, program=PROGRAM, packages=(PACKAGE,),
                  guest_root=GUEST_ROOT):
    """Pack the program, its libraries and the merged-/usr links into tree.

    Return the Sysroot, from which more files may be packed (pack()).
    """
    sysroot = userland(cache, packages)
    root = os.path.join(tree.root, guest_root.lstrip("/"))
    os.makedirs(root, exist_ok=True)
    for link, target in MERGED.items():
        os.symlink(target, os.path.join(root, link))
    for path in [program] + sysroot.libraries(sysroot.path(program)):
        pack(tree, sysroot, path, guest_root)
    return sysroot


def pack(tree, sysroot, path, guest_root=GUEST_ROOT):
    """Put path in tree as the package has it: a link (and its target) or a file."""
    src = sysroot.path(path)
    # The directory as merged, the name as the loader looks it up.
    rel = os.path.relpath(os.path.join(os.path.realpath(os.path.dirname(src)),
                                       os.path.basename(src)), sysroot.root)
    dest = os.path.join(tree.root, guest_root.lstrip("/"), rel)
    if os.path.lexists(dest):
        return
    if not os.path.islink(src):
        tree.add_file(src, os.path.join(guest_root, rel))
        return
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    os.symlink(os.readlink(src), dest)
    pack(tree, sysroot, os.path.normpath(os.path.join("/", os.path.dirname(rel),
                                                      os.readlink(src))), guest_root)
