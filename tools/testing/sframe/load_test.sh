#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl load and unload without the module: fakedev.so stands in for
# /dev/sframe_unwind and logs what each ioctl is handed.  The object is
# opened once, its sidecar is made by a generator child (sframectl
# executed again, never load itself), and the descriptor handed over is
# that file even when
# another is renamed over its path right after the open; the build ID
# handed over is the file's (or, with --force, the one a mismatching
# sidecar was made for); the module's -ESTALE gets a message that says
# what it means; --system --dry-run still works; --fill hands over what
# an object's own section leaves out, and nothing when that is nothing.
# serve asks for what is mapped once and serves what that reports.
# status tells whether a service runs, and what serve published: as many
# sidecars covered as it handed the device, as many generated as its
# cache holds; a runtime directory others can write is not believed.  A
# restart takes the sidecars from the cache, each entry named by a
# digest of the object's bytes and checked: one cut short is made again.
# A file is read no further than its reported size and refused if it
# changed meanwhile; one changed in place with its times set back is
# digested again when mapped again; names are logged escaped; a second
# serve refused leaves the running one's cache alone; an inherited
# ignored SIGCHLD does not lose load its child.
#
# usage: load_test.sh SFRAMECTL FAKEDEV_SO
#
# SFRAMECTL must be a build without sanitizers: an ASan runtime linked
# into the program would take open() and ioctl() before the preload.

set -u
SFRAMECTL=$1
FAKEDEV=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/cache_entry.sh"

for tool in gcc readelf stat mkfifo timeout; do
	command -v $tool >/dev/null || { echo "Bail out! $tool not found"; exit 1; }
done

# Three objects: two builds of one program whose code differs (so their
# build IDs do), and one without a build ID.
printf 'int f(int x) { return x * %s; }\nint main(int c, char **v) { return f(c) + !v; }\n' 3 >"$TMP/a.c"
printf 'int f(int x) { return x * %s + 1; }\nint main(int c, char **v) { return f(c) + !v; }\n' 5 >"$TMP/b.c"
mkdir "$TMP/objs"
gcc -O1 -o "$TMP/objs/a" "$TMP/a.c" -Wl,--build-id=sha1 &&
	gcc -O1 -o "$TMP/objs/b" "$TMP/b.c" -Wl,--build-id=sha1 &&
	gcc -O1 -o "$TMP/objs/n" "$TMP/a.c" -Wl,--build-id=none ||
	{ echo "Bail out! cannot build the test objects"; exit 1; }
A=$TMP/objs/a B=$TMP/objs/b N=$TMP/objs/n

build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: *//p'; }
file_id() { stat -L -c %d:%i "$1"; }
ID_A=$(build_id "$A")
ID_B=$(build_id "$B")
[ -n "$ID_A" ] && [ -n "$ID_B" ] && [ "$ID_A" != "$ID_B" ] &&
	[ -z "$(build_id "$N")" ] || { echo "Bail out! unexpected build IDs"; exit 1; }

# fake ARGS...: sframectl ARGS with the stand-in device; log in $TMP/log.
fake() {
	rm -f "$TMP/log" "$TMP/data"
	LD_PRELOAD=$FAKEDEV FAKEDEV_LOG=$TMP/log FAKEDEV_DATA=$TMP/data \
		timeout 60 "$SFRAMECTL" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	touch "$TMP/log"
}

# parsed_here FILE...: those of the files whose every byte sframectl
# itself (not a generator child) handed libelf, by the stand-in's log.
parsed_here() {
	local f

	for f in "$@"; do
		grep -qx "libelf $(stat -c %s "$f")" "$TMP/log" && echo "$f"
	done
}

# 1. Generated: one open, the file's descriptor, its build ID, and the
# very section gen makes, made by one generator child (not by load, which
# is root's): load itself hands libelf nothing, the file's nor the
# child's.
"$SFRAMECTL" gen --raw -o "$TMP/a.raw" "$A" || echo "# gen --raw failed"
FAKEDEV_WATCH=$A fake load "$A"
[ $st = 0 ] && grep -q "^$A: loaded" "$TMP/out" &&
	[ "$(grep -c '^open ' "$TMP/log")" = 1 ] &&
	grep -q "^load $(file_id "$A") flags=1 .* build_id=$ID_A reserved=0$" "$TMP/log" &&
	cmp -s "$TMP/data" "$TMP/a.raw" &&
	[ "$(grep -c '^child ' "$TMP/log")" = 1 ] &&
	grep -qx "child translate whole" "$TMP/log" &&
	! grep -q '^libelf ' "$TMP/log"
