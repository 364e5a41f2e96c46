/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sweep.c — sweeps without the command line: the sweep file's expansion
 * (order, counts, values, seeds, errors), shards, the worker pool (results
 * equal for any number of workers, failures, a worker killed, stopping),
 * point files (valid, truncated, foreign, temporary), failure records, and
 * the h5io additions the sweep needs (editing a complete file, 2-D arrays,
 * external links).
 */
#include "check.h"
#include "output/h5io_int.h"
#include "studies/sweep_int.h"
#include "studies/work_int.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp_dir[256];

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            char p[1024];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0)
                rm_tree(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Files in dir whose names contain `part`. */
static int count_files(const char *dir, const char *part)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

#define CHECK_DIAG_HAS(d, s)                                                                       \
    do {                                                                                           \
        if (!strstr((d).msg, (s)) && !strstr((d).where, (s)))                                      \
            check_fail(__FILE__, __LINE__, "diag \"%s: %s\" does not mention \"%s\"", (d).where,   \
                       (d).msg, (s));                                                              \
    } while (0)

/* A small scenario: a day of one-GPU jobs on 16 GPUs. */
static const char tiny_scenario[] =
    "{\"name\": \"tiny\", \"seed\": 5, \"horizon\": \"1d\", \"sample\": \"1h\",\n"
    " \"policy\": \"fifo-first-fit\",\n"
    " \"fleet\": {\"pools\": [{\"name\": \"a\", \"gpu_type\": \"H100\", \"nodes\": 2,\n"
    "                        \"gpus_per_node\": 8}]},\n"
    " \"workload\": {\"classes\": [{\"name\": \"c\", \"arrival\": {\"offered_load\": 0.5},\n"
    "   \"gpus\": 1, \"duration\": {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}}\n";

/* ------------------------------------------------------------------------- */
/* expansion                                                                  */

static void test_expansion(void)
{
    char sp[512], path[512];
    snprintf(sp, sizeof sp, "%s/scen.json", tmp_dir);
    write_file(sp, tiny_scenario);
    snprintf(path, sizeof path, "%s/grid.json", tmp_dir);
    write_file(path, "{\"scenario\": \"scen.json\", \"replications\": 2,\n"
                     " \"list\": [{\"seed\": 7}, {\"seed\": 9, \"horizon\": \"2d\"}],\n"
                     " \"grid\": {\"fleet.pools[0].nodes\": [1, 2, 3],\n"
                     "          \"policy\": [\"fifo-first-fit\", \"fifo-best-fit\"]}}\n");
    sim_sweep_spec s;
    tm_diag d;
    int rc = sim_sweep_load(&s, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        printf("%s: %s\n", d.where, d.msg);
        return;
    }
    /* list x grid: 2 x 3 x 2 combinations; parameters list first, then grid */
    CHECK_EQ_U64(s.n_combos, 12);
    CHECK_EQ_U64(s.n_params, 4);
    CHECK_STR(s.params[0], "seed");
    CHECK_STR(s.params[1], "horizon");
    CHECK_STR(s.params[2], "fleet.pools[0].nodes");
    CHECK_STR(s.params[3], "policy");
    CHECK_EQ_INT(s.replications, 2);
    for (size_t c = 0; c < s.n_combos; c++) {
        const sim_sweep_value *v = &s.values[c * s.n_params];
        size_t li = c / 6, g = c % 6;
        CHECK_EQ_INT((long long)v[0].number, li ? 9 : 7);
        CHECK(v[0].is_number);
        if (li == 0) /* the first entry keeps the base's horizon */
            CHECK(v[1].json == NULL && strcmp(v[1].text, "") == 0);
        else
            CHECK_STR(v[1].text, "2d");
        /* row-major: the last grid parameter varies fastest */
        CHECK_EQ_INT((long long)v[2].number, (long long)(g / 2 + 1));
        CHECK_STR(v[3].text, g % 2 ? "fifo-best-fit" : "fifo-first-fit");
        CHECK_STR(v[3].json, g % 2 ? "\"fifo-best-fit\"" : "\"fifo-first-fit\"");
    }
    /* applying: values at their paths, the seed of the combination */
    char *json = NULL;
    uint64_t seed = 0;
    rc = sim_sweep_apply(&s, 11, &json, &seed, &d);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_U64(seed, 9);
    CHECK(json && strstr(json, "\"horizon\":\"2d\"") && strstr(json, "\"nodes\":3") &&
          strstr(json, "\"policy\":\"fifo-best-fit\""));
    sim_scenario sc;
    if (json && sim_scenario_load_text(&sc, json, strlen(json), sp, &d) == TM_OK) {
        CHECK_EQ_U64(sc.pools[0].nodes, 3);
        CHECK_EQ_U64(sc.seed, 9);
        CHECK_EQ_INT(sc.horizon_us, 2 * 86400 * SIM_US_PER_S);
        sim_scenario_fini(&sc);
    } else {
        check_fail(__FILE__, __LINE__, "applied scenario does not load: %s: %s", d.where, d.msg);
    }
    free(json);
    sim_sweep_fini(&s);

    /* points: numbering, seeds, fingerprints; the same on a second load */
    sim__sweep a, b;
    CHECK_EQ_INT(sim__sweep_open(&a, path, NULL, &d), TM_OK);
    CHECK_EQ_INT(sim__sweep_open(&b, path, NULL, &d), TM_OK);
    CHECK_EQ_U64(a.n_points, 24);
    char want_dir[600];
    snprintf(want_dir, sizeof want_dir, "%s/grid.points", tmp_dir);
    CHECK_STR(a.dir, want_dir);
    for (size_t i = 0; i < a.n_points; i++) {
        sim__sweep_point_info p, q;
        CHECK_EQ_INT(sim__sweep_point_info_get(&a, i, &p, &d), TM_OK);
        CHECK_EQ_INT(sim__sweep_point_info_get(&b, i, &q, &d), TM_OK);
        CHECK_EQ_U64(p.combo, i / 2);
        CHECK_EQ_U64(p.replication, i % 2);
        CHECK_EQ_U64(p.seed, i / 12 ? 9 : 7);
        CHECK_EQ_U64(p.stream_seed, sim_rng_seed(p.seed, p.replication, SIM_STREAM_ARRIVALS, 0));
        CHECK_STR(p.fingerprint, q.fingerprint);
        CHECK_EQ_U64(p.stream_seed, q.stream_seed);
        /* fingerprints tell points apart */
        for (size_t j = 0; j < i; j++) {
            sim__sweep_point_info o;
            sim__sweep_point_info_get(&a, j, &o, &d);
            if (strcmp(o.fingerprint, p.fingerprint) == 0)
                check_fail(__FILE__, __LINE__, "points %zu and %zu share a fingerprint", j, i);
        }
    }
    /* common random numbers: the same replication, the same streams in every
     * combination of the same seed */
    sim__sweep_point_info p0, p2, p1;
    sim__sweep_point_info_get(&a, 0, &p0, &d);
    sim__sweep_point_info_get(&a, 2, &p2, &d);
    sim__sweep_point_info_get(&a, 1, &p1, &d);
    CHECK_EQ_U64(p0.stream_seed, p2.stream_seed);
    CHECK(p0.stream_seed != p1.stream_seed);
    sim__sweep_close(&a);
    sim__sweep_close(&b);
}

static void expect_load_error(const char *name, const char *text, const char *needle)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    write_file(path, text);
    sim__sweep sw;
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim__sweep_open(&sw, path, NULL, &d);
    if (rc == TM_OK) {
        check_fail(__FILE__, __LINE__, "%s: loaded, want an error about \"%s\"", name, needle);
        sim__sweep_close(&sw);
        return;
    }
    CHECK_DIAG_HAS(d, needle);
}

