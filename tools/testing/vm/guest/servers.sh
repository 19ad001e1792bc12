#!/bin/sh
# systest guest, the servers' half: Debian's PostgreSQL, Redis and nginx
# under their stock clients, for the servers phase (each recorded by
# perf -a -g, the host judges the stacks) and the throughput phase (each
# client's rate under perf with perf's own walker, with the module while
# the service warms up, and with the module warm).  Sourced by systest.sh,
# and by the shell that perf record runs for a rate; defines functions
# and one setting alone.

# as_postgres COMMAND...: COMMAND as the postgres user (peer
# authentication on the cluster's socket).
AS_POSTGRES="setpriv --reuid=postgres --regid=postgres --init-groups --"
as_postgres()
{
	$AS_POSTGRES "$@"
}

# pg_setup: the stock cluster's database "bench" (pgbench's tables,
# scale 1) and a PL/pgSQL function that recurses: each backend that runs
# it dlopens plpgsql.so, as a connection's first PL/pgSQL call does.
pg_setup()
{
	if as_postgres createdb bench > /tmp/pg-setup.log 2>&1 &&
	   as_postgres pgbench -q -i -s 1 bench >> /tmp/pg-setup.log 2>&1 &&
	   as_postgres psql -q -d bench >> /tmp/pg-setup.log 2>&1 <<'SQL'
CREATE FUNCTION depth(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	IF n <= 0 THEN
		RETURN 0;
	END IF;
	RETURN depth(n - 1) + 1;
END $$;
SQL
	then
		result ok "PostgreSQL: pgbench's tables and a PL/pgSQL function"
	else
		cat /tmp/pg-setup.log
		result fail "PostgreSQL: setup failed"
		return 1
	fi
	# Each PL/pgSQL call is about 12 C frames: 6 calls deep, about 90 in
	# all, within the 127 that perf keeps.
	echo 'SELECT sum(depth(6)) FROM generate_series(1, 100);' > /tmp/depth.sql
	chmod 0644 /tmp/depth.sql
}

# redis_threads: the stock redis-server restarted with two I/O threads
# that also read.
redis_threads()
{
	printf 'io-threads 2\nio-threads-do-reads yes\n' >> /etc/redis/redis.conf
	if systemctl restart redis-server &&
	   wait_for 30000 redis-cli ping > /dev/null; then
		result ok "redis-server restarted with 2 I/O threads"
	else
		systemctl status redis-server
		result fail "redis-server did not come back with I/O threads"
		return 1
	fi
}

# load NAME: start NAME's stock client against its server, for longer
# than any recording; its pid in $busy_pid (the client's own: a simple
# command put in the background is the client, where a compound one
# would be a shell that a kill leaves it behind).
load()
{
	name=$1
	case $1 in
	pg-pooled)
		set -- $AS_POSTGRES pgbench -n -S -c 4 -j 1 -T 3600 bench ;;
	pg-connect)
		set -- $AS_POSTGRES pgbench -n -C -c 2 -j 1 -T 3600 \
			-f /tmp/depth.sql bench ;;
	redis)	set -- redis-benchmark -q -c 32 -n 1000000000 -t set,get -d 64 ;;
	# ab keeps a record of each request: 2 million, 100 MB.
	nginx)	set -- ab -q -n 2000000 -c 8 -H 'Accept-Encoding: gzip' \
			http://127.0.0.1/ ;;
	esac
	"$@" > /dev/null 2> "/tmp/$name.load.err" &
	busy_pid=$!
}

# under_load NAME COMMAND...: COMMAND once NAME's load (load) is at work,
# its client having had a second of CPU time, then the load stopped; a
# load that stopped before fails.
under_load()
{
	name=$1
	shift
	wait_for 60000 sh -c "! kill -0 $busy_pid 2> /dev/null ||
		[ \$(awk '{ print \$14 + \$15 }' /proc/$busy_pid/stat) -ge 100 ]" \
		> /dev/null
	"$@"
	if kill -0 "$busy_pid" 2> /dev/null; then
		stop "$busy_pid"
	else
		cat "/tmp/$name.load.err"
		result fail "$name: the client stopped before the recording ended"
	fi
}

# server NAME OBJECT: NAME's load, recorded by perf -a -g (NAME.perf,
# with the module's statistics before and after) once the server's
# OBJECT (a path) has its sidecar in use.
server()
{
	load "$1"
	if ms=$(wait_sidecar "$2" $SIDECAR_LIMIT_MS); then
		metric "$1_sidecar_ms" "$ms"
	else
		result fail "$1: no sidecar for $2 within $SIDECAR_LIMIT_MS ms"
	fi
	under_load "$1" perf_stats "$1"
}

