/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_report.c — the outputs of a request-level LLM serving run: the HDF5
 * file (/llm: deployment, service figures, per-replica table, time series,
 * per-request arrays; /provenance) and the text summary. docs/llm-serving.md,
 * "Outputs", has the layout.
 *
 * How it works: every figure is already computed by sim__llm_run; this file
 * only lays them out, through the one HDF5 writer (output/h5io_int.h), which
 * makes the file appear complete or not at all.
 */
#include "output/llm_report_int.h"

#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_LLM_SCHEMA 1

const char *sim__llm_policy_name(sim__llm_policy p)
{
    return p == SIM__LLM_SARATHI ? "sarathi" : "vllm";
}

const char *sim__llm_route_name(sim__llm_route r)
{
    return r == SIM__LLM_ROUTE_RR ? "rr" : r == SIM__LLM_ROUTE_CENTRAL ? "central" : "least";
}

/* The figures of one population under group g. */
static int stats_h5(sim__h5w *w, const char *g, const sim__llm_stats *s, tm_diag *d)
{
    char p[256];
    int rc;
    static const char *const lat[3] = {"ttft", "tpot", "e2e"};
    static const char *const lat_desc[3] = {
        "time to first token: arrival to the end of the iteration that completes the prompt",
        "time per output token after the first: (finish - first token) / (output - 1)",
        "end-to-end latency: arrival to the last token"};
    const sim__llm_pct *pc[3] = {&s->ttft, &s->tpot, &s->e2e};
    for (int k = 0; k < 3; k++) {
        const char *nm[6] = {"mean", "p50", "p90", "p95", "p99", "max"};
        double v[6] = {pc[k]->mean, pc[k]->p50, pc[k]->p90, pc[k]->p95, pc[k]->p99, pc[k]->max};
        for (int j = 0; j < 6; j++) {
            snprintf(p, sizeof p, "%s/%s_%s_s", g, lat[k], nm[j]);
            if ((rc = sim__h5w_scalar_f64(w, p, v[j], "s", lat_desc[k], d)))
                return rc;
        }
    }
    struct {
        const char *name, *units, *desc;
        double v;
    } f[] = {
        {"counted", "1", "requests after the warm-up served on a replica", (double)s->counted},
        {"dropped", "1", "requests longer than a replica's whole KV cache (never served)",
         (double)s->dropped},
        {"api", "1", "requests sent to the API (overflow)", (double)s->api},
        {"preemptions", "1", "preemptions by recomputation", (double)s->preemptions},
        {"tokens_in", "1", "prompt tokens of the counted requests", s->tokens_in},
        {"tokens_out", "1", "output tokens of the counted requests", s->tokens_out},
        {"slo_ttft_attainment", "1", "fraction of counted and dropped requests with TTFT <= SLO",
         s->att_ttft},
        {"slo_tpot_attainment", "1",
         "fraction of counted and dropped requests with TPOT <= SLO (one-token outputs meet it)",
         s->att_tpot},
        {"slo_joint_attainment", "1", "fraction meeting both SLOs", s->att_joint},
        {"iterations", "1", "iterations run", s->iterations},
        {"busy_s", "s", "time spent in iterations", s->busy_s},
    };
    for (size_t j = 0; j < sizeof f / sizeof f[0]; j++) {
        snprintf(p, sizeof p, "%s/%s", g, f[j].name);
        if ((rc = sim__h5w_scalar_f64(w, p, f[j].v, f[j].units, f[j].desc, d)))
            return rc;
    }
    return TM_OK;
}

