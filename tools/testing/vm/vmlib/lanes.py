"""Kernels tested side by side, longest first, each one's TAP as one block.

One after another, make check's kernels take about an hour, most of it
guests running scenarios against their own clock.  vmtest runs them in
lanes, as many as the host has guest slots (qemu.GUESTS): each lane takes
the longest kernel not started yet, so the longest ones do not end last.
Host-side work still takes turns at the cache (util.cache_lock) and each
boot takes a guest slot (qemu.guest_slot), so a lane whose kernel is ready
waits while the packaged-system test's guest holds the other slot.
"""

import concurrent.futures

from .tap import TapRecorder


class Part:
    """What one kernel's run produced: its TAP lines, summary and timings."""

    def __init__(self):
        self.tap = TapRecorder()
        self.summary = []
        self.timings = {}


def run(names, weight, job, lanes, tap):
    """Run job(name, part) for each name, lanes at a time; return {name: part}.

    Names start in decreasing weight (ties in the given order); each part's
    lines go to tap when its job ends, even if it raised.  A job that
    raises, or an interrupt, starts no more jobs; those running finish.
    """
    order = sorted(names, key=weight, reverse=True)
    parts = {name: Part() for name in names}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(lanes, len(names))))
    try:
        running = {pool.submit(job, name, parts[name]): name for name in order}
        for done in concurrent.futures.as_completed(running):
            try:
                done.result()
            finally:
                parts[running[done]].tap.replay(tap)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return parts
