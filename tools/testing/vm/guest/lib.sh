# vmtest guest library, sourced by /init and every scenario script.
# Scenarios report with result/metric/artefact; the host reads the channel
# port (ttyS1; arm64: hvc0, settings' CHANNEL) where these land, the console
# (ttyS0, ttyAMA0) is for people and for the kernel's own messages.

CHANNEL=/dev/ttyS1
. /vmtest/settings

# channel LINE: send one protocol line to the host.
channel()
{
	echo "$*" >> "$CHANNEL"
}

# result ok|fail MESSAGE: report the scenario's verdict (may be repeated).
result()
{
	echo "RESULT: $*"
	channel "RESULT: $*"
}

# verdict PASSED FAILED TEST...: result ok PASSED if the command TEST
# succeeds, else result fail FAILED.
verdict()
{
	vd_passed=$1
	vd_failed=$2
	shift 2
	if "$@"; then
		result ok "$vd_passed"
	else
		result fail "$vd_failed"
	fi
}

# metric NAME VALUE: report a measurement.
metric()
{
	echo "METRIC: $1=$2"
	channel "METRIC: $1=$2"
}

# artefact NAME FILE: copy FILE to the host's results directory as NAME.
artefact()
{
	if [ ! -f "$2" ]; then
		result fail "artefact $1: $2 does not exist"
		return 1
	fi
	channel "@@ ARTEFACT $1"
	gzip -c "$2" | base64 >> "$CHANNEL"
	channel "@@ ARTEFACT-END $1"
}

# load_module NAME [PARAMS]: insmod /modules/NAME.ko or fail the scenario.
load_module()
{
	name=$1
	shift
	if [ ! -f "/modules/$name.ko" ]; then
		result fail "module $name.ko was not built"
		exit 1
	fi
	if ! insmod "/modules/$name.ko" "$@"; then
		result fail "insmod $name.ko failed"
		exit 1
	fi
}

# record_callgraph NAME fp|dwarf COMMAND...: perf record COMMAND's call
# graphs (fp: what -g asks for) on $SAMPLE_EVENT (cpu-clock unless the
# scenario sets it); send `perf script` output as NAME.perf.
# COMMAND's output stays in /tmp/NAME.out, perf.data's size in
# $recorded_bytes.
record_callgraph()
{
	name=$1
	how=$2
	shift 2
	if ! perf record -q -N -B --call-graph="$how" -e "${SAMPLE_EVENT:-cpu-clock}" -F "$PERF_FREQ" \
		-o "/tmp/$name.data" -- "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"; then
		cat "/tmp/$name.err"
		result fail "perf record ($how) $* failed"
		return 1
	fi
	recorded_bytes=$(wc -c < "/tmp/$name.data")
	perf_script "$name"
}

# perf_script NAME: send the samples of /tmp/NAME.data as NAME.perf
# (`perf script -F comm,tid,ip,sym,dso`), then remove perf.data.
perf_script()
{
	perf script -i "/tmp/$1.data" --no-inline -F comm,tid,ip,sym,dso \
		> "/tmp/$1.perf" 2> "/tmp/$1.err"
	artefact "$1.perf" "/tmp/$1.perf"
	rm -f "/tmp/$1.data"
}

# unload_module NAME: rmmod NAME if it is loaded (a scenario that failed
# before may have left it), or fail the scenario.
unload_module()
{
	if [ -d "/sys/module/$1" ] && ! rmmod "$1"; then
		result fail "rmmod $1 failed"
		exit 1
	fi
}

# record_pattern BINARY PATTERN [NAME]: perf -g one workload pattern; send
# the expected stack and `perf script` output as NAME.expect / NAME.perf
# (NAME: PATTERN unless given).
record_pattern()
{
	record_callgraph "${3:-$2}" fp "$1" "$2" "$PATTERN_SECONDS" &&
		artefact "${3:-$2}.expect" "/tmp/${3:-$2}.out"
}

