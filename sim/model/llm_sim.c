/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_sim.c — the request-level simulation of one LLM deployment: requests
 * routed to replicas, continuous batching per iteration, a KV cache of
 * blocks with admission and preemption by recomputation (llm_int.h has the
 * contract, docs/llm-serving.md the rules and their sources).
 *
 * How it works: a replica is either idle or running one iteration; the busy
 * ones are ordered by (iteration end, replica index) in a winner tree. The
 * loop takes the earlier of the next arrival and the tree's winner (an
 * arrival first on a tie): an arrival is routed and wakes an idle replica; an
 * iteration end advances its sequences (a prefill chunk fills the KV cache
 * and, when the prompt is done, yields the first token; a decode yields one),
 * retires the finished ones and schedules the next iteration at once.
 *
 * Scheduling (per replica, at the start of each iteration):
 *   vLLM     waiting requests are admitted in FIFO order while the batch has
 *            fewer than max_batch sequences, their whole prompts fit the
 *            token budget max_tokens (a prompt longer than the budget is
 *            admitted alone) and its KV blocks fit leaving the watermark
 *            free; if any was admitted the iteration is a prefill batch of
 *            them only. Otherwise every running sequence decodes one token;
 *            one that needs a new block and finds none preempts the most
 *            recently admitted sequence (maybe itself).
 *   Sarathi  every running decode takes one token first (same preemption),
 *            then prefills in progress and then new admissions take chunks
 *            of their prompts until the iteration's chunk_tokens budget is
 *            spent: decodes and prefill chunks share an iteration.
 * Preemption is by recomputation: the victim frees its blocks, goes to the
 * front of its replica's queue and, when readmitted, prefills its prompt and
 * the tokens it had generated (the recomputation produces its next token).
 * A request that needs more blocks than a replica has is dropped.
 *
 * The decoding sequences of a replica are kept as offsets from its decode
 * clock ("Decoding sequences"), so an arrival, a prefill's end or a finish
 * costs O(log batch), and decode-only iterations run as one event ("Decode
 * stretches"), whose length, end and cut at an arrival are computed in closed
 * form with the roofline ("Stretches in closed form") and walked iteration by
 * iteration with a measured profile; only a preemption visits the batch.
 * A request's 80 bytes of state live in a slot while it is in flight (the
 * pool holds the requests in flight, not all of them); the per-request
 * outcomes (28 bytes each) are kept unless the caller asks for counts only.
 *
 * The state can also be kept between calls (sim__llm_state, "A chain of
 * pieces"): a fleet run advances it piece by piece, feeding each piece's
 * arrivals and resizing it where the ready replicas change.
 *
 * One file of about 2,300 lines: the event loop, the batch scheduler, the
 * decoding set, the decode stretches (walked and closed) and the chain's
 * resize read and write the same replica and sequence state on every step;
 * the iteration-time model is already apart (llm_iter.c).
 */
#include "model/llm_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

void sim__llm_cfg_defaults(sim__llm_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->replicas = 1;
    c->block_tokens = 16;
    c->policy = SIM__LLM_VLLM;
    c->max_batch = 256;
    c->max_tokens = 8192;
    c->chunk_tokens = 512;
    c->watermark = 0.01;
    c->route = SIM__LLM_ROUTE_LEAST;
    c->slo_ttft_s = 2.0;
    c->slo_tpot_s = 0.2;
    c->bin_s = 10.0;
}

#define NIL UINT32_MAX

enum { ST_OUT, ST_PRE, ST_DEC }; /* not running, prefilling, decoding */

/* A request's state while it is routed and not finished: 80 bytes, in a
 * slot of a pool (sim.s) that a finished or dropped request gives back, so
 * the pool holds the requests in flight, not all of them, and stays in
 * cache. Queues, lists, heaps and batches hold slot indices. While a
 * sequence decodes (ST_DEC) it keeps off_kv and fin in place of kv and
 * blocks (see "Decoding sequences"). */
typedef struct seq {
    union {
        uint64_t kv;    /* context tokens in the KV cache */
        int64_t off_kv; /* decoding: kv = off_kv + clock */
    };
    union {
        uint64_t blocks; /* KV blocks held */
        uint64_t fin;    /* decoding: the clock after its last token */
    };
    double t_first;
    double t_arr;                  /* arrival */
    uint32_t prompt, output, gen;  /* gen: not kept while decoding (below) */
    uint32_t pre_target, pre_done; /* prefill of the current admission */
    uint32_t sched;                /* prefill tokens of this iteration */
    uint32_t rprev, rnext;         /* the running list, in admission order */
    uint32_t pprev, pnext;         /* the prefilling list, in admission order */
    uint32_t req;                  /* the request (index into reqs) */
    uint8_t state;
} seq;

typedef struct list {
    uint32_t head, tail;
} list;

/* A ring of slot indices; cap is 0 or a power of two (64, doubling), so
 * indices wrap with a mask. */
typedef struct deque {
    uint32_t *v;
    size_t cap, head, n;
} deque;

__attribute__((noinline, cold)) static int dq_grow(deque *d)
{
    size_t nc = d->cap ? 2 * d->cap : 64;
    uint32_t *v = malloc(nc * sizeof *v);
    if (!v)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < d->n; i++)
        v[i] = d->v[(d->head + i) & (d->cap - 1)];
    free(d->v);
    d->v = v;
    d->cap = nc;
    d->head = 0;
    return TM_OK;
}

static inline int dq_push_back(deque *d, uint32_t x)
{
    if (d->n == d->cap && dq_grow(d))
        return TM_ERR_NOMEM;
    d->v[(d->head + d->n) & (d->cap - 1)] = x;
    d->n++;
    return TM_OK;
}

static int dq_push_front(deque *d, uint32_t x)
{
    if (d->n == d->cap && dq_grow(d))
        return TM_ERR_NOMEM;
    d->head = (d->head + d->cap - 1) & (d->cap - 1);
    d->v[d->head] = x;
    d->n++;
    return TM_OK;
}

static uint32_t dq_front(const deque *d)
{
    return d->v[d->head];
}

static void dq_pop_front(deque *d)
{
    d->head = (d->head + 1) & (d->cap - 1);
    d->n--;
}

typedef struct fent {
    uint64_t fin;
    uint32_t i;
} fent;

/* One iteration of a decode stretch walked ahead and not yet committed
 * (see "Decode stretches"). */
typedef struct witer {
    double t, dt, used, attn; /* start, duration, KV use, its batch's attn_pairs */
    uint64_t kv, alloc;       /* its batch's kv_tokens; cum_alloc after it */
} witer;

typedef struct replica {
    deque wait;
    list run, pre;   /* running sequences; those of them prefilling */
    uint32_t *batch; /* this iteration's prefill chunks */
    size_t n_run, n_batch, cap_batch;
    /* the decoding sequences D (see "Decoding sequences" below) */
    uint64_t clock;   /* decode iterations run */
    uint32_t n_dec;   /* |D| */
    uint32_t dec_now; /* the current iteration decodes D (|D|) or not (0) */
    int64_t sum_off;  /* sum of D's off_kv */
    uint32_t *hist;   /* [block_tokens]: D by off_kv mod block_tokens */
    fent *fh;         /* min-heap of D's finish clocks ... */
    size_t n_fh, cap_fh;
    fent *fq; /* ... and a ring of them in order (fh_push) */
    uint32_t fq_head, fq_n, fq_cap;
    uint64_t free_blocks;
    int busy;
    double t_start, t_end;
    /* series, per bin */
    double *s_batch, *s_kv, *s_queue;
    size_t n_bins, cap_bins;
    double iterations, busy_s;
    uint64_t preemptions;
    uint32_t steps; /* decode iterations of the current event (decode_stretch) */
    /* the current event is a decode stretch (decode_stretch): its next
     * iteration's batch, its bounds, and what it has walked so far */
    int stretch, more; /* more: walked ahead by a chunk, may go on */
    witer *w;          /* the iterations walked ahead, not committed */
    size_t n_w;
    witer w0;           /* before them: kv, attn, alloc of the last committed */
    sim__llm_batch sb;  /* the batch of iteration steps + 1 */
    uint32_t room;      /* most iterations: the first finish */
    uint32_t phase;     /* hist index of iteration steps + 1 */
    uint64_t cum_alloc; /* blocks its iterations 2..steps take */
    /* a stretch in closed form (roofline; "Stretches in closed form"): the
     * time of its iteration j is ca1 + cb1 (j - 1) for j < cJ and
     * ca2 + cb2 (j - cJ) from cJ on; cSJ is the sum of the first cJ - 1 */
    int closed;
    double ca1, cb1, ca2, cb2, cJ, cSJ;
    uint32_t ph0;   /* hist index of its iteration 2 */
    double ib, ikv; /* series integrals not yet put in bin ik */
    /* a closed stretch begun at the end pf_t of the prefill iteration before
     * it, ahead of that end (start, fuse_prefill); pf_need: the blocks its
     * first iteration took. pf_t is -INFINITY otherwise (set by start) */
    double pf_t;
    uint64_t pf_need;
    size_t ik;
    double bin_end; /* end of bin ik */
} replica;

typedef struct sim {
    const sim__llm_cfg *c;
    sim__llm_cfg cc;      /* c's copy, which c points to (a chain resizes it) */
    int chain;            /* a chain (sim__llm_state): series in two bins */
    double t_cut;         /* chain: the end of the piece being simulated */
    uint64_t live;        /* requests in flight (slots in use) */
    seq *s;               /* the slots */
    uint32_t n_s, cap_s;  /* slots made, allocated */
    uint32_t free_s;      /* free slots, linked through rnext (NIL: none) */
    sim__llm_result *res; /* outcomes are written as requests end */
    replica *rep;
    /* Two winner trees over the replicas (leaves P..2P-1 for replicas
     * 0..P-1, P a power of two >= replicas; node i holds the winner of
     * 2i and 2i + 1, a tie going to the left, so to the lower index; the
     * root is node 1): ev by the next event's time (INFINITY: none; the
     * padding too), rt by requests routed there and not finished (padding
     * UINT32_MAX). An update replays one leaf-to-root path: log2 P
     * comparisons, no swaps. */
    uint32_t P;
    uint32_t *ev, *rt;
    double *tnext;   /* [P]: replica's next event, or INFINITY */
    uint32_t *outst; /* [P]: requests routed there, not finished */
    /* Up to 64 replicas (rt_mask): rt_bits has bit r set when outst[r] is
     * rt_min, the least count, so the route is its lowest set bit, the same
     * as rt's root; a count that leaves the least one clears its bit, and
     * the last to leave makes a pass over the counts. rt is then not kept. */
    int rt_mask;
    uint32_t rt_min;
    uint64_t rt_bits;
    /* the roofline: slope_of(n) for n < n_slope (max_batch + 1), as
     * (compute, memory) pairs */
    double *slope;
    uint32_t n_slope;
    deque central;
    uint32_t rr;
    uint64_t wm_blocks;
    /* block_tokens a power of two: its mask and log2 (bt_pow2), so that
     * phases and block counts need no division (the same integers) */
    int bt_pow2;
    uint32_t bt_mask, bt_shift;
    double t0;
    size_t bins_max; /* per replica */
    const sim__llm_req *reqs;
    size_t n_reqs, ai; /* the requests; the next to arrive */
    tm_diag *diag;
} sim;

/* b if lt else a, without a branch (the comparisons are data: a branch
 * would be mispredicted about half the time) */
static uint32_t pick(uint32_t a, uint32_t b, int lt)
{
    return a ^ ((a ^ b) & (0u - (uint32_t)lt));
}

