// SPDX-License-Identifier: MIT
/*
 * track.c - owner tracks (struct track): capture and print; see track.h.
 *
 * 1. Overview.  set_track() records the API caller's return address, the
 *    stack from that frame outwards, the CPU id, the thread id and a
 *    millisecond time stamp.  print_track() prints them in the layout of
 *    the kernel's SLUB reports, each address through sprint_backtrace().
 *    Nothing here knows which allocator is built.
 *
 * 2. Data structures.  The stack is taken by following the frame pointer
 *    chain (the library is built with -fno-omit-frame-pointer): on x86-64
 *    and AArch64 a frame pointer points at a frame record, the caller's
 *    frame pointer followed by the return address into the caller.  The
 *    walk is bounded by the current thread's stack, looked up once per
 *    thread with pthread_getattr_np() and kept in track_self, an
 *    initial-exec __thread (no __tls_get_addr, which may allocate).  It
 *    stops at a NULL, misaligned, non-increasing or out-of-bounds frame, a
 *    zero return address, or the track's depth.  This costs tens of
 *    nanoseconds where glibc's backtrace() (DWARF unwinding) cost
 *    microseconds per track.  Where the bounds are not known (below) the
 *    walk reads each record with process_vm_readv() on this process, a
 *    system call that fails instead of faulting on an unmapped or
 *    unreadable address: slower, but with neither bounds, lock nor
 *    allocation.  track_self also keeps the thread id, which
 *    would otherwise cost a system call per track; the fork child hook
 *    forgets it (the child's thread has a new one).  A child made without
 *    the atfork handlers (_Fork, a raw clone) that allocates reports its
 *    parent's thread id.
 *
 * 3. States of a thread's track_self (its stack bounds).
 *      hi == 0, !busy, !failed   not looked up yet: the next track does it
 *      busy                      pthread_getattr_np() is running; it
 *                                allocates (maybe through this library),
 *                                and tracks taken meanwhile walk with
 *                                checked reads
 *      hi != 0                   [lo, hi) is the stack: tracks walk frames
 *      failed                    no bounds: tracks walk with checked reads
 *    Checked reads also serve when the current frame is not on the
 *    thread's stack (a signal handler on sigaltstack, a makecontext()
 *    stack) and in dump_stack(), which may run under allocator locks and
 *    so never looks bounds up.  backtrace() is used only where
 *    track_init()'s probe finds the walk cannot work: other architectures,
 *    a build with -fomit-frame-pointer, or process_vm_readv() refused (a
 *    seccomp filter).  Only then is libgcc_s loaded (why it matters: 124
 *    KiB of resident file pages and the loader's allocations in every
 *    program under the malloc drop-in).
 *
 * 4. Finding the caller's frame.  How many allocator frames lie between
 *    set_track() and the program depends on inlining.  The API entry point
 *    passes its own return address (addr), which is exactly one of the
 *    return addresses walked: the stored stack starts there.  If it is not
 *    found (a tail call), the stack starts at set_track()'s caller.  Code
 *    built without frame pointers (the C library, say) hides its caller:
 *    the chain goes on from the next frame record, or ends.  The program's
 *    callers of the API are found as long as they keep frame pointers.
 *
 * 5. Locks and memory.  The walk takes no lock and never allocates.  The
 *    look-up allocates once per thread (glibc's pthread_getattr_np copies
 *    the thread's CPU mask), maybe through this library's malloc, which
 *    may come back here: busy sends that nested track to checked reads.
 *    Where the probe failed, backtrace() is the fallback; it allocates on
 *    its first call (dlopen of libgcc_s), which track_init() then makes at
 *    slab initialisation.  It and dladdr() take the dynamic loader's lock.
 *    So callers capture tracks before taking any allocator lock.  Output
 *    goes through slab_printk() (a stack buffer and one write).
 *
 * 6. Invariants.  Every address the bounded walk reads lies in [frame, hi)
 *    of the current thread's stack, at or above the walker's own frame, so
 *    it is mapped; the checked walk reads only through process_vm_readv().
 *    Frames strictly increase and are at most max, so both walks end.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "track.h"
#include "slab.h"
#include "cpu.h"
#include "os/os.h"

#define TRACK_SKIP_MAX	16	/* allocator frames looked through for addr */
#define SYM_LEN		192	/* longest symbol text printed */

#if defined(__x86_64__) || defined(__aarch64__)
#define TRACK_FRAME_RECORDS	1	/* frame pointer -> { caller's fp, return address } */
#else
#define TRACK_FRAME_RECORDS	0
#endif

/* why: the walk reads frame records of callers that may sit between their
 * instrumented locals, and garbage links of code without frame pointers */
