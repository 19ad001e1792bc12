"""Parse KTAP (KUnit's output) into a flat list of test case results.

Lines may carry dmesg timestamps; nesting is by four-space indentation.
Only leaves are reported (a suite's cases, a case's parameters), plus any
suite or case whose plan promised more results than were printed.
"""

import re

_STAMP = re.compile(r"^(?:<\d+>)?\[\s*\d+\.\d+\]\s?")
_RESULT = re.compile(r"^(not ok|ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$")


class Case:
    """One reported test: dotted name, verdict, directive."""

    def __init__(self, name, ok, directive=""):
        self.name = name
        self.ok = ok
        self.skip = directive.upper().startswith("SKIP")
        self.directive = directive


class _Level:
    """Parser state for one nesting level."""

    def __init__(self, name):
        self.name = name
        self.planned = None
        self.seen = 0


def _strip(line):
    """Remove a dmesg timestamp; return (indent level, text)."""
    line = _STAMP.sub("", line.rstrip("\r\n"))
    stripped = line.lstrip(" ")
    return (len(line) - len(stripped)) // 4, stripped


def _incomplete(levels, depth, cases):
    """Report level depth (and deeper) if it printed fewer results than planned."""
    for d in sorted((d for d in levels if d >= depth), reverse=True):
        names = [levels[k].name for k in sorted(levels) if 1 <= k <= d and levels[k].name]
        level = levels.pop(d)
        if level.planned is not None and level.seen < level.planned:
            name = ".".join(names) or "ktap-document"
            cases.append(Case(name, False, f"only {level.seen} of {level.planned} "
                                           f"results printed (crash?)"))


def parse_ktap(text):
    """Return the [Case] reported by KTAP text (one or several documents)."""
    cases = []
    levels = {}
    for raw in text.splitlines():
        depth, line = _strip(raw)
        if line.startswith("KTAP version") or line.startswith("TAP version"):
            if depth in levels and levels[depth].seen == 0 and depth >= 1:
                continue        # "# Subtest:" came first (older kernels)
            _incomplete(levels, depth, cases)
            levels[depth] = _Level("")
            continue
        if line.startswith("# Subtest:"):
            if depth not in levels or levels[depth].seen:
                _incomplete(levels, depth, cases)
                levels[depth] = _Level("")
            levels[depth].name = line.split(":", 1)[1].strip()
            continue
        m = re.match(r"^1\.\.(\d+)", line)
        if m and depth in levels:
            levels[depth].planned = int(m.group(1))
            continue
        m = _RESULT.match(line)
        if not m or depth not in levels:
            continue
        levels[depth].seen += 1
        child = levels.get(depth + 1)
        if child is not None:
            _incomplete(levels, depth + 1, cases)
        names = [levels[d].name for d in sorted(levels) if 1 <= d <= depth and levels[d].name]
        full = ".".join(names + [m.group(3).strip()])
        if child is None or child.seen == 0:
            cases.append(Case(full, m.group(1) == "ok", m.group(4) or ""))
    _incomplete(levels, 0, cases)
    return cases
