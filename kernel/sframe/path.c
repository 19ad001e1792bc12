// SPDX-License-Identifier: GPL-2.0
/*
 * File names fit for a log line or a debugfs view: a name is the user's,
 * so each control character in it is shown escaped, as \xNN.
 */
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#ifdef SFRAME_HAVE_LINUX_HEX_H	/* set by Kbuild where the kernel has it */
#include <linux/hex.h>
#endif
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/slab.h>

#include "sframe_unwind.h"

static bool sframe_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * @path in a new string with each control character as \xNN: a file
 * name is the user's, and a newline in it would forge a line of the
 * kernel log (or of the debugfs views).  NULL: no memory.
 */
static char *sframe_name_escape(const char *path)
{
	size_t len = 1;
	const char *p;
	char *dup, *q;

	for (p = path; *p; p++)
		len += sframe_is_control(*p) ? 4 : 1;
	dup = kmalloc(len, GFP_KERNEL);
	if (!dup)
		return NULL;
	for (p = path, q = dup; *p; p++) {
		if (!sframe_is_control(*p)) {
			*q++ = *p;
			continue;
		}
		*q++ = '\\';
		*q++ = 'x';
		*q++ = hex_asc_hi(*p);
		*q++ = hex_asc_lo(*p);
	}
	*q = '\0';
	return dup;
}

/**
 * sframe_path_dup() - a file's path, fit for a log line
 * @file: the file
 *
 * Control characters are escaped as \xNN: a file name is the user's, and
 * a newline in it would forge a line of the kernel log (or of the debugfs
 * views).
 *
 * Return: @file's path in a new string, for the caller to kfree(), "?"
 * where it has none; NULL: no memory.
 */
char *sframe_path_dup(struct file *file)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	char *path = buf ? d_path(&file->f_path, buf, PATH_MAX) : NULL;
	char *dup = sframe_name_escape(IS_ERR_OR_NULL(path) ? "?" : path);

	kfree(buf);
	return dup;
}
