#!/bin/sh
# sframe-service-memory: what the sidecar service holds while users map
# more large files than it has children.  uids 1001 and 1002 (two, so
# that both children work: one user's files take one at most) each map
# PER_USER distinct libraries of FUNCS functions listed in reverse order
# (costly-ehframe: seconds of a child's work each), each grown to SIZE_MB
# MiB; the service runs in a cgroup of its own, whose memory that
# reclaim cannot take (anon and shmem in memory.stat: the sealed memory
# files holding what it read, and the children's work) is sampled while
# it serves them.  It reads a file only when a child is free for it and
# holds it until the child ends, at most --jobs + 1 files at once, which
# is what the unit's MemoryHigh= and MemoryMax= are sized on: the peak
# stays under (JOBS + 1) files plus SLACK_MB, less than holding every
# mapped file would take, and every file is served.
# needs: module
# kernels: debian-6.1 debian-6.12
# default: debian-6.1
# timeout: 600
. /vmtest/lib.sh
SF=/workloads/project/sframectl
COSTLY=/workloads/project/costly-ehframe
RUNAS=/workloads/project/runas
CACHE=/tmp/memory-cache
DIR=/tmp/memory
CG=/sys/fs/cgroup
GROUP=$CG/sframe-service
USERS="1001 1002"
PER_USER=3
FILES=6			# PER_USER for each of USERS
SIZE_MB=160
FUNCS=50000
SLACK_MB=96		# the children's work and the service's own: 33 MiB measured
JOBS=2			# serve's default --jobs

# unreclaimable_kb: the service's cgroup's anon and shmem, in KiB.
unreclaimable_kb()
{
	awk '$1 == "anon" || $1 == "shmem" { s += $2 } END { printf "%d\n", s / 1024 }' \
		$GROUP/memory.stat
}

# sample_peak: until $DIR/stop exists, keep the highest unreclaimable_kb
# in $DIR/peak, sampled every 0.1 s (a file is held for seconds: its read,
# digest and child).
sample_peak()
{
	sp_peak=0
	until [ -e $DIR/stop ]; do
		sp_now=$(unreclaimable_kb)
		if [ "$sp_now" -gt "$sp_peak" ]; then
			sp_peak=$sp_now
			echo "$sp_peak" > $DIR/peak
		fi
		sleep 0.1
	done
}

# loaded: how many of the files the service's log says it loaded.
loaded()
{
	grep -Eo "^$DIR/u[0-9]+/big[0-9]+: loaded" /tmp/memory.log | sort -u | wc -l
}

# all_loaded: every file loaded; if not, a second's pause.
all_loaded()
{
	[ "$(loaded)" -ge $FILES ] || { sleep 1; return 1; }
}

grep -q "^[^ ]* $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG ||
	{ result fail "cannot mount cgroup2 on $CG"; exit 1; }
echo +memory > $CG/cgroup.subtree_control ||
	{ result fail "no memory controller in $CG"; exit 1; }
mkdir -p $GROUP
for u in $USERS; do
	mkdir -p "$DIR/u$u"
	chown "$u" "$DIR/u$u"
done

load_module sframe_unwind
# The service and its children in the group; this shell leaves it again.
echo $$ > $GROUP/cgroup.procs
if ! serve memory; then
	echo $$ > $CG/cgroup.procs
	unload_module sframe_unwind
	exit 1
fi
echo $$ > $CG/cgroup.procs
verdict "the service runs in $GROUP" "the service is not in $GROUP" \
	grep -qx "${serve_pid:-none}" $GROUP/cgroup.procs
# What it holds with nothing to do, once the files mapped at its start
# are served.
wait_for 120000 service_idle $SF > /dev/null ||
	result fail "the service did not become idle after its start"
base_kb=$(unreclaimable_kb)
metric base_kb "$base_kb"

# Each file its user's own, distinct (its own number of functions, a line
# of its own at the end), its growth sparse: read back as zeros.
for u in $USERS; do
	i=1
	while [ $i -le $PER_USER ]; do
		f=$DIR/u$u/big$i
		$RUNAS "$u" sh -c "$COSTLY write $f $((FUNCS + i)) > /dev/null &&
			dd if=/dev/zero of=$f bs=1M count=0 seek=$SIZE_MB 2> /dev/null &&
			echo $u.$i >> $f && chmod 755 $f" ||
			result fail "uid $u could not write $f"
		i=$((i + 1))
	done
done

rm -f $DIR/stop $DIR/peak
sample_peak &
sampler=$!
mappers=
for u in $USERS; do
	for f in "$DIR/u$u"/big*; do
		$RUNAS "$u" $COSTLY map "$f" 600 > "$f.out" 2>&1 &
		mappers="$mappers $!"
	done
done
if served_ms=$(wait_for 300000 all_loaded); then
	result ok "the service translated and loaded each of the $FILES files in $served_ms ms"
else
	result fail "the service loaded $(loaded) of the $FILES files in 300 s"
fi
wait_for 60000 service_idle $SF > /dev/null ||
	result fail "the service did not become idle"
touch $DIR/stop
wait $sampler
peak_kb=$(cat $DIR/peak 2> /dev/null || echo 0)
grep "$DIR/u" /tmp/memory.log
metric peak_kb "$peak_kb"
metric cgroup_peak_kb $(($(cat $GROUP/memory.peak 2> /dev/null || echo 0) / 1024))
metric files "$FILES"
metric file_mb "$SIZE_MB"

bound_kb=$(((JOBS + 1) * SIZE_MB * 1024 + SLACK_MB * 1024))
all_kb=$((FILES * SIZE_MB * 1024))
verdict "peak $peak_kb KiB held, within $((JOBS + 1)) files and $SLACK_MB MiB ($bound_kb KiB)" \
	"peak $peak_kb KiB held, over $((JOBS + 1)) files and $SLACK_MB MiB ($bound_kb KiB)" \
	[ "$peak_kb" -le "$bound_kb" ]
verdict "the bound is below holding every file ($all_kb KiB)" \
	"the scenario's files ($all_kb KiB) do not exceed the bound" \
	[ "$bound_kb" -lt "$all_kb" ]
verdict "the peak was measured while files were held (above $base_kb KiB by half a file or more)" \
	"peak $peak_kb KiB: not half a file above the service's $base_kb KiB; the sampling missed the reads" \
	[ "$peak_kb" -ge $((base_kb + SIZE_MB * 512)) ]

# shellcheck disable=SC2086 # the mappers' pids, one word each
kill $mappers
# shellcheck disable=SC2086
wait $mappers
stop_serve memory
rmdir $GROUP || result fail "$GROUP still holds a process"
rm -rf $DIR $CACHE
sframe_done memory
