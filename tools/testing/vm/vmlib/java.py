"""A small Java runtime for the guest: Debian 12's OpenJDK 17 cut down by jlink.

For scenarios that declare "needs: java".  The full JRE is about 190 MB;
`jlink --add-modules java.base` without debug attributes, headers and
manual pages makes a 44 MB image with the same HotSpot (libjvm.so, as
Debian built it: .eh_frame, no frame pointers, no SFrame) and launcher.
An amd64 guest gets the host's JDK cut down; an arm64 one Debian 12's
arm64 JDK (openjdk-17-jdk-headless and -jre-headless, downloaded with
the harness's private apt into cache/java, never installed), cut down
by the host's jlink from the arm64 jmods: jlink takes a target's
java.base of the same feature release (17), whatever its update.
Each image is made once in build/java/, in a folder named by a digest
of what it comes from, so that a new JDK makes a new image.
"""

import hashlib
import os
import shutil

from .kernels import unpacked_packages
from .util import HarnessError, run

HOST_JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
GUEST_ROOT = "/opt/java"
JLINK_OPTIONS = ["--add-modules", "java.base", "--no-header-files", "--no-man-pages"]
# --strip-debug strips native debug sections too, with the host's
# objcopy, which cannot read another machine's ELF files: a foreign
# image drops the Java debug attributes only (Debian's libraries carry
# no debug sections anyway, only a debug link).
STRIP_NATIVE = ["--strip-debug"]
STRIP_JAVA = ["--strip-java-debug-attributes"]
# The suite and packages of a foreign guest's JDK: the jmods are in the
# JDK, the VM and the launcher in the JRE.
JDK_SUITE = "bookworm"
JDK_PACKAGES = ("openjdk-17-jdk-headless", "openjdk-17-jre-headless")


def image_digest(options, sources):
    """Return a digest of an image's jlink options and the files it is made from."""
    digest = hashlib.sha256(" ".join(options).encode())
    for path in sources:
        st = os.stat(path)
        digest.update(f"{path} {st.st_size} {st.st_mtime_ns}\n".encode())
        if os.path.basename(path) == "release":
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:16]


def foreign_jdk(cache, arch):
    """Return the folder of Debian 12's JDK for arch, unpacked in cache/java."""
    root = unpacked_packages(cache, "java", JDK_SUITE, JDK_PACKAGES, arch)
    jdk = os.path.join(root, "usr", "lib", "jvm", f"java-17-openjdk-{arch}")
    if not os.path.exists(os.path.join(jdk, "jmods", "java.base.jmod")):
        raise HarnessError(f"{' and '.join(JDK_PACKAGES)} in {root}: no jmods/java.base.jmod")
    return jdk


def runtime(repo, cache, arch="amd64"):
    """Return the host folder of the jlink image for arch, making it if needed."""
    jlink = os.path.join(HOST_JDK, "bin", "jlink")
    if not os.path.exists(jlink):
        raise HarnessError(f"{jlink}: missing, install openjdk-17-jdk-headless")
    if arch == "amd64":
        options = JLINK_OPTIONS + STRIP_NATIVE
        sources = [os.path.join(HOST_JDK, name) for name in
                   ("release", "lib/modules", "lib/server/libjvm.so")]
    else:
        jdk = foreign_jdk(cache, arch)
        options = JLINK_OPTIONS + STRIP_JAVA + ["--module-path",
                                                os.path.join(jdk, "jmods")]
        sources = [os.path.join(jdk, name) for name in
                   ("release", "jmods/java.base.jmod")]
    image = os.path.join(repo, "build", "java",
                         "jre-" + image_digest(options, sources + [jlink]))
    if os.path.exists(os.path.join(image, "bin", "java")):
        return image
    partial = image + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    run([jlink] + options + ["--output", partial])
    os.rename(partial, image)
    return image


def add_java(tree, repo, cache, arch="amd64"):
    """Pack the runtime under GUEST_ROOT with the libraries its launcher and VM need.

    A foreign guest's libraries come from its sysroot: libjvm.so needs
    libstdc++ and zlib, which the sysroot may not hold yet.
    """
    image = runtime(repo, cache, arch)
    if tree.sysroot:
        for package in ("libstdc++6", "zlib1g"):
            tree.sysroot.install(package)
    tree.add_tree(image, GUEST_ROOT)
    tree.add_libraries_of(os.path.join(image, "lib", "server", "libjvm.so"))
