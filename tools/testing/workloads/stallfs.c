// SPDX-License-Identifier: GPL-2.0
/*
 * stallfs: a FUSE file system that never answers a READ, the way a hostile
 * user's server (or a dead network server) stalls whoever reads it.
 *
 *   stallfs [-s] MOUNTPOINT FILE    (as root)
 *
 * Mounts itself on MOUNTPOINT (allow_other, read-only) over the raw
 * /dev/fuse protocol and serves one read-only file, named as FILE's last
 * path component, with FILE's size; the bytes are never sent: every READ
 * request is kept and left unanswered until the server is killed or its
 * connection aborted.  With -s, READs are answered with FILE's bytes until
 * the server is sent SIGUSR1 (so that a file system image can be mounted
 * from it first), and kept from then on: the signal stays blocked and
 * pending, so every READ that comes after kill(2) returned is kept.
 * Everything else (INIT, LOOKUP, GETATTR, OPEN, RELEASE, FLUSH, GETXATTR,
 * ...) gets a prompt, sensible reply.  Prints "stallfs: ready" once INIT
 * is answered and one line per READ kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define ROOT_NODE	FUSE_ROOT_ID
#define FILE_NODE	2
#define FILE_HANDLE	1
/* Attribute and entry lifetime: the one file never changes. */
#define VALID_SECONDS	3600
/* The kernel wants room for a whole WRITE in every read of /dev/fuse. */
#define MAX_WRITE	(128 * 1024)
#define REQUEST_BYTES	(MAX_WRITE + 4096)

static const char *file_name;
static uint64_t file_size;
static unsigned long reads_kept;
/* -s: FILE, whose bytes READs get until SIGUSR1 is pending */
static int served_fd = -1;
static char read_buf[MAX_WRITE];

static int reply(int fd, uint64_t unique, int error, const void *data,
		 size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)data, .iov_len = error ? 0 : len },
	};

	if (writev(fd, iov, 2) < 0 && errno != ENOENT) {
		/* ENOENT: the request was interrupted meanwhile. */
		perror("stallfs: writing an answer");
		return -1;
	}
	return 0;
}

static void fill_attr(uint64_t node, struct fuse_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->ino = node;
	attr->blksize = 4096;
	if (node == ROOT_NODE) {
		attr->mode = S_IFDIR | 0555;
		attr->nlink = 2;
	} else {
		attr->mode = S_IFREG | 0555;
		attr->nlink = 1;
		attr->size = file_size;
		attr->blocks = (file_size + 511) / 512;
	}
}

static int do_init(int fd, const struct fuse_in_header *in, const void *arg)
{
	const struct fuse_init_in *init = arg;
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = init->max_readahead,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = MAX_WRITE,
		.time_gran = 1,
	};

	if (init->major != FUSE_KERNEL_VERSION) {
		fprintf(stderr, "stallfs: kernel speaks FUSE %u, not %u\n",
			init->major, FUSE_KERNEL_VERSION);
		reply(fd, in->unique, -EPROTO, NULL, 0);
		return -1;
	}
	if (reply(fd, in->unique, 0, &out, sizeof(out)))
		return -1;
	printf("stallfs: ready\n");
	fflush(stdout);
	return 0;
}

static int do_lookup(int fd, const struct fuse_in_header *in, const char *name)
{
	struct fuse_entry_out out;

	if (in->nodeid != ROOT_NODE || strcmp(name, file_name))
		return reply(fd, in->unique, -ENOENT, NULL, 0);
	memset(&out, 0, sizeof(out));
	out.nodeid = FILE_NODE;
	out.generation = 1;
	out.entry_valid = VALID_SECONDS;
	out.attr_valid = VALID_SECONDS;
	fill_attr(FILE_NODE, &out.attr);
	return reply(fd, in->unique, 0, &out, sizeof(out));
}

static int do_getattr(int fd, const struct fuse_in_header *in)
{
	struct fuse_attr_out out;

	if (in->nodeid != ROOT_NODE && in->nodeid != FILE_NODE)
		return reply(fd, in->unique, -ENOENT, NULL, 0);
	memset(&out, 0, sizeof(out));
	out.attr_valid = VALID_SECONDS;
	fill_attr(in->nodeid, &out.attr);
	return reply(fd, in->unique, 0, &out, sizeof(out));
}

static int do_open(int fd, const struct fuse_in_header *in, const void *arg)
{
	const struct fuse_open_in *open_in = arg;
	/*
	 * Keep the page cache: otherwise every open invalidates it and waits,
	 * uninterruptibly, for the pages whose READ is pending.
	 */
	struct fuse_open_out out = {
		.fh = FILE_HANDLE,
		.open_flags = FOPEN_KEEP_CACHE,
	};

	if ((open_in->flags & O_ACCMODE) != O_RDONLY)
		return reply(fd, in->unique, -EROFS, NULL, 0);
	return reply(fd, in->unique, 0, &out, sizeof(out));
}

