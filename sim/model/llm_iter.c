/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_iter.c — what an LLM serving replica is made of and how long one of its
 * iterations takes: the built-in model dimensions, the interconnect table,
 * the roofline, the measured-profile grid (parsed from CSV text and
 * interpolated), the KV-cache size in blocks, and synthetic requests.
 *
 * How the roofline works: an iteration reads every weight once and the KV
 * cache of every sequence it attends over, and does 2 FLOPs per parameter per
 * token plus the attention's 4 FLOPs per (head dimension, context token); it
 * takes the longer of the two at calibrated efficiencies of the catalog's
 * peak figures, plus a fixed overhead and, with tensor parallelism, two ring
 * all-reduces per layer. docs/llm-serving.md gives the calibration and its
 * uncertainty.
 *
 * How the profile works: a full grid over (prefill tokens, decode sequences,
 * KV tokens); lookup is a binary search per axis and a trilinear blend of
 * the 8 corners, with weights outside [0, 1] beyond the last point of an
 * axis (linear extrapolation) and clamped to the first point below it.
 */
#include "model/llm_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

/* Published configurations of the models (config.json of each release);
 * recalled, not in cost-figures.md ⚠️, the same figures as the service
 * presets (service.c). */
static const sim__llm_model models[] = {
    {"llama-3.1-8b-fp8", 8.03e9, 1.0, 32, 4096, 32, 8, 128, 2.0,
     "Llama 3.1 8B, FP8 weights, BF16 KV cache"},
    {"llama-3.1-8b", 8.03e9, 2.0, 32, 4096, 32, 8, 128, 2.0, "Llama 3.1 8B, BF16"},
    {"llama-3.1-70b-fp8", 70.6e9, 1.0, 80, 8192, 64, 8, 128, 2.0,
     "Llama 3.1 70B, FP8 weights, BF16 KV cache"},
    {"llama-3.1-70b", 70.6e9, 2.0, 80, 8192, 64, 8, 128, 2.0, "Llama 3.1 70B, BF16"},
    {"llama-3.1-405b-fp8", 405.9e9, 1.0, 126, 16384, 128, 8, 128, 2.0,
     "Llama 3.1 405B, FP8 weights, BF16 KV cache"},
};

const sim__llm_model *sim__llm_models(size_t *n)
{
    *n = sizeof models / sizeof models[0];
    return models;
}

const sim__llm_model *sim__llm_model_find(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

double sim__llm_kv_bytes_per_token(const sim__llm_model *m)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * m->kv_bytes_per_elem;
}

/* Intra-node link per GPU, one direction, GB/s (vendor figures, assumption
 * ⚠️: NVLink 4 900 GB/s both ways on H100/H200, NVLink 5 1.8 TB/s on B200,
 * NVLink 3 600 on A100, Infinity Fabric 7 x 64 on MI300X/MI325X, NVLink 2 300
 * on V100), and FP8 tensor cores. */
static const struct {
    const char *name;
    double link_gbs;
    int fp8;
} links[] = {
    {"H100", 450, 1}, {"H200", 450, 1},      {"B200", 900, 1},   {"A100-80GB", 300, 0},
    {"L40S", 32, 1},  {"L4", 32, 1},         {"MI300X", 448, 1}, {"MI325X", 448, 1},
    {"V100", 150, 0}, {"V100-32GB", 150, 0},
};

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

void sim__llm_gpu_link(const char *gpu_type, double *link_gbs, int *fp8)
{
    *link_gbs = 32.0; /* PCIe 4.0 x16, one direction */
    *fp8 = 0;
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (same_name(links[i].name, gpu_type)) {
            *link_gbs = links[i].link_gbs;
            *fp8 = links[i].fp8;
        }
}

int sim__llm_roofline_init(sim__llm_roofline *r, const sim__llm_model *m, const sim_gpu_type *g,
                           uint32_t tp, tm_diag *diag)
{
    memset(r, 0, sizeof *r);
    if (tp != 1 && tp != 2 && tp != 4 && tp != 8)
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.tp", "expected 1, 2, 4 or 8, got %u", tp);
    if (!(isfinite(g->bf16_tflops) && g->bf16_tflops > 0 && isfinite(g->mem_bw_gbs) &&
          g->mem_bw_gbs > 0))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.gpu",
                           "GPU type %s has no TFLOPS or memory bandwidth figure in the catalog",
                           g->name);
    double link_gbs;
    int fp8;
    sim__llm_gpu_link(g->name, &link_gbs, &fp8);
    double peak = g->bf16_tflops * 1e12 * (fp8 && m->weight_bytes_per_param <= 1.0 ? 2.0 : 1.0);
    r->tp = tp;
    r->flops_per_s = tp * peak * SIM__LLM_COMPUTE_EFF;
    r->bytes_per_s = tp * g->mem_bw_gbs * 1e9 * SIM__LLM_MEMORY_EFF;
    r->weight_bytes = m->params * m->weight_bytes_per_param;
    r->flops_per_token = 2.0 * m->params;
    r->attn_flops_per_pair = 4.0 * m->layers * (double)m->heads * m->head_dim;
    r->kv_bytes_per_token = sim__llm_kv_bytes_per_token(m);
    r->overhead_s = SIM__LLM_OVERHEAD_S;
    r->link_bytes_per_s = link_gbs * 1e9;
    r->allreduce_latency_s = SIM__LLM_ALLREDUCE_LAT_S;
    r->allreduce_bytes_per_token = m->hidden * 2.0;
    r->allreduces = 2 * m->layers;
    return TM_OK;
}

