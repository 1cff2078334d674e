/* SPDX-License-Identifier: MIT */
/*
 * slab.h - the slab layer's private view of a slab page, and the interface
 * between allocator-neutral code (slab_common.c) and the one allocator this
 * library is built with (slub.c, slab.c or slob.c).
 *
 * struct slab overlays struct page.  Each allocator defines its own complete
 * struct slab and struct kmem_cache in its *_def.h; this header includes
 * exactly one of them, then pins the fields every allocator shares to their
 * struct page counterparts.  The helpers below (folio_slab, virt_to_slab,
 * slab_address, ...) are the only bridges between struct page and struct
 * slab; they are used at the top of each call chain, and nothing below them
 * touches struct page, so that struct slab could one day be allocated on its
 * own (the kernel's memdesc plan) by changing only these helpers.
 *
 * Nothing outside src/mm includes this header.
 */
#ifndef USLAB_MM_SLAB_H
#define USLAB_MM_SLAB_H

#include "internal.h"

/* Every struct kmem_cache (whatever the allocator) has these fields, used
 * by slab_common.c:
 *	const char *name;		cache name (kstrdup'd, or a literal for boot caches)
 *	unsigned int object_size;	size the creator asked for
 *	unsigned int size;		size of one object slot with metadata
 *	unsigned int align;		alignment of objects
 *	slab_flags_t flags;		SLAB_* flags in force
 *	unsigned int useroffset, usersize;	usercopy window
 *	void (*ctor)(void *);		constructor or NULL
 *	int refcount;			aliases + 1; -1 = never merge (boot caches)
 *	struct list_head list;		on slab_caches (slab_mutex)
 */

#if CONFIG_SLUB
#include "slub_def.h"
#elif CONFIG_SLAB
#include "slab_def.h"
#elif CONFIG_SLOB
#include "slob_def.h"
#else
#error "build with exactly one of CONFIG_SLUB, CONFIG_SLAB, CONFIG_SLOB set to 1"
#endif

