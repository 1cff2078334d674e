// SPDX-License-Identifier: MIT
/*
 * debug_options.c - the debugging options every allocator shares:
 * slub_debug= (alias slab_debug=, the name Linux 6.8 gave it), failslab=
 * and slab_error=, and the error policy behind every damage report.
 *
 * 1. Overview.  The option is parsed as the kernel parses its boot option:
 *      slub_debug                         FZPU for every cache
 *      slub_debug=FLAGS                   FLAGS for every cache
 *      slub_debug=FLAGS,c1,c2*            FLAGS for the caches named c1 and
 *                                         c2... only (the others: none)
 *      slub_debug=FZ;P,c1;-,c2*           blocks separated by ';': a block
 *                                         without names sets the global
 *                                         flags, a block with names applies
 *                                         to those caches; a cache takes the
 *                                         first block that names it
 *    FLAGS letters (either case): F consistency checks, Z red zones, P
 *    poisoning, U owner tracking, T trace, A failslab, O order guard, '-'
 *    nothing; an empty FLAGS before a name list means FZPU.  A name ending
 *    in '*' matches every cache name it begins.  The allocator asks, at
 *    each cache creation, slab_debug_flags_for(name) and keeps the flags it
 *    implements (SLUB all, SLAB Z P U, SLOB none).
 *
 * 2. Data structures.  The accepted value is kept verbatim (blocks are
 *    matched at cache creation, as the kernel does), with the global
 *    flags and the O guard derived from it once.  Each accepted item
 *    replaces the whole previous setting.
 *
 * 3. Errors.  A value is checked entirely before anything is kept: an
 *    unknown letter, an empty cache name, a '*' inside a name, or a value
 *    too long is reported on stderr (one line saying what is wrong) and
 *    the item is rejected (options.c then reports it as a bad value); the
 *    previous setting stays.  (The kernel skips unknown letters instead.)
 *
 * 4. Error policy.  slab_error=abort (default) ends the process after any
 *    report of damage or misuse; slab_error=repair lets the allocator
 *    repair (restore red zones and poison, leave a bad object unfreed,
 *    abandon a corrupt slab) and continue, counting slab_errors.
 *
 * 5. Locks.  Options are written only while options are parsed (before
 *    use, or by a test's parse_option_string(), never concurrently with
 *    cache creation); readers run under slab_mutex or on allocation paths
 *    and read plain values.  slab_errors and the failslab counter are
 *    atomic.  Nothing here allocates: this runs inside malloc's first call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slab.h"

#define DEBUG_DEFAULT_FLAGS	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | SLAB_POISON | \
				 SLAB_STORE_USER)
#define DEBUG_STRING_MAX	1024	/* longest slub_debug value kept, NUL included */

/* The slub_debug setting in force (written while options are parsed). */
static char debug_string[DEBUG_STRING_MAX];	/* the blocks, verbatim; "" = none */
static slab_flags_t debug_global_flags;		/* flags of caches no block names */
static bool debug_order_guard;			/* 'O' was given */

static unsigned long failslab_interval = 1;	/* failslab=N: every Nth allocation fails */
static unsigned long failslab_count;		/* allocations of A caches seen (atomic) */

static bool slab_error_repairs;			/* slab_error=repair (else abort) */
unsigned int slab_errors;			/* damage reports repaired (atomic) */

/* One ';'-separated block of a slub_debug value. */
struct debug_block {
	const char *letters;		/* the flag letters */
	size_t nletters;		/* how many */
	const char *names;		/* the ','-separated cache names, or NULL */
	size_t names_len;		/* their length */
};

/* ======================= parsing ======================= */

/* The flag of one letter; false if it is none of FZPUTAO-. */
static bool debug_letter(char c, slab_flags_t *flags, bool *guard)
{
	switch (c | 0x20) {	/* why: letters are case-insensitive */
	case 'f': *flags |= SLAB_CONSISTENCY_CHECKS; return true;
	case 'z': *flags |= SLAB_RED_ZONE; return true;
	case 'p': *flags |= SLAB_POISON; return true;
	case 'u': *flags |= SLAB_STORE_USER; return true;
	case 't': *flags |= SLAB_TRACE; return true;
	case 'a': *flags |= SLAB_FAILSLAB; return true;
	case 'o': *guard = true; return true;
	}
	if (c == '-') {
		*flags = 0;	/* '-' clears what came before it, as in the kernel */
		return true;
	}
	return false;
}

/* Split the block starting at p; returns where the next one starts, or NULL. */
static const char *debug_next_block(const char *p, struct debug_block *b)
{
	const char *end;

	while (*p == ';')
		p++;		/* empty blocks are skipped */
	if (!*p)
		return NULL;
	end = p + strcspn(p, ";");
	b->letters = p;
	b->nletters = strcspn(p, ",;");
	b->names = p[b->nletters] == ',' ? p + b->nletters + 1 : NULL;
	b->names_len = b->names ? (size_t)(end - b->names) : 0;
	return end;
}

/* The flags of a block; an empty letter list before names means FZPU. */
static bool debug_block_flags(const char *opt, const struct debug_block *b,
			      slab_flags_t *flags, bool *guard)
{
	size_t i;

	*flags = (!b->nletters && b->names) ? DEBUG_DEFAULT_FLAGS : 0;
	for (i = 0; i < b->nletters; i++) {
		if (!debug_letter(b->letters[i], flags, guard)) {
			slab_printk("%s option '%c' unknown in '%.*s'\n", opt, b->letters[i],
				    (int)b->nletters, b->letters);
			return false;
		}
	}
	return true;
}

