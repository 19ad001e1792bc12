// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_image: sframe_image_parse() on synthetic vDSO-like
 * images, a good one and each way a header or note can lie about its size,
 * and sframe_note_build_id() on notes padded to 8 bytes.
 * image.c is compiled into the test module itself, as kunit_core.c does
 * with the format core.
 */
#include <kunit/test.h>
#include <linux/elf.h>

#include "../image.c"

#define IMAGE_SIZE	0x1000
#define CODE_SIZE	0x800
#define NOTE_OFF	0x200
#define ID_SIZE		20

/* An image like the vDSO of the machine the tests run on: one R+X PT_LOAD from offset 0, a PT_NOTE. */
static u8 *image_make(struct kunit *test, struct elf64_phdr **note_ph)
{
	u8 *d = kunit_kzalloc(test, IMAGE_SIZE, GFP_KERNEL);
	struct elf64_hdr *eh = (struct elf64_hdr *)d;
	struct elf64_phdr *ph = (struct elf64_phdr *)(d + sizeof(*eh));

	KUNIT_ASSERT_NOT_NULL(test, d);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_DYN;
	eh->e_machine = sframe_arch_native.elf_machine;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	ph[0] = (struct elf64_phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		.p_filesz = CODE_SIZE, .p_memsz = CODE_SIZE,
	};
	ph[1] = (struct elf64_phdr){
		.p_type = PT_NOTE, .p_flags = PF_R, .p_offset = NOTE_OFF,
		.p_vaddr = NOTE_OFF, .p_align = 4,
	};
	*note_ph = &ph[1];
	return d;
}

/* Append a note at the end of the PT_NOTE segment @ph of @d. */
static void image_add_note(u8 *d, struct elf64_phdr *ph, u32 type,
			   const char *name, u32 namesz, u32 descsz, u8 fill)
{
	u8 *p = d + ph->p_offset + ph->p_filesz;
	u32 hdr[3] = { namesz, descsz, type };
	u32 len = sizeof(hdr) + ALIGN(namesz, 4) + ALIGN(descsz, 4);

	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + sizeof(hdr), name, min_t(u32, namesz, strlen(name) + 1));
	memset(p + sizeof(hdr) + ALIGN(namesz, 4), fill, descsz);
	ph->p_filesz += len;
	ph->p_memsz += len;
}

static void image_finds_build_id_and_code(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0xab);
	KUNIT_ASSERT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), 0);
	KUNIT_EXPECT_EQ(test, img.build_id_size, ID_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, img.build_id, (const u8 *)d + NOTE_OFF + 16);
	KUNIT_EXPECT_EQ(test, img.build_id[ID_SIZE - 1], 0xab);
	KUNIT_EXPECT_EQ(test, img.link_base, 0);
	KUNIT_EXPECT_EQ(test, img.code.start, 0);
	KUNIT_EXPECT_EQ(test, img.code.size, CODE_SIZE);
}

static void image_skips_other_notes(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);

	image_add_note(d, note, 0, "Linux", 6, 4, 0x11);
	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNX", 4, 8, 0x22);
	image_add_note(d, note, 1, "GNU", 4, 8, 0x33);
	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0x44);
	KUNIT_ASSERT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), 0);
	KUNIT_EXPECT_EQ(test, img.build_id_size, ID_SIZE);
	KUNIT_EXPECT_EQ(test, img.build_id[0], 0x44);
}

static void image_without_build_id_is_enoent(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);

	image_add_note(d, note, 0, "Linux", 6, 4, 0x11);
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOENT);
}

static void image_rejects_desc_past_segment(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0xab);
	note->p_filesz -= 4;	/* the descriptor's last word falls outside */
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
}

static void image_rejects_huge_sizes(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0xab);
	memcpy(d + NOTE_OFF, &(u32){ U32_MAX }, sizeof(u32));	/* namesz */
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
	memcpy(d + NOTE_OFF, &(u32){ 4 }, sizeof(u32));
	memcpy(d + NOTE_OFF + 4, &(u32){ U32_MAX }, sizeof(u32));	/* descsz */
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
}

