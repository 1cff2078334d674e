// SPDX-License-Identifier: MIT
/*
 * track.c - owner tracks (struct track): capture and print; see track.h.
 *
 * 1. Overview.  set_track() records the API caller's return address, the
 *    stack from that frame outwards (glibc backtrace()), the CPU id, the
 *    thread id and a millisecond time stamp.  print_track() prints them in
 *    the layout of the kernel's SLUB reports.  Nothing here knows which
 *    allocator is built.
 *
 * 2. Finding the caller's frame.  backtrace() starts in set_track(); how
 *    many allocator frames lie between it and the program depends on
 *    inlining.  The API entry point passes its own return address (addr),
 *    which is exactly one of the frames: the stored stack starts there.
 *    If it is not found (a tail call), the stack starts after set_track.
 *
 * 3. Locks and memory.  backtrace() allocates on its first call only
 *    (dlopen of libgcc_s): track_init() makes that call at slab
 *    initialisation.  Later calls take the dynamic loader's lock while
 *    unwinding, and dladdr() takes it too, so callers capture tracks
 *    before taking allocator locks.  Output goes through slab_printk()
 *    (a stack buffer and one write).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "track.h"
#include "slab.h"
#include "cpu.h"
#include "os/os.h"

#define TRACK_SKIP_MAX	16	/* allocator frames looked through for addr */
#define SYM_LEN		192	/* longest symbol text printed */

static bool track_ready;	/* backtrace() warmed up (atomic) */

void track_init(void)
{
	void *frames[2];

	if (READ_ONCE(track_ready))
		return;
	/* why: the first backtrace() dlopens libgcc_s, which allocates */
	backtrace(frames, (int)ARRAY_SIZE(frames));
	WRITE_ONCE(track_ready, true);
}

unsigned long track_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000UL + (unsigned long)ts.tv_nsec / 1000000UL;
}

/* Index of the frame returning to addr; 1 (past set_track) if none does. */
static int track_first_frame(void *const *frames, int n, unsigned long addr)
{
	int i;

	for (i = 0; i < n; i++)
		if ((unsigned long)frames[i] == addr)
			return i;
	return n > 1 ? 1 : n;
}

void set_track(struct track *t, unsigned long addr)
{
	void *frames[TRACK_ADDRS_COUNT + TRACK_SKIP_MAX];
	int n = backtrace(frames, (int)ARRAY_SIZE(frames));
	int i, first = track_first_frame(frames, n, addr);

	memset(t->addrs, 0, sizeof(t->addrs));
	for (i = 0; i < TRACK_ADDRS_COUNT && first + i < n; i++)
		t->addrs[i] = (unsigned long)frames[first + i];
	t->addr = addr;
	t->cpu = this_cpu_id;
	t->pid = os_gettid();
	t->when = track_now();
}

/* "func+0x1c/0x40", else "module+0x1234", else "0x...": the kernel's %pS. */
static const char *symbolise(unsigned long addr, char *buf, size_t len)
{
	const ElfW(Sym) *sym = NULL;
	const char *mod;
	Dl_info info;

	/* why addr - 1: a return address may lie just past its function */
	if (!dladdr1((void *)(addr - 1), &info, (void **)&sym, RTLD_DL_SYMENT)) {
		snprintf(buf, len, "0x%lx", addr);
		return buf;
	}
	if (info.dli_sname && info.dli_saddr) {
		snprintf(buf, len, "%s+0x%lx/0x%lx", info.dli_sname,
			 addr - (unsigned long)info.dli_saddr, sym ? (unsigned long)sym->st_size : 0UL);
		return buf;
	}
	mod = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
	mod = mod ? mod + 1 : info.dli_fname ? info.dli_fname : "?";
	snprintf(buf, len, "%s+0x%lx", mod, addr - (unsigned long)info.dli_fbase);
	return buf;
}

void print_track(const char *what, const struct track *t, unsigned long now)
{
	char sym[SYM_LEN];
	int i;

	if (!t->addr)
		return;
	slab_printk("INFO: %s in %s age=%lu cpu=%d pid=%d\n", what,
		    symbolise(t->addr, sym, sizeof(sym)), now - t->when, t->cpu, t->pid);
	for (i = 0; i < TRACK_ADDRS_COUNT && t->addrs[i]; i++)
		slab_printk("\t%s\n", symbolise(t->addrs[i], sym, sizeof(sym)));
}

void dump_stack(void)
{
	void *frames[TRACK_ADDRS_COUNT + 1];
	int n = backtrace(frames, (int)ARRAY_SIZE(frames)), i;
	char sym[SYM_LEN];

	slab_printk("CPU: %d PID: %d Comm: %s\nCall Trace:\n", this_cpu_id, os_gettid(),
		    program_invocation_short_name);
	for (i = 1; i < n; i++)		/* why 1: not dump_stack itself */
		slab_printk(" %s\n", symbolise((unsigned long)frames[i], sym, sizeof(sym)));
}
