#!/usr/bin/env python3
"""Unit tests of the harness's host-side parsers (no QEMU needed).

Run: python3 tools/testing/vm/test_vmlib.py
"""

import base64
import contextlib
import gzip
import importlib.machinery
import importlib.util
import io
import lzma
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock

sys.dont_write_bytecode = True
VM_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, VM_DIR)

# pylint: disable=wrong-import-position
from vmlib import apt, arch, bpfcheck, builds, channel, chroot, console, container, \
    forkcheck, initramfs, java, kernels, kmods, ktap, lanes, machinecode, modules, \
    protocheck, qemu, scenario, stackcheck, sysimage, system, sysroot  # noqa: E402
from vmlib.tap import Tap  # noqa: E402
from vmlib.util import HarnessError  # noqa: E402

CHAIN = "expect: leaf_spin chain_b chain_a main\n"


def load_source(*path):
    """Return the module of the Python file at VM_DIR/path (vmtest, a host half)."""
    loader = importlib.machinery.SourceFileLoader(path[-1].replace("-", "_")[:-3],
                                                  os.path.join(VM_DIR, *path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


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

    def test_chain_frames_found_in_order_across_gaps(self):
        chain = ["leaf", "b", "jit", "a", "main"]
        frames = lambda *names: [stackcheck.Frame("1", n, "d") for n in names]
        self.assertEqual(stackcheck.chain_frames_found(frames("leaf", "a", "x"), chain), 2)
        self.assertEqual(stackcheck.chain_frames_found(frames(*chain), chain), 5)
        self.assertEqual(stackcheck.chain_frames_found(frames("a", "leaf", "main"), chain), 2)
        self.assertEqual(stackcheck.chain_frames_found([], chain), 0)

    def test_worse_than_stock_within_two_runs_noise(self):
        self.assertFalse(stackcheck.worse_than_stock((0.995, 4.995), (1.0, 5.0)))
        self.assertTrue(stackcheck.worse_than_stock((0.98, 5.0), (1.0, 5.0)))
        self.assertTrue(stackcheck.worse_than_stock((1.0, 4.9), (1.0, 5.0)))
        self.assertFalse(stackcheck.worse_than_stock((1.0, 6.0), (0.0, 1.0)))

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

    def test_arm64_sigreturn_is_in_the_vdso(self):
        expect = "expect: leaf_spin <sigreturn> <libc> in_signal main\n"
        libc = "/lib/aarch64-linux-gnu/libc.so.6"
        good = perf_sample(("leaf_spin", "d"), ("__kernel_rt_sigreturn", "[vdso]"),
                           ("[unknown]", libc), ("raise", libc), ("in_signal", "d"),
                           ("main", "d"))
        lost = perf_sample(("leaf_spin", "d"), ("__kernel_rt_sigreturn", "[vdso]"),
                           ("in_signal", "d"), ("main", "d"))
        self.assertEqual(stackcheck.completeness(expect, good + lost), (1, 2))

    def test_trailing_wildcard_is_optional(self):
        expect = "expect: leaf_spin thread_main <libc>\n"
        text = perf_sample(("leaf_spin", "d"), ("thread_main", "d"))
        self.assertEqual(stackcheck.completeness(expect, text), (1, 1))

    def test_samples_inside_time_windows_are_dropped(self):
        def timed(t, *frames):
            return perf_sample(*frames).replace("deep   101 ", f"deep   101 {t}: ", 1)
        complete = [("leaf_spin", "d"), ("chain_b", "d"), ("chain_a", "d"), ("main", "d")]
        text = (timed("10.000000", *complete) + timed("12.500000", ("leaf_spin", "d")) +
                timed("15.000000", *complete))
        kept, dropped = stackcheck.samples_outside(text, [(12.0, 13.0)])
        self.assertEqual(dropped, 1)
        self.assertEqual(stackcheck.completeness(CHAIN, kept), (2, 2))
        with self.assertRaises(ValueError):
            stackcheck.samples_outside(perf_sample(("leaf_spin", "d")), [])


class ForkCheckTest(unittest.TestCase):
    """Each forked process's samples against its role's chain, by tid."""

    OUT = ("pid 10 parent\nexpect worker: leaf_spin work main\n"
           "expect grandchild: leaf_spin grand work main\npid 11 worker\npid 12 worker\n"
           "pid 13 grandchild\ndone\n")

    @staticmethod
    def sample(tid, *names):
        """One sample of thread tid with the named frames."""
        return "".join([f"forkdeep {tid:6d}\n"] + [f"\t{0x1000 + i:x} {n} (/w/forkdeep)\n"
                                                    for i, n in enumerate(names)]) + "\n"

    def test_roles_and_chains(self):
        self.assertEqual(forkcheck.pids_by_role(self.OUT),
                         {"parent": {10}, "worker": {11, 12}, "grandchild": {13}})
        self.assertEqual(forkcheck.chains_by_role(self.OUT)["grandchild"],
                         ["leaf_spin", "grand", "work", "main"])

    def test_each_role_against_its_own_chain(self):
        text = (self.sample(11, "leaf_spin", "work", "main") +
                self.sample(12, "leaf_spin", "[unknown]") +
                self.sample(13, "leaf_spin", "grand", "work", "main") +
                self.sample(13, "leaf_spin", "work", "main") +     # a worker's chain
                self.sample(10, "leaf_spin", "work", "main") +     # the parent's
                self.sample(11, "clock_gettime", "leaf_spin"))      # not in the leaf
        self.assertEqual(forkcheck.role_completeness(self.OUT, text),
                         {"worker": (1, 2), "grandchild": (1, 2)})


class ReachTest(unittest.TestCase):
    """Samples of one program whose stacks reach an address range of its file."""

    PY = "/usr/bin/python3.11"

    def sample(self, comm, *ips):
        """One sample of comm with frames of the program at ips."""
        return "".join([f"{comm} 7 \n"] + [f"\t{ip:16x} [unknown] ({self.PY})\n"
                                            for ip in ips]) + "\n"

    def test_return_addresses_and_dwarf_ones_count(self):
        text = (self.sample("python3", 0x12e00c, 0x227d37) +    # return address
                self.sample("python3", 0x12e00c, 0x227d36) +    # minus one (DWARF)
                self.sample("python3", 0x12e00c, 0x227d3c) +    # after a final call
                self.sample("python3", 0x12e00c, 0x300000) +    # truncated
                self.sample("perf", 0x227d37))                  # another program
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY,
                                                     [(0x227d10, 0x227d3c)]), (3, 4))

    def test_leaf_in_the_program(self):
        kernel = "python3 7 \n\tffffffff8c8a948c do_user_addr_fault ([kernel.kallsyms])\n"
        libc = "python3 7 \n\t9f1c0 strlen (/lib/x86_64-linux-gnu/libc.so.6)\n"
        text = (kernel + f"\t12e00c x ({self.PY})\n\t227d37 y ({self.PY})\n\n" +
                libc + f"\t227d37 y ({self.PY})\n\n" +
                self.sample("python3", 0x12e00c))
        ranges = [(0x227d10, 0x227d3c)]
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY, ranges), (2, 3))
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY, ranges,
                                                     leaf_in_dso=True), (1, 2))

    def test_only_the_given_threads(self):
        text = (self.sample("python3", 0x227d37).replace(" 7 ", " 8 ") +
                self.sample("python3", 0x300000) + self.sample("python3", 0x227d37))
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY,
                                                     [(0x227d10, 0x227d3c)], tids={7}), (1, 2))

    def test_samples_only_in_the_loader_can_be_skipped(self):
        ld = "/lib64/ld-linux-x86-64.so.2"
        text = (f"python3 7 \n\t1a2b0 [unknown] ({ld})\n\t1c0f0 [unknown] ({ld})\n\n" +
                f"python3 7 \n\t1a2b0 [unknown] ({ld})\n\t227d37 y ({self.PY})\n\n" +
                self.sample("python3", 0x300000))
        ranges = [(0x227d10, 0x227d3c)]
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY, ranges), (1, 3))
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY, ranges,
                                                     skip_only_in=ld), (1, 2))

    def test_other_objects_at_the_same_offset_do_not_count(self):
        text = "python3 7 \n\t227d37 time (/lib/x86_64-linux-gnu/libc.so.6)\n\n"
        self.assertEqual(stackcheck.samples_reaching(text, "python3", self.PY,
                                                     [(0x227d10, 0x227d3c)]), (0, 1))


