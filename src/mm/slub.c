// SPDX-License-Identifier: MIT
/*
 * slub.c - SLUB, the unqueued slab allocator of Linux 5.17, for user space.
 *
 * 1. Overview
 *    A cache hands out objects of one size from slabs: blocks of 2^order
 *    pages cut into s->size slots.  A free object holds, at s->offset, a
 *    pointer to the next free object of its slab (encoded, see §7), so
 *    slabs need no side tables and objects no headers.
 *
 *    Each CPU -- here each thread, see cpu.h -- owns one "cpu slab" per
 *    cache and a private freelist of its free objects (c->freelist).
 *    Allocation pops that list, free of an object of the cpu slab pushes
 *    it: both without lock or atomic read-modify-write, because only the
 *    owning thread ever touches c->freelist and c->slab.  Every other free
 *    (an object of another slab, typically freed by another thread) goes
 *    onto its slab's own freelist, slab->freelist, with a double-word
 *    compare-and-swap of freelist+counters.  When the cpu freelist runs
 *    dry the owner takes what remote frees left on slab->freelist
 *    (get_freelist), or grows the cpu slab in place if it is a ramped slab
 *    of a size class not yet whole (slab_objects_ramp); then a slab from its per-CPU partial chain; then one
 *    from the node's partial list (get_partial_node, taking more for the
 *    chain on the way); then a new slab from the page allocator.
 *
 *    A thread that cannot get a CPU id (all NR_CPUS taken) still works:
 *    it allocates one object at a time from node partial slabs under the
 *    node's list_lock, and frees through __slab_free like a remote CPU.
 *
 * 2. Data structures (slub_def.h unless said otherwise)
 *    struct kmem_cache       the cache: geometry (size, offset, oo/min),
 *                            tuning (min_partial, cpu_partial_slabs),
 *                            hardening keys, cpu_slab, node[0].
 *    struct kmem_cache_cpu   (slub_fastpath.h) per cache and CPU: freelist,
 *                            slab, the cpu slab's address range (for the
 *                            free fast path), partial chain, flush request,
 *                            lock.
 *    struct kmem_cache_node  per cache and node: partial list + count,
 *                            slab/object totals, full list (debug only).
 *    struct slab             the slab page: freelist, inuse/objects/frozen
 *                            (one word: counters), list links or the
 *                            per-CPU chain links (next, slabs).
 *
 * 3. States of a slab
 *      state         frozen  on list          slab->freelist           inuse
 *      cpu slab      1       c->slab          remote frees (or NULL)   objects - remote frees
 *      cpu partial   1       c->partial chain its free objects (!NULL) objects - free
 *      node partial  0       n->partial       its free objects (!NULL) objects - free (may be 0)
 *      full          0       none (n->full    NULL                     objects
 *                            with debug U)
 *    The cpu slab's own free objects are on c->freelist and count as in use
 *    in slab->inuse.  Transitions: new_slab -> cpu slab; cpu slab ->
 *    (deactivate_slab) node partial / full / freed; full -> (remote free)
 *    cpu partial of the freeing CPU; cpu partial -> cpu slab (alloc), or ->
 *    node partial / freed (__unfreeze_partials: drain, flush, shrink, thread
 *    exit); node partial -> cpu slab or cpu partial (acquire_slab), or ->
 *    freed when empty and the node already keeps min_partial slabs.
 *
 * 4. Lock order
 *      slab_mutex -> n->list_lock -> c->lock -> slab_lock (PG_locked bit)
 *    c->lock guards the per-CPU partial chain and every change of c->slab
 *    made by the slow path; it is taken only in slow paths, uncontended
 *    except when another thread flushes this CPU (kmem_cache_shrink,
 *    kmem_cache_destroy).  Nothing is taken while c->lock is held, and the
 *    page allocator is never called with a SLUB lock held.  slab_lock is
 *    used only by caches without __CMPXCHG_DOUBLE (debug caches with F, U
 *    or T) and by the debug path (§9), always inside n->list_lock there.
 *
 * 5. Invariants
 *    - Only the owning thread reads or writes c->freelist, c->slab,
 *      c->slab_start/slab_objects, except __kmem_cache_shutdown, whose caller
 *      guarantees that nobody uses the cache any more.  Other threads touch
 *      a CPU's c->partial only under c->lock, and set c->flush_request.
 *    - A frozen slab is on no node list; only its owner takes objects from
 *      slab->freelist; others only push onto it (cmpxchg).
 *    - An unfrozen slab with free objects is on its node's partial list;
 *      objects are taken from it only under n->list_lock.
 *    - slab->inuse = objects - (objects on slab->freelist); nr_slabs and
 *      total_objects count every slab of the node in any state.
 *    - A thread that exits leaves its kmem_cache_cpu empty (CPUHP_SLAB_DEAD),
 *      so memory a CPU holds is bounded by the number of live threads.
 *
 * 6. Differences from the kernel.  There are no interrupts or preemption:
 *    a CPU is a thread, so the kernel's transaction id and this_cpu
 *    cmpxchg on the fast path are unnecessary.  A cpu slab held by another
 *    live thread cannot be taken from it; kmem_cache_shrink asks for it
 *    with c->flush_request, honoured in that thread's next slow path or at
 *    its exit.  RCU is liburcu's (rcu.c): a slab of a SLAB_TYPESAFE_BY_RCU
 *    cache is discarded as any other (out of the counts and lists at once),
 *    but free_slab() hands it to call_rcu() through slab->rcu_head and
 *    rcu_free_slab() gives its pages back after the grace period, so a
 *    reader inside rcu_read_lock() only ever finds objects of the cache
 *    there; the free pointer of such a cache lies outside the object
 *    (slub_cache.c), so a freed object keeps its contents for such readers.
 *    Debug caches (§9) follow Linux 6.2, not 5.17: no slab of theirs is
 *    ever frozen, each alloc and free takes n->list_lock, which closes
 *    5.17's races between validate and frozen debug slabs.  A damage
 *    report aborts by default (slab_error=repair: the kernel's repairs).
 *    Owner tracks take their stack from backtrace() and print it with
 *    dladdr() (track.c).  No pfmemalloc reserves, one node.
 *
 * 7. Hardening.  Free pointers are stored as ptr ^ s->random ^ (their
 *    object's address) ^ bswap(the address's region: the aligned
 *    2^FREEPOINTER_REGION_SHIFT bytes holding its slab whole), so a leaked
 *    free object shows no heap address and a forged pointer decodes to
 *    garbage.  Why not the kernel's s->random ^ bswap(address of the
 *    pointer): random and region make one key per slab, which the fast
 *    paths keep beside c->freelist (c->freelist_key), so decoding is two
 *    XORs, one of them before the load, instead of an address, a byte
 *    swap and two XORs, the address on the load's own chain (the
 *    hardening then costs 7 instructions an alloc+free pair, not 13, and
 *    about 1.08x the time, not 1.20x).  Freeing the object
 *    that heads the freelist (a naive double free) is reported and aborts
 *    (always, even under slab_error=repair).  Decoded pointers are checked
 *    before they are handed out: the alloc fast path takes the head of
 *    c->freelist only if it lies among the cpu slab's objects (a range
 *    test, which also stands in for the NULL test; why not the exact one:
 *    cpu_freelist_object_ok), and every slow path that follows a chain
 *    (slab_pop_locked, deactivate's count, the debug path) checks each
 *    link exactly; a bad one is reported ("Freepointer corrupt") and the
 *    list cut there.  Frees check
 *    that the pointer is an object start of a slab of the cache (an
 *    exact-division test, three instructions on the fast path).  New slabs
 *    get their freelist in a per-cache random order from a random start
 *    (CONFIG_SLAB_FREELIST_RANDOM).  docs/debugging.md has the costs.
 *
 * 8. Files.  slub.c is the allocator: slabs, their states, the alloc and
 *    free slow paths, flushing, kmem_cache_alloc/free and bulk, fork.
 *    slub_fastpath.h is the fast paths, inline (struct kmem_cache_cpu, the
 *    pops and the free's push, their call tree and budget), for slub.c
 *    and slub_kmalloc.c, which is kmalloc, kfree, ksize and the malloc
 *    drop-in's kmem_cache_alloc_orig.  slub_sheaf.c is how a sheaf gives
 *    its objects back and finds double frees (§10).  slub_cache.c sizes
 *    caches (calculate_sizes, calculate_order, the slub_* options),
 *    creates, shrinks and destroys them, fills slabinfo and bootstraps
 *    SLUB.  slub_debug.c is the debug path, its checks, reports and
 *    validate.  slub_internal.h holds what they share.
 *
 * 9. What debug mode changes (CONFIG_SLUB_DEBUG; slub_debug.c tells it
 *    all).  A cache with debug flags (slub_debug= or creation flags), with
 *    SLAB_FAILSLAB, or any cache in memcheck mode takes the debug path
 *    (slab_debug_path()): it never gets a cpu slab or a per-CPU partial
 *    chain, so its c->freelist stays NULL and c->slab_objects 0, and both
 *    fast paths fall through to the slow path by the tests they make
 *    anyway: debug off costs the fast paths nothing.  __slab_alloc and
 *    slab_free_slow (and bulk) hand such caches to slab_alloc_debug() and
 *    slab_free_debug(): one object from a node partial slab or a new one,
 *    and back, under n->list_lock, with the checks, red zones, poison and
 *    owner tracks of the flags; the slab's freelist+counters change under
 *    slab_lock (F/U/T clear __CMPXCHG_DOUBLE as in 5.17).  Their slabs
 *    are never frozen: partial on n->partial, full on n->full with U (else
 *    on no list); nr_slabs changes under list_lock with the lists, so that
 *    kmem_cache_validate() can compare them.  calculate_sizes reserves the
 *    room; setup_slab_debug/setup_object_debug fill new slabs' patterns.
 *
 * 10. The cpu sheaf (after Linux 6.18's per-CPU sheaves; 5.17 has none;
 *    slub_sheaf.c tells it all).  A free that is not of the cpu slab,
 *    once checked (object_slab_checked's exact test) and uncharged, goes
 *    into c->sheaf, an array only the owner touches: no lock, no atomic,
 *    instead of a cmpxchg_double on the object's slab.  slab_free_slow
 *    does that with no call for a valid object, against c->sheaf's
 *    remembered slab in a run of one slab's objects; anything else goes
 *    to slab_free_general.  The alloc fast path's miss (__slab_alloc)
 *    pops the sheaf's newest object first, with no frame.  A full sheaf
 *    gives everything back (sheaf_flush): each slab's objects as one
 *    chain, by sheaf_chain_give_back (one __slab_free, or onto
 *    c->freelist for the cpu slab).  Objects in a sheaf count as in use
 *    in their slabs, as objects on c->freelist do; __flush_cpu_slab gives
 *    the sheaf back first (shrink, thread exit, destroy); on a CPU asked
 *    to flush, its next free or alloc slow path honours the request.  A
 *    free of the sheaf's top object is reported at once (the naive double
 *    free); an object deeper in the sheaf twice, when the sheaf gives its
 *    objects back, before it is linked twice.  Debug-path caches have no
 *    sheaf.  The malloc drop-in, whose live map vouches for every block
 *    it frees, pushes with no look-up of the slab and pops the sheaf in
 *    line when c->freelist is empty (slub_sheaf.c §8).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "slub_fastpath.h"
#include "memcontrol.h"
#include "track.h"
#include "os/os.h"

const char *const allocator_name = "slub";

/* gfp bits that reach the page allocator for a new slab. */
#define GFP_RECLAIM_MASK	(__GFP_RECLAIM | __GFP_HIGH | __GFP_IO | __GFP_FS | \
				 __GFP_NOWARN | __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | \
				 __GFP_NORETRY | __GFP_MEMALLOC | __GFP_NOMEMALLOC)
