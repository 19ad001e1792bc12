// SPDX-License-Identifier: GPL-2.0
/*
 * The confinement of sframectl serve's generator children holds: a child
 * is this program executed again, holding none of its parent's memory; in
 * the sandbox it has one descriptor, no privilege and no way out (open,
 * socket, execve, an i386 system call where the kernel has that entry:
 * SIGSYS); one that loops is killed at its wall-clock budget, one that
 * allocates past its address space fails cleanly, one that writes too
 * much is cut off; and the real generator still translates a system
 * library there, into a sidecar the parent's checks accept.  The filter
 * program itself, run here over system calls of every number, kills each
 * that another architecture's entry (i386, x32, AArch32) makes, whether or
 * not this kernel has that entry.
 *
 *   sandbox_test [ELF]     (default: this system's libc)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../sframectl/serve_gen.h"
#include "tap.h"

#define TEST_WALL_MS	10000		/* for a child that must finish */
#define TEST_LOOP_MS	300		/* for the one that must not */
#define TEST_OUT_MAX	(1 << 20)
#define TEST_MEMORY	(64ULL << 20)	/* beyond what it inherits */
#define TEST_LIBC	"/lib/x86_64-linux-gnu/libc.so.6"
#define TEST_NR_MAX	1024		/* system call numbers tried */
#define TEST_PIPE	5		/* a child's result pipe, in the filter */
#define TEST_ALLOWED_MAX	16		/* more allowed: the filter is open */
#define TEST_SECRET	(1 << 20)	/* bytes the parent holds */
#define TEST_NEEDLE	64		/* of which the child is searched for */

#if defined(__x86_64__)
#define TEST_FOREIGN_ARCH	AUDIT_ARCH_I386
#define TEST_FOREIGN_NAME	"i386"
#define TEST_NATIVE_ARCH	AUDIT_ARCH_X86_64
#define TEST_X32_BIT		0x40000000	/* __X32_SYSCALL_BIT */
#elif defined(__aarch64__)
#define TEST_FOREIGN_ARCH	AUDIT_ARCH_ARM
#define TEST_FOREIGN_NAME	"AArch32"
#define TEST_NATIVE_ARCH	AUDIT_ARCH_AARCH64
#endif

static struct sandbox_limits limits;
static unsigned int ends[SERVE_GEN_NOT_STARTED + 1];
static unsigned int refusals;		/* test_refused() runs */
static unsigned int over_time;		/* children that must run out of time */
static unsigned int starved;		/* and that must get too little */

/* Wait for the job @j, started as @end, to end; count how it did. */
static enum serve_gen_end finish(struct serve_gen_job *j,
				 enum serve_gen_end end)
{
	end = serve_gen_wait(j, end);
	ends[end]++;
	return end;
}

/* Start this program as a child in @mode, reading @input (or -1). */
static enum serve_gen_end start(struct serve_gen_job *j, const char *mode,
				int input, unsigned int wall_ms, size_t max)
{
	const char *args[2];

	args[0] = mode;
	args[1] = NULL;
	return serve_gen_start(j, &limits, wall_ms, max, input, args);
}

/* Run @mode in the sandbox to its end; the job, for its output. */
static enum serve_gen_end run(struct serve_gen_job *j, const char *mode,
			      unsigned int wall_ms, size_t max)
{
	return finish(j, start(j, mode, -1, wall_ms, max));
}

static int say_hello(const struct serve_gen_child *c, int out)
{
	return write(out, "hello", 5) == 5 ? 0 : 1;
}

static int try_open(const struct serve_gen_child *c, int out)
{
	return open("/etc/passwd", O_RDONLY) < 0 ? 2 : 0;
}

static int try_socket(const struct serve_gen_child *c, int out)
{
	return socket(AF_UNIX, SOCK_STREAM, 0) < 0 ? 2 : 0;
}

static int try_execve(const struct serve_gen_child *c, int out)
{
	static char * const argv[] = { "/bin/true", NULL };

	execve(argv[0], argv, argv + 1);
	return 2;
}