/* The path from leaf r up: the winner of the child just replayed is carried
 * in registers with its key, so only the siblings are read (their loads do
 * not wait on the path) and each level costs one comparison. A left subtree
 * holds lower replica indices than its right sibling, so "the left wins a
 * tie" is "the lower index wins": the winner is the least (key, index), the
 * same as w[i] = pick(w[2i], w[2i+1], k[w[2i+1]] < k[w[2i]]), and its key
 * the lesser key (no branch: minsd / cmov). */
static void ev_fix(sim *m, uint32_t r)
{
    uint32_t *w = m->ev;
    const double *k = m->tnext;
    uint32_t cur = r;
    double kc = k[r];
    for (uint32_t j = m->P + r; j > 1; j >>= 1) {
        uint32_t s = w[j ^ 1u];
        double ks = k[s];
        int sw = (ks < kc) | ((ks == kc) & (s < cur));
        cur = pick(cur, s, sw);
        kc = ks < kc ? ks : kc;
        w[j >> 1] = cur;
    }
}

static void rt_fix(sim *m, uint32_t r)
{
    uint32_t *w = m->rt;
    const uint32_t *k = m->outst;
    uint32_t cur = r, kc = k[r];
    for (uint32_t j = m->P + r; j > 1; j >>= 1) {
        uint32_t s = w[j ^ 1u], ks = k[s];
        int sw = (ks < kc) | ((ks == kc) & (s < cur));
        cur = pick(cur, s, sw);
        kc = ks < kc ? ks : kc;
        w[j >> 1] = cur;
    }
}

/* Replica r's next event is at t (it may have one already: it moves). */
__attribute__((always_inline)) static inline void rep_push(sim *m, uint32_t r, double t)
{
    m->tnext[r] = t;
    ev_fix(m, r);
}

/* Replica r has no next event (it may have had one). */
static void rep_unpush(sim *m, uint32_t r)
{
    if (m->tnext[r] < INFINITY) {
        m->tnext[r] = INFINITY;
        ev_fix(m, r);
    }
}

/* rt_min and rt_bits from the counts: O(replicas). */
static void rt_rescan(sim *m)
{
    uint32_t lo = UINT32_MAX;
    uint64_t bits = 0;
    for (uint32_t r = 0; r < m->cc.replicas; r++) {
        uint32_t x = m->outst[r];
        if (x < lo) {
            lo = x;
            bits = 0;
        }
        if (x == lo)
            bits |= (uint64_t)1 << r;
    }
    m->rt_min = lo;
    m->rt_bits = bits;
}

/* The least count is lo (no count is below it): rt_bits from the counts,
 * O(replicas) without a branch. */
static void rt_level(sim *m, uint32_t lo)
{
    uint64_t bits = 0;
    for (uint32_t r = 0; r < m->cc.replicas; r++)
        bits |= (uint64_t)(m->outst[r] == lo) << r;
    m->rt_min = lo;
    m->rt_bits = bits;
}

/* Requests routed to replica r and not finished change by d (+1 or -1). */
__attribute__((always_inline)) static inline void outst_add(sim *m, uint32_t r, int d)
{
    uint32_t x = m->outst[r] += (uint32_t)d;
    if (!m->rt_mask) {
        rt_fix(m, r);
    } else if (d > 0) {
        m->rt_bits &= ~((uint64_t)1 << r);
        if (!m->rt_bits) /* r was the last at the least count: it is one more */
            rt_level(m, m->rt_min + 1);
    } else { /* below the least: alone there; at it: one more there */
        uint64_t bit = (uint64_t)1 << r;
        int lt = x < m->rt_min;
        uint64_t more = m->rt_bits | (x == m->rt_min ? bit : 0);
        m->rt_bits = lt ? bit : more;
        m->rt_min = lt ? x : m->rt_min;
    }
}

static uint64_t blocks_for(const sim *m, uint64_t tokens)
{
    if (m->bt_pow2)
        return (tokens + m->bt_mask) >> m->bt_shift;
    return (tokens + m->c->block_tokens - 1) / m->c->block_tokens;
}

/* A slot never used (the pool grows by doubling); NIL when out of memory. */
__attribute__((noinline, cold)) static uint32_t slot_more(sim *m)
{
    if (m->n_s == m->cap_s) {
        uint32_t nc = m->cap_s ? 2 * m->cap_s : 1024;
        seq *a = realloc(m->s, (size_t)nc * sizeof *a);
        if (!a)
            return NIL;
        m->s = a;
        m->cap_s = nc;
    }
    return m->n_s++;
}

/* A slot for request i (arrived), its state initialised; NIL when out of
 * memory. The pool grows by doubling: a seq pointer held across this call
 * may move (only arrive() calls it, before taking any). */
static inline uint32_t slot_new(sim *m, uint32_t i)
{
    uint32_t k = m->free_s;
    if (k != NIL)
        m->free_s = m->s[k].rnext;
    else if ((k = slot_more(m)) == NIL)
        return NIL;
    const sim__llm_req *r = &m->reqs[i];
    seq *q = &m->s[k];
    memset(q, 0, sizeof *q);
    q->prompt = r->prompt ? r->prompt : 1;
    q->output = r->output ? r->output : 1;
    q->pre_target = q->prompt;
    q->t_first = NAN;
    q->t_arr = r->t_s;
    q->req = i;
    m->live++;
    return k;
}

static void slot_free(sim *m, uint32_t k)
{
    m->s[k].rnext = m->free_s;
    m->free_s = k;
    m->live--;
}

/* Request i's outcome: its replica, -1 (API) or -2 (dropped). */
static void set_replica_slow(sim *m, uint32_t i, int32_t r)
{
    sim__llm_result *res = m->res;
    if (res->replica) {
        res->replica[i] = r;
    } else if (r == -1) { /* counts_only: the sums of the figures below */
        const sim__llm_req *q = &m->reqs[i];
        res->service.api++;
        res->api_usd += ((double)(q->prompt ? q->prompt : 1) * m->c->api_in_usd_per_mtok +
                         (double)(q->output ? q->output : 1) * m->c->api_out_usd_per_mtok) /
                        1e6;
    } else if (r == -2) {
        res->service.dropped++;
    }
}

/* counts_only counts nothing for a request routed to a replica */
static inline void set_replica(sim *m, uint32_t i, int32_t r)
{
    if (r >= 0 && !m->res->replica)
        return;
    set_replica_slow(m, i, r);
}

/* Doubly linked lists through the sequences: the running list (rprev,
 * rnext) and the prefilling list (pprev, pnext). */
static void list_append(sim *m, list *l, uint32_t i, int pre)
{
    seq *q = &m->s[i];
    uint32_t *prev = pre ? &q->pprev : &q->rprev, *next = pre ? &q->pnext : &q->rnext;
    *prev = l->tail;
    *next = NIL;
    if (l->tail == NIL)
        l->head = i;
    else if (pre)
        m->s[l->tail].pnext = i;
    else
        m->s[l->tail].rnext = i;
    l->tail = i;
}

static void list_remove(sim *m, list *l, uint32_t i, int pre)
{
    seq *q = &m->s[i];
    uint32_t prev = pre ? q->pprev : q->rprev, next = pre ? q->pnext : q->rnext;
    if (prev == NIL)
        l->head = next;
    else if (pre)
        m->s[prev].pnext = next;
    else
        m->s[prev].rnext = next;
    if (next == NIL)
        l->tail = prev;
    else if (pre)
        m->s[next].pprev = prev;
    else
        m->s[next].rprev = prev;
}

/* Make bin k of replica p's series exist. */
static int series_bin(sim *m, replica *p, size_t k)
{
    if (k >= p->cap_bins) {
        if (k >= m->bins_max)
            return tm_diag_set(m->diag, TM_ERR_LIMIT, "llm.bin_s",
                               "more than %u series cells (replicas x bins of %g s); a larger "
                               "bin is needed",
                               (unsigned)SIM__LLM_SERIES_MAX, m->c->bin_s);
        size_t nc = p->cap_bins ? p->cap_bins : 64;
        while (nc <= k)
            nc *= 2;
        double **a[3] = {&p->s_batch, &p->s_kv, &p->s_queue};
        for (int i = 0; i < 3; i++) {
            double *x = realloc(*a[i], nc * sizeof *x);
            if (!x)
                return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "series of %zu bins", nc);
            memset(x + p->cap_bins, 0, (nc - p->cap_bins) * sizeof *x);
            *a[i] = x;
        }
        p->cap_bins = nc;
    }
    if (k + 1 > p->n_bins)
        p->n_bins = k + 1;
    return TM_OK;
}

/* The series bin of time t and its end. A chain has two: the piece being
 * simulated (before t_cut) and what comes after it (sim__llm_state). */
static size_t bin_at(const sim *m, double t, double *end)
{
    if (m->chain) {
        *end = t < m->t_cut ? m->t_cut : INFINITY;
        return t < m->t_cut ? 0 : 1;
    }
    double bin = m->c->bin_s;
    double f = (t - m->t0) / bin;
    size_t k = f > 0 ? (size_t)f : 0;
    *end = m->t0 + (double)(k + 1) * bin;
    return k;
}

/* Add x * dt over [t, t + dt) to series v of replica p, bin by bin. */
static int series_add(sim *m, replica *p, double t, double dt, double b, double kv, double q)
{
    if (m->c->no_series)
        return TM_OK;
    while (dt > 0) {
        double bin_end;
        size_t k = bin_at(m, t, &bin_end);
        int rc = series_bin(m, p, k);
        if (rc)
            return rc;
        double part = t + dt < bin_end ? dt : bin_end - t;
        if (!(part > 0)) /* rounding at a bin edge */
            part = dt;
        p->s_batch[k] += b * part;
        p->s_kv[k] += kv * part;
        p->s_queue[k] += q * part;
        t += part;
        dt -= part;
    }
    return TM_OK;
}

/* Decoding sequences. Every iteration that decodes decodes every running
 * sequence whose prefill is done (both policies), so these sequences, the
 * set D, advance together: a replica counts its decode iterations (clock),
 * and a sequence of D keeps off_kv = kv - clock and fin = the clock at
 * which it has all its output; gen = output - (fin - clock). Its blocks are
 * ceil(kv / block_tokens) at every iteration boundary (admission takes the
 * prompt's, a decode takes one when kv is a multiple of block_tokens), so
 * the iteration from clock C takes a block for each sequence with
 * off_kv + C = 0 mod block_tokens: hist[] counts D by off_kv mod
 * block_tokens and the iteration takes hist[(-C) mod block_tokens]. Its KV
 * tokens read are sum_off + |D| (C + 1). The sequences that finish are the
 * tops of a min-heap of fin. Joining, finishing and one iteration of D cost
 * O(log |D|), O(log |D|) and O(1); only an iteration whose blocks would pass
 * the free ones writes the sequences out and runs the rule sequence by
 * sequence (decode_slow, which may preempt). */
static uint32_t hist_idx(const sim *m, uint64_t clock)
{
    if (m->bt_pow2)
        return (uint32_t)(0u - clock) & m->bt_mask;
    uint32_t bt = m->c->block_tokens;
    uint32_t r = (uint32_t)(clock % bt);
    return r ? bt - r : 0;
}

static uint32_t off_phase(const sim *m, int64_t off)
{
    if (m->bt_pow2) /* two's complement: the non-negative residue */
        return (uint32_t)off & m->bt_mask;
    uint32_t bt = m->c->block_tokens;
    int64_t r = off % (int64_t)bt;
    return (uint32_t)(r < 0 ? r + (int64_t)bt : r);
}