static void test_errors(void)
{
    expect_load_error("e1.json", "{\"scenario\": \"scen.json\", \"gird\": {}}", "unknown key");
    expect_load_error("e2.json", "{\"scenario\": \"scen.json\", \"grid\": {\"a..b\": [1]}}",
                      "not a parameter path");
    expect_load_error("e3.json", "{\"scenario\": \"scen.json\", \"grid\": {\"seed\": []}}",
                      "non-empty array");
    expect_load_error("e4.json",
                      "{\"scenario\": \"scen.json\", \"list\": [{\"seed\": 1}], \"grid\": "
                      "{\"seed\": [2]}}",
                      "also set by the list");
    expect_load_error("e5.json",
                      "{\"scenario\": \"scen.json\", \"grid\": {\"fleet.pools[3].nodes\": [1]}}",
                      "no [3]");
    expect_load_error("e6.json", "{\"scenario\": \"scen.json\", \"grid\": {\"seed.x\": [1]}}",
                      "not an object");
    expect_load_error("e7.json", "{\"kind\": \"pack\", \"scenario\": \"scen.json\"}",
                      "only for \"kind\": \"scenario\"");
    expect_load_error("e8.json", "{\"kind\": \"fleet\"}", "expected \"scenario\" or \"pack\"");
    expect_load_error("e9.json", "{\"scenario\": \"missing.json\"}", "missing.json");
    expect_load_error("e10.json", "{\"scenario\": \"scen.json\",\n \"replications\": 0}",
                      "replications");
    expect_load_error("e11.json", "{\"scenario\": \"scen.json\",\n \"grid\": {\"seed\": [1,}}",
                      "e11.json:2:");
    expect_load_error(
        "e12.json",
        "{\"scenario\": \"scen.json\", \"grid\": {\"a\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,"
        "17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32], \"b\": [1,2,3,4,5,6,7,8,9,10,11,12,13,"
        "14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32], \"c\": [1,2,3,4,5,6,7,8,9,10,"
        "11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32], \"d\": [1,2,3,4,5,6,"
        "7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32], \"e\": [1,2,"
        "3,4,5,6,7,8,9,10]}}",
        "more than");
}

