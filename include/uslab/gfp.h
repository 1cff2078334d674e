/* SPDX-License-Identifier: MIT */
/*
 * gfp.h - the kernel's page allocator API under the kernel's names, as
 * inline forwarders to the uslab_ functions (include/linux/gfp.h of 5.17).
 */
#ifndef USLAB_GFP_H
#define USLAB_GFP_H

#include <uslab/flags.h>

#ifndef PAGE_SIZE
#define PAGE_SIZE 4096UL
#endif

static inline struct page *alloc_pages(gfp_t gfp, unsigned int order)
{ return uslab_alloc_pages(gfp, order); }
static inline struct page *alloc_page(gfp_t gfp)
{ return uslab_alloc_pages(gfp, 0); }
static inline struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{ return uslab_alloc_pages_node(nid, gfp, order); }
static inline void __free_pages(struct page *page, unsigned int order)
{ uslab___free_pages(page, order); }
static inline void __free_page(struct page *page)
{ uslab___free_pages(page, 0); }
static inline unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{ return uslab___get_free_pages(gfp, order); }
static inline unsigned long __get_free_page(gfp_t gfp)
{ return uslab___get_free_pages(gfp, 0); }
static inline unsigned long get_zeroed_page(gfp_t gfp)
{ return uslab_get_zeroed_page(gfp); }
static inline void free_pages(unsigned long addr, unsigned int order)
{ uslab_free_pages(addr, order); }
static inline void free_page(unsigned long addr)
{ uslab_free_pages(addr, 0); }
static inline struct folio *folio_alloc(gfp_t gfp, unsigned int order)
{ return uslab_folio_alloc(gfp, order); }
static inline void folio_put(struct folio *folio)
{ uslab_folio_put(folio); }
static inline void get_page(struct page *page)
{ uslab_get_page(page); }
static inline void put_page(struct page *page)
{ uslab_put_page(page); }
static inline void *page_address(const struct page *page)
{ return uslab_page_address(page); }
static inline struct page *virt_to_page(const void *addr)
{ return uslab_virt_to_page(addr); }
static inline struct folio *virt_to_folio(const void *addr)
{ return uslab_virt_to_folio(addr); }
static inline void *folio_address(const struct folio *folio)
{ return uslab_folio_address(folio); }
static inline unsigned int folio_order(const struct folio *folio)
{ return uslab_folio_order(folio); }
static inline unsigned long page_to_pfn(const struct page *page)
{ return uslab_page_to_pfn(page); }
static inline struct page *pfn_to_page(unsigned long pfn)
{ return uslab_pfn_to_page(pfn); }
static inline int pfn_valid(unsigned long pfn)
{ return uslab_pfn_valid(pfn); }
static inline int virt_addr_valid(const void *addr)
{ return uslab_virt_addr_valid(addr); }

#endif /* USLAB_GFP_H */
