/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cost.c — the cost model: defaults, per-GPU rates, a run's cost, chargeback,
 * and its /cost group (the model and every default's source: docs/cost.md;
 * the API and what it computes: cost_int.h).
 *
 * The defaults are the reference figures of ../shared/reference/cost-figures.md
 * (cited below with their marks: ✅ solid, ◐ secondary, ⚠️ uncertain or
 * derived); a figure nobody sourced is marked as our assumption. A run's
 * cost needs no new integral from the engine: GPU-seconds in service,
 * allocated and busy per pool are in sim_result, and the calendar hours of a
 * pool follow from its delivery and retirement times.
 */
#include "model/cost_int.h"

#include "model/service_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* defaults                                                                   */

/* HGX H100 8-GPU server with 8x400G InfiniBand NICs, $310k (Thinkmate quote,
 * Aug 2024, in the tech-talk-cto H100 cluster spreadsheet; cost-figures.md
 * §1.2 and §9 "server_8gpu_usd") ◐. The only server price the reference has. */
#define H100_SERVER_USD  310000.0
#define H100_SERVER_GPUS 8.0
/* GPU share of an HGX server's cost ~60-70 % (amcompute.com/blog/hgx-dgx-mgx,
 * Mar 2026; §1.2) ◐: the midpoint turns a GPU price into a server price per
 * GPU for the types without a server quote. */
#define GPU_SHARE_OF_SERVER 0.65
/* ~5 % spare pool for 99.9 % job availability (Delta, arXiv 2503.11901, 2025;
 * §2) ✅. */
#define SPARES_FRACTION 0.05
/* InfiniBand switches and cables: 11 % of node cost for a 1-2-tier fabric,
 * 17 % for 3 tiers (derived from the tech-talk-cto spreadsheet, Aug 2024, §2);
 * the §9 default 0.12 ◐. */
#define NETWORK_FRACTION 0.12
/* Storage: not found; the reference assumes 3-6 % of capex (§2, §9 0.05) ⚠️. */
#define STORAGE_FRACTION 0.05
/* Installation and setup, one-time, capitalised (§9 0.03) ⚠️. */
#define INSTALL_FRACTION 0.03
/* 5 years straight-line: AWS (5 since Feb 2025), Lambda 5, CoreWeave 6,
 * Nebius 4 (§2 consensus; §9 secondary) ◐. */
#define DEPRECIATION_YEARS 5.0
/* Residual value at the end of life (§9 0.15; 25-35 % after 36 months per a
 * single weak source) ⚠️. */
#define RESIDUAL_FRACTION 0.15
/* Cost of capital 10 %/yr, from CoreWeave's financing costs 7-15 % (SEC
 * 10-Q, 30 Jun 2025; §2, §9 solid) ✅. */
#define CAPITAL_RATE 0.10
/* Hardware maintenance 3 % of capex per year (§9; no source found) ⚠️. */
#define MAINTENANCE_FRACTION 0.03
/* Server wall power per GPU / GPU board power: an 8x H100 node draws
 * ~10.2 kW at full load (v2-pseo GPU TCO, §2 ◐), 10.2 / 8 / 0.7 = 1.82; the
 * reference derives the other types' server power with the same ratio ⚠️. */
#define SERVER_POWER_FACTOR (10.2 / 8.0 / 0.7)
/* PUE 1.3 for modern AI colocation (Uptime Institute surveys: 1.56 industry
 * average, <= 1.3 new facilities; §2, §9 solid) ✅. */
#define PUE 1.3
/* $0.08/kWh, US industrial (EIA Electric Power Monthly Table 5.6.A, Apr 2025,
 * states 6-20 c; the default of aiinframap; §2, §9 secondary) ◐. */
#define ELECTRICITY_USD_KWH 0.08
/* $184.06 per kW-month, 250-500 kW, North America primary markets, H2 2024
 * (CBRE North America Data Center Trends H2 2024, 2025-02-26; §2) ✅;
 * metered energy extra. */
#define COLOCATION_USD_KW_MO 184.06
/* 8 FTE per 1000 GPUs, at least 1, $250k loaded per FTE-year (§9 "ops_staff",
 * uncertain; hedgehog.cloud: 12 FTE per 1,024 GPUs DIY, 4 managed ◐; base
 * salaries $185-221k ◐) ⚠️. */
