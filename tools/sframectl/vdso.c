// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl load --vdso and unload --vdso: make SFrame for the running
 * kernel's vDSO from the image every process has mapped (getauxval's
 * AT_SYSINFO_EHDR), as gen does for a file, and hand it to sframe_unwind
 * bound to the vDSO's build ID.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <sframe/ioctl.h>
#include "sframectl.h"

#define VDSO_NAME	"[vdso]"
#define VDSO_MAX_SIZE	(1 << 20)	/* the x86-64 vDSO is two pages */

/* Is every page of [@p, @p + @len) mapped?  mincore() fails if not. */
static bool vdso_mapped(const void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (len + page - 1) / page;
	unsigned char *vec = malloc(pages);
	bool ok = vec && !mincore((void *)p, pages * page, vec);

	free(vec);
	return ok;
}

/*
 * A copy of this process's vDSO image, which is the running kernel's:
 * malloc()ed, its size in *@size.  NULL with *@msg set if there is none
 * or it does not look like one.
 */
static unsigned char *vdso_copy(size_t *size, char *msg, size_t msg_size)
{
	const unsigned char *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	unsigned char *copy;
	size_t end;

	if (!image) {
		snprintf(msg, msg_size, "no vDSO in this process (AT_SYSINFO_EHDR)");
		return NULL;
	}
	if (!sframe_elf_extent(image, VDSO_MAX_SIZE, &end)) {
		snprintf(msg, msg_size, "the vDSO is not a 64-bit %s ELF image",
			 SFRAME_NATIVE_NAME);
		return NULL;
	}
	if (end > VDSO_MAX_SIZE) {
		snprintf(msg, msg_size, "the vDSO image claims %zu bytes", end);
		return NULL;
	}
	if (!vdso_mapped(image, end)) {
		snprintf(msg, msg_size, "the vDSO image's %zu bytes are not all mapped",
			 end);
		return NULL;
	}
	copy = malloc(end);
	if (!copy) {
		snprintf(msg, msg_size, "out of memory");
		return NULL;
	}
	memcpy(copy, image, end);
	*size = end;
	return copy;
}

/* The vDSO's section, generated and checked as the kernel will: status. */
static int vdso_section(const unsigned char *image, size_t image_size,
			u8 **data, size_t *size, u64 *vaddr,
			struct sframe_section *sec)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_error err;
	struct sframe_code code;
	u32 bad;
	int ret;

	if (sframe_elf_code(image, image_size, &code, msg, sizeof(msg))) {
		fprintf(stderr, "sframectl: %s: %s\n", VDSO_NAME, msg);
		return EXIT_INVALID;
	}
	ret = sframe_gen_memory(VDSO_NAME, image, image_size, false, data, size,
				vaddr, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "sframectl: %s: cannot generate SFrame: %s\n",
			VDSO_NAME, msg);
		return ret;
	}
	if (*size > UINT32_MAX ||
	    sframe_validate(sec, *data, (u32)*size, *vaddr,
			    SFRAME_REQUIRE_SORTED, &err)) {
		fprintf(stderr, "sframectl: %s: generated an invalid section: %s\n",
			VDSO_NAME, *size > UINT32_MAX ? "larger than 4 GiB" :
			sframe_reason_str(err.reason));
		return EXIT_INVALID;
	}
	if (sframe_fdes_within(sec, code.seg, code.nr, &bad)) {
		fprintf(stderr, "sframectl: %s: function %u lies outside the vDSO's code\n",
			VDSO_NAME, bad);
		return EXIT_INVALID;
	}
	return 0;
}

static void vdso_print_id(FILE *out, const unsigned char *id, size_t len)
{
	while (len--)
		fprintf(out, "%02x", *id++);
}

/* Does the vDSO image have an .eh_frame to make SFrame from? */
static bool vdso_has_eh_frame(const unsigned char *image, size_t size)
{
	char msg[SFRAME_MSG_MAX];
	struct sframe_elf e;
	GElf_Shdr sh;
	bool found;

	found = sframe_elf_open(&e, image, size, msg, sizeof(msg)) ==
		SFRAME_LOAD_OK && sframe_elf_section(e.elf, ".eh_frame", 0, &sh);
	sframe_elf_close(&e);
	return found;
}

