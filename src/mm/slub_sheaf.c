// SPDX-License-Identifier: MIT
/*
 * slub_sheaf.c - SLUB's per-CPU sheaf (after Linux 6.18's per-CPU sheaves;
 * 5.17 has none): how a full sheaf gives its objects back, and how a
 * double free of an object in a sheaf is found.  When objects go into a
 * sheaf and come out of it is slub.c's (§10 there).
 *
 * 1. Overview.  A free that is not of the cpu slab would cost a
 *    cmpxchg_double on the object's slab (__slab_free), one per object,
 *    and a server that frees objects of many slabs pays it on nearly every
 *    free.  Instead such an object, checked (object_slab_checked's exact
 *    test) and uncharged, goes into its CPU's sheaf, an array only the
 *    owner touches: no lock, no atomic, and no access to the object.  The
 *    alloc fast path's miss pops the sheaf's newest object before it looks
 *    at any slab.  A full sheaf gives everything back (sheaf_flush): its
 *    objects are checked for one in it twice (§6), then each slab's go
 *    back as one chain, newest first, with one __slab_free (one
 *    cmpxchg_double) per slab, or onto c->freelist for the cpu slab.
 *
 * 2. Data structures (slub_internal.h).  struct slub_sheaf, the last member
 *    of each struct kmem_cache_cpu, which is sized per cache for
 *    s->sheaf_capacity entries (SLUB_SHEAF_MAX, at most SLUB_SHEAF_BYTES
 *    of objects: 64 small ones, 16 of 4 KiB; slub_sheaf= lowers it, 0
 *    turns it off; debug-path caches have none): entries[] of {object,
 *    slab} (slab NULL: not looked up, the flush finds it; §8), oldest
 *    first, nr, and a remembered slab (slab, slab_start,
 *    slab_objects): the slab of an object in the sheaf, so that in a run
 *    of frees of one slab's objects the free's exact test is made against
 *    it, with no look-up of the slab.  A flush builds struct sheaf_chains
 *    on its stack: one chain per slab, found by a hash of the slab.
 *
 * 3. States of an object in a sheaf: counted in use by its slab (as on
 *    c->freelist), its contents untouched.  A pop hands it out as it is;
 *    a flush writes its mark (sheaf_mark: x + 1, encoded as a free
 *    pointer, which no free pointer ever is) into its free pointer word,
 *    then replaces it by a link of its slab's chain.
 *
 * 4. Lock order: none is taken here but by __slab_free (n->list_lock, then
 *    c->lock to freeze a slab onto the CPU's partial chain), one chain at
 *    a time.
 *
 * 5. Invariants.
 *    - Only the owner touches its sheaf, but __kmem_cache_shutdown (the
 *      cache is unused) and the teardown of its exited thread; others read
 *      nr racily (flush_all).
 *    - A slab with an object in a sheaf is never freed, so the remembered
 *      slab stays a slab of s while an object of it is there: a pop or a
 *      flush forgets it.
 *    - __flush_cpu_slab gives the sheaf back first (shrink, thread exit,
 *      destroy): memory held in sheaves is bounded by capacity times live
 *      threads.  A flush takes the objects out of the sheaf before they go
 *      back, so a free made meanwhile (a memcg vector's kfree, on a slab
 *      going back) finds it consistent.
 *
 * 6. Double frees.  A free of the object on top of the sheaf is reported
 *    at once (the kernel's naive check, a compare).  Deeper ones are found
 *    when the sheaf gives its objects back, before anything is linked: the
 *    flush marks every object first, and the second copy of an object in
 *    the sheaf twice finds the mark of its first (sheaf_check_repeats),
 *    whatever the program wrote into the object after its frees; a mark
 *    found is confirmed by a scan, so program data equal to a mark cost
 *    that scan and nothing else.  Linear: one load, compare and store per
 *    object, and the loads do not wait for one another, so cold objects
 *    are waited for together, not one by one.  Unseen without debug
 *    options, as a double free onto a freelist that is not its head: a
 *    copy handed out (popped) before the sheaf gives the other back.  why
 *    not at the free: looking into the object there made each free of a
 *    cold object wait for memory.
 *
 * 7. Costs (callgrind, 64-byte objects): the free slow path of an object
 *    of the remembered slab, about 45 instructions with no call and no
 *    access to the object; a flush, about 25 per object in runs of one
 *    slab's objects, plus a __slab_free per slab.
 *
 * 8. The malloc drop-in's sheaf (sheaf_push_live, sheaf_pop_live in
 *    slub_fastpath.h).  The drop-in's live map proves that a block it
 *    frees is a live object of the class cache that malloc took
 *    uncharged, so its free of an object of another slab than the cpu
 *    slab stores {object, NULL} in line: no look-up or test of the slab,
 *    no uncharge, no double-free check (the map already made it).  The
 *    flush looks the slab up for such entries, and skips its repeat check
 *    for them (the map let each in once); an object popped before the
 *    flush never needs either.  malloc pops c->freelist and, when that is
 *    empty, the sheaf's newest object, in line too, with no test of the
 *    ramp (sheaf_ready's) and none of its live tag: a block in a sheaf
 *    is on no freelist, so nothing handed it out since its free cleared
 *    the tag.  Gains (64-byte blocks, medians of 5 interleaved runs): 1000
 *    blocks freed in random order 272 -> 194 instructions a block (36 ->
 *    29 ns; 184 with the chains' keys), 100k in random order 123 -> 85
 *    ns, Larson -15% (1 and 2 threads).  why c->freelist first and not
 *    the sheaf (a tcmalloc thread cache's order): an array's push must
 *    read its count, which the previous push wrote, where the freelist's
 *    push stores the freed object itself as the new head; pushes of the cpu slab's objects into
 *    the sheaf made batches of 64 cost 11-18% more a pair, though Larson
 *    gained another 10-20% and random-order batches half their time.
 *
 * This file belongs to the SLUB build only: the build compiles every
 * source file for every allocator, so its body sits in one #if.
 */