# servers: make check's packaged system.  Stock PostgreSQL 15, Redis 7.0
# and nginx 1.22, running as their packages start them since boot, each
# under its stock client once the service has served what runs; the host
# judges each process.  First the control: pooled PostgreSQL recorded by
# perf's own walker, before the packages are installed
# (pg-pooled-stock.perf), which the same judge must find incomplete.
# The warm-up's end is not waited for (the full mode does): at idle
# priority, it takes what the servers leave.  Last, the purge.
servers_phase()
{
	pg_setup || return 1
	load pg-pooled
	under_load pg-pooled perf_all pg-pooled-stock
	install_packages || return 1
	warm_started
	began=$(uptime_ms)
	until_idle service_idle_s
	server pg-pooled /usr/lib/postgresql/15/bin/postgres
	server pg-connect /usr/lib/postgresql/15/lib/plpgsql.so
	# Debian's redis-server is a link to the one binary, redis-check-rdb.
	redis_threads && server redis "$(readlink -f /usr/bin/redis-server)"
	server nginx /usr/sbin/nginx
	sframe_state module
	purge
}

# redis_commands: the commands redis-server has processed since it
# started.
redis_commands()
{
	redis-cli info stats | sed -n 's/^total_commands_processed:\([0-9]*\).*/\1/p'
}

# rate NAME: run NAME's stock client against its server for
# THROUGHPUT_SECONDS; print what the client did a second (pgbench's
# transactions, ab's requests; redis-benchmark, which has no time limit,
# by the server's count of commands meanwhile), or nothing if the client
# failed, or answers were errors.
rate()
{
	case $1 in
	pg-pooled)
		as_postgres pgbench -n -S -c 4 -j 1 -T "$THROUGHPUT_SECONDS" \
			bench > /tmp/rate.out ;;
	pg-connect)
		as_postgres pgbench -n -C -c 2 -j 1 -T "$THROUGHPUT_SECONDS" \
			-f /tmp/depth.sql bench > /tmp/rate.out ;;
	redis)	redis-benchmark -q -c 32 -n 1000000000 -t set -d 64 > /dev/null 2>&1 &
		rate_pid=$!
		rate_from=$(redis_commands)
		sleep "$THROUGHPUT_SECONDS"
		rate_to=$(redis_commands)
		kill "$rate_pid"
		[ -n "$rate_from" ] && [ -n "$rate_to" ] &&
			echo $(((rate_to - rate_from) / THROUGHPUT_SECONDS)) ;;
	# -n after -t: ab's -t alone stops at 50,000 requests.
	nginx)	ab -q -t "$THROUGHPUT_SECONDS" -n 2000000 -c 8 \
			-H 'Accept-Encoding: gzip' http://127.0.0.1/ > /tmp/rate.out &&
		grep -Eq '^Failed requests: +0$' /tmp/rate.out &&
		! grep -q '^Non-2xx responses:' /tmp/rate.out &&
		sed -n 's/^Requests per second: *\([0-9.]*\) .*/\1/p' /tmp/rate.out ;;
	esac || return 1
	case $1 in
	pg-*)	sed -n 's/^tps = \([0-9.]*\) .*/\1/p' /tmp/rate.out ;;
	esac
}

# service_cpu_ms: the CPU time the service and its children have taken
# (its cgroup's usage_usec, in ms), or nothing when it is not running.
service_cpu_ms()
{
	sed -n 's/^usage_usec \([0-9]*\)$/\1/p' \
		"/sys/fs/cgroup/system.slice/$SERVICE.service/cpu.stat" \
		2> /dev/null | awk '{ print int($1 / 1000) }'
}

# kworker_ticks: "PID TICKS" for each of the kernel's worker threads
# alive now, TICKS its CPU time.  The module reads files and rescans maps
# there, beside the kernel's own work.  Only kworker lines are read,
# whose names hold no space.
kworker_ticks()
{
	cat /proc/[0-9]*/stat 2> /dev/null |
		awk '$2 ~ /^\(kworker\// { print $1, $14 + $15 }'
}

# kworker_cpu_ms FILE: the CPU time, in ms, the kernel's worker threads
# took since kworker_ticks wrote FILE: each one's since then, all of it
# for one started since.  A worker that exited meanwhile took its time
# with it.
kworker_cpu_ms()
{
	kworker_ticks | awk -v hz="$(getconf CLK_TCK)" -v before="$1" '
		FILENAME == before { had[$1] = $2; next }
		{ t += ($1 in had && $2 >= had[$1]) ? $2 - had[$1] : $2 }
		END { print int(t * 1000 / hz) }' "$1" -
}

# idle_ms: the time the guest's CPUs were idle or waiting for I/O, in ms.
idle_ms()
{
	awk -v hz="$(getconf CLK_TCK)" \
		'$1 == "cpu" { print int(($5 + $6) * 1000 / hz) }' /proc/stat
}