/* D's finish clocks are a ring in non-decreasing order, which takes every
 * entry that is not below its last (with equal output lengths, sequences
 * joining D in time order finish in that order: all of them), and a min-heap
 * for the others; the next to finish is the lesser of the two fronts (which
 * one of equal clocks goes first changes nothing: they finish in the same
 * event). */
__attribute__((noinline, cold)) static int fh_push_slow(replica *p, fent e)
{
    if (p->fq_n == 0 || !(e.fin < p->fq[(p->fq_head + p->fq_n - 1) & (p->fq_cap - 1)].fin)) {
        if (p->fq_n == p->fq_cap) {
            uint32_t nc = p->fq_cap ? 2 * p->fq_cap : 64;
            fent *a = malloc((size_t)nc * sizeof *a);
            if (!a)
                return TM_ERR_NOMEM;
            for (uint32_t k = 0; k < p->fq_n; k++)
                a[k] = p->fq[(p->fq_head + k) & (p->fq_cap - 1)];
            free(p->fq);
            p->fq = a;
            p->fq_cap = nc;
            p->fq_head = 0;
        }
        p->fq[(p->fq_head + p->fq_n++) & (p->fq_cap - 1)] = e;
        return TM_OK;
    }
    if (p->n_fh == p->cap_fh) {
        size_t nc = p->cap_fh ? 2 * p->cap_fh : 64;
        fent *a = realloc(p->fh, nc * sizeof *a);
        if (!a)
            return TM_ERR_NOMEM;
        p->fh = a;
        p->cap_fh = nc;
    }
    size_t i = p->n_fh++;
    while (i > 0) {
        size_t u = (i - 1) / 2;
        if (!(e.fin < p->fh[u].fin))
            break;
        p->fh[i] = p->fh[u];
        i = u;
    }
    p->fh[i] = e;
    return TM_OK;
}

/* fh_push's common case inline: the ring takes it and has room. */
__attribute__((always_inline)) static inline int fh_push(replica *p, fent e)
{
    if (p->fq_n && p->fq_n < p->fq_cap &&
        !(e.fin < p->fq[(p->fq_head + p->fq_n - 1) & (p->fq_cap - 1)].fin)) {
        p->fq[(p->fq_head + p->fq_n++) & (p->fq_cap - 1)] = e;
        return TM_OK;
    }
    return fh_push_slow(p, e);
}

/* Entries of D's finish clocks, and the least (D not empty). */
static size_t fh_count(const replica *p)
{
    return p->n_fh + p->fq_n;
}

static uint64_t fh_min(const replica *p)
{
    uint64_t a = p->fq_n ? p->fq[p->fq_head].fin : UINT64_MAX;
    uint64_t b = p->n_fh ? p->fh[0].fin : UINT64_MAX;
    return a < b ? a : b;
}

static uint32_t fh_pop(replica *p)
{
    if (p->fq_n && (p->n_fh == 0 || p->fq[p->fq_head].fin <= p->fh[0].fin)) {
        uint32_t top = p->fq[p->fq_head].i;
        p->fq_head = (p->fq_head + 1) & (p->fq_cap - 1);
        p->fq_n--;
        return top;
    }
    uint32_t top = p->fh[0].i;
    fent e = p->fh[--p->n_fh];
    size_t i = 0, n = p->n_fh;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        size_t k = l + 1 < n && p->fh[l + 1].fin < p->fh[l].fin ? l + 1 : l;
        if (!(p->fh[k].fin < e.fin))
            break;
        p->fh[i] = p->fh[k];
        i = k;
    }
    if (n)
        p->fh[i] = e;
    return top;
}

/* Sequence i (kv, gen, blocks written out) joins D. */
static void fh_clear(replica *p)
{
    p->n_fh = 0;
    p->fq_n = 0;
    p->fq_head = 0;
}

__attribute__((always_inline)) static inline int dec_join(sim *m, replica *p, uint32_t i)
{
    uint32_t bt = m->c->block_tokens;
    if (!p->hist && !(p->hist = calloc(bt, sizeof *p->hist)))
        return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "block phases");
    seq *q = &m->s[i];
    q->state = ST_DEC;
    q->off_kv = (int64_t)q->kv - (int64_t)p->clock; /* in place of kv */
    q->fin = p->clock + (q->output - q->gen);       /* in place of blocks */
    p->hist[off_phase(m, q->off_kv)]++;
    p->sum_off += q->off_kv;
    p->n_dec++;
    if (fh_push(p, (fent){q->fin, i}))
        return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "decoding sequences");
    return TM_OK;
}

/* Write out kv, gen and blocks of sequence i of D. */
static void dec_write(sim *m, replica *p, seq *q)
{
    int64_t off = q->off_kv;
    uint64_t fin = q->fin;
    q->kv = (uint64_t)(off + (int64_t)p->clock);
    q->gen = q->output - (uint32_t)(fin - p->clock);
    q->blocks = blocks_for(m, q->kv);
}

/* Sequence i of D leaves it (before dec_write: off_kv is read); its heap
 * entry is gone. */
static void dec_leave(sim *m, replica *p, seq *q)
{
    p->hist[off_phase(m, q->off_kv)]--;
    p->sum_off -= q->off_kv;
    p->n_dec--;
    q->state = ST_OUT;
}

static int run_push(sim *m, replica *p, uint32_t i)
{
    if (p->n_run == p->cap_batch) {
        size_t nc = p->cap_batch ? 2 * p->cap_batch : 64;
        uint32_t *b = realloc(p->batch, nc * sizeof *b);
        if (!b)
            return TM_ERR_NOMEM;
        p->batch = b;
        p->cap_batch = nc;
    }
    list_append(m, &p->run, i, 0);
    list_append(m, &p->pre, i, 1);
    m->s[i].state = ST_PRE;
    p->n_run++;
    return TM_OK;
}

/* The most recently admitted running sequence (written out) gives back its
 * blocks and returns to the front of the queue (recomputation). */
static int preempt_last(sim *m, replica *p)
{
    uint32_t v = p->run.tail;
    seq *q = &m->s[v];
    list_remove(m, &p->run, v, 0);
    p->n_run--;
    if (q->state == ST_PRE)
        list_remove(m, &p->pre, v, 1);
    q->state = ST_OUT;
    p->free_blocks += q->blocks;
    q->blocks = q->kv = 0;
    q->pre_done = 0;
    q->pre_target = q->prompt + q->gen;
    p->preemptions++;
    return dq_push_front(&p->wait, v) ? tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "queue") : TM_OK;
}

/* Admission of the queue's front: 1 admitted, 0 not now, 2 dropped (longer
 * than the whole cache), < 0 error. */
static int try_admit(sim *m, replica *p, uint32_t *out)
{
    uint32_t i = dq_front(&p->wait);
    seq *q = &m->s[i];
    uint64_t need = blocks_for(m, q->pre_target);
    uint64_t total = m->c->kv_blocks;
    if (need + 1 + m->wm_blocks > total) { /* the prompt and one decode block */
        dq_pop_front(&p->wait);
        set_replica(m, q->req, -2);
        outst_add(m, (uint32_t)(p - m->rep), -1);
        slot_free(m, i);
        return 2;
    }
    if (p->free_blocks < need + m->wm_blocks)
        return 0;
    dq_pop_front(&p->wait);
    p->free_blocks -= need;
    q->blocks = need;
    if (run_push(m, p, i))
        return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "running sequences");
    *out = i;
    return 1;
}

/* One decode token for every sequence of D, sequence by sequence in
 * admission order, preempting from the end of the running list where a
 * block is missing; D is written out first and rebuilt after. */
static int decode_slow(sim *m, replica *p, sim__llm_batch *b)
{
    uint32_t bt = m->c->block_tokens;
    for (uint32_t i = p->run.head; i != NIL; i = m->s[i].rnext)
        if (m->s[i].state == ST_DEC)
            dec_write(m, p, &m->s[i]);
    memset(p->hist, 0, bt * sizeof *p->hist);
    p->sum_off = 0;
    p->n_dec = 0;
    fh_clear(p);
    for (uint32_t i = p->run.head; i != NIL;) {
        seq *q = &m->s[i];
        if (q->state == ST_DEC) {
            if (q->kv + 1 > q->blocks * bt) {
                int self = 0;
                while (p->free_blocks == 0 && !self) {
                    self = p->run.tail == i;
                    int rc = preempt_last(m, p);
                    if (rc)
                        return rc;
                }
                if (self)
                    break; /* it was the last: nothing after it */
                p->free_blocks--;
                q->blocks++;
            }
            b->decode_seqs++;
            b->kv_tokens += q->kv + 1;
            b->attn_pairs += (double)(q->kv + 1);
        }
        i = q->rnext;
    }
    for (uint32_t i = p->run.head; i != NIL; i = m->s[i].rnext)
        if (m->s[i].state == ST_DEC) {
            int rc = dec_join(m, p, i);
            if (rc)
                return rc;
        }
    p->dec_now = p->n_dec;
    return TM_OK;
}

/* One decode token for every sequence of D (see above). */
__attribute__((always_inline)) static inline int decode_all(sim *m, replica *p, sim__llm_batch *b)
{
    p->dec_now = 0;
    if (p->n_dec == 0)
        return TM_OK;
    uint64_t need = p->hist[hist_idx(m, p->clock)];
    if (need > p->free_blocks)
        return decode_slow(m, p, b);
    p->free_blocks -= need;
    p->dec_now = p->n_dec;
    uint64_t kv = (uint64_t)(p->sum_off + (int64_t)p->n_dec * (int64_t)(p->clock + 1));
    b->decode_seqs += p->n_dec;
    b->kv_tokens += kv;
    b->attn_pairs += (double)kv;
    return TM_OK;
}

static void add_chunk(replica *p, seq *q, uint32_t i, uint32_t c, sim__llm_batch *b)
{
    q->sched = c;
    p->batch[p->n_batch++] = i;
    b->prefill_tokens += c;
    b->kv_tokens += q->pre_done;
    b->attn_pairs += (double)c * ((double)q->pre_done + ((double)c + 1.0) / 2.0);
}

/* Build the next batch of replica p (empty when it has nothing to run). */
static int schedule(sim *m, replica *p, sim__llm_batch *b)
{
    const sim__llm_cfg *c = m->c;
    for (;;) {
        memset(b, 0, sizeof *b);
        p->n_batch = 0;
        p->dec_now = 0;
        int rc;
        uint32_t i = 0;
        if (c->policy == SIM__LLM_VLLM) {
            uint64_t tokens = 0;
            while (p->wait.n && p->n_run < c->max_batch) {
                seq *q = &m->s[dq_front(&p->wait)];
                uint32_t need = q->pre_target;
                if (tokens > 0 && tokens + need > c->max_tokens)
                    break;
                if ((rc = try_admit(m, p, &i)) < 0)
                    return rc;
                if (rc == 0)
                    break;
                if (rc == 2)
                    continue;
                add_chunk(p, q, i, need, b);
                tokens += need;
            }
            if (p->n_batch == 0 && (rc = decode_all(m, p, b)))
                return rc;
        } else {
            if ((rc = decode_all(m, p, b)))
                return rc;
            uint64_t tokens = b->decode_seqs;
            for (uint32_t k = p->pre.head; k != NIL && tokens < c->chunk_tokens;
                 k = m->s[k].pnext) {
                seq *q = &m->s[k];
                uint32_t left = q->pre_target - q->pre_done;
                uint32_t ch = (uint32_t)(c->chunk_tokens - tokens);
                ch = left < ch ? left : ch;
                add_chunk(p, q, k, ch, b);
                tokens += ch;
            }
            while (p->wait.n && p->n_run < c->max_batch && tokens < c->chunk_tokens) {
                if ((rc = try_admit(m, p, &i)) < 0)
                    return rc;
                if (rc == 0)
                    break;
                if (rc == 2)
                    continue;
                seq *q = &m->s[i];
                uint32_t ch = (uint32_t)(c->chunk_tokens - tokens);
                ch = q->pre_target < ch ? q->pre_target : ch;
                add_chunk(p, q, i, ch, b);
                tokens += ch;
            }
        }
        b->seqs = (uint32_t)p->n_batch + p->dec_now;
        /* A batch emptied by preemption: the freed blocks admit now. This
         * ends: with nothing running, the queue's front is admitted (the
         * whole cache is free) or dropped (it can never fit). */
        if (b->seqs || !p->wait.n)
            return TM_OK;
    }
}

