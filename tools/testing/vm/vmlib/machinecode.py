"""What a workload's machine code really does with its expected stacks.

The deep workload prints the chain it expects, e.g. "recurse*41", but gcc
-O2 turns that tail-ish recursion into a loop in every fixture build (the
frame-pointer one too): at run time there is one recurse frame.  A stack
checker must expect what the code does, so repeats of a function that
never calls itself are collapsed to one frame.  Likewise a function that
reaches the next one of the chain only by a tail jump (the signal
pattern's on_alarm: "jmp leaf_spin") is not on the stack: it is dropped.

For stripped programs (Debian's python3) main_frame_offsets() finds where
main's frame is without symbols: the address _start hands to
__libc_start_main, the .eh_frame FDE around it, and the functions main
tail-jumps to, whose frames take its place on the stack.
"""

import bisect
import functools
import os
import re
import subprocess

from vmlib.kernels import arch_of
from vmlib.stackcheck import PATTERNS, USER_TOP, drop_perf_lr_frames, parse_perf_script
from vmlib.util import cache_dir

VM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.abspath(os.path.join(VM_DIR, "..", "..", ".."))


# the guests' /workloads: the committed x86-64 and AArch64 builds
X86_64_WORKLOADS = os.path.join(REPO, "tools", "testing", "workloads", "x86_64")
ARM64_WORKLOADS = os.path.join(REPO, "tools", "testing", "workloads", "aarch64")


def workloads_base(kernel=None):
    """Return the host directory of the workloads a guest of kernel gets as /workloads.

    An arm64 guest's are the committed AArch64 builds; any other's the
    committed x86-64 ones, or those SFRAME_WORKLOADS names.
    """
    if arch_of(kernel) == "arm64":
        return ARM64_WORKLOADS
    return os.environ.get("SFRAME_WORKLOADS") or X86_64_WORKLOADS


def workload_path(relative, kernel=None):
    """Return the host path of a prebuilt workload, e.g. 'v3-binutils-2.47/deep'.

    kernel is the run's kernel name: an arm64 kernel's guest runs the
    committed AArch64 builds, any other the x86-64 fixtures.
    """
    base = workloads_base(kernel)
    path = os.path.join(base, relative)
    if not os.path.exists(path):
        raise FileNotFoundError(f"workload {relative} not found under {base}")
    return path


def project_workloads_dir(arch="amd64"):
    """Where vmtest builds tools/testing/workloads for the guests of arch.

    In the checkout's own build/, not the shared cache: make judges by
    time stamps, so two checkouts sharing one build directory would run
    each other's sframectl and workloads.
    """
    return os.path.join(REPO, "build", "workloads" if arch == "amd64" else f"workloads-{arch}")


def guest_workload_path(path, kernel=None):
    """Return the host path of what a guest of kernel ran as path (/workloads/...)."""
    relative = os.path.relpath(path, "/workloads")
    project, _, rest = relative.partition("/")
    if project == "project":
        return os.path.join(project_workloads_dir(arch_of(kernel)), rest)
    return workload_path(relative, kernel)


# by ELF e_machine: the objdump that reads it, its call and jump mnemonics
AARCH64 = 183
OBJDUMP = {AARCH64: "aarch64-linux-gnu-objdump"}
MNEMONICS = {AARCH64: {"call": "bl", "jmp": "b"}}


def _machine(binary):
    with open(binary, "rb") as f:
        return int.from_bytes(f.read(20)[18:20], "little")


@functools.lru_cache(maxsize=None)
def disassembly(binary):
    objdump = OBJDUMP.get(_machine(binary), "objdump")
    return subprocess.run([objdump, "-d", "--no-show-raw-insn", binary],
                          capture_output=True, text=True, check=True).stdout


def _body(binary, func):
    body = re.search(rf"^[0-9a-f]+ <{re.escape(func)}>:\n(.*?)(?:\n\n|\Z)",
                     disassembly(binary), re.S | re.M)
    if not body:
        raise ValueError(f"{func} not found in {binary}")
    return body.group(1)


def _reaches(binary, caller, callee, how):
    how = MNEMONICS.get(_machine(binary), {}).get(how, how)
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


def realise_artefacts(run, binary, prefix=""):
    """Correct every PREFIXPATTERN.expect artefact of run for binary's machine code."""
    for name, data in list(run.artefacts.items()):
        if name.startswith(prefix) and name.endswith(".expect"):
            run.artefacts[name] = realised_expect(data.decode(), binary).encode()


def parse_program_headers(text):
    """Return (entry, [(vaddr, offset, filesz)] of PT_LOADs) from `readelf -lW`."""
    entry = re.search(r"^Entry point (0x[0-9a-f]+)", text, re.M)
    if not entry:
        raise ValueError("no entry point in readelf's program headers")
    loads = [(int(v, 16), int(o, 16), int(f, 16)) for o, v, f in re.findall(
        r"^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)",
        text, re.M)]
    return int(entry.group(1), 16), loads