/* Index i and weight w of x on axis a[0..n): the value is (1-w) v[i] + w v[i+1]. */
static void axis_locate(const double *a, size_t n, double x, size_t *i, double *w)
{
    if (n == 1) {
        *i = 0;
        *w = 0.0;
        return;
    }
    if (x <= a[0]) {
        *i = 0;
        *w = 0.0;
        return;
    }
    size_t lo = 0, hi = n - 1; /* a[lo] < x; find the segment */
    if (x >= a[n - 1]) {
        lo = n - 2;
    } else {
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (a[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
    }
    *i = lo;
    *w = (x - a[lo]) / (a[lo + 1] - a[lo]);
}

static double profile_time(const sim__llm_profile *p, const sim__llm_batch *b)
{
    double x[3] = {(double)b->prefill_tokens, (double)b->decode_seqs, (double)b->kv_tokens};
    size_t i[3];
    double w[3];
    for (int a = 0; a < 3; a++)
        axis_locate(p->axis[a], p->n[a], x[a], &i[a], &w[a]);
    double t = 0.0;
    for (int c = 0; c < 8; c++) {
        double wt = 1.0;
        size_t k[3];
        for (int a = 0; a < 3; a++) {
            int up = (c >> a) & 1;
            if (p->n[a] == 1) {
                if (up)
                    goto next;
                k[a] = 0;
                continue;
            }
            k[a] = i[a] + (size_t)up;
            wt *= up ? w[a] : 1.0 - w[a];
        }
        t += wt * p->t_s[(k[0] * p->n[1] + k[1]) * p->n[2] + k[2]];
    next:;
    }
    return t;
}

double sim__llm_iter_time(const sim__llm_iter *it, const sim__llm_batch *b)
{
    if (!it->profile)
        return sim__llm_roof_time(&it->roof, b);
    double t = profile_time(it->profile, b);
    /* a profile extrapolated below its data could go to 0 or below: an
     * iteration takes at least a microsecond (the roofline's floor too) */
    return t > 1e-6 ? t : 1e-6;
}

int sim__llm_kv_blocks(const sim__llm_model *m, const sim_gpu_type *g, uint32_t tp, double mem_frac,
                       uint32_t block_tokens, uint64_t *blocks, tm_diag *diag)
{
    *blocks = 0;
    if (!(mem_frac > 0 && mem_frac <= 1))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.mem_frac", "expected (0, 1], got %g", mem_frac);
    if (block_tokens == 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.block_tokens", "expected >= 1, got 0");
    double mem = (double)tp * g->mem_mib * 1048576.0 * mem_frac;
    double weights = m->params * m->weight_bytes_per_param;
    double per_block = block_tokens * sim__llm_kv_bytes_per_token(m);
    double b = floor((mem - weights) / per_block);
    if (!(b >= 1))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.gpu",
                           "%s weights (%.1f GB) leave no KV-cache block in %u x %s at %.0f %% of "
                           "its memory (%.1f GB)",
                           m->name, weights / 1e9, tp, g->name, mem_frac * 100, mem / 1e9);
    *blocks = (uint64_t)b;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* Profile CSV                                                                */

void sim__llm_profile_fini(sim__llm_profile *pr)
{
    if (!pr)
        return;
    for (int a = 0; a < 3; a++)
        free(pr->axis[a]);
    free(pr->t_s);
    memset(pr, 0, sizeof *pr);
}

typedef struct prow {
    double v[4];
    size_t line;
} prow;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The distinct values of column a of rows, sorted, into *out (n_out). */
static int axis_build(const prow *rows, size_t n, int a, double **out, size_t *n_out)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = rows[i].v[a];
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    *out = v;
    *n_out = k;
    return TM_OK;
}

static size_t axis_index(const double *a, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int sim__llm_profile_parse(sim__llm_profile *pr, const char *name, const char *text, size_t len,
                           tm_diag *diag)
{
    static const char *const cols[4] = {"prefill_tokens", "decode_seqs", "kv_tokens", "time_ms"};
    memset(pr, 0, sizeof *pr);
    prow *rows = NULL;
    size_t n = 0, cap = 0, line = 0;
    int col[4] = {-1, -1, -1, -1}, ncols = 0, have_header = 0, rc = TM_OK;
    char where[600];
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        line++;
        snprintf(where, sizeof where, "%s:%zu", name, line);
        char buf[512];
        size_t l = (size_t)(e - p);
        if (l && p[l - 1] == '\r')
            l--;
        const char *q = p;
        p = e + 1;
        if (l >= sizeof buf) {
            rc = tm_diag_set(diag, TM_ERR_DATA, where, "line longer than %zu characters",
                             sizeof buf - 1);
            goto out;
        }
        if (memchr(q, '\0', l)) {
            rc = tm_diag_set(diag, TM_ERR_DATA, where, "a NUL byte (not a text file)");
            goto out;
        }
        memcpy(buf, q, l);
        buf[l] = '\0';
        char *s = buf;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        /* split on commas */
        char *f[16];
        int nf = 0;
        for (char *t = s;;) {
            if (nf == 16) {
                rc = tm_diag_set(diag, TM_ERR_DATA, where, "more than 16 fields");
                goto out;
            }
            f[nf++] = t;
            char *c = strchr(t, ',');
            if (!c)
                break;
            *c = '\0';
            t = c + 1;
        }
        for (int i = 0; i < nf; i++) {
            while (isspace((unsigned char)*f[i]))
                f[i]++;
            size_t k = strlen(f[i]);
            while (k && isspace((unsigned char)f[i][k - 1]))
                f[i][--k] = '\0';
        }
        if (!have_header) {
            for (int i = 0; i < nf; i++)
                for (int c = 0; c < 4; c++)
                    if (strcmp(f[i], cols[c]) == 0) {
                        if (col[c] >= 0) {
                            rc = tm_diag_set(diag, TM_ERR_DATA, where, "column %s twice", cols[c]);
                            goto out;
                        }
                        col[c] = i;
                    }
            for (int c = 0; c < 4; c++)
                if (col[c] < 0) {
                    rc = tm_diag_set(diag, TM_ERR_DATA, where,
                                     "expected the header prefill_tokens,decode_seqs,kv_tokens,"
                                     "time_ms (any order), got no column %s",
                                     cols[c]);
                    goto out;
                }
            ncols = nf;
            have_header = 1;
            continue;
        }
        if (nf != ncols) {
            rc = tm_diag_set(diag, TM_ERR_DATA, where, "expected %d fields, got %d", ncols, nf);
            goto out;
        }
        if (n == SIM__LLM_PROFILE_MAX) {
            rc = tm_diag_set(diag, TM_ERR_DATA, where, "more than %u rows",
                             (unsigned)SIM__LLM_PROFILE_MAX);
            goto out;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            prow *r2 = realloc(rows, nc * sizeof *r2);
            if (!r2) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, name, "%zu profile rows", nc);
                goto out;
            }
            rows = r2;
            cap = nc;
        }
        for (int c = 0; c < 4; c++) {
            const char *v = f[col[c]];
            char *stop;
            errno = 0;
            double x = strtod(v, &stop);
            int ok = *v && *stop == '\0' && errno == 0 && isfinite(x) &&
                     (c == 3 ? x > 0 && x <= 3.6e6 : x >= 0 && x <= 1e12);
            if (ok && c < 3 && x != floor(x))
                ok = 0;
            if (!ok) {
                rc = tm_diag_set(
                    diag, TM_ERR_DATA, where, "%s: expected %s, got \"%.40s\"", cols[c],
                    c == 3 ? "a time in ms in (0, 3.6e6]" : "an integer in [0, 1e12]", v);
                goto out;
            }
            rows[n].v[c] = x;
        }
        rows[n].line = line;
        n++;
    }
    snprintf(where, sizeof where, "%s", name);
    if (!have_header) {
        rc = tm_diag_set(diag, TM_ERR_DATA, where,
                         "empty: expected the header prefill_tokens,decode_seqs,kv_tokens,time_ms");
        goto out;
    }
    if (n == 0) {
        rc = tm_diag_set(diag, TM_ERR_DATA, where, "no rows after the header");
        goto out;
    }
    for (int a = 0; a < 3; a++)
        if (axis_build(rows, n, a, &pr->axis[a], &pr->n[a]) != TM_OK) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, name, "profile axes");
            goto out;
        }
    size_t cells = 1;
    for (int a = 0; a < 3; a++)
        cells = cells > SIM__LLM_PROFILE_MAX ? cells : cells * pr->n[a];
    if (cells > SIM__LLM_PROFILE_MAX) {
        rc = tm_diag_set(diag, TM_ERR_DATA, where,
                         "expected a full grid of at most %u cells, got %zu x %zu x %zu distinct "
                         "values of prefill_tokens, decode_seqs and kv_tokens",
                         (unsigned)SIM__LLM_PROFILE_MAX, pr->n[0], pr->n[1], pr->n[2]);
        goto out;
    }
    pr->t_s = malloc(cells * sizeof *pr->t_s);
    if (!pr->t_s) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, name, "profile grid");
        goto out;
    }
    for (size_t i = 0; i < cells; i++)
        pr->t_s[i] = NAN;
    for (size_t r = 0; r < n; r++) {
        size_t k[3];
        for (int a = 0; a < 3; a++)
            k[a] = axis_index(pr->axis[a], pr->n[a], rows[r].v[a]);
        size_t c = (k[0] * pr->n[1] + k[1]) * pr->n[2] + k[2];
        if (!isnan(pr->t_s[c])) {
            snprintf(where, sizeof where, "%s:%zu", name, rows[r].line);
            rc = tm_diag_set(diag, TM_ERR_DATA, where,
                             "a second row for prefill_tokens %.0f, decode_seqs %.0f, kv_tokens "
                             "%.0f (the grid needs each combination once)",
                             rows[r].v[0], rows[r].v[1], rows[r].v[2]);
            goto out;
        }
        pr->t_s[c] = rows[r].v[3] / 1000.0;
    }
    for (size_t i = 0; i < pr->n[0]; i++)
        for (size_t j = 0; j < pr->n[1]; j++)
            for (size_t k = 0; k < pr->n[2]; k++)
                if (isnan(pr->t_s[(i * pr->n[1] + j) * pr->n[2] + k])) {
                    rc = tm_diag_set(diag, TM_ERR_DATA, where,
                                     "expected a full grid (%zu x %zu x %zu rows for the distinct "
                                     "values of prefill_tokens, decode_seqs and kv_tokens), got no "
                                     "row for %.0f, %.0f, %.0f",
                                     pr->n[0], pr->n[1], pr->n[2], pr->axis[0][i], pr->axis[1][j],
                                     pr->axis[2][k]);
                    goto out;
                }
