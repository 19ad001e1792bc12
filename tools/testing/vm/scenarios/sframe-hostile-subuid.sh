#!/bin/sh
# sframe-hostile-subuid: the per-user bound holds against a user's own
# containers, and no user's quota decides a file others map.
# - A user's subordinate uids (his user namespace's, as newuidmap gives
#   them) are charged to him: four copies of a flood, each as another uid
#   of his namespace, together stay within one max_user_mb.
# - A user whose quota a file's section does not fit maps it first; root
#   mapping it next gets it read at once, charged to root, instead of the
#   entry staying refused under the first mapper's quota.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 300
. /vmtest/lib.sh
P=/workloads/project
WIDE=$P/sframe/wide
USER_MB=8
SLACK_BYTES=$((1024 * 1024))
LIMIT=$((USER_MB * 1024 * 1024 + SLACK_BYTES))
COPIES=4
MAPS=48			# each copy alone more than max_user_mb of sections

# Rootless containers allowed, as on a stock Debian kernel (the debug
# build defaults Debian's switch to off).
if [ -w /proc/sys/kernel/unprivileged_userns_clone ]; then
	echo 1 > /proc/sys/kernel/unprivileged_userns_clone
fi
load_module sframe_unwind max_user_mb=$USER_MB
bytes0=$(stat_value kernel_bytes)
metric kernel_bytes_before "$bytes0"

# Part 1: uid 1000's namespace, its uids 0-3 being 100000-100003 outside.
$P/subuids 1000 100000 $COPIES $P/execmap memfd $WIDE $MAPS > /tmp/subuids.out 2>&1 &
flooders=$!
end=$(($(uptime_ms) + 120000))
while [ "$(grep -c holding /tmp/subuids.out)" -lt $COPIES ]; do
	if ! kill -0 $flooders 2> /dev/null || [ "$(uptime_ms)" -ge $end ]; then
		cat /tmp/subuids.out
		result fail "the flood of $COPIES subordinate uids did not hold its maps"
		exit 1
	fi
	sleep 0.5
done
wait_loads 30000 > /dev/null || result fail "a file still loading 30 s after the flood"
cat /tmp/subuids.out
grown=$(($(stat_value kernel_bytes) - bytes0))
metric subuid_flood_bytes "$grown"
verdict "$COPIES subordinate uids of one user: cache grew by $grown bytes (<= max_user_mb $USER_MB + slack)" \
	"$COPIES subordinate uids of one user: cache grew by $grown bytes, over one max_user_mb ($LIMIT)" \
	[ $grown -le $LIMIT ]
sframe_state subuid_flood
killall execmap
wait

# Part 2: a section over uid 1000's quota (20 MB), mapped by uid 1000
# first, then by root.
NEW=/tmp/newlib
$P/hostile-sframe huge-function $NEW || result fail "hostile-sframe failed"
chmod 755 $NEW

# file_status PATH: the module's status of PATH's entry (files view).
file_status()
{
	sed -n "s|^$1: \([^,]*\),.*|\1|p" /sys/kernel/debug/sframe_unwind/files
}

$P/runas 1000 $P/execmap hold $NEW > /dev/null 2>&1 &
user=$!
if settles "over max_user_mb" 30 file_status $NEW; then
	result ok "uid 1000's mapping of a 20 MB section: over its max_user_mb"
else
	result fail "uid 1000's mapping of a 20 MB section: status '$(file_status $NEW)', not 'over max_user_mb'"
fi
$P/execmap hold $NEW > /dev/null 2>&1 &
root=$!
if settles ok 30 file_status $NEW; then
	result ok "root's mapping of it next: read and charged to root"
else
	result fail "root's mapping of it next: status '$(file_status $NEW)' after 30 s: the first mapper's quota still decides"
fi
sframe_state refused_first
kill $user $root
wait
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
