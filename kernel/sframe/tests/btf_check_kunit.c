// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_btf_check: a hooked function's prototype checked in
 * hand-built BTF blobs (btf_check.c), one that describes copy_vma() as
 * the kernel declares it and variants that differ from it or are broken.
 * btf_check.c is compiled into this module, as kunit_core.c does with the
 * format core, so that the suite tests the source the unwinder is built
 * from without the unwinder exporting it.
 */
#include <kunit/test.h>
#include <linux/swab.h>

#include "../btf_check.c"

/* Type ids of the blob, in the order of its records. */
enum {
	ID_VMA = 1,
	ID_VMA_PTR,
	ID_VMA_PTR_PTR,
	ID_ULONG,
	ID_PGOFF,
	ID_BOOL,
	ID_BOOL_PTR,
	ID_CONST_ULONG,
	ID_FUNC,
	ID_PROTO,
};

/* An INT's encoding word: its width in bits, and the bool flag. */
#define INT_BOOL		(4U << 24)
#define HDR_LEN_7X		32	/* 7.x's header, with a layout section */

struct test_record {
	u32 name_off;
	u32 info;
	u32 size_or_type;
};

struct test_param {
	u32 name_off;
	u32 type;
};

struct test_types {
	struct test_record vma;
	u32 vma_member[3];
	struct test_record vma_ptr, vma_ptr_ptr;
	struct test_record ulong;
	u32 ulong_encoding;
	struct test_record pgoff;
	struct test_record bool_type;
	u32 bool_encoding;
	struct test_record bool_ptr, const_ulong, func;
	struct test_record proto;	/* last: a shorter one is cut off */
	struct test_param params[5];
};

struct test_strs {
	char none[1];
	char vma[sizeof("vm_area_struct")];
	char vm_start[sizeof("vm_start")];
	char copy_vma[sizeof("copy_vma")];
	char ulong[sizeof("unsigned long")];
	char pgoff[sizeof("pgoff_t")];
	char bool_name[sizeof("_Bool")];
};

struct test_blob {
	struct sframe_btf_header hdr;
	u32 layout[2];		/* where 7.x's header goes on */
	struct test_types types;
	struct test_strs strs;
};

#define STR(field)	offsetof(struct test_strs, field)
#define BLOB_SIZE	offsetofend(struct test_blob, strs)

/* copy_vma(struct vm_area_struct **, unsigned long, unsigned long, pgoff_t, bool *) */
static const struct test_blob copy_vma_blob = {
	.hdr = {
		.magic = SFRAME_BTF_MAGIC,
		.version = SFRAME_BTF_VERSION,
		.hdr_len = sizeof(struct sframe_btf_header),
		.type_off = sizeof(u32[2]),
		.type_len = sizeof(struct test_types),
		.str_off = sizeof(u32[2]) + sizeof(struct test_types),
		.str_len = sizeof(struct test_strs),
	},
	.types = {
		.vma = { STR(vma), SFRAME_BTF_INFO(SFRAME_BTF_KIND_STRUCT, 1), 8 },
		.vma_member = { STR(vm_start), ID_ULONG, 0 },
		.vma_ptr = { 0, SFRAME_BTF_INFO(SFRAME_BTF_KIND_PTR, 0), ID_VMA },
		.vma_ptr_ptr = { 0, SFRAME_BTF_INFO(SFRAME_BTF_KIND_PTR, 0),
				 ID_VMA_PTR },
		.ulong = { STR(ulong), SFRAME_BTF_INFO(SFRAME_BTF_KIND_INT, 0), 8 },
		.ulong_encoding = 64,
		.pgoff = { STR(pgoff), SFRAME_BTF_INFO(SFRAME_BTF_KIND_TYPEDEF, 0),
			   ID_ULONG },
		.bool_type = { STR(bool_name),
			       SFRAME_BTF_INFO(SFRAME_BTF_KIND_INT, 0), 1 },
		.bool_encoding = INT_BOOL | 8,
		.bool_ptr = { 0, SFRAME_BTF_INFO(SFRAME_BTF_KIND_PTR, 0), ID_BOOL },
		.const_ulong = { 0, SFRAME_BTF_INFO(SFRAME_BTF_KIND_CONST, 0),
				 ID_ULONG },
		.func = { STR(copy_vma), SFRAME_BTF_INFO(SFRAME_BTF_KIND_FUNC, 1),
			  ID_PROTO },
		.proto = { 0, SFRAME_BTF_INFO(SFRAME_BTF_KIND_FUNC_PROTO, 5),
			   ID_VMA_PTR },
		.params = { { 0, ID_VMA_PTR_PTR }, { 0, ID_ULONG },
			    { 0, ID_CONST_ULONG }, { 0, ID_PGOFF },
			    { 0, ID_BOOL_PTR } },
	},
	.strs = { "", "vm_area_struct", "vm_start", "copy_vma",
		  "unsigned long", "pgoff_t", "_Bool" },
};

