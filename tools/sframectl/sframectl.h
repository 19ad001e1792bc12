/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl internals: how an input file becomes a section to validate,
 * and the commands built on the format core.
 */
#ifndef _SFRAMECTL_H
#define _SFRAMECTL_H

#include <gelf.h>
#include <stdio.h>
#include <sframe/ioctl.h>
#include <sframe/sframe.h>

/* Exit statuses: an input is invalid; usage or I/O error. */
#define EXIT_INVALID	1
#define EXIT_USAGE	2

/*
 * The machine of the objects whose sidecars load, serve and the vDSO
 * command hand to this machine's module; dump, check and gen read either.
 */
#if defined(__aarch64__)
#define SFRAME_NATIVE_EM	EM_AARCH64
#define SFRAME_NATIVE_NAME	"AArch64"
#else
#define SFRAME_NATIVE_EM	EM_X86_64
#define SFRAME_NATIVE_NAME	"x86-64"
#endif

/* An SFrame section taken out of a file, relocated where needed. */
struct sframe_input {
	const char *path;
	unsigned char *file;		/* whole file, owned */
	size_t file_size;
	bool sealed;			/* file maps a sealed memory file */
	unsigned char *bytes;		/* the section: in file, or owned copy */
	size_t size;
	unsigned char *copy;		/* owned relocated copy, if any */
	unsigned long long vaddr;	/* address of the section's first byte */
	const char *name;		/* section name for the dump heading */
	unsigned int relocations;	/* relocations applied */
	unsigned int options;		/* for sframe_validate() */
};

/* Outcome of loading: a usage/IO problem or an invalid file. */
enum sframe_load_status {
	SFRAME_LOAD_OK,
	SFRAME_LOAD_IO,			/* exit 2 */
	SFRAME_LOAD_INVALID,		/* exit 1 */
};

#define SFRAME_MSG_MAX	256

enum sframe_load_status sframe_input_load(struct sframe_input *in,
					  const char *path, bool raw,
					  char *msg, size_t msg_size);
enum sframe_load_status sframe_input_load_fd(struct sframe_input *in, int fd,
					     const char *path, bool raw,
					     char *msg, size_t msg_size);
int sframe_input_load_sealed(struct sframe_input *in, int fd, const char *path,
			     unsigned long long max, char *msg,
			     size_t msg_size);
int sframe_open(const char *path, char *msg, size_t msg_size);
void sframe_input_free(struct sframe_input *in);

enum sframe_load_status sframe_elf_extract(struct sframe_input *in,
					   char *msg, size_t msg_size);

/* Executable segments of an ELF object (link addresses, file sizes). */
#define SFRAME_CODE_MAX	8

struct sframe_code {
	unsigned int nr;
	bool has_sframe;		/* it has a PT_GNU_SFRAME of its own */
	struct sframe_span seg[SFRAME_CODE_MAX];
	u32 build_id_size;		/* 0: none the module would find */
	u8 build_id[SFRAME_BUILD_ID_MAX];	/* its NT_GNU_BUILD_ID */
};

enum sframe_load_status sframe_elf_code(const unsigned char *d, size_t size,
					struct sframe_code *code, char *msg,
					size_t msg_size);

bool sframe_elf_build_id(const unsigned char *d, size_t size,
			 const unsigned char **id, size_t *len);
bool sframe_elf_extent(const unsigned char *d, size_t max, size_t *end);

/* An ELF file in memory, opened with libelf (elf.c). */
struct sframe_elf {
	const unsigned char *d;
	size_t size;
	Elf *elf;
	GElf_Ehdr ehdr;
	bool be;
};

/* Why sframe_elf_relocate() left a section unrelocated. */
enum sframe_elf_reloc_error {
	SFRAME_ELF_RELOC_OK,
	SFRAME_ELF_RELOC_TABLE,		/* its relocations or symbols */
	SFRAME_ELF_RELOC_ENTRY,		/* a relocation unreadable */
	SFRAME_ELF_RELOC_TYPE,		/* not a data relocation */
	SFRAME_ELF_RELOC_TARGET,	/* one writes where it may not */
	SFRAME_ELF_RELOC_SYMBOL,	/* its symbol unreadable */
};

enum sframe_load_status sframe_elf_open(struct sframe_elf *e,
					const unsigned char *d, size_t size,
					char *msg, size_t msg_size);
void sframe_elf_close(struct sframe_elf *e);
Elf_Scn *sframe_elf_section(Elf *elf, const char *want, u32 type,
			    GElf_Shdr *sh);
