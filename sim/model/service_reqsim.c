/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_reqsim.c — the request-level simulation of a service's ready
 * replicas, which validates the queueing model of service_queue.c against
 * individual requests (Poisson or a trace's; service_int.h has the contract).
 *
 * How it works: one binary min-heap of server free times per subpool; FCFS on
 * n servers means each request starts at max(arrival, earliest free time) on
 * the server at the heap's top, whose free time then grows by the service
 * time: O(log n) per request. Requests are routed to subpools in proportion
 * to capacity. Latencies of the counted requests are kept and sorted once for
 * nearest-rank quantiles.
 *
 * sim__svc_interval_request is the other request-level path: the accounting of
 * an interval of a fleet run (a service with "mode": "request") by the LLM
 * serving simulator (llm_sim.c) instead of the M/M/n model.
 */
#include "model/service_int.h"

#include "model/llm_int.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>

/* Restore the min-heap h[0..n) after h[0] grew: O(log n). */
static void heap_sift_down(double *h, uint32_t n)
{
    uint32_t i = 0;
    double v = h[0];
    for (;;) {
        uint64_t l = 2 * (uint64_t)i + 1;
        if (l >= n)
            break;
        uint64_t m = l;
        if (l + 1 < n && h[l + 1] < h[l])
            m = l + 1;
        if (!(h[m] < v))
            break;
        h[i] = h[m];
        i = (uint32_t)m;
    }
    h[i] = v;
}

static int push_lat(double **v, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 4096;
        double *p = realloc(*v, nc * sizeof *p);
        if (!p)
            return TM_ERR_NOMEM;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = x;
    return TM_OK;
}

/* Nearest rank on sorted v[0..n): the smallest x with >= ceil(p n) values <= x. */
static double rank_quantile(const double *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double k = ceil(p * (double)n);
    size_t i = k < 1.0 ? 0 : (size_t)k - 1;
    return v[i < n ? i : n - 1];
}

int sim__svc_reqsim_run(const sim__svc_pool *pool, const sim__svc_reqsim_opts *opts,
                        sim__svc_reqsim_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    const sim__svc_cfg *cfg = pool->cfg;
    int rc = TM_OK;
    double *heap = NULL, *lat = NULL;
    size_t n_lat = 0, cap_lat = 0;
    if (pool->n_sub == 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "no ready replicas");
    if (opts->t1_us < opts->t0_us || opts->warmup_us < 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim",
                           "expected t0 <= t1 and warm-up >= 0, got [%lld, %lld) and %lld us",
                           (long long)opts->t0_us, (long long)opts->t1_us,
                           (long long)opts->warmup_us);
    if (opts->service != SIM__SVC_SERVICE_EXP && opts->service != SIM__SVC_SERVICE_TOKENS)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "unknown service distribution %d",
                           (int)opts->service);
    int need_rng = !opts->reqs || opts->service == SIM__SVC_SERVICE_EXP || pool->n_sub > 1;
    if (need_rng && !opts->r)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "a random generator is needed");
    if (opts->n_reqs && !opts->reqs)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.reqsim", "n_reqs without reqs");

    uint64_t servers = 0;
    uint64_t off[PLACE_MAX_TYPES + 1];
    double cum[PLACE_MAX_TYPES];
    double acc = 0.0;
    for (size_t i = 0; i < pool->n_sub; i++) {
        off[i] = servers;
        servers += pool->sub[i].servers;
        acc += pool->sub[i].weight;
        cum[i] = acc;
    }
    off[pool->n_sub] = servers;
    if (servers > SIM__SVC_REQSIM_SERVERS_MAX)
        return tm_diag_set(diag, TM_ERR_LIMIT, "service.reqsim",
                           "%llu servers, more than the request-level limit %u",
                           (unsigned long long)servers, (unsigned)SIM__SVC_REQSIM_SERVERS_MAX);
    heap = malloc((size_t)servers * sizeof *heap);
    if (!heap) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "service.reqsim", "%llu servers",
                         (unsigned long long)servers);
        goto out;
    }
    for (uint64_t i = 0; i < servers; i++)
        heap[i] = -INFINITY;

    double t0 = (double)opts->t0_us / (double)SIM_US_PER_S;
    double t1 = (double)opts->t1_us / (double)SIM_US_PER_S;
    double tc = (double)(opts->t0_us + opts->warmup_us) / (double)SIM_US_PER_S;
    size_t max_req = opts->max_requests ? opts->max_requests : SIM__SVC_REQSIM_MAX_DEFAULT;
    double wmean = pool->work_per_req;
    trace_arrival arr;
    if (!opts->reqs) {
        rc = trace_arrival_init(&arr, &cfg->load, t0, diag);
        if (rc != TM_OK)
            goto out;
    }
    double sum_wait = 0.0, sum_resp = 0.0, sum_lat = 0.0, busy = 0.0, prev_t = -INFINITY;
    size_t ri = 0;
    for (;;) {
        double t, tin, tout;
        if (opts->reqs) {
            if (ri >= opts->n_reqs)
                break;
            const sim__svc_request *q = &opts->reqs[ri];
            if (!(isfinite(q->t_s) && q->t_s >= prev_t && isfinite(q->tokens_in) &&
                  q->tokens_in >= 0.0 && isfinite(q->tokens_out) && q->tokens_out >= 0.0)) {
                char where[64];
                snprintf(where, sizeof where, "service.reqsim.reqs[%zu]", ri);
                rc = tm_diag_set(diag, TM_ERR_INVAL, where,
                                 "expected a finite time >= the previous one and token counts "
                                 ">= 0, got t %.17g, in %.17g, out %.17g",
                                 q->t_s, q->tokens_in, q->tokens_out);
                goto out;
            }
            prev_t = q->t_s;
            ri++;
            t = q->t_s;
            tin = q->tokens_in;
            tout = q->tokens_out;
            if (t < t0)
                continue;
        } else {
            t = trace_arrival_next(&arr, opts->r);
            tin = cfg->tokens_in_per_req;
            tout = cfg->tokens_out_per_req;
        }
        if (!(t < t1))
            break;
        if (res->arrived >= max_req) {
            rc = tm_diag_set(diag, TM_ERR_LIMIT, "service.reqsim",
                             "more than %zu requests in the window", max_req);
            goto out;
        }
        res->arrived++;
        size_t k = 0;
        if (pool->n_sub > 1) {
            double u = gsl_rng_uniform(opts->r);
            while (k + 1 < pool->n_sub && !(u < cum[k]))
                k++;
        }
        const sim__svc_sub *sp = &pool->sub[k];
        double s;
        if (opts->service == SIM__SVC_SERVICE_EXP) {
            s = gsl_ran_exponential(opts->r, 1.0 / sp->mu);
        } else {
            double wi = tout + cfg->prefill_weight * tin;
            s = wi / (sp->mu * wmean); /* concurrency x W_i / tokens_per_s */
        }
        double *h = heap + off[k];
        double start = h[0] > t ? h[0] : t;
        h[0] = start + s;
        heap_sift_down(h, sp->servers);
        if (t < tc)
            continue;
        double wait = start - t, resp = wait + s;
        double l = cfg->slo_kind == SIM__SVC_SLO_WAIT ? wait : resp;
        res->counted++;
        sum_wait += wait;
        sum_resp += resp;
        sum_lat += l;
        busy += s;
        res->served.req += 1.0;
        res->served.tok_in += tin;
        res->served.tok_out += tout;
        if (l <= cfg->slo_s) {
            res->slo_ok++;
            res->served_slo_ok.req += 1.0;
            res->served_slo_ok.tok_in += tin;
            res->served_slo_ok.tok_out += tout;
        }
        rc = push_lat(&lat, &n_lat, &cap_lat, l);
        if (rc != TM_OK) {
            rc = tm_diag_set(diag, rc, "service.reqsim", "%zu latencies", n_lat);
            goto out;
        }
    }
    if (res->counted) {
        double n = (double)res->counted;
        res->attainment = (double)res->slo_ok / n;
        res->wait_mean_s = sum_wait / n;
        res->response_mean_s = sum_resp / n;
        res->lat_mean_s = sum_lat / n;
        gsl_sort(lat, 1, n_lat);
        res->lat_p50_s = rank_quantile(lat, n_lat, 0.50);
        res->lat_p95_s = rank_quantile(lat, n_lat, 0.95);
        res->lat_p99_s = rank_quantile(lat, n_lat, 0.99);
    } else {
        res->attainment = res->wait_mean_s = res->response_mean_s = NAN;
        res->lat_mean_s = res->lat_p50_s = res->lat_p95_s = res->lat_p99_s = NAN;
    }
    res->busy_frac = t1 > tc ? busy / ((double)servers * (t1 - tc)) : NAN;