/*
 * What a hook that reads copy_vma()'s first four parameters would rely
 * on (attach.c's reads three): the fifth, past them, is not compared.
 */
static const struct sframe_btf_proto copy_vma_proto = SFRAME_BTF_PROTO(
	SFRAME_BTF_STRUCT_TYPE(vm_area_struct, 1),
	SFRAME_BTF_STRUCT_TYPE(vm_area_struct, 2),
	SFRAME_BTF_SCALAR_TYPE(unsigned long, 0),
	SFRAME_BTF_SCALAR_TYPE(unsigned long, 0),
	SFRAME_BTF_SCALAR_TYPE(pgoff_t, 0));

struct btf_case {
	const char *name;
	/* Change the blob; return its new length. */
	size_t (*change)(struct test_blob *b);
	enum sframe_btf_reason reason;
	int err;
	unsigned int param;		/* which differs, or how many there are */
};

static size_t unchanged(struct test_blob *b)
{
	return BLOB_SIZE;
}

static size_t longer_header(struct test_blob *b)
{
	b->hdr.hdr_len = HDR_LEN_7X;
	b->hdr.type_off = 0;
	b->hdr.str_off = sizeof(struct test_types);
	return BLOB_SIZE;
}

static size_t pgoff_is_a_pointer(struct test_blob *b)
{
	b->types.params[3].type = ID_BOOL_PTR;
	return BLOB_SIZE;
}

static size_t vma_pointer_one_level(struct test_blob *b)
{
	b->types.params[0].type = ID_VMA_PTR;
	return BLOB_SIZE;
}

static size_t returns_ulong(struct test_blob *b)
{
	b->types.proto.size_or_type = ID_ULONG;
	return BLOB_SIZE;
}

static size_t three_params(struct test_blob *b)
{
	b->types.proto.info = SFRAME_BTF_INFO(SFRAME_BTF_KIND_FUNC_PROTO, 3);
	b->hdr.type_len -= 2 * sizeof(struct test_param);
	return BLOB_SIZE;
}

static size_t bool_ptr_is_an_int(struct test_blob *b)
{
	b->types.params[4].type = ID_ULONG;
	return BLOB_SIZE;
}

static size_t func_of_an_int(struct test_blob *b)
{
	b->types.func.size_or_type = ID_ULONG;
	return BLOB_SIZE;
}

static size_t func_renamed(struct test_blob *b)
{
	b->types.func.name_off = STR(pgoff);
	return BLOB_SIZE;
}

static size_t header_cut(struct test_blob *b)
{
	return sizeof(struct sframe_btf_header) - 1;
}

static size_t blob_cut_in_types(struct test_blob *b)
{
	return offsetof(struct test_blob, types.proto);
}

static size_t record_cut(struct test_blob *b)
{
	b->hdr.type_len -= sizeof(u32);
	return BLOB_SIZE;
}

static size_t other_byte_order(struct test_blob *b)
{
	b->hdr.magic = swab16(SFRAME_BTF_MAGIC);
	return BLOB_SIZE;
}

static size_t version_2(struct test_blob *b)
{
	b->hdr.version = 2;
	return BLOB_SIZE;
}

static size_t hdr_len_past_end(struct test_blob *b)
{
	b->hdr.hdr_len = BLOB_SIZE + 1;
	return BLOB_SIZE;
}

static size_t strings_past_end(struct test_blob *b)
{
	b->hdr.str_len += 1;
	return BLOB_SIZE;
}

static size_t types_unaligned(struct test_blob *b)
{
	b->hdr.type_off += 2;
	return BLOB_SIZE;
}

static size_t sections_overlap(struct test_blob *b)
{
	b->hdr.str_off = b->hdr.type_off + sizeof(struct test_record);
	b->hdr.str_len = sizeof(struct test_types);
	return BLOB_SIZE;
}