static void test_shards(void)
{
    for (uint32_t n = 1; n <= 7; n++)
        for (size_t i = 0; i < 200; i++) {
            int owners = 0;
            for (uint32_t k = 0; k < n; k++)
                owners += sim__sweep_in_shard(i, k, n);
            if (owners != 1)
                check_fail(__FILE__, __LINE__, "point %zu has %d owners among %u shards", i, owners,
                           n);
            CHECK(sim__sweep_in_shard(i, (uint32_t)(i % n), n));
        }
}

/* ------------------------------------------------------------------------- */
/* the worker pool                                                            */

typedef struct pool_t {
    int fail_job, kill_job; /* -1: none */
    int done_calls[64];
    volatile int stop;
    int stop_after; /* done() sets the stop flag after this many, -1 never */
    int n_done;
} pool_t;

static int job_fn(void *ud, size_t job, void *out, tm_diag *diag)
{
    pool_t *p = ud;
    if ((int)job == p->kill_job)
        raise(SIGKILL); /* in a worker: the worker dies; never in-process */
    if ((int)job == p->fail_job)
        return tm_diag_set(diag, TM_ERR_SCENARIO, "job", "job %zu fails", job);
    double *o = out;
    o[0] = (double)job * (double)job + 0.5;
    o[1] = (double)getpid(); /* which process ran it */
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    return TM_OK;
}

static void job_done(void *ud, size_t job, int rc, const tm_diag *d, const void *out)
{
    (void)rc;
    (void)d;
    (void)out;
    pool_t *p = ud;
    if (job < 64)
        p->done_calls[job]++;
    if (++p->n_done == p->stop_after)
        p->stop = 1;
}

