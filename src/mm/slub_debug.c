// SPDX-License-Identifier: MIT
/*
 * slub_debug.c - SLUB's debugging (the kernel's CONFIG_SLUB_DEBUG): red
 * zones, poisoning, owner tracks, consistency checks, trace, failslab,
 * validate, the kernel-style reports, and the memcheck mode's path.
 *
 * 1. Overview.  A cache is a debug cache when it has any of SLAB_RED_ZONE
 *    (Z), SLAB_POISON (P), SLAB_STORE_USER (U), SLAB_CONSISTENCY_CHECKS (F),
 *    SLAB_TRACE (T), from its creator or from slub_debug=
 *    (debug_options.c).  Such a cache, one with SLAB_FAILSLAB (A), and
 *    every cache in memcheck mode (memcheck.h) take the "debug path"
 *    (slab_debug_path()) for every allocation and free: no cpu slab, no
 *    per-CPU partial chain; one object at a time from a node partial slab
 *    (or a new one), and back, under n->list_lock (the scheme of Linux 6.2,
 *    which closed 5.17's races between validate and frozen debug slabs).
 *    Their c->freelist stays empty and c->slab_objects 0, so the fast
 *    paths (slub_fastpath.h) fall through to the slow path without testing
 *    anything new.
 *
 * 2. Object layout (calculate_sizes in slub_cache.c), one slot of s->size:
 *      [left red zone: red_left_pad][object: object_size][right red zone
 *       up to inuse][free pointer, if outside][alloc track][free track]
 *      [requested size: 4 bytes, kmalloc red zone only (§8)]
 *      [padding up to size]
 *    The user's pointer is the object's start.  The free pointer sits
 *    outside the object for P, a ctor, SLAB_TYPESAFE_BY_RCU and memcheck,
 *    else in its middle (free objects only).
 *
 * 3. States of the bytes (P and Z):
 *      where              free object         allocated object
 *      red zones          0xbb (INACTIVE)     0xcc (ACTIVE)
 *      object (P)         6b 6b .. 6b a5      6b .. a5 until written
 *      padding (P)        0x5a                0x5a
 *      slab tail (P)      0x5a after the last slot
 *    Slabs of the debug path are never frozen: partial (on n->partial,
 *    freelist non-NULL) or full (freelist NULL; on n->full with U, else on
 *    no list).
 *
 * 4. Lock order: n->list_lock -> slab_lock.  Every change of a debug
 *    slab (freelist, counters, lists, object bytes, node counts) happens
 *    under n->list_lock; the pair freelist+counters is written under
 *    slab_lock, as for every cache without __CMPXCHG_DOUBLE (F, U, T).
 *    Owner tracks are captured before the lock (backtrace() takes the
 *    loader's lock) and copied in under it; trace stacks print after it.
 *
 * 5. Invariants.  An object on a debug slab's freelist has INACTIVE red
 *    zones and, with P, a poisoned body; an allocated one ACTIVE red
 *    zones.  nr_slabs counts exactly the slabs on n->partial plus the full
 *    ones (on n->full with U), both changed under list_lock.
 *
 * 6. Reports, in the kernel's words and layout: slab_bug()'s banner
 *    "BUG <cache> (Not tainted): <what>", then INFO lines, the owner
 *    tracks, the slab line, hex dumps of the object's bytes and a stack;
 *    then slab_error_done() (debug_options.c): abort by default; under
 *    slab_error=repair the damage is repaired, with "FIX <cache>: ..."
 *    lines, and the process goes on.
 *
 * 7. Memcheck mode (memcheck.h).  Every cache takes this path; a new slab
 *    is made no-access as a whole once built; an object becomes a heap
 *    block when handed out (memcheck_alloc) and no-access again when taken
 *    back (memcheck_free); the allocator opens a slot's own bytes (red
 *    zones, free pointer, tracks, padding: slot_meta_access) and a free
 *    object's body (object_open) only around its own accesses, so Valgrind
 *    or ASan report a program's read past an object or after a free.  A
 *    slab given back is made undefined (accessible) for the page allocator.
 *
 * 8. The kmalloc red zone (Linux 6.2's, slub_debug_orig_size()).  A
 *    SLAB_KMALLOC cache with red zones keeps, after the tracks, the size
 *    each allocated object was asked for ("orig_size"); the bytes from
 *    there to object_size are red zone too (0xcc while allocated), so that
 *    kmalloc(13) from kmalloc-16 catches a write to byte 13: check_object()
 *    reports "kmalloc Redzone overwritten" (on free with F, in validate).
 *      who                   orig_size becomes
 *      alloc (init_object)   object_size: no kmalloc red zone yet
 *      kmalloc(n), the malloc drop-in's kmem_cache_alloc_orig(n)
 *                            n (slab_set_orig_size, before the caller
 *                            sees the object; __GFP_ZERO zeroes n bytes)
 *      ksize()               object_size: the caller may use all of it now
 *                            (the kernel's skip_orig_size_check)
 *      krealloc within the slot   the new size, its tail red again
 *    Every change of it and of those bytes happens under n->list_lock, as
 *    validate reads them under it.  The kernel keeps it only when U is
 *    on too; here Z is enough.  Memcheck mode leaves it at object_size: the
 *    tool sees the bytes past the request (memcheck.h §2).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "slab.h"

#if CONFIG_SLUB
#include "slub_internal.h"
#include "memcheck.h"
#include "track.h"

#define POISON_INUSE		0x5a	/* padding, and a new slab before its objects are set */
#define POISON_FREE		0x6b	/* body of a free object */
#define POISON_END		0xa5	/* last byte of a free object's body */
#define SLUB_RED_INACTIVE	0xbb	/* red zones of a free object */
#define SLUB_RED_ACTIVE		0xcc	/* red zones of an allocated object */