out:
    free(heap);
    free(lat);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Request-level accounting of an interval (a service in request mode)        */

/* SplitMix64: a well-mixed 64-bit seed from (seed, t0). */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void vol_add(sim__svc_vol *v, double req, double in, double out)
{
    v->req += req;
    v->tok_in += req * in;
    v->tok_out += req * out;
}

/* The chains of a request-mode service between the engine's accounting
 * calls: one per GPU type (a subpool's replicas), made for one
 * configuration (a specialization switches it). */
struct sim__svc_reqstate {
    const sim__svc_cfg *cfg;
    sim__llm_state *st[PLACE_MAX_TYPES];
};

/* The tokens of every request of cfg: its means rounded, at least 1. */
static void req_tokens(const sim__svc_cfg *cfg, double *in, double *out)
{
    *in = floor(cfg->tokens_in_per_req + 0.5);
    *out = floor(cfg->tokens_out_per_req + 0.5);
    if (*in < 1)
        *in = 1;
    if (*out < 1)
        *out = 1;
}

static void counts_add(sim__svc_acct *acct, const sim__svc_cfg *cfg, const sim__llm_counts *k)
{
    double in, out;
    req_tokens(cfg, &in, &out);
    vol_add(&acct->slo_ok, (double)k->met, in, out);
    vol_add(&acct->late, (double)k->late, in, out);
    vol_add(&acct->api, (double)k->api, in, out);
    vol_add(&acct->unserved, (double)k->dropped, in, out);
}

