"""Debian packages of a guest architecture the host cannot run, unpacked.

For an arm64 guest, busybox, perf and the C library come from the arm64
.debs of the kernel's suite (downloaded with a private apt, never
installed): each package is unpacked with the library packages it depends
on (those of section libs) into cache/sysroot/SUITE-ARCH.  A backports
suite holds only what was backported: the rest comes from its base suite.  ldd cannot run these programs, so the
libraries a program needs are found from its ELF headers: the
interpreter and the DT_NEEDED names, looked up in the multiarch
directories of the sysroot, recursively.
"""

import os
import re

from .kernels import extract_deb, private_apt, relink_absolute_symlinks
from .util import HarnessError, log, run


def _first_alternatives(depends):
    """Return the first alternative's package name of each Depends entry."""
    names = []
    for alt in depends.split(","):
        m = re.match(r"\s*([^\s(|:]+)", alt)
        if m:
            names.append(m.group(1))
    return names


class Sysroot:
    """One suite's packages of one architecture, unpacked in the cache."""

    def __init__(self, cache, suite, arch, multiarch):
        self.apts = [private_apt(cache, s, arch) for s in
                     dict.fromkeys([suite, suite.partition("-backports")[0]])]
        self.root = os.path.join(cache, "sysroot", f"{suite}-{arch}")
        self.libdirs = [f"lib/{multiarch}", f"usr/lib/{multiarch}", "lib", "usr/lib"]
        self.updated = False

    def path(self, guest_path):
        """Return the host path of guest_path inside the sysroot."""
        return os.path.join(self.root, guest_path.lstrip("/"))

    def install(self, package):
        """Unpack package and, recursively, the libraries it depends on."""
        todo, seen = [package], set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            stamp = os.path.join(self.root, ".unpacked", name)
            if os.path.exists(stamp):
                with open(stamp) as f:
                    depends = f.read()
            else:
                apt, fields = self._show(name)
                if name != package and fields.get("Section") != "libs":
                    continue
                log(f"sysroot: unpacking {name} {fields['Version']} ({apt.suite} {apt.arch})")
                extract_deb(apt.download(name, fields["Version"]), self.root)
                relink_absolute_symlinks(self.root)
                depends = fields.get("Pre-Depends", "") + "," + fields.get("Depends", "")
                os.makedirs(os.path.dirname(stamp), exist_ok=True)
                with open(stamp, "w") as f:
                    f.write(depends)
            todo += _first_alternatives(depends)

    def _show(self, name):
        """Return (apt, control fields) of the first suite that has name."""
        if not self.updated:
            for apt in self.apts:
                apt.update()
            self.updated = True
        for apt in self.apts:
            try:
                return apt, apt.show(name)
            except HarnessError:
                continue
        raise HarnessError(f"no package {name} in " +
                           " or ".join(apt.suite for apt in self.apts))

    def _resolve(self, name):
        """Return the guest path of library name in the sysroot's lib dirs."""
        for d in self.libdirs:
            if os.path.exists(os.path.join(self.root, d, name)):
                return "/" + os.path.join(d, name)
        raise HarnessError(f"sysroot {self.root}: no library {name} "
                           "(is its package a dependency?)")

    def libraries(self, host_path):
        """Return the guest paths of the loader and libraries host_path needs.

        A library found through an RPATH or RUNPATH of $ORIGIN (a JDK's
        launcher finds libjli.so so) travels with the program: it is not
        returned, but the libraries it needs are.
        """
        out, todo, seen = [], [host_path], set()
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            seen.add(path)
            headers = run(["readelf", "-W", "-d", "-l", path], quiet=True)
            loader = re.search(r"Requesting program interpreter: (\S+)\]", headers)
            wanted = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", headers)
            found = [loader.group(1)] if loader else []
            for name in wanted:
                beside = _origin_library(path, headers, name)
                if beside:
                    todo.append(beside)
                else:
                    found.append(self._resolve(name))
            for lib in found:
                if lib not in out:
                    out.append(lib)
                    todo.append(self.path(lib))
        return out


def _origin_library(path, headers, name):
    """Return the host path of name in path's $ORIGIN search directories, or None."""
    origin = os.path.dirname(path)
    for runpath in re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[([^]]*)\]",
                              headers):
        for entry in runpath.split(":"):
            if entry.startswith("$ORIGIN"):
                candidate = os.path.join(origin + entry[len("$ORIGIN"):], name)
                if os.path.exists(candidate):
                    return os.path.normpath(candidate)
    return None
