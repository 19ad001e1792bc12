"""Boot a kernel and initramfs under QEMU (TCG) with a console and a channel.

The console (amd64: ttyS0, arm64: ttyAMA0) goes to console.log, the
channel scenarios report on (ttyS1, hvc0: vmlib/arch.py) to channel.log.
The boot has a hard time limit and is also stopped when the guest stays
silent on both ports for too long.  Every boot first takes one of the
host's guest slots (guest_slot()), so all vmtest runs together keep at
most GUESTS guests running.
"""

import contextlib
import fcntl
import os
import subprocess
import time

from .arch import ARCHES
from .util import cache_dir, log, need_tool

POLL_SECONDS = 5
# A guest's CPUs, unless its boot says otherwise: two, so that races can
# happen.
CPUS = 2
# a guest silent on both ports this long is taken as hung (a scenario that
# legitimately runs longer must print something meanwhile)
IDLE_TIMEOUT = int(os.environ.get("VMTEST_IDLE_TIMEOUT", "300"))
# VMTEST_ICOUNT=1: the guest's clock counts its instructions (1 ns each)
# instead of following the host's, so a benchmark's "ns" are instruction
# counts, the same on every run whatever else the host does.
ICOUNT = os.environ.get("VMTEST_ICOUNT", "") == "1"
ICOUNT_ARGS = ["-icount", "shift=0,sleep=off"]
# Guests running at once on this host, by every vmtest run together
# (make check boots the packaged-system test beside the kernels' lanes).
# Single-threaded TCG keeps one host core busy per guest: one guest per
# core, at least two, which is what the scenarios' timing bounds were
# measured with, and at most four (2 GiB each, and the host's own work).
GUESTS = max(1, int(os.environ.get("VMTEST_GUESTS", "0") or "0")
             or min(4, max(2, os.cpu_count() or 2)))
KERNEL_ARGS = [
    "rdinit=/init", "panic=-1", "printk.time=1",
    "loglevel=7", "no_hash_pointers", "8250.nr_uarts=4",
]


class BootResult:
    """How a boot ended: exit code, and why it was stopped if it was."""

    def __init__(self, exit_code, stopped, seconds):
        self.exit_code = exit_code
        self.stopped = stopped          # "" or the reason QEMU was killed
        self.seconds = seconds


def _output_size(paths):
    """Return the total size of the files in paths (0 for missing ones)."""
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    return total


def _watch(proc, logs, timeout, idle_timeout):
    """Wait for proc; kill it past timeout or after idle_timeout s of silence."""
    start = last_change = time.monotonic()
    last_size = -1
    while True:
        try:
            proc.wait(timeout=POLL_SECONDS)
            return ""
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        size = _output_size(logs)
        if size != last_size:
            last_size, last_change = size, now
        if now - start > timeout:
            reason = f"timed out after {timeout} s"
        elif now - last_change > idle_timeout:
            reason = f"no output for {idle_timeout} s (hung?)"
        else:
            continue
        proc.kill()
        proc.wait()
        return reason


@contextlib.contextmanager
def guest_slot(what):
    """Hold one of the host's GUESTS slots (a lock file in the cache)."""
    waited = False
    while True:
        for i in range(GUESTS):
            f = open(os.path.join(cache_dir(), f"guest-slot.{i}"), "w")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                continue
            with f:
                yield i
            return
        if not waited:
            log(f"{what}: waiting for one of {GUESTS} guest slots")
            waited = True
        time.sleep(POLL_SECONDS)


def boot(bzimage, initrd, console_log, channel_log, timeout, extra_args=(), memory="2G",
         idle_timeout=IDLE_TIMEOUT, disks=(), arch="amd64", cpus=CPUS, icount=None):
    """Run QEMU until the guest stops, timeout passes or it goes silent.

    disks are raw images attached as virtio disks, in order (vda, vdb, ...).
    icount: whether the guest's clock counts instructions (ICOUNT_ARGS);
    None: as VMTEST_ICOUNT says.
    """
    if icount is None:
        icount = ICOUNT
    guest = ARCHES[arch]
    qemu = need_tool(guest.qemu)
    console = [f"console={guest.console},115200"]
    cmd = [qemu] + guest.machine + ["-smp", str(cpus), "-m", memory,
                                    "-nographic", "-no-reboot", "-monitor", "none",
                                    "-nic", "none", "-serial", "stdio"] + \
        ICOUNT_ARGS * icount + \
        guest.qemu_channel(channel_log) + \
        ["-kernel", bzimage, "-initrd", initrd,
         "-append", " ".join(console + KERNEL_ARGS + list(extra_args))]
    for disk in disks:
        cmd += ["-drive", f"file={disk},format=raw,if=virtio"]
    with guest_slot(console_log), open(console_log, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            stopped = _watch(proc, [console_log, channel_log], timeout, idle_timeout)
        finally:
            # interrupted: the guest goes before its slot does
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return BootResult(proc.returncode, stopped, time.monotonic() - start)
