/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleetcost_early.c — early rejection in sizing (sim/studies/size_eval.c):
 * the backlog monitor and the sequential rule, on M/M/c (Poisson arrivals at
 * lambda = 8 jobs/h, exponential 1-GPU jobs of mean 1 h, FIFO, 1-GPU nodes).
 *
 *   c = 6   rho = 1.33: the queue grows by lambda - c mu = 2 jobs/h without
 *           bound. Every replication must be stopped by the monitor well
 *           before the end of the horizon (after the warm-up of 200 h and six
 *           windows of 24 h: at hour 344), with a fitted slope near 2/h.
 *   c = 10  rho = 0.8 and c = 9, rho 0.89: stable. Over 20 replications of
 *           2000 h the monitor must never fire (a false rejection would make
 *           size answer too large a fleet).
 *   sequential: c = 9 against wait_mean <= 1 min (Erlang C: 25.6 min) with 5
 *           replications asked: the first 2 already put the interval beyond
 *           the limit, so the fleet is judged failing on 2.
 *   off:    with no_early the overloaded fleet runs every replication whole.
 */
#include "check.h"
#include "studies/size_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char mmc_json[] =
    "{\"name\": \"mmc\", \"seed\": 7, \"horizon\": \"2000h\", \"policy\": \"fifo-first-fit\", "
    "\"fleet\": {\"pools\": [{\"name\": \"gpu\", \"gpu_type\": \"H100\", \"nodes\": 10, "
    "\"gpus_per_node\": 1}]}, \"workload\": {\"classes\": [{\"name\": \"jobs\", \"arrival\": "
    "{\"rate_per_hour\": 8}, \"gpus\": 1, \"duration\": {\"dist\": \"exponential\", \"mean\": "
    "\"1h\"}}]}}";

static int eval(const sim_scenario *sc, const char *target, uint32_t c, uint32_t reps, int no_early,
                sim__size_eval *e, double *secs)
{
    sim__size_term terms[SIM__SIZE_MAX_TERMS];
    size_t nt;
    tm_diag d;
    tm_diag_clear(&d);
    CHECK_EQ_INT(sim__size_parse_targets(target, sc, terms, SIM__SIZE_MAX_TERMS, &nt, &d), TM_OK);
    sim__size_runner run;
    memset(&run, 0, sizeof run);
    run.base = sc;
    run.terms = terms;
    run.n_terms = nt;
    run.n_vary = 1;
    run.replications = reps;
    run.confidence = 0.95;
    run.warmup_us = (int64_t)200 * 3600 * SIM_US_PER_S;
    run.workers = 1;
    run.no_early = no_early;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sim__size_runner_eval(&run, &c, 1, e, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (rc != TM_OK)
        fprintf(stderr, "eval: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

int main(void)
{
    sim_scenario sc;
    tm_diag d;
    tm_diag_clear(&d);
    if (sim_scenario_load_text(&sc, mmc_json, strlen(mmc_json), "test", &d) != TM_OK) {
        fprintf(stderr, "scenario: %s\n", d.msg);
        return 1;
    }
    sc.seed = check_seed(7);
    sim__size_eval e;
    double secs, whole;
    char buf[512];

    /* overloaded: rejected, with the evidence */
    if (eval(&sc, "wait_p95<=30m", 6, 3, 0, &e, &secs) == TM_OK) {
        sim__size_unstable_format(buf, sizeof buf, &e);
        printf("c = 6: %s (%.2f s)\n", buf, secs);
        CHECK_EQ_INT(e.pass, 0);
        CHECK_EQ_INT(e.why, -3);
        CHECK(e.unstable >= 1);
        CHECK(e.backlog_at_h < 400); /* stopped at hour 344, not 2000 */
        CHECK(e.backlog_slope_per_h > 1 && e.backlog_slope_per_h < 3);
        CHECK(e.backlog_last > e.backlog_first);
        CHECK(strstr(buf, "grows without bound") != NULL);
    }
    /* the same fleet with every replication whole: slower, still failing */
    if (eval(&sc, "wait_p95<=30m", 6, 3, 1, &e, &whole) == TM_OK) {
        printf("c = 6 without early rejection: %.2f s\n", whole);
        CHECK_EQ_INT(e.pass, 0);
        CHECK_EQ_INT(e.unstable, 0);
        CHECK_EQ_INT(e.replications, 3);
        CHECK(whole > secs);
    }
    /* stable: never rejected by the monitor */
    for (uint32_t c = 9; c <= 10; c++)
        if (eval(&sc, "wait_mean<=10h", c, 20, 0, &e, &secs) == TM_OK) {
            printf("c = %u: %u of %u replications stopped by the monitor, mean wait %.3g h "
                   "(%.2f s)\n",
                   c, e.unstable, e.replications, e.mean[0] / 3600, secs);
            CHECK_EQ_INT(e.unstable, 0);
            CHECK_EQ_INT(e.replications, 20);
            CHECK_EQ_INT(e.pass, 1);
        }
    /* sequential: judged on the first two */
    if (eval(&sc, "wait_mean<=1m", 9, 5, 0, &e, &secs) == TM_OK) {
        printf("c = 9 against wait_mean <= 1 min: %u replications, mean %.3g min\n", e.replications,
               e.mean[0] / 60);
        CHECK_EQ_INT(e.pass, 0);
        CHECK_EQ_INT(e.why, 0);
        CHECK_EQ_INT(e.replications, 2);
        CHECK_EQ_INT(e.early, 1);
    }
    sim_scenario_fini(&sc);
    return check_finish("fleetcost_early");
}
