/*
 * size.c — sizing by simulation: targets, the monotone search over nodes per
 * pool (and over mixes of pools), growth, and the evaluation that runs the
 * engine with replications (the layers and the decision rule: size_int.h;
 * the method for users: docs/cost.md §6; the target syntax: docs/cli.md).
 *
 * The search never looks at how a fleet is evaluated: it calls the
 * evaluation through a function pointer and caches the answers, so running
 * candidates elsewhere replaces one pointer. The evaluation here runs a
 * candidate's replications on the worker pool of work.c (-j N).
 */
#include "studies/size_int.h"

#include "studies/compare_int.h"
#include "model/cost_int.h"
#include "model/metrics_int.h"
#include "model/service_int.h"
#include "studies/work_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

static const struct {
    const char *name, *units;
    int lower_is_better, scope, pad;
    const char *desc;
} metrics[SIM__SIZE_N_METRICS] = {
#define SIM__SIZE_ROW_(id, name, units, lower, scope, desc) {name, units, lower, scope, 0, desc},
    SIM__SIZE_METRICS(SIM__SIZE_ROW_)
#undef SIM__SIZE_ROW_
};

const char *sim__size_metric_name(int m)
{
    return m >= 0 && m < SIM__SIZE_N_METRICS ? metrics[m].name : "?";
}

const char *sim__size_metric_units(int m)
{
    return m >= 0 && m < SIM__SIZE_N_METRICS ? metrics[m].units : "?";
}

/* ------------------------------------------------------------------------- */
/* targets                                                                    */

static int parse_duration_s(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1},        {"m", 60}, {"min", 60},
                 {"h", 3600},  {"d", 86400}, {"w", 604800.0}, {"", 1}};
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x) || x < 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = x * units[i].s;
            return 0;
        }
    return -1;
}

static int parse_ratio(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return -1;
    if (strcmp(end, "%") == 0)
        x /= 100;
    else if (*end)
        return -1;
    if (x < 0)
        return -1;
    *out = x;
    return 0;
}

void sim__size_term_format(char *buf, size_t n, const sim__size_term *t, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else if (strcmp(metrics[t->metric].units, "s") != 0)
        snprintf(buf, n, "%.4g", v);
    else if (v < 60)
        snprintf(buf, n, "%.3g s", v);
    else if (v < 3600)
        snprintf(buf, n, "%.3g min", v / 60);
    else if (v < 2 * 86400)
        snprintf(buf, n, "%.3g h", v / 3600);
    else
        snprintf(buf, n, "%.3g d", v / 86400);
}

static void trim(char *s)
{
    size_t a = 0, b = strlen(s);
    while (s[a] == ' ' || s[a] == '\t')
        a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
        b--;
    memmove(s, s + a, b - a);
    s[b - a] = '\0';
}

