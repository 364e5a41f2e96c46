/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_run.c — `tarmac run`: one scenario, a summary table, an HDF5 file.
 */
#include "cli/cli_int.h"
#include "cli/json_run.h"
#include "model/service_int.h"
#include "output/report_int.h"
#include "studies/work_int.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char run_help[] =
    "Usage: tarmac run [SCENARIO] [-o FILE] [--seed N] [--replication R] [--quiet] [--json]\n"
    "                  [--jobs full|summary|none] [--limit NAME=VALUE]...\n"
    "\n"
    "Run SCENARIO (a JSON file; without one, the embedded default scenario) and\n"
    "write the results to FILE (default tarmac-out.h5), atomically: the file\n"
    "appears only when complete. Prints a summary table unless --quiet, and a\n"
    "progress bar on stderr when it is a terminal.\n"
    "\n"
    "  -o, --output FILE    HDF5 output file (docs/output.md describes its layout)\n"
    "  --seed N             override the scenario's seed\n"
    "  --replication R      use the independent random streams of replication R\n"
    "  -q, --quiet          print nothing but errors (no table, no progress bar)\n"
    "  --json               print a JSON summary on stdout instead of the table: every\n"
    "                       figure of the file's /summary, /tenants, /ledger, /cost\n"
    "  --jobs MODE          what the file keeps of the jobs: full (default; /jobs, a\n"
    "                       row per job), summary (/jobs_summary, a row per class and\n"
    "                       GPU count) or none (/summary and the rest only)\n"
    "  --check              check engine invariants after every event (slow)\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; tarmac validate -v shows the\n"
    "                       estimate): arrivals, request_rate, nodes, gpus, tables,\n"
    "                       series, events (repeatable)\n";

static void print_thousands(FILE *f, uint64_t v, int width)
{
    char raw[32], out[48];
    snprintf(raw, sizeof raw, "%llu", (unsigned long long)v);
    size_t n = strlen(raw), o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    out[o] = '\0';
    fprintf(f, "%*s", width, out);
}

/* One row per tenant (and one for jobs of tenants the scenario does not
 * name, when there are any): its jobs, their waits, the GPU-hours they held
 * and their useful work. */
static void print_tenants(const sim_scenario *sc, const sim_result *r)
{
    int w = 12;
    for (size_t t = 0; t < sc->n_tenants; t++) {
        int l = (int)strlen(sc->tenants[t]);
        if (l > w)
            w = l;
    }
    printf("\n%-*s %9s %9s %9s %9s %9s %11s %11s\n", w, "tenant", "arrived", "started", "wait mean",
           "p50", "p95", "GPU-h held", "work GPU-h");
    for (size_t t = 0; t <= sc->n_tenants && t < r->n_tenants + 1; t++) {
        const sim_tenant_result *tr = &r->tenants[t];
        if (t == sc->n_tenants && !tr->arrived)
            break;
        char m[24], p50[24], p95[24];
        sim__cli_fmt_duration(m, sizeof m, tr->wait_mean_s);
        sim__cli_fmt_duration(p50, sizeof p50, tr->wait_p50_s);
        sim__cli_fmt_duration(p95, sizeof p95, tr->wait_p95_s);
        printf("%-*s ", w, t < sc->n_tenants ? sc->tenants[t] : "(other)");
        print_thousands(stdout, tr->arrived, 9);
        putchar(' ');
        print_thousands(stdout, tr->started, 9);
        printf(" %9s %9s %9s %11.0f %11.0f\n", m, p50, p95, tr->gpu_s_alloc / 3600,
               tr->work_ref_gpu_s / 3600);
    }
}

