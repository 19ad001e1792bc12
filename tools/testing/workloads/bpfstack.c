// SPDX-License-Identifier: GPL-2.0
/*
 * bpfstack: collect BPF user stacks of one program, the way a BPF profiler
 * does, with nothing but the bpf(2) and perf_event_open(2) system calls.
 *
 *   bpfstack [-D] [-F HZ] OUTPUT PROGRAM [ARGS...]
 *
 * Runs PROGRAM and samples it with a cpu-clock perf event whose BPF program
 * calls bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK) and counts each
 * stack id.  bpf_get_stackid() walks the user stack with
 * perf_callchain_user(), the function sframe_unwind replaces.  When the
 * program has exited, OUTPUT receives the last non-empty copy of its
 * /proc/PID/maps and every stack with its count:
 *
 *   @@ maps
 *   <maps lines>
 *   @@ stack ID count N
 *   <one hexadecimal address per line, the sampled IP first>
 *   @@ error ERRNO count N       (samples bpf_get_stackid() refused)
 *
 * -D: no BPF; the event asks for deferred user callchains instead
 * (defer_callchain, kernels with the deferred unwinder, 7.x), which the
 * kernel walks with unwind_user() just before the sampled task returns to
 * user space and writes as PERF_RECORD_CALLCHAIN_DEFERRED records.  Each
 * such callchain is counted once per sample that asked for it, in the
 * same output format.  The kernel's uapi header is older than the
 * feature here, so its few definitions are spelt out below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_USER_FRAMES	127	/* the kernel's default perf_event_max_stack */
#define STACK_IDS	16384	/* stack map buckets: few collisions */
#define COUNT_KEYS	(STACK_IDS + 64)	/* stack ids plus error codes */
#define MAPS_BYTES	(256 * 1024)
#define MAPS_POLL_NS	100000000L	/* copy the maps every 0.1 s */
#define LOG_BYTES	65536

#define ATTR_DEFER_CALLCHAIN	(1ULL << 38)	/* perf_event_attr flag bits */
#define ATTR_DEFER_OUTPUT	(1ULL << 39)	/* ... where records go */
#define RECORD_CALLCHAIN_DEFERRED	22
#define CONTEXT_USER_DEFERRED	((__u64)-640)
#define RING_PAGES	128		/* data pages of the ring buffer */
#define MAX_STACKS	16384
#define MAX_COOKIES	4096

struct stack {
	__u64 count;
	unsigned int nr;
	__u64 ips[MAX_USER_FRAMES];
};

/* Deferred mode: distinct stacks, and samples waiting for their cookie. */
static struct stack stacks_seen[MAX_STACKS];
static unsigned int nr_stacks, stacks_lost;
static struct {
	__u64 cookie;
	__u64 samples;
} pending[MAX_COOKIES];
static unsigned int nr_pending;
static unsigned long nr_samples, nr_undeferred, nr_deferred, nr_unmatched;

static char maps_copy[MAPS_BYTES];
static size_t maps_len;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(__u32 type, __u32 key_size, __u32 value_size,
		      __u32 max_entries)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = key_size;
	attr.value_size = value_size;
	attr.max_entries = max_entries;
	fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (fd < 0)
		die("bpf(BPF_MAP_CREATE)");
	return fd;
}

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off,
			    __s32 imm)
{
	struct bpf_insn i = {
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
	};

	return i;
}

/* Two slots: a 64-bit immediate load of a map, by file descriptor. */
static void load_map_fd(struct bpf_insn *at, __u8 dst, int fd)
{
	at[0] = insn(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
	at[1] = insn(0, 0, 0, 0, 0);
}

/*
 * The perf event program, in BPF assembly:
 *
 *	r6 = r1				the perf event context
 *	r0 = get_stackid(r6, stacks, BPF_F_USER_STACK)
 *	*(u32 *)(r10 - 4) = r0		key: a stack id or a negative errno
 *	r0 = map_lookup_elem(counts, r10 - 4)
 *	if r0 == 0 goto new
 *	lock *(u64 *)(r0 + 0) += 1
 *	goto out
 * new:	*(u64 *)(r10 - 16) = 1
 *	map_update_elem(counts, r10 - 4, r10 - 16, BPF_ANY)
 * out:	return 0
 */
static int load_program(int stacks, int counts)
{
	static char log[LOG_BYTES];
	struct bpf_insn p[32];
	union bpf_attr attr;
	int n = 0, branch, jump, fd;

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0);
	load_map_fd(&p[n], BPF_REG_2, stacks);
	n += 2;
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, BPF_F_USER_STACK);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stackid);
	p[n++] = insn(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -4, 0);
	load_map_fd(&p[n], BPF_REG_1, counts);
	n += 2;
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	branch = n;
	p[n++] = insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1);
	p[n++] = insn(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD);
	jump = n;
	p[n++] = insn(BPF_JMP | BPF_JA, 0, 0, 0, 0);
	p[branch].off = n - branch - 1;
	p[n++] = insn(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -16, 1);
	load_map_fd(&p[n], BPF_REG_1, counts);
	n += 2;
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, -16);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, BPF_ANY);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem);
	p[jump].off = n - jump - 1;
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	attr.insns = (uintptr_t)p;
	attr.insn_cnt = n;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		fprintf(stderr, "%s", log);
		die("bpf(BPF_PROG_LOAD)");
	}
	return fd;
}

