/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_jobsum.c — `/jobs_summary`, what `--jobs summary` writes instead of
 * the per-job table (docs/output.md): one row per job shape, a (class, GPUs,
 * milli-GPU) triple, with the counts, wait and run sums and GPU-seconds of
 * its jobs. Rows are folded in as the engine hands them out, into an
 * open-addressing table keyed by the shape, so memory grows with the shapes
 * (a few dozen in a synthesized scenario, a few hundred in an SWF trace),
 * not with the jobs; the rows are written sorted by shape at commit. Every
 * figure is a sum or a maximum of what /jobs would hold for those jobs.
 */
#include "output/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct jobsum_row {
    uint32_t cls, gpus, milli;
    int64_t jobs, started, completed, rejected, failed, interruptions;
    double wait_sum_s, wait_max_s, run_sum_s;
    double alloc, busy, lost, work;
} jobsum_row;

struct sim__jobsum {
    jobsum_row *rows;
    size_t n, cap;
    uint32_t *slot; /* index + 1 into rows; 0 empty */
    size_t mask;    /* slots - 1, a power of two at least twice cap */
};

enum {
    S_CLASS,
    S_GPUS,
    S_MILLI,
    S_JOBS,
    S_STARTED,
    S_COMPLETED,
    S_REJECTED,
    S_FAILED,
    S_INTERRUPTIONS,
    S_WAIT_MEAN,
    S_WAIT_MAX,
    S_RUN_MEAN,
    S_ALLOC,
    S_BUSY,
    S_LOST,
    S_WORK,
    S_NCOLS
};

static const sim__h5_col jobsum_cols[S_NCOLS] = {
    {"class", SIM__H5_I32, "1", "workload class index (labels: attribute 'labels')"},
    {"gpus", SIM__H5_I32, "GPU", "GPUs requested (gang size)"},
    {"gpu_milli", SIM__H5_I32, "1", "share of each GPU in milli-GPU (1000 = whole GPU)"},
    {"jobs", SIM__H5_I64, "1", "jobs of this shape (rows /jobs would hold)"},
    {"jobs_started", SIM__H5_I64, "1", "of them, jobs that started"},
    {"jobs_completed", SIM__H5_I64, "1", "of them, jobs that completed"},
    {"jobs_rejected", SIM__H5_I64, "1", "of them, jobs rejected"},
    {"jobs_failed", SIM__H5_I64, "1", "of them, jobs that failed"},
    {"interruptions", SIM__H5_I64, "1", "preemptions and GPU failures that stopped them"},
    {"wait_mean_s", SIM__H5_F64, "s", "mean wait of the started jobs; NaN if none started"},
    {"wait_max_s", SIM__H5_F64, "s", "longest wait of the started jobs; NaN if none started"},
    {"run_mean_s", SIM__H5_F64, "s",
     "mean end - first start of the completed jobs; NaN if none completed"},
    {"alloc_gpu_s", SIM__H5_F64, "GPU s", "GPU-time they held (sums to gpu_hours_alloc x 3600)"},
    {"busy_gpu_s", SIM__H5_F64, "GPU s", "GPU-time doing work"},
    {"lost_gpu_s", SIM__H5_F64, "GPU s", "GPU-time lost to preemption and failure"},
    {"work_ref_gpu_s", SIM__H5_F64, "GPU s", "useful work in reference GPU-seconds"},
};

int sim__jobsum_new(sim__jobsum **out)
{
    sim__jobsum *s = calloc(1, sizeof *s);
    if (!s)
        return TM_ERR_NOMEM;
    s->cap = 64;
    s->mask = 127;
    s->rows = malloc(s->cap * sizeof *s->rows);
    s->slot = calloc(s->mask + 1, sizeof *s->slot);
    if (!s->rows || !s->slot) {
        sim__jobsum_free(s);
        return TM_ERR_NOMEM;
    }
    *out = s;
    return TM_OK;
}

void sim__jobsum_free(sim__jobsum *s)
{
    if (!s)
        return;
    free(s->rows);
    free(s->slot);
    free(s);
}

static size_t shape_hash(uint32_t cls, uint32_t gpus, uint32_t milli)
{
    uint64_t h = ((uint64_t)cls << 42) ^ ((uint64_t)gpus << 12) ^ milli;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h;
}

/* Double the rows and the slots, rehashing every row. */
static int grow(sim__jobsum *s)
{
    size_t cap = s->cap * 2, mask = s->mask * 2 + 1;
    jobsum_row *rows = realloc(s->rows, cap * sizeof *rows);
    if (!rows)
        return TM_ERR_NOMEM;
    s->rows = rows;
    uint32_t *slot = calloc(mask + 1, sizeof *slot);
    if (!slot)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < s->n; i++) {
        size_t h = shape_hash(rows[i].cls, rows[i].gpus, rows[i].milli) & mask;
        while (slot[h])
            h = (h + 1) & mask;
        slot[h] = (uint32_t)(i + 1);
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    s->mask = mask;
    return TM_OK;
}

