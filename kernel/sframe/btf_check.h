/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel function's prototype as the kernel's BTF describes it, compared
 * with what a hook reads of the function.  btf_check.c parses a BTF blob
 * the caller has read, as untrusted input, and looks functions up in it.
 */
#ifndef _SFRAME_BTF_CHECK_H
#define _SFRAME_BTF_CHECK_H

#include <linux/types.h>

/* The BTF header's fields the parser reads; a longer header is allowed. */
struct sframe_btf_header {
	u16 magic;
	u8 version;
	u8 flags;
	u32 hdr_len;
	u32 type_off;		/* from the end of the header */
	u32 type_len;
	u32 str_off;		/* from the end of the header */
	u32 str_len;
};

#define SFRAME_BTF_MAGIC	0xeb9f
#define SFRAME_BTF_VERSION	1

/* The kinds of type record BTF version 1 has. */
enum sframe_btf_kind {
	SFRAME_BTF_KIND_INT = 1,
	SFRAME_BTF_KIND_PTR,
	SFRAME_BTF_KIND_ARRAY,
	SFRAME_BTF_KIND_STRUCT,
	SFRAME_BTF_KIND_UNION,
	SFRAME_BTF_KIND_ENUM,
	SFRAME_BTF_KIND_FWD,
	SFRAME_BTF_KIND_TYPEDEF,
	SFRAME_BTF_KIND_VOLATILE,
	SFRAME_BTF_KIND_CONST,
	SFRAME_BTF_KIND_RESTRICT,
	SFRAME_BTF_KIND_FUNC,
	SFRAME_BTF_KIND_FUNC_PROTO,
	SFRAME_BTF_KIND_VAR,
	SFRAME_BTF_KIND_DATASEC,
	SFRAME_BTF_KIND_FLOAT,
	SFRAME_BTF_KIND_DECL_TAG,
	SFRAME_BTF_KIND_TYPE_TAG,
	SFRAME_BTF_KIND_ENUM64,
	SFRAME_BTF_NR_KINDS
};

/*
 * Every type record starts with three 32-bit words: its name's offset in
 * the string section, its info word, and a size or a type id.  The info
 * word holds the kind in bits 24-30 and vlen (the number of trailing
 * member or parameter records) in bits 0-23; kernels before 7.x use only
 * bits 0-15 for vlen and 24-28 for the kind, with the others zero.
 */
#define SFRAME_BTF_INFO(kind, vlen)	((u32)(kind) << 24 | (u32)(vlen))
#define SFRAME_BTF_INFO_KIND(info)	(((info) >> 24) & 0x7f)
#define SFRAME_BTF_INFO_VLEN(info)	((info) & 0xffffff)
#define SFRAME_BTF_INFO_KIND_FLAG	(1U << 31)

/*
 * Bounds on what one check follows: a parameter's type through at most
 * this many pointers, typedefs and qualifiers (a loop stops there), and a
 * prototype of at most this many parameters.
 */
#define SFRAME_BTF_MAX_CHAIN	32
#define SFRAME_BTF_MAX_PARAMS	6

/* What a type comes to under its pointers, typedefs and qualifiers. */
enum sframe_btf_base {
	SFRAME_BTF_VOID,
	SFRAME_BTF_SCALAR,	/* an integer, bool or enum of @size bytes */
	SFRAME_BTF_STRUCT,	/* the struct @name */
	SFRAME_BTF_OTHER,	/* anything else: never what a hook expects */
};

/* A C type as a hook relies on it: @pointers levels of pointer to a base. */
struct sframe_btf_type {
	const char *name;
	u32 size;
	u8 base;
	u8 pointers;
};

#define SFRAME_BTF_VOID_TYPE(ptrs) \
	{ .base = SFRAME_BTF_VOID, .pointers = (ptrs) }
#define SFRAME_BTF_SCALAR_TYPE(type, ptrs) \
	{ .base = SFRAME_BTF_SCALAR, .size = sizeof(type), .pointers = (ptrs) }
#define SFRAME_BTF_STRUCT_TYPE(tag, ptrs) \
	{ .base = SFRAME_BTF_STRUCT, .name = #tag, .pointers = (ptrs) }

/*
 * A function's return type and the parameters a hook reads, the first
 * @nr_params: the function may have more, which the hook does not read.
 */
struct sframe_btf_proto {
	struct sframe_btf_type ret;
	struct sframe_btf_type params[SFRAME_BTF_MAX_PARAMS];
	unsigned int nr_params;
};

#define SFRAME_BTF_PROTO(ret_type, ...) {				\
	.ret = ret_type,						\
	.params = { __VA_ARGS__ },					\
	.nr_params = sizeof((struct sframe_btf_type[]){ __VA_ARGS__ }) / \
		     sizeof(struct sframe_btf_type),			\
}

/* Why a blob was refused or a prototype did not match; one errno each. */
enum sframe_btf_reason {
	SFRAME_BTF_MATCH,
	SFRAME_BTF_ERR_ALIGN,
	SFRAME_BTF_ERR_HEADER,
	SFRAME_BTF_ERR_MAGIC,
	SFRAME_BTF_ERR_VERSION,
	SFRAME_BTF_ERR_HDR_LEN,
	SFRAME_BTF_ERR_TYPE_SECTION,
	SFRAME_BTF_ERR_STR_SECTION,
	SFRAME_BTF_ERR_OVERLAP,
	SFRAME_BTF_ERR_STRINGS,
	SFRAME_BTF_ERR_TYPE_TRUNCATED,
	SFRAME_BTF_ERR_KIND,
	SFRAME_BTF_ERR_NAME_OFF,
	SFRAME_BTF_ERR_NOMEM,
	SFRAME_BTF_ERR_TYPE_ID,
	SFRAME_BTF_ERR_CHAIN,
	SFRAME_BTF_ERR_NO_FUNC,
	SFRAME_BTF_ERR_NOT_PROTO,
	SFRAME_BTF_ERR_NR_PARAMS,
	SFRAME_BTF_ERR_RETURN,
	SFRAME_BTF_ERR_PARAM,
	SFRAME_BTF_NR_REASONS
};

/* A parsed blob: views into the caller's buffer, and an index of types. */
struct sframe_btf {
	const u32 *types;	/* the type section */
	const char *strs;	/* the string section, NUL first and last */
	u32 strs_len;
	u32 nr_types;		/* type ids 1 to nr_types; 0 is void */
	u32 *index;		/* each id's record, as a word offset in types */
};

enum sframe_btf_reason sframe_btf_parse(struct sframe_btf *btf,
					const void *data, size_t size);
void sframe_btf_free(struct sframe_btf *btf);
enum sframe_btf_reason sframe_btf_check_func(const struct sframe_btf *btf,
					     const char *name,
					     const struct sframe_btf_proto *want,
					     unsigned int *param);
const char *sframe_btf_reason_str(enum sframe_btf_reason reason);
int sframe_btf_reason_errno(enum sframe_btf_reason reason);

#endif /* _SFRAME_BTF_CHECK_H */
