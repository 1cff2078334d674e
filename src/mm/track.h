/* SPDX-License-Identifier: MIT */
/*
 * track.h - owner tracks: who allocated or freed an object, where, when,
 * on which CPU and thread, with the call stack, as the kernel's SLUB
 * records them for SLAB_STORE_USER (slub_debug=U) and prints them in its
 * reports.  Allocator-neutral: SLUB keeps two tracks after each object,
 * SLAB prints its last-user words with sprint_backtrace().
 *
 * The stack comes from a walk of the frame pointer chain (the library is
 * built with -fno-omit-frame-pointer), bounded by the thread's stack or
 * read through process_vm_readv(), or from glibc's backtrace() only where
 * track_init()'s probe finds the walk cannot work (track.c §3); the first
 * backtrace() allocates (it loads libgcc_s), so track_init() then makes it
 * where no allocator lock is held.  A thread's first track looks its stack
 * up with pthread_getattr_np(), which allocates (perhaps through this
 * library's malloc; a track taken inside that allocation walks with
 * checked reads): so callers capture a track before taking any allocator
 * lock and copy it in afterwards.  dump_stack() looks nothing up and
 * allocates nothing, so a report may print it under locks.  Symbols are
 * printed with dladdr() (sprint_backtrace): "func+0x1c/0x40" when the
 * symbol is visible (programs linked with -rdynamic, shared libraries),
 * else "module+0x1234".
 */
#ifndef USLAB_MM_TRACK_H
#define USLAB_MM_TRACK_H

#include "compiler.h"

#define TRACK_ADDRS_COUNT	16	/* frames kept per track (5.17) */

/* One owner track: 152 bytes, the 5.17 layout (SLUB reserves room for it). */
struct track {
	unsigned long addr;			/* the caller of the API (return address) */
	unsigned long addrs[TRACK_ADDRS_COUNT];	/* stack from addr outwards, 0-terminated */
	int cpu;				/* CPU id of the caller (-1: none) */
	int pid;				/* thread id of the caller */
	unsigned long when;			/* CLOCK_MONOTONIC_COARSE time, milliseconds */
};

/* The return address of the function this is written in: the kernel's _RET_IP_. */
#define _RET_IP_	((unsigned long)__builtin_return_address(0))

/* Probe the frame walk, once, and where it cannot work load what
 * backtrace() needs; call with no allocator lock held. */
void track_init(void);
/* Fill t for a call made from addr, with the current stack. */
void set_track(struct track *t, unsigned long addr);
/* Milliseconds of CLOCK_MONOTONIC_COARSE (a tick's resolution, as jiffies):
 * the "now" of print_track(). */
unsigned long track_now(void);
/*
 * Print t as the kernel does, nothing if t->addr is 0:
 *   INFO: <what> in <symbol of addr> age=<ms> cpu=<n> pid=<tid>
 *   	<one frame per line>
 */
void print_track(const char *what, const struct track *t, unsigned long now);
/*
 * The text of a return address, as the kernel's sprint_backtrace() (%pB)
 * gives it: "func+0x1c/0x40", else "module+0x1234", else "0x..." (0 too).
 * addr - 1 is looked up, since a return address may lie just past the end
 * of its function.  Returns buf, which holds len bytes.
 */
const char *sprint_backtrace(char *buf, size_t len, unsigned long addr);
/* Print the caller's stack, one frame per line (the kernel's dump_stack). */
void dump_stack(void);

#endif /* USLAB_MM_TRACK_H */
