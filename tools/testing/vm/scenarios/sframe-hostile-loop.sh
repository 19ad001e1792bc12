#!/bin/sh
# sframe-hostile-loop: a file system on a loop device whose backing file
# is on a FUSE server that stops answering (what udisks sets up for a user
# over his own FUSE mount).  An unprivileged user maps executable a
# program on it that nobody has read since the stall: the module reads it
# only from the page cache (no READ reaches the server, the file is "not
# in page cache"), and rmmod completes.  Control: a program on the same
# file system, read while the server answered, gets its section.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 240
# kmods: fuse loop ext4
. /vmtest/lib.sh
P=/workloads/project
IMAGE=/tmp/disk.img
STALL=/mnt/stall
DISK=/mnt/disk
FILES=/sys/kernel/debug/sframe_unwind/files
RMMOD_LIMIT_S=10

load_kmods
load_module sframe_unwind

# The image served by FUSE, which answers until told to stall; the file
# system mounted read-only from a loop device over it.
mkdir -p $DISK
ext2_image $IMAGE 8 deep control || exit 1
stall_serve $IMAGE $STALL || exit 1
if ! mount -t ext2 -o ro "$stall_loop" $DISK; then
	result fail "no ext2 file system on $stall_loop"
	kill "$stallfs"
	exit 1
fi

cat $DISK/control > /dev/null
$DISK/control chain 1 > /dev/null &
control=$!
if ms=$(wait_section $DISK/control 5000); then
	result ok "control: a program read before the stall got its section ($ms ms)"
else
	result fail "control: no section for $DISK/control within 5 s"
fi
wait $control

# The attack: the server stalls, uid 1000 maps the program, which the
# module then reads.
stall_map $DISK/deep
verdict "$DISK/deep read from the page cache only" \
	"$DISK/deep is not 'not in page cache' after 5 s: its read waits on the loop device" \
	wait_file $DISK/deep "not in page cache" 5000
grep "^$DISK/deep:" $FILES
cat /tmp/stallfs.out
verdict "no READ reached the stalled server" \
	"the module's read reached the stalled server through the loop device" \
	[ "$(grep -c "READ .* kept" /tmp/stallfs.out)" -eq 0 ]
sframe_state loop

start=$(uptime_ms)
rmmod sframe_unwind &
remover=$!
if wait_exit $remover $RMMOD_LIMIT_S; then
	metric rmmod_ms "$(($(uptime_ms) - start))"
	verdict "rmmod completed with the server stalled" "rmmod failed" \
		wait $remover
else
	result fail "rmmod still blocked after $RMMOD_LIMIT_S s; aborting the FUSE connection"
	abort_fuse
	wait_exit $remover 30 || result fail "rmmod blocked even after the abort"
fi

kill $holder 2> /dev/null
abort_fuse
umount -l $DISK
losetup -d "$stall_loop"
kill "$stallfs" 2> /dev/null
umount -l $STALL
wait
