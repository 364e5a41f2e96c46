/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evq.c — the pending-event queue.
 *
 * A 4-ary min-heap of 16-byte keys; payloads stay in a pool of slots, so
 * sifting moves keys only. Each slot records its heap index, so cancelling is
 * O(log n); a handle is (slot, generation), so a stale handle is detected,
 * never followed. Order is (time, kind, seq): total, hence deterministic.
 *
 * The key is one unsigned 128-bit integer whose integer order is the event
 * order, so that comparing two is a cmp and an sbb:
 *
 *     bits 127..64  t_us ^ 2^63   signed time, biased so that unsigned order works
 *     bits  63..56  kind          priority at equal time
 *     bits  55..26  rank          insertion order among the pending events
 *     bits  25..0   slot          where the payload is; never decides the order
 *
 * The slot number is in the key because a sift moves a key and must then write
 * its new index into slot_pos[its slot]; a key that carries its slot needs no
 * second array moved in step with the heap (bench_evq at 10^6 pending: 1.7x the
 * bare heap, against 2.3x with a parallel heap_slot[] array). That leaves
 * 30 bits for the sequence, too few for a counter that must never wrap, so the
 * key holds a rank instead: the true 64-bit sequence number lives in the slot
 * (it is what sim__event.seq reports), and ranks are handed out in push order
 * from rank_next. When rank_next reaches rank_limit (2^30), the pending keys are
 * renumbered 0..n-1 in rank order (a sort and a heapify, O(n log n), no memory;
 * about 0.3 s for 10^6 pending events): that keeps every comparison between
 * pending events as it was, and leaves at least 2^30 - SIM__EVQ_CAP_MAX (about
 * 10^9) pushes before the next one. Ranks of pending events are distinct, so the
 * slot bits never decide the order.
 *
 * The all-ones key is above every real one (its slot field is no slot): it is
 * the sentinel that fills the heap after its last entry, so all four children
 * of a node can be read without a branch for a partial last group. heap[1] is
 * on a 64-byte boundary, so the four children of a node are one cache line.
 *
 * Slots: slots[s] holds the payload, the true sequence number and a 32-bit
 * generation, odd while the slot holds a pending event; slot_pos[s] is its heap
 * index while pending and the next free slot while free (a LIFO free list, so a
 * pop followed by a push, the engine's common case, reuses a slot still in
 * cache). A handle is gen << 32 | s; it is good while slots[s].gen == gen and
 * gen is odd. Popping or cancelling makes gen even; reusing the slot makes it a
 * new odd value. When a generation would wrap to 0 the slot is retired instead
 * of freed (28 bytes lost per 2^31 events through one slot), so an old handle
 * can never match again. Handle 0 (generation 0) never names an event.
 *
 * The vacated root: pop takes heap[0]'s event and frees its slot but leaves
 * the root empty (hole = 1) instead of moving the last entry up and sifting it
 * down at once. The engine's usual next step is a push (a completion starts
 * the next job, a tick schedules the next tick), and that push puts its key
 * straight into the root and sifts it down: one sift instead of a sift-down
 * for the last entry plus a sift-up for the new one, and the last entry does
 * not move. Any other operation first closes the hole the usual way (settle):
 * a pop, a cancel, a renumbering. peek, which must not change the queue,
 * reads the least of the root's four children. The order of events is the
 * same either way (it is total); only where keys sit in the heap differs.
 * n counts heap entries with the vacated root, so pending events are
 * n - hole.
 *
 * Memory: one block holds heap, slots and slot_pos. It doubles when the slots
 * run out (push then allocates once, out of line) and never shrinks. Growth
 * builds the new block before it frees the old one, so a failure leaves the
 * queue as it was. Nothing else allocates.
 *
 * Invariants (sim__evq_check; tests run it after every step), with f = hole
 * the first real entry:
 *   heap[parent(i)] < heap[i] for f ? 5 : 1 <= i < n, and heap[i] is the sentinel for
 *   n <= i < cap + 3; for f <= i < n, s = slot of heap[i] has an odd generation,
 *   slot_pos[s] == i and slots[s].seq < seq_next, and heap[i]'s rank is below
 *   rank_next; exactly n - f slots have an odd generation; the free list holds each
 *   slot with an even non-zero generation once; generation 0 means retired.
 *   (Ranks follow sequence numbers; tests check it through the pop order.)
 */
