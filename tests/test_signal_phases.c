/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_signal_phases.c — the stop flag (what SIGINT and SIGTERM set) seen by
 * each phase that writes or loops, without timing: the flag is set at a
 * chosen moment and the phase must return TM_ERR_INTERRUPTED with nothing
 * under the final name and no temporary; with the flag clear, the same call
 * succeeds (so each check can fail). tests/signal_phases.sh sends real
 * signals to the commands and measures how fast they stop.
 *
 *   writer     the HDF5 writer: the flag set before commit (the last moment
 *              before the rename), and set while a table is being appended
 *   compare    the replications: not one run starts once the flag is set
 *   pack       the packing experiment: stops before placing a pod
 *   merge      a sweep's merge: stops while checking the point files
 */
#include "check.h"
#include "config/config.h"
#include "output/h5io_int.h"
#include "studies/compare_int.h"
#include "studies/studies.h"
#include "studies/sweep_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Entries of `d` (recursively for folders), "." and ".." aside. */
static int n_entries(const char *d)
{
    DIR *h = opendir(d);
    if (!h)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(h));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(h);
    return n;
}

static void rm_tree(const char *d)
{
    DIR *h = opendir(d);
    if (h) {
        for (struct dirent *e; (e = readdir(h));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", d, e->d_name);
            if (unlink(p) != 0)
                rm_tree(p);
        }
        closedir(h);
    }
    rmdir(d);
}

static const sim__h5_col cols[] = {
    {"t", SIM__H5_I64, "us", "a time"},
    {"v", SIM__H5_F64, "1", "a value"},
};

/* A file of one scalar and a table of `rows` rows; the flag is set after
 * `stop_after` rows (or never, when larger). Returns the status of the
 * first failing call, or of commit. */
static int write_file(const char *path, volatile int *stop, size_t rows, size_t stop_after,
                      tm_diag *d)
{
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, d);
    if (rc)
        return rc;
    sim__h5w_set_stop(w, stop);
    sim__h5t *t = NULL;
    if ((rc = sim__h5w_scalar_f64(w, "/x", 1.5, "1", "a scalar", d)) ||
        (rc = sim__h5t_create(&t, w, "/tab", "a table", cols, 2, d))) {
        sim__h5w_abort(w);
        return rc;
    }
    for (size_t i = 0; i < rows; i++) {
        if (i == stop_after)
            *stop = 1;
        int64_t tv = (int64_t)i;
        double v = (double)i / 3;
        const void *row[2] = {&tv, &v};
        if ((rc = sim__h5t_append(t, row, 1, d))) {
            sim__h5w_abort(w);
            return rc;
        }
    }
    if (stop_after == rows)
        *stop = 1; /* between the last row and commit */
    return sim__h5w_commit(w, d);
}

static void test_writer(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/w.h5", dir);
    volatile int stop = 0;
    tm_diag d;
    /* the control: no signal, a file */
    CHECK_EQ_INT(write_file(path, &stop, 50000, (size_t)-1, &d), TM_OK);
    CHECK(exists(path));
    unlink(path);
    /* a signal after the last row: commit refuses to rename */
    stop = 0;
    int rc = write_file(path, &stop, 50000, 50000, &d);
    CHECK_EQ_INT(rc, TM_ERR_INTERRUPTED);
    CHECK(strstr(d.msg, "interrupted while writing") != NULL);
    CHECK(strstr(d.where, "w.h5") != NULL);
    CHECK(!exists(path));
    CHECK_EQ_INT(n_entries(dir), 0);
    /* a signal while the table grows (past the first chunks): the next row fails */
    stop = 0;
    CHECK_EQ_INT(write_file(path, &stop, 50000, 40000, &d), TM_ERR_INTERRUPTED);
    CHECK(!exists(path));
    CHECK_EQ_INT(n_entries(dir), 0);
}

static const char scenario[] =
    "{\"horizon\": \"6h\", \"seed\": 3,"
    " \"fleet\": {\"pools\": [{\"gpu_type\": \"H100\", \"nodes\": 2}]},"
    " \"workload\": {\"classes\": [{\"name\": \"a\", \"arrival\": {\"rate_per_hour\": 20},"
    " \"duration\": \"30m\"}]}}";

