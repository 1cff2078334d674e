/* SPDX-License-Identifier: MIT */
/*
 * cpu_hold.h - take every CPU id away, so a test can exercise an
 * allocator's path for threads that get none (cpu_attach() == -1).
 */
#ifndef USLAB_TESTS_CPU_HOLD_H
#define USLAB_TESTS_CPU_HOLD_H

#include <pthread.h>

/*
 * Start parked threads until one finds no CPU id left; at most max threads
 * (the test fails if more are needed).  Returns how many were started: the
 * last found no id and has already exited, the others hold theirs.
 */
unsigned int cpu_hold_all(pthread_t *t, unsigned int max);

/* Let the n threads of cpu_hold_all() go, and join them. */
void cpu_release_all(pthread_t *t, unsigned int n);

#endif /* USLAB_TESTS_CPU_HOLD_H */
