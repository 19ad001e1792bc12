# SPDX-License-Identifier: GPL-2.0
"""A CPU-bound recursive pure-Python function, for profiling Python's C stack.

Usage: python3 -I -S pyrecurse.py SECONDS [DEPTH]

Calls descend(DEPTH) over and over for SECONDS seconds and prints how many
descents it made.  Only built-in modules are imported, so that the guest's
initramfs needs nothing of the standard library beyond what the interpreter
loads at start-up (vmlib/initramfs.py copies exactly that).
"""

import sys
import time

DEFAULT_DEPTH = 40


def descend(depth):
    """Recurse depth levels deep and do a little arithmetic on the way back."""
    if depth == 0:
        return 1
    return descend(depth - 1) * 3 % 1000003 + depth


def main(argv):
    """Run descend() for the given number of seconds."""
    if len(argv) not in (2, 3):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    seconds = float(argv[1])
    depth = int(argv[2]) if len(argv) == 3 else DEFAULT_DEPTH
    end = time.monotonic() + seconds
    descents = 0
    while time.monotonic() < end:
        descend(depth)
        descents += 1
    print(f"pyrecurse: {descents} descents {depth} deep in {seconds:g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
