#!/bin/sh
# kunit: load every *_kunit.ko built from kernel/ and hand its KTAP to the host.
# KUnit is only in the debug kernel; the host reports each case as a test.
# needs: kunit
# kernels: debug
# timeout: 600
. /vmtest/lib.sh

found=0
for ko in /modules/*_kunit.ko; do
	[ -f "$ko" ] || continue
	found=1
	name=$(basename "$ko" .ko)
	dmesg -c > /dev/null
	if ! insmod "$ko"; then
		result fail "insmod $name failed"
	fi
	dmesg > "/tmp/$name.ktap"
	artefact "$name.ktap" "/tmp/$name.ktap"
	rmmod "$name" 2> /dev/null
done
[ "$found" = 1 ] || result fail "no *_kunit.ko in the initramfs"
