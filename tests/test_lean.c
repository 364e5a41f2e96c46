/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_lean.c — the engine's lean loop against its general loop.
 *
 * The engine runs a scenario that qualifies (engine.c, "the lean loop": a
 * FIFO first-fit policy, one-GPU nodes always in service, one-GPU jobs, no
 * services, failures or preemption) through a second, shorter loop that
 * makes the placement decisions itself. Its results must be the general
 * loop's to the bit. Each case here is a random scenario that qualifies
 * (pools of several GPU types, arrival rates from light to overload,
 * duration distributions with ties and zero-length jobs, drain and horizon
 * stops, one to three classes with values, deadlines and tenants, max_jobs,
 * bin widths), run with sim_run_opts.loop = SIM_LOOP_LEAN (which fails if the
 * run does not qualify) and SIM_LOOP_GENERAL; every job row (the node each
 * job was placed on included), every bin and every field of the result
 * (classes, pools, types, tenants, the GPU-hour ledger) must be equal. Runs
 * that do not qualify are refused in SIM_LOOP_LEAN mode. The odd cases' lean
 * runs read their classes' jobs ahead on a second thread
 * (sim_run_opts.read_ahead), which must change nothing either.
 */
#include "check.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* what a run produced                                                        */

typedef struct record {
    sim_job_row *rows;
    size_t n_rows, cap_rows;
    double *bins; /* per bin: its fields and its averages, as doubles */
    size_t n_bins, n_vals, cap_vals;
} record;

static int rec_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    record *c = ud;
    if (c->n_rows == c->cap_rows) {
        size_t cap = c->cap_rows ? 2 * c->cap_rows : 1024;
        sim_job_row *p = realloc(c->rows, cap * sizeof *p);
        if (!p)
            return TM_ERR_NOMEM;
        c->rows = p;
        c->cap_rows = cap;
    }
    c->rows[c->n_rows++] = *r;
    return TM_OK;
}

static int rec_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    (void)diag;
    record *c = ud;
    size_t need = c->n_vals + 10 + b->n_avg;
    if (need > c->cap_vals) {
        size_t cap = c->cap_vals ? c->cap_vals : 4096;
        while (cap < need)
            cap *= 2;
        double *p = realloc(c->bins, cap * sizeof *p);
        if (!p)
            return TM_ERR_NOMEM;
        c->bins = p;
        c->cap_vals = cap;
    }
    double *v = c->bins + c->n_vals;
    v[0] = (double)b->t0_us;
    v[1] = (double)b->t1_us;
    v[2] = (double)b->arrivals;
    v[3] = (double)b->starts;
    v[4] = (double)b->completions;
    v[5] = (double)b->preemptions;
    v[6] = (double)b->failures;
    v[7] = b->lost_gpu_s;
    v[8] = b->lost_work_ref_gpu_s;
    v[9] = b->lost_value_work_ref_gpu_s;
    memcpy(v + 10, b->avg, b->n_avg * sizeof *b->avg);
    c->n_vals = need;
    c->n_bins++;
    return TM_OK;
}