#define STAFF_FTE_PER_1000   8.0
#define STAFF_MIN_FTE        1.0
#define STAFF_USD_PER_FTE_YR 250000.0
/* The headline GPU rate is ~60-70 % of the cloud bill once egress, storage
 * and management are added (mercatus-ai.com, May 2026; §1.3, §9 0.3) ◐. */
#define CLOUD_OVERHEAD 0.3

/* API prices, USD per million tokens (cost-figures.md §3 and §9; marks as
 * there). The batch discount is 50 % where a provider offers a batch API
 * (OpenAI, Anthropic, Google, Together: §3 ✅); 0 where none is listed. For
 * embeddings it is 1 - batch price / price. `serves` names the self-hosted
 * model of a service preset the entry stands in for: Together's Turbo
 * endpoints serve the same Llama 3.1 models in FP8. */
static const sim_cost_api_price builtin_api[] = {
    {"openai/gpt-5", "", 1.25, 10.0, 0.5},                 /* ◐ 2026-03 */
    {"openai/gpt-5-mini", "", 0.25, 2.0, 0.5},             /* ◐ 2026-03 */
    {"openai/gpt-5-nano", "", 0.05, 0.40, 0.5},            /* ◐ 2026-03 */
    {"openai/gpt-4.1", "", 2.0, 8.0, 0.5},                 /* ◐ 2026-04 */
    {"openai/gpt-4.1-mini", "", 0.40, 1.60, 0.5},          /* ◐ 2026-04 */
    {"openai/gpt-4o", "", 2.50, 10.0, 0.5},                /* ◐ 2026-04 */
    {"openai/gpt-4o-mini", "", 0.15, 0.60, 0.5},           /* ◐ 2026-04 */
    {"anthropic/claude-opus-4.5", "", 5.0, 25.0, 0.5},     /* ◐ 2026-03 */
    {"anthropic/claude-sonnet-4.5", "", 3.0, 15.0, 0.5},   /* ◐ 2026-03 */
    {"anthropic/claude-haiku-4.5", "", 1.0, 5.0, 0.5},     /* ◐ 2026-03 */
    {"google/gemini-2.5-pro", "", 1.25, 10.0, 0.5},        /* ◐ 2026-03, <= 200k prompt */
    {"google/gemini-2.5-flash", "", 0.30, 2.50, 0.5},      /* ◐ 2026-04 */
    {"google/gemini-2.5-flash-lite", "", 0.10, 0.40, 0.5}, /* ⚠️ output price 2026-04 */
    {"together/llama-3.1-8b-instruct-turbo", "Llama 3.1 8B FP8", 0.18, 0.18, 0.5},   /* ◐ 2025 */
    {"together/llama-3.1-70b-instruct-turbo", "Llama 3.1 70B FP8", 0.88, 0.88, 0.5}, /* ◐ 2025 */
    {"together/llama-3.1-405b-instruct-turbo", "", 3.50, 3.50, 0.0},                 /* ◐ 2025 */
    {"groq/llama-3.1-8b-instant", "", 0.05, 0.08, 0.0},                              /* ◐ 2026 */
    {"groq/llama-3.3-70b-versatile", "", 0.59, 0.79, 0.0},                           /* ◐ 2026 */
    {"fireworks/serverless-16b-80b", "", 0.90, 0.90, 0.0},                           /* ◐ 2024 */
    {"openai/text-embedding-3-small", "", 0.02, 0.0, 0.5}, /* ✅ 2026-05, batch 0.01 */
    {"openai/text-embedding-3-large", "", 0.13, 0.0, 0.5}, /* ✅ 2026-05, batch 0.065 */
    {"voyage/voyage-3.5", "", 0.06, 0.0, 1.0 / 3.0},       /* ◐ 2026-05, batch 0.04 */
    {"cohere/embed-v4", "", 0.10, 0.0, 0.0},               /* ◐ 2026-05 */
    {"google/gemini-embedding-001", "", 0.15, 0.0, 0.0},   /* ◐ 2026-05 */
};
/* The API a service is compared with when nothing else says: our choice (a
 * widely used low-cost general model), not a sourced figure. */
#define DEFAULT_API "openai/gpt-4o-mini"

