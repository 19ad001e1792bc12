#!/bin/sh
# sframe-build: a make -j2 storm of Debian's gcc, cc1, as and ld, served.
# A generated project of $FILES small C files, linked into one program per
# $PER_PROGRAM of them, is built with make -j2 three times under `perf
# record -a -g` started after `sframectl serve` (an empty cache of its
# own): build 1 while the service makes the toolchain's sidecars, builds 2
# and 3 with them cached and loaded (`make clean` between).  Debian's
# toolchain has .eh_frame only, so each sample's stack reaches its start
# only through a sidecar.  A poller of the module's maps notes when each
# file is first seen mapped and first seen with its sidecar: the latency
# from first mapping to sidecar in use, per build.  Then a build without
# the module: the stock walker's share.
# needs: module toolchain
# kernels: debian-6.12
# default: debian-6.12
# timeout: 600
. /vmtest/lib.sh
CACHE=/tmp/build-cache
SRC=/tmp/build-src
POLL=/tmp/build-maps.log
# Under TCG on the shared 2-core machine one file's gcc -O2 -c (driver,
# cc1, as) takes 1.5-2.5 s of a vCPU and a link 1-2 s: 32 files and 8
# links make a warm build of 25-30 s on two vCPUs (the cold one twice
# that), some 5000 samples at 100 Hz a CPU, hundreds of as and ld.  More
# files measure nothing new and cost each of the four builds as much.
FILES=32
PER_PROGRAM=4
FREQ=100
MAPS=/sys/kernel/debug/sframe_unwind/maps

# generate: the project: f$i.c each with a few functions for cc1 to
# optimise, m$p.c calling those of program p, and its Makefile.
generate()
{
	rm -rf $SRC
	mkdir -p $SRC
	progs=
	p=0
	while [ $((p * PER_PROGRAM)) -lt $FILES ]; do
		objs="m$p.o"
		calls=
		i=$((p * PER_PROGRAM))
		while [ $i -lt $(((p + 1) * PER_PROGRAM)) ] && [ $i -lt $FILES ]; do
			cat > $SRC/f$i.c <<-EOF
			static int mix$i(int x, int y)
			{
				int s = 0, k;

				for (k = 0; k < y; k++)
					s += (x ^ k) * $((i + 3)) + (s >> 3);
				return s;
			}

			int table$i[64];

			int f$i(int x)
			{
				int k, s = 0;

				for (k = 0; k < 64; k++)
					table$i[k] = mix$i(x + k, k % 7);
				for (k = 1; k < 64; k++)
					s += table$i[k] % (table$i[k - 1] | 1);
				switch (s & 7) {
				case 0: return s + $i;
				case 1: return s * 3;
				case 2: return mix$i(s, 3);
				case 3: return s - x;
				default: return s ^ x;
				}
			}
			EOF
			echo "int f$i(int x);" >> $SRC/m$p.c
			calls="$calls f$i(argc) +"
			objs="$objs f$i.o"
			i=$((i + 1))
		done
		printf 'int main(int argc, char **argv)\n{\n\treturn (%s 0) & 1;\n}\n' \
			"$calls" >> $SRC/m$p.c
		printf 'p%d: %s\n\t$(CC) -o $@ %s\n' $p "$objs" "$objs" >> $SRC/links.mk
		progs="$progs p$p"
		p=$((p + 1))
	done
	{
		echo "CC = gcc"
		echo "all:$progs"
		cat $SRC/links.mk
		printf '%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\n'
		printf 'clean:\n\trm -f *.o%s\n' "$progs"
	} > $SRC/Makefile
}

# poll_maps: until /tmp/build-stop exists, append "MS sidecar|none PATH"
# for each file the module's maps show mapped (once per range).  Shell
# built-ins only, but for sleep: the poller's own cost stays small.
poll_maps()
{
	while [ ! -e /tmp/build-stop ]; do
		read -r up _ < /proc/uptime
		now=$((${up%.*} * 1000 + 1${up#*.} * 10 - 1000))
		while read -r line; do
			case $line in
			*" sidecar /"*)	echo "$now sidecar /${line#* sidecar /}" ;;
			*" no SFrame /"*) echo "$now none /${line#* no SFrame /}" ;;
			esac
		done < $MAPS >> $POLL
		sleep 0.2
	done
}

# build NAME: make -j2 under perf record -a -g; sends NAME.perf, and as
# metrics the milliseconds since boot at which perf started (NAME_record_ms:
# the first mappings of the build's window are perf's), make started and
# ended (NAME_start_ms, NAME_end_ms).
build()
{
	(cd $SRC && make -s clean > /dev/null)
	metric "$1_record_ms" "$(uptime_ms)"
	perf record -a -g -e cpu-clock -F $FREQ -o "/tmp/$1.data" \
		> "/tmp/$1.record" 2>&1 &
	rec=$!
	sleep 2
	start=$(uptime_ms)
	if (cd $SRC && make -j2 > "/tmp/$1.make" 2>&1); then
		result ok "$1: make -j2 of $FILES files built"
	else
		cat "/tmp/$1.make"
		result fail "$1: make -j2 failed"
	fi
	end=$(uptime_ms)
	kill -INT $rec
	wait $rec
	metric "$1_start_ms" "$start"
	metric "$1_end_ms" "$end"
	metric "$1_seconds" "$(((end - start) / 1000))"
	perf_script "$1"
}

generate
load_module sframe_unwind
rm -rf $CACHE
serve build || { unload_module sframe_unwind; exit 1; }
rm -f /tmp/build-stop $POLL
poll_maps &
poller=$!
build build1
build build2
build build3
touch /tmp/build-stop
wait $poller
artefact build-maps.log $POLL
metric build_files "$FILES"
metric build_programs $(((FILES + PER_PROGRAM - 1) / PER_PROGRAM))
sframe_state build
stop_serve build
rmmod sframe_unwind || result fail "rmmod sframe_unwind failed"
build stock