static size_t strings_unterminated(struct test_blob *b)
{
	b->strs.bool_name[sizeof("_Bool") - 1] = '!';
	return BLOB_SIZE;
}

static size_t name_past_strings(struct test_blob *b)
{
	b->types.func.name_off = sizeof(struct test_strs) + 10;
	return BLOB_SIZE;
}

static size_t unknown_kind(struct test_blob *b)
{
	b->types.const_ulong.info = SFRAME_BTF_INFO(SFRAME_BTF_NR_KINDS, 0);
	return BLOB_SIZE;
}

static size_t struct_vlen_past_section(struct test_blob *b)
{
	b->types.vma.info = SFRAME_BTF_INFO(SFRAME_BTF_KIND_STRUCT, 1000);
	return BLOB_SIZE;
}

static size_t param_type_past_ids(struct test_blob *b)
{
	b->types.params[1].type = ID_PROTO + 1;
	return BLOB_SIZE;
}

static size_t func_type_past_ids(struct test_blob *b)
{
	b->types.func.size_or_type = 0x7fffffff;
	return BLOB_SIZE;
}

static size_t typedef_loop(struct test_blob *b)
{
	b->types.pgoff.size_or_type = ID_PGOFF;
	return BLOB_SIZE;
}

static const struct btf_case btf_cases[] = {
	{ "copy_vma() as the kernel declares it is accepted",
	  unchanged, SFRAME_BTF_MATCH, 0 },
	{ "a longer header, as 7.x writes, is accepted",
	  longer_header, SFRAME_BTF_MATCH, 0 },
	{ "pgoff_t turned pointer is refused, naming parameter 3",
	  pgoff_is_a_pointer, SFRAME_BTF_ERR_PARAM, -ENOEXEC, 3 },
	{ "one pointer level less is refused, naming parameter 0",
	  vma_pointer_one_level, SFRAME_BTF_ERR_PARAM, -ENOEXEC, 0 },
	{ "another return type is refused",
	  returns_ulong, SFRAME_BTF_ERR_RETURN, -ENOEXEC },
	{ "fewer parameters than read are refused, saying how many",
	  three_params, SFRAME_BTF_ERR_NR_PARAMS, -ENOEXEC, 3 },
	{ "a parameter past those read may change",
	  bool_ptr_is_an_int, SFRAME_BTF_MATCH, 0 },
	{ "a function whose type is not a prototype is refused",
	  func_of_an_int, SFRAME_BTF_ERR_NOT_PROTO, -EINVAL },
	{ "a function BTF does not have is not found",
	  func_renamed, SFRAME_BTF_ERR_NO_FUNC, -ENOENT },
	{ "a blob shorter than its header is refused",
	  header_cut, SFRAME_BTF_ERR_HEADER, -EINVAL },
	{ "a blob cut inside its type section is refused",
	  blob_cut_in_types, SFRAME_BTF_ERR_TYPE_SECTION, -EINVAL },
	{ "a type record cut by the section's end is refused",
	  record_cut, SFRAME_BTF_ERR_TYPE_TRUNCATED, -EINVAL },
	{ "the other byte order is refused",
	  other_byte_order, SFRAME_BTF_ERR_MAGIC, -EINVAL },
	{ "version 2 is refused",
	  version_2, SFRAME_BTF_ERR_VERSION, -EOPNOTSUPP },
	{ "a header length past the blob is refused",
	  hdr_len_past_end, SFRAME_BTF_ERR_HDR_LEN, -EINVAL },
	{ "a string section past the blob is refused",
	  strings_past_end, SFRAME_BTF_ERR_STR_SECTION, -EINVAL },
	{ "an unaligned type section is refused",
	  types_unaligned, SFRAME_BTF_ERR_TYPE_SECTION, -EINVAL },
	{ "overlapping sections are refused",
	  sections_overlap, SFRAME_BTF_ERR_OVERLAP, -EINVAL },
	{ "a string section without a final NUL is refused",
	  strings_unterminated, SFRAME_BTF_ERR_STRINGS, -EINVAL },
	{ "a name offset past the string section is refused",
	  name_past_strings, SFRAME_BTF_ERR_NAME_OFF, -EINVAL },
	{ "an unknown kind is refused",
	  unknown_kind, SFRAME_BTF_ERR_KIND, -EOPNOTSUPP },
	{ "members past the type section are refused",
	  struct_vlen_past_section, SFRAME_BTF_ERR_TYPE_TRUNCATED, -EINVAL },
	{ "a parameter's type id past the last type is refused",
	  param_type_past_ids, SFRAME_BTF_ERR_TYPE_ID, -EINVAL },
	{ "a function's type id past the last type is refused",
	  func_type_past_ids, SFRAME_BTF_ERR_TYPE_ID, -EINVAL },
	{ "a typedef of itself is refused",
	  typedef_loop, SFRAME_BTF_ERR_CHAIN, -ELOOP },
};

