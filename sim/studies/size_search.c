/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size_search.c — sizing by simulation, its search: the smallest fleet, over
 * nodes per pool and mixes of pools, that passes the targets, and when a
 * growing demand stops the current fleet passing (size_int.h has the layers
 * and the cost of each search).
 *
 * How it works: the search never looks at how a fleet is evaluated; it calls
 * the evaluation through a function pointer (cfg->eval) and caches the
 * answers by (nodes, demand), so running candidates elsewhere replaces one
 * pointer. One pool: gallop from the floor (1, 2, 4, ... nodes added), then
 * bisect. Several pools: a staircase walk over the last two pools for every
 * combination of the others collects the frontier of minimal mixes, each
 * costed, the cheapest chosen; the neighbours (one node more or less) are
 * evaluated too, so a violation of monotonicity shows.
 */
#include "studies/size_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* the cache and the search                                                   */

void sim__size_cache_fini(sim__size_cache *c)
{
    if (!c)
        return;
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
}

void sim__size_answer_fini(sim__size_answer *a)
{
    if (!a)
        return;
    free(a->frontier);
    free(a->neighbours);
    a->frontier = a->neighbours = NULL;
    a->n_frontier = a->n_neighbours = 0;
}

typedef struct search {
    const sim__size_search_cfg *cfg;
    sim__size_answer *ans;
    tm_diag *diag;
} search;

/* Evaluate (cached): *e points into the cache (valid until the next call). */
static int eval_at(search *s, const uint32_t *nodes, const sim__size_eval **e)
{
    const sim__size_search_cfg *cfg = s->cfg;
    sim__size_cache *c = cfg->cache;
    for (size_t i = 0; i < c->n; i++) {
        const sim__size_cache_entry *x = &c->e[i];
        if (x->demand == cfg->demand && memcmp(x->nodes, nodes, cfg->n_vary * sizeof *nodes) == 0) {
            *e = &x->eval;
            return TM_OK;
        }
    }
    size_t budget = c->max_evals ? c->max_evals : 10000;
    if (c->n >= budget)
        return tm_diag_set(s->diag, TM_ERR_LIMIT, "size",
                           "more than %zu fleets to simulate: narrow the search (--pools, "
                           "--max-nodes)",
                           budget);
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        sim__size_cache_entry *ne = realloc(c->e, cap * sizeof *ne);
        if (!ne)
            return tm_diag_set(s->diag, TM_ERR_NOMEM, "size", "out of memory");
        c->e = ne;
        c->cap = cap;
    }
    sim__size_cache_entry *x = &c->e[c->n];
    memset(x, 0, sizeof *x);
    memcpy(x->nodes, nodes, cfg->n_vary * sizeof *nodes);
    x->demand = cfg->demand;
    int rc = cfg->eval(cfg->ud, nodes, cfg->demand, &x->eval, s->diag);
    if (rc != TM_OK)
        return rc;
    c->n++;
    s->ans->evaluations++;
    *e = &x->eval;
    return TM_OK;
}

static int passes(void *ud, const uint32_t *nodes, int *ok)
{
    const sim__size_eval *e;
    int rc = eval_at(ud, nodes, &e);
    if (rc == TM_OK)
        *ok = e->pass;
    return rc;
}

/* A pass callback that counts its calls (the confirming search reports how
 * many full evaluations it made). */
typedef struct counted {
    sim__size_pass_fn pass;
    void *ud;
    size_t calls;
} counted;

static int counted_pass(void *ud, const uint32_t *nodes, int *ok)
{
    counted *c = ud;
    c->calls++;
    return c->pass(c->ud, nodes, ok);
}

/* Between a failing count bad and a passing count good (bad < good): the
 * fewest that passes, by bisection, into nodes[k]. */
static int bisect(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t bad,
                  uint32_t good)
{
    int ok, rc;
    while (good - bad > 1) {
        uint32_t mid = bad + (good - bad) / 2;
        nodes[k] = mid;
        if ((rc = pass(ud, nodes, &ok)))
            return rc;
        if (ok)
            good = mid;
        else
            bad = mid;
    }
    nodes[k] = good;
    return TM_OK;
}

