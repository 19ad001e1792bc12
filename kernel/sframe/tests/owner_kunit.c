// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_owner: whom the cache charges for a task's mappings
 * (owner.h), from the task's uid and its user namespaces, built here as
 * the kernel would have set them up for each kind of container.
 */
#include <kunit/test.h>

#include "../owner.h"

#define USER		1000
#define USER_SUBUIDS	100000		/* newuidmap's range for USER */
#define TENANT_BASE	200000		/* a root-made container's range */
#define RANGE		65536

struct owner_case {
	const char *name;
	kuid_t ns_owner;		/* of the outermost namespace */
	struct uid_gid_extent map[2];	/* its uid map, inside to outside */
	unsigned int nr_extents;
	bool nested;			/* the task is one namespace deeper */
	uid_t uid;			/* the task's, as the kernel holds it */
	uid_t owner;			/* expected */
};

static const struct owner_case owner_cases[] = {
	{ "a user's rootless container is its creator's",
	  KUIDT_INIT(USER), { { 0, USER, 1 }, { 1, USER_SUBUIDS, RANGE } }, 2,
	  false, USER_SUBUIDS + 33, USER },
	{ "a namespace nested in a user's container is still its creator's",
	  KUIDT_INIT(USER), { { 0, USER, 1 }, { 1, USER_SUBUIDS, RANGE } }, 2,
	  true, USER_SUBUIDS + 33, USER },
	{ "a container root made for a tenant is the uid its root maps to",
	  GLOBAL_ROOT_UID, { { 0, TENANT_BASE, RANGE } }, 1,
	  false, TENANT_BASE + 33, TENANT_BASE },
	{ "a tenant's nested namespace is the tenant's",
	  GLOBAL_ROOT_UID, { { 0, TENANT_BASE, RANGE } }, 1,
	  true, TENANT_BASE + 1000, TENANT_BASE },
	{ "a root-made namespace without a root charges each uid",
	  GLOBAL_ROOT_UID, { { 1000, 1000, 1 } }, 1,
	  false, 1000, 1000 },
	{ "a root-made namespace whose root is root is root's",
	  GLOBAL_ROOT_UID, { { 0, 0, 1 }, { 33, 33, 1 } }, 2,
	  false, 33, 0 },
};

static void owner_desc(const struct owner_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(owner, owner_cases, owner_desc);

static void sframe_owner_charges_one_owner_per_user_or_tenant(struct kunit *test)
{
	const struct owner_case *c = test->param_value;
	struct user_namespace *outer, *inner;
	struct cred *cred;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "the kernel has no user namespaces");
	outer = kunit_kzalloc(test, sizeof(*outer), GFP_KERNEL);
	inner = kunit_kzalloc(test, sizeof(*inner), GFP_KERNEL);
	cred = kunit_kzalloc(test, sizeof(*cred), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, outer);
	KUNIT_ASSERT_NOT_NULL(test, inner);
	KUNIT_ASSERT_NOT_NULL(test, cred);
	outer->parent = &init_user_ns;
	outer->owner = c->ns_owner;
	outer->uid_map.nr_extents = c->nr_extents;
	memcpy(outer->uid_map.extent, c->map, sizeof(c->map));
	inner->parent = outer;
	inner->owner = KUIDT_INIT(c->uid);
	cred->user_ns = c->nested ? inner : outer;
	cred->uid = KUIDT_INIT(c->uid);
	KUNIT_EXPECT_EQ(test, __kuid_val(sframe_charge_owner(cred)), c->owner);
}

static void sframe_owner_initial_namespace_is_the_uid(struct kunit *test)
{
	struct cred cred = {
		.uid = KUIDT_INIT(USER), .user_ns = &init_user_ns,
	};

	KUNIT_EXPECT_EQ(test, __kuid_val(sframe_charge_owner(&cred)), USER);
}

static struct kunit_case sframe_owner_cases[] = {
	KUNIT_CASE(sframe_owner_initial_namespace_is_the_uid),
	KUNIT_CASE_PARAM(sframe_owner_charges_one_owner_per_user_or_tenant,
			 owner_gen_params),
	{}
};

static struct kunit_suite sframe_owner_suite = {
	.name = "sframe_owner",
	.test_cases = sframe_owner_cases,
};

kunit_test_suite(sframe_owner_suite);