#include <string.h>
#include "slab.h"

#if CONFIG_SLUB
#include "slub_internal.h"

/* The word of x that holds its free pointer when x is on a freelist. */
static __always_inline unsigned long *free_pointer_slot(const struct kmem_cache *s, void *x)
{
	return (unsigned long *)((char *)x + s->offset);
}

/*
 * What a flush writes into x's free pointer word before it links anything
 * (§6): x + 1, encoded as a free pointer, which no free pointer ever is
 * (objects are aligned).  A clue, not a proof: the program's data may
 * hold the same value, so a hit is confirmed by a scan.
 */
static __always_inline unsigned long sheaf_mark(const struct kmem_cache *s, void *x)
{
	return (unsigned long)freelist_ptr((char *)x + 1, x, freepointer_slab_key(s, x));
}

/* x, the object of e[i], found marked: if an earlier entry holds it, it
 * was freed twice; else the mark was the program's own data. */
static noinline void sheaf_check_marked(const struct kmem_cache *s, const struct sheaf_entry *e,
					unsigned int i, const void *x)
{
	while (i--)
		if (e[i].object == x)
			sheaf_double_free(s, (void *)x);
}

/*
 * Mark every object of e[0..nr), before any is linked: the second copy of
 * an object in e[] twice finds the mark of its first.  Independent loads,
 * so cold objects are waited for together.  The drop-in's entries (slab
 * NULL, §8) are skipped: its live map let each in once, and never one that
 * another free put in (those are not its live blocks).
 */
static void sheaf_check_repeats(const struct kmem_cache *s, const struct sheaf_entry *e,
				unsigned int nr)
{
	unsigned long *slot, mark;
	unsigned int i;
	void *x;

	for (i = 0; i < nr; i++) {
		if (!e[i].slab)
			continue;
		x = e[i].object;
		slot = free_pointer_slot(s, x);
		mark = sheaf_mark(s, x);
		if (unlikely(*slot == mark))
			sheaf_check_marked(s, e, i, x);
		*slot = mark;
	}
}

/* Objects of one slab that a flush links into one chain. */
struct sheaf_chain {
	struct slab *slab;		/* their slab */
	unsigned long key;		/* its free pointer key (freepointer_slab_key) */
	void *head;			/* the chain's first object: the last linked */
	void *tail;			/* its last object: the first linked */
	unsigned int cnt;		/* objects in the chain */
};

