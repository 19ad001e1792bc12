// SPDX-License-Identifier: GPL-2.0
/*
 * Where the module plugs in, through ftrace only: IPMODIFY redirections of
 * the kernel's user-stack walkers to ours (the mechanism livepatch uses),
 * and observers on the functions that map and unmap executable code, each
 * hooked only once its prototype is known to be what its observer reads.
 * Nothing patches text, nothing looks symbols up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "hook_btf.h"
#include "hook_types.h"
#include "kcompat.h"
#include "sframe_unwind.h"
#include "user_regs.h"

/* The walker's pt_regs argument is not an argument: current's user regs. */
#define SFRAME_HOOK_CURRENT_REGS	(-1)

/* How an observed function's prototype was found to be what is read. */
enum sframe_proto_check {
	SFRAME_PROTO_UNCHECKED,		/* it was not: the function is not hooked */
	SFRAME_PROTO_AT_BUILD,		/* hook_types.h, against a declaration */
	SFRAME_PROTO_BTF,		/* at load, against the kernel's BTF */
};

struct sframe_hook {
	const char *func;
	const char *alt;		/* the same events, where func is untraceable */
	void *target;			/* replacement, or NULL for observers */
	int regs_arg;			/* the replaced walker's struct pt_regs */
	void (*observe)(struct sframe_hook_regs *regs);
	/* An observer's: the prototype it reads, checked before hooking */
	const struct sframe_btf_proto *proto;
	bool func_at_build, alt_at_build;	/* hook_types.h checked it */
	const char *unhooked;		/* what is lost unhooked; NULL: needed */
	enum sframe_proto_check checked;
	struct ftrace_ops ops;
	bool registered;
};

/*
 * The user registers a replaced walker would walk from.  Tasks whose
 * stacks the SFrame walk does not know (32-bit ones) keep the stock
 * walker: the call goes on to the kernel's own function.
 */
static bool sframe_hook_walkable(struct sframe_hook *h,
				 struct sframe_hook_regs *regs)
{
	const struct pt_regs *user;

	if (h->regs_arg == SFRAME_HOOK_CURRENT_REGS)
		user = task_pt_regs(current);
	else
		user = (const struct pt_regs *)sframe_hook_arg(regs,
							       h->regs_arg);
	return sframe_regs_walkable(user);
}

static void notrace sframe_hook_fn(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   SFRAME_FTRACE_CALLBACK_REGS *fregs)
{
	struct sframe_hook *h = container_of(op, struct sframe_hook, ops);
	struct sframe_hook_regs *regs = sframe_hook_regs(fregs);

	if (!regs)
		return;
	if (!h->target)
		h->observe(regs);
	else if (sframe_hook_walkable(h, regs))
		sframe_hook_set_ip(regs, (unsigned long)h->target);
}

static void *sframe_arg(struct sframe_hook_regs *regs, unsigned int n)
{
	return (void *)sframe_hook_arg(regs, n);
}

/*
 * perf_event_mmap(vma), at the end of mmap_region() and mprotect_fixup();
 * or, on 5.10, whose kernel/events is built without ftrace,
 * vma_set_page_prot(vma), called there just before it.
 */
static void sframe_observe_mmap(struct sframe_hook_regs *regs)
{
	sframe_vma_mapped(sframe_arg(regs, 0));
}

/* vm_area_free(vma) */
static void sframe_observe_vma_free(struct sframe_hook_regs *regs)
{
	sframe_vma_freed(sframe_arg(regs, 0));
}

/*
 * Beside each observer, the prototype it reads, as the kernel's BTF must
 * show it where no header declared the function to the build (hook_types.h
 * asserts the same prototypes where one did).
 */
static const struct sframe_btf_proto sframe_vma_proto = SFRAME_BTF_PROTO(
	SFRAME_BTF_VOID_TYPE(0),
	SFRAME_BTF_STRUCT_TYPE(vm_area_struct, 1));

/* copy_vma(&vma, addr, len, pgoff, &need_rmap_locks), for mremap */
static void sframe_observe_copy_vma(struct sframe_hook_regs *regs)
{
	struct vm_area_struct **vmap = sframe_arg(regs, 0);

	sframe_vma_moving(*vmap, sframe_hook_arg(regs, 1),
			  sframe_hook_arg(regs, 2));
}

