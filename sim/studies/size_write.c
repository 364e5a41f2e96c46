/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size_write.c — the HDF5 file of a sizing (`tarmac size -o FILE`; the
 * layout: docs/output.md, "Size files"): every fleet the search simulated,
 * in the order it simulated them (the search trace, the cache's order), with
 * what the targets' terms measured; the chosen fleet, its neighbours and the
 * frontier as rows of that list; growth, when asked for.
 *
 * netCDF-readable like every tarmac file (docs/hdf5-io.md, "netCDF and
 * xarray"): /size is one group whose arrays run along named dimensions:
 * candidate (the simulated fleets), pool_name (the searched pools),
 * term_name (the targets' terms), cost_basis_name (how the pools are
 * priced), frontier and neighbour; the *_name dimensions are their own
 * string coordinates.
 */
#include "studies/size_int.h"

#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The row of the cache that holds `nodes` at `demand`, or -1. */
static int64_t cache_row(const sim__size_cache *c, size_t n_vary, const uint32_t *nodes,
                         double demand)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].demand == demand && !memcmp(c->e[i].nodes, nodes, n_vary * sizeof *nodes))
            return (int64_t)i;
    return -1;
}

/* The rows of a list of fleets, at `demand`. */
static int64_t *fleet_rows(const sim__size_cache *c, size_t n_vary, const sim__size_fleet *f,
                           size_t n, double demand)
{
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = cache_row(c, n_vary, f[i].nodes, demand);
    return v;
}

/* Names of the cost bases (SIM__SIZE_AS_*), the columns of usd_per_month. */
static const char *const cost_basis[SIM__SIZE_N_AS] = {"as_given", "owned", "reserved",
                                                       "on_demand"};

/* The per-candidate columns, in the order they are written. */
enum { C_DEMAND, C_GPUS, C_CAPEX, C_OPEX, C_ALLOC, C_BUSY, C_TOKENS, C_API_LIST, C_API, C_NF64 };
enum { I_PASS, I_WHY, I_REJECTED, I_REPS, I_REPS_MEETING, C_NI64 };

