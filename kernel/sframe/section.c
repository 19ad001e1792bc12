// SPDX-License-Identifier: GPL-2.0
/*
 * A cached section: validate untrusted SFrame bytes once, completely, then
 * build the flattened table a walk uses, each byte charged before it is
 * allocated; a section that cannot have one is refused.  Once its owner
 * has checked it against the object, the bytes go and the table stays.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "cache.h"

/**
 * sframe_sec_free() - free a section and give back its charge
 * @s: the section, or NULL
 *
 * Its table, its bytes if it still has them, and the struct itself; the
 * caller makes sure no walk can still be using it.
 */
void sframe_sec_free(struct sframe_sec *s)
{
	if (!s)
		return;
	kvfree(s->flat_mem);
	kvfree(s->data);
	sframe_uncharge(&s->charge);
	kfree(s);
}

/**
 * sframe_sec_drop_bytes() - give back a section's bytes
 * @s: the section
 *
 * Give back @s's section bytes, once its owner's checks of them are done
 * and before it is published: the table answers every lookup a walk
 * makes, so only sec's header fields are used after this.
 */
void sframe_sec_drop_bytes(struct sframe_sec *s)
{
	kvfree(s->data);
	s->data = NULL;
	s->sec.data = NULL;
	sframe_uncharge_bytes(&s->charge, s->data_size);
	s->data_size = 0;
}

/*
 * Give @s its flattened table, so a walk finds a rule with one bounded
 * search.  A section the table cannot describe is refused, its reason in
 * *@err: decoding it at each frame instead would let one crafted section
 * make a sample take seconds.
 */
static int sframe_sec_flatten(struct sframe_sec *s, struct sframe_error *err)
{
	struct sframe_flat_builder *b;
	size_t bytes = 0;
	int ret;

	b = kvmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = sframe_flat_size(&s->sec, b, &bytes);
	if (ret) {
		*err = b->error;
		goto out;
	}
	ret = sframe_charge(&s->charge, bytes, GFP_KERNEL);
	if (ret)
		goto out;
	s->flat_mem = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!s->flat_mem) {
		ret = -ENOMEM;
		goto out;
	}
	sframe_flat_build(&s->sec, b, s->flat_mem, &s->flat);
	s->sec.flat = &s->flat;
out:
	kvfree(b);
	return ret;
}

static atomic64_t sframe_sec_ids = ATOMIC64_INIT(0);

/**
 * sframe_sec_create() - validate section bytes into a cached section
 * @data: the section's bytes, kvmalloc()ed
 * @size: how many
 * @vaddr: the link address the bytes are assumed at
 * @options: for sframe_validate(): SFRAME_REQUIRE_SORTED,
 *	SFRAME_SEGMENT_PADDING
 * @charge: the charge for @data, which should hold @size already
 * @err: set to why validation (or the table) refused the bytes;
 *	err->reason is SFRAME_VALID otherwise
 *
 * Validate @size bytes at @data, assumed at link address @vaddr, into a
 * section ready for lookups: validated, of this machine's ABI, with its
 * flattened table built.  Takes over @data and @charge: on failure both
 * are released.
 *
 * Context: process context.
 *
 * Return: the section, holding @data and the charge; else an ERR_PTR:
 * the errno of the reason in *@err when validation or the table refused
 * the bytes; otherwise -EPROTONOSUPPORT (another ABI), -ENOSPC or -EDQUOT
 * (a memory limit), -ENOMEM.
 */
struct sframe_sec *sframe_sec_create(u8 *data, u32 size, u64 vaddr,
				     unsigned int options,
				     struct sframe_charge *charge,
				     struct sframe_error *err)
{
	struct sframe_sec *s;
	int ret;

	err->reason = SFRAME_VALID;
	ret = sframe_charge(charge, sizeof(*s), GFP_KERNEL);
	s = ret ? NULL : kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s) {
		kvfree(data);
		sframe_uncharge(charge);
		return ERR_PTR(ret ?: -ENOMEM);
	}
	s->data = data;
	s->data_size = size;
	s->charge = *charge;
	charge->bytes = 0;
	ret = sframe_validate(&s->sec, data, size, vaddr, options, err);
	/* Unique for the module's life: the walk's step cache keys on it. */
	s->sec.id = atomic64_inc_return(&sframe_sec_ids);
	if (!ret && s->sec.abi != sframe_arch_native.abi)
		ret = -EPROTONOSUPPORT;
	if (!ret)
		ret = sframe_sec_flatten(s, err);
	if (ret) {
		sframe_sec_free(s);
		return ERR_PTR(ret);
	}
	return s;
}