ok $? "load ELF: one open, its descriptor, its build ID, gen's section, made by a generator child, no ELF parsed by load (exit $st)"

# 2. The file replaced right after sframectl opened it: everything it
# hands over is still the opened file's.
cp "$A" "$TMP/victim"
cp "$B" "$TMP/intruder"
before=$(file_id "$TMP/victim")
FAKEDEV_WATCH=$TMP/victim FAKEDEV_REPLACE=$TMP/intruder fake load "$TMP/victim"
cat "$TMP/err" >&2
[ $st = 0 ] && [ "$(build_id "$TMP/victim")" = "$ID_B" ] &&
	[ "$(grep -c '^open ' "$TMP/log")" = 1 ] &&
	grep -q "^load $before flags=1 .* build_id=$ID_A " "$TMP/log" &&
	cmp -s "$TMP/data" "$TMP/a.raw"
ok $? "replaced after open: the opened file's descriptor, build ID and section"

# 3. A sidecar file made by gen: the object opened once, its build ID.
"$SFRAMECTL" gen -o "$TMP/a.sframe" "$A" || echo "# gen failed"
FAKEDEV_WATCH=$A fake load "$A" "$TMP/a.sframe"
[ $st = 0 ] && [ "$(grep -c '^open ' "$TMP/log")" = 1 ] &&
	grep -q "^load $(file_id "$A") flags=1 .* build_id=$ID_A " "$TMP/log"
ok $? "load ELF SIDECAR: one open, the file's build ID (exit $st)"

# 4. The sidecar of another build: refused here, nothing handed over.
fake load "$B" "$TMP/a.sframe"
[ $st = 1 ] && grep -q "is not for $B: made for build ID $ID_A, the file has $ID_B" "$TMP/err" &&
	! grep -q '^load ' "$TMP/log"
ok $? "a sidecar for another build: refused by sframectl (exit $st)"

# 5. --force hands it over with the build ID it was made for; the
# module's -ESTALE is explained.
FAKEDEV_ERRNO=116 fake load --force "$B" "$TMP/a.sframe"
cat "$TMP/err" >&2
[ $st = 1 ] && grep -q "^load $(file_id "$B") flags=1 .* build_id=$ID_A " "$TMP/log" &&
	grep -q "$B: the module refused the sidecar: made for build ID $ID_A, which is not the file's" "$TMP/err"
ok $? "--force: the sidecar's build ID reaches the module; -ESTALE explained (exit $st)"

# 6. No build ID: none claimed.
fake load "$N"
[ $st = 0 ] && grep -q "^load $(file_id "$N") flags=0 .* build_id=- " "$TMP/log"
ok $? "an object without a build ID: flags 0, no ID (exit $st)"

# 7. A sidecar with a build ID for an object without one: refused.
fake load "$N" "$TMP/a.sframe"
[ $st = 1 ] && grep -q "the file has none" "$TMP/err" && ! grep -q '^load ' "$TMP/log"
ok $? "a build-ID sidecar for an object without one: refused (exit $st)"

# 8. unload: one open, that file's descriptor.
FAKEDEV_WATCH=$A fake unload "$A"
[ $st = 0 ] && [ "$(grep -c '^open ' "$TMP/log")" = 1 ] &&
	grep -q "^unload $(file_id "$A") flags=0$" "$TMP/log"
ok $? "unload: one open, that file's descriptor (exit $st)"

# 9. Not a regular file: refused at once, no blocking on a FIFO.
mkfifo "$TMP/fifo"
fake load "$TMP/fifo"
[ $st = 2 ] && grep -q "fifo: not a regular file" "$TMP/err"
ok $? "a FIFO at the path: refused without blocking (exit $st)"

