#!/bin/sh
# sframe-service: `sframectl serve` supplies sidecars with no other command.
# The nosframe deep build (no SFrame, no frame pointers), its libdeepso.so,
# libc and ld.so get sidecars when first mapped after the service started
# (the module reports them); every pattern must then unwind to main.  A
# restart finds what is mapped by asking the module
# (SFRAME_IOC_REPORT_MAPPED), takes it from the on-disk cache and
# generates nothing.  A user's own build, run by that user, is served
# (every owner's files are, charged to the mapper).  An unprivileged
# user's flood of new files while the service is stopped overflows the
# bounded report queue: reports are dropped and counted, the service asks
# the module again for what is mapped, and a root program mapped
# afterwards is still served.
# The watcher's descriptor holds the module until the service ends.
# After the first service (root's), each runs as the packaged unit runs
# it: a user of its own whose one right is the device's group, given as
# the package's udev rule gives it; with no capability it loads sidecars,
# finds a running program's library through the module's sweep (its
# reports counted), and a user outside the group cannot load a sidecar.
# sframectl status shows the service's view throughout: not running, then
# as many sidecars covered as the module counts loaded, the failure of a
# program without .eh_frame under its reason, the reports the module
# queues while the service is stopped, the module's kernel bytes.
# Reloaded with idle_seconds=1: the service's sidecars go (kernel bytes
# with them) once their files are unmapped, and the next mapping gets them
# back from the cache with complete stacks; a sidecar loaded by hand
# stays, and the service does not replace it.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 900
. /vmtest/lib.sh
SF=/workloads/project/sframectl
W=/workloads/nosframe/deep
SO=/workloads/nosframe/libdeepso.so
OTHER=/workloads/project/otherid/deep
NOEH=/workloads/project/noeh
CACHE=/tmp/sidecar-cache
# A file first mapped must have its sidecar within this, generation
# included (TCG; the debug kernel is several times slower).
case $KERNEL in
debug)	LIMIT_MS=60000 ;;
*)	LIMIT_MS=10000 ;;
esac

# service LABEL: what sframectl status says after "service: LABEL: ".
service()
{
	$SF status | sed -n "s/^service: $1: //p"
}

# status_says WHAT LINE: status prints LINE (a whole line; with -E, a
# regular expression matching one), or fail.
status_says()
{
	how=-F
	[ "$1" = -E ] && how=-E && shift
	$SF status > /tmp/status.out
	if grep -qx $how -- "$2" /tmp/status.out; then
		result ok "status, $1: $2"
	else
		cat /tmp/status.out
		result fail "status, $1: no line '$2'"
	fi
}

# generated NAME: how many sidecars the service's last report generated.
generated()
{
	sed -n 's/.*: \([0-9]*\) sidecars generated.*/\1/p' "/tmp/$1.log" |
		tail -1
}

# from_cache NAME: how many its last report took from the cache.
from_cache()
{
	sed -n 's/.*, \([0-9]*\) from the cache.*/\1/p' "/tmp/$1.log" | tail -1
}

# sidecar_bytes PATH: the kernel bytes of the sidecar of PATH (or of a
# file of that name when PATH has no slash), 0 if it has none.
sidecar_bytes()
{
	sb=$($SF status | sed -En "s#^(.*/)?$1: v.*, ([0-9]+) bytes.*#\2#p")
	echo "${sb:-0}"
}

# The service's user and the device's group, as the packages make them.
SERVICE_UID=991
SERVICE_GID=990
mkdir -p /etc
grep -q "^sframe-unwind:" /etc/passwd 2> /dev/null ||
	echo "sframe-unwind:x:$SERVICE_UID:$SERVICE_GID::/nonexistent:/bin/false" >> /etc/passwd

# device_to_service: the udev rule's work (KERNEL=="sframe_unwind",
# GROUP="sframe-unwind"), on the module's own mode, root's 0660.
device_to_service()
{
	dev_mode=$(stat -c '%a %u %g' /dev/sframe_unwind)
	[ "$dev_mode" = "660 0 0" ] ||
		result fail "/dev/sframe_unwind: mode, owner, group $dev_mode; want 660 0 0"
	chgrp $SERVICE_GID /dev/sframe_unwind
}