/* Shared fields of struct slab sit where struct page has them. */
#define SLAB_MATCH(pg, sl)						\
	_Static_assert(offsetof(struct page, pg) == offsetof(struct slab, sl), \
		       "struct slab." #sl " must overlay struct page." #pg)
SLAB_MATCH(flags, __page_flags);
SLAB_MATCH(compound_head, slab_list);	/* list pointers keep bit 0 clear */
SLAB_MATCH(_refcount, __page_refcount);
SLAB_MATCH(memcg_data, memcg_data);
_Static_assert(sizeof(struct slab) <= sizeof(struct page), "struct slab must fit in struct page");

/* ---- the only bridges between struct page / folio and struct slab ---- */
static inline struct slab *folio_slab(const struct folio *folio)
{
	return (struct slab *)folio;
}

static inline struct folio *slab_folio(const struct slab *slab)
{
	return (struct folio *)slab;
}

/* Only legal on a head (or order-0) page. */
static inline struct slab *page_slab(const struct page *page)
{
	return (struct slab *)page;
}

static inline struct page *slab_page(const struct slab *slab)
{
	return folio_page(slab_folio(slab), 0);
}

static inline bool slab_test_pfmemalloc(const struct slab *slab)
{
	return folio_test_active(slab_folio(slab));
}

static inline void slab_set_pfmemalloc(struct slab *slab)
{
	folio_set_active(slab_folio(slab));
}

static inline void slab_clear_pfmemalloc(struct slab *slab)
{
	folio_clear_active(slab_folio(slab));
}

static inline void *slab_address(const struct slab *slab)
{
	return folio_address(slab_folio(slab));
}

static inline int slab_nid(const struct slab *slab)
{
	return folio_nid(slab_folio(slab));
}

static inline unsigned int slab_order(const struct slab *slab)
{
	return folio_order(slab_folio(slab));
}

static inline size_t slab_size(const struct slab *slab)
{
	return PAGE_SIZE << slab_order(slab);
}

/* NULL unless addr is in an online section and its folio is a slab. */
static inline struct slab *virt_to_slab(const void *addr)
{
	struct folio *folio;

	if (unlikely(!virt_addr_valid(addr)))
		return NULL;
	folio = virt_to_folio(addr);
	if (!folio_test_slab(folio))
		return NULL;
	return folio_slab(folio);
}

/* ---- slab_common.c ---- */
enum slab_state {
	DOWN,		/* no slab functionality yet */
	PARTIAL,	/* SLUB: kmem_cache_node available */
	PARTIAL_NODE,	/* SLAB: kmalloc size for node struct available */
	UP,		/* slab caches usable, kmalloc caches exist */
	FULL		/* everything is working */
};
extern enum slab_state slab_state;
extern struct mutex slab_mutex;		/* protects slab_caches and cache lifecycle */
extern struct list_head slab_caches;	/* every cache, newest first */
extern struct kmem_cache *kmem_cache;	/* the cache struct kmem_cache comes from */

/* Bring the slab layer up on first use (idempotent, thread safe). */
void slab_ensure_init(void);

unsigned int calculate_alignment(slab_flags_t flags, unsigned int align, unsigned int size);
int slab_unmergeable(struct kmem_cache *s);
struct kmem_cache *find_mergeable(unsigned int size, unsigned int align,
		slab_flags_t flags, const char *name, void (*ctor)(void *));
void create_boot_cache(struct kmem_cache *s, const char *name, unsigned int size,
		slab_flags_t flags, unsigned int useroffset, unsigned int usersize);
void create_kmalloc_caches(slab_flags_t flags);
struct kmem_cache *kmalloc_slab(size_t size, gfp_t flags);
void *kmalloc_order(size_t size, gfp_t flags, unsigned int order);
void *kmalloc_large(size_t size, gfp_t flags);
void free_large_kmalloc(struct folio *folio, void *object);

/*
 * slabinfo 2.1 rows: the allocator fills one struct slabinfo per cache;
 * slab_common prints the header and rows in the kernel's exact format.
 */
struct slabinfo {
	unsigned long active_objs;
	unsigned long num_objs;
	unsigned long active_slabs;
	unsigned long num_slabs;
	unsigned long shared_avail;
	unsigned int limit;
	unsigned int batchcount;
	unsigned int shared;
	unsigned int objects_per_slab;
	unsigned int cache_order;
};

/* ---- the allocator interface: each of slub.c, slab.c, slob.c supplies all ----
 * (an allocator with nothing to do supplies an empty function) */
void kmem_cache_init(void);		/* bootstrap kmem_cache(_node) and kmalloc caches */
int __kmem_cache_create(struct kmem_cache *s, slab_flags_t flags);
int __kmem_cache_shutdown(struct kmem_cache *s);	/* 0 if no objects remain */
void __kmem_cache_release(struct kmem_cache *s);
int __kmem_cache_shrink(struct kmem_cache *s);	/* 0 if every slab could be freed */
struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *));
slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags, const char *name);
size_t __ksize(const void *object);
void get_slabinfo(struct kmem_cache *s, struct slabinfo *sinfo);
void slabinfo_show_stats(FILE *f, struct kmem_cache *s);	/* extra columns, may print nothing */
/* Apply a slabinfo write "name limit batchcount shared"; -EINVAL/-EIO as the kernel. */
int slabinfo_write_line(const char *line);
extern const char *const allocator_name;	/* "slub", "slab" or "slob" */

/* Exported object API, defined by the allocator. */
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags);
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t flags, int node);
void kmem_cache_free(struct kmem_cache *s, void *obj);
int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr, void **p);
void kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p);
void *__kmalloc(size_t size, gfp_t flags);
void *__kmalloc_node(size_t size, gfp_t flags, int node);
void kfree(const void *object);

#endif /* USLAB_MM_SLAB_H */
