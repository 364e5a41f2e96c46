/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_h5io.c — what writing the jobs table costs the simulating thread.
 *
 * Writes one 15-column table shaped like /jobs of a run (86 bytes a row:
 * sorted ids, small integer codes, increasing float seconds) through
 * sim__h5w / sim__h5t_put_* / row_end and commits it, for each table
 * pipeline (no compression; HDF5's filters on the caller, the writer before
 * the worker; the worker thread; the worker's code with no thread) and with
 * and without the commit's fsyncs. The rows are generated before the clock
 * starts, so the timed loop is the puts a report does per job.
 *
 * Per configuration, the median of --runs runs (default 5) of: wall time
 * from open to the end of commit (and its minimum, the least disturbed by
 * other work on the machine), CPU time of the calling thread
 * (CLOCK_THREAD_CPUTIME_ID) and of the process (all threads), raw MB/s
 * (rows x 86 bytes / wall), commit time and the file's size. Prints a
 * Markdown table (bench/README.md records it).
 *
 *   bench_h5io [--rows N] [--runs K] [--dir DIR] [--work-ns NS]
 *
 * Then, per column, what the filters cost: shuffle + compress2 at
 * SIM__H5_DEFLATE_LEVEL of the column's chunks (what the worker does), in
 * MB/s of CPU time and compression ratio.
 *
 * --work-ns spins the calling thread NS nanoseconds per row before its puts,
 * standing in for the engine's own work per job, to show how much of the
 * compression the worker hides. Files go to DIR (default $TMPDIR or /tmp)
 * and are removed after each run.
 */
#include "output/h5io_int.h"

#include <zlib.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { NCOLS = 15, MAX_RUNS = 31 };

static const sim__h5_col COLS[NCOLS] = {
    {"id", SIM__H5_I64, "1", "job number in arrival order, from 1"},
    {"trace_id", SIM__H5_I64, "1", "the job's id in its source"},
    {"class", SIM__H5_I32, "1", "workload class index"},
    {"state", SIM__H5_U8, "1", "state at the end"},
    {"reject_reason", SIM__H5_U8, "1", "why a rejected job can never run"},
    {"gpus", SIM__H5_I32, "GPU", "GPUs requested"},
    {"gpu_milli", SIM__H5_I32, "1", "share of each GPU in milli-GPU"},
    {"gpu_type", SIM__H5_I32, "1", "GPU type it ran on"},
    {"first_node", SIM__H5_I64, "1", "first node of its placement"},
    {"n_nodes", SIM__H5_I32, "1", "nodes its placement spans"},
    {"submit_s", SIM__H5_F64, "s", "arrival time"},
    {"start_s", SIM__H5_F64, "s", "start time"},
    {"end_s", SIM__H5_F64, "s", "completion time"},
    {"wait_s", SIM__H5_F64, "s", "start - submit"},
    {"run_s", SIM__H5_F64, "s", "end - start"},
};
enum { ROW_BYTES = 3 * 8 + 5 * 4 + 2 * 1 + 5 * 8 }; /* 3 i64, 5 i32, 2 u8, 5 f64: 86 */

/* The rows, generated once. */
typedef struct rows {
    size_t n;
    int64_t *id, *trace_id, *first_node;
    int32_t *cls, *gpus, *gpu_milli, *gpu_type, *n_nodes;
    uint8_t *state, *reject;
    double *submit_s, *start_s, *end_s, *wait_s, *run_s;
} rows;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double unif(uint64_t *s)
{
    return ((double)(splitmix(s) >> 11) + 0.5) * 0x1p-53;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "bench_h5io: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* A run's jobs as the engine reports them: Poisson arrivals at 20 jobs/s,
 * waits that are mostly short, lognormal-ish run times, whole microseconds
 * (the engine's clock) as seconds; 3 % rejected, 1 % still queued. */
static void rows_make(rows *r, size_t n)
{
    uint64_t seed = 20240601;
    double t_us = 0;
    r->n = n;
    r->id = xmalloc(n * sizeof *r->id);
    r->trace_id = xmalloc(n * sizeof *r->trace_id);
    r->first_node = xmalloc(n * sizeof *r->first_node);
    r->cls = xmalloc(n * sizeof *r->cls);
    r->gpus = xmalloc(n * sizeof *r->gpus);
    r->gpu_milli = xmalloc(n * sizeof *r->gpu_milli);
    r->gpu_type = xmalloc(n * sizeof *r->gpu_type);
    r->n_nodes = xmalloc(n * sizeof *r->n_nodes);
    r->state = xmalloc(n);
    r->reject = xmalloc(n);
    r->submit_s = xmalloc(n * sizeof(double));
    r->start_s = xmalloc(n * sizeof(double));
    r->end_s = xmalloc(n * sizeof(double));
    r->wait_s = xmalloc(n * sizeof(double));
    r->run_s = xmalloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double u = unif(&seed);
        t_us += (double)(int64_t)(-50000.0 * log(u)); /* mean 50 ms apart */
        int64_t sub = (int64_t)t_us;
        double w = unif(&seed);
        int64_t wait = w < 0.6 ? 0 : (int64_t)(-30e6 * log(unif(&seed)));
        int64_t run = (int64_t)(60e6 * exp(2.0 * (unif(&seed) - 0.5) * 2.0));
        uint64_t k = splitmix(&seed);
        int rejected = (k % 100) < 3, queued = (k % 100) == 3;
        r->id[i] = (int64_t)i + 1;
        r->trace_id[i] = (int64_t)i * 3 + (int64_t)(k >> 60); /* sorted-ish */
        r->cls[i] = (int32_t)((k >> 8) % 4);
        r->gpus[i] = (int32_t)(1u << ((k >> 12) % 4));
        r->gpu_milli[i] = ((k >> 16) % 8) ? 1000 : 500;
        r->state[i] = rejected ? 3 : queued ? 0 : 2;
        r->reject[i] = rejected ? (uint8_t)(1 + (k >> 20) % 2) : 0;
        r->gpu_type[i] = rejected || queued ? -1 : (int32_t)((k >> 24) % 3);
        r->first_node[i] = rejected || queued ? -1 : (int64_t)((k >> 28) % 512);
        r->n_nodes[i] = rejected || queued ? 0 : 1 + (r->gpus[i] > 8);
        r->submit_s[i] = (double)sub / 1e6;
        if (rejected || queued) {
            r->start_s[i] = r->end_s[i] = r->run_s[i] = NAN;
            r->wait_s[i] = rejected ? 0.0 : (double)wait / 1e6;
        } else {
            r->start_s[i] = (double)(sub + wait) / 1e6;
            r->end_s[i] = (double)(sub + wait + run) / 1e6;
            r->wait_s[i] = (double)wait / 1e6;
            r->run_s[i] = (double)run / 1e6;
        }
    }
}

static void rows_free(rows *r)
{
    void *p[] = {r->id,        r->trace_id, r->first_node, r->cls,    r->gpus,
                 r->gpu_milli, r->gpu_type, r->n_nodes,    r->state,  r->reject,
                 r->submit_s,  r->start_s,  r->end_s,      r->wait_s, r->run_s};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
}

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Busy work standing in for the engine: `iters` dependent multiply-adds. */
static volatile double spin_sink;
static void spin(uint64_t iters)
{
    double x = 1.0;
    for (uint64_t k = 0; k < iters; k++)
        x = x * 1.0000001 + 1e-9;
    spin_sink = x;
}

/* Spin iterations per nanosecond on this machine. */
static double spin_calibrate(void)
{
    const uint64_t n = 50000000;
    double t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
    spin(n);
    return (double)n / ((now_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e9);
}

typedef struct config {
    const char *name;
    sim__h5_pipe pipe;
    int sync;
} config;

typedef struct result {
    double wall_s, cpu_s, proc_s, commit_s;
    long long bytes;
} result;

/* One run: open, the table, commit. 0 or a status. */
static int run_once(const rows *r, const config *c, const char *path, uint64_t spin_iters,
                    result *out)
{
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    sim__h5t *t = NULL;
    struct stat st;
    double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
    double p0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = sim__h5w_open(&w, path, &dg);
    if (rc)
        goto fail;
    sim__h5w_set_sync(w, c->sync);
    if ((rc = sim__h5w_set_pipe(w, c->pipe, &dg)) ||
        (rc = sim__h5t_create(&t, w, "/jobs", "one row per job", COLS, NCOLS, &dg)))
        goto fail;
    for (size_t i = 0; i < r->n; i++) {
        if (spin_iters)
            spin(spin_iters);
        sim__h5t_put_i64(t, 0, r->id[i]);
        sim__h5t_put_i64(t, 1, r->trace_id[i]);
        sim__h5t_put_i32(t, 2, r->cls[i]);
        sim__h5t_put_u8(t, 3, r->state[i]);
        sim__h5t_put_u8(t, 4, r->reject[i]);
        sim__h5t_put_i32(t, 5, r->gpus[i]);
        sim__h5t_put_i32(t, 6, r->gpu_milli[i]);
        sim__h5t_put_i32(t, 7, r->gpu_type[i]);
        sim__h5t_put_i64(t, 8, r->first_node[i]);
        sim__h5t_put_i32(t, 9, r->n_nodes[i]);
        sim__h5t_put_f64(t, 10, r->submit_s[i]);
        sim__h5t_put_f64(t, 11, r->start_s[i]);
        sim__h5t_put_f64(t, 12, r->end_s[i]);
        sim__h5t_put_f64(t, 13, r->wait_s[i]);
        sim__h5t_put_f64(t, 14, r->run_s[i]);
        if ((rc = sim__h5t_row_end(t, &dg)))
            goto fail;
    }
    double k0 = now_s(CLOCK_MONOTONIC);
    rc = sim__h5w_commit(w, &dg);
    w = NULL;
    double k1 = now_s(CLOCK_MONOTONIC);
    if (rc)
        goto fail;
    out->wall_s = k1 - w0;
    out->commit_s = k1 - k0;
    out->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    out->proc_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - p0;
    out->bytes = stat(path, &st) == 0 ? (long long)st.st_size : -1;
    unlink(path);
    return 0;
fail:
    fprintf(stderr, "bench_h5io: %s: %s: %s: %s\n", c->name, tm_status_name(rc), dg.where, dg.msg);
    sim__h5w_abort(w);
    return rc;
}

/* Shuffle + deflate every chunk of n values of es bytes at p, as the
 * worker does; prints CPU MB/s and ratio. */
static void column_cost(const char *name, const void *p, size_t n, size_t es)
{
    size_t chunk = SIM__H5_CHUNK_ROWS * es, zcap = (size_t)compressBound((uLong)chunk);
    unsigned char *sh = xmalloc(chunk), *z = xmalloc(zcap);
    size_t in = 0, out = 0;
    double t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
    for (size_t r0 = 0; r0 < n; r0 += SIM__H5_CHUNK_ROWS) {
        size_t k = n - r0 < SIM__H5_CHUNK_ROWS ? n - r0 : SIM__H5_CHUNK_ROWS;
        const unsigned char *src = (const unsigned char *)p + r0 * es;
        memset(sh, 0, chunk);
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < es; j++)
                sh[j * SIM__H5_CHUNK_ROWS + i] = src[i * es + j];
        uLongf zn = (uLongf)zcap;
        if (compress2(z, &zn, sh, (uLong)chunk, SIM__H5_DEFLATE_LEVEL) != Z_OK) {
            fprintf(stderr, "bench_h5io: compress2 failed\n");
            exit(1);
        }
        in += chunk;
        out += (size_t)zn;
    }
    double dt = now_s(CLOCK_THREAD_CPUTIME_ID) - t0;
    printf("| %s | %zu | %.0f | %.2f | %.3f |\n", name, es, (double)in / 1e6 / dt,
           (double)in / (double)out, dt);
    free(sh);
    free(z);
}

/* The 1-minute load average (Linux), or -1: wall times mean little when the
 * machine's cores are busy with other work. */
static double loadavg1(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    size_t nrows = 1000000;
    int runs = 5;
    long work_ns = 0;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            nrows = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--work-ns") == 0 && i + 1 < argc)
            work_ns = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--rows N] [--runs K] [--dir DIR] [--work-ns NS]\n",
                    argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > MAX_RUNS || nrows == 0 || work_ns < 0) {
        fprintf(stderr, "bench_h5io: want 1..%d runs, rows > 0, work-ns >= 0\n", MAX_RUNS);
        return 2;
    }
    static const config configs[] = {
        {"no compression", SIM__H5_PIPE_NONE, 1},
        {"deflate 1, HDF5 filter on the caller (old)", SIM__H5_PIPE_FILTER, 1},
        {"deflate 1, worker thread (new)", SIM__H5_PIPE_WORKER, 1},
        {"deflate 1, worker code, no thread", SIM__H5_PIPE_INLINE, 1},
        {"no compression, no fsync", SIM__H5_PIPE_NONE, 0},
        {"deflate 1, HDF5 filter, no fsync", SIM__H5_PIPE_FILTER, 0},
        {"deflate 1, worker thread, no fsync", SIM__H5_PIPE_WORKER, 0},
    };
    char path[1024];
    snprintf(path, sizeof path, "%s/bench_h5io.%ld.h5", dir, (long)getpid());
    uint64_t spin_iters = work_ns ? (uint64_t)((double)work_ns * spin_calibrate() + 0.5) : 0;
    rows r;
    rows_make(&r, nrows);
    double raw_mb = (double)nrows * ROW_BYTES / 1e6;
    char ver[32];
    sim__h5_version(ver, sizeof ver);
    printf("%zu rows x %d columns (%.1f MB raw), HDF5 %s, %ld ns of engine work a row, "
           "median of %d runs, files in %s, %ld cores, load average %.2f\n\n",
           nrows, NCOLS, raw_mb, ver, work_ns, runs, dir, sysconf(_SC_NPROCESSORS_ONLN),
           loadavg1());
    printf("| pipeline | wall s | min wall s | caller CPU s | process CPU s | MB/s | commit ms | "
           "file MB |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    int status = 0;
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        double wall[MAX_RUNS], cpu[MAX_RUNS], proc[MAX_RUNS], commit[MAX_RUNS];
        long long bytes = 0;
        int ok = 1;
        for (int i = 0; i < runs && ok; i++) {
            result res;
            if (run_once(&r, &configs[k], path, spin_iters, &res) != 0) {
                ok = 0;
                status = 1;
                break;
            }
            wall[i] = res.wall_s;
            cpu[i] = res.cpu_s;
            proc[i] = res.proc_s;
            commit[i] = res.commit_s;
            bytes = res.bytes;
        }
        if (!ok)
            continue;
        double mw = median(wall, runs); /* sorts wall */
        printf("| %s | %.3f | %.3f | %.3f | %.3f | %.0f | %.1f | %.1f |\n", configs[k].name, mw,
               wall[0], median(cpu, runs), median(proc, runs), raw_mb / mw,
               1e3 * median(commit, runs), (double)bytes / 1e6);
        fflush(stdout);
    }
    printf("\nShuffle + deflate level %d per column, on the calling thread:\n\n",
           SIM__H5_DEFLATE_LEVEL);
    printf("| column | bytes | MB/s (CPU) | ratio | CPU s |\n|---|---:|---:|---:|---:|\n");
    const void *data[NCOLS] = {r.id,       r.trace_id,  r.cls,      r.state,      r.reject,
                               r.gpus,     r.gpu_milli, r.gpu_type, r.first_node, r.n_nodes,
                               r.submit_s, r.start_s,   r.end_s,    r.wait_s,     r.run_s};
    for (size_t c = 0; c < NCOLS; c++) {
        size_t es = COLS[c].type == SIM__H5_U8 ? 1 : COLS[c].type == SIM__H5_I32 ? 4 : 8;
        column_cost(COLS[c].name, data[c], nrows, es);
    }
    /* The same times as the engine keeps them, integer microseconds (-1 for
     * NaN): what the five float columns would cost as i64 columns. */
    int64_t *us = xmalloc(nrows * sizeof *us);
    for (size_t c = 10; c < NCOLS; c++) {
        const double *v = data[c];
        char name[64];
        for (size_t i = 0; i < nrows; i++)
            us[i] = isnan(v[i]) ? -1 : (int64_t)llround(v[i] * 1e6);
        snprintf(name, sizeof name, "%.*s_us as i64", (int)(strlen(COLS[c].name) - 2),
                 COLS[c].name);
        column_cost(name, us, nrows, 8);
    }
    free(us);
    rows_free(&r);
    printf("\nload average at the end: %.2f\n", loadavg1());
    return status;
}
