#!/bin/sh
# systest guest: the packages' install scenario on a booted Debian 12 system,
# one phase per boot (the settings' PHASES: install, then reboot; or
# servers or throughput alone), reported on the channel port as vmtest's
# scenarios are.  Run by systest.service from /vmtest (the second disk:
# this script, servers.sh, lib.sh, settings, the .debs, noderecurse.js).
. /vmtest/lib.sh
. /vmtest/servers.sh
STATE=/var/lib/systest
SERVICE=sframe-unwind
# Sidecars of a first mapping, generation included, under TCG: the
# service first serves the 35-odd objects mapped when it started
# (libcrypto's 10,876 FDEs among them), then perf's 20-odd.
SIDECAR_LIMIT_MS=120000
# The service's first sweep after the install, generation included: the
# objects of every process running then (the servers' among them).
SERVED_LIMIT_S=600
# A library replaced by dpkg -i: its sidecar, generated for the new file
# (a build ID of its own), from the program's start again.
UPGRADE_LIMIT_MS=30000

# active_within SECONDS: wait for the service to be active.
active_within()
{
	i=0
	until systemctl -q is-active $SERVICE; do
		i=$((i + 1))
		[ $i -gt "$1" ] && return 1
		sleep 1
	done
}

# libraries: /tmp/lib.in, 64 MB of the system's libraries to compress.
libraries()
{
	[ -f /tmp/lib.in ] ||
		cat /usr/lib/x86_64-linux-gnu/*.so* | head -c 64M > /tmp/lib.in
}

# busy NAME: start one stock program that keeps a CPU busy, its pid in
# $busy_pid.  perl: a loop of arithmetic (Debian links its perl with
# libperl statically); xz: compressing libraries (liblzma); sqlite3: a
# recursive common table expression without end (libsqlite3, through
# sqlite3_step); lzip (C++): compressing libraries; node: a recursive
# JavaScript function (V8's JIT frames, which keep frame pointers but
# have no unwind tables, called from libnode's C++, which has .eh_frame
# and no frame pointers).  node optimizes it on its main thread: with a
# sidecar from the cache, perf would otherwise begin while TurboFan still
# compiles it on a worker thread also named node, whose walks end, whole,
# in libc's clone3 and never reach _start.
busy()
{
	case $1 in
	perl)	perl -e 'while (1) { my $s = 0; $s += $_ * $_ for 1 .. 100000 }' & ;;
	xz)	libraries
		xz -6 -T1 -c /tmp/lib.in > /dev/null & ;;
	sqlite3) sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
		SELECT x + 1 FROM c) SELECT count(*) FROM c;' > /dev/null & ;;
	lzip)	libraries
		lzip -9 -c /tmp/lib.in > /dev/null & ;;
	node)	node --no-concurrent-recompilation /vmtest/noderecurse.js & ;;
	esac
	busy_pid=$!
}

# start NAME OBJECT...: busy NAME, then wait until each OBJECT (a file
# name, an extended regular expression) has its sidecar in use.
start()
{
	name=$1
	shift
	busy "$name"
	for obj in "$@"; do
		if ms=$(wait_sidecar "$obj" $SIDECAR_LIMIT_MS); then
			metric "$(echo "$obj" | sed 's/[^a-z0-9].*//')_sidecar_ms" "$ms"
		else
			result fail "$name: no sidecar for $obj within $SIDECAR_LIMIT_MS ms"
			journalctl -b -u $SERVICE -o short-monotonic | tail -20
		fi
	done
}

# stop PID: end a busy program.
stop()
{
	kill "$1"
	wait "$1" 2> /dev/null
}

# perf_all NAME: `perf record -a -g` for PERF_SECONDS; the samples go to
# the host as NAME.perf.
perf_all()
{
	if perf record -q -a -g -e cpu-clock -F "$PERF_FREQ" -o "/tmp/$1.data" \
		-- sleep "$PERF_SECONDS" 2> "/tmp/$1.err"; then
		perf_script "$1"
	else
		cat "/tmp/$1.err"
		result fail "perf record -a -g over $1 failed"
	fi
}

# perf_stats NAME: perf_all NAME, with the module's statistics before
# and after the recording sent to the host as NAME.stats-before and
# NAME.stats.
perf_stats()
{
	cat /sys/kernel/debug/sframe_unwind/stats > "/tmp/$1.stats-before"
	perf_all "$1"
	cat /sys/kernel/debug/sframe_unwind/stats > "/tmp/$1.stats"
	artefact "$1.stats-before" "/tmp/$1.stats-before"
	artefact "$1.stats" "/tmp/$1.stats"
}

# record NAME OBJECT...: start NAME and perf_stats over it.
record()
{
	start "$@"
	perf_stats "$1"
	stop "$busy_pid"
}

