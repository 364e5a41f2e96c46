/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_evq.c — the pending-event queue (sim/model/evq.c).
 *
 * Hand-built cases first (ties, cancelling the head, a middle and the last
 * event, each kind of stale handle, growth, allocation failure, generation
 * retirement), then a seeded random mix of push, pop, cancel, peek and get
 * against a reference that keeps the pending events in a plain array and finds
 * the first by scanning. The reference is obviously right; the queue must agree
 * with it on every pop, field by field. sim__evq_check runs after every step of
 * the smaller runs. One run lowers rank_limit so that the renumbering of ranks,
 * which otherwise happens once per 2^27 pushes, happens all the time.
 */
#include "model/evq_int.h"

#include "check.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* helpers                                                                    */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the modulo bias is irrelevant here). */
static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
    return splitmix64(s) % n;
}

#define CHECK_EVENT(got, t, k, aa, bb, sq)                                                         \
    do {                                                                                           \
        CHECK_EQ_INT((got).t_us, (t));                                                             \
        CHECK_EQ_INT((got).kind, (k));                                                             \
        CHECK_EQ_INT((got).a, (aa));                                                               \
        CHECK_EQ_U64((got).b, (bb));                                                               \
        CHECK_EQ_U64((got).seq, (sq));                                                             \
    } while (0)

#define CHECK_OK(q) CHECK_EQ_INT(sim__evq_check(q), TM_OK)

/* ------------------------------------------------------------------------- */
/* hand-built cases                                                           */

static void test_empty(void)
{
    sim__evq q;
    sim__event ev;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    CHECK_EQ_INT(sim__evq_size(&q), 0);
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), SIM__EVQ_EMPTY);
    CHECK_EQ_INT(sim__evq_pop(&q, NULL), SIM__EVQ_EMPTY);
    CHECK_EQ_INT(sim__evq_peek(&q, &ev), SIM__EVQ_EMPTY);
    CHECK_OK(&q);
    /* Empty again after a push and a pop. */
    CHECK_EQ_INT(sim__evq_push(&q, 5, 0, 1, 2, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_pop(&q, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), SIM__EVQ_EMPTY);
    CHECK_EQ_INT(sim__evq_size(&q), 0);
    CHECK_OK(&q);
    sim__evq_fini(&q);
    sim__evq_fini(&q); /* twice */
    CHECK_OK(&q);      /* a finished queue is a valid empty one */

    sim__evq z;
    memset(&z, 0, sizeof z);
    CHECK_OK(&z);
    sim__evq_fini(&z); /* zeroed, never initialised */
}

static void test_order_and_ties(void)
{
    sim__evq q;
    sim__event ev;
    CHECK_EQ_INT(sim__evq_init(&q, 4), TM_OK);
    /* seq:     0         1          2          3          4         5         6 */
    /* (t, kind) pushed out of order; at t=10 kinds 2, 0, 1, and three of kind 1. */
    CHECK_EQ_INT(sim__evq_push(&q, 10, 2, 100, 1000, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 10, 0, 101, 1001, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 10, 1, 102, 1002, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 5, 255, 103, 1003, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 10, 1, 104, 1004, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 10, 1, 105, 1005, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 11, 0, 106, 1006, NULL), TM_OK);
    CHECK_EQ_INT(sim__evq_size(&q), 7);
    CHECK_OK(&q);

    CHECK_EQ_INT(sim__evq_peek(&q, &ev), TM_OK);
    CHECK_EVENT(ev, 5, 255, 103, 1003, 3);
    CHECK_EQ_INT(sim__evq_size(&q), 7); /* peek removes nothing */

    static const struct {
        int64_t t;
        uint32_t kind, a;
        uint64_t seq;
    } want[] = {{5, 255, 103, 3}, {10, 0, 101, 1}, {10, 1, 102, 2}, {10, 1, 104, 4},
                {10, 1, 105, 5},  {10, 2, 100, 0}, {11, 0, 106, 6}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
        CHECK_EVENT(ev, want[i].t, want[i].kind, want[i].a, 1000 + want[i].a - 100, want[i].seq);
        CHECK_OK(&q);
    }
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), SIM__EVQ_EMPTY);
    sim__evq_fini(&q);
}

