"""Split a guest console log per scenario and find kernel error reports.

Only kernel lines (those carrying a printk timestamp) are examined, so that
a program's own "WARNING:" on the console is not taken for the kernel's.
"""

import re

# (reason, pattern) for the kernel reports that fail a run
KERNEL_PROBLEMS = [
    ("kernel oops", r"Oops:|general protection fault|Kernel panic"),
    ("kernel BUG", r"\bBUG: |kernel BUG at"),
    ("kernel WARNING", r"WARNING: CPU: \d+|------------\[ cut here \]"),
    ("KASAN report", r"KASAN: "),
    ("UBSAN report", r"UBSAN: "),
    ("lockdep report", r"possible circular locking|inconsistent lock state|"
                       r"possible recursive locking|suspicious RCU usage|"
                       r"lock held when returning to user space|"
                       r"possible irq lock inversion"),
    ("kmemleak report", r"unreferenced object 0x|new suspected memory leaks"),
    ("RCU stall", r"rcu: INFO: .*stall|self-detected stall"),
    ("hung task", r"INFO: task .* blocked for more than"),
    ("soft lockup", r"soft lockup|hard LOCKUP"),
    ("perf interrupt too long", r"perf: interrupt took too long"),
]
_KERNEL_LINE = re.compile(r"\[\s*\d+\.\d+\]\s(.*)")
_BEGIN = re.compile(r"vmtest: ==== begin (\S+) ====")
_END = re.compile(r"vmtest: ==== end (\S+) rc=")


def split_sections(text):
    """Return {section: [lines]}: "boot", each scenario, and "shutdown"."""
    sections = {"boot": []}
    current = "boot"
    for line in text.splitlines():
        line = line.rstrip("\r")
        m = _BEGIN.search(line)
        if m:
            current = m.group(1)
            sections[current] = []
        sections.setdefault(current, []).append(line)
        if _END.search(line):
            current = "shutdown"
    return sections


def kernel_problems(lines):
    """Return [(reason, line)] for every kernel error report in lines."""
    found = []
    for line in lines:
        m = _KERNEL_LINE.search(line)
        if not m:
            continue
        for reason, pattern in KERNEL_PROBLEMS:
            if re.search(pattern, m.group(1)):
                found.append((reason, line.strip()))
                break
    return found
