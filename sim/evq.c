/*
 * evq.c — the pending-event queue.
 *
 * A 4-ary min-heap of 16-byte keys; payloads stay in a pool of slots, so
 * sifting moves keys (and their slot numbers) only. Each slot records its heap
 * index, so cancelling is O(log n); a handle is (slot, generation), so a stale
 * handle is detected, never followed. Order is (time, kind, seq): total, hence
 * deterministic.
 *
 * The key is one unsigned 128-bit integer whose integer order is the event
 * order, so a comparison is a cmp and an sbb, with no branch:
 *
 *     bits 127..64  t_us ^ 2^63   (signed time, biased so unsigned order works)
 *     bits  63..56  kind          (priority at equal time)
 *     bits  55..0   seq           (insertion counter; 2^56 pushes per queue)
 *
 * Keys are unique (seq is), and the all-ones key is above every real one: it
 * is the sentinel that fills the heap past its last entry, so a node's four
 * children can always be read, without a branch for a partial last group. The
 * slot number (4 bytes) would make a key 20 bytes, padded to 24; it lives
 * instead in heap_slot[], parallel to the heap. The comparisons that steer a
 * sift then read keys only, and with heap[1] placed on a 64-byte boundary the
 * four children of a node are exactly one cache line. A sift-down prefetches
 * the 16 grandchildren (four lines) while it compares the children, which takes
 * the cache misses of a large heap off the path of the comparisons.
 *
 * Slots: slots[s] holds the payload (a, b) and a 32-bit generation, odd while
 * the slot holds a pending event; slot_pos[s] is its heap index while pending
 * and the next free slot while free (a LIFO free list, so a pop followed by a
 * push, the engine's common case, reuses a slot that is still in cache). A
 * handle is gen << 32 | s. It is good while slots[s].gen == gen and gen is odd;
 * popping or cancelling makes gen even, reusing the slot makes it a new odd
 * value. When a generation would wrap to 0, the slot is retired instead of
 * freed (24 bytes lost per 2^31 events through one slot), so an old handle can
 * never match again. Handle 0 (generation 0) never names an event.
 *
 * Memory: one block holds the heap, heap_slot, slot_pos and slots; it doubles
 * when the slots run out (push then allocates once, out of line) and is never
 * shrunk. Growth builds the new block before it lets go of the old one, so a
 * failure leaves the queue as it was. Nothing else allocates.
 *
 * Invariants (sim__evq_check; tests run it after every step):
 *   heap[parent(i)] < heap[i] for 0 < i < n; heap[i] is the sentinel for
 *   n <= i < cap + 3; slot_pos[heap_slot[i]] == i and slots[heap_slot[i]].gen is
 *   odd for i < n, and exactly n slots have an odd generation; the free list
 *   holds every slot with an even non-zero generation, once; the retired slots
 *   are those with generation 0; every seq is below next_seq.
 */
#include "evq_int.h"

#include "status.h"

#include <stdlib.h>
#include <string.h>

#define EVQ_NONE        UINT32_MAX
#define EVQ_CAP_DEFAULT 64u
#define EVQ_SENTINEL    (~(sim__evq_key)0)
#define EVQ_TIME_BIAS   (UINT64_C(1) << 63)
/* Entries before heap[0] that put heap[1] on a cache line, and sentinels after
 * the last possible entry: children of the last parent reach index cap + 2. */
#define EVQ_HEAP_FRONT 3u
#define EVQ_HEAP_BACK  3u
#define EVQ_LINE       64u

#define EVQ_LIKELY(x)   __builtin_expect(!!(x), 1)
#define EVQ_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------------- */
/* keys                                                                       */

static inline sim__evq_key key_make(int64_t t_us, uint32_t kind, uint64_t seq)
{
    uint64_t hi = (uint64_t)t_us ^ EVQ_TIME_BIAS;
    uint64_t lo = (uint64_t)kind << 56 | seq;
    return (sim__evq_key)hi << 64 | lo;
}

