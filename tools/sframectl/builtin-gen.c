// SPDX-License-Identifier: GPL-2.0
/*
 * The sframectl gen command: its arguments, and where the section goes
 * (a container file, the raw section, the statistics, a comparison).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

static int write_output(const char *path, const char *out, const u8 *data,
			size_t size)
{
	FILE *f = out ? fopen(out, "wb") : stdout;

	if (!out && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "sframectl: %s: refusing to write binary output to a terminal (use -o)\n",
			path);
		return EXIT_USAGE;
	}
	if (!f || fwrite(data, 1, size, f) != size ||
	    (out ? fclose(f) : fflush(f))) {
		fprintf(stderr, "sframectl: %s: %s\n", out ? out : "stdout",
			strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

static void print_stats(FILE *out, const struct gen *g, size_t sframe_size)
{
	const struct gen_stats *s = &g->stats;
	u32 skipped = 0, plt_refused = 0, crt_refused = 0, i;
	u64 skipped_bytes = 0;

	for (i = 0; i < GEN_NR_SKIPS; i++) {
		skipped += s->skipped[i];
		skipped_bytes += s->skipped_bytes[i];
	}
	fprintf(out, "%s: .eh_frame %llu bytes, .sframe %zu bytes (ratio %.3f)\n",
		g->path, (unsigned long long)g->eh_size, sframe_size,
		g->eh_size ? (double)sframe_size / (double)g->eh_size : 0.0);
	fprintf(out, "  functions: %u, covered %u (%llu bytes), skipped %u (%llu bytes), empty FDEs %u\n",
		s->funcs, s->covered, (unsigned long long)s->covered_bytes,
		skipped, (unsigned long long)skipped_bytes, s->empty);
	if (g->fill)
		fprintf(out, "  left to its own .sframe: %u functions%s\n",
			s->own, g->has_own ? "" : " (it has no valid one)");
	fprintf(out, "  SFrame FDEs: %u (%u flex, %u pc-mask, %u signal), FREs %u\n",
		g->nfdes, s->flex_fdes, s->mask_fdes, s->signal_fdes,
		g->nfres);
	for (i = 0; i < GEN_PLT_NR_REFUSALS; i++)
		plt_refused += s->plt_refused[i];
	if (s->plt_described || s->plt_covered || plt_refused)
		fprintf(out, "  PLT sections: %u described, %u left to .eh_frame or its own .sframe, %u refused\n",
			s->plt_described, s->plt_covered, plt_refused);
	for (i = 0; i < GEN_PLT_NR_REFUSALS; i++)
		if (s->plt_refused[i])
			fprintf(out, "  PLT sections refused, %s: %u\n",
				gen_plt_refusal_names[i], s->plt_refused[i]);
	for (i = 0; i < GEN_CRT_NR_REFUSALS; i++)
		crt_refused += s->crt_refused[i];
	if (s->crt_described || crt_refused)
		fprintf(out, "  code between FDEs: %u startup functions described, %u gaps refused\n",
			s->crt_described, crt_refused);
	for (i = 0; i < GEN_CRT_NR_REFUSALS; i++)
		if (s->crt_refused[i])
			fprintf(out, "  gaps refused, %s: %u\n",
				gen_crt_refusal_names[i], s->crt_refused[i]);
	for (i = 0; i < GEN_NR_SKIPS; i++)
		if (s->skipped[i])
			fprintf(out, "  skipped, %s: %u functions, %llu bytes\n",
				gen_skip_names[i], s->skipped[i],
				(unsigned long long)s->skipped_bytes[i]);
}

static int gen_run(struct gen *g, const char *out, bool raw, bool stats,
		   bool compare, const char *at)
{
	struct sframe_section sec;
	u8 *bytes, *file = NULL;
	size_t size = 0, file_size;
	int ret;

	ret = gen_build(g, &bytes, &size, &sec);
	if (ret) {
		fprintf(stderr, "sframectl: %s: %s\n", g->path, g->err);
		return ret;
	}
	if (stats)
		print_stats(stderr, g, size);
	if (compare) {
		ret = gen_compare(g->path, &sec, at);
	} else if (raw) {
		ret = write_output(g->path, out, bytes, size);
	} else {
		file = sframe_container(bytes, size, g->mach->e_machine,
				       g->eh_addr, g->note, g->note_size,
				       &file_size);
		ret = file ? write_output(g->path, out, file, file_size) :
			     EXIT_USAGE;
	}
	free(file);
	free(bytes);
	return ret;
}

static const struct option gen_options[] = {
	{ "raw", no_argument, NULL, 'r' },
	{ "stats", no_argument, NULL, 's' },
	{ "fill", no_argument, NULL, 'f' },
	{ "compare", no_argument, NULL, 'c' },
	{ "at", required_argument, NULL, 'a' },
	{ NULL, 0, NULL, 0 },
};

/*
 * sframectl gen ELF [-o OUT] [--raw] [--fill] [--stats]
 *		     [--compare [--at FILE]]
 */
int sframe_gen_command(int argc, char **argv)
{
	bool raw = false, stats = false, compare = false, fill = false;
	const char *out = NULL, *at = NULL;
	struct gen g = { 0 };
	bool bad = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "o:", gen_options, NULL)) != -1) {
		switch (opt) {
		case 'r':
			raw = true;
			break;
		case 's':
			stats = true;
			break;
		case 'f':
			fill = true;
			break;
		case 'c':
			compare = true;
			break;
		case 'a':
			at = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			bad = true;
		}
	}
	if (bad || optind != argc - 1) {
		fprintf(stderr, "usage: sframectl gen ELF [-o OUT] [--raw] [--fill] [--stats] [--compare [--at FILE]]\n");
		return EXIT_USAGE;
	}
	g.path = argv[optind];
	g.fill = fill;
	ret = gen_run(&g, out, raw, stats, compare, at);
	gen_free(&g);
	return ret;
}
