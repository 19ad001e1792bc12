// SPDX-License-Identifier: GPL-2.0
/*
 * The events a sidecar service reads: "this executable file was mapped
 * and has no SFrame" (or "has SFrame of its own", which may not cover all
 * of its code).  One watcher at a time (SFRAME_IOC_WATCH on
 * /dev/sframe_unwind, opened for writing) gets a descriptor; read() returns
 * struct sframe_event records, each carrying a new read-only descriptor
 * for the file, opened by the module when it read the file, so the
 * service never trusts a path.  Without a watcher nothing is queued.
 * SFRAME_IOC_REPORT_MAPPED on that descriptor sweeps what is mapped now
 * into the same queue, only as far as it has room (sweep.c walks the
 * processes, reports.c picks the files).
 *
 * Lifetimes: a queued record holds a reference to its struct file (and
 * so to the file's mount) until read() hands it to the reader's file
 * table or the watcher closes.  The queue is bounded (SFRAME_EVENTS_MAX);
 * past it records are dropped, counted, and the reader's next read()
 * starts with SFRAME_EVENT_OVERFLOW, after which it must look at what is
 * mapped itself.  The watcher's descriptor holds the module, and reads
 * only for the user that opened it.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>

#include <sframe/ioctl.h>
#include "cache.h"

#define SFRAME_EVENTS_MAX	256

struct sframe_event_item {
	struct list_head node;
	struct file *file;		/* handed to the reader, or put */
	u32 flags;			/* SFRAME_EVENT_F_* */
	kuid_t owner;			/* charged for it */
};

static DEFINE_SPINLOCK(sframe_events_lock);
static LIST_HEAD(sframe_events);	/* oldest first */
static unsigned int sframe_events_nr;
static u64 sframe_events_lost;		/* since the reader last heard */
static bool sframe_events_watched;
/* What SFRAME_IOC_REPORT_MAPPED runs: the watcher's creator says. */
static int (*sframe_events_sweep)(unsigned int sweep);
/* Watchers so far: which one a file entry was reported to (reports.c). */
static unsigned int sframe_events_gen;
static DECLARE_WAIT_QUEUE_HEAD(sframe_events_wait);

/*
 * Queue @file for the watcher, if there is one.  Without room (or
 * memory) the record is dropped and counted when @may_drop, else it is
 * not queued: -ENOSPC (-ENOMEM).  *@gen: the watcher's generation
 * (sframe_events_current()) it went to, or 0 if none watches.
 */
static int sframe_events_add(struct file *file, u32 flags, kuid_t owner,
			     bool may_drop, unsigned int *gen)
{
	struct sframe_event_item *e;
	bool queued = false;
	int ret;

	*gen = 0;
	if (!READ_ONCE(sframe_events_watched))
		return 0;
	e = kmalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	spin_lock(&sframe_events_lock);
	if (e && sframe_events_watched &&
	    sframe_events_nr < SFRAME_EVENTS_MAX) {
		e->file = get_file(file);
		e->flags = flags;
		e->owner = owner;
		list_add_tail(&e->node, &sframe_events);
		sframe_events_nr++;
		queued = true;
	} else if (sframe_events_watched && may_drop) {
		sframe_events_lost++;
	}
	if (sframe_events_watched)
		*gen = sframe_events_gen;
	spin_unlock(&sframe_events_lock);
	if (queued) {
		sframe_count(events_queued);
		wake_up_interruptible(&sframe_events_wait);
		return 0;
	}
	ret = e ? -ENOSPC : -ENOMEM;
	kfree(e);
	if (!may_drop)
		return ret;
	sframe_count(events_dropped);
	return 0;
}

/**
 * sframe_events_need_sidecar() - report a file that needs a sidecar
 * @file: opened by the module to read it
 * @flags: SFRAME_EVENT_F_* of the record
 * @owner: whom the file's read was charged to
 *
 * @file, opened by the module to read it, is an executable ELF object
 * with no SFrame (or, by @flags, with its own): queue it for the watcher,
 * if there is one.  Takes its own reference.  Without room (or memory)
 * the record is dropped and counted.
 *
 * Context: process context.
 *
 * Return: the watcher's generation it went to, or 0 if none watches; a
 * report dropped for a full queue still went to it, as the overflow
 * record it gets instead tells it to ask for what is mapped.
 */