static int bad_term(tm_diag *diag, const char *term, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_term(tm_diag *diag, const char *term, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tm_diag_set(diag, TM_ERR_USAGE, "--target", "'%s': %s", term, msg);
}

static int parse_term(const char *text, const sim_scenario *sc, sim__size_term *out, size_t max,
                      size_t *n, tm_diag *diag)
{
    char t[256];
    snprintf(t, sizeof t, "%s", text);
    trim(t);
    if (!t[0])
        return tm_diag_set(diag, TM_ERR_USAGE, "--target", "an empty term (two commas?)");
    size_t i = 0;
    while (t[i] && (islower((unsigned char)t[i]) || isdigit((unsigned char)t[i]) || t[i] == '_'))
        i++;
    char name[64];
    if (i == 0 || i >= sizeof name)
        return bad_term(diag, t, "expected METRIC[SCOPE]OP VALUE, e.g. wait_p95<=10m");
    memcpy(name, t, i);
    name[i] = '\0';
    int m = -1;
    for (int k = 0; k < SIM__SIZE_N_METRICS; k++)
        if (strcmp(name, metrics[k].name) == 0)
            m = k;
    if (m < 0) {
        char list[256] = "";
        size_t len = 0;
        for (int k = 0; k < SIM__SIZE_N_METRICS; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
                                    metrics[k].name);
        return tm_diag_set(diag, TM_ERR_USAGE, "--target", "'%s': unknown metric '%s' (one of %s)",
                           t, name, list);
    }
    char scope[SIM_NAME_MAX] = "";
    int has_scope = 0;
    if (t[i] == '[') {
        const char *close = strchr(t + i, ']');
        size_t len = close ? (size_t)(close - (t + i + 1)) : 0;
        if (!close || len == 0 || len >= sizeof scope)
            return bad_term(diag, t, "a scope is a class or service name in brackets");
        memcpy(scope, t + i + 1, len);
        scope[len] = '\0';
        has_scope = 1;
        i = (size_t)(close - t) + 1;
    }
    while (t[i] == ' ')
        i++;
    int le, strict;
    if (strncmp(t + i, "<=", 2) == 0) {
        le = 1, strict = 0, i += 2;
    } else if (strncmp(t + i, ">=", 2) == 0) {
        le = 0, strict = 0, i += 2;
    } else if (t[i] == '<') {
        le = 1, strict = 1, i += 1;
    } else if (t[i] == '>') {
        le = 0, strict = 1, i += 1;
    } else {
        return bad_term(diag, t, "expected an operator <=, >=, < or > after the metric");
    }
    char val[64];
    snprintf(val, sizeof val, "%s", t + i);
    trim(val);
    double limit;
    int is_s = strcmp(metrics[m].units, "s") == 0;
    if (is_s && parse_duration_s(val, &limit))
        return bad_term(diag, t,
                        "expected a duration (\"10m\", \"90s\", \"2h\", seconds), got '%s'", val);
    if (!is_s && parse_ratio(val, &limit))
        return bad_term(
            diag, t, "expected a number >= 0 or a percentage (\"0.99\", \"99%%\"), got '%s'", val);
    if (!is_s && m != SIM__SIZE_SLOWDOWN && limit > 1)
        return bad_term(diag, t, "a share is at most 1 (100%%), got '%s'", val);
    if (le != metrics[m].lower_is_better)
        return tm_diag_set(diag, TM_ERR_USAGE, "--target",
                           "'%s': %s %s as the fleet grows, so the target must be '%s': with '%s' "
                           "a larger fleet could not help",
                           t, name, le ? "rises" : "falls", le ? ">=" : "<=", le ? "<=" : ">=");
    int sc_scope = metrics[m].scope;
    size_t first = 0, last = 0; /* service terms expand over services */
    int idx = -1;
    if (sc_scope == 0) {
        if (sc->n_classes == 0)
            return bad_term(diag, t, "the scenario has no job classes");
        if (has_scope) {
            for (size_t k = 0; k < sc->n_classes; k++)
                if (strcmp(sc->classes[k].name, scope) == 0)
                    idx = (int)k;
            if (idx < 0)
                return bad_term(diag, t, "no class named '%s' in the scenario", scope);
        }
        first = last = 0;
    } else {
        if (sc->n_services == 0)
            return bad_term(diag, t, "the scenario has no services");
        if (has_scope) {
            for (size_t k = 0; k < sc->n_services; k++)
                if (strcmp(sc->services[k].cfg.name, scope) == 0)
                    idx = (int)k;
            if (idx < 0)
                return bad_term(diag, t, "no service named '%s' in the scenario", scope);
            first = last = (size_t)idx;
        } else {
            first = 0;
            last = sc->n_services - 1;
        }
    }
    for (size_t k = first; k <= last; k++) {
        if (*n == max)
            return tm_diag_set(diag, TM_ERR_USAGE, "--target", "more than %zu terms", max);
        sim__size_term *o = &out[(*n)++];
        memset(o, 0, sizeof *o);
        o->metric = m;
        o->le = le;
        o->strict = strict;
        o->limit = limit;
        o->scope = sc_scope == 0 ? idx : (int)k;
        if (sc_scope == 1 && !has_scope)
            snprintf(o->text, sizeof o->text, "%s[%s]%s%s", name, sc->services[k].cfg.name,
                     le ? (strict ? "<" : "<=") : (strict ? ">" : ">="), val);
        else
            snprintf(o->text, sizeof o->text, "%s", t);
    }
    return TM_OK;
}

int sim__size_parse_targets(const char *spec, const sim_scenario *sc, sim__size_term *out,
                            size_t max, size_t *n, tm_diag *diag)
{
    *n = 0;
    if (!spec || !*spec)
        return tm_diag_set(diag, TM_ERR_USAGE, "--target", "no targets given");
    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char term[256];
        if (len >= sizeof term)
            return tm_diag_set(diag, TM_ERR_USAGE, "--target", "a term longer than %zu bytes",
                               sizeof term - 1);
        memcpy(term, p, len);
        term[len] = '\0';
        int rc = parse_term(term, sc, out, max, n, diag);
        if (rc != TM_OK)
            return rc;
        if (!comma)
            break;
        p = comma + 1;
    }
    return TM_OK;
}

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