#include "model/evq_int.h"

#include "status.h"

#include <stdlib.h>
#include <string.h>

#define EVQ_CAP_DEFAULT 64u
#define EVQ_RANK_BITS   30
#define EVQ_RANK_LIMIT  (UINT32_C(1) << EVQ_RANK_BITS)
#define EVQ_RANK_MASK   (EVQ_RANK_LIMIT - 1)
/* Entries before heap[0] that put heap[1] on a line boundary, and sentinels
 * after the last possible entry: children of the last parent reach cap + 2. */
#define EVQ_HEAP_FRONT 3u
#define EVQ_HEAP_BACK  3u

_Static_assert(SIM__EVQ_CAP_MAX <= EVQ_SLOT_MASK, "slot numbers must fit their field");
_Static_assert(SIM__EVQ_CAP_MAX <= EVQ_RANK_LIMIT / 2, "renumbering must free half the ranks");
_Static_assert(EVQ_SLOT_BITS + EVQ_RANK_BITS == 56, "kind, rank and slot fill the low word");

/* ------------------------------------------------------------------------- */
/* ranks                                                                      */

static inline uint32_t key_rank(sim__evq_key k)
{
    return (uint32_t)((uint64_t)k >> EVQ_SLOT_BITS) & EVQ_RANK_MASK;
}

/* Heapsort h[0..n) by rank, in place (qsort may allocate, and this must not).
 * A binary max-heap on ranks, distinct, so the result is fully determined. */