class ThroughLibcTest(unittest.TestCase):
    """Samples of a stripped program whose walk reaches __libc_start_main."""

    def test_walks_through_main_count(self):
        libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
        xz = "/usr/bin/xz"
        whole = (f"xz 7 \n\tffffffff8c8a948c do_syscall_64 ([kernel.kallsyms])\n"
                 f"\t7f69b1871ca8 lzma_code (/usr/lib/x86_64-linux-gnu/liblzma.so.5)\n"
                 f"\t5580870bc60c [unknown] ({xz})\n\t7f69b16b224a [unknown] ({libc})\n"
                 f"\t7f69b16b2305 __libc_start_main ({libc})\n"
                 f"\t5580870baae1 [unknown] ({xz})\n\n")
        truncated = f"xz 7 \n\t5580870bc60c [unknown] ({xz})\n\n"
        other = f"perl 8 \n\t7f69b16b2305 __libc_start_main ({libc})\n\n"
        elsewhere = f"xz 7 \n\t5580870bc60c __libc_start_main ({xz})\n\n"
        self.assertEqual(stackcheck.samples_through(
            whole + truncated + other + elsewhere, "xz", "__libc_start_main"), (1, 3))

    def test_another_library_by_name(self):
        lib = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6"
        text = (f"sqlite3 7 \n\t7f69b1871ca8 [unknown] ({lib})\n"
                f"\t7f69b1871c00 sqlite3_step ({lib})\n\n"
                f"sqlite3 7 \n\t7f69b1871ca8 sqlite3_step (/usr/bin/sqlite3)\n\n")
        self.assertEqual(stackcheck.samples_through(text, "sqlite3", "sqlite3_step",
                                                    "libsqlite3.so"), (1, 2))

    def test_started_process_or_thread(self):
        libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
        main = (f"redis-server 7 \n\t5580870bc60c [unknown] (/usr/bin/redis-server)\n"
                f"\t7f69b16b2305 __libc_start_main ({libc})\n\n")
        thread = (f"io_thd_1 8 \n\t5580870bc60c [unknown] (/usr/bin/redis-server)\n"
                  f"\t7f69b16b2305 __clone ({libc})\n\n")
        cut = "io_thd_1 8 \n\t5580870bc60c [unknown] (/usr/bin/redis-server)\n\n"
        named_elsewhere = "io_thd_1 8 \n\t5580870bc60c __clone (/usr/bin/redis-server)\n\n"
        text = main + thread + cut + named_elsewhere
        starts = ("__libc_start_main", "__clone")
        self.assertEqual(stackcheck.samples_started(text, "io_thd_1", starts), (1, 3))
        self.assertEqual(stackcheck.samples_started(text, "redis-server", starts), (1, 1))
        self.assertEqual(stackcheck.samples_started(text, "io_thd_1", ("__libc_start_main",)),
                         (0, 3))

    def test_mean_user_frames(self):
        libnode = "/usr/lib/x86_64-linux-gnu/libnode.so.108"
        deep = (f"node 7 \n\tffffffff8c8a948c do_syscall_64 ([kernel.kallsyms])\n"
                f"\t7f1c3c4b0b1f [unknown] ([unknown])\n"
                f"\t7f69b1871ca8 [unknown] ({libnode})\n"
                f"\t7f69b16b2305 __libc_start_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n")
        shallow = "node 8 \n\t7f1c3c4b0b1f [unknown] ([unknown])\n\n"
        other = "perl 9 \n\t5580870bc60c [unknown] (/usr/bin/perl)\n\n"
        self.assertEqual(stackcheck.mean_user_frames(deep + shallow + other, "node"), 2.0)
        self.assertEqual(stackcheck.mean_user_frames(other, "node"), 0.0)


class ServersJudgeTest(unittest.TestCase):
    """vmtest --system --servers: each process judged, an idle optional one reported."""

    @staticmethod
    def perf(comm, whole, cut):
        libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
        done = f"{comm} 7 \n\t5580870bc60c [unknown] (/usr/sbin/nginx)\n" \
            f"\t7f69b16b2305 __libc_start_main ({libc})\n\n"
        short = f"{comm} 7 \n\t5580870bc60c [unknown] (/usr/sbin/nginx)\n\n"
        return done * whole + short * cut

    def judge(self, text, control=None):
        report = channel.GuestReport("servers")
        report.artefacts["nginx.perf"] = text.encode()
        report.artefacts["pg-pooled-stock.perf"] = (control or self.perf("postgres", 0, 60)).encode()
        return report, system.judge_stacks(report, {"nginx": {"nginx": True, "ab": False}})

    def test_complete_passes(self):
        report, (failures, passes) = self.judge(self.perf("nginx", 99, 1) + self.perf("ab", 3, 0))
        self.assertEqual(failures, [])
        self.assertEqual(report.metrics["nginx_nginx_start_pct"], "99.0")
        self.assertEqual(report.metrics["nginx_ab_samples"], "3")
        self.assertEqual(report.metrics["pg-pooled-stock_postgres_start_pct"], "0.0")
        self.assertEqual(len(passes), 2)

    def test_incomplete_or_idle_fails(self):
        _, (failures, _) = self.judge(self.perf("nginx", 90, 10))
        self.assertEqual(len(failures), 1)
        _, (failures, _) = self.judge(self.perf("ab", 60, 0))
        self.assertIn("nginx_nginx: only 0 samples", failures)

    def test_forked_backends_held_to_the_same_floor(self):
        report = channel.GuestReport("servers")
        report.artefacts["pg-connect.perf"] = self.perf("postgres", 990, 10).encode()
        report.artefacts["pg-pooled-stock.perf"] = self.perf("postgres", 0, 60).encode()
        failures, _ = system.judge_stacks(report, {"pg-connect": {"postgres": True}})
        self.assertEqual(failures, [])
        report.artefacts["pg-connect.perf"] = self.perf("postgres", 985, 15).encode()
        failures, _ = system.judge_stacks(report, {"pg-connect": {"postgres": True}})
        self.assertIn("want >= 99%", failures[0])

    def test_a_control_the_judge_passes_fails(self):
        whole = self.perf("nginx", 99, 1)
        _, (failures, _) = self.judge(whole, self.perf("postgres", 99, 1))
        self.assertEqual(len(failures), 1)
        self.assertIn("(the control)", failures[0])
        _, (failures, _) = self.judge(whole, self.perf("postgres", 0, 3))
        self.assertEqual(len(failures), 1)


class ThroughputJudgeTest(unittest.TestCase):
    """vmtest --system --throughput: every rate there, the ratios as metrics."""

    RATES = {"none": "1000", "stock": "700", "stock_2": "900", "warming": "600",
             "warm": "784.5", "warm_2": "784.5", "module": "990"}

    def judge(self, rates):
        report = channel.GuestReport("throughput")
        for load in system.THROUGHPUT_LOADS:
            for window, rate in rates.items():
                report.metrics[f"{load}_{window}"] = rate
        return report, system.judge_stacks(report, {})

    def test_ratios_against_the_stock_walker(self):
        report, (failures, passes) = self.judge(self.RATES)
        self.assertEqual(failures, [])
        self.assertEqual(len(passes), len(system.THROUGHPUT_LOADS))
        self.assertEqual(report.metrics["redis_stock_ratio"], "0.80")
        self.assertEqual(report.metrics["redis_warming_ratio"], "0.75")
        self.assertEqual(report.metrics["redis_warm_ratio"], "0.98")
        self.assertEqual(report.metrics["redis_module_ratio"], "0.99")
        self.assertIn("warm 0.98x of it (goal 0.97x)", passes[0])
        self.assertIn("stock_2 900/-/-", passes[0])

    @unittest.mock.patch.dict(os.environ, {"VMTEST_THROUGHPUT_SECONDS": "10"})
    def test_the_runs_noise_and_the_cpu_shares(self):
        report = channel.GuestReport("throughput")
        report.metrics.update({"redis_warm_walk_ms": "1200", "redis_warm_2_walk_ms": "1800",
                               "redis_warming_service_ms": "4000",
                               "redis_stock_kworker_ms": "300", "redis_stock_2_kworker_ms": "0",
                               "redis_warming_kworker_ms": "1000",
                               "redis_warming_idle_ms": "2000"})
        for window, rate in self.RATES.items():
            report.metrics[f"redis_{window}"] = rate
        _, passes = system.judge_throughput(report)
        # stock 700 and 900: 200 apart, over their mean of 800
        self.assertEqual(report.metrics["redis_stock_spread"], "0.25")
        self.assertEqual(report.metrics["redis_warm_spread"], "0.00")
        # 1.5 s of walks a window, of 10 s on the guest's one CPU; the
        # service 4 s
        self.assertEqual(report.metrics["redis_warm_walk_share"], "0.150")
        self.assertEqual(report.metrics["redis_warming_service_share"], "0.400")
        self.assertNotIn("redis_warm_service_share", report.metrics)
        # the kernel's workers: 150 ms a window under perf's walker, 1 s
        # while the service warmed up, when the CPU also stood idle 2 s
        self.assertEqual(report.metrics["redis_stock_kworker_share"], "0.015")
        self.assertEqual(report.metrics["redis_warming_kworker_share"], "0.100")
        self.assertEqual(report.metrics["redis_warming_idle_share"], "0.200")
        self.assertNotIn("redis_warm_kworker_share", report.metrics)
        self.assertIn("two windows 0.25 apart at most, of the guest's CPU time, "
                      "stock: kworker 1.5%; warming: service 40.0%, kworker 10.0%, "
                      "idle 20.0%; warm: walk 15.0%", passes[-1])

    def test_a_missing_or_zero_rate_fails(self):
        _, (failures, passes) = self.judge({**self.RATES, "stock_2": "", "warm": "0"})
        self.assertEqual(passes, [])
        self.assertIn("nginx: no rate stock or warm", failures)

    def test_what_perf_wrote_is_said(self):
        report = channel.GuestReport("throughput")
        report.metrics.update({"nginx_warm_2_mb": "1.5", "nginx_warm_2_walk_ms": "120"})
        for window, rate in self.RATES.items():
            report.metrics[f"nginx_{window}"] = rate
        _, passes = system.judge_throughput(report)
        self.assertIn("warm_2 784.5/1.5/120", passes[-1])

    def test_one_mode_at_a_time(self):
        vmtest = load_source("vmtest")
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            vmtest.parse_args(["--system", "--servers", "--throughput"])
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            vmtest.parse_args(["--system", "--quick"])
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            vmtest.parse_args(["--throughput"])
        self.assertTrue(vmtest.parse_args(["--system", "--throughput"]).throughput)