#define BITS_PER_LONG		64
#define VALIDATE_MAP_LONGS	(MAX_OBJS_PER_PAGE / BITS_PER_LONG + 1)

enum track_item { TRACK_ALLOC, TRACK_FREE };

/* Reports this thread printed: kmem_cache_validate() counts its own. */
static __thread unsigned int slub_reports __attribute__((tls_model("initial-exec")));

/* ======================= reports ======================= */

__printf(2, 3) void slab_bug(const struct kmem_cache *s, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	slub_reports++;
	slab_printk("=============================================================================\n");
	slab_printk("BUG %s (Not tainted): %s\n", s->name, msg);
	slab_printk("-----------------------------------------------------------------------------\n\n");
}

__printf(2, 3) void slab_fix(const struct kmem_cache *s, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	slab_printk("FIX %s: %s\n", s->name, msg);
}

void print_slab_info(const struct slab *slab)
{
	union slab_counters v = slab_counters(slab);

	slab_printk("Slab 0x%lx objects=%u used=%u fp=0x%lx flags=%#lx\n", (unsigned long)slab,
		    v.objects, v.inuse, (unsigned long)READ_ONCE(slab->freelist),
		    READ_ONCE(slab->__page_flags));
}

void print_object_line(const struct kmem_cache *s, const struct slab *slab,
		       const void *object)
{
	slab_printk("Object 0x%lx @offset=%lu\n", (unsigned long)object,
		    (unsigned long)((const char *)object - (char *)slab_objects_start(s, slab)));
}

/* A hex dump of length bytes, 16 a line: "<text><address>: bb bb ...  ascii". */
static void print_section(const char *text, const void *addr, unsigned int length)
{
	const unsigned char *p = addr;
	char hex[16 * 3 + 1], ascii[16 + 1];
	unsigned int i, j, n;

	for (i = 0; i < length; i += 16) {
		n = min(16U, length - i);
		for (j = 0; j < n; j++) {
			snprintf(hex + 3 * j, 4, "%02x ", p[i + j]);
			ascii[j] = p[i + j] >= 0x20 && p[i + j] < 0x7f ? (char)p[i + j] : '.';
		}
		hex[3 * n - 1] = '\0';
		ascii[n] = '\0';
		slab_printk("%s%016lx: %-48s %s\n", text, (unsigned long)(p + i), hex, ascii);
	}
}

/* ======================= geometry ======================= */

static inline bool freeptr_outside_object(const struct kmem_cache *s)
{
	return s->offset >= s->inuse;
}

/* Where the tracks start: after the object and a free pointer outside it. */
static inline unsigned int get_info_end(const struct kmem_cache *s)
{
	return freeptr_outside_object(s) ? s->inuse + (unsigned int)sizeof(void *) : s->inuse;
}

static struct track *get_track(const struct kmem_cache *s, void *object, enum track_item alloc)
{
	return (struct track *)((char *)object + get_info_end(s)) + alloc;
}

/* Bytes of a slot from the object's start (the left red zone is before it). */
static inline unsigned int size_from_object(const struct kmem_cache *s)
{
	return (s->flags & SLAB_RED_ZONE) ? s->size - s->red_left_pad : s->size;
}

/* Where the requested size is kept (§8), from the object's start. */
static inline unsigned int orig_size_offset(const struct kmem_cache *s)
{
	unsigned int off = get_info_end(s);

	if (s->flags & SLAB_STORE_USER)
		off += 2 * (unsigned int)sizeof(struct track);
	return off;
}

/* Where the padding starts, from the object's start. */
static inline unsigned int pad_offset(const struct kmem_cache *s)
{
	unsigned int off = orig_size_offset(s);

	if (slub_debug_orig_size(s))
		off += (unsigned int)sizeof(unsigned int);
	return off;
}

static inline unsigned int *orig_size_ptr(const struct kmem_cache *s, void *object)
{
	return (unsigned int *)((char *)object + orig_size_offset(s));
}

/* The size an allocated object was asked for; object_size without §8.
 * why the clamp: a word damaged past the right red zone must not send the
 * check outside the object (that red zone reports the damage itself) */
static unsigned int get_orig_size(const struct kmem_cache *s, void *object)
{
	if (!slub_debug_orig_size(s))
		return s->object_size;
	return min(*orig_size_ptr(s, object), s->object_size);
}

