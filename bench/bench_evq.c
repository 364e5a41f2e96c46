/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_evq.c — the event queue under the hold model, next to its floor.
 *
 * The hold model (Jones 1986) is the classic benchmark of pending-event sets:
 * fill the queue with N events at Exp(1)-distributed times, then repeat "pop
 * the first event, push it back at its time + Exp(1)", so the queue stays at N
 * and the times keep the shape a simulation gives them. Time is in integer
 * microseconds with a mean increment of 1e6 us.
 *
 * The floor is a bare 4-ary heap of 16-byte keys ordered the same way (time,
 * kind, then a 56-bit insertion counter where evq.c has rank and slot), with the
 * same layout and sift code (heap_sift_down of evq.c, copied), but no slots, no
 * positions, no handles, no generations: what a heap of these keys costs before
 * it can cancel anything or carry a payload. Both draw the same pre-generated
 * increments, so they build the same heap and pop the same times (checked: the
 * program fails if the sums of the popped times differ). tarmac's side goes
 * through the real API, one call to sim__evq_pop and one to sim__evq_push per
 * hold, keeping the handle as the engine would.
 *
 * Each measurement is repeated (default 5), floor and tarmac back to back, and
 * the medians are printed; the ratio is the median of the per-repetition
 * ratios, which cancels most of the noise of a shared machine. Usage:
 *     bench_evq [holds-per-measurement [repetitions]]
 */
#include "model/evq_int.h"

#include "status.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INC_N       (1u << 20) /* pre-generated increments, a power of two */
#define INC_MEAN_US 1e6
#define REPS_MAX    31
#define KIND        3u

/* ------------------------------------------------------------------------- */
/* the floor: a bare 4-ary heap of the same keys                              */

typedef sim__evq_key key;

#define FLOOR_SENTINEL (~(key)0)

typedef struct floor_heap {
    key *h; /* h[1] on a 64-byte boundary; h[n..cap+3) sentinels */
    void *mem;
    size_t n;
    uint64_t seq;
} floor_heap;

static int floor_init(floor_heap *f, size_t cap)
{
    f->mem = malloc(64 + (cap + 6) * sizeof(key));
    if (!f->mem)
        return TM_ERR_NOMEM;
    uintptr_t base = ((uintptr_t)f->mem + 63) & ~(uintptr_t)63;
    f->h = (key *)(void *)((char *)f->mem + (base - (uintptr_t)f->mem)) + 3;
    for (size_t i = 0; i < cap + 3; i++)
        f->h[i] = FLOOR_SENTINEL;
    f->n = 0;
    f->seq = 0;
    return TM_OK;
}

static inline key floor_key(int64_t t_us, uint32_t kind, uint64_t seq)
{
    return (key)((uint64_t)t_us ^ (UINT64_C(1) << 63)) << 64 | ((uint64_t)kind << 56 | seq);
}

static inline int64_t floor_time(key k)
{
    uint64_t hi = (uint64_t)(k >> 64);
    return hi >= (UINT64_C(1) << 63) ? (int64_t)(hi - (UINT64_C(1) << 63))
                                     : (int64_t)hi - INT64_MAX - 1;
}

/* key_min_step of evq.c. */
static inline void floor_min_step(key *k, uintptr_t *g, key k2, uintptr_t g2)
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
    *k = (key)hi << 64 | lo;
    *g = gm;
#else
    int lt = k2 < *k;
    *k = lt ? k2 : *k;
    *g = lt ? g2 : *g;
#endif
}

static inline void floor_push(floor_heap *f, int64_t t_us, uint32_t kind)
{
    key x = floor_key(t_us, kind, f->seq++);
    key *h = f->h;
    size_t i = f->n++;
    while (i > 0) {
        size_t p = (i - 1) >> 2;
        key pk = h[p];
        if (!(x < pk))
            break;
        h[i] = pk;
        i = p;
    }
    h[i] = x;
}

/* heap_sift_down of evq.c without heap_slot and slot_pos. */
static inline key floor_pop(floor_heap *f)
{
    key *h = f->h;
    key top = h[0];
    size_t n = --f->n;
    key x = h[n];
    h[n] = FLOOR_SENTINEL;
    size_t i = 0;
    const uintptr_t hb = (uintptr_t)h;
    const uintptr_t end = hb + n * sizeof *h;
    const uintptr_t gk = 3 * hb - sizeof *h;
    uintptr_t ch = hb + sizeof *h;
    while (ch < end) {
        uintptr_t g = 4 * ch - gk;
        __builtin_prefetch((const void *)g);
        __builtin_prefetch((const void *)(g + 64));
        __builtin_prefetch((const void *)(g + 128));
        __builtin_prefetch((const void *)(g + 192));
        const key *c = (const key *)ch;
        key k = c[0], k23 = c[2];
        uintptr_t gm = g, g23 = g + 128;
        floor_min_step(&k, &gm, c[1], g + 64);
        floor_min_step(&k23, &g23, c[3], g + 192);
        floor_min_step(&k, &gm, k23, g23);
        if (!(k < x))
            break;
        h[i] = k;
        i = (gm - hb) / 64;
        ch = gm;
    }
    h[i] = x;
    return top;
}

/* ------------------------------------------------------------------------- */
/* the workload                                                               */

