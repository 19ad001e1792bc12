"""CPython 3.13 in a Debian 13 userland, for scenarios that need "python313".

trixie's python3.13 (python3.13-minimal: the interpreter is linked into
the program, no libpython) with the libraries it needs and the part of
libpython3.13-minimal's standard library that `python3.13 -I -S
pyrecurse.py` loads, packed like vmlib/container.py's userland under
/python313, with pyrecurse.py as /root/pyrecurse.py and an empty /tmp
for the perf map that `-X perf` writes.  The host cannot run trixie's
programs directly: what the script loads is found by running it with
trixie's own loader and libraries (initramfs.python_loads).
"""

import os

from . import container
from .initramfs import python_loads

PACKAGES = ("python3.13-minimal", "libpython3.13-minimal")
PROGRAM = "/usr/bin/python3.13"
STDLIB = "/usr/lib/python3.13"
GUEST_ROOT = "/python313"
WORKLOAD = "/root/pyrecurse.py"
LOADER = f"/usr/lib/{container.MULTIARCH}/ld-linux-x86-64.so.2"


def program_path(cache):
    """Return the host path of the container's python3.13 (for the host check)."""
    return container.program_path(cache, PROGRAM, PACKAGES)


def add_python313(tree, cache, workload):
    """Pack python3.13, what running workload loads, and workload into tree."""
    sysroot = container.add_container(tree, cache, PROGRAM, PACKAGES, GUEST_ROOT)
    launcher = [sysroot.path(LOADER), "--library-path",
                sysroot.path(f"/usr/lib/{container.MULTIARCH}")]
    # os.py and lib-dynload/ are the landmarks of its prefix.
    container.pack(tree, sysroot, os.path.join(STDLIB, "os.py"), GUEST_ROOT)
    guest_stdlib = os.path.join(tree.root, GUEST_ROOT.lstrip("/"), STDLIB.lstrip("/"))
    os.makedirs(os.path.join(guest_stdlib, "lib-dynload"), exist_ok=True)
    for src, dest in python_loads(sysroot.path(PROGRAM), [workload, "0"], launcher):
        tree.add_file(src, os.path.join(GUEST_ROOT, os.path.relpath(dest, sysroot.root)))
    tree.add_file(workload, os.path.join(GUEST_ROOT, WORKLOAD.lstrip("/")))
    os.makedirs(os.path.join(tree.root, GUEST_ROOT.lstrip("/"), "tmp"), exist_ok=True)