# record_patterns BINARY: record every pattern of the deep workload.
record_patterns()
{
	if [ ! -x "$1" ]; then
		result fail "workload $1 is missing"
		return 1
	fi
	for p in $PATTERNS; do
		record_pattern "$1" "$p"
	done
}

# sframe_state NAME: send the module's debugfs views as NAME.stats,
# NAME.files and NAME.maps.
sframe_state()
{
	for v in stats files maps; do
		cat "/sys/kernel/debug/sframe_unwind/$v" > "/tmp/$1.$v"
		artefact "$1.$v" "/tmp/$1.$v"
	done
}

# sframe_done NAME: a scenario's end with the module loaded: keep its
# state as NAME (sframe_state), then unload it, which must succeed.
sframe_done()
{
	sframe_state "$1"
	rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
}

# load_kmods: insmod the kernel's own modules the scenario's kmods: header
# named (/kmodules/order, dependencies first; built-in ones are not
# there), or fail.
load_kmods()
{
	if [ ! -f /kmodules/order ]; then
		result fail "no stock kernel modules in the initramfs"
		exit 1
	fi
	while read -r m; do
		[ -d "/sys/module/$m" ] && continue
		if ! insmod "/kmodules/$m.ko"; then
			result fail "insmod $m.ko (the kernel's own) failed"
			exit 1
		fi
	done < /kmodules/order
}

# mount_scratch_ext2 DIR: a fresh ext2 file system on a RAM block device
# (brd's /dev/ram0, 4 MiB), mounted on DIR (kmods: brd ext4).
mount_scratch_ext2()
{
	load_kmods
	mkdir -p "$1"
	if ! mke2fs /dev/ram0 > /dev/null || ! mount -t ext2 /dev/ram0 "$1"; then
		result fail "no ext2 file system on /dev/ram0"
		exit 1
	fi
}

# stat_value NAME: one number from the module's stats file.
stat_value()
{
	sed -n "s/^$1: //p" /sys/kernel/debug/sframe_unwind/stats
}

# check_walk_time: results on the time the walks took since the module was
# loaded.  Under TCG a walk takes 10 to 20 us on average (a quiet host, a
# busy one), one of 120 SFrame frames well under a millisecond, and one
# that decoded a long FDE's FREs at each frame would take seconds.  The
# mean (walk_ns_total / samples) is held to WALK_MEAN_NS_BOUND, 50 times
# the busy host's average.  The longest walk (walk_ns_max) also counts the
# time the host kept the vCPU from running during it, tens of milliseconds
# on a busy host, so it is held only to WALK_MAX_NS_BOUND, which a walk
# that ran away exceeds.
WALK_MEAN_NS_BOUND=1000000
WALK_MAX_NS_BOUND=250000000
check_walk_time()
{
	cw_samples=$(stat_value samples)
	cw_total=$(stat_value walk_ns_total)
	cw_max=$(stat_value walk_ns_max)
	if [ -z "$cw_max" ] || [ -z "$cw_total" ] || [ "${cw_samples:-0}" -eq 0 ]; then
		result fail "stats: no walk measured (samples ${cw_samples:-missing})"
		return
	fi
	cw_mean=$((cw_total / cw_samples))
	metric walk_ns_mean "$cw_mean"
	metric walk_ns_max "$cw_max"
	verdict "mean walk $cw_mean ns over $cw_samples samples <= $WALK_MEAN_NS_BOUND ns" \
		"mean walk $cw_mean ns over $cw_samples samples > $WALK_MEAN_NS_BOUND ns" \
		[ "$cw_mean" -le $WALK_MEAN_NS_BOUND ]
	verdict "longest walk $cw_max ns <= $WALK_MAX_NS_BOUND ns" \
		"longest walk $cw_max ns > $WALK_MAX_NS_BOUND ns" \
		[ "$cw_max" -le $WALK_MAX_NS_BOUND ]
}