/* From a count bad known to fail: gallop up (bad + 1, + 2, + 4, ..., capped
 * at hi) to a passing count, then bisect. *found = 0, nodes[k] = hi, when
 * none up to hi passes. */
static int up_from_fail(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t bad,
                        uint32_t hi, int *found)
{
    int ok, rc;
    uint32_t step = 1;
    *found = 0;
    for (;;) {
        uint32_t next = hi - bad > step ? bad + step : hi;
        nodes[k] = next;
        if ((rc = pass(ud, nodes, &ok)))
            return rc;
        if (ok) {
            rc = bisect(pass, ud, nodes, k, bad, next);
            *found = rc == TM_OK;
            return rc;
        }
        if (next == hi)
            return TM_OK;
        bad = next;
        step *= 2;
    }
}

/* From a count good known to pass: gallop down (good - 1, - 2, - 4, ...,
 * floored at lo) to a failing count, then bisect; nodes[k] = the fewest that
 * passes (lo when every count down to it passes). */
static int down_from_pass(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k,
                          uint32_t good, uint32_t lo)
{
    int ok, rc;
    uint32_t step = 1;
    while (good > lo) {
        uint32_t next = good - lo > step ? good - step : lo;
        nodes[k] = next;
        if ((rc = pass(ud, nodes, &ok)))
            return rc;
        if (!ok)
            return bisect(pass, ud, nodes, k, next, good);
        good = next;
        step *= 2;
    }
    nodes[k] = good;
    return TM_OK;
}

int sim__size_fewest(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t lo,
                     uint32_t hi, int *found)
{
    int ok, rc;
    *found = 0;
    nodes[k] = lo;
    if ((rc = pass(ud, nodes, &ok)) || ok) {
        *found = rc == TM_OK;
        return rc;
    }
    return up_from_fail(pass, ud, nodes, k, lo, hi, found);
}

int sim__size_fewest_down(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t lo,
                          uint32_t hi)
{
    return down_from_pass(pass, ud, nodes, k, hi, lo);
}

static void screen_stats(sim__size_screen_stats *st, size_t k, uint32_t lo, uint32_t cand,
                         int cand_found, uint32_t full_n, int full_found, size_t calls)
{
    if (!st)
        return;
    st->searches++;
    st->full_evals += calls;
    if (cand_found == full_found && (!full_found || full_n == cand))
        st->agreed++;
    else
        st->corrected++;
    st->k = k;
    st->lo = lo;
    st->screen_n = cand;
    st->screen_found = cand_found;
    st->full_n = full_n;
    st->full_found = full_found;
}

int sim__size_fewest_confirm(sim__size_pass_fn full, void *ud, uint32_t *nodes, size_t k,
                             uint32_t lo, uint32_t hi, uint32_t cand, int cand_found, int *found,
                             sim__size_screen_stats *st)
{
    counted c = {full, ud, 0};
    int ok, rc;
    *found = 0;
    if (!cand_found || cand > hi)
        cand = hi;
    if (cand < lo)
        cand = lo;
    nodes[k] = cand;
    if ((rc = counted_pass(&c, nodes, &ok)))
        return rc;
    if (ok) { /* the screen's answer passes: one fewer must fail, else gallop down */
        rc = down_from_pass(counted_pass, &c, nodes, k, cand, lo);
        *found = rc == TM_OK;
    } else if (cand < hi) /* the screen was too lenient (or passed nothing) */
        rc = up_from_fail(counted_pass, &c, nodes, k, cand, hi, found);
    else
        nodes[k] = hi;
    if (rc != TM_OK)
        return rc;
    screen_stats(st, k, lo, cand, cand_found, nodes[k], *found, c.calls);
    return TM_OK;
}

int sim__size_fewest_screened(sim__size_pass_fn screen, sim__size_pass_fn full, void *ud,
                              uint32_t *nodes, size_t k, uint32_t lo, uint32_t hi, int *found,
                              sim__size_screen_stats *st)
{
    int sfound, rc = sim__size_fewest(screen, ud, nodes, k, lo, hi, &sfound);
    if (rc != TM_OK)
        return rc;
    return sim__size_fewest_confirm(full, ud, nodes, k, lo, hi, nodes[k], sfound, found, st);
}

