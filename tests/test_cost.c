/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cost.c — the cost model (sim/model/cost.c) and breakeven (sim/studies/breakeven.c)
 * against cases worked by hand.
 *
 * Every case uses a GPU type "X" with round figures (purchase $10,000, idle
 * 100 W, peak 500 W, on-demand $3/h, reserved $2/h) and a cost section with
 * round parameters, so each expected value below is arithmetic written out in
 * the comment next to it, not a number the code produced. A year is 8766 h
 * (365.25 d), a month 730.5 h.
 *
 *   one GPU, one year, owned, idle     capital recovery, maintenance,
 *                                      colocation, staff, idle energy
 *   ... busy all year                  + load energy; reserved; on-demand
 *   a fleet idle half the time         idle cost and power; chargeback; tenants
 *   staff with a minimum, pools        piecewise FTE over delivery times
 *   delivered mid-run
 *   API only                           overflow tokens x prices; yearly price
 *                                      factor against a numerical integral;
 *                                      a service priced by cost.api.services
 *   breakeven with a closed form       own = capex / 12 per month, constant
 *                                      while one node serves: V* = own / price
 *   payback                            linear within the last month
 *   bad cost sections                  messages naming the JSON path
 */
#include "studies/breakeven_int.h"
#include "check.h"
#include "model/cost_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_X                                                                                     \
    "\"gpu_types\": [{\"name\": \"X\", \"mem_gib\": 80, \"bf16_tflops\": 989, \"mem_bw_gbs\": "    \
    "3350, \"power_idle_w\": 100, \"power_peak_w\": 500, \"purchase_usd\": 10000, "                \
    "\"ondemand_usd_per_h\": 3, \"reserved_usd_per_h\": 2}]"

/* Round parameters (docs/cost.md names them). */
#define COST_X                                                                                     \
    "\"cost\": {\"owned\": {\"gpu_share_of_server\": 1, \"spares\": 0, \"network\": 0, "           \
    "\"storage\": 0, \"install\": 0, \"depreciation_years\": 5, \"residual\": 0.2, "               \
    "\"cost_of_capital\": 0.08, \"maintenance_per_year\": 0.02, \"server_power_factor\": 1.5, "    \
    "\"pue\": 1.25, \"electricity_usd_per_kwh\": 0.1, \"colocation_usd_per_kw_month\": 150, "      \
    "\"staff_fte_per_1000_gpus\": 8, \"staff_min_fte\": 0, \"staff_usd_per_fte_year\": 200000}, "  \
    "\"cloud\": {\"overhead\": 0.3}}"