load_module sframe_unwind
device_to_service
mkdir -p /run			# the service's runtime directory goes there
status_says "before the service" "service: not running"
loaded0=$(stat_value sidecars_loaded)
serve first || { unload_module sframe_unwind; exit 1; }
refused 2 "another sframectl serve is running" $SF serve --cache $CACHE --once

# First mappings after the service started: reported by the module.
# Libraries by file name: the module names a file by the path it was
# first mapped through, which /lib64's and merged /usr's links resolve.
start=$(uptime_ms)
$W dlopen 5 > /dev/null &
first=$!
for f in $W libdeepso.so libc.so.6 ld-linux-x86-64.so.2; do
	if wait_sidecar "$f" $LIMIT_MS > /dev/null; then
		result ok "$f: sidecar in use after its first mapping"
	else
		result fail "$f: no sidecar within $LIMIT_MS ms of its first mapping"
	fi
done
metric first_mapping_to_sidecars_ms $(($(uptime_ms) - start))
wait $first

# perf and its 20-odd libraries are new to the service as well: let it
# supply them before recording, so that the recordings measure sidecars
# in use, not two TCG vCPUs shared with that generation.  Reports are
# taken in the order they came: a marker mapped after perf has its
# sidecar in use once perf's are made or being made (below: until idle).
perf version > /dev/null
$NOEH &
noeh=$!
cp $W /tmp/marker
/tmp/marker chain 120 > /dev/null &
marker=$!
wait_sidecar /tmp/marker 120000 > /dev/null ||
	result fail "perf's objects were not served within 120 s"
# The module loads files in parallel: noeh's report may come after the
# marker's.
wait_text /tmp/first.log "$NOEH: cannot generate SFrame" 60 ||
	result fail "the service did not log $NOEH's failure"
kill $marker $noeh
wait $marker $noeh

# Its generator children run side by side: the marker's may end before
# a library of perf's.  Once none runs and nothing is pending, nothing is
# left to settle (the checks below say what a service still busy did).
wait_for 120000 service_idle $SF > /dev/null
# All served and nothing mapped since: the service's numbers are settled.
loaded=$(($(stat_value sidecars_loaded) - loaded0))
cannot=$(grep -c "cannot generate SFrame" /tmp/first.log)
status_says -E "first service" "service: running, pid $serve_pid, up [0-9]+ s, idle"
covered=$(service "objects covered" | sed 's/ .*//')
if [ "$covered" = "$loaded" ] && [ "$loaded" -ge 4 ]; then
	result ok "status: $covered objects covered, as many sidecars as the module loaded"
else
	result fail "status: $covered objects covered, the module loaded $loaded sidecars"
fi
metric status_objects_covered "$covered"
case $cannot:$(service failed) in
0:*)	result fail "no 'cannot generate SFrame' in the service's log" ;;
*:*"cannot generate SFrame $cannot,"*)
	result ok "status: $cannot failed, cannot generate SFrame, as logged" ;;
*)	result fail "status: failed: $(service failed); the log has $cannot 'cannot generate SFrame'" ;;
esac
status_says "settled" "service: pending: 0 (read 0, queued in the module 0)"
# Idle files are reclaimed meanwhile: the statistic before or after.
before=$(stat_value kernel_bytes)
memory=$($SF status | sed -n 's/^kernel memory: \([0-9]*\) bytes$/\1/p')
after=$(stat_value kernel_bytes)
if [ "$memory" = "$before" ] || [ "$memory" = "$after" ]; then
	result ok "status: kernel memory $memory bytes, the module's kernel_bytes"
else
	result fail "status: kernel memory '$memory', kernel_bytes $before then $after"