/* Every name of a block is non-empty, with '*' only at its end. */
static bool debug_block_names_ok(const char *opt, const struct debug_block *b)
{
	const char *p = b->names, *end = b->names + b->names_len;
	size_t len;

	while (p <= end) {
		len = strcspn(p, ",;");
		if (p + len > end)
			len = (size_t)(end - p);
		if (!len) {
			slab_printk("%s: empty cache name in '%.*s'\n", opt, (int)b->names_len, b->names);
			return false;
		}
		if (memchr(p, '*', len - 1)) {
			slab_printk("%s: '*' must end a cache name: '%.*s'\n", opt, (int)len, p);
			return false;
		}
		p += len + 1;
	}
	return true;
}

/* Check a whole value; on success the global flags and guard it sets. */
static bool debug_value_check(const char *opt, const char *val, slab_flags_t *global, bool *guard)
{
	struct debug_block b;
	slab_flags_t flags;
	const char *p = val;

	*global = 0;		/* names only: the caches not named get nothing */
	*guard = false;
	while ((p = debug_next_block(p, &b))) {
		if (!debug_block_flags(opt, &b, &flags, guard))
			return false;
		if (b.names && !debug_block_names_ok(opt, &b))
			return false;
		if (!b.names)
			*global = flags;
	}
	return true;
}

static int setup_debug_value(const char *opt, const char *val)
{
	slab_flags_t global;
	bool guard;

	if (strlen(val) >= sizeof(debug_string)) {
		slab_printk("%s: value longer than %zu characters\n", opt, sizeof(debug_string) - 1);
		return -1;
	}
	if (!*val) {
		global = DEBUG_DEFAULT_FLAGS;	/* "slub_debug=" is bare slub_debug */
		guard = false;
	} else if (!debug_value_check(opt, val, &global, &guard)) {
		return -1;
	}
	strcpy(debug_string, val);
	debug_global_flags = global;
	debug_order_guard = guard;
	return 0;
}

static int setup_slub_debug(const char *val)
{
	return setup_debug_value("slub_debug", val);
}
__setup("slub_debug=", setup_slub_debug);

static int setup_slub_debug_bare(const char *val)
{
	return setup_debug_value("slub_debug", val);	/* val is "": FZPU */
}
__setup("slub_debug", setup_slub_debug_bare);

/* Linux 6.8 renamed the option; both spellings work. */
static int setup_slab_debug(const char *val)
{
	return setup_debug_value("slab_debug", val);
}
__setup("slab_debug=", setup_slab_debug);

static int setup_slab_debug_bare(const char *val)
{
	return setup_debug_value("slab_debug", val);
}
__setup("slab_debug", setup_slab_debug_bare);

/* ======================= matching ======================= */

/* Is name one of the ','-separated entries of b (exact, or prefix before '*')? */
static bool debug_block_names(const struct debug_block *b, const char *name)
{
	const char *p = b->names, *end = b->names + b->names_len;
	size_t len, name_len = strlen(name);

	for (; p < end; p += len + 1) {
		len = strcspn(p, ",;");
		if (p + len > end)
			len = (size_t)(end - p);
		if (p[len - 1] == '*' ? !strncmp(name, p, len - 1) :
		    len == name_len && !strncmp(name, p, len))
			return true;
	}
	return false;
}

slab_flags_t slab_debug_flags_for(const char *name, slab_flags_t flags)
{
	const char *p = debug_string;
	struct debug_block b;
	slab_flags_t block_flags;
	bool guard;

	if (!name)
		return 0;
	while ((p = debug_next_block(p, &b))) {
		if (b.names && debug_block_names(&b, name) &&
		    debug_block_flags("slub_debug", &b, &block_flags, &guard))
			return block_flags;
	}
	/* why: kmemleak-style caches do not record owners unless named */
	if (flags & SLAB_NOLEAKTRACE)
		return debug_global_flags & ~SLAB_STORE_USER;
	return debug_global_flags;
}

bool slab_debug_order_guard(void)
{
	return debug_order_guard;
}

/* ======================= failslab ======================= */

static int setup_failslab(const char *val)
{
	unsigned long n;

	if (kstrtoul_opt(val, &n) || !n)
		return -1;
	failslab_interval = n;
	return 0;
}
__setup("failslab=", setup_failslab);

bool slab_should_failslab(gfp_t gfp)
{
	if (gfp & __GFP_NOFAIL)
		return false;
	return __atomic_add_fetch(&failslab_count, 1, __ATOMIC_RELAXED) % failslab_interval == 0;
}

/* ======================= error policy ======================= */

static int setup_slab_error(const char *val)
{
	if (!strcmp(val, "abort"))
		slab_error_repairs = false;
	else if (!strcmp(val, "repair"))
		slab_error_repairs = true;
	else
		return -1;
	return 0;
}
__setup("slab_error=", setup_slab_error);

bool slab_error_repair(void)
{
	return READ_ONCE(slab_error_repairs);
}

void slab_error_done(void)
{
	if (!slab_error_repair()) {
		fflush(stderr);		/* reports are unbuffered; a program's own may not be */
		abort();
	}
	__atomic_add_fetch(&slab_errors, 1, __ATOMIC_RELAXED);
}

unsigned long uslab_slab_errors(void)
{
	return __atomic_load_n(&slab_errors, __ATOMIC_RELAXED);
}

/*
 * An allocator without a validator (SLOB; SLAB until it has its own) has
 * no debug caches: -EINVAL, as the kernel's validate for a cache without
 * debugging.  Weak, so that an allocator's own definition replaces it.
 */
#if !CONFIG_SLUB
__attribute__((weak)) int kmem_cache_validate(struct kmem_cache *s)
{
	(void)s;
	return -EINVAL;
}
extern __typeof__(kmem_cache_validate) uslab_kmem_cache_validate
	__attribute__((weak, alias("kmem_cache_validate"), visibility("default")));
#endif