static int passes(search *s, const uint32_t *nodes, int *ok)
{
    const sim__size_eval *e;
    int rc = eval_at(s, nodes, &e);
    if (rc == TM_OK)
        *ok = e->pass;
    return rc;
}

/* The fewest nodes of pool k in [lo, hi] that pass with the other pools as in
 * nodes[] (which it leaves with nodes[k] = the answer, or hi when none):
 * galloping from lo (lo, lo+1, lo+3, lo+7, ...) then bisection; *found 0
 * when even hi fails. O(log(answer - lo)) evaluations. */
static int min_in_pool(search *s, uint32_t *nodes, size_t k, uint32_t lo, uint32_t hi, int *found)
{
    int ok, rc;
    *found = 0;
    nodes[k] = lo;
    if ((rc = passes(s, nodes, &ok)) || ok) {
        *found = rc == TM_OK;
        return rc;
    }
    uint32_t bad = lo, good = 0, step = 1;
    for (;;) {
        uint32_t next = hi - bad > step ? bad + step : hi;
        nodes[k] = next;
        if ((rc = passes(s, nodes, &ok)))
            return rc;
        if (ok) {
            good = next;
            break;
        }
        if (next == hi) {
            nodes[k] = hi;
            return TM_OK;
        }
        bad = next;
        step *= 2;
    }
    while (good - bad > 1) {
        uint32_t mid = bad + (good - bad) / 2;
        nodes[k] = mid;
        if ((rc = passes(s, nodes, &ok)))
            return rc;
        if (ok)
            good = mid;
        else
            bad = mid;
    }
    nodes[k] = good;
    *found = 1;
    return TM_OK;
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

/* ------------------------------------------------------------------------- */
/* the evaluation that simulates                                              */

typedef struct cls_acc {
    sim_quantiles wait; /* started jobs, and waiting ones with the wait so far */
    double wait_sum_s;
    uint64_t n_wait;
    double slowdown_sum;
    uint64_t n_done;
    uint64_t dl_met, dl_missed;
} cls_acc;

typedef struct run_acc {
    int64_t warm_us;
    size_t n; /* classes; c[n] is all of them */
    cls_acc *c;
    uint64_t rejected;
} run_acc;

static void acc_one(cls_acc *a, const sim_job_row *r, int64_t end_us)
{
    if (r->state != SIM_JOB_REJECTED) {
        a->wait_sum_s += (double)r->wait_us / SIM_US_PER_S;
        a->n_wait++;
        sim__quant_add(&a->wait, r->wait_us > 0 ? r->wait_us : 0);
    }
    if (r->state == SIM_JOB_COMPLETED) {
        double run_s = (double)r->run_us / SIM_US_PER_S, wait_s = (double)r->wait_us / SIM_US_PER_S;
        double sd = (wait_s + run_s) / (run_s > 10 ? run_s : 10);
        a->slowdown_sum += sd > 1 ? sd : 1;
        a->n_done++;
    }
    if (r->deadline_us >= 0) {
        if (r->state == SIM_JOB_COMPLETED && r->end_us <= r->deadline_us)
            a->dl_met++;
        else if (r->state == SIM_JOB_COMPLETED)
            a->dl_missed++;
        else if (r->deadline_us <= end_us || r->state == SIM_JOB_FAILED)
            a->dl_missed++; /* unfinished past its deadline */
    }
}

static int acc_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    run_acc *a = ud;
    if (r->state == SIM_JOB_REJECTED)
        a->rejected++;
    if (r->submit_us < a->warm_us)
        return TM_OK;
    /* the end of the run, as the row shows it: waiting jobs waited to it,
     * running ones ran to it */
    int64_t end_us = r->state == SIM_JOB_QUEUED    ? r->submit_us + r->wait_us
                     : r->state == SIM_JOB_RUNNING ? r->start_us + r->run_us
                                                   : INT64_MAX;
    if (r->cls < a->n)
        acc_one(&a->c[r->cls], r, end_us);
    acc_one(&a->c[a->n], r, end_us);
    return TM_OK;
}

