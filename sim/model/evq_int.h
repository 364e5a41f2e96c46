/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evq_int.h — the pending-event queue of the engine (internal to sim/).
 *
 * The engine schedules an event with sim__evq_push, runs them in order with
 * sim__evq_pop, and withdraws one it no longer wants (the completion of a job
 * that was preempted, the failure of a node that was drained) with
 * sim__evq_cancel. Order is (t_us, kind, seq): time first, then the kind,
 * whose numeric value is its priority at equal time (lower runs first), then
 * the insertion sequence. It is total, so a run is deterministic.
 *
 * The layout is here because the engine owns the storage (a member of its
 * struct); only evq.c and the inline push, pop and peek at the end of this file
 * (the heap code under them included) read or write the fields, and evq.c
 * explains them.
 */
#ifndef TARMAC_SIM_EVQ_INT_H
#define TARMAC_SIM_EVQ_INT_H

#include <stddef.h>
#include <stdint.h>

#ifndef __SIZEOF_INT128__
#error "evq.c needs unsigned __int128 (gcc or clang on a 64-bit target)"
#endif

/* A kind is 0..SIM__EVQ_KIND_MAX; its value is its priority at equal time. */
#define SIM__EVQ_KIND_MAX 255u
/* The most events that can be pending at once (2^25, about 33 million). */
#define SIM__EVQ_CAP_MAX (UINT32_C(1) << 25)
/* sim__evq_pop / sim__evq_peek: the queue is empty (not an error). */
#define SIM__EVQ_EMPTY 1
/* A handle that never names an event (generations of pending events are odd). */
#define SIM__EVQ_HANDLE_NONE UINT64_C(0)

/* An event as pushed, plus the sequence number the queue gave it. */
typedef struct sim__event {
    int64_t t_us;  /* when it happens, microseconds from the scenario's start */
    uint32_t kind; /* 0..SIM__EVQ_KIND_MAX; lower runs first at equal time */
    uint32_t a;    /* the engine's: object index */
    uint64_t b;    /* the engine's: extra */
    uint64_t seq;  /* insertion sequence: 0 for the queue's first push, then +1 per push */
} sim__event;

/* A realloc-shaped allocator: new_size 0 frees p (which may be NULL) and
 * returns NULL; otherwise it returns a block of new_size bytes, aligned as
 * malloc's are, holding the first min(old_size, new_size) bytes of p, or NULL
 * with p untouched. evq.c only ever passes p == NULL or new_size == 0. */
typedef void *(*sim__evq_alloc_fn)(void *ud, void *p, size_t old_size, size_t new_size);

__extension__ typedef unsigned __int128 sim__evq_key;

/* A slot: the payload and true sequence number of one pending event, and the
 * generation that makes handles to it checkable. */
typedef struct sim__evq_slot {
    uint64_t b;
    uint64_t seq;
    uint32_t a;
    uint32_t gen; /* odd while the slot holds a pending event */
} sim__evq_slot;

typedef struct sim__evq {
    sim__evq_key *heap;   /* heap[0] is the first event; heap[n..cap+3) are sentinels */
    sim__evq_slot *slots; /* payloads */
    uint32_t *slot_pos;   /* per slot: heap index while pending, next free slot when free */
    uint32_t n;           /* heap entries, the vacated root included (pending: n - hole) */
    uint32_t hole;        /* 1: heap[0] was popped and not yet refilled (see evq.c) */
    uint32_t cap;         /* heap entries and slots allocated */
    uint32_t slots_used;  /* slots ever handed out: [0, slots_used) are initialised */
    uint32_t free_head;   /* first free slot, or UINT32_MAX */
    uint32_t retired;     /* slots whose generation ran out; never reused */
    uint32_t rank_next;   /* the order rank the next push gets (see evq.c) */
    uint32_t rank_limit;  /* renumber the ranks when rank_next reaches this */
    uint32_t renumbers;   /* how many times they were renumbered (for tests) */
    uint64_t seq_next;    /* sequence number of the next push */
    void *mem;            /* the one allocation behind heap, slots and slot_pos */
    size_t mem_size;
    sim__evq_alloc_fn alloc;
    void *alloc_ud;
} sim__evq;

/* Set up an empty queue in caller storage with room for cap_hint events before
 * it first grows (0 picks a small default), using malloc/realloc/free. Returns
 * TM_OK, TM_ERR_NOMEM, or TM_ERR_LIMIT if cap_hint > SIM__EVQ_CAP_MAX. Whatever
 * it returns, sim__evq_fini(q) is then safe. */
