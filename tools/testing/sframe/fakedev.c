// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD stand-in for /dev/sframe_unwind, so that load_test.sh can
 * watch what sframectl load and unload hand the module without the module:
 *
 *   FAKEDEV_LOG      every ioctl, one line each: the request, the (device,
 *                    inode) of the descriptor handed in, flags, vaddr,
 *                    size and build ID; and "open PATH DEV:INO" for each
 *                    open of FAKEDEV_WATCH
 *   FAKEDEV_DATA     the section bytes of the last SFRAME_IOC_LOAD
 *   FAKEDEV_WATCH    a path whose opens are logged ...
 *   FAKEDEV_REPLACE  ... and, right after the first, this file is renamed
 *                    over it: a file replaced between steps
 *   FAKEDEV_ERRNO    the errno the ioctls fail with, SFRAME_IOC_WATCH's
 *                    too (default: succeed)
 *   FAKEDEV_MAPPED   the files (PATH[:PATH...]) SFRAME_IOC_REPORT_MAPPED
 *                    reports, SFRAME_EVENT_F_SWEPT as the module's
 *   FAKEDEV_FRESH    the files reported as mapped now, right after them
 *   FAKEDEV_OWNER    the uid those are charged to (default 0)
 *   FAKEDEV_AGAIN    the files reported as mapped now, charged as
 *                    FAKEDEV_FRESH's, each time the process gets SIGUSR1:
 *                    a file mapped again after the test changed it
 *   FAKEDEV_OVERFLOW each SFRAME_IOC_REPORT_MAPPED is answered with a
 *                    report that reports were lost, as from a user who
 *                    maps files faster than the service reads reports
 *   (FAKEDEV_LOG also gets "child MODE WORD..." from each generator child
 *   sframectl starts, as the child is loaded, before its sandbox; and
 *   "libelf SIZE" whenever a process that is not one hands libelf an
 *   image: what only the child may parse must never show up there.)
 *   FAKEDEV_GROW     a file that grows by 1 MiB when the process first
 *                    seeks a descriptor of it to its start (as serve
 *                    does right before it reads a file reported to it)
 *
 * Opening the device opens /dev/null instead; other files are untouched.
 * SFRAME_IOC_WATCH gives a pipe on which the only reports are
 * FAKEDEV_MAPPED's and FAKEDEV_FRESH's, once a sweep asks for what is
 * mapped, so that sframectl serve serves them and then waits until it
 * is stopped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sframe/ioctl.h>

typedef int open_fn(const char *path, int flags, ...);
typedef int openat_fn(int dir, const char *path, int flags, ...);
typedef FILE *fopen_fn(const char *path, const char *how);
typedef int ioctl_fn(int fd, unsigned long request, ...);
typedef off_t lseek_fn(int fd, off_t off, int whence);

#define FAKEDEV_AGAIN_MAX	8

static int fake_fd = -1;
static int watch_fd = -1, watch_in = -1;	/* the pipe's two ends */
static int replaced;
static char *again[FAKEDEV_AGAIN_MAX];		/* FAKEDEV_AGAIN's paths */
static unsigned int again_owner;

/* Write to the files the test reads, past our own fopen(). */
static FILE *real_fopen(const char *path, const char *how)
{
	fopen_fn *real = dlsym(RTLD_NEXT, "fopen");

	return real(path, how);
}

