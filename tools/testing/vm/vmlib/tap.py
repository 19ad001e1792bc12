"""TAP version 13 on stdout: numbered test lines, SKIPs, plan and summary."""


class Tap:
    """Number, print and count TAP test lines."""

    def __init__(self):
        self.count = 0
        self.passed = self.failed = self.skipped = 0
        self.lines = []
        self.emit("TAP version 13")

    def emit(self, line):
        """Print one line on stdout and keep it for the results directory."""
        print(line, flush=True)
        self.lines.append(line)

    def test(self, ok, name, reason="", diagnostics=()):
        """Print one test line, then its diagnostics as comments."""
        self.count += 1
        if ok:
            self.passed += 1
            self.emit(f"ok {self.count} - {name}")
        else:
            self.failed += 1
            self.emit(f"not ok {self.count} - {name}" + (f" # {reason}" if reason else ""))
        for diag in diagnostics:
            self.emit(f"#   {diag}")

    def skip(self, name, reason, directive_only=False):
        """Print a loud SKIP test line (name in the directive if asked)."""
        self.count += 1
        self.skipped += 1
        if directive_only:
            self.emit(f"ok {self.count} - # SKIP {name} {reason}")
        else:
            self.emit(f"ok {self.count} - {name} # SKIP {reason}")

    def finish(self):
        """Print the plan and the closing summary line."""
        self.emit(f"1..{self.count}")
        self.emit(f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped")


class TapRecorder:
    """Test lines kept in order, to be numbered and printed by a Tap later.

    A kernel tested in a lane beside another records its lines here, and
    they are printed as one block when it ends: the log reads kernel by
    kernel whatever the lanes interleave.
    """

    def __init__(self):
        self.calls = []

    def test(self, ok, name, reason="", diagnostics=()):
        """Keep one test line and its diagnostics."""
        self.calls.append((Tap.test, (ok, name, reason, tuple(diagnostics))))

    def skip(self, name, reason, directive_only=False):
        """Keep one SKIP line."""
        self.calls.append((Tap.skip, (name, reason, directive_only)))

    def replay(self, tap):
        """Print the kept lines through tap, numbered where it stands."""
        for method, args in self.calls:
            method(tap, *args)