/* The whole int64_t range, and kind 256 refused without a trace. */
static void test_extremes(void)
{
    sim__evq q;
    sim__event ev;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    static const int64_t t[] = {0, INT64_MAX, -1, INT64_MIN, 1, INT64_MIN + 1, INT64_MAX - 1};
    static const int64_t sorted[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX};
    for (uint32_t i = 0; i < 7; i++)
        CHECK_EQ_INT(sim__evq_push(&q, t[i], SIM__EVQ_KIND_MAX, i, UINT64_MAX - i, NULL), TM_OK);

    uint64_t h = 12345;
    CHECK_EQ_INT(sim__evq_push(&q, 3, SIM__EVQ_KIND_MAX + 1, 0, 0, &h), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__evq_push(&q, 3, UINT32_MAX, 0, 0, NULL), TM_ERR_INVAL);
    CHECK_EQ_U64(h, 12345); /* untouched */
    CHECK_EQ_INT(sim__evq_size(&q), 7);
    CHECK_OK(&q);

    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
        CHECK_EQ_INT(ev.t_us, sorted[i]);
        CHECK_EQ_INT(ev.kind, SIM__EVQ_KIND_MAX);
        CHECK_EQ_INT(t[ev.a], sorted[i]); /* payload travelled with its time */
        CHECK_EQ_U64(ev.b, UINT64_MAX - ev.a);
        CHECK_EQ_U64(ev.seq, ev.a); /* refused pushes used no sequence number */
    }
    sim__evq_fini(&q);
}

/* Push 9 events at t = 10, 20, ..., 90 (a = t), cancel some, pop the rest. */
static void cancel_case(const int *cancel, int n_cancel)
{
    sim__evq q;
    sim__event ev;
    uint64_t h[9];
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    /* Pushed in a scrambled order so that heap positions differ from time order. */
    static const int order[9] = {4, 8, 0, 6, 2, 7, 1, 5, 3};
    for (int i = 0; i < 9; i++) {
        int k = order[i];
        CHECK_EQ_INT(sim__evq_push(&q, 10 * (k + 1), 0, (uint32_t)(10 * (k + 1)), 0, &h[k]), TM_OK);
    }
    int gone[9] = {0};
    for (int i = 0; i < n_cancel; i++) {
        CHECK_EQ_INT(sim__evq_cancel(&q, h[cancel[i]]), TM_OK);
        gone[cancel[i]] = 1;
        CHECK_OK(&q);
        CHECK_EQ_INT(sim__evq_size(&q), 9 - (i + 1));
    }
    for (int k = 0; k < 9; k++) {
        if (gone[k])
            continue;
        CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
        CHECK_EQ_INT(ev.t_us, 10 * (k + 1));
        CHECK_EQ_INT(ev.a, 10 * (k + 1));
        CHECK_OK(&q);
    }
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), SIM__EVQ_EMPTY);
    sim__evq_fini(&q);
}

static void test_cancel(void)
{
    static const int head[] = {0};
    static const int middle[] = {4};
    static const int last[] = {8};
    static const int several[] = {0, 8, 4, 1, 7};
    static const int all[] = {3, 0, 8, 5, 1, 2, 7, 6, 4};
    cancel_case(head, 1);
    cancel_case(middle, 1);
    cancel_case(last, 1);
    cancel_case(several, 5);
    cancel_case(all, 9);

    /* The entry last in the heap array (not last in time) and the only one. */
    sim__evq q;
    uint64_t h1, h2, h3;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 1, 0, 0, 0, &h1), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 3, 0, 0, 0, &h2), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 2, 0, 0, 0, &h3), TM_OK); /* array index 2 */
    CHECK_EQ_INT(sim__evq_cancel(&q, h3), TM_OK);
    CHECK_OK(&q);
    CHECK_EQ_INT(sim__evq_cancel(&q, h1), TM_OK);
    CHECK_EQ_INT(sim__evq_cancel(&q, h2), TM_OK);
    CHECK_EQ_INT(sim__evq_size(&q), 0);
    CHECK_OK(&q);
    sim__evq_fini(&q);
}

/* The marks the engine compares around a pass (sim__evq_pushes,
 * sim__evq_pending): a push moves the first, a pop or a cancel the second, a
 * peek neither, and the pending count is sim__evq_size also while the root
 * is vacated (after a pop, before the next push). */
