/* SPDX-License-Identifier: MIT */
/*
 * stats_client.h - the tools' side of the statistics protocol
 * (src/mm/stats_proto.h): find a process's area, check that it is alive,
 * send a request and wait for the answer; and the command-line pieces the
 * tools share (bad usage, process ids, numbers).  Used by uslabinfo and
 * uslabtop; header-only (static inline), since each tool is one file.  A
 * tool defines TOOL_NAME, its name in messages, before including it.
 *
 * A file whose process is gone, or whose process has no service thread
 * any more (it ran exec() into a program without uslab), is stale: the
 * tools say so and remove it.
 */
#ifndef USLAB_TOOLS_STATS_CLIENT_H
#define USLAB_TOOLS_STATS_CLIENT_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mm/stats_proto.h"

#ifndef TOOL_NAME
#error "a tool defines TOOL_NAME (its name in messages) before including stats_client.h"
#endif

#define STATS_CLIENT_DEFAULT_TIMEOUT	10.0	/* seconds to wait for an answer */
#define TOOL_MAX_SECONDS		86400.0	/* longest timeout or delay a tool takes */

struct stats_client {
	int pid;				/* the process looked at */
	int fd;					/* its area file, or -1 */
	struct uslab_stats_header *h;		/* the mapped area, or NULL */
	double timeout;				/* seconds to wait for an answer */
	char error[512];			/* why the last call failed */
};

__attribute__((format(printf, 2, 3)))
static inline int stats_client_fail(struct stats_client *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	return -1;
}

static inline double stats_client_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void stats_client_path(char *buf, size_t len, int pid)
{
	snprintf(buf, len, "%s/%s%d", USLAB_STATS_DIR, USLAB_STATS_PREFIX, pid);
}

static inline bool stats_pid_alive(int pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

/*
 * Does pid still have thread tid, the service thread?  After an exec it is
 * gone.  Its name is not checked: a program may rename its threads, and a
 * thread that is there answers or times out, where a removed file would
 * hide a live process for good.
 */
static inline bool stats_service_alive(int pid, int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
	return access(path, F_OK) == 0 || errno != ENOENT;
}

static inline void stats_client_close(struct stats_client *c)
{
	if (c->h)
		munmap(c->h, USLAB_STATS_AREA_SIZE);
	if (c->fd >= 0)
		close(c->fd);
	c->h = NULL;
	c->fd = -1;
}

/* The file exists but is no uslab area we can use: say why (and remove it when stale). */
static inline int stats_client_stale(struct stats_client *c, const char *why)
{
	char path[64];

	stats_client_path(path, sizeof(path), c->pid);
	stats_client_close(c);
	if (unlink(path) == 0)
		return stats_client_fail(c, "pid %d: %s; removed its stale file %s", c->pid, why, path);
	return stats_client_fail(c, "pid %d: %s (stale file %s)", c->pid, why, path);
}

static inline int stats_client_open_fail(struct stats_client *c, const char *path, int err)
{
	if (err == ENOENT && !stats_pid_alive(c->pid))
		return stats_client_fail(c, "no process %d", c->pid);
	if (err == ENOENT)
		return stats_client_fail(c, "pid %d has no uslab statistics area (%s): it does not use "
					 "uslab, has not used it yet, or runs with USLAB_OPTIONS=stats=off",
					 c->pid, path);
	if (err == EACCES)
		return stats_client_fail(c, "%s: %s (run as the process's user, or as root)", path,
					 strerror(err));
	return stats_client_fail(c, "%s: %s", path, strerror(err));
}

/* Map the open file and check that it is an area of this protocol for pid. */
static inline int stats_client_map(struct stats_client *c)
{
	struct stat st;
	void *p;

	if (fstat(c->fd, &st) || (uint64_t)st.st_size < USLAB_STATS_AREA_SIZE)
		return stats_client_stale(c, "not a uslab statistics area (wrong size)");
	p = mmap(NULL, USLAB_STATS_AREA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED)
		return stats_client_fail(c, "pid %d: mmap: %s", c->pid, strerror(errno));
	c->h = p;
	if (c->h->magic != USLAB_STATS_MAGIC || c->h->pid != c->pid)
		return stats_client_stale(c, "not a uslab statistics area (bad header)");
	if (c->h->version != USLAB_STATS_VERSION) {
		unsigned int version = c->h->version;

		stats_client_close(c);
		return stats_client_fail(c, "pid %d speaks statistics protocol version %u; this tool "
					 "speaks version %u", c->pid, version, USLAB_STATS_VERSION);
	}
	return 0;
}

/* The service thread's id, waiting up to a second for one that is starting. */
static inline int stats_client_tid(struct stats_client *c)
{
	double end = stats_client_now() + 1.0;
	int tid;

	while (!(tid = __atomic_load_n(&c->h->service_tid, __ATOMIC_ACQUIRE)) &&
	       stats_client_now() < end)
		usleep(10000);
	return tid;
}

/*
 * Open the file, waiting up to a second for a live process to make it: its
 * service thread makes it just after the library starts (and a fork
 * child's, 0.1 s after the fork).
 */
static inline int stats_client_open_file(const char *path, int pid)
{
	double end = stats_client_now() + 1.0;
	int fd;

	while ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0 && errno == ENOENT &&
	       stats_client_now() < end && stats_pid_alive(pid))
		usleep(20000);
	if (fd < 0 && errno == ESRCH)
		errno = ENOENT;
	return fd;
}

