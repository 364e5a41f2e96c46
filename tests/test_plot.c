/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_plot.c — the plot writer (sim/plot/plot.c, plot_run.c) on a file built here.
 *
 * The file carries what run files have (busy, goodput and shape-blocked
 * columns in /timeseries, /timeseries_pool/<pool>, /timeseries_type/<type>,
 * /timeseries_service/<service>, /summary/shape_blocked, the SLO attributes of
 * /summary/services/<service>), built here so each figure is exercised on
 * known data. A second file is a packing experiment (/packing), a third a
 * merged packing sweep (/sweep/curves_mean, /sweep/params), a fourth a
 * comparison with per-class metrics, a fifth a bare run (only /timeseries):
 * the figures that need more are absent. Its scenario name tries to
 * break out of a gnuplot string ("'; system('touch PWNED') ; '" and a newline): the script must
 * keep it a string (no file appears) and gnuplot must still draw.
 *
 * Checks: the figures the datasets call for, and no others; one PNG rendered
 * and checked as a PNG (signature, IHDR of 13 bytes with a valid CRC, width
 * and height as asked, plausible file size); the proposed series reach the
 * script; with no gnuplot in PATH the status is TM_ERR_UNAVAILABLE and the
 * data and scripts are there; no HDF5 handle is left open.
 */
#include "check.h"
#include "output/h5io_int.h"
#include "plot/plot_int.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char evil[] = "evil'; system('touch PWNED') ; print '\nname";

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

