#!/usr/bin/env python3
"""Unit tests of the harness's host-side parsers (no QEMU needed).

Run: python3 tools/testing/vm/test_vmlib.py
"""

import base64
import gzip
import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# pylint: disable=wrong-import-position
from vmlib import bpfcheck, channel, console, ktap, stackcheck  # noqa: E402

CHAIN = "expect: leaf_spin chain_b chain_a main\n"


def perf_sample(*frames):
    """Return one `perf script` sample whose frames are (sym, dso) pairs."""
    lines = ["deep   101 "]
    for i, (sym, dso) in enumerate(frames):
        lines.append(f"\t    {0x1000 + i:x} {sym} ({dso})")
    return "\n".join(lines) + "\n\n"


class StackCheckTest(unittest.TestCase):
    """Completeness of callchains against the workload's expect: line."""

    def test_complete_chain_counts(self):
        text = perf_sample(("leaf_spin", "/w/deep"), ("chain_b", "/w/deep"),
                           ("chain_a", "/w/deep"), ("main", "/w/deep"),
                           ("[unknown]", "/lib/x86_64-linux-gnu/libc.so.6"))
        self.assertEqual(stackcheck.completeness(CHAIN, text), (1, 1))

    def test_truncated_chain_does_not_count(self):
        text = perf_sample(("leaf_spin", "/w/deep"), ("[unknown]", "[unknown]"))
        self.assertEqual(stackcheck.completeness(CHAIN, text), (0, 1))

    def test_missing_middle_frame_does_not_count(self):
        text = perf_sample(("leaf_spin", "/w/deep"), ("chain_a", "/w/deep"),
                           ("main", "/w/deep"))
        self.assertEqual(stackcheck.completeness(CHAIN, text), (0, 1))

    def test_samples_outside_the_leaf_are_ignored(self):
        text = perf_sample(("clock_gettime", "[vdso]"), ("leaf_spin", "/w/deep"))
        self.assertEqual(stackcheck.completeness(CHAIN, text), (0, 0))

    def test_repeat_and_libc_tokens(self):
        expect = "expect: leaf_spin cmp_spin <libc> via_qsort r*2 main\n"
        libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
        good = perf_sample(("leaf_spin", "d"), ("cmp_spin", "d"), ("msort", libc),
                           ("qsort_r", libc), ("via_qsort", "d"), ("r", "d"), ("r", "d"),
                           ("main", "d"))
        short = perf_sample(("leaf_spin", "d"), ("cmp_spin", "d"), ("msort", libc),
                            ("via_qsort", "d"), ("r", "d"), ("main", "d"))
        self.assertEqual(stackcheck.completeness(expect, good + short), (1, 2))

    def test_trailing_wildcard_is_optional(self):
        expect = "expect: leaf_spin thread_main <libc>\n"
        text = perf_sample(("leaf_spin", "d"), ("thread_main", "d"))
        self.assertEqual(stackcheck.completeness(expect, text), (1, 1))


class FakeSymbols:
    """Symbols of an object whose functions start every 0x100 bytes of file."""

    def __init__(self, *names):
        self.names = names

    def name_at_offset(self, file_offset):
        """The name of the 0x100-byte slot holding file_offset."""
        i = file_offset // 0x100
        return self.names[i] if i < len(self.names) else None


BPF_DUMP = """@@ maps
5000-6000 r-xp 00000000 fe:00 12 /w/deep
7000-8000 r-xp 00000000 fe:00 13 /lib/x86_64-linux-gnu/libc.so.6
@@ stack 3 count 2
5010
5310
5210
5110
7010
@@ stack 9 count 1
5010
@@ error -17 count 4
"""


