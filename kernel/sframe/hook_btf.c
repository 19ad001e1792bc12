// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's BTF (/sys/kernel/btf/vmlinux), read while the
 * module hooks its observers, to check the prototype of an observed
 * function no header declared to the build (btf_check.c parses it as
 * untrusted input).  Process context at load only; the sample path never
 * sees it, and the buffer is freed once the observers are hooked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>

#include "hook_btf.h"

#define SFRAME_VMLINUX_BTF	"/sys/kernel/btf/vmlinux"
/* Bounds the read: Debian's 6.12 vmlinux BTF is about 6 MiB. */
#define SFRAME_VMLINUX_BTF_MAX	(64 << 20)

/* Read @path whole into a new buffer (kvfree() it); *@size its length. */
static void *sframe_read_whole(const char *path, size_t max, size_t *size)
{
	struct file *file;
	loff_t len, pos = 0;
	ssize_t n;
	void *buf;

	file = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(file))
		return ERR_CAST(file);
	len = i_size_read(file_inode(file));
	if (len <= 0 || len > max) {
		buf = ERR_PTR(len ? -EFBIG : -ENODATA);
		goto out;
	}
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf) {
		buf = ERR_PTR(-ENOMEM);
		goto out;
	}
	/* sysfs hands out at most a page per read. */
	while (pos < len) {
		n = kernel_read(file, buf + pos, len - pos, &pos);
		if (n <= 0) {
			kvfree(buf);
			buf = ERR_PTR(n ? n : -EIO);
			goto out;
		}
	}
	*size = len;
out:
	filp_close(file, NULL);
	return buf;
}

/* Read and parse the kernel's BTF, the first time an observer needs it. */
static void sframe_kernel_btf_get(struct sframe_kernel_btf *kb)
{
	size_t size = 0;

	if (kb->tried)
		return;
	kb->tried = true;
	kb->data = sframe_read_whole(SFRAME_VMLINUX_BTF,
				     SFRAME_VMLINUX_BTF_MAX, &size);
	if (IS_ERR(kb->data)) {
		kb->read_err = PTR_ERR(kb->data);
		kb->data = NULL;
		return;
	}
	kb->parsed = sframe_btf_parse(&kb->btf, kb->data, size);
}

/**
 * sframe_kernel_btf_put() - free the kernel's BTF read for the checks
 * @kb: the kernel's BTF, read or not
 *
 * Free what sframe_kernel_btf_check() read.
 */
void sframe_kernel_btf_put(struct sframe_kernel_btf *kb)
{
	sframe_btf_free(&kb->btf);
	kvfree(kb->data);
}

/**
 * sframe_kernel_btf_check() - is a function's prototype in the kernel's BTF
 *	what its hook reads?
 * @kb: the kernel's BTF, read at the first call
 * @name: the function
 * @want: what the hook reads of it
 * @why: where to say why not
 * @len: @why's size
 *
 * Return: 0 if it is; else a negative errno, and @why says why.
 */
int sframe_kernel_btf_check(struct sframe_kernel_btf *kb, const char *name,
			    const struct sframe_btf_proto *want,
			    char *why, size_t len)
{
	enum sframe_btf_reason reason;
	unsigned int param = 0;

	sframe_kernel_btf_get(kb);
	if (kb->read_err) {
		snprintf(why, len, "cannot read %s to check its prototype",
			 SFRAME_VMLINUX_BTF);
		return kb->read_err;
	}
	if (kb->parsed != SFRAME_BTF_MATCH) {
		snprintf(why, len, "the kernel's BTF is refused: %s",
			 sframe_btf_reason_str(kb->parsed));
		return sframe_btf_reason_errno(kb->parsed);
	}
	reason = sframe_btf_check_func(&kb->btf, name, want, &param);
	if (reason == SFRAME_BTF_MATCH)
		return 0;
	if (reason == SFRAME_BTF_ERR_PARAM)
		snprintf(why, len, "its prototype in BTF: %s (argument %u)",
			 sframe_btf_reason_str(reason), param);
	else if (reason == SFRAME_BTF_ERR_NR_PARAMS)
		snprintf(why, len, "its prototype in BTF: %s (%u, reads %u)",
			 sframe_btf_reason_str(reason), param, want->nr_params);
	else
		snprintf(why, len, "its prototype in BTF: %s",
			 sframe_btf_reason_str(reason));
	return sframe_btf_reason_errno(reason);
}
