"""A kernel whose hooked function changed its prototype stops the build.

kernel/sframe/hook_types.h asserts, when the module is built, the
prototype of each kernel function it hooks that the headers declare.
This builds the one object that includes it, attach.o, against a copy of
a Debian kernel's headers in which one such function, vm_area_free() in
<linux/mm.h>, takes one more argument, as a kernel update might make it:
the build must fail with hook_types.h's message naming the function.

The copy is a tree of symbolic links to the headers, but for the files
that change: the header, and the two Makefiles, by whose real location
kbuild finds the tree (a Debian flavour's includes its common tree's).
"""

import os
import re
import shutil
import subprocess

from . import modules
from .arch import ARCHES
from .util import HarnessError

FUNCTION = "vm_area_free"
HEADER = os.path.join("include", "linux", "mm.h")
MESSAGE = f"{FUNCTION}() changed"


def common_tree(kdir):
    """Return the common tree a Debian flavour's headers include, or None."""
    try:
        with open(os.path.join(kdir, "Makefile")) as f:
            m = re.search(r"^include (\S+)/Makefile\s*$", f.read(), re.M)
    except OSError:
        return None
    return os.path.realpath(m.group(1)) if m else None


def change_prototype(text):
    """Return text with FUNCTION's declaration taking one more int, or None."""
    changed, n = re.subn(rf"^(\w[^\n(;]*\b{FUNCTION}\s*\([^)]*)\);", r"\1, int);",
                         text, count=1, flags=re.M)
    return changed if n else None


def link_tree(src, dest):
    """Make dest a tree of directories mirroring src, its files symlinks to src's."""
    for top, dirs, files in os.walk(src):
        out = os.path.join(dest, os.path.relpath(top, src))
        os.makedirs(out, exist_ok=True)
        for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            os.symlink(os.path.realpath(os.path.join(top, name)), os.path.join(out, name))


def replace(path, text):
    """Put a file holding text where path's symlink is."""
    os.unlink(path)
    with open(path, "w", encoding="latin-1") as f:
        f.write(text)


def changed_headers(kdir, dest):
    """Copy kdir's headers to dest with FUNCTION's prototype changed; return its kdir."""
    common = common_tree(kdir)
    if not common:
        raise HarnessError(f"{kdir}: not a Debian flavour's headers (no common tree)")
    shutil.rmtree(dest, ignore_errors=True)
    flavour, copy = os.path.join(dest, "flavour"), os.path.join(dest, "common")
    link_tree(os.path.realpath(kdir), flavour)
    link_tree(common, copy)
    with open(os.path.join(common, "Makefile"), encoding="latin-1") as f:
        replace(os.path.join(copy, "Makefile"), f.read())
    replace(os.path.join(flavour, "Makefile"), f"include {copy}/Makefile\n")
    with open(os.path.join(common, HEADER), encoding="latin-1") as f:
        changed = change_prototype(f.read())
    if changed is None:
        raise HarnessError(f"{os.path.join(common, HEADER)} declares no {FUNCTION}()")
    replace(os.path.join(copy, HEADER), changed)
    return flavour


def check(kernel, repo, workdir):
    """Build repo's attach.o against kernel's headers, FUNCTION changed.

    In workdir/changed-prototype, removed after; what the build said in
    workdir/changed-prototype.log.  Return (ok, why): ok when the build
    stopped naming FUNCTION.
    """
    top = os.path.join(workdir, "changed-prototype")
    shutil.rmtree(top, ignore_errors=True)
    try:
        kdir = changed_headers(kernel.kdir, os.path.join(top, "headers"))
        modules.copy_sources(repo, top)
        out = subprocess.run(["make", "-C", kdir, f"M={os.path.join(top, 'kernel')}",
                              "CONFIG_SFRAME_UNWIND=m", "sframe/attach.o"] +
                             ARCHES[kernel.arch].make_vars, capture_output=True,
                             stdin=subprocess.DEVNULL, timeout=600)
    except subprocess.TimeoutExpired:
        return False, "the build against the changed headers took over 600 s"
    finally:
        shutil.rmtree(top, ignore_errors=True)
    said = (out.stdout + out.stderr).decode(errors="replace")
    with open(os.path.join(workdir, "changed-prototype.log"), "w") as f:
        f.write(said)
    if out.returncode == 0:
        return False, f"attach.o built though {FUNCTION}() takes another argument"
    if MESSAGE not in said:
        return False, f"the build failed without naming {FUNCTION}() (see changed-prototype.log)"
    return True, ""