int sim__llm_report_h5(const sim__llm_report *r, const char *path, tm_diag *diag)
{
    const sim__llm_cfg *c = r->cfg;
    const sim__llm_result *res = r->res;
    sim__h5w *w = NULL;
    size_t n = res->n_reqs, nn = n ? n : 1;
    double *buf = malloc(nn * sizeof *buf);
    int64_t *ibuf = malloc(nn * sizeof *ibuf);
    int rc;
    if (!buf || !ibuf) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    if ((rc = sim__h5w_open(&w, path, diag)))
        goto out;
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", SIM_LLM_SCHEMA, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/llm-serving.md#outputs", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "llm-serving", diag)))
        goto fail;
    /* the deployment */
    const char *g = "/llm/deployment";
    if ((rc = sim__h5w_group(w, g, diag)) ||
        (rc = sim__h5w_attr_str(w, g, "model", r->model, diag)) ||
        (rc = sim__h5w_attr_str(w, g, "gpu_type", r->gpu, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "tp", r->tp, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "replicas", c->replicas, diag)) ||
        (rc = sim__h5w_attr_str(w, g, "policy", sim__llm_policy_name(c->policy), diag)) ||
        (rc = sim__h5w_attr_str(w, g, "route", sim__llm_route_name(c->route), diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "max_batch", c->max_batch, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "max_tokens", c->max_tokens, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "chunk_tokens", c->chunk_tokens, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "block_tokens", c->block_tokens, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "kv_blocks", (int64_t)c->kv_blocks, diag)) ||
        (rc = sim__h5w_attr_str(w, g, "kv_dtype", r->kv_dtype, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "watermark", c->watermark, diag)) ||
        (rc = sim__h5w_attr_str(w, g, "iteration_time", r->iter_source, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "slo_ttft_s", c->slo_ttft_s, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "slo_tpot_s", c->slo_tpot_s, diag)) ||
        (rc = sim__h5w_attr_i64(w, g, "max_queue", c->max_queue, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "api_in_usd_per_mtok", c->api_in_usd_per_mtok, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "api_out_usd_per_mtok", c->api_out_usd_per_mtok, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "warmup_s", c->warmup_s, diag)) ||
        (rc = sim__h5w_attr_f64(w, g, "load_scale", r->load_scale, diag)) ||
        (rc = sim__h5w_attr_str(w, g, "requests", r->trace, diag)))
        goto fail;
    /* the service */
    if ((rc = stats_h5(w, "/llm/service", &res->service, diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/llm/service/req_per_s", res->req_per_s, "1/s",
                                  "counted requests / (last completion - first arrival)", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/llm/service/out_tok_per_s", res->out_tok_per_s, "1/s",
                                  "output tokens of the counted requests / the same span", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/llm/service/api_usd", res->api_usd, "USD",
                                  "API cost of the overflow requests (prompt and output tokens "
                                  "at the API prices)",
                                  diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/llm/service/span_s", res->t_end_s - res->t0_s, "s",
                                  "first arrival to last completion", diag)))
        goto fail;
    /* per replica */
    for (uint32_t k = 0; k < res->replicas; k++) {
        char rg[64];
        snprintf(rg, sizeof rg, "/llm/replicas/r%04u", k);
        if ((rc = stats_h5(w, rg, &res->per_replica[k], diag)))
            goto fail;
    }
    /* series */
    if ((rc = sim__h5w_matrix_f64(w, "/llm/series/batch_mean", res->batch_mean, res->replicas,
                                  res->n_bins, "1",
                                  "sequences per iteration, time mean per bin (idle counted as 0); "
                                  "rows: replicas, columns: bins",
                                  diag)) ||
        (rc = sim__h5w_matrix_f64(w, "/llm/series/kv_use", res->kv_use, res->replicas, res->n_bins,
                                  "1",
                                  "fraction of KV-cache blocks in use, time mean per bin; rows: "
                                  "replicas, columns: bins",
                                  diag)) ||
        (rc = sim__h5w_matrix_f64(w, "/llm/series/queue_mean", res->queue_mean, res->replicas,
                                  res->n_bins, "1",
                                  "requests waiting for admission, time mean per bin; rows: "
                                  "replicas, columns: bins",
                                  diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/llm/series/bin_s", res->bin_s, "s", "bin width", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/llm/series/t0_s", res->t0_s, "s",
                                  "start of the first bin (the first arrival)", diag)))
        goto fail;
    /* per request */
    for (size_t i = 0; i < n; i++)
        buf[i] = r->reqs[i].t_s;
    if ((rc = sim__h5w_array_f64(w, "/llm/requests/arrival_s", buf, n, "s", "arrival", diag)))
        goto fail;
    for (size_t i = 0; i < n; i++)
        ibuf[i] = r->reqs[i].prompt;
    if ((rc = sim__h5w_array_i64(w, "/llm/requests/prompt_tokens", ibuf, n, "1", "prompt tokens",
                                 diag)))
        goto fail;
    for (size_t i = 0; i < n; i++)
        ibuf[i] = r->reqs[i].output;
    if ((rc = sim__h5w_array_i64(w, "/llm/requests/output_tokens", ibuf, n, "1", "output tokens",
                                 diag)))
        goto fail;
    for (size_t i = 0; i < n; i++)
        ibuf[i] = res->replica[i];
    if ((rc = sim__h5w_array_i64(w, "/llm/requests/replica", ibuf, n, "1",
                                 "replica that served it; -1 the API, -2 dropped", diag)) ||
        (rc = sim__h5w_array_f64(w, "/llm/requests/ttft_s", res->ttft_s, n, "s",
                                 "time to first token (NaN: not served on a replica)", diag)) ||
        (rc = sim__h5w_array_f64(w, "/llm/requests/tpot_s", res->tpot_s, n, "s",
                                 "time per output token (NaN: one token or not served)", diag)) ||
        (rc = sim__h5w_array_f64(w, "/llm/requests/e2e_s", res->e2e_s, n, "s",
                                 "end-to-end latency (NaN: not served on a replica)", diag)))
        goto fail;
    if ((rc = sim__provenance_write(w, r->fleet, NULL, diag)))
        goto fail;
    rc = sim__h5w_commit(w, diag);
    goto out;
