// SPDX-License-Identifier: GPL-2.0
/*
 * mixwalk's functions that keep frame pointers and have no CFI, linked
 * into its SFrame executable: the object has SFrame, but no FDE covers
 * them (hand-written assembly without CFI, a runtime's builtins).
 */
#include "mixwalk.h"

unsigned long nocfi_a(const struct hop *h)
{
	char pad[24];

	pad[0] = 1;
	keep_frame(pad);
	return HOP_ON(h, pad[0]);
}

unsigned long nocfi_b(const struct hop *h)
{
	char pad[40];

	pad[3] = 2;
	keep_frame(pad);
	return HOP_ON(h, pad[3]);
}

/* A leaf the samples interrupt, with its own loop: no rule for it. */
unsigned long nocfi_spin(const struct hop *h)
{
	unsigned long x = (unsigned long)h;

	SPIN_UNTIL(mixwalk_now, mixwalk_deadline, x);
	sink = x;
	return x;
}
