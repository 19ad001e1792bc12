// SPDX-License-Identifier: GPL-2.0
/*
 * The section cache: one validated copy of each file's .sframe, shared by
 * every process that maps the file, and per mm a sorted map from text
 * ranges to those sections, which the unwinder reads under RCU in any
 * context, NMI included.
 *
 * Mappings are reported by hooks that run under mmap_lock; the file is
 * read later by a worker, outside any mm lock.  Files stay cached until
 * the module is unloaded; the cache stops growing at max_cache_mb.
 *
 * A file's section is its own PT_GNU_SFRAME or, when root has handed one
 * in (sidecar.c), a sidecar, which takes precedence and can be replaced or
 * withdrawn at any time: ranges point at the file, and a walk picks the
 * file's current section under RCU.
 */
#include <linux/debugfs.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "sframe_unwind.h"
#include "vdso.h"

#define SFRAME_FILE_HASH_BITS	8
#define SFRAME_MM_HASH_BITS	9
#define SFRAME_MAX_PHDRS	64	/* more program headers: not a normal object */
#define SFRAME_MAX_LOADS	8	/* executable PT_LOAD segments kept */

unsigned int sframe_max_cache_mb = 256;
unsigned int sframe_max_section_mb = 64;
bool sframe_enabled = true;

const char * const sframe_load_fail_names[SFRAME_NR_LOAD_FAILS] = {
	[SFRAME_LOAD_NOT_ELF] = "not an x86-64 ELF object",
	[SFRAME_LOAD_READ] = "read error",
	[SFRAME_LOAD_TOO_BIG] = "section over max_section_mb",
	[SFRAME_LOAD_CACHE_FULL] = "cache over max_cache_mb",
	[SFRAME_LOAD_NOMEM] = "out of memory",
	[SFRAME_LOAD_ABI] = "SFrame for another ABI",
};

struct sframe_load_seg {
	u64 offset;
	u64 vaddr;
	u64 filesz;
};

/* One validated section and its lookup index; immutable once in use. */
struct sframe_sec {
	struct sframe_section sec;
	struct sframe_flat flat;
	void *flat_mem;
	u32 *index;
	u8 *data;
	size_t bytes;			/* kernel memory held */
};

/* One file, identified by device, inode, generation, size and ctime. */
struct sframe_file {
	struct hlist_node node;
	dev_t dev;
	unsigned long ino;
	u32 generation;
	loff_t size;
	struct timespec64 ctime;
	const char *status;		/* of the embedded section */
	char *path;
	size_t bytes;			/* kernel memory held, sections apart */
	unsigned int nr_loads;
	struct sframe_load_seg loads[SFRAME_MAX_LOADS];
	struct sframe_sec *embedded;	/* set before the file is published */
	struct sframe_sec __rcu *sidecar;	/* under sframe_files_lock */
};

struct sframe_range {
	u64 start;
	u64 end;
	u64 bias;			/* runtime address - link address */
	struct sframe_file *file;
};

struct sframe_map {
	struct rcu_head rcu;
	unsigned int nr;
	struct sframe_range r[];
};

struct sframe_mm {
	struct hlist_node node;
	struct mm_struct *mm;
	pid_t tgid;
	struct sframe_map __rcu *map;
	struct rcu_head rcu;
};

/* A mapping to look at, queued by the hooks for the worker. */
struct sframe_work {
	struct work_struct work;
	struct file *file;
	struct mm_struct *mm;
	pid_t tgid;
	u64 start;
	u64 end;
	u64 pgoff;
};

static DEFINE_HASHTABLE(sframe_files, SFRAME_FILE_HASH_BITS);
static DEFINE_MUTEX(sframe_files_lock);
static DEFINE_HASHTABLE(sframe_mms, SFRAME_MM_HASH_BITS);
static DEFINE_SPINLOCK(sframe_mms_lock);
static atomic_long_t sframe_cache_bytes;
static atomic_long_t sframe_nr_files;
static struct workqueue_struct *sframe_wq;

