// SPDX-License-Identifier: MIT
/*
 * stats.c - live statistics from outside the process: the kernel's
 * /proc/slabinfo, /sys/kernel/slab and /proc/buddyinfo for a uslab process,
 * read by tools/uslabinfo and tools/uslabtop while it runs.
 *
 * 1. Overview
 *    Every process that uses the library gets a small shared-memory area,
 *    the file /dev/shm/uslab-<pid> (mode 0600), and one service thread,
 *    "uslab-stats", that sleeps in FUTEX_WAIT on a word of that area.  A
 *    tool maps the file, writes a request (a snapshot of every cache, or
 *    shrink / validate a cache, or draw the memory map), and wakes the
 *    thread; the thread does the work inside the process, with the
 *    allocator's ordinary locking, writes the answer into the area, and
 *    wakes the tool.  The protocol is stats_proto.h.  Nothing of this is on
 *    any allocation or free path: until someone asks, the thread sleeps and
 *    costs nothing.
 *
 *    The thread starts once the slab layer is up (slab_init_slow() calls
 *    stats_start()) and libc is (this file's constructor ran): under the
 *    malloc drop-in that is the constructor, which runs after the first
 *    mallocs of ld.so and libc; in a program linked with the library it is
 *    the first use.  A process that never uses the library has nothing to
 *    show and gets no thread.  USLAB_OPTIONS stats=off turns both the area
 *    and the thread off (stats=on is the default).
 *
 * 2. Data structures
 *    The area (stats_proto.h): a header page with the mailbox (req_seq and
 *    resp_seq are the futex words), then the answer area.  The file is
 *    sparse: only the header page is reserved when it is made; each answer
 *    first punches out the previous one, then reserves (fallocate) every
 *    range before writing it through the mapping, so a full /dev/shm gives
 *    the tool an error instead of a SIGBUS to the process.  The service
 *    reopens the file by name for each answer (for fallocate), so a
 *    program that closes every descriptor does not break it.
 *    A snapshot: struct uslab_snapshot, the cache records (slabinfo plus
 *    get_cache_stats(), struct cache_stats in slab.h), the alias records
 *    (slab_aliases, slab_common.c), their names, then the text of
 *    show_slabinfo() and show_buddyinfo() exactly as the process prints it.
 *
 * 3. States (stats_state)
 *      IDLE      no thread: the library is not up yet, or stats=off, or a
 *                fork child whose parent had no thread
 *      STARTING  stats_start() created the thread; the area is being made
 *      RUNNING   the area exists and the thread serves it (service_tid set)
 *      FAILED    the area or the thread could not be made; reported once
 *                on stderr, never retried in this process
 *    IDLE -> STARTING by one compare-and-swap, so only one thread starts.
 *
 * 4. Lock order.  The service takes only what a caller of the library
 *    would: slab_mutex (to walk slab_caches and keep a cache alive while it
 *    is measured, shrunk or validated), then whatever get_slabinfo(),
 *    get_cache_stats() and kmem_cache_shrink() take below it.  Text is
 *    formatted (stdio may allocate) only after slab_mutex is dropped.
 *    Clients serialise among themselves with flock() on the file; the
 *    process never takes that lock.  After each answer the thread gives
 *    back any CPU id it attached to (cpu_detach_self(), outside
 *    slab_mutex, which the teardown takes), so it holds no per-CPU memory
 *    while it sleeps.
 *
 * 5. Invariants
 *    - stats_area_pid is 0 or the pid the file of this process is named
 *      after; only the process whose getpid() equals it unlinks the file.
 *    - resp_seq is written only after the whole answer is, with release;
 *      req_seq only after op and arg, with release.
 *    - The answer area is never written where the file was not reserved.
 *
 * 6. Fork, exec and exit
 *    fork(): the child has no service thread and the parent's area is not
 *    its own.  fork.c's child hook (leaf rank) unmaps the parent's area;
 *    then this file's own pthread_atfork child handler, registered after
 *    fork.c's (so it runs after it, when every lock of the library is free
 *    again and glibc has reset its own state), starts a thread for the
 *    child at once: the child is at a safe point, no allocator lock is
 *    held, and glibc supports creating threads from a child handler.  The
 *    new thread first sleeps STATS_SETTLE_NS (0.1 s), then makes
 *    /dev/shm/uslab-<child pid>: a child that execs or exits before that
 *    (the common fork-exec) costs one thread and leaves no file.
 *    exec(): the thread dies with the old image; a uslab program started
 *    by exec replaces the file of its pid (unlink, then create).  exit():
 *    a destructor unlinks the file.  A process that dies by a signal,
 *    _exit()s, or execs a program without uslab leaves a stale file: the
 *    tools ignore and remove files whose pid is gone or whose service
 *    thread is gone, and each new service thread removes files of dead
 *    pids once when it starts (one getdents walk of /dev/shm, no malloc).
 *
 * 7. Cost.  At start: one thread (1 MiB of stack address space, a few
 *    pages used) and two pages of /dev/shm.  Per request: the work asked
 *    for, on the service thread.  Per fork(): the child's thread (creating
 *    it and, at exit or exec, ending it: about 0.1-0.2 ms of CPU measured
 *    on a loaded 2-CPU machine).  On every allocation and free path:
 *    nothing (callgrind: the same instructions per pair with stats on and
 *    off for SLUB, SLAB and the drop-in).  What the thread's mere presence
 *    changes is glibc's: a process with two threads loses its
 *    single-threaded shortcuts, non-atomic mutexes and unlocked stdio
 *    (SLOB, which takes slob_lock on every call, runs 0.3% more
 *    instructions).  A program that must stay single-threaded
 *    (unshare(CLONE_NEWUSER), for instance), or that forks very often, runs
 *    with stats=off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "slab.h"
#include "cpu.h"
#include "stats.h"
#include "stats_proto.h"
#include "os/os.h"

#define STATS_STACK_SIZE	(1UL << 20)	/* the service thread's stack */
#define STATS_NAME_LEN		32		/* "/uslab-<pid>" */
#define STATS_ROW_BOUND		512		/* bytes of one slabinfo row at most, name aside */
#define STATS_SETTLE_NS		100000000L	/* a fork child's service waits this long first */

