// SPDX-License-Identifier: MIT
/*
 * huge.c - blocks too large for the page allocator, mapped straight from
 * the OS, and the table that recognises them when they are freed.
 *
 * 1. Overview.  A request larger than the largest buddy block (4 MiB by
 *    default), or one the arena can no longer serve, gets its own private
 *    mapping: os_reserve() for the alignment, os_commit() to make it usable.
 *    Fresh mappings read as zeros, so calloc need not clear them.  Every
 *    mapping is entered in huge_table, keyed by its start, so that free()
 *    can tell "a huge block of ours" from "any other address outside the
 *    arena" without reading a byte of the pointer's memory.
 *
 * 2. Data structures.  huge_table: open addressing with linear probing,
 *    power-of-two capacity, at most half full; deletion shifts later
 *    entries of the same probe run back (no tombstones).  The table itself
 *    is mapped with os_map, never malloc'd (this file sits under malloc).
 *    huge_freed[]: the starts of the last HUGE_FREED_RING blocks unmapped,
 *    so that a second free of one is reported as a double free rather than
 *    as a foreign pointer (a start leaves the ring when it is mapped again).
 *
 * 3. States of a slot: empty (addr 0) or in use (addr = block start, size =
 *    mapped bytes).  A block is in the table from the moment huge_alloc()
 *    returns it until huge_free() unmaps it.
 *
 * 4. Lock order.  huge_lock is a leaf: under it only os_map/os_unmap run
 *    (to grow the table); mapping and unmapping blocks happen outside it.
 *
 * 5. Invariants (huge_lock).  huge_count <= huge_cap / 2; each in-use slot
 *    is reachable from its hash slot by a probe run with no empty slot.
 */
#include <errno.h>
#include <string.h>
#include "malloc_internal.h"
#include "os/os.h"

#define HUGE_MIN_CAP	256UL	/* slots in the first table: one page */

struct huge_entry {
	unsigned long addr;	/* block start; 0 = empty slot (huge_lock) */
	size_t size;		/* bytes mapped (huge_lock) */
};

static DEFINE_SPINLOCK(huge_lock);
static struct huge_entry *huge_table;	/* huge_lock; NULL until the first block */
static unsigned long huge_cap;		/* slots (a power of two) (huge_lock) */
static unsigned long huge_count;	/* slots in use (huge_lock) */
#define HUGE_FREED_RING	64
static unsigned long huge_freed[HUGE_FREED_RING];	/* recent starts (huge_lock) */
static unsigned int huge_freed_next;	/* next ring slot to overwrite (huge_lock) */

void huge_init(void)
{
	fork_lock_register(&huge_lock.m, FORK_RANK_LEAF);
}

static unsigned long huge_hash(unsigned long addr, unsigned long cap)
{
	/* why: starts are page aligned, so drop those bits before mixing */
	return ((addr >> PAGE_SHIFT) * 0x9E3779B97F4A7C15UL) >> (64 - ilog2(cap));
}

/* Slot holding addr, or the empty slot where it would go.  huge_lock held. */
static unsigned long huge_slot(const struct huge_entry *t, unsigned long cap,
			       unsigned long addr)
{
	unsigned long i = huge_hash(addr, cap);

	while (t[i].addr && t[i].addr != addr)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Double the table (or create it).  huge_lock held.  False if out of memory. */
static bool huge_grow(void)
{
	unsigned long cap = huge_cap ? huge_cap * 2 : HUGE_MIN_CAP;
	struct huge_entry *t = os_map(cap * sizeof(*t));
	unsigned long i;

	if (!t)
		return false;
	for (i = 0; i < huge_cap; i++)
		if (huge_table[i].addr)
			t[huge_slot(t, cap, huge_table[i].addr)] = huge_table[i];
	if (huge_table)
		os_unmap(huge_table, huge_cap * sizeof(*t));
	huge_table = t;
	huge_cap = cap;
	return true;
}

/* addr is mapped again: it is no longer "freed before".  huge_lock held. */
static void huge_freed_forget(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < HUGE_FREED_RING; i++)
		if (huge_freed[i] == addr)
			huge_freed[i] = 0;
}

