"""A private apt configuration that downloads Debian packages into the cache.

Nothing is installed system-wide: apt's lists, state and archives live under
the cache directory, and the mirror is read from the machine's own sources.
"""

import glob
import os
import re
import time

from .util import HarnessError, log, run

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
LISTS_MAX_AGE = 6 * 3600


def _deb822_uris(text, suite):
    """Yield the URIs of deb822 stanzas that list suite."""
    for stanza in re.split(r"\n\s*\n", text):
        fields = {}
        for line in stanza.splitlines():
            m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
            if m:
                fields[m.group(1).lower()] = m.group(2).split()
        if "deb" in fields.get("types", []) and suite in fields.get("suites", []):
            yield from fields.get("uris", [])


def _one_line_uris(text, suite):
    """Yield the URIs of one-line-style 'deb' entries for suite."""
    for line in text.splitlines():
        line = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
        if len(line) >= 3 and line[0] == "deb" and line[2] == suite:
            yield line[1]


def debian_mirror(suite="bookworm"):
    """Return the Debian mirror this machine uses for suite (from apt sources)."""
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path) as f:
            for uri in _deb822_uris(f.read(), suite):
                return uri.rstrip("/")
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        if os.path.exists(path):
            with open(path) as f:
                for uri in _one_line_uris(f.read(), suite):
                    return uri.rstrip("/")
    raise HarnessError(f"no apt source for suite '{suite}' on this machine")


class PrivateApt:
    """apt-get/apt-cache confined to one suite and architecture, state in root."""

    def __init__(self, root, suite, arch="amd64"):
        self.root = root
        self.suite = suite
        self.arch = arch
        self.sources = os.path.join(root, "sources.list")
        for sub in ("parts", "state/lists/partial", "cache/archives/partial", "debs"):
            os.makedirs(os.path.join(root, sub), exist_ok=True)
        status = os.path.join(root, "state/status")
        if not os.path.exists(status):
            open(status, "w").close()

    def _options(self):
        """Return the -o options that point apt at the private directories."""
        opts = {
            "Dir::Etc::sourcelist": self.sources,
            "Dir::Etc::sourceparts": os.path.join(self.root, "parts"),
            "Dir::Etc::preferencesparts": os.path.join(self.root, "parts"),
            "Dir::State": os.path.join(self.root, "state"),
            "Dir::State::status": os.path.join(self.root, "state/status"),
            "Dir::Cache": os.path.join(self.root, "cache"),
            "APT::Architecture": self.arch,
            "APT::Architectures": self.arch,
            "Acquire::Languages": "none",
            "Debug::NoLocking": "1",
        }
        out = []
        for key, val in opts.items():
            out += ["-o", f"{key}={val}"]
        return out

    def update(self, force=False):
        """Write the sources file and refresh the package lists if stale."""
        with open(self.sources, "w") as f:
            f.write(f"deb [signed-by={KEYRING}] {debian_mirror()} {self.suite} main\n")
        stamp = os.path.join(self.root, "updated")
        if not force and os.path.exists(stamp) and \
                time.time() - os.path.getmtime(stamp) < LISTS_MAX_AGE:
            return
        log(f"apt-get update ({self.suite}, private)")
        run(["apt-get", "-q"] + self._options() + ["update"], quiet=True)
        open(stamp, "w").close()

    def show(self, package):
        """Return the candidate's control fields of package as a dict."""
        text = run(["apt-cache"] + self._options() +
                   ["show", "--no-all-versions", package], quiet=True)
        fields, key = {}, None
        for line in text.splitlines():
            if not line.strip():
                break
            if line[0] in " \t" and key:
                fields[key] += "\n" + line.strip()
                continue
            key, _, val = line.partition(":")
            fields[key] = val.strip()
        if "Package" not in fields:
            raise HarnessError(f"package {package} not found in {self.suite}")
        return fields

    def depends(self, package):
        """Return [(name, version)] of package's Depends.

        An exact "(= v)" is kept; any other linux-* dependency gets its
        candidate, or None where the suite lacks it (experimental carries
        only the packages it changes; the rest are unstable's).
        """
        out = []
        for alt in self.show(package).get("Depends", "").split(","):
            m = re.match(r"\s*([^\s(|]+)\s*(?:\(\s*=\s*([^)\s]+)\s*\))?", alt)
            if m:
                out.append((m.group(1), m.group(2)))
        return [(name, ver or self._candidate_or_none(name)) if name.startswith("linux-")
                else (name, ver) for name, ver in out]

    def _candidate_or_none(self, package):
        """Return package's candidate version, or None if the suite lacks it."""
        try:
            return self.candidate(package)
        except HarnessError:
            return None

    def candidate(self, package):
        """Return the version apt would pick for package."""
        return self.show(package)["Version"]

    def download(self, package, version):
        """Download package=version into the private debs dir; return its path."""
        debs = os.path.join(self.root, "debs")
        existing = glob.glob(os.path.join(debs, f"{package}_*.deb"))
        quoted = version.replace(":", "%3a")
        for path in existing:
            if os.path.basename(path).startswith(f"{package}_{quoted}_"):
                return path
        run(["apt-get", "-q"] + self._options() + ["download", f"{package}={version}"],
            cwd=debs, quiet=True)
        found = glob.glob(os.path.join(debs, f"{package}_{quoted}_*.deb"))
        if not found:
            raise HarnessError(f"apt-get download {package}={version} left no .deb")
        for path in existing:
            os.unlink(path)
        return found[0]