/* Descriptor 1 is the pipe in the child: stderr is not. */
static int try_stderr(const struct serve_gen_child *c, int out)
{
	return write(2, "x", 1) == 1 ? 0 : 2;
}

#if defined(__x86_64__)
/* getpid through the i386 entry: its result, or -ENOSYS-like garbage. */
static long i386_getpid(void)
{
	long ret = 20;			/* i386 __NR_getpid */

	asm volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret;
}

/* The filter's architecture check, in the sandbox. */
static int try_i386(const struct serve_gen_child *c, int out)
{
	i386_getpid();
	return 2;
}

/*
 * Does this kernel have the i386 system call entry?  A kernel built
 * without IA32 emulation, booted with ia32_emulation=0, or a guest that
 * disables int 0x80 raises SIGSEGV at the instruction, before seccomp
 * could see a call.  1 yes, 0 no (or a filter the test itself runs under
 * refuses it), -1 neither answer (@why says what).
 */
static int i386_entry(char *why, size_t size)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		_exit(i386_getpid() == getpid() ? 0 : 3);
	if (waitpid(pid, &st, 0) != pid) {
		snprintf(why, size, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 1;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
		snprintf(why, size, "int $0x80 raised SIGSEGV outside the sandbox: this kernel has no i386 system call entry");
		return 0;
	}
	/* A filter of our own caller's (systemd's SystemCallArchitectures=). */
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS) {
		snprintf(why, size, "an i386 getpid outside the sandbox was killed by SIGSYS: a seccomp filter this test runs under refuses the i386 entry already");
		return 0;
	}
	snprintf(why, size, "an i386 getpid outside the sandbox %s %d",
		 WIFSIGNALED(st) ? "was killed by signal" : "exited with",
		 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return -1;
}
#endif

/* Until killed: by its budget, or while the parent looks at it. */
static int loop(const struct serve_gen_child *c, int out)
{
	for (;;)
		;
	return 0;
}

/*
 * Loop in the kernel until killed: map a megabyte, which the kernel fills
 * with zeroes (MAP_POPULATE), and unmap it.
 */
static int kernel_loop(const struct serve_gen_child *c, int out)
{
	void *p;

	for (;;) {
		p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 1 << 20);
	}
	return 0;
}

/* Say it is in its sandbox, then loop until killed. */
static int wait_killed(const struct serve_gen_child *c, int out)
{
	if (write(out, "r", 1) != 1)
		return 1;
	return loop(c, out);
}

/* Allocate and touch past the address space allowed; say what came of it. */
static int allocate(const struct serve_gen_child *c, int out)
{
	size_t size = 2 * TEST_MEMORY;
	char *p = malloc(size);

	if (!p)
		return write(out, "out of memory", 13) == 13 ? 1 : 3;
	memset(p, 1, size);
	return 0;
}

static int flood(const struct serve_gen_child *c, int out)
{
	static const char page[4096];

	for (;;)
		if (write(out, page, sizeof(page)) < 0)
			return 1;
}

/* The value of @key in /proc/@pid/status, or "". */
static void proc_status(pid_t pid, const char *key, char *val, size_t size)
{
	char path[64], line[256];
	size_t len = strlen(key);
	FILE *f;

	*val = '\0';
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			snprintf(val, size, "%s", line + len + 1 +
				 strspn(line + len + 1, "\t "));
	fclose(f);
	val[strcspn(val, "\n")] = '\0';
}

/* The first line of /proc/@pid/@name, or "". */
static void proc_line(pid_t pid, const char *name, char *val, size_t size)
{
	char path[64];
	FILE *f;

	*val = '\0';
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(val, size, f))
		*val = '\0';
	fclose(f);
	val[strcspn(val, "\n")] = '\0';
}