/* ---- files ---- */

static bool sframe_file_is(const struct sframe_file *sf,
			   const struct inode *inode)
{
	struct timespec64 ctime = inode_get_ctime(inode);

	return sf->dev == inode->i_sb->s_dev && sf->ino == inode->i_ino &&
	       sf->generation == inode->i_generation &&
	       sf->size == i_size_read(inode) &&
	       timespec64_equal(&sf->ctime, &ctime);
}

static int sframe_read_at(struct file *file, void *buf, size_t len, u64 pos)
{
	loff_t off = pos;

	return kernel_read(file, buf, len, &off) == (ssize_t)len ? 0 : -EIO;
}

/* Count and record why @sf's section is not used; log it if @log. */
static void sframe_file_fail(struct sframe_file *sf, enum sframe_load_fail why,
			     bool log)
{
	sframe_count(load_failed[why]);
	sf->status = sframe_load_fail_names[why];
	if (log)
		pr_warn_ratelimited("sframe_unwind: %s: .sframe not used: %s\n",
				    sf->path, sf->status);
}

void sframe_sec_free(struct sframe_sec *s)
{
	if (!s)
		return;
	atomic_long_sub(s->bytes, &sframe_cache_bytes);
	kvfree(s->flat_mem);
	kvfree(s->index);
	kvfree(s->data);
	kfree(s);
}

/* The validated view of @s, for the vDSO's section (vdso.c). */
const struct sframe_section *sframe_sec_section(const struct sframe_sec *s)
{
	return &s->sec;
}

size_t sframe_sec_bytes(const struct sframe_sec *s)
{
	return s->bytes;
}

/*
 * Give @s its flattened table, so a walk finds a rule with one search.
 * Without one (no memory, or a section the table cannot describe) lookups
 * decode instead: slower, same answers.  Returns the bytes it holds.
 */
static size_t sframe_sec_flatten(struct sframe_sec *s)
{
	struct sframe_flat_builder *b;
	size_t bytes = 0;

	b = kvmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return 0;
	if (!sframe_flat_size(&s->sec, b, &bytes)) {
		s->flat_mem = kvmalloc(bytes, GFP_KERNEL);
		if (s->flat_mem) {
			sframe_flat_build(&s->sec, b, s->flat_mem, &s->flat);
			s->sec.flat = &s->flat;
		}
	}
	kvfree(b);
	if (!s->flat_mem)
		sframe_count(sections_not_flattened);
	return s->flat_mem ? bytes : 0;
}

/* The FDE index, for sections without a flattened table. */
static int sframe_sec_index(struct sframe_sec *s, size_t *bytes)
{
	u32 entries = sframe_index_entries(&s->sec);

	*bytes = 0;
	if (!entries)
		return 0;
	s->index = kvmalloc_array(entries, sizeof(u32), GFP_KERNEL);
	if (!s->index)
		return -ENOMEM;
	sframe_index_build(&s->sec, s->index);
	*bytes = (size_t)entries * sizeof(u32);
	return 0;
}

/*
 * Validate @size bytes at @data (kvmalloc()ed; taken over, freed on
 * failure), assumed at link address @vaddr, into a section ready for
 * lookups.  On failure *@err says why when validation did.
 */
struct sframe_sec *sframe_sec_create(u8 *data, u32 size, u64 vaddr,
				     unsigned int options,
				     struct sframe_error *err)
{
	struct sframe_sec *s;
	size_t extra;
	int ret;

	err->reason = SFRAME_VALID;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		kvfree(data);
		return ERR_PTR(-ENOMEM);
	}
	s->data = data;
	ret = sframe_validate(&s->sec, data, size, vaddr, options, err);
	if (!ret && s->sec.abi != SFRAME_ABI_AMD64_ENDIAN_LITTLE)
		ret = -EPROTONOSUPPORT;
	if (ret)
		goto fail;
	extra = sframe_sec_flatten(s);
	if (!extra) {
		ret = sframe_sec_index(s, &extra);
		if (ret)
			goto fail;
	}
	s->bytes = sizeof(*s) + size + extra;
	atomic_long_add(s->bytes, &sframe_cache_bytes);
	return s;
