// SPDX-License-Identifier: MIT
/*
 * cpu.c - threads as CPUs: CPU ids, per-CPU units, and CPU teardown.
 *
 * 1. Overview.  A thread that needs per-CPU state calls cpu_attach() (via
 *    raw_smp_processor_id()) and gets the lowest free CPU id.  The id's unit,
 *    PERCPU_UNIT_SIZE bytes of per-CPU storage, is mapped the first time the
 *    id is handed out and stays mapped: the next thread that gets the id
 *    inherits the storage as the teardown steps left it.  When an attached
 *    thread exits, a pthread key destructor runs the cpuhp teardown steps
 *    on that thread, in enum order, while it is still attached (so memory a
 *    step frees lands in per-CPU lists a later step drains), then releases
 *    the id.  So the number of ids in use, and the memory cached per CPU,
 *    follow the number of live threads that allocate.
 *
 *    Per-CPU variables are offsets into every unit.  __alloc_percpu() is a
 *    first-fit allocator over the offsets [16, PERCPU_UNIT_SIZE) in 16-byte
 *    chunks (offset 0 is reserved so a valid offset is never NULL); it
 *    zeroes the new range in every unit already mapped (only the part
 *    below the end of the offsets ever handed out: above it nothing was
 *    written), and units mapped later are zero from the OS, so every CPU's
 *    copy starts zeroed.
 *
 * 2. Data structures (all static; nothing here uses malloc, because the
 *    malloc drop-in sits on top of this file).
 *    - cpu_ids: bitmap of ids held by live threads.
 *    - percpu_unit_base[id]: the unit of id, written once (before nr_cpu_ids
 *      is raised past id with a release store, so readers that load
 *      nr_cpu_ids with acquire may use the entry).
 *    - pcpu_alloc_map: one bit per 16-byte chunk of the offset space, set if
 *      in use.  pcpu_bound_map: a bit at the first chunk of every allocated
 *      area and one at the chunk just past its end; inner bits are clear, so
 *      the next bound after an area's start is its end (the kernel's
 *      percpu bound_map).  Bounds of freed areas stay; an allocation clears
 *      the bounds inside it.
 *    - cpuhp_teardown[state]: one callback per teardown step, set once by
 *      cpuhp_setup_state(); only cpuhp_remove_state_nocalls() (tests)
 *      empties it again.
 *    - per thread: this_cpu_id/this_cpu_base, and the release generation at
 *      which the thread last failed to attach.
 *
 * 3. States of a thread.
 *      state        this_cpu_id  this_cpu_base  key value
 *      detached     -1           NULL           NULL
 *      attached     id >= 0      unit of id     1 (destructor armed)
 *      tearing down id >= 0      unit of id     NULL (glibc cleared it)
 *      failed       -1           NULL           -; cpu_attach() returns -1
 *                                               cheaply until an id is released
 *    A TSD destructor of another key that runs after ours may allocate and
 *    re-attach the thread; cpu_attach() then sets the key again, so glibc
 *    runs our destructor once more (up to PTHREAD_DESTRUCTOR_ITERATIONS
 *    rounds, after which an id taken in the very last round stays held).
 *
 * 4. Lock order.  cpu_lock is a leaf: nothing is called under it except
 *    os_map() and memset().  Teardown steps run without it.
 *
 * 5. Invariants (under cpu_lock).
 *    - ids 0 .. nr_cpu_ids-1, and only they, have a mapped unit: ids are
 *      handed out lowest first and a unit is mapped before its id is used.
 *    - a set bit in cpu_ids is the id of exactly one live (or exiting)
 *      thread; the id is released only after its teardown steps ran.
 *    - pcpu_alloc_map bit 0 is always set (offset 0 is never handed out).
 *
 * 6. fork().  cpu_lock is registered with fork.c (rank FORK_RANK_LEAF),
 *    so the child finds it free and the maps consistent.  Ids held by
 *    threads that do not exist in the child stay held there: their per-CPU
 *    state may have been in the middle of an update when the parent
 *    forked, so no one may reuse it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "atomic.h"
#include "internal.h"
#include "os/os.h"

#define BITS_PER_LONG		64
#define BITS_TO_LONGS(n)	DIV_ROUND_UP((n), BITS_PER_LONG)

#define PCPU_MIN_ALLOC_SHIFT	4	/* per-CPU areas are multiples of 16 bytes */
#define PCPU_MIN_ALLOC_SIZE	(1UL << PCPU_MIN_ALLOC_SHIFT)
#define PCPU_NR_CHUNKS		(PERCPU_UNIT_SIZE >> PCPU_MIN_ALLOC_SHIFT)
#define PCPU_MAX_ALIGN		4096UL	/* units are only page aligned */