class ClientStacksTest(unittest.TestCase):
    """Stacks printed by bpftrace and by bcc's profile (folded), weighted by count."""

    BPFTRACE = """Attaching 2 probes...


@[xz, ]: 3
@[perl,
        Perl_pp_add+23
        Perl_runops_standard+26
        perl_run+1234
        0x55d7feb9a123
        __libc_start_main+133
        0x55d7feb99ab1
]: 90
@[perl,
        Perl_pp_add+40
]: 10
@[xz,
        lzma_code+12
        __libc_start_main+133
]: 7
"""
    FOLDED = """perl;[unknown];__libc_start_main;[unknown];perl_run;Perl_pp_add 95
perl;[Missed User Stack] 5
xz;lzma_code 2
"""

    def test_bpftrace_entries_weighed_by_count(self):
        stacks = stackcheck.bpftrace_stacks(self.BPFTRACE)
        self.assertEqual(stacks[0], ("xz", 3, []))
        self.assertEqual(stacks[1][2][:2], ["Perl_pp_add", "Perl_runops_standard"])
        self.assertEqual(stacks[1][2][3], "0x55d7feb9a123")
        self.assertEqual(stackcheck.stacks_through(stacks, "perl", "__libc_start_main"),
                         (90, 100))
        self.assertEqual(stackcheck.stacks_through(stacks, "xz", "__libc_start_main"),
                         (7, 10))

    def test_folded_stacks_leaf_first(self):
        stacks = stackcheck.folded_stacks(self.FOLDED)
        self.assertEqual(stacks[0][2][0], "Perl_pp_add")
        self.assertEqual(stackcheck.stacks_through(stacks, "perl", "__libc_start_main"),
                         (95, 100))
        self.assertEqual(stackcheck.stacks_through(stacks, "xz", "__libc_start_main"),
                         (0, 2))


class MainFrameTest(unittest.TestCase):
    """Where main is in a stripped program, from readelf and objdump output."""

    HEADERS = """
Elf file type is EXEC (Executable file)
Entry point 0x627bb0
There are 13 program headers, starting at offset 64

Program Headers:
  Type           Offset   VirtAddr           PhysAddr           FileSiz  MemSiz   Flg Align
  PHDR           0x000040 0x0000000000400040 0x0000000000400040 0x0002d8 0x0002d8 R   0x8
  LOAD           0x000000 0x0000000000400000 0x0000000000400000 0x01e3e8 0x01e3e8 R   0x1000
  LOAD           0x01f000 0x000000000041f000 0x000000000041f000 0x2b2289 0x2b2289 R E 0x1000
"""
    START = """0000000000627bb0 <_start@@Base>:
  627bb0:\txor    %ebp,%ebp
  627bc4:\tmov    $0x627ca0,%rdi
  627bcb:\tcall   *0x31e40f(%rip)        # 945fe0 <__libc_start_main@GLIBC_2.34>
  627bd1:\thlt
  627bd2:\tmov    $0x1,%rdi
"""
    PIE_START = """    1522:\txor    %ecx,%ecx
    1524:\tlea    -0x3cb(%rip),%rdi        # 1160 <main>
    152b:\tcall   *0x2a8f(%rip)        # 3fc0 <__libc_start_main@GLIBC_2.34>
"""
    FRAMES = """00000080 0000000000000010 00000058 FDE cie=0000002c pc=0000000000627ca0..0000000000627ca2
  DW_CFA_nop
000000b0 0000000000000014 00000088 FDE cie=0000002c pc=0000000000627d10..0000000000627d3c
"""

    def test_program_headers(self):
        entry, loads = machinecode.parse_program_headers(self.HEADERS)
        self.assertEqual(entry, 0x627bb0)
        self.assertEqual(loads, [(0x400000, 0, 0x1e3e8), (0x41f000, 0x1f000, 0x2b2289)])
        self.assertEqual(machinecode.to_file_offset(loads, 0x627d10), 0x227d10)
        with self.assertRaises(ValueError):
            machinecode.to_file_offset(loads, 0x945fe0)

    def test_main_is_what_start_passes_in_rdi(self):
        self.assertEqual(machinecode.main_argument(self.START), 0x627ca0)
        self.assertEqual(machinecode.main_argument(self.PIE_START), 0x1160)
        with self.assertRaises(ValueError):
            machinecode.main_argument("  627bb0:\txor    %ebp,%ebp\n")

    def test_fdes_and_tail_jumps(self):
        fdes = machinecode.parse_fde_ranges(self.FRAMES)
        self.assertEqual(fdes, [(0x627ca0, 0x627ca2), (0x627d10, 0x627d3c)])
        self.assertEqual(machinecode.covering(fdes, 0x627ca1), (0x627ca0, 0x627ca2))
        self.assertIsNone(machinecode.covering(fdes, 0x627ca2))
        body = ("  627ca0:\tjmp    627d10 <Py_BytesMain@@Base>\n"
                "  627ca2:\tjmp    *%rax\n")
        self.assertEqual(machinecode.direct_jump_targets(body), [0x627d10])


class CallReturnsTest(unittest.TestCase):
    """The return addresses a disassembly's calls leave."""

    X86 = """0000000000401000 <f>:
  401000:\tcall   401100 <g>
  401005:\tnotrack call *%rax
  401008:\tmov    %rax,%rdi
  40100b:\tjmp    *%rax
  40100d:\tcall   401200 <abort>

0000000000401012 <h>:
  401012:\tpush   %rbp
"""
    ARM64 = """  400100:\tbl\t400200 <g>
  400104:\tblraaz\tx3
  400108:\tbr\tx8
  40010c:\tret
"""

    def test_x86_calls_direct_indirect_and_prefixed(self):
        returns = machinecode.parse_call_returns(self.X86, machinecode.X86_CALLS)
        # the call that ends f returns to h's first instruction
        self.assertEqual(returns, {0x401005, 0x401008, 0x401012})

    def test_arm64_bl_and_authenticated_blr(self):
        returns = machinecode.parse_call_returns(self.ARM64, machinecode.CALLS[machinecode.AARCH64])
        self.assertEqual(returns, {0x400104, 0x400108})

    def test_file_offsets_to_addresses(self):
        loads = [(0x400000, 0, 0x1000), (0x401000, 0x1000, 0x2000)]
        self.assertEqual(machinecode.to_vaddr(loads, 0x1005), 0x401005)
        self.assertIsNone(machinecode.to_vaddr(loads, 0x3000))


class PythonFilesTest(unittest.TestCase):
    """The files a `python -v` trace loaded, at the paths a guest imports them from."""

    def test_cached_modules_become_sourceless(self):
        trace = """import _frozen_importlib # frozen
# /usr/lib/python3.11/encodings/__pycache__/__init__.cpython-311.pyc matches /x.py
# code object from '/usr/lib/python3.11/encodings/__pycache__/__init__.cpython-311.pyc'
# code object from /opt/lib/mod.py
# extension module '_bz2' loaded from '/usr/lib/python3.11/lib-dynload/_bz2.so'
# extension module '_bz2' executed from '/usr/lib/python3.11/lib-dynload/_bz2.so'
"""
        self.assertEqual(initramfs.parse_python_verbose(trace), [
            ("/usr/lib/python3.11/encodings/__pycache__/__init__.cpython-311.pyc",
             "/usr/lib/python3.11/encodings/__init__.pyc"),
            ("/opt/lib/mod.py", "/opt/lib/mod.py"),
            ("/usr/lib/python3.11/lib-dynload/_bz2.so", "/usr/lib/python3.11/lib-dynload/_bz2.so")])


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


class ModuleStatTest(unittest.TestCase):
    def test_counters_by_name(self):
        stats = b"samples: 12\nlookups_fresh: 3\nstop: outermost frame: 9\n"
        artefacts = {"module.stats": stats}
        self.assertEqual(scenario.module_stat(artefacts, "lookups_fresh"), 3)
        self.assertEqual(scenario.module_stat(artefacts, "samples"), 12)
        self.assertIsNone(scenario.module_stat(artefacts, "lookups_unread"))
        self.assertIsNone(scenario.module_stat({}, "samples"))
        self.assertIsNone(scenario.module_stat(artefacts, "samples", "system.stats"))


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
                "RESULT: fail bad thing\r\n@@ END s rc=0 seconds=12.5\r\n"
                "@@ BEGIN t\r\n@@ END t rc=3\r\n@@ DONE\r\n")
        log = channel.parse_channel(text)
        self.assertTrue(log.done)
        report = log.reports["s"]
        self.assertEqual(report.results, [(True, "fine"), (False, "bad thing")])
        self.assertEqual(report.metrics, {"x": "1"})
        self.assertEqual(report.artefacts, {"a.txt": b"hello\n"})
        self.assertEqual(report.rc, 0)
        self.assertEqual(report.seconds, 12.5)
        self.assertEqual((log.reports["t"].rc, log.reports["t"].seconds), (3, None))

    def test_truncated_artefact_is_reported(self):
        log = channel.parse_channel("@@ BEGIN s\n@@ ARTEFACT a\nAAAA\n")
        self.assertEqual(len(log.broken), 1)


