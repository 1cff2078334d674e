// SPDX-License-Identifier: MIT
/*
 * util.c - the kernel's mm/util.c helpers over kmalloc: kmemdup, kstrdup,
 * kstrndup, kmemdup_nul, and the kvmalloc family with its "vmalloc" fallback.
 *
 * 1. Overview
 *    kvmalloc_node() first tries kmalloc (quietly, for sizes above a page);
 *    when kmalloc fails, or the size is beyond what the page allocator can
 *    ever hand out in one block (order >= MAX_ORDER, or above
 *    KMALLOC_MAX_SIZE), it falls back to "vmalloc": user space has no
 *    kernel page tables to stitch pages together, so a vmalloc area here is
 *    an anonymous mapping of its own, outside the arena.  kvfree() tells the
 *    two apart by address: inside the arena is kmalloc memory (kfree), outside
 *    it must be a vmalloc area (vfree), else it is a bad pointer.
 *
 * 2. Data structures
 *    A vmalloc area is one mapping: a header page, then the pages handed
 *    out.  The header sits at the end of the header page, right below the
 *    first byte handed out (where an underflow lands first), and records a
 *    magic bound to the area's address, the size asked for and the mapping
 *    length.  vmap_hash[] chains one struct
 *    vmap_area (kmalloc'd) per live area, hashed by address: kvfree() looks
 *    a pointer up there before it reads any header, so a stray pointer is
 *    reported, never dereferenced.
 *
 * 3. States of a vmalloc area
 *      live    in vmap_hash, header intact, mapped
 *      freed   unlinked, then unmapped; the address may be reused by the OS
 *
 * 4. Lock order
 *    vmap_lock is a leaf: nothing is allocated or freed while it is held.
 *
 * 5. Invariants
 *    - A vmap_area is in vmap_hash iff its mapping is live, and its header
 *      holds VMAP_MAGIC ^ addr, size and map_len equal to the vmap_area's.
 *    - No vmalloc area lies inside the arena (mappings come from the OS
 *      outside the arena's reservation), so virt_addr_valid() separates them.
 */
#include <limits.h>
#include <string.h>
#include "slab.h"
#include "os/os.h"

/* ======================= string and memory duplication ======================= */

void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = __kmalloc(len, gfp);

	if (p && len)
		memcpy(p, src, len);
	return p;
}
EXPORT_SYMBOL(kmemdup);

/* A copy of len bytes of s with a NUL added after them. */
static char *kmemdup_terminated(const char *s, size_t len, gfp_t gfp)
{
	char *buf;

	if (unlikely(len == SIZE_MAX))
		return NULL;
	buf = __kmalloc(len + 1, gfp);
	if (buf) {
		memcpy(buf, s, len);
		buf[len] = '\0';
	}
	return buf;
}

char *kstrdup(const char *s, gfp_t gfp)
{
	if (!s)
		return NULL;
	return kmemdup_terminated(s, strlen(s), gfp);
}
EXPORT_SYMBOL(kstrdup);

char *kstrndup(const char *s, size_t max, gfp_t gfp)
{
	if (!s)
		return NULL;
	return kmemdup_terminated(s, strnlen(s, max), gfp);
}
EXPORT_SYMBOL(kstrndup);

void *kmemdup_nul(const char *s, size_t len, gfp_t gfp)
{
	if (!s)
		return NULL;
	return kmemdup_terminated(s, len, gfp);
}
EXPORT_SYMBOL(kmemdup_nul);

/* ======================= vmalloc areas ======================= */

#define VMAP_MAGIC	0x766d616c6c6f6321UL	/* "vmalloc!" */
#define VMAP_HASH_BITS	8

struct vmap_header {		/* end of the first page of a vmalloc area; written once */
	unsigned long magic;	/* VMAP_MAGIC ^ address handed out */
	size_t size;		/* bytes asked for */
	size_t map_len;		/* bytes mapped, header page included */
};

struct vmap_area {		/* registry entry of one live vmalloc area */
	struct vmap_area *next;	/* chain in vmap_hash[] (vmap_lock) */
	unsigned long addr;	/* address handed out (immutable) */
	size_t size;		/* bytes asked for (immutable) */
	size_t map_len;		/* bytes mapped (immutable) */
};

static struct vmap_header *vmap_header_of(const struct vmap_area *va)
{
	return (struct vmap_header *)va->addr - 1;
}

static DEFINE_SPINLOCK(vmap_lock);
static struct vmap_area *vmap_hash[1 << VMAP_HASH_BITS];	/* vmap_lock */

static void __attribute__((constructor)) vmap_constructor(void)
{
	fork_lock_register(&vmap_lock.m, FORK_RANK_LEAF);
}

static struct vmap_area **vmap_bucket(unsigned long addr)
{
	/* multiplicative hash of the page number */
	unsigned long h = (addr >> PAGE_SHIFT) * 0x9e3779b97f4a7c15UL;