static void btf_case_desc(const struct btf_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(btf, btf_cases, btf_case_desc);

/* Parse the changed blob and check copy_vma() in it, as attach.c does. */
static void sframe_btf_check_accepts_or_refuses_with_its_errno(struct kunit *test)
{
	const struct btf_case *c = test->param_value;
	enum sframe_btf_reason reason;
	unsigned int param = UINT_MAX;
	struct test_blob *blob;
	struct sframe_btf btf;
	size_t size;

	blob = kunit_kzalloc(test, sizeof(*blob), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blob);
	memcpy(blob, &copy_vma_blob, sizeof(*blob));
	size = c->change(blob);
	reason = sframe_btf_parse(&btf, blob, size);
	if (reason == SFRAME_BTF_MATCH) {
		KUNIT_EXPECT_EQ(test, btf.nr_types, (u32)ID_PROTO);
		reason = sframe_btf_check_func(&btf, "copy_vma",
					       &copy_vma_proto, &param);
	}
	sframe_btf_free(&btf);
	KUNIT_EXPECT_STREQ(test, sframe_btf_reason_str(reason),
			   sframe_btf_reason_str(c->reason));
	KUNIT_EXPECT_EQ(test, sframe_btf_reason_errno(reason), c->err);
	if (c->reason == SFRAME_BTF_ERR_PARAM ||
	    c->reason == SFRAME_BTF_ERR_NR_PARAMS)
		KUNIT_EXPECT_EQ(test, param, c->param);
}

/* Every function of the name is traced, so every one must match. */
static void sframe_btf_check_refuses_a_second_function_that_differs(struct kunit *test)
{
	struct test_blob *blob;
	struct sframe_btf btf;
	unsigned int param;

	blob = kunit_kzalloc(test, sizeof(*blob), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blob);
	memcpy(blob, &copy_vma_blob, sizeof(*blob));
	/*
	 * The const unsigned long becomes a first copy_vma() that matches;
	 * the second, later, is of an int.
	 */
	blob->types.const_ulong = (struct test_record){
		STR(copy_vma), SFRAME_BTF_INFO(SFRAME_BTF_KIND_FUNC, 0), ID_PROTO
	};
	blob->types.params[2].type = ID_ULONG;
	blob->types.func.size_or_type = ID_ULONG;
	KUNIT_ASSERT_EQ(test, sframe_btf_parse(&btf, blob, BLOB_SIZE),
			SFRAME_BTF_MATCH);
	KUNIT_EXPECT_EQ(test, sframe_btf_check_func(&btf, "copy_vma",
						    &copy_vma_proto, &param),
			SFRAME_BTF_ERR_NOT_PROTO);
	sframe_btf_free(&btf);
}

/* The parser reads through u32 pointers: it refuses an odd address. */
static void sframe_btf_check_refuses_an_unaligned_blob(struct kunit *test)
{
	struct sframe_btf btf;
	u8 *buf;

	buf = kunit_kzalloc(test, BLOB_SIZE + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf + 1, &copy_vma_blob, BLOB_SIZE);
	KUNIT_EXPECT_EQ(test, sframe_btf_parse(&btf, buf + 1, BLOB_SIZE),
			SFRAME_BTF_ERR_ALIGN);
	sframe_btf_free(&btf);
}

static struct kunit_case sframe_btf_check_cases[] = {
	KUNIT_CASE_PARAM(sframe_btf_check_accepts_or_refuses_with_its_errno,
			 btf_gen_params),
	KUNIT_CASE(sframe_btf_check_refuses_a_second_function_that_differs),
	KUNIT_CASE(sframe_btf_check_refuses_an_unaligned_blob),
	{}
};

static struct kunit_suite sframe_btf_check_suite = {
	.name = "sframe_btf_check",
	.test_cases = sframe_btf_check_cases,
};

kunit_test_suite(sframe_btf_check_suite);
