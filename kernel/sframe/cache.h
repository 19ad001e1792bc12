/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The section cache's objects and the interfaces between its files:
 * budget.c (memory charges), section.c (validated sections), elf.c and
 * load.c (reading a file), files.c (file entries), reports.c and bind.c
 * (their reports and sidecars), maps.h (per-mm maps).
 * Documentation/design.rst has their lifetimes.
 */
#ifndef _SFRAME_CACHE_H
#define _SFRAME_CACHE_H

#include <linux/fs.h>
#include <linux/refcount.h>
#include <linux/spinlock_types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include <sframe/flat.h>
#include <sframe/ioctl.h>
#include "file_id.h"
#include "owner.h"
#include "sframe_unwind.h"

#define SFRAME_MAX_LOADS	8	/* executable PT_LOAD segments kept */
#define SFRAME_RETRY_SECONDS	10	/* before a transient failure is retried */

/* Bytes charged to a user (and to the module's total); see budget.c. */
struct sframe_charge {
	kuid_t uid;
	size_t bytes;
};

void sframe_budget_set_reclaim(bool (*reclaim)(kuid_t uid));
kuid_t sframe_task_charge_owner(struct task_struct *task);
int sframe_charge(struct sframe_charge *c, size_t bytes, gfp_t gfp);
void sframe_uncharge_bytes(struct sframe_charge *c, size_t bytes);
void sframe_uncharge(struct sframe_charge *c);

/*
 * One validated section and its lookup table; immutable once in use, and
 * by then without its bytes (sframe_sec_drop_bytes()): the table answers
 * every lookup, and sec's header fields stay for statistics.
 */
struct sframe_sec {
	struct sframe_section sec;
	struct sframe_flat flat;
	void *flat_mem;
	u8 *data;			/* NULL once dropped */
	size_t data_size;
	bool fills_gaps;		/* a sidecar behind the file's own */
	struct sframe_charge charge;	/* everything above */
};

struct sframe_sec *sframe_sec_create(u8 *data, u32 size, u64 vaddr,
				     unsigned int options,
				     struct sframe_charge *charge,
				     struct sframe_error *err);
void sframe_sec_drop_bytes(struct sframe_sec *s);
void sframe_sec_free(struct sframe_sec *s);

struct sframe_load_seg {
	u64 offset;
	u64 vaddr;
	u64 filesz;
};

/* What one read of an ELF file found (elf.c); immutable once published. */
struct sframe_object {
	unsigned int nr_loads;
	struct sframe_load_seg loads[SFRAME_MAX_LOADS];
	u32 build_id_size;
	u8 build_id[SFRAME_BUILD_ID_MAX];
	struct sframe_sec *embedded;	/* NULL: none, or not usable */
};

/* Reads @len bytes at @pos of a file: 0 or a negative errno. */
struct sframe_reader {
	int (*read)(struct sframe_reader *rd, void *buf, size_t len, u64 pos);
	struct file *file;		/* read through, with I/O */
	struct address_space *mapping;	/* or only its cached pages */
};

struct sframe_elf {
	struct sframe_object *obj;
	u64 sframe_offset;		/* the PT_GNU_SFRAME segment, if any */
	u64 sframe_vaddr;
	u64 sframe_size;
	bool has_sframe;
};

int sframe_elf_parse(struct sframe_reader *rd, struct sframe_elf *elf);
bool sframe_object_bias(const struct sframe_object *obj, u64 start,
			u64 pgoff, u64 *bias);

/* The outcome of reading a file (load.c). */
struct sframe_load_result {
	struct sframe_object *obj;	/* NULL on failure */
	const char *status;		/* what a user is shown */
	bool transient;			/* worth trying again later */
	bool over_quota;		/* the owner's max_user_mb refused it */
	/*
	 * Held, for the sidecar service: code of ours with no .sframe, or
	 * with a valid one of its own (report_flags says so).
	 */
	struct file *needs_sidecar;
	u32 report_flags;		/* SFRAME_EVENT_F_* */
};

void sframe_load_file(struct file *file, const char *path, kuid_t owner,
		      struct sframe_load_result *res);
struct file *sframe_load_report_file(struct file *file);
void sframe_object_free(struct sframe_object *obj);

/* One file, keyed by its real inode; files.c. */
struct sframe_file {
	struct hlist_node node;		/* in sframe_files, under its lock */
	refcount_t ref;			/* maps, pinned sidecar, load, idle list */
	struct sframe_file_id id;	/* the file it is for */
	struct sframe_object __rcu *obj;	/* once read */
	struct sframe_sec __rcu *sidecar;
	bool sidecar_pinned;		/* it holds a reference: loaded by hand */
	const char *status;		/* of the last read */
	unsigned long retry_at;		/* jiffies; a transient failure */
	bool loading;			/* a load is queued or running */
	/*
	 * The last read found something to report (report_flags), and to
	 * which watcher it was reported (sframe_events_current()).
	 */
	bool reportable;
	u32 report_flags;
	unsigned int reported_gen;
	unsigned int swept;		/* the last sweep that reported it */
	char *path;
	struct sframe_charge charge;	/* this struct and the path */
	struct list_head idle;		/* on the idle list: no user left */
	unsigned long idle_since;	/* jiffies */
	/*
	 * Charged for the next read: the mapper that asked for it, not the
	 * entry's first one.  refused_owner's quota refused the last read
	 * (else INVALID_UID): another user's mapping reads it at once.
	 */
	kuid_t load_owner;
	kuid_t refused_owner;
	struct file *load_file;		/* the file to read, while loading */
	struct mem_cgroup *load_memcg;	/* charged for what it reads */
	struct work_struct load_work;
	/* Counted by admit.c under load_owner; waiting in its queue. */
	bool load_admitted;
	struct list_head load_wait;
};

/* Loads one owner may have running at once (admit.c). */
#define SFRAME_LOADS_PER_OWNER	8

bool sframe_load_admit(struct sframe_file *sf);
bool sframe_load_claim(struct sframe_file *sf, kuid_t owner);
struct sframe_file *sframe_load_done(struct sframe_file *sf);
bool sframe_loads_idle(void);

struct sframe_file *sframe_file_get(struct file *file, kuid_t owner,
				    struct mm_struct *mm);
struct sframe_file *sframe_file_get_known(struct file *file);
void sframe_file_put(struct sframe_file *sf);
void sframe_file_hold(struct sframe_file *sf);
const struct sframe_sec *sframe_file_sec(const struct sframe_file *sf,
					 const struct sframe_sec **fill,
					 const struct sframe_object **obj);
extern struct workqueue_struct *sframe_wq;

/* The entries' hash (files.c), for reports.c and bind.c. */
extern spinlock_t sframe_files_lock;
struct inode *sframe_real_inode(struct file *file);
struct sframe_file *sframe_file_find(const struct sframe_file_id *now);
bool sframe_file_unidle(struct sframe_file *sf);
struct sframe_sec *sframe_file_take_sidecar(struct sframe_file *sf,
					    bool *ref);

/* reports.c */
void sframe_file_mapped(struct sframe_file *sf, struct file *file,
			kuid_t owner);
int sframe_file_sweep(struct file *file, unsigned int sweep, kuid_t owner);

#endif /* _SFRAME_CACHE_H */
