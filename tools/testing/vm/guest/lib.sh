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

# record_pattern BINARY PATTERN: perf -g one workload pattern; send the
# expected stack and `perf script` output as PATTERN.expect / PATTERN.perf.
record_pattern()
{
	out=/tmp/$2
	if ! perf record -q -N -B -g -e cpu-clock -F "$PERF_FREQ" -o "$out.data" \
		-- "$1" "$2" "$PATTERN_SECONDS" > "$out.expect" 2> "$out.err"; then
		cat "$out.err"
		result fail "perf record $1 $2 failed"
		return 1
	fi
	perf script -i "$out.data" --no-inline -F comm,tid,ip,sym,dso \
		> "$out.perf" 2> "$out.err"
	artefact "$2.expect" "$out.expect"
	artefact "$2.perf" "$out.perf"
	rm -f "$out.data"
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

# stat_value NAME: one number from the module's stats file.
stat_value()
{
	sed -n "s/^$1: //p" /sys/kernel/debug/sframe_unwind/stats
}
