"""What the harness does differently per guest architecture.

A kernel's arch (Kernel.arch, from kernels.ARCH_OF) picks one of these:
the Debian architecture its packages come from, the QEMU that boots it,
the serial devices of the console and of the channel, the make variables
that cross-build modules for it, and the kernel's own modules the guest
must load before it can report (/kmodules/boot).
"""


class Arch:
    """One guest architecture."""

    def __init__(self, name, qemu, machine, console, channel, channel_args,
                 make_vars=(), boot_kmods=(), multiarch=""):
        self.name = name                  # Debian's architecture name
        self.qemu = qemu                  # the qemu-system binary
        self.machine = list(machine)      # its machine, CPU and accelerator
        self.console = console            # the kernel's console device
        self.channel = channel            # the guest's device of the channel
        self.channel_args = channel_args  # QEMU options for it (CHANNEL_LOG: the file)
        self.make_vars = list(make_vars)  # for make -C KDIR M=... modules
        self.boot_kmods = list(boot_kmods)
        self.multiarch = multiarch

    def qemu_channel(self, channel_log):
        """Return QEMU's options that connect the channel to channel_log."""
        return [a.replace("CHANNEL_LOG", channel_log) for a in self.channel_args]

    @property
    def native(self):
        """Whether this machine runs the guest's programs (amd64)."""
        return self.name == "amd64"


# single-threaded TCG: MTTCG races with the x86 kernel's int3 code patching
AMD64 = Arch("amd64", "qemu-system-x86_64", ["-accel", "tcg,thread=single"],
             "ttyS0", "/dev/ttyS1", ["-serial", "file:CHANNEL_LOG"],
             multiarch="x86_64-linux-gnu")

# virt has one PL011 UART for the console; the channel is a virtio console,
# whose drivers Debian builds as modules.  Pointer authentication stays on
# (-cpu max) with QEMU's cheap implementation-defined algorithm.
ARM64 = Arch("arm64", "qemu-system-aarch64",
             ["-M", "virt", "-cpu", "max,pauth-impdef=on", "-accel", "tcg,thread=single"],
             "ttyAMA0", "/dev/hvc0",
             ["-device", "virtio-serial-device",
              "-chardev", "file,id=channel,path=CHANNEL_LOG",
              "-device", "virtconsole,chardev=channel"],
             make_vars=["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"],
             boot_kmods=["virtio_mmio", "virtio_console"],
             multiarch="aarch64-linux-gnu")

ARCHES = {a.name: a for a in (AMD64, ARM64)}