static void print_summary(const sim_scenario *sc, const sim_result *r, const char *out)
{
    char span[32];
    sim__cli_fmt_duration(span, sizeof span, (double)r->t_end_us / SIM_US_PER_S);
    printf("tarmac %s: scenario \"%s\" (%s), seed %llu\n", TARMAC_VERSION, sc->name, sc->source,
           (unsigned long long)sc->seed);
    printf("policy: %s\n", sc->policy);
    printf("simulated %s in %.2f s of wall time: %llu events (%.2f million/s)\n\n", span, r->wall_s,
           (unsigned long long)r->events,
           r->wall_s > 0 ? (double)r->events / r->wall_s / 1e6 : 0.0);
    double hours = (double)r->t_end_us / SIM_US_PER_S / 3600;
    printf("fleet: %.1f GPUs in service on average, %.0f GPU-hours allocated of %.0f\n",
           hours > 0 ? r->gpu_s_up / 3600 / hours : 0.0, r->gpu_s_alloc / 3600, r->gpu_s_up / 3600);
    printf("utilization: allocated %.1f %%, busy %.1f %%, goodput %.1f %%; mean queue %.1f jobs, "
           "mean running %.1f\n",
           100 * r->alloc_util, 100 * r->busy_util, 100 * r->goodput_util, r->queue_len_mean,
           r->running_mean);
    double blocked = 0;
    for (int k = 0; k < SIM_BLOCK_COUNT; k++)
        blocked += r->gpu_s_blocked[k];
    if (r->gpu_s_idle > 0) {
        printf("idle: %.0f GPU-hours, %.0f of them shape-blocked while jobs waited",
               r->gpu_s_idle / 3600, blocked / 3600);
        const char *sep = " (";
        for (int k = 0; k < SIM_BLOCK_COUNT; k++)
            if (r->gpu_s_blocked[k] >= 0.5 * 3600) {
                printf("%s%s %.0f", sep, sim_block_reason_key(k), r->gpu_s_blocked[k] / 3600);
                sep = ", ";
            }
        printf("%s\n", sep[0] == ',' ? ")" : "");
    }
    const sim_class_result *all = &r->classes[r->n_classes];
    if (r->failures || r->preemptions)
        printf(
            "interruptions: %llu GPU failures, %llu preemptions; %.0f GPU-hours lost (work since "
            "the last checkpoint and restart overhead)\n",
            (unsigned long long)r->failures, (unsigned long long)r->preemptions,
            all->gpu_s_lost / 3600);
    putchar('\n');
    int w = 12;
    for (size_t c = 0; c < sc->n_classes; c++) {
        int l = (int)strlen(sc->classes[c].name);
        if (l > w)
            w = l;
    }
    printf("%-*s %9s %9s %9s %8s %8s %8s %9s %9s %9s %9s\n", w, "class", "arrived", "started",
           "completed", "rejected", "queued", "running", "wait mean", "p50", "p95", "p99");
    for (size_t c = 0; c <= sc->n_classes; c++) {
        const sim_class_result *cr = &r->classes[c];
        const char *name = c < sc->n_classes ? sc->classes[c].name : "all";
        if (c == sc->n_classes && sc->n_classes == 1)
            break;
        char m[24], p50[24], p95[24], p99[24];
        sim__cli_fmt_duration(m, sizeof m, cr->wait_mean_s);
        sim__cli_fmt_duration(p50, sizeof p50, cr->wait_p50_s);
        sim__cli_fmt_duration(p95, sizeof p95, cr->wait_p95_s);
        sim__cli_fmt_duration(p99, sizeof p99, cr->wait_p99_s);
        printf("%-*s ", w, name);
        print_thousands(stdout, cr->arrived, 9);
        putchar(' ');
        print_thousands(stdout, cr->started, 9);
        putchar(' ');
        print_thousands(stdout, cr->completed, 9);
        putchar(' ');
        print_thousands(stdout, cr->rejected, 8);
        putchar(' ');
        print_thousands(stdout, cr->queued_end, 8);
        putchar(' ');
        print_thousands(stdout, cr->running_end, 8);
        printf(" %9s %9s %9s %9s\n", m, p50, p95, p99);
    }
    if (sc->n_tenants > 1)
        print_tenants(sc, r);
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_result *cr = &r->classes[c];
        if (isnan(cr->special.at_s))
            continue;
        char at[32];
        sim__cli_fmt_duration(at, sizeof at, cr->special.at_s);
        printf("specialization of %s from %s: %llu jobs would need %.0f reference GPU-hours "
               "with the old shape, %.0f with the new; %.0f freed, %.0f of them used by other "
               "work\n",
               sc->classes[c].name, at, (unsigned long long)cr->special.jobs, cr->special.old_gpu_h,
               cr->special.new_gpu_h, cr->special.freed_gpu_h, cr->special.reclaimed_gpu_h);
    }
    if (sc->n_services) {
        int ws = 12;
        for (size_t v = 0; v < sc->n_services; v++) {
            int l = (int)strlen(sc->services[v].cfg.name);
            if (l > ws)
                ws = l;
        }
        printf("\n%-*s %12s %9s %9s %9s %9s %12s %12s\n", ws, "service", "requests", "SLO met",
               "to API", "replicas", "max", "GPU-h busy", "API USD");
        for (size_t v = 0; v < r->n_services; v++) {
            const sim_service_result *sv = &r->services[v];
            printf("%-*s ", ws, sc->services[v].cfg.name);
            print_thousands(stdout, (uint64_t)(sv->req_demanded + 0.5), 12);
            printf(" %8.3f%% %8.3f%% %9.1f %9u %12.0f %12.2f\n", 100 * sv->attainment,
                   sv->req_demanded > 0 ? 100 * sv->req_api / sv->req_demanded : 0.0,
                   sv->ready_mean, sv->ready_max, sv->gpu_hours_busy, sv->api_usd);
        }
        for (size_t v = 0; v < r->n_services; v++) {
            const sim_service_result *sv = &r->services[v];
            if (isnan(sv->special_at_s))
                continue;
            char at[32];
            sim__cli_fmt_duration(at, sizeof at, sv->special_at_s);
            printf("specialization of %s from %s: the old model would need %.0f GPU-hours for "
                   "the load, the new %.0f; %.0f freed, %.0f of them used by other work\n",
                   sc->services[v].cfg.name, at, sv->special.old_gpu_h, sv->special.new_gpu_h,
                   sv->special.freed_gpu_h, sv->special.reclaimed_gpu_h);
        }
    }
    putchar('\n');
    sim__ledger_print_summary(stdout, sc, r);
    if (r->policy_errors)
        printf("\npolicy errors: %llu invalid decisions refused\n",
               (unsigned long long)r->policy_errors);
    sim__cost_report cost;
    tm_diag d;
    if (sim__cost_account(sc, r, &cost, &d) == TM_OK) {
        putchar('\n');
        sim__cost_print_summary(stdout, sc, &cost);
        sim__cost_report_fini(&cost);
    }
    if (out)
        printf("\nwrote %s\n", out);
}

