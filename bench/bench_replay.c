/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_replay.c — wall time, jobs/s and peak memory of replaying each real
 * trace of ../shared/data end to end (read, parse, simulate; no HDF5), and of
 * one openb packing run per placement policy. Each case runs in a child
 * process so that its peak resident memory (wait4's ru_maxrss) is its own.
 *
 *     bench_replay [DATA_DIR]       (default $TARMAC_DATA_DIR or ../shared/data)
 *
 * Policies that the placement core does not know yet (EASY backfilling, FGD)
 * are reported as "n/a". Figures go in bench/README.md, "Trace replay".
 */
#define _DEFAULT_SOURCE /* wait4 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int policy_exists(const char *spec)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    int rc = place_instance_init(&pi, &env, spec, NULL, 0);
    place_instance_fini(&pi);
    return rc == PLACE_OK;
}

typedef struct out {
    double wall_s, cpu_s;
    unsigned long long jobs;
    int rc;
} out;

static const char *swf_path;
static int open_swf(void *ud, trace_source *src, tm_diag *d)
{
    (void)ud;
    return trace_swf_open(src, swf_path, NULL, NULL, d);
}

/* The SWF machine from its header, the whole log as one window. */
static int run_swf(const char *path, const char *spec, out *o)
{
    tm_diag d;
    sim_scenario sc;
    trace_source s;
    trace_swf_info info;
    double t0 = now_s();
    if (sim_scenario_init_replay(&sc, "bench", &d) || trace_swf_open(&s, path, NULL, &info, &d))
        return -1;
    s.close(s.ud);
    if (sim_scenario_add_swf_machine(&sc, &info, &d))
        return -1;
    snprintf(sc.policy, sizeof sc.policy, "%s", spec);
    swf_path = path;
    sim_window w = {0, 0};
    sim_window_result r;
    int rc = sim_window_replay(&sc, open_swf, NULL, &w, 1, NULL, &r, &d);
    o->wall_s = now_s() - t0;
    o->jobs = r.jobs;
    sim_scenario_fini(&sc);
    if (rc)
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    return rc;
}

static int run_pack(const char *nodes, const char *pods_path, const char *spec, out *o)
{
    tm_diag d;
    sim_scenario sc;
    trace_node_source ns;
    double t0 = now_s();
    if (sim_scenario_init_replay(&sc, "bench", &d) || trace_openb_nodes_open(&ns, nodes, NULL, &d))
        return -1;
    int rc = sim_scenario_add_nodes(&sc, &ns, NULL, &d);
    ns.close(ns.ud);
    const char *names[PLACE_MAX_TYPES];
    trace_read_opts opt;
    trace_read_opts_init(&opt);
    opt.n_types = sim_scenario_type_names(&sc, names);
    opt.type_names = names;
    opt.any_order = 1;
    trace_source s;
    if (rc || trace_openb_pods_open(&s, pods_path, &opt, &d))
        return -1;
    size_t n = 0, cap = 16384;
    trace_job *pods = malloc(cap * sizeof *pods);
    while (pods && s.next(s.ud, &pods[n], &d) == TM_OK)
        if (++n == cap)
            pods = realloc(pods, (cap *= 2) * sizeof *pods);
    s.close(s.ud);
    const char *pol[1] = {spec};
    sim_pack_cfg cfg = {130, 1, 1, 1, pol, 1, 0};
    sim_pack_result r;
    rc = sim_pack_run(&sc, pods, n, &cfg, &r, &d);
    o->wall_s = now_s() - t0;
    if (rc == TM_OK) {
        o->jobs = r.pods[0];
        sim_pack_result_fini(&r);
    } else {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    }
    free(pods);
    sim_scenario_fini(&sc);
    return rc;
}

/* Run one case in a child; print a table row. */
static void bench_case(const char *name, const char *what, int kind, const char *a, const char *b,
                       const char *spec)
{
    if (!policy_exists(spec)) {
        printf("| %-34s | %-40s | n/a (policy not in the placement core yet) |\n", name, spec);
        return;
    }
    int fd[2];
    if (pipe(fd))
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        out o = {0, 0, 0, 0};
        o.rc = kind == 0 ? run_swf(a, spec, &o) : run_pack(a, b, spec, &o);
        if (write(fd[1], &o, sizeof o) != (ssize_t)sizeof o)
            _exit(2);
        _exit(0);
    }
    close(fd[1]);
    out o;
    memset(&o, 0, sizeof o);
    ssize_t got = read(fd[0], &o, sizeof o);
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    if (got != (ssize_t)sizeof o || o.rc) {
        printf("| %-34s | %-40s | failed |\n", name, spec);
        return;
    }
    printf("| %-34s | %-40s | %9llu %s | %7.3f s | %7.3f s | %10.0f | %6.1f MiB |\n", name, spec,
           o.jobs, what, o.wall_s, cpu, (double)o.jobs / cpu, (double)ru.ru_maxrss / 1024.0);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("TARMAC_DATA_DIR");
    if (!dir)
        dir = "../shared/data";
    char a[1024], b[1024];
    printf("| trace | policy | jobs | wall | CPU | jobs/s (CPU) | peak RSS |\n");
    printf("|---|---|---|---|---|---|---|\n");
    const char *swf[] = {
        "pwa-swf-logs/LANL-CM5-1994-4.1-cln.swf.gz", "pwa-swf-logs/KTH-SP2-1996-2.1-cln.swf.gz",
        "pwa-swf-logs/NASA-iPSC-1993-3.1-cln.swf.gz", "rlscheduler-lublin-swf/lublin_256.swf",
        "rlscheduler-lublin-swf/lublin_256_new2"};
    const char *swf_pol[] = {"order=fifo placement=first-fit backfill=none",
                             "order=fifo placement=first-fit backfill=easy"};
    for (size_t i = 0; i < sizeof swf / sizeof swf[0]; i++)
        for (size_t p = 0; p < 2; p++) {
            snprintf(a, sizeof a, "%s/%s", dir, swf[i]);
            const char *base = strrchr(swf[i], '/') + 1;
            bench_case(base, "jobs", 0, a, NULL, swf_pol[p]);
        }
    const char *pack_pol[] = {"order=fifo placement=first-fit backfill=none",
                              "order=fifo placement=best-fit backfill=none",
                              "order=fifo placement=fgd backfill=none"};
    snprintf(a, sizeof a, "%s/alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv", dir);
    const char *lists[] = {"openb_pod_list_default.csv", "openb_pod_list_multigpu50.csv",
                           "openb_pod_list_gpuspec33.csv"};
    for (size_t l = 0; l < 3; l++)
        for (size_t p = 0; p < 3; p++) {
            snprintf(b, sizeof b, "%s/alibaba-gpu-v2023-openb/%s", dir, lists[l]);
            bench_case(lists[l], "pods", 1, a, b, pack_pol[p]);
        }
    return 0;
}
