/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gittins_dist.c — each class's distribution of GPU service per job,
 * discretised for Tiresias' Gittins index (gittins=class; gittins_int.h,
 * docs/tiresias.md).
 *
 * Each configured distribution becomes points with probabilities: a constant
 * one point; a discrete one its values; an empirical one its values (each
 * 1/n) when there are at most SIM_GITTINS_MAX_POINTS, else quantiles; a
 * parametric one SIM_GITTINS_QUANTILES quantiles at the mid-points of equal
 * bins ((k + 1/2) / N), found by bisection on the exact CDF. Each quantile is
 * clamped to the distribution's [min, max], as its samples are. GPU counts
 * are rounded as the synthesizer rounds them (nearest integer, at least 1),
 * shares to whole milli-GPUs in [1, 1000]. The service of a job is then
 *   duration classes: GPUs x share x duration
 *   work classes:     share x work / e(GPUs), e(g) = scaling ^ log2(g)
 * (the run time is work / (g e(g))), over the product of the independent
 * draws; equal values merge, and a product of more than
 * SIM_GITTINS_MAX_POINTS points is cut to that many equal-probability bins,
 * each at its mid-quantile. A specialised class keeps its own distributions
 * (those of the jobs before the specialisation).
 */
#include "model/gittins_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpt {
    double v, p;
} gpt;

int sim__gittins_spec(const char *spec)
{
    if (!spec)
        return 0;
    while (*spec == ' ' || *spec == '\t')
        spec++;
    size_t len = strcspn(spec, " \t");
    if (len != 14 || strncmp(spec, "tiresias-2dlas", 14) != 0)
        return 0;
    for (const char *p = spec + len; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t l = strcspn(p, " \t");
        if (l == 13 && strncmp(p, "gittins=class", 13) == 0)
            return 1;
        p += l;
    }
    return 0;
}

static int gpt_cmp(const void *a, const void *b)
{
    const gpt *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Sort and merge equal values; returns the new count. */
static uint32_t merge(gpt *p, uint32_t n)
{
    if (n > 1)
        qsort(p, n, sizeof *p, gpt_cmp);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (m > 0 && p[m - 1].v == p[k].v)
            p[m - 1].p += p[k].p;
        else
            p[m++] = p[k];
    }
    return m;
}