/* NULL, or the start of an object of slab: what a free pointer may hold. */
static bool check_valid_pointer(const struct kmem_cache *s, const struct slab *slab,
				const void *object)
{
	unsigned long off;

	if (!object)
		return true;
	off = (unsigned long)object - (unsigned long)slab_objects_start(s, slab);
	return off < (unsigned long)slab_counters(slab).objects * s->size && off % s->size == 0;
}

/*
 * memcheck (§7): everything of a slab but the allocated objects is
 * no-access to the program, so that valgrind or ASan see an overflow too.
 * The allocator opens what it touches: a free object's body, and a slot's
 * own bytes around the object (red zones, free pointer, tracks, padding).
 */
static void object_open(const struct kmem_cache *s, void *object)
{
	if (memcheck_active())
		memcheck_defined(object, s->object_size);
}

static void object_close(const struct kmem_cache *s, void *object)
{
	if (memcheck_active())
		memcheck_noaccess(object, s->object_size);
}

void slot_meta_access(const struct kmem_cache *s, void *object, bool open)
{
	unsigned char *p = object;
	void (*fn)(const void *, size_t) = open ? memcheck_defined : memcheck_noaccess;

	if (!memcheck_active())
		return;
	if (s->red_left_pad)
		fn(p - s->red_left_pad, s->red_left_pad);
	fn(p + s->object_size, size_from_object(s) - s->object_size);
}

/* ======================= the report's parts ======================= */

void print_tracking(const struct kmem_cache *s, void *object)
{
	unsigned long now;

	if (!(s->flags & SLAB_STORE_USER))
		return;
	slot_meta_access(s, object, true);	/* left open: a report's part */
	now = track_now();
	print_track("Allocated", get_track(s, object, TRACK_ALLOC), now);
	print_track("Freed", get_track(s, object, TRACK_FREE), now);
}

/* Everything known about one object: tracks, slab, its bytes, the stack. */
static void print_trailer(const struct kmem_cache *s, const struct slab *slab, void *object)
{
	unsigned char *p = object, *addr = slab_address(slab);
	unsigned int off = pad_offset(s);

	/* left open: this is a report, and the bytes are printed */
	slot_meta_access(s, p, true);
	object_open(s, p);
	print_tracking(s, p);
	print_slab_info(slab);
	slab_printk("Object 0x%lx @offset=%lu fp=0x%lx\n\n", (unsigned long)p,
		    (unsigned long)(p - addr), (unsigned long)get_freepointer(s, p));
	if (s->flags & SLAB_RED_ZONE)
		print_section("Redzone  ", p - s->red_left_pad, s->red_left_pad);
	else if (p > addr + 16)
		print_section("Bytes b4 ", p - 16, 16);
	print_section("Object   ", p, min(s->object_size, (unsigned int)PAGE_SIZE));
	if (s->flags & SLAB_RED_ZONE)
		print_section("Redzone  ", p + s->object_size, s->inuse - s->object_size);
	if (off != size_from_object(s))
		print_section("Padding  ", p + off, size_from_object(s) - off);
	dump_stack();
}

static void object_err(const struct kmem_cache *s, const struct slab *slab, void *object,
		       const char *reason)
{
	slab_bug(s, "%s", reason);
	print_trailer(s, slab, object);
}

static __printf(3, 4) void slab_err(const struct kmem_cache *s, const struct slab *slab,
				    const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	slab_bug(s, "%s", msg);
	print_slab_info(slab);
	dump_stack();
}

/* ======================= patterns ======================= */

static unsigned char *memchr_inv(unsigned char *p, unsigned char c, unsigned int bytes)
{
	for (; bytes; p++, bytes--)
		if (*p != c)
			return p;
	return NULL;
}

static void restore_bytes(const struct kmem_cache *s, const char *what, unsigned char value,
			  unsigned char *from, unsigned char *to)
{
	slab_fix(s, "Restoring %s 0x%lx-0x%lx=0x%x", what, (unsigned long)from,
		 (unsigned long)to - 1, value);
	memset(from, value, (size_t)(to - from));
}

/* bytes at start must all be value; else report "<what> overwritten" and restore. */
static bool check_bytes_and_report(const struct kmem_cache *s, const struct slab *slab,
				   void *object, const char *what, unsigned char *start,
				   unsigned char value, unsigned int bytes)
{
	unsigned char *fault = memchr_inv(start, value, bytes), *end = start + bytes;

	if (!fault)
		return true;
	while (end > fault && end[-1] == value)
		end--;
	slab_bug(s, "%s overwritten", what);
	slab_printk("INFO: 0x%lx-0x%lx @offset=%lu. First byte 0x%x instead of 0x%x\n",
		    (unsigned long)fault, (unsigned long)end - 1,
		    (unsigned long)(fault - (unsigned char *)slab_address(slab)), fault[0], value);
	print_trailer(s, slab, object);
	slab_error_done();
	restore_bytes(s, what, value, fault, end);
	return false;
}

/* Red zones = val, body poisoned (P): the state of a free (INACTIVE) or
 * newly allocated (ACTIVE) object. */