static unsigned int proc_fds(pid_t pid)
{
	char path[64];
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* What the kernel says of a confined child. */
static void test_confined(void)
{
	char seccomp[64], nnp[64], eff[64], bnd[64], uid[64], adj[64];
	struct serve_gen_job j;
	unsigned int fds, i;
	pid_t pid;
	bool root = !geteuid();

	start(&j, "loop", -1, TEST_WALL_MS, TEST_OUT_MAX);
	for (i = 0; i < 500; i++) {
		proc_status(j.pid, "Seccomp", seccomp, sizeof(seccomp));
		if (!strcmp(seccomp, "2"))
			break;
		usleep(10000);
	}
	proc_status(j.pid, "NoNewPrivs", nnp, sizeof(nnp));
	proc_status(j.pid, "CapEff", eff, sizeof(eff));
	proc_status(j.pid, "CapBnd", bnd, sizeof(bnd));
	proc_status(j.pid, "Uid", uid, sizeof(uid));
	fds = proc_fds(j.pid);
	proc_line(j.pid, "oom_score_adj", adj, sizeof(adj));
	pid = j.pid;
	tap_ok(!strcmp(seccomp, "2"), "the child is in seccomp filter mode (Seccomp: %s)",
	       seccomp);
	tap_ok(!strcmp(nnp, "1"), "no new privileges (NoNewPrivs: %s)", nnp);
	tap_ok(!strcmp(eff, "0000000000000000"), "no effective capability (CapEff: %s)",
	       eff);
	tap_ok(!root || !strcmp(bnd, "0000000000000000"),
	       "started as root: the bounding set is empty (CapBnd: %s)", bnd);
	tap_ok(root ? !strncmp(uid, "65534\t65534\t65534\t65534", 23) :
		      (unsigned int)atoi(uid) == getuid(),
	       "%s (Uid: %s)", root ? "root became nobody" : "its user stays",
	       uid);
	tap_ok(fds == 1, "one descriptor open: its pipe (%u)", fds);
	tap_ok(!strcmp(adj, "1000"),
	       "the kernel's first choice when memory runs out (oom_score_adj: %s)",
	       adj);
	serve_gen_free(&j);
	tap_ok(!j.pid && kill(pid, 0) && errno == ESRCH,
	       "stopped: killed and reaped");
}

/*
 * A child that loops on one CPU beside a busy process gets about half of
 * it, and what spends its budget is CPU time: it is killed when it has
 * had its budget, at about twice it in wall-clock time, not at the budget.
 * Made SCHED_IDLE there (@idle), it gets almost nothing: it is killed at
 * SERVE_GEN_WALL_STARVED times its budget as starved, not as over its
 * time, which would blame its input; dying takes it a while, for which it
 * needs the CPU too.
 */
static void test_starved(bool idle)
{
	const struct sched_param none = { 0 };
	cpu_set_t one, all;
	struct serve_gen_job j;
	enum serve_gen_end end;
	pid_t busy;
	long long t;

	CPU_ZERO(&one);
	if (sched_getaffinity(0, sizeof(all), &all)) {
		tap_ok(false, "a starved child: sched_getaffinity: %s",
		       strerror(errno));
		return;
	}
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	busy = fork();
	if (busy == 0)
		for (;;)
			;
	t = serve_gen_now();
	end = start(&j, "loop", -1, TEST_LOOP_MS, TEST_OUT_MAX);
	if (idle && j.pid > 0 && sched_setscheduler(j.pid, SCHED_IDLE, &none))
		tap_diag("sched_setscheduler(SCHED_IDLE): %s", strerror(errno));
	/* The child and the busy one share a CPU; the parent, not that one. */
	sched_setaffinity(0, sizeof(all), &all);
	end = finish(&j, end);
	t = serve_gen_now() - t;
	if (busy > 0) {
		kill(busy, SIGKILL);
		waitpid(busy, NULL, 0);
	}
	if (idle) {
		starved++;
		tap_ok(busy > 0 && end == SERVE_GEN_STARVED &&
		       t >= SERVE_GEN_WALL_STARVED * TEST_LOOP_MS &&
		       t < SERVE_GEN_WALL_STARVED * TEST_LOOP_MS + 5000,
		       "the same child at SCHED_IDLE: killed at %u times its budget, as starved, not over its time (%s after %lld ms)",
		       SERVE_GEN_WALL_STARVED, serve_gen_end_str(end), t);
	} else {
		over_time++;
		tap_ok(busy > 0 && end == SERVE_GEN_OVER_TIME &&
		       t >= TEST_LOOP_MS * 3 / 2 &&
		       t < SERVE_GEN_WALL_STARVED * TEST_LOOP_MS + 2000,
		       "a child that loops on a CPU shared with a busy process: killed once it had its budget of %u ms in CPU time, not at the budget (%s after %lld ms)",
		       TEST_LOOP_MS, serve_gen_end_str(end), t);
	}
	serve_gen_free(&j);
}

static void test_refused(const char *what, const char *mode, int sig)
{
	struct serve_gen_job j;
	enum serve_gen_end end;

	refusals++;
	end = run(&j, mode, TEST_WALL_MS, TEST_OUT_MAX);
	tap_ok(end == SERVE_GEN_KILLED && j.signal == sig,
	       "%s in the sandbox: killed by signal %d (%s, signal %d)", what,
	       sig, serve_gen_end_str(end), j.signal);
	serve_gen_free(&j);
}

#if defined(__x86_64__)
/* An i386 getpid in the sandbox, where this kernel has the entry. */
static void test_i386(void)
{
	char why[160];
	int entry = i386_entry(why, sizeof(why));

	if (entry > 0)
		test_refused("an i386 system call", "i386", SIGSYS);
	else if (!entry)
		tap_skip("an i386 system call in the sandbox", "%s", why);
	else
		tap_ok(false, "an i386 system call in the sandbox: whether this kernel has the entry is unknown (%s)",
		       why);
}
#endif

#define TEST_BAD_PROGRAM	0xffffffffU

/*
 * The action the classic BPF program @prog returns for @d, run as
 * seccomp runs it; TEST_BAD_PROGRAM for an instruction the sandbox's
 * filter has no use for, a load outside @d, or a path off the end, so
 * that a filter this cannot read fails rather than passes.
 */
static __u32 filter_run(const struct sock_fprog *prog,
			const struct seccomp_data *d)
{
	unsigned int pc = 0;
	__u32 a = 0;
	bool taken;

	while (pc < prog->len) {
		const struct sock_filter *i = &prog->filter[pc++];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k % 4 || i->k + 4 > sizeof(*d))
				return TEST_BAD_PROGRAM;
			memcpy(&a, (const char *)d + i->k, sizeof(a));
			continue;
		case BPF_JMP | BPF_JA:
			if (i->k >= prog->len - pc)
				return TEST_BAD_PROGRAM;
			pc += i->k;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
			taken = a == i->k;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			taken = a & i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k & SECCOMP_RET_ACTION_FULL;
		default:
			return TEST_BAD_PROGRAM;
		}
		pc += taken ? i->jt : i->jf;
	}
	return TEST_BAD_PROGRAM;
}

