# vmtest guest library, sourced by /init and every scenario script.
# Scenarios report with result/metric/artefact; the host reads the channel
# port (ttyS1) where these land, the console (ttyS0) is for people and for
# the kernel's own messages.

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
# graphs (fp: what -g asks for); send `perf script` output as NAME.perf.
# COMMAND's output stays in /tmp/NAME.out, perf.data's size in
# $recorded_bytes.
record_callgraph()
{
	name=$1
	how=$2
	shift 2
	if ! perf record -q -N -B --call-graph="$how" -e cpu-clock -F "$PERF_FREQ" \
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

# uptime_ms: milliseconds since boot, in steps of 10 (/proc/uptime; the
# guest's busybox date has no %N).
uptime_ms()
{
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
