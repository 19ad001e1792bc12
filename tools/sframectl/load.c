// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl load's work: hand one object's sidecar section to the
 * sframe_unwind module through /dev/sframe_unwind (include/sframe/ioctl.h);
 * the commands are load_cmd.c's, every object of the system
 * load_system.c's.  Everything the kernel
 * checks is checked here first, so a bad sidecar gets a message naming
 * the file and the reason, not just an errno; the kernel checks again,
 * trusting nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <sframe/arch.h>
#include <sframe/ioctl.h>
#include "load.h"
#include "serve_gen.h"

/* The build ID a section is for, as the module takes it. */
struct build_id {
	u32 size;			/* 0: none; > SFRAME_BUILD_ID_MAX: too long */
	u8 id[SFRAME_BUILD_ID_MAX];
};

/*
 * A section to load: from a sidecar file named on the command line, or
 * a generator's result (struct sframe_gen_result), just made or cached.
 */
struct sidecar {
	struct sframe_input in;		/* the sidecar file */
	u8 *made;			/* a result this owns */
	const u8 *data;
	size_t size;
	u64 vaddr;
	bool result;			/* a result: @id is what it records */
	struct build_id id;
	struct sframe_section sec;
};

static void sidecar_free(struct sidecar *sc)
{
	sframe_input_free(&sc->in);
	free(sc->made);
	memset(sc, 0, sizeof(*sc));
}

int sframe_open_device(void)
{
	int fd = open(SFRAME_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(stderr, "sframectl: %s: not present (is sframe_unwind loaded?)\n",
			SFRAME_DEVICE);
	else if (errno == EPERM || errno == EACCES)
		fprintf(stderr, "sframectl: %s: %s: sidecars need write access to it (root, or its group)\n",
			SFRAME_DEVICE, strerror(errno));
	else
		fprintf(stderr, "sframectl: %s: %s\n", SFRAME_DEVICE,
			strerror(errno));
	return -1;
}

/*
 * A sidecar file's bytes, already read (serve's cache or its generator),
 * and where they came from, for the message that they were loaded.
 */
struct sidecar_bytes {
	const u8 *data;
	size_t size;
	const char *origin;
};

/*
 * The result a generator child makes of @elf, whose bytes the sealed
 * memory file @input holds (@fill: for what its own section leaves out),
 * in @j: made as serve makes it, in a sandboxed program of its own, never
 * in this process (which may be root's, and the file a user's).  0, or
 * an exit status, said why.
 */
static int sidecar_generate(struct serve_gen_job *j, const char *elf,
			    int input, bool fill)
{
	char msg[SFRAME_MSG_MAX] = "";
	enum serve_gen_end end;
	struct stat st;

	if (fstat(input, &st)) {
		fprintf(stderr, "sframectl: %s: %s\n", elf, strerror(errno));
		return EXIT_USAGE;
	}
	end = serve_gen_start_translate(j, input, st.st_size, fill);
	end = serve_gen_wait(j, end);
	if (end == SERVE_GEN_DONE)
		return 0;
	if (end == SERVE_GEN_FAILED)
		fprintf(stderr, "sframectl: %s: cannot generate SFrame: %s\n",
			elf, serve_gen_why(j, msg, sizeof(msg)));
	else if (end == SERVE_GEN_NOT_STARTED)
		fprintf(stderr, "sframectl: %s: no generator child could run: %s\n",
			elf, serve_gen_why(j, msg, sizeof(msg)));
	else if (end == SERVE_GEN_KILLED)
		fprintf(stderr, "sframectl: %s: cannot generate SFrame: generator killed by signal %d\n",
			elf, j->signal);
	else
		fprintf(stderr, "sframectl: %s: cannot generate SFrame: generator %s\n",
			elf, serve_gen_end_str(end));
	return end == SERVE_GEN_NOT_STARTED ? EXIT_USAGE : EXIT_INVALID;
}

/*
 * Take the section out of the generator's result @bytes, for @name;
 * @made, its buffer when not NULL, is @sc's to free (freed here when
 * the result is refused).  0, or EXIT_INVALID, said why.
 */
static int sidecar_result(struct sidecar *sc, const char *name,
			  const struct sidecar_bytes *bytes, u8 *made)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_gen_result h;

	if (sframe_gen_result_read(bytes->data, bytes->size, &h, &sc->data,
				   msg, sizeof(msg)) != SFRAME_LOAD_OK) {
		fprintf(stderr, "sframectl: %s: %s\n", name, msg);
		free(made);
		return EXIT_INVALID;
	}
	sc->made = made;
	sc->size = h.section_size;
	sc->vaddr = h.vaddr;
	sc->result = true;
	sc->id.size = h.build_id_size;
	memcpy(sc->id.id, h.build_id, sizeof(sc->id.id));
	return 0;
}