static void init_object(const struct kmem_cache *s, void *object, unsigned char val)
{
	unsigned char *p = object;

	if (s->flags & SLAB_RED_ZONE)
		memset(p - s->red_left_pad, val, s->red_left_pad);
	if (s->flags & __OBJECT_POISON) {
		memset(p, POISON_FREE, s->object_size - 1);
		p[s->object_size - 1] = POISON_END;
	}
	if (s->flags & SLAB_RED_ZONE)
		memset(p + s->object_size, val, s->inuse - s->object_size);
	/* why here: every object that becomes allocated (handed out, or
	 * abandoned by slab_abandon_locked) starts with no kmalloc red zone */
	if (val == SLUB_RED_ACTIVE && slub_debug_orig_size(s))
		*orig_size_ptr(s, object) = s->object_size;
}

/* The bytes between the tracks and the next slot must be POISON_INUSE. */
static bool check_pad_bytes(const struct kmem_cache *s, const struct slab *slab, unsigned char *p)
{
	unsigned int off = pad_offset(s);

	if (size_from_object(s) == off)
		return true;
	return check_bytes_and_report(s, slab, p, "Object padding", p + off, POISON_INUSE,
				      size_from_object(s) - off);
}

/* Report and cut a free pointer that is neither NULL nor an object of slab. */
static bool check_freepointer(const struct kmem_cache *s, const struct slab *slab, void *p)
{
	if (check_valid_pointer(s, slab, get_freepointer(s, p)))
		return true;
	object_err(s, slab, p, "Freepointer corrupt");
	slab_error_done();
	/* why: nothing after a wild pointer can be trusted; its objects stay lost */
	set_freepointer(s, p, NULL);
	slab_fix(s, "Freelist cut at 0x%lx", (unsigned long)p);
	return false;
}

/* An allocated object's bytes past the size asked for (§8) must be val. */
static bool check_kmalloc_redzone(const struct kmem_cache *s, const struct slab *slab,
				  void *object, unsigned char val)
{
	unsigned int orig_size;

	if (val != SLUB_RED_ACTIVE || !slub_debug_orig_size(s))
		return true;
	orig_size = get_orig_size(s, object);
	if (orig_size == s->object_size)
		return true;
	return check_bytes_and_report(s, slab, object, "kmalloc Redzone",
				      (unsigned char *)object + orig_size, val,
				      s->object_size - orig_size);
}

/* Is the object intact for its state (val: SLUB_RED_ACTIVE or INACTIVE)? */
static bool check_object(const struct kmem_cache *s, const struct slab *slab, void *object,
			 unsigned char val)
{
	unsigned char *p = object, *endobject = p + s->object_size;

	if (s->flags & SLAB_RED_ZONE) {
		if (!check_bytes_and_report(s, slab, object, "Left Redzone",
					    p - s->red_left_pad, val, s->red_left_pad))
			return false;
		if (!check_bytes_and_report(s, slab, object, "Right Redzone", endobject, val,
					    s->inuse - s->object_size))
			return false;
		if (!check_kmalloc_redzone(s, slab, object, val))
			return false;
	} else if ((s->flags & SLAB_POISON) && s->object_size < s->inuse) {
		check_bytes_and_report(s, slab, p, "Alignment padding", endobject, POISON_INUSE,
				       s->inuse - s->object_size);
	}
	if (s->flags & SLAB_POISON) {
		if (val != SLUB_RED_ACTIVE && (s->flags & __OBJECT_POISON) &&
		    (!check_bytes_and_report(s, slab, p, "Poison", p, POISON_FREE,
					     s->object_size - 1) ||
		     !check_bytes_and_report(s, slab, p, "End Poison", endobject - 1, POISON_END, 1)))
			return false;
		check_pad_bytes(s, slab, p);	/* repairs itself */
	}
	/* why: an allocated object's free pointer word inside it is the user's */
	if (!freeptr_outside_object(s) && val == SLUB_RED_ACTIVE)
		return true;
	return check_freepointer(s, slab, p);
}

/* The slab tail after the last slot must be POISON_INUSE (P). */
static void slab_pad_check(const struct kmem_cache *s, const struct slab *slab)
{
	unsigned char *start = slab_address(slab), *end = start + slab_size(slab), *pad, *fault;
	unsigned int remainder = (unsigned int)(slab_size(slab) % s->size);

	if (!(s->flags & SLAB_POISON) || !remainder)
		return;
	pad = end - remainder;
	if (memcheck_active())
		memcheck_defined(pad, remainder);
	fault = memchr_inv(pad, POISON_INUSE, remainder);
	if (!fault) {
		if (memcheck_active())
			memcheck_noaccess(pad, remainder);
		return;
	}
	while (end > fault && end[-1] == POISON_INUSE)
		end--;
	slab_err(s, slab, "Padding overwritten. 0x%lx-0x%lx @offset=%lu", (unsigned long)fault,
		 (unsigned long)end - 1, (unsigned long)(fault - start));
	print_section("Padding  ", pad, remainder);
	slab_error_done();
	restore_bytes(s, "slab padding", POISON_INUSE, fault, end);
}