static void test_marks(void)
{
    sim__evq q;
    uint64_t h[4];
    sim__event ev;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    CHECK_EQ_INT(sim__evq_pushes(&q), 0);
    CHECK_EQ_INT(sim__evq_pending(&q), 0);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(sim__evq_push(&q, 10 * (i + 1), 0, (uint32_t)i, 0, &h[i]), TM_OK);
        CHECK_EQ_INT(sim__evq_pushes(&q), (uint64_t)i + 1);
        CHECK_EQ_INT(sim__evq_pending(&q), (size_t)i + 1);
    }
    CHECK_EQ_INT(sim__evq_peek(&q, &ev), TM_OK);
    CHECK_EQ_INT(sim__evq_pushes(&q), 4);
    CHECK_EQ_INT(sim__evq_pending(&q), 4);
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK); /* the root is vacated */
    CHECK_EQ_INT(sim__evq_pushes(&q), 4);
    CHECK_EQ_INT(sim__evq_pending(&q), 3);
    CHECK_EQ_INT(sim__evq_pending(&q), sim__evq_size(&q));
    CHECK_EQ_INT(sim__evq_cancel(&q, h[2]), TM_OK); /* settles the root first */
    CHECK_EQ_INT(sim__evq_pushes(&q), 4);
    CHECK_EQ_INT(sim__evq_pending(&q), 2);
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 5, 0, 9, 0, NULL), TM_OK); /* fills the vacated root */
    CHECK_EQ_INT(sim__evq_pushes(&q), 5);
    CHECK_EQ_INT(sim__evq_pending(&q), 2);
    CHECK_EQ_INT(sim__evq_pending(&q), sim__evq_size(&q));
    CHECK_OK(&q);
    sim__evq_fini(&q);
}

static void test_stale(void)
{
    sim__evq q;
    sim__event ev;
    uint64_t h1, h2, h3;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 1, 0, 11, 0, &h1), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 2, 0, 22, 0, &h2), TM_OK);

    /* Never issued. */
    CHECK_EQ_INT(sim__evq_cancel(&q, SIM__EVQ_HANDLE_NONE), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_cancel(&q, h1 + 1000), TM_ERR_STALE);                /* slot not used */
    CHECK_EQ_INT(sim__evq_cancel(&q, h1 + (UINT64_C(2) << 32)), TM_ERR_STALE); /* future gen */
    CHECK_EQ_INT(sim__evq_cancel(&q, h1 ^ (UINT64_C(1) << 32)), TM_ERR_STALE); /* even gen */
    CHECK_EQ_INT(sim__evq_get(&q, UINT64_MAX, &ev), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_size(&q), 2);

    /* get on a good handle. */
    CHECK_EQ_INT(sim__evq_get(&q, h2, &ev), TM_OK);
    CHECK_EVENT(ev, 2, 0, 22, 0, 1);
    CHECK_EQ_INT(sim__evq_get(&q, h2, NULL), TM_OK);

    /* Double cancel. */
    CHECK_EQ_INT(sim__evq_cancel(&q, h2), TM_OK);
    CHECK_EQ_INT(sim__evq_cancel(&q, h2), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_get(&q, h2, &ev), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_size(&q), 1);

    /* Cancel after pop. */
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
    CHECK_EQ_INT(ev.a, 11);
    CHECK_EQ_INT(sim__evq_cancel(&q, h1), TM_ERR_STALE);
    CHECK_OK(&q);

    /* Cancel after the slot was reused: the new event takes h1's slot (the free
     * list is LIFO), and the old handle must not reach it. */
    CHECK_EQ_INT(sim__evq_push(&q, 7, 3, 77, 0, &h3), TM_OK);
    CHECK_EQ_U64(h3 & 0xffffffffu, h1 & 0xffffffffu); /* same slot ... */
    CHECK(h3 != h1);                                  /* ... other generation */
    CHECK_EQ_INT(sim__evq_cancel(&q, h1), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_get(&q, h1, &ev), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_size(&q), 1);
    CHECK_EQ_INT(sim__evq_get(&q, h3, &ev), TM_OK);
    CHECK_EVENT(ev, 7, 3, 77, 0, 2);
    CHECK_EQ_INT(sim__evq_cancel(&q, h3), TM_OK);
    CHECK_EQ_INT(sim__evq_size(&q), 0);
    CHECK_OK(&q);
    sim__evq_fini(&q);
}