fi
# libdeepso.so mapped meanwhile, as a program that keeps it loaded
# would: its sidecar stays in use for the dlopen pattern, however long
# the above took.  Without, its entry is gone after idle_seconds, and
# the pattern's first milliseconds wait for the service again, which a
# busy host makes longer (sframe-shortlived judges that window).
/workloads/project/execmap hold $SO > /tmp/hold-so.out 2>&1 &
hold_so=$!
wait_text /tmp/hold-so.out holding 30 || result fail "could not map $SO to hold it"
wait_sidecar libdeepso.so $LIMIT_MS > /dev/null ||
	result fail "libdeepso.so: no sidecar within $LIMIT_MS ms of its mapping"
record_patterns $W
kill $hold_so
wait $hold_so

# A user's own build, run by that user: served as root's files are.
mkdir -p /tmp/users
cp $W /tmp/users/deep
chown -R 1001 /tmp/users
/workloads/project/runas 1001 /tmp/users/deep chain 3 > /dev/null &
users=$!
if wait_sidecar /tmp/users/deep $LIMIT_MS > /dev/null; then
	result ok "a program uid 1001 built and runs got its sidecar"
else
	result fail "a program uid 1001 built and runs got no sidecar within $LIMIT_MS ms"
fi
wait $users

# That sidecar is its mapper's, charged within max_user_mb: with uid
# 1001's share at 1 MiB, its copies of six of the system's objects (1.3
# MB of sidecars, from the cache) do not all get theirs; the module
# refuses at least one (EDQUOT), which root's share, charged before,
# would have taken.
user_mb=$(cat /sys/module/sframe_unwind/parameters/max_user_mb)
echo 1 > /sys/module/sframe_unwind/parameters/max_user_mb
holders=
for f in /lib/x86_64-linux-gnu/libpython3.11.so.1.0 /lib/x86_64-linux-gnu/libperl.so.5.36 \
	 /lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libglib-2.0.so.0 \
	 /lib/x86_64-linux-gnu/libopencsd.so.1 /usr/bin/perf; do
	cp "$f" "/tmp/users/quota-${f##*/}"
	chown 1001 "/tmp/users/quota-${f##*/}"
	/workloads/project/runas 1001 /workloads/project/execmap hold \
		"/tmp/users/quota-${f##*/}" > /dev/null &
	holders="$holders $!"
done
if wait_text /tmp/first.log "Disk quota exceeded" 60; then
	result ok "uid 1001 over max_user_mb: a sidecar of its refused (EDQUOT)"
else
	result fail "uid 1001 over max_user_mb: no EDQUOT for its sidecars in 60 s"
fi
kill $holders
echo "$user_mb" > /sys/module/sframe_unwind/parameters/max_user_mb
stop_serve first
[ "$(generated first)" -ge 4 ] ||
	result fail "the first service generated $(generated first) sidecars, want >= 4"
status_says "after SIGTERM" "service: not running"

# From here the service is the unit's: its user, the device's group, the
# cache and runtime directories its own (CacheDirectory=, RuntimeDirectory=).
chown -R $SERVICE_UID "$CACHE" /run/sframe-unwind
SERVE_AS="/workloads/project/runas $SERVICE_UID:$SERVICE_GID"
refused 2 "Permission denied" /workloads/project/runas 1001 $SF load $OTHER

# A restart: what runs is found by the module's sweep, from the cache.  A
# sidecar of the service whose file no one mapped for idle_seconds is gone
# already (exit 1, "no sidecar loaded").
for f in $W $SO /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2; do
	$SF unload $f > /dev/null 2>&1
	[ $? -le 1 ] || result fail "unload $f"
done
$W dlopen 30 > /dev/null &
steady=$!
wait_text /proc/$steady/maps libdeepso.so 30 ||
	result fail "the steady program did not map libdeepso.so"
start=$(uptime_ms)
loaded0=$(stat_value sidecars_loaded)
swept0=$(stat_value sweep_reports)
serve restart || { unload_module sframe_unwind; exit 1; }
caps=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/$serve_pid/status)
uid=$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$serve_pid/status)
if [ "$caps" = 0000000000000000 ] && [ "$uid" = $SERVICE_UID ]; then
	result ok "restart: the service runs as uid $uid with no capability"
