/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_write.c — the HDF5 file of a purchase plan (`tarmac plan -o FILE`;
 * the layout: docs/output.md, "Plan files"; the method: docs/plan.md).
 *
 * /plan is one group whose arrays run along named dimensions (netCDF-
 * readable like every tarmac file): period (the plan, one row per period),
 * pool_name (the candidate pools), term_name (the targets' terms),
 * cost_basis_name (how a fleet is priced) and fleet (every fleet simulated,
 * in the order the searches simulated them: the trace behind each figure).
 * With the exact search, its plan is there too (exact_*), with the greedy's
 * cost and the gap between them. /provenance holds the resolved scenario and
 * the versions, as a run file does.
 */
#include "studies/plan_int.h"

#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const cost_basis[SIM__SIZE_N_AS] = {"as_given", "owned", "reserved",
                                                       "on_demand"};

enum {
    P_DEMAND,
    P_GPUS,
    P_ORDER_USD,
    P_OWN,
    P_RESERVED,
    P_ONDEMAND,
    P_API,
    P_OVERFLOW,
    P_CAPEX,
    P_OPEX,
    P_BUSY,
    P_NF64
};
enum {
    PI_PASS,
    PI_RUNS,
    PI_MEETING,
    PI_FEWER_POOL,
    PI_FEWER_MEETING,
    PI_FEWER_RUNS,
    PI_SEARCHED_AGAIN,
    P_NI64
};