class SystestModesTest(unittest.TestCase):
    """vmtest --system's modes: an image of each kind, a guest function per phase."""

    def setUp(self):
        self.systest = system
        self.guest = ""
        for name in ("systest.sh", "servers.sh"):
            with open(os.path.join(VM_DIR, "guest", name)) as f:
                self.guest += f.read()

    def test_each_mode_has_its_image(self):
        kinds = {self.systest.IMAGE_OF.get(mode, mode) for mode in self.systest.MODES}
        self.assertEqual(kinds, set(sysimage.IMAGES))
        self.assertEqual(set(self.systest.KERNELS_OF), set(self.systest.MODES))
        dirs = [subdir for subdir, _ in sysimage.IMAGES.values()]
        self.assertEqual(len(set(dirs)), len(dirs))

    def test_the_base_is_part_of_every_image(self):
        for _, packages in sysimage.IMAGES.values():
            self.assertLess(set(sysimage.BASE_PACKAGES), set(packages))
        servers = sysimage.IMAGES["servers"][1]
        for client in ("bpftrace", "bpfcc-tools", "sqlite3", "lzip", "nodejs"):
            self.assertNotIn(client, servers)

    def test_each_program_is_started_and_recorded(self):
        for name in self.systest.PROGRAMS:
            self.assertRegex(self.guest, rf"\n\t{name}\)\s")
            self.assertRegex(self.guest, rf"\n\trecord {name} ")
        self.assertTrue(os.path.isfile(self.systest.NODE_WORKLOAD))

    def test_each_throughput_load_has_a_rate(self):
        for load in self.systest.THROUGHPUT_LOADS:
            self.assertRegex(self.guest, rf"\n\t{load.replace('_', '-')}\)\s")

    def test_each_phase_is_a_guest_function(self):
        for phases in self.systest.MODES.values():
            for phase in phases:
                self.assertIn(f"\n{phase}_phase()\n", self.guest)


class InventedFramesTest(unittest.TestCase):
    """A caller must follow a call, unless a signal frame restored it."""

    def setUp(self):
        self.deep = machinecode.workload_path("v3-binutils-2.47/deep")
        returns, loads = machinecode.call_returns(self.deep)
        # the file offsets of a return address and of the byte before it
        off = machinecode.to_file_offset(loads, min(returns))
        self.real, self.not_call = off, off - 1

    def _perf(self, *frames):
        """perf script text of one sample: frames are (ip, dso[, symbol])."""
        lines = [f"\t{f[0]:x} {f[2] if len(f) > 2 else 'f'} ({f[1]})\n" for f in frames]
        return "deep 7\n" + "".join(lines)

    def test_callers_after_calls_are_real(self):
        text = self._perf((0x10, "/w/deep"), (self.real, "/w/deep"))
        self.assertEqual(machinecode.invented_frames(text, {"/deep": self.deep}), (0, 1))

    def test_caller_after_no_call_is_invented(self):
        text = self._perf((0x10, "/w/deep"), (self.not_call, "/w/deep"))
        self.assertEqual(machinecode.invented_frames(text, {"/deep": self.deep}), (1, 1))

    def test_frame_a_signal_frame_restores_is_not_judged(self):
        with tempfile.TemporaryDirectory() as root:
            libc = os.path.join(root, "libc.so.6")
            with open(libc, "wb") as f:
                f.write(b"\x90" * 0x20 + machinecode.X86_SIGRETURN)
            for trampoline, judged in ((0x20, 0), (0x10, 1)):
                text = self._perf((0x10, "/w/deep"), (trampoline, libc),
                                  (self.not_call, "/w/deep"))
                self.assertEqual(machinecode.invented_frames(text, {"/deep": self.deep}),
                                 (judged, judged))

    def test_frame_after_the_vdso_trampoline_is_not_judged(self):
        for sym, judged in (("__kernel_rt_sigreturn", 0), ("__kernel_clock_gettime", 1)):
            text = self._perf((0x10, "/w/deep"), (0x7bc, "[vdso]", sym),
                              (self.not_call, "/w/deep"))
            self.assertEqual(machinecode.invented_frames(text, {"/deep": self.deep}),
                             (judged, judged))

    def test_frame_after_go_async_preemption_is_not_judged(self):
        for sym, judged in (("runtime.asyncPreempt.abi0", 0), ("runtime.morestack", 1)):
            text = self._perf((0x10, "/w/deep"), (self.real, "/w/deep", sym),
                              (self.not_call, "/w/deep"))
            self.assertEqual(machinecode.invented_frames(text, {"/deep": self.deep}),
                             (judged, judged + 1))

    def test_go_goexit_plus_one_instruction_is_planted(self):
        listing = ("000000000045ebc0 <runtime.goexit.abi0>:\n  45ebc0:\tnop\n"
                   "00000000000ebc00 <runtime.goexit1>:\n")
        for machine, planted in ((62, {0x45ebc1}), (183, {0x45ebc4})):
            with unittest.mock.patch.object(machinecode, "disassembly", return_value=listing), \
                    unittest.mock.patch.object(machinecode, "_machine", return_value=machine):
                machinecode.planted_returns.cache_clear()
                self.assertEqual(machinecode.planted_returns(f"/go-{machine}"), planted)
        machinecode.planted_returns.cache_clear()

    def test_process_addresses_are_placed_by_their_function(self):
        returns, loads = machinecode.call_returns(self.deep)
        ret = min(returns)
        name = machinecode.function_at(self.deep, ret)
        offset = machinecode.to_file_offset(loads, ret)
        base = 0x55d1c0de0000
        for ip, offsets in ((offset, True), (base + ret, False)):
            for delta, invented in ((0, 0), (-1, 1)):
                run = scenario.ScenarioRun("debian-6.12", None)
                text = self._perf((0x10, "/w/deep", "[unknown]"), (ip + delta, "/w/deep", name))
                run.artefacts["chain.perf"] = text.encode()
                objects = {"/deep": self.deep}
                self.assertEqual(machinecode.prints_offsets(run, objects, ["chain"]), offsets)
                self.assertEqual(machinecode.count_invented(run, objects, ["chain"]),
                                 (invented, 1))

    def test_arm64_perf_lr_minus_one_is_dropped(self):
        deep = machinecode.workload_path("v3-binutils-2.47/deep", "arm64-debian-6.12")
        returns, loads = machinecode.call_returns(deep)
        ret = min(returns)
        name = machinecode.function_at(deep, ret)
        real = machinecode.to_file_offset(loads, ret)
        run = scenario.ScenarioRun("arm64-debian-6.12", None)
        text = self._perf((0x10, "/w/deep"), (real - 1, "/w/deep", name),
                          (real, "/w/deep", name))
        run.artefacts["chain.perf"] = text.encode()
        self.assertEqual(machinecode.count_invented(run, {"/deep": deep}), (0, 1))
        self.assertEqual(machinecode.invented_frames(text, {"/deep": deep}), (1, 2))


class BuildToolsTest(unittest.TestCase):
    """A module build that needs pahole says so before it starts."""

    def _kdir(self, root, vmlinux, btf):
        with open(os.path.join(root, ".config"), "w") as f:
            f.write("CONFIG_X=y\n" + ("CONFIG_DEBUG_INFO_BTF_MODULES=y\n" if btf else ""))
        if vmlinux:
            open(os.path.join(root, "vmlinux"), "w").close()
        return root

    def test_pahole_needed_with_vmlinux_and_module_btf(self):
        with tempfile.TemporaryDirectory() as root, \
                unittest.mock.patch("shutil.which", return_value=None):
            with self.assertRaisesRegex(HarnessError, "'pahole' is missing"):
                modules.need_build_tools(self._kdir(root, True, True))

    def test_pahole_not_needed_otherwise(self):
        for vmlinux, btf in ((False, True), (True, False)):
            with tempfile.TemporaryDirectory() as root, \
                    unittest.mock.patch("shutil.which", return_value=None):
                modules.need_build_tools(self._kdir(root, vmlinux, btf))


class FakeApt(apt.PrivateApt):
    """A PrivateApt over a fixed package list: experimental's kernel headers."""

    VERSION = "7.3~rc7-1~exp1"
    PACKAGES = {
        "linux-headers-7.3-amd64": "gcc-16-for-host, linux-base (>= 4.12~), "
                                   f"linux-headers-7.3-common (= {VERSION}), linux-kbuild-7.3",
        "linux-headers-7.3-common": "",
        "linux-kbuild-7.3": "libc6 (>= 2.38), libelf1t64 (>= 0.144), libssl3t64 (>= 3.0.0)",
    }

    def __init__(self):  # pylint: disable=super-init-not-called
        self.suite = "experimental"

    def update(self, force=False):
        pass

    def show(self, package):
        if package not in self.PACKAGES:
            raise HarnessError(f"package {package} not found in {self.suite}")
        return {"Package": package, "Version": self.VERSION,
                "Depends": self.PACKAGES[package]}

    def download(self, package, version):
        return f"/debs/{package}_{version}_amd64.deb"


class ExperimentalTest(unittest.TestCase):
    """Experimental's kernel: its packages depend on unstable's."""

    def test_depends_on_a_package_only_unstable_has(self):
        deps = dict(FakeApt().depends("linux-headers-7.3-amd64"))
        self.assertIsNone(deps["linux-base"])
        self.assertEqual(deps["linux-kbuild-7.3"], FakeApt.VERSION)
        self.assertEqual(deps["linux-headers-7.3-common"], FakeApt.VERSION)

    def test_chroot_headers(self):
        with unittest.mock.patch.object(kernels, "private_apt", lambda cache, suite: FakeApt()):
            debs, packages = kernels.chroot_headers("/cache", "debian-experimental",
                                                    "7.3-amd64")
            self.assertIsNone(kernels.chroot_headers("/cache", "debian-7.x", "7.2-amd64"))
        self.assertEqual([os.path.basename(d).split("_")[0] for d in debs],
                         ["linux-headers-7.3-amd64", "linux-headers-7.3-common",
                          "linux-kbuild-7.3"])
        self.assertEqual(packages, ["libc6", "libelf1t64", "libssl3t64"])