static int64_t inc_us[INC_N];

/* splitmix64: a cheap generator, only to fill inc_us before any timing. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void inc_fill(uint64_t seed)
{
    for (uint32_t i = 0; i < INC_N; i++) {
        double u = ((double)(splitmix64(&seed) >> 11) + 0.5) * 0x1p-53; /* (0, 1) */
        inc_us[i] = (int64_t)llround(-log(u) * INC_MEAN_US);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run `holds` holds on each queue from increment index *j, returning the sum of
 * the popped times (so the work cannot be optimised away, and the two queues
 * can be compared). */
static int64_t floor_holds(floor_heap *f, uint64_t holds, uint32_t *j)
{
    int64_t sum = 0;
    uint32_t jj = *j;
    for (uint64_t k = 0; k < holds; k++) {
        int64_t t = floor_time(floor_pop(f));
        sum += t;
        floor_push(f, t + inc_us[jj++ & (INC_N - 1)], KIND);
    }
    *j = jj;
    return sum;
}

static int64_t tarmac_holds(sim__evq *q, uint64_t holds, uint32_t *j, uint64_t *handle_sink)
{
    int64_t sum = 0;
    uint32_t jj = *j;
    uint64_t hsum = 0;
    for (uint64_t k = 0; k < holds; k++) {
        sim__event ev;
        uint64_t handle = SIM__EVQ_HANDLE_NONE;
        sim__evq_pop(q, &ev);
        sum += ev.t_us;
        sim__evq_push(q, ev.t_us + inc_us[jj++ & (INC_N - 1)], ev.kind, ev.a, ev.b, &handle);
        hsum += handle; /* the engine keeps the handle; so does the benchmark */
    }
    *j = jj;
    *handle_sink += hsum;
    return sum;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One row of the table: N pending events. Returns 0, or 1 on a failure. */
static int bench_one(uint32_t n_pending, uint64_t holds, int reps)
{
    floor_heap f;
    sim__evq q;
    double ns_floor[REPS_MAX], ns_tarmac[REPS_MAX], ratio[REPS_MAX];
    uint64_t handle_sink = 0;
    int bad = 0;

    if (floor_init(&f, n_pending) != TM_OK || sim__evq_init(&q, n_pending) != TM_OK) {
        fprintf(stderr, "bench_evq: out of memory at N = %u\n", n_pending);
        free(f.mem);
        return 1;
    }
    /* Fill with the same Exp(1) times, then warm up with 2N holds so that the
     * heap reaches the steady shape of the hold model. */
    uint32_t jf = 0, jt = 0;
    for (uint32_t i = 0; i < n_pending; i++) {
        floor_push(&f, inc_us[jf++ & (INC_N - 1)], KIND);
        sim__evq_push(&q, inc_us[jt++ & (INC_N - 1)], KIND, i, i, NULL);
    }
    uint64_t warm = 2 * (uint64_t)n_pending;
    int64_t sf = floor_holds(&f, warm, &jf);
    int64_t st = tarmac_holds(&q, warm, &jt, &handle_sink);
    bad |= sf != st;

    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        sf = floor_holds(&f, holds, &jf);
        double t1 = now_s();
        st = tarmac_holds(&q, holds, &jt, &handle_sink);
        double t2 = now_s();
        bad |= sf != st;
        ns_floor[r] = (t1 - t0) * 1e9 / (double)holds;
        ns_tarmac[r] = (t2 - t1) * 1e9 / (double)holds;
        ratio[r] = ns_tarmac[r] / ns_floor[r];
    }
    bad |= sim__evq_size(&q) != n_pending || sim__evq_check(&q) != TM_OK;
    if (bad) {
        fprintf(stderr, "bench_evq: N = %u: tarmac and the floor disagree\n", n_pending);
    } else {
        double mt = median(ns_tarmac, reps);
        printf("%9u %10llu %14.1f %14.1f %7.2f %14.1f\n", n_pending, (unsigned long long)holds, mt,
               median(ns_floor, reps), median(ratio, reps), 1e3 / mt);
    }
    sim__evq_fini(&q);
    free(f.mem);
    return bad;
}

int main(int argc, char **argv)
{
    static const uint32_t n_pending[] = {1000, 10000, 100000, 1000000};
    /* Holds per measurement: about a quarter of a second each on a 2-core VM. */
    static const uint64_t holds_default[] = {8000000, 6000000, 3000000, 1000000};
    uint64_t holds_arg = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > REPS_MAX) {
        fprintf(stderr, "usage: bench_evq [holds-per-measurement [repetitions 1..%d]]\n", REPS_MAX);
        return 2;
    }
    inc_fill(20240611);
    printf("bench_evq: hold model, Exp increments with mean %.0f us, medians of %d runs\n",
           INC_MEAN_US, reps);
    printf("%9s %10s %14s %14s %7s %14s\n", "N", "holds", "tarmac ns/hold", "floor ns/hold",
           "ratio", "tarmac Mhold/s");
    int bad = 0;
    for (size_t i = 0; i < sizeof n_pending / sizeof n_pending[0]; i++)
        bad |= bench_one(n_pending[i], holds_arg ? holds_arg : holds_default[i], reps);
    return bad;
}
