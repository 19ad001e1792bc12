#!/bin/sh
# sframe-hostile-dm: a file system on a device-mapper device stacked over
# a loop device whose backing file is on a FUSE server that stops
# answering.  The module does not see through the stack (design.rst,
# "Files: reading without trusting the mapper"), so its read of a program there, mapped by an
# unprivileged user, waits on the stalled server in its worker.  Root's
# sidecar load for that program waits for that read: asserted, it does
# so killably (SIGKILL ends it within KILL_LIMIT_S), so that a supplier
# stuck behind a user's storage can always be stopped.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 240
# kmods: fuse loop ext4 dm-mod
. /vmtest/lib.sh
P=/workloads/project
IMAGE=/tmp/disk.img
STALL=/mnt/stall
DISK=/mnt/disk
KILL_LIMIT_S=5

load_kmods
load_module sframe_unwind

# The image served by FUSE, a read-only loop device over it, a linear
# device-mapper device over that, the file system mounted from it.
mkdir -p $DISK
ext2_image $IMAGE deep || exit 1
stall_serve $IMAGE $STALL || exit 1
if ! dm=$($P/dmlinear create stall "$stall_loop") ||
   ! mount -t ext2 -o ro "$dm" $DISK; then
	result fail "no ext2 file system on a device-mapper device over $stall_loop"
	kill "$stallfs"
	exit 1
fi

# end: the abort fails the kept READs, which ends the module's read, and
# what is left goes.
end()
{
	kill "$holder" 2> /dev/null
	abort_fuse
	[ -z "$putter" ] || wait_exit "$putter" 30 ||
		result fail "the sidecar load blocked even after the abort"
	unload_module sframe_unwind
	umount -l $DISK
	$P/dmlinear remove stall
	losetup -d "$stall_loop"
	kill "$stallfs" 2> /dev/null
	umount -l $STALL
	wait
}

# The server stalls and uid 1000 maps the program: the module's worker
# reads it through the stack and waits on the server.
putter=
stall_map $DISK/deep
if ! wait_text /tmp/stallfs.out "READ .* kept" 5 ||
   ! wait_file $DISK/deep loading 1000 > /dev/null; then
	grep "^$DISK/deep:" /sys/kernel/debug/sframe_unwind/files
	result fail "the module's read of $DISK/deep did not wait on the stalled server: nothing here to wait for"
	end
	exit 1
fi
result ok "the module's read of $DISK/deep waits on the stalled server"

# Root hands in a sidecar for it, which waits for that read.
$P/sidecarput $DISK/deep $P/sframe/deep > /tmp/put.out 2>&1 &
putter=$!
in_d_state()
{
	[ "$(cut -d ' ' -f 3 "/proc/$1/stat" 2> /dev/null)" = D ]
}
if ! wait_for 5000 in_d_state $putter > /dev/null; then
	cat /tmp/put.out
	result fail "the sidecar load did not wait in the kernel for the module's read"
	end
	exit 1
fi
result ok "the sidecar load waits in the kernel for the module's read"
echo "sidecarput waits in $(cat /proc/$putter/wchan 2> /dev/null)"

start=$(uptime_ms)
kill -9 $putter
if wait_exit $putter $KILL_LIMIT_S; then
	metric kill_ms "$(($(uptime_ms) - start))"
	result ok "SIGKILL ended the waiting sidecar load"
else
	result fail "the waiting sidecar load outlived SIGKILL by $KILL_LIMIT_S s"
fi
sframe_state dm
end
