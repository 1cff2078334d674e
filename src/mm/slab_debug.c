// SPDX-License-Identifier: MIT
/*
 * slab_debug.c - SLAB's debugging, as Linux 5.17's mm/slab.c built with
 * CONFIG_DEBUG_SLAB, its misuse reports, and its memcheck hooks.
 *
 * 1. Overview
 *    A cache created with SLAB_RED_ZONE, SLAB_POISON or SLAB_STORE_USER, or
 *    given them by the option slub_debug= / slab_debug= (debug_options.c),
 *    lays its objects out with room for red zones and a user word (see the
 *    drawing in slab_debug.h) and carries CFLGS_DEBUG_HOOKS.  slab.c tests
 *    that one bit when an object leaves the allocator or comes back, and
 *    then calls:
 *      cache_alloc_debugcheck_after  the object's poison must be intact and
 *                                    its red zones inactive; it becomes
 *                                    active, INUSE-poisoned, owned by the
 *                                    caller;
 *      cache_free_debugcheck         its red zones must be active (both
 *                                    inactive: a double free); it becomes
 *                                    inactive and FREE-poisoned.
 *    The checks run where objects enter and leave the user, as the kernel's
 *    do, so debug caches keep their array caches: an object in an array is
 *    as free (inactive, poisoned) as one in a slab.  New slabs get every
 *    object initialised (cache_init_obj_debug) and slabs about to be freed
 *    have every object checked (slab_debug_destroy).  SLAB_CONSISTENCY_CHECKS
 *    (F) adds a check of a slab's whole freelist each time slab.c takes an
 *    object from it or puts one back (check_slab_freelist).
 *
 * 2. Data structures
 *    No new ones: s->obj_offset and s->size say where the object and the
 *    debug words are; the words live in the slot.  Red zones are 64-bit
 *    words (RED_INACTIVE / RED_ACTIVE), read and written with memcpy since
 *    redzone 2 starts right at object_size.  Red zones are dropped for
 *    caches aligned above a cache line (the kernel drops them above 8
 *    bytes; here up to 64 bytes of alignment are paid for in padding), and
 *    poison for SLAB_TYPESAFE_BY_RCU caches, whose free objects must stay
 *    valid for readers.  Z P U are dropped where the slot would outgrow
 *    the largest slab (kmalloc-4M), and with the O option where they would
 *    raise the order of a slab holding one object.  Objects of a poisoned
 *    cache never hold their slab's freelist (OBJFREELIST): poison would
 *    overwrite it.
 *
 * 3. States of a debug object
 *      state       redzones   body                       user word
 *      free        INACTIVE   6b..6b a5 (POISON)          last freer (or 0)
 *      allocated   ACTIVE     5a.. until written (POISON) last allocator
 *    A free object is free whether it sits in a slab or in an array cache.
 *    With POISON and a constructor, the constructor runs at every
 *    allocation (poison destroys its work); without POISON, once per object
 *    when its slab is made, as for any cache.
 *
 * 4. Lock order
 *    The object hooks run without locks.  The statistics counter of errors
 *    is bumped under node 0's list_lock; slab_double_free and the freelist
 *    checks run with it held already.  Nothing here allocates: reports go
 *    through slab_printk's stack buffer.
 *
 * 5. Invariants
 *    - Every object of a debug cache is in one of the states of §3 except
 *      while a hook runs on it.
 *    - Objects and slots: slot = object - obj_offset; slab.c's arrays and
 *      freelists hold slots, users hold objects.
 *
 * 6. Reports and repair
 *    Reports use the kernel's words: "Slab corruption (Not tainted): ...",
 *    "Redzone: 0x.../0x...", "Last user: (sym+0xoff/0xsize)", hex lines
 *    "000: 6b 6b ...", "Prev obj:" / "Next obj:", "slab error in f():
 *    cache `c': double free detected" and so on.  Each report of damage or
 *    misuse ends in slab_error_done(): abort by default; under
 *    slab_error=repair it counts the error and returns, and the damage is
 *    repaired as the kernel would go on (red zones and poison rewritten, a
 *    second free dropped, an object freed to the wrong cache freed to its
 *    own).  Pointers that name no object (not a slab, interior, misaligned)
 *    and corrupted freelists are not repairable: report, then abort.
 *
 * 7. Memcheck (memcheck.h)
 *    When memcheck_active() every cache carries CFLGS_DEBUG_HOOKS, and the
 *    hooks tell valgrind or ASan about each object: a new slab's object
 *    area becomes no-access (the debug words of a debug cache stay
 *    accessible), an allocation memcheck_alloc()s the object after the
 *    poison check, a free memcheck_free()s it after the poisoning, and a
 *    slab is made defined for its last checks and undefined before its
 *    pages go back.  No free object holds metadata then: slab.c asks
 *    slab_debug_objfreelist_ok() before keeping a freelist in an object.
 *
 * 8. The kmalloc red zone (SLUB's of Linux 6.2, which SLAB never had)
 *    A SLAB_KMALLOC cache with red zones keeps, in a word before the user
 *    word, the size each allocated object was asked for (orig); redzone 2
 *    of an allocated object then sits at object + orig, right after the
 *    last byte its user owns, as it does for any cache at object_size, so
 *    that kmalloc(13) from kmalloc-32 catches a write to byte 13 when the
 *    object is freed ("memory outside object was overwritten", with a
 *    "kmalloc Redzone:" line).  The bytes from orig + 8 to object_size are
 *    not checked, as the alignment padding of any cache is not.
 *      who                         orig becomes
 *      alloc, a new slab, a free   object_size (redzone 2 where it always is)
 *      kmalloc(n), kmem_cache_alloc_orig(n)   n (slab_debug_kmalloc)
 *      ksize()                     object_size: all of it may be used
 *      krealloc within the slot    the new size
 *    An allocated object belongs to its caller, so none of this takes a
 *    lock.  Memcheck mode never uses it: the tool sees the bytes past the
 *    request itself.
 *
 * This file belongs to the SLAB build only: the build compiles every source
 * file for every allocator, so its body sits in one #if.
 */
