"""Build the project's kernel modules (kernel/) and the probe module against one kernel."""

import glob
import os
import re
import shutil

from .arch import ARCHES
from .util import HarnessError, need_tool, run

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {".git", "results"}


def module_sources(repo):
    """Return the kernel/ directory if it has a Makefile or Kbuild, else None."""
    kdir = os.path.join(repo, "kernel")
    for name in ("Makefile", "Kbuild"):
        if os.path.exists(os.path.join(kdir, name)):
            return kdir
    return None


def copy_sources(repo, dest):
    """Copy what the module builds from, repo's kernel/ and include/, into dest."""
    for part in ("kernel", "include"):
        shutil.copytree(os.path.join(repo, part), os.path.join(dest, part), symlinks=True)


def declared_kunit_modules(repo):
    """Return the *_kunit module names the kernel/ build files declare."""
    names = set()
    for path in glob.glob(os.path.join(repo, "kernel", "**", "*"), recursive=True):
        if os.path.basename(path) in ("Makefile", "Kbuild") or path.endswith(".mk"):
            with open(path, errors="replace") as f:
                for m in re.finditer(r"obj-[^\s+:=]*\s*[+:]?=\s*([^\n#]*)", f.read()):
                    names.update(re.findall(r"(\w+_kunit)\.o", m.group(1)))
    return sorted(names)


def need_build_tools(kdir):
    """Fail naming the host tool a module build against kdir needs and lacks.

    Headers that ship the kernel's vmlinux, with CONFIG_DEBUG_INFO_BTF_MODULES,
    make kbuild give each module BTF with pahole, which Debian's
    linux-kbuild package depends on; the harness unpacks the headers without
    their dependencies, and a build without it fails late, as "pahole: not
    found" deep in the build log.
    """
    config = os.path.join(kdir, ".config")
    if not os.path.exists(os.path.join(kdir, "vmlinux")) or not os.path.exists(config):
        return
    with open(config, errors="replace") as f:
        if "\nCONFIG_DEBUG_INFO_BTF_MODULES=y\n" in "\n" + f.read():
            need_tool("pahole")


def build_modules(repo, kernel, workdir, logfile):
    """Copy the repo to workdir, build kernel/ against kernel; return {name: .ko}."""
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.copytree(repo, workdir, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in SKIP_DIRS])
    need_build_tools(kernel.kdir)
    kdir = os.path.join(workdir, "kernel")
    jobs = str(os.cpu_count() or 2)
    # With the walk's benchmark (bench-walk), which a production build lacks.
    run(["make", "-C", kdir, f"KDIR={kernel.kdir}", f"-j{jobs}",
         "CONFIG_SFRAME_UNWIND_BENCH=y"] +
        ARCHES[kernel.arch].make_vars, logfile=logfile)
    kos = glob.glob(os.path.join(kdir, "**", "*.ko"), recursive=True)
    if not kos:
        raise HarnessError(f"make -C kernel built no .ko (see {logfile})")
    return {os.path.basename(p)[:-3]: p for p in kos}


def probe_module(kernel, workdir, logfile):
    """Build the harness's probe/ against kernel into workdir; return the .ko's path."""
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.copytree(os.path.join(VM_DIR, "probe"), workdir)
    need_build_tools(kernel.kdir)
    run(["make", "-C", kernel.kdir, f"M={workdir}", "modules"] +
        ARCHES[kernel.arch].make_vars, logfile=logfile)
    kos = glob.glob(os.path.join(workdir, "*.ko"))
    if not kos:
        raise HarnessError(f"the probe module build left no .ko (see {logfile})")
    return kos[0]
