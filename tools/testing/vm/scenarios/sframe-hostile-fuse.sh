#!/bin/sh
# sframe-hostile-fuse: an unprivileged user maps executable a file on a FUSE
# server that never answers READ; other users' programs still get their
# sections within 1 s, rmmod completes, no task hangs.
# needs: module
# kernels: debian-5.10 debian-6.1 debian-6.12 debug
# default: debian-5.10 debian-6.12 debug
# timeout: 240
# kmods: fuse
. /vmtest/lib.sh
P=/workloads/project
MNT=/mnt/stall
FILE=$MNT/true
FRESH=$P/sframe/deep
SECTION_LIMIT_MS=1000
RMMOD_LIMIT_S=10
HUNG_S=10

load_kmods
watch_hung_tasks $HUNG_S
load_module sframe_unwind

mkdir -p $MNT
$P/stallfs $MNT $P/sframe/true > /tmp/stallfs.out 2>&1 &
server=$!
wait_text /tmp/stallfs.out "stallfs: ready" 30
if ! timeout 5 ls -l $FILE; then
	cat /tmp/stallfs.out
	result fail "the FUSE server did not come up"
	kill $server
	exit 1
fi

# The attack: uid 1000 maps the file executable and tries to run it.
# The map comes first, so that the module is the first to read the file.
$P/runas 1000 $P/execmap hold $FILE > /tmp/hold.out 2>&1 &
holder=$!
wait_text /tmp/hold.out holding 30 || result fail "uid 1000 could not map $FILE"
# The module reads it from the page cache alone, where it is not.
wait_file $FILE "not in page cache" 5000 > /dev/null ||
	result fail "$FILE is not 'not in page cache' after 5 s"
$P/runas 1000 $FILE > /dev/null 2>&1 &
runner=$!
wait_text /tmp/stallfs.out "READ 1 kept" 30 || result fail "the exec of $FILE sent no READ"
cat /tmp/hold.out /tmp/stallfs.out

# Another user's fresh SFrame program must get its section promptly.
$P/runas 1001 $FRESH chain 40 > /dev/null &
fresh=$!
if ms=$(wait_section $FRESH 5000); then
	metric fresh_section_ms "$ms"
	verdict "a fresh program's section loaded after $ms ms" \
		"a fresh program's section took $ms ms (> $SECTION_LIMIT_MS)" \
		[ "$ms" -le $SECTION_LIMIT_MS ]
else
	metric fresh_section_ms ">5000"
	result fail "no section for $FRESH within 5 s while the FUSE READ is pending"
fi

# Hold the stalled mapping longer than the hung-task timeout: a kernel
# thread or rmmod stuck behind the READ would be reported meanwhile.
sleep $((HUNG_S + 5))
kill "$fresh" 2> /dev/null
wait "$fresh" 2> /dev/null

start=$(uptime_ms)
rmmod sframe_unwind &
remover=$!
if wait_exit $remover $RMMOD_LIMIT_S; then
	took=$(($(uptime_ms) - start))
	metric rmmod_ms "$took"
	if wait $remover; then
		result ok "rmmod completed in $took ms with the READ pending"
	else
		result fail "rmmod failed"
	fi
else
	metric rmmod_ms ">$((RMMOD_LIMIT_S * 1000))"
	result fail "rmmod still blocked after $RMMOD_LIMIT_S s; aborting the FUSE connection"
	abort_fuse
	wait_exit $remover 30 || result fail "rmmod blocked even after the abort"
fi

# The server goes away; everyone waiting on it is released.
kill $server
abort_fuse
umount -l $MNT
kill $holder $runner 2> /dev/null
wait_exit $holder 10 || result fail "the mapping process did not exit"
wait_exit $runner 10 || result fail "the exec of the FUSE file did not end"
wait
if [ -d /sys/module/sframe_unwind ]; then
	result fail "sframe_unwind is still loaded"
	exit 1
fi
load_module sframe_unwind
$FRESH chain 1 > /dev/null &
if ms=$(wait_section $FRESH 5000); then
	result ok "reloaded: a section loaded after $ms ms"
else
	result fail "reloaded module loaded no section within 5 s"
fi
wait
sframe_state module
rmmod sframe_unwind || result fail "final rmmod sframe_unwind failed"