#include "slab.h"

#if CONFIG_SLAB
#include <stdlib.h>
#include <string.h>
#include "memcheck.h"
#include "slab_debug.h"
#include "track.h"

#define BYTES_PER_WORD		sizeof(void *)
#define RZ_BYTES		((unsigned int)sizeof(unsigned long long))
#define REDZONE_ALIGN_MAX	L1_CACHE_BYTES	/* above: no red zones (§2) */
#define DEBUG_METADATA_FLAGS	(SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER)
#define POISON_DUMP_LINES	5	/* most hex lines of a poison report */
#define NEIGHBOUR_LINES		2	/* hex lines of the objects around it */

/* ======================= layout ======================= */

static char *slot_obj(const struct kmem_cache *s, const void *slot)
{
	return (char *)slot + s->obj_offset;
}

static void *dbg_redzone1(const struct kmem_cache *s, const void *slot)
{
	return slot_obj(s, slot) - RZ_BYTES;
}

static void *dbg_redzone2(const struct kmem_cache *s, const void *slot)
{
	return slot_obj(s, slot) + s->object_size;
}

static void **dbg_userword(const struct kmem_cache *s, const void *slot)
{
	return (void **)((char *)slot + s->size - BYTES_PER_WORD);
}

/* Does s keep the size each object was asked for (§8)? */
static bool kmalloc_redzone(const struct kmem_cache *s)
{
	return (s->flags & (SLAB_RED_ZONE | SLAB_KMALLOC)) == (SLAB_RED_ZONE | SLAB_KMALLOC) &&
	       !memcheck_active();
}

/* The word holding orig (§8): right before the user word, or last. */
static unsigned int *dbg_origword(const struct kmem_cache *s, const void *slot)
{
	unsigned int words = (s->flags & SLAB_STORE_USER) ? 2 : 1;

	return (unsigned int *)((char *)slot + s->size - words * BYTES_PER_WORD);
}

/* The bytes an allocated object's user owns: redzone 2 starts there.
 * why the clamp: a damaged word must not send the check outside the slot */
