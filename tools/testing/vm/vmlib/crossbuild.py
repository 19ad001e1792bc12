"""Programs cross-built at run time for a guest the host cannot run (arm64).

The deep workload (shared/fixtures/workloads/src) with the guest's cross
compiler, -O2, with and without frame pointers, into the cache; and the
harness's probe module (probe/) against the kernel's headers.  Each build
is keyed by its inputs and reused.
"""

import glob
import os
import shutil

from .arch import ARCHES
from .machinecode import workload_path
from .util import HarnessError, need_tool, run, sha256_of

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEEP_BUILDS = {"fp": ["-fno-omit-frame-pointer"], "nofp": ["-fomit-frame-pointer"]}


def _read(path):
    with open(path) as f:
        return f.read()


def deep_workloads(cache, arch):
    """Return the directory of DEEP_BUILDS' subdirectories with deep, libdeepso.so."""
    cc = need_tool(ARCHES[arch].cc)
    deep, deepso = workload_path("src/deep.c"), workload_path("src/deepso.c")
    version = run([cc, "--version"], quiet=True).splitlines()[0]
    key = sha256_of(_read(deep), _read(deepso), version, repr(DEEP_BUILDS))
    out = os.path.join(cache, f"workloads-{arch}", key)
    if os.path.exists(os.path.join(out, "done")):
        return out
    shutil.rmtree(os.path.dirname(out), ignore_errors=True)
    for build, flags in DEEP_BUILDS.items():
        os.makedirs(os.path.join(out, build))
        common = [cc, "-O2"] + flags
        run(common + ["-o", os.path.join(out, build, "deep"), deep, "-ldl", "-lpthread"])
        run(common + ["-fPIC", "-shared", "-o",
                      os.path.join(out, build, "libdeepso.so"), deepso])
    open(os.path.join(out, "done"), "w").close()
    return out


def probe_module(kernel, workdir, logfile):
    """Build probe/ against kernel into workdir; return the .ko's path."""
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.copytree(os.path.join(VM_DIR, "probe"), workdir)
    run(["make", "-C", kernel.kdir, f"M={workdir}", "modules"] +
        ARCHES[kernel.arch].make_vars, logfile=logfile)
    kos = glob.glob(os.path.join(workdir, "*.ko"))
    if not kos:
        raise HarnessError(f"the probe module build left no .ko (see {logfile})")
    return kos[0]