static void rec_free(record *c)
{
    free(c->rows);
    free(c->bins);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------------- */
/* comparing                                                                  */

static int same_bytes(const void *a, const void *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

#define ROW_EQ(f)                                                                                  \
    do {                                                                                           \
        if (a->f != b->f) {                                                                        \
            check_fail(__FILE__, __LINE__, "case %d: job row %zu: %s: lean %.17g, general %.17g",  \
                       k, i, #f, (double)a->f, (double)b->f);                                      \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void compare_rows(int k, const record *lean, const record *gen)
{
    CHECK_EQ_U64(lean->n_rows, gen->n_rows);
    size_t n = lean->n_rows < gen->n_rows ? lean->n_rows : gen->n_rows;
    for (size_t i = 0; i < n; i++) {
        const sim_job_row *a = &lean->rows[i], *b = &gen->rows[i];
        ROW_EQ(id);
        ROW_EQ(trace_id);
        ROW_EQ(cls);
        ROW_EQ(tenant);
        ROW_EQ(gpus);
        ROW_EQ(gpu_milli);
        ROW_EQ(state);
        ROW_EQ(reject_reason);
        ROW_EQ(gpu_type);
        ROW_EQ(first_node); /* the placement decision */
        ROW_EQ(n_nodes);
        ROW_EQ(interruptions);
        ROW_EQ(submit_us);
        ROW_EQ(start_us);
        ROW_EQ(end_us);
        ROW_EQ(wait_us);
        ROW_EQ(run_us);
        ROW_EQ(deadline_us);
        ROW_EQ(busy_gpu_s);
        ROW_EQ(lost_gpu_s);
        ROW_EQ(alloc_gpu_s);
        ROW_EQ(value);
        ROW_EQ(work_ref_gpu_s);
    }
}

static void compare_bins(int k, const record *lean, const record *gen)
{
    CHECK_EQ_U64(lean->n_bins, gen->n_bins);
    CHECK_EQ_U64(lean->n_vals, gen->n_vals);
    size_t n = lean->n_vals < gen->n_vals ? lean->n_vals : gen->n_vals;
    for (size_t i = 0; i < n; i++)
        if (!same_bytes(&lean->bins[i], &gen->bins[i], sizeof(double))) {
            check_fail(__FILE__, __LINE__, "case %d: bin value %zu: lean %.17g, general %.17g", k,
                       i, lean->bins[i], gen->bins[i]);
            return;
        }
}

#define RES_EQ(f)                                                                                  \
    do {                                                                                           \
        if (!same_bytes(&a->f, &b->f, sizeof a->f))                                                \
            check_fail(__FILE__, __LINE__, "case %d: result %s differs", k, #f);                   \
    } while (0)
#define RES_ARR_EQ(f, n)                                                                           \
    do {                                                                                           \
        if (!same_bytes(a->f, b->f, (n) * sizeof *a->f))                                           \
            check_fail(__FILE__, __LINE__, "case %d: result %s[] differs", k, #f);                 \
    } while (0)

static void compare_results(int k, const sim_result *a, const sim_result *b)
{
    RES_EQ(t_end_us);
    RES_EQ(events);
    RES_EQ(passes);
    RES_EQ(policy_errors);
    RES_EQ(preemptions);
    RES_EQ(failures);
    RES_EQ(repairs);
    RES_EQ(gpu_s_up);
    RES_EQ(gpu_s_alloc);
    RES_EQ(gpu_s_busy);
    RES_EQ(gpu_s_lost);
    RES_EQ(gpu_s_goodput);
    RES_EQ(gpu_s_idle);
    RES_EQ(gpu_s_blocked);
    RES_EQ(alloc_util);
    RES_EQ(busy_util);
    RES_EQ(goodput_util);
    RES_EQ(queue_len_mean);
    RES_EQ(running_mean);
    RES_EQ(n_classes);
    RES_EQ(n_pools);
    RES_EQ(n_types);
    RES_EQ(n_services);
    RES_EQ(gpu_s_owned);
    RES_EQ(work_ref_gpu_s);
    RES_EQ(value_work_ref_gpu_s);
    RES_EQ(work_util);
    RES_EQ(value_util);
    RES_EQ(n_tenants);
    RES_EQ(owned_area);
    RES_EQ(ledger);
    if (a->n_classes != b->n_classes || a->n_pools != b->n_pools || a->n_types != b->n_types ||
        a->n_tenants != b->n_tenants)
        return;
    RES_ARR_EQ(classes, a->n_classes + 1);
    RES_ARR_EQ(pools, a->n_pools);
    RES_ARR_EQ(types, a->n_types);
    RES_ARR_EQ(tenants, a->n_tenants + 1);
    RES_ARR_EQ(ledger_pools, a->n_pools);
    RES_ARR_EQ(ledger_consumers, a->n_classes + a->n_services + 1);
}

/* ------------------------------------------------------------------------- */
/* random scenarios that qualify                                              */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: the cases only need to differ */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint32_t pick(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

static double unif(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0;
}

#define APPEND(...) (len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__))

/* A scenario that qualifies for the lean loop, drawn from the test's stream. */
static void make_scenario(char *buf, size_t cap)
{
    static const char *types[] = {"H100", "A100-80GB", "L4", "L40S"};
    static const char *samples[] = {"1m", "7m", "1h", "1d"};
    size_t len = 0;
    int drain = pick(2) == 0, tenants = pick(3) == 0;
    uint32_t n_pools = 1 + pick(3), n_classes = 1 + pick(3), nodes = 0;
    double horizon_h = unif(0.5, 6);
    APPEND("{\"name\":\"lean\",\"seed\":%u,\"horizon\":\"%.3fh\",\"stop\":\"%s\",\"sample\":\"%s\","
           "\"policy\":\"order=fifo placement=first-fit backfill=%s\",",
           pick(1000000), horizon_h, drain ? "drain" : "horizon", samples[pick(4)],
           pick(2) ? "none" : "greedy");
    if (tenants)
        APPEND("\"tenants\":[{\"name\":\"a\",\"share\":1},{\"name\":\"b\",\"share\":3}],");
    APPEND("\"fleet\":{\"pools\":[");
    for (uint32_t p = 0; p < n_pools; p++) {
        uint32_t n = 1 + pick(p == 0 ? 40 : 12);
        nodes += n;
        APPEND("%s{\"name\":\"p%u\",\"gpu_type\":\"%s\",\"nodes\":%u,\"gpus_per_node\":1}",
               p ? "," : "", p, types[pick(4)], n);
    }
    APPEND("]},\"workload\":{\"classes\":[");
    double rho = unif(0.3, 1.3); /* the offered load over the fleet, split over the classes */
    for (uint32_t c = 0; c < n_classes; c++) {
        double mean_s = unif(5, 600), rate = rho * nodes / mean_s / n_classes;
        char dur[128];
        switch (pick(6)) {
        case 0:
            snprintf(dur, sizeof dur, "{\"dist\":\"exponential\",\"mean\":%.3f}", mean_s);
            break;
        case 1:
            snprintf(dur, sizeof dur, "{\"dist\":\"lognormal\",\"mean\":%.3f,\"sigma\":1.5}",
                     mean_s);
            break;
        case 2: /* equal run times: completions at equal times */
            snprintf(dur, sizeof dur, "%.0f", mean_s);
            break;
        case 3: /* zero-length and microsecond jobs among the others */
            snprintf(dur, sizeof dur, "{\"dist\":\"uniform\",\"low\":0,\"high\":%.6f}",
                     2e-6 * (1 + pick(3)));
            rate = rho * nodes / 1e-5 / n_classes;
            if (rate > 2e5)
                rate = 2e5;
            break;
        case 4:
            snprintf(dur, sizeof dur, "{\"dist\":\"weibull\",\"scale\":%.3f,\"shape\":0.7}",
                     mean_s);
            break;
        default:
            snprintf(dur, sizeof dur, "{\"dist\":\"uniform\",\"low\":0,\"high\":%.3f}", 2 * mean_s);
        }
        /* no more than about 6,000 jobs a class: the sanitizer build runs this too */
        double expect = rate * horizon_h * 3600;
        uint64_t max_jobs = expect > 6000 ? 6000 : (pick(3) == 0 ? 1 + pick(2000) : 0);
        APPEND("%s{\"name\":\"c%u\",\"arrival\":{\"rate_per_s\":%.6g},\"gpus\":1,\"duration\":%s",
               c ? "," : "", c, rate, dur);
        if (max_jobs)
            APPEND(",\"max_jobs\":%llu", (unsigned long long)max_jobs);
        if (pick(2))
            APPEND(",\"value\":%.3f", pick(4) ? unif(0.1, 5) : 0.0);
        if (pick(3) == 0)
            APPEND(",\"deadline\":\"%.1fs\"", unif(1, 3 * mean_s));
        if (tenants && pick(2))
            APPEND(",\"tenants\":{\"a\":%.2f,\"b\":%.2f}", unif(0.1, 1), unif(0.1, 1));
        APPEND("}");
    }
    APPEND("]}}");
}

static int load(sim_scenario *sc, const char *json)
{
    tm_diag d;
    int rc = sim_scenario_load_text(sc, json, strlen(json), "test", &d);
    if (rc != TM_OK)
        check_fail(__FILE__, __LINE__, "scenario: %s: %s\n%s", d.where, d.msg, json);
    return rc;
}

static int run(const sim_scenario *sc, int loop, int ahead, record *rec, sim_result *res,
               tm_diag *d)
{
    sim_sink sink = {rec_job, rec_bin, rec};
    sim_run_opts opts = {.loop = loop, .read_ahead = ahead};
    return sim_run(sc, &opts, &sink, res, d);
}

static void test_case(int k, const char *json)
{
    sim_scenario sc;
    if (load(&sc, json) != TM_OK)
        return;
    record lean = {0}, gen = {0};
    sim_result rl, rg;
    tm_diag d;
    int rc = run(&sc, SIM_LOOP_LEAN, k & 1, &lean, &rl, &d); /* odd cases: read ahead */
    if (rc != TM_OK) {
        check_fail(__FILE__, __LINE__, "case %d: lean run: %s: %s\n%s", k, d.where, d.msg, json);
        goto out;
    }
    rc = run(&sc, SIM_LOOP_GENERAL, 0, &gen, &rg, &d);
    if (rc != TM_OK) {
        check_fail(__FILE__, __LINE__, "case %d: general run: %s: %s", k, d.where, d.msg);
        sim_result_fini(&rl);
        goto out;
    }
    int before = check_failures;
    if (getenv("TEST_LEAN_VERBOSE"))
        fprintf(stderr, "case %d: %zu rows, %zu bins, %llu events, %llu passes\n", k, lean.n_rows,
                lean.n_bins, (unsigned long long)rl.events, (unsigned long long)rl.passes);
    CHECK(rl.classes[rl.n_classes].arrived > 0);
    compare_results(k, &rl, &rg);
    compare_rows(k, &lean, &gen);
    compare_bins(k, &lean, &gen);
    if (check_failures != before)
        fprintf(stderr, "case %d: %s\n", k, json);
    sim_result_fini(&rl);
    sim_result_fini(&rg);
out:
    rec_free(&lean);
    rec_free(&gen);
    sim_scenario_fini(&sc);
}

/* The benchmark's shape and the embedded default: the first qualifies, the
 * second (gangs, shares, failures, services) does not and is refused. */
static void test_fixed(void)
{
    const char *mmc =
        "{\"name\":\"mmc\",\"seed\":3,\"horizon\":\"10000d\",\"stop\":\"drain\",\"sample\":\"1h\","
        "\"policy\":\"order=fifo placement=first-fit backfill=none\","
        "\"fleet\":{\"pools\":[{\"name\":\"s\",\"gpu_type\":\"H100\",\"nodes\":32,"
        "\"gpus_per_node\":1}]},\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":"
        "{\"rate_per_s\":28.8},\"gpus\":1,\"duration\":{\"dist\":\"exponential\",\"mean\":1},"
        "\"max_jobs\":20000}]}}";
    test_case(-1, mmc);
    /* 5,000 nodes: the free-node set spans 79 words and two summary words */
    const char *wide =
        "{\"name\":\"wide\",\"seed\":5,\"horizon\":\"2h\",\"stop\":\"horizon\",\"sample\":\"5m\","
        "\"fleet\":{\"pools\":[{\"name\":\"a\",\"gpu_type\":\"L4\",\"nodes\":4100,"
        "\"gpus_per_node\":1},{\"name\":\"b\",\"gpu_type\":\"H100\",\"nodes\":900,"
        "\"gpus_per_node\":1}]},\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":"
        "{\"rate_per_s\":60},\"gpus\":1,\"duration\":{\"dist\":\"exponential\",\"mean\":100},"
        "\"max_jobs\":30000}]}}";
    test_case(-2, wide);
    const char *refused[] = {
        /* two GPUs a node */
        "{\"name\":\"x\",\"horizon\":\"1h\",\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\","
        "\"nodes\":2,\"gpus_per_node\":2}]},\"workload\":{\"classes\":[{\"name\":\"q\","
        "\"arrival\":{\"rate_per_s\":1},\"gpus\":1,\"duration\":10}]}}",
        /* best-fit */
        "{\"name\":\"x\",\"horizon\":\"1h\",\"policy\":\"order=fifo placement=best-fit\","
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":2,\"gpus_per_node\":1}]},"
        "\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":{\"rate_per_s\":1},\"gpus\":1,"
        "\"duration\":10}]}}",
        /* a GPU share */
        "{\"name\":\"x\",\"horizon\":\"1h\",\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\","
        "\"nodes\":2,\"gpus_per_node\":1}]},\"workload\":{\"classes\":[{\"name\":\"q\","
        "\"arrival\":{\"rate_per_s\":1},\"gpus\":1,\"gpu_milli\":500,\"duration\":10}]}}",
        /* EASY backfilling */
        "{\"name\":\"x\",\"horizon\":\"1h\",\"policy\":\"order=fifo placement=first-fit "
        "backfill=easy\",\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":2,"
        "\"gpus_per_node\":1}]},\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":"
        "{\"rate_per_s\":1},\"gpus\":1,\"duration\":10}]}}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        sim_scenario sc;
        if (load(&sc, refused[i]) != TM_OK)
            continue;
        record r = {0};
        sim_result res;
        tm_diag d;
        CHECK_EQ_INT(run(&sc, SIM_LOOP_LEAN, 0, &r, &res, &d), TM_ERR_INVAL);
        rec_free(&r);
        sim_scenario_fini(&sc);
    }
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_load_default(&sc, &d), TM_OK);
    record r = {0};
    sim_result res;
    sc.horizon_us = 3600 * (int64_t)1000000; /* an hour is enough to be refused */
    CHECK_EQ_INT(run(&sc, SIM_LOOP_LEAN, 0, &r, &res, &d), TM_ERR_INVAL);
    rec_free(&r);
    /* a loop that is none of the three is refused, not run as AUTO */
    const int bad[2] = {-1, 3};
    for (int i = 0; i < 2; i++) {
        record q = {0};
        CHECK_EQ_INT(run(&sc, bad[i], 0, &q, &res, &d), TM_ERR_INVAL);
        rec_free(&q);
    }
    sim_scenario_fini(&sc);
}

int main(void)
{
    rng_state = check_seed(21) * 0x9E3779B97F4A7C15ull + 1;
    test_fixed();
    char json[8192];
    for (int k = 0; k < 24; k++) {
        make_scenario(json, sizeof json);
        test_case(k, json);
    }
    return check_finish("test_lean");
}