/* Chain k of rq stops: with serve, what is in flight is served to the end
 * (as if its replicas stayed) and counted; without, it is unserved (its
 * replicas are gone). */
static int chain_end(sim__svc_reqstate *rq, size_t k, int serve, sim__svc_acct *acct,
                     volatile int *stop, tm_diag *diag)
{
    int rc = TM_OK;
    if (serve) {
        sim__llm_counts cnt;
        if ((rc = sim__llm_state_advance(rq->st[k], NULL, 0, INFINITY, &cnt, stop, diag)) == TM_OK)
            counts_add(acct, rq->cfg, &cnt);
    } else {
        double in, out;
        req_tokens(rq->cfg, &in, &out);
        vol_add(&acct->unserved, (double)sim__llm_state_in_flight(rq->st[k]), in, out);
    }
    sim__llm_state_free(rq->st[k]);
    rq->st[k] = NULL;
    return rc;
}

void sim__svc_reqstate_free(sim__svc_reqstate *rq)
{
    if (!rq)
        return;
    for (size_t k = 0; k < PLACE_MAX_TYPES; k++)
        sim__llm_state_free(rq->st[k]);
    free(rq);
}

int sim__svc_request_finish(sim__svc_reqstate **rq, sim__svc_acct *acct, volatile int *stop,
                            tm_diag *diag)
{
    int rc = TM_OK;
    for (size_t k = 0; *rq && k < PLACE_MAX_TYPES && rc == TM_OK; k++)
        if ((*rq)->st[k])
            rc = chain_end(*rq, k, 1, acct, stop, diag);
    sim__svc_reqstate_free(*rq);
    *rq = NULL;
    return rc;
}

