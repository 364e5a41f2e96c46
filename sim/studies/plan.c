/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.c — a purchase plan over time, its two searches (the problem and the
 * methods: plan_int.h; for users: docs/plan.md).
 *
 * How it works: every fleet is judged through one cached evaluation
 * (plan_eval: the size runner's simulation at a period's demand, looked up
 * in the shared cache first). The greedy walks the periods in order; in each
 * it finds the minimal mixes (a gallop then bisection per pool, a staircase
 * over the last two pools with the others enumerated, walked from its
 * cheaper end so that steps whose mix cannot be chosen are cut by a cost
 * bound from the nodes alone), scores
 * them with a myopic roll-out of the next periods (with a screen, on
 * estimates: the greedy's own memo of full evaluations, else the screen),
 * and takes the cheapest
 * one the budget can pay for, ordering nodes earlier when it cannot. With a
 * screen the mixes are the screen's and only the one taken is confirmed in
 * full (lazy_period: a head failing in full gives way, the ranking is read
 * again); --confirm-all confirms every search's answer as it is reached. The
 * exact search evaluates the whole grid of each period and walks every
 * non-decreasing schedule depth first, cheapest fleets first, cutting a
 * branch when its cost plus the cheapest passing fleet of every later
 * period cannot beat the best schedule found.
 *
 * One piece (over 1000 lines): the greedy's staircase, its cuts, its
 * roll-outs, the lazy confirmation of its candidates and the budget's
 * fallback, and the exact search, all work on the
 * same cached evaluation, cost bound and budget check (static here); split,
 * they would need an internal header for a dozen helpers used nowhere else.
 */
#include "studies/plan_int.h"

#include "model/cost_int.h"
#include "output/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NV SIM__SIZE_MAX_VARY
/* mixes of a period the greedy rolls out (the cheapest by their own cost) */
#define SIM__PLAN_ROLLOUT_MIXES 3

double sim__plan_demand(const sim__plan_cfg *cfg, size_t t)
{
    return cfg->demand0 * pow(1 + cfg->growth, (double)t);
}

void sim__plan_fini(sim__plan *p)
{
    if (!p)
        return;
    free(p->p);
    p->p = NULL;
    p->n_periods = 0;
    free(p->cand);
    p->cand = NULL;
    p->n_cand = p->cap_cand = 0;
    sim__size_cache_fini(&p->memo);
}

/* The evaluation of `nodes` at `demand` in cache c, or NULL: the memo of
 * every search (a fleet at a period's demand is simulated once). O(entries):
 * a plan holds hundreds, each worth seconds of simulation. */
static const sim__size_eval *cache_find(const sim__plan_cfg *cfg, const sim__size_cache *c,
                                        const uint32_t *nodes, double demand)
{
    size_t nv = cfg->run->n_vary;
    for (size_t i = 0; c && i < c->n; i++) {
        const sim__size_cache_entry *x = &c->e[i];
        if (x->demand == demand && memcmp(x->nodes, nodes, nv * sizeof *nodes) == 0)
            return &x->eval;
    }
    return NULL;
}

/* Append an evaluation to cache c (grown as needed). */
static int cache_add(const sim__plan_cfg *cfg, sim__size_cache *c, const uint32_t *nodes,
                     double demand, const sim__size_eval *e, tm_diag *diag)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        sim__size_cache_entry *ne = realloc(c->e, cap * sizeof *ne);
        if (!ne)
            return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        c->e = ne;
        c->cap = cap;
    }
    sim__size_cache_entry *x = &c->e[c->n++];
    memset(x, 0, sizeof *x);
    memcpy(x->nodes, nodes, cfg->run->n_vary * sizeof *nodes);
    x->demand = demand;
    x->eval = *e;
    return TM_OK;
}

/* Note a full evaluation this search used in its own memo (pl->memo): what
 * the roll-outs on estimates may reuse. Kept apart from the shared cache,
 * which may hold fleets another search simulated (the exact search's whole
 * grid), so that the greedy's estimates, hence its plan, do not depend on
 * whether --exact ran first. */
static int memo_note(const sim__plan_cfg *cfg, sim__plan *pl, const uint32_t *nodes, double demand,
                     const sim__size_eval *e, tm_diag *diag)
{
    if (cache_find(cfg, &pl->memo, nodes, demand))
        return TM_OK;
    return cache_add(cfg, &pl->memo, nodes, demand, e, diag);
}

/* Evaluate `nodes` at `demand` with runner r (cached in c); a copy into *e;
 * pl->evaluations counts the full ones (count 1). */
static int eval_in(const sim__plan_cfg *cfg, sim__size_runner *r, sim__size_cache *c, int count,
                   sim__plan *pl, const uint32_t *nodes, double demand, sim__size_eval *e,
                   tm_diag *diag)
{
    size_t nv = cfg->run->n_vary;
    const sim__size_eval *hit = cache_find(cfg, c, nodes, demand);
    if (hit) {
        *e = *hit;
        return count ? memo_note(cfg, pl, nodes, demand, e, diag) : TM_OK;
    }
    size_t budget = c->max_evals ? c->max_evals : 10000;
    if (c->n >= budget)
        return tm_diag_set(diag, TM_ERR_LIMIT, "plan",
                           "more than %zu fleets to simulate: fewer periods, pools or "
                           "--max-nodes",
                           budget);
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        sim__size_cache_entry *ne = realloc(c->e, cap * sizeof *ne);
        if (!ne)
            return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        c->e = ne;
        c->cap = cap;
    }
    sim__size_cache_entry *x = &c->e[c->n];
    memset(x, 0, sizeof *x);
    memcpy(x->nodes, nodes, nv * sizeof *nodes);
    x->demand = demand;
    int rc = sim__size_runner_eval(r, nodes, demand, &x->eval, diag);
    if (rc != TM_OK)
        return rc;
    c->n++;
    pl->evaluations += (size_t)count;
    *e = x->eval;
    return count ? memo_note(cfg, pl, nodes, demand, e, diag) : TM_OK;
}

/* The full evaluation (cached). */
static int plan_eval(const sim__plan_cfg *cfg, sim__plan *pl, const uint32_t *nodes, double demand,
                     sim__size_eval *e, tm_diag *diag)
{
    return eval_in(cfg, cfg->run, cfg->cache, 1, pl, nodes, demand, e, diag);
}

/* The screen's evaluation (cached apart), or the full one without a screen. */
static int screen_eval(const sim__plan_cfg *cfg, sim__plan *pl, const uint32_t *nodes,
                       double demand, sim__size_eval *e, tm_diag *diag)
{
    if (!cfg->screen || !cfg->screen_cache)
        return plan_eval(cfg, pl, nodes, demand, e, diag);
    return eval_in(cfg, cfg->screen, cfg->screen_cache, 0, pl, nodes, demand, e, diag);
}

/* Do the roll-outs run on estimates? With a screen, unless the caller asked
 * for full roll-outs (cfg->rollout_full): docs/plan.md, "Roll-outs on
 * estimates". */
static int rollout_estimated(const sim__plan_cfg *cfg)
{
    return cfg->screen && cfg->screen_cache && !cfg->rollout_full;
}

int sim__plan_lazy(const sim__plan_cfg *cfg)
{
    return rollout_estimated(cfg) && !cfg->confirm_all;
}

const char *sim__plan_confirmation(const sim__plan_cfg *cfg)
{
    return sim__plan_lazy(cfg)                ? "chosen"
           : cfg->screen && cfg->screen_cache ? "every search"
                                              : "every fleet";
}

/* A roll-out's estimate of a fleet at `demand`: its full evaluation when a
 * search has made it (the memo), else the screen's (simulated if need be).
 * Never a full simulation. */
static int estimate_eval(const sim__plan_cfg *cfg, sim__plan *pl, const uint32_t *nodes,
                         double demand, sim__size_eval *e, tm_diag *diag)
{
    const sim__size_eval *hit = cache_find(cfg, &pl->memo, nodes, demand);
    if (hit) {
        *e = *hit;
        return TM_OK;
    }
    return screen_eval(cfg, pl, nodes, demand, e, diag);
}

/* The cost of owning a fleet for one period (INFINITY when it has no price). */
static double period_usd(const sim__plan_cfg *cfg, const sim__size_eval *e)
{
    double m = e->usd_per_month[SIM__SIZE_AS_OWNED];
    return isfinite(m) ? m * cfg->months_per_period : INFINITY;
}

/* ------------------------------------------------------------------------- */
/* a lower bound on a fleet's cost                                            */

/* What a fleet costs to own for one period at the least: the calendar-hour
 * costs of its owned GPUs (depreciation, capital, maintenance, colocation
 * and staff at fte_per_1000_gpus: sim__cost_owned_fixed_usd_per_h), which
 * every run pays whatever it simulates; energy and API overflow only add to
 * it, and the staff minimum can only raise the staff part. A pool in
 * service for part of the horizon only (delivered or retired inside it), or
 * whose type has no price, adds 0 (its share is not known without a run). */
static double fixed_node_usd(const sim__plan_cfg *cfg, uint32_t pool)
{
    const sim_scenario *sc = cfg->run->base;
    const sim_pool_cfg *pc = &sc->pools[pool];
    if (pc->delivered_us > 0 || pc->retired_us >= 0)
        return 0;
    sim__cost_owned_rates r;
    sim__cost_owned_rates_get(sim_scenario_cost(sc), sc->types, pc->type, &r);
    double h = sim__cost_owned_fixed_usd_per_h(&r);
    double usd = h * pc->gpus_per_node * SIM_HOURS_PER_MONTH * cfg->months_per_period;
    return isfinite(usd) && usd > 0 ? usd : 0;
}

static double lower_usd(const sim__plan_cfg *cfg, const uint32_t *nodes)
{
    const sim_scenario *sc = cfg->run->base;
    double usd = 0;
    for (uint32_t p = 0; p < sc->n_pools; p++) {
        uint32_t n = sc->pools[p].nodes;
        for (size_t k = 0; k < cfg->run->n_vary; k++)
            if (cfg->run->vary[k] == p)
                n = nodes[k];
        usd += n * fixed_node_usd(cfg, p);
    }
    return usd;
}

/* Is the bound lb above a cost c, beyond rounding (the bound and the cost
 * are summed in different orders)? Then the fleet costs more than c. */