/*
 * Generate the vDSO's section and hand it to the module through @dev; with
 * @dev < 0 (--dry-run) do everything but that.  A vDSO built without
 * .eh_frame (arm64's, in Debian) has nothing to make SFrame from: an error
 * when the vDSO was asked for alone, a note among the whole system's
 * objects (@among_system), as a library without one is.  Exit status.
 */
int sframe_vdso_load(int dev, bool among_system)
{
	struct sframe_sidecar_load arg = { .fd = -1 };
	char msg[SFRAME_MSG_MAX] = "";
	const unsigned char *id;
	struct sframe_section sec;
	size_t image_size, size, id_len;
	unsigned char *image;
	u8 *data = NULL;
	u64 vaddr;
	int ret;

	image = vdso_copy(&image_size, msg, sizeof(msg));
	if (!image) {
		fprintf(stderr, "sframectl: %s: %s\n", VDSO_NAME, msg);
		return EXIT_USAGE;
	}
	if (!sframe_elf_build_id(image, image_size, &id, &id_len) ||
	    !id_len || id_len > SFRAME_BUILD_ID_MAX) {
		fprintf(stderr, "sframectl: %s: no usable build ID note; the module binds the vDSO's section to it\n",
			VDSO_NAME);
		free(image);
		return EXIT_INVALID;
	}
	if (!vdso_has_eh_frame(image, image_size)) {
		free(image);
		if (among_system) {
			printf("%s: no .eh_frame, nothing to load\n", VDSO_NAME);
			return 0;
		}
		fprintf(stderr, "sframectl: %s: no .eh_frame section to make SFrame from\n",
			VDSO_NAME);
		return EXIT_INVALID;
	}
	ret = vdso_section(image, image_size, &data, &size, &vaddr, &sec);
	if (ret)
		goto out;
	arg.flags = SFRAME_SIDECAR_VDSO | SFRAME_SIDECAR_BUILD_ID;
	arg.vaddr = vaddr;
	arg.data = (uintptr_t)data;
	arg.size = size;
	arg.build_id_size = (__u32)id_len;
	memcpy(arg.build_id, id, id_len);
	if (dev >= 0 && ioctl(dev, SFRAME_IOC_LOAD, &arg)) {
		if (errno == ESTALE)
			fprintf(stderr, "sframectl: %s: the module refused the sidecar: the kernel's vDSO is not the one this process maps\n",
				VDSO_NAME);
		else
			fprintf(stderr, "sframectl: %s: the module refused the sidecar: %s (see the kernel log)\n",
				VDSO_NAME, strerror(errno));
		ret = errno == EINVAL || errno == ESTALE ? EXIT_INVALID :
			EXIT_USAGE;
		goto out;
	}
	printf("%s: %s (v%u, %u FDEs, %zu bytes, build ID ", VDSO_NAME,
	       dev < 0 ? "made, dry run" : "loaded", sec.version, sec.num_fdes,
	       size);
	vdso_print_id(stdout, id, id_len);
	printf(")\n");
out:
	free(data);
	free(image);
	return ret;
}

/* Withdraw the vDSO's section through @dev.  Exit status. */
int sframe_vdso_unload(int dev)
{
	struct sframe_sidecar_unload arg = {
		.fd = -1, .flags = SFRAME_SIDECAR_VDSO,
	};

	if (ioctl(dev, SFRAME_IOC_UNLOAD, &arg)) {
		if (errno == ENOENT)
			fprintf(stderr, "sframectl: %s: no sidecar loaded\n",
				VDSO_NAME);
		else
			fprintf(stderr, "sframectl: %s: %s\n", VDSO_NAME,
				strerror(errno));
		return errno == ENOENT ? EXIT_INVALID : EXIT_USAGE;
	}
	printf("%s: unloaded\n", VDSO_NAME);
	return 0;
}