#define GFP_CONSTRAINT_MASK	(__GFP_HARDWALL | __GFP_THISNODE)


static void sheaf_flush_all(struct kmem_cache *s, struct kmem_cache_cpu *c);

/* May the alloc slow path take from c's sheaf first?  Not when empty, nor
 * when a flush is asked for (___slab_alloc honours it), nor while the cpu
 * slab may grow (a slab of fewer objects than s's order holds: a ramped
 * one, or an order fallback, which ___slab_alloc tells apart).  why the
 * last: a small cpu slab that gave way to the sheaf would never grow, and
 * a batch would then run through the sheaf, objects of full slabs freed
 * and taken again by the slow paths (fastpath kmalloc 1024: 85 -> 152
 * instructions a pair).  A debug-path cache never has objects there. */
static inline bool sheaf_ready(const struct kmem_cache *s, const struct kmem_cache_cpu *c)
{
	return c->sheaf.nr && likely(!READ_ONCE(c->flush_request)) &&
	       likely(c->slab_objects >= oo_objects(cache_oo(s)));
}

/* ======================= small helpers ======================= */

static inline void stat(const struct kmem_cache *s, enum stat_item si)
{
	struct kmem_cache_cpu *c;

	if (!CONFIG_SLUB_STATS)
		return;
	c = this_cpu_ptr_or_null(s->cpu_slab);
	if (c)
		c->stat[si]++;
}

/* This thread's kmem_cache_cpu of s, attaching to a CPU id if needed;
 * NULL if the thread cannot have one. */
static struct kmem_cache_cpu *this_cpu_slab(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);

	if (!c && raw_smp_processor_id() >= 0)
		c = this_cpu_ptr_or_null(s->cpu_slab);
	return c;
}

/* ======================= reports of bad frees ======================= */

static __noreturn __cold void slab_abort(const char *where)
{
	slab_printk("kernel BUG at mm/slub.c:%s!\n", where);
	abort();
}

/*
 * Always fatal, even under slab_error=repair: it fires inside a freelist
 * update (set_freepointer), where the only way on would corrupt the list.
 */
static __cold __noreturn void double_free_abort(const struct kmem_cache *s, void *object,
						const char *where, const char *site)
{
	struct slab *slab = virt_to_slab(object);

	slab_bug(s, "Object already free: double free of 0x%lx (%s)", (unsigned long)object, where);
	if (slab) {
		print_slab_info(slab);
		print_object_line(s, slab, object);
	}
	slab_abort(site);
}

noinline __cold __noreturn void naive_double_free(const struct kmem_cache *s, void *object)
{
	double_free_abort(s, object, "it heads the freelist", "set_freepointer");
}

/* After a bad free's report: abort (slab_error=abort, the default), or
 * under slab_error=repair leave x alone and go on. */
static void bad_free_done(const char *where, const char *cache, const void *x)
{
	if (!slab_error_repair())
		slab_printk("kernel BUG at mm/slub.c:%s!\n", where);
	slab_error_done();
	slab_printk("FIX %s: Object at 0x%lx not freed\n", cache, (unsigned long)x);
}

noinline __cold void free_invalid_pointer(const char *fn, const void *x, const char *why)
{
	slab_printk("%s: invalid pointer 0x%lx (%s)\n", fn, (unsigned long)x, why);
	bad_free_done(fn, fn, x);
}

static noinline __cold void free_wrong_cache(const struct kmem_cache *s,
					     const struct kmem_cache *t, void *x)
{
	slab_warn("mm/slub.c:cache_from_obj",
		  "cache_from_obj: Wrong slab cache. %s but object is from %s\n", s->name, t->name);
	print_tracking(t, x);
	slab_printk("Object 0x%lx not freed\n", (unsigned long)x);
	bad_free_done("cache_from_obj", s->name, x);
}

static noinline __cold void free_bad_object(const struct kmem_cache *s,
					    const struct slab *slab, const void *x)
{
	slab_bug(s, "Invalid object pointer 0x%lx", (unsigned long)x);
	print_slab_info(slab);
	slab_printk("0x%lx is not the start of an object of %u bytes; nothing was freed\n",
		    (unsigned long)x, s->size);
	bad_free_done("free_consistency_checks", s->name, x);
}

/* The slab x belongs to; x must be an object start of a slab of s (s NULL:
 * any cache).  Anything else is reported, and NULL returned (after the
 * abort of slab_error=abort, or under slab_error=repair). */
static struct slab *object_slab_checked(const struct kmem_cache *s, const void *x, const char *fn)
{
	struct slab *slab = virt_to_slab(x);
	const struct kmem_cache *t;
	unsigned long off;

	if (unlikely(!slab)) {
		free_invalid_pointer(fn, x, "not a slab object");
		return NULL;
	}
	t = slab->slab_cache;
	if (unlikely(s && t != s)) {
		free_wrong_cache(s, t, (void *)x);
		return NULL;
	}
	off = (unsigned long)x - (unsigned long)slab_objects_start(t, slab);
	/* why one compare: the exact-division index of a non-multiple of
	 * t->size (or of a negative off) is above any object count */
	if (unlikely(obj_offset_index(t, off) >= slab_counters(slab).objects)) {
		free_bad_object(t, slab, x);
		return NULL;
	}
	return slab;
}

/* ======================= checked free pointers (§7) ======================= */

/* Is p an object of slab?  What a decoded free pointer must be. */
static bool object_in_slab(const struct kmem_cache *s, const struct slab *slab, const void *p)
{
	unsigned long off = (unsigned long)p - (unsigned long)slab_objects_start(s, slab);

	return obj_offset_index(s, off) < slab_counters(slab).objects;
}

/*
 * A free pointer (held by object; NULL: the head of a freelist) decodes to
 * fp, no object of slab: a write after free or a forged pointer.  Reported
 * before fp is ever handed out; the list ends there, and the objects after
 * it stay counted as allocated (lost, never handed out twice).
 */
static noinline __cold void freelist_corrupt(const struct kmem_cache *s, const struct slab *slab,
					     const void *object, const void *fp)
{
	slab_bug(s, "Freepointer corrupt");
	if (object)
		slab_printk("INFO: Object 0x%lx: free pointer 0x%lx is not an object of its slab\n",
			    (unsigned long)object, (unsigned long)fp);
	else
		slab_printk("INFO: Freelist head 0x%lx is not an object of its slab\n",
			    (unsigned long)fp);
	print_slab_info(slab);
	slab_error_done();
	slab_fix(s, "Freelist cut: the objects after it stay allocated");
}

/* ======================= slab freelist+counters updates ======================= */

static inline u128 slab_pair(void *freelist, unsigned long counters)
{
	return (u128)(unsigned long)freelist | (u128)counters << 64;
}

/* The update of caches without __CMPXCHG_DOUBLE: compare and set under slab_lock. */
static bool cmpxchg_slab_locked(struct slab *slab, void *freelist_old, unsigned long counters_old,
				void *freelist_new, unsigned long counters_new)
{
	bool ok = false;

	slab_lock(slab);
	if (READ_ONCE(slab->freelist) == freelist_old && READ_ONCE(slab->counters) == counters_old) {
		WRITE_ONCE(slab->freelist, freelist_new);
		WRITE_ONCE(slab->counters, counters_new);
		ok = true;
	}
	slab_unlock(slab);
	return ok;
}

/* Replace slab's freelist+counters if they still hold the old values. */
static __always_inline bool cmpxchg_double_slab(const struct kmem_cache *s, struct slab *slab,
				void *freelist_old, unsigned long counters_old,
				void *freelist_new, unsigned long counters_new)
{
	bool ok;

	if (likely(s->flags & __CMPXCHG_DOUBLE))
		ok = cmpxchg_double((u128 *)&slab->freelist, slab_pair(freelist_old, counters_old),
				    slab_pair(freelist_new, counters_new));
	else
		ok = cmpxchg_slab_locked(slab, freelist_old, counters_old,
					 freelist_new, counters_new);
	if (!ok)
		stat(s, CMPXCHG_DOUBLE_FAIL);
	return ok;
}

/* May slab, empty, go back to the page allocator now?  Not while the node
 * keeps fewer than min_partial slabs (RCU caches too: free_slab defers, §6),
 * unless churn raised s's order past slab's (slub_cache.c: a churning class
 * should run on slabs of its new order).  A slab that goes back because of
 * a yes goes by discard_slab_churn. */
bool slab_discard_ok(const struct kmem_cache *s, const struct kmem_cache_node *n,
		     const struct slab *slab)
{
	return READ_ONCE(n->nr_partial) >= s->min_partial ||
	       (unlikely(READ_ONCE(s->churned)) && slab_order(slab) < oo_order(cache_oo(s)));
}

/* ======================= freelist randomisation ======================= */

static __thread unsigned long slub_rnd_state __attribute__((tls_model("initial-exec")));

/* A per-thread xorshift64* stream, seeded from the OS. */
unsigned long slub_random(void)
{
	unsigned long x = slub_rnd_state;

	if (unlikely(!x)) {
		os_random_bytes(&x, sizeof(x));
		x |= 1;
	}
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	slub_rnd_state = x;
	return x * 0x2545f4914f6cdd1dUL;
}

