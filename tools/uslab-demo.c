/* SPDX-License-Identifier: MIT */
/*
 * uslab-demo - a small multi-threaded in-memory key-value service on uslab.
 *
 * Client threads generate requests (a struct request from its own cache),
 * hand them through a queue to worker threads, which look keys up in a
 * hash table of struct kv_entry objects (their own constructed cache),
 * store keys and values with kmalloc, and free requests the clients
 * allocated (cross-thread frees).  At the end it prints the process's
 * slabinfo, each cache's slab utilisation (object bytes / slab bytes), the
 * buddy allocator's state, and one summary line that
 * tools/run-demo.sh gathers into a table comparing SLUB, SLAB and SLOB.
 *
 * usage: uslab-demo [--quiet] [--map-dir DIR] [REQUESTS]
 * REQUESTS (the same fixed sequence on every allocator, so their memory
 * figures compare like with like) defaults to 600000, or to
 * $USLAB_DEMO_REQUESTS when set (the test suite runs a short smoke test).
 * --map-dir DIR draws the memory map (uslab_memmap_picture_write) twice,
 * while the store holds its data ("full") and after it was emptied and its
 * caches shrunk ("emptied"), as DIR/demo-map-ALLOC-full.html and .svg and
 * DIR/demo-map-ALLOC-emptied.html and .svg.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uslab/slab.h>

#define NR_BUCKETS	(1u << 16)
#define NR_KEYS		200000u
#define NR_CLIENTS	2
#define NR_WORKERS	2
#define QUEUE_LEN	1024

enum op { OP_GET, OP_PUT, OP_DEL };

struct request {
	enum op op;
	uint32_t key;
	uint32_t value_len;
	int client;
};

struct kv_entry {
	struct kv_entry *next;		/* hash chain (bucket lock) */
	char *key;			/* kmalloc'd, NUL-terminated */
	void *value;			/* kmalloc'd */
	uint32_t value_len;
	uint32_t magic;			/* set by the constructor, kept across reuse */
};

#define KV_MAGIC 0x6b76656e

struct bucket {
	pthread_mutex_t lock;
	struct kv_entry *head;
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	struct request *slot[QUEUE_LEN];
	unsigned int head, tail;
	int closed;
};

static struct kmem_cache *request_cache, *entry_cache;
static struct bucket *table;
static struct queue queues[NR_WORKERS];
static atomic_ulong ops_done, live_requested_bytes, peak_requested_bytes;
static unsigned long requests_per_client;

static void entry_ctor(void *obj)
{
	struct kv_entry *e = obj;

	memset(e, 0, sizeof(*e));
	e->magic = KV_MAGIC;
}

static void account(long delta)
{
	unsigned long now = atomic_fetch_add(&live_requested_bytes, (unsigned long)delta) + (unsigned long)delta;
	unsigned long peak = atomic_load(&peak_requested_bytes);

	while (now > peak && !atomic_compare_exchange_weak(&peak_requested_bytes, &peak, now))
		;
}