/* Decode stretches. Decode-only iterations with nothing waiting repeat the
 * same batch, each with one more context token per sequence, until a
 * sequence finishes, the blocks its sequences cross into run out, or a
 * request arrives at the replica (it could join). Such iterations are one
 * event of `steps` iterations, with the same times and token counts as one
 * by one and no per-sequence work:
 *   - iteration j of the stretch takes hist[(-(clock + j - 1)) mod
 *     block_tokens] blocks (see "Decoding sequences"); the stretch stops
 *     before the iteration whose blocks would pass the free ones (the next
 *     event preempts as decode_slow does);
 *   - it ends with the iteration in which the first sequence finishes (the
 *     top of the finish heap);
 *   - it is walked ahead by chunks of SIM__LLM_WALK iterations (`more`):
 *     the replica's event is at the end of the chunk walked, where the walk
 *     goes on (main loop); the chunk's iterations are kept (w[]) and
 *     committed (totals, series) only then. A request routed to the replica
 *     during the stretch cuts it at the first iteration end at or after its
 *     arrival (stretch_cut: the iterations after are dropped and the event
 *     moves earlier), as iteration by iteration; other replicas' arrivals
 *     do not touch it;
 *   - the KV-use series gets each iteration's use (blocks grow inside a
 *     stretch): iterations inside one bin are summed, one crossing a bin
 *     edge is split by series_add.
 * The clock and the free blocks are brought up to date when it ends
 * (finish_iteration). */
#define SIM__LLM_WALK 256u

static void stretch_bin(sim *m, replica *p, double t)
{
    p->ik = bin_at(m, t, &p->bin_end);
    p->ib = p->ikv = 0;
}

static int stretch_flush(sim *m, replica *p)
{
    if (m->c->no_series || (p->ib == 0 && p->ikv == 0))
        return TM_OK;
    int rc = series_bin(m, p, p->ik);
    if (rc)
        return rc;
    p->s_batch[p->ik] += p->ib;
    p->s_kv[p->ik] += p->ikv;
    p->ib = p->ikv = 0;
    return TM_OK;
}

/* Series of one iteration [t, t + dt) of a stretch at KV use `used`. */
static int stretch_series(sim *m, replica *p, double t, double dt, double used)
{
    double seqs = (double)p->sb.seqs;
    if (t + dt < p->bin_end) {
        p->ib += seqs * dt;
        p->ikv += used * dt;
        return TM_OK;
    }
    int rc = stretch_flush(m, p);
    if (rc == TM_OK)
        rc = series_add(m, p, t, dt, seqs, used, 0.0);
    stretch_bin(m, p, t + dt);
    return rc;
}

/* Commit the first k iterations walked ahead: their series. */
static int stretch_commit(sim *m, replica *p, size_t k)
{
    for (size_t j = 0; j < k; j++) {
        int rc = stretch_series(m, p, p->w[j].t, p->w[j].dt, p->w[j].used);
        if (rc)
            return rc;
    }
    p->n_w = 0;
    return TM_OK;
}

/* Walk the stretch of p on by a chunk from its current end (see above). */
static int stretch_walk(sim *m, replica *p)
{
    const sim__llm_cfg *c = m->c;
    uint32_t bt = c->block_tokens;
    double end = p->t_end, kvb = (double)c->kv_blocks;
    if (!p->w && !(p->w = malloc(SIM__LLM_WALK * sizeof *p->w)))
        return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "stretch");
    p->n_w = 0;
    p->more = 0;
    p->w0 = (witer){end, 0, 0, p->sb.attn_pairs, p->sb.kv_tokens, p->cum_alloc};
    /* how far: past the arrival of the replicas-th next request (about when
     * one of them reaches this replica), at most SIM__LLM_WALK iterations */
    size_t h = m->ai + c->replicas - 1;
    double horizon = h < m->n_reqs ? m->reqs[h].t_s : INFINITY;
    while (p->steps < p->room) {
        if (p->n_w == SIM__LLM_WALK || (p->n_w && !(end < horizon))) {
            p->more = 1;
            break;
        }
        uint64_t a = p->hist[p->phase];
        if (p->cum_alloc + a > p->free_blocks)
            break;
        p->cum_alloc += a;
        p->sb.kv_tokens += p->sb.decode_seqs;
        p->sb.attn_pairs += p->sb.decode_seqs;
        double dt = c->iter.profile ? sim__llm_iter_time(&c->iter, &p->sb)
                                    : sim__llm_roof_time(&c->iter.roof, &p->sb);
        double used = (double)(c->kv_blocks - (p->free_blocks - p->cum_alloc)) / kvb;
        p->w[p->n_w++] = (witer){end, dt, used, p->sb.attn_pairs, p->sb.kv_tokens, p->cum_alloc};
        end += dt;
        p->steps++;
        p->phase = p->phase ? p->phase - 1 : bt - 1;
    }
    p->t_end = end;
    return TM_OK;
}

/* A request arrived at t at replica r, in a stretch: the stretch ends with
 * the first iteration walked that ends at or after t. */
static int stretch_cut(sim *m, uint32_t r, double t)
{
    replica *p = &m->rep[r];
    size_t k = 0; /* iterations kept */
    double e = p->w0.t;
    while (k < p->n_w && e < t) {
        e = p->w[k].t + p->w[k].dt;
        k++;
    }
    if (k == p->n_w) /* all (the heap's order puts t before the walk's end) */
        return stretch_commit(m, p, p->n_w);
    const witer *x = k ? &p->w[k - 1] : &p->w0;
    p->steps -= (uint32_t)(p->n_w - k);
    p->t_end = e;
    p->cum_alloc = x->alloc;
    p->sb.kv_tokens = x->kv;
    p->sb.attn_pairs = x->attn;
    p->phase = hist_idx(m, p->clock + p->steps);
    p->more = 0;
    int rc = stretch_commit(m, p, k);
    if (!rc)
        rep_push(m, r, p->t_end);
    return rc;
}

/* Stretches in closed form. With the roofline (no profile) a stretch's
 * iterations need not be walked: iteration j (1 = the first) decodes the
 * same n sequences with j - 1 more context tokens each, so its kv_tokens
 * and attn_pairs grow by n per iteration, its compute time and its memory
 * time are both affine in j, and its time, overhead + max(compute, memory)
 * + communication, is affine in j on at most two pieces (the two lines cross
 * at most once). The stretch's length, the end of its iteration k (the
 * start plus a sum of one or two arithmetic series) and the cut (the first
 * iteration end at or after an arrival: the root of a quadratic, checked
 * against the sums) then cost O(1). Only the KV blocks taken inside the
 * stretch are counted iteration by iteration (one histogram read each, no
 * roofline), once, when the stretch ends, with the series. The times equal
 * those of the walk up to floating-point rounding (llm_closed_* tests). */

/* Sum of the times of the first k iterations of p's closed stretch. */
static double closed_sum(const replica *p, double k)
{
    if (k < p->cJ)
        return k * p->ca1 + p->cb1 * (0.5 * k * (k - 1.0));
    double q = k - p->cJ + 1.0;
    return p->cSJ + q * p->ca2 + p->cb2 * (0.5 * q * (q - 1.0));
}

static double closed_end_of(const replica *p, uint32_t k)
{
    return p->t_start + closed_sum(p, (double)k);
}

/* The least q >= 0 with q a + b q (q - 1) / 2 >= d (a > 0, b >= 0), about. */
static double series_root(double a, double b, double d)
{
    if (!(d > 0))
        return 0.0;
    double h = a - 0.5 * b;
    double disc = sqrt(h * h + 2.0 * b * d);
    return h > 0 ? 2.0 * d / (h + disc) : (disc - h) / b;
}

/* The compute and memory slopes of a closed stretch of n sequences: the
 * growth of each iteration's two times over the one before. */
static void slope_of(const sim__llm_roofline *r, uint32_t nd, double *sc, double *sm)
{
    double n = (double)nd;
    *sc = r->attn_flops_per_pair * n / r->flops_per_s;
    *sm = r->kv_bytes_per_token * n / r->bytes_per_s;
}

/* Set up p's closed stretch from its first iteration's batch b (time dt1,
 * the roofline's to the bit; > 1e-6, so the floor never applies after; tc
 * and tm its compute and memory times, sim__llm_roof_parts'). The slopes of
 * n sequences come from sim.slope when n is in it (the same expressions). */
static inline void closed_setup(sim *m, replica *p, const sim__llm_batch *b, double dt1, double tc,
                                double tm)
{
    uint32_t nd = b->decode_seqs;
    double sc, sm;
    if (nd < m->n_slope) {
        sc = m->slope[2 * nd];
        sm = m->slope[2 * nd + 1];
    } else {
        slope_of(&m->c->iter.roof, nd, &sc, &sm);
    }
    double hi = tc, shi = sc, lo = tm, slo = sm;
    if (!(tc > tm)) {
        hi = tm, shi = sm, lo = tc, slo = sc;
    }
    p->ca1 = dt1;
    p->cb1 = shi;
    p->cJ = INFINITY;
    p->cSJ = 0.0;
    if (slo > shi) { /* the lower line overtakes after x more iterations */
        double x = floor((hi - lo) / (slo - shi)) + 2.0;
        if (x < 9.0e15) {
            p->cJ = x;
            p->cSJ = closed_sum(p, x - 1.0);
            /* iteration cJ's time on the other line: the same terms */
            p->ca2 = dt1 - hi + (lo + slo * (x - 1.0));
            p->cb2 = slo;
        }
    }
}

/* Begin a closed stretch at t (see stretch_begin). */
__attribute__((always_inline)) static inline void
closed_begin(sim *m, replica *p, const sim__llm_batch *b, double t, double dt, double tc, double tm)
{
    uint32_t bt = m->c->block_tokens;
    uint64_t room = fh_min(p) - p->clock;
    uint64_t k = room < UINT32_MAX ? room : UINT32_MAX;
    p->stretch = 1;
    p->closed = 1;
    p->ph0 = hist_idx(m, p->clock + 1);
    p->sb = *b;
    p->busy = 1;
    p->t_start = t;
    closed_setup(m, p, b, dt, tc, tm);
    /* the blocks: iterations 2..k take at most ceil((k - 1) / bt) each;
     * when that could pass the free ones, stop before the first that does */
    uint64_t per = k < 2 ? 0 : m->bt_pow2 ? (k - 2 + bt) >> m->bt_shift : (k - 2 + bt) / bt;
    if (k > 1 && (uint64_t)p->n_dec * per > p->free_blocks) {
        uint64_t cum = 0;
        uint32_t ph = p->ph0;
        for (uint64_t j = 2; j <= k; j++) {
            uint64_t a = p->hist[ph];
            if (cum + a > p->free_blocks) {
                k = j - 1;
                break;
            }
            cum += a;
            ph = ph ? ph - 1 : bt - 1;
        }
    }
    p->steps = (uint32_t)k;
    p->t_end = closed_end_of(p, p->steps);
}