/* The next offset of the sequence that lies in [lo, hi): the objects of
 * this (maybe smaller) slab, or of the chunk a grow adds to it, when the
 * sequence has no window for them (random_seq_window). */
static void *next_freelist_entry(const unsigned int *seq, unsigned int *pos, char *start,
				 unsigned long lo, unsigned long hi, unsigned int count)
{
	unsigned int idx;

	do {
		idx = seq[*pos];
		if (++*pos >= count)
			*pos = 0;
	} while (unlikely(idx - lo >= hi - lo));
	return start + idx;
}

/* Do entries [from, to) of s's sequence (of count) hold exactly objects
 * [from, to)?  The whole slab, or whole ramp chunks of a chunked sequence. */
static bool random_seq_window(const struct kmem_cache *s, unsigned int from, unsigned int to,
			      unsigned int count)
{
	unsigned int b = 0;

	if (!from && to == count)
		return true;
	if (!random_seq_chunked(s, count))
		return false;
	while (b < from)
		b = slab_ramp_chunk_end(s, b, count);
	if (b != from)
		return false;
	while (b < to)
		b = slab_ramp_chunk_end(s, b, count);
	return b == to;
}

/* ======================= new slabs ======================= */

static inline void *setup_object(const struct kmem_cache *s, void *object)
{
	if (unlikely(kmem_cache_debug(s)))
		setup_object_debug(s, object);
	if (unlikely(s->ctor))
		s->ctor(object);
	return object;
}

/*
 * Link the n objects at start + seq[0..n) (byte offsets, distinct) in the
 * order of seq from seq[pos] round to seq[pos - 1]; returns the head, the
 * last in *tailp (its free pointer NULL).  For a window of the sequence
 * (random_seq_window) of a cache whose objects need no set-up: why a path
 * of its own: no range test of each entry, no set-up test, and the slab's
 * key once (all its objects share it), about 8 instructions an object
 * instead of 32.
 */
static void *shuffle_window(const struct kmem_cache *s, char *start, const unsigned int *seq,
			    unsigned int n, unsigned int pos, void **tailp)
{
	unsigned long key = freepointer_slab_key(s, start);
	unsigned int offset = s->offset, i = pos;
	char *head = start + seq[pos], *cur = head, *next;

	for (;;) {
		if (++i == n)
			i = 0;
		if (i == pos)
			break;
		next = start + seq[i];
		*(void **)(cur + offset) = freelist_ptr(next, cur, key);
		cur = next;
	}
	*(void **)(cur + offset) = freelist_ptr(NULL, cur, key);
	*tailp = cur;
	return head;
}

/*
 * Link objects [from, to) of slab in random order (the cache's sequence
 * from a random start, only its entries in that range); returns the head,
 * the last in *tailp (its free pointer NULL).  NULL if not randomised:
 * fewer than 2 objects, no sequence yet, or a slab of more objects than
 * the sequence covers (an order fallback never is: s->min <= s->oo).
 */
static void *shuffle_objects(const struct kmem_cache *s, struct slab *slab, unsigned int from,
			     unsigned int to, void **tailp)
{
	unsigned long lo = (unsigned long)from * s->size, hi = (unsigned long)to * s->size;
	char *start = slab_objects_start(s, slab);
	/* why acquire: another thread may be making s's first sequence
	 * (slub_random_seq_first) or churn replacing it: this one sees NULL
	 * (a linear freelist) or a whole sequence */
	const struct slub_random_seq *rs = smp_load_acquire(&s->random_seq);
	const unsigned int *seq;
	unsigned int count, pos, i;
	void *head, *cur, *next;

	if (to - from < 2 || !rs || to > rs->count)
		return NULL;
	seq = rs->offset;
	count = rs->count;
	if (likely(random_seq_window(s, from, to, count))) {
		/* why: a chunk of a big slab would else scan the whole
		 * sequence for its few entries (the five chunks of a
		 * 1024-object slab: 70 instructions an object) */
		seq += from;
		count = to - from;
		if (likely(!kmem_cache_debug(s) && !s->ctor))
			return shuffle_window(s, start, seq, count,
					      (unsigned int)(slub_random() % count), tailp);
	}
	pos = (unsigned int)(slub_random() % count);
	head = cur = setup_object(s, next_freelist_entry(seq, &pos, start, lo, hi, count));
	for (i = from + 1; i < to; i++) {
		next = setup_object(s, next_freelist_entry(seq, &pos, start, lo, hi, count));
		set_freepointer(s, cur, next);
		cur = next;
	}
	set_freepointer(s, cur, NULL);
	*tailp = cur;
	return head;
}

/* Link objects [from, to) of slab (from < to) in address order, unless
 * randomised; returns the head, the last in *tailp (free pointer NULL). */
static void *link_objects(const struct kmem_cache *s, struct slab *slab, unsigned int from,
			  unsigned int to, void **tailp)
{
	char *p, *head = shuffle_objects(s, slab, from, to, tailp);
	unsigned int i;

	if (head)
		return head;
	head = p = setup_object(s, (char *)slab_objects_start(s, slab) +
				(unsigned long)from * s->size);
	for (i = from + 1; i < to; i++) {
		char *next = setup_object(s, p + s->size);

		set_freepointer(s, p, next);
		p = next;
	}
	set_freepointer(s, p, NULL);
	*tailp = p;
	return head;
}

static struct slab *alloc_slab_page(gfp_t flags, int node, struct kmem_cache_order_objects oo)
{
	struct page *page = alloc_pages_node(node, flags, oo_order(oo));
	struct folio *folio;

	if (unlikely(!page))
		return NULL;
	folio = page_folio(page);
	__folio_set_slab(folio);
	return folio_slab(folio);
}

/*
 * Ramped slabs.  A new slab of a ramping cache (s->ramps: the size classes
 * of kmalloc and the malloc drop-in, and caches made for one type of object
 * that need nothing done as a slab is made, slub_cache.c cache_ramps) that
 * is to be a cpu slab starts with only the objects of its first page
 * cut (slab->objects below what its order holds), and grows in place while
 * it is a cpu slab: when its CPU has taken every object it has and no
 * remote free is waiting, the next chunk (twice its objects, in whole
 * pages, at most the order's) is linked and published
 * (cpu_slab_grow_locked).  Other slabs are whole from the start.
 *
 * why: a new slab has each of its objects written (the free pointers),
 * which makes every page of it resident, and a program touches dozens of
 * size classes per thread (each thread is a CPU, with a cpu slab per
 * class), most of them lightly: each would hold a whole slab of touched
 * memory (64 KiB for the larger classes).  The pages past the last object
 * are never written until a grow reaches them, so they cost address space
 * only, and the slab keeps its order, so every count of pages (slabinfo,
 * the memory map picture) stays num_slabs << order.  A busy class's cpu
 * slab grows to the whole order in a few slow paths (64-byte objects:
 * 64 -> 128 -> ... -> 1024), so its fast paths run on whole slabs.
 *
 * Invariants: slab->objects only grows, only while the slab is frozen as
 * a cpu slab, only by its owner under c->lock, and together with inuse in
 * one freelist+counters update; an address past slab->objects is no
 * object (every exact test reads the counters) until then.  c's cached
 * geometry (slab_objects, slab_span, objcgs_objects) is raised before a
 * new object is handed out, and the node's total_objects by the objects
 * added, so discard_slab's subtraction of slab->objects matches.  A memcg
 * vector has a slot per object the order holds (memcontrol.c), so a slab
 * grows with its vector.  A class of 16 objects a slab or fewer (4 KiB
 * objects and up) is whole from the first (fastpath, batches of 64 4-KiB
 * blocks: +12% instructions else).  The debug path (check_counts wants
 * whole slabs), which never has a cpu slab, caches with a constructor or
 * SLAB_TYPESAFE_BY_RCU, and the slabs of a thread without a CPU (no cpu
 * slab: they could never grow) are whole.
 */
/* SLAB_RAMP_MIN_OBJECTS, slab_ramps, slab_ramp_chunk_end: slub_internal.h */

/* The objects of a new slab of oo: those of its first page if it may
 * ramp (ramp: it is to be a cpu slab, the only kind that grows). */
static unsigned int slab_objects_ramp(const struct kmem_cache *s,
				      struct kmem_cache_order_objects oo, bool ramp)
{
	unsigned int whole = oo_objects(oo);

	/* why the node: the node cache's first slab exists before its node */
	if (!ramp || !slab_ramps(s, whole) || unlikely(!get_node(s, 0)))
		return whole;
	return slab_ramp_chunk_end(s, 0, whole);
}

/* A frozen slab with every object on slab->freelist and inuse = objects;
 * ramp: it may start with its first chunk only (slab_objects_ramp). */
static struct slab *allocate_slab(struct kmem_cache *s, gfp_t flags, int node, bool ramp)
{
	struct kmem_cache_order_objects oo;
	gfp_t alloc_gfp;
	struct slab *slab;
	void *tail;