int sim__evq_init(sim__evq *q, uint32_t cap_hint);
/* The same with allocator alloc(ud, ...) (NULL: malloc/realloc/free). */
int sim__evq_init_alloc(sim__evq *q, uint32_t cap_hint, sim__evq_alloc_fn alloc, void *ud);
/* Free the queue's memory, dropping pending events. Safe on a zeroed struct,
 * after a failed init, and twice. The queue must be initialised again before
 * any other use. */
void sim__evq_fini(sim__evq *q);

/* Schedule an event at t_us (any int64_t) of kind <= SIM__EVQ_KIND_MAX (else
 * TM_ERR_INVAL). If handle is not NULL it receives a handle for sim__evq_cancel
 * and sim__evq_get, good until the event is popped or cancelled. Allocates only
 * when the queue is full (capacity doubles, out of line). Returns TM_OK, or
 * TM_ERR_NOMEM / TM_ERR_LIMIT (SIM__EVQ_CAP_MAX events pending) leaving the
 * queue and *handle as they were. Inline: below. */
static inline int sim__evq_push(sim__evq *q, int64_t t_us, uint32_t kind, uint32_t a, uint64_t b,
                                uint64_t *handle);
/* Remove the first event, copying it into *out (out may be NULL). Returns TM_OK,
 * or SIM__EVQ_EMPTY when no event is pending (*out then zeroed). Its handle
 * goes stale. Inline: below. */
static inline int sim__evq_pop(sim__evq *q, sim__event *out);
/* Copy the first event into *out (may be NULL) and leave it pending. Returns
 * TM_OK or SIM__EVQ_EMPTY. Inline: below (the engine peeks before each event). */
static inline int sim__evq_peek(const sim__evq *q, sim__event *out);
/* Withdraw a pending event, O(log n). Returns TM_OK, or TM_ERR_STALE, queue
 * unchanged, if the handle names no pending event: its event was popped or
 * cancelled (even if the slot has since been reused), or it was never issued. */
int sim__evq_cancel(sim__evq *q, uint64_t handle);
/* Copy the pending event a handle names into *out (may be NULL). TM_OK, or
 * TM_ERR_STALE as for sim__evq_cancel. */
int sim__evq_get(const sim__evq *q, uint64_t handle, sim__event *out);
/* Pending events. */
size_t sim__evq_size(const sim__evq *q);

/* Verify every invariant of evq.c (heap order, positions, slots, free list,
 * sentinels, ranks): TM_OK or TM_ERR_INTERNAL. O(cap); for tests and asserts. */
int sim__evq_check(const sim__evq *q);

/* ------------------------------------------------------------------------- */
/* The hot path, inline (push, pop, peek and the heap code under them): the engine
 * pushes and pops once per event. Layout and reasons: evq.c. Only these and
 * evq.c touch the fields. */

#include "status.h"

#include <string.h>

#define EVQ_NONE        UINT32_MAX
#define EVQ_SENTINEL    (~(sim__evq_key)0)
#define EVQ_TIME_BIAS   (UINT64_C(1) << 63)
#define EVQ_SLOT_BITS   26
#define EVQ_SLOT_MASK   ((UINT32_C(1) << EVQ_SLOT_BITS) - 1)
#define EVQ_LINE        64u
#define EVQ_LIKELY(x)   __builtin_expect(!!(x), 1)
#define EVQ_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Out of line and cold (evq.c): push found the slots full; the ranks ran out. */
int sim__evq_grow(sim__evq *q);
void sim__evq_renumber(sim__evq *q);

/* ------------------------------------------------------------------------- */
/* keys                                                                       */

static inline sim__evq_key evq__key_make(int64_t t_us, uint32_t kind, uint32_t rank, uint32_t slot)
{
    uint64_t hi = (uint64_t)t_us ^ EVQ_TIME_BIAS;
    uint64_t lo = (uint64_t)kind << 56 | (uint64_t)rank << EVQ_SLOT_BITS | slot;
    return (sim__evq_key)hi << 64 | lo;
}

static inline int64_t evq__key_time(sim__evq_key k)
{
    uint64_t hi = (uint64_t)(k >> 64);
    /* Undo the bias without an implementation-defined conversion. */
    return hi >= EVQ_TIME_BIAS ? (int64_t)(hi - EVQ_TIME_BIAS) : (int64_t)hi - INT64_MAX - 1;
}

