/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_azure_llm.c — the Azure LLM inference trace 2023 (Patel et al.,
 * Splitwise, ISCA'24) in the form Vidur ships it: CSV with the header
 *     arrived_at,num_prefill_tokens,num_decode_tokens
 * (arrival in seconds from the first request, prompt and output tokens).
 *
 * Requests, not jobs: they are the load of a real-time inference service.
 * Two uses: request by request (trace_request_source, for a request-level
 * mode), or aggregated into a load profile of requests and tokens per second
 * per bin (trace_load_profile_build, any request source).
 */
#include "trace_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct azure_rd {
    trace__rd rd;
    int col[3];
    size_t ncols;
    uint64_t seq;
} azure_rd;

static int azure_next(void *ud, trace_request *q, tm_diag *diag)
{
    azure_rd *s = ud;
    trace__rd *r = &s->rd;
    char *f[TRACE__MAX_COLS + 1];
    for (;;) {
        int rc = trace__rd_csv_row(r, f, s->ncols, diag);
        if (rc != TM_OK && rc != TRACE__SKIP)
            return rc;
        s->seq++; /* a request's id is its row */
        if (rc == TRACE__SKIP)
            continue;
        double t;
        int64_t p, o;
        if (trace__parse_f64(f[s->col[0]], &t) || trace__parse_i64(f[s->col[1]], &p) ||
            trace__parse_i64(f[s->col[2]], &o)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected a number and two integers, got \"%.30s\", "
                                    "\"%.30s\", \"%.30s\"",
                                    f[s->col[0]], f[s->col[1]], f[s->col[2]])))
                return rc;
            continue;
        }
        if (t < 0 || p < 0 || o < 0 || p > UINT32_MAX || o > UINT32_MAX) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected arrived_at >= 0 and token counts in [0, 2^32), got "
                                    "%g, %lld, %lld",
                                    t, (long long)p, (long long)o)))
                return rc;
            continue;
        }
        int bad;
        if ((rc = trace__rd_order(r, trace__s_to_us(t), &bad, diag)))
            return rc;
        if (bad)
            continue;
        q->id = s->seq;
        q->arrival_us = trace__s_to_us(t);
        q->prompt_tokens = (uint32_t)p;
        q->output_tokens = (uint32_t)o;
        r->st->records++;
        return TM_OK;
    }
}

int trace_azure_llm_open(trace_request_source *src, const char *path, const trace_read_opts *o,
                         tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    static const char *const names[3] = {"arrived_at", "num_prefill_tokens", "num_decode_tokens"};
    int rc;
    azure_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc == TM_OK)
        rc = trace__rd_header(&s->rd, names, 3, 3,
                              "the header arrived_at,num_prefill_tokens,num_decode_tokens", s->col,
                              &s->ncols, diag);
    if (rc != TM_OK) {
        trace__rd_free(s);
        return rc;
    }
    src->next = azure_next;
    src->close = trace__rd_free;
    src->ud = s;
    return TM_OK;
}

void trace_load_profile_fini(trace_load_profile *p)
{
    if (!p)
        return;
    free(p->requests_per_s);
    free(p->prompt_tokens_per_s);
    free(p->output_tokens_per_s);
    memset(p, 0, sizeof *p);
}

int trace_load_profile_build(trace_load_profile *p, trace_request_source *src, double bin_s,
                             tm_diag *diag)
{
    memset(p, 0, sizeof *p);
    if (!(bin_s > 0) || !isfinite(bin_s))
        return tm_diag_set(diag, TM_ERR_INVAL, "load profile", "expected a bin width > 0, got %g",
                           bin_s);
    p->bin_s = bin_s;
    size_t cap = 0;
    int rc;
    trace_request q;
    while ((rc = src->next(src->ud, &q, diag)) == TM_OK) {
        double b = floor((double)q.arrival_us / 1e6 / bin_s);
        /* 10^7 bins (240 MB), as for a run's time series: a request years
         * after the others must not make a short trace cost gigabytes */
        if (b >= 1e7) {
            trace_load_profile_fini(p);
            return tm_diag_set(diag, TM_ERR_LIMIT, "load profile",
                               "a request at %.6g s needs more than 10^7 bins of %g s (a larger "
                               "--bin is needed)",
                               (double)q.arrival_us / 1e6, bin_s);
        }
        size_t bin = (size_t)b;
        if (bin >= cap) {
            size_t nc = cap ? cap : 256;
            while (nc <= bin)
                nc *= 2;
            double *a = realloc(p->requests_per_s, nc * sizeof *a);
            if (a)
                p->requests_per_s = a;
            double *c = a ? realloc(p->prompt_tokens_per_s, nc * sizeof *c) : NULL;
            if (c)
                p->prompt_tokens_per_s = c;
            double *d = c ? realloc(p->output_tokens_per_s, nc * sizeof *d) : NULL;
            if (!d) {
                trace_load_profile_fini(p);
                return tm_diag_set(diag, TM_ERR_NOMEM, "load profile", "out of memory");
            }
            p->output_tokens_per_s = d;
            for (size_t i = cap; i < nc; i++)
                a[i] = c[i] = d[i] = 0;
            cap = nc;
        }
        if (bin + 1 > p->n_bins)
            p->n_bins = bin + 1;
        p->requests_per_s[bin] += 1;
        p->prompt_tokens_per_s[bin] += q.prompt_tokens;
        p->output_tokens_per_s[bin] += q.output_tokens;
        p->requests++;
        p->prompt_tokens += q.prompt_tokens;
        p->output_tokens += q.output_tokens;
    }
    if (rc != TRACE_END) {
        trace_load_profile_fini(p);
        return rc;
    }
    for (size_t i = 0; i < p->n_bins; i++) {
        p->requests_per_s[i] /= bin_s;
        p->prompt_tokens_per_s[i] /= bin_s;
        p->output_tokens_per_s[i] /= bin_s;
    }
    return TM_OK;
}