/* A slot whose generation would wrap is retired, not reused. */
static void test_generation_retire(void)
{
    sim__evq q;
    uint64_t h, h2;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    CHECK_EQ_INT(sim__evq_push(&q, 1, 0, 0, 0, &h), TM_OK);
    CHECK_EQ_INT(sim__evq_pop(&q, NULL), TM_OK);
    /* Pretend slot 0 has carried 2^31 - 1 events: its next use is its last. */
    CHECK_EQ_U64(h & 0xffffffffu, 0);
    q.slots[0].gen = UINT32_MAX - 1;
    CHECK_OK(&q);
    CHECK_EQ_INT(sim__evq_push(&q, 2, 0, 0, 0, &h), TM_OK);
    CHECK_EQ_U64(h, (uint64_t)UINT32_MAX << 32); /* slot 0, generation 2^32 - 1 */
    CHECK_EQ_INT(sim__evq_pop(&q, NULL), TM_OK);
    CHECK_EQ_INT(q.retired, 1);
    CHECK_OK(&q);
    CHECK_EQ_INT(sim__evq_cancel(&q, h), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_push(&q, 3, 0, 0, 0, &h2), TM_OK);
    CHECK_EQ_U64(h2 & 0xffffffffu, 1); /* a fresh slot, not slot 0 */
    CHECK_EQ_INT(sim__evq_cancel(&q, h), TM_ERR_STALE);
    CHECK_EQ_INT(sim__evq_cancel(&q, h2), TM_OK);
    CHECK_OK(&q);
    sim__evq_fini(&q);
}

/* From capacity 1 through 17 doublings, handles staying good across moves. */
static void test_growth(void)
{
    enum { N = 1 << 17 };
    sim__evq q;
    sim__event ev;
    uint64_t *h = malloc(N * sizeof *h);
    CHECK(h != NULL);
    if (!h)
        return;
    CHECK_EQ_INT(sim__evq_init(&q, 1), TM_OK);
    CHECK_EQ_INT(q.cap, 1);
    uint32_t grows = 0, cap = q.cap;
    for (uint32_t i = 0; i < N; i++) {
        /* times descend, so every push climbs to the root */
        CHECK_EQ_INT(sim__evq_push(&q, (int64_t)(N - i), i % 7, i, i * 3u, &h[i]), TM_OK);
        if (q.cap != cap) {
            grows++;
            CHECK_EQ_INT(q.cap, 2 * cap);
            cap = q.cap;
            CHECK_OK(&q);
            CHECK_EQ_INT(sim__evq_get(&q, h[0], &ev), TM_OK);
            CHECK_EQ_INT(ev.a, 0);
        }
    }
    CHECK_EQ_INT(grows, 17);
    CHECK_EQ_INT(sim__evq_size(&q), N);
    CHECK_OK(&q);
    for (uint32_t i = 0; i < N; i += 2) /* cancel every other event */
        CHECK_EQ_INT(sim__evq_cancel(&q, h[i]), TM_OK);
    CHECK_OK(&q);
    int failures_before = check_failures;
    for (uint32_t k = 0; k < N / 2 && check_failures == failures_before; k++) {
        uint32_t i = N - 1 - 2 * k; /* odd i, latest times first */
        CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
        CHECK_EVENT(ev, (int64_t)(N - i), i % 7, i, i * 3u, i);
    } /* (stops at the first wrong pop: one report, not 65536) */
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), SIM__EVQ_EMPTY);
    /* Capacity stays: refilling allocates nothing. */
    for (uint32_t i = 0; i < N; i++)
        sim__evq_push(&q, i, 0, 0, 0, NULL);
    CHECK_EQ_INT(q.cap, cap);
    sim__evq_fini(&q);
    free(h);
}

/* An allocator that fails on demand and counts what is outstanding. */
typedef struct test_alloc {
    int fail_next; /* the next allocation fails */
    long blocks;   /* allocated, not freed */
    size_t bytes;
    int bad_size; /* a free passed a size other than the block's */
} test_alloc;

typedef struct block_hdr {
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned, as malloc's */
} block_hdr;

static void *test_alloc_fn(void *ud, void *p, size_t old_size, size_t new_size)
{
    test_alloc *ta = ud;
    if (p) {
        block_hdr *hd = (block_hdr *)p - 1;
        if (hd->size != old_size)
            ta->bad_size = 1;
        if (new_size != 0)
            ta->bad_size = 1; /* evq.c never reallocates in place */
        ta->blocks--;
        ta->bytes -= hd->size;
        free(hd);
        return NULL;
    }
    if (new_size == 0)
        return NULL;
    if (ta->fail_next) {
        ta->fail_next = 0;
        return NULL;
    }
    block_hdr *hd = malloc(sizeof *hd + new_size);
    if (!hd)
        return NULL;
    hd->size = new_size;
    ta->blocks++;
    ta->bytes += new_size;
    return hd + 1;
}