int sim__size_fewest_guess(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t lo,
                           uint32_t hi, uint32_t guess, int *found)
{
    int ok, rc;
    *found = 0;
    if (guess <= lo || guess > hi)
        return sim__size_fewest(pass, ud, nodes, k, lo, hi, found);
    nodes[k] = guess;
    if ((rc = pass(ud, nodes, &ok)))
        return rc;
    if (!ok)
        return sim__size_fewest(pass, ud, nodes, k, guess, hi, found);
    rc = down_from_pass(pass, ud, nodes, k, guess, lo);
    *found = rc == TM_OK;
    return rc;
}

/* The screen's verdict (cached in the screen's own cache). */
static int screen_passes(void *ud, const uint32_t *nodes, int *ok)
{
    search *s = ud;
    const sim__size_search_cfg *cfg = s->cfg;
    sim__size_search_cfg sc = *cfg;
    sc.eval = cfg->screen;
    sc.ud = cfg->screen_ud;
    sc.cache = cfg->screen_cache;
    size_t before = s->ans->evaluations;
    search s2 = {&sc, s->ans, s->diag};
    const sim__size_eval *e;
    int rc = eval_at(&s2, nodes, &e);
    s->ans->evaluations = before; /* evaluations counts full ones */
    if (rc == TM_OK)
        *ok = e->pass;
    return rc;
}

static int screened(const search *s)
{
    return s->cfg->screen && s->cfg->screen_cache;
}

static int min_in_pool(search *s, uint32_t *nodes, size_t k, uint32_t lo, uint32_t hi, int *found)
{
    if (screened(s)) {
        int sfound, rc = sim__size_fewest_guess(screen_passes, s, nodes, k, lo, hi,
                                                s->cfg->screen_guess[k], &sfound);
        if (rc != TM_OK)
            return rc;
        return sim__size_fewest_confirm(passes, s, nodes, k, lo, hi, nodes[k], sfound, found,
                                        s->cfg->screen_stats);
    }
    return sim__size_fewest(passes, s, nodes, k, lo, hi, found);
}

static int frontier_add(search *s, const uint32_t *nodes)
{
    sim__size_answer *a = s->ans;
    const sim__size_eval *e;
    int rc = eval_at(s, nodes, &e);
    if (rc != TM_OK)
        return rc;
    sim__size_fleet *nf = realloc(a->frontier, (a->n_frontier + 1) * sizeof *nf);
    if (!nf)
        return tm_diag_set(s->diag, TM_ERR_NOMEM, "size", "out of memory");
    a->frontier = nf;
    memcpy(nf[a->n_frontier].nodes, nodes, sizeof nf[a->n_frontier].nodes);
    nf[a->n_frontier].eval = *e;
    a->n_frontier++;
    return TM_OK;
}

/* The staircase over the last two searched pools (a = n-2, b = n-1) with the
 * others fixed in nodes[]: for a from its floor up, the fewest b that pass;
 * b can only fall as a grows, so each step tries b - 1 until it fails.
 * O(range of a + range of b) evaluations. */
static int staircase(search *s, uint32_t *nodes)
{
    const sim__size_search_cfg *cfg = s->cfg;
    size_t ka = cfg->n_vary - 2, kb = cfg->n_vary - 1;
    int found, rc;
    /* the fewest a with b at its floor bounds the walk: beyond it a alone does */
    uint32_t a_top = cfg->max[ka];
    nodes[kb] = cfg->floor[kb];
    if ((rc = min_in_pool(s, nodes, ka, cfg->floor[ka], cfg->max[ka], &found)))
        return rc;
    if (found)
        a_top = nodes[ka];
    int have_b = 0, recorded = 0;
    uint32_t b = cfg->max[kb], last_b = 0;
    for (uint32_t a = cfg->floor[ka]; a <= a_top; a++) {
        nodes[ka] = a;
        if (!have_b) {
            if ((rc = min_in_pool(s, nodes, kb, cfg->floor[kb], cfg->max[kb], &found)))
                return rc;
            if (!found)
                continue; /* more of a is needed */
            have_b = 1;
            b = nodes[kb];
        } else if (screened(s)) {
            /* the screen walks b down from the last b, the full evaluation
             * confirms where it stops (b still passes at this a, b - 1 not) */
            if ((rc = sim__size_fewest_down(screen_passes, s, nodes, kb, cfg->floor[kb], b)))
                return rc;
            if ((rc = sim__size_fewest_confirm(passes, s, nodes, kb, cfg->floor[kb], cfg->max[kb],
                                               nodes[kb], 1, &found, cfg->screen_stats)))
                return rc;
            if (!found)
                continue;
            b = nodes[kb];
        } else {
            while (b > cfg->floor[kb]) {
                int ok;
                nodes[kb] = b - 1;
                if ((rc = passes(s, nodes, &ok)))
                    return rc;
                if (!ok)
                    break;
                b--;
            }
        }
        nodes[kb] = b;
        /* a mix whose b did not fall is dominated by the previous one */
        if ((!recorded || b < last_b) && (rc = frontier_add(s, nodes)))
            return rc;
        recorded = 1;
        last_b = b;
        if (b == cfg->floor[kb])
            break; /* more of a only adds cost */
        if (a == UINT32_MAX)
            break;
    }
    return TM_OK;
}