unsigned int sframe_events_need_sidecar(struct file *file, u32 flags,
					kuid_t owner)
{
	unsigned int gen;

	sframe_events_add(file, flags, owner, true, &gen);
	return gen;
}

/**
 * sframe_events_offer() - queue a file a sweep found for the watcher
 * @file: opened by the module to read it
 * @flags: SFRAME_EVENT_F_* of the record; SFRAME_EVENT_F_SWEPT is added
 * @owner: whom the file's read was charged to
 * @gen: set to the watcher's generation, or 0 if none watches
 *
 * The same as sframe_events_need_sidecar() for a sweep, which never drops.
 * The record says it was swept, so that the watcher can serve what is
 * being mapped now first.
 *
 * Context: process context.
 *
 * Return: 0 (queued, or none watches), -ENOSPC when the queue is full, or
 * -ENOMEM; nothing is queued on failure.
 */
int sframe_events_offer(struct file *file, u32 flags, kuid_t owner,
			unsigned int *gen)
{
	return sframe_events_add(file, flags | SFRAME_EVENT_F_SWEPT, owner,
				 false, gen);
}

static bool sframe_events_ready(void)
{
	return READ_ONCE(sframe_events_nr) || READ_ONCE(sframe_events_lost);
}

/* The oldest record, taken off the queue; NULL if none. */
static struct sframe_event_item *sframe_events_pop(u64 *lost)
{
	struct sframe_event_item *e = NULL;

	spin_lock(&sframe_events_lock);
	*lost = sframe_events_lost;
	sframe_events_lost = 0;
	if (!*lost && !list_empty(&sframe_events)) {
		e = list_first_entry(&sframe_events, struct sframe_event_item,
				     node);
		list_del(&e->node);
		sframe_events_nr--;
	}
	spin_unlock(&sframe_events_lock);
	return e;
}

/* Put back what a failed read() took: first in line again. */
static void sframe_events_unpop(struct sframe_event_item *e, u64 lost)
{
	spin_lock(&sframe_events_lock);
	sframe_events_lost += lost;
	if (e) {
		list_add(&e->node, &sframe_events);
		sframe_events_nr++;
	}
	spin_unlock(&sframe_events_lock);
}

/* Copy one record out; 0, or a negative errno with nothing consumed. */
static int sframe_events_read_one(char __user *buf)
{
	struct sframe_event ev = { .size = sizeof(ev), .fd = -1 };
	struct sframe_event_item *e;
	u64 lost;
	int fd = -1;

	e = sframe_events_pop(&lost);
	if (!e && !lost)
		return -EAGAIN;
	if (lost) {
		ev.type = SFRAME_EVENT_OVERFLOW;
		ev.lost = lost;
	} else {
		fd = get_unused_fd_flags(O_CLOEXEC);
		if (fd < 0) {
			sframe_events_unpop(e, 0);
			return fd;
		}
		ev.type = SFRAME_EVENT_NEED_SIDECAR;
		ev.fd = fd;
		ev.flags = e->flags;
		ev.owner = from_kuid_munged(&init_user_ns, e->owner);
	}
	if (copy_to_user(buf, &ev, sizeof(ev))) {
		if (fd >= 0)
			put_unused_fd(fd);
		sframe_events_unpop(e, lost);
		return -EFAULT;
	}
	if (e) {
		fd_install(fd, e->file);	/* the record's reference */
		kfree(e);
	}
	return 0;
}

/*
 * Is the current task the watcher @file was given to: the same effective
 * uid in the same user namespace?  A record hands out a descriptor to a
 * file anyone may have mapped, so a watcher descriptor that leaks (passed
 * on, or kept by a program that then drops privileges) gives nothing to
 * another user.
 */
static bool sframe_events_reader_ok(const struct file *file)
{
	const struct cred *cred = current_cred();

	return cred->user_ns == file->f_cred->user_ns &&
	       uid_eq(cred->euid, file->f_cred->euid);
}