/* The arrivals of a piece, drawn in chunks (draw_chunk): a chunk holds the
 * requests of [its first arrival, t_end) by subpool, t_end being the next
 * chunk's first arrival (drawn, not yet routed) or the piece's end. The
 * draws are those of drawing the piece at once, in the same order (per
 * arrival: its gap, then its subpool when there are several). */
typedef struct chunk {
    sim__llm_req *q[PLACE_MAX_TYPES];
    size_t nq[PLACE_MAX_TYPES], cap[PLACE_MAX_TYPES];
    double t_end;
    int last;
} chunk;

typedef struct drawer {
    const sim__svc_pool *pool;
    trace_arrival arr;
    gsl_rng *r;
    double t0, t1, in, out;
    double cum[PLACE_MAX_TYPES];
    double n_all; /* arrivals drawn in [t0, t1) */
    int pending;  /* t_pending was drawn and is before t1, not routed */
    double t_pending;
} drawer;

/* Up to max arrivals into c (emptied first). */
static int draw_chunk(drawer *w, chunk *c, size_t max, tm_diag *diag)
{
    const sim__svc_pool *pool = w->pool;
    size_t got = 0;
    for (size_t k = 0; k < PLACE_MAX_TYPES; k++)
        c->nq[k] = 0;
    c->last = 0;
    for (;;) {
        double t;
        if (w->pending) {
            t = w->t_pending;
            w->pending = 0;
        } else {
            t = trace_arrival_next(&w->arr, w->r);
            if (!(t < w->t1)) {
                c->last = 1;
                c->t_end = w->t1;
                return TM_OK;
            }
            if (got == max) {
                w->pending = 1;
                w->t_pending = t;
                c->t_end = t;
                return TM_OK;
            }
        }
        w->n_all += 1;
        if (w->n_all > (double)SIM__SVC_REQUEST_MAX)
            return tm_diag_set(diag, TM_ERR_LIMIT, "service.request",
                               "more than %zu requests in one accounting interval ([%.0f, %.0f) "
                               "s) of request mode: a lower rate, or the hourly mode",
                               SIM__SVC_REQUEST_MAX, w->t0, w->t1);
        if (pool->n_sub == 0)
            continue;
        size_t k = 0;
        if (pool->n_sub > 1) {
            double u = gsl_rng_uniform(w->r);
            while (k + 1 < pool->n_sub && !(u < w->cum[k]))
                k++;
        }
        if (c->nq[k] == c->cap[k]) {
            size_t nc = c->cap[k] ? 2 * c->cap[k] : 1024;
            sim__llm_req *a = realloc(c->q[k], nc * sizeof *a);
            if (!a)
                return tm_diag_set(diag, TM_ERR_NOMEM, "service.request", "%zu requests", nc);
            c->q[k] = a;
            c->cap[k] = nc;
        }
        c->q[k][c->nq[k]++] = (sim__llm_req){t, (uint32_t)w->in, (uint32_t)w->out};
        got++;
    }
}

/* Chunks drawn by a producer thread ahead of the simulation: a ring of
 * RING chunks; the producer fills them in order, the simulation takes them
 * in order. */
#define CHUNK_REQS 8192u
#define RING       3u
typedef struct ahead {
    drawer *w;
    chunk ring[RING];
    size_t head, filled; /* the next chunk to simulate; chunks drawn, not taken */
    int done, cancel;    /* the producer drew the last chunk (or failed); stop */
    int rc;
    tm_diag diag;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} ahead;