enum stats_state {
	STATS_IDLE,
	STATS_STARTING,
	STATS_RUNNING,
	STATS_FAILED,
};

static bool stats_off;			/* USLAB_OPTIONS stats=off (set before init) */
static bool stats_libc_up;		/* the constructor ran (release/acquire) */
static int stats_state;			/* enum stats_state (atomic) */
static bool stats_fork_restart;		/* fork child: the parent had a thread (child only) */
/* The mapping of this process's area, NULL until the service made it
 * (written by the service thread; read by the fork child hook). */
static struct uslab_stats_header *stats_area;
static int stats_area_pid;		/* the pid the area file is named after; 0 = none (atomic) */

/* ======================= option and reports ======================= */

static int setup_stats(const char *val)
{
	if (!strcmp(val, "on"))
		stats_off = false;
	else if (!strcmp(val, "off"))
		stats_off = true;
	else
		return -1;
	return 0;
}
__setup("stats=", setup_stats);

/* One line on stderr, through a stack buffer (never allocates). */
static void stats_report(const char *what, int err)
{
	char buf[320];
	int n = snprintf(buf, sizeof(buf),
			 "uslab: no statistics area for pid %d: %s: %s (uslabinfo and uslabtop "
			 "cannot see this process; USLAB_OPTIONS=stats=off turns the area off)\n",
			 (int)getpid(), what, strerror(err));

	if (n > 0)
		os_write_all(2, buf, min((size_t)n, sizeof(buf) - 1));
}

/* ======================= the area file ======================= */

static long stats_futex(uint32_t *word, int op, uint32_t val)
{
	/* why not FUTEX_PRIVATE_FLAG: the waker is another process */
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static void stats_area_name(char *name, int pid)
{
	snprintf(name, STATS_NAME_LEN, USLAB_STATS_NAME_FMT, pid);
}

static int stats_area_open(int pid, int flags)
{
	char name[STATS_NAME_LEN];

	stats_area_name(name, pid);
	return shm_open(name, O_RDWR | O_CLOEXEC | flags, 0600);
}

/* Back [off, off + len) of the file with memory, so writing it cannot fault. */
static int stats_reserve(int fd, size_t off, size_t len)
{
	if (!fallocate(fd, 0, (off_t)off, (off_t)len))
		return 0;
	/* why accept: a file system without fallocate still takes the writes */
	return errno == EOPNOTSUPP ? 0 : -errno;
}

static void stats_header_init(struct uslab_stats_header *h, int pid)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	h->magic = USLAB_STATS_MAGIC;
	h->version = USLAB_STATS_VERSION;
	h->pid = pid;
	h->area_size = USLAB_STATS_AREA_SIZE;
	h->start_time_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	strncpy(h->allocator, allocator_name, sizeof(h->allocator) - 1);
	h->page_size = PAGE_SIZE;
	h->max_order = MAX_ORDER;
}