static inline uint32_t evq__key_kind(sim__evq_key k)
{
    return (uint32_t)((uint64_t)k >> 56);
}

static inline uint32_t evq__key_slot(sim__evq_key k)
{
    return (uint32_t)k & EVQ_SLOT_MASK;
}

static inline void evq__event_fill(sim__event *out, sim__evq_key k, const sim__evq_slot *sl)
{
    out->t_us = evq__key_time(k);
    out->kind = evq__key_kind(k);
    out->a = sl->a;
    out->b = sl->b;
    out->seq = sl->seq;
}

/* ------------------------------------------------------------------------- */
/* heap                                                                       */

/* Put key x at index i or above it, restoring heap order on the path to the
 * root. One comparison per level climbed; after a push that is usually none or
 * one, as a new event tends to lie later than most pending ones. */
static inline void evq__sift_up(sim__evq *q, size_t i, sim__evq_key x)
{
    sim__evq_key *restrict h = q->heap;
    uint32_t *restrict pos = q->slot_pos;
    while (i > 0) {
        size_t p = (i - 1) >> 2;
        sim__evq_key pk = h[p];
        if (!(x < pk))
            break;
        h[i] = pk;
        pos[evq__key_slot(pk)] = (uint32_t)i;
        i = p;
    }
    h[i] = x;
    pos[evq__key_slot(x)] = (uint32_t)i;
}

/* If k2 < *k, replace *k by k2 and *g by g2: two selects on one flag. Which
 * child is the smallest is a coin toss no predictor can learn, so a branch here
 * is mispredicted half the time; gcc makes the C version a branch or cmovs
 * depending on the code around it, so on x86-64 the selects are spelled out
 * (cmp and sbb are the 128-bit comparison, cmovc the selects). */
static inline void evq__min_step(sim__evq_key *k, uintptr_t *g, sim__evq_key k2, uintptr_t g2)
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

/* Put key x at index i or below it. Per level: a tournament of three
 * comparisons among the four children, with no branch but the loop's, which
 * is predictable.
 *
 * A sift-down costs the latency of a level times the levels, since the next
 * level's loads wait for this level's choice; the loop is built to shorten
 * that path. It carries the address of the children as an integer `ch`, and
 * the tournament selects, along with the smallest key, the address of that
 * child's own children (g .. g + 192, one line each, prefetched before the
 * comparisons) rather than an index that would have to become an address
 * again. Addresses are integers here because the grandchildren of the last
 * parents lie past the block: they are only prefetched, which never faults,
 * and never become pointers. */
static inline void evq__sift_down(sim__evq *q, size_t i, sim__evq_key x)
{
    sim__evq_key *restrict h = q->heap;
    uint32_t *restrict pos = q->slot_pos;
    const uintptr_t hb = (uintptr_t)h;
    const uintptr_t end = hb + (size_t)q->n * sizeof *h;
    /* The children of heap[j] start at hb + 16 (4j + 1). For the group at ch,
     * j = (ch - hb) / 16, so its first member's children are at 4 ch - gk. */
    const uintptr_t gk = 3 * hb - sizeof *h;
    uintptr_t ch = hb + (4 * i + 1) * sizeof *h;
    while (ch < end) {
        uintptr_t g = 4 * ch - gk;
        __builtin_prefetch((const void *)g);
        __builtin_prefetch((const void *)(g + EVQ_LINE));
        __builtin_prefetch((const void *)(g + 2 * EVQ_LINE));
        __builtin_prefetch((const void *)(g + 3 * EVQ_LINE));
        const sim__evq_key *c = (const sim__evq_key *)ch;
        sim__evq_key k = c[0], k23 = c[2];
        uintptr_t gm = g, g23 = g + 2 * EVQ_LINE;
        evq__min_step(&k, &gm, c[1], g + EVQ_LINE);
        evq__min_step(&k23, &g23, c[3], g + 3 * EVQ_LINE);
        evq__min_step(&k, &gm, k23, g23);
        if (!(k < x))
            break;
        h[i] = k;
        pos[evq__key_slot(k)] = (uint32_t)i;
        i = (gm - hb) / EVQ_LINE; /* the child's index m: gm - hb == 64 m + 16 */
        ch = gm;
    }
    h[i] = x;
    pos[evq__key_slot(x)] = (uint32_t)i;
}