bool huge_was_freed(const void *p)
{
	bool found = false;
	unsigned int i;

	spin_lock(&huge_lock);
	for (i = 0; i < HUGE_FREED_RING; i++)
		found |= huge_freed[i] == (unsigned long)p;
	spin_unlock(&huge_lock);
	return found;
}

static bool huge_insert(unsigned long addr, size_t size)
{
	bool ok = true;

	spin_lock(&huge_lock);
	huge_freed_forget(addr);
	if (2 * (huge_count + 1) > huge_cap)
		ok = huge_grow();
	if (ok) {
		huge_table[huge_slot(huge_table, huge_cap, addr)] =
			(struct huge_entry){ .addr = addr, .size = size };
		huge_count++;
	}
	spin_unlock(&huge_lock);
	return ok;
}

/* Empty slot i and pull later entries of its probe run back.  huge_lock held. */
static void huge_delete_slot(unsigned long i)
{
	unsigned long mask = huge_cap - 1, j = i, home;

	for (;;) {
		j = (j + 1) & mask;
		if (!huge_table[j].addr)
			break;
		home = huge_hash(huge_table[j].addr, huge_cap);
		/* why: j may move to i only if i lies on the way from home to j */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			huge_table[i] = huge_table[j];
			i = j;
		}
	}
	huge_table[i].addr = 0;
	huge_count--;
}

/* Remove addr from the table; its mapped size, or 0 if it was not there. */
static size_t huge_remove(unsigned long addr)
{
	unsigned long i;
	size_t size = 0;

	spin_lock(&huge_lock);
	if (huge_table) {
		i = huge_slot(huge_table, huge_cap, addr);
		size = huge_table[i].size;
		if (huge_table[i].addr) {
			huge_delete_slot(i);
			huge_freed[huge_freed_next] = addr;
			huge_freed_next = (huge_freed_next + 1) % HUGE_FREED_RING;
		} else {
			size = 0;
		}
	}
	spin_unlock(&huge_lock);
	return size;
}

size_t huge_usable(const void *p)
{
	unsigned long i;
	size_t size = 0;

	spin_lock(&huge_lock);
	if (huge_table) {
		i = huge_slot(huge_table, huge_cap, (unsigned long)p);
		if (huge_table[i].addr)
			size = huge_table[i].size;
	}
	spin_unlock(&huge_lock);
	return size;
}

void *huge_alloc(size_t size, size_t align)
{
	size_t len = ALIGN(max(size, 1UL), PAGE_SIZE);
	void *p;

	if (len < size || len > (size_t)PTRDIFF_MAX)
		goto nomem;
	p = os_reserve(len, max(align, PAGE_SIZE));
	if (!p)
		goto nomem;
	if (!os_commit(p, len) || !huge_insert((unsigned long)p, len)) {
		os_release(p, len);
		goto nomem;
	}
	return p;
nomem:
	errno = ENOMEM;
	return NULL;
}

bool huge_free(void *p)
{
	size_t len = huge_remove((unsigned long)p);

	if (!len)
		return false;
	os_release(p, len);
	return true;
}

void huge_shrink(void *p, size_t new_size)
{
	size_t keep = ALIGN(new_size, PAGE_SIZE), len;
	unsigned long i;

	spin_lock(&huge_lock);
	i = huge_slot(huge_table, huge_cap, (unsigned long)p);
	len = huge_table[i].size;
	if (keep < len)
		huge_table[i].size = keep;
	spin_unlock(&huge_lock);
	/* why outside the lock: only the block's owner can be resizing it */
	if (keep < len)
		os_release((char *)p + keep, len - keep);
}