	if (CONFIG_SLAB_FREELIST_RANDOM && unlikely(!READ_ONCE(s->random_seq_claimed)))
		slub_random_seq_first(s);
	if (slub_churn_due(s))
		slub_churn_raise(s);
	oo = cache_oo(s);
	/* why: a slab of a smaller order from pages the process holds beats
	 * one of the preferred order from fresh pages (page_alloc.c) */
	if (oo_order(oo) > oo_order(s->min))
		oo = oo_make(page_alloc_resident_order(oo_order(s->min), oo_order(oo)), s->size);
	flags |= s->allocflags;
	/* why: let the preferred order fail fast; the minimum order may retry */
	alloc_gfp = (flags | __GFP_NOWARN | __GFP_NORETRY) & ~__GFP_NOFAIL;
	if ((alloc_gfp & __GFP_DIRECT_RECLAIM) && oo_order(oo) > oo_order(s->min))
		alloc_gfp = (alloc_gfp | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM;
	slab = alloc_slab_page(alloc_gfp, node, oo);
	if (unlikely(!slab)) {
		oo = s->min;
		slab = alloc_slab_page(flags, node, oo);
		if (unlikely(!slab))
			return NULL;
		stat(s, ORDER_FALLBACK);
	}
	slab->objects = slab_objects_ramp(s, oo, ramp);
	slab->slab_cache = s;
	if (unlikely(kmem_cache_debug(s)))
		setup_slab_debug(s, slab);
	slab->freelist = link_objects(s, slab, 0, slab->objects, &tail);
	slab->inuse = slab->objects;
	slab->frozen = 1;
	if (unlikely(memcheck_active()))
		new_slab_memcheck(s, slab);
	/* why not for the debug path: it counts a slab when it lists it */
	if (likely(!slab_debug_path(s)))
		inc_slabs_node(s, slab_nid(slab), slab->objects);
	return slab;
}

static struct slab *new_slab_ramp(struct kmem_cache *s, gfp_t flags, int node, bool ramp)
{
	if (unlikely(flags & GFP_SLAB_BUG_MASK))
		flags = kmalloc_fix_flags(flags);
	return allocate_slab(s, flags & (GFP_RECLAIM_MASK | GFP_CONSTRAINT_MASK), node, ramp);
}

/* A new slab that may ramp: one that becomes a cpu slab (or the node
 * cache's first, which cannot: slab_objects_ramp). */
struct slab *new_slab(struct kmem_cache *s, gfp_t flags, int node)
{
	return new_slab_ramp(s, flags, node, true);
}

static void __free_slab(struct slab *slab)
{
	struct folio *folio = slab_folio(slab);
	unsigned int order = folio_order(folio);

	memcg_free_slab_cgroups(slab);
	slab->slab_cache = NULL;	/* overlays page->mapping */
	__folio_clear_slab(folio);
	__free_pages(folio_page(folio, 0), order);
}

/* SLAB_TYPESAFE_BY_RCU: the grace period after free_slab() is over. */
static void rcu_free_slab(struct rcu_head *head)
{
	__free_slab(container_of(head, struct slab, rcu_head));
}

/* An empty slab, on no list and out of its node's counts, goes back. */
void free_slab(struct kmem_cache *s, struct slab *slab)
{
	if (unlikely(slab_debug_path(s)))
		free_slab_debug(s, slab);
	if (unlikely(s->flags & SLAB_TYPESAFE_BY_RCU))
		call_rcu(&slab->rcu_head, rcu_free_slab);	/* pages back after readers (§6) */
	else
		__free_slab(slab);
	stat(s, FREE_SLAB);
}

/* Give an empty slab that is on no list and no CPU's back to the pages. */
void discard_slab(struct kmem_cache *s, struct slab *slab)
{
	dec_slabs_node(s, slab_nid(slab), slab->objects);
	free_slab(s, slab);
}

/* discard_slab of a slab that slab_discard_ok let go: churn, counted
 * until it raises s's order (slub_churn_due). */
static void discard_slab_churn(struct kmem_cache *s, struct slab *slab)
{
	if (unlikely(s->churn_order > oo_order(cache_oo(s))))
		atomic_inc(&s->churn);
	discard_slab(s, slab);
}

/* ======================= the per-CPU partial chain ======================= */

/* Unfreeze a slab of a per-CPU chain (n->list_lock held): true if it is
 * empty and may go back to the page allocator, else it joins n->partial. */
static bool unfreeze_slab_locked(struct kmem_cache *s, struct kmem_cache_node *n,
				 struct slab *slab)
{
	union slab_counters old, new;
	void *freelist;

	do {
		freelist = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		new = old;
		new.frozen = 0;
	} while (!cmpxchg_double_slab(s, slab, freelist, old.counters, freelist, new.counters));
	if (unlikely(!new.inuse && slab_discard_ok(s, n, slab)))
		return true;
	add_partial(n, slab, DEACTIVATE_TO_TAIL);
	stat(s, FREE_ADD_PARTIAL);
	return false;
}

/* Give a chain of frozen slabs back to their node: partial, or freed if empty. */
static void __unfreeze_partials(struct kmem_cache *s, struct slab *partial_slab)
{
	struct kmem_cache_node *n = NULL, *n2;
	struct slab *slab, *slab_to_discard = NULL;

	while (partial_slab) {
		slab = partial_slab;
		partial_slab = slab->next;
		n2 = get_node(s, slab_nid(slab));
		if (n != n2) {
			if (n)
				spin_unlock(&n->list_lock);
			n = n2;
			spin_lock(&n->list_lock);
		}
		if (unfreeze_slab_locked(s, n, slab)) {
			WRITE_ONCE(slab->next, slab_to_discard);
			slab_to_discard = slab;
		}
	}
	if (n)
		spin_unlock(&n->list_lock);
	while (slab_to_discard) {
		slab = slab_to_discard;
		slab_to_discard = slab->next;
		discard_slab_churn(s, slab);
	}
}

/*
 * Push a frozen slab onto c's partial chain.  drain: when the chain is at
 * cpu_partial_slabs already, the old chain goes back to the node first.
 */
static void put_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c,
			    struct slab *slab, bool drain)
{
	struct slab *oldslab, *slab_to_unfreeze = NULL;
	int slabs = 0;

	spin_lock(&c->lock);
	oldslab = c->partial;
	if (oldslab) {
		if (drain && oldslab->slabs >= (int)READ_ONCE(s->cpu_partial_slabs)) {
			slab_to_unfreeze = oldslab;
			oldslab = NULL;
		} else {
			slabs = oldslab->slabs;
		}
	}
	slab->slabs = slabs + 1;
	WRITE_ONCE(slab->next, oldslab);
	WRITE_ONCE(c->partial, slab);
	spin_unlock(&c->lock);
	if (slab_to_unfreeze) {
		__unfreeze_partials(s, slab_to_unfreeze);
		stat(s, CPU_PARTIAL_DRAIN);
	}
}

/* Detach c's partial chain under its lock, then unfreeze it. */
static void unfreeze_partials_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *partial;

	if (!READ_ONCE(c->partial))
		return;		/* why no lock: see __flush_cpu_slab */
	spin_lock(&c->lock);
	partial = c->partial;
	WRITE_ONCE(c->partial, NULL);
	spin_unlock(&c->lock);
	if (partial)
		__unfreeze_partials(s, partial);
}

/* ======================= node partial slabs ======================= */

/*
 * Freeze a node partial slab for this CPU (list_lock held).  take_all: it
 * becomes the cpu slab, so its whole freelist is returned and inuse =
 * objects; else it keeps its freelist (for the partial chain).
 */
static void *acquire_slab(struct kmem_cache *s, struct kmem_cache_node *n,
			  struct slab *slab, bool take_all)
{
	union slab_counters old, new;
	void *freelist;

	do {
		freelist = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		new = old;
		if (take_all)
			new.inuse = old.objects;
		new.frozen = 1;
	} while (!cmpxchg_double_slab(s, slab, freelist, old.counters,
				      take_all ? NULL : freelist, new.counters));
	remove_partial(n, slab);
	return freelist;
}

/* A cpu slab from the node's partial list, plus up to half a chain of more
 * slabs for c's partial chain.  Returns the cpu slab's freelist. */
static void *get_partial_node(struct kmem_cache *s, struct kmem_cache_node *n,
			      struct kmem_cache_cpu *c, struct slab **ret_slab)
{
	struct slab *slab, *slab2;
	unsigned int partial_slabs = 0;
	void *object = NULL, *t;

	if (!n || !READ_ONCE(n->nr_partial))
		return NULL;
	spin_lock(&n->list_lock);
	list_for_each_entry_safe(slab, slab2, &n->partial, slab_list) {
		t = acquire_slab(s, n, slab, object == NULL);
		if (!object) {
			*ret_slab = slab;
			object = t;
			stat(s, ALLOC_FROM_PARTIAL);
		} else {
			put_cpu_partial(s, c, slab, false);
			partial_slabs++;
			stat(s, CPU_PARTIAL_NODE);
		}
		if (!kmem_cache_has_cpu_partial(s) || partial_slabs > READ_ONCE(s->cpu_partial_slabs) / 2)
			break;
	}
	spin_unlock(&n->list_lock);
	return object;
}

/* ======================= the cpu slab ======================= */

/* The cpu slab's vector slots (NULL: none known) for the accounted alloc
 * fast path, with the object count its one test compares with. */
static void cpu_slab_set_objcgs(struct kmem_cache_cpu *c, struct obj_cgroup **slots)
{
	WRITE_ONCE(c->objcgs, slots);
	WRITE_ONCE(c->objcgs_objects, slots ? c->slab_objects : 0);
}

static void cpu_slab_install(const struct kmem_cache *s, struct kmem_cache_cpu *c,
			     struct slab *slab, void *freelist)
{
	WRITE_ONCE(c->slab_start, (unsigned long)slab_objects_start(s, slab));
	WRITE_ONCE(c->slab_objects, slab_counters(slab).objects);
	WRITE_ONCE(c->slab_span, (unsigned long)slab_counters(slab).objects * s->size);
	WRITE_ONCE(c->slab, slab);
	WRITE_ONCE(c->freelist_key, freepointer_slab_key(s, slab_address(slab)));
	cpu_slab_set_objcgs(c, slab_objcgs_slots(slab));
	WRITE_ONCE(c->freelist, freelist);
	c->sheaf.pops_held = 0;
}

static void cpu_slab_clear(struct kmem_cache_cpu *c)
{
	WRITE_ONCE(c->slab_start, 0);
	WRITE_ONCE(c->slab_objects, 0);	/* no address is an object of no slab */
	WRITE_ONCE(c->slab_span, 0);
	WRITE_ONCE(c->slab, NULL);
	cpu_slab_set_objcgs(c, NULL);
	WRITE_ONCE(c->freelist, NULL);
}

/* Take the objects remote frees left on the (frozen) cpu slab.  If there are
 * none the slab is full: it is unfrozen and leaves this CPU. */
static void *get_freelist(const struct kmem_cache *s, struct slab *slab)
{
	union slab_counters old, new;
	void *freelist;

	do {
		freelist = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		new = old;
		new.inuse = new.objects;
		new.frozen = freelist != NULL;
	} while (!cmpxchg_double_slab(s, slab, freelist, old.counters, NULL, new.counters));
	return freelist;
}

/* Count the cpu freelist of slab; returns its last object (NULL if empty).
 * Hardened: a free pointer that is no object of slab ends it (reported). */
static void *cpu_freelist_tail(const struct kmem_cache *s, const struct slab *slab,
			       void *freelist, unsigned int *count)
{
	void *tail = NULL;

	*count = 0;
	while (freelist) {
		if (CONFIG_SLAB_FREELIST_HARDENED && unlikely(!object_in_slab(s, slab, freelist))) {
			freelist_corrupt(s, slab, tail, freelist);
			if (tail)
				set_freepointer(s, tail, NULL);
			break;
		}
		tail = freelist;
		freelist = get_freepointer(s, freelist);
		++*count;
	}
	return tail;
}

