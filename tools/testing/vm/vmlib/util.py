"""Small helpers shared by the harness: logging, running commands, paths."""

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time


class HarnessError(Exception):
    """A step of the harness failed; the message says which and why."""


def log(msg):
    """Print a progress line on stderr, so stdout stays pure TAP."""
    # one write: lanes log side by side
    sys.stderr.write(f"vmtest: {msg}\n")
    sys.stderr.flush()


def cache_dir():
    """Return the cache directory shared between runs."""
    path = os.environ.get("SFRAME_CACHE") or os.path.expanduser("~/.cache/sframe-unwind")
    os.makedirs(path, exist_ok=True)
    return path


@contextlib.contextmanager
def cache_lock():
    """Take turns with other runs and lanes at the host-side work on the cache.

    make check runs the packaged-system test beside the VM suite's lanes:
    each fetches, builds and unpacks into the one cache, so they do that
    in turn, and only their guests run side by side.
    """
    with open(os.path.join(cache_dir(), "prepare.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def run(cmd, cwd=None, logfile=None, env=None, quiet=False):
    """Run cmd; on failure raise HarnessError with the tail of its output."""
    if not quiet:
        log("$ " + " ".join(cmd))
    if logfile:
        with open(logfile, "ab") as out:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if proc.returncode:
            raise HarnessError(f"{cmd[0]} failed (exit {proc.returncode}), "
                               f"see {logfile}:\n{tail(logfile)}")
        return ""
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode:
        raise HarnessError(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc.stdout


def tail(path, lines=20):
    """Return the last lines of a text file."""
    with open(path, "rb") as f:
        data = f.read()[-8192:].decode(errors="replace")
    return "\n".join(data.splitlines()[-lines:])


def need_tool(name):
    """Return the path of a host tool, or fail loudly naming its package."""
    path = shutil.which(name)
    if not path:
        raise HarnessError(f"required host tool '{name}' is missing "
                           f"(run .ci/install-deps.sh)")
    return path


def sha256_of(*chunks):
    """Return a short hex digest of the given strings."""
    h = hashlib.sha256()
    for c in chunks:
        h.update(c.encode() if isinstance(c, str) else c)
    return h.hexdigest()[:16]


class Stopwatch:
    """Measure a step's wall-clock time and log it on exit."""

    def __init__(self, what, timings=None):
        self.what = what
        self.timings = timings
        self.start = 0.0
        self.seconds = 0.0

    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.seconds = time.monotonic() - self.start
        log(f"{self.what}: {self.seconds:.1f} s")
        if self.timings is not None:
            self.timings[self.what] = round(self.seconds, 1)
        return False