/* A request arrived at t at replica r: the closed stretch ends with the
 * first iteration that ends at or after t. */
/* The first iteration of p's closed stretch that ends at or after t (its
 * last, steps, when none does). */
static uint32_t closed_first_at(const replica *p, double t)
{
    uint32_t n = p->steps;
    double d = t - p->t_start, q;
    if (d <= p->cSJ || !(p->cJ < INFINITY))
        q = series_root(p->ca1, p->cb1, d);
    else
        q = p->cJ - 1.0 + series_root(p->ca2, p->cb2, d - p->cSJ);
    q = ceil(q);
    uint32_t k = q < 1.0 ? 1u : q >= (double)n ? n : (uint32_t)q;
    while (k > 1 && closed_end_of(p, k - 1) >= t)
        k--;
    while (k < n && closed_end_of(p, k) < t)
        k++;
    return k;
}

static void closed_cut(sim *m, uint32_t r, double t)
{
    replica *p = &m->rep[r];
    if (t <= p->pf_t) { /* before its prefill iteration's end: no decode yet */
        p->free_blocks += p->pf_need;
        p->dec_now = 0;
        p->stretch = p->closed = 0;
        p->steps = 1;
        p->t_end = p->pf_t;
        p->pf_t = -INFINITY;
        rep_push(m, r, p->t_end);
        return;
    }
    uint32_t n = p->steps, k = closed_first_at(p, t);
    if (k == n)
        return;
    p->steps = k;
    p->t_end = closed_end_of(p, k);
    rep_push(m, r, p->t_end);
}

/* The closed stretch of p ends at p->t_end: its blocks, totals and series.
 * Iteration j uses the blocks in use at its start, U + cum(j) (cum(j): taken
 * by iterations 2..j). */
static int closed_end_series(sim *m, replica *p);

__attribute__((always_inline)) static inline int closed_end(sim *m, replica *p)
{
    const sim__llm_cfg *c = m->c;
    if (!c->no_series)
        return closed_end_series(m, p);
    /* only the blocks: iterations 2..n read the phases from ph0 down, each
     * whole cycle of bt phases all of D (n_dec) */
    uint32_t bt = c->block_tokens, n = p->steps, ph = p->ph0;
    uint32_t cycles = m->bt_pow2 ? (n - 1) >> m->bt_shift : (n - 1) / bt;
    uint32_t rest = m->bt_pow2 ? (n - 1) & m->bt_mask : (n - 1) % bt;
    uint64_t cum = (uint64_t)cycles * p->n_dec;
    if (m->bt_pow2 && bt <= 64) {
        /* the phases ph, ph - 1, ... (rest of them, mod bt) are those j
         * with (ph - j) mod bt < rest: one pass of fixed length over the
         * histogram with a mask, no branch to mispredict and vector adds
         * (the sum fits: at most n_dec <= 65536 per phase, 64 phases) */
        const uint32_t *h = p->hist;
        uint32_t s = 0, mask = m->bt_mask;
        for (uint32_t j = 0; j < bt; j++)
            s += h[j] & (0u - (uint32_t)(((ph - j) & mask) < rest));
        cum += s;
    } else {
        for (uint32_t j = rest; j > 0; j--) {
            cum += p->hist[ph];
            ph = ph ? ph - 1 : bt - 1;
        }
    }
    p->iterations += n;
    p->busy_s += p->t_end - p->t_start;
    p->free_blocks -= cum;
    p->stretch = p->closed = 0;
    return TM_OK;
}

/* closed_end with series. */
static int closed_end_series(sim *m, replica *p)
{
    const sim__llm_cfg *c = m->c;
    uint32_t bt = c->block_tokens, n = p->steps, ph = p->ph0;
    double kvb = (double)c->kv_blocks, u = (double)(c->kv_blocks - p->free_blocks);
    double seqs = (double)p->sb.seqs, t = p->t_start, span = p->t_end - p->t_start;
    double k0_end;
    size_t k0 = bin_at(m, t, &k0_end);
    int one_bin = p->t_end < k0_end;
    uint64_t cum = 0;
    int rc = TM_OK;
    if (one_bin) {
        /* sum of cum(j) x the time of iteration j, one piece at a time:
         * a x sum cum(j) + b x sum cum(j) (j - base) */
        double acc = 0.0;
        /* the integer sums cannot wrap: cum <= kv_blocks, j - base < n */
        int exact = (double)c->kv_blocks * (double)n * (double)n < 1e19;
        for (uint32_t j = 2, piece = 0; piece < 2 && j <= n; piece++) {
            double a = piece ? p->ca2 : p->ca1, b = piece ? p->cb2 : p->cb1;
            uint32_t base = piece ? j : 1, hi = n;
            if (!piece && p->cJ <= (double)n)
                hi = (uint32_t)p->cJ - 1;
            uint64_t s0 = 0, s1 = 0;
            double s1d = 0.0;
            for (; j <= hi; j++) { /* iteration 1 takes no block here */
                cum += p->hist[ph];
                ph = ph ? ph - 1 : bt - 1;
                s0 += cum;
                if (exact)
                    s1 += cum * (j - base);
                else
                    s1d += (double)cum * (double)(j - base);
            }
            acc += a * (double)s0 + b * (exact ? (double)s1 : s1d);
        }
        if ((rc = series_bin(m, p, k0)))
            return rc;
        p->s_batch[k0] += seqs * span;
        p->s_kv[k0] += (u * span + acc) / kvb;
    } else { /* rare: the stretch crosses a bin edge; iteration by iteration */
        for (uint32_t j = 1; j <= n; j++) {
            if (j > 1) {
                cum += p->hist[ph];
                ph = ph ? ph - 1 : bt - 1;
            }
            double e = closed_end_of(p, j);
            if ((rc = series_add(m, p, t, e - t, seqs, (u + (double)cum) / kvb, 0.0)))
                return rc;
            t = e;
        }
    }
    p->iterations += n;
    p->busy_s += span;
    p->free_blocks -= cum;
    p->stretch = p->closed = 0;
    return TM_OK;
}

/* Begin a stretch at t whose first iteration (batch b, dt; with the
 * roofline, tc and tm are its parts) decode_all built. */
static int stretch_begin(sim *m, replica *p, const sim__llm_batch *b, double t, double dt,
                         double tc, double tm)
{
    const sim__llm_cfg *c = m->c;
    if (!c->iter.profile && dt > 1e-6) {
        closed_begin(m, p, b, t, dt, tc, tm);
        return TM_OK;
    }
    uint64_t room = fh_min(p) - p->clock;
    p->stretch = 1;
    p->room = room < UINT32_MAX ? (uint32_t)room : UINT32_MAX;
    p->steps = 1;
    p->phase = hist_idx(m, p->clock + 1);
    p->cum_alloc = 0;
    p->sb = *b;
    p->busy = 1;
    p->t_start = t;
    p->t_end = t + dt;
    stretch_bin(m, p, t);
    double used = (double)(c->kv_blocks - p->free_blocks) / (double)c->kv_blocks;
    int rc = stretch_series(m, p, t, dt, used);
    if (rc)
        return rc;
    return stretch_walk(m, p);
}

/* The stretch of p ends at p->t_end: its totals, blocks and series. */
static int stretch_end(sim *m, replica *p)
{
    if (p->closed)
        return closed_end(m, p);
    int rc = stretch_commit(m, p, p->n_w);
    if (rc)
        return rc;
    p->iterations += p->steps;
    p->busy_s += p->t_end - p->t_start;
    p->free_blocks -= p->cum_alloc;
    p->cum_alloc = 0;
    p->stretch = p->more = 0;
    return stretch_flush(m, p);
}

/* A vLLM prefill iteration of p ending at te, after which (in a fleet run
 * without series, routed by outstanding requests or in turn, with the
 * roofline) nothing would happen before te but the prefills' end and the
 * start of a decode stretch unless a request arrives at p: both are done
 * now, so the prefill iteration and the stretch are one event. The prefills
 * end as finish_iteration ends them (none of the sequences finishes there,
 * or the routing would see it); the stretch begins at te as start would
 * begin it (nothing waits; its first iteration's blocks fit, or the event
 * stays at te, where start runs decode_slow). A request arriving at p by
 * te takes the stretch back (closed_cut): the event is at te again and
 * start runs there as before. Only before the piece's end t_cut, so that
 * a resize between pieces finds what it found before. The same events,
 * times and outcomes, one event fewer. */
static int fuse_prefill(sim *m, replica *p, double te)
{
    const sim__llm_cfg *c = m->c;
    if (!c->no_series || c->iter.profile || c->policy != SIM__LLM_VLLM ||
        c->route == SIM__LLM_ROUTE_CENTRAL || p->wait.n || p->dec_now || !m->chain ||
        !(te < m->t_cut))
        return TM_OK;
    for (size_t k = 0; k < p->n_batch; k++) {
        const seq *q = &m->s[p->batch[k]];
        if (q->pre_done + q->sched < q->pre_target || q->gen + 1 >= q->output)
            return TM_OK;
    }
    for (size_t k = 0; k < p->n_batch; k++) { /* finish_iteration's, at te */
        uint32_t i = p->batch[k];
        seq *q = &m->s[i];
        q->pre_done += q->sched;
        q->kv += q->sched;
        list_remove(m, &p->pre, i, 1);
        q->gen++;
        if (isnan(q->t_first))
            q->t_first = te;
        int rc = dec_join(m, p, i);
        if (rc)
            return rc;
    }
    p->n_batch = 0;
    /* start's at te: schedule (nothing waits: decode_all) and stretch_begin */
    uint64_t need = p->hist[hist_idx(m, p->clock)];
    if (need > p->free_blocks)
        return TM_OK;
    sim__llm_batch b;
    memset(&b, 0, sizeof b);
    int rc = decode_all(m, p, &b);
    if (rc)
        return rc;
    b.seqs = p->dec_now;
    double tc, tm;
    double dt = sim__llm_roof_parts(&c->iter.roof, &b, &tc, &tm);
    if (!(dt > 1e-6)) {
        p->free_blocks += need;
        p->dec_now = 0;
        return TM_OK;
    }
    closed_begin(m, p, &b, te, dt, tc, tm);
    p->pf_t = te;
    p->pf_need = need;
    return TM_OK;
}

static int start(sim *m, uint32_t r, double t)
{
    replica *p = &m->rep[r];
    sim__llm_batch b;
    p->pf_t = -INFINITY;
    int rc = schedule(m, p, &b);
    if (rc)
        return rc;
    if (b.seqs == 0) {
        p->busy = 0;
        rep_unpush(m, r);
        return TM_OK;
    }
    /* the roofline inline (sim__llm_iter_time's own, to the bit) */
    double tc = 0.0, tm = 0.0;
    double dt = m->c->iter.profile ? sim__llm_iter_time(&m->c->iter, &b)
                                   : sim__llm_roof_parts(&m->c->iter.roof, &b, &tc, &tm);
    if (b.prefill_tokens == 0 && p->wait.n == 0) {
        if ((rc = stretch_begin(m, p, &b, t, dt, tc, tm)))
            return rc;
        rep_push(m, r, p->t_end);
        return TM_OK;
    }
    p->steps = 1;
    p->busy = 1;
    p->t_start = t;
    p->t_end = t + dt;
    p->iterations += 1;
    p->busy_s += dt;
    if (!m->c->no_series) {
        double used = (double)(m->c->kv_blocks - p->free_blocks) / (double)m->c->kv_blocks;
        if ((rc = series_add(m, p, t, dt, (double)b.seqs, used, (double)p->wait.n)))
            return rc;
    } else if (b.prefill_tokens && (rc = fuse_prefill(m, p, p->t_end))) {
        return rc;
    }
    rep_push(m, r, p->t_end);
    return TM_OK;
}