enum slab_modes { M_NONE, M_PARTIAL, M_FULL, M_FREE };

/* Move slab between node lists from mode l to mode m (list_lock held). */
static void slab_move_lists(const struct kmem_cache *s, struct kmem_cache_node *n,
			    struct slab *slab, enum slab_modes l, enum slab_modes m, int tail)
{
	if (l == m)
		return;
	if (l == M_PARTIAL)
		remove_partial(n, slab);
	else if (l == M_FULL)
		remove_full(s, slab);
	if (m == M_PARTIAL)
		add_partial(n, slab, tail);
	else if (m == M_FULL)
		add_full(s, n, slab);
}

/* Where an unfrozen slab belongs: back to the pages, node partial, or full. */
static enum slab_modes deactivate_mode(const struct kmem_cache *s, const struct kmem_cache_node *n,
				       const struct slab *slab, union slab_counters new,
				       const void *freelist)
{
	if (!new.inuse && slab_discard_ok(s, n, slab))
		return M_FREE;
	return freelist ? M_PARTIAL : M_FULL;
}

static void deactivate_stat(struct kmem_cache *s, enum slab_modes m, int tail)
{
	if (m == M_PARTIAL)
		stat(s, (enum stat_item)tail);
	else if (m == M_FULL)
		stat(s, DEACTIVATE_FULL);
	else if (m == M_FREE)
		stat(s, DEACTIVATE_EMPTY);
}

/*
 * A cpu slab leaves its CPU: splice the CPU's freelist in front of the
 * slab's, unfreeze it, and put it where its new state says (partial list,
 * full, or back to the page allocator).  The lists are changed under
 * list_lock before the cmpxchg publishes the state; a failed cmpxchg redoes
 * the choice and fixes the lists.
 */
static void deactivate_slab(struct kmem_cache *s, struct slab *slab, void *freelist)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	int tail = READ_ONCE(slab->freelist) ? DEACTIVATE_TO_TAIL : DEACTIVATE_TO_HEAD;
	enum slab_modes l = M_NONE, m;
	unsigned int free_delta;
	void *freelist_tail = cpu_freelist_tail(s, slab, freelist, &free_delta);
	union slab_counters old, new;
	void *old_freelist, *new_freelist;
	bool lock = false;

	if (tail == DEACTIVATE_TO_TAIL)
		stat(s, DEACTIVATE_REMOTE_FREES);
	do {
		old_freelist = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		new = old;
		new_freelist = old_freelist;
		if (freelist_tail) {
			new.inuse -= free_delta;
			set_freepointer(s, freelist_tail, old_freelist);
			new_freelist = freelist;
		}
		new.frozen = 0;
		m = deactivate_mode(s, n, slab, new, new_freelist);
		if (!lock && (m == M_PARTIAL || (m == M_FULL && kmem_cache_tracks_full(s)))) {
			lock = true;
			spin_lock(&n->list_lock);
		}
		slab_move_lists(s, n, slab, l, m, tail);
		l = m;
	} while (!cmpxchg_double_slab(s, slab, old_freelist, old.counters,
				      new_freelist, new.counters));
	if (lock)
		spin_unlock(&n->list_lock);
	deactivate_stat(s, m, tail);
	if (m == M_FREE)
		discard_slab_churn(s, slab);
}

/* Detach and deactivate c's cpu slab.  The owner, or a thread that knows
 * the owner is idle (shutdown), may call it. */
static void flush_slab(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab;
	void *freelist;

	/* why no lock: only c's owner (or, with it gone, its flush) installs
	 * a cpu slab, and one never installed leaves c as zeroed, the empty
	 * state (__flush_cpu_slab) */
	if (!READ_ONCE(c->slab))
		return;
	spin_lock(&c->lock);
	slab = READ_ONCE(c->slab);
	freelist = READ_ONCE(c->freelist);
	cpu_slab_clear(c);
	spin_unlock(&c->lock);
	if (slab) {
		deactivate_slab(s, slab, freelist);
		stat(s, CPUSLAB_FLUSH);
	}
}

/*
 * Everything CPU c holds of s goes back to the node.  Called by c's owner,
 * for a CPU whose thread exits (every cache), or for a cache nobody uses.
 * Nothing is written where c holds nothing: a thread's exit flushes every
 * cache, and the per-CPU storage of caches it never used is untouched
 * zeros, which reads leave unmapped (bench fastpath, one worker thread:
 * the per-CPU units' resident memory 120 -> 40 KiB).  Its checks read c's fields
 * without c->lock: c's cpu slab changes only by its owner, and a racing
 * kmem_cache_shrink (flush_all) at worst leaves a flush request behind.
 */
static void __flush_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	if (READ_ONCE(c->flush_request))
		WRITE_ONCE(c->flush_request, false);
	/* why first: its objects may go to c's cpu slab or partial chain */
	sheaf_flush_all(s, c);
	flush_slab(s, c);
	unfreeze_partials_cpu(s, c);
}

/*
 * kmem_cache_shrink's flush: this CPU gives back everything; every other
 * CPU its partial chain (under its lock), and a request that its owner
 * flush its cpu slab at its next slow path or exit.
 */
void flush_all(struct kmem_cache *s)
{
	struct kmem_cache_cpu *self = this_cpu_ptr_or_null(s->cpu_slab), *c;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(s->cpu_slab, cpu);
		if (c == self) {
			__flush_cpu_slab(s, c);
			continue;
		}
		unfreeze_partials_cpu(s, c);
		if (READ_ONCE(c->slab) || READ_ONCE(c->sheaf.nr))
			WRITE_ONCE(c->flush_request, true);
	}
}

/* __kmem_cache_shutdown's flush: nobody uses s, so take every cpu slab. */
void flush_all_cpus_locked(struct kmem_cache *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		__flush_cpu_slab(s, per_cpu_ptr(s->cpu_slab, cpu));
}

bool alloc_kmem_cache_cpus(struct kmem_cache *s)
{
	/* zeroed storage is the empty state, lock included (check_zeroed_lock);
	 * the sheaf has the room of s's capacity (§10) */
	s->cpu_slab = __alloc_percpu(offsetof(struct kmem_cache_cpu, sheaf.entries) +
				     s->sheaf_capacity * sizeof(struct sheaf_entry),
				     __alignof__(struct kmem_cache_cpu));
	return s->cpu_slab != NULL;
}

void flush_this_cpu(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);

	if (c)
		__flush_cpu_slab(s, c);
}

/* CPUHP_SLAB_DEAD: an exiting thread gives back all it holds, every cache. */
static void slub_cpu_dead(unsigned int cpu)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		__flush_cpu_slab(s, per_cpu_ptr(s->cpu_slab, cpu));
	mutex_unlock(&slab_mutex);
}

/* ======================= allocation slow path ======================= */

noinline __cold void slab_out_of_memory(struct kmem_cache *s, gfp_t gfpflags, int nid)
{
	struct kmem_cache_node *n;
	char flags[256];
	int node;

	if (gfpflags & __GFP_NOWARN)
		return;
	slab_printk("SLUB: Unable to allocate memory on node %d, gfp=%#x(%s)\n", nid, gfpflags,
		    gfp_flags_string(flags, sizeof(flags), gfpflags));
	slab_printk("  cache: %s, object size: %u, buffer size: %u, default order: %u, min order: %u\n",
		    s->name, s->object_size, s->size, oo_order(cache_oo(s)), oo_order(s->min));
	for_each_kmem_cache_node(s, node, n)
		slab_printk("  node %d: slabs: %ld, objs: %ld\n", node,
			    atomic_long_read(&n->nr_slabs), atomic_long_read(&n->total_objects));
}

/* A frozen slab to become the cpu slab, with its freelist: from the node's
 * partial list, else new from the page allocator.  NULL when out of memory. */
static void *get_new_cpu_slab(struct kmem_cache *s, gfp_t gfpflags, int node,
			      struct kmem_cache_cpu *c, struct slab **ret_slab)
{
	struct slab *slab;
	void *freelist;

	freelist = get_partial_node(s, get_node(s, 0), c, ret_slab);
	if (freelist)
		return freelist;
	slab = new_slab(s, gfpflags, node);
	if (unlikely(!slab)) {
		slab_out_of_memory(s, gfpflags, node);
		return NULL;
	}
	/* no other reference to the slab yet: no cmpxchg needed */
	freelist = slab->freelist;
	slab->freelist = NULL;
	*ret_slab = slab;
	stat(s, ALLOC_SLAB);
	return freelist;
}

/* Pop the head of c's partial chain into c->slab; false if the chain is empty. */
static bool cpu_partial_to_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab;

	if (!READ_ONCE(c->partial))
		return false;
	spin_lock(&c->lock);
	slab = c->partial;	/* why recheck: a flusher may have taken the chain */
	if (likely(slab)) {
		WRITE_ONCE(c->partial, slab->next);
		cpu_slab_install(s, c, slab, NULL);
	}
	spin_unlock(&c->lock);
	if (slab)
		stat(s, CPU_PARTIAL_ALLOC);
	return slab != NULL;
}

/* c->freelist (c->lock held), checked (§7): a head that is no object of
 * the cpu slab is reported and dropped. */
static void *cpu_freelist_checked_locked(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	void *freelist = c->freelist;

	if (CONFIG_SLAB_FREELIST_HARDENED && freelist &&
	    unlikely(!object_in_slab(s, c->slab, freelist))) {
		freelist_corrupt(s, c->slab, NULL, freelist);
		WRITE_ONCE(c->freelist, NULL);
		return NULL;
	}
	return freelist;
}

/* Sheaf pops that may hold a cpu slab back from growing: four sheaves'
 * worth (fragment's peak RSS as with no bound, within 0.5%). */
#define SHEAF_POPS_HELD_MAX(s)	(4 * (s)->sheaf_capacity)

/* Is c's cpu slab a ramped one that has not grown whole yet?  Then the
 * slow path grows it (or takes a partial slab) before it takes the sheaf's
 * objects (sheaf_ready tells why). */
static bool cpu_slab_may_grow(const struct kmem_cache *s, const struct kmem_cache_cpu *c)
{
	unsigned int whole;

	if (!c->slab)
		return false;
	whole = order_objects(slab_order(c->slab), s->size);
	return c->slab_objects < whole && slab_ramps(s, whole);
}