/* The filter's verdict on system call @nr of @arch, arguments @args. */
static __u32 filter_verdict(const struct sock_fprog *prog, __u32 arch,
			    int nr, __u64 arg0, __u64 arg2)
{
	struct seccomp_data d = {
		.nr = nr, .arch = arch, .args = { arg0, 0, arg2 },
	};

	return filter_run(prog, &d);
}

/*
 * The filter program, read instruction by instruction: whatever number a
 * native call it allows has, the same number from another architecture's
 * entry (whose numbers mean other calls) is killed.  This holds on every
 * kernel, whether or not it has that entry.
 */
static void test_filter(void)
{
	unsigned int allowed = 0, unread = 0, foreign = 0, x32 = 0;
	struct sock_fprog prog;
	__u32 v;
	int nr;

	sandbox_program(&prog, TEST_PIPE);
	for (nr = 0; nr < TEST_NR_MAX; nr++) {
		v = filter_verdict(&prog, TEST_NATIVE_ARCH, nr, TEST_PIPE,
				   PROT_READ);
		unread += v != SECCOMP_RET_ALLOW &&
			  v != SECCOMP_RET_KILL_PROCESS;
		if (v != SECCOMP_RET_ALLOW)
			continue;
		allowed++;
		foreign += filter_verdict(&prog, TEST_FOREIGN_ARCH, nr,
					  TEST_PIPE, PROT_READ) !=
			   SECCOMP_RET_KILL_PROCESS;
#ifdef TEST_X32_BIT
		x32 += filter_verdict(&prog, TEST_NATIVE_ARCH,
				      nr | TEST_X32_BIT, TEST_PIPE,
				      PROT_READ) != SECCOMP_RET_KILL_PROCESS;
#endif
	}
	tap_ok(!unread && allowed > 0 && allowed < TEST_ALLOWED_MAX,
	       "the filter program: each of %u native numbers allowed or killed (%u allowed, %u neither)",
	       TEST_NR_MAX, allowed, unread);
	tap_ok(filter_verdict(&prog, TEST_NATIVE_ARCH, __NR_brk, 0, 0) ==
	       SECCOMP_RET_ALLOW &&
	       filter_verdict(&prog, TEST_NATIVE_ARCH, __NR_openat, 0, 0) ==
	       SECCOMP_RET_KILL_PROCESS,
	       "the filter program allows brk() and kills openat()");
	tap_ok(!foreign,
	       "the filter program kills each of the %u allowed numbers from the %s entry (%u not killed)",
	       allowed, TEST_FOREIGN_NAME, foreign);
#ifdef TEST_X32_BIT
	tap_ok(!x32,
	       "the filter program kills each of the %u allowed numbers from the x32 entry (%u not killed)",
	       allowed, x32);
#endif
	tap_ok(filter_verdict(&prog, TEST_NATIVE_ARCH, __NR_write, TEST_PIPE,
			      0) == SECCOMP_RET_ALLOW &&
	       filter_verdict(&prog, TEST_NATIVE_ARCH, __NR_write, 1, 0) ==
	       SECCOMP_RET_KILL_PROCESS,
	       "the filter program allows write() to the pipe alone");
	tap_ok(filter_verdict(&prog, TEST_NATIVE_ARCH, __NR_mmap, 0,
			      PROT_READ | PROT_EXEC) ==
	       SECCOMP_RET_KILL_PROCESS &&
	       filter_verdict(&prog, TEST_NATIVE_ARCH, __NR_mprotect, 0,
			      PROT_EXEC) == SECCOMP_RET_KILL_PROCESS,
	       "the filter program kills executable memory");
}