/* A request waiting in the central queue goes to replica r while it has room. */
static int central_pull(sim *m, uint32_t r)
{
    replica *p = &m->rep[r];
    while (m->central.n && m->outst[r] < m->c->max_batch) {
        uint32_t i = dq_front(&m->central);
        dq_pop_front(&m->central);
        set_replica(m, m->s[i].req, (int32_t)r);
        outst_add(m, r, 1);
        if (dq_push_back(&p->wait, i))
            return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "queue");
    }
    return TM_OK;
}

/* Sequence i (written out, out of D) has its last token at t. */
__attribute__((always_inline)) static inline void seq_done(sim *m, replica *p, uint32_t i, double t,
                                                           sim__llm_result *res)
{
    seq *q = &m->s[i];
    list_remove(m, &p->run, i, 0);
    p->n_run--;
    q->state = ST_OUT;
    p->free_blocks += q->blocks;
    q->blocks = 0;
    outst_add(m, (uint32_t)(p - m->rep), -1);
    uint32_t j = q->req;
    double ta = q->t_arr;
    double ttft = q->t_first - ta, e2e = t - ta;
    double tpot = q->output > 1 ? (t - q->t_first) / (q->output - 1) : NAN;
    if (res->ttft_s) {
        res->ttft_s[j] = ttft;
        res->e2e_s[j] = e2e;
        res->tpot_s[j] = tpot;
    } else { /* counts_only: the caller's rule (llm_int.h) */
        const sim__llm_cfg *c = m->c;
        double lat = c->count_e2e ? e2e : ttft;
        if (lat <= c->count_slo_s && !(tpot > c->slo_tpot_s))
            res->n_met++;
        else
            res->n_late++;
        res->sum_ttft_s += ttft;
        res->sum_e2e_s += e2e;
    }
    res->t_end_s = t > res->t_end_s ? t : res->t_end_s;
    slot_free(m, i);
}

static int finish_iteration(sim *m, uint32_t r, double t, sim__llm_result *res)
{
    replica *p = &m->rep[r];
    int any_done = 0, rc;
    if (p->stretch && (rc = stretch_end(m, p)))
        return rc;
    if (p->dec_now) {
        p->clock += p->steps;
        p->dec_now = 0;
        while (fh_count(p) && fh_min(p) <= p->clock) {
            uint32_t i = fh_pop(p);
            seq *q = &m->s[i];
            dec_leave(m, p, q); /* reads off_kv, which dec_write replaces */
            dec_write(m, p, q);
            seq_done(m, p, i, t, res);
            any_done = 1;
        }
    }
    for (size_t k = 0; k < p->n_batch; k++) {
        uint32_t i = p->batch[k];
        seq *q = &m->s[i];
        q->pre_done += q->sched;
        q->kv += q->sched;
        if (q->pre_done < q->pre_target)
            continue;
        list_remove(m, &p->pre, i, 1);
        q->gen++;
        if (isnan(q->t_first))
            q->t_first = t;
        if (q->gen >= q->output) {
            seq_done(m, p, i, t, res);
            any_done = 1;
        } else if ((rc = dec_join(m, p, i))) {
            return rc;
        }
    }
    p->n_batch = 0;
    if (any_done && m->c->route == SIM__LLM_ROUTE_CENTRAL)
        return central_pull(m, r);
    return TM_OK;
}

static uint32_t route(sim *m)
{
    const sim__llm_cfg *c = m->c;
    if (c->route == SIM__LLM_ROUTE_RR) {
        uint32_t r = m->rr;
        m->rr = (m->rr + 1) % c->replicas;
        return r;
    }
    /* the fewest outstanding, the lowest index on a tie */
    return m->rt_mask ? (uint32_t)__builtin_ctzll(m->rt_bits) : m->rt[1];
}

/* Slot i joins replica r's queue at t: a replica in a decode stretch has
 * it cut back at the first iteration end after t (so the request is
 * scheduled there), an idle one starts; a replica inside a prefill or
 * single iteration schedules it when that ends. */
static int enqueue(sim *m, uint32_t r, uint32_t i, double t)
{
    replica *p = &m->rep[r];
    outst_add(m, r, 1);
    if (dq_push_back(&p->wait, i))
        return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "queue");
    if (p->busy)
        return !p->stretch ? TM_OK
               : p->closed ? (closed_cut(m, r, t), TM_OK)
                           : stretch_cut(m, r, t);
    return start(m, r, t);
}

/* Request j arrives at t. */
static int arrive(sim *m, uint32_t j, double t)
{
    const sim__llm_cfg *c = m->c;
    uint32_t r, i;
    if (c->route == SIM__LLM_ROUTE_CENTRAL) {
        r = route(m);
        if (m->outst[r] >= c->max_batch) {
            if (c->max_queue && m->central.n >= c->max_queue) {
                set_replica(m, j, -1);
                return TM_OK;
            }
            if ((i = slot_new(m, j)) == NIL || dq_push_back(&m->central, i))
                return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "queue");
            return TM_OK;
        }
    } else {
        r = route(m);
        if (c->max_queue && m->rep[r].wait.n >= c->max_queue) {
            set_replica(m, j, -1);
            return TM_OK;
        }
    }
    if ((i = slot_new(m, j)) == NIL)
        return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "requests in flight");
    set_replica(m, j, (int32_t)r);
    return enqueue(m, r, i, t);
}

static int cfg_check(const sim__llm_cfg *c, tm_diag *d)
{
#define BAD(f, what, v)                                                                            \
    tm_diag_set(d, TM_ERR_INVAL, "llm." f, "expected %s, got %g", what, (double)(v))
    if (c->replicas < 1 || c->replicas > SIM__LLM_REPLICAS_MAX)
        return BAD("replicas", "1..4096", c->replicas);
    if (c->kv_blocks < 1)
        return BAD("kv_blocks", ">= 1", c->kv_blocks);
    if (c->block_tokens < 1 || c->block_tokens > 65536)
        return BAD("block_tokens", "1..65536", c->block_tokens);
    if (c->policy != SIM__LLM_VLLM && c->policy != SIM__LLM_SARATHI)
        return BAD("policy", "vllm or sarathi", c->policy);
    if (c->route > SIM__LLM_ROUTE_CENTRAL)
        return BAD("route", "least, rr or central", c->route);
    if (c->max_batch < 1 || c->max_batch > 65536)
        return BAD("max_batch", "1..65536", c->max_batch);
    if (c->max_tokens < 1)
        return BAD("max_tokens", ">= 1", c->max_tokens);
    if (c->chunk_tokens < 1)
        return BAD("chunk_tokens", ">= 1", c->chunk_tokens);
    if (!(c->watermark >= 0 && c->watermark < 1))
        return BAD("watermark", "[0, 1)", c->watermark);
    if (!(c->slo_ttft_s > 0 && isfinite(c->slo_ttft_s)))
        return BAD("slo_ttft_s", "> 0", c->slo_ttft_s);
    if (!(c->slo_tpot_s > 0 && isfinite(c->slo_tpot_s)))
        return BAD("slo_tpot_s", "> 0", c->slo_tpot_s);
    if (!(c->api_in_usd_per_mtok >= 0 && isfinite(c->api_in_usd_per_mtok)))
        return BAD("api_in_usd_per_mtok", ">= 0", c->api_in_usd_per_mtok);
    if (!(c->api_out_usd_per_mtok >= 0 && isfinite(c->api_out_usd_per_mtok)))
        return BAD("api_out_usd_per_mtok", ">= 0", c->api_out_usd_per_mtok);
    if (!(c->warmup_s >= 0 && isfinite(c->warmup_s)))
        return BAD("warmup_s", ">= 0", c->warmup_s);
    if (!(c->bin_s > 0 && isfinite(c->bin_s)))
        return BAD("bin_s", "> 0", c->bin_s);
#undef BAD
    return TM_OK;
}

void sim__llm_result_fini(sim__llm_result *res)
{
    if (!res)
        return;
    free(res->ttft_s);
    free(res->tpot_s);
    free(res->e2e_s);
    free(res->replica);
    free(res->per_replica);
    free(res->batch_mean);
    free(res->kv_use);
    free(res->queue_mean);
    memset(res, 0, sizeof *res);
}

/* Nearest rank on sorted v[0..n). */
static double rank_q(const double *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double k = ceil(p * (double)n);
    size_t i = k < 1.0 ? 0 : (size_t)k - 1;
    return v[i < n ? i : n - 1];
}

static void pct_of(double *v, size_t n, sim__llm_pct *o)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    gsl_sort(v, 1, n);
    o->mean = n ? s / (double)n : NAN;
    o->p50 = rank_q(v, n, 0.50);
    o->p90 = rank_q(v, n, 0.90);
    o->p95 = rank_q(v, n, 0.95);
    o->p99 = rank_q(v, n, 0.99);
    o->max = n ? v[n - 1] : NAN;
}

/* Figures of the requests idx[0..n) into st (scratch: 3 arrays of n). */
static void stats_of(const sim__llm_cfg *c, const sim__llm_result *res, const sim__llm_req *reqs,
                     const uint32_t *idx, size_t n, double *a, double *b, double *e,
                     sim__llm_stats *st)
{
    size_t na = 0, nb = 0, ok_t = 0, ok_p = 0, ok_j = 0, served = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = idx[k];
        if (reqs[i].t_s < res->t0_s + c->warmup_s)
            continue;
        if (res->replica[i] == -1) {
            st->api++;
            continue;
        }
        if (res->replica[i] == -2) {
            st->dropped++;
            continue;
        }
        served++;
        st->tokens_in += reqs[i].prompt ? reqs[i].prompt : 1;
        st->tokens_out += reqs[i].output ? reqs[i].output : 1;
        a[na] = res->ttft_s[i];
        e[na++] = res->e2e_s[i];
        int okt = res->ttft_s[i] <= c->slo_ttft_s, okp = 1;
        if (!isnan(res->tpot_s[i])) {
            b[nb++] = res->tpot_s[i];
            okp = res->tpot_s[i] <= c->slo_tpot_s;
        }
        ok_t += (size_t)okt;
        ok_p += (size_t)okp;
        ok_j += (size_t)(okt && okp);
    }
    st->counted = served;
    pct_of(a, na, &st->ttft);
    pct_of(b, nb, &st->tpot);
    pct_of(e, na, &st->e2e);
    double den = (double)(served + st->dropped);
    st->att_ttft = den > 0 ? (double)ok_t / den : NAN;
    st->att_tpot = den > 0 ? (double)ok_p / den : NAN;
    st->att_joint = den > 0 ? (double)ok_j / den : NAN;
}

static void rep_init(sim *m, replica *p)
{
    memset(p, 0, sizeof *p);
    p->free_blocks = m->c->kv_blocks;
    p->run.head = p->run.tail = NIL;
    p->pre.head = p->pre.tail = NIL;
}

static void rep_free(replica *p)
{
    free(p->wait.v);
    free(p->batch);
    free(p->fh);
    free(p->fq);
    free(p->w);
    free(p->s_batch);
    free(p->s_kv);
    free(p->s_queue);
    free(p->hist);
    memset(p, 0, sizeof *p);
}

/* The winner trees over replicas 0..cc.replicas-1, rebuilt; replicas from
 * `from` on are new (no event, nothing outstanding). */
