/* SPDX-License-Identifier: MIT */
/*
 * slab_stamp.h - the ownership stamp and address-derived pattern the slab
 * stress tests put in every object they allocate (allocator-neutral: only
 * the bytes the caller asked for are touched).
 *
 * Word 0 is swapped atomically: an allocation finds anything but "live"
 * there and leaves "live" (an object handed out twice while live finds the
 * other owner's "live" mark); a free finds "live" and leaves "freed".  The
 * marks and the pattern depend on the object's address and on a serial
 * number, so corruption, a mixed-up object, or a stale copy all show.
 * Objects must be at least 8 bytes and 8-byte aligned.
 */
#ifndef USLAB_TESTS_STRESS_SLAB_STAMP_H
#define USLAB_TESTS_STRESS_SLAB_STAMP_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STAMP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STAMP_SANITIZED 1
#endif
#endif
#ifndef STAMP_SANITIZED
#define STAMP_SANITIZED 0
#endif

#define STAMP_LIVE	0xa110ca7eda110ca7ULL
#define STAMP_FREED	0xf4eedf4eedf4eed0ULL

/* First failure seen by any thread, and how many there were. */
static char stamp_first_failure[512];
static unsigned long stamp_failures;	/* atomic */
static pthread_mutex_t stamp_failure_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((format(printf, 1, 2))) void stamp_fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&stamp_failure_lock);
	if (!stamp_failures) {
		va_start(ap, fmt);
		vsnprintf(stamp_first_failure, sizeof(stamp_first_failure), fmt, ap);
		va_end(ap);
	}
	__atomic_add_fetch(&stamp_failures, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&stamp_failure_lock);
}

static inline uint64_t stamp_word(uintptr_t addr, uint64_t serial, size_t i)
{
	return (uint64_t)addr ^ (serial * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)i * 0x100000001b3ULL);
}

/* Claim a fresh object of size bytes and write its pattern. */
static void stamp_object(void *p, size_t size, uint64_t serial)
{
	uint64_t *w = p, live = (uint64_t)(uintptr_t)p ^ STAMP_LIVE, old;
	unsigned char *b = p;
	size_t i;

	if ((uintptr_t)p % 8) {
		stamp_fail("object %p of %zu bytes is not 8-byte aligned", p, size);
		return;
	}
	old = __atomic_exchange_n(&w[0], live, __ATOMIC_ACQ_REL);
	if (old == live)
		stamp_fail("object %p (%zu bytes) handed out while live", p, size);
	for (i = 1; i < size / 8; i++)
		w[i] = stamp_word((uintptr_t)p, serial, i);
	for (i = size / 8 * 8; i < size; i++)
		b[i] = (unsigned char)stamp_word((uintptr_t)p, serial, i);
}

/* Check the pattern and mark the object freed; true if it was intact. */
static bool check_and_release(void *p, size_t size, uint64_t serial)
{
	uint64_t *w = p, live = (uint64_t)(uintptr_t)p ^ STAMP_LIVE, old;
	unsigned char *b = p;
	size_t i;

	for (i = 1; i < size / 8; i++) {
		if (w[i] != stamp_word((uintptr_t)p, serial, i)) {
			stamp_fail("object %p (%zu bytes): word %zu corrupted", p, size, i);
			return false;
		}
	}
	for (i = size / 8 * 8; i < size; i++) {
		if (b[i] != (unsigned char)stamp_word((uintptr_t)p, serial, i)) {
			stamp_fail("object %p (%zu bytes): byte %zu corrupted", p, size, i);
			return false;
		}
	}
	old = __atomic_exchange_n(&w[0], (uint64_t)(uintptr_t)p ^ STAMP_FREED, __ATOMIC_ACQ_REL);
	if (old != live) {
		stamp_fail("object %p (%zu bytes): owner mark %#llx, not live", p, size,
			   (unsigned long long)old);
		return false;
	}
	return true;
}

/* A small xorshift generator per thread. */
static inline uint64_t stamp_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif /* USLAB_TESTS_STRESS_SLAB_STAMP_H */