static void test_nomem(void)
{
    test_alloc ta = {0, 0, 0, 0};
    sim__evq q;
    sim__event ev;

    ta.fail_next = 1;
    CHECK_EQ_INT(sim__evq_init_alloc(&q, 4, test_alloc_fn, &ta), TM_ERR_NOMEM);
    sim__evq_fini(&q);
    CHECK_EQ_INT(ta.blocks, 0);

    CHECK_EQ_INT(sim__evq_init(&q, SIM__EVQ_CAP_MAX + 1), TM_ERR_LIMIT);
    sim__evq_fini(&q);

    CHECK_EQ_INT(sim__evq_init_alloc(&q, 4, test_alloc_fn, &ta), TM_OK);
    uint64_t h[5];
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(sim__evq_push(&q, 40 - i, 0, (uint32_t)i, 0, &h[i]), TM_OK);
    ta.fail_next = 1;
    CHECK_EQ_INT(sim__evq_push(&q, 1, 0, 99, 0, &h[4]), TM_ERR_NOMEM);
    CHECK_EQ_INT(sim__evq_size(&q), 4);
    CHECK_EQ_INT(q.cap, 4);
    CHECK_OK(&q);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(sim__evq_get(&q, h[i], NULL), TM_OK);
    /* Still usable: the same push now succeeds, and the order is intact. */
    CHECK_EQ_INT(sim__evq_push(&q, 1, 0, 99, 0, &h[4]), TM_OK);
    CHECK_EQ_INT(q.cap, 8);
    CHECK_EQ_INT(ta.blocks, 1);
    CHECK_OK(&q);
    CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
    CHECK_EVENT(ev, 1, 0, 99, 0, 4);
    for (int i = 3; i >= 0; i--) {
        CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
        CHECK_EVENT(ev, 40 - i, 0, i, 0, (uint64_t)i);
    }
    sim__evq_fini(&q);
    CHECK_EQ_INT(ta.blocks, 0);
    CHECK_EQ_INT(ta.bytes, 0);
    CHECK_EQ_INT(ta.bad_size, 0);
}

/* ------------------------------------------------------------------------- */
/* random operations against a reference                                      */

typedef struct ref_ev {
    int64_t t_us;
    uint32_t kind, a;
    uint64_t b, seq, handle;
} ref_ev;

typedef struct ref_q {
    ref_ev *ev;
    size_t n, cap;
    uint64_t seq_next;
} ref_q;

static int ref_before(const ref_ev *x, const ref_ev *y)
{
    if (x->t_us != y->t_us)
        return x->t_us < y->t_us;
    if (x->kind != y->kind)
        return x->kind < y->kind;
    return x->seq < y->seq;
}

/* Index of the first event, by a scan: O(n), and plainly right. */
static size_t ref_first(const ref_q *r)
{
    size_t m = 0;
    for (size_t i = 1; i < r->n; i++)
        if (ref_before(&r->ev[i], &r->ev[m]))
            m = i;
    return m;
}

static void ref_remove(ref_q *r, size_t i)
{
    r->ev[i] = r->ev[--r->n];
}

typedef struct mix {
    uint64_t seed;
    long ops;
    size_t max_pending; /* pops win when the queue is this full */
    int64_t t_range;    /* small: many ties */
    uint32_t kinds;
    long check_every; /* sim__evq_check every this many steps */
    uint32_t rank_limit;
} mix;

#define DEAD_N 64