/*
 * The section for @elf: @path's .sframe, read here; or the generator's
 * result, @bytes when given, else made now from @elf, whose bytes the
 * sealed memory file @input holds (with @fill, for what its own section
 * leaves out).
 */
static int sidecar_get(struct sidecar *sc, const char *elf, const char *path,
		       const struct sidecar_bytes *bytes, int input,
		       bool fill)
{
	struct serve_gen_job j = { .out = -1 };
	char msg[SFRAME_MSG_MAX] = "";
	struct sidecar_bytes made;
	enum sframe_load_status st;
	int ret;

	memset(sc, 0, sizeof(*sc));
	if (bytes)
		return sidecar_result(sc, path ?: elf, bytes, NULL);
	if (!path) {
		ret = sidecar_generate(&j, elf, input, fill);
		if (!ret) {
			made = (struct sidecar_bytes){ .data = j.buf,
						       .size = j.len };
			ret = sidecar_result(sc, elf, &made, j.buf);
			j.buf = NULL;
		}
		serve_gen_free(&j);
		return ret;
	}
	st = sframe_input_load(&sc->in, path, false, msg, sizeof(msg));
	if (st != SFRAME_LOAD_OK) {
		fprintf(stderr, "sframectl: %s: %s\n", path, msg);
		sframe_input_free(&sc->in);
		return st == SFRAME_LOAD_IO ? EXIT_USAGE : EXIT_INVALID;
	}
	sc->data = sc->in.bytes;
	sc->size = sc->in.size;
	sc->vaddr = sc->in.vaddr;
	return 0;
}

static bool build_id_get(struct build_id *b, const unsigned char *d,
			 size_t size)
{
	const unsigned char *id;
	size_t len;

	memset(b, 0, sizeof(*b));
	if (!sframe_elf_build_id(d, size, &id, &len) || !len)
		return false;
	b->size = len > SFRAME_BUILD_ID_MAX ? SFRAME_BUILD_ID_MAX + 1 : len;
	memcpy(b->id, id, len > SFRAME_BUILD_ID_MAX ? SFRAME_BUILD_ID_MAX :
						     len);
	return true;
}

static void print_id(const struct build_id *b)
{
	u32 i;

	for (i = 0; i < b->size && i < SFRAME_BUILD_ID_MAX; i++)
		fprintf(stderr, "%02x", b->id[i]);
}

/*
 * The build ID to hand over with @sc for the object @elf, whose own is
 * @have: the one a generator's result or a sidecar file records (gen
 * copies its input's note), else @have, as a bare section named on the
 * command line is for it.  Is it @have?  Say why not.
 */
static int sidecar_build_id(struct sidecar *sc, const char *elf,
			    const char *name, const struct build_id *have,
			    struct build_id *want)
{
	bool recorded = sc->result;

	if (recorded)
		*want = sc->id;
	else
		recorded = sc->in.file && build_id_get(want, sc->in.file,
						       sc->in.file_size);
	if (!recorded)
		*want = *have;
	if (want->size > SFRAME_BUILD_ID_MAX ||
	    have->size > SFRAME_BUILD_ID_MAX) {
		fprintf(stderr, "sframectl: %s: a build ID longer than %d bytes\n",
			want->size > SFRAME_BUILD_ID_MAX ? name : elf,
			SFRAME_BUILD_ID_MAX);
		return EXIT_INVALID;
	}
	if (!recorded || (want->size == have->size &&
			  !memcmp(want->id, have->id, want->size)))
		return 0;
	fprintf(stderr, "sframectl: %s is not for %s: made for ", name, elf);
	if (want->size) {
		fprintf(stderr, "build ID ");
		print_id(want);
	} else {
		fprintf(stderr, "a file without a build ID");
	}
	if (have->size) {
		fprintf(stderr, ", the file has ");
		print_id(have);
	} else {
		fprintf(stderr, ", the file has none");
	}
	fputc('\n', stderr);
	return EXIT_INVALID;
}

