// SPDX-License-Identifier: GPL-2.0
/*
 * libmremaptext.so: the code mremaptext moves with mremap(), a recursion
 * that ends in a spin loop.  It runs at any address its text segment is
 * moved to: it reads no global data and calls only its own functions,
 * directly (protected visibility binds them here, so no call goes
 * through the PLT, whose GOT stays behind).  Protected rather than
 * hidden, so that dlsym() and dladdr1() give each function's address
 * and size.
 *
 * build: -fomit-frame-pointer -Wa,--gsframe (only SFrame describes these
 * frames), -fno-optimize-sibling-calls (real recursion)
 */
/* noipa: no clone of it (.isra, .constprop) that dlsym() cannot name */
#define MT_EXPORT	__attribute__((visibility("protected"), noipa))

/* A local array the compiler must keep: each call has a frame of its own. */
static inline void keep_frame(char *pad)
{
	asm volatile("" : : "r" (pad) : "memory");
}

/* The leaf the samples interrupt: LOOPS steps of a generator. */
MT_EXPORT unsigned long mt_spin(unsigned long loops, unsigned long x)
{
	while (loops--)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* DEPTH more frames of itself, then the leaf. */
MT_EXPORT unsigned long mt_recurse(unsigned int depth, unsigned long loops)
{
	char pad[24];

	pad[3] = (char)depth;
	keep_frame(pad);
	if (!depth)
		return mt_spin(loops, (unsigned long)pad) + pad[3];
	return mt_recurse(depth - 1, loops) + pad[3];
}

/* What the program calls, at the moved text's address. */
MT_EXPORT unsigned long mt_enter(unsigned int depth, unsigned long loops)
{
	char pad[40];

	pad[7] = 1;
	keep_frame(pad);
	return mt_recurse(depth - 1, loops) + pad[7];
}