# 9b. A PT_NOTE whose first bytes lie past the end of the file: the module
# refuses such an object whole, and load, which reads the object as the
# module does (not through libelf), refuses it too, before any child.
cp "$A" "$TMP/badnote"
python3 - "$TMP/badnote" <<'PY'
import os, struct, sys
path = sys.argv[1]
size = os.path.getsize(path)
with open(path, "r+b") as f:
    f.seek(0x20)
    phoff = struct.unpack("<Q", f.read(8))[0]
    f.seek(0x38)
    phnum = struct.unpack("<H", f.read(2))[0]
    for i in range(phnum):
        f.seek(phoff + 56 * i)
        if struct.unpack("<I", f.read(4))[0] == 4:	# PT_NOTE
            f.seek(phoff + 56 * i + 8)
            f.write(struct.pack("<Q", size - 8))
            break
PY
fake load "$TMP/badnote"
[ $st = 1 ] && grep -q "badnote: a PT_NOTE past the end of the file" "$TMP/err" &&
	! grep -q '^load \|^child ' "$TMP/log"
ok $? "load: an object whose PT_NOTE runs past its end refused as the module would, no child (exit $st)"

# 10. --system --dry-run: every object made, the device never opened, no
# object parsed but in the children (the vDSO, the kernel's, is).
fake load --system --dry-run "$TMP/objs"
cat "$TMP/out"
[ $st = 0 ] && grep -q "^3 ELF objects: 3 sidecars made, dry run" "$TMP/out" &&
	[ "$(grep -c '^child translate ' "$TMP/log")" = 3 ] &&
	! grep -v '^child \|^libelf ' "$TMP/log" &&
	[ -z "$(parsed_here "$TMP"/objs/*)" ]
ok $? "load --system --dry-run: 3 of 3 made, each by a child, no ioctl, no libelf in load (exit $st)"

# 11. --system: each object loaded through its own descriptor, and the
# vDSO's section without one.
fake load --system "$TMP/objs"
[ $st = 0 ] && [ "$(grep -c '^load ' "$TMP/log")" = 4 ] &&
	grep -q "^load ? flags=3 .* build_id=[0-9a-f]" "$TMP/log" &&
	grep -q "^load $(file_id "$A") flags=1 .* build_id=$ID_A " "$TMP/log" &&
	grep -q "^load $(file_id "$B") flags=1 .* build_id=$ID_B " "$TMP/log" &&
	grep -q "^load $(file_id "$N") flags=0 " "$TMP/log"
ok $? "load --system: three loads, each with its file's build ID, and the vDSO's (exit $st)"

# 12. status without a service: said, and the module's memory unknown
# here (no debugfs statistics without the module).
fake status --run-dir "$TMP/run"
[ $st = 0 ] && grep -qx "service: not running" "$TMP/out" &&
	grep -q "^kernel memory: unknown (/sys/kernel/debug/sframe_unwind/stats: " "$TMP/out"
ok $? "status, no service: 'not running' (exit $st)"

# 13. A service: it asks what is mapped (the stand-in reports $A and the
# libraries sframectl maps itself) and serves each through the
# descriptor its report carries, with one generator child, so most wait
# for it; once idle, status shows it, its PID, and counts that match
# what it did.
MAPPED=$A
for f in $(ldd "$SFRAMECTL" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	   xargs -n1 readlink -f | sort -u); do
	MAPPED=$MAPPED:$f
done
rm -f "$TMP/log"
LD_PRELOAD=$FAKEDEV FAKEDEV_LOG=$TMP/log FAKEDEV_MAPPED=$MAPPED "$SFRAMECTL" serve \
	--jobs 1 --cache "$TMP/cache" --run-dir "$TMP/run" >"$TMP/serve.out" 2>&1 &
serve=$!
for _ in $(seq 600); do
	grep -q "mapped at start" "$TMP/serve.out" && break
	kill -0 $serve 2>/dev/null || break
	sleep 0.1
done
# Its generator children may still run: until status says idle.
for _ in $(seq 600); do
	"$SFRAMECTL" status --run-dir "$TMP/run" 2>/dev/null |
		grep -Eq "^service: running, .*, idle$" && break
	sleep 0.1