# clients: perl and xz at once, recorded by perf, then by bpftrace and by
# bcc's profile as they come in Debian's packages, PERF_SECONDS each; the
# stacks go to the host as clients.perf, .bpftrace and .bcc.
clients()
{
	start perl perl
	pids=$busy_pid
	start xz xz 'liblzma\.so\.[0-9.]+'
	pids="$pids $busy_pid"
	perf_all clients
	# pid == A || pid == B
	only=$(echo "$pids" | sed 's/\([0-9]*\)/pid == \1/g; s/ pid/ || pid/')
	if bpftrace -e "profile:hz:99 /$only/ { @[comm, ustack] = count(); }
		interval:s:$PERF_SECONDS { exit(); }" > /tmp/clients.bpftrace \
		2> /tmp/bpftrace.err; then
		artefact clients.bpftrace /tmp/clients.bpftrace
	else
		cat /tmp/bpftrace.err
		result fail "bpftrace over perl and xz failed"
	fi
	# folded stacks of every process, their command first
	if profile-bpfcc -U -f -F 99 "$PERF_SECONDS" > /tmp/clients.bcc \
		2> /tmp/bcc.err; then
		artefact clients.bcc /tmp/clients.bcc
	else
		cat /tmp/bcc.err
		result fail "bcc's profile-bpfcc over perl and xz failed"
	fi
	for pid in $pids; do
		stop "$pid"
	done
}

# repack PACKAGE FILE DEB: build DEB, PACKAGE's installed files as a new
# version whose FILE has another build ID (one byte of its note flipped).
repack()
{
	tree=/tmp/repack
	rm -rf $tree
	mkdir -p $tree/DEBIAN
	dpkg -L "$1" | while read -r f; do
		[ -d "$f" ] || echo "$f"
	done | tar -C / -cf - -T - 2> /dev/null | tar -C $tree -xf -
	dpkg-query -s "$1" | grep -v -E '^(Status|Version):' > $tree/DEBIAN/control
	echo "Version: $(dpkg-query -W -f '${Version}' "$1")+systest1" >> $tree/DEBIAN/control
	perl -0777 -pi -e 's/(\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU\0)(.)/$1 . chr(ord($2) ^ 0xff)/se' \
		"$tree$2"
	if cmp -s "$2" "$tree$2"; then
		result fail "repack: $2 has no GNU build ID note to change"
		return 1
	fi
	dpkg-deb -b $tree "$3" > /dev/null
}

# upgrade: xz runs while a new liblzma5 (repack) is installed with dpkg
# -i; xz started again must have the new file's sidecar in use within
# UPGRADE_LIMIT_MS and complete stacks (xz-upgrade.perf).
upgrade()
{
	lib=$(dpkg -L liblzma5 | grep -E '/liblzma\.so\.[0-9]+\.[0-9.]+$')
	repack liblzma5 "$lib" /tmp/liblzma5-systest.deb || return 1
	start xz xz 'liblzma\.so\.[0-9.]+'
	old=$busy_pid
	begin=$(uptime_ms)
	if dpkg -i /tmp/liblzma5-systest.deb > /tmp/dpkg-i.log 2>&1; then
		result ok "dpkg -i of a new liblzma5 while xz runs"
	else
		cat /tmp/dpkg-i.log
		result fail "dpkg -i of a new liblzma5: exit $?"
	fi
	metric upgrade_dpkg_ms $(($(uptime_ms) - begin))
	stop "$old"
	busy xz
	# the new xz's own ranges: "PID  start-end ... sidecar .../liblzma..."
	if ms=$(wait_maps "^$busy_pid .* sidecar .*/liblzma\.so\.[0-9.]+\$" \
		$UPGRADE_LIMIT_MS); then
		metric upgrade_sidecar_ms "$ms"
		result ok "the new liblzma's sidecar in use $ms ms after xz started, want <= $UPGRADE_LIMIT_MS"
	else
		result fail "no sidecar for the new liblzma within $UPGRADE_LIMIT_MS ms"
		journalctl -b -u $SERVICE -o short-monotonic | tail -20
	fi
	perf_all xz-upgrade
	stop "$busy_pid"
}

# generated WHEN: the service's "WHEN: N sidecars generated" of this boot.
generated()
{
	journalctl -b -u $SERVICE -o cat |
		sed -n "s/.*: $1: \([0-9]*\) sidecars generated.*/\1/p" | tail -1
}

# served LOG: the objects a service journal LOG says it loaded, sorted.
served()
{
	sed -n 's/.*sframectl\[[0-9]*\]: \(\/[^:]*\): loaded .*/\1/p' "$1" | sort -u
}