fail:
    sim__h5w_abort(w);
out:
    free(buf);
    free(ibuf);
    return rc;
}

static void pct_line(FILE *f, const char *name, const sim__llm_pct *p, double scale,
                     const char *unit)
{
    fprintf(f, "  %-5s %s  mean %8.3f  p50 %8.3f  p90 %8.3f  p99 %8.3f  max %8.3f\n", name, unit,
            p->mean * scale, p->p50 * scale, p->p90 * scale, p->p99 * scale, p->max * scale);
}

void sim__llm_report_text(const sim__llm_report *r, FILE *f)
{
    const sim__llm_cfg *c = r->cfg;
    const sim__llm_result *res = r->res;
    const sim__llm_stats *s = &res->service;
    fprintf(f,
            "deployment: %s on %u x %s (TP %u), %u replica%s, %s, max batch %u, %s %u tokens, KV "
            "%llu blocks of %u tokens (%s), iteration time: %s\n",
            r->model, r->tp, r->gpu, r->tp, c->replicas, c->replicas == 1 ? "" : "s",
            sim__llm_policy_name(c->policy), c->max_batch,
            c->policy == SIM__LLM_SARATHI ? "chunk" : "budget",
            c->policy == SIM__LLM_SARATHI ? c->chunk_tokens : c->max_tokens,
            (unsigned long long)c->kv_blocks, c->block_tokens, r->kv_dtype, r->iter_source);
    fprintf(f, "requests: %zu from %s%s, routing %s\n", res->n_reqs, r->trace,
            r->load_scale != 1.0 ? " (rate scaled)" : "", sim__llm_route_name(c->route));
    fprintf(f,
            "served %llu, API %llu ($%.2f), dropped %llu, preemptions %llu; %.2f req/s, %.0f "
            "output tok/s over %.1f s\n",
            (unsigned long long)s->counted, (unsigned long long)s->api, res->api_usd,
            (unsigned long long)s->dropped, (unsigned long long)s->preemptions, res->req_per_s,
            res->out_tok_per_s, res->t_end_s - res->t0_s);
    pct_line(f, "TTFT", &s->ttft, 1.0, "s ");
    pct_line(f, "TPOT", &s->tpot, 1000.0, "ms");
    pct_line(f, "E2E", &s->e2e, 1.0, "s ");
    fprintf(f, "SLO (TTFT <= %g s, TPOT <= %g ms): TTFT %.2f %%, TPOT %.2f %%, both %.2f %%\n",
            c->slo_ttft_s, c->slo_tpot_s * 1000, 100 * s->att_ttft, 100 * s->att_tpot,
            100 * s->att_joint);
    double batch = 0, kv = 0;
    size_t cells = (size_t)res->replicas * res->n_bins;
    for (size_t i = 0; i < cells; i++) {
        batch += res->batch_mean[i];
        kv += res->kv_use[i];
    }
    if (cells)
        fprintf(f, "mean batch %.1f sequences, mean KV use %.1f %% (per replica and bin of %g s)\n",
                batch / (double)cells, 100 * kv / (double)cells, res->bin_s);
    fprintf(f, "replica  served  TTFT p50/p99 s      TPOT p50/p99 ms   SLO both  busy\n");
    double span = res->t_end_s - res->t0_s;
    for (uint32_t k = 0; k < res->replicas && k < 64; k++) {
        const sim__llm_stats *p = &res->per_replica[k];
        fprintf(f, "%7u %7llu  %7.3f / %7.3f  %6.1f / %6.1f  %7.2f%%  %4.0f%%\n", k,
                (unsigned long long)p->counted, p->ttft.p50, p->ttft.p99, p->tpot.p50 * 1000,
                p->tpot.p99 * 1000, 100 * p->att_joint, span > 0 ? 100 * p->busy_s / span : 0.0);
    }
    if (res->replicas > 64)
        fprintf(f, "(%u more replicas in the HDF5 file)\n", res->replicas - 64);
}
