#!/bin/sh
# sframe-overlay: a container-like overlayfs mount (lower: the project's
# SFrame build and the fixtures' nosframe build; upper and work on tmpfs).
# A program run from the merged directory gets its own .sframe; a sidecar
# for the nosframe build works loaded through the lower (real) path and
# through the overlay path, and either path names the same file; a file
# replaced in the merged directory (copied up) is never unwound with the
# old file's sidecar, and the old sidecar is refused for it.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12
# default: debian-6.12
# kmods: overlay
. /vmtest/lib.sh
load_kmods
load_module sframe_unwind
SF=/workloads/project/sframectl
O=/tmp/ovl
L=$O/lower
M=$O/merged

mkdir -p $L $O/rw $M
mount -t tmpfs lower $L && mount -t tmpfs rw $O/rw &&
	mkdir -p $L/sframe $L/nosframe $O/rw/upper $O/rw/work &&
	cp /workloads/project/sframe/deep $L/sframe/deep &&
	cp /workloads/nosframe/deep $L/nosframe/deep &&
	mount -t overlay overlay \
		-o lowerdir=$L,upperdir=$O/rw/upper,workdir=$O/rw/work $M || {
	result fail "cannot build the overlay mount"
	exit 1
}
grep " $M " /proc/mounts

# Its own .sframe, and nothing for the nosframe build yet.
record_pattern $M/sframe/deep chain own
record_pattern $M/nosframe/deep chain none

# A sidecar loaded through the lower path serves the program run from the
# merged directory, and the overlay path names the same file to unload.
must $SF load $L/nosframe/deep
record_pattern $M/nosframe/deep chain via-lower
must $SF unload $M/nosframe/deep
refused 1 "no sidecar loaded" $SF unload $L/nosframe/deep

# Through the overlay path, as a container's tools would see it.
must $SF gen -o /tmp/old.sframe $M/nosframe/deep
must $SF load $M/nosframe/deep /tmp/old.sframe
record_pattern $M/nosframe/deep chain via-overlay

# Replace the file in the merged directory: copied up, a new file under
# the same overlay path and overlay inode.  The SFrame build put there is
# unwound with its own .sframe, not the old sidecar; the old sidecar is
# refused for it by sframectl and, forced, by the module (build ID).
cp $L/sframe/deep $M/nosframe/deep || result fail "copy-up failed"
if [ -f $O/rw/upper/nosframe/deep ] && cmp -s $M/nosframe/deep $L/sframe/deep &&
   ! cmp -s $L/nosframe/deep $L/sframe/deep; then
	result ok "replaced: $M/nosframe/deep is the SFrame build, copied up"
else
	result fail "the merged file was not replaced by a copy-up"
fi
record_pattern $M/nosframe/deep chain replaced
refused 1 "/tmp/old.sframe is not for $M/nosframe/deep" \
	$SF load $M/nosframe/deep /tmp/old.sframe
refused 1 "the module refused the sidecar: made for build ID .*, which is not the file's" \
	$SF load --force $M/nosframe/deep /tmp/old.sframe

# The old sidecar stayed with the file it was made for.
record_pattern $L/nosframe/deep chain lower-after
must $SF unload $L/nosframe/deep
$SF status

umount $M && umount $O/rw && umount $L || result fail "umount failed"
sframe_done module