/* Size the new file, reserve its header page and map it; NULL on failure. */
static void *stats_area_map(int fd)
{
	int err;
	void *p;

	if (ftruncate(fd, (off_t)USLAB_STATS_AREA_SIZE))
		return stats_report("ftruncate", errno), NULL;
	err = stats_reserve(fd, 0, USLAB_STATS_ANSWER_OFF);
	if (err)
		return stats_report("fallocate", -err), NULL;
	p = mmap(NULL, USLAB_STATS_AREA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return stats_report("mmap", errno), NULL;
	return p;
}

/* Make /dev/shm/uslab-<pid> and map it; NULL (reported) on failure. */
static struct uslab_stats_header *stats_area_create(int pid)
{
	char name[STATS_NAME_LEN];
	struct uslab_stats_header *h;
	int fd;

	stats_area_name(name, pid);
	shm_unlink(name);	/* left by an earlier program of this pid (exec) */
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		stats_report("shm_open", errno);
		return NULL;
	}
	h = stats_area_map(fd);
	close(fd);
	if (!h) {
		shm_unlink(name);
		return NULL;
	}
	stats_header_init(h, pid);
	return h;
}

/* ======================= stale files of dead processes ======================= */

struct stats_dirent64 {
	uint64_t d_ino;			/* inode */
	int64_t d_off;			/* offset of the next entry */
	unsigned short d_reclen;	/* bytes of this entry */
	unsigned char d_type;		/* file type */
	char d_name[];			/* NUL-terminated name */
};

/* The pid of a file named uslab-<pid>, or -1. */
static int stats_name_pid(const char *name)
{
	size_t plen = strlen(USLAB_STATS_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, USLAB_STATS_PREFIX, plen) || !name[plen])
		return -1;
	errno = 0;
	pid = strtol(name + plen, &end, 10);
	if (*end || errno || pid <= 0 || pid > INT_MAX)
		return -1;
	return (int)pid;
}

static void stats_sweep_one(const char *name, int self)
{
	char shm[STATS_NAME_LEN];
	int pid = stats_name_pid(name);

	if (pid <= 0 || pid == self)
		return;
	/* why only ESRCH: EPERM is a live process of another user */
	if (kill(pid, 0) == 0 || errno != ESRCH)
		return;
	stats_area_name(shm, pid);
	shm_unlink(shm);
}

/* Remove the files of dead pids (raw getdents64: opendir would malloc). */
static void stats_sweep_stale(int self)
{
	char buf[4096] __attribute__((aligned(8)));
	struct stats_dirent64 *d;
	long n, off;
	int fd = open(USLAB_STATS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct stats_dirent64 *)(buf + off);
			stats_sweep_one(d->d_name, self);
		}
	}
	close(fd);
}

/* ======================= answers ======================= */

/* The answer being written into the area. */
struct stats_answer {
	char *base;			/* the answer area in the mapping */
	size_t len;			/* bytes used so far */
	int fd;				/* the area file (for fallocate), or -1 */
	int err;			/* first reservation failure (-errno), or 0 */
	char message[USLAB_STATS_MSG_MAX];	/* the line for the tool */
};

__printf(2, 3) static void answer_msg(struct stats_answer *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->message, sizeof(a->message), fmt, ap);
	va_end(ap);
}

