#!/bin/sh
# sframe-hostile-dm: a file system on a device-mapper device stacked
# over a loop device whose backing file is on a FUSE server that stops
# answering.  The module does not see through the stack (design.rst,
# "Files: reading without trusting the mapper"), so its read of a
# program there, mapped by an unprivileged user, waits on the stalled
# server in its worker.  Root's sidecar load for that program waits for
# that read: asserted, it does so killably (SIGKILL ends it within
# KILL_LIMIT_S), so that a supplier stuck behind a user's storage can
# always be stopped.  Then the user maps FLOOD more programs there, more
# reads than the module's work queue runs at once: asserted, all but a
# few of them wait in the user's own queue (loads_waited).  And a
# program anyone may run, whose read he asks for first and which waits
# in his queue, still gets its section within SECTION_LIMIT_MS when root
# runs it.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 420
# kmods: fuse loop ext4 dm-mod
. /vmtest/lib.sh
P=/workloads/project
IMAGE=/tmp/disk.img
STALL=/mnt/stall
DISK=/mnt/disk
KILL_LIMIT_S=5
FLOOD=300
SECTION_LIMIT_MS=5000

load_kmods
load_module sframe_unwind

# The image served by FUSE, a read-only loop device over it, a linear
# device-mapper device over that, the file system mounted from it.
mkdir -p $DISK
names=deep
i=0
while [ $i -lt $FLOOD ]; do
	names="$names f$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
ext2_image $IMAGE 16 $names || exit 1
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
	# shellcheck disable=SC2086
	kill "$holder" $flooders 2> /dev/null
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

flooders=
# The server stalls and uid 1000 maps the program: the module's worker
# reads it through the stack and waits on the server.
putter=
# Every program's inode is looked up before the stall, so that mapping
# one reads nothing but its data.
ls -l $DISK > /dev/null
stall_map $DISK/deep
if ! wait_text /tmp/stallfs.out "READ .* kept" 30 ||
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

# The flood: uid 1000 maps every other program on the file system, each
# in a process of its own, and their reads queue behind the first.
waited0=$(stat_value loads_waited)
i=0
while [ $i -lt $FLOOD ]; do
	$P/runas 1000 $P/execmap hold $DISK/f$i > /dev/null 2>&1 &
	flooders="$flooders $!"
	i=$((i + 1))
done
flood_seen()
{
	[ "$(grep -c "^$DISK/f[0-9]*: loading, " \
		/sys/kernel/debug/sframe_unwind/files)" -ge $FLOOD ]
}
wait_for 120000 flood_seen > /dev/null ||
	result fail "the module did not see the $FLOOD maps within 120 s"
waited=$(($(stat_value loads_waited) - waited0))
metric flood_loads_waited "$waited"
verdict "$waited of the flood's $FLOOD reads wait in uid 1000's own queue" \
	"only $waited of the flood's $FLOOD reads wait in uid 1000's queue" \
	[ "$waited" -ge $((FLOOD - 8)) ]


# uid 1000 maps a program everyone may run, from /tmp, first: its read
# waits in his queue.  Root then runs it: his mapping takes the read over.
cp $P/sframe/deep /tmp/shared
chmod 755 /tmp/shared
waited0=$(stat_value loads_waited)
$P/runas 1000 $P/execmap hold /tmp/shared > /tmp/shared.out 2>&1 &
flooders="$flooders $!"
wait_text /tmp/shared.out holding 30 || result fail "uid 1000 could not map /tmp/shared"
shared_waits()
{
	[ "$(stat_value loads_waited)" -gt "$waited0" ]
}
if ! wait_for 10000 shared_waits > /dev/null ||
   ! grep -q "^/tmp/shared: loading, " /sys/kernel/debug/sframe_unwind/files; then
	result fail "the read of /tmp/shared uid 1000 asked for does not wait in his queue"
fi
/tmp/shared chain 60 > /dev/null &
other=$!
if ms=$(wait_section /tmp/shared $SECTION_LIMIT_MS); then
	metric shared_section_ms "$ms"
	result ok "root's run of /tmp/shared gets its section in $ms ms"
else
	grep "^/tmp/shared:" /sys/kernel/debug/sframe_unwind/files
	result fail "no section for root's run of /tmp/shared within $SECTION_LIMIT_MS ms"
fi
kill $other
sframe_state dm
end