static int trees_build(sim *m, uint32_t from)
{
    uint32_t R = m->cc.replicas, P = 1, old = m->P;
    while (P < R)
        P *= 2;
    if (P > old) {
        uint32_t *ev = realloc(m->ev, 2 * (size_t)P * sizeof *ev);
        if (ev)
            m->ev = ev;
        uint32_t *rt = realloc(m->rt, 2 * (size_t)P * sizeof *rt);
        if (rt)
            m->rt = rt;
        double *tn = realloc(m->tnext, P * sizeof *tn);
        if (tn)
            m->tnext = tn;
        uint32_t *os = realloc(m->outst, P * sizeof *os);
        if (os)
            m->outst = os;
        if (!ev || !rt || !tn || !os)
            return tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "%u replicas", (unsigned)R);
    }
    m->P = P > old ? P : old; /* the arrays' size: a chain that shrinks keeps them */
    P = m->P;
    for (uint32_t r = from; r < P; r++) {
        m->tnext[r] = INFINITY;
        m->outst[r] = r < R ? 0 : UINT32_MAX;
    }
    for (uint32_t r = 0; r < P; r++)
        m->ev[P + r] = m->rt[P + r] = r;
    for (uint32_t i = P - 1; i >= 1; i--) {
        uint32_t a = m->ev[2 * i], b = m->ev[2 * i + 1];
        m->ev[i] = m->tnext[b] < m->tnext[a] ? b : a;
        a = m->rt[2 * i], b = m->rt[2 * i + 1];
        m->rt[i] = m->outst[b] < m->outst[a] ? b : a;
    }
    m->rt_mask = R <= 64 && !m->cc.trees_always;
    if (m->rt_mask)
        rt_rescan(m);
    return TM_OK;
}

/* m for cfg (checked), its outcomes written to res: replicas empty. m is
 * valid for sim_free after any return. */
static int sim_setup(sim *m, const sim__llm_cfg *cfg, sim__llm_result *res, tm_diag *diag)
{
    memset(m, 0, sizeof *m);
    m->cc = *cfg;
    m->c = &m->cc;
    m->res = res;
    m->free_s = NIL;
    m->diag = diag;
    m->wm_blocks = (uint64_t)floor(cfg->watermark * (double)cfg->kv_blocks);
    m->bt_pow2 = (cfg->block_tokens & (cfg->block_tokens - 1)) == 0;
    m->bt_mask = cfg->block_tokens - 1;
    while ((1u << m->bt_shift) < cfg->block_tokens)
        m->bt_shift++;
    m->bins_max = SIM__LLM_SERIES_MAX / cfg->replicas;
    if (!cfg->iter.profile) {
        uint32_t ns = cfg->max_batch + 1;
        if (!(m->slope = malloc(2 * (size_t)ns * sizeof *m->slope)))
            return tm_diag_set(diag, TM_ERR_NOMEM, "llm", "slopes");
        for (uint32_t n = 0; n < ns; n++)
            slope_of(&cfg->iter.roof, n, &m->slope[2 * n], &m->slope[2 * n + 1]);
        m->n_slope = ns;
    }
    m->rep = calloc(cfg->replicas, sizeof *m->rep);
    if (!m->rep)
        return tm_diag_set(diag, TM_ERR_NOMEM, "llm", "%u replicas", (unsigned)cfg->replicas);
    for (uint32_t r = 0; r < cfg->replicas; r++)
        rep_init(m, &m->rep[r]);
    return trees_build(m, 0);
}

static void sim_free(sim *m)
{
    if (m->rep)
        for (uint32_t r = 0; r < m->cc.replicas; r++)
            rep_free(&m->rep[r]);
    free(m->central.v);
    free(m->rep);
    free(m->ev);
    free(m->rt);
    free(m->tnext);
    free(m->outst);
    free(m->slope);
    free(m->s);
    m->rep = NULL;
    m->central.v = NULL;
    m->ev = m->rt = m->outst = NULL;
    m->tnext = NULL;
    m->slope = NULL;
    m->s = NULL;
}

/* Arrivals reqs[0..n) (sorted, before t_stop) and the events before t_stop:
 * the loop stops when no arrival is left and the next event is not before
 * t_stop (INFINITY: when everything has finished). */
static int sim_loop(sim *m, const sim__llm_req *reqs, size_t n, double t_stop, volatile int *stop)
{
    int rc = TM_OK;
    size_t ai = 0;
    uint64_t steps = 0;
    m->reqs = reqs;
    m->n_reqs = n;
    m->ai = 0;
    for (;;) {
        uint32_t top = m->ev[1];
        double t_top = m->tnext[top]; /* INFINITY: no replica is busy */
        if (!(ai < n || t_top < t_stop))
            break;
        if ((++steps & 4095) == 0 && stop && *stop)
            return tm_diag_set(m->diag, TM_ERR_INTERRUPTED, "llm",
                               "interrupted at %.3f s of the run",
                               t_top < INFINITY ? t_top - m->t0 : 0.0);
        if (ai < n && reqs[ai].t_s <= t_top) {
            rc = arrive(m, (uint32_t)ai, reqs[ai].t_s);
            m->ai = ++ai;
        } else {
            /* the replica's next event moves (rep_push) or start() takes
             * it out when idle */
            struct {
                double t;
                uint32_t r;
            } e = {t_top, top};
            replica *p = &m->rep[e.r];
            if (p->more && p->wait.n == 0) { /* a stretch walks on */
                if ((rc = stretch_commit(m, p, p->n_w)) == TM_OK &&
                    (rc = stretch_walk(m, p)) == TM_OK)
                    rep_push(m, e.r, p->t_end);
            } else {
                p->busy = 0;
                rc = finish_iteration(m, e.r, e.t, m->res);
                if (rc == TM_OK)
                    rc = start(m, e.r, e.t);
            }
            /* central routing: a replica idle with room takes queued requests */
            if (rc == TM_OK && m->c->route == SIM__LLM_ROUTE_CENTRAL && m->central.n)
                for (uint32_t r = 0; r < m->c->replicas && rc == TM_OK && m->central.n; r++)
                    if (!m->rep[r].busy && (rc = central_pull(m, r)) == TM_OK)
                        rc = start(m, r, e.t);
        }
        if (rc)
            return rc;
    }
    return TM_OK;
}

int sim__llm_run(const sim__llm_cfg *cfg, const sim__llm_req *reqs, size_t n, sim__llm_result *res,
                 volatile int *stop, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    int rc = cfg_check(cfg, diag);
    if (rc)
        return rc;
    if (n > UINT32_MAX - 1)
        return tm_diag_set(diag, TM_ERR_LIMIT, "llm", "%zu requests, more than 2^32 - 2", n);
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(reqs[i].t_s) && reqs[i].t_s >= 0 &&
              (i == 0 || reqs[i].t_s >= reqs[i - 1].t_s))) {
            char where[64];
            snprintf(where, sizeof where, "llm.reqs[%zu]", i);
            return tm_diag_set(diag, TM_ERR_INVAL, where,
                               "expected a finite arrival >= 0 and >= the previous one, got %g",
                               reqs[i].t_s);
        }
    sim m;
    if ((rc = sim_setup(&m, cfg, res, diag))) {
        sim_free(&m);
        return rc;
    }
    m.t0 = n ? reqs[0].t_s : 0.0;
    size_t nn = n ? n : 1;
    res->n_reqs = n;
    res->replicas = cfg->replicas;
    res->t0_s = m.t0;
    res->t_end_s = m.t0;
    res->bin_s = cfg->bin_s;
    int per_req = !(cfg->outcomes_only && cfg->counts_only);
    if (per_req) {
        res->ttft_s = malloc(nn * sizeof(double));
        res->tpot_s = malloc(nn * sizeof(double));
        res->e2e_s = malloc(nn * sizeof(double));
        res->replica = malloc(nn * sizeof(int32_t));
    }
    res->per_replica = calloc(cfg->replicas, sizeof *res->per_replica);
    if ((per_req && (!res->ttft_s || !res->tpot_s || !res->e2e_s || !res->replica)) ||
        !res->per_replica) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "llm", "%zu requests", n);
        goto out;
    }
    for (size_t i = 0; per_req && i < n; i++) {
        res->replica[i] = -3; /* not yet arrived */
        res->ttft_s[i] = res->tpot_s[i] = res->e2e_s[i] = NAN;
    }
    if ((rc = sim_loop(&m, reqs, n, INFINITY, stop)))
        goto out;
    /* figures (the outcomes were written as the requests ended) */
    if (cfg->outcomes_only) {
        for (uint32_t r = 0; r < cfg->replicas; r++) {
            sim__llm_stats *st = &res->per_replica[r];
            st->iterations = m.rep[r].iterations;
            st->busy_s = m.rep[r].busy_s;
            st->preemptions = m.rep[r].preemptions;
            res->service.iterations += st->iterations;
            res->service.busy_s += st->busy_s;
            res->service.preemptions += st->preemptions;
        }
    } else {
        uint32_t *idx = calloc(nn, sizeof *idx);
        double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b),
               *e = malloc(nn * sizeof *e);
        size_t *start_of = calloc((size_t)cfg->replicas + 1, sizeof *start_of);
        if (!idx || !a || !b || !e || !start_of) {
            free(idx), free(a), free(b), free(e), free(start_of);
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "llm", "figures of %zu requests", n);
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            idx[i] = (uint32_t)i;
        stats_of(cfg, res, reqs, idx, n, a, b, e, &res->service);
        /* group by replica (counting sort), API and dropped left out */
        for (size_t i = 0; i < n; i++)
            if (res->replica[i] >= 0)
                start_of[res->replica[i] + 1]++;
        for (uint32_t r = 0; r < cfg->replicas; r++)
            start_of[r + 1] += start_of[r];
        size_t *fill = calloc(cfg->replicas, sizeof *fill);
        if (!fill) {
            free(idx), free(a), free(b), free(e), free(start_of);
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "llm", "figures");
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            if (res->replica[i] >= 0) {
                uint32_t r = (uint32_t)res->replica[i];
                idx[start_of[r] + fill[r]++] = (uint32_t)i;
            }
        for (uint32_t r = 0; r < cfg->replicas; r++) {
            sim__llm_stats *st = &res->per_replica[r];
            stats_of(cfg, res, reqs, idx + start_of[r], start_of[r + 1] - start_of[r], a, b, e, st);
            st->iterations = m.rep[r].iterations;
            st->busy_s = m.rep[r].busy_s;
            st->preemptions = m.rep[r].preemptions;
            res->service.iterations += st->iterations;
            res->service.busy_s += st->busy_s;
            res->service.preemptions += st->preemptions;
        }
        free(fill), free(idx), free(a), free(b), free(e), free(start_of);
    }
    double span = res->t_end_s - res->t0_s;
    res->req_per_s = span > 0 ? (double)res->service.counted / span : NAN;
    res->out_tok_per_s = span > 0 ? res->service.tokens_out / span : NAN;
    for (size_t i = 0; per_req && i < n; i++)
        if (res->replica[i] == -1)
            res->api_usd +=
                ((double)(reqs[i].prompt ? reqs[i].prompt : 1) * cfg->api_in_usd_per_mtok +
                 (double)(reqs[i].output ? reqs[i].output : 1) * cfg->api_out_usd_per_mtok) /
                1e6;
    /* series: time means per bin */
    {
        size_t nb = 0;
        for (uint32_t r = 0; r < cfg->replicas; r++)
            if (m.rep[r].n_bins > nb)
                nb = m.rep[r].n_bins;
        res->n_bins = nb;
        size_t cells = (size_t)cfg->replicas * (nb ? nb : 1);
        res->batch_mean = calloc(cells, sizeof(double));
        res->kv_use = calloc(cells, sizeof(double));
        res->queue_mean = calloc(cells, sizeof(double));
        if (!res->batch_mean || !res->kv_use || !res->queue_mean) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "llm", "series of %zu cells", cells);
            goto out;
        }
        for (uint32_t r = 0; r < cfg->replicas; r++)
            for (size_t k = 0; k < m.rep[r].n_bins; k++) {
                res->batch_mean[r * nb + k] = m.rep[r].s_batch[k] / cfg->bin_s;
                res->kv_use[r * nb + k] = m.rep[r].s_kv[k] / cfg->bin_s;
                res->queue_mean[r * nb + k] = m.rep[r].s_queue[k] / cfg->bin_s;
            }
    }