fail:
	kvfree(s->data);
	kfree(s);
	return ERR_PTR(ret);
}

/* Would @bytes more keep the cache within max_cache_mb? */
bool sframe_cache_room(u64 bytes)
{
	return atomic_long_read(&sframe_cache_bytes) + bytes <=
	       (u64)READ_ONCE(sframe_max_cache_mb) << 20;
}

/* Validate the PT_GNU_SFRAME segment @ph of @file into @sf. */
static void sframe_file_load_section(struct sframe_file *sf, struct file *file,
				     const struct elf64_phdr *ph)
{
	u64 max = (u64)READ_ONCE(sframe_max_section_mb) << 20;
	struct sframe_error err;
	struct sframe_sec *s;
	u8 *data;

	if (ph->p_filesz > max || ph->p_filesz > U32_MAX) {
		sframe_file_fail(sf, SFRAME_LOAD_TOO_BIG, true);
		return;
	}
	if (!sframe_cache_room(ph->p_filesz)) {
		sframe_file_fail(sf, SFRAME_LOAD_CACHE_FULL, false);
		return;
	}
	data = kvmalloc(ph->p_filesz, GFP_KERNEL);
	if (!data) {
		sframe_file_fail(sf, SFRAME_LOAD_NOMEM, false);
		return;
	}
	if (sframe_read_at(file, data, ph->p_filesz, ph->p_offset)) {
		kvfree(data);
		sframe_file_fail(sf, SFRAME_LOAD_READ, true);
		return;
	}
	s = sframe_sec_create(data, (u32)ph->p_filesz, ph->p_vaddr,
			      SFRAME_REQUIRE_SORTED | SFRAME_SEGMENT_PADDING,
			      &err);
	if (IS_ERR(s)) {
		if (err.reason) {
			sframe_count(rejected[err.reason]);
			sf->status = sframe_reason_str(err.reason);
			pr_warn_ratelimited("sframe_unwind: %s: invalid .sframe: %s at offset 0x%x\n",
					    sf->path, sf->status, err.offset);
		} else {
			sframe_file_fail(sf, PTR_ERR(s) == -ENOMEM ?
					 SFRAME_LOAD_NOMEM : SFRAME_LOAD_ABI,
					 PTR_ERR(s) != -ENOMEM);
		}
		return;
	}
	sf->embedded = s;
	sf->status = "ok";
	sframe_count(sections_loaded);
}

/* Read @file's ELF headers: its executable segments and its SFrame. */
static void sframe_file_parse(struct sframe_file *sf, struct file *file)
{
	struct elf64_phdr *phdrs = NULL, *sframe_ph = NULL;
	struct elf64_hdr ehdr;
	unsigned int i;

	if (sframe_read_at(file, &ehdr, sizeof(ehdr), 0) ||
	    memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    ehdr.e_machine != EM_X86_64 ||
	    (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) ||
	    ehdr.e_phentsize != sizeof(*phdrs) ||
	    !ehdr.e_phnum || ehdr.e_phnum > SFRAME_MAX_PHDRS) {
		sframe_file_fail(sf, SFRAME_LOAD_NOT_ELF, false);
		return;
	}
	phdrs = kmalloc_array(ehdr.e_phnum, sizeof(*phdrs), GFP_KERNEL);
	if (!phdrs) {
		sframe_file_fail(sf, SFRAME_LOAD_NOMEM, false);
		return;
	}
	if (sframe_read_at(file, phdrs, ehdr.e_phnum * sizeof(*phdrs),
			   ehdr.e_phoff)) {
		sframe_file_fail(sf, SFRAME_LOAD_READ, true);
		goto out;
	}
	for (i = 0; i < ehdr.e_phnum; i++) {
		struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == SFRAME_PT_GNU_SFRAME) {
			sframe_ph = ph;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
			   sf->nr_loads < SFRAME_MAX_LOADS) {
			sf->loads[sf->nr_loads++] = (struct sframe_load_seg){
				.offset = ph->p_offset, .vaddr = ph->p_vaddr,
				.filesz = ph->p_filesz,
			};
		}
	}
	if (sframe_ph) {
		sframe_file_load_section(sf, file, sframe_ph);
	} else {
		sf->status = "no PT_GNU_SFRAME";
		sframe_count(files_without_sframe);
	}