/* The p-quantile of d before clamping, by bisection on its CDF. */
static double quantile(const trace_dist *d, double p)
{
    if (trace_dist_cdf(d, 0.0) >= p)
        return 0.0;
    double m = trace_dist_mean(d), hi = isfinite(m) && m > 1 ? m : 1.0, lo = 0.0;
    while (trace_dist_cdf(d, hi) < p) {
        lo = hi;
        hi *= 2;
        if (!(hi < 1e300))
            return hi;
    }
    for (int k = 0; k < 200 && hi - lo > 1e-12 * hi; k++) {
        double mid = lo + (hi - lo) / 2;
        if (trace_dist_cdf(d, mid) >= p)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static double clamp(const trace_dist *d, double x)
{
    if (x < d->min)
        x = d->min;
    if (x > d->max)
        x = d->max;
    return x;
}

/* d as at most SIM_GITTINS_MAX_POINTS points into *out (malloc'd). */
static int points_of(const trace_dist *d, gpt **out, uint32_t *n)
{
    uint32_t m;
    if (d->kind == TRACE_DIST_CONSTANT)
        m = 1;
    else if (d->kind == TRACE_DIST_DISCRETE)
        m = (uint32_t)d->n;
    else if (d->kind == TRACE_DIST_EMPIRICAL && d->n <= SIM_GITTINS_MAX_POINTS)
        m = (uint32_t)d->n;
    else
        m = SIM_GITTINS_QUANTILES;
    if (d->kind == TRACE_DIST_DISCRETE && d->n > SIM_GITTINS_MAX_POINTS * 64)
        return TM_ERR_LIMIT;
    gpt *p = malloc((m ? m : 1) * sizeof *p);
    if (!p)
        return TM_ERR_NOMEM;
    if (d->kind == TRACE_DIST_CONSTANT) {
        p[0] = (gpt){clamp(d, d->p[0]), 1.0};
    } else if (d->kind == TRACE_DIST_DISCRETE) {
        for (uint32_t k = 0; k < m; k++)
            p[k] = (gpt){clamp(d, d->values[k]), d->weights[k]};
    } else if (d->kind == TRACE_DIST_EMPIRICAL && m == d->n) {
        for (uint32_t k = 0; k < m; k++)
            p[k] = (gpt){clamp(d, d->values[k]), 1.0 / m};
    } else if (d->kind == TRACE_DIST_EMPIRICAL) {
        for (uint32_t k = 0; k < m; k++) {
            size_t i = (size_t)floor(((double)k + 0.5) / m * (double)d->n);
            p[k] = (gpt){clamp(d, d->values[i < d->n ? i : d->n - 1]), 1.0 / m};
        }
    } else {
        for (uint32_t k = 0; k < m; k++)
            p[k] = (gpt){clamp(d, quantile(d, ((double)k + 0.5) / m)), 1.0 / m};
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < m; k++)
        if (p[k].p > 0)
            p[kept++] = p[k];
    *n = merge(p, kept);
    *out = p;
    return TM_OK;
}

/* p[0..n) (sorted, merged) cut to at most SIM_GITTINS_MAX_POINTS points into
 * out (room for that many): the mid-quantiles of equal-probability bins. */
static uint32_t compress(const gpt *p, uint32_t n, gpt *out)
{
    if (n <= SIM_GITTINS_MAX_POINTS) {
        memcpy(out, p, n * sizeof *p);
        return n;
    }
    double tot = 0;
    for (uint32_t k = 0; k < n; k++)
        tot += p[k].p;
    const uint32_t nb = SIM_GITTINS_MAX_POINTS;
    uint32_t i = 0;
    double cum = p[0].p;
    for (uint32_t b = 0; b < nb; b++) {
        double q = ((double)b + 0.5) / nb * tot;
        while (i + 1 < n && cum < q)
            cum += p[++i].p;
        out[b] = (gpt){p[i].v, 1.0 / nb};
    }
    return merge(out, nb);
}

int sim__gittins_class(const sim_class_cfg *cc, double **value, double **prob, uint32_t *n,
                       tm_diag *diag)
{
    *value = *prob = NULL;
    *n = 0;
    if (isnan(cc->mean_ref_gpu_s))
        return tm_diag_set(diag, TM_ERR_SCENARIO, "policy",
                           "tiresias-2dlas gittins=class: class \"%s\" has no configured duration "
                           "distribution (a replayed trace's class has none); use gittins=learn "
                           "or gittins=V:W,... instead",
                           cc->name);
    gpt *g = NULL, *d = NULL, *sh = NULL, *prod = NULL, *cut = NULL;
    uint32_t ng = 0, nd = 0, ns = 1;
    int rc;
    if ((rc = points_of(&cc->gpus, &g, &ng)) ||
        (rc = points_of(cc->use_work ? &cc->work_gpu_s : &cc->duration_s, &d, &nd)))
        goto out;
    for (uint32_t k = 0; k < ng; k++) {
        double r = floor(g[k].v + 0.5);
        g[k].v = r < 1 ? 1 : r;
    }
    ng = merge(g, ng);
    if (cc->has_share) {
        if ((rc = points_of(&cc->share_milli, &sh, &ns)))
            goto out;
        for (uint32_t k = 0; k < ns; k++) {
            double r = floor(sh[k].v + 0.5);
            sh[k].v = (r < 1 ? 1 : r > 1000 ? 1000 : r) / 1000;
        }
        ns = merge(sh, ns);
    }
    size_t np = (size_t)ng * nd * ns;
    if (!(prod = malloc((np ? np : 1) * sizeof *prod))) {
        rc = TM_ERR_NOMEM;
        goto out;
    }
    size_t m = 0;
    for (uint32_t a = 0; a < ng; a++) {
        double eff = pow(cc->scaling_per_doubling, log2(g[a].v));
        for (uint32_t b = 0; b < nd; b++)
            for (uint32_t c = 0; c < ns; c++) {
                double share = sh ? sh[c].v : 1.0, pc = sh ? sh[c].p : 1.0;
                double v = cc->use_work ? share * d[b].v / eff : g[a].v * share * d[b].v;
                if (!isfinite(v) || v < 0)
                    v = v < 0 ? 0 : 1e15;
                prod[m++] = (gpt){v, g[a].p * d[b].p * pc};
            }
    }
    if (!(cut = malloc(SIM_GITTINS_MAX_POINTS * sizeof *cut))) {
        rc = TM_ERR_NOMEM;
        goto out;
    }
    uint32_t k = compress(prod, merge(prod, (uint32_t)m), cut);
    double tot = 0;
    for (uint32_t q = 0; q < k; q++)
        tot += cut[q].p;
    if (k == 0 || !(tot > 0)) {
        rc = tm_diag_set(diag, TM_ERR_SCENARIO, "policy",
                         "tiresias-2dlas gittins=class: class \"%s\": its distributions give no "
                         "GPU service",
                         cc->name);
        goto out;
    }
    *value = malloc(k * sizeof **value);
    *prob = malloc(k * sizeof **prob);
    if (!*value || !*prob) {
        free(*value);
        free(*prob);
        *value = *prob = NULL;
        rc = TM_ERR_NOMEM;
        goto out;
    }
    for (uint32_t q = 0; q < k; q++) {
        (*value)[q] = cut[q].v;
        (*prob)[q] = cut[q].p / tot;
    }
    *n = k;
    rc = TM_OK;
out:
    free(g);
    free(d);
    free(sh);
    free(prod);
    free(cut);
    if (rc == TM_ERR_NOMEM)
        return tm_diag_set(diag, rc, "policy", "out of memory");
    if (rc == TM_ERR_LIMIT)
        return tm_diag_set(diag, TM_ERR_SCENARIO, "policy",
                           "tiresias-2dlas gittins=class: class \"%s\": a discrete distribution "
                           "of more than %u values",
                           cc->name, SIM_GITTINS_MAX_POINTS * 64);
    return rc;
}

int sim__gittins_build(sim__gittins *g, const sim_scenario *sc, tm_diag *diag)
{
    memset(g, 0, sizeof *g);
    size_t nc = sc->n_classes;
    if (nc == 0 || nc > UINT32_MAX / SIM_GITTINS_MAX_POINTS)
        return tm_diag_set(diag, TM_ERR_SCENARIO, "policy",
                           "tiresias-2dlas gittins=class: the scenario has no job classes");
    if (!(g->dist = calloc(nc, sizeof *g->dist)))
        return tm_diag_set(diag, TM_ERR_NOMEM, "policy", "out of memory");
    size_t used = 0;
    for (size_t k = 0; k < nc; k++) {
        double *v, *p;
        uint32_t n;
        int rc = sim__gittins_class(&sc->classes[k], &v, &p, &n, diag);
        if (rc != TM_OK) {
            sim__gittins_fini(g);
            if (rc == TM_ERR_SCENARIO && diag && sc->source[0]) /* the scenario it came from */
                snprintf(diag->where, sizeof diag->where, "%.400s: policy", sc->source);
            return rc;
        }
        double *gv = realloc(g->value, (used + n) * sizeof *gv);
        if (gv)
            g->value = gv;
        double *gp = gv ? realloc(g->prob, (used + n) * sizeof *gp) : NULL;
        if (gp)
            g->prob = gp;
        if (!gv || !gp) {
            free(v);
            free(p);
            sim__gittins_fini(g);
            return tm_diag_set(diag, TM_ERR_NOMEM, "policy", "out of memory");
        }
        memcpy(g->value + used, v, n * sizeof *v);
        memcpy(g->prob + used, p, n * sizeof *p);
        free(v);
        free(p);
        g->dist[k].n = n;
        used += n;
    }
    /* the tables moved as they grew: point into them now */
    used = 0;
    for (size_t k = 0; k < nc; k++) {
        g->dist[k].value = g->value + used;
        g->dist[k].prob = g->prob + used;
        used += g->dist[k].n;
    }
    g->n_classes = (uint32_t)nc;
    return TM_OK;
}

void sim__gittins_fini(sim__gittins *g)
{
    if (!g)
        return;
    free(g->dist);
    free(g->value);
    free(g->prob);
    memset(g, 0, sizeof *g);
}
