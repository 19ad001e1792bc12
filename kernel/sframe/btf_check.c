// SPDX-License-Identifier: GPL-2.0
/*
 * Checks a kernel function's prototype in a BTF blob against what a hook
 * reads of it.  The blob is parsed as untrusted input: its header, the
 * bounds of its sections and the size of every type record are checked
 * before any record is read, and every string offset and type id when it
 * is used.  A pure function of the buffer: the caller reads the file.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "btf_check.h"

static const struct {
	const char *msg;
	int err;
} sframe_btf_reasons[SFRAME_BTF_NR_REASONS] = {
	[SFRAME_BTF_MATCH] = { "prototype matches", 0 },
	[SFRAME_BTF_ERR_ALIGN] = { "blob not 4-byte aligned", -EINVAL },
	[SFRAME_BTF_ERR_HEADER] = { "blob shorter than its header", -EINVAL },
	[SFRAME_BTF_ERR_MAGIC] = { "bad magic", -EINVAL },
	[SFRAME_BTF_ERR_VERSION] = { "unsupported version", -EOPNOTSUPP },
	[SFRAME_BTF_ERR_HDR_LEN] = { "header length out of bounds", -EINVAL },
	[SFRAME_BTF_ERR_TYPE_SECTION] = { "type section out of bounds or unaligned", -EINVAL },
	[SFRAME_BTF_ERR_STR_SECTION] = { "string section out of bounds", -EINVAL },
	[SFRAME_BTF_ERR_OVERLAP] = { "type and string sections overlap", -EINVAL },
	[SFRAME_BTF_ERR_STRINGS] = { "string section not NUL at both ends", -EINVAL },
	[SFRAME_BTF_ERR_TYPE_TRUNCATED] = { "type record runs past the type section", -EINVAL },
	[SFRAME_BTF_ERR_KIND] = { "unknown type kind", -EOPNOTSUPP },
	[SFRAME_BTF_ERR_NAME_OFF] = { "string offset out of range", -EINVAL },
	[SFRAME_BTF_ERR_NOMEM] = { "no memory for the type index", -ENOMEM },
	[SFRAME_BTF_ERR_TYPE_ID] = { "type id out of range", -EINVAL },
	[SFRAME_BTF_ERR_CHAIN] = { "type chain too long (a loop?)", -ELOOP },
	[SFRAME_BTF_ERR_NO_FUNC] = { "function not in BTF", -ENOENT },
	[SFRAME_BTF_ERR_NOT_PROTO] = { "function's type is not a prototype", -EINVAL },
	[SFRAME_BTF_ERR_NR_PARAMS] = { "fewer parameters than the hook reads", -ENOEXEC },
	[SFRAME_BTF_ERR_RETURN] = { "another return type", -ENOEXEC },
	[SFRAME_BTF_ERR_PARAM] = { "a parameter of another type", -ENOEXEC },
};

/**
 * sframe_btf_reason_str() - what a reason means, for a log
 * @reason: an SFRAME_BTF_* reason
 *
 * Return: a constant string; "unknown reason" for a value out of range.
 */
const char *sframe_btf_reason_str(enum sframe_btf_reason reason)
{
	if ((unsigned int)reason >= SFRAME_BTF_NR_REASONS)
		return "unknown reason";
	return sframe_btf_reasons[reason].msg;
}

/**
 * sframe_btf_reason_errno() - the errno a reason is returned as
 * @reason: an SFRAME_BTF_* reason
 *
 * Return: 0 for SFRAME_BTF_MATCH, else a negative errno; -EINVAL for a
 * value out of range.
 */
int sframe_btf_reason_errno(enum sframe_btf_reason reason)
{
	if ((unsigned int)reason >= SFRAME_BTF_NR_REASONS)
		return -EINVAL;
	return sframe_btf_reasons[reason].err;
}

/*
 * The 32-bit words that follow a record's first three: a fixed number,
 * and a number per vlen (members, enumerators, parameters, variables).
 * FUNC's vlen is its linkage, not a count.  Kind 0 is no kind.
 */