/* Take the last entry out of the heap and use it to fill the hole at index i. */
static inline void evq__remove(sim__evq *q, size_t i)
{
    size_t last = --q->n;
    sim__evq_key x = q->heap[last];
    q->heap[last] = EVQ_SENTINEL;
    if (i == last)
        return;
    if (i > 0 && x < q->heap[(i - 1) >> 2])
        evq__sift_up(q, i, x);
    else
        evq__sift_down(q, i, x);
}

static inline void evq__slot_release(sim__evq *q, uint32_t s)
{
    uint32_t gen = q->slots[s].gen + 1;
    q->slots[s].gen = gen;
    if (EVQ_UNLIKELY(gen == 0)) {
        q->retired++; /* generations ran out: see the top of the file */
        q->slot_pos[s] = EVQ_NONE;
        return;
    }
    q->slot_pos[s] = q->free_head;
    q->free_head = s;
}

/* Close a vacated root the usual way: the last entry fills it and sifts down. */
static inline void evq__settle(sim__evq *q)
{
    q->hole = 0;
    evq__remove(q, 0);
}

static inline int sim__evq_push(sim__evq *q, int64_t t_us, uint32_t kind, uint32_t a, uint64_t b,
                                uint64_t *handle)
{
    if (EVQ_UNLIKELY(kind > SIM__EVQ_KIND_MAX)) {
        return TM_ERR_INVAL;
    }
    uint32_t s = q->free_head;
    if (EVQ_LIKELY(s != EVQ_NONE)) {
        q->free_head = q->slot_pos[s];
    } else {
        if (EVQ_UNLIKELY(q->slots_used == q->cap)) {
            int rc = sim__evq_grow(q);
            if (rc != TM_OK)
                return rc;
        }
        s = q->slots_used++;
        q->slots[s].gen = 0;
    }
    if (EVQ_UNLIKELY(q->rank_next >= q->rank_limit)) {
        if (q->hole)
            evq__settle(q); /* renumbering sorts every entry of the heap */
        sim__evq_renumber(q);
    }
    sim__evq_slot *sl = &q->slots[s];
    uint32_t gen = sl->gen + 1;
    sl->gen = gen;
    sl->a = a;
    sl->b = b;
    sl->seq = q->seq_next++;
    sim__evq_key x = evq__key_make(t_us, kind, q->rank_next++, s);
    if (q->hole) {
        q->hole = 0; /* the new event takes the popped one's place at the root */
        evq__sift_down(q, 0, x);
        /* The next pop reads the first event's slot, which in a large queue
         * is a cache miss; start it now. */
        __builtin_prefetch(&q->slots[evq__key_slot(q->heap[0])]);
    } else {
        evq__sift_up(q, q->n++, x);
    }
    if (handle)
        *handle = (uint64_t)gen << 32 | s;
    return TM_OK;
}

static inline int sim__evq_pop(sim__evq *q, sim__event *out)
{
    if (q->hole)
        evq__settle(q);
    if (EVQ_UNLIKELY(q->n == 0)) {
        if (out)
            memset(out, 0, sizeof *out);
        return SIM__EVQ_EMPTY;
    }
    sim__evq_key top = q->heap[0];
    uint32_t s = evq__key_slot(top);
    if (out)
        evq__event_fill(out, top, &q->slots[s]);
    evq__slot_release(q, s);
    q->hole = 1; /* the root is refilled by the next push, or settled (evq.c) */
    return TM_OK;
}

/* The number of pushes so far and the events pending: equal marks before and
 * after a stretch of calls mean it pushed, popped and cancelled nothing (a
 * push takes a sequence number; a pop or a cancel alone shrinks the queue),
 * so the queue holds the same events. */
static inline uint64_t sim__evq_pushes(const sim__evq *q)
{
    return q->seq_next;
}
static inline size_t sim__evq_pending(const sim__evq *q)
{
    return q->n - q->hole;
}
static inline int sim__evq_peek(const sim__evq *q, sim__event *out)
{
    if (q->n == q->hole)
        return SIM__EVQ_EMPTY;
    sim__evq_key top = q->heap[0];
    if (q->hole) {
        /* The first event is the least of the root's children; past the last
         * entry they are sentinels, which lose every comparison. */
        top = q->heap[1];
        for (size_t c = 2; c <= 4; c++)
            if (q->heap[c] < top)
                top = q->heap[c];
    }
    if (out)
        evq__event_fill(out, top, &q->slots[evq__key_slot(top)]);
    return TM_OK;
}

#endif