static inline int64_t key_time(sim__evq_key k)
{
    uint64_t hi = (uint64_t)(k >> 64);
    /* Undo the bias without an implementation-defined conversion. */
    return hi >= EVQ_TIME_BIAS ? (int64_t)(hi - EVQ_TIME_BIAS) : (int64_t)hi - INT64_MAX - 1;
}

static inline uint32_t key_kind(sim__evq_key k)
{
    return (uint32_t)((uint64_t)k >> 56);
}

static inline uint64_t key_seq(sim__evq_key k)
{
    return (uint64_t)k & SIM__EVQ_SEQ_MAX;
}

static inline void event_fill(sim__event *out, sim__evq_key k, const sim__evq_slot *sl)
{
    out->t_us = key_time(k);
    out->kind = key_kind(k);
    out->a = sl->a;
    out->b = sl->b;
    out->seq = key_seq(k);
}

/* ------------------------------------------------------------------------- */
/* heap                                                                       */

/* Put key x of slot xs at index i, or above it, restoring heap order on the
 * path to the root. Costs one comparison per level climbed. */
static inline void heap_sift_up(sim__evq *q, size_t i, sim__evq_key x, uint32_t xs)
{
    sim__evq_key *restrict h = q->heap;
    uint32_t *restrict hs = q->heap_slot;
    uint32_t *restrict pos = q->slot_pos;
    while (i > 0) {
        size_t p = (i - 1) >> 2;
        sim__evq_key pk = h[p];
        if (!(x < pk))
            break;
        uint32_t ps = hs[p];
        h[i] = pk;
        hs[i] = ps;
        pos[ps] = (uint32_t)i;
        i = p;
    }
    h[i] = x;
    hs[i] = xs;
    pos[xs] = (uint32_t)i;
}

/* If k2 < *k, replace *k by k2 and *g by g2: two selects on one flag. Which
 * child is smallest is a coin toss that no predictor can learn, so a branch
 * here is mispredicted half the time; gcc turns the C version into one or into
 * cmovs depending on the code around it, so on x86-64 the selects are spelled
 * out (cmp+sbb is the 128-bit comparison, cmovc the selects). */
static inline void key_min_step(sim__evq_key *k, uintptr_t *g, sim__evq_key k2, uintptr_t g2)
{
#if defined(__x86_64__) && !defined(EVQ_PORTABLE)
    uint64_t lo = (uint64_t)*k, hi = (uint64_t)(*k >> 64), t;
    uint64_t lo2 = (uint64_t)k2, hi2 = (uint64_t)(k2 >> 64);
    uintptr_t gm = *g;
    __asm__("cmp %[lo], %[lo2]\n\t"
            "mov %[hi2], %[t]\n\t"
            "sbb %[hi], %[t]\n\t"
            "cmovc %[lo2], %[lo]\n\t"
            "cmovc %[hi2], %[hi]\n\t"
            "cmovc %[g2], %[gm]"
            : [lo] "+r"(lo), [hi] "+r"(hi), [gm] "+r"(gm), [t] "=&r"(t)
            : [lo2] "r"(lo2), [hi2] "r"(hi2), [g2] "r"(g2)
            : "cc");
    *k = (sim__evq_key)hi << 64 | lo;
    *g = gm;
#else
    int lt = k2 < *k;
    *k = lt ? k2 : *k;
    *g = lt ? g2 : *g;
#endif
}

/* Put key x of slot xs at index i, or below it. Per level: three comparisons
 * (a tournament among the four children), no branch but the loop's, which is
 * predictable.
 *
 * The loop is built around the latency of one level, which is what a sift-down
 * costs: the next level's loads wait for this level's choice. So it carries the
 * address of the current children as an integer `ch` and the choice selects,
 * alongside the smallest key, the address of that child's own children
 * (g..g+192, one cache line each, prefetched before the comparisons), rather
 * than an index to be turned back into an address. Addresses are integers here
 * because the grandchildren of the last parents lie past the block: they are
 * only prefetched, which never faults, and never turned into pointers. */