/*
 * Grow the cpu slab by its next chunk (ramped slabs, see slab_objects_ramp;
 * c->lock held, c->freelist empty): link the new objects, then raise
 * objects and inuse by them in one update that also takes any remote frees
 * (behind the chunk), then c's geometry and the node's count.  Returns the
 * first new object, or NULL if the slab is whole or may not grow.
 */
static void *cpu_slab_grow_locked(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab = c->slab;
	unsigned int whole = order_objects(slab_order(slab), s->size), from, to;
	union slab_counters old, new;
	void *head, *tail, *freelist;

	from = slab_counters(slab).objects;	/* why no race: only we change it */
	if (likely(from >= whole) || !slab_ramps(s, whole))
		return NULL;
	to = slab_ramp_chunk_end(s, from, whole);
	head = link_objects(s, slab, from, to, &tail);
	do {
		freelist = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		new = old;
		new.objects = to;
		new.inuse = to;		/* all on c->freelist or taken: counted in use */
		set_freepointer(s, tail, freelist);
	} while (!cmpxchg_double_slab(s, slab, freelist, old.counters, NULL, new.counters));
	/* why before any new object is handed out: the fast paths' range and
	 * index tests must take them (and c->objcgs' slots exist for them) */
	WRITE_ONCE(c->slab_objects, to);
	WRITE_ONCE(c->slab_span, (unsigned long)to * s->size);
	cpu_slab_set_objcgs(c, c->objcgs);
	atomic_long_add(to - from, &get_node(s, slab_nid(slab))->total_objects);
	c->sheaf.pops_held = 0;
	return head;
}

/* Refill an empty c->freelist from the cpu slab's remote frees, else by
 * growing it (c->lock held).  Returns the first object, or NULL after
 * dropping a full cpu slab. */
static void *cpu_slab_refill_locked(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	void *freelist;

	/* why remote frees first, and partial slabs (on c's chain or the
	 * node) before a grow: their free objects are resident already, a
	 * grow touches new pages (the drop-in's fragment peak RSS: 19.7 ->
	 * 19.3 MB); a grow that races with a remote free takes it too.  But
	 * a churning class (slub_churn_raise) grows first: its partial slabs
	 * (the node keeps min_partial empty ones) would else keep its slabs
	 * at their first chunk for ever */
	if (!READ_ONCE(c->slab->freelist) &&
	    (READ_ONCE(s->churned) || (!READ_ONCE(c->partial) &&
	     !READ_ONCE(get_node(s, slab_nid(c->slab))->nr_partial)))) {
		freelist = cpu_slab_grow_locked(s, c);
		if (freelist) {
			stat(s, ALLOC_REFILL);
			return freelist;
		}
	}
	freelist = get_freelist(s, c->slab);

	if (!freelist) {
		cpu_slab_clear(c);
		stat(s, DEACTIVATE_BYPASS);
		return NULL;
	}
	stat(s, ALLOC_REFILL);
	return freelist;
}

/*
 * The slow path (5.17 ___slab_alloc) for a thread with a CPU: refill from
 * the cpu slab, else a slab from the partial chain, else the node, else new.
 */
static void *___slab_alloc(struct kmem_cache *s, gfp_t gfpflags, int node,
			   struct kmem_cache_cpu *c)
{
	struct slab *slab;
	void *freelist;

	stat(s, ALLOC_SLOWPATH);
	if (unlikely(READ_ONCE(c->flush_request)))
		__flush_cpu_slab(s, c);		/* kmem_cache_shrink asked for it */
	/* why the sheaf before a grow: its objects are resident, a grow
	 * touches new pages (the drop-in's fragment peak RSS: 20.7 -> 19.9
	 * MB).  why a bound (SHEAF_POPS_HELD_MAX): objects of other slabs
	 * that a loop frees and takes again would else go round through the
	 * sheaf for ever, the cpu slab never growing to hold them
	 * (kmalloc-1k, batches of 64: 85 -> 234 instructions a pair) */
	if (c->sheaf.nr) {
		if (!cpu_slab_may_grow(s, c))
			return sheaf_pop(c);
		if (c->sheaf.pops_held < SHEAF_POPS_HELD_MAX(s)) {
			c->sheaf.pops_held++;
			return sheaf_pop(c);
		}
	}
	for (;;) {
		if (c->slab) {
			spin_lock(&c->lock);
			freelist = cpu_freelist_checked_locked(s, c);
			if (!freelist)
				freelist = cpu_slab_refill_locked(s, c);
			if (freelist) {
				WRITE_ONCE(c->freelist, get_freepointer(s, freelist));
				spin_unlock(&c->lock);
				return freelist;
			}
			spin_unlock(&c->lock);
		}
		if (!cpu_partial_to_cpu_slab(s, c))
			break;
	}
	freelist = get_new_cpu_slab(s, gfpflags, node, c, &slab);
	if (unlikely(!freelist))
		return NULL;
	spin_lock(&c->lock);
	cpu_slab_install(s, c, slab, get_freepointer(s, freelist));
	spin_unlock(&c->lock);
	return freelist;
}

/*
 * Take one object from an unfrozen partial slab (list_lock held).  A slab
 * left without free objects leaves the list before the cmpxchg publishes
 * it as full: a remote free that then sees it full may freeze it onto its
 * CPU's chain at once, so it must be on no list by then.
 */
static void *slab_pop_locked(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab)
{
	union slab_counters old, new;
	bool listed = true;
	void *object, *next;

	do {
		/* why acquire: the head's free pointer was written by its freer */
		object = smp_load_acquire(&slab->freelist);
		old = slab_counters(slab);
		new = old;
		new.inuse++;
		next = get_freepointer(s, object);
		if (CONFIG_SLAB_FREELIST_HARDENED && next && unlikely(!object_in_slab(s, slab, next))) {
			freelist_corrupt(s, slab, object, next);
			next = NULL;
			new.inuse = new.objects;	/* the cut-off objects stay allocated */
		}
		if (listed != (next != NULL)) {		/* a retry may undo it */
			if (listed)
				remove_partial(n, slab);
			else
				add_partial(n, slab, DEACTIVATE_TO_HEAD);
			listed = !listed;
		}
	} while (!cmpxchg_double_slab(s, slab, object, old.counters, next, new.counters));
	return object;
}

/* The path of a thread without a CPU id: one object under list_lock. */
static void *slab_alloc_nocpu(struct kmem_cache *s, gfp_t gfpflags, int node)
{
	struct kmem_cache_node *n = get_node(s, 0);
	struct slab *slab;
	void *object = NULL;

	spin_lock(&n->list_lock);
	slab = list_first_entry_or_null(&n->partial, struct slab, slab_list);
	if (slab)
		object = slab_pop_locked(s, n, slab);
	spin_unlock(&n->list_lock);
	if (object)
		return object;
	/* why whole: no CPU, no cpu slab, so it would never grow */
	slab = new_slab_ramp(s, gfpflags, node, false);
	if (unlikely(!slab)) {
		slab_out_of_memory(s, gfpflags, node);
		return NULL;
	}
	object = slab->freelist;
	slab->freelist = get_freepointer(s, object);
	slab->inuse = 1;
	slab->frozen = 0;
	if (slab->freelist) {
		spin_lock(&n->list_lock);
		add_partial(n, slab, DEACTIVATE_TO_HEAD);
		spin_unlock(&n->list_lock);
	}
	return object;
}

/* One object by a slow path: the debug path (slub_debug.c), a CPU's slow
 * path, or the path of a thread without a CPU. */
static void *slab_alloc_one(struct kmem_cache *s, gfp_t gfpflags, int node,
			    struct kmem_cache_cpu *c, unsigned long addr)
{
	if (unlikely(slab_debug_path(s)))
		return slab_alloc_debug(s, gfpflags, node, addr);
	if (likely(c))
		return ___slab_alloc(s, gfpflags, node, c);
	return slab_alloc_nocpu(s, gfpflags, node);
}

static noinline void *__slab_alloc_slow(struct kmem_cache *s, gfp_t gfpflags, int node,
					unsigned long addr)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	void *object;

	if (node != 0)
		node = NUMA_NO_NODE;	/* only node 0 has memory: any node will do */
	object = slab_alloc_one(s, gfpflags, node, c, addr);
	if (likely(object) && unlikely(gfpflags & __GFP_ZERO))
		memset(object, 0, READ_ONCE(s->object_size));
	return object;
}

/* The fast path's miss: the newest object this CPU freed (§10), a pop with
 * no frame; the slow path else (which takes the sheaf's for __GFP_ZERO). */
noinline void *__slab_alloc(struct kmem_cache *s, gfp_t gfpflags, int node,
			    unsigned long addr)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);

	if (likely(c) && sheaf_ready(s, c) && likely(!(gfpflags & __GFP_ZERO)))
		return sheaf_pop(c);
	return __slab_alloc_slow(s, gfpflags, node, addr);
}

/* ======================= free slow path ======================= */

/* After a remote free that took list_lock (held): free an empty slab or
 * list a formerly full one.  Drops the lock. */
static void slab_free_listed(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab,
			     void *prior, union slab_counters new, bool cpu_partial)
{
	if (unlikely(!new.inuse && slab_discard_ok(s, n, slab))) {
		if (prior) {
			remove_partial(n, slab);
			stat(s, FREE_REMOVE_PARTIAL);
		} else {
			remove_full(s, slab);
		}
		spin_unlock(&n->list_lock);
		discard_slab_churn(s, slab);
		return;
	}
	if (!cpu_partial && unlikely(!prior)) {
		remove_full(s, slab);
		add_partial(n, slab, DEACTIVATE_TO_TAIL);
		stat(s, FREE_ADD_PARTIAL);
	}
	spin_unlock(&n->list_lock);
}

/*
 * __slab_free when the slab may change state: it is not frozen and was
 * full or becomes empty.  A full unfrozen slab is frozen onto the freeing
 * CPU's partial chain (c; NULL for a thread without a CPU: it is listed
 * instead); a slab that becomes empty may go back to the page allocator.
 */
static noinline void __slab_free_slow(struct kmem_cache *s, struct kmem_cache_cpu *c,
				      struct slab *slab, void *head, void *tail, unsigned int cnt)
{
	bool cpu_partial = c && kmem_cache_has_cpu_partial(s), was_frozen;
	struct kmem_cache_node *n = NULL;
	union slab_counters old, new;
	void *prior;

