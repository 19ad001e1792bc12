/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm maps' objects and the interfaces between their files:
 * maps.c (range arrays), mms.c (per-mm entries and their rescan),
 * mm_events.c (what the hooks report), fresh.c (mappings published by
 * their own hook), vma_snapshot.c (an mm's executable VMAs), sweep.c (the
 * watcher's sweep), walk_lookup.c (a walk's lookup).
 * Documentation/design.rst has the rules.
 */
#ifndef _SFRAME_MAPS_H
#define _SFRAME_MAPS_H

#include <linux/mm_types.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "cache.h"

struct sframe_range {
	u64 start;
	u64 end;
	u64 pgoff;
	struct sframe_file *file;	/* a reference */
};

/* Immutable once published; shared by an mm and its forked children. */
struct sframe_map {
	struct rcu_work free_work;
	refcount_t ref;
	unsigned int nr;
	struct sframe_range r[];
};

/* Fresh ranges an mm holds at most. */
#define SFRAME_MM_FRESH	8

/*
 * A mapping its hook published (fresh.c): live while start < end; a
 * later change over it kills or narrows it, a rescan retires it once
 * dead (or, when room is needed, once its map has it).  A used slot holds
 * a reference on its file, dead or live.
 */
struct sframe_fresh {
	struct sframe_range r;
	const struct file *vm_file;	/* its VMA's: compared, never read */
	unsigned int change;		/* sframe_mm.changes when published */
};

struct sframe_mm {
	struct hlist_node node;		/* sframe_mms; RCU */
	struct mm_struct *mm;		/* mmgrab()bed */
	pid_t tgid;
	kuid_t uid;			/* charged for the files it maps */
	refcount_t ref;			/* the hash, a queued rescan */
	bool dead;			/* unhashed at exit_mmap */
	spinlock_t lock;		/* the fields below; writers */
	seqcount_spinlock_t seq;	/* the fields below; walks */
	struct sframe_window changed;	/* not rescanned yet */
	struct sframe_window scanning;	/* being rescanned */
	struct sframe_map __rcu *map;
	struct sframe_fresh fresh[SFRAME_MM_FRESH];
	unsigned int changes;		/* changes reported; under lock */
	struct delayed_work rescan;
	unsigned int rescan_tries;	/* in a row, its mmap_lock busy */
	bool rescan_delayed;		/* queued with a delay; the rescan's */
	struct rcu_work free_work;
};

/* What the rescan saw of one executable file VMA. */
struct sframe_vma_snap {
	u64 start;
	u64 end;
	u64 pgoff;
	struct file *file;
};

/* maps.c */
extern atomic_t sframe_works_pending;
struct sframe_map *sframe_map_alloc(unsigned int nr, gfp_t gfp);
void sframe_map_put(struct sframe_map *map);
int sframe_map_find(const struct sframe_map *map, u64 addr);
bool sframe_map_overlaps(const struct sframe_map *map,
			 const struct sframe_window *w);
void sframe_window_widen(struct sframe_window *w,
			 const struct sframe_map *map);
struct sframe_map *sframe_map_build(struct sframe_mm *m,
				    const struct sframe_map *old,
				    const struct sframe_window *win,
				    const struct sframe_vma_snap *v,
				    unsigned int nv);

/* mms.c */
struct sframe_mm *sframe_mm_find(struct mm_struct *mm);
struct sframe_mm *sframe_mm_alloc(struct mm_struct *mm, pid_t tgid,
				  kuid_t uid, gfp_t gfp);
struct sframe_mm *sframe_mm_publish(struct sframe_mm *m);
struct sframe_mm *sframe_mm_get(struct mm_struct *mm, gfp_t gfp,
				pid_t tgid, kuid_t uid);
void sframe_mm_put(struct sframe_mm *m);
void sframe_mm_queue_rescan(struct sframe_mm *m);
bool sframe_mm_covers(struct sframe_mm *m, u64 start, u64 end);

/* A change of an mm's mappings over [start, end), as a hook saw it. */
struct sframe_change {
	u64 start;
	u64 end;
	gfp_t gfp;			/* create the mm's entry if none */
	pid_t tgid;			/* the task that made it; 0: none */
	kuid_t uid;			/* that task's owner */
	struct vm_area_struct *mapped;	/* made executable there */
	struct vm_area_struct *freed;	/* went away from there */
};

void sframe_mm_change(struct mm_struct *mm, const struct sframe_change *c);
struct sframe_mm **sframe_mms_hold_all(unsigned int *nr);

/* fresh.c */
struct sframe_fresh *sframe_fresh_slot(struct sframe_mm *m);
bool sframe_fresh_held(const struct sframe_mm *m);
void sframe_fresh_cut(struct sframe_mm *m, const struct sframe_change *c);
unsigned int sframe_fresh_retire(struct sframe_mm *m, unsigned int upto,
				 struct sframe_file **gone);
void sframe_fresh_put(struct sframe_file **gone, unsigned int nr);
void sframe_fresh_copy(struct sframe_mm *m, const struct sframe_mm *from);
void sframe_fresh_free(struct sframe_mm *m);
int sframe_fresh_find(const struct sframe_mm *m, unsigned int seq, u64 ip,
		      struct sframe_range *r);

/* vma_snapshot.c */
int sframe_mm_snapshot(struct mm_struct *mm, const struct sframe_window *win,
		       struct sframe_vma_snap **out, unsigned int *nr);

#endif /* _SFRAME_MAPS_H */