#define __no_sanitize_walk	__attribute__((no_sanitize("address", "thread")))

/* What set_track() keeps of the current thread (§3); this thread only. */
struct track_thread {
	unsigned long lo;	/* lowest address of its stack */
	unsigned long hi;	/* one past the highest; 0: not known */
	int tid;		/* its thread id; 0: not known (reset in a fork child) */
	bool busy;		/* the look-up is running */
	bool failed;		/* the look-up failed: use backtrace() */
};

/* A frame record, where a frame pointer points. */
struct stack_frame {
	const struct stack_frame *next;	/* the caller's frame pointer */
	unsigned long ret;		/* the return address into the caller */
};

static __thread struct track_thread track_self __attribute__((tls_model("initial-exec")));
static bool track_ready;	/* track_init() done (atomic) */
static bool track_walk_ok;	/* frame records and checked reads work (atomic) */

/* ---- the current thread's stack ---- */

static noinline __cold bool track_stack_lookup(struct track_thread *ts)
{
	pthread_attr_t attr;
	size_t size;
	void *base;

	ts->busy = true;	/* why: pthread_getattr_np allocates, maybe through us */
	if (!pthread_getattr_np(pthread_self(), &attr)) {
		if (!pthread_attr_getstack(&attr, &base, &size)) {
			ts->lo = (unsigned long)base;
			ts->hi = (unsigned long)base + size;
		}
		pthread_attr_destroy(&attr);
	}
	ts->failed = !ts->hi;
	ts->busy = false;
	return !ts->failed;
}

/* The bounds of the current thread's stack, looked up on first use. */
static bool track_stack_bounds(struct track_thread *ts)
{
	if (likely(ts->hi))
		return true;
	if (ts->busy || ts->failed)
		return false;
	return track_stack_lookup(ts);
}

/* ---- the walk ---- */

/* Whether f may be read as the record after prev (NULL: the first one). */
static bool frame_ok(const struct stack_frame *f, const struct stack_frame *prev,
		     const struct track_thread *ts)
{
	unsigned long a = (unsigned long)f;

	return a > (unsigned long)prev && a % sizeof(long) == 0 &&
	       a >= ts->lo && a <= ts->hi - sizeof(*f);
}

/* Return addresses of up to max records from f outwards; how many. */
static __no_sanitize_walk int walk_frames(const struct stack_frame *f, const struct track_thread *ts,
					  unsigned long *out, int max)
{
	int n = 0;

	if (!frame_ok(f, NULL, ts))
		return 0;
	while (n < max && f->ret) {
		out[n++] = f->ret;
		if (!frame_ok(f->next, f, ts))
			break;
		f = f->next;
	}
	return n;
}

/* Copy the record at f, false if it cannot be read: process_vm_readv() on
 * ourselves fails with EFAULT where a load would fault (§2). */
static bool frame_read_checked(const struct stack_frame *f, struct stack_frame *rec)
{
	struct iovec local = { rec, sizeof(*rec) };
	struct iovec remote = { (void *)f, sizeof(*rec) };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof(*rec);
}

/* As walk_frames(), with no bounds: each record read through the kernel. */
static int walk_frames_checked(const struct stack_frame *f, unsigned long *out, int max)
{
	const struct stack_frame *prev = NULL;
	struct stack_frame rec;
	int n = 0;

	while (n < max && (unsigned long)f > (unsigned long)prev &&
	       (unsigned long)f % sizeof(long) == 0 && frame_read_checked(f, &rec) && rec.ret) {
		out[n++] = rec.ret;
		prev = f;
		f = rec.next;
	}
	return n;
}

/*
 * The return addresses from here outwards: out[0] returns into this
 * function's caller.  noinline: its own frame is the walk's start.
 * lookup: the thread's stack bounds may be looked up (that allocates).
 */
static noinline int stack_frames(unsigned long *out, int max, bool lookup)
{
	struct track_thread *ts = &track_self;
	void *frames[TRACK_ADDRS_COUNT + TRACK_SKIP_MAX + 1];
	int n = 0, i;

	if (likely(READ_ONCE(track_walk_ok))) {
		if (lookup ? track_stack_bounds(ts) : ts->hi != 0)
			n = walk_frames(__builtin_frame_address(0), ts, out, max);
		if (!n)		/* busy, failed, not looked up, off the stack */
			n = walk_frames_checked(__builtin_frame_address(0), out, max);
		return n;
	}
	n = backtrace(frames, min(max + 1, (int)ARRAY_SIZE(frames)));
	for (i = 1; i < n; i++)		/* why 1: frames[0] is in this function */
		out[i - 1] = (unsigned long)frames[i];
	return n > 0 ? n - 1 : 0;
}

