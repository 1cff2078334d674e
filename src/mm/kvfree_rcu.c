// SPDX-License-Identifier: MIT
/*
 * kvfree_rcu.c - kfree_rcu() and kvfree_rcu(): free after a grace period,
 * in batches, as the kernel's kvfree_call_rcu() does.
 *
 * 1. Overview.  kvfree_call_rcu(head, ptr) stores ptr in the calling
 *    thread's pending batch (struct kfree_rcu_cpu, a "krc"): pointers in
 *    page-sized blocks, one chain of blocks per channel -- kmalloc memory
 *    (freed with kfree_bulk) and vmalloc areas (freed with kvfree).  The
 *    batch is handed to call_rcu() as a whole, one callback for all its
 *    objects, once it holds a block's worth (KVFREE_BULK_MAX_ENTR) or its
 *    oldest object has waited KFREE_DRAIN_NS; both are checked on the
 *    thread's next kvfree_call_rcu().  There is no timer: a thread that
 *    stops freeing keeps its last batch until it frees again, exits, or
 *    someone calls rcu_barrier().  A handed-off batch lives in one of the
 *    krc's two carriers (struct kfree_rcu_cpu_work, the kernel's krwp)
 *    until its callback frees every object after the grace period and
 *    keeps up to KRC_NR_SPARE emptied blocks for the next batches.
 *    Without a block (no page to be had): an object with an rcu_head is
 *    chained through it (head->next, and the object's address in the bytes
 *    of head->func); a headless one, kvfree_rcu(ptr), waits in
 *    synchronize_rcu() and is freed at once, as in the kernel.
 *
 *    Per CPU is per thread here (a CPU is a thread, cpu.h): a krc belongs
 *    to one live thread, found through this_krc without a lookup.  A thread
 *    that exits hands its batch to a carrier, marks its krc orphaned and
 *    leaves it in krc_pool for the next new thread; krcs are never freed,
 *    so there are as many as threads that ever used kvfree_rcu at once.
 *    A thread that cannot get one shares krc_fallback.
 *
 * 2. Data structures (below): struct kvfree_rcu_bulk_data (a block),
 *    struct kvfree_rcu_batch (lists of objects: a pending batch, one in
 *    flight, or one rcu_barrier() holds), struct kfree_rcu_cpu_work (a
 *    carrier), struct kfree_rcu_cpu (a krc).  krc_all: every krc, a list
 *    that only grows (published with release, walked without a lock).
 *    krc_pool: krcs of exited threads (krc_pool_lock).
 *
 * 3. States of a batch.
 *      pending    krc->pending, nr > 0; its thread adds to it
 *      in flight  in a carrier (carrier->batch.nr > 0), queued with call_rcu
 *      freeing    taken out of the carrier by its callback (or by
 *                 rcu_barrier), the carrier free again
 *    If both carriers are in flight a due batch stays pending and grows; the
 *    next call sends it, or, for an orphaned krc, the next callback.
 *
 * 4. Lock order.  krc->lock and krc_pool_lock are leaves (FORK_RANK_LEAF):
 *    under them nothing allocates, frees, waits or calls liburcu; only
 *    call_rcu(), which takes no lock, runs under krc->lock (so a fork()
 *    never finds a carrier filled but not queued).  Never held together.
 *
 * 5. Invariants.
 *    - pending.nr counts the objects of krc->pending; queued - freed over
 *      all krcs, less barrier_freed, counts objects pending or in flight.
 *    - channel 0 holds arena addresses (kmalloc), channel 1 the others.
 *    - a krc in krc_pool is orphaned and belongs to no thread.
 */
#include <string.h>
#include <time.h>
#include "slab.h"

#define KFREE_DRAIN_NS		(20UL * 1000 * 1000)	/* the kernel's KFREE_DRAIN_JIFFIES (HZ/50) */
#define KFREE_N_BATCHES		2	/* carriers per krc (the kernel's KFREE_N_BATCHES) */
#define FREE_N_CHANNELS		2	/* 0: kmalloc memory, 1: vmalloc areas */
#define KRC_NR_SPARE		4	/* emptied blocks a krc keeps (kernel: rcu_min_cached_objs 5) */
#define KVFREE_GFP		(GFP_NOWAIT | __GFP_NOWARN)