static ssize_t sframe_events_read(struct file *file, char __user *buf,
				  size_t count, loff_t *pos)
{
	size_t done = 0;
	int ret = 0;

	if (!sframe_events_reader_ok(file)) {
		sframe_count(events_reads_refused);
		return -EPERM;
	}
	if (count < sizeof(struct sframe_event))
		return -EINVAL;
	while (count - done >= sizeof(struct sframe_event)) {
		ret = sframe_events_read_one(buf + done);
		if (ret == -EAGAIN && !done && !(file->f_flags & O_NONBLOCK)) {
			ret = wait_event_interruptible(sframe_events_wait,
						       sframe_events_ready());
			if (!ret)
				continue;
		}
		if (ret)
			break;
		done += sizeof(struct sframe_event);
	}
	return done ? done : ret;
}

static __poll_t sframe_events_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &sframe_events_wait, wait);
	return sframe_events_ready() ? EPOLLIN | EPOLLRDNORM : 0;
}

/* The watcher is gone: drop what it did not read, let the next one in. */
static int sframe_events_release(struct inode *inode, struct file *file)
{
	struct sframe_event_item *e, *tmp;
	LIST_HEAD(drop);

	spin_lock(&sframe_events_lock);
	sframe_events_watched = false;
	list_splice_init(&sframe_events, &drop);
	sframe_events_nr = 0;
	sframe_events_lost = 0;
	spin_unlock(&sframe_events_lock);
	list_for_each_entry_safe(e, tmp, &drop, node) {
		fput(e->file);
		kfree(e);
	}
	return 0;
}

/*
 * SFRAME_IOC_REPORT_MAPPED: one sweep at a time; each has its number,
 * which marks the files it reported (never 0: unmarked).
 */
static long sframe_events_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	static DEFINE_MUTEX(sweep_lock);
	static unsigned int sweep;
	long ret;

	if (cmd != SFRAME_IOC_REPORT_MAPPED)
		return -ENOTTY;
	if (arg & ~SFRAME_REPORT_CONTINUE)
		return -EINVAL;
	if (mutex_lock_killable(&sweep_lock))
		return -EINTR;
	if (!(arg & SFRAME_REPORT_CONTINUE) || !sweep) {
		if (!++sweep)
			sweep = 1;
	}
	ret = sframe_events_sweep(sweep);
	mutex_unlock(&sweep_lock);
	return ret;
}

static const struct file_operations sframe_events_fops = {
	.owner = THIS_MODULE,
	.read = sframe_events_read,
	.poll = sframe_events_poll,
	.unlocked_ioctl = sframe_events_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = sframe_events_release,
	.llseek = noop_llseek,
};

/**
 * sframe_events_watch() - make the watcher's descriptor
 * @sweep: what the descriptor's SFRAME_IOC_REPORT_MAPPED calls
 *
 * SFRAME_IOC_WATCH.  Its SFRAME_IOC_REPORT_MAPPED calls @sweep (sweep.c's
 * sframe_mms_sweep(), which fills this queue: passed in, so that this file
 * calls nothing that calls it back).  Each watcher has a new generation.
 *
 * Return: the watcher's descriptor; -EBUSY if a watcher exists, or the
 * negative errno of making the descriptor.
 */
int sframe_events_watch(int (*sweep)(unsigned int sweep))
{
	int fd;

	spin_lock(&sframe_events_lock);
	if (sframe_events_watched) {
		spin_unlock(&sframe_events_lock);
		return -EBUSY;
	}
	sframe_events_watched = true;
	sframe_events_sweep = sweep;
	if (!++sframe_events_gen)	/* 0 means none */
		sframe_events_gen = 1;
	spin_unlock(&sframe_events_lock);
	fd = anon_inode_getfd("[sframe_events]", &sframe_events_fops, NULL,
			      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		WRITE_ONCE(sframe_events_watched, false);
	return fd;
}

/**
 * sframe_events_current() - the watcher's generation
 *
 * Return: the watcher's generation, 0 while none watches.
 */
unsigned int sframe_events_current(void)
{
	return READ_ONCE(sframe_events_watched) ? READ_ONCE(sframe_events_gen) :
						  0;
}

/**
 * sframe_events_queued() - how many records wait for the watcher
 *
 * Return: the number of records queued and not yet read.
 */
long sframe_events_queued(void)
{
	return READ_ONCE(sframe_events_nr);
}