static void acc_fini(run_acc *a)
{
    for (size_t i = 0; a->c && i <= a->n; i++)
        sim__quant_fini(&a->c[i].wait);
    free(a->c);
}

static int acc_init(run_acc *a, size_t n, int64_t warm_us)
{
    memset(a, 0, sizeof *a);
    a->warm_us = warm_us;
    a->n = n;
    a->c = calloc(n + 1, sizeof *a->c);
    if (!a->c)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i <= n; i++)
        if (sim__quant_init(&a->c[i].wait) != TM_OK) {
            acc_fini(a);
            return TM_ERR_NOMEM;
        }
    return TM_OK;
}

static double term_value(const sim__size_term *t, const run_acc *a, const sim_result *res)
{
    const cls_acc *c = t->scope >= 0 && (size_t)t->scope < a->n ? &a->c[t->scope] : &a->c[a->n];
    const double us = 1.0 / SIM_US_PER_S;
    switch (t->metric) {
    case SIM__SIZE_WAIT_MEAN:
        return c->n_wait ? c->wait_sum_s / (double)c->n_wait : 0.0;
    case SIM__SIZE_WAIT_P50:
        return c->n_wait ? sim__quant_get(&c->wait, 0.50) * us : 0.0;
    case SIM__SIZE_WAIT_P95:
        return c->n_wait ? sim__quant_get(&c->wait, 0.95) * us : 0.0;
    case SIM__SIZE_WAIT_P99:
        return c->n_wait ? sim__quant_get(&c->wait, 0.99) * us : 0.0;
    case SIM__SIZE_SLOWDOWN:
        return c->n_done ? c->slowdown_sum / (double)c->n_done : NAN;
    case SIM__SIZE_DEADLINE: {
        uint64_t n = c->dl_met + c->dl_missed;
        return n ? (double)c->dl_met / (double)n : 1.0;
    }
    case SIM__SIZE_SLO: {
        const sim_service_result *v = &res->services[t->scope];
        if (isfinite(v->attainment))
            return v->attainment;
        return v->req_demanded > 0 ? 0.0 : 1.0; /* nothing kept on the fleet */
    }
    case SIM__SIZE_API_SHARE: {
        const sim_service_result *v = &res->services[t->scope];
        return v->req_demanded > 0 ? v->req_api / v->req_demanded : 0.0;
    }
    default:
        return NAN;
    }
}

/* Replicas of service c the fleet of rs could host (at least 1, as the
 * autoscaler's max must be). */