# profiled NAME HOW: NAME's rate while perf record -a -g samples every
# CPU THROUGHPUT_FREQ times a second (perf starts the client once its
# events are on), reported as the metric LOAD_HOW (LOAD: NAME with _ for
# -), with what perf wrote (LOAD_HOW_mb) and, with the module, the CPU
# time its walks took (LOAD_HOW_walk_ms).  HOW "none" or
# "module": the rate alone, without perf.  While the service runs, the
# CPU time it took meanwhile (LOAD_HOW_service_ms).  In every window, the
# kernel workers' CPU time (LOAD_HOW_kworker_ms) and the CPUs' idle time
# (LOAD_HOW_idle_ms).
profiled()
{
	what=$(echo "$1" | tr - _)_$2
	served=$(service_cpu_ms)
	kworker_ticks > /tmp/kworkers.before
	idled=$(idle_ms)
	if [ "$2" = none ] || [ "$2" = module ]; then
		per_s=$(rate "$1" 2> "/tmp/$what.err")
	else
		walked=$(stat_value walk_ns_total 2> /dev/null)
		per_s=$(perf record -N -B -a -g -e cpu-clock -F "$THROUGHPUT_FREQ" \
			-o /tmp/rate.data -- sh -c \
			'. /vmtest/lib.sh && . /vmtest/servers.sh && rate "$1"' \
			sh "$1" 2> "/tmp/$what.err")
		# [ perf record: Captured and wrote 9.877 MB /tmp/rate.data ]
		mb=$(sed -n 's/.* wrote \([0-9.]*\) MB .*/\1/p' "/tmp/$what.err")
		[ -n "$mb" ] && metric "${what}_mb" "$mb"
		[ -n "$walked" ] && metric "${what}_walk_ms" \
			$((($(stat_value walk_ns_total) - walked) / 1000000))
		rm -f /tmp/rate.data /tmp/rate.data.old
	fi
	[ -n "$served" ] && metric "${what}_service_ms" $(($(service_cpu_ms) - served))
	metric "${what}_kworker_ms" "$(kworker_cpu_ms /tmp/kworkers.before)"
	metric "${what}_idle_ms" $(($(idle_ms) - idled))
	if [ -n "$per_s" ]; then
		metric "$what" "$per_s"
	else
		cat "/tmp/$what.err"
		result fail "$1 ($2): no rate"
	fi
}

# stock_walker: perf's own walker: the service stopped, the module out.
stock_walker()
{
	systemctl stop $SERVICE
	modprobe -r sframe_unwind
	if [ -d /sys/module/sframe_unwind ]; then
		result fail "the module would not go"
		return 1
	fi
}

# module_in [empty]: the module in and the service started, on the cache
# it has, or with "empty" on an emptied one: then it translates every
# running server's objects again, a warm-up's worst case (the cache lost,
# nothing made ahead).
module_in()
{
	[ "${1:-}" = empty ] && find /var/cache/sframe-unwind -mindepth 1 -delete
	if ! modprobe sframe_unwind || ! systemctl start $SERVICE ||
	   ! active_within 60; then
		systemctl status $SERVICE
		result fail "the module and the service would not start again"
		return 1
	fi
}

# until_idle METRIC: wait until the service is idle; the seconds since
# $began as METRIC.
until_idle()
{
	if wait_for $((SERVED_LIMIT_S * 1000)) service_idle > /dev/null; then
		metric "$1" $((($(uptime_ms) - began) / 1000))
	else
		result fail "$1: the service still works after $SERVED_LIMIT_S s"
	fi
}

# throughput: each server's client without perf, then under perf, with
# perf's walker and with the module in turns (perf's walker, the module
# while the service warms up from an empty cache, the module once it is
# idle, without perf, then again once the service restarted on its cache,
# perf's walker again: the host compares the mean of each pair, at the
# same mean position).  Each server begins and ends without the module.
# The warm-up unit is stopped: the windows measure the service alone.
throughput_phase()
{
	install_packages || return 1
	systemctl stop $SERVICE-warm
	stock_walker || return 1
	pg_setup || return 1
	redis_threads || return 1
	for server_name in pg-pooled pg-connect redis nginx; do
		load_rates $server_name || return 1
	done
}

# load_rates NAME: NAME's windows (throughput), the module out before
# and after.
load_rates()
{
	what_s=$(echo "$1" | tr - _)
	profiled "$1" none
	profiled "$1" stock
	began=$(uptime_ms)
	module_in empty || return 1
	profiled "$1" warming
	until_idle "${what_s}_warm_up_s"
	profiled "$1" warm
	profiled "$1" module
	stock_walker || return 1
	began=$(uptime_ms)
	module_in || return 1
	until_idle "${what_s}_cached_s"
	profiled "$1" warm_2
	sframe_state "$what_s"
	stock_walker || return 1
	profiled "$1" stock_2
}