/* size bytes of the answer area, 8-byte aligned and backed; NULL if full. */
static void *answer_reserve(struct stats_answer *a, size_t size)
{
	size_t off = ALIGN(a->len, 8UL);
	int err;

	if (a->err)
		return NULL;
	if (off + size > USLAB_STATS_ANSWER_MAX) {
		a->err = -E2BIG;
		return NULL;
	}
	err = size ? stats_reserve(a->fd, USLAB_STATS_ANSWER_OFF + off, size) : 0;
	if (err) {
		a->err = err;
		return NULL;
	}
	a->len = off + size;
	return a->base + off;
}

static uint32_t answer_off(const struct stats_answer *a, const void *p)
{
	return (uint32_t)((const char *)p - a->base);
}

/* Common fields of a cache record (slab_mutex held). */
static void cache_rec_common(struct uslab_cache_rec *r, struct kmem_cache *s)
{
	r->flags = s->flags & SLAB_FLAGS_PERMITTED;
	r->refcount = s->refcount;
	r->mergeable = !slab_unmergeable(s);
	r->ctor = (uint64_t)(uintptr_t)s->ctor;
	r->size = s->size;
	r->object_size = s->object_size;
	r->slab_size = s->size;
	r->align = s->align;
	r->usersize = s->usersize;
	r->aliases = s->refcount > 0 ? (uint64_t)s->refcount - 1 : 0;
}

static void cache_rec_slabinfo(struct uslab_cache_rec *r, struct kmem_cache *s)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	r->active_objs = si.active_objs;
	r->num_objs = si.num_objs;
	r->active_slabs = si.active_slabs;
	r->num_slabs = si.num_slabs;
	r->shared_avail = si.shared_avail;
	r->limit = si.limit;
	r->batchcount = si.batchcount;
	r->shared = si.shared;
	r->objects_per_slab = si.objects_per_slab;
	r->pages_per_slab = 1u << si.cache_order;
}

static uint64_t stat_value(unsigned long v)
{
	return v == CACHE_STAT_NONE ? USLAB_STATS_NONE : v;
}

static void cache_rec_stats(struct uslab_cache_rec *r, struct kmem_cache *s)
{
	struct cache_stats st;

	memset(&st, 0, sizeof(st));
	get_cache_stats(s, &st);
	r->objs_per_slab = stat_value(st.objs_per_slab);
	r->order = stat_value(st.order);
	r->objects = stat_value(st.objects);
	r->objects_partial = stat_value(st.objects_partial);
	r->partial = stat_value(st.partial);
	r->cpu_slabs = stat_value(st.cpu_slabs);
	r->slabs = stat_value(st.slabs);
	r->total_objects = stat_value(st.total_objects);
	r->min_partial = stat_value(st.min_partial);
	r->cpu_partial = stat_value(st.cpu_partial);
	r->slabs_cpu_partial = stat_value(st.slabs_cpu_partial);
}

/* Everything but the name (slab_mutex held). */
static void cache_rec_fill(struct uslab_cache_rec *r, struct kmem_cache *s)
{
	memset(r, 0, sizeof(*r));
	cache_rec_common(r, s);
	cache_rec_slabinfo(r, s);
	cache_rec_stats(r, s);
}

/* The string table of a snapshot: names appended, offsets from its start. */
struct stats_strtab {
	char *start;			/* first byte (in the answer area) */
	size_t len;			/* bytes used */
};

static uint32_t strtab_add(struct stats_strtab *t, const char *name)
{
	size_t n = strlen(name) + 1;
	uint32_t off = (uint32_t)t->len;

	memcpy(t->start + t->len, name, n);
	t->len += n;
	return off;
}

/* Index of c on slab_caches (slab_mutex held); the caller knows it is there. */
static uint32_t cache_index_locked(const struct kmem_cache *c)
{
	struct kmem_cache *s;
	uint32_t i = 0;

	list_for_each_entry(s, &slab_caches, list) {
		if (s == c)
			break;
		i++;
	}
	return i;
}

/* Counts and name bytes of the caches and aliases (slab_mutex held). */
static size_t snapshot_count_locked(struct uslab_snapshot *snap)
{
	struct slab_alias *al;
	struct kmem_cache *s;
	size_t names = 0;

	snap->nr_caches = snap->nr_aliases = 0;
	list_for_each_entry(s, &slab_caches, list) {
		snap->nr_caches++;
		names += strlen(s->name) + 1;
	}
	list_for_each_entry(al, &slab_aliases, list) {
		snap->nr_aliases++;
		names += strlen(al->name) + 1;
	}
	return names;
}

