// SPDX-License-Identifier: GPL-2.0
/*
 * The confinement of the service's generator child: once entered, the
 * process holds one descriptor (its result pipe), no privilege, bounded
 * resources, and may make only the system calls a translation in memory
 * needs; any other kills it (SIGSYS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <sframe/compat.h>

#include "sandbox.h"

/* Whom a child started as root runs as: Debian's nobody and nogroup. */
#define SANDBOX_UID		65534
#define SANDBOX_GID		65534
#define SANDBOX_NOFILE		4	/* the pipe, and nothing to open */
#define SANDBOX_CAP_MAX		64	/* capability numbers tried */

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#else
#error "the generator's sandbox knows x86-64 and AArch64 only"
#endif

#define SANDBOX_LOAD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define SANDBOX_IF_NOT(nr, skip) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, (skip))
#define SANDBOX_ALLOWED	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define SANDBOX_KILL	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

/*
 * What malloc and the generator call after the sandbox is entered (found
 * by running it on every fixture and system library), each checked:
 * write only to the pipe, memory never executable.  The pipe's number is
 * patched in at SANDBOX_PIPE_AT.
 */
static struct sock_filter sandbox_filter[] = {
	SANDBOX_LOAD(arch),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0),
	SANDBOX_KILL,
	SANDBOX_LOAD(nr),
	/* write(pipe, ...) */
	SANDBOX_IF_NOT(__NR_write, 4),
	SANDBOX_LOAD(args[0]),
#define SANDBOX_PIPE_AT	6
	SANDBOX_IF_NOT(0, 1), SANDBOX_ALLOWED,
	SANDBOX_KILL,
	/* mmap and mprotect, never PROT_EXEC */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 1, 0),
	SANDBOX_IF_NOT(__NR_mprotect, 4),
	SANDBOX_LOAD(args[2]),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
	SANDBOX_ALLOWED,
	SANDBOX_KILL,
	/* each of these, with any arguments */
	SANDBOX_IF_NOT(__NR_brk, 1), SANDBOX_ALLOWED,
	SANDBOX_IF_NOT(__NR_munmap, 1), SANDBOX_ALLOWED,
	SANDBOX_IF_NOT(__NR_mremap, 1), SANDBOX_ALLOWED,
	SANDBOX_IF_NOT(__NR_madvise, 1), SANDBOX_ALLOWED,
	SANDBOX_IF_NOT(__NR_exit_group, 1), SANDBOX_ALLOWED,
	SANDBOX_IF_NOT(__NR_exit, 1), SANDBOX_ALLOWED,
	SANDBOX_IF_NOT(__NR_rt_sigreturn, 1), SANDBOX_ALLOWED,
	/* glibc's qsort() asks how much memory there is before a big sort */
	SANDBOX_IF_NOT(__NR_sysinfo, 1), SANDBOX_ALLOWED,
	SANDBOX_KILL,
};

/* Every descriptor but @keep closed. */
static int sandbox_close_fds(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

	if ((keep == 0 || !syscall(__NR_close_range, 0, keep - 1, 0)) &&
	    !syscall(__NR_close_range, keep + 1, ~0U, 0))
		return 0;
	/* Before Linux 5.9: one by one. */
	for (fd = 0; fd < (max > 0 ? max : 1024); fd++)
		if (fd != keep)
			close(fd);
	return 0;
}

/*
 * Does this process hold any capability?  The unit's service holds none,
 * and its system call filter refuses capset() (@privileged); where we
 * cannot tell, assume it does.
 */
static bool sandbox_has_capabilities(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	unsigned int i;

	if (syscall(__NR_capget, &hdr, data))
		return true;
	for (i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable)
			return true;
	return false;
}

/* No capability now, none to gain back, and not root if we were. */
static int sandbox_drop_privileges(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	int cap;

	if (geteuid() == 0) {
		/* Needs CAP_SETPCAP, which root still has here. */
		for (cap = 0; cap < SANDBOX_CAP_MAX; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) &&
			    errno != EINVAL)
				return -errno;
		if (setgroups(0, NULL) ||
		    setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID) ||
		    setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID))
			return -errno;
		/*
		 * Root's input (a root-only file, under load) is not for
		 * nobody's other processes, whatever fs.suid_dumpable says.
		 */
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
			return -errno;
	}
	if (sandbox_has_capabilities() && syscall(__NR_capset, &hdr, data))
		return -errno;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -errno : 0;
}

static int sandbox_limit(int resource, rlim_t value)
{
	struct rlimit r = { .rlim_cur = value, .rlim_max = value };

	return setrlimit(resource, &r) ? -errno : 0;
}

static int sandbox_limits(const struct sandbox_limits *lim)
{
	return sandbox_limit(RLIMIT_CPU, lim->cpu_seconds) ?:
	       sandbox_limit(RLIMIT_AS, lim->address_space) ?:
	       sandbox_limit(RLIMIT_FSIZE, 0) ?:
	       sandbox_limit(RLIMIT_NOFILE, SANDBOX_NOFILE) ?:
	       sandbox_limit(RLIMIT_CORE, 0);
}

/* The filter a child whose result pipe is @pipe runs under, in @prog. */
void sandbox_program(struct sock_fprog *prog, int pipe)
{
	sandbox_filter[SANDBOX_PIPE_AT].k = pipe;
	*prog = (struct sock_fprog){
		.len = ARRAY_SIZE(sandbox_filter),
		.filter = sandbox_filter,
	};
}

static int sandbox_seccomp(int pipe)
{
	struct sock_fprog prog;

	sandbox_program(&prog, pipe);
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) ?
	       -errno : 0;
}

/*
 * Confine the calling process (a generator child, before it touches its
 * input), keeping
 * only the descriptor @pipe, with the limits @lim.  0, or -errno: the
 * caller must then exit without touching its input.
 */
int sandbox_enter(int pipe, const struct sandbox_limits *lim)
{
	return sandbox_close_fds(pipe) ?: sandbox_drop_privileges() ?:
	       sandbox_limits(lim) ?: sandbox_seccomp(pipe);
}
