// SPDX-License-Identifier: MIT
/*
 * os_linux.c - the OS contract of os.h, for Linux.
 *
 * 1. Overview.  Thin wrappers over mmap, munmap, mprotect, madvise,
 *    getrandom, gettid and write.  Nothing here allocates with malloc, takes
 *    a library lock or calls back into uslab, because these functions run
 *    during initialisation and underneath the malloc drop-in.
 *
 * 2. Reservations.  os_reserve() maps PROT_NONE with MAP_NORESERVE, so the
 *    range costs address space only.  An alignment larger than a page is
 *    met by over-reserving size + align - page bytes and unmapping the
 *    misaligned head and the unused tail, leaving exactly [aligned, +size).
 *    os_commit() makes a page-aligned part read/write with mprotect; the
 *    kernel still backs it lazily, so untouched pages read as zeros.
 *    os_discard() drops the backing with MADV_DONTNEED (private anonymous
 *    memory reads as zeros afterwards) but keeps the protection.
 *
 * 3. No state beyond two caches written idempotently (the page size and the
 *    fallback random generator's state), so there is no lock order.
 *
 * 4. Invariants: every failing function leaves errno as the OS set it and
 *    changes nothing; bad arguments (sizes not page multiples, alignments
 *    not a power of two) fail with EINVAL instead of reaching the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "mm/compiler.h"

/* ---- page size ---- */

static size_t os_page_size_cache;	/* 0 until first asked; idempotent write */

size_t os_page_size(void)
{
	size_t size = READ_ONCE(os_page_size_cache);

	if (unlikely(!size)) {
		long ps = sysconf(_SC_PAGESIZE);

		size = ps > 0 ? (size_t)ps : 4096;
		WRITE_ONCE(os_page_size_cache, size);
	}
	return size;
}

static bool os_page_aligned(size_t n)
{
	return (n & (os_page_size() - 1)) == 0;
}

/* ---- reservations ---- */

static void *os_mmap(size_t size, int prot, int extra_flags)
{
	void *p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Unmap the parts of [raw, raw + raw_size) outside [keep, keep + size). */
static void os_trim(char *raw, size_t raw_size, char *keep, size_t size)
{
	size_t head = (size_t)(keep - raw);
	size_t tail = raw_size - head - size;

	if (head)
		munmap(raw, head);
	if (tail)
		munmap(keep + size, tail);
}

void *os_reserve(size_t size, size_t align)
{
	size_t page = os_page_size();
	size_t raw_size;
	char *raw, *aligned;

	if (!size || !os_page_aligned(size) || !is_power_of_2(align) || !os_page_aligned(align)) {
		errno = EINVAL;
		return NULL;
	}
	if (align == page)
		return os_mmap(size, PROT_NONE, MAP_NORESERVE);
	/* why: size + align - page is the least that surely holds an aligned size. */
	if (__builtin_add_overflow(size, align - page, &raw_size)) {
		errno = ENOMEM;
		return NULL;
	}
	raw = os_mmap(raw_size, PROT_NONE, MAP_NORESERVE);
	if (!raw)
		return NULL;
	aligned = (char *)ALIGN((uintptr_t)raw, align);
	os_trim(raw, raw_size, aligned, size);
	return aligned;
}

void os_release(void *addr, size_t size)
{
	if (addr && size)
		munmap(addr, size);
}

bool os_commit(void *addr, size_t size)
{
	if (!os_page_aligned((uintptr_t)addr) || !os_page_aligned(size)) {
		errno = EINVAL;
		return false;
	}
	return mprotect(addr, size, PROT_READ | PROT_WRITE) == 0;
}

bool os_discard(void *addr, size_t size)
{
	if (!os_page_aligned((uintptr_t)addr) || !os_page_aligned(size)) {
		errno = EINVAL;
		return false;
	}
	return madvise(addr, size, MADV_DONTNEED) == 0;
}

/* ---- plain mappings ---- */

void *os_map(size_t size)
{
	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	return os_mmap(size, PROT_READ | PROT_WRITE, 0);
}

void os_unmap(void *addr, size_t size)
{
	if (addr && size)
		munmap(addr, size);
}

/* ---- resident set size ---- */

/* Read up to len - 1 bytes of path into buf, NUL-terminated; bytes read or -1. */
static ssize_t os_read_small_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Parse the decimal field number idx (0-based, space separated) of s. */
static bool os_parse_field(const char *s, int idx, unsigned long *out)
{
	unsigned long v = 0;

	for (; idx > 0; idx--) {
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s++ != ' ')
			return false;
	}
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (unsigned long)(*s - '0');
	*out = v;
	return true;
}

size_t os_rss_bytes(void)
{
	char buf[128];	/* statm is 7 numbers: a few dozen bytes */
	unsigned long pages;

	if (os_read_small_file("/proc/self/statm", buf, sizeof(buf)) <= 0)
		return 0;
	/* why field 1: statm is "size resident shared text lib data dt" in pages. */
	if (!os_parse_field(buf, 1, &pages))
		return 0;
	return pages * os_page_size();
}

/* ---- random bytes ---- */

static uint64_t os_fallback_state;	/* splitmix64 state; racy updates only cost quality */

static uint64_t os_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Time-, address- and thread-seeded bytes, used only when getrandom fails. */
static void os_fallback_random(unsigned char *buf, size_t len)
{
	struct timespec ts;
	uint64_t state, word = 0;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* why atomic add: threads racing here must still get different streams. */
	state = __atomic_add_fetch(&os_fallback_state, 0x9e3779b97f4a7c15ULL, __ATOMIC_RELAXED);
	state ^= (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32);
	state ^= (uint64_t)(uintptr_t)&ts ^ ((uint64_t)os_gettid() << 17);
	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			word = os_splitmix64(&state);
		buf[i] = (unsigned char)word;
		word >>= 8;
	}
}

void os_random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		/* why NONBLOCK: early in boot the pool may be empty; never wait for it. */
		n = getrandom(p, len, GRND_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			os_fallback_random(p, len);
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

/* ---- threads and output ---- */

int os_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

void os_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* nowhere to report a failing report */
		p += n;
		len -= (size_t)n;
	}
}