bool sframe_elf_section_in(const struct sframe_elf *e, const GElf_Shdr *sh);
enum sframe_elf_reloc_error sframe_elf_relocate(const struct sframe_elf *e,
						Elf_Scn *scn,
						const GElf_Shdr *sh,
						unsigned char *buf);

void sframe_dump(FILE *out, const struct sframe_section *sec,
		 const char *name);

u8 *sframe_container(const u8 *sec, size_t size, u16 machine, u64 vaddr,
		     const u8 *note, size_t note_size, size_t *out_size);

/*
 * The version of what gen makes: raise it whenever the same input gives
 * another section, so that the service's cache makes its entries again.
 */
#define SFRAME_GEN_VERSION	3	/* 3: startup code described */

int sframe_write_all(int fd, const void *data, size_t size);
const char *sframe_log_name(const char *name, size_t len, char *out,
			    size_t size);
int sframe_gen_command(int argc, char **argv);
int sframe_gen_memory(const char *path, const u8 *file, size_t file_size,
		      bool fill, u8 **data, size_t *size, u64 *vaddr, char *msg,
		      size_t msg_size);
int sframe_load_command(int argc, char **argv);
int sframe_open_device(void);
int sframe_load_sidecar_obj(int dev, int fd, const char *elf,
			    const struct sframe_code *code, const char *name,
			    const u8 *data, size_t size, bool fill, bool cached);
int sframe_serve_command(int argc, char **argv);
int sframe_warm_command(int argc, char **argv);

/* Why the service could not supply an object's sidecar. */
enum sframe_serve_fail {
	SFRAME_SERVE_UNREADABLE,	/* the object could not be read */
	SFRAME_SERVE_NO_SFRAME,		/* its .eh_frame cannot be translated */
	SFRAME_SERVE_CACHE,		/* its cache file cannot be written */
	SFRAME_SERVE_NOT_LOADED,	/* sframectl or the module refused it */
	SFRAME_SERVE_GEN_KILLED,	/* the generator died of a signal */
	SFRAME_SERVE_GEN_OVER_TIME,	/* it ran past its wall-clock budget */
	SFRAME_SERVE_GEN_INVALID,	/* what it returned failed the checks */
	SFRAME_SERVE_QUEUE_FULL,	/* too many files waiting for one */
	SFRAME_SERVE_OWNER_SHARE,	/* too many of its owner's waiting */
	SFRAME_SERVE_CHANGED,		/* it changed after it was reported */
	SFRAME_SERVE_TOO_LARGE,		/* over SERVE_FILE_MAX: not read */
	SFRAME_SERVE_NR_FAILS,
};

/* What the service's disk cache holds and has removed (serve_cache.c). */
struct sframe_serve_cache_state {
	unsigned int entries, kib, max_mib;
	unsigned int refused;		/* failed verification, or the load */
	unsigned int evicted;		/* least recently used, over the cap */
	unsigned int stale;		/* of an earlier format or generator */
};

/* What the service has done since it started, as it publishes it. */
struct sframe_serve_state {
	long started;			/* sframe_serve_clock() at start */
	const char *doing;		/* "scanning", "serving" or "idle" */
	unsigned int generated, cached;	/* sidecars supplied */
	unsigned int filled;		/* of them, behind SFrame of its own */
	unsigned int own, not_roots, not_elf;	/* objects not served */
	unsigned int by_hand;		/* root's sidecar kept: not served */
	unsigned int in_hand;		/* reports read, not yet served */
	unsigned int not_stored;	/* loaded, not cached: owner's share */
	unsigned int failed[SFRAME_SERVE_NR_FAILS];
	struct sframe_serve_cache_state cache;
};

#define SFRAME_RUN_DIR	"/run/sframe-unwind"
#define SFRAME_SERVICE_USER	"sframe-unwind"	/* the unit's User= */

long sframe_serve_clock(void);
unsigned int sframe_serve_failed(const struct sframe_serve_state *st);
int sframe_serve_lock(const char *dir);
size_t sframe_serve_format(const struct sframe_serve_state *st, char *buf,
			   size_t size);
int sframe_serve_show(FILE *out, const char *dir);
int sframe_unload_command(int argc, char **argv);
int sframe_status_command(int argc, char **argv);
int sframe_vdso_load(int dev, bool among_system);
int sframe_vdso_unload(int dev);

#endif /* _SFRAMECTL_H */