# expect_stat NAME VALUE: a result saying whether stat_value NAME is VALUE.
expect_stat()
{
	es_got=$(stat_value "$1")
	if [ "$es_got" = "$2" ]; then
		result ok "stats: $1: $es_got"
	else
		result fail "stats: $1: ${es_got:-missing}, want $2"
	fi
}

# uptime_ms: milliseconds since boot, in steps of 10 (/proc/uptime; the
# guest's busybox date has no %N).
uptime_ms()
{
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# wait_for LIMIT_MS COMMAND...: run COMMAND every 50 ms until it succeeds;
# print the milliseconds it took.  Returns 1 after LIMIT_MS without success.
wait_for()
{
	wo_limit=$1
	shift
	wo_start=$(uptime_ms)
	while :; do
		wo_now=$(uptime_ms)
		if "$@"; then
			echo $((wo_now - wo_start))
			return 0
		fi
		[ $((wo_now - wo_start)) -ge "$wo_limit" ] && return 1
		sleep 0.05
	done
}

# service_idle [SFRAMECTL]: sframectl status says the service has
# nothing to do, nothing running and nothing pending, in its hands or in
# the module's queue; if not, a second's pause (for wait_for, which polls
# more often than status is worth running).
service_idle()
{
	if "${1:-sframectl}" status > /tmp/status.txt 2> /dev/null &&
	   grep -Eq '^service: running, .*, idle$' /tmp/status.txt &&
	   grep -q '^service: pending: 0 ' /tmp/status.txt; then
		return 0
	fi
	sleep 1
	return 1
}

# maps_match REGEX: a range of the module's maps, prefixed with its
# process's pid ("PID  start-end ..."), matches REGEX.  maps is read under
# RCU only, so this cannot block on the module's locks.
maps_match()
{
	timeout 5 cat /sys/kernel/debug/sframe_unwind/maps |
		awk '/^pid / { pid = $2; next } { print pid $0 }' |
		grep -E "$1" > /dev/null
}

# wait_maps REGEX LIMIT_MS: wait_for maps_match REGEX.
wait_maps()
{
	wait_for "$2" maps_match "$1"
}

# no_loads: no file entry of the module is still being read (status
# "loading" in its files view).
no_loads()
{
	! grep -q ": loading, " /sys/kernel/debug/sframe_unwind/files
}

# wait_loads LIMIT_MS: wait_for no_loads.
wait_loads()
{
	wait_for "$1" no_loads
}

# wait_file PATH STATUS LIMIT_MS: wait_for the module's entry for PATH to
# say STATUS in its files view (e.g. "not in page cache").
wait_file()
{
	wait_for "$3" grep -q "^$1: $2, " /sys/kernel/debug/sframe_unwind/files
}

# wait_sidecars PID ROOT LIMIT_MS FILE...: wait until PID has a sidecar in
# use for each FILE, named by its path in a container whose root is ROOT
# (as 6.12 names it) or by ROOT/FILE (as 6.1 does); after LIMIT_MS
# without one, show the module's maps, set $missing to that FILE and
# return 1.
wait_sidecars()
{
	sc_pid=$1 sc_root=$2 sc_limit=$3
	shift 3
	for sc_file; do
		if ! wait_maps "^$sc_pid .* FDEs sidecar ($sc_root)?$sc_file\$" \
			"$sc_limit" > /dev/null; then
			cat /sys/kernel/debug/sframe_unwind/maps
			missing=$sc_file
			return 1
		fi
	done
}

# wait_section PATH LIMIT_MS: wait_maps for PATH's own SFrame section (a
# "vN M FDEs PATH" range).
wait_section()
{
	wait_maps " v[0-9]+ [0-9]+ FDEs $1\$" "$2"
}

# wait_sidecar PATH LIMIT_MS: wait_maps for a sidecar in use for PATH, or
# for a file of that name when PATH has no slash.
wait_sidecar()
{
	case $1 in
	*/*)	wait_maps " v[0-9]+ [0-9]+ FDEs sidecar $1\$" "$2" ;;
	*)	wait_maps " v[0-9]+ [0-9]+ FDEs sidecar (.*/)?$1\$" "$2" ;;
	esac
}

