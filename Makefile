# SPDX-License-Identifier: GPL-2.0
# sframe-unwind top level.
#
#   make                  the module, against the running kernel or KDIR=
#   make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=<arm64 headers>
#                         the module cross-built for arm64 (Debian's arm64
#                         linux-headers with the amd64 linux-kbuild)
#   make tools            tools/sframectl/sframectl
#   make check            every test suite (user space, fuzz smoke, VM,
#                         vmtest --system --servers)
#   make check-user       user-space suites only: fast, no QEMU
#   make check-vm         the QEMU suites only (tools/testing/vm/vmtest)
#   make check-builds     the module built, not booted, for every amd64
#                         and arm64 flavour of the newest kernel of each
#                         Debian suite (tools/testing/vm/vmtest --builds)
#   make check-system     the packages installed on a booted Debian 12
#                         system (tools/testing/vm/vmtest --system; check
#                         runs only its --servers part)
#   make fuzz             libFuzzer, FUZZ_SECONDS=N (default 600)
#   make bench            every benchmark: bench-user, bench-vm, then
#                         bench-servers
#   make bench-user       format-core look-up/validation and sframectl gen
#   make bench-vm         the module's, in a VM on Debian's 6.12: per-frame
#                         cost, bytes per sample, memory, exec/dlopen cost,
#                         the sidecar service's latency and cost
#   make bench-servers    PostgreSQL's, Redis's and nginx's rates under perf
#                         record -a -g: perf's walker, the module while the
#                         service warms up, the module warm (the packages
#                         on a booted Debian 12 with Debian's 6.12, its
#                         clock counting instructions)
#   make checkpatch       checkpatch.pl --no-tree on every .c and .h but
#                         the x86-64 fixtures' sources
#   make demo             perf -g with and without the module, in a VM
#   make deb              build/deb/*.deb: sframe-unwind-dkms and sframectl,
#                         built from a copy of the tree's source files
#   make results          Documentation/results-metrics.rst: the metrics of
#                         RESULTS= (default results/check, make check's VM run)
#   make fixtures         rebuild the x86-64 fixtures and workloads in
#                         build/fixtures with binutils 2.40, 2.44 and 2.47
#                         (Debian's, two in chroots: root and the network
#                         once) and compare them with the committed ones

KDIR ?= /lib/modules/$(shell uname -r)/build
FUZZ_SECONDS ?= 600

module:
	$(MAKE) -C kernel KDIR=$(KDIR)

tools:
	$(MAKE) -C tools/sframectl

check:
	tools/testing/run-all

check-user:
	tools/testing/run-all --user-only

check-vm:
	tools/testing/vm/vmtest

check-system:
	tools/testing/vm/vmtest --system

check-builds:
	tools/testing/vm/vmtest --builds

fuzz:
	$(MAKE) -C tools/testing/sframe fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

bench: bench-user bench-vm bench-servers

bench-user:
	$(MAKE) -C tools/testing/bench bench

bench-vm:
	tools/testing/vm/vmtest --kernel debian-6.12 \
		bench-walk bench-sample bench-callgraph bench-mmap \
		bench-service sframe-hostile-section sframe-memory
	VMTEST_ICOUNT=1 tools/testing/vm/vmtest --kernel debian-6.12 bench-walk
	VMTEST_GUESTS=1 tools/testing/vm/vmtest --kernel arm64-debian-6.12 \
		--kernel arm64-debian-6.1 bench-walk bench-callgraph

bench-servers:
	tools/testing/vm/vmtest --system --throughput

checkpatch:
	tools/testing/checkpatch

demo:
	tools/testing/vm/vmtest --demo

# Tracked and new files, never build products, so that what is packaged
# is what a clean checkout would give.
DEB_OUT := build/deb
deb:
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_OUT)/src
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 cp --parents -t $(DEB_OUT)/src
	cd $(DEB_OUT)/src && dpkg-buildpackage -b -us -uc

RESULTS ?= results/check

results:
	tools/testing/results-table $(RESULTS) --output Documentation/results-metrics.rst

fixtures:
	tools/testing/sframe/fixtures/x86_64/regenerate $(CURDIR)/build/fixtures

clean:
	$(MAKE) -C tools/sframectl clean
	$(MAKE) -C tools/testing/sframe clean
	rm -rf build
	-$(MAKE) -C kernel clean KDIR=$(KDIR) 2>/dev/null

.PHONY: module tools check check-user check-vm check-system check-builds fuzz bench \
	bench-user bench-vm bench-servers checkpatch demo deb results fixtures clean