static const struct {
	u8 fixed;
	u8 per_vlen;
} sframe_btf_trailer[SFRAME_BTF_NR_KINDS] = {
	[SFRAME_BTF_KIND_INT] = { 1, 0 },
	[SFRAME_BTF_KIND_PTR] = { 0, 0 },
	[SFRAME_BTF_KIND_ARRAY] = { 3, 0 },
	[SFRAME_BTF_KIND_STRUCT] = { 0, 3 },
	[SFRAME_BTF_KIND_UNION] = { 0, 3 },
	[SFRAME_BTF_KIND_ENUM] = { 0, 2 },
	[SFRAME_BTF_KIND_FWD] = { 0, 0 },
	[SFRAME_BTF_KIND_TYPEDEF] = { 0, 0 },
	[SFRAME_BTF_KIND_VOLATILE] = { 0, 0 },
	[SFRAME_BTF_KIND_CONST] = { 0, 0 },
	[SFRAME_BTF_KIND_RESTRICT] = { 0, 0 },
	[SFRAME_BTF_KIND_FUNC] = { 0, 0 },
	[SFRAME_BTF_KIND_FUNC_PROTO] = { 0, 2 },
	[SFRAME_BTF_KIND_VAR] = { 1, 0 },
	[SFRAME_BTF_KIND_DATASEC] = { 0, 3 },
	[SFRAME_BTF_KIND_FLOAT] = { 0, 0 },
	[SFRAME_BTF_KIND_DECL_TAG] = { 1, 0 },
	[SFRAME_BTF_KIND_TYPE_TAG] = { 0, 0 },
	[SFRAME_BTF_KIND_ENUM64] = { 0, 3 },
};

#define SFRAME_BTF_RECORD_WORDS	3	/* name_off, info, size or type */

/*
 * Walk the type section record by record, checking that each has a
 * known kind, a name inside the string section and all its trailing
 * words inside the type section; count them, and when @index is given,
 * note where each starts.
 */
static enum sframe_btf_reason sframe_btf_walk(struct sframe_btf *btf,
					      u32 words, u32 *index)
{
	u32 pos = 0, n = 0;

	while (pos < words) {
		const u32 *t = btf->types + pos;
		unsigned int kind;
		u64 len;

		if (words - pos < SFRAME_BTF_RECORD_WORDS)
			return SFRAME_BTF_ERR_TYPE_TRUNCATED;
		kind = SFRAME_BTF_INFO_KIND(t[1]);
		if (!kind || kind >= SFRAME_BTF_NR_KINDS)
			return SFRAME_BTF_ERR_KIND;
		if (t[0] >= btf->strs_len)
			return SFRAME_BTF_ERR_NAME_OFF;
		len = SFRAME_BTF_RECORD_WORDS + sframe_btf_trailer[kind].fixed +
		      (u64)SFRAME_BTF_INFO_VLEN(t[1]) *
		      sframe_btf_trailer[kind].per_vlen;
		if (len > words - pos)
			return SFRAME_BTF_ERR_TYPE_TRUNCATED;
		if (index)
			index[n] = pos;
		n++;
		pos += len;
	}
	btf->nr_types = n;
	return SFRAME_BTF_MATCH;
}

/* Check the header and where it says the sections are; point @btf at them. */
static enum sframe_btf_reason sframe_btf_sections(struct sframe_btf *btf,
						  const void *data, size_t size,
						  u32 *type_words)
{
	const struct sframe_btf_header *h = data;
	u64 type_start, type_end, str_start, str_end;

	if (!IS_ALIGNED((unsigned long)data, sizeof(u32)))
		return SFRAME_BTF_ERR_ALIGN;
	if (size < sizeof(*h))
		return SFRAME_BTF_ERR_HEADER;
	if (h->magic != SFRAME_BTF_MAGIC)
		return SFRAME_BTF_ERR_MAGIC;
	if (h->version != SFRAME_BTF_VERSION)
		return SFRAME_BTF_ERR_VERSION;
	if (h->hdr_len < sizeof(*h) || h->hdr_len > size)
		return SFRAME_BTF_ERR_HDR_LEN;
	type_start = (u64)h->hdr_len + h->type_off;
	type_end = type_start + h->type_len;
	str_start = (u64)h->hdr_len + h->str_off;
	str_end = str_start + h->str_len;
	if (type_end > size || !IS_ALIGNED(type_start, sizeof(u32)) ||
	    !IS_ALIGNED(h->type_len, sizeof(u32)))
		return SFRAME_BTF_ERR_TYPE_SECTION;
	if (str_end > size || !h->str_len)
		return SFRAME_BTF_ERR_STR_SECTION;
	if (h->type_len && type_start < str_end && str_start < type_end)
		return SFRAME_BTF_ERR_OVERLAP;
	btf->types = data + type_start;
	btf->strs = data + str_start;
	btf->strs_len = h->str_len;
	/* Offset 0 is the empty name, and no string runs off the end. */
	if (btf->strs[0] || btf->strs[btf->strs_len - 1])
		return SFRAME_BTF_ERR_STRINGS;
	*type_words = h->type_len / sizeof(u32);
	return SFRAME_BTF_MATCH;
}