# wait_text FILE TEXT SECONDS: wait up to SECONDS for FILE to contain
# TEXT (a program's "ready"); returns 1 if it does not by then.
wait_text()
{
	wt_end=$(($(uptime_ms) + $3 * 1000))
	until grep -q -- "$2" "$1" 2> /dev/null; do
		[ "$(uptime_ms)" -ge $wt_end ] && return 1
		sleep 0.1
	done
	return 0
}

# wait_exit PID SECONDS: wait up to SECONDS for PID to end; returns 1 if
# it is still running then.  Its exit status is not collected.
wait_exit()
{
	we_end=$(($(uptime_ms) + $2 * 1000))
	while kill -0 "$1" 2> /dev/null; do
		[ "$(uptime_ms)" -ge $we_end ] && return 1
		sleep 0.05
	done
	return 0
}

# wait_exe PATH SECONDS: wait up to SECONDS for a process that runs PATH
# (exec done, its mappings made) and print its pid; returns 1 if none
# does by then.
wait_exe()
{
	wx_end=$(($(uptime_ms) + $2 * 1000))
	while :; do
		for wx_proc in /proc/[0-9]*; do
			if [ "$(readlink "$wx_proc/exe" 2> /dev/null)" = "$1" ]; then
				echo "${wx_proc#/proc/}"
				return 0
			fi
		done
		[ "$(uptime_ms)" -ge $wx_end ] && return 1
		sleep 0.05
	done
}

# settles VALUE SECONDS COMMAND...: wait up to SECONDS for what COMMAND
# prints to read VALUE; returns 1 if it does not by then.
settles()
{
	st_want=$1
	st_end=$(($(uptime_ms) + $2 * 1000))
	shift 2
	while [ "$("$@")" != "$st_want" ]; do
		[ "$(uptime_ms)" -ge $st_end ] && return 1
		sleep 0.2
	done
	return 0
}

# stat_settles NAME VALUE SECONDS: wait up to SECONDS for the stats line
# NAME to read VALUE (freeing may wait for RCU and the module's worker).
stat_settles()
{
	settles "$2" "$3" stat_value "$1"
}

# watch_hung_tasks SECONDS: report a task blocked uninterruptibly for more
# than SECONDS (the kernel's hung-task detector, which fails the run),
# until the scenario ends (init restores the kernel's timeout); fails the
# scenario when the kernel has no detector.
watch_hung_tasks()
{
	if [ ! -w /proc/sys/kernel/hung_task_timeout_secs ]; then
		result fail "the kernel has no hung-task detector (CONFIG_DETECT_HUNG_TASK)"
		return 1
	fi
	echo "$1" > /proc/sys/kernel/hung_task_timeout_secs
}