static unsigned int obj_orig_size(const struct kmem_cache *s, const void *slot)
{
	if (!kmalloc_redzone(s))
		return s->object_size;
	return min(*dbg_origword(s, slot), s->object_size);
}

/* Redzone 2 of the object as it is now: at orig while allocated (§8). */
static void *dbg_redzone2_now(const struct kmem_cache *s, const void *slot)
{
	return slot_obj(s, slot) + obj_orig_size(s, slot);
}

/* orig of a kmalloc red zone cache's object becomes size (<= object_size). */
static void set_orig_size(const struct kmem_cache *s, void *slot, unsigned int size)
{
	unsigned long long v = RED_ACTIVE;

	memcpy(slot_obj(s, slot) + size, &v, sizeof(v));
	*dbg_origword(s, slot) = size;
}

static unsigned long long redzone_get(const void *rz)
{
	unsigned long long v;

	memcpy(&v, rz, sizeof(v));	/* why memcpy: redzone 2 may be unaligned */
	return v;
}

static void redzone_set(const struct kmem_cache *s, void *slot, unsigned long long v)
{
	memcpy(dbg_redzone1(s, slot), &v, sizeof(v));
	memcpy(dbg_redzone2(s, slot), &v, sizeof(v));
}

/* The slot's end with the debug words of flags; sets s->obj_offset. */
static unsigned int debug_slot_end(struct kmem_cache *s, slab_flags_t flags)
{
	unsigned int end = s->object_size;

	s->obj_offset = 0;
	if (flags & SLAB_RED_ZONE) {
		/* why max: the object keeps its alignment behind redzone 1 */
		s->obj_offset = max(s->align, RZ_BYTES);
		end = s->obj_offset + s->object_size + RZ_BYTES;
	}
	if ((flags & (SLAB_RED_ZONE | SLAB_KMALLOC)) == (SLAB_RED_ZONE | SLAB_KMALLOC))
		end = ALIGN(end, (unsigned int)BYTES_PER_WORD) + (unsigned int)BYTES_PER_WORD;
	if (flags & SLAB_STORE_USER)
		end = ALIGN(end, (unsigned int)BYTES_PER_WORD) + (unsigned int)BYTES_PER_WORD;
	return ALIGN(end, (unsigned int)BYTES_PER_WORD);
}

slab_flags_t slab_debug_cache_flags(const char *name, slab_flags_t flags)
{
	return flags | (slab_debug_flags_for(name, flags) & SLAB_DEBUG_FLAGS);
}

/*
 * memcheck (memcheck.h §2): at least MEMCHECK_GAP no-access bytes before
 * each object, where the slab has room.  Valgrind names the block of an
 * address by looking that far around every block, so an access just past
 * an object is told of it, not of its neighbour; and slab->s_mem, which
 * stays in the memory map, then points at no object (a leaked first object
 * of a slab would count as reachable).  Red zones do both already.
 */
static unsigned int memcheck_slot_end(struct kmem_cache *s, unsigned int end)
{
	unsigned int off = max(s->align, (unsigned int)MEMCHECK_GAP);

	if (s->obj_offset || end + off > (PAGE_SIZE << KMALLOC_MAX_ORDER))
		return end;
	s->obj_offset = off;	/* why align: the object keeps its alignment */
	return end + off;
}

unsigned int slab_debug_slot_size(struct kmem_cache *s, slab_flags_t *flags)
{
	unsigned int end;

	if ((*flags & SLAB_RED_ZONE) && s->align > REDZONE_ALIGN_MAX)
		*flags &= ~SLAB_RED_ZONE;
	if (*flags & SLAB_TYPESAFE_BY_RCU)
		*flags &= ~SLAB_POISON;
	end = debug_slot_end(s, *flags);
	/* 'O': no debug words where they would need a bigger slab; none ever
	 * where the slot would outgrow the largest slab */
	if ((*flags & DEBUG_METADATA_FLAGS) &&
	    ((slab_debug_order_guard() && get_order(end) > get_order(s->object_size)) ||
	     end > (PAGE_SIZE << KMALLOC_MAX_ORDER))) {
		*flags &= ~DEBUG_METADATA_FLAGS;
		end = debug_slot_end(s, *flags);
	}
	if ((*flags & DEBUG_METADATA_FLAGS) || memcheck_active())
		*flags |= CFLGS_DEBUG_HOOKS;
	if (memcheck_active())
		end = memcheck_slot_end(s, end);
	return end;
}

