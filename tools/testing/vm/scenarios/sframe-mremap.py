"""Host half of sframe-mremap: code moved by mremap() unwound with its file's SFrame.

mremaptext prints where its library's functions lie after the move
("fn NAME START END"): perf gets no mmap event for a move and names
nothing there, so the frames in the moved text are named here by
address (a caller's return address less one, which lies in its call).
A sample counts when its user leaf is mt_spin at the new address; it is
complete when its frames follow the expected chain, mt_spin through
every mt_recurse frame and mt_enter to run_moved and main.  The moved
code keeps no frame pointers: a walk finds its frames only with the
library's SFrame, at the new address, which the module learns of only
by observing the move (copy_vma()).  With the module at least COMPLETE
of the samples must be complete; the stock walker's share is reported.
"""

import re

from vmlib.stackcheck import (MIN_SAMPLES, USER_TOP, Frame, chain_frames_found, chain_matches,
                              parse_expect, parse_perf_script)

COMPLETE = 0.99
TEXT = re.compile(r"^(old|new) (0x[0-9a-f]+) (0x[0-9a-f]+)$", re.M)
FUNCTION = re.compile(r"^fn (\S+) (0x[0-9a-f]+) (0x[0-9a-f]+)$", re.M)


def layout(out_text):
    """Return (texts, functions, chain) that mremaptext printed.

    texts maps "old" and "new" to (start, end); functions is
    [(name, start, end)] at the new address; chain is its expect line's.
    """
    texts = {kind: (int(a, 16), int(b, 16)) for kind, a, b in TEXT.findall(out_text)}
    functions = [(name, int(a, 16), int(b, 16)) for name, a, b in FUNCTION.findall(out_text)]
    if set(texts) != {"old", "new"} or not functions:
        raise ValueError("mremaptext printed no old/new text or moved functions")
    return texts, functions, parse_expect(out_text)


def named(user, functions):
    """Return the user frames with those in the moved functions named."""
    frames = []
    for i, frame in enumerate(user):
        pc = int(frame.ip, 16) - (i > 0)
        name = next((n for n, start, end in functions if start <= pc < end), None)
        frames.append(Frame(frame.ip, name, "moved") if name else frame)
    return frames


def measure(out_text, perf_text):
    """Return (samples, complete, frames found, leaves in the old text) of one recording.

    samples: those whose user leaf is the chain's leaf at the new
    address; complete: how many of them follow the whole chain; frames
    found: the mean number of the chain's frames they have, in order;
    leaves in the old text: samples whose leaf is still in the old range
    (none, unless the program did not run the moved code).
    """
    texts, functions, chain = layout(out_text)
    old_lo, old_hi = texts["old"]
    samples = complete = found = old = 0
    for frames in parse_perf_script(perf_text):
        user = [f for f in frames if int(f.ip, 16) < USER_TOP]
        if not user:
            continue
        old += old_lo <= int(user[0].ip, 16) < old_hi
        user = named(user, functions)
        if user[0].sym != chain[0] or user[0].dso != "moved":
            continue
        samples += 1
        complete += chain_matches(user, chain)
        found += chain_frames_found(user, chain)
    return samples, complete, found / samples if samples else 0.0, old


def recording(run, name):
    """Return measure() of run NAME, its metrics reported; None after failing the run."""
    out, perf = run.artefacts.get(f"{name}.out"), run.artefacts.get(f"{name}.perf")
    if out is None or perf is None:
        run.fail(f"{name}: no workload output or perf output from the guest")
        return None
    try:
        samples, complete, found, old = measure(out.decode(errors="replace"),
                                                perf.decode(errors="replace"))
    except ValueError as e:
        run.fail(f"{name}: {e}")
        return None
    share = complete / samples if samples else 0.0
    run.metric(f"{name}_moved_samples", str(samples))
    run.metric(f"{name}_complete_pct", f"{100 * share:.1f}")
    run.metric(f"{name}_frames", f"{found:.2f}")
    run.metric(f"{name}_old_text_leaves", str(old))
    if samples < MIN_SAMPLES:
        run.fail(f"{name}: only {samples} samples in mt_spin at the new address")
        return None
    return share, found


def check(run):
    """Assert the module's chains through the moved code are complete; report stock's."""
    stock, module = recording(run, "stock"), recording(run, "module")
    if not module:
        return
    what = f"module {100 * module[0]:.1f}% complete through the moved code, {module[1]:.2f} frames"
    if stock:
        what += f"; stock {100 * stock[0]:.1f}%, {stock[1]:.2f}"
    run.verdict(module[0] >= COMPLETE, what, f"{what}: want >= {100 * COMPLETE:.0f}% complete")
