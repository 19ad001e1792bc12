#!/bin/sh
# sframe-container: containers with their own userland, served.
# Debian 13's xz, liblzma, libc and ld.so (vmlib/container.py: no
# .sframe, no frame pointers, files the guest never had) are the lower
# layer of an overlayfs with upper and work on tmpfs, entered with
# unshare and chroot: as root (mount and pid namespaces) and rootless
# (uid 1001 in a user namespace of its own, the overlay mounted there,
# the image its own files as a rootless runtime unpacks them).  xz
# compresses while perf -a -g records the whole guest: without the
# module, then with `sframectl serve`, which must supply the container's
# four files (named by their paths in the container) and have the module
# charge their sidecars to the container's user (root, or uid 1001 for
# the rootless one); how many samples reach xz's main is judged on the
# host.
# needs: module container
# kernels: debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 300
# kmods: overlay
. /vmtest/lib.sh
SF=/workloads/project/sframectl
CACHE=/tmp/container-cache
O=/tmp/ctr
RECORD_SECONDS=6
# The container's files as the module names them: by their path in the
# container's root (the guest's own libc is /lib/x86_64-linux-gnu's) or,
# on 6.1, by their path in the guest ($O/KIND/merged/...).
LIB=/usr/lib/x86_64-linux-gnu
FILES="/usr/bin/xz $LIB/liblzma.so.5.8.1 $LIB/libc.so.6 $LIB/ld-linux-x86-64.so.2"
# A file first mapped must have its sidecar within this (TCG).
LIMIT_MS=60000

# image DIR UID: unpack the userland into DIR/lower, its files UID's.
image()
{
	mkdir -p "$1/lower" "$1/merged" &&
		cp -a /container/. "$1/lower/" &&
		chown -R -h "$2" "$1"
}

# enter KIND: the shell command, run in the new namespaces, that mounts
# KIND's overlay (upper and work on a tmpfs of its own) and runs xz in it.
enter()
{
	echo "mount -t tmpfs rw $O/$1/rw && mkdir $O/$1/rw/upper $O/$1/rw/work &&
	mount -t overlay overlay -o lowerdir=$O/$1/lower,upperdir=$O/$1/rw/upper,workdir=$O/$1/rw/work $O/$1/merged &&
	exec chroot $O/$1/merged /usr/bin/xz -T1 -6 -c"
}

# start KIND: run xz in KIND's container, root or rootless, on the input;
# $xz is its pid (outside the namespaces).
start()
{
	mkdir -p "$O/$1/rw"
	case $1 in
	root)	unshare -m -p -f sh -c "$(enter root)" ;;
	*)	chown 1001 "$O/$1/rw"
		/workloads/project/runas 1001 unshare -r -m sh -c "$(enter "$1")" ;;
	esac < /tmp/input > /dev/null 2> "/tmp/$1.err" &
	xz=
	for _ in $(seq 100); do
		xz=$(pidof xz) && break
		sleep 0.1
	done
	if [ -z "$xz" ]; then
		cat "/tmp/$1.err"
		result fail "$1: xz did not start in its container"
		return 1
	fi
	cat "/proc/$xz/maps" | grep -E "xz|\.so" | sed 's/.* //' | sort -u
}

# stop KIND: end KIND's xz and its overlay.
stop()
{
	kill -KILL "$xz"
	wait_exit "$xz" 5
	umount "$O/$1/merged" "$O/$1/rw" 2> /dev/null
}

# record NAME: perf -a -g of the whole guest for RECORD_SECONDS.
record()
{
	perf record -q -N -B -a -g -e cpu-clock -F "$PERF_FREQ" \
		-o "/tmp/$1.data" -- sleep $RECORD_SECONDS 2> "/tmp/$1.err" ||
		result fail "$1: perf record -a failed"
	perf_script "$1"
}

# served KIND: the module's sidecars for xz's four files, in use; how long
# from its start (metric KIND_first_mapping_to_sidecars_ms).
served()
{
	if ! wait_sidecars "$xz" "$O/$1/merged" $LIMIT_MS $FILES; then
		result fail "$1: no sidecar for the container's $missing within $LIMIT_MS ms"
		return 1
	fi
	metric "$1_first_mapping_to_sidecars_ms" $(($(uptime_ms) - started))
	grep -A8 "^pid $xz\$" /sys/kernel/debug/sframe_unwind/maps
	result ok "$1: sidecars in use for the container's $FILES"
}

# charged KIND UID: the module charges KIND's sidecars to UID (its files
# view: sframe_charge_owner(), the owner its reports to the service name).
charged()
{
	for f in $FILES; do
		if grep -Eq "^($O/$1/merged)?$f: .*; sidecar .*, uid $2(;|\$)" \
		   /sys/kernel/debug/sframe_unwind/files; then
			result ok "$1: the sidecar of $f is charged to uid $2"
		else
			grep "$f: " /sys/kernel/debug/sframe_unwind/files
			result fail "$1: no sidecar of $f charged to uid $2"
		fi
	done
}

# Rootless containers allowed, as on a stock Debian kernel.
if [ -w /proc/sys/kernel/unprivileged_userns_clone ]; then
	echo 1 > /proc/sys/kernel/unprivileged_userns_clone
fi
load_kmods
mkdir -p $O
mount -t tmpfs ctr $O || result fail "cannot mount a tmpfs on $O"
image $O/root 0 && image $O/user 1001 ||
	result fail "cannot unpack the userland"
# What xz compresses: the guest's own programs, 8 MiB of real code.
cat /usr/bin/perf /workloads/project/sframectl /bin/busybox /bin/busybox |
	head -c 8388608 > /tmp/input

unload_module sframe_unwind
start root || exit 1
record stock-root
stop root

load_module sframe_unwind
serve container || { unload_module sframe_unwind; exit 1; }
perf version > /dev/null
for kind in root user; do
	started=$(uptime_ms)
	start $kind || continue
	served $kind
	case $kind in
	root)	charged root 0 ;;
	*)	charged user 1001 ;;
	esac
	$SF status > /tmp/$kind.status
	cat /tmp/$kind.status
	artefact "$kind.status" /tmp/$kind.status
	record "served-$kind"
	stop $kind
done
stop_serve container
sframe_state module
umount $O
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