/* Is slab a slab of s with believable counters? */
static bool check_slab(const struct kmem_cache *s, const struct slab *slab)
{
	union slab_counters v = slab_counters(slab);
	unsigned int maxobj;

	if (!folio_test_slab(slab_folio(slab))) {
		slab_err(s, slab, "Not a valid slab page");
		slab_error_done();
		return false;
	}
	maxobj = order_objects(slab_order(slab), s->size);
	if (v.objects > maxobj) {
		slab_err(s, slab, "objects %u > max %u", v.objects, maxobj);
		slab_error_done();
		return false;
	}
	if (v.inuse > v.objects) {
		slab_err(s, slab, "inuse %u > max %u", v.inuse, v.objects);
		slab_error_done();
		return false;
	}
	slab_pad_check(s, slab);	/* repairs itself */
	return true;
}

/* ======================= the freelist of a debug slab ======================= */

/* Publish a debug slab's freelist+counters (list_lock held); see §4. */
static void slab_publish_locked(struct slab *slab, void *freelist, union slab_counters v)
{
	slab_lock(slab);
	WRITE_ONCE(slab->freelist, freelist);
	WRITE_ONCE(slab->counters, v.counters);
	slab_unlock(slab);
}

/* A corrupt first free pointer: the slab keeps no free object. */
static void freelist_cleared(const struct kmem_cache *s, struct slab *slab)
{
	union slab_counters v = slab_counters(slab);

	slab_err(s, slab, "Freepointer corrupt");
	slab_error_done();
	v.inuse = v.objects;
	slab_publish_locked(slab, NULL, v);
	slab_fix(s, "Freelist cleared");
}

/* Correct objects and inuse of a slab whose freelist holds nr objects. */
static void check_counts(const struct kmem_cache *s, struct slab *slab, unsigned int nr)
{
	union slab_counters v = slab_counters(slab);
	unsigned int max_objects = min(order_objects(slab_order(slab), s->size),
				       (unsigned int)MAX_OBJS_PER_PAGE);

	if (v.objects != max_objects) {
		slab_err(s, slab, "Wrong number of objects. Found %u but should be %u",
			 v.objects, max_objects);
		slab_error_done();
		v.objects = max_objects;
		slab_publish_locked(slab, READ_ONCE(slab->freelist), v);
		slab_fix(s, "Number of objects adjusted");
	}
	if (v.inuse != v.objects - nr) {
		slab_err(s, slab, "Wrong object count. Counter is %u but counted were %u",
			 v.inuse, v.objects - nr);
		slab_error_done();
		v.inuse = v.objects - nr;
		slab_publish_locked(slab, READ_ONCE(slab->freelist), v);
		slab_fix(s, "Object count adjusted");
	}
}

/*
 * Is search on slab's freelist (list_lock held)?  Walks at most objects + 1
 * entries, cuts a corrupt or cyclic chain, and corrects the counters;
 * search NULL: just the walk and the corrections, then true.
 */
static bool on_freelist(const struct kmem_cache *s, struct slab *slab, const void *search)
{
	unsigned int nr = 0, objects = slab_counters(slab).objects;
	void *fp = READ_ONCE(slab->freelist), *object = NULL;

	for (; fp && nr <= objects; nr++) {
		if (fp == search)
			return true;
		if (!check_valid_pointer(s, slab, fp)) {
			if (!object) {
				freelist_cleared(s, slab);
				return false;
			}
			object_err(s, slab, object, "Freechain corrupt");
			slab_error_done();
			set_freepointer(s, object, NULL);	/* opened by the report */
			slab_fix(s, "Freechain cut at 0x%lx", (unsigned long)object);
			break;
		}
		object = fp;
		slot_meta_access(s, object, true);
		fp = get_freepointer(s, object);
		slot_meta_access(s, object, false);
	}
	if (nr > objects) {
		/* why cutting here ends the walk: a longer walk is on a cycle, and
		 * object, the last one seen, is on it */
		object_err(s, slab, object, "Freechain corrupt");
		slab_error_done();
		set_freepointer(s, object, NULL);
		slab_fix(s, "Freechain cut at 0x%lx", (unsigned long)object);
		return on_freelist(s, slab, search);
	}
	check_counts(s, slab, nr);
	return search == NULL;
}

/* ======================= alloc and free processing ======================= */

static void trace(const struct kmem_cache *s, const struct slab *slab, void *object, bool alloc)
{
	if (!(s->flags & SLAB_TRACE))
		return;
	slab_printk("TRACE %s %s 0x%lx inuse=%u fp=0x%lx\n", s->name, alloc ? "alloc" : "free",
		    (unsigned long)object, slab_counters(slab).inuse,
		    (unsigned long)READ_ONCE(slab->freelist));
	if (!alloc) {
		object_open(s, object);		/* memcheck: about to be freed anyway */
		print_section("Object   ", object, s->object_size);
	}
}

/* The checks before object, the head of slab's freelist, is handed out. */
static bool alloc_debug_checks(const struct kmem_cache *s, struct slab *slab, void *object)
{
	object_open(s, object);
	if (!(s->flags & SLAB_CONSISTENCY_CHECKS))
		return check_freepointer(s, slab, object);	/* hardening: always */
	if (!check_slab(s, slab))
		return false;
	if (!check_valid_pointer(s, slab, object)) {
		object_err(s, slab, object, "Freelist Pointer check fails");
		slab_error_done();
		return false;
	}
	return check_object(s, slab, object, SLUB_RED_INACTIVE);
}