void sim_cost_defaults(sim_cost_cfg *c)
{
    memset(c, 0, sizeof *c);
    for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
        c->server_usd_per_gpu[t] = c->gpu_share_of_server_type[t] = NAN;
    /* the H100 quote as the GPU's share of its server, so that a scenario that
     * changes the H100's purchase price moves the server price with it */
    size_t nb;
    const sim_gpu_type *b = sim_catalog_builtin(&nb);
    int h100 = sim_catalog_find(b, nb, "H100");
    if (h100 >= 0)
        c->gpu_share_of_server_type[h100] =
            b[h100].purchase_usd / (H100_SERVER_USD / H100_SERVER_GPUS);
    c->gpu_share_of_server = GPU_SHARE_OF_SERVER;
    c->spares_fraction = SPARES_FRACTION;
    c->network_fraction = NETWORK_FRACTION;
    c->storage_fraction = STORAGE_FRACTION;
    c->install_fraction = INSTALL_FRACTION;
    c->depreciation_years = DEPRECIATION_YEARS;
    c->residual_fraction = RESIDUAL_FRACTION;
    c->capital_rate_per_year = CAPITAL_RATE;
    c->maintenance_fraction_per_year = MAINTENANCE_FRACTION;
    c->server_power_factor = SERVER_POWER_FACTOR;
    c->pue = PUE;
    c->electricity_usd_per_kwh = ELECTRICITY_USD_KWH;
    c->colocation_usd_per_kw_month = COLOCATION_USD_KW_MO;
    c->staff_fte_per_1000_gpus = STAFF_FTE_PER_1000;
    c->staff_min_fte = STAFF_MIN_FTE;
    c->staff_usd_per_fte_year = STAFF_USD_PER_FTE_YR;
    c->cloud_overhead_fraction = CLOUD_OVERHEAD;
    c->n_api = sizeof builtin_api / sizeof builtin_api[0];
    memcpy(c->api, builtin_api, sizeof builtin_api);
    c->api_default = sim_cost_api_find(c, DEFAULT_API);
    /* Constant prices: a16z's "LLMflation" finds ~10x per year at equal
     * capability (§3 ✅), but frontier models do not fall at that rate; a
     * scenario sets 0.1 to follow it. Our assumption. */
    c->api_price_factor_per_year = 1.0;
}

const sim_cost_cfg *sim_scenario_cost(const sim_scenario *sc)
{
    static sim_cost_cfg defaults;
    static int ready;
    if (sc && sc->cost)
        return sc->cost;
    if (!ready) { /* constant data; a race writes the same bytes */
        sim_cost_defaults(&defaults);
        ready = 1;
    }
    return &defaults;
}

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int sim_cost_api_find(const sim_cost_cfg *c, const char *id)
{
    for (size_t i = 0; i < c->n_api; i++)
        if (same_name(c->api[i].id, id))
            return (int)i;
    return -1;
}

static const char *const category_labels[SIM__COST_N_CATEGORIES] = {
#define SIM__COST_CAT_LABEL_(id, label) label,
    SIM__COST_CATEGORIES(SIM__COST_CAT_LABEL_)
#undef SIM__COST_CAT_LABEL_
};

const char *sim__cost_category_label(int category)
{
    return category >= 0 && category < SIM__COST_N_CATEGORIES ? category_labels[category] : "?";
}

/* ------------------------------------------------------------------------- */
/* rates                                                                      */

/* The equivalent annual cost of capex C over n years at rate r with a
 * residual value R: C r / (1 - (1+r)^-n) - R r / ((1+r)^n - 1), which is
 * (C - R) / n at r = 0 (the straight-line depreciation). */
static double annuity_per_year(double capex, double residual, double r, double n)
{
    if (r == 0)
        return (capex - residual) / n;
    double g = expm1(n * log1p(r)); /* (1+r)^n - 1 */
    return capex * r * (g + 1) / g - residual * r / g;
}

