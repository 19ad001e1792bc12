// SPDX-License-Identifier: GPL-2.0
/*
 * A generator child's side: the program serve_gen_start() executes again
 * maps its input, enters its sandbox (sandbox.c) keeping its result pipe
 * alone, and runs one mode's work there; the service's one mode
 * translates a file's .eh_frame into a sidecar.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "serve_gen.h"

/*
 * An address space limit for this process, entering its sandbox now:
 * what it holds (RLIMIT_AS counts it all: its program, its input, a
 * sanitizer's reservations), plus @extra bytes.
 */
static rlim_t serve_gen_address_space(unsigned long long extra)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * sysconf(_SC_PAGESIZE) + extra;
}

/*
 * Be what the kernel kills first when memory runs out, in the service's
 * cgroup or the machine's: a child's translation is worth less than the
 * service, which counts the kill and goes on.  Raising it needs no
 * privilege, and /proc is there: the child was executed through it.
 */
static bool serve_gen_oom_first(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	bool done;

	if (fd < 0)
		return false;
	done = write(fd, "1000", 4) == 4;
	close(fd);
	return done;
}

/*
 * In the child, confined: translate the input and write its result
 * (struct sframe_gen_result).  Its name is not among the child's words, which any user may
 * read in /proc: the parent names it in what it logs.
 */
int serve_gen_translate(const struct serve_gen_child *c, int out)
{
	char msg[SFRAME_MSG_MAX] = "translate: fill|whole";
	size_t size;
	u8 *data;
	int ret = -1;

	if (c->args[0])
		ret = sframe_gen_result(c->input, c->input_size,
					!strcmp(c->args[0], "fill"), &data,
					&size, msg, sizeof(msg));
	if (ret) {
		data = (u8 *)msg;
		size = strlen(msg);
	}
	if (sframe_write_all(out, data, size))
		return -1;
	return ret;
}

const struct serve_gen_mode serve_gen_modes[] = {
	{ "translate", serve_gen_translate },
	{ NULL, NULL },
};

/* In a child, before its sandbox: say on @out why it cannot work, and end. */
_Noreturn void serve_gen_refuse(int out, const char *what, int err)
{
	char msg[SFRAME_MSG_MAX];
	int len;

	len = snprintf(msg, sizeof(msg), "%s%s%s", what, err ? ": " : "",
		       err ? strerror(err) : "");
	if (len > 0 && write(out, msg, len) < 0)
		_exit(EXIT_USAGE);
	_exit(EXIT_USAGE);
}

/*
 * The executed child's main, argv as serve_gen_start() made it: map the
 * input (descriptor 0), enter the sandbox keeping descriptor 1 alone,
 * run the mode's work, and never return.
 */
_Noreturn void serve_gen_child_main(int argc, char **argv,
				    const struct serve_gen_mode *modes)
{
	struct serve_gen_child c = { .input = NULL };
	struct sandbox_limits lim;
	unsigned long long extra;
	struct stat st;
	void *map;
	int ret;

	if (argc < 5)
		serve_gen_refuse(1, "a generator child needs CPU SPACE MODE", 0);
	lim.cpu_seconds = strtoull(argv[2], NULL, 10);
	extra = strtoull(argv[3], NULL, 10);
	while (modes->name && strcmp(modes->name, argv[4]))
		modes++;
	if (!modes->name)
		serve_gen_refuse(1, "no such generator mode", 0);
	/* Not "exe", after /proc/self/exe, in ps and top. */
	prctl(PR_SET_NAME, "sframectl-gen", 0, 0, 0);
	if (!serve_gen_oom_first())
		serve_gen_refuse(1, "cannot set its oom_score_adj", errno);
	if (!fstat(0, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, 0, 0);
		if (map == MAP_FAILED)
			serve_gen_refuse(1, "cannot map the input", errno);
		c.input = map;
		c.input_size = st.st_size;
	}
	c.args = argv + 5;
	lim.address_space = serve_gen_address_space(extra);
	ret = sandbox_enter(1, &lim);
	if (ret)
		serve_gen_refuse(1, "cannot enter the sandbox", -ret);
	/* _exit(): no stdio buffer is flushed, nothing else runs. */
	_exit(modes->work(&c, 1) ? EXIT_INVALID : 0);
}