static int do_statfs(int fd, const struct fuse_in_header *in)
{
	struct fuse_statfs_out out;

	memset(&out, 0, sizeof(out));
	out.st.blocks = (file_size + 4095) / 4096;
	out.st.files = 2;
	out.st.bsize = 4096;
	out.st.frsize = 4096;
	out.st.namelen = 255;
	return reply(fd, in->unique, 0, &out, sizeof(out));
}

/* The point of the exercise: note the request and never answer it. */
static int keep_read(const struct fuse_in_header *in, const void *arg)
{
	const struct fuse_read_in *read_in = arg;

	reads_kept++;
	printf("stallfs: READ %lu kept: offset %llu, %u bytes, pid %u\n",
	       reads_kept, (unsigned long long)read_in->offset, read_in->size,
	       in->pid);
	fflush(stdout);
	return 0;
}

/* -s before SIGUSR1: answer a READ with FILE's bytes. */
static int serve_read(int fd, const struct fuse_in_header *in, const void *arg)
{
	const struct fuse_read_in *read_in = arg;
	size_t len = read_in->size < sizeof(read_buf) ? read_in->size :
		     sizeof(read_buf);
	ssize_t n = pread(served_fd, read_buf, len, read_in->offset);

	if (n < 0)
		return reply(fd, in->unique, -EIO, NULL, 0);
	return reply(fd, in->unique, 0, read_buf, n);
}

static bool stalling(void)
{
	sigset_t pending;

	return served_fd < 0 || (!sigpending(&pending) &&
				 sigismember(&pending, SIGUSR1));
}

static int serve_one(int fd, const struct fuse_in_header *in, const void *arg)
{
	switch (in->opcode) {
	case FUSE_INIT:
		return do_init(fd, in, arg);
	case FUSE_LOOKUP:
		return do_lookup(fd, in, arg);
	case FUSE_GETATTR:
		return do_getattr(fd, in);
	case FUSE_OPEN:
		return do_open(fd, in, arg);
	case FUSE_OPENDIR:
		return reply(fd, in->unique, 0,
			     &(struct fuse_open_out){ .fh = FILE_HANDLE },
			     sizeof(struct fuse_open_out));
	case FUSE_READDIR:
		/* An empty listing: lookups by name are what matters. */
		return reply(fd, in->unique, 0, NULL, 0);
	case FUSE_READ:
		if (!stalling())
			return serve_read(fd, in, arg);
		return keep_read(in, arg);
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
		return reply(fd, in->unique, 0, NULL, 0);
	case FUSE_GETXATTR:
		/* No extended attributes, so no file capabilities either. */
		return reply(fd, in->unique, -ENODATA, NULL, 0);
	case FUSE_STATFS:
		return do_statfs(fd, in);
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		/* No reply expected; an interrupted READ stays unanswered. */
		return 0;
	case FUSE_DESTROY:
		reply(fd, in->unique, 0, NULL, 0);
		return 1;
	default:
		/* Writing, locking, listing attributes...: not for this file. */
		return reply(fd, in->unique, -EOPNOTSUPP, NULL, 0);
	}
}

static int mount_self(int fd, const char *mountpoint)
{
	char options[128];

	snprintf(options, sizeof(options),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other,default_permissions",
		 fd);
	if (mount("stallfs", mountpoint, "fuse.stallfs",
		  MS_NOSUID | MS_NODEV | MS_RDONLY, options)) {
		perror("stallfs: mount");
		return -1;
	}
	return 0;
}

/* -s: serve FILE's bytes until SIGUSR1, blocked, is pending. */
static int serve_until_signal(const char *path)
{
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL)) {
		perror("stallfs: sigprocmask");
		return -1;
	}
	served_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (served_fd < 0) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fuse_in_header *in;
	struct stat st;
	ssize_t n;
	char *buf;
	int fd, rc;

	if (argc == 4 && !strcmp(argv[1], "-s")) {
		if (serve_until_signal(argv[3]))
			return 2;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: stallfs [-s] MOUNTPOINT FILE\n");
		return 2;
	}
	if (stat(argv[2], &st)) {
		perror(argv[2]);
		return 2;
	}
	file_size = st.st_size;
	file_name = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
	buf = malloc(REQUEST_BYTES);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (!buf || fd < 0) {
		perror("stallfs: /dev/fuse");
		return 1;
	}
	if (mount_self(fd, argv[1]))
		return 1;
	in = (struct fuse_in_header *)buf;
	for (;;) {
		n = read(fd, buf, REQUEST_BYTES);
		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < 0) {
			/* ENODEV: unmounted or aborted, the normal end. */
			if (errno != ENODEV)
				perror("stallfs: read");
			break;
		}
		if ((size_t)n < sizeof(*in) || in->len != (uint32_t)n) {
			fprintf(stderr, "stallfs: short request (%zd bytes)\n", n);
			return 1;
		}
		rc = serve_one(fd, in, buf + sizeof(*in));
		if (rc < 0)
			return 1;
		if (rc > 0)
			break;
	}
	printf("stallfs: done, %lu READs never answered\n", reads_kept);
	return 0;
}