/* Every combination of the pools before the last two (each from its floor
 * to the fewest that pass alone, where the others are at their floors), the
 * staircase for the last two. */
static int walk(search *s, uint32_t *nodes, size_t k, const uint32_t *top)
{
    const sim__size_search_cfg *cfg = s->cfg;
    if (k + 2 >= cfg->n_vary || k + 2 >= SIM__SIZE_MAX_VARY) /* n_vary <= SIM__SIZE_MAX_VARY */
        return staircase(s, nodes);
    for (uint32_t v = cfg->floor[k]; v <= top[k]; v++) {
        nodes[k] = v;
        int rc = walk(s, nodes, k + 1, top);
        if (rc != TM_OK)
            return rc;
        if (v == UINT32_MAX)
            break;
    }
    return TM_OK;
}

static double cost_of(const sim__size_eval *e, int as)
{
    double c = e->usd_per_month[as];
    return isfinite(c) ? c : INFINITY;
}

int sim__size_search(const sim__size_search_cfg *cfg, sim__size_answer *ans, tm_diag *diag)
{
    memset(ans, 0, sizeof *ans);
    if (cfg->n_vary < 1 || cfg->n_vary > SIM__SIZE_MAX_VARY || !cfg->eval || !cfg->cache)
        return tm_diag_set(diag, TM_ERR_INVAL, "size", "1 to %d pools to search",
                           SIM__SIZE_MAX_VARY);
    for (size_t k = 0; k < cfg->n_vary; k++)
        if (cfg->floor[k] > cfg->max[k])
            return tm_diag_set(diag, TM_ERR_INVAL, "size",
                               "pool %zu: at least %u nodes but at most %u", k, cfg->floor[k],
                               cfg->max[k]);
    search s = {cfg, ans, diag};
    uint32_t nodes[SIM__SIZE_MAX_VARY];
    memcpy(nodes, cfg->floor, sizeof nodes);
    int rc = TM_OK, found = 0;
    if (cfg->n_vary == 1) {
        rc = min_in_pool(&s, nodes, 0, cfg->floor[0], cfg->max[0], &found);
        if (rc == TM_OK && found)
            rc = frontier_add(&s, nodes);
    } else {
        uint32_t top[SIM__SIZE_MAX_VARY];
        for (size_t k = 0; rc == TM_OK && k + 2 < cfg->n_vary; k++) {
            memcpy(nodes, cfg->floor, sizeof nodes);
            rc = min_in_pool(&s, nodes, k, cfg->floor[k], cfg->max[k], &found);
            top[k] = found ? nodes[k] : cfg->max[k];
        }
        memcpy(nodes, cfg->floor, sizeof nodes);
        if (rc == TM_OK)
            rc = walk(&s, nodes, 0, top);
    }
    if (rc != TM_OK)
        goto fail;
    if (ans->n_frontier == 0) {
        /* nothing meets them: report the largest fleet, and why it fails */
        const sim__size_eval *e;
        if ((rc = eval_at(&s, cfg->max, &e)) != TM_OK)
            goto fail;
        memcpy(ans->best.nodes, cfg->max, sizeof ans->best.nodes);
        ans->best.eval = *e;
        ans->found = 0;
        return TM_OK;
    }
    size_t bi = 0;
    for (size_t i = 1; i < ans->n_frontier; i++)
        if (cost_of(&ans->frontier[i].eval, cfg->cost_as) <
            cost_of(&ans->frontier[bi].eval, cfg->cost_as))
            bi = i;
    ans->best = ans->frontier[bi];
    ans->found = 1;
    /* neighbours: one node more or less in each searched pool */
    ans->neighbours = calloc(2 * cfg->n_vary, sizeof *ans->neighbours);
    if (!ans->neighbours) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
        goto fail;
    }
    for (size_t k = 0; k < cfg->n_vary; k++)
        for (int d = -1; d <= 1; d += 2) {
            uint32_t v = ans->best.nodes[k];
            if ((d < 0 && v == cfg->floor[k]) || (d > 0 && v == cfg->max[k]))
                continue;
            memcpy(nodes, ans->best.nodes, sizeof nodes);
            nodes[k] = d < 0 ? v - 1 : v + 1;
            const sim__size_eval *e;
            if ((rc = eval_at(&s, nodes, &e)) != TM_OK)
                goto fail;
            sim__size_fleet *f = &ans->neighbours[ans->n_neighbours++];
            memcpy(f->nodes, nodes, sizeof f->nodes);
            f->eval = *e;
        }
    return TM_OK;
