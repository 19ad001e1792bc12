#!/bin/sh
# sframe-odirect: an unprivileged O_DIRECT mapping does not spoil a file.
# A world-readable copy of the project's SFrame build of deep, on ext2
# (a RAM block device: tmpfs ignores O_DIRECT), not mapped by anyone since
# the module loaded, is opened with O_DIRECT and mapped PROT_EXEC by an
# unprivileged user; then the program runs normally under perf -g.
# Control: another copy on the same file system, mapped only by its run.
# needs: module
# kmods: brd ext4
# kernels: debian-5.10 debian-6.1 debian-6.12
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
DIR=/mnt/odirect
PROJECT=/workloads/project

unload_module sframe_unwind
mount_scratch_ext2 $DIR
for copy in deep control; do
	cp $PROJECT/sframe/deep $DIR/$copy
	chmod 755 $DIR/$copy
done
load_module sframe_unwind
record_pattern $DIR/control chain control
$PROJECT/runas 65534 $PROJECT/odirectmap $DIR/deep 1 ||
	result fail "odirectmap as uid 65534: exit $?"
sframe_state odirect
record_pattern $DIR/deep chain
sframe_done module
umount $DIR