/* The cache and alias records and their names (slab_mutex held). */
static int snapshot_records_locked(struct stats_answer *a, struct uslab_snapshot *snap)
{
	size_t names = snapshot_count_locked(snap);
	struct uslab_cache_rec *r = answer_reserve(a, snap->nr_caches * sizeof(*r));
	struct uslab_alias_rec *ar = answer_reserve(a, snap->nr_aliases * sizeof(*ar));
	struct stats_strtab t = { answer_reserve(a, names), 0 };
	struct slab_alias *al;
	struct kmem_cache *s;

	if (!r || !ar || !t.start)
		return a->err;
	snap->caches_off = answer_off(a, r);
	snap->aliases_off = answer_off(a, ar);
	snap->strings_off = answer_off(a, t.start);
	list_for_each_entry(s, &slab_caches, list) {
		cache_rec_fill(r, s);
		r++->name_off = strtab_add(&t, s->name);
	}
	list_for_each_entry(al, &slab_aliases, list) {
		ar->cache = cache_index_locked(al->cache);
		ar++->name_off = strtab_add(&t, al->name);
	}
	snap->strings_len = (uint32_t)t.len;
	return 0;
}

/* Text the process prints itself, into at most bound bytes of the answer. */
static int snapshot_text(struct stats_answer *a, size_t bound, void (*show)(FILE *f),
			 uint32_t *off, uint32_t *len)
{
	char *buf = answer_reserve(a, bound);
	FILE *f;
	long n;

	if (!buf)
		return a->err;
	f = fmemopen(buf, bound, "w");
	if (!f)
		return -errno;
	show(f);
	fflush(f);
	n = ftell(f);
	fclose(f);
	/* why bound - 1: fmemopen keeps the last byte for a NUL */
	if (n < 0 || (size_t)n >= bound - 1)
		return -E2BIG;
	*off = answer_off(a, buf);
	*len = (uint32_t)n;
	a->len = *off + (size_t)n;
	return 0;
}

static void snapshot_memmap(struct uslab_memmap_rec *m)
{
	struct uslab_memmap_stats st;

	uslab_memmap_stats(&st);
	m->arena_bytes = st.arena_bytes;
	m->section_bytes = st.section_bytes;
	m->sections_online = st.sections_online;
	m->pages_online = st.pages_online;
	m->pages_free = st.pages_free;
	m->pages_reported = st.pages_reported;
	m->memmap_bytes_committed = st.memmap_bytes_committed;
}

static int answer_snapshot(struct stats_answer *a)
{
	struct uslab_snapshot *snap = answer_reserve(a, sizeof(*snap));
	struct timespec now;
	size_t bound;
	int err;

	if (!snap)
		return a->err;
	clock_gettime(CLOCK_REALTIME, &now);
	snap->time_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	mutex_lock(&slab_mutex);
	err = snapshot_records_locked(a, snap);
	mutex_unlock(&slab_mutex);
	/* a row is its name plus at most STATS_ROW_BOUND bytes; a few caches may come meanwhile */
	bound = snap->strings_len + (snap->nr_caches + 64) * STATS_ROW_BOUND;
	if (!err)
		err = snapshot_text(a, bound, show_slabinfo, &snap->slabinfo_off, &snap->slabinfo_len);
	if (!err)
		err = snapshot_text(a, 4096, show_buddyinfo, &snap->buddyinfo_off,
				    &snap->buddyinfo_len);
	snapshot_memmap(&snap->memmap);
	if (err)
		answer_msg(a, "snapshot failed: %s", strerror(-err));
	else
		answer_msg(a, "%u caches, %u aliases", snap->nr_caches, snap->nr_aliases);
	return err;
}

/* A cache by name, or by one of its alias names (slab_mutex held). */
static struct kmem_cache *find_cache_locked(const char *name)
{
	struct slab_alias *al;
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list)
		if (!strcmp(s->name, name))
			return s;
	list_for_each_entry(al, &slab_aliases, list)
		if (!strcmp(al->name, name))
			return al->cache;
	return NULL;
}