/* Does the parent refuse @size bytes at @data as the result for @code? */
static bool refused(const char *path, const struct sframe_code *code,
		    const u8 *data, size_t size)
{
	return sframe_load_sidecar_obj(-1, -1, path, code, "a result", data,
				       size, false, false) == EXIT_INVALID;
}

/*
 * What a subverted child could send instead of @path's result @res
 * (@len bytes): the parent refuses each, and never as ELF.  The section
 * alone in a sidecar file, which the parent once read through libelf; a
 * result cut short or grown; a build ID not the file's, or too long.
 */
static void test_result_checked(const char *path,
				const struct sframe_code *code,
				const u8 *res, size_t len)
{
	struct sframe_gen_result h;
	size_t elf_size;
	u8 *copy, *elf;

	memcpy(&h, res, sizeof(h));
	elf = sframe_container(res + sizeof(h), h.section_size,
			       SFRAME_NATIVE_EM, h.vaddr, NULL, 0, &elf_size);
	copy = malloc(len + 1);
	if (!elf || !copy || !h.build_id_size) {
		tap_ok(false, "%s: a result with a build ID, copied (%u bytes of it)",
		       path, h.build_id_size);
		goto out;
	}
	tap_ok(refused(path, code, elf, elf_size),
	       "the parent refuses the section in an ELF sidecar: it reads no ELF a child made");
	tap_ok(refused(path, code, res, len - 1) &&
	       refused(path, code, res, sizeof(h) - 1),
	       "the parent refuses a result cut short, in its section or its header");
	memcpy(copy, res, len);
	copy[len] = 0;
	tap_ok(refused(path, code, copy, len + 1),
	       "the parent refuses a result with a byte more than its section");
	copy[offsetof(struct sframe_gen_result, build_id)] ^= 1;
	tap_ok(refused(path, code, copy, len),
	       "the parent refuses a result for another build ID");
	memcpy(copy, res, len);
	h.build_id_size = SFRAME_BUILD_ID_MAX + 2;
	memcpy(copy, &h, sizeof(h));
	tap_ok(refused(path, code, copy, len),
	       "the parent refuses a result whose build ID claims %u bytes",
	       h.build_id_size);
out:
	free(copy);
	free(elf);
}