class UnpackIntoChrootTest(unittest.TestCase):
    """A package's ./lib/... lands in a merged-/usr chroot's /usr/lib."""

    def test_directory_symlink_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            pkg = os.path.join(tmp, "pkg")
            os.makedirs(os.path.join(pkg, "DEBIAN"))
            os.makedirs(os.path.join(pkg, "lib/modules/7.3-amd64"))
            with open(os.path.join(pkg, "DEBIAN/control"), "w") as f:
                f.write("Package: headers\nVersion: 1\nArchitecture: all\n"
                        "Maintainer: t <t@t>\nDescription: t\n")
            with open(os.path.join(pkg, "lib/modules/7.3-amd64/build"), "w") as f:
                f.write("x")
            deb = os.path.join(tmp, "headers.deb")
            subprocess.run(["dpkg-deb", "--build", "--root-owner-group", pkg, deb],
                           check=True, capture_output=True)
            root = os.path.join(tmp, "root")
            os.makedirs(os.path.join(root, "usr/lib/x86_64-linux-gnu"))
            os.symlink("usr/lib", os.path.join(root, "lib"))
            chroot.unpack_into(deb, root, os.path.join(tmp, "log"))
            self.assertTrue(os.path.islink(os.path.join(root, "lib")))
            self.assertTrue(os.path.isdir(os.path.join(root, "lib/x86_64-linux-gnu")))
            self.assertTrue(os.path.isfile(
                os.path.join(root, "usr/lib/modules/7.3-amd64/build")))


class BuildsTest(unittest.TestCase):
    """vmtest --builds: each flavour a suite carries, and only those."""

    class SuiteApt(FakeApt):
        """Experimental with the generic and the rt flavour, no cloud one."""

        PACKAGES = dict(FakeApt.PACKAGES, **{
            "linux-headers-amd64": f"linux-base-amd64 (= {FakeApt.VERSION}), "
                                   f"linux-headers-7.3-amd64 (= {FakeApt.VERSION})",
            "linux-headers-rt-amd64": f"linux-headers-7.3-rt-amd64 (= {FakeApt.VERSION})",
            "linux-headers-7.3-rt-amd64": f"linux-headers-7.3-common (= {FakeApt.VERSION}), "
                                          "linux-kbuild-7.3",
        })

    class ArmApt(FakeApt):
        """Experimental's arm64 list: the generic and the 16K-page flavour."""

        PACKAGES = {
            "linux-headers-arm64": f"linux-headers-7.3-arm64 (= {FakeApt.VERSION})",
            "linux-headers-arm64-16k": f"linux-headers-7.3-arm64-16k (= {FakeApt.VERSION})",
            "linux-headers-7.3-arm64": f"linux-headers-7.3-common (= {FakeApt.VERSION}), "
                                       "linux-kbuild-7.3, gcc-16-for-host",
            "linux-headers-7.3-arm64-16k": f"linux-headers-7.3-common (= {FakeApt.VERSION}), "
                                           "linux-kbuild-7.3",
            "linux-headers-7.3-common": "",
            "linux-kbuild-7.3": "libc6 (>= 2.38), libelf1t64 (>= 0.144)",
        }

        def download(self, package, version):
            return f"/debs/{package}_{version}_arm64.deb"

    def _apts(self):
        return {"amd64": self.SuiteApt(), "arm64": self.ArmApt()}

    @staticmethod
    def _headers(arch, flavour):
        return builds.Headers(arch, flavour, f"7.3-{flavour}", FakeApt.VERSION)

    def test_suite_headers(self):
        self.assertEqual(builds.suite_headers(self._apts()),
                         [self._headers("amd64", "amd64"), self._headers("amd64", "rt-amd64"),
                          self._headers("arm64", "arm64"),
                          self._headers("arm64", "arm64-16k")])

    def test_headers_debs(self):
        debs, packages = kernels.headers_debs(self.SuiteApt(), "7.3-rt-amd64",
                                              FakeApt.VERSION)
        self.assertEqual([os.path.basename(d).split("_")[0] for d in debs],
                         ["linux-headers-7.3-rt-amd64", "linux-headers-7.3-common",
                          "linux-kbuild-7.3"])
        self.assertEqual(packages, ["libc6", "libelf1t64", "libssl3t64"])

    def test_arm64_headers_take_amd64_kbuild(self):
        debs, packages = kernels.headers_debs(self.ArmApt(), "7.3-arm64", FakeApt.VERSION,
                                              self.SuiteApt())
        self.assertEqual([os.path.basename(d) for d in debs],
                         [f"linux-headers-7.3-arm64_{FakeApt.VERSION}_arm64.deb",
                          f"linux-headers-7.3-common_{FakeApt.VERSION}_arm64.deb",
                          f"linux-kbuild-7.3_{FakeApt.VERSION}_amd64.deb"])
        # the amd64 kbuild's own dependencies
        self.assertEqual(packages, ["libc6", "libelf1t64", "libssl3t64"])

    def test_compiler_package(self):
        for cc, arch_name, package in [
                ("gcc-10", "amd64", "gcc-10"),
                ("x86_64-linux-gnu-gcc-16", "amd64", "gcc-16"),
                ("gcc-12", "arm64", "gcc-12-aarch64-linux-gnu"),
                ("aarch64-linux-gnu-gcc-12", "arm64", "gcc-12-aarch64-linux-gnu")]:
            self.assertEqual(chroot.compiler_package(cc, arch_name), package)
        with self.assertRaisesRegex(HarnessError, "clang"):
            chroot.compiler_package("clang", "arm64")

    def test_fetch_headers_withholds_one_kernel(self):
        found = [self._headers("amd64", "amd64"), self._headers("arm64", "arm64")]

        def headers_debs(apt, release, version, host_apt):
            if isinstance(apt, self.ArmApt):
                raise HarnessError("apt-get download linux-kbuild-7.3 failed\nmore")
            return [f"/debs/h-{release}.deb", "/debs/kbuild.deb"], ["libc6"]

        apts = self._apts()
        with unittest.mock.patch.object(kernels, "headers_debs", headers_debs), \
                unittest.mock.patch.object(builds, "compiler_of",
                                           return_value="x86_64-linux-gnu-gcc-16"):
            debs, packages, withheld = builds.fetch_headers(apts, found)
        self.assertEqual(debs, ["/debs/h-7.3-amd64.deb", "/debs/kbuild.deb"])
        self.assertEqual(packages, ["gcc-16", "libc6"])
        self.assertEqual(withheld, {found[1]: "apt-get download linux-kbuild-7.3 failed"})

    def test_arm64_built_with_its_make_vars(self):
        calls = []

        def copy_sources(repo, work):
            os.makedirs(os.path.join(work, "kernel"))
            open(os.path.join(work, "kernel", "sframe_unwind.ko"), "w").close()

        with tempfile.TemporaryDirectory() as root, \
                unittest.mock.patch.object(chroot.modules, "copy_sources", copy_sources), \
                unittest.mock.patch.object(chroot, "run",
                                           lambda cmd, **kw: calls.append(cmd[-1])):
            chroot.build_in_chroot("/repo", root, "7.3-arm64", "experimental-arm64",
                                   os.devnull, bench=False,
                                   make_vars=arch.ARM64.make_vars)
        self.assertTrue(calls[0].endswith(
            " KDIR=/usr/src/linux-headers-7.3-arm64 "
            f"-j{os.cpu_count() or 2} ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"), calls)

    def test_a_made_chroot_fetches_nothing(self):
        found = [self._headers("amd64", "amd64")]
        apts = self._apts()
        with tempfile.TemporaryDirectory() as cache, \
                unittest.mock.patch.object(kernels, "headers_debs",
                                           side_effect=AssertionError("fetched")):
            with self.assertRaisesRegex(AssertionError, "fetched"):
                builds.suite_chroot(cache, "experimental", apts, found, os.devnull)
            root = os.path.join(cache, "chroots", "builds-experimental", FakeApt.VERSION)
            os.makedirs(root)
            open(os.path.join(root, chroot.READY), "w").close()
            with open(os.path.join(root, builds.HEADERS_LIST), "w") as f:
                f.write(f"7.3-amd64 {FakeApt.VERSION}\n")
            self.assertEqual(builds.suite_chroot(cache, "experimental", apts, found,
                                                 os.devnull), (root, {}))
            # a flavour more: made again
            more = found + [self._headers("arm64", "arm64")]
            with self.assertRaisesRegex(AssertionError, "fetched"):
                builds.suite_chroot(cache, "experimental", apts, more, os.devnull)

    def test_a_withheld_kernel_keeps_the_chroot_of_the_others(self):
        found = [self._headers("amd64", "amd64"), self._headers("arm64", "arm64")]
        withheld = {found[1]: "no linux-kbuild-7.3 for amd64"}
        with tempfile.TemporaryDirectory() as cache, \
                unittest.mock.patch.object(builds, "fetch_headers",
                                           return_value=([], [], withheld)), \
                unittest.mock.patch.object(chroot, "ensure_chroot",
                                           side_effect=AssertionError("made")):
            root = os.path.join(cache, "chroots", "builds-sid", FakeApt.VERSION)
            os.makedirs(root)
            open(os.path.join(root, chroot.READY), "w").close()
            with open(os.path.join(root, builds.HEADERS_LIST), "w") as f:
                f.write(f"7.3-amd64 {FakeApt.VERSION}\n")
            self.assertEqual(builds.suite_chroot(cache, "sid", self._apts(), found,
                                                 os.devnull), (root, withheld))

    def test_each_kernel_one_line(self):
        found = [self._headers("amd64", "amd64"), self._headers("arm64", "arm64"),
                 self._headers("arm64", "arm64-16k")]
        built = []

        def build_in_chroot(repo, root, release, name, logfile, bench, make_vars):
            built.append((name, make_vars))
            with open(logfile, "a") as f:
                f.write(f"  CC [M]  {name}/main.o\n")
                if name.endswith("16k"):
                    f.write("main.c:9:5: error: 'X' undeclared\nmake: *** Error 1\n")
            if name.endswith("16k"):
                raise HarnessError("make failed\nmore")

        with tempfile.TemporaryDirectory() as results, \
                contextlib.redirect_stdout(io.StringIO()) as out, \
                contextlib.redirect_stderr(io.StringIO()), \
                unittest.mock.patch.object(builds, "suite_apts"), \
                unittest.mock.patch.object(builds, "suite_headers", return_value=found), \
                unittest.mock.patch.object(builds, "suite_chroot",
                                           return_value=("/root", {found[1]: "withheld"})), \
                unittest.mock.patch.object(chroot, "build_in_chroot", build_in_chroot):
            builds.build_suite("/repo", "/cache", "experimental", results, Tap())
        v = FakeApt.VERSION
        self.assertEqual(out.getvalue().splitlines()[1:], [
            f"ok 1 - build experimental 7.3-amd64 ({v})",
            f"ok 2 - build experimental 7.3-arm64 ({v}) # SKIP withheld",
            f"not ok 3 - build experimental 7.3-arm64-16k ({v}) "
            "# main.c:9:5: error: 'X' undeclared"])
        self.assertEqual(built, [("experimental-amd64", []),
                                 ("experimental-arm64-16k", arch.ARM64.make_vars)])