/**
 * sframe_btf_parse() - check a BTF blob and index its types
 * @btf: filled in; free it with sframe_btf_free() whatever the result
 * @data: the blob, 4-byte aligned; it must outlive @btf
 * @size: its length in bytes
 *
 * Process context (allocates the index, one word per type).
 *
 * Return: SFRAME_BTF_MATCH when the blob is sound, else why it is not.
 */
enum sframe_btf_reason sframe_btf_parse(struct sframe_btf *btf,
					const void *data, size_t size)
{
	enum sframe_btf_reason reason;
	u32 words;

	memset(btf, 0, sizeof(*btf));
	reason = sframe_btf_sections(btf, data, size, &words);
	if (reason == SFRAME_BTF_MATCH)
		reason = sframe_btf_walk(btf, words, NULL);
	if (reason != SFRAME_BTF_MATCH || !btf->nr_types)
		return reason;
	btf->index = kvmalloc_array(btf->nr_types, sizeof(*btf->index),
				    GFP_KERNEL);
	if (!btf->index) {
		btf->nr_types = 0;
		return SFRAME_BTF_ERR_NOMEM;
	}
	return sframe_btf_walk(btf, words, btf->index);
}

/**
 * sframe_btf_free() - free what sframe_btf_parse() allocated
 * @btf: parsed, successfully or not
 */
void sframe_btf_free(struct sframe_btf *btf)
{
	kvfree(btf->index);
	btf->index = NULL;
	btf->nr_types = 0;
}

/* Type @id's record; @id in 1..nr_types. */
static const u32 *sframe_btf_record(const struct sframe_btf *btf, u32 id)
{
	return btf->types + btf->index[id - 1];
}

/*
 * What type @id comes to: its pointers counted, typedefs and qualifiers
 * skipped, down to void, a scalar, a struct or something else.
 */
static enum sframe_btf_reason sframe_btf_resolve(const struct sframe_btf *btf,
						 u32 id,
						 struct sframe_btf_type *got)
{
	unsigned int steps;
	const u32 *t;

	memset(got, 0, sizeof(*got));
	for (steps = 0; steps < SFRAME_BTF_MAX_CHAIN; steps++) {
		if (!id) {
			got->base = SFRAME_BTF_VOID;
			return SFRAME_BTF_MATCH;
		}
		if (id > btf->nr_types)
			return SFRAME_BTF_ERR_TYPE_ID;
		t = sframe_btf_record(btf, id);
		switch (SFRAME_BTF_INFO_KIND(t[1])) {
		case SFRAME_BTF_KIND_PTR:
			got->pointers++;
			fallthrough;
		case SFRAME_BTF_KIND_TYPEDEF:
		case SFRAME_BTF_KIND_VOLATILE:
		case SFRAME_BTF_KIND_CONST:
		case SFRAME_BTF_KIND_RESTRICT:
		case SFRAME_BTF_KIND_TYPE_TAG:
			id = t[2];
			continue;
		case SFRAME_BTF_KIND_INT:
		case SFRAME_BTF_KIND_ENUM:
		case SFRAME_BTF_KIND_ENUM64:
			got->base = SFRAME_BTF_SCALAR;
			got->size = t[2];
			return SFRAME_BTF_MATCH;
		case SFRAME_BTF_KIND_STRUCT:
			got->base = SFRAME_BTF_STRUCT;
			got->name = btf->strs + t[0];
			return SFRAME_BTF_MATCH;
		case SFRAME_BTF_KIND_FWD:
			/* A declared struct; the kind flag marks a union. */
			if (!(t[1] & SFRAME_BTF_INFO_KIND_FLAG)) {
				got->base = SFRAME_BTF_STRUCT;
				got->name = btf->strs + t[0];
				return SFRAME_BTF_MATCH;
			}
			fallthrough;
		default:
			got->base = SFRAME_BTF_OTHER;
			return SFRAME_BTF_MATCH;
		}
	}
	return SFRAME_BTF_ERR_CHAIN;
}