done
loads=$(grep -c '^load ' "$TMP/log")
made=$(find "$TMP/cache" -name '*.sidecar' | wc -l)
failed=$(sed -n 's/.*, \([0-9]*\) failed, [0-9]* loaded by hand$/\1/p' "$TMP/serve.out")
unserved=
for f in ${MAPPED//:/ }; do
	grep -q "^load $(file_id "$f") " "$TMP/log" || unserved="$unserved $f"
done
[ "$(grep -c '^report-mapped ' "$TMP/log")" = 1 ] &&
	grep -qx 'report-mapped 0' "$TMP/log" && [ -z "$unserved" ] &&
	! grep -q '^libelf ' "$TMP/log" &&
	grep -q "^load $(file_id "$A") flags=5 " "$TMP/log"
swept=$?
[ $swept = 0 ] || cat "$TMP/log" >&2
fake status --run-dir "$TMP/run"
[ $st = 0 ] && grep -Eqx "service: running, pid $serve, up [0-9]+ s, idle" "$TMP/out" &&
	grep -qx "service: objects covered: $loads (generated $made, from the cache $((loads - made)))" "$TMP/out" &&
	grep -qx "service: pending: ? (read 0, queued in the module ?)" "$TMP/out" &&
	grep -Eqx "service: failed: $failed \(unreadable [0-9]+, cannot generate SFrame [0-9]+, cache not writable 0, not loaded 0, generator killed 0, generator over time 0, generator output invalid 0, queue full 0, owner's share full 0, changed after its report 0, too large 0\)" "$TMP/out"
r=$?
[ $r = 0 ] || cat "$TMP/serve.out" "$TMP/out" >&2
ok $r "status, serve running: its PID; $loads sidecars covered, $made generated (exit $st)"
ok $swept "serve --jobs 1 at start: one sweep asked for; each object it reported loaded through its descriptor; no ELF parsed but in the children"

# 14. A runtime directory others can write: what is in it is not believed.
chmod 0777 "$TMP/run"
fake status --run-dir "$TMP/run"
[ $st = 1 ] && grep -qx "service: unknown: $TMP/run: not root's, or writable by others" "$TMP/out"
ok $? "status, runtime directory writable by others: not believed (exit $st)"
chmod 0755 "$TMP/run"

# 15. The service ends: status says so at once, and its state is gone.
kill -TERM $serve
wait $serve
serve_st=$?
fake status --run-dir "$TMP/run"
[ $serve_st = 0 ] && [ $st = 0 ] && grep -qx "service: not running" "$TMP/out" &&
	[ ! -e "$TMP/run/status" ]
ok $? "status after SIGTERM: 'not running' (serve exit $serve_st, status exit $st)"

# 16. A restart with the same cache, the same objects reported: libc's
# entry, named by the SHA-256 of what it is made from (the format and
# generator versions, "no fill", the SHA-256 of libc's bytes), cut short
# meanwhile, is refused and made again; the others come from the cache.
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
entry=$(cache_entry "$LIBC" "$TMP/cache")
size=$(stat -c %s "$entry" 2>/dev/null || echo 0)
[ "$size" -gt 100 ] && truncate -s $((size - 1)) "$entry"
FAKEDEV_MAPPED=$MAPPED fake serve --once --cache "$TMP/cache" \
	--run-dir "$TMP/run"
[ $st = 0 ] && [ "$size" -gt 100 ] &&
	grep -q "$entry: cache entry refused: truncated; made again" "$TMP/err" &&
	[ "$(stat -c %s "$entry")" = "$size" ] &&
	grep -Eq "mapped at start: [0-9]+ sidecars generated, [1-9][0-9]* from the cache" "$TMP/out" &&
	grep -qx "$LIBC: loaded (.*, generated)" "$TMP/out" &&
	[ "$(grep -c ': loaded (.*, generated)$' "$TMP/out")" = 1 ] &&
	grep -q ': loaded (.*, from the cache)$' "$TMP/out"
r=$?
[ $r = 0 ] || cat "$TMP/out" "$TMP/err" >&2
ok $r "restart: libc's entry, by its bytes' SHA-256, cut short: refused and made again; the rest from the cache, as each line says"

# 17. --fill: a static program with SFrame of its own and a libc without:
# FILL (8) with the build ID, and only what its own section leaves out.
# A library whose own section covers all of its code: nothing to load.
printf 'int g(int x) { return x * 3; }\n' >"$TMP/g.c"
gcc -O1 -static -Wa,--gsframe -o "$TMP/st" "$TMP/a.c" -Wl,--build-id=sha1 &&
	gcc -O1 -shared -fPIC -nostartfiles -Wa,--gsframe -o "$TMP/g.so" "$TMP/g.c" ||
	{ echo "Bail out! cannot build the --fill test objects"; exit 1; }
"$SFRAMECTL" gen --fill --raw -o "$TMP/st.fill" "$TMP/st" || echo "# gen --fill failed"
fake load --fill "$TMP/st"
[ $st = 0 ] && grep -q "^load $(file_id "$TMP/st") flags=9 .* build_id=$(build_id "$TMP/st") " "$TMP/log" &&
	cmp -s "$TMP/data" "$TMP/st.fill"
ok $? "load --fill: FILL and the build ID, gen --fill's section (exit $st)"
fake load --fill "$TMP/g.so"
[ $st = 0 ] && grep -q "g.so: its own .sframe leaves nothing to fill" "$TMP/out" &&
	! grep -q '^load ' "$TMP/log"
ok $? "load --fill with nothing to fill: says so, no ioctl (exit $st)"

# 18. What is being mapped now comes first: a sweep finds sframectl's
# libraries, none cached, and $A is reported mapped after them.  With two
# children, swept files take one; $A has the other at once, and is
# loaded first or second, not after the libraries (8th of 9 first come,
# first served).  A busy machine may let the other child finish two more
# meanwhile: 4th at most.
rm -rf "$TMP/cache2"
mkdir "$TMP/cache2"
FAKEDEV_MAPPED=${MAPPED#*:} FAKEDEV_FRESH=$A fake serve --once \
	--jobs 2 --cache "$TMP/cache2" --run-dir "$TMP/run"
order=$(grep '^load ' "$TMP/log" | grep -n "^load $(file_id "$A") " | cut -d: -f1)
[ $st = 0 ] && [ -n "$order" ] && [ "$order" -le 4 ] &&
	[ "$(grep -c '^load ' "$TMP/log")" -ge 5 ]
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/err" >&2
ok $r "serve: a file mapped now is loaded before a sweep's backlog (load ${order:-none} of $(grep -c '^load ' "$TMP/log"))"

# 19. An owner's share: uid 1001 is reported mapping 20 files it may
# write (not root's, though root made them).  With two children it has
# one; 16 of its files wait, and the rest are dropped and counted.  Root's
# file reported after them starts at once on the other child: loaded 1st
# or 2nd, 18th without the share; under load the user's child may finish
# a few more meanwhile (6th seen with a VM sharing the cores): 9th at most.
mkdir -p "$TMP/u"
chmod go-w "$B"
USERS=
for i in $(seq 20); do
	cp "$A" "$TMP/u/$i" && chmod 775 "$TMP/u/$i"
	USERS=$USERS${USERS:+:}$TMP/u/$i
done
rm -rf "$TMP/cache3"
mkdir "$TMP/cache3"
FAKEDEV_FRESH=$USERS:$B FAKEDEV_OWNER=1001 fake serve --once --jobs 2 \
	--cache "$TMP/cache3" --run-dir "$TMP/run"
order=$(grep '^load ' "$TMP/log" | grep -n "^load $(file_id "$B") " | cut -d: -f1)
[ $st = 0 ] && [ "$(grep -c "files of uid 1001 waiting already; dropped" "$TMP/err")" = 3 ] &&
	[ "$(grep -c '^load ' "$TMP/log")" = 18 ] && [ -n "$order" ] && [ "$order" -le 9 ] &&
	grep -q ", 3 failed, " "$TMP/out"
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/out" "$TMP/err" >&2
ok $r "serve: one owner's 20 files: 17 served, 3 dropped for its share; root's file loaded ${order:-never}"

# 20. An owner's pace: uid 1001 is reported mapping 52 files whose
# sidecar is cached (test 19's), then root's $B.  Its credit supplies 4
# at once; 16 wait for credit, 32 are dropped; root's file is loaded
# next, the 5th, not after the user's 52 (21st without the pace).  On a
# busy machine the pace may give the user one or two more first: 8th at
# most.
for i in $(seq 21 52); do
	cp "$A" "$TMP/u/$i" && chmod 775 "$TMP/u/$i"
	USERS=$USERS:$TMP/u/$i
done
FAKEDEV_FRESH=$USERS:$B FAKEDEV_OWNER=1001 fake serve --once --jobs 2 \
	--cache "$TMP/cache3" --run-dir "$TMP/run"
order=$(grep '^load ' "$TMP/log" | grep -n "^load $(file_id "$B") " | cut -d: -f1)
[ $st = 0 ] && [ -n "$order" ] && [ "$order" -le 8 ] &&
	[ "$(grep -c "files of uid 1001 waiting already; dropped" "$TMP/err")" = 32 ] &&
	[ "$(grep -c '^load ' "$TMP/log")" = 21 ]
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/out" "$TMP/err" >&2
ok $r "serve: one owner's flood of cached files: 4 at once, root's next (load ${order:-never}), 16 at its pace, 32 dropped"

# 20b. A waiting file whose owner's credit comes due while the rest of
# its batch is served starts then, not when a later report happens to
# wake the service: mapped now, after the sweep, uid 1001's 5 files
# (cached: no child runs) and root's 300 MiB file, which the service
# reads and digests whole (longer than the 5th file's wait for credit).
truncate -s 300M "$TMP/big" && chmod 644 "$TMP/big"
rm -f "$TMP/log"
LD_PRELOAD=$FAKEDEV FAKEDEV_LOG=$TMP/log FAKEDEV_OWNER=1001 \
	FAKEDEV_AGAIN=$TMP/u/1:$TMP/u/2:$TMP/u/3:$TMP/u/4:$TMP/u/5:$TMP/big \
	"$SFRAMECTL" serve --jobs 2 --cache "$TMP/cache3" \
	--run-dir "$TMP/run" >"$TMP/serve.out" 2>&1 &
serve=$!
for _ in $(seq 600); do
	grep -q 'mapped at start' "$TMP/serve.out" && break
	sleep 0.1
done
kill -USR1 $serve
for _ in $(seq 300); do
	grep -q "^load $(file_id "$TMP/u/5") " "$TMP/log" && break
	sleep 0.1
done
grep -q "^load $(file_id "$TMP/u/5") " "$TMP/log"
r=$?
kill -TERM $serve
wait $serve
[ $r = 0 ] || cat "$TMP/log" "$TMP/serve.out" >&2
rm -f "$TMP/big"
ok $r "serve: a file whose credit came due while root's large file was read is served then, not left waiting"

# 23. A user's file over SERVE_OWNER_FILE_MAX (256 MiB; sparse here) is
# not read at all: refused by its size, counted; root's file is served.
cp "$A" "$TMP/u/big" && chmod 775 "$TMP/u/big" && truncate -s 300M "$TMP/u/big"
FAKEDEV_FRESH=$TMP/u/big:$B FAKEDEV_OWNER=1001 fake serve --once \
	--cache "$TMP/cache3" --run-dir "$TMP/run"
[ $st = 0 ] && grep -q "$TMP/u/big: 314572800 bytes, over the 268435456 a file of uid 1001 may have; not served" "$TMP/err" &&
	! grep -q "^load $(file_id "$TMP/u/big") " "$TMP/log" &&
	grep -q "^load $(file_id "$B") " "$TMP/log" && grep -q ", 1 failed, " "$TMP/out"
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/out" "$TMP/err" >&2
ok $r "serve: a user's 300 MiB file refused by its size, unread; root's served"

# 23b. Root's files are bounded too, by what the unit's MemoryMax= allows
# for (SERVE_FILE_MAX, 1 GiB): one of 1.1 GiB (sparse) is not read,
# counted as too large; root's other file is served.
cp "$A" "$TMP/huge" && chmod go-w "$TMP/huge" && truncate -s 1100M "$TMP/huge"
FAKEDEV_FRESH=$TMP/huge:$B fake serve --once --cache "$TMP/cache3" \
	--run-dir "$TMP/run"
[ $st = 0 ] && grep -q "$TMP/huge: 1153433600 bytes, over the 1073741824 the service reads of a file; not served" "$TMP/err" &&
	! grep -q "^load $(file_id "$TMP/huge") " "$TMP/log" &&
	grep -q "^load $(file_id "$B") " "$TMP/log" && grep -q ", 1 failed, " "$TMP/out"
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/out" "$TMP/err" >&2
rm -f "$TMP/huge"
ok $r "serve: root's 1.1 GiB file refused by its size, unread; root's other file served"

# 24. A file name is the user's to choose: one with a newline and a
# line after it is logged with the newline escaped (\012), so no log
# line comes from it but serve's own.
evil="$TMP/u/big
forged line"
cp "$A" "$evil" && chmod 775 "$evil" && truncate -s 300M "$evil"
FAKEDEV_FRESH=$evil FAKEDEV_OWNER=1001 fake serve --once \
	--cache "$TMP/cache3" --run-dir "$TMP/run"
[ $st = 0 ] &&
	grep -qF "$TMP/u/big\\012forged line: 314572800 bytes, over the" "$TMP/err" &&
	! grep -q "^forged line" "$TMP/err"
r=$?
[ $r = 0 ] || cat "$TMP/err" >&2
ok $r "serve: a file name with a newline is logged escaped, forging no line"

# 25. A user's file that grows between its report and its read (1 MiB
# more when serve seeks to its start): no more than its reported size is
# read, and it is refused as changed, counted, and looked for again by a
# sweep (its new self is another file); root's file is served.
cp "$A" "$TMP/u/grow" && chmod 775 "$TMP/u/grow"
FAKEDEV_FRESH=$TMP/u/grow:$B FAKEDEV_GROW=$TMP/u/grow FAKEDEV_OWNER=1001 \
	fake serve --once --cache "$TMP/cache3" --run-dir "$TMP/run"
[ $st = 0 ] && grep -qx "grew $TMP/u/grow" "$TMP/log" &&
	grep -q "$TMP/u/grow: changed after it was reported; not served" "$TMP/err" &&
	! grep -q "^load $(file_id "$TMP/u/grow") " "$TMP/log" &&
	[ "$(grep -c '^report-mapped ' "$TMP/log")" = 2 ] &&
	grep -q "^load $(file_id "$B") " "$TMP/log" && grep -q ", 1 failed, " "$TMP/out"
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/out" "$TMP/err" >&2
ok $r "serve: a user's file grown after its report: refused as changed, not read whole, swept again; root's served"

# 26. A file served, then changed in place to other unwind tables with
# its size, build ID and layout kept and its modification time set back,
# and mapped again: its sidecar is named by the bytes read now, so it is
# made again from them, never the first bytes' sidecar from the cache.
cp "$A" "$TMP/u/same" && cp -p "$TMP/u/same" "$TMP/u/same.time"
rm -rf "$TMP/cache4" && mkdir "$TMP/cache4"
rm -f "$TMP/log" "$TMP/data"
LD_PRELOAD=$FAKEDEV FAKEDEV_LOG=$TMP/log FAKEDEV_DATA=$TMP/data \
	FAKEDEV_MAPPED=$TMP/u/same FAKEDEV_AGAIN=$TMP/u/same "$SFRAMECTL" serve \
	--jobs 1 --cache "$TMP/cache4" --run-dir "$TMP/run" >"$TMP/serve.out" 2>&1 &
serve=$!
# loads_of FILE: how many sidecars were loaded for FILE so far.
loads_of() { grep -c "^load $(file_id "$1") " "$TMP/log" 2>/dev/null; }
for _ in $(seq 600); do
	[ "$(loads_of "$TMP/u/same")" = 1 ] && break
	sleep 0.1
done
cp "$TMP/data" "$TMP/same.first"
# The first FDE covers one byte less: other tables, the same file size.
python3 - "$TMP/u/same" <<'PY'
import struct, subprocess, sys
path = sys.argv[1]
out = subprocess.run(["readelf", "-SW", path], capture_output=True,
                     text=True, check=True).stdout
line = next(l for l in out.splitlines() if " .eh_frame " in l)
off = int(line.split(".eh_frame")[1].split()[2], 16)
with open(path, "r+b") as f:
    f.seek(off)
    cie = struct.unpack("<I", f.read(4))[0]
    fde = off + 4 + cie
    f.seek(fde + 12)
    size = struct.unpack("<I", f.read(4))[0]
    f.seek(fde + 12)
    f.write(struct.pack("<I", size - 1))
PY
touch -r "$TMP/u/same.time" "$TMP/u/same"
"$SFRAMECTL" gen --raw -o "$TMP/same.now" "$TMP/u/same" || echo "# gen failed"
kill -USR1 $serve
for _ in $(seq 600); do
	[ "$(loads_of "$TMP/u/same")" = 2 ] && break
	sleep 0.1
done
kill -TERM $serve
wait $serve
[ "$(loads_of "$TMP/u/same")" = 2 ] &&
	[ "$(stat -c %s:%Y "$TMP/u/same")" = "$(stat -c %s:%Y "$TMP/u/same.time")" ] &&
	! cmp -s "$TMP/same.first" "$TMP/same.now" && cmp -s "$TMP/data" "$TMP/same.now"
r=$?
[ $r = 0 ] || cat "$TMP/log" "$TMP/serve.out" >&2
ok $r "serve: a file changed in place, its times set back, mapped again: its sidecar made from the new bytes"

# 27. A user can make the module lose reports whenever he likes, and
# each loss asks for a sweep, which holds every process's mmap lock a
# moment: the stand-in answers every sweep with a loss, and in 3 s serve
# sweeps once at start and then at most once a second (SERVE_LOST_SWEEP_MS),
# not back to back.
rm -f "$TMP/log"
LD_PRELOAD=$FAKEDEV FAKEDEV_LOG=$TMP/log FAKEDEV_MAPPED=$A FAKEDEV_OVERFLOW=1 \
	timeout 3 "$SFRAMECTL" serve --cache "$TMP/cache4" --run-dir "$TMP/run" \
	>"$TMP/out" 2>"$TMP/err"
sweeps=$(grep -c '^report-mapped ' "$TMP/log")
[ "$sweeps" -ge 2 ] && [ "$sweeps" -le 5 ]
ok $? "serve: reports lost at every sweep: $sweeps sweeps in 3 s, one a second at most"

# 28. load --system --dry-run counts what it met: two objects with
# .eh_frame only (nosframe), one with SFrame of its own (v3), and a text
# file, which is not an object; and a directory that is not there.
FXW=$(cd "$(dirname "$0")/../workloads/x86_64" && pwd)
mkdir -p "$TMP/sys"
cp "$FXW/nosframe/deep" "$FXW/nosframe/libdeepso.so" "$TMP/sys/"
cp "$FXW/v3-binutils-2.47/deep" "$TMP/sys/deep-v3"
echo "not an object" >"$TMP/sys/README"
fake load --system --dry-run "$TMP/sys"
grep -q "^3 ELF objects: 2 sidecars made, dry run ([0-9]* FDEs, [0-9]* bytes), 1 have their own SFrame" "$TMP/out"
ok $(($? || st)) "load --system --dry-run: 2 made, 1 with its own SFrame (exit $st): $(head -1 "$TMP/out")"
fake load --system --dry-run "$TMP/does-not-exist"
ok $(($st != 1)) "load --system --dry-run on nothing: exit 1"

# 29. A second serve, started while one runs (the module lets one watch:
# EBUSY), leaves the cache alone: opening it removes what an unfinished
# write left, and the running service's write may be in flight.
mkdir -p "$TMP/cache5"
printf 'half' >"$TMP/cache5/.new-inflight"
FAKEDEV_ERRNO=16 fake serve --once --cache "$TMP/cache5" --run-dir "$TMP/run"
[ $st = 2 ] && grep -q "another sframectl serve is running" "$TMP/err" &&
	[ -f "$TMP/cache5/.new-inflight" ]
ok $? "a second serve is refused before it touches the cache: the running one's write stays (exit $st)"

# 30. Started with SIGCHLD ignored (inherited across exec, as from a
# daemon that runs it), load still reaps its generator child itself and
# gets its sidecar: the kernel must not reap the child first.
rm -f "$TMP/log"
LD_PRELOAD=$FAKEDEV FAKEDEV_LOG=$TMP/log \
	perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or exit 127' \
	"$SFRAMECTL" load "$A" >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st = 0 ] && grep -q "^$A: loaded" "$TMP/out"
ok $? "SIGCHLD ignored by whoever started load: the child's sidecar still made (exit $st): $(head -c 200 "$TMP/err")"

tap_done