class KmodsTest(unittest.TestCase):
    """A scenario's kmods: header, and the module taken from a kernel package."""

    @staticmethod
    def _scenario(header):
        """Return the Scenario of a file whose header comments are header."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.sh")
            with open(path, "w") as f:
                f.write("#!/bin/sh\n# s: x\n" + header)
            return scenario.Scenario(path)

    def test_header(self):
        self.assertEqual(self._scenario("# needs: module\n# kmods: overlay fuse\n").kmods,
                         ["overlay", "fuse"])

    def test_default_kernels(self):
        s = self._scenario("# kernels: all\n# default: debian-6.12\n")
        self.assertTrue(s.runs_on("debian-6.12"))
        self.assertFalse(s.runs_on("debian-6.1"))
        self.assertTrue(s.runs_on("debian-6.1", full=True))
        s = self._scenario("# kernels: debian-6.12\n# default: none\n")
        self.assertFalse(s.runs_on("debian-6.12"))
        self.assertTrue(s.runs_on("debian-6.12", full=True))
        s = self._scenario("# kernels: debian-6.1\n")
        self.assertTrue(s.runs_on("debian-6.1"))
        self.assertFalse(s.runs_on("debug", full=True))

    def test_all_is_amd64(self):
        everywhere = self._scenario("# kernels: all\n")
        named = self._scenario("# kernels: arm64-debian-6.1\n")
        self.assertTrue(everywhere.runs_on("debian-6.1", True, "amd64"))
        self.assertFalse(everywhere.runs_on("arm64-debian-6.1", True, "arm64"))
        self.assertTrue(named.runs_on("arm64-debian-6.1", False, "arm64"))
        self.assertFalse(named.runs_on("arm64-debian-6.12", True, "arm64"))

    def test_default_all_is_amd64(self):
        s = self._scenario("# kernels: all arm64-debian-6.1 arm64-debian-6.12\n"
                           "# default: all arm64-debian-6.12\n")
        self.assertTrue(s.runs_on("debug", False, "amd64"))
        self.assertTrue(s.runs_on("arm64-debian-6.12", False, "arm64"))
        self.assertFalse(s.runs_on("arm64-debian-6.1", False, "arm64"))
        self.assertTrue(s.runs_on("arm64-debian-6.1", True, "arm64"))

    def test_newest_kernel_by_default(self):
        """make check runs on the newest kernels what testing.rst says it does."""
        for name in ("debian-7.x", "debian-experimental"):
            self.assertIn(name, kernels.DEFAULT_KERNELS)
            planned = {s.name for s in scenario.discover() if s.runs_on(name)}
            self.assertEqual(planned, {"sframe-bpf", "sframe-deferred", "sframe-ftrace",
                                       "sframe-rmmod", "sframe-running",
                                       "sframe-shortlived"})

    def test_scenarios_of_both_folders_and_no_name_twice(self):
        names = [s.name for s in scenario.discover()]
        self.assertIn("bench-walk", names)
        self.assertLess(names.index("sframe-service-costly"), names.index("sframe-service"))
        self.assertEqual(names, sorted(names, key=lambda name: name + ".sh"))
        with tempfile.TemporaryDirectory() as tmp:
            for sub in ("a", "b"):
                os.makedirs(os.path.join(tmp, sub))
                with open(os.path.join(tmp, sub, "s.sh"), "w") as f:
                    f.write("#!/bin/sh\n# s: x\n")
            self.assertEqual(len(scenario.discover([os.path.join(tmp, "a")])), 1)
            with self.assertRaisesRegex(HarnessError, "twice"):
                scenario.discover([os.path.join(tmp, "a"), os.path.join(tmp, "b")])

    def test_from_a_cached_image_package(self):
        release = "6.12.0-test-amd64"
        with tempfile.TemporaryDirectory() as tmp:
            pkg = os.path.join(tmp, "pkg")
            moddir = os.path.join(pkg, "lib/modules", release, "kernel/fs")
            os.makedirs(moddir)
            os.makedirs(os.path.join(pkg, "DEBIAN"))
            with open(os.path.join(pkg, "DEBIAN", "control"), "w") as f:
                f.write(f"Package: linux-image-{release}\nVersion: 1\n"
                        "Architecture: amd64\nMaintainer: t <t@t>\nDescription: t\n")
            with open(os.path.join(pkg, "lib/modules", release, "modules.builtin"), "w") as f:
                f.write("kernel/fs/fuse/fuse.ko\n")
            # two modules with a .modinfo section: overlay depends on fake-dep
            modules = {}
            for name, info in (("overlay", b"depends=fake-dep\0name=overlay\0"),
                               ("fake-dep", b"depends=\0name=fake_dep\0")):
                obj = os.path.join(tmp, name + ".o")
                subprocess.run(["gcc", "-c", "-x", "c", "-", "-o", obj], input=b"",
                               check=True, capture_output=True)
                with open(obj + ".info", "wb") as f:
                    f.write(info)
                subprocess.run(["objcopy", "--add-section", f".modinfo={obj}.info", obj],
                               check=True, capture_output=True)
                with open(obj, "rb") as f:
                    modules[name] = f.read()
                with lzma.open(os.path.join(moddir, name + ".ko.xz"), "wb") as f:
                    f.write(modules[name])
            cache = os.path.join(tmp, "cache")
            debs = os.path.join(cache, "apt", "suite", "debs")
            os.makedirs(debs)
            subprocess.run(["dpkg-deb", "--build", "-Zgzip", pkg,
                            os.path.join(debs, f"linux-image-{release}_1_amd64.deb")],
                           check=True, capture_output=True)
            kernel = type("K", (), {"name": "debian-6.12", "release": release,
                                    "kdir": os.path.join(tmp, "headers")})()
            got = kmods.stock_modules(kernel, cache, ["overlay"])
            self.assertEqual([name for name, _ in got], ["fake_dep", "overlay"])
            with open(got[1][1], "rb") as f:
                self.assertEqual(f.read(), modules["overlay"])
            self.assertEqual(kmods.stock_modules(kernel, cache, ["overlay"]), got)
            self.assertEqual(kmods.stock_modules(kernel, cache, ["fuse"]), [])
            with self.assertRaises(HarnessError):
                kmods.stock_modules(kernel, cache, ["brd"])

    def test_built_in_needs_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "modules.builtin"), "w") as f:
                f.write("kernel/fs/fuse/fuse.ko\n")
            kernel = type("K", (), {"name": "debug", "release": "r", "kdir": tmp})()
            self.assertEqual(kmods.stock_modules(kernel, os.path.join(tmp, "c"), ["fuse"]), [])
            with self.assertRaises(HarnessError):
                kmods.stock_modules(kernel, os.path.join(tmp, "c"), ["overlay"])

class TestArch(unittest.TestCase):
    """vmlib/arch.py and vmlib/sysroot.py: what differs for an arm64 guest."""

    def test_channel_file(self):
        args = arch.ARM64.qemu_channel("/r/channel.log")
        self.assertIn("file,id=channel,path=/r/channel.log", args)
        self.assertEqual(arch.AMD64.qemu_channel("/r/c"), ["-serial", "file:/r/c"])

    def test_first_alternatives(self):
        depends = "libc6 (>= 2.34), libperl5.36 (>= 5.36.0) | perl-base, perl:any"
        self.assertEqual(sysroot._first_alternatives(depends),
                         ["libc6", "libperl5.36", "perl"])

    def test_container_keeps_the_packages_links_in_a_merged_usr(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.join(tmp, "sysroot")
            lib = os.path.join(root, "usr/lib/x86_64-linux-gnu")
            os.makedirs(lib)
            os.makedirs(os.path.join(root, "usr/lib64"))
            for name in ("libz.so.1.3", "ld.so"):
                with open(os.path.join(lib, name), "w") as f:
                    f.write(name)
            os.symlink("libz.so.1.3", os.path.join(lib, "libz.so.1"))
            os.symlink("../lib/x86_64-linux-gnu/ld.so", os.path.join(root, "usr/lib64/ld.so"))
            for link, target in container.MERGED.items():
                os.symlink(target, os.path.join(root, link))
            fake = type("S", (), {"root": root,
                                  "path": lambda self, p: os.path.join(root, p.lstrip("/"))})()
            tree = initramfs.Initramfs(os.path.join(tmp, "tree"))
            for path in ("/lib64/ld.so", "/lib/x86_64-linux-gnu/libz.so.1"):
                container.pack(tree, fake, path)
            guest = os.path.join(tree.root, container.GUEST_ROOT.lstrip("/"), "usr")
            self.assertEqual(os.readlink(os.path.join(guest, "lib64/ld.so")),
                             "../lib/x86_64-linux-gnu/ld.so")
            self.assertEqual(os.readlink(os.path.join(guest, "lib/x86_64-linux-gnu/libz.so.1")),
                             "libz.so.1.3")
            for name in ("ld.so", "libz.so.1.3"):
                path = os.path.join(guest, "lib/x86_64-linux-gnu", name)
                self.assertFalse(os.path.islink(path))
                with open(path) as f:
                    self.assertEqual(f.read(), name)

    def test_a_library_beside_the_program_travels_with_it(self):
        def build(path, *args):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            subprocess.run(["gcc", "-shared", "-nostdlib", "-Wl,--no-as-needed", "-o", path,
                            "-x", "c", "-", *args], input="int f(void) { return 0; }\n", text=True,
                           check=True)
        with tempfile.TemporaryDirectory() as tmp:
            guest = sysroot.Sysroot(tmp, "bookworm", "arm64", "aarch64-linux-gnu")
            build(guest.path("/usr/lib/libouter.so"))
            image = os.path.join(tmp, "image")
            build(os.path.join(image, "lib", "libbeside.so"), "-L" + guest.path("/usr/lib"),
                  "-louter")
            program = os.path.join(image, "bin", "program")
            build(program, "-L" + os.path.join(image, "lib"), "-lbeside",
                  "-Wl,-rpath,$ORIGIN/../lib")
            self.assertEqual(guest.libraries(program), ["/usr/lib/libouter.so"])
            os.unlink(os.path.join(image, "lib", "libbeside.so"))
            with self.assertRaisesRegex(HarnessError, "no library libbeside.so"):
                guest.libraries(program)

    def test_aarch64_calls(self):
        with tempfile.TemporaryDirectory() as tmp:
            elf = os.path.join(tmp, "a")
            with open(elf, "wb") as f:
                f.write(b"\x7fELF" + bytes(14) + (183).to_bytes(2, "little"))
            with unittest.mock.patch.object(machinecode, "disassembly", return_value=(
                    "0000000000001310 <g>:\n    1328:\tbl\t1250 <f>\n\n"
                    "0000000000001400 <h>:\n    1404:\tb\t1250 <f>\n")):
                self.assertTrue(machinecode._reaches(elf, "g", "f", "call"))
                self.assertFalse(machinecode._reaches(elf, "g", "f", "jmp"))
                self.assertTrue(machinecode.only_tail_calls(elf, "h", "f"))

    def test_arm64_kernels_run_the_committed_aarch64_builds(self):
        for relative in ("v1-binutils-2.40/deep", "v3-pac-binutils-2.47/deep",
                         "baseline/deep-fp", "nosframe/deep"):
            path = machinecode.workload_path(relative, "arm64-debian-6.12")
            self.assertTrue(path.startswith(machinecode.ARM64_WORKLOADS), path)
            self.assertEqual(machinecode._machine(path), machinecode.AARCH64)
        with unittest.mock.patch.dict(os.environ, {"SFRAME_WORKLOADS": "/x86"}):
            self.assertEqual(machinecode.workloads_base("debian-6.12"), "/x86")
            self.assertEqual(machinecode.workloads_base(), "/x86")
            self.assertEqual(machinecode.workloads_base("arm64-debian-6.1"),
                             machinecode.ARM64_WORKLOADS)
        with self.assertRaises(FileNotFoundError):
            machinecode.workload_path("v9-none/deep", "arm64-debian-6.1")

    def test_amd64_kernels_run_the_committed_x86_64_builds(self):
        vmtest = load_source("vmtest")
        env = {k: v for k, v in os.environ.items() if k != "SFRAME_WORKLOADS"}
        with unittest.mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(vmtest.workloads_dir(), machinecode.X86_64_WORKLOADS)
            for relative in ("v1-binutils-2.40/deep", "v3-binutils-2.47/deep-static",
                             "baseline/deep-fp", "nosframe/deep"):
                path = machinecode.workload_path(relative, "debian-6.12")
                self.assertTrue(path.startswith(machinecode.X86_64_WORKLOADS + os.sep), path)
                self.assertEqual(machinecode._machine(path), 62)      # EM_X86_64
        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.dict(os.environ, {"SFRAME_WORKLOADS": tmp}):
            with self.assertRaisesRegex(HarnessError, tmp):
                vmtest.workloads_dir()

    def test_a_guest_path_names_the_host_binary_of_its_kernel(self):
        self.assertEqual(machinecode.guest_workload_path("/workloads/v3-binutils-2.47/deep",
                                                         "arm64-debian-6.1"),
                         os.path.join(machinecode.ARM64_WORKLOADS, "v3-binutils-2.47", "deep"))
        build = os.path.join(machinecode.REPO, "build")
        self.assertEqual(machinecode.guest_workload_path("/workloads/project/sframe/deep",
                                                         "debian-6.12"),
                         os.path.join(build, "workloads", "sframe", "deep"))
        self.assertEqual(machinecode.guest_workload_path("/workloads/project/sframe-fp/walkbench",
                                                         "arm64-debian-6.12"),
                         os.path.join(build, "workloads-arm64", "sframe-fp", "walkbench"))


class Python313Test(unittest.TestCase):
    """sframe-python313's reading of a sample: named, and where its walk ends."""

    def test_names_and_ends_are_counted_for_python_only(self):
        scenario = load_source("scenarios", "sframe-python313.py")
        eval_loop = "\t16173b _PyEval_EvalFrameDefault (/python313/usr/bin/python3.13)\n"
        trampoline = "\t7f23f6f7c3fa py::descend:/root/pyrecurse.py (/tmp/perf-198.map)\n"
        main = "\t283145 [unknown] (/python313/usr/bin/python3.13)\n"
        text = ("python3.13 198 \n" + eval_loop + trampoline + "\n" +
                "python3.13 198 \n" + eval_loop + trampoline + eval_loop + trampoline +
                main + "\n" +
                "python3.13 198 \n" + eval_loop + "\n" +
                "sframectl 175 \n" + trampoline)
        self.assertEqual(scenario.python_shares(text),
                         ({"named": 2, "ends_at_trampoline": 1}, 3, 3))