BUILD_BUG_ON(NR_CPUS % BITS_PER_LONG != 0);
BUILD_BUG_ON(PERCPU_UNIT_SIZE % PCPU_MIN_ALLOC_SIZE != 0);

__thread char *this_cpu_base __attribute__((tls_model("initial-exec")));
__thread int this_cpu_id __attribute__((tls_model("initial-exec"))) = -1;
char *percpu_unit_base[NR_CPUS];	/* unit of each id; written once under cpu_lock */
unsigned int nr_cpu_ids;		/* high-water mark of ids; written under cpu_lock */

static DEFINE_MUTEX(cpu_lock);		/* protects the ids and the percpu maps below */
static unsigned long cpu_ids[BITS_TO_LONGS(NR_CPUS)];	/* ids held by threads (cpu_lock) */
static unsigned long cpu_release_gen;	/* ids released so far (written under cpu_lock, read racily) */

/* Chunk 0 (offset 0) is reserved: in use, with its bounds at 0 and 1. */
static unsigned long pcpu_alloc_map[BITS_TO_LONGS(PCPU_NR_CHUNKS)] = { 1UL };	/* chunks in use (cpu_lock) */
static unsigned long pcpu_bound_map[BITS_TO_LONGS(PCPU_NR_CHUNKS + 1)] = { 3UL };	/* area bounds (cpu_lock) */

static void (*cpuhp_teardown[CPUHP_NR_STATES])(unsigned int cpu);	/* step callbacks (atomic) */

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;	/* creates cpu_key */
static pthread_key_t cpu_key;		/* its destructor tears down an exiting thread */
static bool cpu_key_ready;		/* cpu_key exists (written inside cpu_once) */

/* Per thread: attaching failed when cpu_release_gen had this value. */
static __thread bool cpu_attach_failed __attribute__((tls_model("initial-exec")));
static __thread unsigned long cpu_failed_gen __attribute__((tls_model("initial-exec")));
/* Per thread: the teardown steps are running (makes cpu_detach_self() a no-op). */
static __thread bool cpu_in_teardown __attribute__((tls_model("initial-exec")));

/* ---- bitmaps (callers hold cpu_lock) ---- */

/* First bit at or after start (of map XOR invert) that is set, or size. */
static unsigned long bitmap_find_next(const unsigned long *map, unsigned long size,
				      unsigned long start, unsigned long invert)
{
	unsigned long word;

	while (start < size) {
		word = (map[start / BITS_PER_LONG] ^ invert) >> (start % BITS_PER_LONG);
		if (word)
			return min(start + (unsigned long)__builtin_ctzl(word), size);
		start = ALIGN_DOWN(start, BITS_PER_LONG) + BITS_PER_LONG;
	}
	return size;
}

static unsigned long find_next_bit(const unsigned long *map, unsigned long size, unsigned long start)
{
	return bitmap_find_next(map, size, start, 0);
}

static unsigned long find_next_zero_bit(const unsigned long *map, unsigned long size, unsigned long start)
{
	return bitmap_find_next(map, size, start, ~0UL);
}