out:
    free(rows);
    if (rc != TM_OK)
        sim__llm_profile_fini(pr);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Synthetic requests                                                         */

static uint32_t dist_draw(const sim__llm_dist *d, gsl_rng *r)
{
    double x;
    switch (d->kind) {
    case SIM__LLM_DIST_EXP:
        x = ceil(gsl_ran_exponential(r, d->mean));
        break;
    case SIM__LLM_DIST_UNIFORM:
        x = d->lo + (double)gsl_rng_uniform_int(r, (unsigned long)(d->hi - d->lo) + 1);
        break;
    case SIM__LLM_DIST_EMPIRICAL:
        x = d->values[gsl_rng_uniform_int(r, (unsigned long)d->n_values)];
        break;
    default:
        x = floor(d->mean + 0.5);
        break;
    }
    if (x < 1)
        x = 1;
    return x > 4e9 ? 4000000000u : (uint32_t)x;
}

static int dist_check(const sim__llm_dist *d, const char *what, tm_diag *diag)
{
    int ok;
    switch (d->kind) {
    case SIM__LLM_DIST_FIXED:
    case SIM__LLM_DIST_EXP:
        ok = isfinite(d->mean) && d->mean > 0 && d->mean <= 4e9;
        break;
    case SIM__LLM_DIST_UNIFORM:
        ok = d->lo <= d->hi;
        break;
    case SIM__LLM_DIST_EMPIRICAL:
        ok = d->values && d->n_values > 0;
        break;
    default:
        ok = 0;
    }
    return ok ? TM_OK
              : tm_diag_set(diag, TM_ERR_INVAL, what,
                            "expected a mean in (0, 4e9], lo <= hi, or values (kind %d)",
                            (int)d->kind);
}

int sim__llm_synth(sim__llm_req **out, size_t n, double rate_per_s, const sim__llm_dist *prompt,
                   const sim__llm_dist *output, gsl_rng *r, tm_diag *diag)
{
    *out = NULL;
    int rc;
    if (!(isfinite(rate_per_s) && rate_per_s > 0))
        return tm_diag_set(diag, TM_ERR_INVAL, "llm.synth.rate", "expected > 0, got %g",
                           rate_per_s);
    if ((rc = dist_check(prompt, "llm.synth.prompt", diag)) ||
        (rc = dist_check(output, "llm.synth.output", diag)))
        return rc;
    sim__llm_req *q = malloc((n ? n : 1) * sizeof *q);
    if (!q)
        return tm_diag_set(diag, TM_ERR_NOMEM, "llm.synth", "%zu requests", n);
    double t = 0.0;
    for (size_t i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, 1.0 / rate_per_s);
        q[i].t_s = t;
        q[i].prompt = dist_draw(prompt, r);
        q[i].output = dist_draw(output, r);
    }
    *out = q;
    return TM_OK;
}
