/* SPDX-License-Identifier: MIT */
/*
 * os.h - the operating-system primitives uslab needs, as a contract.
 * One implementation per OS (os_linux.c).  None of these allocate with
 * malloc, take library locks or call back into uslab, so they are safe
 * during initialisation and inside the malloc drop-in.
 */
#ifndef USLAB_OS_OS_H
#define USLAB_OS_OS_H

#include <stddef.h>
#include <stdbool.h>

/*
 * Reserve address space without committing memory (PROT_NONE, NORESERVE).
 * pre:  size and align are multiples of the OS page size; align is a power of two.
 * post: returns an align-aligned range of size bytes, or NULL (errno set) if the
 *       OS refuses; nothing is left reserved on failure.
 */
void *os_reserve(size_t size, size_t align);

/* Give a reserved range back to the OS.  pre: addr/size from os_reserve (or a
 * page-aligned part of one).  post: the range is unmapped. */
void os_release(void *addr, size_t size);

/*
 * Make part of a reservation usable (read/write, still committed lazily).
 * pre:  page-aligned range inside a reservation.
 * post: true and the range reads as zeros where never written; false (errno
 *       set) if the OS refuses, in which case the range is unchanged.
 */
bool os_commit(void *addr, size_t size);

/*
 * Tell the OS the contents of a committed range are no longer needed
 * (MADV_DONTNEED): its memory is returned and it reads as zeros on the next
 * touch.  pre: page-aligned committed range.  post: true on success.
 */
bool os_discard(void *addr, size_t size);

/* Allocate / free anonymous read-write memory directly (mmap/munmap).
 * os_map returns NULL (errno set) on failure. */
void *os_map(size_t size);
void os_unmap(void *addr, size_t size);

/* The OS page size (4096 on the platforms uslab supports). */
size_t os_page_size(void);

/* Resident set size of this process in bytes (from /proc/self/statm), 0 if unknown. */
size_t os_rss_bytes(void);

/* Fill buf with len bytes from the OS's random source (getrandom); never fails:
 * falls back to a time- and address-seeded generator if the OS has none. */
void os_random_bytes(void *buf, size_t len);

/* Thread id of the caller (gettid). */
int os_gettid(void);

/* Write a whole buffer to a file descriptor, retrying on EINTR and short writes;
 * uses no allocation, so it is safe from the error reporter. */
void os_write_all(int fd, const void *buf, size_t len);

#endif /* USLAB_OS_OS_H */