class BuildStormTest(unittest.TestCase):
    """sframe-build's host half: when a toolchain sample reached its start."""

    @staticmethod
    def _build():
        return load_source("scenarios", "sframe-build.py")

    def test_complete(self):
        build = self._build()
        start = ((0x1ab70, 0x1abb0), 0x1098ec)
        text = ("cc1   7 \n\t    5000 [unknown] (/usr/lib/gcc/x86_64-linux-gnu/12/cc1)\n"
                "\t   2724a __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6)\n\n"
                "as   8 \n\t    9a98 [unknown] (/lib64/ld-linux-x86-64.so.2)\n"
                "\t   12183 [unknown] (/lib64/ld-linux-x86-64.so.2)\n\n"
                "ld   9 \n\t    9a98 [unknown] (/lib64/ld-linux-x86-64.so.2)\n"
                "\t   1ab78 [unknown] (/lib64/ld-linux-x86-64.so.2)\n\n"
                "ld   9 \n\tffffffff81000000 schedule ([kernel.kallsyms])\n\n"
                "sh   10 \n\t    1000 main (/bin/sh)\n\n"
                "make   11 \n\t   d4ad7 execve (/lib/x86_64-linux-gnu/libc.so.6)\n"
                "\t  1098ec [unknown] (/lib/x86_64-linux-gnu/libc.so.6)\n\n"
                "make   12 \n\t   d4ad7 execve (/lib/x86_64-linux-gnu/libc.so.6)\n\n")
        counts = build.measure(text, start)
        self.assertEqual(counts["cc1"], (1, 1))
        self.assertEqual(counts["as"], (0, 1))     # stopped in the loader's resolver
        self.assertEqual(counts["ld"], (1, 1))     # the kernel-only sample is not counted
        self.assertNotIn("sh", counts)
        self.assertEqual(counts["make"], (1, 2))   # a posix_spawn child's start; exec's
        self.assertAlmostEqual(build.share([counts]), 3 / 5)

    def test_clone3_child_start(self):
        build = self._build()
        text = ("  1098ca:\ttest   %rdx,%rdx\n  1098d2:\tmov    $0x1b3,%eax\n"
                "  1098d7:\tsyscall\n  1098ea:\tcall   *%rdx\n"
                "  1098ec:\tmov    %rax,%rdi\n")
        self.assertEqual(build.clone3_return(text), 0x1098ec)
        self.assertRaises(ValueError, build.clone3_return, text.replace("1b3", "38"))

    def test_percentile(self):
        build = self._build()
        self.assertEqual(build.percentile([30, 10, 20, 40], 0.5), 20)
        self.assertEqual(build.percentile(range(1, 101), 0.95), 95)
        self.assertEqual(build.percentile([5], 0.95), 5)


