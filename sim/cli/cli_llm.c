/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_llm.c — `tarmac replay TRACE --format azure-llm --fleet FILE ...`: a
 * request trace served by one LLM deployment at request level (continuous
 * batching, KV cache; sim/model/llm_int.h), with TTFT, TPOT and end-to-end
 * percentiles, SLO attainment, throughput and series as text and HDF5.
 *
 * How it works: the options fill a sim__llm_cfg; the deployment's GPU type
 * and its number of replicas come from the fleet file when one is given
 * (replicas of TP GPUs fit inside a node; their number is bounded by the
 * fleet's GPUs of the type), else from the built-in catalog; the trace is read
 * whole into memory (16 bytes a request), then simulated in one pass.
 */
#include "cli/cli_llm.h"

#include "base/fileio_int.h"
#include "output/llm_report_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most requests one replay reads (1.6 GB of requests). */
#define LLM_MAX_REQUESTS ((size_t)100000000)
/* Largest iteration profile read. */
#define LLM_PROFILE_MAX_BYTES ((size_t)64 << 20)

void sim__cli_llm_init(sim__cli_llm *l)
{
    memset(l, 0, sizeof *l);
    sim__llm_cfg_defaults(&l->cfg);
    l->model = "llama-3.1-8b-fp8";
    l->mem_frac = 0.9;
    l->load_scale = 1.0;
}

static int num(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int u32(const char *s, uint64_t lo, uint64_t hi, uint32_t *out)
{
    uint64_t v;
    if (sim__cli_parse_u64(s, hi, &v) || v < lo)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int sim__cli_llm_opt(sim__cli_llm *l, int key, const char *v)
{
    sim__llm_cfg *c = &l->cfg;
    l->given = 1;
    switch (key) {
    case O_LLM_MODEL:
        l->model = v;
        return 0;
    case O_LLM_GPU:
        l->gpu = v;
        return 0;
    case O_LLM_REPLICAS:
        return u32(v, 1, SIM__LLM_REPLICAS_MAX, &l->replicas);
    case O_LLM_TP:
        return u32(v, 1, 8, &l->tp) || (l->tp & (l->tp - 1)) ? -1 : 0;
    case O_LLM_BATCHING:
        if (strcmp(v, "vllm") == 0)
            c->policy = SIM__LLM_VLLM;
        else if (strcmp(v, "sarathi") == 0)
            c->policy = SIM__LLM_SARATHI;
        else
            return -1;
        return 0;
    case O_LLM_MAX_BATCH:
        return u32(v, 1, 65536, &c->max_batch);
    case O_LLM_MAX_TOKENS:
        return u32(v, 1, 10000000, &c->max_tokens);
    case O_LLM_CHUNK:
        return u32(v, 1, 10000000, &c->chunk_tokens);
    case O_LLM_BLOCK:
        return u32(v, 1, 65536, &c->block_tokens);
    case O_LLM_KV_DTYPE:
        if (strcmp(v, "bf16") == 0)
            l->kv_fp8 = 0;
        else if (strcmp(v, "fp8") == 0)
            l->kv_fp8 = 1;
        else
            return -1;
        return 0;
    case O_LLM_MEM_FRAC:
        return num(v, 1e-6, 1.0, &l->mem_frac);
    case O_LLM_ROUTE:
        if (strcmp(v, "least") == 0)
            c->route = SIM__LLM_ROUTE_LEAST;
        else if (strcmp(v, "rr") == 0)
            c->route = SIM__LLM_ROUTE_RR;
        else if (strcmp(v, "central") == 0)
            c->route = SIM__LLM_ROUTE_CENTRAL;
        else
            return -1;
        return 0;
    case O_LLM_SLO_TTFT:
        return num(v, 1e-9, 1e9, &c->slo_ttft_s);
    case O_LLM_SLO_TPOT:
        return num(v, 1e-9, 1e9, &c->slo_tpot_s);
    case O_LLM_ITER_PROFILE:
        l->profile = v;
        return 0;
    case O_LLM_MAX_QUEUE:
        return u32(v, 0, 1000000000, &c->max_queue);
    case O_LLM_API_PRICE: {
        const char *colon = strchr(v, ':');
        if (!colon || colon - v > 63)
            return -1;
        char a[64];
        memcpy(a, v, (size_t)(colon - v));
        a[colon - v] = '\0';
        return num(a, 0, 1e6, &c->api_in_usd_per_mtok) ||
                       num(colon + 1, 0, 1e6, &c->api_out_usd_per_mtok)
                   ? -1
                   : 0;
    }
    case O_LLM_LOAD_SCALE:
        return num(v, 1e-3, 1e3, &l->load_scale);
    case O_LLM_WARMUP:
        return num(v, 0, 1e9, &c->warmup_s);
    }
    return -1;
}

/* Replicas of tp GPUs of type t the fleet holds (each inside one node). */
static uint64_t fleet_replicas(const sim_scenario *sc, uint32_t t, uint32_t tp)
{
    uint64_t n = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].type == t)
            n += (uint64_t)sc->pools[p].nodes * (sc->pools[p].gpus_per_node / tp);
    return n;
}

static int read_requests(const trace_format *fmt, const char *trace, const trace_read_opts *o,
                         double scale, sim__llm_req **out, size_t *n_out, tm_diag *d)
{
    *out = NULL;
    *n_out = 0;
    trace_request_source rs;
    int rc = fmt->open_requests(&rs, trace, o, d);
    if (rc)
        return rc;
    size_t n = 0, cap = 0;
    sim__llm_req *v = NULL;
    trace_request q;
    while ((rc = rs.next(rs.ud, &q, d)) == TM_OK) {
        if (n == LLM_MAX_REQUESTS) {
            rc = tm_diag_set(d, TM_ERR_LIMIT, trace, "more than %zu requests", LLM_MAX_REQUESTS);
            break;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            sim__llm_req *w = realloc(v, nc * sizeof *w);
            if (!w) {
                rc = tm_diag_set(d, TM_ERR_NOMEM, trace, "%zu requests", nc);
                break;
            }
            v = w;
            cap = nc;
        }
        v[n].t_s = (double)q.arrival_us / 1e6 / scale;
        v[n].prompt = q.prompt_tokens;
        v[n].output = q.output_tokens;
        n++;
    }
    rs.close(rs.ud);
    if (rc != TRACE_END) {
        free(v);
        return rc;
    }
    if (n == 0) {
        free(v);
        return tm_diag_set(d, TM_ERR_TRACE, trace, "no requests");
    }
    *out = v;
    *n_out = n;
    return TM_OK;
}

int sim__cli_llm_run(sim__cli_llm *l, const trace_format *fmt, const char *trace,
                     const trace_read_opts *o, const sim_scenario *fleet, double bin_s,
                     const char *out, int quiet, tm_diag *d)
{
    sim__llm_cfg *c = &l->cfg;
    int rc;
    char *text = NULL;
    sim__llm_req *reqs = NULL;
    size_t n = 0;
    sim__llm_profile prof;
    memset(&prof, 0, sizeof prof);
    sim__llm_result res;
    memset(&res, 0, sizeof res);
    const sim__llm_model *m0 = sim__llm_model_find(l->model);
    if (!m0) {
        size_t nm;
        const sim__llm_model *all = sim__llm_models(&nm);
        char names[256] = "";
        for (size_t i = 0; i < nm; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, all[i].name, sizeof names - strlen(names) - 1);
        }
        return tm_diag_set(d, TM_ERR_USAGE, "--model", "unknown model '%s' (models: %s)", l->model,
                           names);
    }
    sim__llm_model m = *m0;
    if (l->kv_fp8)
        m.kv_bytes_per_elem = 1.0;
    uint32_t tp = l->tp ? l->tp : 1;
    size_t nt;
    const sim_gpu_type *types = fleet ? fleet->types : sim_catalog_builtin(&nt);
    if (fleet)
        nt = fleet->n_types;
    int gi = -1;
    if (l->gpu) {
        gi = sim_catalog_find(types, nt, l->gpu);
        if (gi < 0)
            return tm_diag_set(d, TM_ERR_USAGE, "--gpu", "no GPU type '%s' in the %s", l->gpu,
                               fleet ? "fleet's catalog" : "catalog");
    } else if (fleet) {
        /* the first pool's type that has replicas of this shape and holds the model */
        for (size_t p = 0; p < fleet->n_pools && gi < 0; p++) {
            uint32_t t = fleet->pools[p].type;
            uint64_t b;
            tm_diag scratch;
            sim__llm_roofline rf;
            if (fleet_replicas(fleet, t, tp) &&
                sim__llm_roofline_init(&rf, &m, &types[t], tp, &scratch) == TM_OK &&
                sim__llm_kv_blocks(&m, &types[t], tp, l->mem_frac, c->block_tokens, &b, &scratch) ==
                    TM_OK)
                gi = (int)t;
        }
        if (gi < 0)
            return tm_diag_set(d, TM_ERR_USAGE, "--fleet",
                               "no GPU type of the fleet holds %s in replicas of %u GPU%s in one "
                               "node (--gpu, --tp)",
                               m.name, tp, tp == 1 ? "" : "s");
    } else {
        gi = sim_catalog_find(types, nt, "H100");
    }
    const sim_gpu_type *g = &types[gi];
    c->replicas = l->replicas ? l->replicas : 1;
    if (fleet) {
        uint64_t cap = fleet_replicas(fleet, (uint32_t)gi, tp);
        if (!l->replicas)
            c->replicas = (uint32_t)(cap < SIM__LLM_REPLICAS_MAX ? cap : SIM__LLM_REPLICAS_MAX);
        if (cap == 0 || c->replicas > cap)
            return tm_diag_set(d, TM_ERR_USAGE, "--replicas",
                               "the fleet holds %llu replica%s of %u x %s in one node, not %u",
                               (unsigned long long)cap, cap == 1 ? "" : "s", tp, g->name,
                               c->replicas);
    }
    if ((rc = sim__llm_roofline_init(&c->iter.roof, &m, g, tp, d)) ||
        (rc = sim__llm_kv_blocks(&m, g, tp, l->mem_frac, c->block_tokens, &c->kv_blocks, d))) {
        /* a deployment that cannot exist is a usage error (the options chose it) */
        char msg[sizeof d->msg];
        snprintf(msg, sizeof msg, "%s", d->msg);
        return tm_diag_set(d, TM_ERR_USAGE, "replay", "%s", msg);
    }
    if (l->profile) {
        size_t len;
        if ((rc = sim__file_read(l->profile, LLM_PROFILE_MAX_BYTES, &text, &len, d)))
            goto out;
        if ((rc = sim__llm_profile_parse(&prof, l->profile, text, len, d)))
            goto out;
        c->iter.profile = &prof;
    }
    c->bin_s = bin_s;
    if ((rc = read_requests(fmt, trace, o, l->load_scale, &reqs, &n, d)))
        goto out;
    if ((rc = sim__llm_run(c, reqs, n, &res, &sim__cli_stop, d)))
        goto out;
    sim__llm_report rep = {
        .cfg = c,
        .res = &res,
        .reqs = reqs,
        .trace = trace,
        .model = m.name,
        .gpu = g->name,
        .tp = tp,
        .kv_dtype = l->kv_fp8 ? "fp8" : "bf16",
        .iter_source = l->profile ? l->profile : "roofline",
        .load_scale = l->load_scale,
        .fleet = fleet,
    };
    if (!quiet)
        sim__llm_report_text(&rep, stdout);
    const char *path = out ? out : "tarmac-serve.h5";
    if ((rc = sim__llm_report_h5(&rep, path, d)))
        goto out;
    if (!quiet)
        printf("wrote %s\n", path);
out:
    sim__llm_result_fini(&res);
    sim__llm_profile_fini(&prof);
    free(reqs);
    free(text);
    return rc;
}
