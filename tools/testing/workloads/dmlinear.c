// SPDX-License-Identifier: GPL-2.0
/*
 * dmlinear create NAME DEVICE: a read-only device-mapper device NAME that
 * maps all of DEVICE, one linear target, made through
 * /dev/mapper/control (the guest has no dmsetup); prints its node,
 * /dev/dm-MINOR, which devtmpfs makes.  dmlinear remove NAME: remove it.
 * Exit 0, or 1 with the failing step's errno on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>

#define CONTROL		"/dev/mapper/control"
#define SECTOR_SHIFT	9

/* A dm_ioctl header, then the one target and its parameters. */
struct dm_request {
	struct dm_ioctl io;
	struct dm_target_spec spec;
	char params[64];
};

static void dm_init(struct dm_request *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->io.version[0] = DM_VERSION_MAJOR;
	r->io.data_size = sizeof(*r);
	r->io.data_start = sizeof(r->io);
	snprintf(r->io.name, sizeof(r->io.name), "%s", name);
}

static int dm_call(int ctl, unsigned long cmd, struct dm_request *r,
		   const char *what)
{
	if (ioctl(ctl, cmd, r) == 0)
		return 0;
	fprintf(stderr, "dmlinear: %s %s: %s\n", what, r->io.name,
		strerror(errno));
	return 1;
}

/* Create @name over @dev, load its table read-only, resume it. */
static int create(int ctl, const char *name, const char *dev)
{
	struct dm_request r;
	uint64_t bytes;
	struct stat st;
	int fd;

	fd = open(dev, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !S_ISBLK(st.st_mode) ||
	    ioctl(fd, BLKGETSIZE64, &bytes)) {
		fprintf(stderr, "dmlinear: %s: not a block device we can size\n",
			dev);
		return 1;
	}
	close(fd);
	dm_init(&r, name);
	if (dm_call(ctl, DM_DEV_CREATE, &r, "create"))
		return 1;
	dm_init(&r, name);
	r.io.flags = DM_READONLY_FLAG;
	r.io.target_count = 1;
	r.spec.length = bytes >> SECTOR_SHIFT;
	snprintf(r.spec.target_type, sizeof(r.spec.target_type), "linear");
	snprintf(r.params, sizeof(r.params), "%u:%u 0", major(st.st_rdev),
		 minor(st.st_rdev));
	if (dm_call(ctl, DM_TABLE_LOAD, &r, "load table of"))
		return 1;
	dm_init(&r, name);
	if (dm_call(ctl, DM_DEV_SUSPEND, &r, "resume"))
		return 1;
	printf("/dev/dm-%u\n", minor(r.io.dev));
	return 0;
}

int main(int argc, char **argv)
{
	struct dm_request r;
	int ctl, ret;

	if (!(argc == 4 && !strcmp(argv[1], "create")) &&
	    !(argc == 3 && !strcmp(argv[1], "remove"))) {
		fprintf(stderr, "usage: dmlinear create NAME DEVICE | remove NAME\n");
		return 2;
	}
	ctl = open(CONTROL, O_RDWR);
	if (ctl < 0) {
		perror(CONTROL);
		return 1;
	}
	if (argc == 4) {
		ret = create(ctl, argv[2], argv[3]);
	} else {
		dm_init(&r, argv[2]);
		ret = dm_call(ctl, DM_DEV_REMOVE, &r, "remove");
	}
	close(ctl);
	return ret;
}