/* Would the kernel take @sc for the object @elf?  Say why not. */
static int sidecar_check(struct sidecar *sc, const char *elf,
			 const char *name, const struct sframe_code *code)
{
	struct sframe_error err = { 0 };
	struct sframe_fde fde;
	u32 bad;

	if (sc->size > UINT32_MAX ||
	    sframe_validate(&sc->sec, sc->data, (u32)sc->size, sc->vaddr,
			    SFRAME_REQUIRE_SORTED, &err)) {
		fprintf(stderr, "sframectl: %s: invalid: %s at offset 0x%x\n",
			name, sc->size > UINT32_MAX ? "larger than 4 GiB" :
			sframe_reason_str(err.reason), err.offset);
		return EXIT_INVALID;
	}
	if (sc->sec.abi != sframe_arch_native.abi) {
		fprintf(stderr, "sframectl: %s: not %s SFrame\n", name,
			sframe_arch_native.name);
		return EXIT_INVALID;
	}
	if (sframe_fdes_within(&sc->sec, code->seg, code->nr, &bad)) {
		sframe_get_fde(&sc->sec, bad, &fde);
		fprintf(stderr, "sframectl: %s is not for %s: function at 0x%llx (%u bytes) lies outside its code\n",
			name, elf, (unsigned long long)fde.start, fde.size);
		return EXIT_INVALID;
	}
	return 0;
}

/* Tell what the module's refusal of @elf's sidecar means. */
static int load_refused(const char *elf, const struct build_id *want)
{
	int err = errno;

	fprintf(stderr, "sframectl: %s: the module refused the sidecar: ", elf);
	if (err == ESTALE && want->size) {
		fprintf(stderr, "made for build ID ");
		print_id(want);
		fprintf(stderr, ", which is not the file's (%s)\n",
			strerror(err));
	} else {
		fprintf(stderr, "%s (see the kernel log)\n", strerror(err));
	}
	return err == EINVAL || err == ESTALE ? EXIT_INVALID : EXIT_USAGE;
}

/*
 * Load a sidecar for @elf, open at @fd, whose bytes the sealed memory
 * file @input holds (-1: none, @bytes given) and whose code @code
 * describes: from @path, or generated, with the ioctl flags
 * @flags besides the build ID's.  Exit status, or -EEXIST when a
 * SFRAME_SIDECAR_WHILE_MAPPED load met a sidecar loaded by hand, which
 * stays, or -ENODATA when a SFRAME_SIDECAR_FILL sidecar has no function:
 * the object's own section leaves nothing out, and nothing is loaded.
 * @fd is the descriptor handed to the module, and @input was read through
 * it, so a file put at the path meanwhile cannot get a sidecar made for
 * another.  With @dev < 0 (--dry-run) everything but the
 * hand-over to the module is done.
 */
static int load_obj(int dev, int fd, const char *elf, int input,
		    const struct sframe_code *code, const char *path,
		    const struct sidecar_bytes *bytes, u32 flags, bool quiet,
		    bool force, struct sframe_load_totals *t)
{
	struct sframe_sidecar_load arg;
	struct build_id have, want;
	struct sidecar sc;
	int ret;

	have.size = code->build_id_size;
	memcpy(have.id, code->build_id, code->build_id_size);
	ret = sidecar_get(&sc, elf, path, bytes, input,
			  flags & SFRAME_SIDECAR_FILL);
	if (ret) {
		t->failed++;
		return ret;
	}
	ret = sidecar_build_id(&sc, elf, path ? path : elf, &have, &want);
	if (!ret || force)
		ret = sidecar_check(&sc, elf, path ? path : elf, code) ?: ret;
	if (ret && force && want.size <= SFRAME_BUILD_ID_MAX) {
		fprintf(stderr, "sframectl: --force: passing it to the module anyway\n");
		ret = 0;
	}
	if (ret) {
		t->rejected++;
		goto out;
	}
	if ((flags & SFRAME_SIDECAR_FILL) && !sc.sec.num_fdes) {
		ret = -ENODATA;
		goto out;
	}
	if (dev < 0) {			/* --dry-run */
		t->loaded++;
		t->fdes += sc.sec.num_fdes;
		t->bytes += sc.size;
		goto out;
	}
	arg = (struct sframe_sidecar_load){
		.fd = fd, .vaddr = sc.vaddr,
		.data = (uintptr_t)sc.data, .size = sc.size,
		.flags = flags | (want.size ? SFRAME_SIDECAR_BUILD_ID : 0),
		.build_id_size = want.size,
	};
	memcpy(arg.build_id, want.id, want.size);
	if (ioctl(dev, SFRAME_IOC_LOAD, &arg)) {
		if (errno == EEXIST && (flags & SFRAME_SIDECAR_WHILE_MAPPED)) {
			ret = -EEXIST;
			goto out;
		}
		ret = load_refused(elf, &want);
		t->rejected++;
	} else {
		t->loaded++;
		t->fdes += sc.sec.num_fdes;
		t->bytes += sc.size;
		if (!quiet)
			printf("%s: loaded (v%u, %u FDEs, %zu bytes%s%s)\n",
			       elf, sc.sec.version, sc.sec.num_fdes, sc.size,
			       bytes ? ", " : "", bytes ? bytes->origin : "");
	}
out:
	sidecar_free(&sc);
	return ret;
}