def parse_fde_ranges(text):
    """Return the sorted [start, end) ranges of `readelf --debug-dump=frames`' FDEs."""
    return sorted((int(a, 16), int(b, 16)) for a, b in
                  re.findall(r" FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", text))


def main_argument(start_disassembly):
    """Return the address _start passes in %rdi to its first call (main's).

    Non-PIE code loads it as an immediate ("mov $0x627ca0,%rdi"), PIE code
    with a RIP-relative lea that objdump resolves in a comment ("# 1160").
    """
    address = None
    for line in start_disassembly.splitlines():
        insn = line.partition(":")[2].strip()
        if insn.startswith("call"):
            break
        m = re.match(r"(?:mov\w*\s+\$(0x[0-9a-f]+),%rdi$|lea\s+\S+,%rdi\s+#\s*([0-9a-f]+))",
                     insn)
        if m:
            address = int(m.group(1) or "0x" + m.group(2), 16)
    if address is None:
        raise ValueError("_start sets no %rdi before its first call")
    return address


def direct_jump_targets(disassembly):
    """Return the targets of the direct jmp instructions of a disassembly."""
    return [int(t, 16) for t in re.findall(r"\tjmp\s+([0-9a-f]+)\b", disassembly)]


def covering(ranges, address):
    """Return the range of ranges that holds address, or None."""
    return next(((a, b) for a, b in ranges if a <= address < b), None)


def to_file_offset(loads, address):
    """Return the file offset of address, mapped by one of the PT_LOADs."""
    for vaddr, offset, filesz in loads:
        if vaddr <= address < vaddr + filesz:
            return address - vaddr + offset
    raise ValueError(f"0x{address:x} is in no loaded segment")


