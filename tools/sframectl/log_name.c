// SPDX-License-Identifier: GPL-2.0
/*
 * A file's name as a log line may carry it: users name their files, and
 * no byte of a name may end the line or forge another.
 */
#include <stdio.h>

#include "sframectl.h"

/*
 * @len bytes of the name @name into @out (@size bytes, at least 1), each
 * control byte and backslash as a backslash and three octal digits; cut
 * short where @out ends.  Return: @out.
 */
const char *sframe_log_name(const char *name, size_t len, char *out,
			    size_t size)
{
	size_t i, k = 0;

	for (i = 0; i < len && k + 5 <= size; i++) {
		unsigned char c = name[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			k += snprintf(out + k, size - k, "\\%03o", c);
		else
			out[k++] = c;
	}
	out[k] = '\0';
	return out;
}