static void *ahead_main(void *arg)
{
    ahead *a = arg;
    for (size_t i = 0;; i = (i + 1) % RING) {
        pthread_mutex_lock(&a->mu);
        while (a->filled == RING && !a->cancel)
            pthread_cond_wait(&a->cv, &a->mu);
        int cancel = a->cancel;
        pthread_mutex_unlock(&a->mu);
        if (cancel)
            return NULL;
        /* chunk i is not the simulation's: filled < RING */
        int rc = draw_chunk(a->w, &a->ring[i], CHUNK_REQS, &a->diag);
        pthread_mutex_lock(&a->mu);
        a->rc = rc;
        if (rc == TM_OK)
            a->filled++;
        if (rc != TM_OK || a->ring[i].last)
            a->done = 1;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (a->done)
            return NULL;
    }
}

/* One piece of at most an hour (sim__svc_interval_request cuts them). */
static int interval_piece(const sim__svc_pool *pool, const sim_gpu_type *types, int64_t t0_us,
                          int64_t t1_us, uint64_t seed, sim__svc_reqstate **rqp,
                          sim__svc_acct *acct, volatile int *stop, tm_diag *diag)
{
    const sim__svc_cfg *cfg = pool->cfg;
    if (t1_us < t0_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.interval", "t1 %lld < t0 %lld",
                           (long long)t1_us, (long long)t0_us);
    if (t1_us == t0_us)
        return TM_OK;
    const sim__llm_model *m = sim__llm_model_find(cfg->llm_model);
    if (!m)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.request.model", "no model \"%s\"",
                           cfg->llm_model);
    double t0 = (double)t0_us / (double)SIM_US_PER_S, t1 = (double)t1_us / (double)SIM_US_PER_S;
    drawer w;
    memset(&w, 0, sizeof w);
    w.pool = pool;
    w.t0 = t0;
    w.t1 = t1;
    req_tokens(cfg, &w.in, &w.out);
    double in = w.in, out = w.out;
    gsl_rng *r = gsl_rng_alloc(sim_rng_mt19937());
    if (!r)
        return tm_diag_set(diag, TM_ERR_NOMEM, "service.request", "generator");
    w.r = r;
    gsl_rng_set(r, (unsigned long)(mix64(seed ^ mix64((uint64_t)t0_us)) & 0xffffffffu));
    int rc = TM_OK, threaded = 0;
    ahead a;
    memset(&a, 0, sizeof a);
    chunk *one = &a.ring[0];
    pthread_t th;
    double acc = 0;
    for (size_t i = 0; i < pool->n_sub; i++) {
        acc += pool->sub[i].weight;
        w.cum[i] = acc;
    }
    /* refused before drawing: the expected count (an MMPP or a burst may
     * still pass the limit; that is checked as the requests are drawn) */
    double expect = trace_arrival_expected(&cfg->load, t0, t1);
    if (expect > (double)SIM__SVC_REQUEST_MAX) {
        rc = tm_diag_set(diag, TM_ERR_LIMIT, "service.request",
                         "%.3g requests expected in one accounting interval ([%.0f, %.0f) s) of "
                         "request mode, more than %zu: a lower rate, or the hourly mode",
                         expect, t0, t1, SIM__SVC_REQUEST_MAX);
        goto out;
    }
    if ((rc = trace_arrival_init(&w.arr, &cfg->load, t0, diag)))
        goto out;
    /* the chains carried from the piece before: another configuration's
     * (a specialization) serve what they hold on the old replicas; a type
     * without ready replicas now loses what it held */
    sim__svc_reqstate *rq = *rqp;
    if (rq && rq->cfg != cfg) {
        for (size_t k = 0; k < PLACE_MAX_TYPES && rc == TM_OK; k++)
            if (rq->st[k])
                rc = chain_end(rq, k, 1, acct, stop, diag);
        if (rc)
            goto out;
        rq->cfg = cfg;
    }
    if (!rq) {
        if (!(rq = *rqp = calloc(1, sizeof *rq))) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "service.request", "state");
            goto out;
        }
        rq->cfg = cfg;
    }
    {
        int ready[PLACE_MAX_TYPES] = {0};
        for (size_t k = 0; k < pool->n_sub; k++)
            ready[pool->sub[k].type] = 1;
        for (size_t k = 0; k < PLACE_MAX_TYPES; k++)
            if (rq->st[k] && !ready[k])
                chain_end(rq, k, 0, acct, stop, diag);
    }
    if (pool->n_sub == 0) {
        if ((rc = draw_chunk(&w, one, SIZE_MAX, diag)))
            goto out;
        vol_add(&acct->demanded, w.n_all, in, out);
        acct->seconds += t1 - t0;
        vol_add(cfg->overflow == SIM__SVC_OVERFLOW_API ? &acct->api : &acct->unserved, w.n_all, in,
                out);
        goto out;
    }
    for (size_t k = 0; k < pool->n_sub; k++) {
        const sim__svc_sub *sp = &pool->sub[k];
        sim__llm_state **st = &rq->st[sp->type];
        if (!*st) {
            sim__llm_cfg c;
            sim__llm_cfg_defaults(&c);
            c.replicas = sp->replicas;
            c.policy = cfg->llm_sarathi ? SIM__LLM_SARATHI : SIM__LLM_VLLM;
            c.slo_ttft_s = cfg->slo_kind == SIM__SVC_SLO_WAIT ? cfg->slo_s : 1e9;
            c.slo_tpot_s = cfg->slo_tpot_s > 0 ? cfg->slo_tpot_s : 0.2;
            c.max_queue =
                cfg->overflow == SIM__SVC_OVERFLOW_API ? sim__svc_concurrency(cfg, sp->type) : 0;
            c.outcomes_only = 1;
            c.counts_only = 1;                /* the rule below, counted by the run */
            c.no_series = !cfg->scale_signal; /* the series give only the signals */
            c.count_e2e = cfg->slo_kind != SIM__SVC_SLO_WAIT;
            c.count_slo_s = cfg->slo_s;
            if ((rc = sim__llm_roofline_init(&c.iter.roof, m, &types[sp->type], cfg->replica_gpus,
                                             diag)) ||
                (rc = sim__llm_kv_blocks(m, &types[sp->type], cfg->replica_gpus, 0.9,
                                         c.block_tokens, &c.kv_blocks, diag)) ||
                (rc = sim__llm_state_new(st, &c, t0, diag)))
                goto out;
        } else if ((rc = sim__llm_state_resize(*st, sp->replicas, diag))) {
            goto out;
        }
    }
    /* the arrivals: drawn at once, or (a long piece without a signal: the
     * cuts change nothing, test_llm chain) by a thread ahead of the
     * simulation, chunk by chunk */
    sim__llm_counts tot[PLACE_MAX_TYPES];
    memset(tot, 0, sizeof tot);
    threaded = !cfg->scale_signal && expect > 2.0 * CHUNK_REQS;
    if (threaded) {
        a.w = &w;
        tm_diag_clear(&a.diag);
        if (pthread_mutex_init(&a.mu, NULL) != 0) {
            threaded = 0;
        } else if (pthread_cond_init(&a.cv, NULL) != 0) {
            pthread_mutex_destroy(&a.mu);
            threaded = 0;
        } else if (pthread_create(&th, NULL, ahead_main, &a) != 0) {
            pthread_cond_destroy(&a.cv);
            pthread_mutex_destroy(&a.mu);
            threaded = 0;
        }
    }
    if (!threaded && (rc = draw_chunk(&w, one, SIZE_MAX, diag)))
        goto out;
    for (int last = 0; !last;) {
        chunk *c = one;
        if (threaded) {
            pthread_mutex_lock(&a.mu);
            while (a.filled == 0 && !a.done)
                pthread_cond_wait(&a.cv, &a.mu);
            if (a.filled == 0) { /* the producer failed */
                rc = a.rc;
                *diag = a.diag;
            }
            pthread_mutex_unlock(&a.mu);
            if (rc)
                goto out;
            c = &a.ring[a.head];
        }
        last = c->last;
        for (size_t k = 0; k < pool->n_sub && rc == TM_OK; k++) {
            sim__llm_counts cnt;
            rc = sim__llm_state_advance(rq->st[pool->sub[k].type], c->q[k], c->nq[k], c->t_end,
                                        &cnt, stop, diag);
            sim__llm_counts *x = &tot[k];
            x->met += cnt.met, x->late += cnt.late, x->api += cnt.api;
            x->dropped += cnt.dropped, x->busy_s += cnt.busy_s;
            x->queue_sum += cnt.queue_sum, x->kv_sum += cnt.kv_sum;
        }
        if (rc)
            goto out;
        if (threaded) {
            pthread_mutex_lock(&a.mu);
            a.head = (a.head + 1) % RING;
            a.filled--;
            pthread_cond_broadcast(&a.cv);
            pthread_mutex_unlock(&a.mu);
        }
    }
    vol_add(&acct->demanded, w.n_all, in, out);
    acct->seconds += t1 - t0;
    double sig_wait = 0, sig_kv = 0, sig_rep = 0; /* sums over the ready replicas */
    for (size_t k = 0; k < pool->n_sub; k++) {
        const sim__svc_sub *sp = &pool->sub[k];
        acct->replica_s += (double)sp->replicas * (t1 - t0);
        sig_rep += sp->replicas;
        /* a request meets the SLO when its TTFT (wait) or end-to-end
         * latency (response) is <= slo_s and its TPOT is not > the TPOT
         * SLO; it is counted in the piece where it ends */
        double cap_s = (double)sp->replicas * (t1 - t0);
        acct->busy_replica_s += tot[k].busy_s < cap_s ? tot[k].busy_s : cap_s;
        /* the signals: time means over the piece (one chunk with a signal) */
        sig_wait += tot[k].queue_sum;
        sig_kv += tot[k].kv_sum;
        counts_add(acct, cfg, &tot[k]);
    }
    if (sig_rep > 0) {
        acct->sig_queue = sig_wait / sig_rep;
        acct->sig_kv = sig_kv / sig_rep;
        acct->sig_n++;
    }