/* It reads the first three; 7.2 added a sixth parameter, which it does not. */
static const struct sframe_btf_proto sframe_copy_vma_proto = SFRAME_BTF_PROTO(
	SFRAME_BTF_STRUCT_TYPE(vm_area_struct, 1),
	SFRAME_BTF_STRUCT_TYPE(vm_area_struct, 2),
	SFRAME_BTF_SCALAR_TYPE(unsigned long, 0),
	SFRAME_BTF_SCALAR_TYPE(unsigned long, 0));

/*
 * perf_event_fork(child), late in copy_process(); or, on 5.10,
 * wake_up_new_task(child), after it and before the child first runs.
 */
static void sframe_observe_fork(struct sframe_hook_regs *regs)
{
	sframe_mm_forked(sframe_arg(regs, 0));
}

static const struct sframe_btf_proto sframe_task_proto = SFRAME_BTF_PROTO(
	SFRAME_BTF_VOID_TYPE(0),
	SFRAME_BTF_STRUCT_TYPE(task_struct, 1));

/* exit_mmap(mm) */
static void sframe_observe_exit_mmap(struct sframe_hook_regs *regs)
{
	sframe_mm_exit(sframe_arg(regs, 0));
}

static const struct sframe_btf_proto sframe_mm_proto = SFRAME_BTF_PROTO(
	SFRAME_BTF_VOID_TYPE(0),
	SFRAME_BTF_STRUCT_TYPE(mm_struct, 1));

/*
 * @lost: what the module does without, if the prototype cannot be checked;
 * NULL for an observer it cannot run without.
 */
#define SFRAME_OBSERVER(name, fn, want, lost) {				\
	.func = #name, .observe = fn, .proto = want, .unhooked = lost,	\
	.func_at_build = SFRAME_CHECKED_AT_BUILD(name),			\
}
#define SFRAME_OBSERVER_OR(name, alt_name, fn, want, lost) {		\
	.func = #name, .observe = fn, .proto = want, .unhooked = lost,	\
	.func_at_build = SFRAME_CHECKED_AT_BUILD(name),			\
	.alt = #alt_name, .alt_at_build = SFRAME_CHECKED_AT_BUILD(alt_name), \
}
#define SFRAME_REDIRECT(name, fn, regs) \
	{ .func = name, .target = fn, .regs_arg = regs }

/*
 * Observers first: by the time a walker runs, the cache is being filled.
 * Those that see things go before those that create them: registering
 * takes milliseconds, and a map made for an mm whose exit_mmap was not
 * yet watched would outlive the mm (and pin its mm_struct) until rmmod.
 * Without exit_mmap maps would pin dead mms, without vm_area_free a
 * range would outlive its mapping; without any of the others a mapping
 * is only missing from a map, and walked by frame pointers there.
 */
static struct sframe_hook sframe_observers[] = {
	SFRAME_OBSERVER(exit_mmap, sframe_observe_exit_mmap,
			&sframe_mm_proto, NULL),
	SFRAME_OBSERVER(vm_area_free, sframe_observe_vma_free,
			&sframe_vma_proto, NULL),
	SFRAME_OBSERVER(copy_vma, sframe_observe_copy_vma,
			&sframe_copy_vma_proto,
			"code moved by mremap() is walked by frame pointers"),
	SFRAME_OBSERVER_OR(perf_event_mmap, vma_set_page_prot,
			   sframe_observe_mmap, &sframe_vma_proto,
			   "code mapped after load is walked by frame pointers"),
	SFRAME_OBSERVER_OR(perf_event_fork, wake_up_new_task,
			   sframe_observe_fork, &sframe_task_proto,
			   "a forked child's inherited code is walked by frame pointers"),
};

static struct sframe_hook sframe_perf_redirect =
	SFRAME_REDIRECT("perf_callchain_user", sframe_perf_callchain_user, 1);
#ifdef SFRAME_HOOK_STACKTRACE
static struct sframe_hook sframe_stacktrace_redirect =
	SFRAME_REDIRECT("arch_stack_walk_user", sframe_arch_stack_walk_user, 2);