static void run_mix(const mix *m)
{
    sim__evq q;
    ref_q r = {NULL, 0, 0, 0};
    uint64_t dead[DEAD_N]; /* handles of popped or cancelled events */
    size_t dead_n = 0;
    uint64_t s = m->seed;
    int failures_before = check_failures;

    r.cap = m->max_pending + 1;
    r.ev = malloc(r.cap * sizeof *r.ev);
    CHECK(r.ev != NULL);
    if (!r.ev)
        return;
    CHECK_EQ_INT(sim__evq_init(&q, 0), TM_OK);
    if (m->rank_limit)
        q.rank_limit = m->rank_limit;

    int64_t now = 0;
    for (long step = 0; step < m->ops && check_failures == failures_before; step++) {
        uint64_t op = rnd_below(&s, 100);
        /* Drift toward half full: push more when below, pop more when above. */
        int fuller = r.n * 2 > m->max_pending;
        if (r.n == 0 || (r.n < m->max_pending && op < (fuller ? 40u : 60u))) {
            ref_ev e;
            e.t_us = now + (int64_t)rnd_below(&s, (uint64_t)m->t_range);
            e.kind = (uint32_t)rnd_below(&s, m->kinds);
            e.a = (uint32_t)splitmix64(&s);
            e.b = splitmix64(&s);
            e.seq = r.seq_next++;
            CHECK_EQ_INT(sim__evq_push(&q, e.t_us, e.kind, e.a, e.b, &e.handle), TM_OK);
            r.ev[r.n++] = e;
        } else if (op < 80) {
            size_t i = ref_first(&r);
            sim__event ev;
            CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
            CHECK_EVENT(ev, r.ev[i].t_us, r.ev[i].kind, r.ev[i].a, r.ev[i].b, r.ev[i].seq);
            now = ev.t_us; /* the clock follows the events, as in the engine */
            dead[dead_n++ % DEAD_N] = r.ev[i].handle;
            ref_remove(&r, i);
        } else if (op < 92) {
            size_t i = (size_t)rnd_below(&s, r.n);
            CHECK_EQ_INT(sim__evq_cancel(&q, r.ev[i].handle), TM_OK);
            dead[dead_n++ % DEAD_N] = r.ev[i].handle;
            ref_remove(&r, i);
        } else if (op < 95 && dead_n > 0) {
            uint64_t h = dead[rnd_below(&s, dead_n < DEAD_N ? dead_n : DEAD_N)];
            CHECK_EQ_INT(sim__evq_cancel(&q, h), TM_ERR_STALE);
            CHECK_EQ_INT(sim__evq_get(&q, h, NULL), TM_ERR_STALE);
        } else if (op < 98) {
            size_t i = (size_t)rnd_below(&s, r.n);
            sim__event ev;
            CHECK_EQ_INT(sim__evq_get(&q, r.ev[i].handle, &ev), TM_OK);
            CHECK_EVENT(ev, r.ev[i].t_us, r.ev[i].kind, r.ev[i].a, r.ev[i].b, r.ev[i].seq);
        } else {
            size_t i = ref_first(&r);
            sim__event ev;
            CHECK_EQ_INT(sim__evq_peek(&q, &ev), TM_OK);
            CHECK_EVENT(ev, r.ev[i].t_us, r.ev[i].kind, r.ev[i].a, r.ev[i].b, r.ev[i].seq);
        }
        CHECK_EQ_INT(sim__evq_size(&q), r.n);
        if ((step + 1) % m->check_every == 0)
            CHECK_OK(&q);
        if (check_failures != failures_before)
            fprintf(stderr, "  (in the mix with seed %" PRIu64 ", at step %ld)\n", m->seed, step);
    }
    /* Drain: the rest comes out in reference order. */
    while (r.n > 0 && check_failures == failures_before) {
        size_t i = ref_first(&r);
        sim__event ev;
        CHECK_EQ_INT(sim__evq_pop(&q, &ev), TM_OK);
        CHECK_EVENT(ev, r.ev[i].t_us, r.ev[i].kind, r.ev[i].a, r.ev[i].b, r.ev[i].seq);
        ref_remove(&r, i);
    }
    if (check_failures == failures_before) {
        CHECK_EQ_INT(sim__evq_pop(&q, NULL), SIM__EVQ_EMPTY);
        CHECK_OK(&q);
        if (m->rank_limit)
            CHECK(q.renumbers > 0); /* the run did exercise renumbering */
    }
    sim__evq_fini(&q);
    free(r.ev);
}

int main(void)
{
    uint64_t seed = check_seed(20240611);

    test_empty();
    test_order_and_ties();
    test_extremes();
    test_cancel();
    test_marks();
    test_stale();
    test_generation_retire();
    test_growth();
    test_nomem();

    /* Large: 400k steps, up to 2000 pending, checked every 1000 steps. */
    mix big = {seed, 400000, 2000, 1000, 4, 1000, 0};
    run_mix(&big);
    /* Small and tie-heavy, checked after every step. */
    mix small = {seed + 1, 30000, 64, 8, 3, 1, 0};
    run_mix(&small);
    /* Ranks renumbered whenever 40 have been handed out (so, with up to 300
     * pending, on most pushes), checked after every step. */
    mix renumber = {seed + 2, 20000, 300, 50, 3, 1, 40};
    run_mix(&renumber);

    return check_finish("test_evq");
}