class BpfCheckTest(unittest.TestCase):
    """bpfstack dumps become perf-script samples, weighted by their counts."""

    def setUp(self):
        self.dump = bpfcheck.Dump(BPF_DUMP)
        symbols = {"/w/deep": FakeSymbols("leaf_spin", "main", "chain_a", "chain_b")}
        self.text = self.dump.to_perf_script("deep", symbols)

    def test_counts_and_errors(self):
        self.assertEqual(self.dump.samples(), 3)
        self.assertEqual(self.dump.refused(), 4)

    def test_frames_are_named_through_the_maps(self):
        sample = stackcheck.parse_perf_script(self.text)[0]
        self.assertEqual([f.sym for f in sample],
                         ["leaf_spin", "chain_b", "chain_a", "main", "[unknown]"])
        self.assertTrue(sample[-1].in_libc())

    def test_completeness_weighs_stacks_by_count(self):
        self.assertEqual(stackcheck.completeness(CHAIN, self.text), (2, 3))


class KtapTest(unittest.TestCase):
    """KTAP from dmesg becomes one case per leaf test."""

    KTAP = """[    5.1] KTAP version 1
[    5.1] 1..1
[    5.1]     KTAP version 1
[    5.1]     # Subtest: sframe_core
[    5.1]     1..3
[    5.1]     ok 1 finds_fde
[    5.1]         KTAP version 1
[    5.1]         # Subtest: rejects
[    5.1]         ok 1 short
[    5.1]         not ok 2 overlap
[    5.1]     not ok 2 rejects
[    5.1]     ok 3 v3 # SKIP no fixture
[    5.1] not ok 1 sframe_core
"""

    def test_leaves_are_reported_with_dotted_names(self):
        cases = [(c.name, c.ok, c.skip) for c in ktap.parse_ktap(self.KTAP)]
        self.assertEqual(cases, [("sframe_core.finds_fde", True, False),
                                 ("sframe_core.rejects.short", True, False),
                                 ("sframe_core.rejects.overlap", False, False),
                                 ("sframe_core.v3", True, True)])

    def test_crash_mid_suite_is_a_failure(self):
        text = "\n".join(self.KTAP.splitlines()[:6])
        cases = ktap.parse_ktap(text)
        self.assertEqual(cases[0].name, "sframe_core.finds_fde")
        self.assertTrue(any(not c.ok and "crash" in c.directive for c in cases))


class ConsoleTest(unittest.TestCase):
    """Kernel reports are found per scenario; user-space text is not."""

    LOG = """[    1.0] Linux version 6.1
vmtest: ==== begin a ====
WARNING: perf says something in user space
[    2.0] WARNING: CPU: 1 PID: 9 at x.c:1 f+0x1/0x2
vmtest: ==== end a rc=0 ====
vmtest: ==== begin b ====
[    3.0] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
unreferenced object 0xffff8880 (size 64):
vmtest: ==== end b rc=0 ====
"""

    def test_problems_are_attributed_to_their_scenario(self):
        sections = console.split_sections(self.LOG)
        self.assertEqual(console.kernel_problems(sections["boot"]), [])
        self.assertEqual([r for r, _ in console.kernel_problems(sections["a"])],
                         ["kernel WARNING"])
        self.assertEqual([r for r, _ in console.kernel_problems(sections["b"])],
                         ["kmemleak report"])


class ChannelTest(unittest.TestCase):
    """The channel protocol round-trips results, metrics and artefacts."""

    def test_parse(self):
        blob = base64.encodebytes(gzip.compress(b"hello\n")).decode()
        text = ("@@ BOOT 6.1.0\r\n@@ BEGIN s\r\nRESULT: ok fine\r\nMETRIC: x=1\r\n"
                f"@@ ARTEFACT a.txt\r\n{blob}@@ ARTEFACT-END a.txt\r\n"
                "RESULT: fail bad thing\r\n@@ END s rc=0\r\n@@ DONE\r\n")
        log = channel.parse_channel(text)
        self.assertTrue(log.done)
        report = log.reports["s"]
        self.assertEqual(report.results, [(True, "fine"), (False, "bad thing")])
        self.assertEqual(report.metrics, {"x": "1"})
        self.assertEqual(report.artefacts, {"a.txt": b"hello\n"})
        self.assertEqual(report.rc, 0)

    def test_truncated_artefact_is_reported(self):
        log = channel.parse_channel("@@ BEGIN s\n@@ ARTEFACT a\nAAAA\n")
        self.assertEqual(len(log.broken), 1)


if __name__ == "__main__":
    unittest.main()