fail:
    sim__size_answer_fini(ans);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* growth                                                                     */

void sim__size_growth_fini(sim__size_growth *g)
{
    if (g)
        sim__size_answer_fini(&g->add);
}

static int current_passes(const sim__size_search_cfg *base, const uint32_t *current, double rate,
                          uint32_t m, sim__size_eval *e, tm_diag *diag)
{
    sim__size_search_cfg cfg = *base;
    cfg.demand = pow(1 + rate, m);
    sim__size_answer ans;
    memset(&ans, 0, sizeof ans);
    search s = {&cfg, &ans, diag};
    const sim__size_eval *x;
    int rc = eval_at(&s, current, &x);
    if (rc == TM_OK)
        *e = *x;
    return rc;
}

int sim__size_growth_run(const sim__size_search_cfg *cfg, const uint32_t *current,
                         double rate_per_month, uint32_t max_months, sim__size_growth *out,
                         tm_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (!(rate_per_month > 0))
        return tm_diag_set(diag, TM_ERR_USAGE, "--growth", "a growth rate > 0 per month");
    sim__size_eval e;
    int rc = current_passes(cfg, current, rate_per_month, 0, &e, diag);
    if (rc != TM_OK)
        return rc;
    uint32_t bad;
    if (!e.pass) {
        bad = 0;
        out->current_eval = e;
    } else {
        /* gallop on months, then bisect: demand only grows */
        uint32_t good = 0, step = 1;
        for (;;) {
            uint32_t m = max_months - good > step ? good + step : max_months;
            if ((rc = current_passes(cfg, current, rate_per_month, m, &e, diag)) != TM_OK)
                return rc;
            if (!e.pass) {
                bad = m;
                out->current_eval = e;
                break;
            }
            if (m == max_months) {
                out->fails = 0;
                out->month = max_months;
                out->demand = pow(1 + rate_per_month, max_months);
                out->current_eval = e;
                return TM_OK;
            }
            good = m;
            step *= 2;
        }
        while (bad - good > 1) {
            uint32_t mid = good + (bad - good) / 2;
            if ((rc = current_passes(cfg, current, rate_per_month, mid, &e, diag)) != TM_OK)
                return rc;
            if (e.pass) {
                good = mid;
            } else {
                bad = mid;
                out->current_eval = e;
            }
        }
    }
    out->fails = 1;
    out->month = bad;
    out->demand = pow(1 + rate_per_month, bad);
    sim__size_search_cfg grow = *cfg;
    grow.demand = out->demand;
    for (size_t k = 0; k < cfg->n_vary; k++) {
        grow.floor[k] = current[k] > cfg->floor[k] ? current[k] : cfg->floor[k];
        if (grow.max[k] < grow.floor[k])
            grow.max[k] = grow.floor[k];
    }
    return sim__size_search(&grow, &out->add, diag);
}