out:
	kfree(phdrs);
}

static void sframe_file_free(struct sframe_file *sf)
{
	sframe_sec_free(rcu_dereference_protected(sf->sidecar, true));
	sframe_sec_free(sf->embedded);
	atomic_long_sub(sf->bytes, &sframe_cache_bytes);
	kfree(sf->path);
	kfree(sf);
}

/* The section a walk uses for @sf: its sidecar, else its own.  RCU. */
static const struct sframe_sec *sframe_file_sec(const struct sframe_file *sf)
{
	const struct sframe_sec *s = rcu_dereference(sf->sidecar);

	return s ? s : sf->embedded;
}

static struct sframe_file *sframe_file_find(struct inode *inode)
{
	unsigned long key = inode->i_ino ^ inode->i_sb->s_dev;
	struct sframe_file *sf;

	lockdep_assert_held(&sframe_files_lock);
	hash_for_each_possible(sframe_files, sf, node, key) {
		if (sframe_file_is(sf, inode))
			return sf;
	}
	return NULL;
}

/* @file's path in a new string, "?" where it has none; NULL: no memory. */
char *sframe_path_dup(struct file *file)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	char *path = buf ? d_path(&file->f_path, buf, PATH_MAX) : NULL;
	char *dup = kstrdup(IS_ERR_OR_NULL(path) ? "?" : path, GFP_KERNEL);

	kfree(buf);
	return dup;
}

/*
 * The cache entry of @file, read and validated on first sight.  Files
 * without a usable section are cached too, so each is read (and a bad one
 * logged) once.  Process context only.
 */
struct sframe_file *sframe_file_get(struct file *file)
{
	struct inode *inode = file_inode(file);
	unsigned long key = inode->i_ino ^ inode->i_sb->s_dev;
	struct sframe_file *sf;

	mutex_lock(&sframe_files_lock);
	sf = sframe_file_find(inode);
	if (sf)
		goto out;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf) {
		sframe_count(load_failed[SFRAME_LOAD_NOMEM]);
		goto out;
	}
	sf->dev = inode->i_sb->s_dev;
	sf->ino = inode->i_ino;
	sf->generation = inode->i_generation;
	sf->size = i_size_read(inode);
	sf->ctime = inode_get_ctime(inode);
	sf->path = sframe_path_dup(file);
	if (!sf->path) {
		kfree(sf);
		sf = NULL;
		sframe_count(load_failed[SFRAME_LOAD_NOMEM]);
		goto out;
	}
	sf->bytes = sizeof(*sf) + strlen(sf->path) + 1;
	sframe_file_parse(sf, file);
	atomic_long_add(sf->bytes, &sframe_cache_bytes);
	atomic_long_inc(&sframe_nr_files);
	hash_add(sframe_files, &sf->node, key);
out:
	mutex_unlock(&sframe_files_lock);
	return sf;
}

/* ---- per-mm maps ---- */

static struct sframe_mm *sframe_mm_find(struct mm_struct *mm)
{
	struct sframe_mm *m;

	hash_for_each_possible_rcu(sframe_mms, m, node, (unsigned long)mm) {
		if (m->mm == mm)
			return m;
	}
	return NULL;
}

static void sframe_map_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct sframe_map, rcu));
}