#endif
#ifdef SFRAME_HOOK_UNWIND_USER
static struct sframe_hook sframe_deferred_redirect =
	SFRAME_REDIRECT("unwind_user", sframe_unwind_user,
			SFRAME_HOOK_CURRENT_REGS);
#endif

/* Trace @func only; -EINVAL if ftrace cannot trace it. */
static int sframe_hook_filter(struct sframe_hook *h, const char *func)
{
	return ftrace_set_filter(&h->ops, (unsigned char *)func, strlen(func),
				 1);
}

/* Say why @h could not be hooked (@why: a hint, or ""), and undo. */
static int sframe_hook_fail(struct sframe_hook *h, int ret, const char *why)
{
	pr_err("cannot hook %s: %d%s\n", h->func, ret, why);
	sframe_ftrace_free_filter(&h->ops);
	return ret;
}

/*
 * Set @h's ftrace_ops to trace h->func, or h->alt where ftrace cannot
 * trace func.  Return the name chosen, or an ERR_PTR.
 */
static const char *sframe_hook_select(struct sframe_hook *h)
{
	int ret;

	h->ops.func = sframe_hook_fn;
	/*
	 * PERMANENT: with ftrace_enabled=0 the hooks would stop silently
	 * (a missed exit_mmap would leave a map for a freed mm); the sysctl
	 * is refused instead while the module is loaded, as for livepatch.
	 */
	h->ops.flags = SFRAME_FTRACE_OPS_FL_REGS | FTRACE_OPS_FL_PERMANENT;
	if (h->target)
		h->ops.flags |= FTRACE_OPS_FL_IPMODIFY;
	ret = sframe_hook_filter(h, h->func);
	if (!ret)
		return h->func;
	if (ret == -EINVAL && h->alt) {
		ret = sframe_hook_filter(h, h->alt);
		if (!ret) {
			pr_info("%s cannot be traced here, watching %s\n",
				h->func, h->alt);
			return h->alt;
		}
	}
	return ERR_PTR(sframe_hook_fail(h, ret, ret == -EINVAL ?
					" (not in available_filter_functions: absent or notrace)" : ""));
}

/* Start calling @h for what sframe_hook_select() chose. */
static int sframe_hook_enable(struct sframe_hook *h)
{
	int ret;

	ret = register_ftrace_function(&h->ops);
	if (ret)
		return sframe_hook_fail(h, ret, ret == -EBUSY ?
					" (another IPMODIFY user, e.g. livepatch?)" : "");
	h->registered = true;
	return 0;
}

static int sframe_hook_register(struct sframe_hook *h)
{
	const char *name = sframe_hook_select(h);

	if (IS_ERR(name))
		return PTR_ERR(name);
	return sframe_hook_enable(h);
}

/*
 * Whether @name, which @h is about to trace, has the prototype h->observe
 * reads: asserted at build, or else found in the kernel's BTF.  If not,
 * a negative errno, and @why says why (@len bytes).
 */
static int sframe_observer_check(struct sframe_hook *h, const char *name,
				 struct sframe_kernel_btf *kb,
				 char *why, size_t len)
{
	int ret;

	if (name == h->func ? h->func_at_build : h->alt_at_build) {
		WRITE_ONCE(h->checked, SFRAME_PROTO_AT_BUILD);
		return 0;
	}
	ret = sframe_kernel_btf_check(kb, name, h->proto, why, len);
	if (ret)
		return ret;
	pr_info("%s(): prototype checked against the kernel's BTF\n", name);
	WRITE_ONCE(h->checked, SFRAME_PROTO_BTF);
	return 0;
}

/*
 * Hook @h if its prototype is checked; else leave it, counted and said,
 * and go on without it, unless the module cannot run without it.
 */
static int sframe_observer_register(struct sframe_hook *h,
				    struct sframe_kernel_btf *kb)
{
	const char *name = sframe_hook_select(h);
	char why[96];
	int ret;

	if (IS_ERR(name))
		return PTR_ERR(name);
	ret = sframe_observer_check(h, name, kb, why, sizeof(why));
	if (!ret)
		return sframe_hook_enable(h);
	sframe_ftrace_free_filter(&h->ops);
	sframe_count(hooks_unchecked);
	if (!h->unhooked) {
		pr_err("%s() not hooked: %s (%d); the module cannot run without it\n",
		       name, why, ret);
		return ret;
	}
	pr_warn("%s() not hooked: %s (%d); %s\n", name, why, ret,
		h->unhooked);
	return 0;
}