/* CRC-32 of PNG chunks (ISO 3309), bit by bit: no table, no zlib. */
static uint32_t crc32_png(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void check_png(const char *path, uint32_t want_w, uint32_t want_h)
{
    unsigned char h[33];
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    CHECK_EQ_U64(got, sizeof h);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK(memcmp(h, sig, 8) == 0);
    CHECK_EQ_U64(be32(h + 8), 13);
    CHECK(memcmp(h + 12, "IHDR", 4) == 0);
    CHECK_EQ_U64(be32(h + 16), want_w);
    CHECK_EQ_U64(be32(h + 20), want_h);
    CHECK_EQ_U64(h[24], 8); /* bit depth */
    CHECK_EQ_U64(crc32_png(h + 12, 17), be32(h + 29));
    long sz = file_size(path);
    printf("%s: %ld bytes, %ux%u\n", path, sz, be32(h + 16), be32(h + 20));
    CHECK(sz > 20000 && sz < 2000000); /* a drawn figure, not an empty canvas */
}

static const char *const block_reasons[6] = {"type", "memory", "fragmentation",
                                             "gang", "host",   "order"};

/* A result file with 3 days of hourly bins, 2 pools (one GPU type each), 2
 * classes, 2 services. */
static int write_sample(const char *path)
{
    tm_diag d;
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return rc;
    enum { NB = 72, NJ = 3000 };
    static const sim__h5_col ts[] = {
        {"t_s", SIM__H5_F64, "s", "bin start"},
        {"t_end_s", SIM__H5_F64, "s", "bin end"},
        {"gpus_up", SIM__H5_F64, "GPU", "up"},
        {"gpus_alloc", SIM__H5_F64, "GPU", "allocated"},
        {"gpus_busy", SIM__H5_F64, "GPU", "busy"},
        {"gpus_goodput", SIM__H5_F64, "GPU", "goodput"},
        {"alloc_util", SIM__H5_F64, "1", "ratio"},
        {"queue_len", SIM__H5_F64, "1", "waiting"},
        {"blocked_type", SIM__H5_F64, "GPU", "blocked"},
        {"blocked_memory", SIM__H5_F64, "GPU", "blocked"},
        {"blocked_fragmentation", SIM__H5_F64, "GPU", "blocked"},
        {"blocked_gang", SIM__H5_F64, "GPU", "blocked"},
        {"blocked_host", SIM__H5_F64, "GPU", "blocked"},
        {"blocked_order", SIM__H5_F64, "GPU", "blocked"},
    };
    static const sim__h5_col fleet[] = {
        {"gpus_up", SIM__H5_F64, "GPU", "up"},
        {"gpus_alloc", SIM__H5_F64, "GPU", "allocated"},
        {"gpus_busy", SIM__H5_F64, "GPU", "busy"},
    };
    static const sim__h5_col svc[] = {
        {"replicas_ready", SIM__H5_F64, "1", "ready"},
        {"replicas_loading", SIM__H5_F64, "1", "loading"},
        {"offered_rps", SIM__H5_F64, "1/s", "offered"},
        {"slo_ok_rps", SIM__H5_F64, "1/s", "ok"},
        {"late_rps", SIM__H5_F64, "1/s", "late"},
        {"unserved_rps", SIM__H5_F64, "1/s", "unserved"},
        {"api_rps", SIM__H5_F64, "1/s", "api"},
        {"slo_attainment", SIM__H5_F64, "1", "attainment"},
    };
    static const sim__h5_col jobs[] = {
        {"class", SIM__H5_I32, "1", "class"},   {"state", SIM__H5_U8, "1", "state"},
        {"start_s", SIM__H5_F64, "s", "start"}, {"wait_s", SIM__H5_F64, "s", "wait"},
        {"run_s", SIM__H5_F64, "s", "run"},
    };
    static const char *const pools[2] = {"/timeseries_pool/h100", "/timeseries_pool/l40s"};
    static const char *const types[2] = {"/timeseries_type/H100", "/timeseries_type/L40S"};
    static const char *const svcs[2] = {"/timeseries_service/chat", "/timeseries_service/code"};
    sim__h5t *t_ts, *t_pool[2], *t_type[2], *t_svc[2], *t_jobs;
    sim__h5t_create(&t_ts, w, "/timeseries", "bins", ts, 14, &d);
    for (int p = 0; p < 2; p++) {
        sim__h5t_create(&t_pool[p], w, pools[p], "bins", fleet, 3, &d);
        sim__h5t_create(&t_type[p], w, types[p], "bins", fleet, 3, &d);
        sim__h5t_create(&t_svc[p], w, svcs[p], "bins", svc, 8, &d);
    }
    sim__h5t_create(&t_jobs, w, "/jobs", "jobs", jobs, 5, &d);
    for (int i = 0; i < NB; i++) {
        double t0 = 3600.0 * i, up = 96, alloc = 40 + 30 * (i % 24) / 24.0;
        sim__h5t_put_f64(t_ts, 0, t0);
        sim__h5t_put_f64(t_ts, 1, t0 + 3600);
        sim__h5t_put_f64(t_ts, 2, up);
        sim__h5t_put_f64(t_ts, 3, alloc);
        sim__h5t_put_f64(t_ts, 4, alloc * 0.8);
        sim__h5t_put_f64(t_ts, 5, alloc * 0.7);
        sim__h5t_put_f64(t_ts, 6, alloc / up);
        sim__h5t_put_f64(t_ts, 7, (double)(i % 10));
        for (int k = 0; k < 6; k++) /* blocked GPUs: a share of the idle ones */
            sim__h5t_put_f64(t_ts, (size_t)(8 + k), (up - alloc) * 0.02 * (k + 1) * (i % 3));
        sim__h5t_row_end(t_ts, &d);
        for (int p = 0; p < 2; p++) {
            for (int k = 0; k < 2; k++) {
                sim__h5t *t = k ? t_type[p] : t_pool[p];
                sim__h5t_put_f64(t, 0, p ? 32 : 64);
                sim__h5t_put_f64(t, 1, p ? alloc * 0.25 : alloc * 0.75);
                sim__h5t_put_f64(t, 2, p ? alloc * 0.2 : alloc * 0.6);
                sim__h5t_row_end(t, &d);
            }
            /* a daily wave of requests; the second service overflows to the API */
            double offered = (p ? 20 : 50) * (1.2 + sin(2 * 3.14159265358979 * i / 24.0));
            double api = p ? 0.2 * offered : 0, late = 0.01 * offered, uns = i == 30 ? 3 : 0;
            double ok = offered - api - late - uns;
            sim__h5t_put_f64(t_svc[p], 0, 2 + offered / 10);
            sim__h5t_put_f64(t_svc[p], 1, i % 12 == 0 ? 1 : 0);
            sim__h5t_put_f64(t_svc[p], 2, offered);
            sim__h5t_put_f64(t_svc[p], 3, ok);
            sim__h5t_put_f64(t_svc[p], 4, late);
            sim__h5t_put_f64(t_svc[p], 5, uns);
            sim__h5t_put_f64(t_svc[p], 6, api);
            sim__h5t_put_f64(t_svc[p], 7, ok / (offered - api));
            sim__h5t_row_end(t_svc[p], &d);
        }
    }
    for (int j = 0; j < NJ; j++) {
        /* waits spread over 0 .. 10^4 s, a few still queued */
        double wait = j % 3 == 0 ? 0 : (double)((j * 7919) % 10000), run = 60.0 + j % 500;
        int queued = j % 97 == 0;
        sim__h5t_put_i32(t_jobs, 0, j % 2);
        sim__h5t_put_u8(t_jobs, 1, (uint8_t)(queued ? 0 : 2));
        sim__h5t_put_f64(t_jobs, 2, queued ? NAN : 1000.0 + j);
        sim__h5t_put_f64(t_jobs, 3, wait);
        sim__h5t_put_f64(t_jobs, 4, queued ? NAN : run);
        sim__h5t_row_end(t_jobs, &d);
    }
    sim__h5w_attr_str(w, "/jobs/class", "labels", "training\nevaluation", &d);
    for (int k = 0; k < 6; k++) {
        char p[96];
        snprintf(p, sizeof p, "/summary/shape_blocked/%s_gpu_hours", block_reasons[k]);
        sim__h5w_scalar_f64(w, p, k == 4 ? 0 : 10.0 * (k + 1), "GPU h", "blocked", &d);
    }
    sim__h5w_scalar_f64(w, "/summary/gpu_hours_idle", 2000, "GPU h", "idle", &d);
    static const char *const sum[2] = {"/summary/services/chat", "/summary/services/code"};
    for (int p = 0; p < 2; p++) {
        char q[96];
        snprintf(q, sizeof q, "%s/slo_attainment", sum[p]);
        sim__h5w_scalar_f64(w, q, 0.985, "1", "attainment", &d);
        sim__h5w_attr_f64(w, sum[p], "slo_s", p ? 1 : 2, &d);
        sim__h5w_attr_f64(w, sum[p], "slo_target", 0.99, &d);
        sim__h5w_attr_str(w, sum[p], "slo_kind", "wait", &d);
    }
    sim__h5w_scalar_str(w, "/provenance/scenario_name", evil, "name", &d);
    rc = sim__h5w_commit(w, &d);
    if (rc)
        fprintf(stderr, "sample: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* A packing experiment: 2 policies, 3 seeds, a grid of 0 .. 110 %. */
static int write_packing(const char *path)
{
    tm_diag d;
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return rc;
    enum { P = 56 };
    double grid[P], v[P];
    for (int i = 0; i < P; i++)
        grid[i] = 2.0 * i;
    sim__h5w_array_f64(w, "/packing/arrived_pct", grid, P, "%", "grid", &d);
    sim__h5w_scalar_i64(w, "/packing/config/n_seeds", 3, "1", "seeds", &d);
    sim__h5w_scalar_str(w, "/packing/config/pods_file", "/data/openb_pod_list_default.csv", "pods",
                        &d);
    static const char *const metric[3] = {"alloc_pct", "frag_pct", "failed_gpu_pct"};
    static const char *const stat[3] = {"mean", "min", "max"};
    for (int p = 0; p < 2; p++) {
        char g[64];
        snprintf(g, sizeof g, "/packing/policies/p%02d", p);
        for (int m = 0; m < 3; m++)
            for (int s = 0; s < 3; s++) {
                double off = s == 1 ? -1.5 : s == 2 ? 1.5 : 0, knee = 90 + 3 * p;
                for (int i = 0; i < P; i++) {
                    double x = grid[i];
                    v[i] = m == 0   ? (x < knee ? x : knee) + off
                           : m == 1 ? 100 * pow(x / 110, 4) + off
                                    : (x < knee ? 0 : x - knee) + off;
                }
                char q[128];
                snprintf(q, sizeof q, "%s/%s_%s", g, metric[m], stat[s]);
                sim__h5w_array_f64(w, q, v, P, "%", "curve", &d);
            }
        sim__h5w_attr_str(w, g, "spec",
                          p ? "order=fifo placement=best-fit backfill=none"
                            : "order=fifo placement=first-fit backfill=none",
                          &d);
    }
    rc = sim__h5w_commit(w, &d);
    if (rc)
        fprintf(stderr, "packing: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* A merged packing sweep: 2 combinations (a coded policy, a numeric
 * parameter) of mean curves over a grid of 0 .. 110 %. */
static int write_sweep(const char *path)
{
    tm_diag d;
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return rc;
    enum { C = 2, G = 12 };
    double grid[C * G], alloc[C * G], frag[C * G], failed[C * G];
    for (int k = 0; k < C; k++)
        for (int i = 0; i < G; i++) {
            double x = 10.0 * i, knee = 88 + 4 * k;
            grid[k * G + i] = x;
            alloc[k * G + i] = x < knee ? x : knee;
            frag[k * G + i] = x / 1.1;
            failed[k * G + i] = x < knee ? 0 : x - knee;
        }
    sim__h5w_matrix_f64(w, "/sweep/curves_mean/arrived_pct", grid, C, G, "%", "grid", &d);
    sim__h5w_matrix_f64(w, "/sweep/curves_mean/alloc_pct", alloc, C, G, "%", "mean", &d);
    sim__h5w_matrix_f64(w, "/sweep/curves_mean/frag_pct", frag, C, G, "%", "mean", &d);
    sim__h5w_matrix_f64(w, "/sweep/curves_mean/failed_gpu_pct", failed, C, G, "%", "mean", &d);
    static const sim__h5_col params[] = {
        {"policy", SIM__H5_I32, "1", "coded"},
        {"pack.step_pct", SIM__H5_F64, "1", "numeric"},
    };
    sim__h5t *t;
    sim__h5t_create(&t, w, "/sweep/params", "combinations", params, 2, &d);
    for (int k = 0; k < C; k++) {
        sim__h5t_put_i32(t, 0, k);
        sim__h5t_put_f64(t, 1, 2.0 + k);
        sim__h5t_row_end(t, &d);
    }
    sim__h5t_close(t, &d);
    sim__h5w_attr_str(w, "/sweep/params", "paths", "policy\npack.step_pct", &d);
    sim__h5w_attr_str(w, "/sweep/params/policy", "values",
                      "order=fifo placement=first-fit backfill=none\n"
                      "order=fifo placement=best-fit backfill=none",
                      &d);
    sim__h5w_scalar_str(w, "/sweep/sweep_file", "/studies/fgd.json", "sweep file", &d);
    rc = sim__h5w_commit(w, &d);
    if (rc)
        fprintf(stderr, "sweep: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* A merged scenario sweep: 2 policies (coded) x 3 node counts (numeric, given
 * out of order: 32, 16, 24), 4 replications each. Combination c = policy
 * (c / 3), nodes {32, 16, 24}[c % 3]; slowdown_mean = 10 + c with sd 2, so
 * its 95 % half-width is t(0.975, 3) x 2 / sqrt(4) = 3.18244631; n = 1 for
 * combination 5 (no interval). With numeric = 0 only the policy varies. */
static int write_scn_sweep(const char *path, int numeric)
{
    tm_diag d;
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return rc;
    size_t nc = numeric ? 6 : 2;
    static const double nodes[3] = {32, 16, 24};
    static const sim__h5_col pcols[] = {
        {"policy", SIM__H5_I32, "1", "coded"},
        {"fleet.pools[0].nodes", SIM__H5_F64, "1", "numeric"},
    };
    sim__h5t *t;
    sim__h5t_create(&t, w, "/sweep/params", "combinations", pcols, numeric ? 2 : 1, &d);
    for (size_t c = 0; c < nc; c++) {
        sim__h5t_put_i32(t, 0, (int32_t)(numeric ? c / 3 : c));
        if (numeric)
            sim__h5t_put_f64(t, 1, nodes[c % 3]);
        sim__h5t_row_end(t, &d);
    }
    sim__h5t_close(t, &d);
    sim__h5w_attr_str(w, "/sweep/params", "paths",
                      numeric ? "policy\nfleet.pools[0].nodes" : "policy", &d);
    sim__h5w_attr_str(w, "/sweep/params/policy", "values", "fifo-best-fit\neasy", &d);
    static const sim__h5_col mcols[] = {
        {"combo", SIM__H5_I64, "1", "combination"},  {"n", SIM__H5_I64, "1", "ok replications"},
        {"wait_mean_s", SIM__H5_F64, "s", "mean"},   {"wait_p95_s", SIM__H5_F64, "s", "p95"},
        {"slowdown_mean", SIM__H5_F64, "1", "bsld"}, {"alloc_util", SIM__H5_F64, "1", "util"},
    };
    for (int sd = 0; sd < 2; sd++) {
        sim__h5t_create(&t, w, sd ? "/sweep/sd" : "/sweep/mean", "per combination", mcols, 6, &d);
        for (size_t c = 0; c < nc; c++) {
            int64_t n = c == 5 ? 1 : 4;
            sim__h5t_put_i64(t, 0, (int64_t)c);
            sim__h5t_put_i64(t, 1, n);
            sim__h5t_put_f64(t, 2, sd ? 600 : 3600.0 * (double)(c + 1));
            sim__h5t_put_f64(t, 3, sd ? 600 : 7200.0 * (double)(c + 1));
            sim__h5t_put_f64(t, 4, sd ? (n >= 2 ? 2 : NAN) : 10.0 + (double)c);
            sim__h5t_put_f64(t, 5, sd ? 0.05 : 0.5);
            sim__h5t_row_end(t, &d);
        }
        sim__h5t_close(t, &d);
    }
    sim__h5w_attr_str(w, "/sweep", "sweep_kind", "scenario", &d);
    sim__h5w_scalar_str(w, "/sweep/sweep_file", "/studies/fleet.json", "sweep file", &d);
    rc = sim__h5w_commit(w, &d);
    if (rc)
        fprintf(stderr, "scenario sweep: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* One table of /compare/metrics or /compare/class_metrics: rows of
 * (class, policy) with class < n_cls (n_cls 0: no class column). */
static void write_cmp_table(sim__h5w *w, const char *path, size_t n_cls, tm_diag *d)
{
    static const sim__h5_col cols[] = {
        {"class", SIM__H5_I32, "1", "class"},       {"policy", SIM__H5_I32, "1", "policy"},
        {"n", SIM__H5_I64, "1", "replications"},    {"mean", SIM__H5_F64, "s", "mean"},
        {"ci_low", SIM__H5_F64, "s", "low"},        {"ci_high", SIM__H5_F64, "s", "high"},
        {"diff_mean", SIM__H5_F64, "s", "diff"},    {"diff_ci_low", SIM__H5_F64, "s", "low"},
        {"diff_ci_high", SIM__H5_F64, "s", "high"},
    };
    size_t skip = n_cls ? 0 : 1;
    sim__h5t *t;
    sim__h5t_create(&t, w, path, "per policy", cols + skip, 9 - skip, d);
    for (size_t k = 0; k < (n_cls ? n_cls : 1); k++)
        for (int p = 0; p < 2; p++) {
            double m = 600.0 * (double)(k + 1) * (p ? 0.8 : 1),
                   dm = p ? -120.0 * (double)(k + 1) : 0;
            size_t o = 0;
            if (n_cls)
                sim__h5t_put_i32(t, o++, (int32_t)k);
            sim__h5t_put_i32(t, o++, p);
            sim__h5t_put_i64(t, o++, 5);
            sim__h5t_put_f64(t, o++, m);
            sim__h5t_put_f64(t, o++, m - 100);
            sim__h5t_put_f64(t, o++, m + 100);
            sim__h5t_put_f64(t, o++, dm);
            sim__h5t_put_f64(t, o++, dm - 50);
            sim__h5t_put_f64(t, o++, dm + 50);
            sim__h5t_row_end(t, d);
        }
    sim__h5t_close(t, d);
    char q[256];
    snprintf(q, sizeof q, "%s/policy", path);
    sim__h5w_attr_str(w, q, "labels", "fifo\nbest-fit", d);
    if (n_cls) {
        snprintf(q, sizeof q, "%s/class", path);
        sim__h5w_attr_str(w, q, "labels", "training\nevaluation", d);
    }
    sim__h5w_attr_str(w, path, "units", "s", d);
}

/* A comparison: one overall metric, and the per-class metrics of 2 classes. */
static int write_compare(const char *path)
{
    tm_diag d;
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return rc;
    write_cmp_table(w, "/compare/metrics/wait_mean_s", 0, &d);
    write_cmp_table(w, "/compare/class_metrics/wait_mean_s", 2, &d);
    write_cmp_table(w, "/compare/class_metrics/wait_p95_s", 2, &d);
    write_cmp_table(w, "/compare/class_metrics/slowdown_mean", 2, &d);
    sim__h5w_attr_str(w, "/compare/class_metrics/wait_p95_s", "label", "p95 wait", &d);
    sim__h5w_scalar_f64(w, "/compare/confidence", 0.9, "1", "confidence", &d);
    rc = sim__h5w_commit(w, &d);
    if (rc)
        fprintf(stderr, "compare: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* A bare run: /timeseries without busy, blocked or per-pool columns. */
static int write_bare(const char *path)
{
    tm_diag d;
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return rc;
    static const sim__h5_col ts[] = {
        {"t_s", SIM__H5_F64, "s", "bin start"},
        {"t_end_s", SIM__H5_F64, "s", "bin end"},
        {"alloc_util", SIM__H5_F64, "1", "ratio"},
        {"queue_len", SIM__H5_F64, "1", "waiting"},
    };
    sim__h5t *t;
    sim__h5t_create(&t, w, "/timeseries", "bins", ts, 4, &d);
    for (int i = 0; i < 24; i++) {
        sim__h5t_put_f64(t, 0, 3600.0 * i);
        sim__h5t_put_f64(t, 1, 3600.0 * (i + 1));
        sim__h5t_put_f64(t, 2, 0.5);
        sim__h5t_put_f64(t, 3, 1);
        sim__h5t_row_end(t, &d);
    }
    rc = sim__h5w_commit(w, &d);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* Remove every file of folder d, then d. */
static void remove_dir(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char q[1200];
            if ((size_t)snprintf(q, sizeof q, "%s/%s", d, e->d_name) < sizeof q)
                remove(q);
        }
    closedir(dp);
    rmdir(d);
}

static int contains(const char *path, const char *what)
{
    char *s = slurp(path);
    int ok = s && strstr(s, what);
    if (!ok)
        printf("%s: no '%s'\n", path, what);
    free(s);
    return ok;
}

int main(void)
{
    char dir[] = "/tmp/test_plot.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char h5[256], pack[256], bare[256], sweep[256], cmp[256], out[256], p[512];
    snprintf(h5, sizeof h5, "%s/sample.h5", dir);
    snprintf(pack, sizeof pack, "%s/pack.h5", dir);
    snprintf(bare, sizeof bare, "%s/bare.h5", dir);
    snprintf(sweep, sizeof sweep, "%s/sweep.h5", dir);
    snprintf(cmp, sizeof cmp, "%s/cmp.h5", dir);
    snprintf(out, sizeof out, "%s/figs", dir);
    if (write_sample(h5) || write_packing(pack) || write_bare(bare) || write_sweep(sweep) ||
        write_compare(cmp))
        return check_finish("test_plot");
    if (chdir(dir) != 0) /* a PWNED file would appear here or in figs/ */
        return 1;

    sim__plot_opts o = {out, SIM__PLOT_PNG, NULL, NULL};
    sim__plot_report rep;
    tm_diag d;
    int rc = sim__plot_file(h5, &o, &rep, &d);
    if (rc)
        fprintf(stderr, "plot: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    enum { N_WANT = 7 };
    static const char *const want[N_WANT] = {
        "utilization", "utilization_pools", "utilization_types", "shape_blocked",
        "services",    "wait_cdf",          "slowdown"};
    static const uint32_t size[N_WANT][2] = {{1100, 720}, {1100, 760}, {1100, 760}, {1100, 800},
                                             {1500, 940}, {1100, 680}, {1100, 680}};
    CHECK_EQ_U64(rep.n_figures, N_WANT);
    CHECK_EQ_U64(rep.n_drawn, rep.n_figures);
    CHECK_EQ_INT(rep.gnuplot_missing, 0);
    for (size_t i = 0; i < N_WANT && i < rep.n_figures; i++) {
        CHECK_STR(rep.stems[i], want[i]);
        snprintf(p, sizeof p, "%s/%s.png", out, want[i]);
        check_png(p, size[i][0], size[i][1]);
    }
    static const char *const absent[] = {"compare", "compare_classes", "packing", "sweep_packing",
                                         "cost",    "services_2"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        snprintf(p, sizeof p, "%s/%s.png", out, absent[i]);
        CHECK(file_size(p) < 0); /* not in the file: no figure */
    }
    CHECK(access("PWNED", F_OK) != 0);
    snprintf(p, sizeof p, "%s/PWNED", out);
    CHECK(access(p, F_OK) != 0);
    /* the series reach the scripts, the name stays a string */
    snprintf(p, sizeof p, "%s/utilization.gp", out);
    CHECK(contains(p, "title 'busy'"));
    CHECK(contains(p, "title 'goodput'"));
    CHECK(contains(p, "evil''; system(''touch PWNED'') ; print '' name"));
    snprintf(p, sizeof p, "%s/utilization_pools.gp", out);
    CHECK(contains(p, "title 'h100'") && contains(p, "title 'l40s'"));
    CHECK(contains(p, "busy / in service"));
    snprintf(p, sizeof p, "%s/utilization_pools.dat", out);
    /* pool h100 at bin 0: 0.75 x 40 of 64 allocated, 0.6 x 40 busy */
    CHECK(contains(p, "# pool h100\n0.5 46.875 37.5 64\n"));
    snprintf(p, sizeof p, "%s/utilization_types.gp", out);
    CHECK(contains(p, "title 'H100'") && contains(p, "title 'L40S'"));
    snprintf(p, sizeof p, "%s/shape_blocked.gp", out);
    CHECK(contains(p, "'wrong GPU type'") && contains(p, "with filledcurves") &&
          contains(p, "idle GPUs (in service, not allocated)") && contains(p, "with boxxyerror"));
    snprintf(p, sizeof p, "%s/shape_blocked.dat", out);
    /* 10 GPU h of 2000 idle for the first reason, on the top row */
    CHECK(contains(p, "\n5 10 0.5 type\n") && contains(p, "\n1 0 0 host\n"));
    snprintf(p, sizeof p, "%s/services.gp", out);
    CHECK(contains(p, "chat — SLO: wait <= 2 s for 99 % of requests"));
    CHECK(contains(p, "code — SLO: wait <= 1 s for 99 % of requests"));
    CHECK(contains(p, "title 'target 99 %'") && contains(p, "title 'to the API'") &&
          contains(p, "per bin (run: 98.50 %)"));
    snprintf(p, sizeof p, "%s/wait_cdf.gp", out);
    /* 3000 / 97 rounded up: the jobs still queued are counted and said */
    CHECK(contains(p, "31 job(s) still waiting at the end"));

    /* the packing experiment: only its figure */
    char pout[300];
    snprintf(pout, sizeof pout, "%s/pack-figs", dir);
    sim__plot_opts po = {pout, SIM__PLOT_PNG, NULL, NULL};
    rc = sim__plot_file(pack, &po, &rep, &d);
    if (rc)
        fprintf(stderr, "plot packing: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_U64(rep.n_figures, 1);
    CHECK(rep.n_figures == 1 && strcmp(rep.stems[0], "packing") == 0);
    snprintf(p, sizeof p, "%s/packing.png", pout);
    check_png(p, 1400, 800);
    snprintf(p, sizeof p, "%s/packing.gp", pout);
    CHECK(contains(p, "perfect packing (y = x)") &&
          contains(p, "title 'order=fifo placement=best-fit backfill=none'") &&
          contains(p, "using 1:3:4 with filledcurves") &&
          contains(p, "openb_pod_list_default.csv") && contains(p, "mean over 3 seeds"));
    snprintf(p, sizeof p, "%s/packing.dat", pout);
    CHECK(contains(
        p, "# order=fifo placement=best-fit backfill=none\n0 0 -1.5 1.5 0 -1.5 1.5 0 -1.5 1.5\n"));

    /* the packing sweep: its mean curves, one line per combination */
    char sout[300];
    snprintf(sout, sizeof sout, "%s/sweep-figs", dir);
    sim__plot_opts so = {sout, SIM__PLOT_PNG, NULL, NULL};
    rc = sim__plot_file(sweep, &so, &rep, &d);
    if (rc)
        fprintf(stderr, "plot sweep: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK(rep.n_figures == 1 && strcmp(rep.stems[0], "sweep_packing") == 0);
    snprintf(p, sizeof p, "%s/sweep_packing.png", sout);
    check_png(p, 1400, 800);
    snprintf(p, sizeof p, "%s/sweep_packing.gp", sout);
    CHECK(contains(p, "title 'order=fifo placement=best-fit backfill=none; pack.step_pct=3'") &&
          contains(p, "— fgd.json") && contains(p, "magnified"));
    snprintf(p, sizeof p, "%s/sweep_packing.dat", sout);
    /* row 1 of the matrices: the second combination, its knee at 92 % */
    CHECK(contains(p, "\n100 92 NaN NaN 90.9090909 NaN NaN 8 NaN NaN\n"));

    /* a scenario sweep: key results against the node count, a line per
     * policy, sorted by nodes, with the intervals */
    char ssw[300], ssout[300];
    snprintf(ssw, sizeof ssw, "%s/scn-sweep.h5", dir);
    snprintf(ssout, sizeof ssout, "%s/scn-sweep-figs", dir);
    CHECK_EQ_INT(write_scn_sweep(ssw, 1), TM_OK);
    sim__plot_opts sso = {ssout, SIM__PLOT_PNG, NULL, NULL};
    rc = sim__plot_file(ssw, &sso, &rep, &d);
    if (rc)
        fprintf(stderr, "plot scenario sweep: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK(rep.n_figures == 1 && strcmp(rep.stems[0], "sweep") == 0);
    snprintf(p, sizeof p, "%s/sweep.png", ssout);
    check_png(p, 1400, 900);
    snprintf(p, sizeof p, "%s/sweep.gp", ssout);
    CHECK(contains(p, "set xlabel 'fleet.pools[0].nodes'") &&
          contains(p, "title 'policy=fifo-best-fit'") && contains(p, "title 'policy=easy'") &&
          contains(p, "fleet.json — key results against fleet.pools[0].nodes"));
    snprintf(p, sizeof p, "%s/sweep.dat", ssout);
    /* policy easy (combinations 3, 4, 5 at 32, 16, 24 nodes), by nodes: 4 at
     * 16, 5 at 24 (n = 1: no interval, low = high = mean), 3 at 32; each
     * value with its interval's ends: waits in hours (sd 600 s: 3.18244631 x
     * 300 s = 0.265203859 h), utilization in percent */
    CHECK(contains(p, "# policy=easy\n"
                      "16 5 4.73479614 5.26520386 10 9.73479614 10.2652039 14 10.8175537 "
                      "17.1824463 50 42.0438842 57.9561158 4\n"
                      "24 6 6 6 12 12 12 15 15 15 50 50 50 1\n"
                      "32 4 3.73479614 4.26520386 8 7.73479614 8.26520386 13 9.81755369 "
                      "16.1824463 50 42.0438842 57.9561158 4\n"));
    /* only the policy varies: it is the axis, its values the tics */
    snprintf(ssw, sizeof ssw, "%s/scn-sweep2.h5", dir);
    CHECK_EQ_INT(write_scn_sweep(ssw, 0), TM_OK);
    snprintf(ssout, sizeof ssout, "%s/scn-sweep-figs2", dir);
    rc = sim__plot_file(ssw, &sso, &rep, &d);
    CHECK_EQ_INT(rc, TM_OK);
    snprintf(p, sizeof p, "%s/sweep.gp", ssout);
    CHECK(contains(p, "set xtics ('fifo-best-fit' 0, 'easy' 1)") &&
          contains(p, "title 'all combinations'"));

    /* a comparison: the overall figures and the per-class ones */
    char cout[300];
    snprintf(cout, sizeof cout, "%s/cmp-figs", dir);
    sim__plot_opts co = {cout, SIM__PLOT_PNG, NULL, NULL};
    rc = sim__plot_file(cmp, &co, &rep, &d);
    if (rc)
        fprintf(stderr, "plot compare: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    static const char *const cwant[] = {"compare", "compare_diff", "compare_classes",
                                        "compare_classes_diff"};
    CHECK_EQ_U64(rep.n_figures, 4);
    for (size_t i = 0; i < 4 && i < rep.n_figures; i++)
        CHECK_STR(rep.stems[i], cwant[i]);
    snprintf(p, sizeof p, "%s/compare_classes.png", cout);
    check_png(p, 1200, 590); /* 2 rows of 3 panels */
    snprintf(p, sizeof p, "%s/compare_classes.gp", cout);
    CHECK(contains(p, "'training: p95 wait (min)'") &&
          contains(p, "'evaluation: wait_mean_s (min)'") &&
          contains(p, "Per class: Policies side by side, mean and 90 % interval"));
    snprintf(p, sizeof p, "%s/compare_classes.dat", cout);
    /* evaluation, policy 1: 600 x 2 x 0.8 s, in minutes */
    CHECK(contains(p, "\n1 16 14.3333333 17.6666667 -4 -4.83333333 -3.16666667\n"));

    /* a bare run: utilization only, and no figure of what it lacks */
    char bout[300];
    snprintf(bout, sizeof bout, "%s/bare-figs", dir);
    sim__plot_opts bo = {bout, SIM__PLOT_PNG, NULL, NULL};
    CHECK_EQ_INT(sim__plot_file(bare, &bo, &rep, &d), TM_OK);
    CHECK_EQ_U64(rep.n_figures, 1);
    CHECK(rep.n_figures == 1 && strcmp(rep.stems[0], "utilization") == 0);
    for (size_t i = 1; i < N_WANT; i++) {
        snprintf(p, sizeof p, "%s/%s.gp", bout, want[i]);
        CHECK(file_size(p) < 0);
    }
    snprintf(p, sizeof p, "%s/packing.gp", bout);
    CHECK(file_size(p) < 0);
    snprintf(p, sizeof p, "%s/sweep_packing.gp", bout);
    CHECK(file_size(p) < 0);
    sim__plot_opts bo2 = {bout, SIM__PLOT_PNG, "shape_blocked,services,packing", NULL};
    CHECK_EQ_INT(sim__plot_file(bare, &bo2, &rep, &d), TM_ERR_NOTFOUND);

    /* --only, and a name that is not a plot */
    sim__plot_opts only = {out, SIM__PLOT_SVG, "slowdown", NULL};
    CHECK_EQ_INT(sim__plot_file(h5, &only, &rep, &d), TM_OK);
    CHECK_EQ_U64(rep.n_figures, 1);
    snprintf(p, sizeof p, "%s/slowdown.svg", out);
    CHECK(file_size(p) > 10000);
    sim__plot_opts bad = {out, SIM__PLOT_PNG, "slowdown,nosuch", NULL};
    CHECK_EQ_INT(sim__plot_file(h5, &bad, &rep, &d), TM_ERR_USAGE);
    CHECK(strstr(d.msg, "nosuch") != NULL);

    /* no gnuplot: the data and scripts all the same */
    char nodir[300];
    snprintf(nodir, sizeof nodir, "%s/nognuplot", dir);
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent-tarmac-test", 1);
    sim__plot_opts none = {nodir, SIM__PLOT_PNG, NULL, NULL};
    CHECK_EQ_INT(sim__plot_file(h5, &none, &rep, &d), TM_ERR_UNAVAILABLE);
    CHECK_EQ_INT(rep.gnuplot_missing, 1);
    CHECK_EQ_U64(rep.n_figures, N_WANT);
    CHECK_EQ_U64(rep.n_drawn, 0);
    CHECK(strstr(d.msg, "not found in PATH") != NULL);
    for (size_t i = 0; i < N_WANT; i++) {
        snprintf(p, sizeof p, "%s/%s.gp", nodir, want[i]);
        CHECK(file_size(p) > 100);
        snprintf(p, sizeof p, "%s/%s.dat", nodir, want[i]);
        CHECK(file_size(p) > 100);
        snprintf(p, sizeof p, "%s/%s.png", nodir, want[i]);
        CHECK(file_size(p) < 0);
    }

    /* a gnuplot that dies half-way through its picture, and one that exits 0
     * without drawing: no picture under the final name, no temporary left */
    char fakebin[300], fake[400], fdir[300];
    snprintf(fakebin, sizeof fakebin, "%s/fakebin", dir);
    snprintf(fake, sizeof fake, "%s/gnuplot", fakebin);
    snprintf(fdir, sizeof fdir, "%s/fake-figs", dir);
    CHECK(mkdir(fakebin, 0755) == 0);
    for (int mode = 0; mode < 2; mode++) {
        FILE *g = fopen(fake, "w");
        CHECK(g != NULL);
        if (!g)
            break;
        /* argv: -e tarmac_output='NAME' SCRIPT */
        fprintf(
            g,
            "#!/bin/sh\nout=$(printf '%%s' \"$2\" | sed \"s/^tarmac_output='\\(.*\\)'$/\\1/\")\n"
            "%s\n",
            mode == 0 ? "printf 'half a picture' > \"$out\" && echo \"$out\" > ../fakebin/seen; "
                        "echo 'line 3: died' >&2; exit 1"
                      : "exit 0");
        fclose(g);
        CHECK(chmod(fake, 0755) == 0);
        char fpath[400];
        snprintf(fpath, sizeof fpath, "%s:/usr/bin:/bin", fakebin);
        setenv("PATH", fpath, 1);
        sim__plot_opts fo = {fdir, SIM__PLOT_PNG, "slowdown", NULL};
        CHECK_EQ_INT(sim__plot_file(h5, &fo, &rep, &d), TM_ERR_UNAVAILABLE);
        CHECK(strstr(d.msg, mode == 0 ? "exited with status 1" : "wrote no picture") != NULL);
        CHECK_EQ_U64(rep.n_drawn, 0);
        snprintf(p, sizeof p, "%s/slowdown.png", fdir);
        CHECK(file_size(p) < 0);
        snprintf(p, sizeof p, "%s/slowdown.gp", fdir);
        CHECK(file_size(p) > 100);
        DIR *dd = opendir(fdir);
        CHECK(dd != NULL);
        for (struct dirent *e; dd && (e = readdir(dd));)
            if (strstr(e->d_name, ".tmp.")) {
                CHECK(0 && "a temporary left in the output folder");
                printf("  left: %s\n", e->d_name);
            }
        if (dd)
            closedir(dd);
    }
    /* the first one did write half a picture, under the temporary name */
    char seen[400];
    snprintf(seen, sizeof seen, "%s/seen", fakebin);
    char *seen_text = slurp(seen);
    CHECK(seen_text && strstr(seen_text, "slowdown.png.tmp.") == seen_text);
    free(seen_text);
    remove(seen);
    remove(fake);
    rmdir(fakebin);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
    if (check_failures == 0) {
        /* clean up only on success, so a failure leaves the files to look at */
        const char *const sub[] = {"figs",       "nognuplot", "pack-figs", "bare-figs",
                                   "sweep-figs", "cmp-figs",  "fake-figs", "scn-sweep-figs"};
        for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
            char q[600];
            snprintf(q, sizeof q, "%s/%s", dir, sub[i]);
            remove_dir(q);
        }
        remove(h5);
        remove(pack);
        remove(bare);
        remove(sweep);
        remove(cmp);
        rmdir(dir);
    } else {
        printf("files kept in %s\n", dir);
    }
    return check_finish("test_plot");
}
