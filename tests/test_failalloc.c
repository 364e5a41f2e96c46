/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_failalloc.c — every allocation of the set-up paths, made to fail.
 *
 * For each case (a scenario loaded and run, a trace read by each reader, a
 * `tarmac place` request), a first round counts its allocations (N) and
 * records the outcome; then, for every k in 1..N, a round in which the k-th
 * allocation fails must return either TM_ERR_NOMEM (exit code 71 for the
 * place command), or success with the very same outcome (the allocation had
 * a fallback), and must leave nothing allocated. The allocator is
 * tests/failalloc.c, linked with --wrap (tests/failalloc.cmake); cJSON's
 * allocations reach it through the scenario loader's hooks. Run it under the ASan build as well: a
 * failure path that touches freed or uninitialised memory shows up there.
 *
 *     test_failalloc [CASE [K]]    one case, or one round of it (to debug)
 *
 * TARMAC_FAILALLOC_STRIDE=S tries every S-th k only (a quick look).
 */
#include "check.h"
#include "failalloc.h"
#include "sim.h"
#include "trace.h"

#include <fcntl.h>
#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *src_dir;
static tm_diag last_diag; /* of the last failed call, for messages */

/* A case runs once and returns its status; `sig` sums up what it produced,
 * so that a success after a failed allocation can be compared with the
 * first round's. */
typedef struct fcase {
    const char *name;
    int (*run)(const struct fcase *c, uint64_t *sig);
    const char *file; /* relative to the source folder */
    int arg;
} fcase;

static void path_of(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", src_dir, rel);
}

/* ---- scenario: load, build the fleet and the workload, run a short horizon (arg:
 * hours); arg 0: a fleet file only ---- */

static int run_scenario(const fcase *c, uint64_t *sig)
{
    char p[1024];
    tm_diag d;
    sim_scenario sc;
    int rc;
    if (c->file && c->arg == 0) {
        /* a fleet file, as `tarmac replay --fleet` reads it */
        path_of(p, sizeof p, c->file);
        rc = sim_scenario_load_fleet_file(&sc, p, &d);
        if (rc == TM_OK)
            *sig = sc.n_pools * 1000u + sc.n_classes;
        else
            last_diag = d;
        sim_scenario_fini(&sc);
        return rc;
    }
    if (c->file) {
        path_of(p, sizeof p, c->file);
        rc = sim_scenario_load_file(&sc, p, &d);
    } else {
        rc = sim_scenario_load_default(&sc, &d);
    }
    if (rc != TM_OK) {
        last_diag = d;
        return rc;
    }
    /* a few simulated hours: the set-up paths and the first events */
    sc.horizon_us = (int64_t)c->arg * 3600 * SIM_US_PER_S;
    sim_result res;
    memset(&res, 0, sizeof res);
    rc = sim_run(&sc, NULL, NULL, &res, &d);
    if (rc == TM_OK)
        *sig = res.events * 1000003u + (uint64_t)res.t_end_us;
    else
        last_diag = d;
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
    return rc;
}

/* ---- traces: open, read to the end, close ---- */

static const char *const type_names[] = {"H100", "A100-80GB", "V100", "V100-32GB", "P100",
                                         "T4",   "A10",       "K80",  "G1",        "G2"};