/*
 * The service's read of @path for a child: the whole file, held once in a
 * memory file that nothing can change any more; one byte more than it
 * may read, and it is refused.
 */
static void test_sealed_input(const char *path)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_input in;
	unsigned char *want;
	struct stat st;
	int fd, mfd, seals = 0;
	bool same = false;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size < 2) {
		tap_ok(false, "%s: cannot read it for the sealed read", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	mfd = sframe_input_load_sealed(&in, fd, path, st.st_size - 1, msg,
				       sizeof(msg));
	tap_ok(mfd < 0 && strstr(msg, "more than"),
	       "a file read sealed with a byte more than its limit: refused (%s)",
	       msg);
	if (mfd >= 0)
		close(mfd);
	sframe_input_free(&in);
	lseek(fd, 0, SEEK_SET);
	mfd = sframe_input_load_sealed(&in, fd, path, st.st_size, msg,
				       sizeof(msg));
	want = malloc(st.st_size);
	if (mfd >= 0 && want && pread(fd, want, st.st_size, 0) == st.st_size) {
		same = in.file_size == (size_t)st.st_size &&
		       !memcmp(in.file, want, st.st_size);
		seals = fcntl(mfd, F_GET_SEALS);
	}
	tap_ok(same && seals == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
				 F_SEAL_SEAL) &&
	       write(mfd, "x", 1) < 0 && errno == EPERM,
	       "a file read sealed: its %lld bytes, in a memory file sealed against any change (%s)",
	       (long long)st.st_size, mfd < 0 ? msg : "read");
	free(want);
	if (mfd >= 0)
		close(mfd);
	sframe_input_free(&in);
	close(fd);
}

/* The generator, confined, on @path: a sidecar the parent accepts. */
static void test_generator(const char *path)
{
	const char *args[3];
	char msg[SFRAME_MSG_MAX] = "";
	struct serve_gen_job j;
	struct sframe_code code;
	enum serve_gen_end end;
	struct sframe_input obj;
	long long t;
	int fd, input = -1;

	/* Its bytes, as the service reads them for a child: sealed. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		input = sframe_input_load_sealed(&obj, fd, path, ~0ULL, msg,
						 sizeof(msg));
	else
		snprintf(msg, sizeof(msg), "%s", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (input >= 0 && sframe_elf_code(obj.file, obj.file_size, &code,
					  msg, sizeof(msg))) {
		close(input);
		input = -1;
	}
	if (input < 0) {
		tap_ok(false, "%s: %s", path, msg);
		sframe_input_free(&obj);
		return;
	}
	args[0] = "translate";
	args[1] = "whole";
	args[2] = NULL;
	t = serve_gen_now();
	limits.address_space = TEST_MEMORY + 32 * obj.file_size;
	end = finish(&j, serve_gen_start(&j, &limits, 60000, 64 << 20, input,
					 args));
	close(input);
	t = serve_gen_now() - t;
	tap_ok(end == SERVE_GEN_DONE, "%s translated in the sandbox (%s, %zu bytes, %lld ms)",
	       path, serve_gen_end_str(end), j.len, t);
	tap_ok(end == SERVE_GEN_DONE &&
	       !sframe_load_sidecar_obj(-1, -1, path, &code, "its sidecar",
					j.buf, j.len, false, false),
	       "the parent's checks accept what came back");
	if (end == SERVE_GEN_DONE)
		test_result_checked(path, &code, j.buf, j.len);
	serve_gen_free(&j);
	sframe_input_free(&obj);
}

/*
 * Does process @pid's readable memory hold the @len bytes at @needle?
 * 1 yes, 0 no, -1 it cannot be read (@why says why).
 */
static int memory_holds(pid_t pid, const unsigned char *needle, size_t len,
			char *why, size_t why_size)
{
	static unsigned char buf[1 << 20];
	unsigned long long lo, hi, at;
	char path[64], line[512], perm[8];
	size_t keep, room, total, read_any = 0;
	int mem, found = 0;
	ssize_t n;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "re");
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (!maps || mem < 0) {
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		if (maps)
			fclose(maps);
		if (mem >= 0)
			close(mem);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3 ||
		    perm[0] != 'r')
			continue;
		/* Each region searched alone: a needle never spans two. */
		for (at = lo, keep = 0; !found && at < hi; at += n) {
			room = sizeof(buf) - keep;
			n = pread(mem, buf + keep, hi - at < room ? hi - at : room,
				  at);
			if (n <= 0)
				break;		/* [vvar] and the like */
			read_any += n;
			total = keep + n;
			found = memmem(buf, total, needle, len) != NULL;
			/* The tail a needle that goes on might start in. */
			keep = total < len ? total : len - 1;
			memmove(buf, buf + total - keep, keep);
		}
	}
	fclose(maps);
	close(mem);
	if (!read_any) {
		snprintf(why, why_size, "%s: no byte of it could be read", path);
		return -1;
	}
	return found;
}

