/*
 * test_plot.c — the plot writer (sim/plot.c, plot_run.c) on a file built here.
 *
 * The file carries what run files have today plus what docs/plots.md
 * proposes for later (busy and goodput columns in /timeseries, the per-pool
 * table /timeseries_pools), so the data-driven parts are exercised before
 * any module writes them. Its scenario name tries to break out of a gnuplot
 * string ("'; system('touch PWNED') ; '" and a newline): the script must keep
 * it a string (no file appears) and gnuplot must still draw.
 *
 * Checks: the figures the datasets call for, and no others; one PNG rendered
 * and checked as a PNG (signature, IHDR of 13 bytes with a valid CRC, width
 * and height as asked, plausible file size); the proposed series reach the
 * script; with no gnuplot in PATH the status is TM_ERR_UNAVAILABLE and the
 * data and scripts are there; no HDF5 handle is left open.
 */
#include "check.h"
#include "h5io_int.h"
#include "plot_int.h"

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

/* A result file with 3 days of hourly bins, 2 pools, 2 classes. */
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
        {"gpus_busy", SIM__H5_F64, "GPU", "busy (proposed)"},
        {"gpus_goodput", SIM__H5_F64, "GPU", "goodput (proposed)"},
        {"alloc_util", SIM__H5_F64, "1", "ratio"},
        {"queue_len", SIM__H5_F64, "1", "waiting"},
    };
    static const sim__h5_col pools[] = {
        {"t_s", SIM__H5_F64, "s", "bin start"},          {"t_end_s", SIM__H5_F64, "s", "bin end"},
        {"pool", SIM__H5_I32, "1", "pool index"},        {"gpus_up", SIM__H5_F64, "GPU", "up"},
        {"gpus_alloc", SIM__H5_F64, "GPU", "allocated"},
    };
    static const sim__h5_col jobs[] = {
        {"class", SIM__H5_I32, "1", "class"},   {"state", SIM__H5_U8, "1", "state"},
        {"start_s", SIM__H5_F64, "s", "start"}, {"wait_s", SIM__H5_F64, "s", "wait"},
        {"run_s", SIM__H5_F64, "s", "run"},
    };
    sim__h5t *t_ts, *t_pools, *t_jobs;
    sim__h5t_create(&t_ts, w, "/timeseries", "bins", ts, 8, &d);
    sim__h5t_create(&t_pools, w, "/timeseries_pools", "bins per pool", pools, 5, &d);
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
        sim__h5t_row_end(t_ts, &d);
        for (int p = 0; p < 2; p++) {
            sim__h5t_put_f64(t_pools, 0, t0);
            sim__h5t_put_f64(t_pools, 1, t0 + 3600);
            sim__h5t_put_i32(t_pools, 2, p);
            sim__h5t_put_f64(t_pools, 3, p ? 32 : 64);
            sim__h5t_put_f64(t_pools, 4, p ? alloc * 0.25 : alloc * 0.75);
            sim__h5t_row_end(t_pools, &d);
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
    sim__h5w_attr_str(w, "/timeseries_pools/pool", "labels", "h100\nl40s", &d);
    sim__h5w_scalar_str(w, "/provenance/scenario_name", evil, "name", &d);
    rc = sim__h5w_commit(w, &d);
    if (rc)
        fprintf(stderr, "sample: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/test_plot.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char h5[256], out[256], p[512];
    snprintf(h5, sizeof h5, "%s/sample.h5", dir);
    snprintf(out, sizeof out, "%s/figs", dir);
    if (write_sample(h5))
        return check_finish("test_plot");
    if (chdir(dir) != 0) /* a PWNED file would appear here or in figs/ */
        return 1;

    sim__plot_opts o = {out, SIM__PLOT_PNG, NULL};
    sim__plot_report rep;
    tm_diag d;
    int rc = sim__plot_file(h5, &o, &rep, &d);
    if (rc)
        fprintf(stderr, "plot: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_U64(rep.n_figures, 4); /* utilization, utilization_pools, wait_cdf, slowdown */
    CHECK_EQ_U64(rep.n_drawn, rep.n_figures);
    CHECK_EQ_INT(rep.gnuplot_missing, 0);
    static const char *const want[] = {"utilization", "utilization_pools", "wait_cdf", "slowdown"};
    for (size_t i = 0; i < 4 && i < rep.n_figures; i++)
        CHECK_STR(rep.stems[i], want[i]);
    snprintf(p, sizeof p, "%s/utilization.png", out);
    check_png(p, 1100, 720);
    snprintf(p, sizeof p, "%s/utilization_pools.png", out);
    check_png(p, 1100, 620);
    snprintf(p, sizeof p, "%s/compare.png", out);
    CHECK(file_size(p) < 0); /* no /compare in the file: no figure */
    CHECK(access("PWNED", F_OK) != 0);
    snprintf(p, sizeof p, "%s/PWNED", out);
    CHECK(access(p, F_OK) != 0);
    /* the proposed series reach the scripts, the name stays a string */
    snprintf(p, sizeof p, "%s/utilization.gp", out);
    char *gp = slurp(p);
    CHECK(gp != NULL);
    if (gp) {
        CHECK(strstr(gp, "title 'busy'") != NULL);
        CHECK(strstr(gp, "title 'goodput'") != NULL);
        CHECK(strstr(gp, "evil''; system(''touch PWNED'') ; print '' name") != NULL);
        free(gp);
    }
    snprintf(p, sizeof p, "%s/utilization_pools.gp", out);
    gp = slurp(p);
    CHECK(gp && strstr(gp, "'h100'") && strstr(gp, "'l40s'"));
    free(gp);
    snprintf(p, sizeof p, "%s/wait_cdf.gp", out);
    gp = slurp(p);
    /* 3000 / 97 rounded up: the jobs still queued are counted and said */
    CHECK(gp && strstr(gp, "31 job(s) still waiting at the end"));
    free(gp);

    /* --only, and a name that is not a plot */
    sim__plot_opts only = {out, SIM__PLOT_SVG, "slowdown"};
    CHECK_EQ_INT(sim__plot_file(h5, &only, &rep, &d), TM_OK);
    CHECK_EQ_U64(rep.n_figures, 1);
    snprintf(p, sizeof p, "%s/slowdown.svg", out);
    CHECK(file_size(p) > 10000);
    sim__plot_opts bad = {out, SIM__PLOT_PNG, "slowdown,nosuch"};
    CHECK_EQ_INT(sim__plot_file(h5, &bad, &rep, &d), TM_ERR_USAGE);
    CHECK(strstr(d.msg, "nosuch") != NULL);

    /* no gnuplot: the data and scripts all the same */
    char nodir[300];
    snprintf(nodir, sizeof nodir, "%s/nognuplot", dir);
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent-tarmac-test", 1);
    sim__plot_opts none = {nodir, SIM__PLOT_PNG, NULL};
    CHECK_EQ_INT(sim__plot_file(h5, &none, &rep, &d), TM_ERR_UNAVAILABLE);
    CHECK_EQ_INT(rep.gnuplot_missing, 1);
    CHECK_EQ_U64(rep.n_figures, 4);
    CHECK_EQ_U64(rep.n_drawn, 0);
    CHECK(strstr(d.msg, "not found in PATH") != NULL);
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s.gp", nodir, want[i]);
        CHECK(file_size(p) > 100);
        snprintf(p, sizeof p, "%s/%s.dat", nodir, want[i]);
        CHECK(file_size(p) > 100);
        snprintf(p, sizeof p, "%s/%s.png", nodir, want[i]);
        CHECK(file_size(p) < 0);
    }
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
    if (check_failures == 0) {
        /* clean up only on success, so a failure leaves the files to look at */
        const char *const sub[] = {"figs", "nognuplot"};
        for (size_t s = 0; s < 2; s++) {
            char q[600];
            const char *const ext[] = {"png", "svg", "gp", "dat"};
            for (size_t i = 0; i < 4; i++)
                for (size_t e = 0; e < 4; e++) {
                    snprintf(q, sizeof q, "%s/%s/%s.%s", dir, sub[s], want[i], ext[e]);
                    remove(q);
                }
            snprintf(q, sizeof q, "%s/%s", dir, sub[s]);
            rmdir(q);
        }
        remove(h5);
        rmdir(dir);
    } else {
        printf("files kept in %s\n", dir);
    }
    return check_finish("test_plot");
}
