// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl: inspect and check SFrame sections with the same format core
 * the kernel module uses.  Exit status: 0 all valid, 1 some input invalid,
 * 2 usage or I/O error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_gen.h"
#include "sframectl.h"

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: sframectl dump [--raw] [--vaddr ADDR] FILE\n"
		"       sframectl check [--raw] FILE...\n"
		"       sframectl gen [-o OUT] [--raw] [--stats] ELF\n"
		"       sframectl load ELF [SIDECAR] | load --system [DIR...]\n"
		"       sframectl load --vdso\n"
		"       sframectl unload ELF | unload --vdso\n"
		"       sframectl status [--run-dir DIR]\n"
		"       sframectl serve [--cache DIR] [--cache-max-mb N]\n"
		"                       [--owner-cache-mb N] [--run-dir DIR]\n"
		"                       [--root-only] [--jobs N] [--once]\n"
		"       sframectl warm [--cache DIR] [--cache-max-mb N]\n"
		"                      [--stamp FILE] [DIR|FILE...]\n"
		"\n"
		"  dump    print the section as binutils' objdump --sframe does\n"
		"  check   validate; print 'FILE: ok (...)' or the reason\n"
		"  gen     make an SFrame v3 section from ELF's .eh_frame\n"
		"  load    hand a sidecar (SIDECAR's .sframe, or gen's) for ELF\n"
		"          to sframe_unwind; --system: every ELF object in DIRs,\n"
		"          and the vDSO; --vdso: the vDSO only, from its .eh_frame\n"
		"  unload  withdraw ELF's sidecar\n"
		"  status  list the sidecars loaded, the service's work and the\n"
		"          module's memory\n"
		"  serve   supply sidecars for every object mapped, now and as\n"
		"          the module reports them, kept in a cache named by\n"
		"          the bytes they are made from\n"
		"  warm    fill serve's cache for root's ELF objects in DIRs\n"
		"          (the system's by default), at idle priority\n"
		"  --raw   FILE is a bare .sframe section, not an ELF object\n");
}

/*
 * Load and validate @path; on failure print why to @out (the report for
 * check, stderr for dump) and return the exit code.
 */
static int load_section(FILE *out, const char *path, bool raw,
			bool have_vaddr, unsigned long long vaddr,
			struct sframe_input *in, struct sframe_section *sec)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_error err;
	enum sframe_load_status st;

	st = sframe_input_load(in, path, raw, msg, sizeof(msg));
	if (st == SFRAME_LOAD_IO) {
		fprintf(stderr, "sframectl: %s: %s\n", path, msg);
		sframe_input_free(in);
		return EXIT_USAGE;
	}
	if (st == SFRAME_LOAD_INVALID) {
		fprintf(out, "%s: invalid: %s\n", path, msg);
		sframe_input_free(in);
		return EXIT_INVALID;
	}
	if (in->size > UINT32_MAX) {
		fprintf(out, "%s: invalid: section larger than 4 GiB\n", path);
		sframe_input_free(in);
		return EXIT_INVALID;
	}
	if (have_vaddr)
		in->vaddr = vaddr;
	if (sframe_validate(sec, in->bytes, (u32)in->size, in->vaddr,
			    in->options, &err)) {
		fprintf(out, "%s: invalid: %s", path,
			sframe_reason_str(err.reason));
		if (err.fde != SFRAME_NO_FDE)
			fprintf(out, " in FDE %u", err.fde);
		fprintf(out, " at offset 0x%x\n", err.offset);
		sframe_input_free(in);
		return EXIT_INVALID;
	}
	return 0;
}

static const struct option common_options[] = {
	{ "raw", no_argument, NULL, 'r' },
	{ "vaddr", required_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

/*
 * dump's and check's options (@vaddr NULL: no --vaddr); optind is then
 * the first file.  0, or -1 (said).
 */
static int parse_common(int argc, char **argv, bool *raw, bool *have_vaddr,
			unsigned long long *vaddr)
{
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", common_options,
				  NULL)) != -1) {
		if (opt == 'r') {
			*raw = true;
			continue;
		}
		if (opt != 'v')
			return -1;	/* said by getopt_long() */
		if (!vaddr) {
			fprintf(stderr, "%s: no option --vaddr\n", argv[0]);
			return -1;
		}
		errno = 0;
		*vaddr = strtoull(optarg, &end, 0);
		if (errno || *end || !*optarg) {
			fprintf(stderr, "%s: bad address '%s'\n", argv[0],
				optarg);
			return -1;
		}
		*have_vaddr = true;
	}
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	unsigned long long vaddr = 0;
	bool raw = false, have_vaddr = false;
	struct sframe_section sec;
	struct sframe_input in;
	int i, ret;

	if (parse_common(argc, argv, &raw, &have_vaddr, &vaddr) ||
	    argc - optind != 1) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	i = optind;
	ret = load_section(stderr, argv[i], raw, have_vaddr, vaddr, &in,
			   &sec);
	if (ret)
		return ret;
	sframe_dump(stdout, &sec, in.name);
	sframe_input_free(&in);
	return fflush(stdout) ? EXIT_USAGE : 0;
}

static int cmd_check(int argc, char **argv)
{
	bool raw = false, have_vaddr = false;
	struct sframe_section sec;
	struct sframe_input in;
	int i, ret, worst = 0;

	if (parse_common(argc, argv, &raw, &have_vaddr, NULL) ||
	    optind >= argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		ret = load_section(stdout, argv[i], raw, false, 0, &in, &sec);
		if (!ret) {
			printf("%s: ok (v%u, %u FDEs, %u FREs)\n", argv[i],
			       sec.version, sec.num_fdes, sec.num_fres);
			sframe_input_free(&in);
		}
		if (ret > worst)
			worst = ret;
	}
	return worst;
}

/* The commands: each gets "sframectl NAME" as argv[0]. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "dump", cmd_dump },
	{ "check", cmd_check },
	{ "gen", sframe_gen_command },
	{ "load", sframe_load_command },
	{ "unload", sframe_unload_command },
	{ "status", sframe_status_command },
	{ "serve", sframe_serve_command },
	{ "warm", sframe_warm_command },
};

int main(int argc, char **argv)
{
	char name[32];
	size_t i;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* getopt_long()'s messages name it "sframectl NAME". */
		snprintf(name, sizeof(name), "sframectl %s", argv[1]);
		argv[1] = name;
		return commands[i].run(argc - 1, argv + 1);
	}
	/* Not a command: how serve starts its generator children. */
	if (!strcmp(argv[1], SERVE_GEN_CHILD_ARG))
		serve_gen_child_main(argc, argv, serve_gen_modes);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return 0;
	}
	fprintf(stderr, "sframectl: unknown command '%s'\n", argv[1]);
	print_usage(stderr);
	return EXIT_USAGE;
}
