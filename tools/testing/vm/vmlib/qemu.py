"""Boot a kernel and initramfs under QEMU (TCG) with two serial ports.

ttyS0 (the console) goes to console.log, ttyS1 (the channel scenarios
report on) to channel.log.  The boot has a hard time limit and is also
stopped when the guest stays silent on both ports for too long.
"""

import os
import subprocess
import time

from .util import need_tool

POLL_SECONDS = 5
# a guest silent on both ports this long is taken as hung (a scenario that
# legitimately runs longer must print something meanwhile)
IDLE_TIMEOUT = int(os.environ.get("VMTEST_IDLE_TIMEOUT", "300"))
# single-threaded TCG: MTTCG races with the kernel's int3 code patching
QEMU_ACCEL = "tcg,thread=single"
KERNEL_ARGS = [
    "console=ttyS0,115200", "rdinit=/init", "panic=-1", "printk.time=1",
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


def boot(bzimage, initrd, console_log, channel_log, timeout, extra_args=(), memory="2G",
         idle_timeout=IDLE_TIMEOUT, disks=()):
    """Run QEMU until the guest stops, timeout passes or it goes silent.

    disks are raw images attached as virtio disks, in order (vda, vdb, ...).
    """
    qemu = need_tool("qemu-system-x86_64")
    cmd = [qemu, "-accel", QEMU_ACCEL, "-smp", "2", "-m", memory,
           "-nographic", "-no-reboot", "-monitor", "none", "-nic", "none",
           "-serial", "stdio", "-serial", f"file:{channel_log}",
           "-kernel", bzimage, "-initrd", initrd,
           "-append", " ".join(KERNEL_ARGS + list(extra_args))]
    for disk in disks:
        cmd += ["-drive", f"file={disk},format=raw,if=virtio"]
    start = time.monotonic()
    with open(console_log, "wb") as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        stopped = _watch(proc, [console_log, channel_log], timeout, idle_timeout)
    return BootResult(proc.returncode, stopped, time.monotonic() - start)
