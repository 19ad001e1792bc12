"""A small Java runtime for the guest: Debian 12's OpenJDK 17 cut down by jlink.

For scenarios that declare "needs: java".  The full JRE is about 190 MB;
`jlink --add-modules java.base` without debug attributes, headers and
manual pages makes a 44 MB image with the same HotSpot (libjvm.so, as
Debian built it: .eh_frame, no frame pointers, no SFrame) and launcher.
It is made once in build/java/, in a folder named by a digest of the
JDK it comes from, so that a new JDK makes a new image.
"""

import hashlib
import os
import shutil

from .util import HarnessError, run

JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
GUEST_ROOT = "/opt/java"
JLINK_OPTIONS = ["--add-modules", "java.base", "--strip-debug", "--no-header-files",
                 "--no-man-pages"]


def jdk_digest(jdk):
    """Return a digest of what the image is made from: the JDK's release and modules."""
    digest = hashlib.sha256(" ".join(JLINK_OPTIONS).encode())
    for name in ("release", "lib/modules", "lib/server/libjvm.so", "bin/jlink"):
        path = os.path.join(jdk, name)
        st = os.stat(path)
        digest.update(f"{name} {st.st_size} {st.st_mtime_ns}\n".encode())
    with open(os.path.join(jdk, "release"), "rb") as f:
        digest.update(f.read())
    return digest.hexdigest()[:16]


def runtime(repo, jdk=JDK):
    """Return the host folder of the jlink image of jdk, making it if needed."""
    if not os.path.exists(os.path.join(jdk, "bin", "jlink")):
        raise HarnessError(f"{jdk}/bin/jlink: missing, install openjdk-17-jdk-headless")
    image = os.path.join(repo, "build", "java", "jre-" + jdk_digest(jdk))
    if os.path.exists(os.path.join(image, "bin", "java")):
        return image
    partial = image + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    run([os.path.join(jdk, "bin", "jlink")] + JLINK_OPTIONS + ["--output", partial])
    os.rename(partial, image)
    return image


def add_java(tree, repo):
    """Pack the runtime under GUEST_ROOT with the libraries its launcher and VM need."""
    image = runtime(repo)
    tree.add_tree(image, GUEST_ROOT)
    tree.add_libraries_of(os.path.join(image, "lib", "server", "libjvm.so"))
