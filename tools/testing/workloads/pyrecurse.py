# SPDX-License-Identifier: GPL-2.0
"""A CPU-bound recursive Python function, for profiling Python's C stack.

Usage: python3 -I -S pyrecurse.py [--callback|--qsort] SECONDS [DEPTH [WORKERS]]

Calls descend(DEPTH) over and over for SECONDS seconds and prints how many
descents it made.  With --callback, each level calls the next through the
C extension pycallback (pycallback.so, beside this file), so that the
native stack goes Python -> C -> Python -> C ... DEPTH times, and the
leaf spins in Python; with --qsort, through libc's qsort and a ctypes
comparator (libffi's closures) instead.  With WORKERS, the process forks
that many workers (no exec), each of which does the same while the parent
waits; every process prints "pid PID parent|worker" first.  Only built-in
modules are imported (posix, not os, for fork), and ctypes for --qsort,
so that the guest's initramfs needs nothing of the standard library
beyond what `pyrecurse.py --qsort 0` loads (vmlib/initramfs.py copies
exactly that).
"""

import posix
import sys
import time

DEFAULT_DEPTH = 40
# Arithmetic rounds at the leaf of a --callback descent: most of its time.
LEAF_ROUNDS = 2000


def descend(depth):
    """Recurse depth levels deep and do a little arithmetic on the way back."""
    if depth == 0:
        return 1
    return descend(depth - 1) * 3 % 1000003 + depth


def spin(seconds, depth, descent=descend):
    """Run descent(depth) for the given number of seconds."""
    end = time.monotonic() + seconds
    descents = 0
    while time.monotonic() < end:
        descent(depth)
        descents += 1
    print(f"pyrecurse: {descents} descents {depth} deep in {seconds:g} s", flush=True)


def fork_workers(workers, seconds, depth, descent):
    """Fork workers that spin; wait for them; return 0 when all succeeded."""
    failed = 0
    for _ in range(workers):
        if posix.fork() == 0:
            print(f"pid {posix.getpid()} worker", flush=True)
            spin(seconds, depth, descent)
            posix._exit(0)
    for _ in range(workers):
        _, status = posix.waitpid(-1, 0)
        failed += status != 0
    return 1 if failed else 0


def main(argv):
    """Spin for the given number of seconds, in workers if asked."""
    descent = descend
    if argv[1:2] and argv[1] in THROUGH_C:
        descent = THROUGH_C[argv[1]]()
        argv = argv[:1] + argv[2:]
    if len(argv) not in (2, 3, 4):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    seconds = float(argv[1])
    depth = int(argv[2]) if len(argv) >= 3 else DEFAULT_DEPTH
    if len(argv) == 4:
        print(f"pid {posix.getpid()} parent", flush=True)
        return fork_workers(int(argv[3]), seconds, depth, descent)
    spin(seconds, depth, descent)
    return 0


def leaf_spin():
    """The leaf of a descent through C: a little arithmetic, in Python."""
    value = 1
    for i in range(LEAF_ROUNDS):
        value = (value * 3 + i) % 1000003
    return value


def callback_descent():
    """Return a descent whose every level calls the next through pycallback.

    pycallback is imported from this file's folder, which -I leaves off
    sys.path.
    """
    sys.path.insert(0, __file__.rpartition("/")[0] or ".")
    import pycallback  # pylint: disable=import-outside-toplevel,import-error

    def descend_through_c(depth):
        """Recurse depth levels deep, each through pycallback; spin at the leaf."""
        if depth == 0:
            return leaf_spin()
        return pycallback.call(descend_through_c, depth - 1) + depth

    return descend_through_c


def qsort_descent():
    """Return a descent whose every level calls the next from libc's qsort.

    Each level sorts the pair (depth, 0) with a ctypes comparator (a libffi
    closure), which qsort calls exactly once: that call descends one
    level more.
    """
    # pylint: disable=import-outside-toplevel
    import ctypes

    libc = ctypes.CDLL("libc.so.6")
    compare_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                    ctypes.POINTER(ctypes.c_int))

    def compare(left, right):
        """Descend one level below the qsort that called; order the ints."""
        descend_through_qsort(left[0] + right[0] - 1)
        return left[0] - right[0]

    comparator = compare_type(compare)

    def descend_through_qsort(depth):
        """Recurse depth levels deep, each through qsort; spin at the leaf."""
        if depth == 0:
            return leaf_spin()
        pair = (ctypes.c_int * 2)(depth, 0)
        libc.qsort(pair, 2, ctypes.sizeof(ctypes.c_int), comparator)
        return pair[0] + depth

    return descend_through_qsort


# The options that make each level of the descent go through C.
THROUGH_C = {"--callback": callback_descent, "--qsort": qsort_descent}


if __name__ == "__main__":
    sys.exit(main(sys.argv))