out:
    sim_free(&m);
    if (rc != TM_OK)
        sim__llm_result_fini(res);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* A chain of pieces (sim__llm_state)                                         */

struct sim__llm_state {
    sim m;
    sim__llm_result res; /* counts since the last piece's end (counts_only) */
    double t;            /* the end of the last piece: where the chain is */
    /* iterations, busy seconds and preemptions of removed replicas, and the
     * totals (these included) at the last piece's end */
    double gone_iter, gone_busy;
    uint64_t gone_pre;
    double mark_iter, mark_busy;
    uint64_t mark_pre;
};

int sim__llm_state_new(sim__llm_state **out, const sim__llm_cfg *cfg, double t0, tm_diag *diag)
{
    *out = NULL;
    int rc = cfg_check(cfg, diag);
    if (rc)
        return rc;
    if (!(cfg->counts_only && cfg->outcomes_only))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.counts_only",
                           "a chain of pieces counts (counts_only and outcomes_only)");
    if (!(isfinite(t0) && t0 >= 0))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.t0", "expected a finite time >= 0, got %g", t0);
    sim__llm_state *st = calloc(1, sizeof *st);
    if (!st)
        return tm_diag_set(diag, TM_ERR_NOMEM, "llm", "state");
    if ((rc = sim_setup(&st->m, cfg, &st->res, diag))) {
        sim_free(&st->m);
        free(st);
        return rc;
    }
    st->m.chain = 1;
    st->m.t0 = st->m.t_cut = st->t = t0;
    st->res.t0_s = st->res.t_end_s = t0;
    *out = st;
    return TM_OK;
}

void sim__llm_state_free(sim__llm_state *st)
{
    if (!st)
        return;
    sim_free(&st->m);
    free(st);
}

uint64_t sim__llm_state_in_flight(const sim__llm_state *st)
{
    return st->m.live;
}

uint32_t sim__llm_state_replicas(const sim__llm_state *st)
{
    return st->m.cc.replicas;
}

/* Replica p, removed at t, is in a decode stretch: the iterations that
 * ended before t are kept (booked, the clock moved on: the tokens they made
 * are generated), the rest is lost. No sequence finishes in them (the
 * stretch's event, its first finish, is not before t). A walked stretch
 * whose first iteration ends at or after t is lost whole. */
static int stretch_stop(sim *m, replica *p, double t)
{
    int rc = TM_OK;
    uint32_t keep = 0;
    if (p->closed) {
        keep = closed_first_at(p, t) - 1;
        if (keep) {
            p->steps = keep;
            p->t_end = closed_end_of(p, keep);
            rc = closed_end(m, p);
        }
    } else if (p->w0.t < t) {
        size_t k = 0;
        while (k < p->n_w && p->w[k].t + p->w[k].dt < t)
            k++;
        const witer *x = k ? &p->w[k - 1] : &p->w0;
        p->steps -= (uint32_t)(p->n_w - k);
        p->t_end = x->t + x->dt;
        p->cum_alloc = x->alloc;
        if ((rc = stretch_commit(m, p, k)) == TM_OK)
            rc = stretch_end(m, p);
        keep = p->steps;
    }
    p->clock += keep;
    p->stretch = p->closed = p->more = 0;
    p->n_w = 0;
    return rc;
}

/* Slot i (out of any replica, not running) is routed again at t as an
 * arrival is, except that it cannot go to the API (it was accepted). */
static int reroute(sim *m, uint32_t i, double t)
{
    if (m->c->route == SIM__LLM_ROUTE_CENTRAL)
        return dq_push_back(&m->central, i) ? tm_diag_set(m->diag, TM_ERR_NOMEM, "llm", "queue")
                                            : TM_OK;
    return enqueue(m, route(m), i, t);
}

int sim__llm_state_resize(sim__llm_state *st, uint32_t replicas, tm_diag *diag)
{
    sim *m = &st->m;
    m->diag = diag;
    uint32_t R = m->cc.replicas;
    if (replicas < 1 || replicas > SIM__LLM_REPLICAS_MAX)
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.replicas", "expected 1..4096, got %u",
                           (unsigned)replicas);
    if (replicas == R)
        return TM_OK;
    if (replicas > R) { /* new replicas start empty */
        replica *a = realloc(m->rep, (size_t)replicas * sizeof *a);
        if (!a)
            return tm_diag_set(diag, TM_ERR_NOMEM, "llm", "%u replicas", (unsigned)replicas);
        m->rep = a;
        m->cc.replicas = replicas;
        for (uint32_t r = R; r < replicas; r++)
            rep_init(m, &m->rep[r]);
        m->bins_max = SIM__LLM_SERIES_MAX / replicas;
        int rc = trees_build(m, R);
        /* central routing: they take the queue's waiting requests now */
        for (uint32_t r = R; r < replicas && rc == TM_OK && m->central.n; r++)
            if ((rc = central_pull(m, r)) == TM_OK)
                rc = start(m, r, st->t);
        return rc;
    }
    /* the last replicas go: what they run (the iteration or stretch in
     * progress abandoned: its tokens are lost with the KV cache) is
     * preempted by recomputation, and with what waits there is routed again,
     * replica by replica: its running sequences, then its waiting requests,
     * each in its order */
    uint32_t *back = NULL;
    size_t nb = 0, cap = 0;
    int rc = TM_OK;
    for (uint32_t r = replicas; r < R && rc == TM_OK; r++) {
        replica *p = &m->rep[r];
        if (p->busy && p->stretch && (rc = stretch_stop(m, p, st->t)))
            break;
        for (uint32_t i = p->run.head; i != NIL; i = m->s[i].rnext) {
            seq *q = &m->s[i];
            if (q->state == ST_DEC)
                dec_write(m, p, q);
            q->state = ST_OUT;
            q->blocks = q->kv = 0;
            q->pre_done = 0;
            q->sched = 0;
            q->pre_target = q->prompt + q->gen;
            p->preemptions++;
        }
        size_t more = p->n_run + p->wait.n;
        if (nb + more > cap) {
            size_t nc = cap ? 2 * cap : 64;
            while (nc < nb + more)
                nc *= 2;
            uint32_t *b = realloc(back, nc * sizeof *b);
            if (!b) {
                free(back);
                return tm_diag_set(diag, TM_ERR_NOMEM, "llm", "requests handed back");
            }
            back = b;
            cap = nc;
        }
        for (uint32_t i = p->run.head; i != NIL; i = m->s[i].rnext)
            back[nb++] = i;
        for (size_t k = 0; k < p->wait.n; k++)
            back[nb++] = p->wait.v[(p->wait.head + k) & (p->wait.cap - 1)];
        st->gone_iter += p->iterations;
        st->gone_busy += p->busy_s;
        st->gone_pre += p->preemptions;
        rep_free(p);
    }
    if (rc) {
        free(back);
        return rc;
    }
    m->cc.replicas = replicas;
    m->rr %= replicas;
    m->bins_max = SIM__LLM_SERIES_MAX / replicas;
    rc = trees_build(m, replicas);
    for (size_t k = 0; k < nb && rc == TM_OK; k++)
        rc = reroute(m, back[k], st->t);
    if (rc == TM_OK && m->c->route == SIM__LLM_ROUTE_CENTRAL)
        for (uint32_t r = 0; r < replicas && rc == TM_OK && m->central.n; r++)
            if (!m->rep[r].busy && (rc = central_pull(m, r)) == TM_OK)
                rc = start(m, r, st->t);
    free(back);
    return rc;
}

int sim__llm_state_advance(sim__llm_state *st, const sim__llm_req *reqs, size_t n, double t1,
                           sim__llm_counts *out, volatile int *stop, tm_diag *diag)
{
    memset(out, 0, sizeof *out);
    sim *m = &st->m;
    m->diag = diag;
    if (!(t1 >= st->t))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.t1", "expected >= %.17g, got %.17g", st->t, t1);
    if (n > UINT32_MAX - 1)
        return tm_diag_set(diag, TM_ERR_LIMIT, "llm", "%zu requests, more than 2^32 - 2", n);
    for (size_t i = 0; i < n; i++)
        if (!(reqs[i].t_s >= st->t && reqs[i].t_s < t1 &&
              (i == 0 || reqs[i].t_s >= reqs[i - 1].t_s))) {
            char where[64];
            snprintf(where, sizeof where, "llm.reqs[%zu]", i);
            return tm_diag_set(diag, TM_ERR_INVAL, where,
                               "expected an arrival in [%.17g, %.17g) and >= the previous one, "
                               "got %g",
                               st->t, t1, reqs[i].t_s);
        }
    /* the series: what the last piece put after its end (bin 1) is the
     * start of this one's (bin 0) */
    for (uint32_t r = 0; r < m->cc.replicas; r++) {
        replica *p = &m->rep[r];
        int rc = p->stretch && !p->closed ? stretch_flush(m, p) : TM_OK;
        if (rc)
            return rc;
        if (p->n_bins > 1) {
            p->s_batch[0] = p->s_batch[1];
            p->s_kv[0] = p->s_kv[1];
            p->s_queue[0] = p->s_queue[1];
            p->s_batch[1] = p->s_kv[1] = p->s_queue[1] = 0;
        } else if (p->n_bins == 1) {
            p->s_batch[0] = p->s_kv[0] = p->s_queue[0] = 0;
        }
        p->n_bins = p->n_bins ? 1 : 0;
    }
    m->t0 = st->t;
    m->t_cut = t1;
    for (uint32_t r = 0; r < m->cc.replicas; r++)
        if (m->rep[r].stretch && !m->rep[r].closed)
            stretch_bin(m, &m->rep[r], st->t);
    int rc = sim_loop(m, reqs, n, t1, stop);
    if (rc)
        return rc;
    sim__llm_result *res = &st->res;
    out->met = res->n_met;
    out->late = res->n_late;
    out->api = res->service.api;
    out->dropped = res->service.dropped;
    out->api_usd = res->api_usd;
    out->sum_ttft_s = res->sum_ttft_s;
    out->sum_e2e_s = res->sum_e2e_s;
    res->n_met = res->n_late = res->service.api = res->service.dropped = 0;
    res->api_usd = res->sum_ttft_s = res->sum_e2e_s = 0;
    double it = st->gone_iter, busy = st->gone_busy;
    uint64_t pre = st->gone_pre;
    double len = t1 - st->t;
    for (uint32_t r = 0; r < m->cc.replicas; r++) {
        const replica *p = &m->rep[r];
        it += p->iterations;
        busy += p->busy_s;
        pre += p->preemptions;
        if (p->n_bins && len > 0 && isfinite(len)) {
            out->queue_sum += p->s_queue[0] / len;
            out->kv_sum += p->s_kv[0] / len;
        }
    }
    out->iterations = it - st->mark_iter;
    out->busy_s = busy - st->mark_busy;
    out->preemptions = pre - st->mark_pre;
    st->mark_iter = it;
    st->mark_busy = busy;
    st->mark_pre = pre;
    out->in_flight = m->live;
    st->t = t1;
    return TM_OK;
}