bool slab_debug_objfreelist_ok(slab_flags_t flags)
{
	return !(flags & SLAB_POISON) && !memcheck_active();
}

/* ======================= report pieces ======================= */

/* One hex line of an object, as the kernel's dump_line (print_hex_dump with
 * 16 bytes a row and their characters). */
static void dump_line(const unsigned char *data, unsigned int offset, unsigned int limit)
{
	char line[128];
	unsigned int i, bad = 0;
	unsigned char error = 0;
	int n = snprintf(line, sizeof(line), "%03x:", offset);

	for (i = 0; i < limit; i++) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %02x", data[offset + i]);
		if (data[offset + i] != POISON_FREE) {
			error = data[offset + i];
			bad++;
		}
	}
	n += snprintf(line + n, sizeof(line) - (size_t)n, "%*s", (int)(16 - limit) * 3 + 2, "");
	for (i = 0; i < limit; i++) {
		unsigned char c = data[offset + i];

		line[n++] = c >= 0x20 && c < 0x7f ? (char)c : '.';
	}
	line[n] = '\0';
	slab_printk("%s\n", line);
	error ^= POISON_FREE;
	if (bad == 1 && !(error & (error - 1))) {
		slab_printk("Single bit error detected. Probably bad RAM.\n");
		slab_printk("Run memtest86+ or a similar memory test tool.\n");
	}
}

static void dump_lines(const struct kmem_cache *s, const void *slot, unsigned int lines)
{
	const unsigned char *obj = (const unsigned char *)slot_obj(s, slot);
	unsigned int i;

	for (i = 0; i < s->object_size && lines; i += 16, lines--)
		dump_line(obj, i, min(16U, s->object_size - i));
}

/* The kernel's print_objinfo: red zones, last user, then lines of the object. */
static void print_objinfo(const struct kmem_cache *s, const void *slot, unsigned int lines)
{
	char sym[256];

	if (s->flags & SLAB_RED_ZONE)
		slab_printk("Redzone: 0x%llx/0x%llx\n", redzone_get(dbg_redzone1(s, slot)),
			    redzone_get(dbg_redzone2_now(s, slot)));
	if (s->flags & SLAB_STORE_USER)
		slab_printk("Last user: (%s)\n", sprint_backtrace(sym, sizeof(sym),
			    (unsigned long)*dbg_userword(s, slot)));
	/* why not under memcheck: the bytes of a free neighbour are no-access */
	if (!memcheck_active())
		dump_lines(s, slot, lines);
}

/* errors in slabinfo's globalstat (node 0's list_lock). */
static void count_error(struct kmem_cache *s)
{
	struct kmem_cache_node *n = s->node[0];

	spin_lock(&n->list_lock);
	s->stats.errors++;
	spin_unlock(&n->list_lock);
}

/* The kernel's slab_error() line for damage found in s. */
static void debug_error(struct kmem_cache *s, const char *fn, const char *msg)
{
	slab_printk("slab error in %s(): cache `%s': %s\n", fn, s->name, msg);
	count_error(s);
}

/* Under slab_error=repair, say what was put right. */
static void debug_fix(const struct kmem_cache *s, const char *what, const void *obj)
{
	if (slab_error_repair())
		slab_printk("FIX %s: %s of 0x%lx\n", s->name, what, (unsigned long)obj);
}

/* ======================= poison ======================= */

static void poison_obj(const struct kmem_cache *s, void *slot, unsigned char val)
{
	unsigned char *obj = (unsigned char *)slot_obj(s, slot);

	memset(obj, val, s->object_size);
	obj[s->object_size - 1] = POISON_END;
}