/*
 * A child holds nothing of the parent's memory: bytes the parent holds
 * while the child runs (another job's file, which may be another user's
 * execute-only program) are nowhere in the child's.  The search is shown
 * to work on the parent first.
 */
static void test_inherits_nothing(void)
{
	unsigned char *secret = malloc(TEST_SECRET);
	struct serve_gen_job j;
	struct pollfd p;
	char why[160];
	int held, mine;

	if (!secret || getrandom(secret, TEST_SECRET, 0) != TEST_SECRET) {
		tap_ok(false, "random bytes for the parent to hold: %s",
		       strerror(errno));
		free(secret);
		return;
	}
	start(&j, "wait", -1, TEST_WALL_MS, TEST_OUT_MAX);
	p = (struct pollfd){ .fd = j.out, .events = POLLIN };
	held = poll(&p, 1, TEST_WALL_MS) == 1 ?
	       memory_holds(j.pid, secret, TEST_NEEDLE, why, sizeof(why)) :
	       -2;
	mine = memory_holds(getpid(), secret, TEST_NEEDLE, why, sizeof(why));
	serve_gen_free(&j);
	if (held == -1)
		tap_skip("the child's memory holds none of the parent's bytes",
			 "this test may not read a sandboxed child's memory: %s",
			 why);
	else
		tap_ok(mine == 1 && !held,
		       "the child's memory holds none of the %d bytes the parent held when it started (found in the parent: %s; in the child: %s)",
		       TEST_SECRET, mine == 1 ? "yes" : "no",
		       held == -2 ? "it never said it was ready" :
		       held ? "yes" : "no");
	free(secret);
}

static const struct serve_gen_mode modes[] = {
	{ "hello", say_hello },
	{ "open", try_open },
	{ "socket", try_socket },
	{ "execve", try_execve },
	{ "stderr", try_stderr },
#if defined(__x86_64__)
	{ "i386", try_i386 },
#endif
	{ "loop", loop },
	{ "kernel-loop", kernel_loop },
	{ "wait", wait_killed },
	{ "allocate", allocate },
	{ "flood", flood },
	{ "translate", serve_gen_translate },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	struct serve_gen_job j;
	enum serve_gen_end end;
	long long t;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], SERVE_GEN_CHILD_ARG))
		serve_gen_child_main(argc, argv, modes);
	setvbuf(stdout, NULL, _IOLBF, 0);
	limits = (struct sandbox_limits){
		.cpu_seconds = 60,
		.address_space = TEST_MEMORY,
	};
	end = run(&j, "hello", TEST_WALL_MS, TEST_OUT_MAX);
	tap_ok(end == SERVE_GEN_DONE && j.len == 5 && !memcmp(j.buf, "hello", 5),
	       "a child that writes its result: done, the parent has it (%s)",
	       serve_gen_end_str(end));
	serve_gen_free(&j);
	test_confined();
	test_inherits_nothing();
	test_refused("open()", "open", SIGSYS);
	test_refused("socket()", "socket", SIGSYS);
	test_refused("execve()", "execve", SIGSYS);
	test_refused("write() to stderr", "stderr", SIGSYS);