static int answer_shrink(struct stats_answer *a, const char *name)
{
	struct uslab_cache_rec *r = answer_reserve(a, 2 * sizeof(*r));
	struct kmem_cache *s;
	int ret = -ENOENT;

	if (!r)
		return a->err;
	mutex_lock(&slab_mutex);
	s = find_cache_locked(name);
	if (s) {
		cache_rec_fill(&r[0], s);
		ret = kmem_cache_shrink(s);
		cache_rec_fill(&r[1], s);
	}
	mutex_unlock(&slab_mutex);
	if (!s)
		answer_msg(a, "no cache named '%s'", name);
	else
		answer_msg(a, "%s: shrunk: slabs %llu -> %llu, objects %llu/%llu -> %llu/%llu", name,
			   (unsigned long long)r[0].num_slabs, (unsigned long long)r[1].num_slabs,
			   (unsigned long long)r[0].active_objs, (unsigned long long)r[0].num_objs,
			   (unsigned long long)r[1].active_objs, (unsigned long long)r[1].num_objs);
	return ret;
}

static int answer_validate(struct stats_answer *a, const char *name)
{
	struct kmem_cache *s;
	int ret = -ENOENT;

	mutex_lock(&slab_mutex);
	s = find_cache_locked(name);
	if (s)
		ret = kmem_cache_validate(s);
	mutex_unlock(&slab_mutex);
	if (!s)
		answer_msg(a, "no cache named '%s'", name);
	else if (ret == -EINVAL)
		answer_msg(a, "%s: nothing to validate: %s's kmem_cache_validate() refused it "
			   "(SLUB validates caches with debugging, e.g. USLAB_OPTIONS=slub_debug=FZPU,%s)",
			   name, allocator_name, name);
	else if (ret < 0)
		answer_msg(a, "%s: validate failed: %s", name, strerror(-ret));
	else
		answer_msg(a, "%s: validated: %d error%s found (reports go to the process's stderr)",
			   name, ret, ret == 1 ? "" : "s");
	return ret;
}

static int answer_map(struct stats_answer *a, const char *path)
{
	int ret;

	if (path[0] != '/') {
		answer_msg(a, "'%s': the process needs an absolute path", path);
		return -EINVAL;
	}
	ret = memmap_picture_write(path);
	if (ret < 0)
		answer_msg(a, "cannot write %s: %s", path, strerror(-ret));
	else
		answer_msg(a, "wrote %s", path);
	return ret;
}

static int answer_op(struct stats_answer *a, uint32_t op, const char *arg)
{
	switch (op) {
	case USLAB_OP_SNAPSHOT:
		return answer_snapshot(a);
	case USLAB_OP_SHRINK:
		return answer_shrink(a, arg);
	case USLAB_OP_VALIDATE:
		return answer_validate(a, arg);
	case USLAB_OP_MAP:
		return answer_map(a, arg);
	default:
		answer_msg(a, "unknown request %u", op);
		return -EINVAL;
	}
}

/* Serve the request in the mailbox: copy it, answer it, fill the reply fields. */
static void stats_answer_request(struct uslab_stats_header *h, int pid)
{
	struct stats_answer a = { (char *)h + USLAB_STATS_ANSWER_OFF, 0, -1, 0, "" };
	char arg[USLAB_STATS_ARG_MAX];
	uint32_t op = READ_ONCE(h->op);
	int status;

	memcpy(arg, h->arg, sizeof(arg));
	arg[sizeof(arg) - 1] = '\0';
	a.fd = stats_area_open(pid, 0);
	if (a.fd < 0)	/* (the program changed its user, say) */
		a.err = -errno;
	else		/* the previous answer was read: give its memory back */
		fallocate(a.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)USLAB_STATS_ANSWER_OFF, (off_t)USLAB_STATS_ANSWER_MAX);
	status = answer_op(&a, op, arg);
	if (a.fd >= 0)
		close(a.fd);
	if (status < 0 && !a.message[0])
		answer_msg(&a, "cannot answer: %s%s", strerror(-status),
			   a.fd < 0 ? " (reopening the statistics file failed)" : "");
	memcpy(h->message, a.message, sizeof(h->message));
	h->answer_len = a.len;
	h->status = status;
}