static inline void heap_sift_down(sim__evq *q, size_t i, sim__evq_key x, uint32_t xs)
{
    sim__evq_key *restrict h = q->heap;
    uint32_t *restrict hs = q->heap_slot;
    uint32_t *restrict pos = q->slot_pos;
    const uintptr_t hb = (uintptr_t)h;
    const uintptr_t hsb = (uintptr_t)hs;
    const uintptr_t end = hb + q->n * sizeof *h;
    /* children of heap[j] start at hb + 16 (4j + 1); for the group at ch,
     * j = (ch - hb) / 16, so their children start at 4 ch - (3 hb - 16). */
    const uintptr_t gk = 3 * hb - sizeof *h;
    uintptr_t ch = hb + (4 * i + 1) * sizeof *h;
    while (ch < end) {
        uintptr_t g = 4 * ch - gk;
        __builtin_prefetch((const void *)g);
        __builtin_prefetch((const void *)(g + EVQ_LINE));
        __builtin_prefetch((const void *)(g + 2 * EVQ_LINE));
        __builtin_prefetch((const void *)(g + 3 * EVQ_LINE));
        __builtin_prefetch((const void *)(hsb + (g - hb) / 4)); /* their heap_slot */
        const sim__evq_key *c = (const sim__evq_key *)ch;
        sim__evq_key k = c[0], k23 = c[2];
        uintptr_t gm = g, g23 = g + 2 * EVQ_LINE;
        key_min_step(&k, &gm, c[1], g + EVQ_LINE);
        key_min_step(&k23, &g23, c[3], g + 3 * EVQ_LINE);
        key_min_step(&k, &gm, k23, g23);
        if (!(k < x))
            break;
        size_t m = (gm - hb) / EVQ_LINE; /* gm - hb == 64 m + 16 */
        uint32_t ms = hs[m];
        h[i] = k;
        hs[i] = ms;
        pos[ms] = (uint32_t)i;
        i = m;
        ch = gm;
    }
    h[i] = x;
    hs[i] = xs;
    pos[xs] = (uint32_t)i;
}

/* Take the last entry out of the heap and use it to fill the hole at index i
 * (n has not been decremented yet). */
static inline void heap_remove(sim__evq *q, size_t i)
{
    size_t last = --q->n;
    sim__evq_key x = q->heap[last];
    uint32_t xs = q->heap_slot[last];
    q->heap[last] = EVQ_SENTINEL;
    if (i == last)
        return;
    if (i > 0 && x < q->heap[(i - 1) >> 2])
        heap_sift_up(q, i, x, xs);
    else
        heap_sift_down(q, i, x, xs);
}

/* ------------------------------------------------------------------------- */
/* slots                                                                      */

static inline void slot_release(sim__evq *q, uint32_t s)
{
    uint32_t gen = q->slots[s].gen + 1;
    q->slots[s].gen = gen;
    if (EVQ_UNLIKELY(gen == 0)) {
        q->retired++; /* generations exhausted: see the top of the file */
        q->slot_pos[s] = EVQ_NONE;
        return;
    }
    q->slot_pos[s] = q->free_head;
    q->free_head = s;
}

/* The slot behind a handle, or EVQ_NONE when the handle is stale. */
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

/* The block holds, in order: the heap, aligned so that heap[1] starts a cache
 * line (with the four children of a node on one line); the slots; heap_slot,
 * aligned so that heap_slot[5] starts a line (the slots of the 16 grandchildren
 * of a node, 16(i+1)+5 .. 16(i+1)+20, are then one line); slot_pos. The
 * allocator returns blocks aligned for any type, as malloc does, so each
 * alignment costs at most one line of slack. */