/* Open pid's area; 0, or -1 with c->error set. */
static inline int stats_client_open(struct stats_client *c, int pid)
{
	char path[64];
	int tid;

	c->pid = pid;
	c->h = NULL;
	c->timeout = c->timeout > 0 ? c->timeout : STATS_CLIENT_DEFAULT_TIMEOUT;
	stats_client_path(path, sizeof(path), pid);
	c->fd = stats_client_open_file(path, pid);
	if (c->fd < 0)
		return stats_client_open_fail(c, path, errno);
	if (stats_client_map(c))
		return -1;
	if (!stats_pid_alive(pid))
		return stats_client_stale(c, "the process is gone");
	tid = stats_client_tid(c);
	if (!tid)
		return stats_client_stale(c, "the process never started its service thread");
	if (!stats_service_alive(pid, tid))
		return stats_client_stale(c, "the process has no uslab service thread any more "
					  "(it ran exec, or is a different process with that pid)");
	return 0;
}

static inline long stats_client_futex(uint32_t *word, int op, uint32_t val, double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	return syscall(SYS_futex, word, op, val, op == FUTEX_WAIT ? &ts : NULL, NULL, 0);
}

/* One client at a time: flock, waited for until the deadline. */
static inline int stats_client_lock(struct stats_client *c, double end)
{
	while (flock(c->fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return stats_client_fail(c, "pid %d: flock: %s", c->pid, strerror(errno));
		if (stats_client_now() >= end)
			return stats_client_fail(c, "pid %d: another tool kept its statistics area busy "
						 "for %.0f s", c->pid, c->timeout);
		usleep(10000);
	}
	return 0;
}

/* Wait for the answer numbered seq (the lock is held). */
static inline int stats_client_wait(struct stats_client *c, uint32_t seq, double end)
{
	uint32_t got;

	while ((got = __atomic_load_n(&c->h->resp_seq, __ATOMIC_ACQUIRE)) != seq) {
		if (!stats_pid_alive(c->pid))
			return stats_client_fail(c, "pid %d exited before it answered", c->pid);
		if (stats_client_now() >= end)
			return stats_client_fail(c, "pid %d did not answer within %.0f s (is it stopped?)",
						 c->pid, c->timeout);
		stats_client_futex(&c->h->resp_seq, FUTEX_WAIT, got, 0.1);
	}
	return 0;
}

/*
 * Ask for op with arg and wait for the answer.  Returns 0 when one came (its
 * status is c->h->status, its text c->h->message, its bytes
 * stats_client_answer(c)), or -1 with c->error set.
 */
static inline int stats_client_request(struct stats_client *c, uint32_t op, const char *arg)
{
	double end = stats_client_now() + c->timeout;
	uint32_t seq;
	int ret;

	if (strlen(arg) >= USLAB_STATS_ARG_MAX)
		return stats_client_fail(c, "argument longer than %d bytes", USLAB_STATS_ARG_MAX - 1);
	if (stats_client_lock(c, end))
		return -1;
	c->h->op = op;
	strcpy(c->h->arg, arg);
	seq = __atomic_load_n(&c->h->req_seq, __ATOMIC_RELAXED) + 1;
	/* why release: the service reads op and arg after it sees the number */
	__atomic_store_n(&c->h->req_seq, seq, __ATOMIC_RELEASE);
	stats_client_futex(&c->h->req_seq, FUTEX_WAKE, INT_MAX, 0);
	ret = stats_client_wait(c, seq, end);
	flock(c->fd, LOCK_UN);
	return ret;
}

static inline const char *stats_client_answer(const struct stats_client *c)
{
	return (const char *)c->h + USLAB_STATS_ANSWER_OFF;
}

/* The snapshot of the last USLAB_OP_SNAPSHOT answer. */
static inline const struct uslab_snapshot *stats_client_snapshot(const struct stats_client *c)
{
	return (const struct uslab_snapshot *)stats_client_answer(c);
}

/* Take a snapshot; NULL with c->error set on failure. */
static inline const struct uslab_snapshot *stats_client_take_snapshot(struct stats_client *c)
{
	if (stats_client_request(c, USLAB_OP_SNAPSHOT, ""))
		return NULL;
	if (c->h->status < 0) {
		stats_client_fail(c, "pid %d: %s", c->pid, c->h->message);
		return NULL;
	}
	return stats_client_snapshot(c);
}

static inline const struct uslab_cache_rec *snapshot_caches(const struct uslab_snapshot *snap)
{
	return (const struct uslab_cache_rec *)((const char *)snap + snap->caches_off);
}

static inline const struct uslab_alias_rec *snapshot_aliases(const struct uslab_snapshot *snap)
{
	return (const struct uslab_alias_rec *)((const char *)snap + snap->aliases_off);
}

static inline const char *snapshot_string(const struct uslab_snapshot *snap, uint32_t off)
{
	return (const char *)snap + snap->strings_off + off;
}

/* ---- the command line ---- */

/* "TOOL: why" on stderr; returns 1, the exit status of a failed request. */
static inline int tool_error(const char *why)
{
	fprintf(stderr, TOOL_NAME ": %s\n", why);
	return 1;
}

/* "TOOL: why" and the --help hint on stderr; exit status 2, as getopt's tools. */
static inline __attribute__((noreturn)) void bad_usage(const char *why)
{
	fprintf(stderr, TOOL_NAME ": %s\n", why);
	fprintf(stderr, "Try '" TOOL_NAME " --help' for more information.\n");
	exit(2);
}

/* The process id s spells: a positive int and nothing after it; 0 if none. */
static inline int pid_of(const char *s)
{
	char *end;
	long pid = strtol(s, &end, 10);

	return *end || pid <= 0 || pid > INT_MAX ? 0 : (int)pid;
}

/* A PID operand or option; bad usage if it is no process id. */
static inline int parse_pid(const char *s)
{
	int pid = pid_of(s);

	if (!pid)
		bad_usage("PID must be a process id");
	return pid;
}

/* The number s spells, above 0 and at most max; else bad usage, saying what. */
static inline double parse_number(const char *s, double max, const char *what)
{
	char *end;
	double v = strtod(s, &end);

	/* why !(v > 0): NaN compares false both ways */
	if (*end || !(v > 0) || v > max)
		bad_usage(what);
	return v;
}

#endif /* USLAB_TOOLS_STATS_CLIENT_H */
