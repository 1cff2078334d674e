/* SPDX-License-Identifier: MIT */
/*
 * stats_proto.h - the shared-memory protocol between a uslab process (its
 * statistics service, src/mm/stats.c) and the tools that look at it from
 * outside (tools/uslabinfo.c, tools/uslabtop.c, through tools/stats_client.h).
 *
 * Both sides include this file and nothing else of each other; it holds
 * only fixed-width types, so the layout is the same for any compiler.  How
 * the service works is told at the top of stats.c.
 *
 * The area is the file /dev/shm/uslab-<pid> (shm_open name "/uslab-<pid>",
 * mode 0600): a header page, the mailbox in it, and the answer area after
 * it, USLAB_STATS_AREA_SIZE bytes in all (a sparse tmpfs file: pages are
 * used only as answers are written).
 *
 * A request (one client at a time: clients hold flock(LOCK_EX) on the file):
 *   1. the client writes op and arg, then req_seq + 1 into req_seq (release)
 *      and FUTEX_WAKEs req_seq;
 *   2. the service, asleep in FUTEX_WAIT on req_seq, copies op and arg, does
 *      the work, writes status, message, answer_len and the answer, then
 *      stores the request's number into resp_seq (release) and FUTEX_WAKEs
 *      resp_seq;
 *   3. the client waits (FUTEX_WAIT with a timeout) until resp_seq equals
 *      its number, then reads the answer.
 * The futexes are shared ones (no FUTEX_PRIVATE_FLAG): the two processes
 * map the same file.
 */
#ifndef USLAB_MM_STATS_PROTO_H
#define USLAB_MM_STATS_PROTO_H

#include <stdint.h>

#define USLAB_STATS_MAGIC	0x534c5355u	/* "USLS" */
#define USLAB_STATS_VERSION	1u
#define USLAB_STATS_NAME_FMT	"/uslab-%d"		/* shm_open name of a pid's area */
#define USLAB_STATS_DIR		"/dev/shm"		/* where those names live */
#define USLAB_STATS_PREFIX	"uslab-"		/* file name prefix in that folder */
#define USLAB_STATS_THREAD	"uslab-stats"		/* /proc/<pid>/task/<tid>/comm */
#define USLAB_STATS_AREA_SIZE	(8UL << 20)		/* bytes of the file */
#define USLAB_STATS_ANSWER_OFF	8192UL			/* the answer area starts here */
#define USLAB_STATS_ANSWER_MAX	(USLAB_STATS_AREA_SIZE - USLAB_STATS_ANSWER_OFF)
#define USLAB_STATS_ARG_MAX	4096			/* bytes of arg, NUL included */
#define USLAB_STATS_MSG_MAX	512			/* bytes of message, NUL included */
#define USLAB_STATS_NONE	UINT64_MAX		/* "this allocator has no such thing" */

/* What a request asks for (header.op). */
enum uslab_stats_op {
	USLAB_OP_NONE,
	USLAB_OP_SNAPSHOT,	/* answer: struct uslab_snapshot and what it points to */
	USLAB_OP_SHRINK,	/* arg: cache name; answer: two struct uslab_cache_rec, before and after */
	USLAB_OP_VALIDATE,	/* arg: cache name; status: errors found, or -errno */
	USLAB_OP_MAP,		/* arg: absolute path of the picture to write */
	USLAB_NR_OPS
};

/* The header page.  Fields marked (const) are written once, before the
 * service thread publishes its tid; the mailbox is written as told above. */
struct uslab_stats_header {
	uint32_t magic;			/* USLAB_STATS_MAGIC (const) */
	uint32_t version;		/* USLAB_STATS_VERSION (const) */
	int32_t pid;			/* the process the area belongs to (const) */
	int32_t service_tid;		/* its service thread; 0 until it runs (release) */
	uint64_t area_size;		/* bytes of the file (const) */
	uint64_t start_time_ns;		/* CLOCK_REALTIME when the service started (const) */
	char allocator[8];		/* "slub", "slab" or "slob" (const) */
	uint32_t page_size;		/* PAGE_SIZE of the library (const) */
	uint32_t max_order;		/* buddy orders 0 .. max_order-1 (const) */
	/* ---- mailbox ---- */
	uint32_t req_seq;		/* futex: number of the latest request (client, release) */
	uint32_t resp_seq;		/* futex: number of the latest answer (service, release) */
	uint32_t op;			/* enum uslab_stats_op of the request (client) */
	int32_t status;			/* 0 or more: done; -errno: failed (service) */
	uint64_t answer_len;		/* bytes of the answer (service) */
	char arg[USLAB_STATS_ARG_MAX];	/* the request's argument, NUL-terminated (client) */
	char message[USLAB_STATS_MSG_MAX];	/* one line for a person (service) */
};
_Static_assert(sizeof(struct uslab_stats_header) <= USLAB_STATS_ANSWER_OFF,
	       "the header must fit before the answer area");

/*
 * One cache as a snapshot sees it.  The slabinfo fields are those of a
 * /proc/slabinfo row; the others those of /sys/kernel/slab/<cache>/ (a
 * field an allocator has no such thing for holds USLAB_STATS_NONE).
 */
struct uslab_cache_rec {
	uint32_t name_off;		/* name: offset in the string table */
	uint32_t flags;			/* SLAB_* flags in force */
	int32_t refcount;		/* creators sharing it; -1 boot cache */
	uint32_t mergeable;		/* 1 if later caches may merge into it */
	uint64_t ctor;			/* address of the constructor, or 0 */
	/* /proc/slabinfo */
	uint64_t active_objs, num_objs, active_slabs, num_slabs, shared_avail;
	uint32_t limit, batchcount, shared, objects_per_slab;
	uint32_t pages_per_slab, size;	/* 1 << order; bytes per object slot */
	/* /sys/kernel/slab/<cache>/ */
	uint64_t object_size, slab_size, objs_per_slab, order;
	uint64_t objects, objects_partial, partial, cpu_slabs, slabs, total_objects;
	uint64_t align, min_partial, cpu_partial, slabs_cpu_partial, aliases;
	uint64_t usersize;
};

/* A name merged into an existing cache (the kernel's sysfs alias link). */
struct uslab_alias_rec {
	uint32_t name_off;		/* the alias: offset in the string table */
	uint32_t cache;			/* index of its cache in the cache records */
};

/* The memory map and page allocator (uslab_memmap_stats()). */
struct uslab_memmap_rec {
	uint64_t arena_bytes, section_bytes, sections_online, pages_online;
	uint64_t pages_free, pages_reported, memmap_bytes_committed;
};

/*
 * USLAB_OP_SNAPSHOT's answer: this struct at the start of the answer area;
 * every *_off is from the start of the answer area.  The cache records and
 * aliases are one consistent picture (taken under slab_mutex); slabinfo
 * and buddyinfo are the text the process prints itself, taken right after.
 */
struct uslab_snapshot {
	uint64_t time_ns;		/* CLOCK_REALTIME of the snapshot */
	uint32_t nr_caches, nr_aliases;
	uint32_t caches_off;		/* struct uslab_cache_rec[nr_caches], newest cache first */
	uint32_t aliases_off;		/* struct uslab_alias_rec[nr_aliases] */
	uint32_t strings_off, strings_len;	/* NUL-terminated names */
	uint32_t slabinfo_off, slabinfo_len;	/* uslab_show_slabinfo() text */
	uint32_t buddyinfo_off, buddyinfo_len;	/* uslab_show_buddyinfo() text */
	struct uslab_memmap_rec memmap;
};

#endif /* USLAB_MM_STATS_PROTO_H */