class JavaTest(unittest.TestCase):
    """The guest's Java runtime and sframe-java's rule for a complete sample."""

    @classmethod
    def setUpClass(cls):
        cls.check = load_source("scenarios", "sframe-java.py")

    def test_another_jdk_makes_another_image(self):
        with tempfile.TemporaryDirectory() as jdk:
            sources = [os.path.join(jdk, name) for name in ("release", "jmods/java.base.jmod")]
            for path in sources:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write('JAVA_VERSION="17.0.15"\n')
            first = java.image_digest(java.JLINK_OPTIONS, sources)
            self.assertEqual(java.image_digest(java.JLINK_OPTIONS, sources), first)
            # another target's modules, from the same files
            self.assertNotEqual(java.image_digest(java.JLINK_OPTIONS + ["--module-path", jdk],
                                                  sources), first)
            with open(sources[0], "w") as f:
                f.write('JAVA_VERSION="17.0.16"\n')
            self.assertNotEqual(java.image_digest(java.JLINK_OPTIONS, sources), first)

    def test_complete_at_the_entry_then_libc_only(self):
        libc = "/lib/x86_64-linux-gnu/libc.so.6"
        frames = [stackcheck.Frame("7f0", "[unknown]", "/tmp/perf-1.map"),
                  stackcheck.Frame("8282d2", "JavaCalls::call_helper", "libjvm.so"),
                  stackcheck.Frame("7b49", "ThreadJavaMain", "libjli.so"),
                  stackcheck.Frame("891f5", "[unknown]", libc),
                  stackcheck.Frame("1098ec", "[unknown]", libc)]
        self.assertTrue(self.check.reaches(frames, "ThreadJavaMain"))
        self.assertTrue(self.check.reaches(frames[:4], "ThreadJavaMain"))
        # the entry with nothing beyond it: no thread start reached
        self.assertFalse(self.check.reaches(frames[:3], "ThreadJavaMain"))
        # a walk that stopped in libjvm, or went astray beyond the entry
        self.assertFalse(self.check.reaches(frames[:2] + frames[3:], "ThreadJavaMain"))
        stray = stackcheck.Frame("2000850d", "[unknown]", "[unknown]")
        self.assertFalse(self.check.reaches(frames + [stray], "ThreadJavaMain"))
        self.assertFalse(self.check.reaches([], "ThreadJavaMain"))


class LanesTest(unittest.TestCase):
    """Kernels in lanes: longest first, side by side, one TAP block each."""

    def run_lanes(self, weights, count, job):
        with contextlib.redirect_stdout(io.StringIO()):
            tap = Tap()
            parts = lanes.run(list(weights), weights.get, job, count, tap)
        return tap, parts

    def test_longest_first_and_each_kernel_one_block(self):
        weights = {"short": 1, "long": 9, "middle": 5}
        started = []

        def job(name, part):
            started.append(name)
            part.tap.test(True, f"{name} boot")
            time.sleep(0.05)
            part.tap.test(name != "middle", f"{name} scenario", "", ["seconds=1"])
            part.summary.append(name)
        tap, parts = self.run_lanes(weights, 2, job)
        # the two longest first, in either order as two threads start
        self.assertEqual(set(started[:2]), {"long", "middle"})
        self.assertEqual(started[2], "short")
        self.assertEqual(sorted(parts), sorted(weights))
        tests = [ln for ln in tap.lines if ln.startswith(("ok", "not ok"))]
        self.assertEqual(len(tests), 6)
        for i in range(0, 6, 2):
            self.assertEqual(tests[i].split(" - ")[1].split()[0],
                             tests[i + 1].split(" - ")[1].split()[0])
        self.assertIn("#   seconds=1", tap.lines)
        self.assertEqual((tap.count, tap.failed), (6, 1))
        self.assertEqual(parts["short"].summary, ["short"])

    def test_two_lanes_run_side_by_side(self):
        def job_meeting(both):
            def job(name, part):
                both.wait()     # broken, and raising, unless both run at once
                part.tap.test(True, name)
            return job
        meeting = job_meeting(threading.Barrier(2, timeout=10))
        tap, _ = self.run_lanes({"a": 1, "b": 1}, 2, meeting)
        self.assertEqual(tap.passed, 2)
        with self.assertRaises(threading.BrokenBarrierError):
            self.run_lanes({"a": 1, "b": 1}, 1, job_meeting(threading.Barrier(2, timeout=0.5)))

    def test_a_job_that_raises_keeps_its_lines_and_starts_no_more(self):
        started = []

        def job(name, part):
            started.append(name)
            part.tap.test(True, f"{name} boot")
            if name == "first":
                raise OSError("disk full")
        with contextlib.redirect_stdout(io.StringIO()):
            tap = Tap()
            with self.assertRaisesRegex(OSError, "disk full"):
                lanes.run(["first", "second"], {"first": 2, "second": 1}.get, job, 1, tap)
        self.assertEqual(started, ["first"])
        self.assertIn("ok 1 - first boot", tap.lines)

    def test_selects_named_scenarios_for_the_kernel(self):
        vmtest = load_source("vmtest")
        chosen = vmtest.select_scenarios("debian-6.12", "amd64", False, ["bench-walk"], True)
        self.assertEqual([s.name for s in chosen], ["bench-walk"])
        self.assertEqual(vmtest.select_scenarios("arm64-debian-6.12", "arm64", False,
                                                 ["sframe-pac", "bench-walk"], True)[0].name,
                         "bench-walk")
        with self.assertRaises(HarnessError):
            vmtest.select_scenarios("debian-6.12", "amd64", False, ["no-such"], True)


class ProtoCheckTest(unittest.TestCase):
    """The copy of a kernel's headers with vm_area_free()'s prototype changed."""

    MM_H = ("struct vm_area_struct *vm_area_alloc(struct mm_struct *);\n"
            "void vm_area_free(struct vm_area_struct *);\n"
            "/* as __vm_area_free() and vm_area_free(vma) do */\n"
            "void __vm_area_free(struct vm_area_struct *vma);\n")

    def test_only_the_declaration_changes(self):
        changed = protocheck.change_prototype(self.MM_H)
        self.assertIn("void vm_area_free(struct vm_area_struct *, int);\n", changed)
        self.assertEqual(changed.replace(", int);", ");", 1), self.MM_H)
        named = protocheck.change_prototype("void vm_area_free(struct vm_area_struct *vma);")
        self.assertEqual(named, "void vm_area_free(struct vm_area_struct *vma, int);")
        self.assertIsNone(protocheck.change_prototype(self.MM_H.splitlines()[2]))
        self.assertIsNone(protocheck.change_prototype(self.MM_H.splitlines()[3]))

    def test_headers_copied_with_the_change(self):
        with tempfile.TemporaryDirectory() as top:
            common = os.path.join(top, "linux-headers-6.12.1-common")
            flavour = os.path.join(top, "linux-headers-6.12.1-amd64")
            os.makedirs(os.path.join(common, "include", "linux"))
            os.makedirs(os.path.join(top, "kbuild", "scripts"))
            os.makedirs(flavour)
            for path, text in [(os.path.join(common, "Makefile"), "VERSION = 6\n"),
                               (os.path.join(common, protocheck.HEADER), self.MM_H),
                               (os.path.join(common, "include", "linux", "sched.h"), "s\n"),
                               (os.path.join(flavour, "Makefile"),
                                f"include {common}/Makefile\n"),
                               (os.path.join(flavour, ".config"), "CONFIG_MMU=y\n")]:
                with open(path, "w") as f:
                    f.write(text)
            os.symlink("../kbuild/scripts", os.path.join(flavour, "scripts"))
            self.assertEqual(protocheck.common_tree(flavour), common)
            self.assertIsNone(protocheck.common_tree(common))
            kdir = protocheck.changed_headers(flavour, os.path.join(top, "copy"))
            copy = os.path.join(top, "copy", "common")
            with open(os.path.join(kdir, "Makefile")) as f:
                self.assertEqual(f.read(), f"include {copy}/Makefile\n")
            self.assertEqual(protocheck.common_tree(kdir), copy)
            for path in (os.path.join(copy, "Makefile"), os.path.join(copy, protocheck.HEADER)):
                self.assertFalse(os.path.islink(path), path)
            with open(os.path.join(copy, protocheck.HEADER)) as f:
                self.assertIn("vm_area_free(struct vm_area_struct *, int);", f.read())
            with open(os.path.join(common, protocheck.HEADER)) as f:
                self.assertEqual(f.read(), self.MM_H)
            self.assertEqual(os.path.realpath(os.path.join(copy, "include/linux/sched.h")),
                             os.path.join(common, "include/linux/sched.h"))
            self.assertTrue(os.path.isdir(os.path.join(kdir, "scripts")))
            with open(os.path.join(kdir, ".config")) as f:
                self.assertEqual(f.read(), "CONFIG_MMU=y\n")


class GuestSlotTest(unittest.TestCase):
    """At most qemu.GUESTS guests at once, across threads and processes."""

    def test_a_boot_waits_for_a_free_slot(self):
        order = []
        with tempfile.TemporaryDirectory() as cache, \
                unittest.mock.patch.dict(os.environ, {"SFRAME_CACHE": cache}), \
                unittest.mock.patch.object(qemu, "GUESTS", 1), \
                unittest.mock.patch.object(qemu, "POLL_SECONDS", 0.02), \
                contextlib.redirect_stderr(io.StringIO()):
            def second():
                with qemu.guest_slot("second") as slot:
                    order.append(("second", slot))
            with qemu.guest_slot("first") as slot:
                waiter = threading.Thread(target=second)
                waiter.start()
                time.sleep(0.2)
                order.append(("first", slot))
            waiter.join(10)
            self.assertEqual(order, [("first", 0), ("second", 0)])
            with unittest.mock.patch.object(qemu, "GUESTS", 2), \
                    qemu.guest_slot("a") as a, qemu.guest_slot("b") as b:
                self.assertEqual((a, b), (0, 1))


if __name__ == "__main__":
    unittest.main()