int sim__size_write(const char *path, const sim_scenario *sc, const sim__size_runner *r,
                    const sim__size_cache *cache, const sim__size_answer *ans,
                    const sim__size_growth *gr, double growth_rate, volatile int *stop,
                    tm_diag *diag)
{
    static const struct {
        const char *name, *units, *desc;
    } f64[C_NF64] = {
        {"demand", "1", "the demand the fleet was simulated at: x the scenario's rates"},
        {"gpus", "GPU", "GPUs of the fleet"},
        {"capex_usd", "USD", "every pool owned: its purchase"},
        {"owned_opex_usd_per_month", "USD/month",
         "every pool owned: energy, colocation, maintenance, staff"},
        {"alloc_util", "1", "allocation utilization (mean over the replications)"},
        {"busy_util", "1", "busy utilization (mean over the replications)"},
        {"tokens_per_month", "1/month", "tokens the services demanded (input + output)"},
        {"api_list_usd_per_month", "USD/month", "those tokens at the services' API prices"},
        {"api_usd_per_month", "USD/month", "what overflowed to the API, as given"},
    };
    static const struct {
        const char *name, *desc;
    } i64[C_NI64] = {
        {"pass", "1 if every target held (and no job was rejected), else 0"},
        {"why", "the first failing term (row of term_name); -1 passed, -2 jobs were rejected, -3 "
                "the queue grew without bound"},
        {"rejected", "jobs rejected (can never fit), over all replications"},
        {"runs", "replications simulated for the fleet"},
        {"runs_meeting", "replications that meet every target on their own (the spread)"},
    };
    size_t n = cache->n, nv = r->n_vary, nt = r->n_terms;
    size_t wide = SIM__SIZE_N_AS; /* the widest row of a matrix */
    if (nv > wide)
        wide = nv;
    if (nt > wide)
        wide = nt;
    double *d = malloc((n ? n : 1) * wide * sizeof *d);
    int64_t *iv = malloc((n ? n : 1) * sizeof *iv);
    int64_t *front = fleet_rows(cache, nv, ans->frontier, ans->n_frontier, 1);
    int64_t *nb = fleet_rows(cache, nv, ans->neighbours, ans->n_neighbours, 1);
    const char
        *names[SIM__SIZE_MAX_TERMS > SIM__SIZE_MAX_VARY ? SIM__SIZE_MAX_TERMS : SIM__SIZE_MAX_VARY];
    const char *metric[SIM__SIZE_MAX_TERMS], *units[SIM__SIZE_MAX_TERMS];
    double limit[SIM__SIZE_MAX_TERMS];
    int64_t current[SIM__SIZE_MAX_VARY];
    sim__h5w *w = NULL;
    int rc = TM_OK;
    if (!d || !iv || !front || !nb) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    if ((rc = sim__h5w_open(&w, path, diag)))
        goto out;
    sim__h5w_set_stop(w, stop);
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", 1, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#size-files", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "size", diag)) ||
        (rc = sim__h5w_group(w, "/size", diag)) ||
        (rc = sim__h5w_attr_str(w, "/size", "description",
                                "the smallest fleet that meets the targets: every fleet the "
                                "search simulated (candidate), in the order it did",
                                diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/size/replications", r->replications, "1",
                                  "replications per candidate fleet", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/size/confidence", r->confidence, "1",
                                  "confidence of the one-sided bounds", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/size/warmup_s", (double)r->warmup_us / SIM_US_PER_S, "s",
                                  "jobs arriving earlier are not counted", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/size/found", ans->found, "1",
                                  "1 if a fleet within the node limit meets the targets", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/size/chosen", cache_row(cache, nv, ans->best.nodes, 1), "1",
                                  "the chosen fleet: the cheapest that meets the targets (row of "
                                  "the candidate dimension)",
                                  diag)))
        goto fail;

    /* the coordinates: pools, terms, cost bases */
    for (size_t k = 0; k < nv; k++) {
        names[k] = sc->pools[r->vary[k]].name;
        current[k] = sc->pools[r->vary[k]].nodes;
    }
    if ((rc = sim__h5w_names(w, "/size/pool_name", names, nv, "the searched pools", diag)))
        goto fail;
    for (size_t t = 0; t < nt; t++) {
        names[t] = r->terms[t].text;
        metric[t] = sim__size_metric_name(r->terms[t].metric);
        units[t] = sim__size_metric_units(r->terms[t].metric);
        limit[t] = r->terms[t].limit;
    }
    if ((rc = sim__h5w_names(w, "/size/term_name", names, nt, "the targets' terms, as written",
                             diag)) ||
        (rc = sim__h5w_names(w, "/size/cost_basis_name", cost_basis, SIM__SIZE_N_AS,
                             "how the pools are priced: as the scenario has them, or every "
                             "one owned, reserved or on demand",
                             diag)) ||
        (rc = sim__h5w_array_str(w, "/size/term_metric", metric, nt, "each term's metric", diag)) ||
        (rc = sim__h5w_array_str(w, "/size/term_units", units, nt,
                                 "the units of each term's metric (of limit, mean and bound)",
                                 diag)) ||
        (rc = sim__h5w_array_f64(w, "/size/limit", limit, nt, "1",
                                 "each term's limit, in its metric's units (term_units: s for "
                                 "waits, 1 for ratios)",
                                 diag)) ||
        (rc = sim__h5w_array_i64(w, "/size/current_nodes", current, nv, "1",
                                 "the scenario's own nodes in each searched pool", diag)))
        goto fail;

    /* the candidates */
    for (size_t c = 0; c < C_NF64; c++) {
        for (size_t i = 0; i < n; i++) {
            const sim__size_eval *e = &cache->e[i].eval;
            const double v[C_NF64] = {
                cache->e[i].demand,  e->gpus,      e->capex_usd,        e->owned_opex_usd_per_month,
                e->alloc_util,       e->busy_util, e->tokens_per_month, e->api_list_usd_per_month,
                e->api_usd_per_month};
            d[i] = v[c];
        }
        char p[96];
        snprintf(p, sizeof p, "/size/%s", f64[c].name);
        if ((rc = sim__h5w_array_f64(w, p, d, n, f64[c].units, f64[c].desc, diag)))
            goto fail;
    }
    for (size_t c = 0; c < C_NI64; c++) {
        for (size_t i = 0; i < n; i++) {
            const sim__size_eval *e = &cache->e[i].eval;
            const int64_t v[C_NI64] = {e->pass, e->why, (int64_t)e->rejected, e->replications,
                                       e->reps_meeting};
            iv[i] = v[c];
        }
        char p[96];
        snprintf(p, sizeof p, "/size/%s", i64[c].name);
        if ((rc = sim__h5w_array_i64(w, p, iv, n, "1", i64[c].desc, diag)))
            goto fail;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nv; k++)
            d[i * nv + k] = cache->e[i].nodes[k];
    if ((rc = sim__h5w_matrix_f64(w, "/size/nodes", d, n, nv, "1",
                                  "nodes of each searched pool in the fleet", diag)))
        goto fail;
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < SIM__SIZE_N_AS; a++)
            d[i * SIM__SIZE_N_AS + a] = cache->e[i].eval.usd_per_month[a];
    if ((rc = sim__h5w_matrix_f64(w, "/size/usd_per_month", d, n, SIM__SIZE_N_AS, "USD/month",
                                  "the fleet's cost and the API's, priced as cost_basis_name says",
                                  diag)))
        goto fail;
    for (int b = 0; b < 2; b++) {
        for (size_t i = 0; i < n; i++)
            for (size_t t = 0; t < nt; t++)
                d[i * nt + t] = b ? cache->e[i].eval.bound[t] : cache->e[i].eval.mean[t];
        if ((rc = sim__h5w_matrix_f64(
                 w, b ? "/size/bound" : "/size/mean", d, n, nt, "1",
                 b ? "one-sided confidence bound of each term's mean, in its metric's units "
                     "(term_units)"
                   : "each term's metric, mean over the replications, in its metric's units "
                     "(term_units)",
                 diag)))
            goto fail;
    }
    if ((rc = sim__h5w_array_i64(w, "/size/frontier_candidate", front, ans->n_frontier, "1",
                                 "the frontier: minimal mixes that meet the targets (rows of "
                                 "the candidate dimension)",
                                 diag)) ||
        (rc = sim__h5w_array_i64(w, "/size/neighbour_candidate", nb, ans->n_neighbours, "1",
                                 "the chosen fleet with one node more or less in one pool (rows "
                                 "of the candidate dimension)",
                                 diag)))
        goto fail;
    {
        static const char *const cand[] = {"demand",
                                           "gpus",
                                           "capex_usd",
                                           "owned_opex_usd_per_month",
                                           "alloc_util",
                                           "busy_util",
                                           "tokens_per_month",
                                           "api_list_usd_per_month",
                                           "api_usd_per_month",
                                           "pass",
                                           "why",
                                           "rejected",
                                           "runs",
                                           "runs_meeting",
                                           NULL};
        static const char *const fr[] = {"frontier_candidate", NULL};
        static const char *const ne[] = {"neighbour_candidate", NULL};
        static const char *const tm[] = {"term_metric", "term_units", "limit", NULL};
        static const char *const pl[] = {"current_nodes", NULL};
        static const char *const nc_t[] = {"candidate", "term_name"};
        if ((rc = sim__h5w_dim(w, "/size", "candidate", n, NULL, cand,
                               "the fleets simulated, in the order the search simulated them "
                               "(no values)",
                               diag)) ||
            (rc = sim__h5w_dim(w, "/size", "frontier", ans->n_frontier, NULL, fr,
                               "the frontier's mixes (no values)", diag)) ||
            (rc = sim__h5w_dim(w, "/size", "neighbour", ans->n_neighbours, NULL, ne,
                               "the chosen fleet's neighbours (no values)", diag)) ||
            (rc = sim__h5w_dim(w, "/size", "term_name", nt, NULL, tm, "the terms", diag)) ||
            (rc =
                 sim__h5w_dim(w, "/size", "pool_name", nv, NULL, pl, "the searched pools", diag)) ||
            (rc = sim__h5w_dim_axes(w, "/size/nodes",
                                    (const char *const[]){"candidate", "pool_name"}, 2, diag)) ||
            (rc = sim__h5w_dim_axes(w, "/size/usd_per_month",
                                    (const char *const[]){"candidate", "cost_basis_name"}, 2,
                                    diag)) ||
            (rc = sim__h5w_dim_axes(w, "/size/mean", nc_t, 2, diag)) ||
            (rc = sim__h5w_dim_axes(w, "/size/bound", nc_t, 2, diag)))
            goto fail;
    }
    if (gr) {
        int64_t then =
            gr->fails && gr->add.found ? cache_row(cache, nv, gr->add.best.nodes, gr->demand) : -1;
        if ((rc = sim__h5w_group(w, "/size/growth", diag)) ||
            (rc = sim__h5w_attr_str(w, "/size/growth", "description",
                                    "the scenario's own fleet under growing demand", diag)) ||
            (rc = sim__h5w_scalar_f64(w, "/size/growth/rate_per_month", growth_rate, "1/month",
                                      "monthly demand growth, compounding", diag)) ||
            (rc = sim__h5w_scalar_i64(w, "/size/growth/fails", gr->fails, "1",
                                      "1 if the fleet stops meeting the targets in the months "
                                      "looked at",
                                      diag)) ||
            (rc = sim__h5w_scalar_i64(w, "/size/growth/month", gr->month, "1",
                                      "the first month it fails them (or the last looked at)",
                                      diag)) ||
            (rc = sim__h5w_scalar_f64(w, "/size/growth/demand", gr->demand, "1",
                                      "the demand then: x the scenario's rates", diag)) ||
            (rc = sim__h5w_scalar_i64(w, "/size/growth/then", then, "1",
                                      "the cheapest fleet of at least the scenario's own that "
                                      "meets the targets then (row of /size's candidate "
                                      "dimension; -1 none)",
                                      diag)))
            goto fail;
    }
    if ((rc = sim__provenance_write(w, sc, NULL, diag)))
        goto fail;
    rc = sim__h5w_commit(w, diag);
    w = NULL;
    goto out;
fail:
    sim__h5w_abort(w);
    w = NULL;
out:
    free(d);
    free(iv);
    free(front);
    free(nb);
    return rc;
}