/**
 * sframe_hooks_show() - show how each observer's prototype was checked
 * @s: the stats file being shown
 *
 * One stats line per observer: how its prototype was checked, or that it
 * was not (the observer is then not hooked).
 */
void sframe_hooks_show(struct seq_file *s)
{
	static const char * const how[] = {
		[SFRAME_PROTO_UNCHECKED] = "not hooked, prototype unchecked",
		[SFRAME_PROTO_AT_BUILD] = "prototype checked at build",
		[SFRAME_PROTO_BTF] = "prototype checked against BTF",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sframe_observers); i++)
		seq_printf(s, "hook: %s: %s\n", sframe_observers[i].func,
			   how[READ_ONCE(sframe_observers[i].checked)]);
}

static void sframe_hook_unregister(struct sframe_hook *h)
{
	if (!h->registered)
		return;
	unregister_ftrace_function(&h->ops);
	sframe_ftrace_free_filter(&h->ops);
	h->registered = false;
}

/*
 * arch_stack_walk_user(), where the kernel has one (USER_STACKTRACE_SUPPORT:
 * arm64 6.12 has it, arm64 6.1 not).  Without it no stack trace of the
 * kernel's holds user frames but perf's, so there is nothing to replace.
 */
static int sframe_attach_stacktrace(void)
{
#ifdef SFRAME_HOOK_STACKTRACE
	return sframe_hook_register(&sframe_stacktrace_redirect);
#else
	pr_info("no arch_stack_walk_user() here (USER_STACKTRACE_SUPPORT is off): ftrace keeps no user stacks to replace\n");
	return 0;
#endif
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

/**
 * sframe_deferred_hooked() - whether the deferred walk is redirected
 *
 * Return: true if the kernel's unwind_user() is redirected to
 * sframe_unwind_user() now; always false where the kernel has no deferred
 * walk (SFRAME_HOOK_UNWIND_USER unset).
 */
bool sframe_deferred_hooked(void)
{
#ifdef SFRAME_HOOK_UNWIND_USER
	return sframe_deferred_redirect.registered;
#else
	return false;
#endif
}

/**
 * sframe_attach() - hook the observers and redirect the walkers
 * @perf: redirect perf_callchain_user()
 * @stacktrace: redirect arch_stack_walk_user(), where the kernel has one
 * @deferred: redirect unwind_user(), where the kernel has one
 *
 * Observers first, each only once its prototype is checked (at build or
 * against the kernel's BTF); one whose prototype cannot be checked is left
 * off, counted and said, unless the module cannot run without it.  Then
 * the running processes are scanned, and the chosen walkers redirected.
 * If any step fails, everything hooked so far is undone (sframe_detach()).
 *
 * Return: 0, or the negative errno of the first hook that failed: ftrace's
 * (-EINVAL for a function it cannot trace, -EBUSY when another IPMODIFY
 * user has it), or that of the prototype check of an observer the module
 * cannot run without.
 */
int sframe_attach(bool perf, bool stacktrace, bool deferred)
{
	struct sframe_kernel_btf kb = {};
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(sframe_observers) && !ret; i++)
		ret = sframe_observer_register(&sframe_observers[i], &kb);
	sframe_kernel_btf_put(&kb);
	if (!ret)
		sframe_mm_scan_tasks();
	if (!ret && perf)
		ret = sframe_hook_register(&sframe_perf_redirect);
	if (!ret && stacktrace)
		ret = sframe_attach_stacktrace();
	if (!ret)
		ret = sframe_attach_deferred(deferred);
	if (ret)
		sframe_detach();
	return ret;
}

/**
 * sframe_detach() - unhook everything and wait for walks in our code
 *
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
#ifdef SFRAME_HOOK_STACKTRACE
	sframe_hook_unregister(&sframe_stacktrace_redirect);
#endif
	sframe_hook_unregister(&sframe_perf_redirect);
	for (i = ARRAY_SIZE(sframe_observers); i-- > 0;)
		sframe_hook_unregister(&sframe_observers[i]);
	synchronize_rcu();
	if (deferred)
		synchronize_rcu_tasks();
}
