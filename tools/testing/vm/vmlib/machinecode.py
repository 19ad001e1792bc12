"""What a workload's machine code really does with its expected stacks.

The deep workload prints the chain it expects, e.g. "recurse*41", but gcc
-O2 turns that tail-ish recursion into a loop in every fixture build (the
frame-pointer one too): at run time there is one recurse frame.  A stack
checker must expect what the code does, so repeats of a function that
never calls itself are collapsed to one frame.  Likewise a function that
reaches the next one of the chain only by a tail jump (the signal
pattern's on_alarm: "jmp leaf_spin") is not on the stack: it is dropped.
"""

import functools
import os
import re
import subprocess

from vmlib.util import cache_dir

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.abspath(os.path.join(VM_DIR, "..", "..", ".."))


def workload_path(relative):
    """Return the host path of a prebuilt workload, e.g. 'v3-binutils-2.47/deep'."""
    base = os.environ.get("SFRAME_WORKLOADS") or os.path.join(
        REPO, "..", "shared", "fixtures", "workloads")
    path = os.path.join(base, relative)
    if not os.path.exists(path):
        raise FileNotFoundError(f"workload {relative} not found under {base}")
    return path


def project_workloads_dir():
    """Where vmtest builds tools/testing/workloads for the guests."""
    return os.path.join(cache_dir(), "workloads")


@functools.lru_cache(maxsize=None)
def _disassembly(binary):
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                          capture_output=True, text=True, check=True).stdout


def _body(binary, func):
    body = re.search(rf"^[0-9a-f]+ <{re.escape(func)}>:\n(.*?)(?:\n\n|\Z)",
                     _disassembly(binary), re.S | re.M)
    if not body:
        raise ValueError(f"{func} not found in {binary}")
    return body.group(1)


def _reaches(binary, caller, callee, how):
    return re.search(rf"\b{how}\s+[0-9a-f]+ <{re.escape(callee)}>",
                     _body(binary, caller)) is not None


def calls_itself(binary, func):
    """Tell whether func's machine code in binary contains a call to func."""
    return _reaches(binary, func, func, "call")


def only_tail_calls(binary, caller, callee):
    """Tell whether caller reaches callee by a jmp and never by a call.

    False for a caller that is not in binary (it lives in a library).
    """
    try:
        return (_reaches(binary, caller, callee, "jmp") and
                not _reaches(binary, caller, callee, "call"))
    except ValueError:
        return False


def realised_expect(expect_text, binary):
    """Rewrite each name*N of an expect line to name if name never recurses."""
    def fix(match):
        return match.group(0) if calls_itself(binary, match.group(1)) else match.group(1)

    def drop_tail(line):
        if not line.startswith("expect:"):
            return line
        names = line.split()[1:]
        kept = [n for i, n in enumerate(names)
                if i == 0 or not re.fullmatch(r"\w+", n) or
                not re.fullmatch(r"\w+", names[i - 1]) or
                not only_tail_calls(binary, n, names[i - 1])]
        return " ".join(["expect:"] + kept)
    text = re.sub(r"(\w+)\*(\d+)", fix, expect_text)
    return "\n".join(drop_tail(line) for line in text.split("\n"))


def realise_artefacts(run, binary):
    """Correct every PATTERN.expect artefact of run for binary's machine code."""
    for name, data in list(run.artefacts.items()):
        if name.endswith(".expect"):
            run.artefacts[name] = realised_expect(data.decode(), binary).encode()