/* object was handed out: memcheck, owner track, trace, ACTIVE red zones. */
static void alloc_debug_done(const struct kmem_cache *s, struct slab *slab, void *object,
			     const struct track *t)
{
	if (memcheck_active())
		memcheck_alloc(object, s->object_size, s->ctor != NULL);
	if (s->flags & SLAB_STORE_USER)
		*get_track(s, object, TRACK_ALLOC) = *t;
	trace(s, slab, object, true);
	init_object(s, object, SLUB_RED_ACTIVE);
	/* why: the poison written just now is not the program's data */
	if (memcheck_active() && (s->flags & __OBJECT_POISON))
		memcheck_undefined(object, s->object_size);
}

/*
 * A slab whose checks failed keeps no free object (the kernel's way).  Its
 * free objects, on the list or cut off it, become allocated ones that are
 * never handed out; with red zones they get ACTIVE ones (a free object is
 * told by its INACTIVE left red zone), so validate sees what they now are.
 */
static void slab_abandon_locked(const struct kmem_cache *s, struct kmem_cache_node *n,
				struct slab *slab)
{
	union slab_counters v = slab_counters(slab);
	unsigned char *p = slab_objects_start(s, slab);
	unsigned int i;

	slab_fix(s, "Marking all objects used");
	for (i = 0; (s->flags & SLAB_RED_ZONE) && i < v.objects; i++, p += s->size) {
		slot_meta_access(s, p, true);
		if (p[-(int)s->red_left_pad] == SLUB_RED_INACTIVE) {
			object_open(s, p);
			init_object(s, p, SLUB_RED_ACTIVE);
		}
		slot_meta_access(s, p, false);
	}
	v.inuse = v.objects;
	slab_publish_locked(slab, NULL, v);
	remove_partial(n, slab);
	add_full(s, n, slab);
}

/* One object from a node partial slab (list_lock held); NULL if it failed checks. */
static void *alloc_single_locked(struct kmem_cache *s, struct kmem_cache_node *n,
				 struct slab *slab, const struct track *t)
{
	void *object = READ_ONCE(slab->freelist), *next;
	union slab_counters v;

	slot_meta_access(s, object, true);
	if (!alloc_debug_checks(s, slab, object)) {
		slab_abandon_locked(s, n, slab);
		slot_meta_access(s, object, false);
		return NULL;
	}
	next = get_freepointer(s, object);	/* checked just now */
	v = slab_counters(slab);
	v.inuse++;
	slab_publish_locked(slab, next, v);
	if (!next) {
		remove_partial(n, slab);
		add_full(s, n, slab);
	}
	alloc_debug_done(s, slab, object, t);
	slot_meta_access(s, object, false);
	return object;
}

static void *alloc_from_partial_locked(struct kmem_cache *s, struct kmem_cache_node *n,
				       const struct track *t)
{
	struct slab *slab, *next;
	void *object;

	list_for_each_entry_safe(slab, next, &n->partial, slab_list) {
		object = alloc_single_locked(s, n, slab, t);
		if (object)
			return object;
	}
	return NULL;
}

/* A new (frozen, all free) slab joins the node's partial list, counted. */
static void *alloc_from_new_slab_locked(struct kmem_cache *s, struct kmem_cache_node *n,
					struct slab *slab, const struct track *t)
{
	union slab_counters v = slab_counters(slab);

	v.inuse = 0;
	v.frozen = 0;
	slab_publish_locked(slab, READ_ONCE(slab->freelist), v);
	inc_slabs_node(s, slab_nid(slab), v.objects);
	add_partial(n, slab, DEACTIVATE_TO_HEAD);
	return alloc_single_locked(s, n, slab, t);
}

/* The owner track of a call from addr, taken before any lock (track.h). */
static void debug_track_prepare(const struct kmem_cache *s, struct track *t, unsigned long addr)
{
	if (s->flags & SLAB_STORE_USER)
		set_track(t, addr);
	else
		t->addr = addr;
}

void *slab_alloc_debug(struct kmem_cache *s, gfp_t gfpflags, int node, unsigned long addr)
{
	struct kmem_cache_node *n = get_node(s, 0);
	struct track t;
	struct slab *slab;
	void *object;

	if ((s->flags & SLAB_FAILSLAB) && slab_should_failslab(gfpflags))
		return NULL;
	debug_track_prepare(s, &t, addr);
	spin_lock(&n->list_lock);
	object = alloc_from_partial_locked(s, n, &t);
	spin_unlock(&n->list_lock);
	if (!object) {
		slab = new_slab(s, gfpflags, node);
		if (unlikely(!slab)) {
			slab_out_of_memory(s, gfpflags, node);
			return NULL;
		}
		spin_lock(&n->list_lock);
		object = alloc_from_new_slab_locked(s, n, slab, &t);
		spin_unlock(&n->list_lock);
	}
	if (object && (s->flags & SLAB_TRACE))
		dump_stack();
	return object;
}