void sim__cost_owned_rates_get(const sim_cost_cfg *c, const sim_gpu_type *types, uint32_t t,
                               sim__cost_owned_rates *r)
{
    const sim_gpu_type *g = &types[t];
    double share = isfinite(c->gpu_share_of_server_type[t]) ? c->gpu_share_of_server_type[t]
                                                            : c->gpu_share_of_server;
    double server =
        isfinite(c->server_usd_per_gpu[t]) ? c->server_usd_per_gpu[t] : g->purchase_usd / share;
    double capex = server * (1 + c->spares_fraction) *
                   (1 + c->network_fraction + c->storage_fraction + c->install_fraction);
    double residual = capex * c->residual_fraction;
    double eac = annuity_per_year(capex, residual, c->capital_rate_per_year, c->depreciation_years);
    double dep = (capex - residual) / c->depreciation_years;
    r->capex_usd_per_gpu = capex;
    r->depreciation_usd_per_h = dep / SIM_HOURS_PER_YEAR;
    r->capital_usd_per_h = (eac - dep) / SIM_HOURS_PER_YEAR;
    r->maintenance_usd_per_h = capex * c->maintenance_fraction_per_year / SIM_HOURS_PER_YEAR;
    double provisioned_kw = c->server_power_factor * g->power_peak_w / 1000;
    r->colocation_usd_per_h = provisioned_kw * c->colocation_usd_per_kw_month / SIM_HOURS_PER_MONTH;
    r->staff_usd_per_h =
        c->staff_fte_per_1000_gpus / 1000 * c->staff_usd_per_fte_year / SIM_HOURS_PER_YEAR;
    r->idle_kw = c->server_power_factor * g->power_idle_w / 1000 * c->pue;
    r->busy_extra_kw = c->server_power_factor * (g->power_peak_w - g->power_idle_w) / 1000 * c->pue;
}

double sim__cost_owned_fixed_usd_per_h(const sim__cost_owned_rates *r)
{
    return r->depreciation_usd_per_h + r->capital_usd_per_h + r->maintenance_usd_per_h +
           r->colocation_usd_per_h + r->staff_usd_per_h;
}

double sim__cost_api_factor(const sim_cost_cfg *c, double t0_h, double t1_h)
{
    double f = c->api_price_factor_per_year;
    if (f == 1 || !(f > 0))
        return 1.0;
    double k = log(f) / SIM_HOURS_PER_YEAR, a = k * t0_h, b = k * t1_h;
    if (t1_h <= t0_h)
        return exp(a);
    /* the mean of e^(k t) over [t0, t1] */
    return exp(a) * expm1(b - a) / (b - a);
}

void sim__cost_service_price(const sim_scenario *sc, size_t s, double *in_usd_per_mtok,
                             double *out_usd_per_mtok, int *api)
{
    const sim_cost_cfg *c = sim_scenario_cost(sc);
    const sim_service_spec *spec = &sc->services[s];
    *api = -1;
    if (spec->api_in_usd_per_mtok > 0 || spec->api_out_usd_per_mtok > 0) {
        *in_usd_per_mtok = spec->api_in_usd_per_mtok;
        *out_usd_per_mtok = spec->api_out_usd_per_mtok;
        return;
    }
    int k = -1;
    for (size_t i = 0; i < c->n_service_api; i++)
        if (c->service_api[i].svc == s)
            k = c->service_api[i].api;
    for (size_t i = 0; k < 0 && i < c->n_api; i++)
        if (c->api[i].serves[0] && same_name(c->api[i].serves, spec->cfg.model))
            k = (int)i;
    if (k < 0)
        k = c->api_default;
    *api = k;
    *in_usd_per_mtok = k >= 0 ? c->api[k].in_usd_per_mtok : NAN;
    *out_usd_per_mtok = k >= 0 ? c->api[k].out_usd_per_mtok : NAN;
}

/* ------------------------------------------------------------------------- */
/* a run                                                                      */

void sim__cost_report_fini(sim__cost_report *r)
{
    if (!r)
        return;
    free(r->pools);
    free(r->type_usd);
    free(r->class_usd);
    free(r->service_usd);
    free(r->service_api_usd);
    free(r->class_tokens);
    free(r->class_api_equivalent_usd);
    free(r->tenant_usd);
    memset(r, 0, sizeof *r);
}

