#!/bin/sh
# sframe-hostile-files: an unprivileged user maps executable what is not
# a program.  A device node (/dev/zero) is never opened nor read by the
# module; a rejected file whose name holds a newline logs one line, the
# newline escaped; a file shorter than its ELF headers say is read once
# however often it is mapped again, not once per map.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 180
. /vmtest/lib.sh
P=/workloads/project
RUNAS=$P/runas
USER_UID=1000
FILES=/sys/kernel/debug/sframe_unwind/files
JUDGE_LIMIT_S=20
CYCLE_SECONDS=12
DIR=/tmp/hostile-files
NAMED="$DIR/evil
FORGED: x"
SHORT=$DIR/short

mkdir -p $DIR && chmod 755 $DIR
cp $P/sframe/deep-corrupt "$NAMED"
# The ELF headers and notes, without the segments they describe.
head -c 4096 $P/sframe/deep > $SHORT
chmod 755 "$NAMED" $SHORT
load_module sframe_unwind

# judged TEXT: wait until the files view has a line with TEXT and a
# verdict (not "loading"); returns 1 after JUDGE_LIMIT_S without one.
judged()
{
	j=0
	while [ $j -lt $((JUDGE_LIMIT_S * 10)) ]; do
		grep -F "$1" $FILES | grep -qv ": loading," && return 0
		sleep 0.1
		j=$((j + 1))
	done
	return 1
}

# A device node: the map is seen, the file is refused unread.
$RUNAS $USER_UID $P/execmap hold /dev/zero > /tmp/devzero.out 2>&1 &
holder=$!
if ! wait_text /tmp/devzero.out holding 5; then
	cat /tmp/devzero.out
	ls -l /dev/zero
	grep " /dev " /proc/mounts
	result fail "uid $USER_UID could not map /dev/zero executable"
fi
if judged "/dev/zero: "; then
	result ok "/dev/zero judged: $(grep -F /dev/zero: $FILES)"
else
	result fail "/dev/zero not judged within $JUDGE_LIMIT_S s"
fi
expect_stat "not loaded: not a regular file" 1
# What an open and a read of it would have said.
expect_stat "not loaded: not an ELF object of this machine" 0
expect_stat "not loaded: read error" 0
kill $holder
wait $holder

# A newline in a rejected file's name.
$RUNAS $USER_UID $P/execmap hold "$NAMED" > /tmp/named.out 2>&1 &
holder=$!
wait_text /tmp/named.out holding 30 ||
	result fail "uid $USER_UID could not map the file named with a newline"
judged "FORGED: x: " ||
	result fail "the file named with a newline not judged within $JUDGE_LIMIT_S s"
dmesg > /tmp/named.log
if grep -qF 'evil\x0aFORGED: x: invalid .sframe' /tmp/named.log; then
	result ok "rejection logged on one line, the newline escaped"
else
	result fail "no log line with the newline escaped"
fi
if grep -qE '^(\[[^]]*\] )?FORGED' /tmp/named.log; then
	grep -E '^(\[[^]]*\] )?FORGED' /tmp/named.log
	result fail "a file name forged a line of the kernel log"
else
	result ok "no line of the kernel log begins with the file name's second line"
fi
kill $holder
wait $holder

# A short file, mapped and unmapped for CYCLE_SECONDS: one read.
$RUNAS $USER_UID $P/execmap cycle $SHORT $CYCLE_SECONDS > /tmp/short.out 2>&1
cat /tmp/short.out
if judged "$SHORT: "; then
	result ok "short file judged: $(grep -F "$SHORT: " $FILES)"
else
	result fail "short file not judged within $JUDGE_LIMIT_S s"
fi
expect_stat "not loaded: file shorter than its headers say" 1
# Without a final answer, one read per map: hundreds.
expect_stat "not loaded: read error" 0

sframe_state module
rm -rf $DIR
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