static void log_line(const char *fmt, ...)
{
	const char *path = getenv("FAKEDEV_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = real_fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void file_id(int fd, char *buf, size_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%llu:%llu",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
}

/* After an open of @path as @fd: log it, replace the file if asked. */
static void opened(const char *path, int fd)
{
	const char *watch = getenv("FAKEDEV_WATCH");
	const char *with = getenv("FAKEDEV_REPLACE");
	char id[64];

	if (fd < 0 || !watch || strcmp(path, watch))
		return;
	file_id(fd, id, sizeof(id));
	log_line("open %s %s\n", path, id);
	if (with && !replaced++ && rename(with, watch))
		log_line("rename failed: %s\n", strerror(errno));
}

static int fake_open(const char *path, int flags, mode_t mode,
		     const char *sym)
{
	open_fn *real = dlsym(RTLD_NEXT, sym);
	int fd;

	if (!strcmp(path, SFRAME_DEVICE)) {
		fd = real("/dev/null", O_RDONLY | O_CLOEXEC);
		fake_fd = fd;
		return fd;
	}
	fd = real(path, flags, mode);
	opened(path, fd);
	return fd;
}

static mode_t open_mode(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return fake_open(path, flags, mode, "open");
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return fake_open(path, flags, mode, "open64");
}

int openat(int dir, const char *path, int flags, ...)
{
	openat_fn *real = dlsym(RTLD_NEXT, "openat");
	va_list ap;
	mode_t mode;
	int fd;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	fd = real(dir, path, flags, mode);
	opened(path, fd);
	return fd;
}

FILE *fopen(const char *path, const char *how)
{
	fopen_fn *real = dlsym(RTLD_NEXT, "fopen");
	FILE *f = real(path, how);

	if (f)
		opened(path, fileno(f));
	return f;
}

FILE *fopen64(const char *path, const char *how)
{
	fopen_fn *real = dlsym(RTLD_NEXT, "fopen64");
	FILE *f = real(path, how);

	if (f)
		opened(path, fileno(f));
	return f;
}

/* FAKEDEV_GROW: 1 MiB more at its end, the first time it is sought. */
static void grow(int fd)
{
	static const char mib[1 << 20];
	const char *path = getenv("FAKEDEV_GROW");
	static int grown;
	struct stat a, b;
	FILE *f;

	if (!path || grown || fstat(fd, &a) || stat(path, &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return;
	grown = 1;
	f = real_fopen(path, "ab");
	if (!f || fwrite(mib, 1, sizeof(mib), f) != sizeof(mib))
		log_line("could not make %s larger\n", path);
	if (f)
		fclose(f);
	log_line("grew %s\n", path);
}

off_t lseek(int fd, off_t off, int whence)
{
	lseek_fn *real = dlsym(RTLD_NEXT, "lseek");

	if (!off && whence == SEEK_SET)
		grow(fd);
	return real(fd, off, whence);
}

static void save_data(const struct sframe_sidecar_load *arg)
{
	const char *path = getenv("FAKEDEV_DATA");
	FILE *f;

	if (!path)
		return;
	f = real_fopen(path, "wb");
	if (!f)
		return;
	fwrite((const void *)(unsigned long)arg->data, 1, arg->size, f);
	fclose(f);
}

/*
 * SIGUSR1: report FAKEDEV_AGAIN's files, as the module does when a file
 * is mapped.  Only open() and write(), which a signal handler may call.
 */
static void report_again(int sig)
{
	struct sframe_event ev = {
		.size = sizeof(ev), .type = SFRAME_EVENT_NEED_SIDECAR,
		.owner = again_owner,
	};
	int saved = errno;
	unsigned int i;

	for (i = 0; i < FAKEDEV_AGAIN_MAX && again[i]; i++) {
		ev.fd = open(again[i], O_RDONLY | O_CLOEXEC);
		if (ev.fd >= 0 &&
		    write(watch_in, &ev, sizeof(ev)) != sizeof(ev))
			close(ev.fd);
	}
	errno = saved;
}

/* FAKEDEV_AGAIN's paths, split before any signal can come. */
static void arm_again(void)
{
	const char *list = getenv("FAKEDEV_AGAIN");
	const char *owner = getenv("FAKEDEV_OWNER");
	char *paths, *path, *save;
	unsigned int n = 0;

	if (!list)
		return;
	again_owner = owner ? atoi(owner) : 0;
	paths = strdup(list);
	for (path = strtok_r(paths, ":", &save);
	     path && n < FAKEDEV_AGAIN_MAX; path = strtok_r(NULL, ":", &save))
		again[n++] = path;
	signal(SIGUSR1, report_again);
}

/* A watch descriptor on which no report comes unless a sweep asks. */
static int watch_reports(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	log_line("watch\n");
	watch_fd = p[0];
	watch_in = p[1];		/* stays open: no end of file */
	arm_again();
	return p[0];
}

/*
 * Report each file of the list @list (PATH[:PATH...]) with @flags,
 * charged to @owner.
 */
static void report_files(const char *list, unsigned int flags,
			 unsigned int owner)
{
	struct sframe_event ev = {
		.size = sizeof(ev), .type = SFRAME_EVENT_NEED_SIDECAR,
		.flags = flags, .owner = owner,
	};
	char *paths, *path, *save;

	if (!list)
		return;
	paths = strdup(list);
	for (path = strtok_r(paths, ":", &save); path;
	     path = strtok_r(NULL, ":", &save)) {
		ev.fd = open(path, O_RDONLY | O_CLOEXEC);
		if (ev.fd < 0 ||
		    write(watch_in, &ev, sizeof(ev)) != sizeof(ev))
			log_line("report of %s failed: %s\n", path,
				 strerror(errno));
	}
	free(paths);
}

/* Tell the watcher that reports were lost. */
static void lost_reports(void)
{
	struct sframe_event ev = {
		.size = sizeof(ev), .type = SFRAME_EVENT_OVERFLOW, .fd = -1,
		.lost = 1,
	};

	if (write(watch_in, &ev, sizeof(ev)) != sizeof(ev))
		log_line("overflow report failed: %s\n", strerror(errno));
}

/*
 * SFRAME_IOC_REPORT_MAPPED: FAKEDEV_MAPPED's reports, then
 * FAKEDEV_FRESH's, the first time.
 */
static int report_mapped(unsigned long how)
{
	const char *owner = getenv("FAKEDEV_OWNER");
	static int reported;

	log_line("report-mapped %lu\n", how);
	if (getenv("FAKEDEV_OVERFLOW"))
		lost_reports();
	if (reported++)
		return 0;
	report_files(getenv("FAKEDEV_MAPPED"), SFRAME_EVENT_F_SWEPT, 0);
	report_files(getenv("FAKEDEV_FRESH"), 0, owner ? atoi(owner) : 0);
	return 0;
}

static int answer(void)
{
	const char *e = getenv("FAKEDEV_ERRNO");

	if (!e)
		return 0;
	errno = atoi(e);
	return -1;
}

int ioctl(int fd, unsigned long request, ...)
{
	ioctl_fn *real = dlsym(RTLD_NEXT, "ioctl");
	const struct sframe_sidecar_unload *unload;
	const struct sframe_sidecar_load *load;
	char id[64], hex[2 * SFRAME_BUILD_ID_MAX + 1] = "-";
	va_list ap;
	void *arg;
	unsigned int i;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd >= 0 && fd == watch_fd && request == SFRAME_IOC_REPORT_MAPPED)
		return report_mapped((unsigned long)arg);
	if (fd < 0 || fd != fake_fd)
		return real(fd, request, arg);
	if (request == SFRAME_IOC_LOAD) {
		load = arg;
		file_id(load->fd, id, sizeof(id));
		for (i = 0; i < load->build_id_size && i < SFRAME_BUILD_ID_MAX;
		     i++)
			sprintf(hex + 2 * i, "%02x", load->build_id[i]);
		log_line("load %s flags=%u vaddr=0x%llx size=%llu build_id=%s reserved=%u\n",
			 id, load->flags, (unsigned long long)load->vaddr,
			 (unsigned long long)load->size, hex, load->reserved);
		save_data(load);
		return answer();
	}
	if (request == SFRAME_IOC_UNLOAD) {
		unload = arg;
		file_id(unload->fd, id, sizeof(id));
		log_line("unload %s flags=%u\n", id, unload->flags);
		return answer();
	}
	if (request == SFRAME_IOC_WATCH)
		return answer() ?: watch_reports();
	errno = ENOTTY;
	return -1;
}

static bool generator_child;

/* libelf's reader, asked to parse @size bytes outside a generator child. */
void *elf_memory(char *image, size_t size)
{
	void *(*real)(char *image, size_t size) = dlsym(RTLD_NEXT,
							 "elf_memory");

	if (!generator_child)
		log_line("libelf %zu\n", size);
	return real ? real(image, size) : NULL;
}

/*
 * A generator child (sframectl executed again with --generator-child
 * CPU SPACE MODE WORD...) is logged as it starts: which process made a
 * sidecar is part of what the test checks.
 */
__attribute__((constructor))
static void child_started(int argc, char **argv)
{
	char line[512];
	size_t len = 0;
	int i;

	if (argc < 5 || strcmp(argv[1], "--generator-child"))
		return;
	generator_child = true;
	for (i = 4; i < argc && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s", argv[i]);
	log_line("child%s\n", line);
}