static __noreturn void stats_serve(struct uslab_stats_header *h, int pid)
{
	uint32_t done = 0, seq;

	for (;;) {
		seq = __atomic_load_n(&h->req_seq, __ATOMIC_ACQUIRE);
		if (seq == done) {
			/* why loop: wakes may be spurious or for an older number */
			stats_futex(&h->req_seq, FUTEX_WAIT, done);
			continue;
		}
		stats_answer_request(h, pid);
		__atomic_store_n(&h->resp_seq, seq, __ATOMIC_RELEASE);
		stats_futex(&h->resp_seq, FUTEX_WAKE, INT_MAX);
		done = seq;
		cpu_detach_self();	/* hold no per-CPU memory while asleep */
	}
}

/* ======================= the service thread ======================= */

static void *stats_service(void *settle)
{
	struct timespec delay = { 0, STATS_SETTLE_NS };
	struct uslab_stats_header *h;
	int pid = getpid();

	pthread_setname_np(pthread_self(), USLAB_STATS_THREAD);
	/* why: a fork child that execs or exits at once never makes an area */
	if (settle)
		nanosleep(&delay, NULL);
	h = stats_area_create(pid);
	if (!h) {
		WRITE_ONCE(stats_state, STATS_FAILED);
		return NULL;
	}
	WRITE_ONCE(stats_area, h);
	WRITE_ONCE(stats_area_pid, pid);
	__atomic_store_n(&h->service_tid, os_gettid(), __ATOMIC_RELEASE);
	WRITE_ONCE(stats_state, STATS_RUNNING);
	stats_sweep_stale(pid);
	stats_serve(h, pid);
}

/* A detached thread with every signal blocked: none of the program's
 * signals is ever delivered to it. */
static int stats_thread_create(bool settle)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int err;

	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, STATS_STACK_SIZE);
	/* why here: a new thread inherits its creator's mask */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, &attr, stats_service, settle ? &stats_state : NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return err;
}

/* Start the thread unless it runs or should not; settle: see stats_service(). */
static void stats_start_thread(bool settle)
{
	int idle = STATS_IDLE, err;

	if (READ_ONCE(stats_off) || !smp_load_acquire(&stats_libc_up))
		return;
	if (!__atomic_compare_exchange_n(&stats_state, &idle, STATS_STARTING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	err = stats_thread_create(settle);
	if (err) {
		stats_report("pthread_create", err);
		WRITE_ONCE(stats_state, STATS_FAILED);
	}
}

void stats_start(void)
{
	stats_start_thread(false);
}

/* ======================= fork, start and exit ======================= */

/* fork.c child hook: the parent's area and thread are not the child's. */
static void stats_fork_child_reset(void)
{
	struct uslab_stats_header *h = READ_ONCE(stats_area);
	int state = READ_ONCE(stats_state);

	if (h)
		munmap(h, USLAB_STATS_AREA_SIZE);
	WRITE_ONCE(stats_area, NULL);
	WRITE_ONCE(stats_area_pid, 0);
	stats_fork_restart = state == STATS_STARTING || state == STATS_RUNNING;
	if (state != STATS_FAILED)
		WRITE_ONCE(stats_state, STATS_IDLE);
}

/* pthread_atfork child handler, run after fork.c's: every lock is free. */
static void stats_fork_child_restart(void)
{
	if (!stats_fork_restart)
		return;
	stats_fork_restart = false;
	stats_start_thread(true);
}

static const struct fork_hooks stats_fork_hooks = {
	.child = stats_fork_child_reset,
};

static void __attribute__((constructor)) stats_constructor(void)
{
	fork_hooks_register(&stats_fork_hooks, FORK_RANK_LEAF);
	/* why after: the line above installed fork.c's handler, and child
	 * handlers run in the order they were registered */
	pthread_atfork(NULL, NULL, stats_fork_child_restart);
	smp_store_release(&stats_libc_up, true);
	if (smp_load_acquire(&slab_initialized))
		stats_start();
}

static void __attribute__((destructor)) stats_destructor(void)
{
	char name[STATS_NAME_LEN];
	int pid = READ_ONCE(stats_area_pid);

	/* why compare: a fork child that has no area of its own yet must not
	 * remove its parent's */
	if (!pid || pid != getpid())
		return;
	stats_area_name(name, pid);
	shm_unlink(name);
}
