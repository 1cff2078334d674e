/* SPDX-License-Identifier: MIT */
/*
 * internal.h - prototypes shared between files of src/mm, grouped under the
 * name of the file that defines them.  Kernel names throughout; exported
 * functions get their uslab_ alias with EXPORT_SYMBOL in the defining file.
 */
#ifndef USLAB_MM_INTERNAL_H
#define USLAB_MM_INTERNAL_H

#include <stdio.h>
#include <uslab/uslab.h>
#include <uslab/flags.h>
#include "mm.h"

/*
 * EXPORT_SYMBOL(name): export name as uslab_name from the shared library.
 * The definition keeps its kernel name (hidden); the alias is the export.
 * Must appear in the file that defines name.
 */
#define EXPORT_SYMBOL(name) \
	extern __typeof__(name) uslab_##name \
	__attribute__((alias(#name), visibility("default")))

/* ---- init.c ---- */
extern bool mm_initialized;
void mm_init_slow(void);
/* Bring the memory map and page allocator up on first use (idempotent, thread safe). */
static __always_inline void mm_ensure_init(void)
{
	if (unlikely(!smp_load_acquire(&mm_initialized)))
		mm_init_slow();
}

/* ---- options.c ----
 * __setup("name=", fn): fn(value) parses one USLAB_OPTIONS item; value is the
 * text after '=' (or "" for a bare flag written "name").  Return 0 if the value
 * was accepted, -1 to have it reported as malformed.  Items naming no
 * registered option are reported once on stderr as unknown.
 */
struct obs_kernel_param {
	const char *str;		/* "name=" or "name" */
	int (*setup_func)(const char *val);
};
#define __setup(str, fn)						\
	static const struct obs_kernel_param __setup_##fn		\
	__attribute__((used, section("uslab_setup"), aligned(sizeof(void *)))) = { str, fn }
/* Parse USLAB_OPTIONS once; later calls do nothing. */
void parse_early_options(void);
/* Parse an option string (for tests); returns the number of rejected items. */
int parse_option_string(const char *opts);
/* Helpers for setup functions. */
int kstrtoul_opt(const char *s, unsigned long *res);	/* decimal/0x, K/M/G suffixes */

/* ---- memmap.c ---- */
/* Reserve the arena and vmemmap per the options; true on success. */
bool memmap_init(void);
/* Bring the next section online (commit its struct pages, return its pfn range). */
bool memmap_online_section(unsigned long *start_pfn, unsigned long *nr_pages);
unsigned long memmap_section_flags(unsigned long nr);
/* Initialise the struct pages of [pfn, pfn + nr) if not yet (zone.lock;
 * memmap.c §3: they are set up lazily, a chunk at a time). */
void memmap_prepare_pages(unsigned long pfn, unsigned long nr);
/* Option values (set by __setup before memmap_init). */
extern unsigned long memmap_arena_size, memmap_section_size;
extern unsigned int memmap_max_order;

/* ---- page_alloc.c ---- */
void page_alloc_init(void);
struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
struct page *__alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
unsigned long get_zeroed_page(gfp_t gfp);
void free_pages(unsigned long addr, unsigned int order);
struct folio *folio_alloc(gfp_t gfp, unsigned int order);
void folio_put(struct folio *folio);
void get_page(struct page *page);
void put_page(struct page *page);
/* Free this CPU's pcp lists back to the buddy lists. */
void drain_local_pages(void);
/* Free every CPU's pcp lists back to the buddy lists (takes each pcp lock). */
void drain_all_pages(void);
/* Give free blocks of order >= reporting order back to the OS now. */
void page_reporting_flush(void);
unsigned long nr_free_pages(void);
unsigned int page_alloc_resident_order(unsigned int lo, unsigned int hi);
/* Pages in free buddy blocks whose memory was given back to the OS. */
unsigned long nr_reported_pages(void);
void show_buddyinfo(FILE *f);
/* Check every buddy invariant under the zone lock; returns 0 or aborts with a report. */
int page_alloc_check_invariants(void);
/* A still picture of the free lists, under every page allocator lock:
 * see page_alloc_walk().  The callbacks must not allocate or lock. */
struct page_walk_ops {
	void (*free_block)(void *arg, struct page *page, unsigned int order, bool on_pcp);
	void (*locked)(void *arg, unsigned long pages_online, unsigned long pages_free);
};
void page_alloc_walk(const struct page_walk_ops *ops, void *arg);

/* ---- memmap_picture.c ---- */
/* Draw the memory map into path (.svg or .html, by its extension): 0 or -errno. */
int memmap_picture_write(const char *path);

/* ---- fork.c ----
 * fork() safety: every lock the library owns is registered once with its
 * rank in the lock order.  pthread_atfork's prepare takes them all by
 * ascending rank, the parent releases them, the child re-initialises them.
 * A thread holding a lock of rank r takes only locks of rank > r; locks of
 * one rank are never held together.  Registration never allocates.
 */
enum fork_rank {
	FORK_RANK_MALLOC_INIT,	/* malloc drop-in: its one-time initialisation */
	FORK_RANK_SLAB_MUTEX,	/* slab_mutex: cache lifecycle */
	FORK_RANK_CACHE_ARRAY,	/* per-cache locks taken before list_lock (SLAB shared/alien) */
	FORK_RANK_CACHE,	/* per-cache, per-node list_lock */
	FORK_RANK_SLOB,		/* slob_lock */
	FORK_RANK_PAGE_ALLOC,	/* zone lock, pcp locks */
	FORK_RANK_MEMMAP,	/* memmap_lock (nests inside the zone lock) */
	FORK_RANK_LEAF,		/* nothing is taken under these: cpu_lock, report locks,
				 * malloc's huge-block table */
	NR_FORK_RANKS
};
/* lock: the pthread mutex inside a spinlock_t or struct mutex (&l->m). */
void fork_lock_register(pthread_mutex_t *lock, enum fork_rank rank);
void fork_lock_unregister(pthread_mutex_t *lock);
/* For a varying set of locks (one per cache and node): prepare takes them
 * all, parent releases them, child re-initialises them.  Any may be NULL.
 * hooks must stay valid for the life of the process. */
struct fork_hooks {
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
};
void fork_hooks_register(const struct fork_hooks *hooks, enum fork_rank rank);

#endif /* USLAB_MM_INTERNAL_H */