int sim__jobsum_add(sim__jobsum *s, const sim_job_row *r, tm_diag *diag)
{
    size_t h = shape_hash(r->cls, r->gpus, r->gpu_milli) & s->mask;
    jobsum_row *e = NULL;
    for (uint32_t k; (k = s->slot[h]); h = (h + 1) & s->mask) {
        jobsum_row *c = &s->rows[k - 1];
        if (c->cls == r->cls && c->gpus == r->gpus && c->milli == r->gpu_milli) {
            e = c;
            break;
        }
    }
    if (!e) {
        if (s->n == s->cap || s->n >= UINT32_MAX - 1) {
            if (s->n >= UINT32_MAX - 1 || grow(s) != TM_OK)
                return tm_diag_set(diag, TM_ERR_NOMEM, "/jobs_summary", "out of memory");
            h = shape_hash(r->cls, r->gpus, r->gpu_milli) & s->mask;
            while (s->slot[h])
                h = (h + 1) & s->mask;
        }
        e = &s->rows[s->n];
        memset(e, 0, sizeof *e);
        e->cls = r->cls;
        e->gpus = r->gpus;
        e->milli = r->gpu_milli;
        e->wait_max_s = NAN;
        s->slot[h] = (uint32_t)++s->n;
    }
    e->jobs++;
    if (r->start_us >= 0) {
        double w = (double)r->wait_us / SIM_US_PER_S;
        e->started++;
        e->wait_sum_s += w;
        if (isnan(e->wait_max_s) || w > e->wait_max_s)
            e->wait_max_s = w;
    }
    if (r->state == SIM_JOB_COMPLETED) {
        e->completed++;
        e->run_sum_s += (double)r->run_us / SIM_US_PER_S;
    } else if (r->state == SIM_JOB_REJECTED) {
        e->rejected++;
    } else if (r->state == SIM_JOB_FAILED) {
        e->failed++;
    }
    e->interruptions += r->interruptions;
    e->alloc += r->alloc_gpu_s;
    e->busy += r->busy_gpu_s;
    e->lost += r->lost_gpu_s;
    e->work += r->work_ref_gpu_s;
    return TM_OK;
}

static int shape_cmp(const void *a, const void *b)
{
    const jobsum_row *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return (x->milli > y->milli) - (x->milli < y->milli);
}

static double mean(double sum, int64_t n)
{
    return n > 0 ? sum / (double)n : NAN;
}

int sim__jobsum_write(sim__jobsum *s, sim__h5w *w, const sim_scenario *sc, tm_diag *diag)
{
    sim__h5t *t = NULL;
    int rc;
    if ((rc = sim__h5t_create(&t, w, "/jobs_summary",
                              "one row per job shape (class, GPUs, milli-GPU): what --jobs "
                              "summary keeps of /jobs",
                              jobsum_cols, S_NCOLS, diag)) ||
        (rc = sim__h5t_dim(t, "job_shape", NULL, "the job shapes, one per row of /jobs_summary",
                           diag)))
        return rc;
    qsort(s->rows, s->n, sizeof *s->rows, shape_cmp);
    for (size_t i = 0; i < s->n; i++) {
        const jobsum_row *e = &s->rows[i];
        sim__h5t_put_i32(t, S_CLASS, (int32_t)e->cls);
        sim__h5t_put_i32(t, S_GPUS, (int32_t)e->gpus);
        sim__h5t_put_i32(t, S_MILLI, (int32_t)e->milli);
        sim__h5t_put_i64(t, S_JOBS, e->jobs);
        sim__h5t_put_i64(t, S_STARTED, e->started);
        sim__h5t_put_i64(t, S_COMPLETED, e->completed);
        sim__h5t_put_i64(t, S_REJECTED, e->rejected);
        sim__h5t_put_i64(t, S_FAILED, e->failed);
        sim__h5t_put_i64(t, S_INTERRUPTIONS, e->interruptions);
        sim__h5t_put_f64(t, S_WAIT_MEAN, mean(e->wait_sum_s, e->started));
        sim__h5t_put_f64(t, S_WAIT_MAX, e->wait_max_s);
        sim__h5t_put_f64(t, S_RUN_MEAN, mean(e->run_sum_s, e->completed));
        sim__h5t_put_f64(t, S_ALLOC, e->alloc);
        sim__h5t_put_f64(t, S_BUSY, e->busy);
        sim__h5t_put_f64(t, S_LOST, e->lost);
        sim__h5t_put_f64(t, S_WORK, e->work);
        if ((rc = sim__h5t_row_end(t, diag)))
            return rc;
    }
    const char **names = malloc((sc->n_classes ? sc->n_classes : 1) * sizeof *names);
    if (!names)
        return tm_diag_set(diag, TM_ERR_NOMEM, "/jobs_summary", "out of memory");
    for (size_t c = 0; c < sc->n_classes; c++)
        names[c] = sc->classes[c].name;
    rc = sim__h5w_labels(w, "/jobs_summary/class", names, sc->n_classes, diag);
    free(names);
    return rc;
}