static void test_compare(void)
{
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_load_text(&sc, scenario, strlen(scenario), "inline", &d), TM_OK);
    sim__cmp_policy pol[2] = {{.label = "ff", .spec = "fifo-first-fit"},
                              {.label = "bf", .spec = "fifo-best-fit"}};
    volatile int stop = 0;
    sim__cmp_opts o;
    memset(&o, 0, sizeof o);
    o.replications = 3;
    o.warmup_us = 0;
    o.stop_flag = &stop;
    o.workers = 1;
    sim__cmp_result res;
    CHECK_EQ_INT(sim__compare_run(&sc, pol, 2, &o, &res, &d), TM_OK);
    sim__compare_fini(&res);
    stop = 1;
    int rc = sim__compare_run(&sc, pol, 2, &o, &res, &d);
    CHECK_EQ_INT(rc, TM_ERR_INTERRUPTED);
    CHECK(strcmp(d.where, "compare") == 0);
    CHECK(strstr(d.msg, "interrupted while running the replications (0 of 6 runs done)") != NULL);
    if (rc == TM_OK)
        sim__compare_fini(&res);
    sim_scenario_fini(&sc);
}

static void test_pack(void)
{
    char nodes[512];
    snprintf(nodes, sizeof nodes, "%s/nodes.csv", dir);
    FILE *f = fopen(nodes, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("sn,cpu_milli,memory_mib,gpu,model\nn0,100000,100000,8,T4\nn1,100000,100000,8,T4\n", f);
    fclose(f);
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "p", &d), TM_OK);
    trace_node_source ns;
    CHECK_EQ_INT(trace_openb_nodes_open(&ns, nodes, NULL, &d), TM_OK);
    uint64_t cpu_only = 0;
    CHECK_EQ_INT(sim_scenario_add_nodes(&sc, &ns, &cpu_only, &d), TM_OK);
    ns.close(ns.ud);
    unlink(nodes);
    trace_job pods[200];
    for (int i = 0; i < 200; i++) {
        trace_job_defaults(&pods[i]);
        pods[i].id = (uint64_t)i + 1;
        pods[i].gpus = 1;
        pods[i].gpu_milli = 100 + (uint32_t)(i % 9) * 100;
    }
    const char *pol[] = {"order=fifo placement=best-fit backfill=none"};
    sim_pack_cfg cfg = {100, 10, 1, 2, pol, 1, 0};
    sim_pack_result r;
    volatile int stop = 0;
    CHECK_EQ_INT(sim_pack_run_reps(&sc, pods, 200, &cfg, 0, &stop, &r, &d), TM_OK);
    sim_pack_result_fini(&r);
    stop = 1;
    int rc = sim_pack_run_reps(&sc, pods, 200, &cfg, 0, &stop, &r, &d);
    CHECK_EQ_INT(rc, TM_ERR_INTERRUPTED);
    CHECK(strstr(d.msg, "interrupted while placing the pods") != NULL);
    if (rc == TM_OK)
        sim_pack_result_fini(&r);
    sim_scenario_fini(&sc);
}

static void test_merge(void)
{
    char sweep[512], merged[512], points[512];
    snprintf(sweep, sizeof sweep, "%s/s.json", dir);
    snprintf(merged, sizeof merged, "%s/merged.h5", dir);
    snprintf(points, sizeof points, "%s/s.points", dir);
    FILE *f = fopen(sweep, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "{\"scenario\": %s, \"grid\": {\"seed\": [1, 2, 3]}}\n", scenario);
    fclose(f);
    sim__sweep sw;
    tm_diag d;
    int rc = sim__sweep_open(&sw, sweep, NULL, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        return;
    }
    CHECK_EQ_INT(sim__sweep_mkdir(&sw, &d), TM_OK);
    volatile int stop = 0;
    for (size_t i = 0; i < 2; i++) /* two of three points run; one missing */
        CHECK_EQ_INT(sim__sweep_run_point(&sw, i, &stop, &d), TM_OK);
    sim__sweep_merge_counts mc;
    CHECK_EQ_INT(sim__sweep_merge(&sw, merged, &mc, &stop, &d), TM_OK);
    CHECK(exists(merged));
    CHECK_EQ_U64(mc.ok, 2);
    unlink(merged);
    stop = 1;
    rc = sim__sweep_merge(&sw, merged, &mc, &stop, &d);
    CHECK_EQ_INT(rc, TM_ERR_INTERRUPTED);
    CHECK(strstr(d.msg, "interrupted while checking the point files (0 of 3 points)") != NULL);
    CHECK(!exists(merged));
    /* a point run with the flag set leaves no point file */
    char p2[600];
    sim__sweep_point_path(&sw, 2, p2, sizeof p2);
    CHECK_EQ_INT(sim__sweep_run_point(&sw, 2, &stop, &d), TM_ERR_INTERRUPTED);
    CHECK(!exists(p2));
    CHECK_EQ_INT(n_entries(points), 2);
    sim__sweep_close(&sw);
    unlink(sweep);
    rm_tree(points);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/tarmac-sigphase.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_writer();
    test_compare();
    test_pack();
    test_merge();
    rm_tree(dir);
    return check_finish("test_signal_phases");
}