/* A page of pointers to free. */
struct kvfree_rcu_bulk_data {
	unsigned long nr_records;		/* records[] used */
	struct kvfree_rcu_bulk_data *next;	/* next (older) block of the chain */
	void *records[];			/* the objects */
};
#define KVFREE_BULK_MAX_ENTR \
	((PAGE_SIZE - sizeof(struct kvfree_rcu_bulk_data)) / sizeof(void *))

/* Objects to free: a pending batch, one in flight, or one being freed. */
struct kvfree_rcu_batch {
	struct kvfree_rcu_bulk_data *bkvhead[FREE_N_CHANNELS];	/* blocks, newest first */
	struct rcu_head *head;		/* objects chained through their own rcu_head */
	unsigned long nr;		/* objects in all of the above */
};

/* A carrier: one batch waiting for its grace period. */
struct kfree_rcu_cpu_work {
	struct rcu_head rcu_head;	/* call_rcu link while in flight */
	struct kvfree_rcu_batch batch;	/* nr == 0: free carrier (krcp->lock) */
	struct kfree_rcu_cpu *krcp;	/* its krc (constant) */
};

/* One thread's batches (the kernel's per-CPU kfree_rcu_cpu). */
struct kfree_rcu_cpu {
	spinlock_t lock;		/* everything below but the two links */
	struct kvfree_rcu_batch pending;	/* what the thread queued since the last hand-off (lock) */
	unsigned long first_ns;		/* when pending's oldest object came (lock) */
	struct kfree_rcu_cpu_work krw_arr[KFREE_N_BATCHES];	/* carriers (lock) */
	struct kvfree_rcu_bulk_data *spare;	/* emptied blocks for reuse, linked by next (lock) */
	unsigned int nr_spare;		/* blocks on spare (lock) */
	bool orphaned;			/* no thread owns it: callbacks send what is pending (lock) */
	unsigned long queued;		/* objects ever added (lock) */
	unsigned long freed;		/* of those, freed by this krc's callbacks (lock) */
	unsigned long batches;		/* batches handed to call_rcu (lock) */
	unsigned long synced;		/* headless objects freed after synchronize_rcu (lock) */
	struct kfree_rcu_cpu *next_all;	/* on krc_all (constant once published) */
	struct kfree_rcu_cpu *next_pool;	/* on krc_pool (krc_pool_lock) */
};

_Static_assert(KFREE_N_BATCHES == 2, "krc_fallback's initializer names two carriers");
_Static_assert(sizeof(((struct rcu_head *)0)->func) == sizeof(void *),
	       "a chained object's address is kept in the bytes of head->func");

static struct kfree_rcu_cpu krc_fallback = {
	.lock = __SPIN_LOCK_UNLOCKED,
	.krw_arr = { { .krcp = &krc_fallback }, { .krcp = &krc_fallback } },
};
static struct kfree_rcu_cpu *krc_all = &krc_fallback;	/* every krc, newest first (release) */
static DEFINE_SPINLOCK(krc_pool_lock);
static struct kfree_rcu_cpu *krc_pool;		/* orphaned krcs (krc_pool_lock) */
static unsigned long barrier_freed;		/* objects rcu_barrier() freed itself (atomic) */
static pthread_key_t krc_key;			/* destructor: krc_thread_exit */
static bool krc_key_ok;				/* krc_key exists (set once, under krc_key_once) */
static pthread_once_t krc_key_once = PTHREAD_ONCE_INIT;
static __thread struct kfree_rcu_cpu *this_krc __attribute__((tls_model("initial-exec")));

#define for_each_krc(krcp) \
	for ((krcp) = smp_load_acquire(&krc_all); (krcp); (krcp) = (krcp)->next_all)

