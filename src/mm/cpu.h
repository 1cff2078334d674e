/* SPDX-License-Identifier: MIT */
/*
 * cpu.h - "which CPU am I", per-CPU memory, and CPU teardown, for user space.
 *
 * Today a CPU is a thread: the first time a thread needs per-CPU state it
 * attaches to a free CPU id (0 .. NR_CPUS-1); when it exits, the teardown
 * callbacks run on that thread (the kernel's cpuhp "dead" step) and the id is
 * released for reuse, so memory cached per CPU is bounded by the number of
 * live threads and given back at thread exit.  This module is the only one
 * that knows a CPU is a thread; a restartable-sequence mode can replace it.
 *
 * Per-CPU variables are offsets into per-CPU units (the kernel's percpu
 * allocator): alloc_percpu() returns a __percpu pointer, valid for every CPU
 * id; this_cpu_ptr()/per_cpu_ptr() turn it into the address of one CPU's copy.
 * A unit is mapped when its CPU id is first attached and zeroed storage is
 * handed out; an id's storage is reused as-is by the next thread that gets
 * the id (the teardown callbacks must leave it in its "empty" state).
 *
 * Only the owning thread may touch its CPU's variables without a lock, with
 * one exception the callers document: a thread that has been told nothing
 * else uses an object (kmem_cache_destroy) may drain other CPUs' copies.
 */
#ifndef USLAB_MM_CPU_H
#define USLAB_MM_CPU_H

#include "compiler.h"

#define NR_CPUS			1024	/* most CPU ids (live threads with per-CPU state) */
#define PERCPU_UNIT_SIZE	(512UL << 10)	/* bytes of per-CPU storage per CPU */

#define __percpu	/* marks an offset into the per-CPU units */

/* Base of this thread's per-CPU unit, or NULL if it has no CPU (yet). */
extern __thread char *this_cpu_base __attribute__((tls_model("initial-exec")));
extern __thread int this_cpu_id __attribute__((tls_model("initial-exec")));
extern char *percpu_unit_base[NR_CPUS];	/* written once per id, before use */
extern unsigned int nr_cpu_ids;		/* ids ever attached: 0 .. nr_cpu_ids-1 */

/*
 * Attach the calling thread to a CPU id.  Returns the id, or -1 if all
 * NR_CPUS ids are held by live threads or the unit cannot be mapped; callers
 * then take their no-CPU path (locked, shared structures).
 */
int cpu_attach(void);

/* The caller's CPU id, attaching on first use; -1 if it cannot have one. */
static __always_inline int raw_smp_processor_id(void)
{
	int id = this_cpu_id;

	if (unlikely(id < 0))
		id = cpu_attach();
	return id;
}
#define smp_processor_id() raw_smp_processor_id()

/* Address of this CPU's copy of a per-CPU variable; NULL if no CPU. */
#define this_cpu_ptr_or_null(ptr)					\
	(likely(this_cpu_base) ?					\
	 (__typeof__(ptr))(this_cpu_base + (unsigned long)(ptr)) : NULL)
#define per_cpu_ptr(ptr, cpu)						\
	((__typeof__(ptr))(percpu_unit_base[cpu] + (unsigned long)(ptr)))

/* why acquire: cpu_attach() publishes percpu_unit_base[id] with a release
 * store of nr_cpu_ids, so per_cpu_ptr() of every cpu seen here is valid. */
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < smp_load_acquire(&nr_cpu_ids); (cpu)++)

/*
 * Per-CPU storage: size bytes aligned to align, zeroed in every unit.
 * Returns an offset (never 0: offset 0 is reserved) or NULL on exhaustion.
 */
void __percpu *__alloc_percpu(size_t size, size_t align);
#define alloc_percpu(type) \
	((type __percpu *)__alloc_percpu(sizeof(type), __alignof__(type)))
void free_percpu(void __percpu *ptr);

/*
 * Teardown steps run, in this order, on a thread that exits while attached
 * (and by cpu_detach_self()).  Each receives the CPU id being released.
 */
enum cpuhp_state {
	CPUHP_MALLOC_DEAD,	/* malloc drop-in: its large-block cache */
	CPUHP_SLAB_DEAD,	/* slab allocator: flush cpu slabs / arrays */
	CPUHP_MEMCG_DEAD,	/* charge stocks */
	CPUHP_PAGE_ALLOC_DEAD,	/* page allocator: drain pcp lists */
	CPUHP_NR_STATES,
};
void cpuhp_setup_state(enum cpuhp_state state, void (*teardown)(unsigned int cpu));
/*
 * Empty a step, calling nothing (a thread already tearing down may still run
 * the old callback).  For tests of this module, which take over the steps in
 * a process that has no cache and no page: an allocator may register its
 * step at load time (SLUB does).
 */
void cpuhp_remove_state_nocalls(enum cpuhp_state state);

/* Run the teardown steps for the caller now and release its id. */
void cpu_detach_self(void);

#endif /* USLAB_MM_CPU_H */