else
	result fail "restart: the service runs as uid $uid, capabilities $caps"
fi
if wait_sidecar libdeepso.so $LIMIT_MS > /dev/null; then
	metric scan_to_sidecar_ms $(($(uptime_ms) - start))
	result ok "restart: a running program's library served, with no capability"
else
	result fail "restart: no sidecar for $SO within $LIMIT_MS ms"
fi
swept=$(($(stat_value sweep_reports) - swept0))
metric restart_sweep_reports "$swept"
verdict "restart: the module's sweep reported $swept files mapped" \
	"restart: the module's sweep reported nothing" \
	[ "$swept" -ge 1 ]
if [ "$(generated restart)" = 0 ]; then
	result ok "restart: nothing generated, all from the cache"
else
	result fail "restart: $(generated restart) sidecars generated, want 0"
fi
loaded=$(($(stat_value sidecars_loaded) - loaded0))
status_says "restart" "service: objects covered: $loaded (generated 0, from the cache $loaded)"
record_pattern $W chain restart

# The flood: uid 1001 maps 300 new files while the service is stopped.
kill -STOP $serve_pid
dropped0=$(stat_value events_dropped)
mkdir -p /tmp/flood
chown 1001 /tmp/flood
/workloads/project/runas 1001 /bin/sh -c "
	i=0
	while [ \$i -lt 300 ]; do
		cp $W /tmp/flood/\$i && /tmp/flood/\$i nosuchpattern 0 > /dev/null 2>&1
		i=\$((i + 1))
	done"
sleep 1
status_pending=$(service pending)
pending=$(stat_value events_pending)
dropped=$(($(stat_value events_dropped) - dropped0))
# It may have been stopped with reports in hand (perf's, from the cache).
read_=$(echo "$status_pending" | sed -n 's/.*(read \([0-9]*\), .*/\1/p')
if [ -n "$read_" ] && [ "$pending" -gt 0 ] && [ "$status_pending" = \
     "$((read_ + pending)) (read $read_, queued in the module $pending)" ]; then
	result ok "status, service stopped: pending $status_pending"
else
	result fail "status, service stopped: pending '$status_pending', the module queues $pending"
fi
metric flood_events_pending "$pending"
metric flood_events_dropped "$dropped"
if [ "$pending" -le 256 ] && [ "$dropped" -gt 0 ]; then
	result ok "flood: $pending reports queued (bound 256), $dropped dropped and counted"
else
	result fail "flood: $pending reports queued, $dropped dropped; want <= 256 and some dropped"
fi
kill -CONT $serve_pid
if wait_text /tmp/restart.log "reports lost; asking the module" 60; then
	result ok "flood: the service heard of the loss and asked the module again"
else
	result fail "flood: the service did not report the loss"
fi
# It runs as long as the limit: a sidecar is in use only while mapped.
$OTHER chain $((LIMIT_MS / 1000)) > /dev/null &
other=$!
if ms=$(wait_sidecar $OTHER $LIMIT_MS); then
	metric flood_to_sidecar_ms "$ms"
	result ok "after the flood: a root program's first mapping is served"
else
	result fail "after the flood: no sidecar for $OTHER within $LIMIT_MS ms"
fi
kill $other
wait $other
stat_settles events_pending 0 30 ||
	result fail "events_pending stayed at $(stat_value events_pending)"

# The watcher holds the module; once the service ends, rmmod works.
if rmmod sframe_unwind 2> /dev/null; then
	result fail "rmmod succeeded with the service's watch open"
	load_module sframe_unwind
else
	result ok "rmmod refused while the service watches"
fi
kill $steady 2> /dev/null
wait $steady
stop_serve restart
status_says "at the end" "service: not running"
sframe_state module
rm -rf /tmp/flood
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"

# Released: the service's sidecars last while their files are mapped.
IDLE=1
load_module sframe_unwind idle_seconds=$IDLE
device_to_service
must $SF load $OTHER
$OTHER chain 60 > /dev/null &
other=$!
wait_sidecar $OTHER $LIMIT_MS > /dev/null ||
	result fail "released: no sidecar for $OTHER after load"