static uint32_t fleet_replicas(const sim_scenario *rs, const sim__svc_cfg *c)
{
    uint64_t n = 0;
    for (size_t p = 0; p < rs->n_pools; p++) {
        const sim_pool_cfg *pc = &rs->pools[p];
        if (sim__svc_type_ok(c, pc->type) && c->replica_gpus > 0)
            n += (uint64_t)pc->nodes * (pc->gpus_per_node / c->replica_gpus);
    }
    return n < 1 ? 1u : n > 1000000 ? 1000000u : (uint32_t)n;
}

/* The scenario of one evaluation: the base with its searched pools resized,
 * rates scaled and (for breakeven) services made elastic. Shallow: only the
 * arrays it changes are copied (free them with free_run). */
static int build_run(const sim__size_runner *r, const uint32_t *nodes, double demand,
                     sim_scenario *rs)
{
    const sim_scenario *b = r->base;
    *rs = *b;
    rs->pools = malloc((b->n_pools ? b->n_pools : 1) * sizeof *rs->pools);
    rs->classes = malloc((b->n_classes ? b->n_classes : 1) * sizeof *rs->classes);
    rs->services = malloc((b->n_services ? b->n_services : 1) * sizeof *rs->services);
    if (!rs->pools || !rs->classes || !rs->services) {
        free(rs->pools);
        free(rs->classes);
        free(rs->services);
        return TM_ERR_NOMEM;
    }
    /* a scenario without classes or services has NULL arrays: memcpy must not see them */
    if (b->n_pools)
        memcpy(rs->pools, b->pools, b->n_pools * sizeof *rs->pools);
    if (b->n_classes)
        memcpy(rs->classes, b->classes, b->n_classes * sizeof *rs->classes);
    if (b->n_services)
        memcpy(rs->services, b->services, b->n_services * sizeof *rs->services);
    for (size_t k = 0; k < r->n_vary; k++)
        rs->pools[r->vary[k]].nodes = nodes[k];
    for (size_t c = 0; c < rs->n_classes; c++)
        rs->classes[c].arrival.rate_per_s *= demand;
    for (size_t s = 0; s < rs->n_services; s++) {
        sim_service_spec *v = &rs->services[s];
        v->cfg.load.rate_per_s *= demand;
        v->special.load.rate_per_s *= demand;
        if (r->services_elastic) {
            /* the fleet, not the autoscaler's cap, limits the replicas (the
             * cap becomes the replicas the fleet could host: a larger one
             * only queues replicas that can never be placed), and what it
             * cannot serve within the SLO counts as missed */
            v->cfg.overflow = v->special.overflow = SIM__SVC_OVERFLOW_MISS;
            v->cfg.max_replicas = fleet_replicas(rs, &v->cfg);
            v->special.max_replicas = fleet_replicas(rs, &v->special);
        }
    }
    return TM_OK;
}

static void free_run(sim_scenario *rs)
{
    free(rs->pools);
    free(rs->classes);
    free(rs->services);
}

/* The cost of run `res` with every pool priced as `own` (-1: as given). */
static int cost_as(const sim_scenario *rs, const sim_result *res, int own, sim__cost_report *cr,
                   tm_diag *diag)
{
    if (own < 0)
        return sim__cost_account(rs, res, cr, diag);
    sim_scenario s2 = *rs;
    s2.pools = malloc((rs->n_pools ? rs->n_pools : 1) * sizeof *s2.pools);
    if (!s2.pools)
        return tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    memcpy(s2.pools, rs->pools, rs->n_pools * sizeof *s2.pools);
    for (size_t p = 0; p < rs->n_pools; p++)
        s2.pools[p].ownership = (sim_ownership)own;
    int rc = sim__cost_account(&s2, res, cr, diag);
    free(s2.pools);
    return rc;
}

void sim__size_fleet_format(char *buf, size_t n, const sim__size_runner *r, const uint32_t *nodes)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < r->n_vary && len < n; k++) {
        const sim_pool_cfg *pc = &r->base->pools[r->vary[k]];
        len += (size_t)snprintf(buf + len, n - len, "%s%s %u node%s (%llu %s)", k ? ", " : "",
                                pc->name, nodes[k], nodes[k] == 1 ? "" : "s",
                                (unsigned long long)nodes[k] * pc->gpus_per_node,
                                r->base->types[pc->type].name);
    }
}