/* Is every byte of the object as poison_obj(POISON_FREE) left it? */
static bool poison_intact(const struct kmem_cache *s, const void *slot)
{
	const unsigned char *obj = (const unsigned char *)slot_obj(s, slot);
	unsigned int i, last = s->object_size - 1;

	for (i = 0; i < last; i++)
		if (obj[i] != POISON_FREE)
			return false;
	return obj[last] == POISON_END;
}

/* Hex lines of the damaged rows (at most POISON_DUMP_LINES). */
static void dump_poison_damage(const struct kmem_cache *s, const void *slot)
{
	const unsigned char *obj = (const unsigned char *)slot_obj(s, slot);
	unsigned int i, row, lines = 0, size = s->object_size;

	for (i = 0; i < size && lines < POISON_DUMP_LINES; i++) {
		unsigned char want = i == size - 1 ? POISON_END : POISON_FREE;

		if (obj[i] == want)
			continue;
		row = i / 16 * 16;
		dump_line(obj, row, min(16U, size - row));
		lines++;
		i = row + 15;	/* the loop's i++ moves to the next row */
	}
}

/* "Prev obj:" / "Next obj:" with a little of each. */
static void print_neighbour(const struct kmem_cache *s, const struct slab *slab,
			    const char *which, unsigned int idx)
{
	const void *slot = (const char *)slab->s_mem + (unsigned long)s->size * idx;

	slab_printk("%s obj: start=0x%lx, len=%u\n", which, (unsigned long)slot_obj(s, slot),
		    s->object_size);
	print_objinfo(s, slot, NEIGHBOUR_LINES);
}

static unsigned int slot_index(const struct kmem_cache *s, const struct slab *slab,
			       const void *slot)
{
	return (unsigned int)(((const char *)slot - (const char *)slab->s_mem) / s->size);
}

/* The kernel's check_poison_obj: a free object must still be poison. */
static void check_poison_obj(struct kmem_cache *s, const void *slot)
{
	struct slab *slab = virt_to_slab(slot);
	unsigned int idx;

	if (likely(poison_intact(s, slot)))
		return;
	slab_printk("Slab corruption (Not tainted): %s start=0x%lx, len=%u\n", s->name,
		    (unsigned long)slot_obj(s, slot), s->object_size);
	print_objinfo(s, slot, 0);
	dump_poison_damage(s, slot);
	idx = slot_index(s, slab, slot);
	if (idx)
		print_neighbour(s, slab, "Prev", idx - 1);
	if (idx + 1 < s->num)
		print_neighbour(s, slab, "Next", idx + 1);
	count_error(s);
	slab_error_done();
	debug_fix(s, "Restoring poison", slot_obj(s, slot));
}

/* ======================= objects ======================= */

/* Red zones of an object leaving the allocator must read inactive. */
static void check_redzones_alloc(struct kmem_cache *s, void *slot)
{
	unsigned long long rz1 = redzone_get(dbg_redzone1(s, slot));
	unsigned long long rz2 = redzone_get(dbg_redzone2(s, slot));

	if (likely(rz1 == RED_INACTIVE && rz2 == RED_INACTIVE))
		return;
	debug_error(s, "cache_alloc_debugcheck_after",
		    "double free, or memory outside object was overwritten");
	slab_printk("0x%lx: redzone 1:0x%llx, redzone 2:0x%llx\n",
		    (unsigned long)slot_obj(s, slot), rz1, rz2);
	print_objinfo(s, slot, 0);
	slab_error_done();
	debug_fix(s, "Restoring redzones", slot_obj(s, slot));
}

void *cache_alloc_debugcheck_after(struct kmem_cache *s, gfp_t flags, void *slot,
				   unsigned long caller)
{
	char *obj;

	(void)flags;
	if (!slot)
		return NULL;
	obj = slot_obj(s, slot);
	if (memcheck_active())	/* open the free object for the checks */
		memcheck_defined(obj, READ_ONCE(s->object_size));
	if (s->flags & SLAB_POISON) {
		check_poison_obj(s, slot);
		poison_obj(s, slot, POISON_INUSE);
	}
	if (s->flags & SLAB_STORE_USER)
		*dbg_userword(s, slot) = (void *)caller;
	if (s->flags & SLAB_RED_ZONE) {
		check_redzones_alloc(s, slot);
		redzone_set(s, slot, RED_ACTIVE);
	}
	if (kmalloc_redzone(s))
		*dbg_origword(s, slot) = s->object_size;
	/* why "zeroed" with a ctor: constructed contents are defined */
	if (memcheck_active())
		memcheck_alloc(obj, READ_ONCE(s->object_size), s->ctor != NULL);
	if (s->ctor && (s->flags & SLAB_POISON))
		s->ctor(obj);
	return obj;
}