serve released || { unload_module sframe_unwind; exit 1; }
cached=$(from_cache released)
kill $other
wait $other
if grep -q "mapped at start: .*, 0 loaded by hand" /tmp/released.log; then
	result ok "released: the module's sweep did not report $OTHER, which has a sidecar"
else
	cat /tmp/released.log
	result fail "released: the sweep reported $OTHER, which has a sidecar loaded by hand"
fi
$W dlopen 60 > /dev/null &
holder=$!
wait_sidecar $W $LIMIT_MS > /dev/null &&
	wait_sidecar libdeepso.so $LIMIT_MS > /dev/null ||
	result fail "released: no sidecars for $W and $SO"
side_bytes=$(($(sidecar_bytes $W) + $(sidecar_bytes libdeepso.so)))
mapped_bytes=$(stat_value kernel_bytes)
released0=$(stat_value sidecars_released)
kill $holder
wait $holder
start=$(uptime_ms)
while $SF status | grep -Eq "^$W: |^(.*/)?libdeepso.so: "; do
	if [ $(($(uptime_ms) - start)) -ge $(((IDLE + 10) * 1000)) ]; then
		$SF status
		result fail "released: sidecars still loaded $((IDLE + 10)) s after the last unmapping"
		break
	fi
	sleep 0.2
done
metric unmapped_to_released_ms $(($(uptime_ms) - start))
unmapped_bytes=$(stat_value kernel_bytes)
released=$(($(stat_value sidecars_released) - released0))
metric released_kernel_bytes_mapped "$mapped_bytes"
metric released_kernel_bytes_unmapped "$unmapped_bytes"
if [ "$released" -ge 2 ] &&
   [ $((mapped_bytes - unmapped_bytes)) -ge "$side_bytes" ]; then
	result ok "released: $released sidecars, kernel bytes $mapped_bytes -> $unmapped_bytes (sidecars: $side_bytes)"
else
	result fail "released: $released sidecars, kernel bytes $mapped_bytes -> $unmapped_bytes, want >= 2 and $side_bytes fewer"
fi
if $SF status | grep -q "^$OTHER: v.* bytes\$"; then
	result ok "released: the sidecar loaded by hand stays, unmapped"
else
	$SF status
	result fail "released: the sidecar loaded by hand for $OTHER is gone"
fi
# Mapped again: reported, and back from the cache.  perf is kept mapped,
# and mapped before the program (its workload writes its pid once perf
# runs), so served before it: the recording measures sidecars in use,
# not their loading.
rm -f /tmp/perf-holder
perf stat -o /dev/null -- sh -c 'echo $$ > /tmp/perf-holder; exec sleep 60' &
perf_holder=$!
wait_text /tmp/perf-holder "[0-9]" 30 ||
	result fail "released: perf stat did not start its workload"
start=$(uptime_ms)
$W dlopen 60 > /dev/null &
holder=$!
if wait_sidecar $W $LIMIT_MS > /dev/null &&
   wait_sidecar libdeepso.so $LIMIT_MS > /dev/null; then
	metric remapped_to_sidecars_ms $(($(uptime_ms) - start))
	result ok "released: mapped again, the sidecars are back"
else
	result fail "released: mapped again, no sidecars within $LIMIT_MS ms"
fi
record_pattern $W chain released
must $SF unload $W
kill $holder $perf_holder $(cat /tmp/perf-holder)
wait $holder $perf_holder
stop_serve released
if [ "$(generated released)" = 0 ] &&
   [ "$(from_cache released)" -ge $((cached + 4)) ]; then
	result ok "released: nothing generated, all from the cache"
else
	result fail "released: $(generated released) generated, $(from_cache released) from the cache"
fi
sframe_done released
# The runtime directory became the unit's user's: leave none behind, so a
# later scenario's service (run as root) makes its own.
rm -rf /run/sframe-unwind
