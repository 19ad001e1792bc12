#!/bin/sh
# bench-service: how fast sframectl serve supplies sidecars, and what it
# costs.  For N new files of each kind (copies of the nosframe deep
# program, 17 KB, and of libc, 2 MB, each under a build ID of its own),
# the time from the file's first executable mapping to its sidecar in use:
# median and worst, cold (generated) and, after a reboot's worth of
# forgetting (service stopped, module reloaded, service started again),
# from the on-disk cache.  Then the service's CPU time (utime + stime) and
# memory (VmRSS, VmHWM) at steady state and over a burst of new files
# mapped at once, which stands in for an upgrade of many packages.
# needs: module
# kernels: debian-6.12
# default: none
# timeout: 900
. /vmtest/lib.sh
P=/workloads/project
SF=$P/sframectl
CACHE=/tmp/bench-cache
D=/tmp/bench
N=20			# files of each kind per round
BURST=20		# files of each kind in the burst
LIMIT_MS=120000		# a sidecar later than this fails the run
STEADY_SECONDS=10
DEEP=/workloads/nosframe/deep
LIBC=/lib/x86_64-linux-gnu/libc.so.6
DEEP_ID=$(cat $P/bench/deep.id-offset)
LIBC_ID=$(cat $P/bench/libc.id-offset)

# octal N: N as a printf octal escape.
octal()
{
	printf '\\%03o' "$1"
}

# copy SRC ID_OFFSET TAG I DEST: SRC under a build ID of its own, whose
# first four bytes are 0xbe, TAG and I (16 bits).
copy()
{
	cp "$1" "$5"
	[ "$(dd if="$5" bs=1 skip=$(($2 - 4)) count=3 2> /dev/null)" = GNU ] ||
		give_up "$1: no build ID note at offset $2"
	# shellcheck disable=SC2059	# the format is the bytes
	printf "$(octal 190)$(octal "$3")$(octal $(($4 / 256)))$(octal $(($4 % 256)))" |
		dd of="$5" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

# make_files NAME TAG COUNT: COUNT copies of each kind, $D/NAME-deep-I and
# $D/NAME-libc-I.
make_files()
{
	i=1
	while [ $i -le "$3" ]; do
		copy $DEEP "$DEEP_ID" "$2" $i "$D/$1-deep-$i"
		copy $LIBC "$LIBC_ID" "$2" $i "$D/$1-libc-$i"
		i=$((i + 1))
	done
}

# give_up WHY: fail, show what the service and the module say, and leave
# the module unloaded for the next scenario.
give_up()
{
	result fail "$1"
	cat /tmp/cold.log /tmp/cached.log 2> /dev/null
	$SF status
	grep -E "^(events|sidecars)_" /sys/kernel/debug/sframe_unwind/stats
	# shellcheck disable=SC2086	# a list of PIDs
	kill $holds $sampler $serve_pid 2> /dev/null
	wait
	rmmod sframe_unwind
	exit 1
}

# hold FILE: map FILE executable in a process that keeps it.
hold()
{
	$P/execmap hold "$1" > /dev/null &
	holds="$holds $!"
}

# release: end the holds (only them: the service runs on).
release()
{
	# shellcheck disable=SC2086	# a list of PIDs
	kill $holds 2> /dev/null
	# shellcheck disable=SC2086
	wait $holds
	holds=
}

# in_use FILE SINCE: print the ms from uptime SINCE until FILE's sidecar
# is in use; fail the run if it never is.
in_use()
{
	wait_sidecar "$1" $LIMIT_MS > /dev/null ||
		give_up "$1: no sidecar within $LIMIT_MS ms" >&2
	echo $(($(uptime_ms) - $2))
}

# figures NAME FILE: the median and worst of FILE's times as metrics.
figures()
{
	sort -n "$2" > "$2.sorted"
	metric "${1}_median_ms" "$(awk '{ v[NR] = $1 } END {
		printf "%d\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$2.sorted")"
	metric "${1}_worst_ms" "$(tail -n 1 "$2.sorted")"
}

# round FILES METRIC: map each of the files FILES made in turn, timing
# each; report the figures as METRIC_deep_* and METRIC_libc_*.
round()
{
	for kind in deep libc; do
		: > "/tmp/$1-$kind.ms"
		i=1
		while [ $i -le $N ]; do
			t0=$(uptime_ms)
			hold "$D/$1-$kind-$i"
			in_use "$D/$1-$kind-$i" "$t0" >> "/tmp/$1-$kind.ms"
			i=$((i + 1))
		done
		figures "${2}_$kind" "/tmp/$1-$kind.ms"
	done
	release
}

# cpu_ms: the service's CPU time so far (utime + stime, at USER_HZ 100).
cpu_ms()
{
	awk '{ print ($14 + $15) * 10 }' /proc/$serve_pid/stat
}

# memory_kb FIELD: VmRSS or VmHWM of the service.
memory_kb()
{
	awk -v field="$1:" '$1 == field { print $2 }' /proc/$serve_pid/status
}

# covered: status's "objects covered" line, after its label.
covered()
{
	$SF status | sed -n 's/^service: objects covered: //p'
}

sampler=
load_module sframe_unwind
mkdir -p /run $D
rm -rf $CACHE
make_files cold 1 $N
make_files burst 2 $BURST

serve cold 120 || give_up "cold: the service did not finish its scan"
# execmap is new to the service too: out of the way first.
hold $P/sframe/true
in_use execmap "$(uptime_ms)" > /dev/null
release
round cold cold
echo "cold: covered $(covered)"

# A reboot's worth of forgetting: the cache alone remembers.
stop_serve cold
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
load_module sframe_unwind
serve cached 120 || give_up "cached: the service did not finish its scan"
round cold cached
case $(covered) in
*"(generated 0, from the cache"*)
	result ok "second round: nothing generated, $(covered)" ;;
*)	result fail "second round: $(covered); want nothing generated" ;;
esac

# Steady state: nothing new is mapped.
sleep 1
c0=$(cpu_ms)
sleep $STEADY_SECONDS
metric steady_cpu_ms_per_minute $((($(cpu_ms) - c0) * 60 / STEADY_SECONDS))
metric steady_rss_kb "$(memory_kb VmRSS)"
metric steady_hwm_kb "$(memory_kb VmHWM)"

# The burst: every file of it mapped at once.
c0=$(cpu_ms)
while :; do
	memory_kb VmRSS
	sleep 0.1
done > /tmp/burst-rss &
sampler=$!
t0=$(uptime_ms)
for f in "$D"/burst-*; do
	hold "$f"
done
: > /tmp/burst.ms
for f in "$D"/burst-*; do
	in_use "$f" "$t0" >> /tmp/burst.ms
done
burst_cpu=$(($(cpu_ms) - c0))
kill $sampler
wait $sampler
metric burst_files "$(wc -l < /tmp/burst.ms)"
figures burst /tmp/burst.ms
metric burst_cpu_ms "$burst_cpu"
metric burst_rss_max_kb "$(sort -n /tmp/burst-rss | tail -n 1)"
metric burst_hwm_kb "$(memory_kb VmHWM)"
release
sleep 1
metric after_burst_rss_kb "$(memory_kb VmRSS)"
echo "burst: covered $(covered)"
result ok "every file's sidecar came into use"

stop_serve cached
rm -rf $D $CACHE
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