static bool free_consistency_checks(const struct kmem_cache *s, struct slab *slab, void *object)
{
	if (!check_valid_pointer(s, slab, object)) {
		slab_err(s, slab, "Invalid object pointer 0x%lx", (unsigned long)object);
		slab_error_done();
		return false;
	}
	if (on_freelist(s, slab, object)) {
		object_err(s, slab, object, "Object already free");
		slab_error_done();
		return false;
	}
	if (!check_object(s, slab, object, SLUB_RED_ACTIVE))
		return false;
	if (unlikely(s != slab->slab_cache)) {
		object_err(s, slab, object, "page slab pointer corrupt.");
		slab_error_done();
		return false;
	}
	return true;
}

/* The checks and bookkeeping of a free (list_lock held); false: not freed. */
static bool free_debug_processing(const struct kmem_cache *s, struct slab *slab, void *object,
				  const struct track *t)
{
	if ((s->flags & SLAB_CONSISTENCY_CHECKS) &&
	    (!check_slab(s, slab) || !free_consistency_checks(s, slab, object)))
		goto not_freed;
	if (!slab_counters(slab).inuse) {	/* checked always: inuse must not wrap */
		slab_err(s, slab, "Slab has 0 allocated objects but 1 is to be freed");
		slab_printk("INFO: Object 0x%lx: a double free? (F finds out)\n",
			    (unsigned long)object);
		slab_error_done();
		goto not_freed;
	}
	if (s->flags & SLAB_STORE_USER)
		*get_track(s, object, TRACK_FREE) = *t;
	trace(s, slab, object, false);
	init_object(s, object, SLUB_RED_INACTIVE);
	return true;
not_freed:
	slab_fix(s, "Object at 0x%lx not freed", (unsigned long)object);
	return false;
}

/* Push object onto its slab and move the slab between lists (list_lock
 * held); true if the slab became empty and must be freed (uncounted). */
static bool free_to_slab_locked(struct kmem_cache *s, struct kmem_cache_node *n,
				struct slab *slab, void *object)
{
	void *prior = READ_ONCE(slab->freelist);
	union slab_counters v = slab_counters(slab);
	bool discard;

	set_freepointer(s, object, prior);
	v.inuse--;
	slab_publish_locked(slab, object, v);
	if (memcheck_active())
		memcheck_free(object, s->object_size);
	discard = !v.inuse && slab_discard_ok(s, n, slab);
	if (!prior) {			/* it was full */
		remove_full(s, slab);
		if (!discard)
			add_partial(n, slab, DEACTIVATE_TO_TAIL);
	} else if (discard) {
		remove_partial(n, slab);
	}
	if (discard)
		dec_slabs_node(s, slab_nid(slab), v.objects);
	return discard;
}

void slab_free_debug(struct kmem_cache *s, struct slab *slab, void *object, unsigned long addr)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	bool discard = false;
	struct track t;

	debug_track_prepare(s, &t, addr);
	spin_lock(&n->list_lock);
	slot_meta_access(s, object, true);
	if (free_debug_processing(s, slab, object, &t))
		discard = free_to_slab_locked(s, n, slab, object);
	slot_meta_access(s, object, false);
	spin_unlock(&n->list_lock);
	if (s->flags & SLAB_TRACE)
		dump_stack();
	if (discard)
		free_slab(s, slab);
}

/* ======================= the kmalloc red zone (§8) ======================= */

/* The red zone of object now starts at orig_size (list_lock held: validate
 * reads both the word and the bytes under it). */
static void set_orig_size_locked(const struct kmem_cache *s, void *object,
				 unsigned int orig_size)
{
	unsigned char *p = object;

	if (orig_size < s->object_size)
		memset(p + orig_size, SLUB_RED_ACTIVE, s->object_size - orig_size);
	*orig_size_ptr(s, object) = orig_size;
}

void slab_set_orig_size(struct kmem_cache *s, void *object, unsigned int orig_size)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(virt_to_slab(object)));

	if (memcheck_active())
		return;
	spin_lock(&n->list_lock);
	set_orig_size_locked(s, object, min(orig_size, s->object_size));
	spin_unlock(&n->list_lock);
}

/*
 * ksize() and krealloc() (slab.h): object, any pointer the program holds,
 * is used for size bytes now.  Only an allocated object (ACTIVE left red
 * zone) of a cache with the kmalloc red zone is touched; anything else is
 * left to the callers' own checks.
 */
void kmalloc_set_orig_size(const void *object, size_t size)
{
	struct slab *slab = virt_to_slab(object);
	const unsigned char *p = object;
	struct kmem_cache *s;

	if (!slab || memcheck_active())
		return;
	s = slab->slab_cache;
	if (!slub_debug_orig_size(s) || !check_valid_pointer(s, slab, object) ||
	    p[-(int)s->red_left_pad] != SLUB_RED_ACTIVE)
		return;
	slab_set_orig_size(s, (void *)object, (unsigned int)min(size, (size_t)s->object_size));
}

/* ======================= slab setup and teardown ======================= */

void setup_slab_debug(const struct kmem_cache *s, struct slab *slab)
{
	if (s->flags & SLAB_POISON)
		memset(slab_address(slab), POISON_INUSE, slab_size(slab));
}

