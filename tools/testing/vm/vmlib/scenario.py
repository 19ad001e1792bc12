"""Scenarios: guest scripts in scenarios/<name>.sh with an optional host half.

They live in SCENARIO_DIRS: the harness's own and the benchmarks'
(tools/testing/bench/scenarios); a name is one scenario in all of them.

A scenario's header comments declare what it needs:
    # needs: module kunit probe  (project modules / KUnit modules / the
                                 harness's probe module must exist;
                                 sframectl: an arm64 guest's is cross-built;
                                 python, container, toolchain: Debian
                                 programs packed for an amd64 guest;
                                 golang: an arm64 guest's Go built by
                                 Debian 13's go)
    # kernels: all | debian-6.1 debian-6.12 debug ...   (where it can run;
                                 all: every amd64 kernel, arm64 ones by name)
    # default: debian-6.12 ...  (where a default run, make check, runs it;
                                 none: only when named or with --full;
                                 without it, every kernel it can run on)
    # timeout: SECONDS         (guest-side limit, default 300)
    # kmods: overlay ...       (the kernel's own modules, in /kmodules: load_kmods)
A file scenarios/<name>.py beside it, if present, defines check(run) that
judges the artefacts on the host (see ScenarioRun for what it may call).
"""

import glob
import importlib.util
import os

from .util import HarnessError

_TESTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCENARIO_DIR = os.path.join(_TESTING, "vm", "scenarios")
SCENARIO_DIRS = (SCENARIO_DIR, os.path.join(_TESTING, "bench", "scenarios"))
DEFAULT_TIMEOUT = 300


class Scenario:
    """A scenario file and its declared needs."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".sh")]
        self.needs = set()
        self.kmods = []
        self.kernels = ["all"]
        self.default = None
        self.timeout = DEFAULT_TIMEOUT
        self.summary = ""
        self._read_header()
        host = path[:-len(".sh")] + ".py"
        self.host_check = host if os.path.exists(host) else None

    def _read_header(self):
        """Fill needs/kernels/timeout/summary from the leading comments."""
        with open(self.path) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                text = line[1:].strip()
                key, _, val = text.partition(":")
                if key == "needs":
                    self.needs = set(val.split())
                elif key == "kernels":
                    self.kernels = val.split() or ["all"]
                elif key == "default":
                    self.default = val.split()
                elif key == "kmods":
                    self.kmods = val.split()
                elif key == "timeout":
                    self.timeout = int(val)
                elif key == self.name and not self.summary:
                    self.summary = val.strip()

    def runs_on(self, kernel, full=False, arch="amd64"):
        """Tell whether a run (a full one: every kernel it can) includes kernel.

        arch is the kernel's: "all", in either list, names the amd64 kernels
        only, for most scenarios' programs and fixtures are x86-64 ones.
        """
        can = self._names(self.kernels, kernel, arch)
        return can and (full or self.default is None or
                        self._names(self.default, kernel, arch))

    @staticmethod
    def _names(names, kernel, arch):
        """Tell whether a kernels: or default: list names kernel."""
        return kernel in names or ("all" in names and arch == "amd64")

    def load_check(self):
        """Return the host half's check function, or None."""
        if not self.host_check:
            return None
        spec = importlib.util.spec_from_file_location(f"scenario_{self.name}",
                                                      self.host_check)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.check


def discover(directories=SCENARIO_DIRS):
    """Return the scenarios of all directories in the order of their files' names.

    That order ("sframe-service-costly.sh" before "sframe-service.sh") is
    the order a boot runs them in.
    """
    found = {}
    for directory in directories:
        for path in glob.glob(os.path.join(directory, "*.sh")):
            s = Scenario(path)
            if s.name in found:
                raise HarnessError(f"scenario '{s.name}' twice: {found[s.name].path}, {path}")
            found[s.name] = s
    return sorted(found.values(), key=lambda s: os.path.basename(s.path))


def module_stat(artefacts, name, stats="module.stats"):
    """Return counter name of the module's stats file saved as artefact stats, or None."""
    text = artefacts.get(stats, b"").decode(errors="replace")
    for line in text.splitlines():
        key, _, value = line.partition(": ")
        if key == name and value.strip().isdigit():
            return int(value)
    return None


class ScenarioRun:
    """The outcome of one scenario on one kernel, as the host judges it."""

    def __init__(self, kernel, scenario, context=None):
        self.kernel = kernel
        self.scenario = scenario
        self.context = context or {}
        self.artefacts = {}
        self.metrics = {}
        self.failures = []
        self.passes = []
        self.subtests = []       # [(name, ok, directive)]
        self.skip_reason = None

    def fail(self, message):
        """Record a failed assertion."""
        self.failures.append(message)

    def passed(self, message):
        """Record a passed assertion."""
        self.passes.append(message)

    def verdict(self, ok, passed, failed):
        """Record the assertion passed if ok holds, else the failure failed."""
        (self.passed if ok else self.fail)(passed if ok else failed)

    def metric(self, name, value):
        """Record a measurement."""
        self.metrics[name] = value

    def subtest(self, name, ok, directive=""):
        """Report a separate test line (e.g. one KUnit case)."""
        self.subtests.append((name, ok, directive))

    def skip(self, reason):
        """Mark the whole scenario skipped, with a loud reason."""
        self.skip_reason = reason

    @property
    def ok(self):
        """Passed: no failure and at least one positive verdict."""
        return not self.failures and bool(self.passes or self.subtests)