static size_t block_size(uint32_t cap)
{
    size_t heap_n = (size_t)EVQ_HEAP_FRONT + cap + EVQ_HEAP_BACK;
    return EVQ_LINE + heap_n * sizeof(sim__evq_key) + (size_t)cap * sizeof(sim__evq_slot) +
           2 * EVQ_LINE + 2 * (size_t)cap * sizeof(uint32_t);
}

static uintptr_t align_line(uintptr_t p)
{
    return (p + EVQ_LINE - 1) & ~(uintptr_t)(EVQ_LINE - 1);
}

/* Carve the block at mem into the four arrays of a queue of capacity cap. */
static void evq_layout(sim__evq *q, void *mem, uint32_t cap)
{
    char *p = (char *)mem;
    p += align_line((uintptr_t)p) - (uintptr_t)p;
    q->heap = (sim__evq_key *)(void *)p + EVQ_HEAP_FRONT;
    p += ((size_t)EVQ_HEAP_FRONT + cap + EVQ_HEAP_BACK) * sizeof(sim__evq_key);
    q->slots = (sim__evq_slot *)(void *)p;
    p += (size_t)cap * sizeof(sim__evq_slot);
    p += align_line((uintptr_t)p) - (uintptr_t)p + EVQ_LINE - 5 * sizeof(uint32_t);
    q->heap_slot = (uint32_t *)(void *)p;
    p += (size_t)cap * sizeof(uint32_t);
    q->slot_pos = (uint32_t *)(void *)p;
}

/* Move the queue into a new block of capacity cap >= slots_used. Cold. */
static int evq_reserve(sim__evq *q, uint32_t cap)
{
    size_t size = block_size(cap);
    void *mem = q->alloc(q->alloc_ud, NULL, 0, size);
    if (!mem)
        return TM_ERR_NOMEM;
    sim__evq old = *q;
    evq_layout(q, mem, cap);
    if (old.heap_mem) {
        memcpy(q->heap, old.heap, (size_t)old.n * sizeof *q->heap);
        memcpy(q->heap_slot, old.heap_slot, (size_t)old.n * sizeof *q->heap_slot);
        memcpy(q->slot_pos, old.slot_pos, (size_t)old.slots_used * sizeof *q->slot_pos);
        memcpy(q->slots, old.slots, (size_t)old.slots_used * sizeof *q->slots);
        q->alloc(q->alloc_ud, old.heap_mem, old.heap_mem_size, 0);
    }
    for (size_t i = q->n; i < (size_t)cap + EVQ_HEAP_BACK; i++)
        q->heap[i] = EVQ_SENTINEL;
    q->heap_mem = mem;
    q->heap_mem_size = size;
    q->cap = cap;
    return TM_OK;
}

/* Push found no free slot and no unused one: double the capacity. */
__attribute__((noinline, cold)) static int evq_grow(sim__evq *q)
{
    if (q->cap >= SIM__EVQ_CAP_MAX)
        return TM_ERR_LIMIT;
    uint32_t cap = q->cap ? q->cap : EVQ_CAP_DEFAULT / 2;
    cap = cap > SIM__EVQ_CAP_MAX / 2 ? SIM__EVQ_CAP_MAX : 2 * cap;
    return evq_reserve(q, cap);
}

/* ------------------------------------------------------------------------- */
/* lifecycle                                                                  */

int sim__evq_init_alloc(sim__evq *q, uint32_t cap_hint, sim__evq_alloc_fn alloc, void *ud)
{
    memset(q, 0, sizeof *q);
    q->free_head = EVQ_NONE;
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
    if (q->heap_mem)
        q->alloc(q->alloc_ud, q->heap_mem, q->heap_mem_size, 0);
    memset(q, 0, sizeof *q);
    q->free_head = EVQ_NONE;
}

/* ------------------------------------------------------------------------- */
/* operations                                                                 */