static bool sframe_btf_type_is(const struct sframe_btf_type *got,
			       const struct sframe_btf_type *want)
{
	if (got->base != want->base || got->pointers != want->pointers)
		return false;
	switch (want->base) {
	case SFRAME_BTF_VOID:
		return true;
	case SFRAME_BTF_SCALAR:
		return got->size == want->size;
	case SFRAME_BTF_STRUCT:
		return !strcmp(got->name, want->name);
	default:
		return false;
	}
}

/*
 * Compare the FUNC_PROTO @id with @want: its return type and its first
 * want->nr_params parameters, the ones a hook reads (those after them
 * move none of them); *@param: which parameter differs, or how many
 * there are when they are fewer.
 */
static enum sframe_btf_reason sframe_btf_check_proto(const struct sframe_btf *btf,
						     u32 id,
						     const struct sframe_btf_proto *want,
						     unsigned int *param)
{
	enum sframe_btf_reason reason;
	struct sframe_btf_type got;
	const u32 *t, *params;
	unsigned int i;

	if (id > btf->nr_types)
		return SFRAME_BTF_ERR_TYPE_ID;
	t = id ? sframe_btf_record(btf, id) : NULL;
	if (!t || SFRAME_BTF_INFO_KIND(t[1]) != SFRAME_BTF_KIND_FUNC_PROTO)
		return SFRAME_BTF_ERR_NOT_PROTO;
	if (SFRAME_BTF_INFO_VLEN(t[1]) < want->nr_params) {
		*param = SFRAME_BTF_INFO_VLEN(t[1]);
		return SFRAME_BTF_ERR_NR_PARAMS;
	}
	reason = sframe_btf_resolve(btf, t[2], &got);
	if (reason != SFRAME_BTF_MATCH)
		return reason;
	if (!sframe_btf_type_is(&got, &want->ret))
		return SFRAME_BTF_ERR_RETURN;
	/* Each parameter: its name's offset, then its type. */
	params = t + SFRAME_BTF_RECORD_WORDS;
	for (i = 0; i < want->nr_params; i++) {
		*param = i;
		reason = sframe_btf_resolve(btf, params[2 * i + 1], &got);
		if (reason != SFRAME_BTF_MATCH)
			return reason;
		if (!sframe_btf_type_is(&got, &want->params[i]))
			return SFRAME_BTF_ERR_PARAM;
	}
	return SFRAME_BTF_MATCH;
}

/**
 * sframe_btf_check_func() - does a function's prototype in BTF match?
 * @btf: parsed by sframe_btf_parse()
 * @name: the function
 * @want: the return type and parameters its hook relies on
 * @param: set to the parameter (from 0) that differs, for
 *	SFRAME_BTF_ERR_PARAM; to the number BTF has, for
 *	SFRAME_BTF_ERR_NR_PARAMS
 *
 * Every function of that name must match, as a hook by name traces them
 * all.
 *
 * Return: SFRAME_BTF_MATCH, or why not.
 */
enum sframe_btf_reason sframe_btf_check_func(const struct sframe_btf *btf,
					     const char *name,
					     const struct sframe_btf_proto *want,
					     unsigned int *param)
{
	enum sframe_btf_reason reason;
	bool found = false;
	const u32 *t;
	u32 id;

	for (id = 1; id <= btf->nr_types; id++) {
		t = sframe_btf_record(btf, id);
		if (SFRAME_BTF_INFO_KIND(t[1]) != SFRAME_BTF_KIND_FUNC ||
		    strcmp(btf->strs + t[0], name))
			continue;
		found = true;
		reason = sframe_btf_check_proto(btf, t[2], want, param);
		if (reason != SFRAME_BTF_MATCH)
			return reason;
	}
	return found ? SFRAME_BTF_MATCH : SFRAME_BTF_ERR_NO_FUNC;
}