# cache_files: each file of the service's cache with its inode and mtime.
cache_files()
{
	stat -c '%n %i %Y' /var/cache/sframe-unwind/* | sort
}

# gone WHAT PATH...: no PATH may exist.
gone()
{
	what=$1
	shift
	for p in "$@"; do
		if [ -e "$p" ]; then
			result fail "$what: $p is still there"
			return
		fi
	done
	result ok "$what: gone"
}

# record_programs: each stock program started after the service.
record_programs()
{
	record perl perl
	record xz xz 'liblzma\.so\.[0-9.]+'
	record sqlite3 sqlite3 'libsqlite3\.so\.[0-9.]+'
	# /usr/bin/lzip is an alternative: lzip.lzip
	record lzip 'lzip\.lzip' 'libstdc\+\+\.so\.[0-9.]+'
	record node node 'libnode\.so\.[0-9.]+'
}

# load_system: the module loaded afresh with sframectl load --system's
# sidecars, for every object installed; its statistics go to the host as
# system.stats, beside the service's (module.stats).
load_system()
{
	if ! modprobe -r sframe_unwind || ! modprobe sframe_unwind; then
		result fail "modprobe -r and modprobe sframe_unwind failed"
		return 1
	fi
	begin=$(uptime_ms)
	if sframectl load --system > /tmp/load-system.log 2>&1; then
		result ok "sframectl load --system"
	else
		result fail "sframectl load --system: exit $?"
	fi
	metric load_system_ms $(($(uptime_ms) - begin))
	artefact load-system.log /tmp/load-system.log
	cat /sys/kernel/debug/sframe_unwind/stats > /tmp/system.stats
	artefact system.stats /tmp/system.stats
}

# install_packages: apt-get install of both .debs; DKMS must have built
# the module for the running kernel, the service must run and the vDSO
# have its section.
install_packages()
{
	start=$(uptime_ms)
	if apt-get install -y /vmtest/debs/sframe-unwind-dkms_*.deb \
		/vmtest/debs/sframectl_*.deb > /tmp/apt-install.log 2>&1; then
		result ok "apt-get install of the two packages"
	else
		result fail "apt-get install of the two packages: exit $?"
	fi
	metric apt_install_s $((($(uptime_ms) - start) / 1000))
	artefact apt-install.log /tmp/apt-install.log
	if dkms status | grep -q "^sframe-unwind/.*, $(uname -r), .*: installed"; then
		result ok "dkms status: built and installed for $(uname -r)"
	else
		dkms status
		result fail "dkms status: no sframe-unwind for $(uname -r)"
	fi
	case $(modinfo -n sframe_unwind 2> /dev/null) in
	*/updates/dkms/sframe_unwind.ko*)
		result ok "modinfo: the module is DKMS's" ;;
	*)	result fail "modinfo: no DKMS sframe_unwind for $(uname -r)" ;;
	esac
	if active_within 60; then
		result ok "systemctl is-active $SERVICE"
	else
		systemctl status $SERVICE
		result fail "$SERVICE is not active"
		return 1
	fi
	# The unit's ExecStartPost: sframectl load --vdso.
	if wait_for 10000 grep -q '^\[vdso\] build ID' /dev/sframe_unwind > /dev/null; then
		result ok "the service's start gave the vDSO its section"
	else
		journalctl -b -u $SERVICE -o cat | grep -F '[vdso]'
		result fail "no section for the vDSO in /dev/sframe_unwind"
	fi
}

# warm_started: the postinst started the warm-up (sframectl warm), which
# runs still or has ended well.
warm_started()
{
	unit=$SERVICE-warm
	began=$(systemctl show -p ExecMainStartTimestampMonotonic --value $unit)
	state=$(systemctl show -p ActiveState --value $unit)
	how=$(systemctl show -p Result --value $unit)
	if [ "${began:-0}" -gt 0 ] &&
	   { [ "$state" = activating ] || [ "$how" = success ]; }; then
		result ok "the postinst started $unit ($state, $how)"
	else
		systemctl status $unit
		result fail "$unit: started at ${began:-0}, $state, $how"
	fi
}

# warm_ended UNIT: UNIT is not running (any more).
warm_ended()
{
	[ "$(systemctl show -p ActiveState --value "$1")" != activating ]
}

# warm_done LIMIT_S: wait for the warm-up to end; its summary line and
# time as metrics.
warm_done()
{
	unit=$SERVICE-warm
	wait_for $(($1 * 1000)) warm_ended $unit > /dev/null
	line=$(journalctl -b -u $unit -o cat | sed -n 's/^sframectl warm: //p' | tail -1)
	metric warm_objects "${line%% *}"
	metric warm_made "$(echo "$line" | sed -n 's/.*: \([0-9]*\) sidecars made.*/\1/p')"
	metric warm_s "$(echo "$line" | sed -n 's/.*; \([0-9.]*\) s$/\1/p')"
	if [ "$(systemctl show -p Result --value $unit)" = success ] &&
	   [ -n "$line" ]; then
		result ok "the warm-up ended well: $line"
	else
		systemctl status $unit
		result fail "the warm-up did not end well within $1 s: ${line:-no summary}"
	fi
}

