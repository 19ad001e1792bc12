#!/bin/sh
# sframe-hostile-cache: a doctored copy of a library cannot poison the
# service's cache for the real one.  A root-owned copy of the nosframe
# build's libdeepso.so with every CFA rule of its .eh_frame moved and its
# build ID kept (doctor-ehframe) is mapped PROT_EXEC first, by an
# unprivileged user, with the service running on an empty cache, and gets
# a sidecar of its own.  The real library's users must still get theirs:
# the dlopen pattern's stacks >= 99 % complete, and its sidecar in use as
# fast as in a control run without the attack (a second, empty cache).
# The cache then holds an entry for each file, and the doctored copy's
# sidecar stays bound to the doctored copy.
# needs: module
# kernels: all
# default: debian-6.12
# timeout: 600
. /vmtest/lib.sh
SF=/workloads/project/sframectl
W=/workloads/nosframe/deep
SO=/workloads/nosframe/libdeepso.so
DOCTORED=/workloads/project/doctored/libdeepso.so
# A file first mapped must have its sidecar within this, generation
# included (TCG; the debug kernel is several times slower).
case $KERNEL in
debug)	LIMIT_MS=40000 ;;
*)	LIMIT_MS=20000 ;;
esac

# victim NAME: run the deep build's dlopen pattern until its program and
# the real libdeepso.so have sidecars; their milliseconds in $victim_ms,
# the program's pid in $victim.
victim()
{
	start=$(uptime_ms)
	$W dlopen 120 > /dev/null &
	victim=$!
	if wait_sidecar $W $LIMIT_MS > /dev/null &&
	   wait_sidecar $SO $LIMIT_MS > /dev/null; then
		victim_ms=$(($(uptime_ms) - start))
		metric "${1}_sidecars_ms" $victim_ms
		result ok "$1: $SO's sidecar in use after $victim_ms ms"
	else
		victim_ms=$LIMIT_MS
		$SF status
		result fail "$1: no sidecar for $SO within $LIMIT_MS ms"
	fi
}

load_module sframe_unwind
mkdir -p /run

# Control: no attack, an empty cache.
CACHE=/tmp/control-cache
serve control || { unload_module sframe_unwind; exit 1; }
victim control
control_ms=$victim_ms
kill $victim
wait $victim
stop_serve control
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"

# The attack: the doctored copy first, mapped by uid 1001.
load_module sframe_unwind
CACHE=/tmp/attack-cache
serve attack || { unload_module sframe_unwind; exit 1; }
/workloads/project/runas 1001 /workloads/project/execmap hold $DOCTORED \
	> /tmp/hold.out 2>&1 &
holder=$!
wait_text /tmp/hold.out "holding" 30 ||
	result fail "uid 1001 could not map $DOCTORED"
if wait_sidecar $DOCTORED $LIMIT_MS > /dev/null; then
	result ok "the doctored copy, mapped first by uid 1001, has a sidecar of its own"
else
	result fail "the doctored copy got no sidecar: the attack did not take place"
fi
victim attack
attack_ms=$victim_ms
if [ $attack_ms -le $((2 * control_ms + 3000)) ]; then
	result ok "attack: sidecar in use in $attack_ms ms (control $control_ms ms)"
else
	result fail "attack: sidecar in use in $attack_ms ms, control $control_ms ms"
fi
if wait_sidecar $DOCTORED 1 > /dev/null; then
	result ok "the doctored copy keeps its own sidecar"
else
	result fail "the doctored copy lost its sidecar"
fi
entries=$(ls $CACHE | grep -c '\.sidecar$')
metric cache_entries "$entries"
record_pattern $W dlopen
kill $victim $holder
wait $victim $holder
stop_serve attack
sframe_done attack
# Other scenarios of this boot start with empty caches of their own.
rm -rf /tmp/control-cache /tmp/attack-cache