#if defined(__x86_64__)
	test_i386();
#endif
	test_filter();

	t = serve_gen_now();
	end = start(&j, "loop", -1, TEST_LOOP_MS, TEST_OUT_MAX);
	over_time++;
	pid = j.pid;
	end = finish(&j, end);
	t = serve_gen_now() - t;
	tap_ok(end == SERVE_GEN_OVER_TIME && t >= TEST_LOOP_MS &&
	       t < SERVE_GEN_WALL_STARVED / 2 * TEST_LOOP_MS,
	       "a child that loops: killed at its budget of %u ms (%s after %lld ms)",
	       TEST_LOOP_MS, serve_gen_end_str(end), t);
	tap_ok(!j.pid && kill(pid, 0) && errno == ESRCH, "and reaped");
	serve_gen_free(&j);

	/* Its time in the kernel counts as much as its own. */
	t = serve_gen_now();
	end = run(&j, "kernel-loop", TEST_LOOP_MS, TEST_OUT_MAX);
	over_time++;
	t = serve_gen_now() - t;
	tap_ok(end == SERVE_GEN_OVER_TIME && t >= TEST_LOOP_MS &&
	       t < SERVE_GEN_WALL_STARVED / 2 * TEST_LOOP_MS,
	       "a child that loops in system calls: killed at its budget of %u ms (%s after %lld ms)",
	       TEST_LOOP_MS, serve_gen_end_str(end), t);
	serve_gen_free(&j);

	/*
	 * Its CPU limit the same as its budget, as a translation's: the
	 * kernel's kill at the limit is its running out of time too, not a
	 * kill from outside to be tried again.
	 */
	limits.cpu_seconds = 1;
	t = serve_gen_now();
	end = run(&j, "loop", 1000, TEST_OUT_MAX);
	over_time++;
	t = serve_gen_now() - t;
	limits.cpu_seconds = 60;
	tap_ok(end == SERVE_GEN_OVER_TIME && t < 5000,
	       "a child that loops with 1 s of CPU time and a budget of 1000 ms: over its time (%s, signal %d, after %lld ms)",
	       serve_gen_end_str(end), j.signal, t);
	serve_gen_free(&j);
	test_starved(false);
	test_starved(true);

	end = run(&j, "allocate", TEST_WALL_MS, TEST_OUT_MAX);
	tap_ok(end == SERVE_GEN_FAILED && j.len == 13 &&
	       !memcmp(j.buf, "out of memory", 13),
	       "a child that allocates past RLIMIT_AS: malloc fails, it says so (%s)",
	       serve_gen_end_str(end));
	serve_gen_free(&j);

	end = run(&j, "flood", TEST_WALL_MS, TEST_OUT_MAX);
	tap_ok(end == SERVE_GEN_TOO_LARGE && j.len == TEST_OUT_MAX + 1,
	       "a child that writes without end: cut off after %u bytes (%s)",
	       TEST_OUT_MAX, serve_gen_end_str(end));
	serve_gen_free(&j);

	test_sealed_input(argc > 1 ? argv[1] : TEST_LIBC);
	test_generator(argc > 1 ? argv[1] : TEST_LIBC);

	tap_ok(ends[SERVE_GEN_DONE] == 2 && ends[SERVE_GEN_FAILED] == 1 &&
	       ends[SERVE_GEN_KILLED] == refusals &&
	       ends[SERVE_GEN_OVER_TIME] == over_time &&
	       ends[SERVE_GEN_STARVED] == starved &&
	       ends[SERVE_GEN_TOO_LARGE] == 1,
	       "the parent counted each end: %u done, %u failed, %u killed, %u over time, %u starved, %u too large",
	       ends[SERVE_GEN_DONE], ends[SERVE_GEN_FAILED],
	       ends[SERVE_GEN_KILLED], ends[SERVE_GEN_OVER_TIME],
	       ends[SERVE_GEN_STARVED], ends[SERVE_GEN_TOO_LARGE]);
	return tap_done();
}