/* One replication's measurements: what the worker pool carries back from a
 * worker process (a fixed size and no pointers). cost[] holds the monthly
 * cost of the fleet as given and as owned, reserved and on demand
 * (SIM__SIZE_AS_*), then the API spend, the tokens demanded, their API list
 * price (per month) and the owned fleet's operating cost per month. */
typedef struct rep_out {
    double vals[SIM__SIZE_MAX_TERMS];
    double cost[8];
    double capex_usd, alloc_util, busy_util;
    uint64_t rejected, events;
} rep_out;

typedef struct rep_ctx {
    const sim__size_runner *r;
    const sim_scenario *rs;
} rep_ctx;

/* sim__work_fn: replication `rep` of the candidate fleet. */
static int eval_rep(void *ud, size_t rep, void *outp, tm_diag *diag)
{
    const rep_ctx *x = ud;
    const sim__size_runner *r = x->r;
    const sim_scenario *rs = x->rs;
    rep_out *o = outp;
    run_acc acc;
    if (acc_init(&acc, rs->n_classes, r->warmup_us) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    sim_run_opts ro = {.replication = (uint32_t)rep, .stop_flag = r->stop_flag};
    sim_sink sink = {acc_job, NULL, &acc};
    sim_result res;
    int rc = sim_run(rs, &ro, &sink, &res, diag);
    if (rc != TM_OK) {
        acc_fini(&acc);
        return rc;
    }
    o->events = res.events;
    o->rejected = acc.rejected;
    for (size_t i = 0; i < r->n_terms; i++)
        o->vals[i] = term_value(&r->terms[i], &acc, &res);
    for (int as = 0; rc == TM_OK && as < SIM__SIZE_N_AS; as++) {
        sim__cost_report cr;
        rc = cost_as(rs, &res, as == SIM__SIZE_AS_GIVEN ? -1 : as - 1, &cr, diag);
        if (rc != TM_OK)
            break;
        double month = cr.hours > 0 ? SIM_HOURS_PER_MONTH / cr.hours : NAN;
        o->cost[as] = cr.usd_per_month;
        if (as == SIM__SIZE_AS_GIVEN) {
            o->cost[4] = cr.api_usd * month;
            double tok = 0, list = 0;
            for (size_t s = 0; s < rs->n_services; s++) {
                const sim_service_result *v = &res.services[s];
                double pin, pout;
                int api;
                sim__cost_service_price(rs, s, &pin, &pout, &api);
                tok += v->tok_in_demanded + v->tok_out_demanded;
                list += (v->tok_in_demanded * pin + v->tok_out_demanded * pout) / 1e6;
            }
            o->cost[5] = tok * month;
            o->cost[6] = list * month;
        } else if (as == SIM__SIZE_AS_OWNED) {
            o->capex_usd = cr.capex_usd; /* the same in every replication */
            o->cost[7] = cr.owned_opex_usd * month;
        }
        sim__cost_report_fini(&cr);
    }
    o->alloc_util = res.alloc_util;
    o->busy_util = res.busy_util;
    sim_result_fini(&res);
    acc_fini(&acc);
    return rc;
}

int sim__size_runner_eval(void *ud, const uint32_t *nodes, double demand, sim__size_eval *out,
                          tm_diag *diag)
{
    sim__size_runner *r = ud;
    memset(out, 0, sizeof *out);
    uint32_t R = r->replications ? r->replications : 1;
    size_t nt = r->n_terms;
    sim_scenario rs;
    if (build_run(r, nodes, demand, &rs) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    double *vals = calloc((size_t)R * (nt ? nt : 1), sizeof *vals);
    double *cost = calloc((size_t)R * 8, sizeof *cost);
    rep_out *reps = calloc(R, sizeof *reps);
    int rc =
        vals && cost && reps ? TM_OK : tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    out->n_terms = nt;
    out->replications = R;
    for (size_t p = 0; p < rs.n_pools; p++)
        out->gpus += (double)rs.pools[p].nodes * rs.pools[p].gpus_per_node;
    /* the replications run on the worker pool (-j); each has its own random
     * streams, so the answer is the same for any number of workers */
    if (rc == TM_OK) {
        rep_ctx x = {r, &rs};
        sim__work_opts wo = {.workers = r->workers ? r->workers : 1,
                             .out_size = sizeof(rep_out),
                             .stop_on_error = 1,
                             .stop_flag = r->stop_flag};
        rc = sim__work_run(R, eval_rep, &x, &wo, reps, NULL, NULL, diag);
    }
    for (uint32_t rep = 0; rc == TM_OK && rep < R; rep++) {
        const rep_out *o = &reps[rep];
        r->runs++;
        r->events += o->events;
        out->rejected += o->rejected;
        for (size_t i = 0; i < nt; i++)
            vals[(size_t)rep * nt + i] = o->vals[i];
        memcpy(&cost[(size_t)rep * 8], o->cost, sizeof o->cost);
        out->capex_usd = o->capex_usd;
        out->alloc_util += o->alloc_util / R;
        out->busy_util += o->busy_util / R;
    }
    if (rc == TM_OK) {
        double t = R >= 2 ? sim__t_quantile(2 * r->confidence - 1, R) : 0;
        out->pass = out->rejected == 0;
        out->why = out->rejected ? -2 : -1;
        for (size_t i = 0; i < nt; i++) {
            const sim__size_term *tm = &r->terms[i];
            double m, sd, lo, hi;
            int nan = 0;
            for (uint32_t rep = 0; rep < R; rep++)
                nan |= isnan(vals[(size_t)rep * nt + i]);
            sim__stat_interval(&vals[i], R, nt, t, &m, &sd, &lo, &hi);
            double half = R >= 2 && sd > 0 ? (hi - lo) / 2 : 0;
            double bound = tm->le ? m + half : m - half;
            out->mean[i] = m;
            out->bound[i] = nan ? NAN : bound;
            int ok = !nan && (tm->le ? (tm->strict ? bound < tm->limit : bound <= tm->limit)
                                     : (tm->strict ? bound > tm->limit : bound >= tm->limit));
            if (!ok && out->pass) {
                out->pass = 0;
                out->why = (int)i;
            }
        }
        for (int k = 0; k < 8; k++) {
            double sum = 0;
            for (uint32_t rep = 0; rep < R; rep++)
                sum += cost[(size_t)rep * 8 + (size_t)k];
            double mean = sum / R;
            if (k < SIM__SIZE_N_AS)
                out->usd_per_month[k] = mean;
            else if (k == 4)
                out->api_usd_per_month = mean;
            else if (k == 5)
                out->tokens_per_month = mean;
            else if (k == 6)
                out->api_list_usd_per_month = mean;
            else
                out->owned_opex_usd_per_month = mean;
        }
        if (r->log) {
            char fleet[512], why[512] = "meets the targets";
            sim__size_fleet_format(fleet, sizeof fleet, r, nodes);
            if (out->why == -2)
                snprintf(why, sizeof why, "fails: %llu jobs can never fit",
                         (unsigned long long)out->rejected);
            else if (out->why >= 0) {
                char b[48];
                sim__size_term_format(b, sizeof b, &r->terms[out->why], out->bound[out->why]);
                snprintf(why, sizeof why, "fails %s (bound %s)", r->terms[out->why].text, b);
            }
            fprintf(r->log, "  simulated %s at demand x%.3g: %s, $%.0f/month\n", fleet, demand, why,
                    out->usd_per_month[SIM__SIZE_AS_GIVEN]);
            fflush(r->log);
        }
    }
    free(vals);
    free(cost);
    free(reps);
    free_run(&rs);
    return rc;
}