	stat(s, FREE_SLOWPATH);
	do {
		if (unlikely(n)) {
			spin_unlock(&n->list_lock);
			n = NULL;
		}
		prior = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		set_freepointer(s, tail, prior);
		new = old;
		was_frozen = new.frozen;
		new.inuse -= cnt;
		if ((!new.inuse || !prior) && !was_frozen) {
			if (cpu_partial && !prior) {
				new.frozen = 1;		/* to this CPU's partial chain */
			} else {
				n = get_node(s, slab_nid(slab));
				spin_lock(&n->list_lock);
			}
		}
	} while (!cmpxchg_double_slab(s, slab, prior, old.counters, head, new.counters));

	if (likely(!n)) {
		if (likely(was_frozen))
			stat(s, FREE_FROZEN);
		else if (new.frozen)
			put_cpu_partial(s, c, slab, true);
		return;
	}
	slab_free_listed(s, n, slab, prior, new, cpu_partial);
}

/* cmpxchg_double_slab of a cache with __CMPXCHG_DOUBLE. */
static __always_inline bool cmpxchg_double_slab_fast(const struct kmem_cache *s,
				struct slab *slab, void *freelist_old, unsigned long counters_old,
				void *freelist_new, unsigned long counters_new)
{
	if (likely(cmpxchg_double((u128 *)&slab->freelist, slab_pair(freelist_old, counters_old),
				  slab_pair(freelist_new, counters_new))))
		return true;
	stat(s, CMPXCHG_DOUBLE_FAIL);
	return false;
}

/*
 * Free head..tail (cnt objects of one slab, linked) onto the slab's own
 * freelist: one cmpxchg_double when the slab keeps its state (frozen, or
 * partial and not emptied), the common case; __slab_free_slow else, and
 * for a cache without __CMPXCHG_DOUBLE.
 */
static void __slab_free(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			void *head, void *tail, unsigned int cnt)
{
	union slab_counters old, new;
	void *prior;

	if (unlikely(!(s->flags & __CMPXCHG_DOUBLE)))
		goto slow;
	do {
		prior = READ_ONCE(slab->freelist);
		old = slab_counters(slab);
		new = old;
		new.inuse -= cnt;
		if (unlikely(!old.frozen && (!new.inuse || !prior)))
			goto slow;
		set_freepointer(s, tail, prior);
	} while (!cmpxchg_double_slab_fast(s, slab, prior, old.counters, head, new.counters));
	stat(s, FREE_SLOWPATH);
	if (old.frozen)
		stat(s, FREE_FROZEN);
	return;
slow:
	__slab_free_slow(s, c, slab, head, tail, cnt);
}

/* ======================= the cpu sheaf (§10) ======================= */

/* The double free report of the sheaf (slub_internal.h). */
noinline __cold __noreturn void sheaf_double_free(const struct kmem_cache *s, void *x)
{
	double_free_abort(s, x, "it is in this CPU's sheaf", "sheaf");
}

/* Is x on top of c's sheaf?  Then it is freed twice in a row: the
 * kernel's naive check, a compare with no access to x (deeper repeats are
 * found when the sheaf gives its objects back, slub_sheaf.c §6). */
static __always_inline bool sheaf_top_is(const struct kmem_cache_cpu *c, const void *x)
{
	unsigned int nr = c->sheaf.nr;

	return nr && c->sheaf.entries[nr - 1].object == x;
}

/* Push head..tail (objects of the cpu slab, linked) onto c->freelist; a
 * tail that heads it already is the naive double free (set_freepointer). */
static inline void cpu_freelist_push(const struct kmem_cache *s, struct kmem_cache_cpu *c,
				     void *head, void *tail)
{
	set_freepointer(s, tail, c->freelist);
	WRITE_ONCE(c->freelist, head);
}

/* A chain of one slab's objects out of c's sheaf (slub_internal.h). */
void sheaf_chain_give_back(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			   void *head, void *tail, unsigned int cnt)
{
	if (slab == c->slab)
		cpu_freelist_push(s, c, head, tail);
	else
		__slab_free(s, c, slab, head, tail, cnt);
}

/* Empty c's sheaf (shrink, thread exit, destroy). */
static void sheaf_flush_all(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	/* why a loop: a nested free may refill it (slub_sheaf.c §5) */
	while (c->sheaf.nr)
		sheaf_flush(s, c, &c->sheaf);
}

/*
 * Keep x (an object of s, checked, uncharged, of slab, which is not the
 * cpu slab) in c's sheaf; a full sheaf first gives everything back.  x on
 * top of the sheaf is reported (a double free).  False, nothing done, if x
 * must go to its slab: no sheaf, a flush asked for, or a sheaf refilled
 * meanwhile.
 */
static bool sheaf_push(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab, void *x)
{
	if (!s->sheaf_capacity || READ_ONCE(c->flush_request))
		return false;
	if (unlikely(sheaf_top_is(c, x)))
		sheaf_double_free(s, x);
	if (c->sheaf.nr >= s->sheaf_capacity) {
		sheaf_flush(s, c, &c->sheaf);
		if (unlikely(c->sheaf.nr >= s->sheaf_capacity))
			return false;	/* refilled by a nested free */
	}
	sheaf_store(c, slab, x);
	return true;
}

/*
 * Free head..tail (cnt objects of slab, linked) by this thread, bypassing
 * the sheaf: onto c->freelist if slab is the cpu slab, else onto the slab
 * (__slab_free).  c may be NULL (a thread without a CPU id).
 */
static void do_slab_free(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			 void *head, void *tail, unsigned int cnt)
{
	if (likely(c) && slab == c->slab) {
		cpu_freelist_push(s, c, head, tail);
		stat(s, FREE_FASTPATH);
		return;
	}
	__slab_free(s, c, slab, head, tail, cnt);
	if (c && unlikely(READ_ONCE(c->flush_request)))
		__flush_cpu_slab(s, c);		/* kmem_cache_shrink asked for it */
}

/* Free head..tail (cnt objects of slab, linked) from this thread: a single
 * object into the sheaf unless it is of the cpu slab.  c: this_cpu_slab. */
static void slab_free_chain(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			    void *head, void *tail, unsigned int cnt)
{
	if (likely(c) && cnt == 1 && slab != c->slab && sheaf_push(s, c, slab, head))
		return;
	do_slab_free(s, c, slab, head, tail, cnt);
}

/* slab_free_slow in full: validate x (a misuse is reported before anything
 * is written), uncharge it, the debug path, then slab_free_chain. */
static noinline void slab_free_general(struct kmem_cache *s, void *x, const char *fn,
				       unsigned long addr)
{
	struct slab *slab;

	if (unlikely(!x))
		return;
	slab = object_slab_checked(s, x, fn);
	if (unlikely(!slab))
		return;		/* reported; left alone under slab_error=repair */
	memcg_slab_free_hook(s, slab, x);
	if (unlikely(slab_debug_path(s)))
		slab_free_debug(s, slab, x, addr);
	else
		slab_free_chain(s, this_cpu_slab(s), slab, x, x, 1);
}

/* Remember slab, whose object x was just stored, for the next frees
 * (owner): x keeps it a slab of s while it is in the sheaf. */
static __always_inline void sheaf_slab_remember(const struct kmem_cache *s,
						struct kmem_cache_cpu *c, struct slab *slab)
{
	c->sheaf.slab = slab;
	c->sheaf.slab_start = (unsigned long)slab_objects_start(s, slab);
	c->sheaf.slab_objects = slab_counters(slab).objects;
}

/* x's slab if x is an object of s, without a report: by looking the slab up
 * and testing x as object_slab_checked does.  NULL: not proven (x NULL
 * too; slab_free_general looks again and reports). */
static __always_inline struct slab *object_slab_quiet(const struct kmem_cache *s, void *x)
{
	struct slab *slab = virt_to_slab(x);

	if (unlikely(!slab || slab->slab_cache != s || !object_in_slab(s, slab, x)))
		return NULL;
	return slab;
}

/*
 * Store x (a valid object of slab, of s) in c's sheaf if nothing rare is
 * in the way: a charge, the cpu slab (the fast path's naive double free,
 * or an uncharge it could not do), a full sheaf, a flush request, x on
 * top of the sheaf.  why no access to x: a cold object would make every
 * such free wait for memory (the drop-in freeing a batch of 100000 in
 * random order took a third longer when this read x's free pointer word).
 */
static __always_inline bool sheaf_push_quick(const struct kmem_cache *s,
					     struct kmem_cache_cpu *c, struct slab *slab, void *x)
{
	if (unlikely(slab_has_objcgs(slab)) || unlikely(slab == c->slab) ||
	    unlikely(c->sheaf.nr >= s->sheaf_capacity || READ_ONCE(c->flush_request)) ||
	    unlikely(sheaf_top_is(c, x)))
		return false;
	sheaf_store(c, slab, x);
	return true;
}

/*
 * A free the fast path did not take, in the common case: x, a valid object
 * of s (object_slab_checked's exact test), goes into the sheaf
 * (sheaf_push_quick).  False, nothing done, for anything else, which
 * slab_free_general looks at again and reports: a bad pointer, a
 * debug-path cache (no sheaf), no CPU yet, and what sheaf_push_quick
 * refuses.  why the remembered slab: in a run of frees of one slab's
 * objects, the common case, the exact test is made against the sheaf's
 * remembered slab, one multiply and a compare, with no look-up of the
 * slab.  Budget then: one TLS load, that test, the slab's memcg_data, the
 * sheaf's room and top, and the entry; no call, no stack frame, no access
 * to x.
 */
static __always_inline bool slab_free_to_sheaf(struct kmem_cache *s, void *x)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);
	struct slab *slab;

	if (unlikely(!c))
		return false;
	if (likely(obj_offset_index(s, (unsigned long)x - c->sheaf.slab_start) <
		   c->sheaf.slab_objects))
		return sheaf_push_quick(s, c, c->sheaf.slab, x);
	slab = object_slab_quiet(s, x);
	if (likely(slab) && likely(sheaf_push_quick(s, c, slab, x))) {
		sheaf_slab_remember(s, c, slab);
		return true;
	}
	return false;
}

/* A free the fast path did not take: the sheaf, or slab_free_general. */
noinline void slab_free_slow(struct kmem_cache *s, void *x, const char *fn,
			     unsigned long addr)
{
	if (likely(slab_free_to_sheaf(s, x)))
		return;
	slab_free_general(s, x, fn, addr);
}