static void rank_sift(sim__evq_key *h, size_t i, size_t n)
{
    sim__evq_key x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && key_rank(h[c + 1]) > key_rank(h[c]))
            c++;
        if (key_rank(h[c]) < key_rank(x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void rank_sort(sim__evq_key *h, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        rank_sift(h, i, n);
    for (size_t m = n; m-- > 1;) {
        sim__evq_key top = h[0];
        h[0] = h[m];
        h[m] = top;
        rank_sift(h, 0, m);
    }
}

/* Give the pending keys the ranks 0..n-1 in the order of their ranks, which
 * changes no comparison between them, and make room for 2^30 - n more pushes.
 * Sorting by rank scrambles heap order, so the heap is rebuilt (Floyd, O(n))
 * and every position written again. O(n log n), no memory; cold: once per
 * 2^30 - 2^25 pushes or more. */
__attribute__((noinline, cold)) void sim__evq_renumber(sim__evq *q)
{
    sim__evq_key *h = q->heap;
    size_t n = q->n;
    const sim__evq_key rank_field = (sim__evq_key)EVQ_RANK_MASK << EVQ_SLOT_BITS;
    rank_sort(h, n);
    for (size_t i = 0; i < n; i++)
        h[i] = (h[i] & ~rank_field) | (sim__evq_key)i << EVQ_SLOT_BITS;
    for (size_t i = n >= 2 ? (n - 2) / 4 + 1 : 0; i-- > 0;)
        evq__sift_down(q, i, h[i]);
    for (size_t i = 0; i < n; i++)
        q->slot_pos[evq__key_slot(h[i])] = (uint32_t)i;
    q->rank_next = (uint32_t)n;
    q->renumbers++;
}

/* ------------------------------------------------------------------------- */
/* slots                                                                      */

/* The slot a handle names, or EVQ_NONE when the handle is stale. */
static inline uint32_t slot_of_handle(const sim__evq *q, uint64_t handle)
{
    uint32_t s = (uint32_t)handle;
    uint32_t gen = (uint32_t)(handle >> 32);
    if (s >= q->slots_used || (gen & 1u) == 0 || q->slots[s].gen != gen)
        return EVQ_NONE;
    return s;
}

/* ------------------------------------------------------------------------- */
/* memory                                                                     */

static void *evq_default_alloc(void *ud, void *p, size_t old_size, size_t new_size)
{
    (void)ud;
    (void)old_size;
    if (new_size == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, new_size);
}

/* The block holds the heap, placed so that heap[1] starts a cache line (one
 * line of slack: malloc's alignment is at least 16), then slots, then slot_pos. */
static size_t block_size(uint32_t cap)
{
    size_t heap_n = (size_t)EVQ_HEAP_FRONT + cap + EVQ_HEAP_BACK;
    return EVQ_LINE + heap_n * sizeof(sim__evq_key) + (size_t)cap * sizeof(sim__evq_slot) +
           (size_t)cap * sizeof(uint32_t);
}

static void evq_layout(sim__evq *q, void *mem, uint32_t cap)
{
    uintptr_t m = (uintptr_t)mem;
    char *p = (char *)mem + (((m + EVQ_LINE - 1) & ~(uintptr_t)(EVQ_LINE - 1)) - m);
    q->heap = (sim__evq_key *)(void *)p + EVQ_HEAP_FRONT;
    p += ((size_t)EVQ_HEAP_FRONT + cap + EVQ_HEAP_BACK) * sizeof(sim__evq_key);
    q->slots = (sim__evq_slot *)(void *)p;
    p += (size_t)cap * sizeof(sim__evq_slot);
    q->slot_pos = (uint32_t *)(void *)p;
}

/* Move the queue into a new block for cap >= slots_used events. */
static int evq_reserve(sim__evq *q, uint32_t cap)
{
    size_t size = block_size(cap);
    void *mem = q->alloc(q->alloc_ud, NULL, 0, size);
    if (!mem)
        return TM_ERR_NOMEM;
    sim__evq old = *q;
    evq_layout(q, mem, cap);
    if (old.mem) {
        memcpy(q->heap, old.heap, (size_t)old.n * sizeof *q->heap);
        memcpy(q->slots, old.slots, (size_t)old.slots_used * sizeof *q->slots);
        memcpy(q->slot_pos, old.slot_pos, (size_t)old.slots_used * sizeof *q->slot_pos);
        q->alloc(q->alloc_ud, old.mem, old.mem_size, 0);
    }
    for (size_t i = q->n; i < (size_t)cap + EVQ_HEAP_BACK; i++)
        q->heap[i] = EVQ_SENTINEL;
    q->mem = mem;
    q->mem_size = size;
    q->cap = cap;
    return TM_OK;
}

/* Push found no free slot and no unused one: double the capacity. */
__attribute__((noinline, cold)) int sim__evq_grow(sim__evq *q)
{
    if (q->cap >= SIM__EVQ_CAP_MAX)
        return TM_ERR_LIMIT;
    uint32_t cap = q->cap > SIM__EVQ_CAP_MAX / 2 ? SIM__EVQ_CAP_MAX : 2 * q->cap;
    return evq_reserve(q, cap);
}

/* ------------------------------------------------------------------------- */
/* lifecycle                                                                  */

int sim__evq_init_alloc(sim__evq *q, uint32_t cap_hint, sim__evq_alloc_fn alloc, void *ud)
{
    memset(q, 0, sizeof *q);
    q->free_head = EVQ_NONE;
    q->rank_limit = EVQ_RANK_LIMIT;
    q->alloc = alloc ? alloc : evq_default_alloc;
    q->alloc_ud = alloc ? ud : NULL;
    if (cap_hint > SIM__EVQ_CAP_MAX)
        return TM_ERR_LIMIT;
    return evq_reserve(q, cap_hint ? cap_hint : EVQ_CAP_DEFAULT);
}

int sim__evq_init(sim__evq *q, uint32_t cap_hint)
{
    return sim__evq_init_alloc(q, cap_hint, NULL, NULL);
}

void sim__evq_fini(sim__evq *q)
{
    if (q->mem)
        q->alloc(q->alloc_ud, q->mem, q->mem_size, 0);
    memset(q, 0, sizeof *q);
    q->free_head = EVQ_NONE;
}

/* ------------------------------------------------------------------------- */
/* operations                                                                 */

int sim__evq_cancel(sim__evq *q, uint64_t handle)
{
    uint32_t s = slot_of_handle(q, handle);
    if (s == EVQ_NONE)
        return TM_ERR_STALE;
    if (q->hole)
        evq__settle(q); /* positions may move; the root must be a real entry */
    uint32_t i = q->slot_pos[s];
    evq__slot_release(q, s);
    evq__remove(q, i);
    return TM_OK;
}

int sim__evq_get(const sim__evq *q, uint64_t handle, sim__event *out)
{
    uint32_t s = slot_of_handle(q, handle);
    if (s == EVQ_NONE)
        return TM_ERR_STALE;
    if (out)
        evq__event_fill(out, q->heap[q->slot_pos[s]], &q->slots[s]);
    return TM_OK;
}

size_t sim__evq_size(const sim__evq *q)
{
    return q->n - q->hole;
}

/* ------------------------------------------------------------------------- */
/* invariants                                                                 */

int sim__evq_check(const sim__evq *q)
{
    if (!q->mem)
        return (q->n == 0 && q->cap == 0 && q->slots_used == 0) ? TM_OK : TM_ERR_INTERNAL;
    if (q->hole > 1 || q->n < q->hole)
        return TM_ERR_INTERNAL;
    const size_t first = q->hole; /* the first real entry: 1 past a vacated root */
    const uint32_t pending_n = q->n - q->hole;
    if (q->n > q->cap || q->slots_used > q->cap || q->retired > q->slots_used ||
        pending_n > q->slots_used - q->retired || q->cap > SIM__EVQ_CAP_MAX ||
        q->mem_size != block_size(q->cap) || q->rank_limit > EVQ_RANK_LIMIT ||
        q->rank_next > EVQ_RANK_LIMIT)
        return TM_ERR_INTERNAL;
    /* Heap order (below a vacated root, each of its children heads a heap of
     * its own) and the sentinels. */
    for (size_t i = first ? 5 : 1; i < q->n; i++)
        if (!(q->heap[(i - 1) >> 2] < q->heap[i]))
            return TM_ERR_INTERNAL;
    for (size_t i = q->n; i < (size_t)q->cap + EVQ_HEAP_BACK; i++)
        if (q->heap[i] != EVQ_SENTINEL)
            return TM_ERR_INTERNAL;
    /* Each entry names a pending slot that points back at it; distinct entries
     * therefore name distinct slots. */
    for (size_t i = first; i < q->n; i++) {
        uint32_t s = evq__key_slot(q->heap[i]);
        if (s >= q->slots_used || (q->slots[s].gen & 1u) == 0 || q->slot_pos[s] != i ||
            q->slots[s].seq >= q->seq_next || key_rank(q->heap[i]) >= q->rank_next)
            return TM_ERR_INTERNAL;
    }
    /* Classify the slots by generation: odd pending, 0 retired, else free. */
    uint32_t pending = 0, retired = 0, free_n = 0;
    for (uint32_t s = 0; s < q->slots_used; s++) {
        uint32_t gen = q->slots[s].gen;
        if (gen & 1u)
            pending++;
        else if (gen == 0)
            retired++;
        else
            free_n++;
    }
    if (pending != pending_n || retired != q->retired)
        return TM_ERR_INTERNAL;
    /* The free list holds exactly the free slots: a cycle or a stray member makes
     * the walk longer than free_n or lands on a slot that is not free. */
    uint32_t walked = 0;
    for (uint32_t s = q->free_head; s != EVQ_NONE; s = q->slot_pos[s]) {
        if (s >= q->slots_used || walked == free_n)
            return TM_ERR_INTERNAL;
        uint32_t gen = q->slots[s].gen;
        if ((gen & 1u) != 0 || gen == 0)
            return TM_ERR_INTERNAL;
        walked++;
    }
    return walked == free_n ? TM_OK : TM_ERR_INTERNAL;
}