int sim__plan_write(const char *path, const sim_scenario *sc, const sim__plan_cfg *cfg,
                    const sim__plan *pl, const sim__plan *ex, int complete, const char *targets,
                    volatile int *stop, tm_diag *diag)
{
    static const struct {
        const char *name, *units, *desc;
    } f64[P_NF64] = {
        {"demand", "1", "the period's demand: x the scenario's arrival and request rates"},
        {"gpus", "GPU", "GPUs of the fleet in service (all pools)"},
        {"order_usd", "USD", "the purchase of the nodes ordered in the period (the budget's use)"},
        {"own_usd", "USD",
         "owning the fleet for the period: capex as an annuity plus opex, and any API overflow "
         "(the plan's objective)"},
        {"reserved_usd", "USD", "renting the same fleet reserved for the period"},
        {"ondemand_usd", "USD", "renting the same fleet on demand (by the allocated GPU-hour)"},
        {"api_usd", "USD",
         "the services' tokens of the period at their API prices (the service share sent to "
         "an API)"},
        {"api_overflow_usd", "USD", "what overflowed to the API, as the scenario has it"},
        {"capex_usd", "USD", "the purchase value of the fleet in service"},
        {"owned_opex_usd", "USD", "owning: energy, colocation, maintenance, staff"},
        {"busy_util", "1", "busy utilization (mean over the replications)"},
    };
    static const struct {
        const char *name, *desc;
    } i64[P_NI64] = {
        {"pass", "1 if the period's fleet meets every target (the decision rule)"},
        {"runs", "replications simulated for the period's fleet"},
        {"runs_meeting", "replications that meet every target on their own (the spread)"},
        {"fewer_pool", "the pool (row of pool_name) of the fleet with one node fewer that was "
                       "simulated, -1 none"},
        {"fewer_runs_meeting", "its replications that meet every target on their own (-1 none)"},
        {"fewer_runs", "its replications simulated (fewer than runs: stopped as failing; -1 none)"},
        {"searched_again",
         "1 if no candidate ranked on the screen was left and the period was searched again "
         "with every answer confirmed in full (confirmation \"chosen\" only; docs/plan.md, "
         "\"Confirmation\")"},
    };
    const sim__size_runner *r = cfg->run;
    size_t np = pl->n_periods, nv = r->n_vary, nt = r->n_terms, nf = cfg->cache->n;
    /* the candidates: the plan's, or with --exact the greedy's beside it */
    const sim__plan *cp = pl->n_cand || !ex ? pl : ex;
    size_t nc = cp->n_cand, rows = np > nf ? np : nf, wide = SIM__SIZE_N_AS;
    /* an interrupted plan: the period being searched left candidates but no
     * row of period (candidates come period by period) */
    while (nc && cp->cand[nc - 1].period >= cp->n_periods)
        nc--;
    if (nc > rows)
        rows = nc;
    if (nv > wide)
        wide = nv;
    if (nt > wide)
        wide = nt;
    double *d = malloc((rows ? rows : 1) * wide * sizeof *d);
    int64_t *iv = malloc((rows ? rows : 1) * sizeof *iv);
    sim__h5w *w = NULL;
    int rc = TM_OK;
    if (!d || !iv) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    if ((rc = sim__h5w_open(&w, path, diag)))
        goto out;
    sim__h5w_set_stop(w, stop);
    double m = cfg->months_per_period;
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", 1, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#plan-files", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "plan", diag)) ||
        (rc = sim__h5w_group(w, "/plan", diag)) ||
        (rc = sim__h5w_attr_str(w, "/plan", "description",
                                "a purchase plan: which nodes arrive when, so that every "
                                "period's fleet meets the targets at the least cost of owning",
                                diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/plan/complete", complete, "1",
                                  "1 if the search ran to its end; 0 if it was interrupted (the "
                                  "periods planned so far)",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/plan/found", pl->found, "1",
                                  "1 if a schedule meets the targets in every period", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/plan/search", pl->exact ? "exact" : "greedy",
                                  "the search that made the plan (docs/plan.md)", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/plan/targets", targets, "the targets, as given", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/plan/periods", (int64_t)cfg->n_periods, "1",
                                  "periods of the horizon", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/plan/months_per_period", m, "month",
                                  "the length of a period", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/plan/growth_per_period", cfg->growth, "1",
                                  "demand growth per period, compounding", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/plan/budget_usd_per_period", cfg->budget_usd, "USD",
                                  "what the orders of one period may cost (inf: no budget)",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/plan/lookahead", cfg->lookahead, "1",
                                  "periods the greedy search rolls out ahead", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/plan/rollout",
                                  cfg->lookahead == 0                 ? "none"
                                  : cfg->screen && !cfg->rollout_full ? "estimated"
                                                                      : "full",
                                  "how the look-ahead roll-outs were scored: on estimates (the "
                                  "screen, or a memoised full evaluation) or in full "
                                  "(docs/plan.md)",
                                  diag)) ||
        (rc = sim__h5w_scalar_str(w, "/plan/confirmation", sim__plan_confirmation(cfg),
                                  "what the full evaluation confirmed: \"chosen\" (the chosen "
                                  "fleet of each period, the candidates ranked on the screen), "
                                  "\"every search\" (every search's answer) or \"every fleet\" "
                                  "(no screen) (docs/plan.md, \"Confirmation\")",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/plan/replications", r->replications, "1",
                                  "replications per fleet", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/plan/confidence", r->confidence, "1",
                                  "confidence of the one-sided bounds", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/plan/warmup_s", (double)r->warmup_us / SIM_US_PER_S, "s",
                                  "jobs arriving earlier are not counted", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/plan/own_usd_total", pl->own_usd, "USD",
                                  "owning over the periods planned: the sum of own_usd", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/plan/why", pl->found ? "" : pl->why,
                                  "why no schedule was found (empty when one was)", diag)))
        goto fail;
    /* the pools */
    {
        const char *names[SIM__SIZE_MAX_VARY];
        double lead[SIM__SIZE_MAX_VARY], usd[SIM__SIZE_MAX_VARY];
        int64_t inst[SIM__SIZE_MAX_VARY], mx[SIM__SIZE_MAX_VARY];
        for (size_t k = 0; k < nv; k++) {
            names[k] = sc->pools[r->vary[k]].name;
            lead[k] = cfg->lead[k];
            usd[k] = cfg->node_usd[k];
            inst[k] = cfg->installed[k];
            mx[k] = cfg->max_nodes[k];
        }
        if ((rc = sim__h5w_names(w, "/plan/pool_name", names, nv, "the candidate pools", diag)) ||
            (rc = sim__h5w_array_f64(w, "/plan/lead_periods", lead, nv, "1",
                                     "periods from order to arrival", diag)) ||
            (rc = sim__h5w_array_f64(w, "/plan/node_usd", usd, nv, "USD",
                                     "the purchase of one node (the cost model's capex per GPU "
                                     "x GPUs per node)",
                                     diag)) ||
            (rc = sim__h5w_array_i64(w, "/plan/installed_nodes", inst, nv, "1",
                                     "nodes in service before any purchase (the scenario's)",
                                     diag)) ||
            (rc = sim__h5w_array_i64(w, "/plan/max_nodes", mx, nv, "1", "nodes at most per pool",
                                     diag)))
            goto fail;
        const char *tn[SIM__SIZE_MAX_TERMS];
        double limit[SIM__SIZE_MAX_TERMS];
        const char *units[SIM__SIZE_MAX_TERMS];
        for (size_t t = 0; t < nt; t++) {
            tn[t] = r->terms[t].text;
            limit[t] = r->terms[t].limit;
            units[t] = sim__size_metric_units(r->terms[t].metric);
        }
        if ((rc = sim__h5w_names(w, "/plan/term_name", tn, nt, "the targets' terms, as written",
                                 diag)) ||
            (rc = sim__h5w_array_f64(w, "/plan/limit", limit, nt, "1",
                                     "each term's limit in its metric's units (term_units)",
                                     diag)) ||
            (rc = sim__h5w_array_str(w, "/plan/term_units", units, nt,
                                     "the units of each term's metric", diag)) ||
            (rc = sim__h5w_names(w, "/plan/cost_basis_name", cost_basis, SIM__SIZE_N_AS,
                                 "how a fleet is priced: as the scenario has it, or every pool "
                                 "owned, reserved or on demand",
                                 diag)))
            goto fail;
    }

    {
        static const char *const per[] = {
            "demand",       "gpus",           "order_usd",  "own_usd",
            "reserved_usd", "ondemand_usd",   "api_usd",    "api_overflow_usd",
            "capex_usd",    "owned_opex_usd", "busy_util",  "pass",
            "runs",         "runs_meeting",   "fewer_pool", "fewer_runs_meeting",
            "fewer_runs",   "searched_again", NULL};
        static const char *const fl[] = {"fleet_demand", "fleet_pass", "fleet_runs",
                                         "fleet_runs_meeting", NULL};
        static const char *const pl_[] = {"lead_periods", "node_usd", "installed_nodes",
                                          "max_nodes", NULL};
        static const char *const tm[] = {"limit", "term_units", NULL};
        if ((rc = sim__h5w_dim(w, "/plan", "period", np, NULL, per,
                               "the periods of the plan, from 0 (no values)", diag)) ||
            (rc = sim__h5w_dim(w, "/plan", "fleet", nf, NULL, fl,
                               "every fleet simulated, in the order the searches simulated "
                               "them (no values)",
                               diag)) ||
            (rc = sim__h5w_dim(w, "/plan", "pool_name", nv, NULL, pl_, "the pools", diag)) ||
            (rc = sim__h5w_dim(w, "/plan", "term_name", nt, NULL, tm, "the terms", diag)))
            goto fail;
    }
    if (nc) {
        /* the candidates of every period (the greedy's evidence): what the
         * screen and the full evaluation said of each, and which was chosen */
        static const char *const cn[] = {"candidate_period",
                                         "candidate_pool",
                                         "candidate_origin",
                                         "candidate_screen_pass",
                                         "candidate_screen_runs",
                                         "candidate_screen_runs_meeting",
                                         "candidate_full_pass",
                                         "candidate_full_runs",
                                         "candidate_full_runs_meeting",
                                         "candidate_chosen",
                                         "candidate_screen_usd",
                                         "candidate_usd",
                                         "candidate_rollout_usd",
                                         NULL};
        static const char *const cd[] = {
            "the period (row of period) the candidate was ranked in",
            "the pool (row of pool_name) its count was searched and confirmed in",
            "0: a minimal mix of the period's search; 1: the full evaluation's step from a "
            "candidate that failed in full (or had a node to spare)",
            "the screen's verdict: 1 pass, 0 fail, -1 not screened",
            "the screen's replications",
            "the screen's replications meeting every target on their own",
            "the full evaluation's verdict: 1 pass, 0 fail, -1 not simulated in full",
            "the full evaluation's replications (fewer than replications: stopped failing)",
            "the full evaluation's replications meeting every target on their own",
            "1 for the period's chosen fleet",
            "its own cost for the period on the screen (NaN: not screened)",
            "the own cost it was ranked by: the full evaluation's when it has one, else the "
            "estimate",
            "its roll-out's cost over the periods ahead (NaN: not rolled out; inf: no "
            "future)"};
        if ((rc = sim__h5w_dim(w, "/plan", "candidate", nc, NULL, cn,
                               "the candidates the greedy ranked, period by period (no values)",
                               diag)))
            goto fail;
        for (size_t x = 0; x < 10; x++) {
            for (size_t i = 0; i < nc; i++) {
                const sim__plan_cand *c = &cp->cand[i];
                const int64_t v[10] = {c->period,       c->pool,           c->origin, c->screen,
                                       c->screen_runs,  c->screen_meeting, c->full,   c->full_runs,
                                       c->full_meeting, c->chosen};
                iv[i] = v[x];
            }
            char p[96];
            snprintf(p, sizeof p, "/plan/%s", cn[x]);
            if ((rc = sim__h5w_array_i64(w, p, iv, nc, "1", cd[x], diag)))
                goto fail;
        }
        for (size_t x = 10; x < 13; x++) {
            for (size_t i = 0; i < nc; i++) {
                const sim__plan_cand *c = &cp->cand[i];
                d[i] = x == 10 ? c->screen_usd : x == 11 ? c->usd : c->ahead;
            }
            char p[96];
            snprintf(p, sizeof p, "/plan/%s", cn[x]);
            if ((rc = sim__h5w_array_f64(w, p, d, nc, "USD", cd[x], diag)))
                goto fail;
        }
        for (size_t i = 0; i < nc; i++)
            for (size_t k = 0; k < nv; k++)
                d[i * nv + k] = cp->cand[i].nodes[k];
        if ((rc = sim__h5w_matrix_f64(w, "/plan/candidate_nodes", d, nc, nv, "1",
                                      "the candidate's nodes per pool", diag)) ||
            (rc = sim__h5w_dim_axes(w, "/plan/candidate_nodes",
                                    (const char *const[]){"candidate", "pool_name"}, 2, diag)))
            goto fail;
    }
    if (ex && ex->found && pl->found) {
        /* pl is the exact plan, ex the greedy one it is compared with */
        if ((rc = sim__h5w_scalar_f64(w, "/plan/greedy_own_usd_total", ex->own_usd, "USD",
                                      "the greedy search's plan: owning over the periods", diag)) ||
            (rc =
                 sim__h5w_scalar_f64(w, "/plan/gap", (ex->own_usd - pl->own_usd) / pl->own_usd, "1",
                                     "the greedy plan's cost over the exact one's, less 1 (its "
                                     "optimality gap)",
                                     diag)))
            goto fail;
        for (size_t t = 0; t < ex->n_periods; t++)
            for (size_t k = 0; k < nv; k++)
                d[t * nv + k] = ex->p[t].nodes[k];
        if ((rc = sim__h5w_matrix_f64(w, "/plan/greedy_nodes", d, ex->n_periods, nv, "1",
                                      "the greedy search's plan: nodes in service per period "
                                      "and pool",
                                      diag)) ||
            (rc = sim__h5w_dim_axes(w, "/plan/greedy_nodes",
                                    (const char *const[]){"period", "pool_name"}, 2, diag)))
            goto fail;
    }

    /* the periods */
    for (size_t c = 0; c < P_NF64; c++) {
        for (size_t t = 0; t < np; t++) {
            const sim__plan_period *p = &pl->p[t];
            const sim__size_eval *e = &p->eval;
            const double v[P_NF64] = {p->demand,
                                      e->gpus,
                                      p->order_usd,
                                      p->own_usd,
                                      e->usd_per_month[SIM__SIZE_AS_RESERVED] * m,
                                      e->usd_per_month[SIM__SIZE_AS_ONDEMAND] * m,
                                      e->api_list_usd_per_month * m,
                                      e->api_usd_per_month * m,
                                      e->capex_usd,
                                      e->owned_opex_usd_per_month * m,
                                      e->busy_util};
            d[t] = v[c];
        }
        char p[96];
        snprintf(p, sizeof p, "/plan/%s", f64[c].name);
        if ((rc = sim__h5w_array_f64(w, p, d, np, f64[c].units, f64[c].desc, diag)))
            goto fail;
    }
    for (size_t c = 0; c < P_NI64; c++) {
        for (size_t t = 0; t < np; t++) {
            const sim__plan_period *p = &pl->p[t];
            const int64_t v[P_NI64] = {p->eval.pass,
                                       p->eval.replications,
                                       p->eval.reps_meeting,
                                       p->fewer_pool,
                                       p->fewer_pool >= 0 ? (int64_t)p->fewer_meeting : -1,
                                       p->fewer_pool >= 0 ? (int64_t)p->fewer_runs : -1,
                                       p->searched_again};
            iv[t] = v[c];
        }
        char p[96];
        snprintf(p, sizeof p, "/plan/%s", i64[c].name);
        if ((rc = sim__h5w_array_i64(w, p, iv, np, "1", i64[c].desc, diag)))
            goto fail;
    }
    static const char *const mat[3] = {"nodes", "arrive", "order"};
    static const char *const mat_desc[3] = {
        "nodes in service per period and pool",
        "nodes arriving at the start of each period, per pool",
        "nodes ordered in each period (arriving lead_periods later), per pool"};
    const char *const *labels = NULL;
    const char *pnames[SIM__SIZE_MAX_VARY];
    for (size_t k = 0; k < nv; k++)
        pnames[k] = sc->pools[r->vary[k]].name;
    labels = pnames;
    for (int x = 0; x < 3; x++) {
        for (size_t t = 0; t < np; t++)
            for (size_t k = 0; k < nv; k++)
                d[t * nv + k] = x == 0   ? pl->p[t].nodes[k]
                                : x == 1 ? pl->p[t].arrive[k]
                                         : pl->p[t].order[k];
        char p[64];
        snprintf(p, sizeof p, "/plan/%s", mat[x]);
        if ((rc = sim__h5w_matrix_f64(w, p, d, np, nv, "1", mat_desc[x], diag)) ||
            (rc = sim__h5w_dim_axes(w, p, (const char *const[]){"period", "pool_name"}, 2, diag)))
            goto fail;
    }
    /* the plot names the pools from the matrix's own attribute */
    {
        size_t len = 0;
        char buf[SIM__SIZE_MAX_VARY * (SIM_NAME_MAX + 1) + 1];
        buf[0] = '\0';
        for (size_t k = 0; k < nv; k++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", k ? "\n" : "", labels[k]);
        if ((rc = sim__h5w_attr_str(w, "/plan/nodes", "pools", buf, diag)))
            goto fail;
    }
    for (int b = 0; b < 2; b++) {
        for (size_t t = 0; t < np; t++)
            for (size_t i = 0; i < nt; i++)
                d[t * nt + i] = b ? pl->p[t].eval.bound[i] : pl->p[t].eval.mean[i];
        const char *p = b ? "/plan/bound" : "/plan/mean";
        if ((rc = sim__h5w_matrix_f64(w, p, d, np, nt, "1",
                                      b ? "one-sided confidence bound of each term's mean, in its "
                                          "metric's units (term_units)"
                                        : "each term's metric, mean over the replications, in its "
                                          "metric's units (term_units)",
                                      diag)) ||
            (rc = sim__h5w_dim_axes(w, p, (const char *const[]){"period", "term_name"}, 2, diag)))
            goto fail;
    }

    /* every fleet simulated */
    const sim__size_cache *c = cfg->cache;
    for (size_t i = 0; i < nf; i++)
        d[i] = c->e[i].demand;
    if ((rc = sim__h5w_array_f64(w, "/plan/fleet_demand", d, nf, "1",
                                 "the demand a fleet was simulated at", diag)))
        goto fail;
    for (int x = 0; x < 3; x++) {
        for (size_t i = 0; i < nf; i++) {
            const sim__size_eval *e = &c->e[i].eval;
            iv[i] = x == 0 ? e->pass : x == 1 ? (int64_t)e->replications : (int64_t)e->reps_meeting;
        }
        static const char *const nm[3] = {"/plan/fleet_pass", "/plan/fleet_runs",
                                          "/plan/fleet_runs_meeting"};
        static const char *const ds[3] = {"1 if the fleet met every target at that demand",
                                          "replications simulated",
                                          "replications that met every target on their own"};
        if ((rc = sim__h5w_array_i64(w, nm[x], iv, nf, "1", ds[x], diag)))
            goto fail;
    }
    for (size_t i = 0; i < nf; i++)
        for (size_t k = 0; k < nv; k++)
            d[i * nv + k] = c->e[i].nodes[k];
    if ((rc = sim__h5w_matrix_f64(w, "/plan/fleet_nodes", d, nf, nv, "1",
                                  "nodes of each pool in the fleet", diag)) ||
        (rc = sim__h5w_dim_axes(w, "/plan/fleet_nodes", (const char *const[]){"fleet", "pool_name"},
                                2, diag)))
        goto fail;
    for (size_t i = 0; i < nf; i++)
        for (size_t a = 0; a < SIM__SIZE_N_AS; a++)
            d[i * SIM__SIZE_N_AS + a] = c->e[i].eval.usd_per_month[a];
    if ((rc =
             sim__h5w_matrix_f64(w, "/plan/fleet_usd_per_month", d, nf, SIM__SIZE_N_AS, "USD/month",
                                 "the fleet's cost (and the API's) per month, priced as "
                                 "cost_basis_name says",
                                 diag)) ||
        (rc = sim__h5w_dim_axes(w, "/plan/fleet_usd_per_month",
                                (const char *const[]){"fleet", "cost_basis_name"}, 2, diag)))
        goto fail;
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
    return rc;
}