static void queue_push(struct queue *q, struct request *r)
{
	pthread_mutex_lock(&q->lock);
	while (q->head - q->tail == QUEUE_LEN)
		pthread_cond_wait(&q->nonfull, &q->lock);
	q->slot[q->head++ % QUEUE_LEN] = r;
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

static struct request *queue_pop(struct queue *q)
{
	struct request *r = NULL;

	pthread_mutex_lock(&q->lock);
	while (q->head == q->tail && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	if (q->head != q->tail) {
		r = q->slot[q->tail++ % QUEUE_LEN];
		pthread_cond_signal(&q->nonfull);
	}
	pthread_mutex_unlock(&q->lock);
	return r;
}

static void entry_free(struct kv_entry *e)
{
	account(-(long)(strlen(e->key) + 1 + e->value_len + sizeof(*e)));
	kfree(e->key);
	kfree(e->value);
	e->key = NULL;
	e->value = NULL;
	kmem_cache_free(entry_cache, e);
}

static void do_put(struct bucket *b, struct request *r)
{
	struct kv_entry *e, **pp;
	char key[24];
	int klen = snprintf(key, sizeof(key), "key:%u", r->key);

	for (pp = &b->head; (e = *pp); pp = &e->next)
		if (!strcmp(e->key, key))
			break;
	if (!e) {
		e = kmem_cache_alloc(entry_cache, GFP_KERNEL);
		if (!e || e->magic != KV_MAGIC)
			abort();
		e->key = kstrdup(key, GFP_KERNEL);
		e->next = b->head;
		b->head = e;
		account((long)(klen + 1 + sizeof(*e)));
	} else {
		account(-(long)e->value_len);
		kfree(e->value);
	}
	e->value = kmalloc(r->value_len, GFP_KERNEL);
	memset(e->value, (int)r->key, r->value_len);
	e->value_len = r->value_len;
	account((long)r->value_len);
}

static void do_del(struct bucket *b, struct request *r)
{
	struct kv_entry *e, **pp;
	char key[24];

	snprintf(key, sizeof(key), "key:%u", r->key);
	for (pp = &b->head; (e = *pp); pp = &e->next) {
		if (!strcmp(e->key, key)) {
			*pp = e->next;
			entry_free(e);
			return;
		}
	}
}

static void do_get(struct bucket *b, struct request *r)
{
	struct kv_entry *e;
	char key[24];

	snprintf(key, sizeof(key), "key:%u", r->key);
	for (e = b->head; e; e = e->next)
		if (!strcmp(e->key, key) && ((unsigned char *)e->value)[0] != (unsigned char)r->key)
			abort();	/* a value was corrupted */
}

static void *worker(void *arg)
{
	struct queue *q = arg;
	struct request *r;

	while ((r = queue_pop(q))) {
		struct bucket *b = &table[r->key % NR_BUCKETS];

		pthread_mutex_lock(&b->lock);
		if (r->op == OP_PUT)
			do_put(b, r);
		else if (r->op == OP_DEL)
			do_del(b, r);
		else
			do_get(b, r);
		pthread_mutex_unlock(&b->lock);
		kmem_cache_free(request_cache, r);	/* allocated by a client thread */
		atomic_fetch_add_explicit(&ops_done, 1, memory_order_relaxed);
	}
	return NULL;
}

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Value sizes: mostly small, some medium, a few large (up to 12 KiB). */
static uint32_t value_size(uint32_t rnd)
{
	uint32_t c = rnd % 100;

	if (c < 60)
		return 8 + rnd % 120;
	if (c < 95)
		return 128 + rnd % 900;
	return 1024 + rnd % 11264;
}

static void *client(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint32_t seed = 0x9e3779b9u * (uint32_t)(id + 1);

	for (unsigned long n = 0; n < requests_per_client; n++) {
		struct request *r = kmem_cache_alloc(request_cache, GFP_KERNEL);
		uint32_t rnd = xorshift(&seed), c = rnd % 100;

		if (!r)
			abort();
		r->key = xorshift(&seed) % NR_KEYS;
		r->op = c < 50 ? OP_GET : c < 85 ? OP_PUT : OP_DEL;
		r->value_len = value_size(xorshift(&seed));
		r->client = id;
		queue_push(&queues[r->key % NR_WORKERS], r);
	}
	return NULL;
}

static long rss_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = 0;
	size_t n = strlen(field);

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && sscanf(line + n, " %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void drain_table(void)
{
	for (unsigned int i = 0; i < NR_BUCKETS; i++) {
		struct kv_entry *e, *n;

		for (e = table[i].head; e; e = n) {
			n = e->next;
			entry_free(e);
		}
		table[i].head = NULL;
	}
}

/* Draw the memory map as DIR/demo-map-ALLOC-WHEN.html and .svg; 0 or -1. */
static int write_maps(const char *dir, const char *when)
{
	static const char *const ext[] = { "html", "svg" };
	char path[4096];
	int err;

	for (unsigned int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/demo-map-%s-%s.%s", dir, uslab_allocator_name(),
			 when, ext[i]);
		err = uslab_memmap_picture_write(path);
		if (err) {
			fprintf(stderr, "uslab-demo: cannot write %s: %s\n", path, strerror(-err));
			return -1;
		}
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: uslab-demo [--quiet] [--map-dir DIR] [REQUESTS]\n");
	exit(2);
}

/* REQUESTS: a positive number, or a usage error. */
static unsigned long parse_requests(const char *s)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || end == s || *end || !n || *s == '-') {
		fprintf(stderr, "uslab-demo: REQUESTS must be a positive number, not '%s'\n", s);
		usage();
	}
	return n;
}

/*
 * Slab utilisation per cache in use, from the slabinfo text: object bytes
 * (active objects x object size) over slab bytes (slabs x pages per slab x
 * the page size).  No object has a header, so what is not object bytes is
 * free slots and the slabs' tail; a slab of a ramping cache counts whole
 * here although only the pages cut into objects have been touched (SLUB's
 * kmalloc-2k and -4k: 12% and 34% in a short run).
 */
static void print_utilisation(void)
{
	unsigned long active, num, objsize, perslab, pages, aslabs, nslabs;
	unsigned long long obj_bytes = 0, slab_bytes = 0;
	char *text = NULL, *line, *save, name[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	uslab_show_slabinfo(f);
	fclose(f);
	printf("\n== slab utilisation: object bytes / slab bytes, caches in use (%s) ==\n",
	       uslab_allocator_name());
	printf("%-18s %12s %12s %7s\n", "cache", "object B", "slab B", "used");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %lu %lu %lu %lu %lu : tunables %*u %*u %*u : slabdata %lu %lu",
			   name, &active, &num, &objsize, &perslab, &pages, &aslabs, &nslabs) != 8 ||
		    !nslabs)
			continue;
		unsigned long long ob = (unsigned long long)active * objsize;
		unsigned long long sb = (unsigned long long)nslabs * pages * 4096;

		printf("%-18s %12llu %12llu %6.1f%%\n", name, ob, sb, 100.0 * (double)ob / (double)sb);
		obj_bytes += ob;
		slab_bytes += sb;
	}
	if (slab_bytes)
		printf("%-18s %12llu %12llu %6.1f%%\n", "all", obj_bytes, slab_bytes,
		       100.0 * (double)obj_bytes / (double)slab_bytes);
	else	/* SLOB: its slabdata columns are 0 */
		printf("(no cache has slabs of its own: every cache's objects share pages; "
		       "the summary line below gives the whole)\n");
	free(text);
}