static int load(sim_scenario *sc, const char *json)
{
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim_scenario_load_text(sc, json, strlen(json), "test", &d);
    if (rc != TM_OK)
        fprintf(stderr, "scenario: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

static int run_cost(const sim_scenario *sc, sim_result *res, sim__cost_report *cr)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_run_opts o = {0};
    int rc = sim_run(sc, &o, NULL, res, &d);
    if (rc == TM_OK)
        rc = sim__cost_account(sc, res, cr, &d);
    if (rc != TM_OK)
        fprintf(stderr, "run: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* one GPU for one year                                                       */

/* Owned, 1 GPU, 8766 h, capex C = $10,000 (server price = GPU price: share 1,
 * no spares, network, storage, installation):
 *   (1.08)^5 = 1.4693280768
 *   capital recovery factor r (1+r)^n / ((1+r)^n - 1) = 0.117546246 / 0.4693280768
 *     = 0.250456455;  sinking-fund factor r / ((1+r)^n - 1) = 0.170456455
 *   equivalent annual cost = 10000 x 0.250456455 - 2000 x 0.170456455
 *     = 2504.56455 - 340.91291 = 2163.65164
 *   depreciation (10000 - 2000) / 5 = 1600; capital 563.65164
 *   maintenance 0.02 x 10000 = 200
 *   colocation 1.5 x 0.5 kW x $150 x 12 months = 1350
 *   staff 8 / 1000 x $200,000 = 1600
 *   idle energy 1.5 x 0.1 kW x 1.25 x 8766 h = 1643.625 kWh x $0.1 = 164.3625
 *   total 2163.65164 + 200 + 1350 + 1600 + 164.3625 = 5478.01414 */
static void test_one_gpu_year(void)
{
    static const char json_idle[] =
        "{\"name\": \"one\", \"horizon\": \"8766h\", " TYPE_X ", "
        "\"fleet\": {\"pools\": [{\"name\": \"p\", \"gpu_type\": \"X\", \"nodes\": 1, "
        "\"gpus_per_node\": 1}]}, \"workload\": {\"classes\": [{\"name\": \"c\", \"arrival\": "
        "{\"rate_per_s\": 0}, \"duration\": \"1h\"}]}, " COST_X "}";
    sim_scenario sc;
    if (load(&sc, json_idle) != TM_OK)
        return;
    sim_result res;
    sim__cost_report cr;
    if (run_cost(&sc, &res, &cr) == TM_OK) {
        const sim__cost_pool *p = &cr.pools[0];
        CHECK_NEAR(cr.hours, 8766, 1e-9);
        CHECK_NEAR(p->calendar_gpu_h, 8766, 1e-9);
        CHECK_NEAR(p->capex_usd, 10000, 1e-9);
        CHECK_NEAR(p->depreciation_usd, 1600, 1e-6);
        CHECK_NEAR(p->capital_usd, 563.65164, 1e-5);
        CHECK_NEAR(p->maintenance_usd, 200, 1e-6);
        CHECK_NEAR(p->colocation_usd, 1350, 1e-6);
        CHECK_NEAR(p->staff_usd, 1600, 1e-6);
        CHECK_NEAR(p->energy_kwh, 1643.625, 1e-6);
        CHECK_NEAR(p->energy_usd, 164.3625, 1e-6);
        CHECK_NEAR(p->total_usd, 5478.01414, 1e-4);
        CHECK_NEAR(cr.owned_usd, 5478.01414, 1e-4);
        /* nothing allocated: every dollar is idle cost */
        CHECK_NEAR(cr.idle_usd, 5478.01414, 1e-4);
        CHECK_NEAR(cr.category_usd[SIM__COST_OWNED_IDLE], 5478.01414, 1e-4);
        CHECK_NEAR(cr.category_usd[SIM__COST_OWNED_USED], 0, 1e-6);
        /* running costs: energy + colocation + maintenance + staff */
        CHECK_NEAR(cr.owned_opex_usd, 164.3625 + 1350 + 200 + 1600, 1e-6);
        CHECK_NEAR(cr.usd_per_month, 5478.01414 / 12, 1e-5);
        CHECK(isnan(cr.usd_per_goodput_gpu_h)); /* no useful hour at all */
        sim__cost_report_fini(&cr);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);

    /* Busy the whole year: one 1-GPU job arriving within a millisecond
     * (rate 1000/s, one job) and running past the horizon. On top of the idle
     * case, load energy 1.5 x 0.4 kW x 1.25 x 8766 h = 6574.5 kWh, $657.45:
     * energy 164.3625 + 657.45 = 821.8125, total 2163.65164 + 200 + 1350 +
     * 1600 + 821.8125 = 6135.46414, idle ~0. The arrival's millisecond costs
     * at most $0.7e-3/h x 1e-3/3600 h: far below the tolerance. */
    for (int own = 0; own < 3; own++) {
        char json[4096];
        static const char *const owns[] = {"owned", "reserved", "on-demand"};
        snprintf(json, sizeof json,
                 "{\"name\": \"busy\", \"horizon\": \"8766h\", " TYPE_X ", "
                 "\"fleet\": {\"pools\": [{\"name\": \"p\", \"gpu_type\": \"X\", \"nodes\": 1, "
                 "\"gpus_per_node\": 1, \"ownership\": \"%s\"}]}, \"workload\": {\"classes\": "
                 "[{\"name\": \"c\", \"arrival\": {\"rate_per_s\": 1000}, \"max_jobs\": 1, "
                 "\"duration\": \"10000h\"}]}, " COST_X "}",
                 owns[own]);
        if (load(&sc, json) != TM_OK)
            return;
        if (run_cost(&sc, &res, &cr) == TM_OK) {
            CHECK_NEAR(cr.pools[0].alloc_gpu_h, 8766, 1e-5);
            CHECK_NEAR(cr.idle_usd, 0, 1e-2);
            if (own == 0) {
                CHECK_NEAR(cr.pools[0].energy_usd, 821.8125, 1e-3);
                CHECK_NEAR(cr.owned_usd, 6135.46414, 1e-3);
                CHECK_NEAR(cr.usd_per_goodput_gpu_h, 6135.46414 / 8766, 1e-6);
            } else if (own == 1) {
                /* reserved: $2 x 8766 h = 17532, overhead 0.3 x 17532 = 5259.6 */
                CHECK_NEAR(cr.pools[0].cloud_usd, 17532, 1e-6);
                CHECK_NEAR(cr.pools[0].cloud_overhead_usd, 5259.6, 1e-6);
                CHECK_NEAR(cr.reserved_usd, 22791.6, 1e-6);
                CHECK_NEAR(cr.owned_usd, 0, 0);
            } else {
                /* on-demand, by the allocated hour: $3 x 8766 x 1.3 = 34187.4 */
                CHECK_NEAR(cr.ondemand_usd, 34187.4, 1e-2);
                CHECK_NEAR(cr.category_usd[SIM__COST_ONDEMAND], 34187.4, 1e-2);
            }
            CHECK_NEAR(cr.total_usd, cr.fleet_usd, 1e-9);
            sim__cost_report_fini(&cr);
            sim_result_fini(&res);
        }
        sim_scenario_fini(&sc);
    }
}

/* ------------------------------------------------------------------------- */
/* a fleet idle half the time                                                 */

/* 1 node of 2 GPUs for 1000 h; one 2-GPU job for the first 500 h: 2000
 * calendar GPU-hours, 1000 allocated and busy, 1000 idle.
 *   fixed per GPU-hour: (2163.65164 + 200 + 1350 + 1600) / 8766 = 0.606166055
 *   energy: idle 0.1875 kW x 2000 GPU-h + load 0.75 kW x 1000 GPU-h
 *     = 375 + 750 = 1125 kWh = $112.50; mean draw 1.125 kW
 *   total 0.606166055 x 2000 + 112.5 = 1324.83211
 *   idle: 0.606166055 x 1000 + idle draw 0.1875 kW x 1000 h x $0.1 = 624.91606
 * (X has the H100's 989 TFLOPS, so the job runs at speed 1: 500 h.)
 * Chargeback: the only class gets the whole fleet cost; its tenants x and y
 * (mix 3 : 1) get 3/4 and 1/4 of it. */
static void test_half_idle(void)
{
    static const char json[] =
        "{\"name\": \"half\", \"horizon\": \"1000h\", " TYPE_X ", "
        "\"tenants\": [{\"name\": \"x\"}, {\"name\": \"y\"}], "
        "\"fleet\": {\"pools\": [{\"name\": \"p\", \"gpu_type\": \"X\", \"nodes\": 1, "
        "\"gpus_per_node\": 2}]}, \"workload\": {\"classes\": [{\"name\": \"c\", \"arrival\": "
        "{\"rate_per_s\": 1000}, \"max_jobs\": 1, \"gpus\": 2, \"duration\": \"500h\", "
        "\"tenants\": {\"x\": 3, \"y\": 1}}]}, " COST_X "}";
    sim_scenario sc;
    if (load(&sc, json) != TM_OK)
        return;
    sim_result res;
    sim__cost_report cr;
    if (run_cost(&sc, &res, &cr) == TM_OK) {
        const sim__cost_pool *p = &cr.pools[0];
        CHECK_NEAR(p->calendar_gpu_h, 2000, 1e-9);
        CHECK_NEAR(p->alloc_gpu_h, 1000, 1e-5);
        CHECK_NEAR(p->busy_gpu_h, 1000, 1e-5);
        CHECK_NEAR(p->energy_kwh, 1125, 1e-4);
        CHECK_NEAR(cr.power_kw_mean, 1.125, 1e-7);
        CHECK_NEAR(p->total_usd, 1324.83211, 1e-4);
        CHECK_NEAR(cr.idle_usd, 624.91606, 1e-4);
        CHECK_NEAR(cr.category_usd[SIM__COST_OWNED_USED] + cr.category_usd[SIM__COST_OWNED_IDLE],
                   cr.total_usd, 1e-9);
        CHECK_NEAR(cr.class_usd[0], cr.fleet_usd, 1e-9);
        CHECK_NEAR(cr.tenant_usd[0], 0.75 * cr.fleet_usd, 1e-9);
        CHECK_NEAR(cr.tenant_usd[1], 0.25 * cr.fleet_usd, 1e-9);
        /* per useful hour: 1324.83211 / 1000 */
        CHECK_NEAR(cr.usd_per_goodput_gpu_h, 1.32483211, 1e-7);
        sim__cost_report_fini(&cr);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

/* Staff with a minimum of 1 FTE at $876,600 a year ($100 an FTE-hour): pool a
 * (1 GPU) from 0, pool b (1 GPU) delivered at 500 h, 1000 h in all. 8 FTE per
 * 1000 GPUs is far below the minimum, so 1 FTE throughout: [0, 500) all on a,
 * $50,000; [500, 1000) split by GPUs, $25,000 each. a = 75,000, b = 25,000. */
static void test_staff_minimum(void)
{
    static const char json[] =
        "{\"name\": \"staff\", \"horizon\": \"1000h\", " TYPE_X ", "
        "\"fleet\": {\"pools\": [{\"name\": \"a\", \"gpu_type\": \"X\", \"nodes\": 1, "
        "\"gpus_per_node\": 1}, {\"name\": \"b\", \"gpu_type\": \"X\", \"nodes\": 1, "
        "\"gpus_per_node\": 1, \"delivered\": \"500h\"}]}, \"workload\": {\"classes\": "
        "[{\"name\": \"c\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": \"1h\"}]}, "
        "\"cost\": {\"owned\": {\"staff_fte_per_1000_gpus\": 8, \"staff_min_fte\": 1, "
        "\"staff_usd_per_fte_year\": 876600}}}";
    sim_scenario sc;
    if (load(&sc, json) != TM_OK)
        return;
    sim_result res;
    sim__cost_report cr;
    if (run_cost(&sc, &res, &cr) == TM_OK) {
        CHECK_NEAR(cr.pools[0].staff_usd, 75000, 1e-6);
        CHECK_NEAR(cr.pools[1].staff_usd, 25000, 1e-6);
        CHECK_NEAR(cr.pools[1].calendar_gpu_h, 500, 1e-9);
        sim__cost_report_fini(&cr);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* API only                                                                   */

/* No GPUs: every request of a 2 req/s service over 100 h goes to the API.
 * 720,000 requests x 1000 input and 200 output tokens: 7.2e8 and 1.44e8;
 * at $1 / $4 per million: 720 + 576 = $1,296. With cost.api.services mapping
 * it to gpt-4o-mini ($0.15 / $0.60): 108 + 86.4 = $194.40. With a yearly
 * price factor of 0.5 the bill is the average factor over the 100 h, checked
 * against a midpoint sum of 10^5 steps. */
static void test_api_only(void)
{
    static const char fmt[] =
        "{\"name\": \"api\", \"horizon\": \"100h\", " TYPE_X ", "
        "\"fleet\": {\"pools\": [{\"name\": \"p\", \"gpu_type\": \"X\", \"nodes\": 0}]}, "
        "\"workload\": {\"services\": [{\"name\": \"s\", \"tokens_per_s\": {\"X\": 1000}, "
        "\"concurrency\": 8, \"tokens_in\": 1000, \"tokens_out\": 200, \"overflow\": \"api\", "
        "%s \"autoscale\": {\"min\": 0, \"max\": 1}, \"load\": {\"rate_per_s\": 2}}]}%s}";
    char json[4096];
    for (int k = 0; k < 3; k++) {
        const char *price =
            k == 1 ? "" : "\"api_price\": {\"input_usd_per_mtok\": 1, \"output_usd_per_mtok\": 4},";
        const char *cost =
            k == 0   ? ""
            : k == 1 ? ", \"cost\": {\"api\": {\"services\": {\"s\": \"openai/gpt-4o-mini\"}}}"
                     : ", \"cost\": {\"api\": {\"yearly_price_factor\": 0.5}}";
        snprintf(json, sizeof json, fmt, price, cost);
        sim_scenario sc;
        if (load(&sc, json) != TM_OK)
            return;
        sim_result res;
        sim__cost_report cr;
        if (run_cost(&sc, &res, &cr) == TM_OK) {
            CHECK_NEAR(res.services[0].tok_in_api, 7.2e8, 1e-3);
            CHECK_NEAR(res.services[0].tok_out_api, 1.44e8, 1e-3);
            CHECK_NEAR(cr.fleet_usd, 0, 0);
            double want = k == 1 ? 194.4 : 1296;
            if (k == 2) {
                double sum = 0, n = 1e5;
                for (double i = 0; i < n; i++)
                    sum += pow(0.5, (i + 0.5) / n * 100 / 8766) / n;
                want *= sum;
                CHECK(want < 1296 && want > 1290); /* ~0.4 % off over 100 h */
            }
            CHECK_NEAR(cr.api_usd, want, 1e-6 * want);
            CHECK_NEAR(cr.total_usd, want, 1e-6 * want);
            CHECK_NEAR(cr.category_usd[SIM__COST_API], want, 1e-6 * want);
            sim__cost_report_fini(&cr);
            sim_result_fini(&res);
        }
        sim_scenario_fini(&sc);
    }
}

/* ------------------------------------------------------------------------- */
/* breakeven with a closed form                                               */

/* Type Y: $12,000, no power, reserved $1/h, on-demand $2/h; 1-GPU nodes;
 * every cost but depreciation zeroed, life 1 year, no residual or interest:
 * one owned GPU costs 12000 / 12 = $1,000 a month, whatever its load. The
 * service: 1000 input + 200 output tokens per request, API $0.50 per million
 * either way, 1 req/s flat over 7 days: V0 = 1200 x 3600 x 730.5 = 3.15576e9
 * tokens a month. One replica serves ~15 req/s within the SLO, so up to ~4e10
 * tokens a month one node is the cheapest fleet and own(V) = 1000 exactly:
 *   own beats the API from V* = 1000 / 0.5e-6 = 2e9 tokens a month;
 *   reserved: $1 x 730.5 h = 730.5 a month, V* = 1.461e9;
 *   at V0 the API bill is 3.15576e9 x 0.5e-6 = 1577.88, payback 12000 /
 *   1577.88 = 7.6051 months (no running cost);
 *   utilization: a useful GPU-hour serves 3400 x 3600 x 1200 / 200 =
 *   7.344e7 tokens, $36.72 of API; owned at busy u costs 1000 / (730.5 u) per
 *   useful hour, equal at u* = 1000 / (730.5 x 36.72) = 0.0372797. */
static void test_breakeven_closed_form(void)
{
    static const char json[] =
        "{\"name\": \"be\", \"horizon\": \"7d\", \"gpu_types\": [{\"name\": \"Y\", \"mem_gib\": "
        "80, \"power_idle_w\": 0, \"power_peak_w\": 0, \"purchase_usd\": 12000, "
        "\"ondemand_usd_per_h\": 2, \"reserved_usd_per_h\": 1}], "
        "\"fleet\": {\"pools\": [{\"name\": \"p\", \"gpu_type\": \"Y\", \"nodes\": 1, "
        "\"gpus_per_node\": 1}]}, "
        "\"workload\": {\"services\": [{\"name\": \"s\", \"tokens_per_s\": {\"Y\": 3400}, "
        "\"concurrency\": 64, \"tokens_in\": 1000, \"tokens_out\": 200, "
        "\"api_price\": {\"input_usd_per_mtok\": 0.5, \"output_usd_per_mtok\": 0.5}, "
        "\"autoscale\": {\"min\": 1, \"max\": 4}, \"load\": {\"rate_per_s\": 1}}]}, "
        "\"cost\": {\"owned\": {\"gpu_share_of_server\": 1, \"spares\": 0, \"network\": 0, "
        "\"storage\": 0, \"install\": 0, \"depreciation_years\": 1, \"residual\": 0, "
        "\"cost_of_capital\": 0, \"maintenance_per_year\": 0, \"colocation_usd_per_kw_month\": 0, "
        "\"electricity_usd_per_kwh\": 0, \"staff_fte_per_1000_gpus\": 0, \"staff_min_fte\": 0}, "
        "\"cloud\": {\"overhead\": 0}}}";
    sim_scenario sc;
    if (load(&sc, json) != TM_OK)
        return;
    sim__size_term terms[SIM__SIZE_MAX_TERMS];
    size_t nt = 0;
    tm_diag d;
    tm_diag_clear(&d);
    CHECK_EQ_INT(sim__be_terms(&sc, terms, &nt, &d), TM_OK);
    CHECK_EQ_INT(nt, 1);
    sim__size_runner run;
    memset(&run, 0, sizeof run);
    run.base = &sc;
    run.terms = terms;
    run.n_terms = nt;
    run.n_vary = 1;
    run.vary[0] = 0;
    run.replications = 1; /* the service model has no randomness here */
    run.confidence = 0.95;
    run.services_elastic = 1;
    sim__be_cfg cfg = {4, 1e8, 1e11, 3, 64, &run};
    sim__be_result res;
    int rc = sim__be_run(&cfg, &res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "breakeven: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        CHECK_NEAR(res.v0_tokens_per_month, 3.15576e9, 1e-3);
        CHECK_NEAR(res.api_usd_per_mtok, 0.5, 1e-12);
        CHECK_NEAR(res.pts[1].usd[SIM__BE_OWN], 1000, 1e-9);
        CHECK_NEAR(res.pts[1].api_usd, 500, 1e-9); /* 1e9 tokens */
        CHECK_NEAR(res.beats_tokens_per_month[SIM__BE_OWN], 2e9, 1e-3);
        CHECK_NEAR(res.beats_tokens_per_month[SIM__BE_RENT], 1.461e9, 1e-3);
        CHECK(!res.beats_at_bottom[SIM__BE_OWN]);
        CHECK_NEAR(res.ref.payback_months, 12000 / 1577.88, 1e-6);
        CHECK(isnan(res.ref.payback_vs_rent_months) ||
              fabs(res.ref.payback_vs_rent_months - 12000 / 730.5) < 1e-6);
        CHECK_NEAR(res.tokens_per_useful_gpu_h, 7.344e7, 1e-3);
        CHECK_NEAR(res.util_beats[0], 1000 / (730.5 * 36.72), 1e-9);
        CHECK_NEAR(res.util_beats[1], 730.5 / (730.5 * 36.72), 1e-9);
        /* more volume, more nodes: 1e11 tokens is ~31.7 req/s */
        CHECK(res.pts[3].gpus >= 2);
        CHECK_NEAR(res.pts[3].usd[SIM__BE_OWN], 1000 * res.pts[3].gpus, 1e-6);
        sim__be_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

static void test_payback(void)
{
    /* 1000 of capex, 150 a month of income, 50 of running cost: 10 months */
    CHECK_NEAR(sim__be_payback_months(1000, 150, 1, 50, 120), 10, 1e-12);
    /* income falling by half a year: capex = income of months 0 and 1 exactly */
    double q = pow(0.5, 1.0 / 12);
    CHECK_NEAR(sim__be_payback_months(200 + 200 * q, 200, 0.5, 0, 120), 2, 1e-9);
    /* never within the life */
    CHECK(isnan(sim__be_payback_months(1000, 10, 1, 20, 60)));
    CHECK_NEAR(sim__be_payback_months(0, 10, 1, 20, 60), 0, 0);
}

/* ------------------------------------------------------------------------- */
/* bad cost sections                                                          */

static void expect_bad(const char *cost, const char *where, const char *msg)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{\"fleet\": {\"pools\": [{\"gpu_type\": \"H100\", \"nodes\": 1}]}, \"workload\": "
             "{\"classes\": [{\"name\": \"c\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": "
             "\"1h\"}]}, \"cost\": %s}",
             cost);
    sim_scenario sc;
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim_scenario_load_text(&sc, json, strlen(json), "bad.json", &d);
    CHECK_EQ_INT(rc, TM_ERR_SCENARIO);
    if (!strstr(d.where, where) || !strstr(d.msg, msg))
        check_fail(__FILE__, __LINE__, "got '%s: %s', want '%s' and '%s'", d.where, d.msg, where,
                   msg);
    sim_scenario_fini(&sc);
}

static void test_bad_input(void)
{
    expect_bad("{\"owned\": {\"electricity_usd_per_kwh\": -0.1}}",
               "bad.json: cost.owned.electricity_usd_per_kwh", "expected a number in [0, 1000]");
    expect_bad("{\"owned\": {\"server_usd_per_gpu\": {\"H100\": -5}}}",
               "cost.owned.server_usd_per_gpu.H100", "expected a price");
    expect_bad("{\"owned\": {\"server_usd_per_gpu\": {\"Z9\": 5}}}",
               "cost.owned.server_usd_per_gpu.Z9", "no GPU type named");
    expect_bad("{\"owned\": {\"pue\": 0.5}}", "cost.owned.pue", "expected a number in [1, 10]");
    expect_bad("{\"api\": {\"prices\": [{\"id\": \"me/x\", \"input_usd_per_mtok\": -1, "
               "\"output_usd_per_mtok\": 1}]}}",
               "cost.api.prices[0].input_usd_per_mtok", "expected a number in [0");
    expect_bad("{\"api\": {\"prices\": [{\"id\": \"me/x\", \"input_usd_per_mtok\": 1}]}}",
               "cost.api.prices[0].output_usd_per_mtok", "required");
    expect_bad("{\"api\": {\"model\": \"nobody/none\"}}", "cost.api.model", "no API");
    expect_bad("{\"api\": {\"services\": {\"chat\": \"openai/gpt-5\"}}}", "cost.api.services.chat",
               "no service named");
    expect_bad("{\"batch\": [{\"class\": \"nope\", \"tokens_out_per_gpu_s\": 1}]}",
               "cost.batch[0].class", "no class named");
    expect_bad("{\"batch\": [{\"class\": \"c\"}]}", "cost.batch[0]", "give tokens_in_per_gpu_s");
    expect_bad("{\"cloud\": {\"overhead\": -1}}", "cost.cloud.overhead", "expected a number");
    expect_bad("{\"owned\": {\"pue\": 1.2, \"pue\": 1.3}}", "cost.owned.pue", "key given twice");
    expect_bad("{\"ownd\": {}}", "cost.ownd", "unknown key");
}

/* The defaults: what docs/cost.md says they are. */
static void test_defaults(void)
{
    sim_cost_cfg c;
    sim_cost_defaults(&c);
    CHECK_NEAR(c.depreciation_years, 5, 0);
    CHECK_NEAR(c.residual_fraction, 0.15, 0);
    CHECK_NEAR(c.capital_rate_per_year, 0.10, 0);
    CHECK_NEAR(c.pue, 1.3, 0);
    CHECK_NEAR(c.electricity_usd_per_kwh, 0.08, 0);
    CHECK_NEAR(c.colocation_usd_per_kw_month, 184.06, 0);
    CHECK_NEAR(c.server_power_factor, 10.2 / 8 / 0.7, 1e-12);
    CHECK_NEAR(c.cloud_overhead_fraction, 0.3, 0);
    CHECK(c.api_default >= 0);
    CHECK_STR(c.api[c.api_default].id, "openai/gpt-4o-mini");
    CHECK(sim_cost_api_find(&c, "Together/Llama-3.1-8B-Instruct-Turbo") >= 0);
    /* the H100 server quote, per GPU; other types from the GPU share */
    size_t n;
    const sim_gpu_type *types = sim_catalog_builtin(&n);
    sim__cost_owned_rates r;
    sim__cost_owned_rates_get(&c, types, 0, &r); /* H100: $310k / 8, x 1.05 x 1.20 */
    CHECK_NEAR(r.capex_usd_per_gpu, 310000.0 / 8 * 1.05 * 1.20, 1e-6);
    int a100 = sim_catalog_find(types, n, "A100-80GB");
    sim__cost_owned_rates_get(&c, types, (uint32_t)a100, &r); /* $12k / 0.65 x 1.26 */
    CHECK_NEAR(r.capex_usd_per_gpu, 12000 / 0.65 * 1.26, 1e-6);
}

int main(void)
{
    test_defaults();
    test_one_gpu_year();
    test_half_idle();
    test_staff_minimum();
    test_api_only();
    test_payback();
    test_breakeven_closed_form();
    test_bad_input();
    return check_finish("test_cost");
}
