// SPDX-License-Identifier: MIT
/*
 * init.c - bringing the memory map and the page allocator up on first use.
 *
 * 1. Overview.  Nothing needs an init call: every entry point runs
 *    mm_ensure_init() (internal.h), one acquire load of mm_initialized on
 *    the fast path.  The first caller runs mm_init_slow(), which does, once:
 *      parse_early_options()   USLAB_OPTIONS (sets memmap_arena_size, ...)
 *      memmap_init()           reserve the arena and the vmemmap
 *      page_alloc_init()       zones, free lists, per-CPU page lists
 *    and then publishes mm_initialized with a release store, so a thread
 *    that sees it true also sees everything the steps wrote.
 *
 * 2. States: not started (flag false, nobody in the mutex); running (flag
 *    false, mm_init_lock held by the initialising thread, which has
 *    mm_init_running set); done (flag true, forever).
 *
 * 3. Concurrency.  Other threads that arrive while the steps run wait on
 *    mm_init_lock and find the flag set once they get it.  The initialising
 *    thread itself may come back (a step that reaches an entry point, or
 *    a malloc drop-in whose first call comes from inside libc during the
 *    steps): it sees mm_init_running and returns at once instead of
 *    deadlocking, with the steps not finished; an entry point reached that
 *    way must treat the library as having no memory yet (return NULL).
 *
 * 4. No address space.  If memmap_init() fails (the OS grants no address
 *    space for the arena at all; memmap.c says why), one more line on
 *    stderr says what that means, page_alloc_init() still runs so the
 *    allocator's lists exist, and mm_initialized is set anyway:
 *    memmap.max_pfn stays 0, so the page allocator finds no memory and
 *    every allocation returns NULL, cheaply, instead of retrying the
 *    reservation on every call.
 *
 * 5. Lock order: mm_init_lock comes after the malloc drop-in's init lock
 *    and before every lock the steps take (memmap, page allocator, cpu,
 *    and fork.c's registry lock, since the steps register their locks).
 *    That last edge is why mm_init_lock is not registered with fork.c: its
 *    prepare handler holds the registry lock while it takes the registered
 *    locks, so registering mm_init_lock would close a cycle.  The cost: a
 *    fork() while another thread is initialising leaves a child whose first
 *    allocation waits for ever.  The window is the library's first use,
 *    normally before a program starts threads.
 */
#include <pthread.h>

#include "internal.h"
#include "atomic.h"
#include "memcheck.h"
#include "os/os.h"

bool mm_initialized;			/* set once, with release, when init is done */
static DEFINE_MUTEX(mm_init_lock);	/* serialises the initialising steps */
/* Per thread: this thread is running the initialising steps. */
static __thread bool mm_init_running __attribute__((tls_model("initial-exec")));

static void mm_report_no_memmap(void)
{
	static const char msg[] =
		"uslab: no memory map: every allocation will return NULL\n";

	os_write_all(2, msg, sizeof(msg) - 1);
}

/* The steps, in order; caller holds mm_init_lock and the flag is false. */
static void mm_init_steps(void)
{
	parse_early_options();
	if (!memmap_init())
		mm_report_no_memmap();
	memcheck_init((void *)memmap.arena_start, memmap.arena_end - memmap.arena_start);
	page_alloc_init();
	smp_store_release(&mm_initialized, true);
}

noinline __cold void mm_init_slow(void)
{
	if (smp_load_acquire(&mm_initialized) || mm_init_running)
		return;
	mutex_lock(&mm_init_lock);
	/* why re-check: another thread may have finished while we waited. */
	if (!smp_load_acquire(&mm_initialized)) {
		mm_init_running = true;
		mm_init_steps();
		mm_init_running = false;
	}
	mutex_unlock(&mm_init_lock);
}