/*
 * The kernel's verify_redzone_free: both red zones active is a good free;
 * both inactive a double free (false: drop it); anything else an overrun
 * or underrun of the object, reported and repaired.
 */
static bool verify_redzone_free(struct kmem_cache *s, void *slot)
{
	unsigned long long rz1 = redzone_get(dbg_redzone1(s, slot));
	unsigned long long rz2 = redzone_get(dbg_redzone2_now(s, slot));
	unsigned int orig = obj_orig_size(s, slot);
	bool twice;

	if (likely(rz1 == RED_ACTIVE && rz2 == RED_ACTIVE))
		return true;
	twice = rz1 == RED_INACTIVE && rz2 == RED_INACTIVE;
	debug_error(s, "verify_redzone_free",
		    twice ? "double free detected" : "memory outside object was overwritten");
	slab_printk("0x%lx: redzone 1:0x%llx, redzone 2:0x%llx\n",
		    (unsigned long)slot_obj(s, slot), rz1, rz2);
	if (orig < s->object_size)
		slab_printk("kmalloc Redzone: %u of %u bytes asked for: redzone 2 at 0x%lx\n",
			    orig, s->object_size, (unsigned long)slot_obj(s, slot) + orig);
	print_objinfo(s, slot, 0);
	slab_error_done();
	debug_fix(s, twice ? "Dropping the second free" : "Restoring redzones",
		  slot_obj(s, slot));
	return !twice;
}

void *cache_free_debugcheck(struct kmem_cache *s, void *obj, unsigned long caller)
{
	void *slot = (char *)obj - s->obj_offset;

	if (s->flags & SLAB_RED_ZONE) {
		if (!verify_redzone_free(s, slot))
			return NULL;
		redzone_set(s, slot, RED_INACTIVE);
	}
	/* why: a second free must find redzone 2 where a free object has it */
	if (kmalloc_redzone(s))
		*dbg_origword(s, slot) = s->object_size;
	if (s->flags & SLAB_STORE_USER)
		*dbg_userword(s, slot) = (void *)caller;
	/* why: a kmalloc block may be smaller than its slot; the poison fills it all */
	if (memcheck_active() && (s->flags & SLAB_POISON))
		memcheck_kmalloc_set_size(obj, READ_ONCE(s->object_size), READ_ONCE(s->object_size));
	if (s->flags & SLAB_POISON)
		poison_obj(s, slot, POISON_FREE);
	if (memcheck_active())
		memcheck_free(obj, READ_ONCE(s->object_size));
	return slot;
}

/* ======================= the kmalloc red zone (§8) ======================= */

void slab_debug_kmalloc(struct kmem_cache *s, void *obj, size_t size)
{
	if (kmalloc_redzone(s))
		set_orig_size(s, (char *)obj - s->obj_offset,
			      (unsigned int)min(size, (size_t)s->object_size));
}

/*
 * ksize() and krealloc() (slab.h): obj, any pointer the program holds, is
 * used for size bytes now.  Only an allocated object (redzone 1 active) of
 * a cache with the kmalloc red zone is touched; the callers check the rest.
 */
void kmalloc_set_orig_size(const void *obj, size_t size)
{
	struct slab *slab = virt_to_slab(obj);
	struct kmem_cache *s;
	unsigned long off;
	void *slot;

	if (!slab)
		return;
	s = slab->slab_cache;
	if (!kmalloc_redzone(s))
		return;
	slot = (char *)obj - s->obj_offset;
	off = (unsigned long)((char *)slot - (char *)slab->s_mem);
	if (off >= (unsigned long)s->num * s->size || off % s->size ||
	    redzone_get(dbg_redzone1(s, slot)) != RED_ACTIVE)
		return;
	set_orig_size(s, slot, (unsigned int)min(size, (size_t)s->object_size));
}