static const char gavel_matrix_text[] =
    "{\"v100\": {"
    "\"('CycleGAN', 1)\": {\"null\": 3.0},"
    "\"('CycleGAN', 2)\": {\"null\": 4.0},"
    "\"('CycleGAN', 4)\": {\"null\": 6.0},"
    "\"('LM (batch size 10)', 1)\": {\"null\": 4.0},"
    "\"('LM (batch size 10)', 2)\": {\"null\": 5.0},"
    "\"('LM (batch size 10)', 4)\": {\"null\": 7.0},"
    "\"('LM (batch size 5)', 1)\": {\"null\": 5.0},"
    "\"('LM (batch size 5)', 2)\": {\"null\": 6.0},"
    "\"('LM (batch size 5)', 4)\": {\"null\": 8.0},"
    "\"('Recommendation (batch size 8192)', 1)\": {\"null\": 6.0},"
    "\"('Recommendation (batch size 8192)', 2)\": {\"null\": 7.0},"
    "\"('Recommendation (batch size 8192)', 4)\": {\"null\": 9.0},"
    "\"('ResNet-18 (batch size 32)', 1)\": {\"null\": 7.0},"
    "\"('ResNet-18 (batch size 32)', 2)\": {\"null\": 8.0},"
    "\"('ResNet-18 (batch size 32)', 4)\": {\"null\": 10.0},"
    "\"('ResNet-50 (batch size 128)', 1)\": {\"null\": 8.0},"
    "\"('ResNet-50 (batch size 128)', 2)\": {\"null\": 9.0},"
    "\"('ResNet-50 (batch size 128)', 4)\": {\"null\": 11.0},"
    "\"('Transformer (batch size 128)', 1)\": {\"null\": 9.0},"
    "\"('Transformer (batch size 128)', 2)\": {\"null\": 10.0},"
    "\"('Transformer (batch size 128)', 4)\": {\"null\": 12.0},"
    "\"('Transformer (batch size 16)', 1)\": {\"null\": 10.0},"
    "\"('Transformer (batch size 16)', 2)\": {\"null\": 11.0},"
    "\"('Transformer (batch size 16)', 4)\": {\"null\": 13.0},"
    "\"('Transformer (batch size 256)', 1)\": {\"null\": 11.0},"
    "\"('Transformer (batch size 256)', 2)\": {\"null\": 12.0},"
    "\"('Transformer (batch size 256)', 4)\": {\"null\": 14.0}}}\n";
static char gavel_matrix_path[64];

enum {
    R_TARMAC,
    R_SWF,
    R_OPENB_PODS,
    R_OPENB_NODES,
    R_PAI_TASKS,
    R_PAI_MACHINES,
    R_HELIOS,
    R_PHILLY,
    R_GAVEL,
    R_GAVEL_MATRIX,
    R_AZURE_LLM,
    R_CSV_COLUMN
};

static int drain_jobs(trace_source *s, uint64_t *sig, tm_diag *d)
{
    trace_job j;
    int rc;
    while ((rc = s->next(s->ud, &j, d)) == TM_OK)
        *sig = *sig * 31 + (uint64_t)j.submit_us + (uint64_t)j.gpus;
    s->close(s->ud);
    return rc == TRACE_END ? TM_OK : rc;
}

static int drain_nodes(trace_node_source *s, uint64_t *sig, tm_diag *d)
{
    trace_node n;
    int rc;
    while ((rc = s->next(s->ud, &n, d)) == TM_OK)
        *sig = *sig * 31 + n.gpus;
    s->close(s->ud);
    return rc == TRACE_END ? TM_OK : rc;
}

static int run_trace(const fcase *c, uint64_t *sig)
{
    char p[1024];
    path_of(p, sizeof p, c->file);
    trace_read_opts o;
    trace_read_opts_init(&o);
    o.type_names = type_names;
    o.n_types = sizeof type_names / sizeof type_names[0];
    tm_diag d;
    trace_source s = {0};
    trace_node_source ns = {0};
    int rc;
    switch (c->arg) {
    case R_TARMAC:
        rc = trace_tarmac_open(&s, p, &o, &d);
        break;
    case R_SWF: {
        trace_swf_info info;
        rc = trace_swf_open(&s, p, &o, &info, &d);
        break;
    }
    case R_OPENB_PODS:
        rc = trace_openb_pods_open(&s, p, &o, &d);
        break;
    case R_OPENB_NODES:
        return (rc = trace_openb_nodes_open(&ns, p, &o, &d)) ? rc : drain_nodes(&ns, sig, &d);
    case R_PAI_TASKS:
        rc = trace_pai_tasks_open(&s, p, &o, &d);
        break;
    case R_PAI_MACHINES:
        return (rc = trace_pai_machines_open(&ns, p, &o, &d)) ? rc : drain_nodes(&ns, sig, &d);
    case R_HELIOS:
        rc = trace_helios_open(&s, p, &o, &d);
        break;
    case R_PHILLY:
        rc = trace_philly_open(&s, p, &o, &d);
        break;
    case R_GAVEL: {
        trace_gavel_matrix *m = NULL;
        uint64_t approx = 0;
        if ((rc = trace_gavel_matrix_load(&m, gavel_matrix_path, &d)) != TM_OK)
            return rc;
        rc = trace_gavel_open(&s, p, m, "v100", &o, &approx, &d);
        if (rc == TM_OK)
            rc = drain_jobs(&s, sig, &d);
        trace_gavel_matrix_free(m);
        return rc;
    }
    case R_GAVEL_MATRIX: {
        trace_gavel_matrix *m = NULL;
        if ((rc = trace_gavel_matrix_load(&m, p, &d)) != TM_OK)
            return rc;
        const char *const *w;
        *sig = trace_gavel_matrix_workers(m, &w);
        trace_gavel_matrix_free(m);
        return TM_OK;
    }
    case R_AZURE_LLM: {
        trace_request_source rs = {0};
        if ((rc = trace_azure_llm_open(&rs, p, &o, &d)) != TM_OK)
            return rc;
        trace_load_profile lp;
        rc = trace_load_profile_build(&lp, &rs, 60.0, &d);
        rs.close(rs.ud);
        if (rc == TM_OK) {
            *sig = lp.n_bins;
            trace_load_profile_fini(&lp);
        }
        return rc;
    }
    case R_CSV_COLUMN: {
        trace_dist dur, gpus;
        if ((rc = trace_philly_dists(p, &dur, &gpus, &d)) != TM_OK)
            return rc;
        trace_dist_fini(&dur);
        trace_dist_fini(&gpus);
        return TM_OK;
    }
    default:
        return TM_ERR_INVAL;
    }
    return rc != TM_OK ? rc : drain_jobs(&s, sig, &d);
}