int sim__evq_push(sim__evq *q, int64_t t_us, uint32_t kind, uint32_t a, uint64_t b,
                  uint64_t *handle)
{
    if (EVQ_UNLIKELY((kind > SIM__EVQ_KIND_MAX) | (q->next_seq > SIM__EVQ_SEQ_MAX)))
        return kind > SIM__EVQ_KIND_MAX ? TM_ERR_INVAL : TM_ERR_LIMIT;
    uint32_t s = q->free_head;
    if (EVQ_LIKELY(s != EVQ_NONE)) {
        q->free_head = q->slot_pos[s];
    } else {
        if (EVQ_UNLIKELY(q->slots_used == q->cap)) {
            int rc = evq_grow(q);
            if (rc != TM_OK)
                return rc;
        }
        s = q->slots_used++;
        q->slots[s].gen = 0;
    }
    sim__evq_slot *sl = &q->slots[s];
    uint32_t gen = sl->gen + 1;
    sl->gen = gen;
    sl->a = a;
    sl->b = b;
    heap_sift_up(q, q->n++, key_make(t_us, kind, q->next_seq++), s);
    if (handle)
        *handle = (uint64_t)gen << 32 | s;
    return TM_OK;
}

int sim__evq_pop(sim__evq *q, sim__event *out)
{
    if (q->n == 0)
        return SIM__EVQ_EMPTY;
    uint32_t s = q->heap_slot[0];
    if (out)
        event_fill(out, q->heap[0], &q->slots[s]);
    slot_release(q, s);
    heap_remove(q, 0);
    return TM_OK;
}

int sim__evq_peek(const sim__evq *q, sim__event *out)
{
    if (q->n == 0)
        return SIM__EVQ_EMPTY;
    if (out)
        event_fill(out, q->heap[0], &q->slots[q->heap_slot[0]]);
    return TM_OK;
}

int sim__evq_cancel(sim__evq *q, uint64_t handle)
{
    uint32_t s = slot_of_handle(q, handle);
    if (s == EVQ_NONE)
        return TM_ERR_STALE;
    uint32_t i = q->slot_pos[s];
    slot_release(q, s);
    heap_remove(q, i);
    return TM_OK;
}

int sim__evq_get(const sim__evq *q, uint64_t handle, sim__event *out)
{
    uint32_t s = slot_of_handle(q, handle);
    if (s == EVQ_NONE)
        return TM_ERR_STALE;
    if (out)
        event_fill(out, q->heap[q->slot_pos[s]], &q->slots[s]);
    return TM_OK;
}

size_t sim__evq_size(const sim__evq *q)
{
    return q->n;
}

/* ------------------------------------------------------------------------- */
/* invariants                                                                 */

int sim__evq_check(const sim__evq *q)
{
    if (!q->heap_mem)
        return (q->n == 0 && q->cap == 0 && q->slots_used == 0) ? TM_OK : TM_ERR_INTERNAL;
    if (q->n > q->cap || q->slots_used > q->cap || q->retired > q->slots_used ||
        q->n > q->slots_used - q->retired || q->cap > SIM__EVQ_CAP_MAX ||
        q->heap_mem_size != block_size(q->cap))
        return TM_ERR_INTERNAL;
    /* Heap order and the sentinels: O(cap). */
    for (size_t i = 1; i < q->n; i++)
        if (!(q->heap[(i - 1) >> 2] < q->heap[i]))
            return TM_ERR_INTERNAL;
    for (size_t i = q->n; i < (size_t)q->cap + EVQ_HEAP_BACK; i++)
        if (q->heap[i] != EVQ_SENTINEL)
            return TM_ERR_INTERNAL;
    /* Each entry names a distinct pending slot that points back at it. */
    for (size_t i = 0; i < q->n; i++) {
        uint32_t s = q->heap_slot[i];
        if (s >= q->slots_used || (q->slots[s].gen & 1u) == 0 || q->slot_pos[s] != i ||
            key_seq(q->heap[i]) >= q->next_seq)
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
    if (pending != q->n || retired != q->retired)
        return TM_ERR_INTERNAL;
    /* The free list holds exactly the free slots; a cycle or a stray member
     * makes the walk longer than free_n or lands on a slot that is not free. */
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