static void test_pool(void)
{
    enum { N = 40 };
    double inl[N * 2], out[N * 2];
    int rcs[N];
    tm_diag diags[N], d;
    for (unsigned w = 1; w <= 4; w++) {
        pool_t p;
        memset(&p, 0, sizeof p);
        p.fail_job = p.kill_job = p.stop_after = -1;
        sim__work_opts o = {w, 2 * sizeof(double), 0, &p.stop, job_done};
        int rc = sim__work_run(N, job_fn, &p, &o, w == 1 ? inl : out, rcs, diags, &d);
        CHECK_EQ_INT(rc, TM_OK);
        int others = 0;
        for (size_t k = 0; k < N; k++) {
            const double *r = w == 1 ? inl : out;
            CHECK_EQ_INT(rcs[k], TM_OK);
            CHECK_NEAR(r[2 * k], (double)k * (double)k + 0.5, 0);
            CHECK_EQ_INT(p.done_calls[k], 1);
            others += r[2 * k + 1] != (double)getpid();
        }
        /* one worker runs in this process, more run in others */
        if (w == 1)
            CHECK_EQ_INT(others, 0);
        else
            CHECK_EQ_INT(others, N);
    }
    /* a failing job: recorded, the others still run; the lowest failure is returned */
    pool_t p;
    memset(&p, 0, sizeof p);
    p.fail_job = 7;
    p.kill_job = p.stop_after = -1;
    sim__work_opts o = {3, 2 * sizeof(double), 0, &p.stop, job_done};
    int rc = sim__work_run(N, job_fn, &p, &o, out, rcs, diags, &d);
    CHECK_EQ_INT(rc, TM_ERR_SCENARIO);
    CHECK_DIAG_HAS(d, "job 7 fails");
    for (size_t k = 0; k < N; k++)
        CHECK_EQ_INT(rcs[k], k == 7 ? TM_ERR_SCENARIO : TM_OK);
    /* a worker killed mid-job: that job failed with the signal named (a
     * system error, not a bug: SIGKILL is what the OOM killer sends), a new
     * worker takes over, every other job done exactly once */
    memset(&p, 0, sizeof p);
    p.fail_job = p.stop_after = -1;
    p.kill_job = 5;
    rc = sim__work_run(N, job_fn, &p, &o, out, rcs, diags, &d);
    CHECK_EQ_INT(rc, TM_ERR_SYSTEM);
    CHECK_DIAG_HAS(diags[5], "killed by signal 9");
    for (size_t k = 0; k < N; k++) {
        CHECK_EQ_INT(rcs[k], k == 5 ? TM_ERR_SYSTEM : TM_OK);
        CHECK_EQ_INT(p.done_calls[k], 1);
        if (k != 5)
            CHECK_NEAR(out[2 * k], (double)k * (double)k + 0.5, 0);
    }
    /* stop_on_error: no new jobs after a failure */
    memset(&p, 0, sizeof p);
    p.fail_job = 0;
    p.kill_job = p.stop_after = -1;
    sim__work_opts oe = {2, 2 * sizeof(double), 1, &p.stop, job_done};
    rc = sim__work_run(N, job_fn, &p, &oe, out, rcs, diags, &d);
    CHECK_EQ_INT(rc, TM_ERR_SCENARIO);
    int not_run = 0;
    for (size_t k = 0; k < N; k++)
        not_run += rcs[k] == TM_ERR_INTERRUPTED;
    CHECK(not_run > N / 2);
    /* the stop flag, set by the caller while jobs run: interrupted, the rest not run */
    for (unsigned w = 1; w <= 2; w++) {
        memset(&p, 0, sizeof p);
        p.fail_job = p.kill_job = -1;
        p.stop_after = 3;
        sim__work_opts os = {w, 2 * sizeof(double), 0, &p.stop, job_done};
        rc = sim__work_run(N, job_fn, &p, &os, out, rcs, diags, &d);
        CHECK_EQ_INT(rc, TM_ERR_INTERRUPTED);
        int ran = 0;
        for (size_t k = 0; k < N; k++)
            ran += rcs[k] == TM_OK;
        CHECK(ran >= 3 && ran < N);
    }
    CHECK(sim__work_cores() >= 1);
}

/* ------------------------------------------------------------------------- */
/* point files and records                                                    */