static void sframe_mm_free_rcu(struct rcu_head *rcu)
{
	struct sframe_mm *m = container_of(rcu, struct sframe_mm, rcu);

	kfree(rcu_dereference_raw(m->map));
	kfree(m);
}

/*
 * Replace @m's map by a copy without the ranges overlapping [start, end),
 * plus @add if given.  Caller holds sframe_mms_lock; may run in atomic
 * context, so the copy is GFP_ATOMIC.  On allocation failure the map is
 * emptied: a lost range only costs SFrame for it, a stale one could be
 * wrong.
 */
static void sframe_map_update(struct sframe_mm *m, u64 start, u64 end,
			      const struct sframe_range *add)
{
	struct sframe_map *old, *new;
	unsigned int i, n = 0, cap;
	bool added = false, removed = false;

	old = rcu_dereference_protected(m->map,
					lockdep_is_held(&sframe_mms_lock));
	cap = (old ? old->nr : 0) + 1;
	new = kmalloc(struct_size(new, r, cap), GFP_ATOMIC | __GFP_NOWARN);
	if (!new) {
		sframe_count(map_alloc_failed);
		rcu_assign_pointer(m->map, NULL);
		if (old)
			call_rcu(&old->rcu, sframe_map_free_rcu);
		return;
	}
	for (i = 0; old && i < old->nr; i++) {
		const struct sframe_range *r = &old->r[i];

		if (r->start < end && start < r->end) {
			removed = true;
			sframe_count(ranges_removed);
			continue;
		}
		if (add && !added && add->start < r->start) {
			new->r[n++] = *add;
			added = true;
		}
		new->r[n++] = *r;
	}
	if (add && !added)
		new->r[n++] = *add;
	if (add)
		sframe_count(ranges_added);
	if (!add && !removed) {
		kfree(new);
		return;
	}
	new->nr = n;
	rcu_assign_pointer(m->map, new);
	if (old)
		call_rcu(&old->rcu, sframe_map_free_rcu);
}

static void sframe_map_insert(struct mm_struct *mm, pid_t tgid,
			      const struct sframe_range *add)
{
	struct sframe_mm *m;

	spin_lock(&sframe_mms_lock);
	m = sframe_mm_find(mm);
	if (!m) {
		m = kzalloc(sizeof(*m), GFP_ATOMIC | __GFP_NOWARN);
		if (!m) {
			sframe_count(map_alloc_failed);
			goto out;
		}
		m->mm = mm;
		m->tgid = tgid;
		hash_add_rcu(sframe_mms, &m->node, (unsigned long)mm);
	}
	sframe_map_update(m, add->start, add->end, add);
out:
	spin_unlock(&sframe_mms_lock);
}

/* An executable mapping went away (hook on vm_area_free, atomic). */
void sframe_cache_unmapping(struct vm_area_struct *vma)
{
	struct sframe_mm *m;

	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
		return;
	spin_lock(&sframe_mms_lock);
	m = sframe_mm_find(vma->vm_mm);
	if (m)
		sframe_map_update(m, vma->vm_start, vma->vm_end, NULL);
	spin_unlock(&sframe_mms_lock);
}

/* The mm is being torn down (hook on exit_mmap, atomic). */
void sframe_cache_drop_mm(struct mm_struct *mm)
{
	struct sframe_mm *m;

	spin_lock(&sframe_mms_lock);
	m = sframe_mm_find(mm);
	if (m)
		hash_del_rcu(&m->node);
	spin_unlock(&sframe_mms_lock);
	if (m)
		call_rcu(&m->rcu, sframe_mm_free_rcu);
}

/*
 * The section covering @ip in the walked mm and its load bias.  Any
 * context; the caller holds rcu_read_lock() for the whole walk, which
 * keeps the map the cursor remembers and its sections alive.  The mm's
 * map is found on the first lookup of a walk; the walk does not ask again
 * while it stays in the range found.  This is the walk's lookup callback:
 * its context begins with the cursor.
 */
