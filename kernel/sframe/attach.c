// SPDX-License-Identifier: GPL-2.0
/*
 * Where the module plugs in, through ftrace only: IPMODIFY redirections of
 * the kernel's user-stack walkers to ours (the mechanism livepatch uses),
 * and observers on the functions that map and unmap executable code.
 * Nothing patches text, nothing looks symbols up.
 */
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "sframe_unwind.h"

struct sframe_hook {
	const char *func;
	void *target;			/* replacement, or NULL for observers */
	void (*observe)(unsigned long arg0);
	struct ftrace_ops ops;
	bool registered;
};

static void notrace sframe_hook_fn(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	struct sframe_hook *h = container_of(op, struct sframe_hook, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (!regs)
		return;
	if (h->target)
		regs->ip = (unsigned long)h->target;
	else
		h->observe(regs->di);
}

static void sframe_observe_mmap(unsigned long vma)
{
	sframe_cache_mapping((struct vm_area_struct *)vma);
}

static void sframe_observe_vma_free(unsigned long vma)
{
	sframe_cache_unmapping((struct vm_area_struct *)vma);
}

static void sframe_observe_exit_mmap(unsigned long mm)
{
	sframe_cache_drop_mm((struct mm_struct *)mm);
}

#define SFRAME_OBSERVER(name, fn) { .func = name, .observe = fn }
#define SFRAME_REDIRECT(name, fn) { .func = name, .target = fn }

/* Observers first: by the time a walker runs, the cache is being filled. */
static struct sframe_hook sframe_observers[] = {
	SFRAME_OBSERVER("perf_event_mmap", sframe_observe_mmap),
	SFRAME_OBSERVER("vm_area_free", sframe_observe_vma_free),
	SFRAME_OBSERVER("exit_mmap", sframe_observe_exit_mmap),
};

static struct sframe_hook sframe_perf_redirect =
	SFRAME_REDIRECT("perf_callchain_user", sframe_perf_callchain_user);
static struct sframe_hook sframe_stacktrace_redirect =
	SFRAME_REDIRECT("arch_stack_walk_user", sframe_arch_stack_walk_user);
#ifdef SFRAME_HOOK_UNWIND_USER
static struct sframe_hook sframe_deferred_redirect =
	SFRAME_REDIRECT("unwind_user", sframe_unwind_user);
#endif

static int sframe_hook_register(struct sframe_hook *h)
{
	int ret;

	h->ops.func = sframe_hook_fn;
	h->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	if (h->target)
		h->ops.flags |= FTRACE_OPS_FL_IPMODIFY;
	ret = ftrace_set_filter(&h->ops, (unsigned char *)h->func,
				strlen(h->func), 1);
	if (!ret)
		ret = register_ftrace_function(&h->ops);
	if (ret) {
		pr_err("sframe_unwind: cannot hook %s: %d%s\n", h->func, ret,
		       ret == -EBUSY ? " (another IPMODIFY user, e.g. livepatch?)" : "");
		ftrace_free_filter(&h->ops);
		return ret;
	}
	h->registered = true;
	return 0;
}

static void sframe_hook_unregister(struct sframe_hook *h)
{
	if (!h->registered)
		return;
	unregister_ftrace_function(&h->ops);
	ftrace_free_filter(&h->ops);
	h->registered = false;
}

/* The deferred walk, where the kernel has one; whether it was hooked. */
static int sframe_attach_deferred(bool deferred)
{
#ifdef SFRAME_HOOK_UNWIND_USER
	if (deferred)
		return sframe_hook_register(&sframe_deferred_redirect);
#endif
	return 0;
}

bool sframe_deferred_hooked(void)
{
#ifdef SFRAME_HOOK_UNWIND_USER
	return sframe_deferred_redirect.registered;
#else
	return false;
#endif
}

int sframe_attach(bool perf, bool stacktrace, bool deferred)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(sframe_observers) && !ret; i++)
		ret = sframe_hook_register(&sframe_observers[i]);
	if (!ret)
		sframe_cache_scan_tasks();
	if (!ret && perf)
		ret = sframe_hook_register(&sframe_perf_redirect);
	if (!ret && stacktrace)
		ret = sframe_hook_register(&sframe_stacktrace_redirect);
	if (!ret)
		ret = sframe_attach_deferred(deferred);
	if (ret)
		sframe_detach();
	return ret;
}

/*
 * Unhook everything, then wait until no walk that might still be in one
 * of our functions is running.  Samples walk with interrupts off and
 * every walk is inside rcu_read_lock(), so one RCU grace period covers
 * them; but the deferred walk runs in preemptible task context, where a
 * task may be preempted anywhere in sframe_unwind_user(), outside its
 * read-side section.  RCU Tasks waits until every task has switched
 * voluntarily or been in user space, which it cannot do in our code.
 */
void sframe_detach(void)
{
	bool deferred = sframe_deferred_hooked();
	unsigned int i;

#ifdef SFRAME_HOOK_UNWIND_USER
	sframe_hook_unregister(&sframe_deferred_redirect);
#endif
	sframe_hook_unregister(&sframe_stacktrace_redirect);
	sframe_hook_unregister(&sframe_perf_redirect);
	for (i = ARRAY_SIZE(sframe_observers); i-- > 0;)
		sframe_hook_unregister(&sframe_observers[i]);
	synchronize_rcu();
	if (deferred)
		synchronize_rcu_tasks();
}