static void test_points(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pts.json", tmp_dir);
    write_file(path, "{\"scenario\": \"scen.json\", \"replications\": 2,\n"
                     " \"grid\": {\"fleet.pools[0].nodes\": [2, -1]}}\n");
    sim__sweep sw;
    tm_diag d;
    int rc = sim__sweep_open(&sw, path, NULL, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return;
    CHECK_EQ_INT(sim__sweep_mkdir(&sw, &d), TM_OK);
    char p0[1100], p1[1100], f2[1100];
    sim__sweep_point_path(&sw, 0, p0, sizeof p0);
    sim__sweep_point_path(&sw, 1, p1, sizeof p1);
    sim__sweep_failed_path(&sw, 2, f2, sizeof f2);
    CHECK(!sim__sweep_point_valid(&sw, 0));
    CHECK_EQ_INT(sim__sweep_run_point(&sw, 0, NULL, &d), TM_OK);
    CHECK(sim__sweep_point_valid(&sw, 0));
    CHECK(!sim__sweep_point_valid(&sw, 1));
    CHECK_EQ_INT(count_files(sw.dir, ".tmp"), 0);
    CHECK_EQ_INT(count_files(sw.dir, ".run."), 0);
    /* the point file carries the run report and /sweep_point */
    sim__h5r *r;
    if (sim__h5r_open(&r, p0, &d) == TM_OK) {
        int64_t v = -1;
        char *s = NULL;
        CHECK(sim__h5r_exists(r, "/summary/jobs_arrived"));
        CHECK_EQ_INT(sim__h5r_scalar_i64(r, "/sweep_point/replication", &v, &d), TM_OK);
        CHECK_EQ_INT(v, 0);
        CHECK_EQ_INT(sim__h5r_scalar_str(r, "/sweep_point/params/fleet.pools[0].nodes", &s, &d),
                     TM_OK);
        CHECK_STR(s, "2");
        free(s);
        sim__h5r_close(r);
    }
    /* a point file of another point is not this one's */
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", p0, p1);
    CHECK_EQ_INT(system(cmd), 0);
    CHECK(!sim__sweep_point_valid(&sw, 1));
    /* a temporary file never counts; a truncated file is not valid */
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp.1.0", p1);
    snprintf(cmd, sizeof cmd, "mv '%s' '%s'", p1, tmp);
    CHECK_EQ_INT(system(cmd), 0);
    CHECK(!sim__sweep_point_valid(&sw, 1));
    sim__sweep_clean_temps(&sw, 1);
    CHECK(!exists(tmp));
    CHECK(sim__sweep_point_valid(&sw, 0));
    CHECK_EQ_INT(truncate(p0, 4096), 0);
    CHECK(!sim__sweep_point_valid(&sw, 0));
    write_file(p0, "not HDF5\n");
    CHECK(!sim__sweep_point_valid(&sw, 0));
    /* a failing point: no file; its record says why; success removes it */
    rc = sim__sweep_run_point(&sw, 2, NULL, &d);
    CHECK_EQ_INT(rc, TM_ERR_SCENARIO);
    CHECK_DIAG_HAS(d, "fleet.pools[0].nodes");
    CHECK_EQ_INT(sim__sweep_record(&sw, 2, rc, &d, &d), TM_OK);
    FILE *f = fopen(f2, "r");
    CHECK(f != NULL);
    if (f) {
        char buf[2048];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        CHECK(strstr(buf, "point 2\n") && strstr(buf, "status TM_ERR_SCENARIO 65\n") &&
              strstr(buf, "error ") && strstr(buf, "got -1"));
    }
    char p2[1100];
    sim__sweep_point_path(&sw, 2, p2, sizeof p2);
    CHECK(!exists(p2));
    CHECK_EQ_INT(sim__sweep_record(&sw, 2, TM_ERR_INTERRUPTED, &d, &d), TM_OK);
    CHECK(exists(f2)); /* an interruption is not a failure and clears nothing */
    CHECK_EQ_INT(sim__sweep_record(&sw, 2, TM_OK, NULL, &d), TM_OK);
    CHECK(!exists(f2));
    /* a stop before the run: interrupted, nothing left */
    volatile int stop = 1;
    CHECK_EQ_INT(sim__sweep_run_point(&sw, 1, &stop, &d), TM_ERR_INTERRUPTED);
    CHECK(!exists(p1));
    CHECK_EQ_INT(count_files(sw.dir, ".tmp"), 0);
    CHECK_EQ_INT(count_files(sw.dir, ".run."), 0);
    /* todo lists: shard, resume, one point */
    CHECK_EQ_INT(sim__sweep_run_point(&sw, 0, NULL, &d), TM_OK);
    sim__sweep_run_opts o = {0, 1, -1, 1, 1, NULL, NULL};
    size_t *todo, n;
    sim__sweep_counts c;
    CHECK_EQ_INT(sim__sweep_todo(&sw, &o, &todo, &n, &c, &d), TM_OK);
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_U64(c.skipped, 1);
    CHECK_EQ_U64(todo[0], 1);
    free(todo);
    o.point = 3;
    CHECK_EQ_INT(sim__sweep_todo(&sw, &o, &todo, &n, &c, &d), TM_OK);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(todo[0], 3);
    free(todo);
    o.point = 4;
    CHECK_EQ_INT(sim__sweep_todo(&sw, &o, &todo, &n, &c, &d), TM_ERR_USAGE);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
    sim__sweep_close(&sw);
}

/* ------------------------------------------------------------------------- */
/* h5io additions                                                             */

static void test_h5io_additions(void)
{
    char src[512], fin[512], other[512];
    snprintf(src, sizeof src, "%s/src.h5", tmp_dir);
    snprintf(fin, sizeof fin, "%s/final.h5", tmp_dir);
    snprintf(other, sizeof other, "%s/other.h5", tmp_dir);
    tm_diag d;
    sim__h5w *w;
    CHECK_EQ_INT(sim__h5w_open(&w, src, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_i64(w, "/a/x", 42, "1", "x", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_OK);
    /* edit: the file moves to a temporary name, gets more, lands under the final name */
    CHECK_EQ_INT(sim__h5w_open_edit(&w, src, fin, &d), TM_OK);
    CHECK(!exists(src) && !exists(fin));
    double m[6] = {1, 2, 3, 4, 5, 6};
    CHECK_EQ_INT(sim__h5w_matrix_f64(w, "/b/m", m, 2, 3, "1", "matrix", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_i64(w, "/a/x", 1, "1", "again", &d), TM_ERR_INVAL);
    sim__h5w_abort(w);
    CHECK(!exists(fin));
    CHECK_EQ_INT(count_files(tmp_dir, "final.h5.tmp"), 0);
    /* again, committed */
    CHECK_EQ_INT(sim__h5w_open(&w, src, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_i64(w, "/a/x", 42, "1", "x", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_open_edit(&w, src, fin, &d), TM_OK);
    double big[3 * 20000];
    for (size_t i = 0; i < 3 * 20000; i++)
        big[i] = (double)i;
    CHECK_EQ_INT(sim__h5w_matrix_f64(w, "/b/m", m, 2, 3, "1", "matrix", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_matrix_f64(w, "/b/big", big, 20000, 3, "1", "chunked", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_external_link(w, "/links/o", "other.h5", "/", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_external_link(w, "/links/bad", "", "/", &d), TM_ERR_INVAL);
    sim__h5w_abort(w);
    CHECK(!exists(fin));
    CHECK_EQ_INT(sim__h5w_open(&w, src, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_i64(w, "/a/x", 42, "1", "x", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_open_edit(&w, src, fin, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_matrix_f64(w, "/b/m", m, 2, 3, "1", "matrix", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_matrix_f64(w, "/b/big", big, 20000, 3, "1", "chunked", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_external_link(w, "/links/o", "other.h5", "/", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_open(&w, other, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/y", 2.5, "1", "y", &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_OK);
    sim__h5r *r;
    CHECK_EQ_INT(sim__h5r_open(&r, fin, &d), TM_OK);
    if (r) {
        int64_t x = 0;
        double y = 0, *v = NULL;
        size_t n = 0;
        sim__h5_info info;
        CHECK_EQ_INT(sim__h5r_scalar_i64(r, "/a/x", &x, &d), TM_OK);
        CHECK_EQ_INT(x, 42);
        CHECK_EQ_INT(sim__h5r_info(r, "/b/m", &info, &d), TM_OK);
        CHECK_EQ_INT(info.rank, 2);
        CHECK_EQ_U64(info.len, 6);
        CHECK_EQ_INT(sim__h5r_info(r, "/b/big", &info, &d), TM_OK);
        CHECK_EQ_INT(info.rank, 2);
        CHECK_EQ_U64(info.len, 60000);
        /* the reader reads 1-D data only (h5py reads these; test_sweep_pack does) */
        CHECK_EQ_INT(sim__h5r_array_f64(r, "/b/big", &v, &n, &d), TM_ERR_DATA);
        free(v);
        /* the link resolves against the folder of the file that holds it */
        CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/links/o/y", &y, &d), TM_OK);
        CHECK_NEAR(y, 2.5, 0);
        sim__h5r_close(r);
    }
    /* editing a file that is not there: an error, nothing left behind */
    CHECK_EQ_INT(sim__h5w_open_edit(&w, src, other, &d), TM_ERR_NOTFOUND);
    CHECK_EQ_INT(count_files(tmp_dir, "other.h5.tmp"), 0);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/tarmac-test-sweep-XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_expansion();
    test_errors();
    test_shards();
    test_pool();
    test_points();
    test_h5io_additions();
    int rc = check_finish("test_sweep");
    if (rc == 0)
        rm_tree(tmp_dir);
    else
        printf("files kept in %s\n", tmp_dir);
    return rc;
}