static void image_rejects_oversized_build_id(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4,
		       SFRAME_BUILD_ID_MAX + 1, 0xab);
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
}

static void image_rejects_segments_outside(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);
	struct elf64_phdr *load = note - 1;

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0xab);
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, CODE_SIZE - 1, &img),
			-ENOEXEC);
	note->p_offset = IMAGE_SIZE - 8;
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
	note->p_offset = NOTE_OFF;
	load->p_offset = U64_MAX - 4;	/* offset + size wraps around */
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
}

static void image_rejects_bad_headers(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);
	struct elf64_hdr *eh = (struct elf64_hdr *)d;

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0xab);
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, sizeof(*eh) - 1, &img),
			-ENOEXEC);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_phoff = IMAGE_SIZE - sizeof(*note);
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = SFRAME_IMAGE_MAX_PHDRS + 1;
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
}

static void image_needs_one_code_segment_at_one_base(struct kunit *test)
{
	struct sframe_image img;
	struct elf64_phdr *note;
	u8 *d = image_make(test, &note);
	struct elf64_phdr *load = note - 1;

	image_add_note(d, note, SFRAME_NT_GNU_BUILD_ID, "GNU", 4, ID_SIZE, 0xab);
	load->p_flags = PF_R;
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
	load->p_flags = PF_R | PF_X;
	note->p_type = PT_LOAD;		/* a second segment, shifted */
	note->p_vaddr = NOTE_OFF + 0x1000;
	KUNIT_EXPECT_EQ(test, sframe_image_parse(d, IMAGE_SIZE, &img), -ENOEXEC);
}

/* A file's notes: 8-byte padding puts GNU's descriptor at 16, not 20. */
static void note_build_id_in_8_aligned_notes(struct kunit *test)
{
	u8 buf[64] = { 0 };
	u32 hdr[3] = { 4, ID_SIZE, SFRAME_NT_GNU_BUILD_ID };
	const u8 *id = NULL;
	u32 size = 0;

	memcpy(buf, hdr, sizeof(hdr));
	memcpy(buf + 12, "GNU", 4);
	memset(buf + 16, 0xcd, ID_SIZE);
	KUNIT_ASSERT_EQ(test, sframe_note_build_id(buf, 16 + ID_SIZE, 8, &id,
						   &size), 0);
	KUNIT_EXPECT_PTR_EQ(test, id, (const u8 *)buf + 16);
	KUNIT_EXPECT_EQ(test, size, ID_SIZE);
	/* Padded to 4, the same bytes put the descriptor at 16 as well. */
	KUNIT_EXPECT_EQ(test, sframe_note_build_id(buf, 16 + ID_SIZE, 4, &id,
						   &size), 0);
	/* One byte short of the descriptor: a note that lies. */
	KUNIT_EXPECT_EQ(test, sframe_note_build_id(buf, 15 + ID_SIZE, 8, &id,
						   &size), -ENOEXEC);
}

static struct kunit_case sframe_image_cases[] = {
	KUNIT_CASE(note_build_id_in_8_aligned_notes),
	KUNIT_CASE(image_finds_build_id_and_code),
	KUNIT_CASE(image_skips_other_notes),
	KUNIT_CASE(image_without_build_id_is_enoent),
	KUNIT_CASE(image_rejects_desc_past_segment),
	KUNIT_CASE(image_rejects_huge_sizes),
	KUNIT_CASE(image_rejects_oversized_build_id),
	KUNIT_CASE(image_rejects_segments_outside),
	KUNIT_CASE(image_rejects_bad_headers),
	KUNIT_CASE(image_needs_one_code_segment_at_one_base),
	{}
};

static struct kunit_suite sframe_image_suite = {
	.name = "sframe_image",
	.test_cases = sframe_image_cases,
};

kunit_test_suite(sframe_image_suite);
