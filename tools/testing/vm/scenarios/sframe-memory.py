"""Host half of sframe-memory: kernel bytes per byte of cached .sframe."""

# Kernel bytes a large section may cost per byte of .sframe.
MAX_LARGE_RATIO = 1.2

import re
import subprocess

from vmlib.machinecode import workload_path


def section_bytes(binary):
    """Size of an object's PT_GNU_SFRAME segment, as the module reads it."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"GNU_SFRAME\s+\S+\s+\S+\s+\S+\s+(0x[0-9a-f]+)", out)
    return int(m.group(1), 16) if m else 0


def check(run):
    """Report kernel bytes held per byte of the sections cached."""
    files = run.artefacts.get("module.files")
    if files is None:
        run.fail("no files view from the guest")
        return
    held = sframe = 0
    for line in files.decode().splitlines():
        m = re.match(r"(\S+): ok, (\d+) bytes", line)
        if m and m.group(1).startswith("/workloads/v3-binutils-2.47/"):
            held += int(m.group(2))
            sframe += section_bytes(workload_path(m.group(1)[len("/workloads/"):]))
    if not sframe:
        run.fail("no cached v3 section in the files view")
        return
    run.metric("kernel_bytes_per_sframe_byte", f"{held / sframe:.2f}")
    run.passed(f"{held} kernel bytes for {sframe} bytes of .sframe")
    libc_sframe = int(run.metrics.get("libc_sframe_bytes") or 0)
    libc_held = int(run.metrics.get("libc_sidecar_kernel_bytes") or 0)
    if not libc_sframe or not libc_held:
        run.fail(f"libc's sidecar: {libc_held} kernel bytes for"
                 f" {libc_sframe} bytes of .sframe")
        return
    ratio = libc_held / libc_sframe
    run.metric("libc_kernel_bytes_per_sframe_byte", f"{ratio:.2f}")
    if ratio <= MAX_LARGE_RATIO:
        run.passed(f"libc's sidecar: {libc_held} kernel bytes for"
                   f" {libc_sframe} bytes of .sframe ({ratio:.2f},"
                   f" at most {MAX_LARGE_RATIO})")
    else:
        run.fail(f"libc's sidecar: {libc_held} kernel bytes for"
                 f" {libc_sframe} bytes of .sframe ({ratio:.2f},"
                 f" more than {MAX_LARGE_RATIO})")