	return &vmap_hash[h >> (64 - VMAP_HASH_BITS)];
}

static void vmap_insert(struct vmap_area *va)
{
	struct vmap_area **head = vmap_bucket(va->addr);

	spin_lock(&vmap_lock);
	va->next = *head;
	*head = va;
	spin_unlock(&vmap_lock);
}

/* Unlink and return the area starting at addr; NULL if there is none. */
static struct vmap_area *vmap_remove(unsigned long addr)
{
	struct vmap_area **pp, *va;

	spin_lock(&vmap_lock);
	for (pp = vmap_bucket(addr); (va = *pp) != NULL; pp = &va->next) {
		if (va->addr == addr) {
			*pp = va->next;
			break;
		}
	}
	spin_unlock(&vmap_lock);
	return va;
}

static void *vmalloc_node(size_t size, gfp_t gfp, int node)
{
	size_t map_len = PAGE_SIZE + PAGE_ALIGN(size);
	struct vmap_area *va = __kmalloc_node(sizeof(*va), GFP_KERNEL, node);
	char *map = va ? os_map(map_len) : NULL;
	struct vmap_header *hdr;

	if (!map) {
		kfree(va);
		slab_warn_alloc(gfp, "vmalloc error: size %zu, vm_struct allocation failed", size);
		return NULL;
	}
	va->addr = (unsigned long)map + PAGE_SIZE;
	hdr = vmap_header_of(va);
	va->size = hdr->size = size;
	va->map_len = hdr->map_len = map_len;
	hdr->magic = VMAP_MAGIC ^ va->addr;
	vmap_insert(va);
	return (void *)va->addr;	/* fresh anonymous pages read as zeros */
}

static void vfree(const void *addr)
{
	struct vmap_area *va = vmap_remove((unsigned long)addr);
	struct vmap_header *hdr;

	if (unlikely(!va))
		slab_panic("kvfree: invalid pointer %p (not from kmalloc or kvmalloc, or freed twice)\n",
			   addr);
	hdr = vmap_header_of(va);
	if (unlikely(hdr->magic != (VMAP_MAGIC ^ va->addr) || hdr->size != va->size ||
		     hdr->map_len != va->map_len))
		slab_panic("kvfree: header of vmalloc area %p (%zu bytes) overwritten\n",
			   addr, va->size);
	os_unmap((void *)(va->addr - PAGE_SIZE), va->map_len);
	kfree(va);
}

/* ======================= kvmalloc family ======================= */

/* Can one block of the page allocator (or a kmalloc cache) hold size bytes? */
static bool kmalloc_can_serve(size_t size)
{
	return size <= KMALLOC_MAX_SIZE && get_order(size) < MAX_ORDER;
}

/* kmalloc's attempt above a page: quiet and quick, the fallback does the rest. */
static gfp_t kvmalloc_kmalloc_flags(gfp_t flags, size_t size)
{
	if (size <= PAGE_SIZE)
		return flags;
	flags |= __GFP_NOWARN;
	if (!(flags & __GFP_RETRY_MAYFAIL))
		flags |= __GFP_NORETRY;
	return flags & ~__GFP_NOFAIL;
}

void *kvmalloc_node(size_t size, gfp_t flags, int node)
{
	void *ret;

	/* the fallback may block: callers that cannot get kmalloc only */
	if ((flags & GFP_KERNEL) != GFP_KERNEL)
		return __kmalloc_node(size, flags, node);
	slab_ensure_init();
	if (kmalloc_can_serve(size)) {
		ret = __kmalloc_node(size, kvmalloc_kmalloc_flags(flags, size), node);
		if (ret || size <= PAGE_SIZE)
			return ret;
	}
	if (unlikely(size > INT_MAX)) {
		slab_warn_alloc(flags, "kvmalloc: size %zu above INT_MAX", size);
		return NULL;
	}
	return vmalloc_node(size, flags, node);
}
EXPORT_SYMBOL(kvmalloc_node);

void kvfree(const void *addr)
{
	if (ZERO_OR_NULL_PTR(addr) || virt_addr_valid(addr))
		kfree(addr);
	else
		vfree(addr);
}
EXPORT_SYMBOL(kvfree);

void *kvrealloc(const void *p, size_t oldsize, size_t newsize, gfp_t flags)
{
	void *newp;

	if (oldsize >= newsize)
		return (void *)p;
	newp = kvmalloc_node(newsize, flags, NUMA_NO_NODE);
	if (!newp)
		return NULL;
	if (oldsize)
		memcpy(newp, p, oldsize);
	kvfree(p);
	return newp;
}
EXPORT_SYMBOL(kvrealloc);

void kvfree_sensitive(const void *addr, size_t len)
{
	if (likely(!ZERO_OR_NULL_PTR(addr))) {
		memzero_explicit((void *)addr, len);
		kvfree(addr);
	}
}
EXPORT_SYMBOL(kvfree_sensitive);
