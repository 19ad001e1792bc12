"""Debian's C toolchain for scenarios that declare "needs: toolchain".

The machine's own gcc driver, cc1, collect2, as, ld (binutils) and make,
with their libraries, and the start files and libraries a link of a
program that includes no header needs (stdc-predef.h, crt files,
libgcc, libc.so's script and libc_nonshared.a), at the paths gcc asks for them.  Debian
builds them with .eh_frame only (no .sframe, no frame pointers): every
stack through them needs a sidecar.
"""

import os

from .util import HarnessError, need_tool, run

GCC = "/usr/bin/gcc"
MAKE = "/usr/bin/make"
# Found on PATH by the driver and by collect2.
PATH_PROGRAMS = {"as": "/usr/bin/as", "ld": "/usr/bin/ld"}
# Found by the driver in its own directory.
DRIVER_PROGRAMS = ("cc1", "collect2", "lto-wrapper")
# What collect2 and ld open for `gcc -o prog a.o b.o` (a PIE, as Debian's
# gcc makes by default); liblto_plugin.so is always passed to ld.
LINK_FILES = ("Scrt1.o", "crti.o", "crtn.o", "crtbeginS.o", "crtendS.o", "libgcc.a",
              "libgcc_s.so", "libgcc_s.so.1", "libc.so", "libc_nonshared.a",
              "liblto_plugin.so")
# cc1 includes it before every file; the project's sources include no other.
HEADERS = ("/usr/include/stdc-predef.h",)


def add_toolchain(tree):
    """Pack the toolchain into tree (an Initramfs) at the host's paths."""
    gcc = need_tool("gcc")
    for name in DRIVER_PROGRAMS:
        _add_program(tree, _gcc_path(gcc, "-print-prog-name=" + name))
    for name in LINK_FILES:
        tree.add_file(_gcc_path(gcc, "-print-file-name=" + name),
                      os.path.normpath(_gcc_path(gcc, "-print-file-name=" + name)))
    for header in HEADERS:
        tree.add_file(header, header)
    _add_program(tree, GCC, GCC)
    _add_program(tree, MAKE, MAKE)
    for name, path in PATH_PROGRAMS.items():
        _add_program(tree, need_tool(name), path)


def _gcc_path(gcc, option):
    """Return what `gcc OPTION` prints: a file it found by that name."""
    path = run([gcc, option], quiet=True).strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        raise HarnessError(f"gcc {option}: not found (run .ci/install-deps.sh)")
    return path


def _add_program(tree, src, dest=None):
    """Copy the program src to dest (its own path by default) with its libraries.

    A busybox applet of the same name is replaced, not written through.
    """
    dest = os.path.normpath(dest or src)
    target = os.path.join(tree.root, dest.lstrip("/"))
    if os.path.islink(target):
        os.unlink(target)
    tree.add_file(src, dest)
    tree.add_libraries_of(src)
