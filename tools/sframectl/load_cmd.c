// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl load, unload and status: the commands on the module's device.
 * load takes one object (load.c), every object of the system
 * (load_system.c) or the vDSO's (vdso.c); status lists what the module
 * holds and what the service says (serve_status.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <sframe/ioctl.h>
#include "load.h"

static const struct option load_options[] = {
	{ "force", no_argument, NULL, 'f' },	/* test the kernel's checks */
	{ "fill", no_argument, NULL, 'F' },
	{ "system", no_argument, NULL, 's' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "vdso", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

/* What sframectl load was asked, from its options. */
struct load_args {
	bool force, system, dry_run, vdso;
	u32 flags;
};

/* sframectl load --system [--dry-run] [DIR...], and the vDSO's. */
static int load_system(bool dry, int ndirs, char **dirs)
{
	int dev = dry ? -1 : sframe_open_device();
	int ret;

	if (dev < 0 && !dry)
		return EXIT_USAGE;
	ret = sframe_load_system(dev, ndirs, dirs);
	ret = sframe_vdso_load(dev, true) ?: ret;
	if (dev >= 0)
		close(dev);
	return ret;
}

/* sframectl load --vdso */
static int load_vdso(void)
{
	int dev = sframe_open_device();
	int ret;

	if (dev < 0)
		return EXIT_USAGE;
	ret = sframe_vdso_load(dev, false);
	close(dev);
	return ret;
}

/* sframectl load [--force] [--fill] ELF [SIDECAR] */
static int load_elf(const struct load_args *a, const char *elf,
		    const char *sidecar)
{
	struct sframe_load_totals t = { 0 };
	int dev, ret;

	dev = sframe_open_device();
	if (dev < 0)
		return EXIT_USAGE;
	ret = sframe_load_one(dev, elf, sidecar, a->flags, false, a->force,
			      &t);
	close(dev);
	if (ret == -ENODATA) {
		printf("%s: its own .sframe leaves nothing to fill\n", elf);
		ret = 0;
	}
	return ret;
}

int sframe_load_command(int argc, char **argv)
{
	struct load_args a = { 0 };
	bool bad = false;
	int opt, args;

	while ((opt = getopt_long(argc, argv, "", load_options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			a.force = true;
			break;
		case 'F':
			a.flags = SFRAME_SIDECAR_FILL;
			break;
		case 's':
			a.system = true;
			break;
		case 'n':
			a.dry_run = true;
			break;
		case 'v':
			a.vdso = true;
			break;
		default:
			bad = true;
		}
	}
	args = argc - optind;
	bad |= (a.system || a.vdso) && (a.force || a.flags);
	bad |= a.dry_run && !a.system;
	if (!bad && a.system && !a.vdso)
		return load_system(a.dry_run, args, argv + optind);
	if (!bad && a.vdso && !a.system && !args)
		return load_vdso();
	if (!bad && !a.system && !a.vdso && (args == 1 || args == 2))
		return load_elf(&a, argv[optind],
				args == 2 ? argv[optind + 1] : NULL);
	fprintf(stderr, "usage: sframectl load [--force] [--fill] ELF [SIDECAR]\n"
			"       sframectl load --system [--dry-run] [DIR...]\n"
			"       sframectl load --vdso\n");
	return EXIT_USAGE;
}

static const struct option unload_options[] = {
	{ "vdso", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

/* sframectl unload ELF | unload --vdso: withdraw a sidecar */
int sframe_unload_command(int argc, char **argv)
{
	struct sframe_sidecar_unload arg = { 0 };
	char msg[SFRAME_MSG_MAX] = "";
	int dev, opt, ret = 0;
	bool vdso = false;

	while ((opt = getopt_long(argc, argv, "", unload_options,
				  NULL)) == 'v')
		vdso = true;
	if (opt != -1 || argc - optind != !vdso) {
		fprintf(stderr, "usage: sframectl unload ELF | unload --vdso\n");
		return EXIT_USAGE;
	}
	dev = sframe_open_device();
	if (dev < 0)
		return EXIT_USAGE;
	if (vdso) {
		ret = sframe_vdso_unload(dev);
		close(dev);
		return ret;
	}
	argv += optind;
	arg.fd = sframe_open(argv[0], msg, sizeof(msg));
	if (arg.fd < 0) {
		fprintf(stderr, "sframectl: %s: %s\n", argv[0], msg);
		close(dev);
		return EXIT_USAGE;
	}
	if (ioctl(dev, SFRAME_IOC_UNLOAD, &arg)) {
		if (errno == ENOENT)
			fprintf(stderr, "sframectl: %s: no sidecar loaded\n",
				argv[0]);
		else
			fprintf(stderr, "sframectl: %s: %s\n", argv[0],
				strerror(errno));
		ret = errno == ENOENT ? EXIT_INVALID : EXIT_USAGE;
	} else {
		printf("%s: unloaded\n", argv[0]);
	}
	close(arg.fd);
	close(dev);
	return ret;
}

static const struct option status_options[] = {
	{ "run-dir", required_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 },
};

/* sframectl status [--run-dir DIR]: the module's sidecars, the service */
int sframe_status_command(int argc, char **argv)
{
	const char *run_dir = SFRAME_RUN_DIR;
	char buf[4096];
	ssize_t n;
	int dev, opt;

	while ((opt = getopt_long(argc, argv, "", status_options,
				  NULL)) == 'r')
		run_dir = optarg;
	if (opt != -1 || optind != argc) {
		fprintf(stderr, "usage: sframectl status [--run-dir DIR]\n");
		return EXIT_USAGE;
	}
	dev = sframe_open_device();
	if (dev < 0)
		return EXIT_USAGE;
	while ((n = read(dev, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(dev);
	if (n < 0) {
		fprintf(stderr, "sframectl: %s: %s\n", SFRAME_DEVICE,
			strerror(errno));
		return EXIT_USAGE;
	}
	return sframe_serve_show(stdout, run_dir) ? EXIT_INVALID : 0;
}