/* [t0, t1) of pool p in hours, clipped to [0, end]. */
static void pool_window_h(const sim_pool_cfg *pc, int64_t end_us, double *t0, double *t1)
{
    int64_t a = pc->delivered_us > 0 ? pc->delivered_us : 0;
    int64_t b = pc->retired_us >= 0 && pc->retired_us < end_us ? pc->retired_us : end_us;
    if (a > end_us)
        a = end_us;
    if (b < a)
        b = a;
    *t0 = (double)a / SIM_US_PER_S / 3600;
    *t1 = (double)b / SIM_US_PER_S / 3600;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Staff: FTE = max(min, per_1000 x owned GPUs / 1000) while any owned GPU is
 * in its window, integrated over the segments between delivery and
 * retirement times (O(pools^2)) and shared among the owned pools of each
 * segment by their GPUs. */
static int staff_cost(const sim_scenario *sc, const sim_cost_cfg *c, int64_t end_us,
                      sim__cost_pool *pools, tm_diag *diag)
{
    size_t n = sc->n_pools, nb = 0;
    double *b = malloc((2 * n + 2) * sizeof *b);
    if (!b)
        return tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
    b[nb++] = 0;
    b[nb++] = (double)end_us / SIM_US_PER_S / 3600;
    for (size_t p = 0; p < n; p++) {
        pool_window_h(&sc->pools[p], end_us, &b[nb], &b[nb + 1]);
        nb += 2;
    }
    qsort(b, nb, sizeof *b, cmp_double);
    double usd_per_fte_h = c->staff_usd_per_fte_year / SIM_HOURS_PER_YEAR;
    for (size_t i = 0; i + 1 < nb; i++) {
        double a = b[i], z = b[i + 1];
        if (!(z > a))
            continue;
        double gpus = 0;
        for (size_t p = 0; p < n; p++) {
            double t0, t1;
            pool_window_h(&sc->pools[p], end_us, &t0, &t1);
            if (sc->pools[p].ownership == SIM_OWNED && t0 <= a && t1 >= z)
                gpus += pools[p].gpus;
        }
        if (!(gpus > 0))
            continue;
        double fte = c->staff_fte_per_1000_gpus * gpus / 1000;
        if (fte < c->staff_min_fte)
            fte = c->staff_min_fte;
        double usd = fte * (z - a) * usd_per_fte_h;
        for (size_t p = 0; p < n; p++) {
            double t0, t1;
            pool_window_h(&sc->pools[p], end_us, &t0, &t1);
            if (sc->pools[p].ownership == SIM_OWNED && t0 <= a && t1 >= z)
                pools[p].staff_usd += usd * pools[p].gpus / gpus;
        }
    }
    free(b);
    return TM_OK;
}

static double pos(double x)
{
    return x > 0 ? x : 0;
}

static void account_pool(const sim_scenario *sc, const sim_cost_cfg *c, const sim_result *res,
                         size_t p, sim__cost_pool *o)
{
    const sim_pool_cfg *pc = &sc->pools[p];
    const sim_gpu_type *g = &sc->types[pc->type];
    double t0, t1;
    pool_window_h(pc, res->t_end_us, &t0, &t1);
    o->gpus = (double)pc->nodes * pc->gpus_per_node;
    o->calendar_gpu_h = o->gpus * (t1 - t0);
    o->up_gpu_h = res->pools[p].up / 3600;
    o->alloc_gpu_h = res->pools[p].alloc / 3600;
    o->busy_gpu_h = res->pools[p].busy / 3600;
    double unalloc_h = pos(o->calendar_gpu_h - o->alloc_gpu_h);
    if (pc->ownership == SIM_OWNED) {
        sim__cost_owned_rates r;
        sim__cost_owned_rates_get(c, sc->types, pc->type, &r);
        double h = o->calendar_gpu_h;
        o->capex_usd = r.capex_usd_per_gpu * o->gpus;
        o->depreciation_usd = r.depreciation_usd_per_h * h;
        o->capital_usd = r.capital_usd_per_h * h;
        o->maintenance_usd = r.maintenance_usd_per_h * h;
        o->colocation_usd = r.colocation_usd_per_h * h;
        /* staff_usd: staff_cost, over the fleet */
        o->energy_kwh = r.idle_kw * o->up_gpu_h + r.busy_extra_kw * o->busy_gpu_h;
        o->energy_usd = o->energy_kwh * c->electricity_usd_per_kwh;
        /* idle: the calendar-hour costs of GPU-hours not allocated, and the idle
         * draw of those in service */
        double fixed_h = r.depreciation_usd_per_h + r.capital_usd_per_h + r.maintenance_usd_per_h +
                         r.colocation_usd_per_h;
        o->idle_usd = fixed_h * unalloc_h +
                      r.idle_kw * c->electricity_usd_per_kwh * pos(o->up_gpu_h - o->alloc_gpu_h);
    } else if (pc->ownership == SIM_RESERVED) {
        o->cloud_usd = g->reserved_usd_per_h * o->calendar_gpu_h;
        o->cloud_overhead_usd = o->cloud_usd * c->cloud_overhead_fraction;
        o->idle_usd = g->reserved_usd_per_h * (1 + c->cloud_overhead_fraction) * unalloc_h;
    } else {
        /* elastic: the GPU-hours the pool's jobs and replicas held */
        o->cloud_usd = g->ondemand_usd_per_h * o->alloc_gpu_h;
        o->cloud_overhead_usd = o->cloud_usd * c->cloud_overhead_fraction;
        o->idle_usd = 0;
    }
}

int sim__cost_account(const sim_scenario *sc, const sim_result *res, sim__cost_report *out,
                      tm_diag *diag)
{
    memset(out, 0, sizeof *out);
    const sim_cost_cfg *c = sim_scenario_cost(sc);
    size_t np = sc->n_pools, nt = sc->n_types, nc = sc->n_classes, ns = sc->n_services;
    size_t nk = sc->n_tenants;
    out->n_pools = np;
    out->n_types = nt;
    out->n_classes = nc;
    out->n_services = ns;
    out->n_tenants = nk;
    out->hours = (double)res->t_end_us / SIM_US_PER_S / 3600;
    out->pools = calloc(np ? np : 1, sizeof *out->pools);
    out->type_usd = calloc(nt ? nt : 1, sizeof *out->type_usd);
    out->class_usd = calloc(nc ? nc : 1, sizeof *out->class_usd);
    out->class_tokens = calloc(nc ? nc : 1, sizeof *out->class_tokens);
    out->class_api_equivalent_usd = calloc(nc ? nc : 1, sizeof *out->class_api_equivalent_usd);
    out->service_usd = calloc(ns ? ns : 1, sizeof *out->service_usd);
    out->service_api_usd = calloc(ns ? ns : 1, sizeof *out->service_api_usd);
    out->tenant_usd = calloc(nk ? nk : 1, sizeof *out->tenant_usd);
    if (!out->pools || !out->type_usd || !out->class_usd || !out->class_tokens ||
        !out->class_api_equivalent_usd || !out->service_usd || !out->service_api_usd ||
        !out->tenant_usd) {
        sim__cost_report_fini(out);
        return tm_diag_set(diag, TM_ERR_NOMEM, "cost", "out of memory");
    }
    for (size_t p = 0; p < np; p++)
        account_pool(sc, c, res, p, &out->pools[p]);
    int rc = staff_cost(sc, c, res->t_end_us, out->pools, diag);
    if (rc != TM_OK) {
        sim__cost_report_fini(out);
        return rc;
    }
    double fleet_alloc_h = 0;
    for (size_t p = 0; p < np; p++) {
        sim__cost_pool *o = &out->pools[p];
        const sim_pool_cfg *pc = &sc->pools[p];
        if (pc->ownership == SIM_OWNED) {
            /* staff is a calendar-hour cost: its idle part like the others' */
            double idle_share = o->calendar_gpu_h > 0
                                    ? pos(o->calendar_gpu_h - o->alloc_gpu_h) / o->calendar_gpu_h
                                    : 0;
            o->idle_usd += o->staff_usd * idle_share;
            o->total_usd = o->depreciation_usd + o->capital_usd + o->maintenance_usd +
                           o->colocation_usd + o->staff_usd + o->energy_usd;
            out->owned_usd += o->total_usd;
            out->capex_usd += o->capex_usd;
            out->owned_opex_usd +=
                o->energy_usd + o->colocation_usd + o->maintenance_usd + o->staff_usd;
            out->energy_kwh += o->energy_kwh;
            out->category_usd[SIM__COST_OWNED_USED] += o->total_usd - o->idle_usd;
            out->category_usd[SIM__COST_OWNED_IDLE] += o->idle_usd;
        } else {
            o->total_usd = o->cloud_usd + o->cloud_overhead_usd;
            if (pc->ownership == SIM_RESERVED) {
                out->reserved_usd += o->total_usd;
                out->category_usd[SIM__COST_RESERVED_USED] += o->total_usd - o->idle_usd;
                out->category_usd[SIM__COST_RESERVED_IDLE] += o->idle_usd;
            } else {
                out->ondemand_usd += o->total_usd;
                out->category_usd[SIM__COST_ONDEMAND] += o->total_usd;
            }
        }
        out->type_usd[pc->type] += o->total_usd;
        out->idle_usd += o->idle_usd;
        fleet_alloc_h += o->alloc_gpu_h;
    }
    out->fleet_usd = out->owned_usd + out->reserved_usd + out->ondemand_usd;
    out->power_kw_mean = out->hours > 0 ? out->energy_kwh / out->hours : 0;

    /* API: the services' overflow, at the average price factor over the run */
    double factor = sim__cost_api_factor(c, 0, out->hours);
    double api_equiv = 0, tokens = 0, charged_tokens_usd = 0;
    for (size_t s = 0; s < ns; s++) {
        const sim_service_result *v = &res->services[s];
        double pin, pout;
        int api;
        sim__cost_service_price(sc, s, &pin, &pout, &api);
        out->service_api_usd[s] = (v->tok_in_api * pin + v->tok_out_api * pout) / 1e6 * factor;
        out->api_usd += out->service_api_usd[s];
        api_equiv += (v->tok_in_owned * pin + v->tok_out_owned * pout) / 1e6 * factor;
        tokens += v->tok_in_owned + v->tok_out_owned;
    }
    out->category_usd[SIM__COST_API] = out->api_usd;
    out->total_usd = out->fleet_usd + out->api_usd;

    /* chargeback: the fleet cost by allocated GPU-hours (jobs and replicas) */
    double consumers_h = 0;
    for (size_t k = 0; k < nc; k++)
        consumers_h += res->classes[k].gpu_s_alloc / 3600;
    for (size_t s = 0; s < ns; s++)
        consumers_h += res->services[s].gpu_hours_alloc;
    double per_h = consumers_h > 0 ? out->fleet_usd / consumers_h : 0;
    for (size_t k = 0; k < nc; k++)
        out->class_usd[k] = per_h * res->classes[k].gpu_s_alloc / 3600;
    for (size_t s = 0; s < ns; s++) {
        out->service_usd[s] = per_h * res->services[s].gpu_hours_alloc;
        charged_tokens_usd += out->service_usd[s];
    }
    /* batch classes with a token mapping: their goodput as API tokens at the
     * batch rate */
    for (size_t i = 0; i < c->n_batch; i++) {
        const sim_cost_batch *b = &c->batch[i];
        if (b->cls >= nc || b->api < 0 || (size_t)b->api >= c->n_api)
            continue;
        const sim_cost_api_price *a = &c->api[b->api];
        double good_s = res->classes[b->cls].gpu_s_goodput;
        double tin = good_s * b->tok_in_per_gpu_s, tout = good_s * b->tok_out_per_gpu_s;
        out->class_tokens[b->cls] = tin + tout;
        out->class_api_equivalent_usd[b->cls] =
            (tin * a->in_usd_per_mtok + tout * a->out_usd_per_mtok) / 1e6 *
            (1 - a->batch_discount) * factor;
        api_equiv += out->class_api_equivalent_usd[b->cls];
        tokens += tin + tout;
        charged_tokens_usd += out->class_usd[b->cls];
    }
    /* tenants: each class's charge by its tenant mix (expected shares) */
    for (size_t k = 0; k < nc; k++) {
        const sim_class_cfg *cc = &sc->classes[k];
        if (!cc->has_tenants || cc->tenant.kind != TRACE_DIST_DISCRETE) {
            out->tenant_usd[0] += out->class_usd[k];
            continue;
        }
        for (size_t i = 0; i < cc->tenant.n; i++) {
            double v = cc->tenant.values[i];
            size_t t = v >= 0 && v < (double)nk ? (size_t)v : 0;
            out->tenant_usd[t] += out->class_usd[k] * cc->tenant.weights[i];
        }
    }
    out->tokens_served = tokens;
    out->api_equivalent_usd = api_equiv;
    out->usd_per_mtok_served = tokens > 0 ? charged_tokens_usd / tokens * 1e6 : NAN;
    double good_h = res->gpu_s_goodput / 3600;
    out->usd_per_goodput_gpu_h = good_h > 0 ? out->fleet_usd / good_h : NAN;
    out->usd_per_alloc_gpu_h = fleet_alloc_h > 0 ? out->fleet_usd / fleet_alloc_h : NAN;
    double work_h = res->work_ref_gpu_s / 3600, value_h = res->value_work_ref_gpu_s / 3600;
    out->usd_per_work_ref_gpu_h = work_h > 0 ? out->fleet_usd / work_h : NAN;
    out->usd_per_value_work_ref_gpu_h = value_h > 0 ? out->fleet_usd / value_h : NAN;
    out->usd_per_month = out->hours > 0 ? out->total_usd / out->hours * SIM_HOURS_PER_MONTH : NAN;
    return TM_OK;
}
