// SPDX-License-Identifier: GPL-2.0
/*
 * true: exit at once.  What mmapbench execs to time the cost of mapping an
 * executable: built with SFrame and without frame pointers (sframe/true),
 * and without SFrame, for the service to give a sidecar (nosframe/true).
 */
int main(void)
{
	return 0;
}