enum { O_CHECK = 256, O_JOBS };

static const sim__cli_opt run_opts[] = {
    {"check", O_CHECK, 0, NULL},
    {"jobs", O_JOBS, 1, "full, summary or none"},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec run_spec = {
    .cmd = &sim__cmd_run,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_REPLICATION | SIM__CLI_QUIET |
              SIM__CLI_JSON | SIM__CLI_LIMIT,
    .no_stdout = "an HDF5 file",
    .operand = "scenario",
    .max_operands = 1,
    .opts = run_opts,
};

static int cmd_run(int argc, char **argv)
{
    int check = 0;
    sim_jobs_table jobs = SIM_JOBS_FULL;
    sim__cli_args a;
    sim__cli_args_init(&a, &run_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0)
        if (key == O_CHECK)
            check = 1;
        else if (key == O_JOBS && sim_jobs_table_parse(v, &jobs))
            return sim__cli_bad_value(&a);
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL;
    const char *out = a.output ? a.output : "tarmac-out.h5";
    uint64_t rep = a.replication;
    int quiet = a.quiet, json = a.json;
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int code = sim__cli_open_scenario(&sc, path, &a);
    if (code)
        return code;
    int rc = TM_OK;
    sim__cli_install_signals();
    /* one run: a second core, where there is one, synthesizes the jobs */
    sim_run_opts opts = {.replication = (uint32_t)rep,
                         .check_invariants = check,
                         .stop_flag = &sim__cli_stop,
                         .read_ahead = sim__work_cores() >= 2};
    sim__cli_progress bar;
    sim__cli_warn_no_gpus(&sc, path ? path : "(embedded default)");
    sim__cli_progress_init(&bar, !quiet && sim__cli_stderr_is_tty(), sc.horizon_us, 1);
    if (bar.enabled) {
        opts.progress = sim__cli_progress_cb;
        opts.progress_ud = &bar;
        opts.progress_every = 4096;
    }
    sim_result res;
    rc = sim_study_run_jobs(&sc, &opts, out, jobs, &res, &d);
    sim__cli_progress_end(&bar);
    if (rc != TM_OK) {
        sim_scenario_fini(&sc);
        return sim__cli_error(rc, &d);
    }
    if (json)
        rc = sim__cli_run_json(stdout, &sc, &res, out, rep, &d);
    else if (!quiet)
        print_summary(&sc, &res, out);
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
    /* the file is written; a summary that could not be printed is still a failure */
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_run = {
    "run", cmd_run, "run a scenario (the embedded default if none) and write HDF5", run_help, NULL,
};