/* ======================= slabs ======================= */

/* Did the constructor write outside its object? (the kernel's words) */
static void check_ctor_redzones(struct kmem_cache *s, void *slot)
{
	bool end = redzone_get(dbg_redzone2(s, slot)) != RED_INACTIVE;
	bool start = redzone_get(dbg_redzone1(s, slot)) != RED_INACTIVE;

	if (likely(!end && !start))
		return;
	if (end)
		debug_error(s, "cache_init_objs_debug", "constructor overwrote the end of an object");
	if (start)
		debug_error(s, "cache_init_objs_debug",
			    "constructor overwrote the start of an object");
	slab_error_done();
	redzone_set(s, slot, RED_INACTIVE);
	debug_fix(s, "Restoring redzones", slot_obj(s, slot));
}

void cache_init_obj_debug(struct kmem_cache *s, void *slot)
{
	if (s->flags & SLAB_STORE_USER)
		*dbg_userword(s, slot) = NULL;
	if (kmalloc_redzone(s))
		*dbg_origword(s, slot) = s->object_size;
	if (s->flags & SLAB_RED_ZONE)
		redzone_set(s, slot, RED_INACTIVE);
	/* with poison the constructor runs at every allocation instead */
	if (s->ctor && !(s->flags & SLAB_POISON)) {
		s->ctor(slot_obj(s, slot));
		if (s->flags & SLAB_RED_ZONE)
			check_ctor_redzones(s, slot);
	}
	if (s->flags & SLAB_POISON)
		poison_obj(s, slot, POISON_FREE);
}

/* Reopen the debug words of each slot of a no-access object area. */
static void memcheck_open_debug_words(const struct kmem_cache *s, const struct slab *slab)
{
	unsigned int i;
	char *slot;

	for (i = 0; i < s->num; i++) {
		slot = (char *)slab->s_mem + (unsigned long)s->size * i;
		if (s->flags & SLAB_RED_ZONE) {
			memcheck_defined(dbg_redzone1(s, slot), RZ_BYTES);
			memcheck_defined(dbg_redzone2(s, slot), RZ_BYTES);
		}
		if (s->flags & SLAB_STORE_USER)
			memcheck_defined(dbg_userword(s, slot), BYTES_PER_WORD);
	}
}

void slab_debug_new_slab(struct kmem_cache *s, struct slab *slab)
{
	if (!memcheck_active())
		return;
	memcheck_noaccess(slab->s_mem, (size_t)s->num * s->size);
	if (s->flags & (SLAB_RED_ZONE | SLAB_STORE_USER))
		memcheck_open_debug_words(s, slab);
}

/* The kernel's slab_destroy_debugcheck: a slab's objects, all free, intact. */
static void slab_destroy_debugcheck(struct kmem_cache *s, struct slab *slab)
{
	unsigned int i;
	void *slot;

	for (i = 0; i < s->num; i++) {
		slot = (char *)slab->s_mem + (unsigned long)s->size * i;
		if (s->flags & SLAB_POISON)
			check_poison_obj(s, slot);
		if (!(s->flags & SLAB_RED_ZONE))
			continue;
		if (redzone_get(dbg_redzone1(s, slot)) != RED_INACTIVE) {
			debug_error(s, "slab_destroy_debugcheck",
				    "start of a freed object was overwritten");
			slab_error_done();
		}
		if (redzone_get(dbg_redzone2(s, slot)) != RED_INACTIVE) {
			debug_error(s, "slab_destroy_debugcheck",
				    "end of a freed object was overwritten");
			slab_error_done();
		}
	}
}

void slab_debug_destroy(struct kmem_cache *s, struct slab *slab)
{
	if (memcheck_active())
		memcheck_defined(slab->s_mem, (size_t)s->num * s->size);
	if (s->flags & DEBUG_METADATA_FLAGS)
		slab_destroy_debugcheck(s, slab);
	if (memcheck_active())
		memcheck_undefined(slab_address(slab), slab_size(slab));
}