# abort_fuse: end every FUSE connection (fusectl, mounted on first use),
# which fails the READs a stalling server keeps.
abort_fuse()
{
	grep -q "^fusectl " /proc/mounts ||
		mount -t fusectl fusectl /sys/fs/fuse/connections
	for c in /sys/fs/fuse/connections/*/abort; do
		[ -e "$c" ] && echo 1 > "$c"
	done
}

# ext2_image IMAGE MB NAME...: an ext2 image of MB MiB in the file IMAGE
# holding, under each NAME, a copy of the project's SFrame program deep
# (mode 755); made through a loop device.  1, said why, if it cannot be
# made.
ext2_image()
{
	ei_image=$1
	ei_mb=$2
	shift 2
	mkdir -p /mnt/ext2-fill
	dd if=/dev/zero of="$ei_image" bs=1M count="$ei_mb" 2> /dev/null
	ei_loop=$(losetup -f)
	if ! losetup "$ei_loop" "$ei_image" || ! mke2fs "$ei_loop" > /dev/null ||
	   ! mount -t ext2 "$ei_loop" /mnt/ext2-fill; then
		result fail "no ext2 file system on a loop device over $ei_image"
		return 1
	fi
	for ei_name; do
		if ! cp /workloads/project/sframe/deep "/mnt/ext2-fill/$ei_name"; then
			result fail "$ei_image: no room for $ei_name"
			umount /mnt/ext2-fill
			losetup -d "$ei_loop"
			return 1
		fi
		chmod 755 "/mnt/ext2-fill/$ei_name"
	done
	umount /mnt/ext2-fill
	losetup -d "$ei_loop"
}

# stall_serve IMAGE DIR: serve the file IMAGE at DIR from a FUSE server
# (stallfs) that answers every READ until sent SIGUSR1 ($stallfs, its
# log in /tmp/stallfs.out), and set up $stall_loop, a read-only loop
# device over DIR's copy, as udisks does for a user.  1, said why, if not.
stall_serve()
{
	mkdir -p "$2"
	/workloads/project/stallfs -s "$2" "$1" > /tmp/stallfs.out 2>&1 &
	stallfs=$!
	if ! wait_text /tmp/stallfs.out "stallfs: ready" 5; then
		result fail "the FUSE server did not come up"
		return 1
	fi
	stall_loop=$(losetup -f)
	if ! losetup -r "$stall_loop" "$2/$(basename "$1")"; then
		result fail "no loop device over $2/$(basename "$1")"
		return 1
	fi
}

# stall_map FILE: FILE (on stall_serve's file system) has its inode looked
# up and its data dropped with the rest of the page cache, the server then
# stalls every READ, and uid 1000 maps FILE executable and holds it
# ($holder), which makes the module read it.
stall_map()
{
	ls -l "$1" > /dev/null
	sync
	echo 1 > /proc/sys/vm/drop_caches
	kill -USR1 "$stallfs"
	/workloads/project/runas 1000 /workloads/project/execmap hold "$1" \
		> /tmp/hold.out 2>&1 &
	holder=$!
	wait_text /tmp/hold.out holding 5 || result fail "uid 1000 could not map $1"
}

# serve NAME [SECONDS]: start `sframectl serve --cache $CACHE` ($serve_pid;
# run by $SERVE_AS, a command prefix, if set), its output in
# /tmp/NAME.log, and wait up to SECONDS (60) for its scan; returns 1, the
# scenario failed, the log shown and the service ended, when it does not
# end.
serve()
{
	mkdir -p /run			# for its runtime directory
	$SERVE_AS /workloads/project/sframectl serve --cache "$CACHE" \
		> "/tmp/$1.log" 2>&1 &
	serve_pid=$!
	wait_text "/tmp/$1.log" "mapped at start" "${2:-60}" && return 0
	kill -TERM "$serve_pid" 2> /dev/null
	wait "$serve_pid"
	cat "/tmp/$1.log"
	result fail "$1: the service did not finish its scan"
	return 1
}

# stop_serve NAME: end the service with SIGTERM, which it must exit 0 on;
# its log goes to the host as NAME.log.
stop_serve()
{
	kill -TERM "$serve_pid"
	if wait "$serve_pid"; then
		result ok "$1: the service ended on SIGTERM"
	else
		result fail "$1: the service exited $? on SIGTERM"
	fi
	cat "/tmp/$1.log"
	artefact "$1.log" "/tmp/$1.log"
}

# must CMD...: run CMD, which must succeed; show what it said.
must()
{
	if "$@" > /tmp/must.out 2>&1; then
		result ok "$*"
	else
		result fail "$*: exit $?"
	fi
	cat /tmp/must.out
}

# refused CODE TEXT CMD...: CMD must exit CODE, saying TEXT.
refused()
{
	rf_code=$1
	rf_text=$2
	shift 2
	"$@" > /tmp/must.out 2>&1
	rf_rc=$?
	cat /tmp/must.out
	if [ "$rf_rc" = "$rf_code" ] && grep -q -- "$rf_text" /tmp/must.out; then
		result ok "refused ($rf_text): $*"
	else
		result fail "$*: exit $rf_rc, want $rf_code and \"$rf_text\""
	fi
}
