/* SPDX-License-Identifier: MIT */
/*
 * memcontrol.h - memory cgroup accounting of slab objects under the
 * kernel's names (the slab side of include/linux/memcontrol.h of 5.17,
 * with a small API for what the kernel does through the cgroup file
 * system), as inline forwarders to the uslab_ functions of <uslab/uslab.h>.
 *
 * A group is created with a limit.  A thread makes it active with
 * set_active_memcg(); from then on the thread's allocations with
 * __GFP_ACCOUNT (GFP_KERNEL_ACCOUNT), and every allocation from a cache
 * created with SLAB_ACCOUNT, are charged to the group, object by object.
 * kmalloc(size, GFP_KERNEL_ACCOUNT) uses the kmalloc-cg-<n> caches.  An
 * allocation the limit refuses returns NULL, after the group's shrink
 * callbacks had their chance to free memory.  A free uncharges the group
 * the object was charged to, whichever thread frees it.  Under SLOB nothing
 * is ever charged (as in Linux); the API works, usage stays 0.
 *
 * docs/memcg.md tells the whole story: exactness of mem_cgroup_usage(),
 * what a destroyed group's objects become, the report format.
 *
 * Compiles as C11 and as C++.
 */
#ifndef USLAB_MEMCONTROL_H
#define USLAB_MEMCONTROL_H

#include <stdio.h>
#include <uslab/flags.h>

