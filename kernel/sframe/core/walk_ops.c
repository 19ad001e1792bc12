// SPDX-License-Identifier: GPL-2.0
/*
 * The walk (walk_impl.h) through the callbacks in the walk's struct
 * sframe_walk_ops: the build the tests and user space use, which walk
 * synthetic stacks and other machines' sections.  The module builds its
 * own from the same template, with its callbacks called directly
 * (walk_user.c).
 */
#include <sframe/walk.h>

#define SFRAME_WALK_READ(w, addr, val, n)				\
	((w)->ops->read((w)->ctx, addr, val, n))
#define SFRAME_WALK_LOOKUP(w, ip, where)				\
	((w)->ops->lookup((w)->ctx, ip, where))
#define SFRAME_WALK_REG(w, reg, val)					\
	((w)->ops->reg && (w)->ops->reg((w)->ctx, reg, val))
#define SFRAME_WALK_RA_MASK(w)	((w)->ra_mask)

#include "walk_impl.h"