static int above(double lb, double c)
{
    return isfinite(c) && lb > c + 1e-9 * fabs(c);
}

/* The largest count of pool k in [lo, hi] (the others as in nodes[]) whose
 * bound is not above c: hi when c is infinite; lo - 1 (*none) when even lo
 * is above it. */
static uint32_t cost_cap(const sim__plan_cfg *cfg, const uint32_t *nodes, size_t k, uint32_t lo,
                         uint32_t hi, double c, int *none)
{
    *none = 0;
    if (!isfinite(c))
        return hi;
    uint32_t f[NV] = {0};
    memcpy(f, nodes, cfg->run->n_vary * sizeof *f);
    f[k] = lo;
    double at_lo = lower_usd(cfg, f), per = fixed_node_usd(cfg, cfg->run->vary[k]);
    if (above(at_lo, c)) {
        *none = 1;
        return lo;
    }
    if (!(per > 0))
        return hi;
    double room = floor((c + 1e-9 * fabs(c) - at_lo) / per);
    uint32_t n = room >= (double)(hi - lo) ? hi : lo + (uint32_t)room;
    for (f[k] = n; f[k] > lo && above(lower_usd(cfg, f), c);)
        f[k]--; /* rounding */
    return f[k];
}

/* ------------------------------------------------------------------------- */
/* minimal mixes                                                              */

typedef struct mixes {
    uint32_t (*m)[NV];
    size_t n, cap;
} mixes;

typedef struct srch {
    const sim__plan_cfg *cfg;
    sim__plan *pl;
    double demand;
    const uint32_t *lo, *hi;
    mixes *out;
    tm_diag *diag;
    /* pruning (the greedy's period search; NULL prev: none): the period,
     * the fleet in service before it and the budget spent per period */
    size_t t;
    const uint32_t *prev;
    const double *spend;
    size_t full_calls; /* passes() calls, for the screen's statistics */
} srch;

static int passes(void *ud, const uint32_t *nodes, int *ok)
{
    srch *s = ud;
    s->full_calls++;
    sim__size_eval e;
    int rc = plan_eval(s->cfg, s->pl, nodes, s->demand, &e, s->diag);
    if (rc == TM_OK)
        *ok = e.pass;
    return rc;
}

/* The verdict on `nodes` at `demand` that the evaluations already made
 * imply under the monotonicity every search here assumes (a fleet with at
 * least the nodes of a passing one in every pool passes, one with at most
 * the nodes of a failing one fails; the staircase's cuts rely on the same):
 * 1 pass, 0 fail, -1 none, or both (a pair the noise made non-monotone:
 * then the fleet is simulated). The evaluations are those of cache c at
 * that demand, and with over (the roll-outs' estimates) the full ones of
 * over first: a fleet in over is judged by it, not by c. *by: the fleet it
 * was inferred from. O(entries x entries in over). Only the roll-outs use
 * it (estimate_passes): the staircases' answers are the candidates, and on
 * the inference-heavy example the screen's verdicts along the L40S pool are
 * noisy enough that implying them changed a candidate (docs/plan.md,
 * "Roll-outs on estimates"). */
static int implied(const sim__plan_cfg *cfg, const sim__size_cache *c, const sim__size_cache *over,
                   const uint32_t *nodes, double demand, const uint32_t **by)
{
    size_t nv = cfg->run->n_vary;
    int pass = 0, fail = 0;
    for (int src = 0; src < 2; src++) {
        const sim__size_cache *x = src ? c : over;
        for (size_t i = 0; x && i < x->n; i++) {
            const sim__size_cache_entry *y = &x->e[i];
            if (y->demand != demand)
                continue;
            if (x == c && over && cache_find(cfg, over, y->nodes, demand))
                continue;
            int le = 1, ge = 1; /* y <= nodes, y >= nodes in every pool */
            for (size_t k = 0; k < nv; k++) {
                le &= y->nodes[k] <= nodes[k];
                ge &= y->nodes[k] >= nodes[k];
            }
            if (y->eval.pass && le && !pass) {
                pass = 1;
                *by = y->nodes;
            } else if (!y->eval.pass && ge && !fail) {
                fail = 1;
                *by = y->nodes;
            }
            if (pass && fail)
                return -1;
        }
    }
    return pass ? 1 : fail ? 0 : -1;
}

static void fleet_text(char *buf, size_t n, const sim__plan_cfg *cfg, const uint32_t *nodes);

/* --verbose: a verdict implied, not simulated. */
static void implied_log(const srch *s, const uint32_t *nodes, const uint32_t *by, int ok)
{
    FILE *log = s->cfg->log;
    if (!log)
        return;
    char a[256], b[256];
    fleet_text(a, sizeof a, s->cfg, nodes);
    fleet_text(b, sizeof b, s->cfg, by);
    fprintf(log, "  implied %s at demand x%.4g: %s (as %s %s)\n", a, s->demand,
            ok ? "meets the targets" : "fails", b, ok ? "meets them" : "fails");
    fflush(log);
}

static int screen_passes(void *ud, const uint32_t *nodes, int *ok)
{
    srch *s = ud;
    sim__size_eval e;
    int rc = screen_eval(s->cfg, s->pl, nodes, s->demand, &e, s->diag);
    if (rc == TM_OK)
        *ok = e.pass;
    return rc;
}

static int estimate_passes(void *ud, const uint32_t *nodes, int *ok)
{
    srch *s = ud;
    sim__size_eval e;
    const sim__plan_cfg *cfg = s->cfg;
    if (cfg->screen && cfg->screen_cache && !cache_find(cfg, &s->pl->memo, nodes, s->demand) &&
        !cache_find(cfg, cfg->screen_cache, nodes, s->demand)) {
        const uint32_t *by = NULL;
        int v = implied(cfg, cfg->screen_cache, &s->pl->memo, nodes, s->demand, &by);
        if (v >= 0) {
            s->pl->implied++;
            implied_log(s, nodes, by, v);
            *ok = v;
            return TM_OK;
        }
    }
    int rc = estimate_eval(s->cfg, s->pl, nodes, s->demand, &e, s->diag);
    if (rc == TM_OK)
        *ok = e.pass;
    return rc;
}

static int screened(const srch *s)
{
    return s->cfg->screen && s->cfg->screen_cache;
}

/* Confirm the screen's answer `cand` for pool k in full
 * (sim__size_fewest_confirm: an n in [lo, hi] that passes in full with n - 1
 * failing in full, whatever cand is), starting from cand shifted by the
 * correction the full evaluation made to the screen's last answer for this
 * pool (pl->screen_shift): the screen's error is systematic (on the
 * inference-heavy example it passes L40S counts 4 to 10 nodes short of what
 * the full evaluation needs, step after step), and a start near the answer
 * saves the gallop in full. The answer does not depend on the start under
 * the monotonicity the search assumes; the statistics compare the screen's
 * own answer with the confirmed one, as size's do. */
static int confirm(srch *s, uint32_t *nodes, size_t k, uint32_t lo, uint32_t hi, uint32_t cand,
                   int cand_found, int *found)
{
    sim__plan *pl = s->pl;
    uint32_t raw = !cand_found || cand > hi ? hi : cand < lo ? lo : cand, start = raw;
    if (cand_found) {
        int64_t g = (int64_t)raw + pl->screen_shift[k];
        start = g < (int64_t)lo ? lo : g > (int64_t)hi ? hi : (uint32_t)g;
    }
    size_t before = s->full_calls;
    int rc = sim__size_fewest_confirm(passes, s, nodes, k, lo, hi, start, cand_found, found, NULL);
    if (rc != TM_OK)
        return rc;
    if (cand_found && *found)
        pl->screen_shift[k] = (int64_t)nodes[k] - (int64_t)raw;
    sim__size_screen_stats *st = s->cfg->screen_stats;
    if (st) {
        st->searches++;
        st->full_evals += s->full_calls - before;
        if (cand_found == *found && (!*found || nodes[k] == raw))
            st->agreed++;
        else
            st->corrected++;
        st->k = k;
        st->lo = lo;
        st->screen_n = raw;
        st->screen_found = cand_found;
        st->full_n = nodes[k];
        st->full_found = *found;
    }
    return TM_OK;
}

/* The fewest nodes of pool k in [lo, hi] that pass with the others as in
 * nodes[] (size's galloping search, sim__size_fewest): with a screen, on
 * its verdicts and confirmed in full (confirm). */
static int fewest(srch *s, uint32_t *nodes, size_t k, uint32_t lo, uint32_t hi, int *found)
{
    if (screened(s) && sim__plan_lazy(s->cfg)) /* confirmed later, if chosen */
        return sim__size_fewest(screen_passes, s, nodes, k, lo, hi, found);
    if (screened(s)) {
        int sfound, rc = sim__size_fewest(screen_passes, s, nodes, k, lo, hi, &sfound);
        return rc != TM_OK ? rc : confirm(s, nodes, k, lo, hi, nodes[k], sfound, found);
    }
    return sim__size_fewest(passes, s, nodes, k, lo, hi, found);
}

static int mix_add(srch *s, const uint32_t *nodes)
{
    mixes *x = s->out;
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 8;
        uint32_t(*nm)[NV] = realloc(x->m, cap * sizeof *nm);
        if (!nm)
            return tm_diag_set(s->diag, TM_ERR_NOMEM, "plan", "out of memory");
        x->m = nm;
        x->cap = cap;
    }
    memset(x->m[x->n], 0, sizeof x->m[x->n]);
    memcpy(x->m[x->n], nodes, s->cfg->run->n_vary * sizeof *nodes);
    x->n++;
    return TM_OK;
}

static int fit_budget(const sim__plan_cfg *cfg, size_t t, const uint32_t *lo, const uint32_t *m,
                      double *spend, uint32_t (*alloc)[NV], int prebuy);

/* The cost above which no further mix of the period can be the greedy's
 * choice (INFINITY: any can). The greedy ranks the mixes by their own cost,
 * rolls out the K cheapest (K = SIM__PLAN_ROLLOUT_MIXES with a look-ahead,
 * else 1: its choice without a budget is one of them) and takes the first
 * in that order the budget can pay for, ordering in the arrival's period
 * (prebuy 0) before trying earlier orders. A mix costing more than both the
 * K-th cheapest mix found and the cheapest one found that the budget pays
 * for with prebuy 0 is outside the K (so it changes no roll-out and no
 * ranking among them) and ranks behind a mix that is taken before it: it
 * cannot be chosen. Mixes found later only lower both costs. */