void setup_object_debug(const struct kmem_cache *s, void *object)
{
	if (!(s->flags & (SLAB_STORE_USER | SLAB_RED_ZONE | __OBJECT_POISON)))
		return;
	init_object(s, object, SLUB_RED_INACTIVE);
	if (s->flags & SLAB_STORE_USER)
		memset(get_track(s, object, TRACK_ALLOC), 0, 2 * sizeof(struct track));
}

void new_slab_memcheck(const struct kmem_cache *s, struct slab *slab)
{
	(void)s;
	memcheck_noaccess(slab_address(slab), slab_size(slab));
}

void *alloc_debug_early(struct kmem_cache *s, struct slab *slab)
{
	struct track t = { .addr = 0 };
	void *object = slab->freelist;

	slot_meta_access(s, object, true);
	slab->freelist = get_freepointer(s, object);
	slab->inuse = 1;
	slab->frozen = 0;
	alloc_debug_done(s, slab, object, &t);
	slot_meta_access(s, object, false);
	return object;
}

void free_slab_debug(const struct kmem_cache *s, struct slab *slab)
{
	char *p = slab_objects_start(s, slab);
	unsigned int i;

	if ((s->flags & SLAB_CONSISTENCY_CHECKS) && memcheck_active())
		memcheck_defined(slab_address(slab), slab_size(slab));	/* all of it is read */
	if (s->flags & SLAB_CONSISTENCY_CHECKS) {
		slab_pad_check(s, slab);
		for (i = 0; i < slab_counters(slab).objects; i++, p += s->size)
			check_object(s, slab, p, SLUB_RED_INACTIVE);
	}
	if (memcheck_active())
		memcheck_undefined(slab_address(slab), slab_size(slab));
}

/* ======================= validate ======================= */

/* Check one slab and each of its objects against its state (list_lock held). */
static void validate_slab(const struct kmem_cache *s, struct slab *slab, unsigned long *map)
{
	char *start = slab_objects_start(s, slab), *p;
	unsigned int i, objects;
	bool is_free, ok;
	void *fp;

	if (!check_slab(s, slab) || !on_freelist(s, slab, NULL))
		return;
	objects = slab_counters(slab).objects;
	memset(map, 0, VALIDATE_MAP_LONGS * sizeof(*map));
	for (i = 0, p = start; i < objects; i++, p += s->size)
		slot_meta_access(s, p, true);
	for (fp = READ_ONCE(slab->freelist); fp; fp = get_freepointer(s, fp)) {
		i = (unsigned int)(((char *)fp - start) / s->size);
		map[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
	}
	for (i = 0, p = start, ok = true; ok && i < objects; i++, p += s->size) {
		is_free = map[i / BITS_PER_LONG] & (1UL << (i % BITS_PER_LONG));
		if (is_free)
			object_open(s, p);
		ok = check_object(s, slab, p, is_free ? SLUB_RED_INACTIVE : SLUB_RED_ACTIVE);
		if (is_free)
			object_close(s, p);
	}
	for (i = 0, p = start; i < objects; i++, p += s->size)
		slot_meta_access(s, p, false);
}

static void validate_slab_node(struct kmem_cache *s, struct kmem_cache_node *n,
			       unsigned long *map)
{
	unsigned long count = 0;
	struct slab *slab;

	spin_lock(&n->list_lock);
	list_for_each_entry(slab, &n->partial, slab_list) {
		validate_slab(s, slab, map);
		count++;
	}
	if (count != n->nr_partial) {
		slub_reports++;
		slab_printk("SLUB %s: %lu partial slabs counted but counter=%lu\n", s->name, count,
			    n->nr_partial);
		slab_error_done();
	}
	if (s->flags & SLAB_STORE_USER) {
		list_for_each_entry(slab, &n->full, slab_list) {
			validate_slab(s, slab, map);
			count++;
		}
		if (count != (unsigned long)atomic_long_read(&n->nr_slabs)) {
			slub_reports++;
			slab_printk("SLUB: %s %lu slabs counted but counter=%ld\n", s->name, count,
				    atomic_long_read(&n->nr_slabs));
			slab_error_done();
		}
	}
	spin_unlock(&n->list_lock);
}

/*
 * The kernel's validate (sysfs "validate" of a debug cache): every listed
 * slab and every object in it; full slabs are listed only with U.  Returns
 * the reports this made (0: all is well), -EINVAL for a cache without
 * debugging, -ENOMEM.  Caches of the debug path own no cpu slab, so
 * nothing needs flushing first.
 */
int kmem_cache_validate(struct kmem_cache *s)
{
	unsigned int before = slub_reports;
	struct kmem_cache_node *n;
	unsigned long *map;
	int node;

	if (!s || !kmem_cache_debug(s))
		return -EINVAL;
	map = __kmalloc(VALIDATE_MAP_LONGS * sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	for_each_kmem_cache_node(s, node, n)
		validate_slab_node(s, n, map);
	kfree(map);
	return (int)(slub_reports - before);
}
EXPORT_SYMBOL(kmem_cache_validate);

#endif /* CONFIG_SLUB */