/* ======================= the fast paths ======================= */

/* The fast paths themselves are inline, in slub_fastpath.h (their call tree
 * and budget are told there); kmalloc's are in slub_kmalloc.c.  Here: the
 * exported kmem_cache ones and the out-of-line ends of their pops. */

/* __GFP_ZERO.  why out of line: the fast paths then make tail calls only,
 * and need no stack frame. */
noinline void *slab_zero_object(const struct kmem_cache *s, void *object)
{
	return memset(object, 0, READ_ONCE(s->object_size));
}

/* An allocation charged to the thread's memory cgroup (memcontrol.h), in
 * its general form: whatever the accounted pop cannot do. */
noinline void *slab_alloc_node_memcg_slow(struct kmem_cache *s, gfp_t gfpflags, int node,
					  unsigned long addr)
{
	struct kmem_cache_cpu *c;
	struct obj_cgroup *objcg;
	unsigned long idx;
	void *object;

	if (!memcg_slab_pre_alloc_hook(s, &objcg, 1, gfpflags))
		return NULL;
	object = slab_alloc_node_fast(s, gfpflags, node, addr);
	if (!objcg)
		return object;
	c = this_cpu_ptr_or_null(s->cpu_slab);
	/* why: an object of the cpu slab (the usual case) has its slab and
	 * index at hand, without the dependent loads of finding them */
	if (likely(c && object)) {
		idx = cpu_slab_index(s, c, object);
		if (likely(idx < c->slab_objects)) {
			memcg_slab_post_alloc_idx(s, objcg, gfpflags, c->slab, (unsigned int)idx,
						  object);
			/* why: the vector may be new; the accounted pop finds it here */
			cpu_slab_set_objcgs(c, slab_objcgs_slots(c->slab));
			return object;
		}
	}
	memcg_slab_post_alloc_one(s, objcg, gfpflags, object);
	return object;
}

/* slab_alloc_node with __GFP_ACCOUNT or __GFP_ZERO. */
noinline void *slab_alloc_node_slow(struct kmem_cache *s, gfp_t gfpflags, int node,
				    unsigned long addr)
{
	if (memcg_slab_wants_charge(s, gfpflags))
		return slab_alloc_node_memcg(s, gfpflags, node, addr);
	return slab_alloc_node_fast(s, gfpflags, node, addr);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfpflags)
{
	return slab_alloc_node(s, gfpflags, NUMA_NO_NODE, 0);
}
EXPORT_SYMBOL(kmem_cache_alloc);

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node)
{
	return slab_alloc_node(s, gfpflags, node, 0);
}
EXPORT_SYMBOL(kmem_cache_alloc_node);

void kmem_cache_free(struct kmem_cache *s, void *x)
{
	if (unlikely(!slab_free_fast(s, NULL, x)))
		slab_free_slow(s, x, "kmem_cache_free", _RET_IP_);
}
EXPORT_SYMBOL(kmem_cache_free);

/* kmem_cache_free's slow path, keeping errno (it may reach the OS). */
static noinline void slab_free_general_keep_errno(struct kmem_cache *s, void *x,
						  unsigned long addr)
{
	int err = errno;

	slab_free_general(s, x, "free", addr);
	errno = err;
}

static noinline void slab_free_slow_keep_errno(struct kmem_cache *s, void *x,
					       unsigned long addr)
{
	/* why the sheaf first, and errno in a function of its own: the
	 * sheaf makes no system call, and errno's save and restore, with
	 * the frame they need, cost half of such a free */
	if (likely(slab_free_to_sheaf(s, x)))
		return;
	slab_free_general_keep_errno(s, x, addr);
}

/*
 * For the malloc drop-in (src/malloc/), whose free() must keep errno:
 * kmem_cache_free, with errno saved only when the slow path runs, so that
 * the fast path stays free of the C library's __errno_location.  Not
 * exported.
 */
void kmem_cache_free_keep_errno(struct kmem_cache *s, void *x)
{
	if (unlikely(!slab_free_fast(s, NULL, x)))
		slab_free_slow_keep_errno(s, x, _RET_IP_);
}

/* ======================= bulk ======================= */

int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t size, void **p)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	struct obj_cgroup *objcg = NULL;
	size_t i;
	void *object;

	if (memcg_slab_wants_charge(s, flags) && !memcg_slab_pre_alloc_hook(s, &objcg, size, flags))
		return 0;
	for (i = 0; i < size; i++) {
		object = c ? c->freelist : NULL;
		if (likely(c && cpu_freelist_object_ok(c, object))) {
			WRITE_ONCE(c->freelist, get_freepointer(s, object));
			p[i] = object;
			continue;
		}
		p[i] = slab_alloc_one(s, flags, NUMA_NO_NODE, c, _RET_IP_);
		if (unlikely(!p[i])) {
			memcg_slab_cancel_charge(s, objcg, size);
			kmem_cache_free_bulk(s, i, p);	/* all or nothing */
			return 0;
		}
	}
	memcg_slab_post_alloc_hook(s, objcg, flags, size, p);
	if (unlikely(flags & __GFP_ZERO))
		for (i = 0; i < size; i++)
			memset(p[i], 0, READ_ONCE(s->object_size));
	return (int)size;
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk);

/* Objects of one slab, linked freelist..tail, to free with one operation. */
struct detached_freelist {
	struct slab *slab;		/* their slab */
	void *tail;			/* last object of the chain */
	void *freelist;			/* first object of the chain */
	unsigned int cnt;		/* objects in the chain */
	struct kmem_cache *s;		/* their cache */
};

/* Start a detached freelist with p[size] (not NULL); false if it was dealt
 * with at once: a large kmalloc, an object of a debug-path cache (freed
 * alone, through its checks), or a bad pointer (reported). */
static bool detached_freelist_start(struct kmem_cache *s, void *object,
				    struct detached_freelist *df, unsigned long addr)
{
	struct folio *folio;

	if (!s) {	/* kfree_bulk: any kmalloc object */
		if (unlikely(!virt_addr_valid(object))) {
			free_invalid_pointer("kfree_bulk", object, "not in the arena");
			return false;
		}
		folio = virt_to_folio(object);
		if (unlikely(!folio_test_slab(folio))) {
			kfree_large(folio, object);
			return false;
		}
	}
	df->slab = object_slab_checked(s, object, s ? "kmem_cache_free_bulk" : "kfree_bulk");
	if (unlikely(!df->slab))
		return false;
	df->s = df->slab->slab_cache;
	memcg_slab_free_hook(df->s, df->slab, object);
	if (unlikely(slab_debug_path(df->s))) {
		slab_free_debug(df->s, df->slab, object, addr);
		df->slab = NULL;
		return false;
	}
	set_freepointer(df->s, object, NULL);
	df->tail = object;
	df->freelist = object;
	df->cnt = 1;
	return true;
}

/*
 * From the end of p, gather the last object's slab-mates into one chain,
 * marking them NULL in p; look ahead past at most 3 other objects.  Returns
 * how much of p is left to process.
 */
static size_t build_detached_freelist(struct kmem_cache *s, size_t size, void **p,
				      struct detached_freelist *df, unsigned long addr)
{
	size_t first_skipped_index = 0;
	int lookahead = 3;
	void *object;

	df->slab = NULL;
	do {
		object = p[--size];
	} while (!object && size);
	if (!object)
		return 0;
	p[size] = NULL;
	if (!detached_freelist_start(s, object, df, addr))
		return size;
	while (size) {
		object = p[--size];
		if (!object)
			continue;
		if (virt_to_slab(object) == df->slab) {
			p[size] = NULL;
			if (!object_slab_checked(df->s, object, "kmem_cache_free_bulk"))
				continue;	/* reported; left alone (repair) */
			memcg_slab_free_hook(df->s, df->slab, object);
			set_freepointer(df->s, object, df->freelist);
			df->freelist = object;
			df->cnt++;
			continue;
		}
		if (!--lookahead)
			break;
		if (!first_skipped_index)
			first_skipped_index = size + 1;
	}
	return first_skipped_index;
}

void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p)
{
	struct detached_freelist df;

	while (size) {
		size = build_detached_freelist(s, size, p, &df, _RET_IP_);
		if (df.slab)
			slab_free_chain(df.s, this_cpu_slab(df.s), df.slab, df.freelist, df.tail,
					df.cnt);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

/* ======================= fork ======================= */

static unsigned int slub_fork_nr_cpus;	/* CPU ids whose locks prepare took (slab_mutex held) */

/* Every list_lock, then every CPU lock (the lock order), of every cache. */
static void slub_fork_prepare(void)
{
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	unsigned int cpu;
	int node;

	slub_fork_nr_cpus = smp_load_acquire(&nr_cpu_ids);
	list_for_each_entry(s, &slab_caches, list)
		for_each_kmem_cache_node(s, node, n)
			spin_lock(&n->list_lock);
	list_for_each_entry(s, &slab_caches, list)
		for (cpu = 0; cpu < slub_fork_nr_cpus; cpu++)
			spin_lock(&per_cpu_ptr(s->cpu_slab, cpu)->lock);
}

static void slub_fork_each(void (*fn)(spinlock_t *))
{
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	unsigned int cpu;
	int node;

	list_for_each_entry(s, &slab_caches, list)
		for (cpu = 0; cpu < slub_fork_nr_cpus; cpu++)
			fn(&per_cpu_ptr(s->cpu_slab, cpu)->lock);
	list_for_each_entry(s, &slab_caches, list)
		for_each_kmem_cache_node(s, node, n)
			fn(&n->list_lock);
}

/* Parent and child alike: the forking thread took every lock, so it may
 * release them (a re-initialised held mutex would be undefined). */
static void slub_fork_release(void)
{
	slub_fork_each(spin_unlock);
}

static const struct fork_hooks slub_fork_hooks = {
	.prepare = slub_fork_prepare,
	.parent = slub_fork_release,
	.child = slub_fork_release,
};

/*
 * At load time, not in kmem_cache_init(): registering takes fork.c's
 * registry lock, which a concurrent fork() holds while it waits for
 * slab_init_mutex (held around kmem_cache_init).  Both callbacks only walk
 * slab_caches, empty until SLUB is up.
 */
static void __attribute__((constructor)) slub_constructor(void)
{
	cpuhp_setup_state(CPUHP_SLAB_DEAD, slub_cpu_dead);
	fork_hooks_register(&slub_fork_hooks, FORK_RANK_CACHE);
}