/* Slots of a flush's table of chains by slab: a power of two, at least twice
 * the chains it may hold. */
#define SHEAF_SLOTS	(2 * SLUB_SHEAF_MAX)

/* The chains of a flush, one per slab, found by a hash of the slab. */
struct sheaf_chains {
	struct sheaf_chain ch[SLUB_SHEAF_MAX];	/* the chains, ch[0..used) */
	unsigned char slot[SHEAF_SLOTS];	/* 1 + index into ch[] by hash of the
						 * slab (open addressing); 0: empty */
	unsigned int used;			/* chains in ch[] */
};

_Static_assert(SLUB_SHEAF_MAX < 256 && (SHEAF_SLOTS & (SHEAF_SLOTS - 1)) == 0,
	       "a flush's chain index fits a byte; its table is a power of two");

/* The chain of slab (which holds x, an object of s) among cs's, a new
 * empty one if it has none. */
static struct sheaf_chain *sheaf_chain_of(struct sheaf_chains *cs, const struct kmem_cache *s,
					  struct slab *slab, const void *x)
{
	/* why a multiply: its top bits spread struct slab's 64-byte stride */
	unsigned long h = ((unsigned long)slab * 0x9e3779b97f4a7c15UL) >> (64 - ilog2(SHEAF_SLOTS));
	struct sheaf_chain *ch;

	while (cs->slot[h]) {
		ch = &cs->ch[cs->slot[h] - 1];
		if (ch->slab == slab)
			return ch;
		h = (h + 1) % SHEAF_SLOTS;
	}
	ch = &cs->ch[cs->used];
	*ch = (struct sheaf_chain){ slab, freepointer_slab_key(s, x), NULL, NULL, 0 };
	cs->slot[h] = (unsigned char)++cs->used;
	return ch;
}

/* The slab of x, an object the drop-in's live map vouched for (§8): why
 * not virt_to_slab: x is known to lie in a slab, so its tests (a page of
 * the memory map, PG_slab) are left out. */
static __always_inline struct slab *live_object_slab(const void *x)
{
	return folio_slab(virt_to_folio(x));
}

/*
 * Link e[0..nr) (checked) into cs's chains, one per slab, each object in
 * front of its chain (newest first); an entry without a slab (the
 * drop-in's, §8) finds its slab here.  Within a run of one slab's objects,
 * the common case, an object costs a compare and a link.  why no naive
 * double-free check on the link, and the slab's key from its chain: no
 * object is in e[] twice
 * (sheaf_check_repeats, and the live map for the drop-in's entries), and
 * every object of a slab has the slab's key.
 */
static void sheaf_link_chains(const struct kmem_cache *s, const struct sheaf_entry *e,
			      unsigned int nr, struct sheaf_chains *cs)
{
	struct sheaf_chain *ch = NULL;
	struct slab *slab;
	unsigned int i;
	void *x;

	cs->used = 0;
	memset(cs->slot, 0, sizeof(cs->slot));
	for (i = 0; i < nr; i++) {
		x = e[i].object;
		slab = e[i].slab ? e[i].slab : live_object_slab(x);
		if (!ch || ch->slab != slab)
			ch = sheaf_chain_of(cs, s, slab, x);
		if (!ch->head)
			ch->tail = x;
		/* NULL ends a new chain */
		*free_pointer_slot(s, x) = (unsigned long)freelist_ptr(ch->head, x, ch->key);
		ch->head = x;
		ch->cnt++;
	}
}

void sheaf_flush(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slub_sheaf *sh)
{
	struct sheaf_chains cs;
	struct sheaf_chain *ch;
	unsigned int nr = sh->nr, k;

	sheaf_check_repeats(s, sh->entries, nr);
	sheaf_link_chains(s, sh->entries, nr, &cs);
	/* why empty before anything goes back: a free made meanwhile (a memcg
	 * vector's kfree, on a slab going back) may refill it */
	WRITE_ONCE(sh->nr, 0);
	sh->slab_objects = 0;
	for (k = 0, ch = cs.ch; k < cs.used; k++, ch++)
		sheaf_chain_give_back(s, c, ch->slab, ch->head, ch->tail, ch->cnt);
}

#endif /* CONFIG_SLUB */