static int prune_cost(srch *s, double *out)
{
    *out = INFINITY;
    if (!s->prev || !s->out)
        return TM_OK;
    const sim__plan_cfg *cfg = s->cfg;
    size_t K = cfg->lookahead > 0 ? SIM__PLAN_ROLLOUT_MIXES : 1, n = s->out->n;
    if (n < K)
        return TM_OK;
    double *c = malloc(n * sizeof *c), *spend = malloc(cfg->n_periods * sizeof *spend);
    uint32_t(*alloc)[NV] = calloc(cfg->n_periods, sizeof *alloc);
    int rc = TM_OK;
    if (!c || !spend || !alloc) {
        rc = tm_diag_set(s->diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    double fit = INFINITY;
    for (size_t i = 0; i < n; i++) {
        sim__size_eval e;
        if ((rc = sim__plan_lazy(cfg)
                      ? estimate_eval(cfg, s->pl, s->out->m[i], s->demand, &e, s->diag)
                      : plan_eval(cfg, s->pl, s->out->m[i], s->demand, &e, s->diag)))
            goto out;
        c[i] = period_usd(cfg, &e);
        memcpy(spend, s->spend, cfg->n_periods * sizeof *spend);
        if (c[i] < fit && fit_budget(cfg, s->t, s->prev, s->out->m[i], spend, alloc, 0))
            fit = c[i];
    }
    for (size_t i = 1; i < n; i++) /* sort, to read the K-th cheapest */
        for (size_t j = i; j > 0 && c[j - 1] > c[j]; j--) {
            double x = c[j];
            c[j] = c[j - 1];
            c[j - 1] = x;
        }
    *out = c[K - 1] > fit ? c[K - 1] : fit;
out:
    free(c);
    free(spend);
    free(alloc);
    return rc;
}

/* --verbose: a staircase step cut by the bound (pool k from `from` on). */
static void cut_log(const srch *s, const uint32_t *nodes, size_t k, uint32_t from, double c)
{
    FILE *log = s->cfg->run->log;
    if (!log)
        return;
    uint32_t f[NV] = {0};
    memcpy(f, nodes, s->cfg->run->n_vary * sizeof *f);
    f[k] = from;
    char fl[512];
    sim__size_fleet_format(fl, sizeof fl, s->cfg->run, f);
    fprintf(log,
            "  cut %s and more %s nodes at demand x%.3g: they cost at least $%.0f a period, "
            "above $%.0f (no such mix can be chosen)\n",
            fl, s->cfg->run->base->pools[s->cfg->run->vary[k]].name, s->demand,
            lower_usd(s->cfg, f), c);
    fflush(log);
}

/* The own cost of a mix found (cached: it was evaluated in full; lazily, its
 * estimate). */
static int mix_usd(srch *s, const uint32_t *nodes, double *usd)
{
    sim__size_eval e;
    int rc = sim__plan_lazy(s->cfg) ? estimate_eval(s->cfg, s->pl, nodes, s->demand, &e, s->diag)
                                    : plan_eval(s->cfg, s->pl, nodes, s->demand, &e, s->diag);
    if (rc == TM_OK)
        *usd = period_usd(s->cfg, &e);
    return rc;
}

/* The staircase walked up from its end a = lo_a, b = b_top: b can only fall
 * as a grows, so each step searches b below the last one. A step whose
 * bound at b's floor is above prune_cost ends the walk (the bound only
 * grows with a); one whose bound passes it inside the range searches only
 * below that count, and is cut when nothing passes there. */
static int stairs_up(srch *s, uint32_t *nodes, uint32_t a_end, uint32_t b_top)
{
    size_t nv = s->cfg->run->n_vary, ka = nv - 2, kb = nv - 1;
    const uint32_t *lo = s->lo, *hi = s->hi;
    int found, rc, none;
    uint32_t bhi = b_top, last_b = b_top;
    nodes[ka] = lo[ka];
    nodes[kb] = b_top;
    if ((rc = mix_add(s, nodes)))
        return rc;
    for (uint32_t a = lo[ka]; bhi > lo[kb] && a < a_end;) {
        nodes[ka] = ++a;
        double c;
        if ((rc = prune_cost(s, &c)))
            return rc;
        uint32_t cap = cost_cap(s->cfg, nodes, kb, lo[kb], bhi, c, &none);
        if (none) {
            cut_log(s, nodes, kb, lo[kb], c);
            break;
        }
        if (cap < bhi) {
            if ((rc = fewest(s, nodes, kb, lo[kb], cap, &found)))
                return rc;
            if (!found) {
                cut_log(s, nodes, kb, cap + 1, c);
                continue;
            }
        } else if (screened(s)) {
            /* the screen walks b down from the last b; the full evaluation
             * confirms where it stops */
            if ((rc = sim__size_fewest_down(screen_passes, s, nodes, kb, lo[kb], bhi)))
                return rc;
            found = 1;
            if (!sim__plan_lazy(s->cfg) &&
                (rc = confirm(s, nodes, kb, lo[kb], hi[kb], nodes[kb], 1, &found)))
                return rc;
            if (!found)
                continue;
        } else {
            /* gallop down from the last b (b-1, b-2, b-4, ...) to a
             * failing one, then bisect: O(log drop) */
            if ((rc = sim__size_fewest_down(passes, s, nodes, kb, lo[kb], bhi)))
                return rc;
        }
        uint32_t b = nodes[kb];
        if (b < last_b && (rc = mix_add(s, nodes)))
            return rc;
        if (b < last_b)
            last_b = b;
        bhi = b;
    }
    return TM_OK;
}

/* The staircase walked down from its end a = a_top (b at its floor): b can
 * only rise as a falls (b(a) >= b(a + 1)), so each step gallops b up from
 * the last one, only up to the count whose bound passes prune_cost, and not
 * at all when even the last b's bound does. */
static int stairs_down(srch *s, uint32_t *nodes, uint32_t a_top)
{
    size_t nv = s->cfg->run->n_vary, ka = nv - 2, kb = nv - 1;
    const uint32_t *lo = s->lo, *hi = s->hi;
    size_t first = s->out->n;
    int found, rc;
    uint32_t a = a_top, blo = lo[kb]; /* b(a) >= blo */
    int have_last = 0;
    uint32_t last_b = 0;
    for (;;) {
        nodes[ka] = a;
        double c;
        int none;
        if ((rc = prune_cost(s, &c)))
            return rc;
        uint32_t cap = cost_cap(s->cfg, nodes, kb, blo, hi[kb], c, &none);
        found = 0;
        if (!none && (rc = fewest(s, nodes, kb, blo, cap, &found)))
            return rc;
        if (found) {
            uint32_t b = nodes[kb];
            if (have_last && b == last_b) /* (a, b) has a node fewer than (a + 1, b) */
                memcpy(s->out->m[s->out->n - 1], nodes, nv * sizeof *nodes);
            else if ((rc = mix_add(s, nodes)))
                return rc;
            have_last = 1;
            last_b = blo = b;
        } else {
            have_last = 0;
            if (!none && cap >= hi[kb])
                break; /* no b passes with a nodes, nor with fewer */
            cut_log(s, nodes, kb, none ? blo : cap + 1, c);
            if (!none)
                blo = cap + 1; /* (a, cap) fails, so does (a - 1, cap) */
        }
        if (a == lo[ka])
            break;
        a--;
    }
    /* increasing a, the order the greedy ranks ties in */
    for (size_t i = first, j = s->out->n; j-- > i + 1; i++) {
        uint32_t x[NV];
        memcpy(x, s->out->m[i], sizeof x);
        memcpy(s->out->m[i], s->out->m[j], sizeof x);
        memcpy(s->out->m[j], x, sizeof x);
    }
    return TM_OK;
}

/* The staircase over the last two pools, the others as in nodes[]: its two
 * ends first (a_top, the fewest a with b at its floor; b_top, the fewest b
 * with a at its floor, on the screen alone when there is one: it is
 * confirmed in full only if the walk starts there), then the steps between
 * walked from the cheaper end, so that the steps whose mix cannot be chosen
 * (prune_cost, by the bound lower_usd) come last and are cut. Mixes are
 * recorded in increasing a. */
static int staircase(srch *s, uint32_t *nodes)
{
    size_t nv = s->cfg->run->n_vary, ka = nv - 2, kb = nv - 1;
    const uint32_t *lo = s->lo, *hi = s->hi;
    int fa, fb, rc;
    nodes[kb] = lo[kb];
    if ((rc = fewest(s, nodes, ka, lo[ka], hi[ka], &fa)))
        return rc;
    uint32_t a_top = fa ? nodes[ka] : hi[ka];
    nodes[ka] = lo[ka];
    int scr = screened(s);
    if ((rc = scr ? sim__size_fewest(screen_passes, s, nodes, kb, lo[kb], hi[kb], &fb)
                  : fewest(s, nodes, kb, lo[kb], hi[kb], &fb)))
        return rc;
    int up = fb;
    if (fa && fb) {
        double ua, ub;
        sim__size_eval e;
        uint32_t ea[NV] = {0};
        memcpy(ea, nodes, nv * sizeof *ea);
        ea[ka] = a_top;
        ea[kb] = lo[kb];
        if ((rc = mix_usd(s, ea, &ua)) ||
            (rc = scr ? screen_eval(s->cfg, s->pl, nodes, s->demand, &e, s->diag)
                      : mix_usd(s, nodes, &ub)))
            return rc;
        if (scr)
            ub = period_usd(s->cfg, &e);
        up = !(ua < ub);
    }
    if (up && scr && !sim__plan_lazy(s->cfg) &&
        (rc = confirm(s, nodes, kb, lo[kb], hi[kb], nodes[kb], fb, &fb)))
        return rc;
    return up && fb ? stairs_up(s, nodes, a_top, nodes[kb]) : stairs_down(s, nodes, a_top);
}

static int walk(srch *s, uint32_t *nodes, size_t k, const uint32_t *top)
{
    size_t nv = s->cfg->run->n_vary;
    if (k + 2 >= nv || k + 2 >= NV) /* nv <= NV */
        return staircase(s, nodes);
    for (uint32_t v = s->lo[k]; v <= top[k]; v++) {
        nodes[k] = v;
        int rc = walk(s, nodes, k + 1, top);
        if (rc != TM_OK || v == UINT32_MAX)
            return rc;
    }
    return TM_OK;
}

/* The minimal mixes in [lo, hi] that pass at `demand` in period t (none:
 * out->n 0), lo the fleet in service before it and spend the budget spent so
 * far: the mixes the greedy could choose (prune_cost), and possibly more. */
static int minimal_mixes(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, const uint32_t *lo,
                         const uint32_t *hi, double demand, const double *spend, mixes *out,
                         uint32_t *from, tm_diag *diag)
{
    size_t nv = cfg->run->n_vary;
    out->n = 0;
    /* the load bound raises the floor: fewer nodes do less work than arrives */
    uint32_t bound[NV] = {0}, nodes[NV] = {0};
    sim__size_load_floor(cfg->run, hi, demand, bound, NULL);
    for (size_t k = 0; k < nv; k++) {
        from[k] = bound[k] > lo[k] ? bound[k] : lo[k];
        if (from[k] > hi[k])
            from[k] = hi[k];
    }
    srch s = {cfg, pl, demand, from, hi, out, diag, t, lo, spend, 0};
    int rc = TM_OK, found;
    memcpy(nodes, from, nv * sizeof *nodes);
    if (nv == 1) {
        if ((rc = fewest(&s, nodes, 0, from[0], hi[0], &found)) == TM_OK && found)
            rc = mix_add(&s, nodes);
        return rc;
    }
    uint32_t top[NV] = {0};
    for (size_t k = 0; rc == TM_OK && k + 2 < nv; k++) {
        memcpy(nodes, from, nv * sizeof *nodes);
        rc = fewest(&s, nodes, k, from[k], hi[k], &found);
        top[k] = found ? nodes[k] : hi[k];
    }
    memcpy(nodes, from, nv * sizeof *nodes);
    return rc == TM_OK ? walk(&s, nodes, 0, top) : rc;
}

/* ------------------------------------------------------------------------- */
/* greedy                                                                     */

static void fleet_text(char *buf, size_t n, const sim__plan_cfg *cfg, const uint32_t *nodes)
{
    sim__size_fleet_format(buf, n, cfg->run, nodes);
}

static void fail_text(char *buf, size_t n, const sim__size_runner *r, const sim__size_eval *e)
{
    if (e->why == -2) {
        snprintf(buf, n, "%llu jobs can never fit", (unsigned long long)e->rejected);
    } else if (e->why >= 0) {
        char b[48], l[48];
        sim__size_term_format(b, sizeof b, &r->terms[e->why], e->bound[e->why]);
        sim__size_term_format(l, sizeof l, &r->terms[e->why], r->terms[e->why].limit);
        snprintf(buf, n, "%s fails (bound %s, limit %s)", r->terms[e->why].text, b, l);
    } else {
        snprintf(buf, n, "it meets the targets");
    }
}

/* The bounds of period t's fleet: at least lo (what is in service), at most
 * max_nodes where nodes can still arrive (t >= the pool's lead time). */
static void period_bounds(const sim__plan_cfg *cfg, size_t t, const uint32_t *lo, uint32_t *hi)
{
    for (size_t k = 0; k < cfg->run->n_vary; k++)
        hi[k] = t >= cfg->lead[k] && cfg->max_nodes[k] > lo[k] ? cfg->max_nodes[k] : lo[k];
}

/* The roll-out's budget fallback in period u (rollout): for each pool, the
 * fewest added nodes that meet the targets with the budget set aside
 * (within hi), ordered in u's order period as far as its budget has room and
 * the rest earlier, latest first, arriving no earlier than period t + 1 (as
 * fit_budget orders a chosen mix's); the roll-out's periods the earlier
 * arrivals reach are costed again with them (rf, rcost: the roll-out's
 * fleets and costs so far, by u - t - 1). The cheapest pool that can be paid
 * for so: *best its period-u cost, bn its fleet; rf, rcost, *cost and sp
 * updated for it. *best INFINITY (nothing changed) when no pool can be. */
static int rollout_prebuy(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, size_t u,
                          const uint32_t *cur, const uint32_t *hi, double *sp, uint32_t (*rf)[NV],
                          double *rcost, double *cost, uint32_t *bn, double *best, tm_diag *diag)
{
    size_t nv = cfg->run->n_vary, P = cfg->n_periods;
    int est = rollout_estimated(cfg), rc = TM_OK;
    double d = sim__plan_demand(cfg, u), best_total = INFINITY;
    *best = INFINITY;
    size_t best_k = 0;
    uint32_t best_arr[SIM__PLAN_MAX_PERIODS] = {0};
    double best_re[SIM__PLAN_MAX_PERIODS] = {0};
    srch s = {cfg, pl, d, cur, hi, NULL, diag, u, NULL, NULL, 0};
    for (size_t k = 0; k < nv; k++) {
        if (hi[k] <= cur[k] || u < cfg->lead[k])
            continue;
        uint32_t nodes[NV] = {0};
        memcpy(nodes, cur, sizeof nodes);
        int found;
        sim__size_eval e;
        if ((rc = est ? sim__size_fewest(estimate_passes, &s, nodes, k, cur[k], hi[k], &found)
                      : fewest(&s, nodes, k, cur[k], hi[k], &found)))
            return rc;
        if (!found || nodes[k] == cur[k])
            continue;
        /* where the added nodes can be ordered: arrival a from u down */
        uint32_t arr[SIM__PLAN_MAX_PERIODS] = {0}, left = nodes[k] - cur[k];
        double room_sp[SIM__PLAN_MAX_PERIODS];
        memcpy(room_sp, sp, P * sizeof *sp);
        for (size_t a = u + 1; left > 0 && a-- > t + 1 && a >= cfg->lead[k];) {
            size_t o = a - cfg->lead[k];
            double can = cfg->node_usd[k] > 0
                             ? floor((cfg->budget_usd - room_sp[o]) / cfg->node_usd[k] + 1e-9)
                             : INFINITY;
            if (!(can > 0))
                continue;
            uint32_t x = can >= left ? left : (uint32_t)can;
            arr[a] = x;
            room_sp[o] += x * cfg->node_usd[k];
            left -= x;
        }
        if (left > 0)
            continue;
        if ((rc = est ? estimate_eval(cfg, pl, nodes, d, &e, diag)
                      : plan_eval(cfg, pl, nodes, d, &e, diag)))
            return rc;
        double cu = period_usd(cfg, &e), total = cu, re[SIM__PLAN_MAX_PERIODS] = {0};
        uint32_t extra = 0;
        for (size_t a = t + 1; a < u; a++) {
            extra += arr[a];
            if (!extra)
                continue;
            uint32_t f[NV] = {0};
            memcpy(f, rf[a - t - 1], sizeof f);
            f[k] += extra;
            double da = sim__plan_demand(cfg, a);
            if ((rc = est ? estimate_eval(cfg, pl, f, da, &e, diag)
                          : plan_eval(cfg, pl, f, da, &e, diag)))
                return rc;
            re[a] = period_usd(cfg, &e);
            total += re[a] - rcost[a - t - 1];
        }
        if (total < best_total) {
            best_total = total;
            best_k = k;
            *best = cu;
            memcpy(bn, nodes, NV * sizeof *bn);
            memcpy(best_arr, arr, sizeof best_arr);
            memcpy(best_re, re, sizeof best_re);
        }
    }
    if (!isfinite(*best))
        return TM_OK;
    uint32_t extra = 0;
    for (size_t a = t + 1; a <= u; a++) {
        if (best_arr[a])
            sp[a - cfg->lead[best_k]] += best_arr[a] * cfg->node_usd[best_k];
        extra += best_arr[a];
        if (a < u && extra) {
            rf[a - t - 1][best_k] += extra;
            *cost += best_re[a] - rcost[a - t - 1];
            rcost[a - t - 1] = best_re[a];
        }
    }
    return TM_OK;
}

/* A myopic roll-out: the cost of periods t+1 .. t+h when each grows the
 * fleet of the period before in one pool only, the one whose fewest added
 * nodes that meet the period's targets cost least (a gallop and bisection
 * per pool: O(pools x log range) simulations a period, where the minimal
 * mixes would walk a staircase). The budget applies as to the chosen step,
 * without ordering earlier: spend0 (NULL: no budget) is what the periods'
 * orders have spent with the rolled-out mix bought, and a pool adds at most
 * the nodes its order period (u - its lead time) still has room for; the
 * roll-out's own orders are added as it goes. INFINITY when no single pool
 * can carry a period (within the budget). With a screen (rollout_estimated) every
 * verdict and cost in it is an estimate (estimate_eval: the memoised full
 * evaluation of the fleet at that demand, else the screen's), so a roll-out
 * simulates nothing in full; the period's choice is still among mixes
 * confirmed in full, and the roll-out only ranks them. */
static int rollout(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, const uint32_t *from,
                   const double *spend0, double *cost, tm_diag *diag)
{
    size_t nv = cfg->run->n_vary;
    uint32_t cur[NV] = {0}, hi[NV] = {0};
    memcpy(cur, from, nv * sizeof *cur);
    *cost = 0;
    double *sp = NULL;
    if (spend0 && isfinite(cfg->budget_usd)) {
        if (!(sp = malloc(cfg->n_periods * sizeof *sp)))
            return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        memcpy(sp, spend0, cfg->n_periods * sizeof *sp);
    }
    int rc = TM_OK, est = rollout_estimated(cfg);
    /* the roll-out's fleets and costs by period (u - t - 1), for the budget's
     * fallback */
    size_t H = cfg->lookahead;
    uint32_t(*rf)[NV] = calloc(H + 1, sizeof *rf);
    double *rcost = calloc(H + 1, sizeof *rcost);
    if (!rf || !rcost) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    for (size_t u = t + 1; u <= t + cfg->lookahead && u < cfg->n_periods; u++) {
        double d = sim__plan_demand(cfg, u);
        period_bounds(cfg, u, cur, hi);
        uint32_t hi_nb[NV] = {0}; /* the bounds without the budget's cap */
        memcpy(hi_nb, hi, sizeof hi_nb);
        for (size_t k = 0; sp && k < nv; k++) {
            if (hi[k] <= cur[k] || u < cfg->lead[k])
                continue;
            /* the nodes the order period can still pay for */
            double room = cfg->budget_usd - sp[u - cfg->lead[k]];
            double can = cfg->node_usd[k] > 0 ? floor(room / cfg->node_usd[k] + 1e-9) : INFINITY;
            can = can > 0 ? can : 0;
            if (can < (double)(hi[k] - cur[k]))
                hi[k] = cur[k] + (uint32_t)can;
        }
        if (cfg->screen && cfg->screen_cache) {
            /* bounded (with the screen): a pool may add at most three times
             * the nodes whose GPUs the period's added load needs (2 at
             * least); a pool that needs more is no way to carry it */
            double dg = sim__size_need_gpus(cfg->run->base, d) -
                        sim__size_need_gpus(cfg->run->base, sim__plan_demand(cfg, u - 1));
            for (size_t k = 0; k < nv; k++) {
                uint32_t gpn = cfg->run->base->pools[cfg->run->vary[k]].gpus_per_node;
                double add = gpn > 0 && dg > 0 ? ceil(3 * dg / gpn) : 2;
                add = add < 2 ? 2 : add;
                if ((double)hi[k] > cur[k] + add)
                    hi[k] = cur[k] + (uint32_t)add;
                if ((double)hi_nb[k] > cur[k] + add)
                    hi_nb[k] = cur[k] + (uint32_t)add;
            }
        }
        srch s = {cfg, pl, d, cur, hi, NULL, diag, u, NULL, NULL, 0};
        double best = INFINITY;
        uint32_t best_nodes[NV] = {0};
        for (size_t k = 0; k < nv; k++) {
            uint32_t nodes[NV] = {0};
            int found, none;
            memcpy(nodes, cur, sizeof nodes);
            /* a pool is taken only when strictly cheaper than the best so
             * far: counts whose cost bound is above it are not searched */
            uint32_t cap = cost_cap(cfg, nodes, k, cur[k], hi[k], best, &none);
            if (none)
                continue;
            sim__size_eval e;
            if (est) {
                if ((rc = sim__size_fewest(estimate_passes, &s, nodes, k, cur[k], cap, &found)))
                    goto out;
                if (found && (rc = estimate_eval(cfg, pl, nodes, d, &e, diag)))
                    goto out;
            } else {
                if ((rc = fewest(&s, nodes, k, cur[k], cap, &found)))
                    goto out;
                if (found && (rc = plan_eval(cfg, pl, nodes, d, &e, diag)))
                    goto out;
            }
            if (!found)
                continue;
            double c = period_usd(cfg, &e);
            if (c < best) {
                best = c;
                memcpy(best_nodes, nodes, sizeof best_nodes);
            }
        }
        if (!isfinite(best) && sp) {
            /* no pool within the budget of its order period: as the chosen
             * step does, order earlier (arriving earlier, latest first, not
             * before period t + 1) and cost the roll-out's periods between
             * again with the larger fleet; the cheapest such pool */
            if ((rc = rollout_prebuy(cfg, pl, t, u, cur, hi_nb, sp, rf, rcost, cost, best_nodes,
                                     &best, diag)))
                goto out;
            if (isfinite(best)) {
                *cost += best;
                memcpy(rf[u - t - 1], best_nodes, sizeof rf[0]);
                rcost[u - t - 1] = best;
                memcpy(cur, best_nodes, sizeof cur);
                continue;
            }
        }
        if (!isfinite(best)) {
            *cost = INFINITY;
            break;
        }
        *cost += best;
        for (size_t k = 0; sp && k < nv; k++)
            if (best_nodes[k] > cur[k])
                sp[u - cfg->lead[k]] += (best_nodes[k] - cur[k]) * cfg->node_usd[k];
        memcpy(rf[u - t - 1], best_nodes, sizeof rf[0]);
        rcost[u - t - 1] = best;
        memcpy(cur, best_nodes, sizeof cur);
    }
out:
    free(sp);
    free(rf);
    free(rcost);
    return rc;
}

/* Can the orders for Δ = m - lo arriving in period t be paid in the periods
 * they are ordered in? With prebuy, nodes that cannot be are ordered
 * earlier (to arrive earlier), latest first; alloc[s][k] are the arrivals
 * in period s (s <= t) and spend is updated. 0 when it cannot be done. */
static int fit_budget(const sim__plan_cfg *cfg, size_t t, const uint32_t *lo, const uint32_t *m,
                      double *spend, uint32_t (*alloc)[NV], int prebuy)
{
    size_t nv = cfg->run->n_vary;
    double *tmp = malloc(cfg->n_periods * sizeof *tmp);
    if (!tmp)
        return 0;
    memcpy(tmp, spend, cfg->n_periods * sizeof *tmp);
    for (size_t s = 0; s <= t; s++)
        memset(alloc[s], 0, sizeof alloc[s]);
    int ok = 1;
    for (size_t k = 0; ok && k < nv; k++) {
        uint32_t left = m[k] - lo[k];
        for (size_t s = t + 1; left > 0 && s-- > cfg->lead[k];) {
            if (!prebuy && s != t)
                break;
            size_t o = s - cfg->lead[k];
            double room = cfg->budget_usd - tmp[o];
            double can = cfg->node_usd[k] > 0 ? floor(room / cfg->node_usd[k] + 1e-9) : INFINITY;
            if (!(can > 0))
                continue;
            uint32_t x = can >= left ? left : (uint32_t)can;
            alloc[s][k] += x;
            tmp[o] += x * cfg->node_usd[k];
            left -= x;
        }
        ok = left == 0;
    }
    if (ok)
        memcpy(spend, tmp, cfg->n_periods * sizeof *tmp);
    free(tmp);
    return ok;
}

/* The fleet with one node fewer in one pool, simulated at the period's
 * demand (the pool whose node costs most first): its spread. */
static void fewer_spread(const sim__plan_cfg *cfg, sim__plan_period *p)
{
    size_t nv = cfg->run->n_vary;
    p->fewer_pool = -1;
    const sim__size_cache *c = cfg->cache;
    double best_usd = -1;
    for (size_t k = 0; k < nv; k++) {
        /* the pool the chosen fleet was confirmed in, when its neighbour was
         * simulated (the confirmation's own evidence), else the dearest */
        if (p->nodes[k] == 0 || (p->conf_pool >= 0 && p->fewer_pool == p->conf_pool))
            continue;
        uint32_t f[NV] = {0};
        memcpy(f, p->nodes, sizeof f);
        f[k]--;
        for (size_t i = 0; i < c->n; i++)
            if (c->e[i].demand == p->demand && !memcmp(c->e[i].nodes, f, nv * sizeof *f) &&
                (cfg->node_usd[k] > best_usd || (int)k == p->conf_pool)) {
                best_usd = cfg->node_usd[k];
                p->fewer_pool = (int)k;
                p->fewer_meeting = c->e[i].eval.reps_meeting;
                p->fewer_runs = c->e[i].eval.replications;
            }
    }
}

/* Orders from arrivals, costs from evaluations. */
static void finish(const sim__plan_cfg *cfg, sim__plan *pl)
{
    size_t nv = cfg->run->n_vary;
    pl->own_usd = 0;
    for (size_t t = 0; t < pl->n_periods; t++) {
        memset(pl->p[t].order, 0, sizeof pl->p[t].order);
        pl->p[t].order_usd = 0;
    }
    for (size_t t = 0; t < pl->n_periods; t++) {
        sim__plan_period *p = &pl->p[t];
        for (size_t k = 0; k < nv; k++)
            if (p->arrive[k] && t >= cfg->lead[k]) {
                sim__plan_period *o = &pl->p[t - cfg->lead[k]];
                o->order[k] += p->arrive[k];
                o->order_usd += p->arrive[k] * cfg->node_usd[k];
            }
        p->own_usd = period_usd(cfg, &p->eval);
        pl->own_usd += p->own_usd;
        fewer_spread(cfg, p);
    }
}

static void log_period(const sim__plan_cfg *cfg, const sim__plan *pl, size_t t)
{
    if (!cfg->log)
        return;
    const sim__plan_period *p = &pl->p[t];
    char fl[512];
    fleet_text(fl, sizeof fl, cfg, p->nodes);
    fprintf(cfg->log,
            "plan: period %zu of %zu (demand x%.3g): %s, %u of %u replications meet the "
            "targets (%zu fleets simulated so far)\n",
            t + 1, cfg->n_periods, p->demand, fl, p->eval.reps_meeting, p->eval.replications,
            cfg->cache->n);
    fflush(cfg->log);
}

/* ------------------------------------------------------------------------- */
/* the candidates of a period: ranking, confirmation and their evidence       */

/* The pool a mix's count was searched in (plan's staircase: the last pool,
 * unless it is at its floor and the one before is not: the staircase's
 * a_top end), which its confirmation walks. */
static size_t mix_pool(const sim__plan_cfg *cfg, const uint32_t *from, const uint32_t *m)
{
    size_t nv = cfg->run->n_vary;
    if (nv == 1)
        return 0;
    return m[nv - 1] == from[nv - 1] && m[nv - 2] > from[nv - 2] ? nv - 2 : nv - 1;
}

/* What the screen and the full evaluation said about candidate c at
 * demand d (looked up, never simulated here). */
static void cand_verdicts(const sim__plan_cfg *cfg, const sim__plan *pl, sim__plan_cand *c,
                          double d)
{
    const sim__size_eval *s =
        cfg->screen && cfg->screen_cache ? cache_find(cfg, cfg->screen_cache, c->nodes, d) : NULL;
    /* the full evaluations this search made or used (its memo): not the shared
     * cache, which may hold the exact search's grid */
    const sim__size_eval *f = cache_find(cfg, &pl->memo, c->nodes, d);
    c->screen = s ? s->pass : -1;
    c->screen_runs = s ? s->replications : 0;
    c->screen_meeting = s ? s->reps_meeting : 0;
    c->screen_usd = s ? period_usd(cfg, s) : NAN;
    c->full = f ? f->pass : -1;
    c->full_runs = f ? f->replications : 0;
    c->full_meeting = f ? f->reps_meeting : 0;
}

/* Record a candidate of period t with what the screen and the full
 * evaluation said about it. A mix recorded before for the same period (the
 * lazy pass's, when the period is searched again) is updated in place, so
 * each mix of a period is listed once. */
static int note_cand(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, double d, const uint32_t *m,
                     size_t pool, int origin, double usd, double ahead, int chosen, tm_diag *diag)
{
    size_t nv = cfg->run->n_vary, i = pl->n_cand;
    while (i-- > 0 && pl->cand[i].period == t)
        if (memcmp(pl->cand[i].nodes, m, nv * sizeof *m) == 0)
            break;
    if (i == SIZE_MAX || pl->cand[i].period != t) { /* not listed yet */
        if (pl->n_cand == pl->cap_cand) {
            size_t cap = pl->cap_cand ? 2 * pl->cap_cand : 32;
            sim__plan_cand *nc = realloc(pl->cand, cap * sizeof *nc);
            if (!nc)
                return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
            pl->cand = nc;
            pl->cap_cand = cap;
        }
        i = pl->n_cand++;
        memset(&pl->cand[i], 0, sizeof pl->cand[i]);
        pl->cand[i].period = (uint32_t)t;
        memcpy(pl->cand[i].nodes, m, nv * sizeof *m);
    }
    sim__plan_cand *c = &pl->cand[i];
    c->pool = (int)pool;
    c->origin = origin;
    c->usd = usd;
    c->ahead = ahead;
    c->chosen = chosen;
    cand_verdicts(cfg, pl, c, d);
    return TM_OK;
}

/* The roll-out from mix m of period t (rollout), with the budget as the
 * greedy would spend it buying m (in its arrival's order period, else
 * earlier; a mix the budget cannot pay for at all rolls out with the budget
 * as it is); --verbose prints it. */
static int rollout_from(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, const uint32_t *prev,
                        const double *spend, const uint32_t *m, double *ahead, tm_diag *diag)
{
    size_t P = cfg->n_periods;
    double *sp = NULL;
    *ahead = 0;
    if (isfinite(cfg->budget_usd)) {
        sp = malloc(P * sizeof *sp);
        uint32_t(*tmp)[NV] = calloc(P, sizeof *tmp);
        if (!sp || !tmp) {
            free(sp);
            free(tmp);
            return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        }
        int ok = 0;
        for (int prebuy = 0; !ok && prebuy <= 1; prebuy++) {
            memcpy(sp, spend, P * sizeof *sp);
            ok = fit_budget(cfg, t, prev, m, sp, tmp, prebuy);
        }
        if (!ok)
            memcpy(sp, spend, P * sizeof *sp);
        free(tmp);
    }
    int rc = rollout(cfg, pl, t, m, sp, ahead, diag);
    free(sp);
    if (rc == TM_OK && cfg->log) {
        char fl[512];
        fleet_text(fl, sizeof fl, cfg, m);
        if (isfinite(*ahead))
            fprintf(cfg->log, "  roll-out from %s: $%.0f over the periods ahead\n", fl, *ahead);
        else
            fprintf(cfg->log, "  roll-out from %s: no single pool carries a period ahead%s\n", fl,
                    isfinite(cfg->budget_usd) ? " within the budget" : "");
        fflush(cfg->log);
    }
    return rc;
}

/* Period t has no fleet that meets its targets (up to hi): say why, from
 * the largest fleet's full evaluation. */
static int fail_none(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, double d,
                     const uint32_t *prev, const uint32_t *hi, tm_diag *diag)
{
    sim__size_eval e;
    int rc = plan_eval(cfg, pl, hi, d, &e, diag);
    if (rc)
        return rc;
    char fl[512], why[640];
    fleet_text(fl, sizeof fl, cfg, hi);
    fail_text(why, sizeof why, cfg->run, &e);
    if (!memcmp(hi, prev, cfg->run->n_vary * sizeof *hi))
        snprintf(pl->why, sizeof pl->why,
                 "period %zu (demand x%.3g): no node ordered now can arrive before "
                 "it (lead times), and the fleet in service then (%s) fails: %s",
                 t + 1, d, fl, why);
    else
        snprintf(pl->why, sizeof pl->why,
                 "period %zu (demand x%.3g): no fleet within --max-nodes meets the "
                 "targets; the largest (%s): %s",
                 t + 1, d, fl, why);
    pl->fail_period = (int64_t)t;
    return TM_OK;
}

/* Period t's best mix m cannot be paid for, not even ordered earlier. */
static void fail_budget(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, double d,
                        const uint32_t *prev, const uint32_t *m)
{
    char fl[512];
    fleet_text(fl, sizeof fl, cfg, m);
    double need = 0;
    for (size_t k = 0; k < cfg->run->n_vary; k++)
        need += (m[k] - prev[k]) * cfg->node_usd[k];
    char b[48], n[48];
    sim__cost_fmt_usd(b, sizeof b, cfg->budget_usd);
    sim__cost_fmt_usd(n, sizeof n, need);
    snprintf(pl->why, sizeof pl->why,
             "period %zu (demand x%.3g): the budget of %s per period cannot pay for "
             "the nodes the period needs (the best mix that meets the targets, %s, "
             "adds %s of nodes), not even ordered earlier",
             t + 1, d, b, fl, n);
    pl->fail_period = (int64_t)t;
}

/* A candidate of the lazy ranking. */
typedef struct lz {
    uint32_t m[NV];
    size_t pool;
    int origin; /* as sim__plan_cand's */
    int active; /* still a candidate */
    int conf;   /* passed in full, one node fewer in its pool failing in full (or at the floor) */
    double usd; /* its own cost: the full one when confirmed, else the estimate */
    int has_ahead;
    double ahead;
    int floor_checked; /* at its pool's floor: another pool walked down (lazy_period) */
} lz;

/* A count the full evaluation reached (passing in full, one node fewer in
 * pool k failing in full) as a candidate of the lazy ranking: the entry with
 * those nodes when there is one, else a new one (origin 1); confirmed,
 * ranked by its full cost. */
static int lz_add(lz **e, size_t **ord, size_t *n, size_t *cap, const sim__plan_cfg *cfg,
                  sim__plan *pl, double d, const uint32_t *nodes, size_t k, tm_diag *diag)
{
    sim__size_eval ev;
    int rc = plan_eval(cfg, pl, nodes, d, &ev, diag);
    if (rc)
        return rc;
    size_t j = 0;
    while (j < *n && memcmp((*e)[j].m, nodes, sizeof(*e)[j].m))
        j++;
    if (j == *n) {
        if (*n == *cap) {
            size_t nc = 2 * *cap;
            lz *ne = realloc(*e, nc * sizeof *ne);
            if (!ne)
                return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
            *e = ne;
            size_t *no = realloc(*ord, nc * sizeof *no);
            if (!no)
                return tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
            *ord = no;
            *cap = nc;
        }
        memset(&(*e)[j], 0, sizeof(*e)[j]);
        memcpy((*e)[j].m, nodes, sizeof(*e)[j].m);
        (*e)[j].pool = k;
        (*e)[j].origin = 1;
        (*n)++;
    }
    (*e)[j].active = 1;
    (*e)[j].conf = 1;
    (*e)[j].usd = period_usd(cfg, &ev);
    return TM_OK;
}

/* Lazy confirmation (docs/plan.md, "Confirmation"): the period's minimal
 * mixes found on the screen (mx) are ranked as the greedy ranks them, on
 * their estimated own costs (the memoised full evaluation, else the
 * screen's) and the roll-outs of the cheapest SIM__PLAN_ROLLOUT_MIXES; the
 * first in that ranking the budget can pay for is confirmed in full along
 * its pool (confirm: passes in full, one node fewer failing in full). When
 * the confirmation lands on another count (the screen was lenient, or the
 * mix had a node to spare), that count replaces the candidate, ranked by
 * its full cost, and the ranking is read again; when nothing in the pool
 * passes in full, the candidate is dropped. Each round confirms or drops an
 * unconfirmed candidate, so it ends; what it returns (pick, alloc and spend
 * updated) has passed in full. *why: 0 chosen, 1 no candidate passes in
 * full, 2 the budget pays for none. Every candidate is recorded
 * (note_cand). */
static int lazy_period(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, double d,
                       const uint32_t *prev, const uint32_t *from, const uint32_t *hi,
                       double *spend, uint32_t (*alloc)[NV], const mixes *mx, uint32_t *pick,
                       int *pick_pool, int *why, tm_diag *diag)
{
    size_t nv = cfg->run->n_vary, P = cfg->n_periods;
    size_t n = mx->n, cap = 2 * n + 8;
    lz *e = calloc(cap, sizeof *e);
    size_t *ord = calloc(cap, sizeof *ord);
    double *tsp = malloc(P * sizeof *tsp);
    uint32_t(*talloc)[NV] = calloc(P, sizeof *talloc);
    int rc = TM_OK, chosen = -1;
    *why = 0;
    *pick_pool = -1;
    if (!e || !ord || !tsp || !talloc) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(e[i].m, mx->m[i], sizeof e[i].m);
        e[i].pool = mix_pool(cfg, from, e[i].m);
        e[i].active = 1;
        sim__size_eval ev;
        if ((rc = estimate_eval(cfg, pl, e[i].m, d, &ev, diag)))
            goto out;
        e[i].usd = period_usd(cfg, &ev);
    }
    if (n == 0) { /* the screen passes nothing: no candidate; the caller
                   * searches again with every answer confirmed in full */
        *why = 1;
        goto out;
    }
    for (;;) {
        size_t na = 0;
        for (size_t i = 0; i < n; i++) /* by own cost, ties in the order found */
            if (e[i].active) {
                size_t j = na++;
                while (j > 0 && e[ord[j - 1]].usd > e[i].usd) {
                    ord[j] = ord[j - 1];
                    j--;
                }
                ord[j] = i;
            }
        if (na == 0) {
            *why = 1;
            break;
        }
        size_t nr = na > 1 && cfg->lookahead > 0 ? na : 0;
        if (nr > SIM__PLAN_ROLLOUT_MIXES)
            nr = SIM__PLAN_ROLLOUT_MIXES;
        for (size_t j = 0; j < nr; j++) {
            lz *x = &e[ord[j]];
            if (!x->has_ahead &&
                (rc = rollout_from(cfg, pl, t, prev, spend, x->m, &x->ahead, diag)))
                goto out;
            x->has_ahead = 1;
        }
        for (size_t j = 1; j < nr; j++) { /* the rolled-out ones by score, ahead of the rest */
            size_t x = ord[j], i = j;
            double sx = e[x].usd + e[x].ahead;
            while (i > 0 && e[ord[i - 1]].usd + e[ord[i - 1]].ahead > sx) {
                ord[i] = ord[i - 1];
                i--;
            }
            ord[i] = x;
        }
        int head = -1;
        for (int prebuy = 0; head < 0 && prebuy <= 1; prebuy++)
            for (size_t i = 0; head < 0 && i < na; i++) {
                memcpy(tsp, spend, P * sizeof *tsp);
                if (fit_budget(cfg, t, prev, e[ord[i]].m, tsp, talloc, prebuy))
                    head = (int)ord[i];
            }
        if (head < 0) {
            *why = 2;
            break;
        }
        lz *h = &e[head];
        srch s = {cfg, pl, d, from, hi, NULL, diag, t, NULL, NULL, 0};
        uint32_t nodes[NV] = {0};
        memcpy(nodes, h->m, sizeof nodes);
        int found;
        if (h->conf && !h->floor_checked && h->m[h->pool] <= from[h->pool]) {
            /* its confirmed pool is at its floor, so no fleet one node
             * smaller was simulated there: walk the dearest other pool that
             * grew down in full the same way (one node fewer failing: the
             * spread's neighbour); a count that passes below replaces it */
            h->floor_checked = 1;
            int j = -1;
            for (size_t q = 0; q < nv; q++)
                if (q != h->pool && h->m[q] > from[q] &&
                    (j < 0 || cfg->node_usd[q] > cfg->node_usd[j]))
                    j = (int)q;
            if (j >= 0) {
                if ((rc = sim__size_fewest_confirm(passes, &s, nodes, (size_t)j, from[j], hi[j],
                                                   h->m[j], 1, &found, NULL)))
                    goto out;
                if (found && !memcmp(nodes, h->m, sizeof nodes)) {
                    h->pool = (size_t)j;
                } else if (found) {
                    h->active = 0;
                    if ((rc = lz_add(&e, &ord, &n, &cap, cfg, pl, d, nodes, (size_t)j, diag)))
                        goto out;
                    continue;
                }
            }
        }
        if (h->conf) {
            chosen = head;
            memcpy(spend, tsp, P * sizeof *spend);
            memcpy(alloc, talloc, P * sizeof *alloc);
            break;
        }
        /* confirm the head in full along its pool */
        size_t k = h->pool;
        if ((rc = confirm(&s, nodes, k, from[k], hi[k], h->m[k], 1, &found)))
            goto out;
        sim__size_eval ev;
        if (found && (rc = plan_eval(cfg, pl, nodes, d, &ev, diag)))
            goto out;
        if (cfg->log) {
            char a[512], b[512];
            fleet_text(a, sizeof a, cfg, h->m);
            fleet_text(b, sizeof b, cfg, nodes);
            fprintf(cfg->log, "  confirm %s in full: %s\n", a,
                    !found                              ? "no count of its pool passes in full"
                    : memcmp(nodes, h->m, sizeof nodes) ? b
                    : nodes[k] > from[k]                ? "passes, one node fewer fails"
                                                        : "passes (its pool at its floor)");
            fflush(cfg->log);
        }
        if (found && !memcmp(nodes, h->m, sizeof nodes)) {
            h->conf = 1;
            h->usd = period_usd(cfg, &ev);
            continue;
        }
        h->active = 0;
        if (found && (rc = lz_add(&e, &ord, &n, &cap, cfg, pl, d, nodes, k, diag)))
            goto out;
    }
    if (chosen >= 0) {
        memcpy(pick, e[chosen].m, nv * sizeof *pick);
        *pick_pool = (int)e[chosen].pool;
    }
    for (size_t i = 0; i < n && i < cap; i++)
        if ((rc = note_cand(cfg, pl, t, d, e[i].m, e[i].pool, e[i].origin, e[i].usd,
                            e[i].has_ahead ? e[i].ahead : NAN, (int)i == chosen, diag)))
            goto out;
out:
    free(e);
    free(ord);
    free(tsp);
    free(talloc);
    return rc;
}

/* The period's choice when every search's answer was confirmed as it was
 * reached (no screen, or --confirm-all): the minimal mixes (mx, all passing
 * in full) ranked by their own cost, the cheapest SIM__PLAN_ROLLOUT_MIXES
 * re-ranked by their roll-outs and kept ahead of the others; the first the
 * budget pays for (ordered in the arrival's period, else earlier) into
 * pick, with spend and alloc. pl->fail_period set when none can be
 * (pl->why says why). Every mix is recorded (note_cand). */
static int full_period(const sim__plan_cfg *cfg, sim__plan *pl, size_t t, double d,
                       const uint32_t *prev, const uint32_t *hi, double *spend,
                       uint32_t (*alloc)[NV], const mixes *mx, const uint32_t *from, uint32_t *pick,
                       tm_diag *diag)
{
    size_t nv = cfg->run->n_vary, n = mx->n;
    if (n == 0)
        return fail_none(cfg, pl, t, d, prev, hi, diag);
    double *own = malloc(n * sizeof *own), *ahead = malloc(n * sizeof *ahead);
    size_t *ord = malloc(n * sizeof *ord);
    int rc = TM_OK, chosen = -1;
    if (!own || !ahead || !ord) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        sim__size_eval e;
        if ((rc = plan_eval(cfg, pl, mx->m[i], d, &e, diag)))
            goto out;
        own[i] = period_usd(cfg, &e);
        ahead[i] = NAN;
    }
    /* candidates cheapest first (ties: the order walked) */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && own[ord[j - 1]] > own[i]) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    /* the roll-out, for the few cheapest mixes of this period only (a
     * roll-out is a search per period ahead): they are re-ranked by their
     * cost with it, and stay ahead of the others */
    size_t nr = n > 1 && cfg->lookahead > 0 ? n : 0;
    if (nr > SIM__PLAN_ROLLOUT_MIXES)
        nr = SIM__PLAN_ROLLOUT_MIXES;
    for (size_t j = 0; j < nr; j++)
        if ((rc = rollout_from(cfg, pl, t, prev, spend, mx->m[ord[j]], &ahead[ord[j]], diag)))
            goto out;
    for (size_t j = 1; j < nr; j++) {
        size_t x = ord[j], i = j;
        while (i > 0 && own[ord[i - 1]] + ahead[ord[i - 1]] > own[x] + ahead[x]) {
            ord[i] = ord[i - 1];
            i--;
        }
        ord[i] = x;
    }
    for (int prebuy = 0; chosen < 0 && prebuy <= 1; prebuy++)
        for (size_t i = 0; chosen < 0 && i < n; i++)
            if (fit_budget(cfg, t, prev, mx->m[ord[i]], spend, alloc, prebuy))
                chosen = (int)ord[i];
    if (chosen < 0)
        fail_budget(cfg, pl, t, d, prev, mx->m[ord[0]]);
    else
        memcpy(pick, mx->m[chosen], nv * sizeof *pick);
    for (size_t i = 0; i < n; i++)
        if ((rc = note_cand(cfg, pl, t, d, mx->m[i], mix_pool(cfg, from, mx->m[i]), 0, own[i],
                            ahead[i], (int)i == chosen, diag)))
            goto out;
