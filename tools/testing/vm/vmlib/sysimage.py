"""A Debian 12 system disk for one kernel, booted with systemd as init.

debootstrap (bookworm, the machine's own mirror, Debian's keyring) with
systemd, DKMS, the kernel's own image and headers packages and what the
mode runs (the full mode's programs, or the servers); a oneshot
unit runs /vmtest/systest.sh from a second disk at every boot.  The tree
becomes an ext4 image (mkfs.ext4 -d), kept in the cache under a hash of
what went into it, beside the kernel and initrd it boots.
"""

import glob
import os
import shutil

from .apt import KEYRING, debian_mirror
from .util import HarnessError, log, need_tool, run, sha256_of

# In every image, whatever the kernel: init, DKMS and the module's build
# (the headers bring gcc-12 and make), perf, and perl, which the full
# mode records.  openssl: DKMS makes its signing key with it.
BASE_PACKAGES = ["systemd-sysv", "udev", "kmod", "initramfs-tools", "dkms", "openssl",
                 "linux-perf", "perl"]
# The full scenario's other stock programs (nodejs: V8's JIT frames with
# frame pointers, libnode's with .eh_frame alone) and the profilers its
# clients' step runs (the kernel's headers, installed below, serve bcc's
# compiler).
FULL_PACKAGES = BASE_PACKAGES + ["xz-utils", "sqlite3", "lzip", "nodejs", "bpftrace",
                                 "bpfcc-tools"]
# The servers scenario's stock servers and their clients: PostgreSQL 15
# (pgbench), Redis 7.0 (redis-benchmark) and nginx 1.22 (ab).
SERVER_PACKAGES = BASE_PACKAGES + ["postgresql", "redis-server", "redis-tools", "nginx",
                                   "apache2-utils"]
# Each kind of image: its directory in the cache and its packages.  Each
# kind is cached on its own, so that a servers image does not evict a full one.
IMAGES = {"full": ("systest", FULL_PACKAGES), "servers": ("systest-servers", SERVER_PACKAGES)}
IMAGE_SLACK_MB = 1536           # free space for DKMS, perf data, the cache
# Timers and services a test machine does not want running behind its back.
MASKED = ["apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_all.timer",
          "e2scrub_reap.service", "fstrim.timer", "dpkg-db-backup.timer",
          "systemd-timesyncd.service"]
SYSTEST_UNIT = """\
[Unit]
Description=sframe-unwind system test (systest)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mount -o ro /dev/vdb /vmtest && exec /bin/sh /vmtest/systest.sh'
StandardOutput=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
"""
FSTAB = "/dev/vda / ext4 rw,errors=remount-ro 0 1\n"


class SystemImage:
    """A built image: the disk, and the kernel and initrd to boot."""

    def __init__(self, directory, release):
        self.dir = directory
        self.release = release
        self.disk = os.path.join(directory, "root.img")
        self.vmlinuz = os.path.join(directory, f"vmlinuz-{release}")
        self.initrd = os.path.join(directory, f"initrd.img-{release}")

    def ready(self):
        """Tell whether every file of the image exists."""
        return all(os.path.exists(p) for p in [self.disk, self.vmlinuz, self.initrd])


def _suites(suite):
    """Return the apt suites the image needs to install a kernel of suite."""
    return ["bookworm"] if suite == "bookworm" else ["bookworm", suite]


def _chroot(root, script, logfile):
    """Run script with sh in root, with /proc, /sys and /dev of its own."""
    setup = ("mount -t proc proc {r}/proc && mount -t sysfs sysfs {r}/sys && "
             "mount --bind /dev {r}/dev && ").format(r=root)
    run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
         setup + f'exec chroot {root} /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin '
         f'DEBIAN_FRONTEND=noninteractive sh -ec "$0"', script], logfile=logfile)


def _write(root, path, text, mode=0o644):
    """Write text to path inside root."""
    target = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as f:
        f.write(text)
    os.chmod(target, mode)


