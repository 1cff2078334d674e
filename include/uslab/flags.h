/* SPDX-License-Identifier: MIT */
/*
 * flags.h - the kernel's names for GFP and SLAB flags, gfp_t and slab_flags_t.
 * Included by <uslab/slab.h> and <uslab/gfp.h>; values come from <uslab/uslab.h>.
 */
#ifndef USLAB_FLAGS_H
#define USLAB_FLAGS_H

#include <uslab/uslab.h>

typedef uslab_gfp_t gfp_t;
typedef uslab_slab_flags_t slab_flags_t;

#define __GFP_DMA                    USLAB___GFP_DMA
#define __GFP_HIGHMEM                USLAB___GFP_HIGHMEM
#define __GFP_DMA32                  USLAB___GFP_DMA32
#define __GFP_MOVABLE                USLAB___GFP_MOVABLE
#define __GFP_RECLAIMABLE            USLAB___GFP_RECLAIMABLE
#define __GFP_HIGH                   USLAB___GFP_HIGH
#define __GFP_IO                     USLAB___GFP_IO
#define __GFP_FS                     USLAB___GFP_FS
#define __GFP_ZERO                   USLAB___GFP_ZERO
#define __GFP_ATOMIC                 USLAB___GFP_ATOMIC
#define __GFP_DIRECT_RECLAIM         USLAB___GFP_DIRECT_RECLAIM
#define __GFP_KSWAPD_RECLAIM         USLAB___GFP_KSWAPD_RECLAIM
#define __GFP_WRITE                  USLAB___GFP_WRITE
#define __GFP_NOWARN                 USLAB___GFP_NOWARN
#define __GFP_RETRY_MAYFAIL          USLAB___GFP_RETRY_MAYFAIL
#define __GFP_NOFAIL                 USLAB___GFP_NOFAIL
#define __GFP_NORETRY                USLAB___GFP_NORETRY
#define __GFP_MEMALLOC               USLAB___GFP_MEMALLOC
#define __GFP_COMP                   USLAB___GFP_COMP
#define __GFP_NOMEMALLOC             USLAB___GFP_NOMEMALLOC
#define __GFP_HARDWALL               USLAB___GFP_HARDWALL
#define __GFP_THISNODE               USLAB___GFP_THISNODE
#define __GFP_ACCOUNT                USLAB___GFP_ACCOUNT
#define __GFP_ZEROTAGS               USLAB___GFP_ZEROTAGS
#define __GFP_SKIP_KASAN_POISON      USLAB___GFP_SKIP_KASAN_POISON
#define __GFP_BITS_SHIFT             USLAB___GFP_BITS_SHIFT
#define __GFP_BITS_MASK              USLAB___GFP_BITS_MASK
#define __GFP_RECLAIM                USLAB___GFP_RECLAIM
#define GFP_ATOMIC                   USLAB_GFP_ATOMIC
#define GFP_KERNEL                   USLAB_GFP_KERNEL
#define GFP_KERNEL_ACCOUNT           USLAB_GFP_KERNEL_ACCOUNT
#define GFP_NOWAIT                   USLAB_GFP_NOWAIT
#define GFP_NOIO                     USLAB_GFP_NOIO
#define GFP_NOFS                     USLAB_GFP_NOFS
#define GFP_USER                     USLAB_GFP_USER
#define GFP_DMA                      USLAB_GFP_DMA
#define GFP_DMA32                    USLAB_GFP_DMA32
#define GFP_HIGHUSER                 USLAB_GFP_HIGHUSER
#define SLAB_CONSISTENCY_CHECKS      USLAB_SLAB_CONSISTENCY_CHECKS
#define SLAB_RED_ZONE                USLAB_SLAB_RED_ZONE
#define SLAB_POISON                  USLAB_SLAB_POISON
#define SLAB_HWCACHE_ALIGN           USLAB_SLAB_HWCACHE_ALIGN
#define SLAB_CACHE_DMA               USLAB_SLAB_CACHE_DMA
#define SLAB_CACHE_DMA32             USLAB_SLAB_CACHE_DMA32
#define SLAB_STORE_USER              USLAB_SLAB_STORE_USER
#define SLAB_RECLAIM_ACCOUNT         USLAB_SLAB_RECLAIM_ACCOUNT
#define SLAB_TEMPORARY               USLAB_SLAB_TEMPORARY
#define SLAB_PANIC                   USLAB_SLAB_PANIC
#define SLAB_TYPESAFE_BY_RCU         USLAB_SLAB_TYPESAFE_BY_RCU
#define SLAB_MEM_SPREAD              USLAB_SLAB_MEM_SPREAD
#define SLAB_TRACE                   USLAB_SLAB_TRACE
#define SLAB_DEBUG_OBJECTS           USLAB_SLAB_DEBUG_OBJECTS
#define SLAB_NOLEAKTRACE             USLAB_SLAB_NOLEAKTRACE
#define SLAB_FAILSLAB                USLAB_SLAB_FAILSLAB
#define SLAB_ACCOUNT                 USLAB_SLAB_ACCOUNT
#define ZERO_SIZE_PTR			USLAB_ZERO_SIZE_PTR
#define ZERO_OR_NULL_PTR(x)		USLAB_ZERO_OR_NULL_PTR(x)
#ifndef NUMA_NO_NODE
#define NUMA_NO_NODE			USLAB_NUMA_NO_NODE
#endif

#endif /* USLAB_FLAGS_H */
