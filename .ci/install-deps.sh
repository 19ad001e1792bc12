#!/bin/sh
# Install every Debian 12 package the project needs to build, test and run
# its QEMU harness.  Idempotent: apt-get skips what is already installed.
set -eu

packages="
	bc
	binutils
	binutils-aarch64-linux-gnu
	bison
	build-essential
	busybox-static
	clang
	cpio
	debian-archive-keyring
	debhelper
	debootstrap
	dh-dkms
	dwarves
	file
	flex
	gcc-aarch64-linux-gnu
	golang-go
	gzip
	kmod
	libc6-arm64-cross
	libc6-dev-arm64-cross
	libclang-rt-14-dev
	libdw-dev
	libelf-dev
	libssl-dev
	lintian
	linux-perf
	openjdk-17-jdk-headless
	perl
	llvm
	python3
	python3-dev
	python3-docutils
	qemu-system-arm
	qemu-system-x86
	rsync
	rustc
	sparse
	systemd
	xz-utils
	zstd
"

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $packages
