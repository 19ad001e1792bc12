/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for the user-space test programs: one line per
 * assertion, a plan at the end, exit status 1 if anything failed.
 */
#ifndef _SFRAME_TAP_H
#define _SFRAME_TAP_H

#include <stdarg.h>
#include <stdio.h>

#include <sframe/compat.h>

static unsigned int tap_run, tap_failed;

static inline __printf(2, 3)
bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %u - ", cond ? "" : "not ", tap_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return cond;
}

/* A test this host cannot run: TAP's skip directive, with the reason. */
static inline __printf(2, 3)
void tap_skip(const char *what, const char *why_fmt, ...)
{
	va_list ap;

	tap_run++;
	printf("ok %u - %s # SKIP ", tap_run, what);
	va_start(ap, why_fmt);
	vprintf(why_fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline __printf(1, 2)
void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_done(void)
{
	printf("1..%u\n", tap_run);
	return tap_failed || !tap_run ? 1 : 0;
}

#endif /* _SFRAME_TAP_H */