void sframe_user_lookup(void *ctx, u64 ip, struct sframe_where *where)
{
	struct sframe_cursor *cur = ctx;
	const struct sframe_range *r;
	const struct sframe_sec *sec;
	unsigned int lo, hi;

	if (sframe_vdso_lookup(cur->mm, ip, where))
		return;
	if (!cur->map_found) {
		struct sframe_mm *m = NULL;

		if (READ_ONCE(sframe_enabled) && cur->mm)
			m = sframe_mm_find(cur->mm);
		cur->map = m ? rcu_dereference(m->map) : NULL;
		cur->map_found = true;
	}
	if (!cur->map)
		return;
	lo = 0;
	hi = cur->map->nr;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (cur->map->r[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip >= cur->map->r[lo - 1].end)
		return;
	r = &cur->map->r[lo - 1];
	where->start = r->start;
	where->end = r->end;
	sec = sframe_file_sec(r->file);
	if (!sec)
		return;
	where->sec = &sec->sec;
	where->bias = r->bias;
	where->fp_ok = sec->sec.flags & SFRAME_F_FRAME_POINTER;
}

/* ---- the worker ---- */

/* Load bias of a mapping at @start of file offset @pgoff, or false. */
static bool sframe_bias(const struct sframe_file *sf, u64 start, u64 pgoff,
			u64 *bias)
{
	u64 off = pgoff << PAGE_SHIFT;
	unsigned int i;

	for (i = 0; i < sf->nr_loads; i++) {
		const struct sframe_load_seg *l = &sf->loads[i];
		u64 seg_page = l->offset & PAGE_MASK;

		if (off >= seg_page && off < l->offset + l->filesz) {
			*bias = start - off - (l->vaddr - l->offset);
			return true;
		}
	}
	return false;
}

/* Is [start, end) of @file still an executable mapping of @mm? */
static bool sframe_still_mapped(struct mm_struct *mm, struct file *file,
				u64 start, u64 end)
{
	struct vm_area_struct *vma;
	bool ok;

	mmap_read_lock(mm);
	vma = find_vma(mm, start);
	ok = vma && vma->vm_start == start && vma->vm_end == end &&
	     vma->vm_file && file_inode(vma->vm_file) == file_inode(file) &&
	     (vma->vm_flags & VM_EXEC);
	mmap_read_unlock(mm);
	return ok;
}

static void sframe_work_fn(struct work_struct *work)
{
	struct sframe_work *w = container_of(work, struct sframe_work, work);
	struct sframe_range range = { .start = w->start, .end = w->end };
	struct sframe_file *sf = sframe_file_get(w->file);

	/*
	 * Every ELF mapping gets its range, with or without a section: a
	 * sidecar may come for it later.
	 */
	if (sf && sframe_bias(sf, w->start, w->pgoff, &range.bias) &&
	    mmget_not_zero(w->mm)) {
		range.file = sf;
		if (sframe_still_mapped(w->mm, w->file, w->start, w->end))
			sframe_map_insert(w->mm, w->tgid, &range);
		mmput(w->mm);
	}
	fput(w->file);
	mmdrop(w->mm);
	kfree(w);
}

static void sframe_queue(struct vm_area_struct *vma, pid_t tgid, gfp_t gfp)
{
	struct sframe_work *w;

	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
		return;
	sframe_count(mmap_events);
	w = kmalloc(sizeof(*w), gfp);
	if (!w) {
		sframe_count(events_dropped);
		return;
	}
	INIT_WORK(&w->work, sframe_work_fn);
	w->file = get_file(vma->vm_file);
	w->mm = vma->vm_mm;
	mmgrab(w->mm);
	w->tgid = tgid;
	w->start = vma->vm_start;
	w->end = vma->vm_end;
	w->pgoff = vma->vm_pgoff;
	queue_work(sframe_wq, &w->work);
}

/* A mapping became executable (hook on perf_event_mmap, mmap_lock held). */
void sframe_cache_mapping(struct vm_area_struct *vma)
{
	sframe_queue(vma, current->tgid, GFP_ATOMIC | __GFP_NOWARN);
}

/* Queue every executable mapping of the processes already running. */
void sframe_cache_scan_tasks(void)
{
	struct task_struct **tasks, *p;
	unsigned int n = 0, cap = 0, i;

	rcu_read_lock();
	for_each_process(p)
		cap++;
	rcu_read_unlock();
	cap += cap / 8 + 16;	/* processes started meanwhile */
	tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return;

	rcu_read_lock();
	for_each_process(p) {
		if (n == cap)
			break;
		if (p->flags & PF_KTHREAD)
			continue;
		get_task_struct(p);
		tasks[n++] = p;
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		struct mm_struct *mm = get_task_mm(tasks[i]);
		struct vm_area_struct *vma;

		if (mm) {
			VMA_ITERATOR(vmi, mm, 0);

			mmap_read_lock(mm);
			for_each_vma(vmi, vma)
				sframe_queue(vma, tasks[i]->tgid, GFP_KERNEL);
			mmap_read_unlock(mm);
			mmput(mm);
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
}

/* ---- debugfs views ---- */

int sframe_cache_show_stats(struct seq_file *s)
{
	seq_printf(s, "files_cached: %ld\n", atomic_long_read(&sframe_nr_files));
	seq_printf(s, "kernel_bytes: %ld\n", atomic_long_read(&sframe_cache_bytes));
	return 0;
}

int sframe_cache_show_maps(struct seq_file *s)
{
	struct sframe_mm *m;
	unsigned int bkt, i;

	rcu_read_lock();
	hash_for_each_rcu(sframe_mms, bkt, m, node) {
		const struct sframe_map *map = rcu_dereference(m->map);

		seq_printf(s, "pid %d\n", m->tgid);
		for (i = 0; map && i < map->nr; i++) {
			const struct sframe_range *r = &map->r[i];
			const struct sframe_sec *sec = sframe_file_sec(r->file);

			seq_printf(s, "  %llx-%llx bias %llx ", r->start,
				   r->end, r->bias);
			if (sec)
				seq_printf(s, "v%u %u FDEs%s %s\n",
					   sec->sec.version, sec->sec.num_fdes,
					   sec == r->file->embedded ? "" :
					   " sidecar", r->file->path);
			else
				seq_printf(s, "no SFrame %s\n", r->file->path);
		}
	}
	rcu_read_unlock();
	return 0;
}

static const struct sframe_sec *sframe_file_sidecar(struct sframe_file *sf)
{
	return rcu_dereference_protected(sf->sidecar,
					 lockdep_is_held(&sframe_files_lock));
}

int sframe_cache_show_files(struct seq_file *s)
{
	const struct sframe_sec *side;
	struct sframe_file *sf;
	unsigned int bkt;

	mutex_lock(&sframe_files_lock);
	hash_for_each(sframe_files, bkt, sf, node) {
		side = sframe_file_sidecar(sf);
		seq_printf(s, "%s: %s, %zu bytes", sf->path, sf->status,
			   sf->bytes + (sf->embedded ? sf->embedded->bytes : 0));
		if (side)
			seq_printf(s, "; sidecar v%u, %u FDEs, %zu bytes",
				   side->sec.version, side->sec.num_fdes,
				   side->bytes);
		seq_putc(s, '\n');
	}
	mutex_unlock(&sframe_files_lock);
	return 0;
}

/* One line per sidecar, then the total. */
int sframe_cache_show_sidecars(struct seq_file *s)
{
	const struct sframe_sec *side;
	struct sframe_file *sf;
	unsigned int bkt, n = 0;
	size_t total = 0;

	mutex_lock(&sframe_files_lock);
	hash_for_each(sframe_files, bkt, sf, node) {
		side = sframe_file_sidecar(sf);
		if (!side)
			continue;
		seq_printf(s, "%s: v%u, %u FDEs, %u FREs, %zu bytes\n",
			   sf->path, side->sec.version, side->sec.num_fdes,
			   side->sec.num_fres, side->bytes);
		n++;
		total += side->bytes;
	}
	mutex_unlock(&sframe_files_lock);
	seq_printf(s, "total: %u sidecars, %zu bytes\n", n, total);
	return 0;
}

/* Does every function of @s lie in an executable segment of @sf? */
static bool sframe_sec_fits(const struct sframe_file *sf,
			    const struct sframe_sec *s, u32 *bad)
{
	struct sframe_span code[SFRAME_MAX_LOADS];
	unsigned int i;

	for (i = 0; i < sf->nr_loads; i++)
		code[i] = (struct sframe_span){
			.start = sf->loads[i].vaddr, .size = sf->loads[i].filesz,
		};
	return !sframe_fdes_within(&s->sec, code, sf->nr_loads, bad);
}

/*
 * Make @s the sidecar of @file, which must be the ELF object it was made
 * for; the sidecar it replaces is freed once no walk can be using it.
 * On success @s belongs to the cache, on failure it stays the caller's.
 */
int sframe_cache_set_sidecar(struct file *file, struct sframe_sec *s)
{
	struct sframe_sec *old;
	struct sframe_file *sf;
	u32 bad;

	sf = sframe_file_get(file);
	if (!sf)
		return -ENOMEM;
	if (!sf->nr_loads) {
		pr_warn_ratelimited("sframe_unwind: %s: sidecar rejected: not an x86-64 ELF object with code\n",
				    sf->path);
		return -ENOEXEC;
	}
	if (!sframe_sec_fits(sf, s, &bad)) {
		pr_warn_ratelimited("sframe_unwind: %s: sidecar rejected: FDE %u is outside the file's code\n",
				    sf->path, bad);
		return -EINVAL;
	}
	mutex_lock(&sframe_files_lock);
	old = rcu_replace_pointer(sf->sidecar, s,
				  lockdep_is_held(&sframe_files_lock));
	mutex_unlock(&sframe_files_lock);
	if (old) {
		synchronize_rcu();
		sframe_sec_free(old);
	}
	return 0;
}

/* Withdraw @file's sidecar: 0, or -ENOENT if it has none. */
int sframe_cache_clear_sidecar(struct file *file)
{
	struct sframe_sec *old = NULL;
	struct sframe_file *sf;

	mutex_lock(&sframe_files_lock);
	sf = sframe_file_find(file_inode(file));
	if (sf)
		old = rcu_replace_pointer(sf->sidecar, NULL,
					  lockdep_is_held(&sframe_files_lock));
	mutex_unlock(&sframe_files_lock);
	if (!old)
		return -ENOENT;
	synchronize_rcu();
	sframe_sec_free(old);
	return 0;
}

/* ---- setup and teardown ---- */

int sframe_cache_init(void)
{
	sframe_wq = alloc_workqueue("sframe_unwind", WQ_UNBOUND, 0);
	return sframe_wq ? 0 : -ENOMEM;
}

/* After the hooks are gone and no walk can be running. */
void sframe_cache_exit(void)
{
	struct sframe_file *sf;
	struct hlist_node *tmp;
	struct sframe_mm *m;
	unsigned int bkt;

	destroy_workqueue(sframe_wq);

	spin_lock(&sframe_mms_lock);
	hash_for_each_safe(sframe_mms, bkt, tmp, m, node) {
		hash_del_rcu(&m->node);
		call_rcu(&m->rcu, sframe_mm_free_rcu);
	}
	spin_unlock(&sframe_mms_lock);
	rcu_barrier();

	hash_for_each_safe(sframe_files, bkt, tmp, sf, node) {
		hash_del(&sf->node);
		sframe_file_free(sf);
	}
}
