// SPDX-License-Identifier: GPL-2.0
/*
 * noeh: a program without .eh_frame (static, no C library, no unwind
 * tables) that waits to be killed: an object whose sidecar sframectl
 * serve cannot make, so that its failure and the reason are counted.
 */
void _start(void)
{
	for (;;)
		asm volatile("mov $34, %%eax\n\t"	/* pause() */
			     "syscall" ::: "rax", "rcx", "r11", "memory");
}