static unsigned long krc_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (unsigned long)ts.tv_sec * 1000000000UL + (unsigned long)ts.tv_nsec;
}

/* ======================= batches ======================= */

/* Move every object of src to dst (dst empty). */
static void batch_move(struct kvfree_rcu_batch *dst, struct kvfree_rcu_batch *src)
{
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

static struct kvfree_rcu_bulk_data *chain_tail(struct kvfree_rcu_bulk_data *b)
{
	while (b->next)
		b = b->next;
	return b;
}

/* Add every object of src to dst; src ends empty. */
static void batch_splice(struct kvfree_rcu_batch *dst, struct kvfree_rcu_batch *src)
{
	struct rcu_head *h;
	int ch;

	for (ch = 0; ch < FREE_N_CHANNELS; ch++) {
		if (!src->bkvhead[ch])
			continue;
		chain_tail(src->bkvhead[ch])->next = dst->bkvhead[ch];
		dst->bkvhead[ch] = src->bkvhead[ch];
	}
	if (src->head) {
		for (h = src->head; h->next; h = h->next)
			;
		h->next = dst->head;
		dst->head = src->head;
	}
	dst->nr += src->nr;
	memset(src, 0, sizeof(*src));
}

static void *chained_ptr(const struct rcu_head *head)
{
	void *ptr;

	memcpy(&ptr, &head->func, sizeof(ptr));
	return ptr;
}

/* No block for ptr: link it through its own rcu_head (the caller counts it). */
static void batch_chain(struct kvfree_rcu_batch *b, struct rcu_head *head, void *ptr)
{
	/* why memcpy: the bytes of func hold a data pointer, not a function */
	memcpy(&head->func, &ptr, sizeof(ptr));
	head->next = b->head;
	b->head = head;
}

/* Free the objects of one block. */
static void bulk_free_records(int ch, struct kvfree_rcu_bulk_data *bnode)
{
	unsigned long i;

	if (ch == 0) {
		kfree_bulk(bnode->nr_records, bnode->records);
		return;
	}
	for (i = 0; i < bnode->nr_records; i++)
		kvfree(bnode->records[i]);
}

/* Free every object of b (no lock held); returns its emptied blocks. */
static struct kvfree_rcu_bulk_data *batch_free_objects(struct kvfree_rcu_batch *b)
{
	struct kvfree_rcu_bulk_data *bnode, *next, *empty = NULL;
	struct rcu_head *h, *hnext;
	int ch;

	for (ch = 0; ch < FREE_N_CHANNELS; ch++) {
		for (bnode = b->bkvhead[ch]; bnode; bnode = next) {
			next = bnode->next;
			bulk_free_records(ch, bnode);
			bnode->next = empty;
			empty = bnode;
		}
	}
	for (h = b->head; h; h = hnext) {
		hnext = h->next;	/* why first: kvfree ends the object and its head */
		kvfree(chained_ptr(h));
	}
	return empty;
}

static void free_blocks(struct kvfree_rcu_bulk_data *bnode)
{
	struct kvfree_rcu_bulk_data *next;

	for (; bnode; bnode = next) {
		next = bnode->next;
		free_pages((unsigned long)bnode, 0);
	}
}

/* ======================= a thread's krc ======================= */

static struct kvfree_rcu_bulk_data *krc_spare_get_locked(struct kfree_rcu_cpu *krcp)
{
	struct kvfree_rcu_bulk_data *bnode = krcp->spare;

	if (bnode) {
		krcp->spare = bnode->next;
		krcp->nr_spare--;
	}
	return bnode;
}

/* Keep up to KRC_NR_SPARE of the blocks; returns those not kept. */
static struct kvfree_rcu_bulk_data *krc_spare_put_locked(struct kfree_rcu_cpu *krcp,
		struct kvfree_rcu_bulk_data *bnode, bool always)
{
	struct kvfree_rcu_bulk_data *next;

	for (; bnode && (always || krcp->nr_spare < KRC_NR_SPARE); bnode = next) {
		next = bnode->next;
		bnode->next = krcp->spare;
		krcp->spare = bnode;
		krcp->nr_spare++;
	}
	return bnode;
}

static void krc_count_locked(struct kfree_rcu_cpu *krcp)
{
	if (!krcp->pending.nr++)
		krcp->first_ns = krc_clock_ns();
	krcp->queued++;
}

/* Store ptr in the current block of its channel; false if no block is left. */
static bool krc_add_locked(struct kfree_rcu_cpu *krcp, int ch, void *ptr)
{
	struct kvfree_rcu_bulk_data *bnode = krcp->pending.bkvhead[ch];

	if (unlikely(!bnode || bnode->nr_records == KVFREE_BULK_MAX_ENTR)) {
		bnode = krc_spare_get_locked(krcp);
		if (!bnode)
			return false;
		bnode->nr_records = 0;
		bnode->next = krcp->pending.bkvhead[ch];
		krcp->pending.bkvhead[ch] = bnode;
	}
	bnode->records[bnode->nr_records++] = ptr;
	krc_count_locked(krcp);
	return true;
}

/* Is the pending batch full, or has its oldest object waited long enough? */
static bool krc_due_locked(const struct kfree_rcu_cpu *krcp)
{
	return krcp->pending.nr >= KVFREE_BULK_MAX_ENTR ||
	       krc_clock_ns() - krcp->first_ns >= KFREE_DRAIN_NS;
}

static void kfree_rcu_work(struct rcu_head *head);

/*
 * Move the pending batch into a free carrier and queue the carrier; false
 * if nothing is pending or both carriers are in flight.  Why call_rcu()
 * under the lock: it takes no lock, and a fork() (which takes this lock
 * first) then never finds a carrier filled but not queued.
 */
static bool krc_send_locked(struct kfree_rcu_cpu *krcp)
{
	struct kfree_rcu_cpu_work *krwp;
	int i;

	if (!krcp->pending.nr)
		return false;
	for (i = 0; i < KFREE_N_BATCHES; i++) {
		krwp = &krcp->krw_arr[i];
		if (!krwp->batch.nr) {
			batch_move(&krwp->batch, &krcp->pending);
			krcp->batches++;
			call_rcu(&krwp->rcu_head, kfree_rcu_work);
			return true;
		}
	}
	return false;
}

/* The grace period of a carrier's batch is over: free it, free the carrier. */
static void kfree_rcu_work(struct rcu_head *head)
{
	struct kfree_rcu_cpu_work *krwp = container_of(head, struct kfree_rcu_cpu_work, rcu_head);
	struct kfree_rcu_cpu *krcp = krwp->krcp;
	struct kvfree_rcu_bulk_data *empty;
	struct kvfree_rcu_batch b;

	spin_lock(&krcp->lock);
	batch_move(&b, &krwp->batch);
	spin_unlock(&krcp->lock);
	empty = batch_free_objects(&b);
	spin_lock(&krcp->lock);
	krcp->freed += b.nr;
	empty = krc_spare_put_locked(krcp, empty, false);
	/* why here: an orphaned krc has no thread left to send what waits */
	if (krcp->orphaned)
		krc_send_locked(krcp);
	spin_unlock(&krcp->lock);
	free_blocks(empty);
}

/* ======================= krcs and threads ======================= */

static void krc_thread_exit(void *arg)
{
	struct kfree_rcu_cpu *krcp = arg;

	this_krc = NULL;
	spin_lock(&krcp->lock);
	krcp->orphaned = true;
	krc_send_locked(krcp);
	spin_unlock(&krcp->lock);
	spin_lock(&krc_pool_lock);
	krcp->next_pool = krc_pool;
	krc_pool = krcp;
	spin_unlock(&krc_pool_lock);
}

static void krc_key_create(void)
{
	krc_key_ok = pthread_key_create(&krc_key, krc_thread_exit) == 0;
}

static struct kfree_rcu_cpu *krc_pool_get(void)
{
	struct kfree_rcu_cpu *krcp;

	spin_lock(&krc_pool_lock);
	krcp = krc_pool;
	if (krcp)
		krc_pool = krcp->next_pool;
	spin_unlock(&krc_pool_lock);
	if (krcp) {
		spin_lock(&krcp->lock);
		krcp->orphaned = false;
		spin_unlock(&krcp->lock);
	}
	return krcp;
}

static struct kfree_rcu_cpu *krc_new(void)
{
	struct kfree_rcu_cpu *krcp = __kmalloc(sizeof(*krcp), GFP_KERNEL | __GFP_ZERO);
	struct kfree_rcu_cpu *first;
	int i;

	if (!krcp)
		return NULL;
	spin_lock_init(&krcp->lock);
	for (i = 0; i < KFREE_N_BATCHES; i++)
		krcp->krw_arr[i].krcp = krcp;
	first = READ_ONCE(krc_all);
	do {
		krcp->next_all = first;
	} while (!__atomic_compare_exchange_n(&krc_all, &first, krcp, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	return krcp;
}

/* The calling thread's first kvfree_call_rcu (or first after its exit began). */
static noinline struct kfree_rcu_cpu *krc_attach(void)
{
	struct kfree_rcu_cpu *krcp;

	pthread_once(&krc_key_once, krc_key_create);
	if (!krc_key_ok)
		return this_krc = &krc_fallback;
	krcp = krc_pool_get();
	if (!krcp)
		krcp = krc_new();
	if (!krcp)
		return this_krc = &krc_fallback;
	if (pthread_setspecific(krc_key, krcp)) {
		krc_thread_exit(krcp);	/* back to the pool: no destructor would run */
		return this_krc = &krc_fallback;
	}
	return this_krc = krcp;
}

static __always_inline struct kfree_rcu_cpu *krc_this_cpu(void)
{
	struct kfree_rcu_cpu *krcp = this_krc;

	if (unlikely(!krcp))
		krcp = krc_attach();
	return krcp;
}

/* ======================= kvfree_call_rcu ======================= */

/* Headless, and no block to be had: wait here, as the kernel does. */
static void kvfree_rcu_sync(struct kfree_rcu_cpu *krcp, void *ptr)
{
	if (rcu_read_lock_held()) {
		slab_warn("mm/kvfree_rcu.c:kvfree_call_rcu",
			  "kvfree_rcu(0x%lx): no memory for its batch, and inside rcu_read_lock() "
			  "no grace period can be waited for: the object is leaked\n",
			  (unsigned long)ptr);
		return;
	}
	synchronize_rcu();
	kvfree(ptr);
	spin_lock(&krcp->lock);
	krcp->queued++;
	krcp->freed++;
	krcp->synced++;
	spin_unlock(&krcp->lock);
}

/* No room in the blocks: get a page, else chain through head, else wait. */
static noinline void kvfree_call_rcu_slow(struct kfree_rcu_cpu *krcp, struct rcu_head *head,
		void *ptr, int ch)
{
	struct kvfree_rcu_bulk_data *bnode = (void *)__get_free_pages(KVFREE_GFP, 0);
	bool queued = true;

	if (bnode)
		bnode->next = NULL;	/* a chain of one for krc_spare_put_locked */
	spin_lock(&krcp->lock);
	krc_spare_put_locked(krcp, bnode, true);
	if (!krc_add_locked(krcp, ch, ptr)) {
		if (head) {
			batch_chain(&krcp->pending, head, ptr);
			krc_count_locked(krcp);
		} else {
			queued = false;
		}
	}
	if (queued && krc_due_locked(krcp))
		krc_send_locked(krcp);
	spin_unlock(&krcp->lock);
	if (!queued)
		kvfree_rcu_sync(krcp, ptr);
}

/*
 * Fast path: one uncontended lock, a store into the current block, and
 * the due check (a coarse clock read); one call_rcu per batch.
 */
void kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	struct kfree_rcu_cpu *krcp;
	int ch;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	rcu_prepare();
	krcp = krc_this_cpu();
	ch = virt_addr_valid(ptr) ? 0 : 1;	/* as kvfree() tells them apart */
	spin_lock(&krcp->lock);
	if (unlikely(!krc_add_locked(krcp, ch, ptr))) {
		spin_unlock(&krcp->lock);
		kvfree_call_rcu_slow(krcp, head, ptr, ch);
		return;
	}
	if (krc_due_locked(krcp))
		krc_send_locked(krcp);
	spin_unlock(&krcp->lock);
}
EXPORT_SYMBOL(kvfree_call_rcu);

/* ======================= rcu_barrier, statistics, fork ======================= */

/*
 * Every pending batch goes to a free carrier (rcu_barrier() then waits for
 * the carriers' callbacks with one of its own, queued behind them); a batch
 * that finds both carriers in flight is freed here, after a grace period of
 * its own.
 */
void kvfree_rcu_barrier(void)
{
	struct kvfree_rcu_batch mine = { { NULL, NULL }, NULL, 0 }, b;
	struct kfree_rcu_cpu *krcp;

	for_each_krc(krcp) {
		spin_lock(&krcp->lock);
		krc_send_locked(krcp);
		batch_move(&b, &krcp->pending);
		spin_unlock(&krcp->lock);
		batch_splice(&mine, &b);
	}
	if (!mine.nr)
		return;
	synchronize_rcu();
	free_blocks(batch_free_objects(&mine));
	__atomic_add_fetch(&barrier_freed, mine.nr, __ATOMIC_RELAXED);
}

static void krc_stats_add(struct kfree_rcu_cpu *krcp, struct uslab_rcu_stats *st)
{
	spin_lock(&krcp->lock);
	st->kvfree_queued += krcp->queued;
	st->kvfree_freed += krcp->freed;
	st->kvfree_batches += krcp->batches;
	st->kvfree_synced += krcp->synced;
	spin_unlock(&krcp->lock);
}

void kvfree_rcu_get_stats(struct uslab_rcu_stats *st)
{
	struct kfree_rcu_cpu *krcp;

	for_each_krc(krcp)
		krc_stats_add(krcp, st);
	st->kvfree_freed += __atomic_load_n(&barrier_freed, __ATOMIC_RELAXED);
}

unsigned long kvfree_rcu_pending(void)
{
	struct uslab_rcu_stats st;

	memset(&st, 0, sizeof(st));
	kvfree_rcu_get_stats(&st);
	return st.kvfree_queued - st.kvfree_freed;
}

/* In a fork child only this thread lives: the other owners' krcs are
 * orphaned, their batches sent, and the krcs pooled for new threads. */
void kvfree_rcu_fork_child(void)
{
	struct kfree_rcu_cpu *krcp;
	bool orphan;

	for_each_krc(krcp) {
		if (krcp == this_krc || krcp == &krc_fallback)
			continue;
		spin_lock(&krcp->lock);
		orphan = !krcp->orphaned;
		krcp->orphaned = true;
		if (orphan)
			krc_send_locked(krcp);
		spin_unlock(&krcp->lock);
		if (!orphan)
			continue;
		spin_lock(&krc_pool_lock);
		krcp->next_pool = krc_pool;
		krc_pool = krcp;
		spin_unlock(&krc_pool_lock);
	}
}

static void krc_fork_each(void (*fn)(spinlock_t *))
{
	struct kfree_rcu_cpu *krcp;

	fn(&krc_pool_lock);
	for_each_krc(krcp)
		fn(&krcp->lock);
}

static void krc_fork_prepare(void)
{
	krc_fork_each(spin_lock);
}

/* Parent and child: the forking thread took every lock, so it releases them. */
static void krc_fork_release(void)
{
	krc_fork_each(spin_unlock);
}

static const struct fork_hooks krc_fork_hooks = {
	.prepare = krc_fork_prepare,
	.parent = krc_fork_release,
	.child = krc_fork_release,
};

static void __attribute__((constructor)) kvfree_rcu_constructor(void)
{
	fork_hooks_register(&krc_fork_hooks, FORK_RANK_LEAF);
}