def _configure(root):
    """Name the machine, mount its root, run systest at boot, quiet the rest."""
    _write(root, "/etc/hostname", "systest\n")
    _write(root, "/etc/fstab", FSTAB)
    _write(root, "/etc/systemd/system/systest.service", SYSTEST_UNIT)
    os.makedirs(os.path.join(root, "vmtest"), exist_ok=True)
    wants = os.path.join(root, "etc/systemd/system/multi-user.target.wants")
    os.makedirs(wants, exist_ok=True)
    os.symlink("/etc/systemd/system/systest.service", os.path.join(wants, "systest.service"))
    for unit in MASKED:
        link = os.path.join(root, "etc/systemd/system", unit)
        if not os.path.lexists(link):
            os.symlink("/dev/null", link)


def _make_ext4(root, disk, logfile):
    """Make disk an ext4 file system holding root, with IMAGE_SLACK_MB free."""
    used_kb = int(run(["du", "-sk", "-x", root], quiet=True).split()[0])
    size_mb = used_kb // 1024 * 5 // 4 + IMAGE_SLACK_MB
    run(["mkfs.ext4", "-q", "-F", "-L", "systest", "-d", root, disk, f"{size_mb}M"],
        logfile=logfile)


def ensure_image(cache, kernel, suite, kind="full", extra_packages=(), logfile=None):
    """Build (once) the system image of kind (IMAGES) for kernel of suite.

    kernel is a kernels.Kernel.  extra_packages are installed too (the
    packages' dependencies, so that `apt install` of the .debs needs no
    network).  Returns a SystemImage.
    """
    release = kernel.release
    subdir, base = IMAGES[kind]
    packages = sorted(set(base) | set(extra_packages))
    key = sha256_of(release, " ".join(_suites(suite)), " ".join(packages),
                    " ".join(MASKED), SYSTEST_UNIT, FSTAB)
    top = os.path.join(cache, subdir)
    image = SystemImage(os.path.join(top, f"{kernel.name}-{key}"), release)
    if image.ready():
        return image
    for tool in ("debootstrap", "mkfs.ext4", "unshare"):
        need_tool(tool)
    shutil.rmtree(image.dir, ignore_errors=True)
    root = os.path.join(image.dir, "root")
    os.makedirs(root)
    logfile = logfile or os.path.join(image.dir, "build.log")
    mirror = debian_mirror()
    log(f"{kernel.name}: debootstrapping the system image into {image.dir} (log: {logfile})")
    run(["debootstrap", "--variant=minbase", f"--keyring={KEYRING}",
         "--include=" + ",".join(packages), "bookworm", root, mirror],
        logfile=logfile, quiet=True)
    _write(root, "/etc/apt/sources.list", "".join(
        f"deb [signed-by={KEYRING}] {mirror} {s} main\n" for s in _suites(suite)))
    # The kernel of the harness, by its exact release, from its own suite
    # (a backports kernel needs backports' linux-base and kbuild).
    log(f"{kernel.name}: installing linux-image/headers-{release} in the image")
    _chroot(root, f"apt-get -q update && apt-get -q -y --no-install-recommends "
            f"-t {suite} install linux-image-{release} linux-headers-{release} && "
            f"apt-get clean", logfile)
    _configure(root)
    for src, dest in [(f"boot/vmlinuz-{release}", image.vmlinuz),
                      (f"boot/initrd.img-{release}", image.initrd)]:
        if not os.path.exists(os.path.join(root, src)):
            raise HarnessError(f"the image has no /{src} (see {logfile})")
        shutil.copyfile(os.path.join(root, src), dest)
    _make_ext4(root, image.disk + ".tmp", logfile)
    os.rename(image.disk + ".tmp", image.disk)
    shutil.rmtree(root)
    for stale in glob.glob(os.path.join(top, f"{kernel.name}-*")):
        if stale != image.dir:
            log(f"removing stale system image {stale}")
            shutil.rmtree(stale, ignore_errors=True)
    return image


def deb_dependencies(debs):
    """Return the package names the .debs depend on, other than each other."""
    names, own = set(), set()
    for deb in debs:
        own.add(run(["dpkg-deb", "-f", deb, "Package"], quiet=True).strip())
        for alt in run(["dpkg-deb", "-f", deb, "Depends"], quiet=True).split(","):
            name = alt.split("|")[0].split("(")[0].strip()
            if name:
                names.add(name.split(":")[0])
    return sorted(names - own)
