/* SPDX-License-Identifier: MIT */
/*
 * track.h - owner tracks: who allocated or freed an object, where, when,
 * on which CPU and thread, with the call stack, as the kernel's SLUB
 * records them for SLAB_STORE_USER (slub_debug=U) and prints them in its
 * reports.  Allocator-neutral: SLUB keeps two tracks after each object,
 * SLAB prints its last-user words with print_track() too.
 *
 * The stack comes from glibc's backtrace().  Its first call loads libgcc_s
 * (dlopen, which allocates), so track_init() makes that first call once
 * where no allocator lock is held; every later call neither allocates nor
 * takes an allocator lock.  Callers still capture a track before taking
 * their list locks (it takes the loader's lock) and copy it in afterwards.
 * Symbols are printed with dladdr(): "func+0x1c/0x40" when the symbol is
 * visible (programs linked with -rdynamic, shared libraries), else
 * "module+0x1234".
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
	unsigned long when;			/* CLOCK_MONOTONIC time, milliseconds */
};

/* The return address of the function this is written in: the kernel's _RET_IP_. */
#define _RET_IP_	((unsigned long)__builtin_return_address(0))

/* Load what backtrace() needs, once; call with no allocator lock held. */
void track_init(void);
/* Fill t for a call made from addr, with the current stack. */
void set_track(struct track *t, unsigned long addr);
/* Milliseconds of CLOCK_MONOTONIC: the "now" of print_track(). */
unsigned long track_now(void);
/*
 * Print t as the kernel does, nothing if t->addr is 0:
 *   INFO: <what> in <symbol of addr> age=<ms> cpu=<n> pid=<tid>
 *   	<one frame per line>
 */
void print_track(const char *what, const struct track *t, unsigned long now);
/* Print the caller's stack, one frame per line (the kernel's dump_stack). */
void dump_stack(void);

#endif /* USLAB_MM_TRACK_H */