static bool bitmap_test(const unsigned long *map, unsigned long nr)
{
	return (map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static void bitmap_assign(unsigned long *map, unsigned long start, unsigned long n, bool set)
{
	unsigned long i;

	for (i = start; i < start + n; i++) {
		if (set)
			map[i / BITS_PER_LONG] |= BIT(i % BITS_PER_LONG);
		else
			map[i / BITS_PER_LONG] &= ~BIT(i % BITS_PER_LONG);
	}
}

/* ---- reports ---- */

static __printf(1, 2) void cpu_report(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		os_write_all(2, buf, min((size_t)n, sizeof(buf) - 1));
}

/* ---- setup ---- */

static void cpu_exit(void *unused);

static void cpu_setup(void)
{
	if (pthread_key_create(&cpu_key, cpu_exit) == 0)
		cpu_key_ready = true;
	else
		cpu_report("uslab: no pthread key left: per-CPU caches disabled\n");
}

/*
 * Create the key at load time, so it gets one of the first key slots
 * (glibc stores those inline; later ones need calloc, which may be ours).
 * cpu_lock is a leaf: only os_map() and memset() run under it.
 */
static void __attribute__((constructor)) cpu_constructor(void)
{
	pthread_once(&cpu_once, cpu_setup);
	fork_lock_register(&cpu_lock.m, FORK_RANK_LEAF);
}

/* ---- CPU ids ---- */

/* Map the unit of the next new id and publish it.  Caller holds cpu_lock. */
static bool percpu_unit_map_locked(unsigned int id)
{
	char *unit = os_map(PERCPU_UNIT_SIZE);

	if (!unit)
		return false;
	WRITE_ONCE(percpu_unit_base[id], unit);
	/* why release: for_each_possible_cpu() readers then see the unit. */
	smp_store_release(&nr_cpu_ids, id + 1);
	return true;
}

/* Take the lowest free id, mapping its unit if new; -1 if none.  Holds cpu_lock. */
static int cpu_id_get_locked(void)
{
	unsigned long id = find_next_zero_bit(cpu_ids, NR_CPUS, 0);

	if (id >= NR_CPUS)
		return -1;
	if (!percpu_unit_base[id] && !percpu_unit_map_locked(id))
		return -1;
	bitmap_assign(cpu_ids, id, 1, true);
	return (int)id;
}

static void cpu_id_put(unsigned int id)
{
	mutex_lock(&cpu_lock);
	bitmap_assign(cpu_ids, id, 1, false);
	WRITE_ONCE(cpu_release_gen, cpu_release_gen + 1);
	mutex_unlock(&cpu_lock);
}

static void cpu_remember_failure(unsigned long gen)
{
	cpu_attach_failed = true;
	cpu_failed_gen = gen;
}

/* Run the teardown steps for id on this thread, then release id. */
static void cpu_teardown_and_release(unsigned int id)
{
	void (*fn)(unsigned int cpu);
	int state;

	cpu_in_teardown = true;
	for (state = 0; state < CPUHP_NR_STATES; state++) {
		fn = __atomic_load_n(&cpuhp_teardown[state], __ATOMIC_ACQUIRE);
		if (fn)
			fn(id);
	}
	this_cpu_base = NULL;
	this_cpu_id = -1;
	cpu_id_put(id);
	cpu_in_teardown = false;
}

/* The cpu_key destructor: the thread is exiting while attached. */
static void cpu_exit(void *unused)
{
	(void)unused;
	if (this_cpu_id >= 0 && !cpu_in_teardown)
		cpu_teardown_and_release((unsigned int)this_cpu_id);
}

static noinline __cold int cpu_attach_slow(void)
{
	unsigned long gen;
	int id;

	pthread_once(&cpu_once, cpu_setup);
	mutex_lock(&cpu_lock);
	gen = cpu_release_gen;
	id = cpu_key_ready ? cpu_id_get_locked() : -1;
	mutex_unlock(&cpu_lock);
	if (id < 0) {
		cpu_remember_failure(gen);
		return -1;
	}
	this_cpu_base = percpu_unit_base[id];
	this_cpu_id = id;
	cpu_attach_failed = false;
	/* why after setting this_cpu_id: setspecific may calloc, which may be
	 * ours, which must then find this thread attached instead of recursing. */
	if (pthread_setspecific(cpu_key, (void *)1) != 0) {
		cpu_detach_self();
		cpu_remember_failure(READ_ONCE(cpu_release_gen));
		return -1;
	}
	return id;
}

int cpu_attach(void)
{
	if (this_cpu_id >= 0)
		return this_cpu_id;
	/* why: with no id to be had, do not lock and scan on every call;
	 * try again only once some thread has released an id. */
	if (cpu_attach_failed && cpu_failed_gen == READ_ONCE(cpu_release_gen))
		return -1;
	return cpu_attach_slow();
}

void cpu_detach_self(void)
{
	if (this_cpu_id < 0 || cpu_in_teardown)
		return;
	cpu_teardown_and_release((unsigned int)this_cpu_id);
	/* why: a NULL value stops the destructor; setting NULL never allocates. */
	pthread_setspecific(cpu_key, NULL);
}

void cpuhp_setup_state(enum cpuhp_state state, void (*teardown)(unsigned int cpu))
{
	void (*old)(unsigned int cpu) = NULL;

	if ((unsigned int)state >= CPUHP_NR_STATES || !teardown) {
		cpu_report("uslab: cpuhp_setup_state: invalid state %d or no callback\n", (int)state);
		abort();
	}
	if (!__atomic_compare_exchange_n(&cpuhp_teardown[state], &old, teardown, false,
					 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE) && old != teardown) {
		cpu_report("uslab: cpuhp_setup_state: state %d already has a teardown\n", (int)state);
		abort();
	}
}

void cpuhp_remove_state_nocalls(enum cpuhp_state state)
{
	if ((unsigned int)state >= CPUHP_NR_STATES) {
		cpu_report("uslab: cpuhp_remove_state_nocalls: invalid state %d\n", (int)state);
		abort();
	}
	__atomic_store_n(&cpuhp_teardown[state], NULL, __ATOMIC_RELEASE);
}

/* ---- per-CPU offsets ---- */

/* First chunk of a free run of bits chunks aligned to align chunks, or 0 (none). */
static unsigned long pcpu_find_fit_locked(unsigned long bits, unsigned long align)
{
	unsigned long pos = find_next_zero_bit(pcpu_alloc_map, PCPU_NR_CHUNKS, 1);
	unsigned long start, busy;

	while (pos < PCPU_NR_CHUNKS) {
		start = ALIGN(pos, align);
		if (start + bits > PCPU_NR_CHUNKS)
			return 0;
		busy = find_next_bit(pcpu_alloc_map, start + bits, start);
		if (busy == start + bits)
			return start;
		pos = find_next_zero_bit(pcpu_alloc_map, PCPU_NR_CHUNKS, busy + 1);
	}
	return 0;
}

/* Mark [start, start + bits) allocated, bounded at both ends. */
static void pcpu_mark_locked(unsigned long start, unsigned long bits)
{
	bitmap_assign(pcpu_alloc_map, start, bits, true);
	bitmap_assign(pcpu_bound_map, start, 1, true);
	bitmap_assign(pcpu_bound_map, start + 1, bits - 1, false);
	bitmap_assign(pcpu_bound_map, start + bits, 1, true);
}

/* End of the offsets ever handed out; cpu_lock.  Above it every unit still
 * reads as the zeros the OS mapped. */
static unsigned long pcpu_used_end;

/*
 * Zero [off, off + size) in every mapped unit (ids 0 .. nr_cpu_ids-1).
 * why only below pcpu_used_end: memset of memory that already reads zero
 * would still make its pages resident, in every unit (tens of KiB at start).
 */
static void pcpu_zero_locked(unsigned long off, size_t size)
{
	unsigned long end = min(off + size, pcpu_used_end);
	unsigned int cpu;

	pcpu_used_end = max(pcpu_used_end, off + size);
	if (off >= end)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		memset(percpu_unit_base[cpu] + off, 0, end - off);
}

void __percpu *__alloc_percpu(size_t size, size_t align)
{
	unsigned long bits, start;

	if (!size || size >= PERCPU_UNIT_SIZE || !is_power_of_2(align) || align > PCPU_MAX_ALIGN) {
		cpu_report("uslab: __alloc_percpu: bad size %zu or align %zu\n", size, align);
		return NULL;
	}
	bits = DIV_ROUND_UP(size, PCPU_MIN_ALLOC_SIZE);
	align = max(align, PCPU_MIN_ALLOC_SIZE) >> PCPU_MIN_ALLOC_SHIFT;
	mutex_lock(&cpu_lock);
	start = pcpu_find_fit_locked(bits, align);
	if (start) {
		pcpu_mark_locked(start, bits);
		pcpu_zero_locked(start << PCPU_MIN_ALLOC_SHIFT, bits << PCPU_MIN_ALLOC_SHIFT);
	}
	mutex_unlock(&cpu_lock);
	return (void __percpu *)(start << PCPU_MIN_ALLOC_SHIFT);
}

/* Is chunk the first chunk of an allocated area? */
static bool pcpu_is_area_start_locked(unsigned long chunk)
{
	return bitmap_test(pcpu_alloc_map, chunk) && bitmap_test(pcpu_bound_map, chunk);
}

void free_percpu(void __percpu *ptr)
{
	unsigned long off = (unsigned long)ptr, chunk, end;

	if (!ptr)
		return;
	chunk = off >> PCPU_MIN_ALLOC_SHIFT;
	mutex_lock(&cpu_lock);
	if (off % PCPU_MIN_ALLOC_SIZE || off >= PERCPU_UNIT_SIZE || !pcpu_is_area_start_locked(chunk)) {
		mutex_unlock(&cpu_lock);
		cpu_report("uslab: free_percpu: %p is not an allocated per-CPU area (double free?)\n", ptr);
		abort();
	}
	/* why: the area's inner bounds are clear, so the next bound is its end. */
	end = find_next_bit(pcpu_bound_map, PCPU_NR_CHUNKS + 1, chunk + 1);
	bitmap_assign(pcpu_alloc_map, chunk, end - chunk, false);
	mutex_unlock(&cpu_lock);
}