# purge: apt-get purge of both packages must leave no module, unit or
# cache behind.
purge()
{
	if apt-get purge -y sframectl sframe-unwind-dkms > /tmp/apt-purge.log 2>&1; then
		result ok "apt-get purge of the two packages"
	else
		result fail "apt-get purge of the two packages: exit $?"
	fi
	artefact apt-purge.log /tmp/apt-purge.log
	gone "the module" /lib/modules/"$(uname -r)"/updates/dkms/sframe_unwind.ko* \
		/var/lib/dkms/sframe-unwind /usr/src/sframe-unwind-*
	gone "the unit" /lib/systemd/system/$SERVICE.service \
		/etc/systemd/system/multi-user.target.wants/$SERVICE.service
	gone "the cache" /var/cache/sframe-unwind
	if modinfo sframe_unwind > /dev/null 2>&1; then
		result fail "modinfo still finds sframe_unwind"
	else
		result ok "modinfo finds no sframe_unwind"
	fi
	metric module_loaded_after_purge "$([ -d /sys/module/sframe_unwind ] && echo 1 || echo 0)"
}

install_phase()
{
	install_packages || return 1
	warm_started
	# Its entries before the cache's snapshot below.
	warm_done 900
	record_programs
	clients
	upgrade
	journalctl -b -u $SERVICE -o short-monotonic > /tmp/service.log
	artefact service.log /tmp/service.log
	sframe_state module
	# what the next boot must take from the cache
	served /tmp/service.log > $STATE/served
	cache_files > $STATE/cache
	metric cache_files "$(wc -l < $STATE/cache)"
}

reboot_phase()
{
	if active_within 120; then
		result ok "after the reboot: $SERVICE is active"
	else
		systemctl status $SERVICE
		result fail "after the reboot: $SERVICE is not active"
	fi
	record_programs
	sframe_state module
	systemctl stop $SERVICE
	journalctl -b -u $SERVICE -o short-monotonic > /tmp/service.log
	artefact service.log /tmp/service.log
	load_system
	at_start=$(generated "mapped at start")
	at_exit=$(generated "at exit")
	metric generated_at_start "$at_start"
	metric generated_after_reboot "$at_exit"
	# Objects first served in this boot (run before the service in the
	# last one) are generated once; none served then may be again.
	served /tmp/service.log > /tmp/served
	cache_files > /tmp/cache
	# The last boot's lists were taken before its end: what it served
	# later (its shutdown) is in the cache, older than this boot.
	first=$(comm -13 $STATE/served /tmp/served | tr '\n' ' ')
	again=$(comm -12 $STATE/served /tmp/served | wc -l)
	rewritten=$(comm -23 $STATE/cache /tmp/cache | wc -l)
	added=$(find /var/cache/sframe-unwind -type f \
		-newermt "@$(sed -n 's/^btime //p' /proc/stat)" | wc -l)
	metric served_again_after_reboot "$again"
	metric first_served_after_reboot "$first"
	metric cache_files_rewritten "$rewritten"
	metric cache_files_added "$added"
	if [ "$rewritten" = 0 ] && [ "$added" = "$at_exit" ] && [ "$again" -gt 0 ]; then
		result ok "after the reboot: $again objects served again, all from the cache; $at_exit generated, each a new cache file"
	else
		result fail "after the reboot: $at_exit generated, $added new cache files, $rewritten rewritten, $again served again"
	fi
	purge
}

mkdir -p $STATE
phase=$(cat $STATE/phase 2> /dev/null || echo "${PHASES%% *}")
channel "@@ BOOT $(uname -r)"
echo "vmtest: ==== begin $phase ===="
channel "@@ BEGIN $phase"
metric boot_to_test_s "$(cut -d. -f1 /proc/uptime)"
case $phase in
install|reboot|servers|throughput)
	"${phase}_phase"
	rc=$? ;;
*)	result fail "unknown phase $phase"
	rc=1 ;;
esac
# the next boot's: the phase after this one in PHASES, if any
next=$(echo " $PHASES " | sed -n "s/.* $phase \([^ ]*\) .*/\1/p")
echo "${next:-finished}" > $STATE/phase
echo "vmtest: ==== end $phase rc=$rc ===="
channel "@@ END $phase rc=$rc"
channel "@@ DONE"
sync
# QEMU runs with -no-reboot: either ends it, and the host boots again.
systemctl --no-block poweroff