/* Whether a checked walk from its own frame sees this frame's and its
 * caller's return addresses: the build keeps frame records and
 * process_vm_readv() works (§3).  Looks no bounds up: nothing allocates. */
static noinline __cold bool walk_probe(unsigned long caller_ret)
{
	unsigned long frames[2];
	int n;

	if (!TRACK_FRAME_RECORDS)
		return false;
	n = walk_frames_checked(__builtin_frame_address(0), frames, 2);
	return n == 2 && frames[0] == _RET_IP_ && frames[1] == caller_ret;
}

static noinline __cold bool walk_works(void)
{
	bool ok = walk_probe(_RET_IP_);

	barrier();	/* why: no tail call, the probe needs this frame */
	return ok;
}

/* ---- tracks ---- */

/* The current thread's id, a system call only on its first track. */
static int track_tid(void)
{
	struct track_thread *ts = &track_self;

	if (unlikely(!ts->tid))
		ts->tid = os_gettid();
	return ts->tid;
}

/* In a fork child: the one thread left has a new id. */
static void track_fork_child(void)
{
	track_self.tid = 0;
}

static const struct fork_hooks track_fork_hooks = {
	.child = track_fork_child,
};

/* why a constructor: registering takes fork.c's registry lock, which must
 * not be taken under the locks slab initialisation holds */
static void __attribute__((constructor)) track_constructor(void)
{
	fork_hooks_register(&track_fork_hooks, FORK_RANK_LEAF);
}

void track_init(void)
{
	void *frames[2];
	bool ok;

	if (READ_ONCE(track_ready))
		return;
	ok = walk_works();
	/* why: the first backtrace() dlopens libgcc_s, which allocates; only
	 * the fallback needs it (§3), so only then is it loaded */
	if (!ok)
		backtrace(frames, (int)ARRAY_SIZE(frames));
	WRITE_ONCE(track_walk_ok, ok);
	WRITE_ONCE(track_ready, true);
}

unsigned long track_now(void)
{
	struct timespec ts;

	/* why coarse: the time of the last tick, as the kernel's jiffies, a
	 * few nanoseconds where the precise clock costs tens per track */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (unsigned long)ts.tv_sec * 1000UL + (unsigned long)ts.tv_nsec / 1000000UL;
}

/* Index of the frame returning to addr; 1 (past set_track) if none does. */
static int track_first_frame(const unsigned long *frames, int n, unsigned long addr)
{
	int i;

	for (i = 0; i < n; i++)
		if (frames[i] == addr)
			return i;
	return n > 1 ? 1 : n;
}

void set_track(struct track *t, unsigned long addr)
{
	unsigned long frames[TRACK_ADDRS_COUNT + TRACK_SKIP_MAX];
	int n = stack_frames(frames, (int)ARRAY_SIZE(frames), true);
	int i, first = track_first_frame(frames, n, addr);

	for (i = 0; i < TRACK_ADDRS_COUNT; i++)
		t->addrs[i] = first + i < n ? frames[first + i] : 0;
	t->addr = addr;
	t->cpu = this_cpu_id;
	t->pid = track_tid();
	t->when = track_now();
}

/* ---- printing ---- */

const char *sprint_backtrace(char *buf, size_t len, unsigned long addr)
{
	const ElfW(Sym) *sym = NULL;
	const char *mod;
	Dl_info info;

	/* why addr - 1: a return address may lie just past its function */
	if (!addr || !dladdr1((void *)(addr - 1), &info, (void **)&sym, RTLD_DL_SYMENT)) {
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
		    sprint_backtrace(sym, sizeof(sym), t->addr), now - t->when, t->cpu, t->pid);
	for (i = 0; i < TRACK_ADDRS_COUNT && t->addrs[i]; i++)
		slab_printk("\t%s\n", sprint_backtrace(sym, sizeof(sym), t->addrs[i]));
}

/* why no look-up: a report may be printed under allocator locks (§5) */
void dump_stack(void)
{
	unsigned long frames[TRACK_ADDRS_COUNT + 1];
	int n = stack_frames(frames, (int)ARRAY_SIZE(frames), false), i;
	char sym[SYM_LEN];

	slab_printk("CPU: %d PID: %d Comm: %s\nCall Trace:\n", this_cpu_id, os_gettid(),
		    program_invocation_short_name);
	for (i = 1; i < n; i++)		/* why 1: not dump_stack itself */
		slab_printk(" %s\n", sprint_backtrace(sym, sizeof(sym), frames[i]));
}