out:
    free(own);
    free(ahead);
    free(ord);
    return rc;
}

int sim__plan_greedy(const sim__plan_cfg *cfg, sim__plan *pl, tm_diag *diag)
{
    memset(pl, 0, sizeof *pl);
    pl->fail_period = -1;
    size_t P = cfg->n_periods, nv = cfg->run->n_vary;
    if (P < 1 || P > SIM__PLAN_MAX_PERIODS || nv < 1 || nv > NV)
        return tm_diag_set(diag, TM_ERR_INVAL, "plan", "1 to %d periods and 1 to %d pools",
                           SIM__PLAN_MAX_PERIODS, NV);
    pl->p = calloc(P, sizeof *pl->p);
    double *spend = calloc(P, sizeof *spend);
    uint32_t(*alloc)[NV] = calloc(P, sizeof *alloc);
    mixes mx = {0};
    int rc = TM_OK;
    if (!pl->p || !spend || !alloc) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    for (size_t t = 0; t < P; t++)
        pl->p[t].conf_pool = -1;
    uint32_t prev[NV] = {0}, hi[NV] = {0};
    memcpy(prev, cfg->installed, nv * sizeof *prev);
    for (size_t t = 0; t < P; t++) {
        double d = sim__plan_demand(cfg, t);
        period_bounds(cfg, t, prev, hi);
        uint32_t from[NV] = {0}, pick[NV] = {0};
        if ((rc = minimal_mixes(cfg, pl, t, prev, hi, d, spend, &mx, from, diag)))
            goto out;
        int conf_pool = -1, again = 0;
        if (sim__plan_lazy(cfg)) {
            int why;
            if ((rc = lazy_period(cfg, pl, t, d, prev, from, hi, spend, alloc, &mx, pick,
                                  &conf_pool, &why, diag)))
                goto out;
            if (why) {
                /* no candidate of the screen's passes in full (or none the
                 * budget pays for): the screen's search (its cuts on
                 * estimated costs, a lenient or harsh verdict) may have
                 * missed a mix, so the period is searched again with every
                 * answer confirmed in full before no schedule is declared */
                sim__plan_cfg all = *cfg;
                all.confirm_all = 1;
                if (cfg->log) {
                    fprintf(cfg->log,
                            "  period %zu: %s; searched again with every answer confirmed "
                            "in full\n",
                            t + 1,
                            why == 1 ? "no candidate of the screen's passes in full"
                                     : "the budget pays for no candidate confirmed in full");
                    fflush(cfg->log);
                }
                if ((rc = minimal_mixes(&all, pl, t, prev, hi, d, spend, &mx, from, diag)) ||
                    (rc = full_period(&all, pl, t, d, prev, hi, spend, alloc, &mx, from, pick,
                                      diag)) ||
                    pl->fail_period >= 0)
                    goto out;
                conf_pool = -1;
                again = 1;
                /* the lazy pass's candidates the second search did not list
                 * again: what the full evaluations now say of them */
                for (size_t i = pl->n_cand; i-- > 0 && pl->cand[i].period == t;)
                    cand_verdicts(cfg, pl, &pl->cand[i], d);
            }
        } else if ((rc = full_period(cfg, pl, t, d, prev, hi, spend, alloc, &mx, from, pick,
                                     diag)) ||
                   pl->fail_period >= 0) {
            goto out;
        }
        /* earlier arrivals raise the fleets of the periods between */
        for (size_t s = 0; s < t; s++)
            for (size_t k = 0; k < nv; k++)
                if (alloc[s][k]) {
                    pl->p[s].arrive[k] += alloc[s][k];
                    for (size_t u = s; u < t; u++)
                        pl->p[u].nodes[k] += alloc[s][k];
                }
        for (size_t s = 0; s < t; s++) {
            int changed = 0;
            for (size_t k = 0; k < nv; k++)
                changed |= alloc[s][k] != 0;
            for (size_t u = s; changed && u < t; u++)
                if ((rc =
                         plan_eval(cfg, pl, pl->p[u].nodes, pl->p[u].demand, &pl->p[u].eval, diag)))
                    goto out;
        }
        sim__plan_period *p = &pl->p[t];
        p->demand = d;
        memcpy(p->nodes, pick, sizeof p->nodes);
        p->conf_pool = conf_pool;
        p->searched_again = again;
        for (size_t k = 0; k < nv; k++)
            p->arrive[k] = alloc[t][k];
        if ((rc = plan_eval(cfg, pl, p->nodes, d, &p->eval, diag)))
            goto out;
        pl->n_periods = t + 1;
        memcpy(prev, p->nodes, sizeof prev);
        log_period(cfg, pl, t);
    }
    pl->found = 1;
out:
    if (rc == TM_OK || rc == TM_ERR_INTERRUPTED)
        finish(cfg, pl);
    if (rc != TM_OK && rc != TM_ERR_INTERRUPTED)
        sim__plan_fini(pl);
    free(mx.m);
    free(spend);
    free(alloc);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* exact                                                                      */

typedef struct grid {
    size_t n; /* fleets in the period's grid */
    uint32_t (*nodes)[NV];
    double *usd; /* own cost; INFINITY when it fails the targets */
    size_t *ord; /* cheapest first */
} grid;

typedef struct dfs {
    const sim__plan_cfg *cfg;
    grid *g;
    double *suffix; /* the cheapest passing fleets of periods t.. */
    double *spend;
    size_t *cur, *best_pick;
    double best;
    size_t visits, max_visits;
    volatile int *stop;
} dfs;

static int dfs_walk(dfs *x, size_t t, const uint32_t *prev, double cost)
{
    const sim__plan_cfg *cfg = x->cfg;
    size_t nv = cfg->run->n_vary;
    if (t == cfg->n_periods) {
        if (cost < x->best) {
            x->best = cost;
            memcpy(x->best_pick, x->cur, cfg->n_periods * sizeof *x->cur);
        }
        return TM_OK;
    }
    if (++x->visits > x->max_visits)
        return TM_ERR_LIMIT;
    if (x->stop && *x->stop)
        return TM_ERR_INTERRUPTED;
    const grid *g = &x->g[t];
    for (size_t j = 0; j < g->n; j++) {
        size_t i = g->ord[j];
        double c = g->usd[i];
        if (!isfinite(c))
            break; /* the rest fail too: sorted */
        if (cost + c + x->suffix[t + 1] >= x->best * (1 - 1e-12))
            break; /* sorted: every later one costs more */
        const uint32_t *f = g->nodes[i];
        int ge = 1;
        for (size_t k = 0; k < nv; k++)
            ge &= f[k] >= prev[k];
        if (!ge)
            continue;
        /* the budget of the periods these arrivals are ordered in */
        int ok = 1;
        for (size_t k = 0; k < nv; k++)
            if (f[k] > prev[k])
                x->spend[t - cfg->lead[k]] += (f[k] - prev[k]) * cfg->node_usd[k];
        for (size_t k = 0; k < nv; k++)
            if (f[k] > prev[k] && x->spend[t - cfg->lead[k]] > cfg->budget_usd * (1 + 1e-12))
                ok = 0;
        int rc = TM_OK;
        if (ok) {
            x->cur[t] = i;
            rc = dfs_walk(x, t + 1, f, cost + c);
        }
        for (size_t k = 0; k < nv; k++)
            if (f[k] > prev[k])
                x->spend[t - cfg->lead[k]] -= (f[k] - prev[k]) * cfg->node_usd[k];
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

int sim__plan_exact(const sim__plan_cfg *cfg, sim__plan *pl, tm_diag *diag)
{
    memset(pl, 0, sizeof *pl);
    pl->exact = 1;
    pl->fail_period = -1;
    size_t P = cfg->n_periods, nv = cfg->run->n_vary;
    if (P < 1 || P > SIM__PLAN_MAX_PERIODS || nv < 1 || nv > NV)
        return tm_diag_set(diag, TM_ERR_INVAL, "plan", "1 to %d periods and 1 to %d pools",
                           SIM__PLAN_MAX_PERIODS, NV);
    /* the grid's size first: refuse before simulating anything */
    size_t total = 0, cap = cfg->exact_max_fleets ? cfg->exact_max_fleets : 4000;
    for (size_t t = 0; t < P; t++) {
        double n = 1;
        for (size_t k = 0; k < nv; k++) {
            uint32_t hi = t >= cfg->lead[k] && cfg->max_nodes[k] > cfg->installed[k]
                              ? cfg->max_nodes[k]
                              : cfg->installed[k];
            n *= (double)(hi - cfg->installed[k] + 1);
        }
        if (n > (double)cap || total + (size_t)n > cap)
            return tm_diag_set(diag, TM_ERR_USAGE, "--exact",
                               "the exact search would simulate more than %zu fleets (periods "
                               "x the node grid up to --max-nodes): give a smaller "
                               "--max-nodes or fewer periods, or plan without --exact",
                               cap);
        total += (size_t)n;
    }
    grid *g = calloc(P, sizeof *g);
    double *suffix = calloc(P + 1, sizeof *suffix), *spend = calloc(P, sizeof *spend);
    size_t *cur = calloc(P, sizeof *cur), *pick = calloc(P, sizeof *pick);
    int rc = TM_OK;
    if (!g || !suffix || !spend || !cur || !pick) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    for (size_t t = 0; t < P; t++) {
        double d = sim__plan_demand(cfg, t);
        uint32_t hi[NV] = {0};
        period_bounds(cfg, t, cfg->installed, hi);
        size_t n = 1;
        for (size_t k = 0; k < nv; k++)
            n *= hi[k] - cfg->installed[k] + 1;
        g[t].n = n;
        g[t].nodes = calloc(n, sizeof *g[t].nodes);
        g[t].usd = calloc(n, sizeof *g[t].usd);
        g[t].ord = calloc(n, sizeof *g[t].ord);
        if (!g[t].nodes || !g[t].usd || !g[t].ord) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
            goto out;
        }
        double lb = INFINITY;
        for (size_t i = 0; i < n; i++) {
            size_t r = i;
            for (size_t k = nv; k-- > 0;) {
                uint32_t span = hi[k] - cfg->installed[k] + 1;
                g[t].nodes[i][k] = cfg->installed[k] + (uint32_t)(r % span);
                r /= span;
            }
            sim__size_eval e;
            if ((rc = plan_eval(cfg, pl, g[t].nodes[i], d, &e, diag)))
                goto out;
            g[t].usd[i] = e.pass ? period_usd(cfg, &e) : INFINITY;
            if (g[t].usd[i] < lb)
                lb = g[t].usd[i];
            /* insertion into the order, cheapest first */
            size_t j = i;
            while (j > 0 && g[t].usd[g[t].ord[j - 1]] > g[t].usd[i]) {
                g[t].ord[j] = g[t].ord[j - 1];
                j--;
            }
            g[t].ord[j] = i;
        }
        if (cfg->log) {
            fprintf(cfg->log, "plan --exact: period %zu of %zu: %zu fleets simulated\n", t + 1, P,
                    cfg->cache->n);
            fflush(cfg->log);
        }
        if (!isfinite(lb)) {
            snprintf(pl->why, sizeof pl->why,
                     "period %zu (demand x%.3g): no fleet of the grid meets the targets", t + 1, d);
            pl->fail_period = (int64_t)t;
            goto out;
        }
        suffix[t] = lb;
    }
    for (size_t t = P; t-- > 0;)
        suffix[t] += suffix[t + 1];
    dfs x = {cfg, g, suffix, spend, cur, pick, INFINITY, 0, 50000000, cfg->run->stop_flag};
    uint32_t start[NV] = {0};
    memcpy(start, cfg->installed, nv * sizeof *start);
    rc = dfs_walk(&x, 0, start, 0);
    pl->schedules = x.visits;
    if (rc == TM_ERR_LIMIT) {
        rc = tm_diag_set(diag, TM_ERR_USAGE, "--exact",
                         "the exact search visited more than %zu partial schedules: give a "
                         "smaller --max-nodes or fewer periods",
                         x.max_visits);
        goto out;
    }
    if (rc == TM_ERR_INTERRUPTED) {
        tm_diag_set(diag, rc, "plan", "interrupted during the exact search");
        goto out;
    }
    if (!isfinite(x.best)) {
        snprintf(pl->why, sizeof pl->why,
                 "no schedule meets the targets in every period within the budget and the "
                 "lead times");
        goto out;
    }
    pl->p = calloc(P, sizeof *pl->p);
    if (!pl->p) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plan", "out of memory");
        goto out;
    }
    pl->n_periods = P;
    for (size_t t = 0; t < P; t++) {
        sim__plan_period *p = &pl->p[t];
        p->conf_pool = -1;
        p->demand = sim__plan_demand(cfg, t);
        memcpy(p->nodes, g[t].nodes[pick[t]], sizeof p->nodes);
        for (size_t k = 0; k < nv; k++)
            p->arrive[k] = p->nodes[k] - (t ? pl->p[t - 1].nodes[k] : cfg->installed[k]);
        if ((rc = plan_eval(cfg, pl, p->nodes, p->demand, &p->eval, diag)))
            goto out;
    }
    pl->found = 1;
    finish(cfg, pl);
out:
    for (size_t t = 0; g && t < P; t++) {
        free(g[t].nodes);
        free(g[t].usd);
        free(g[t].ord);
    }
    free(g);
    free(suffix);
    free(spend);
    free(cur);
    free(pick);
    if (rc != TM_OK)
        sim__plan_fini(pl);
    return rc;
}