/* ---- tarmac place: the whole command, its output to /dev/null ---- */

static int run_place(const fcase *c, uint64_t *sig)
{
    char p[1024];
    path_of(p, sizeof p, c->file);
    char *argv[] = {"tarmac", "place", p, NULL};
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    int code = sim_cli_main(3, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    close(null);
    *sig = (uint64_t)code;
    /* exit codes back to statuses: 71 is out of memory (70, a bug, is not) */
    return code == 0                                   ? TM_OK
           : code == tm_status_exit_code(TM_ERR_NOMEM) ? TM_ERR_NOMEM
                                                       : -100 - code;
}

static const fcase cases[] = {
    {"scenario-default", run_scenario, NULL, 6},
    {"scenario-analysis-small", run_scenario, "tests/analysis_small.json", 6},
    {"scenario-enterprise", run_scenario, "scenarios/enterprise.json", 2},
    {"scenario-inference-heavy", run_scenario, "scenarios/inference-heavy.json", 2},
    {"scenario-training-failures", run_scenario, "scenarios/training-failures.json", 2},
    {"fleet-file", run_scenario, "tests/failalloc_fleet.json", 0},
    {"trace-tarmac", run_trace, "fuzz/corpus/trace_tarmac/synth-analysis-small-head30.csv",
     R_TARMAC},
    {"trace-swf", run_trace, "fuzz/corpus/trace_swf/kth-head60.swf", R_SWF},
    {"trace-openb-pods", run_trace, "fuzz/corpus/trace_openb_pods/default-head40.csv",
     R_OPENB_PODS},
    {"trace-openb-nodes", run_trace, "fuzz/corpus/trace_openb_nodes/gpu-node-head30.csv",
     R_OPENB_NODES},
    {"trace-pai-tasks", run_trace, "fuzz/corpus/trace_pai_tasks/schema-rows.csv", R_PAI_TASKS},
    {"trace-pai-machines", run_trace, "fuzz/corpus/trace_pai_machines/one-per-type.csv",
     R_PAI_MACHINES},
    {"trace-helios", run_trace, "fuzz/corpus/trace_helios/readme-rows.csv", R_HELIOS},
    {"trace-philly", run_trace, "fuzz/corpus/trace_philly/schema-example.json", R_PHILLY},
    {"trace-gavel", run_trace, "fuzz/corpus/trace_gavel/msr-head10.trace", R_GAVEL},
    {"trace-gavel-matrix", run_trace, "fuzz/corpus/trace_gavel_matrix/physical-subset.json",
     R_GAVEL_MATRIX},
    {"trace-azure-llm", run_trace, "fuzz/corpus/trace_azure_llm/code-head40.csv", R_AZURE_LLM},
    {"trace-csv-column", run_trace, "fuzz/corpus/trace_csv_column/philly-dist-head40.csv",
     R_CSV_COLUMN},
    {"place-doc-example", run_place, "fuzz/corpus/place/doc-example.json", 0},
    {"place-preempt-service", run_place, "fuzz/corpus/place/preempt-service.json", 0},
    {"place-fgd-shares", run_place, "fuzz/corpus/place/fgd-shares.json", 0},
    {"place-las-conservative", run_place, "fuzz/corpus/place/las-conservative.json", 0},
    {"place-gavel-timeshare", run_place, "fuzz/corpus/place/gavel-timeshare.json", 0},
    {"place-tiresias-class", run_place, "fuzz/corpus/place/tiresias-class.json", 0},
};

#define N_CASES (sizeof cases / sizeof cases[0])

/* One round with allocation k failing (0: none); checks what it left. */
static int round_k(const fcase *c, uint64_t k, uint64_t *sig, uint64_t *n_alloc)
{
    *sig = 0;
    tm_diag_clear(&last_diag);
    failalloc_arm(k);
    int rc = c->run(c, sig);
    uint64_t n = failalloc_disarm();
    if (n_alloc)
        *n_alloc = n;
    size_t bytes = 0, live = failalloc_live(&bytes);
    if (live)
        check_fail(__FILE__, __LINE__,
                   "%s: allocation %llu failing: %zu allocations (%zu bytes) left behind (rerun: "
                   "test_failalloc %s %llu)",
                   c->name, (unsigned long long)k, live, bytes, c->name, (unsigned long long)k);
    return rc;
}

/* Every k for one case; returns 0 when it passed. */
static int run_case(const fcase *c, uint64_t only_k, uint64_t stride)
{
    int before = check_failures;
    uint64_t sig0 = 0, n = 0, sig;
    int rc = round_k(c, 0, &sig0, NULL); /* warm-up: one-time initialisations */
    rc = round_k(c, 0, &sig0, &n);
    if (rc != TM_OK) {
        check_fail(__FILE__, __LINE__, "%s: fails without any injected failure: status %d", c->name,
                   rc);
        return 1;
    }
    uint64_t n_ok = 0, n_nomem = 0;
    for (uint64_t k = only_k ? only_k : 1; k <= (only_k ? only_k : n); k += stride) {
        rc = round_k(c, k, &sig, NULL);
        if (!failalloc_injected())
            check_fail(__FILE__, __LINE__, "%s: round %llu made no allocation %llu", c->name,
                       (unsigned long long)k, (unsigned long long)k);
        if (rc == TM_ERR_NOMEM) {
            n_nomem++;
        } else if (rc == TM_OK) {
            n_ok++;
            if (sig != sig0)
                check_fail(__FILE__, __LINE__,
                           "%s: allocation %llu failing: succeeded with a different outcome "
                           "(rerun: test_failalloc %s %llu)",
                           c->name, (unsigned long long)k, c->name, (unsigned long long)k);
        } else {
            check_fail(__FILE__, __LINE__,
                       "%s: allocation %llu failing: got status %d (%s: %s: %s), want %d (out of "
                       "memory) (rerun: test_failalloc %s %llu)",
                       c->name, (unsigned long long)k, rc, tm_status_name(rc), last_diag.where,
                       last_diag.msg, TM_ERR_NOMEM, c->name, (unsigned long long)k);
        }
    }
    printf("%s %-28s %6llu allocations: %llu out of memory, %llu recovered\n",
           check_failures == before ? "ok:  " : "FAIL:", c->name, (unsigned long long)n,
           (unsigned long long)n_nomem, (unsigned long long)n_ok);
    fflush(stdout);
    return check_failures != before;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    src_dir = getenv("TARMAC_SRC");
    if (!src_dir)
        src_dir = ".";
    snprintf(gavel_matrix_path, sizeof gavel_matrix_path, "/tmp/tarmac-failalloc-%ld.json",
             (long)getpid());
    FILE *f = fopen(gavel_matrix_path, "w");
    if (!f || fputs(gavel_matrix_text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", gavel_matrix_path);
        return 1;
    }
    const char *env = getenv("TARMAC_FAILALLOC_STRIDE");
    uint64_t stride = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 1;
    size_t found = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        found++;
        run_case(&cases[i], argc > 2 ? strtoull(argv[2], NULL, 10) : 0, stride);
    }
    unlink(gavel_matrix_path);
    if (!found) {
        fprintf(stderr, "test_failalloc: no case named '%s'\n", argv[1]);
        return 2;
    }
    return check_finish("test_failalloc");
}