/*
 * A cpu-clock event on pid, counting from its exec on, running prog; or,
 * with prog < 0, sampling deferred user callchains.
 */
static int open_event(pid_t pid, int freq, int prog)
{
	struct perf_event_attr attr;
	__u64 flags;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_freq = freq;
	attr.freq = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	attr.exclude_kernel = 1;
	if (prog < 0) {
		/* A per-task ring buffer: mmap refuses inherited events. */
		attr.inherit = 0;
		attr.sample_type = PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
		attr.sample_max_stack = MAX_USER_FRAMES;
		/* The flag bits follow read_format in one u64. */
		memcpy(&flags, (char *)&attr.read_format + sizeof(__u64),
		       sizeof(flags));
		flags |= ATTR_DEFER_CALLCHAIN | ATTR_DEFER_OUTPUT;
		memcpy((char *)&attr.read_format + sizeof(__u64), &flags,
		       sizeof(flags));
	}
	fd = syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die(prog < 0 ? "perf_event_open (defer_callchain)" : "perf_event_open");
	if (prog >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		die("PERF_EVENT_IOC_SET_BPF");
	return fd;
}

/* Count a stack (deferred mode), once per sample that asked for it. */
static void add_stack(const __u64 *ips, unsigned int nr, __u64 count)
{
	unsigned int i;

	if (nr > MAX_USER_FRAMES)
		nr = MAX_USER_FRAMES;
	for (i = 0; i < nr_stacks; i++) {
		if (stacks_seen[i].nr == nr &&
		    !memcmp(stacks_seen[i].ips, ips, nr * sizeof(*ips))) {
			stacks_seen[i].count += count;
			return;
		}
	}
	if (nr_stacks == MAX_STACKS) {
		stacks_lost += count;
		return;
	}
	stacks_seen[nr_stacks].nr = nr;
	stacks_seen[nr_stacks].count = count;
	memcpy(stacks_seen[nr_stacks++].ips, ips, nr * sizeof(*ips));
}

/* A sample's callchain: [PERF_CONTEXT_USER_DEFERRED, cookie]. */
static void sample_record(const __u64 *body)
{
	__u64 nr = body[0], i, cookie;

	nr_samples++;
	for (i = 0; i + 1 < nr && body[1 + i] != CONTEXT_USER_DEFERRED; i++)
		;
	if (i + 1 >= nr) {
		nr_undeferred++;
		stacks_lost++;
		return;
	}
	cookie = body[2 + i];
	for (i = 0; i < nr_pending; i++) {
		if (pending[i].cookie == cookie) {
			pending[i].samples++;
			return;
		}
	}
	if (nr_pending == MAX_COOKIES) {
		stacks_lost++;
		return;
	}
	pending[nr_pending].cookie = cookie;
	pending[nr_pending++].samples = 1;
}

/* cookie, nr, ips[nr]: the user stack of every sample with that cookie. */
static void deferred_record(const __u64 *body)
{
	__u64 cookie = body[0], nr = body[1], samples = 0;
	const __u64 *ips = body + 2;
	unsigned int i;

	if (nr && ips[0] == PERF_CONTEXT_USER) {
		ips++;
		nr--;
	}
	for (i = 0; i < nr_pending; i++) {
		if (pending[i].cookie == cookie) {
			samples = pending[i].samples;
			pending[i] = pending[--nr_pending];
			break;
		}
	}
	nr_deferred++;
	if (samples)
		add_stack(ips, nr, samples);
	else
		nr_unmatched++;
}

/* Consume what the kernel wrote to the ring buffer since the last call. */
static void drain(struct perf_event_mmap_page *meta)
{
	const char *data = (const char *)meta + meta->data_offset;
	__u64 size = meta->data_size, head, tail = meta->data_tail;
	static __u64 rec[(1 << 16) / sizeof(__u64)];

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	while (tail < head) {
		struct perf_event_header h;
		__u64 i, off;

		for (i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h))
			break;
		for (i = 0, off = tail; i < h.size; i++, off++)
			((char *)rec)[i] = data[off % size];
		if (h.type == PERF_RECORD_SAMPLE)
			sample_record(rec + 1);
		else if (h.type == RECORD_CALLCHAIN_DEFERRED)
			deferred_record(rec + 1);
		else if (h.type == PERF_RECORD_LOST)
			stacks_lost += rec[2];
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* Keep a copy of pid's maps; an exiting process's file reads empty. */
static void copy_maps(pid_t pid)
{
	static char buf[MAPS_BYTES];
	char path[64];
	size_t len = 0;
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (len < sizeof(buf) &&
	       (got = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += got;
	close(fd);
	if (len) {
		memcpy(maps_copy, buf, len);
		maps_len = len;
	}
}

static void dump_deferred(FILE *out)
{
	unsigned int i, j;

	fprintf(out, "@@ maps\n%.*s", (int)maps_len, maps_copy);
	for (i = 0; i < nr_stacks; i++) {
		fprintf(out, "@@ stack %u count %llu\n", i,
			(unsigned long long)stacks_seen[i].count);
		for (j = 0; j < stacks_seen[i].nr; j++)
			fprintf(out, "%llx\n",
				(unsigned long long)stacks_seen[i].ips[j]);
	}
	for (i = 0; i < nr_pending; i++)
		stacks_lost += pending[i].samples;
	if (stacks_lost)
		fprintf(out, "@@ error %d count %u\n", -ENODATA, stacks_lost);
	fprintf(stderr,
		"bpfstack: %lu samples (%lu without a deferred callchain), %lu deferred callchains (%lu for no sample), %u stacks\n",
		nr_samples, nr_undeferred, nr_deferred, nr_unmatched, nr_stacks);
}

static void dump(FILE *out, int stacks, int counts)
{
	__u64 ips[MAX_USER_FRAMES], count;
	union bpf_attr attr;
	__u32 key, next;
	int first = 1, i;

	fprintf(out, "@@ maps\n%.*s", (int)maps_len, maps_copy);
	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = counts;
		attr.key = first ? 0 : (uintptr_t)&key;
		attr.next_key = (uintptr_t)&next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		first = 0;
		key = next;
		attr.key = (uintptr_t)&key;
		attr.value = (uintptr_t)&count;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			die("bpf(BPF_MAP_LOOKUP_ELEM) of a count");
		if ((__s32)key < 0) {
			fprintf(out, "@@ error %d count %llu\n", (__s32)key,
				(unsigned long long)count);
			continue;
		}
		memset(ips, 0, sizeof(ips));
		attr.map_fd = stacks;
		attr.value = (uintptr_t)ips;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			die("bpf(BPF_MAP_LOOKUP_ELEM) of a stack");
		fprintf(out, "@@ stack %u count %llu\n", key, (unsigned long long)count);
		for (i = 0; i < MAX_USER_FRAMES && ips[i]; i++)
			fprintf(out, "%llx\n", (unsigned long long)ips[i]);
	}
}

int main(int argc, char **argv)
{
	struct timespec poll = { 0, MAPS_POLL_NS };
	int freq = 499, opt, go[2], stacks = -1, counts = -1, prog = -1;
	struct perf_event_mmap_page *meta = NULL;
	int deferred = 0, event, status;
	FILE *out;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "+DF:")) != -1) {
		if (opt == 'D')
			deferred = 1;
		else if (opt == 'F')
			freq = atoi(optarg);
		else
			goto usage;
	}
	if (argc - optind < 2)
		goto usage;
	out = fopen(argv[optind], "w");
	if (!out)
		die(argv[optind]);

	if (!deferred) {
		/* Before 5.11, maps count against RLIMIT_MEMLOCK, root's too. */
		struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

		if (setrlimit(RLIMIT_MEMLOCK, &unlimited))
			die("setrlimit(RLIMIT_MEMLOCK)");
		stacks = map_create(BPF_MAP_TYPE_STACK_TRACE, sizeof(__u32),
				    MAX_USER_FRAMES * sizeof(__u64), STACK_IDS);
		counts = map_create(BPF_MAP_TYPE_HASH, sizeof(__u32),
				    sizeof(__u64), COUNT_KEYS);
		prog = load_program(stacks, counts);
	}

	/* The child waits for the event to be attached, then execs. */
	if (pipe2(go, O_CLOEXEC))
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind + 1], &argv[optind + 1]);
		perror(argv[optind + 1]);
		_exit(127);
	}
	close(go[0]);
	event = open_event(pid, freq, prog);
	if (deferred) {
		long page = sysconf(_SC_PAGESIZE);

		meta = mmap(NULL, (RING_PAGES + 1) * page,
			    PROT_READ | PROT_WRITE, MAP_SHARED, event, 0);
		if (meta == MAP_FAILED)
			die("mmap of the perf ring buffer");
	}
	if (write(go[1], "x", 1) != 1)
		die("write");
	close(go[1]);

	while (waitpid(pid, &status, WNOHANG) == 0) {
		copy_maps(pid);
		if (meta)
			drain(meta);
		nanosleep(&poll, NULL);
	}
	if (meta) {
		drain(meta);
		dump_deferred(out);
	} else {
		dump(out, stacks, counts);
	}
	close(event);
	if (fclose(out))
		die(argv[optind]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bpfstack: %s failed (status %#x)\n",
			argv[optind + 1], status);
		return 1;
	}
	return 0;

usage:
	fprintf(stderr, "usage: bpfstack [-D] [-F HZ] OUTPUT PROGRAM [ARGS...]\n");
	return 2;
}
