/* SPDX-License-Identifier: MIT */
/* cpu_hold.c - see cpu_hold.h. */
#include "cpu_hold.h"

#include <check.h>
#include <semaphore.h>
#include "mm/cpu.h"

#define STACK_SIZE	(64 << 10)	/* holders only park: keep NR_CPUS of them cheap */

static sem_t attached, release;
static int holder_id;		/* id the last holder got (ordered by attached) */

static void *holder(void *arg)
{
	int id = raw_smp_processor_id();

	(void)arg;
	holder_id = id;
	sem_post(&attached);
	if (id >= 0)
		sem_wait(&release);
	return NULL;
}

unsigned int cpu_hold_all(pthread_t *t, unsigned int max)
{
	pthread_attr_t attr;
	unsigned int n = 0;

	sem_init(&attached, 0, 0);
	sem_init(&release, 0, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	do {
		ck_assert_uint_lt(n, max);
		ck_assert_int_eq(pthread_create(&t[n++], &attr, holder, NULL), 0);
		sem_wait(&attached);
	} while (holder_id >= 0);
	pthread_attr_destroy(&attr);
	return n;
}

void cpu_release_all(pthread_t *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i + 1 < n; i++)
		sem_post(&release);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}