/*
 * load_obj() for @elf, open at @fd, read here, with the ioctl flags
 * @flags.  For --system (@quiet), objects with SFrame of their own are
 * only counted.
 */
static int load_fd(int dev, int fd, const char *elf, const char *path,
		   u32 flags, bool quiet, bool force,
		   struct sframe_load_totals *t)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_input obj;
	struct sframe_code code;
	int ret, input;

	/* Held once: what a generator child gets as it is. */
	input = sframe_input_load_sealed(&obj, fd, elf, ~0ULL, msg,
					 sizeof(msg));
	if (input < 0) {
		fprintf(stderr, "sframectl: %s: %s\n", elf, msg);
		return EXIT_USAGE;
	}
	if (sframe_elf_code(obj.file, obj.file_size, &code, msg,
			    sizeof(msg))) {
		if (!quiet)
			fprintf(stderr, "sframectl: %s: %s\n", elf, msg);
		t->not_elf++;
		ret = EXIT_INVALID;
	} else if (quiet && code.has_sframe) {
		t->own_sframe++;
		ret = 0;
	} else {
		ret = load_obj(dev, fd, elf, input, &code, path, NULL, flags,
			       quiet, force, t);
	}
	sframe_input_free(&obj);
	close(input);
	return ret;
}

/*
 * load_fd() for the file at @elf: its sidecar from the file @path, or
 * generated; counted in @t.
 */
int sframe_load_one(int dev, const char *elf, const char *path, u32 flags,
		    bool quiet, bool force, struct sframe_load_totals *t)
{
	char msg[SFRAME_MSG_MAX] = "";
	int fd, ret;

	fd = sframe_open(elf, msg, sizeof(msg));
	if (fd < 0) {
		fprintf(stderr, "sframectl: %s: %s\n", elf, msg);
		return EXIT_USAGE;
	}
	ret = load_fd(dev, fd, elf, path, flags, quiet, force, t);
	close(fd);
	return ret;
}

/*
 * For sframectl serve: hand the module on @dev the generator's result
 * @name, whose bytes are @data (@size), for the object open at @fd
 * (its code: @code; @elf names it in messages), to keep while the
 * object is mapped; with @fill, behind the object's own section.  The
 * message that it was loaded says whether it came from the cache
 * (@cached) or was generated now.  @data may come from untrusted code
 * (a generator child): it gets every check load makes on a sidecar (the
 * result's fields, the build ID, full validation, functions inside the
 * code), serve's one check of it; with @dev < 0, only those.  An exit
 * status: 0, EXIT_INVALID when it is not a valid sidecar for the object
 * (ours or the module's checks said so), EXIT_USAGE for anything else;
 * or -EEXIST: the object has a sidecar root loaded by hand, which the
 * module keeps; or -ENODATA: @fill, and the sidecar has nothing to fill.
 */
int sframe_load_sidecar_obj(int dev, int fd, const char *elf,
			    const struct sframe_code *code, const char *name,
			    const u8 *data, size_t size, bool fill, bool cached)
{
	struct sidecar_bytes bytes = {
		.data = data, .size = size,
		.origin = cached ? "from the cache" : "generated",
	};
	struct sframe_load_totals t = { 0 };

	return load_obj(dev, fd, elf, -1, code, name, &bytes,
			SFRAME_SIDECAR_WHILE_MAPPED |
			(fill ? SFRAME_SIDECAR_FILL : 0), false, false, &t);
}
