// SPDX-License-Identifier: GPL-2.0
/*
 * true: exit at once.  Built with SFrame and without frame pointers, it is
 * what mmapbench execs to time the cost of mapping an SFrame executable.
 */
int main(void)
{
	return 0;
}