def _tool(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def program_headers(binary):
    """Return (entry, [(vaddr, offset, filesz)] of PT_LOADs) of binary."""
    return parse_program_headers(_tool("readelf", "-lW", binary))


def main_frame_offsets(binary):
    """Return [start, end) file-offset ranges where a return address means main.

    The ranges are main's FDE and the FDE of each function main reaches by
    a direct jmp (a tail call, as Debian's python3 main does to
    Py_BytesMain): such a function's frame stands where main's would.  File
    offsets, because perf script prints a frame of a file mapping as its
    offset in the file (map-relative), PIE or not.
    """
    entry, loads = program_headers(binary)
    start = _tool("objdump", "-d", "--no-show-raw-insn", f"--start-address={entry:#x}",
                  f"--stop-address={entry + 64:#x}", binary)
    fdes = parse_fde_ranges(_tool("readelf", "--debug-dump=frames", binary))
    main = covering(fdes, main_argument(start))
    if main is None:
        raise ValueError(f"{binary}: no FDE covers main")
    body = _tool("objdump", "-d", "--no-show-raw-insn", f"--start-address={main[0]:#x}",
                 f"--stop-address={main[1]:#x}", binary)
    targets = set(direct_jump_targets(body))
    frames = [main] + [fde for fde in fdes
                       if fde[0] in targets and not main[0] <= fde[0] < main[1]]
    offsets = [to_file_offset(loads, a) for a, _ in frames]
    return [(off, off + b - a) for off, (a, b) in zip(offsets, frames)]


# the mnemonics of the calls objdump prints, by machine
CALLS = {AARCH64: {"bl", "blr", "blraa", "blrab", "blraaz", "blrabz"}}
X86_CALLS = {"call", "callq"}


def parse_call_returns(disassembly_text, calls, insn_size=None):
    """Return the addresses right after each call of `objdump -d` output.

    A call's return address is the next instruction's address, whatever
    function it belongs to (a call that does not return may end one); with
    a fixed insn_size (AArch64's 4), the call's own address plus that, as
    objdump prints no line for the zero words that may follow the call.
    Prefixes objdump prints before the mnemonic (notrack, bnd) are skipped.
    """
    returns, after_call = set(), False
    for address, insn in re.findall(r"^\s*([0-9a-f]+):\t(.*)$", disassembly_text, re.M):
        if after_call and not insn_size:
            returns.add(int(address, 16))
        words = insn.split()
        after_call = any(w in calls for w in words[:2])
        if after_call and insn_size:
            returns.add(int(address, 16) + insn_size)
    return returns


def to_vaddr(loads, offset):
    """Return the address a file offset is loaded at, or None."""
    for vaddr, off, filesz in loads:
        if off <= offset < off + filesz:
            return offset - off + vaddr
    return None


@functools.lru_cache(maxsize=None)
def call_returns(binary):
    """Return the return addresses binary's calls leave, and its PT_LOADs."""
    machine = _machine(binary)
    calls = CALLS.get(machine, X86_CALLS)
    insn_size = 4 if machine == AARCH64 else None
    return parse_call_returns(disassembly(binary), calls, insn_size), program_headers(binary)[1]


@functools.lru_cache(maxsize=None)
def planted_returns(binary):
    """Return the return addresses binary's runtime plants where no call
    left them: Go's runtime.goexit plus one instruction (x86-64: after its
    nop, one byte; AArch64: four), where every goroutine returns."""
    step = 4 if _machine(binary) == AARCH64 else 1
    return {int(address, 16) + step for address in
            re.findall(r"^([0-9a-f]+) <runtime\.goexit(?:\.abi0)?>:", disassembly(binary), re.M)}


def follows_call(binary, vaddr):
    """Tell whether address vaddr of binary is just after a call, or is a
    return address its runtime plants (planted_returns())."""
    return vaddr in call_returns(binary)[0] or vaddr in planted_returns(binary)


def planted_sequences(binary):
    """Return the code sequences the walk of binary's machine takes as the
    return site of a function whose frame record holds a planted IP
    (struct sframe_arch's planted), as the module's source lists them."""
    arch = "arm64" if _machine(binary) == AARCH64 else "x86"
    with open(os.path.join(REPO, "kernel", "sframe", "arch", arch, "machine.c")) as f:
        text = f.read()
    block = re.search(r"\.planted = \{(.*?)\n\t\},", text, re.S)
    if not block:
        raise ValueError(f"{arch}/machine.c lists no planted sequence")
    return [bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", seq))
            for seq in re.findall(r"\.bytes = \{([^}]*)\}", block.group(1))]


def code_after_call(binary, func, callee, length):
    """Return length bytes of binary at the return address of func's call
    of callee (a name's start, e.g. runtime.asyncPreempt2), or None
    without such a call."""
    call = MNEMONICS.get(_machine(binary), {}).get("call", "call")
    lines = _body(binary, func).splitlines()
    for line, after in zip(lines, lines[1:]):
        if re.search(rf"\s{call}\s+[0-9a-f]+ <{re.escape(callee)}", line):
            offset = to_file_offset(program_headers(binary)[1],
                                    int(after.split(":")[0], 16))
            with open(binary, "rb") as f:
                f.seek(offset)
                return f.read(length)
    return None


# the smallest page of the guests: a load base is a multiple of it
PAGE = 4096


@functools.lru_cache(maxsize=None)
def function_starts(binary):
    """Return the sorted addresses and names of binary's functions, as
    objdump -d heads them."""
    return sorted((int(address, 16), name) for address, name in
                  re.findall(r"^([0-9a-f]+) <([^>]+)>:$", disassembly(binary), re.M))


def function_at(binary, vaddr):
    """Return the name of binary's function holding vaddr, or None."""
    starts = function_starts(binary)
    i = bisect.bisect_right(starts, (vaddr, "\uffff")) - 1
    return starts[i][1] if i >= 0 else None


@functools.lru_cache(maxsize=None)
def function_spans(binary):
    """Return {name: (start, end)} of binary's functions, each ending where
    the next begins (the first of two with one name)."""
    starts = function_starts(binary)
    spans = {}
    for (start, name), (end, _) in zip(starts, starts[1:] + [(starts[-1][0] + PAGE, "")]):
        spans.setdefault(name, (start, end))
    return spans


def object_of(objects, frame):
    """Return the host's copy of the object of objects frame is in, or None."""
    return next((path for suffix, path in objects.items() if frame.dso.endswith(suffix)), None)


def offset_vaddr(binary, frame):
    """Return the address in binary of a frame perf printed as its offset
    in the file (x86-64's perf, arm64-debian-6.1's), or None."""
    return to_vaddr(call_returns(binary)[1], int(frame.ip, 16))


def symbol_vaddr(binary, frame):
    """Return the address in binary of a frame perf printed as its address
    in the process (arm64-debian-6.12's perf), or None: the one in the
    function perf named that is at the same offset in its page (the load
    base is page aligned), if only one is."""
    span = function_spans(binary).get(frame.sym)
    if span is None:
        return None
    start, end = span
    first = start + (int(frame.ip, 16) - start) % PAGE
    return first if first < end <= first + PAGE else None


# x86-64 libc's rt_sigreturn trampoline (__restore_rt): mov $15, %rax; syscall
X86_SIGRETURN = bytes.fromhex("48c7c00f0000000f05")


def next_is_interrupted_ip(frame):
    """Tell whether the frame after frame is an interrupted IP, not a
    return address: after a signal trampoline perf printed as a frame
    (x86-64: libc's, is_sigreturn(); arm64: the vDSO's
    __kernel_rt_sigreturn), and after Go's runtime.asyncPreempt, which
    Go's signal handler enters as if the interrupted IP had called it."""
    if frame.dso == "[vdso]":
        return frame.sym == "__kernel_rt_sigreturn"
    if frame.sym.startswith("runtime.asyncPreempt"):
        return True
    return frame.in_libc() and is_sigreturn(frame.dso, int(frame.ip, 16))


@functools.lru_cache(maxsize=None)
def is_sigreturn(path, offset):
    """Tell whether file offset offset of path (a guest library the harness
    packed from this host) holds x86-64's rt_sigreturn trampoline."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read(len(X86_SIGRETURN)) == X86_SIGRETURN
    except OSError:
        return False


def invented_frames(perf_text, objects, unknown_invented=False, place=offset_vaddr):
    """Count the callers that follow no call: (invented, checked).

    Every user frame after a sample's first (the interrupted IP) is a
    return address, but the one a signal frame restores (after the
    rt_sigreturn trampoline, which perf prints as a frame of its own: the
    return address the handler was given); one in an object of objects
    (a dso path's suffix, e.g. "/deep-static", to the host's copy of that
    object) must be just after a call instruction, or no call returns
    there and the walker invented it.  With unknown_invented (a program
    without JIT code), so is one in no object at all (perf's [unknown]):
    a word of data the frame-pointer chain led to.  place gives a frame's
    address in the host's copy (offset_vaddr, symbol_vaddr); a frame it
    cannot place is not judged.
    """
    invented = checked = 0
    for frames in parse_perf_script(perf_text):
        user = [f for f in frames if int(f.ip, 16) < USER_TOP]
        for before, frame in zip(user, user[1:]):
            if next_is_interrupted_ip(before):
                continue
            binary = object_of(objects, frame)
            vaddr = place(binary, frame) if binary else None
            if vaddr is not None:
                checked += 1
                invented += not follows_call(binary, vaddr)
            elif not binary and unknown_invented and frame.dso == "[unknown]":
                checked += 1
                invented += 1
    return invented, checked


def count_invented(run, objects, recordings=PATTERNS, unknown_invented=False):
    """Report the callers in objects that follow no call in each recording
    (NAME.perf: NAME_invented_frames, dashes as underscores), and with
    unknown_invented those in no object (invented_frames()); return
    (invented, checked) over them all.

    arm64's perf adds the leaf's LR - 1 after the leaf (sframe-pac.py),
    which follows no call and which the kernel never gives: dropped.
    """
    invented = checked = 0
    place = offset_vaddr if prints_offsets(run, objects, recordings) else symbol_vaddr
    for name in recordings:
        perf = run.artefacts.get(f"{name}.perf")
        if perf is None:
            continue
        text = perf.decode(errors="replace")
        if arch_of(run.kernel) == "arm64":
            text, _ = drop_perf_lr_frames(text)
        got, seen = invented_frames(text, objects, unknown_invented, place)
        run.metric(f"{name.replace('-', '_')}_invented_frames", str(got))
        invented += got
        checked += seen
    return invented, checked


# frames prints_offsets() looks at, and the share that must fall in the
# function perf named
PLACE_FRAMES = 50
PLACE_SHARE = 0.9


def prints_offsets(run, objects, recordings):
    """Tell whether the guest's perf printed the recordings' frames in
    objects as file offsets (offset_vaddr()) rather than as addresses in
    the process (symbol_vaddr()): the function holding each such offset
    in the host's copy is the one perf named."""
    placed = seen = 0
    for name in recordings:
        perf = run.artefacts.get(f"{name}.perf", b"").decode(errors="replace")
        for frame in (f for frames in parse_perf_script(perf) for f in frames):
            binary = object_of(objects, frame)
            if binary is None or frame.sym == "[unknown]":
                continue
            vaddr = offset_vaddr(binary, frame)
            placed += vaddr is not None and function_at(binary, vaddr) == frame.sym
            seen += 1
            if seen == PLACE_FRAMES:
                return placed >= PLACE_SHARE * seen
    return not seen or placed >= PLACE_SHARE * seen


def check_callers_real(run, objects, recordings=PATTERNS, unknown_invented=False):
    """Assert that every caller the recordings report in objects (as
    count_invented() takes them) follows a call: none was invented."""
    invented, checked = count_invented(run, objects, recordings, unknown_invented)
    names = ", ".join(sorted(os.path.basename(name) for name in objects))
    run.verdict(checked > 0 and invented == 0,
                f"all {checked} callers in {names} follow a call",
                f"{invented} of {checked} callers in {names} follow no call")
