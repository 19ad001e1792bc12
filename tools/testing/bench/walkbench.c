// SPDX-License-Identifier: GPL-2.0
/*
 * walkbench: drive sframe_unwind's debugfs "bench" from a known stack.
 * Built with frame pointers *and* SFrame, so both walkers can walk it.
 * It descends DEPTH frames of descend(), then writes "WALKS DEPTH" to the
 * bench file with a raw syscall (so the interrupted frame is descend(),
 * not libc's write(), which has neither), and prints what it reads back.
 *
 * With "wide", each frame holds a 128-byte local array, as frames of real
 * code hold locals and spilled registers; without, each is 16 bytes.
 *
 * The module loads a new program's section after its mappings appear, so
 * until then the SFrame walker falls back to frame pointers: one-walk
 * probes run first, until every frame is stepped by an SFrame rule.
 *
 * usage: walkbench WALKS DEPTH [narrow|wide] [BENCH_FILE]
 * build: -O2 -fno-inline -fno-optimize-sibling-calls -fno-omit-frame-pointer
 *        -Wa,--gsframe
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>

#define BENCH_FILE	"/sys/kernel/debug/sframe_unwind/bench"
#define PROBES		200	/* 10 s of 50 ms waits for the section */

#if defined(__x86_64__)
static long raw_write(int fd, const void *buf, unsigned long len)
{
	long ret;

	asm volatile("syscall"
		     : "=a" (ret)
		     : "0" ((long)SYS_write), "D" ((long)fd), "S" (buf),
		       "d" (len)
		     : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static long raw_write(int fd, const void *buf, unsigned long len)
{
	register long x8 asm("x8") = SYS_write;
	register long x0 asm("x0") = fd;
	register long x1 asm("x1") = (long)buf;
	register long x2 asm("x2") = (long)len;

	asm volatile("svc #0"
		     : "+r" (x0)
		     : "r" (x8), "r" (x1), "r" (x2)
		     : "memory");
	return x0;
}
#else
#error "walkbench: no raw write for this machine"
#endif

/*
 * One real frame per level: built with -fno-inline and
 * -fno-optimize-sibling-calls.
 */
static long descend(int level, int fd, const char *cmd)
{
	long ret;

	if (!level)
		return raw_write(fd, cmd, strlen(cmd));
	ret = descend(level - 1, fd, cmd);
	asm volatile("" : "+r" (ret));
	return ret;
}

/* The same, with 128 bytes of locals in each frame. */
static long descend_wide(int level, int fd, const char *cmd)
{
	char locals[128];
	long ret;

	/* The array's address escapes: it must be in the frame. */
	locals[0] = (char)level;
	asm volatile("" : : "r" (locals) : "memory");
	if (!level)
		return raw_write(fd, cmd, strlen(cmd));
	ret = descend_wide(level - 1, fd, cmd);
	asm volatile("" : "+r" (ret));
	return ret + locals[0];
}

/* Run "WALKS DEPTH" from DEPTH frames down; the result in @result. */
static int bench(int fd, long (*walk_from)(int, int, const char *),
		 const char *walks, int depth, char *result, size_t size)
{
	char cmd[64];
	ssize_t n;

	snprintf(cmd, sizeof(cmd), "%s %d", walks, depth);
	/* depth frames of walk_from() above the interrupted one */
	if (walk_from(depth, fd, cmd) < 0) {
		fprintf(stderr, "walkbench: write \"%s\" failed\n", cmd);
		return -1;
	}
	n = pread(fd, result, size - 1, 0);
	if (n <= 0) {
		perror("walkbench: read");
		return -1;
	}
	result[n] = 0;
	return 0;
}

/* The number after "@key " in @result, or -1. */
static long long field(const char *result, const char *key)
{
	size_t len = strlen(key);
	const char *p = result;

	while ((p = strstr(p, key))) {
		if ((p == result || p[-1] == ' ') && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
		p += len;
	}
	return -1;
}

int main(int argc, char **argv)
{
	long (*walk_from)(int level, int fd, const char *cmd) = descend;
	const struct timespec wait = { .tv_nsec = 50 * 1000 * 1000 };
	const char *path = BENCH_FILE;
	char result[512];
	int fd, depth, i;

	if (argc < 3) {
		fprintf(stderr, "usage: walkbench WALKS DEPTH [narrow|wide] [BENCH_FILE]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "wide"))
			walk_from = descend_wide;
		else if (strcmp(argv[i], "narrow"))
			path = argv[i];
	}
	depth = atoi(argv[2]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "walkbench: %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ?
			" (a module built with CONFIG_SFRAME_UNWIND_BENCH=y has it)" :
			"");
		return 1;
	}
	for (i = 0; i < PROBES; i++) {
		if (bench(fd, walk_from, "1", depth, result, sizeof(result)))
			return 1;
		/* An "error:" result has neither field: not ready either. */
		if (field(result, "sframe_frames") > 0 &&
		    field(result, "sframe_rule_frames") ==
		    field(result, "sframe_frames"))
			break;
		nanosleep(&wait, NULL);
	}
	if (i == PROBES) {
		fprintf(stderr, "walkbench: own section never in use: %s", result);
		return 1;
	}
	if (bench(fd, walk_from, argv[1], depth, result, sizeof(result)))
		return 1;
	fputs(result, stdout);
	close(fd);
	return 0;
}