out:
    if (threaded) {
        pthread_mutex_lock(&a.mu);
        a.cancel = 1;
        pthread_cond_broadcast(&a.cv);
        pthread_mutex_unlock(&a.mu);
        pthread_join(th, NULL);
        pthread_cond_destroy(&a.cv);
        pthread_mutex_destroy(&a.mu);
    }
    for (size_t i = 0; i < RING; i++)
        for (size_t k = 0; k < PLACE_MAX_TYPES; k++)
            free(a.ring[i].q[k]);
    gsl_rng_free(r);
    return rc;
}

int sim__svc_interval_request(const sim__svc_pool *pool, const sim_gpu_type *types, int64_t t0_us,
                              int64_t t1_us, uint64_t seed, sim__svc_reqstate **rq,
                              sim__svc_acct *acct, volatile int *stop, tm_diag *diag)
{
    if (t1_us < t0_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.interval", "t1 %lld < t0 %lld",
                           (long long)t1_us, (long long)t0_us);
    /* pieces cut at the hour boundaries: memory and the request limit are
     * per hour, however long the engine's interval (a flat load is one) */
    const int64_t hour = 3600 * SIM_US_PER_S;
    for (int64_t a = t0_us; a < t1_us;) {
        int64_t b = (a / hour + 1) * hour;
        if (b > t1_us)
            b = t1_us;
        int rc = interval_piece(pool, types, a, b, seed, rq, acct, stop, diag);
        if (rc)
            return rc;
        a = b;
    }
    return TM_OK;
}