#ifdef __cplusplus
extern "C" {
#endif

#define __uslab_memcg_inline	static inline __attribute__((always_inline))

/* limit_bytes of a group without a limit (the kernel's "max"). */
#define MEM_CGROUP_NO_LIMIT	USLAB_MEM_CGROUP_NO_LIMIT

/* The root group (the kernel's root_mem_cgroup): it holds every charge and
 * has no limit; a thread with it (or NULL) active charges nothing. */
#define root_mem_cgroup		(uslab_root_mem_cgroup())

/**
 * mem_cgroup_create - create an accounting group
 * @name: unique name, 1..63 printable characters without blanks
 * @limit_bytes: most bytes its objects may be charged (rounded down to
 *               whole pages), or MEM_CGROUP_NO_LIMIT
 *
 * Return: the group, or NULL with errno set: EINVAL (bad name, reported),
 * EEXIST (name in use, reported), ENOMEM.
 */
__uslab_memcg_inline struct mem_cgroup *mem_cgroup_create(const char *name,
							  unsigned long limit_bytes)
{
	return uslab_mem_cgroup_create(name, limit_bytes);
}

/**
 * mem_cgroup_destroy - destroy a group
 *
 * Objects still charged to it are handed to the root group (reparented, as
 * the kernel does): they stay valid, and freeing them uncharges the root.
 * Its shrink callbacks are unregistered.
 *
 * Return: 0; -EBUSY while a thread has it active; -EINVAL for the root or
 * a pointer that is no live group (reported).
 */
__uslab_memcg_inline int mem_cgroup_destroy(struct mem_cgroup *memcg)
{
	return uslab_mem_cgroup_destroy(memcg);
}

/**
 * set_active_memcg - charge this thread's accounted allocations to memcg
 * @memcg: a live group; NULL or root_mem_cgroup to charge nothing
 *
 * The group stays active for the thread until changed or until the thread
 * exits, and cannot be destroyed meanwhile.  A pointer that is no live
 * group is reported and leaves the active group unchanged.
 *
 * Return: the group active before (to restore it), or NULL.
 */
__uslab_memcg_inline struct mem_cgroup *set_active_memcg(struct mem_cgroup *memcg)
{
	return uslab_set_active_memcg(memcg);
}

/* The group this thread charges, or NULL. */
__uslab_memcg_inline struct mem_cgroup *get_active_memcg(void)
{
	return uslab_get_active_memcg();
}

/**
 * mem_cgroup_set_limit - change a group's limit (what writing memory.max
 * does).  Charges above a lowered limit stay; new ones are refused until
 * enough is freed.
 *
 * Return: 0, or -EINVAL for the root or no live group.
 */
__uslab_memcg_inline int mem_cgroup_set_limit(struct mem_cgroup *memcg,
					      unsigned long limit_bytes)
{
	return uslab_mem_cgroup_set_limit(memcg, limit_bytes);
}

/* The name a live group was created with ("root" for the root). */
__uslab_memcg_inline const char *mem_cgroup_name(struct mem_cgroup *memcg)
{
	return uslab_mem_cgroup_name(memcg);
}

/**
 * mem_cgroup_usage - bytes charged to a group by its live objects
 *
 * Each accounted slab object costs its cache's slot size plus one pointer
 * (its entry in the slab's object-to-group vector), each accounted large
 * kmalloc its pages.  The value is exact, to the byte, whenever no thread
 * is charging or uncharging that group at the moment of the call; bytes
 * that threads charged ahead (per-thread stocks) are not counted.  For the
 * root group: every charge of every group.
 *
 * Return: the bytes; 0 for a pointer that is no live group (reported).
 */
__uslab_memcg_inline unsigned long mem_cgroup_usage(struct mem_cgroup *memcg)
{
	return uslab_mem_cgroup_usage(memcg);
}

/**
 * mem_cgroup_stats - a group's numbers: usage, charged (its page counter,
 * the kernel's memory.current), max_usage, limit, failcnt, live objects.
 *
 * Return: 0, or -EINVAL (NULL st, no live group).
 */
__uslab_memcg_inline int mem_cgroup_stats(struct mem_cgroup *memcg,
					  struct uslab_mem_cgroup_stats *st)
{
	return uslab_mem_cgroup_stats(memcg, st);
}

/**
 * mem_cgroup_drain_stocks - give back what this thread charged ahead, so
 * that the page counters ("charged") hold only what objects use, rounded up
 * to pages, once every thread drained or exited.  mem_cgroup_usage() needs
 * no drain.
 */
__uslab_memcg_inline void mem_cgroup_drain_stocks(void)
{
	uslab_mem_cgroup_drain_stocks();
}

/**
 * mem_cgroup_register_shrinker - a shrink callback for a group
 * @shrink: called as shrink(memcg, nr_bytes, arg) when a charge to memcg
 *          hits the limit, for allocations that may sleep (with
 *          __GFP_DIRECT_RECLAIM, as GFP_KERNEL); it should free about
 *          nr_bytes of the group's objects and return the bytes freed.  It
 *          runs on the allocating thread with no uslab lock held.
 *
 * Return: 0, -EINVAL (NULL shrink, the root, no live group), -ENOMEM.
 */
__uslab_memcg_inline int mem_cgroup_register_shrinker(struct mem_cgroup *memcg,
						      uslab_memcg_shrink_fn shrink, void *arg)
{
	return uslab_mem_cgroup_register_shrinker(memcg, shrink, arg);
}

/* Undo one registration (waits for calls in progress; never from inside
 * that callback: -EBUSY).  0, -ENOENT, -EINVAL. */
__uslab_memcg_inline int mem_cgroup_unregister_shrinker(struct mem_cgroup *memcg,
							uslab_memcg_shrink_fn shrink, void *arg)
{
	return uslab_mem_cgroup_unregister_shrinker(memcg, shrink, arg);
}

/* The group object p is charged to (the root once its group was
 * destroyed), or NULL if it is not charged. */
__uslab_memcg_inline struct mem_cgroup *mem_cgroup_from_obj(const void *p)
{
	return uslab_mem_cgroup_from_obj(p);
}

/**
 * mem_cgroup_print_stats - every group, in a slabinfo-like layout: a header,
 * then per group (the root first) one row
 *   name usage charged limit max_usage failcnt : objects <objs> <bytes>
 * followed by one indented row per cache holding its objects
 *   cache active_objs objsize bytes
 * and a "kmalloc-large" row for its large kmallocs (docs/memcg.md).
 */
__uslab_memcg_inline void mem_cgroup_print_stats(FILE *f)
{
	uslab_mem_cgroup_print_stats(f);
}

#ifdef __cplusplus
}
#endif

#endif /* USLAB_MEMCONTROL_H */