/* ======================= freelists ======================= */

void slab_bad_freelist_index(const struct kmem_cache *s, const struct slab *slab,
			     unsigned int pos, unsigned int idx)
{
	slab_printk("slab error in check_slab_freelist(): cache `%s': freelist of slab 0x%lx "
		    "is corrupted: entry %u names object %u of %u\n", s->name,
		    (unsigned long)slab_address(slab), pos, idx, s->num);
	abort();
}

void check_slab_freelist(const struct kmem_cache *s, const struct slab *slab,
			 const void *freelist, unsigned int active)
{
	unsigned char seen[(SLAB_OBJ_MAX_NUM + 1) / 8] = { 0 };
	const unsigned char *idx = freelist;
	unsigned int i;

	if (active > s->num)
		slab_bad_freelist_index(s, slab, active, active);
	for (i = active; i < s->num && freelist; i++) {
		if (idx[i] >= s->num || (seen[idx[i] / 8] & (1U << (idx[i] % 8))))
			slab_bad_freelist_index(s, slab, i, idx[i]);
		seen[idx[i] / 8] |= (unsigned char)(1U << (idx[i] % 8));
	}
}

/* ======================= misuse reports ======================= */

static __noreturn __cold void slab_bug(const char *where)
{
	slab_printk("kernel BUG at mm/slab.c:%s!\n", where);
	abort();
}

void slab_error(const struct kmem_cache *s, const char *fn, const char *msg, const void *obj)
{
	slab_printk("slab error in %s(): cache `%s': %s 0x%lx\n", fn, s->name, msg,
		    (unsigned long)obj);
	slab_bug(fn);
}

void free_invalid_pointer(const char *fn, const void *x, const char *why)
{
	slab_printk("%s: invalid pointer 0x%lx (%s)\n", fn, (unsigned long)x, why);
	slab_bug(fn);
}

void free_bad_object(const struct kmem_cache *s, const struct slab *slab, const void *x)
{
	slab_printk("SLAB: Invalid object pointer 0x%lx\n", (unsigned long)x);
	slab_printk("slab error in %s(): cache `%s': 0x%lx is not the start of an object "
		    "(slab 0x%lx, first object 0x%lx, %u objects of %u bytes); nothing was freed\n",
		    "cache_from_obj", s->name, (unsigned long)x, (unsigned long)slab_address(slab),
		    (unsigned long)slot_obj(s, slab->s_mem), s->num, s->size);
	slab_bug("cache_from_obj");
}

struct kmem_cache *free_wrong_cache(struct kmem_cache *s, struct kmem_cache *t, const void *x)
{
	slab_warn("mm/slab.h:cache_from_obj",
		  "kmem_cache_free: Wrong slab cache. %s but object is from %s\n", s->name, t->name);
	if (t->flags & SLAB_STORE_USER)
		print_objinfo(t, (const char *)x - t->obj_offset, 0);
	slab_printk("Object 0x%lx not freed to %s\n", (unsigned long)x, s->name);
	count_error(t);
	slab_error_done();
	debug_fix(t, "Freeing to its own cache", x);
	return t;
}

void naive_double_free(struct kmem_cache *s, const void *slot)
{
	slab_printk("slab error in __free_one(): cache `%s': double free: object is on top "
		    "of the CPU array: 0x%lx\n", s->name, (unsigned long)slot_obj(s, slot));
	count_error(s);
	slab_error_done();
	debug_fix(s, "Dropping the second free", slot_obj(s, slot));
}

void slab_double_free(struct kmem_cache *s, const void *slot)
{
	s->stats.errors++;	/* list_lock is held */
	slab_printk("slab: double free detected in cache '%s', objp 0x%lx\n", s->name,
		    (unsigned long)slot_obj(s, slot));
	slab_printk("slab error in slab_put_obj(): cache `%s': double free: object already "
		    "free in its slab: 0x%lx\n", s->name, (unsigned long)slot_obj(s, slot));
	slab_error_done();
	debug_fix(s, "Dropping the second free", slot_obj(s, slot));
}

#endif /* CONFIG_SLAB */