int main(int argc, char **argv)
{
	pthread_t clients[NR_CLIENTS], workers[NR_WORKERS];
	struct uslab_memmap_stats st;
	unsigned long requests = 600000;
	double t0, elapsed;
	unsigned long pages_used_peak, pages_used_end;
	const char *map_dir = NULL;
	int quiet = 0, map_failed = 0;

	if (getenv("USLAB_DEMO_REQUESTS"))
		requests = parse_requests(getenv("USLAB_DEMO_REQUESTS"));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quiet"))
			quiet = 1;
		else if (!strcmp(argv[i], "--map-dir") && i + 1 < argc)
			map_dir = argv[++i];
		else if (argv[i][0] == '-')
			usage();
		else
			requests = parse_requests(argv[i]);
	}
	request_cache = KMEM_CACHE(request, 0);
	entry_cache = kmem_cache_create("kv_entry", sizeof(struct kv_entry), 0,
					SLAB_HWCACHE_ALIGN, entry_ctor);
	table = kvmalloc_array(NR_BUCKETS, sizeof(*table), GFP_KERNEL | __GFP_ZERO);
	if (!request_cache || !entry_cache || !table)
		return 1;
	for (unsigned int i = 0; i < NR_BUCKETS; i++)
		pthread_mutex_init(&table[i].lock, NULL);
	for (int i = 0; i < NR_WORKERS; i++) {
		pthread_mutex_init(&queues[i].lock, NULL);
		pthread_cond_init(&queues[i].nonempty, NULL);
		pthread_cond_init(&queues[i].nonfull, NULL);
		pthread_create(&workers[i], NULL, worker, &queues[i]);
	}
	requests_per_client = requests / NR_CLIENTS;
	t0 = now_s();
	for (int i = 0; i < NR_CLIENTS; i++)
		pthread_create(&clients[i], NULL, client, (void *)(intptr_t)i);
	for (int i = 0; i < NR_CLIENTS; i++)
		pthread_join(clients[i], NULL);
	for (int i = 0; i < NR_WORKERS; i++) {
		pthread_mutex_lock(&queues[i].lock);
		queues[i].closed = 1;
		pthread_cond_broadcast(&queues[i].nonempty);
		pthread_mutex_unlock(&queues[i].lock);
		pthread_join(workers[i], NULL);
	}
	elapsed = now_s() - t0;

	uslab_memmap_stats(&st);
	pages_used_peak = st.pages_online - st.pages_free;
	if (map_dir && write_maps(map_dir, "full"))
		map_failed = 1;
	if (!quiet) {
		printf("== slabinfo while the store holds its data (%s) ==\n", uslab_allocator_name());
		uslab_show_slabinfo(stdout);
		print_utilisation();
	}
	unsigned long live = atomic_load(&live_requested_bytes);
	drain_table();
	kmem_cache_shrink(entry_cache);
	kmem_cache_shrink(request_cache);
	uslab_memmap_stats(&st);
	pages_used_end = st.pages_online - st.pages_free;
	if (map_dir && write_maps(map_dir, "emptied"))
		map_failed = 1;
	if (!quiet) {
		printf("\n== buddyinfo after the store was emptied ==\n");
		uslab_show_buddyinfo(stdout);
	}
	printf("\n%-5s throughput %.0f ops/s, peak RSS %ld KiB, RSS at end %ld KiB, "
	       "pages in use with data %lu (after emptying %lu), live data %lu B in %lu B of pages (%.1f%% used)\n",
	       uslab_allocator_name(), (double)atomic_load(&ops_done) / elapsed,
	       rss_kib("VmHWM:"), rss_kib("VmRSS:"), pages_used_peak, pages_used_end,
	       live, pages_used_peak * 4096, 100.0 * (double)live / (double)(pages_used_peak * 4096));
	printf("DEMO %s %.0f %ld %ld %lu %lu %lu\n", uslab_allocator_name(),
	       (double)atomic_load(&ops_done) / elapsed, rss_kib("VmHWM:"), rss_kib("VmRSS:"),
	       pages_used_peak, pages_used_end, live);
	kvfree(table);
	return map_failed ? 1 : 0;
}
