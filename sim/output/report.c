/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c — a run's results as an HDF5 file (layout: docs/output.md).
 *
 * The report hands the engine a sim_sink: job rows and time-series bins go
 * into the /jobs and /timeseries tables as the engine produces them (job rows
 * a batch of JOB_BATCH at a time), so memory stays constant in the number of
 * jobs. The study that runs the model (studies/run.c) then hands in the
 * finished result and its cost accounting; the summary, the cost and the
 * provenance are written and the file is committed: it appears under its
 * final name only when complete (h5io writes a temporary file and renames
 * it). Nothing here computes a figure of the run. Times are float64 seconds;
 * every dataset carries units and a description.
 */
#include "output/report_int.h"

#include "output/provenance_int.h"
#include "model/service_int.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bumped whenever the layout changes incompatibly; docs/output.md tracks it. */
#define SIM_OUTPUT_SCHEMA 1

enum {
    J_ID,
    J_TRACE_ID,
    J_CLASS,
    J_TENANT,
    J_STATE,
    J_REJECT,
    J_GPUS,
    J_GPU_MILLI,
    J_GPU_TYPE,
    J_FIRST_NODE,
    J_N_NODES,
    J_INTERRUPTIONS,
    J_SUBMIT,
    J_START,
    J_END,
    J_WAIT,
    J_RUN,
    J_DEADLINE,
    J_BUSY,
    J_LOST,
    J_ALLOC,
    J_VALUE,
    J_WORK,
    J_NCOLS
};

static const sim__h5_col job_cols[J_NCOLS] = {
    {"id", SIM__H5_I64, "1", "job number in arrival order, from 1"},
    {"trace_id", SIM__H5_I64, "1", "the job's id in its source (trace or synthesizer)"},
    {"class", SIM__H5_I32, "1", "workload class index (labels: attribute 'labels')"},
    {"tenant", SIM__H5_I32, "1", "tenant index (labels: attribute 'labels')"},
    {"state", SIM__H5_U8, "1",
     "state at the end: 0 queued, 1 running, 2 completed, 3 rejected, 4 failed (attribute "
     "'labels')"},
    {"reject_reason", SIM__H5_U8, "1", "why a rejected job can never run (attribute 'labels')"},
    {"gpus", SIM__H5_I32, "GPU", "GPUs requested (gang size)"},
    {"gpu_milli", SIM__H5_I32, "1", "share of each GPU in milli-GPU (1000 = whole GPU)"},
    {"gpu_type", SIM__H5_I32, "1",
     "GPU type of its last placement (attribute 'labels'); -1 never started"},
    {"first_node", SIM__H5_I64, "1", "first node of its last placement; -1 never started"},
    {"n_nodes", SIM__H5_I32, "1", "nodes its last placement spans; 0 never started"},
    {"interruptions", SIM__H5_I32, "1", "preemptions and GPU failures that stopped it"},
    {"submit_s", SIM__H5_F64, "s", "arrival time"},
    {"start_s", SIM__H5_F64, "s", "first start; NaN if it never started"},
    {"end_s", SIM__H5_F64, "s", "completion (or failure) time; NaN if it did not finish"},
    {"wait_s", SIM__H5_F64, "s",
     "first start - submit; for a job that never started, end of run - submit"},
    {"run_s", SIM__H5_F64, "s",
     "end - first start, restarts included; to the end of run if still running; NaN never "
     "started"},
    {"deadline_s", SIM__H5_F64, "s", "absolute deadline; NaN none"},
    {"busy_gpu_s", SIM__H5_F64, "GPU s", "GPU-time doing work (restart overhead excluded)"},
    {"lost_gpu_s", SIM__H5_F64, "GPU s",
     "GPU-time lost to preemption and failure: work since the last checkpoint and restart "
     "overhead"},
    {"alloc_gpu_s", SIM__H5_F64, "GPU s",
     "GPU-time it held over all its runs (to the end of run if still running)"},
    {"value", SIM__H5_F64, "1", "value weight of its GPU-time (goodput accounting)"},
    {"work_ref_gpu_s", SIM__H5_F64, "GPU s",
     "useful work: the reference GPU type's run time for the progress that survived x GPUs (x "
     "share)"},
};

enum {
    T_T0,
    T_T1,
    T_UP,
    T_ALLOC,
    T_BUSY,
    T_GOOD,
    T_UTIL,
    T_BUSY_UTIL,
    T_GOOD_UTIL,
    T_QUEUE,
    T_RUNNING,
    T_ARRIVALS,
    T_STARTS,
    T_COMPLETIONS,
    T_PREEMPTIONS,
    T_FAILURES,
    T_LOST,
    T_BLOCKED, /* + reason */
    T_OWNED = T_BLOCKED + SIM_BLOCK_COUNT,
    T_WORK,
    T_VALUE_WORK,
    T_WORK_UTIL,
    T_VALUE_UTIL,
    T_NCOLS
};

/* After the blocked GPUs: the work-normalised columns (docs/output.md). */
static const sim__h5_col ts_work_cols[T_NCOLS - T_OWNED] = {
    {"gpus_owned", SIM__H5_F64, "GPU", "GPUs owned: every GPU of every pool, in service or not"},
    {"work_ref_gpus", SIM__H5_F64, "GPU",
     "useful work in reference GPUs: GPUs at work x their applied speed (replicas: busy GPUs x "
     "throughput over the reference type's), minus the work lost in the bin"},
    {"value_work_ref_gpus", SIM__H5_F64, "GPU", "work_ref_gpus weighted by job value"},
    {"work_util", SIM__H5_F64, "1", "work_ref_gpus / gpus_owned"},
    {"value_util", SIM__H5_F64, "1", "value_work_ref_gpus / gpus_owned"},
};

static const sim__h5_col ts_fixed_cols[T_BLOCKED] = {
    {"t_s", SIM__H5_F64, "s", "start of the bin"},
    {"t_end_s", SIM__H5_F64, "s", "end of the bin (the last bin may be shorter)"},
    {"gpus_up", SIM__H5_F64, "GPU", "GPUs in service, time average over the bin"},
    {"gpus_alloc", SIM__H5_F64, "GPU",
     "GPUs allocated to jobs, time average over the bin (shares count their fraction)"},
    {"gpus_busy", SIM__H5_F64, "GPU", "GPUs doing work (allocated minus restart overhead)"},
    {"gpus_goodput", SIM__H5_F64, "GPU",
     "busy GPUs minus the work lost in the bin (lost work is counted in the bin it is lost in)"},
    {"alloc_util", SIM__H5_F64, "1", "gpus_alloc / gpus_up (0 when no GPU is in service)"},
    {"busy_util", SIM__H5_F64, "1", "gpus_busy / gpus_up"},
    {"goodput_util", SIM__H5_F64, "1", "gpus_goodput / gpus_up"},
    {"queue_len", SIM__H5_F64, "1", "jobs waiting, time average over the bin"},
    {"running", SIM__H5_F64, "1", "jobs running, time average over the bin"},
    {"arrivals", SIM__H5_I64, "1", "jobs that arrived in the bin"},
    {"starts", SIM__H5_I64, "1", "runs that started in the bin (restarts included)"},
    {"completions", SIM__H5_I64, "1", "jobs that completed in the bin"},
    {"preemptions", SIM__H5_I64, "1", "runs preempted by the policy in the bin"},
    {"failures", SIM__H5_I64, "1", "GPU failures in the bin"},
    {"lost_gpu_hours", SIM__H5_F64, "GPU h", "work lost to preemption and failure in the bin"},
};

/* per pool and per GPU type: in service, allocated, busy; per class: allocated, waiting */
static const sim__h5_col fleet_cols[3] = {
    {"gpus_up", SIM__H5_F64, "GPU", "GPUs in service, time average over the bin"},
    {"gpus_alloc", SIM__H5_F64, "GPU", "GPUs allocated, time average over the bin"},
    {"gpus_busy", SIM__H5_F64, "GPU", "GPUs doing work, time average over the bin"},
};
enum {
    V_READY,
    V_LOADING,
    V_ALLOC,
    V_BUSY,
    V_OFFERED,
    V_SLO_OK,
    V_LATE,
    V_UNSERVED,
    V_API,
    V_ATTAIN,
    V_NCOLS
};
static const sim__h5_col service_cols[V_NCOLS] = {
    {"replicas_ready", SIM__H5_F64, "1", "replicas serving, time average over the bin"},
    {"replicas_loading", SIM__H5_F64, "1",
     "replicas requested and not yet serving (waiting for GPUs or loading)"},
    {"gpus_alloc", SIM__H5_F64, "GPU", "GPUs held by the service's replicas"},
    {"gpus_busy", SIM__H5_F64, "GPU", "GPUs busy serving (the replicas' utilisation)"},
    {"offered_rps", SIM__H5_F64, "1/s", "requests offered per second"},
    {"slo_ok_rps", SIM__H5_F64, "1/s", "requests per second served within the SLO"},
    {"late_rps", SIM__H5_F64, "1/s", "requests per second served late (SLO missed)"},
    {"unserved_rps", SIM__H5_F64, "1/s", "requests per second beyond the replicas' throughput"},
    {"api_rps", SIM__H5_F64, "1/s", "requests per second sent to the API"},
    {"slo_attainment", SIM__H5_F64, "1",
     "slo_ok / (offered - api) in the bin: the share of requests kept on owned replicas that met "
     "the SLO; NaN when none were"},
};

static const sim__h5_col class_cols[2] = {
    {"gpus_alloc", SIM__H5_F64, "GPU", "GPUs allocated to the class's jobs, time average"},
    {"queue_len", SIM__H5_F64, "1", "the class's jobs waiting, time average"},
};

/* Job rows gather here, an array per column, and go to /jobs JOB_BATCH at a
 * time through one sim__h5t_append (a memcpy per column) instead of 22
 * checked puts and a row_end each: a tenth of a second on a million jobs.
 * 1024 rows x 134 bytes; a divisor of SIM__H5_CHUNK_ROWS, so a full batch
 * never straddles a chunk. */
#define JOB_BATCH 1024u
typedef struct job_batch {
    int64_t id[JOB_BATCH], trace_id[JOB_BATCH], first_node[JOB_BATCH];
    int32_t cls[JOB_BATCH], tenant[JOB_BATCH], gpus[JOB_BATCH], gpu_milli[JOB_BATCH];
    int32_t gpu_type[JOB_BATCH], n_nodes[JOB_BATCH], interruptions[JOB_BATCH];
    uint8_t state[JOB_BATCH], reject[JOB_BATCH];
    double submit_s[JOB_BATCH], start_s[JOB_BATCH], end_s[JOB_BATCH], wait_s[JOB_BATCH];
    double run_s[JOB_BATCH], deadline_s[JOB_BATCH], busy[JOB_BATCH], lost[JOB_BATCH];
    double alloc[JOB_BATCH], value[JOB_BATCH], work[JOB_BATCH];
    size_t n; /* rows held */
} job_batch;

struct sim_report {
    const sim_scenario *sc;
    sim__h5w *w;
    sim__h5t *jobs, *ts;
    job_batch *jb; /* rows of /jobs not yet appended */
    sim_jobs_table jobs_mode;
    sim__jobsum *jsum;                         /* --jobs summary: the shapes so far */
    sim__h5t **pool_ts, **type_ts, **class_ts; /* NULL entries for types not in the fleet */
    sim__h5t **svc_ts;
    char block_names[SIM_BLOCK_COUNT][48], block_desc[SIM_BLOCK_COUNT][160];
    sim_sink sink;
};
typedef struct sim_report report;

static double us_to_s(int64_t us)
{
    return us < 0 ? NAN : (double)us / SIM_US_PER_S;
}

/* Append the batched job rows to /jobs. */
static int jobs_flush(report *rp, tm_diag *diag)
{
    job_batch *b = rp->jb;
    if (!b || !b->n)
        return TM_OK;
    const void *cols[J_NCOLS] = {
        [J_ID] = b->id,
        [J_TRACE_ID] = b->trace_id,
        [J_CLASS] = b->cls,
        [J_TENANT] = b->tenant,
        [J_STATE] = b->state,
        [J_REJECT] = b->reject,
        [J_GPUS] = b->gpus,
        [J_GPU_MILLI] = b->gpu_milli,
        [J_GPU_TYPE] = b->gpu_type,
        [J_FIRST_NODE] = b->first_node,
        [J_N_NODES] = b->n_nodes,
        [J_INTERRUPTIONS] = b->interruptions,
        [J_SUBMIT] = b->submit_s,
        [J_START] = b->start_s,
        [J_END] = b->end_s,
        [J_WAIT] = b->wait_s,
        [J_RUN] = b->run_s,
        [J_DEADLINE] = b->deadline_s,
        [J_BUSY] = b->busy,
        [J_LOST] = b->lost,
        [J_ALLOC] = b->alloc,
        [J_VALUE] = b->value,
        [J_WORK] = b->work,
    };
    size_t n = b->n;
    b->n = 0;
    return sim__h5t_append(rp->jobs, cols, n, diag);
}

static int sink_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    report *rp = ud;
    job_batch *b = rp->jb;
    size_t i = b->n;
    b->id[i] = (int64_t)r->id;
    b->trace_id[i] = (int64_t)r->trace_id;
    b->cls[i] = (int32_t)r->cls;
    b->tenant[i] = (int32_t)r->tenant;
    b->state[i] = (uint8_t)r->state;
    b->reject[i] = (uint8_t)r->reject_reason;
    b->gpus[i] = (int32_t)r->gpus;
    b->gpu_milli[i] = (int32_t)r->gpu_milli;
    b->gpu_type[i] = r->gpu_type;
    b->first_node[i] = r->first_node == PLACE_NONE ? -1 : (int64_t)r->first_node;
    b->n_nodes[i] = (int32_t)r->n_nodes;
    b->interruptions[i] = (int32_t)r->interruptions;
    b->submit_s[i] = us_to_s(r->submit_us);
    b->start_s[i] = us_to_s(r->start_us);
    b->end_s[i] = us_to_s(r->end_us);
    b->wait_s[i] = us_to_s(r->wait_us);
    b->run_s[i] = us_to_s(r->run_us);
    b->deadline_s[i] = us_to_s(r->deadline_us);
    b->busy[i] = r->busy_gpu_s;
    b->lost[i] = r->lost_gpu_s;
    b->alloc[i] = r->alloc_gpu_s;
    b->value[i] = r->value;
    b->work[i] = r->work_ref_gpu_s;
    b->n = i + 1;
    return b->n == JOB_BATCH ? jobs_flush(rp, diag) : TM_OK;
}

static int sink_jobsum(void *ud, const sim_job_row *r, tm_diag *diag)
{
    report *rp = ud;
    return sim__jobsum_add(rp->jsum, r, diag);
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

static int sink_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    report *rp = ud;
    const sim_scenario *sc = rp->sc;
    const double *a = b->avg;
    const double k = PLACE_MILLI_WHOLE;
    double w = (double)(b->t1_us - b->t0_us) / SIM_US_PER_S;
    double up = a[SIM_LV_UP] / k, alloc = a[SIM_LV_ALLOC] / k, busy = a[SIM_LV_BUSY] / k;
    double good = busy - (w > 0 ? b->lost_gpu_s / w : 0.0);
    sim__h5t *t = rp->ts;
    sim__h5t_put_f64(t, T_T0, us_to_s(b->t0_us));
    sim__h5t_put_f64(t, T_T1, us_to_s(b->t1_us));
    sim__h5t_put_f64(t, T_UP, up);
    sim__h5t_put_f64(t, T_ALLOC, alloc);
    sim__h5t_put_f64(t, T_BUSY, busy);
    sim__h5t_put_f64(t, T_GOOD, good);
    sim__h5t_put_f64(t, T_UTIL, ratio(alloc, up));
    sim__h5t_put_f64(t, T_BUSY_UTIL, ratio(busy, up));
    sim__h5t_put_f64(t, T_GOOD_UTIL, ratio(good, up));
    sim__h5t_put_f64(t, T_QUEUE, a[SIM_LV_QUEUE]);
    sim__h5t_put_f64(t, T_RUNNING, a[SIM_LV_RUNNING]);
    sim__h5t_put_i64(t, T_ARRIVALS, (int64_t)b->arrivals);
    sim__h5t_put_i64(t, T_STARTS, (int64_t)b->starts);
    sim__h5t_put_i64(t, T_COMPLETIONS, (int64_t)b->completions);
    sim__h5t_put_i64(t, T_PREEMPTIONS, (int64_t)b->preemptions);
    sim__h5t_put_i64(t, T_FAILURES, (int64_t)b->failures);
    sim__h5t_put_f64(t, T_LOST, b->lost_gpu_s / 3600);
    for (int r = 0; r < SIM_BLOCK_COUNT; r++)
        sim__h5t_put_f64(t, (size_t)(T_BLOCKED + r), a[SIM_LV_BLOCKED + r] / k);
    double owned = a[SIM_LV_OWNED] / k;
    double work = a[SIM_LV_WORK] / SIM_WORK_SCALE - (w > 0 ? b->lost_work_ref_gpu_s / w : 0.0);
    double vwork =
        a[SIM_LV_VALUE_WORK] / SIM_WORK_SCALE - (w > 0 ? b->lost_value_work_ref_gpu_s / w : 0.0);
    sim__h5t_put_f64(t, T_OWNED, owned);
    sim__h5t_put_f64(t, T_WORK, work);
    sim__h5t_put_f64(t, T_VALUE_WORK, vwork);
    sim__h5t_put_f64(t, T_WORK_UTIL, ratio(work, owned));
    sim__h5t_put_f64(t, T_VALUE_UTIL, ratio(vwork, owned));
    int rc = sim__h5t_row_end(t, diag);
    for (size_t p = 0; rc == TM_OK && p < sc->n_pools; p++) {
        for (int i = 0; i < 3; i++)
            sim__h5t_put_f64(rp->pool_ts[p], (size_t)i, a[sim_level_pool(sc, p, i)] / k);
        rc = sim__h5t_row_end(rp->pool_ts[p], diag);
    }
    for (size_t ty = 0; rc == TM_OK && ty < sc->n_types; ty++) {
        if (!rp->type_ts[ty])
            continue;
        for (int i = 0; i < 3; i++)
            sim__h5t_put_f64(rp->type_ts[ty], (size_t)i, a[sim_level_type(sc, ty, i)] / k);
        rc = sim__h5t_row_end(rp->type_ts[ty], diag);
    }
    for (size_t c = 0; rc == TM_OK && c < sc->n_classes; c++) {
        sim__h5t_put_f64(rp->class_ts[c], 0, a[sim_level_class(sc, c, SIM_LV_C_ALLOC)] / k);
        sim__h5t_put_f64(rp->class_ts[c], 1, a[sim_level_class(sc, c, SIM_LV_C_QUEUE)]);
        rc = sim__h5t_row_end(rp->class_ts[c], diag);
    }
    for (size_t v = 0; rc == TM_OK && v < sc->n_services; v++) {
        sim__h5t *t2 = rp->svc_ts[v];
        const double r = SIM_RATE_SCALE;
        double off = a[sim_level_service(sc, v, SIM_LV_S_OFFERED)] / r;
        double ok = a[sim_level_service(sc, v, SIM_LV_S_SLO_OK)] / r;
        double api = a[sim_level_service(sc, v, SIM_LV_S_API)] / r;
        sim__h5t_put_f64(t2, V_READY, a[sim_level_service(sc, v, SIM_LV_S_READY)]);
        sim__h5t_put_f64(t2, V_LOADING, a[sim_level_service(sc, v, SIM_LV_S_LOADING)]);
        sim__h5t_put_f64(t2, V_ALLOC, a[sim_level_service(sc, v, SIM_LV_S_ALLOC)] / k);
        sim__h5t_put_f64(t2, V_BUSY, a[sim_level_service(sc, v, SIM_LV_S_BUSY)] / k);
        sim__h5t_put_f64(t2, V_OFFERED, off);
        sim__h5t_put_f64(t2, V_SLO_OK, ok);
        sim__h5t_put_f64(t2, V_LATE, a[sim_level_service(sc, v, SIM_LV_S_LATE)] / r);
        sim__h5t_put_f64(t2, V_UNSERVED, a[sim_level_service(sc, v, SIM_LV_S_UNSERVED)] / r);
        sim__h5t_put_f64(t2, V_API, api);
        sim__h5t_put_f64(t2, V_ATTAIN, off - api > 0 ? ok / (off - api) : NAN);
        rc = sim__h5t_row_end(t2, diag);
    }
    return rc;
}

int sim__fleet_has_type(const sim_scenario *sc, size_t t)
{
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].type == t && sc->pools[p].nodes > 0)
            return 1;
    return 0;
}

/* The dimension of every time-series table: `t`, the bins' starts (a copy
 * of /timeseries/t_s, so that each table opens alone with its times). */
static int series_dim(sim__h5t *t, tm_diag *diag)
{
    return sim__h5t_dim(t, "t", "/timeseries/t_s",
                        "start of the bin, seconds since the start of the run (as "
                        "/timeseries/t_s)",
                        diag);
}

/* The time-series tables: totals, then one per pool, fleet GPU type and class. */
static int create_series(report *rp, tm_diag *diag)
{
    const sim_scenario *sc = rp->sc;
    sim__h5_col cols[T_NCOLS];
    memcpy(cols, ts_fixed_cols, sizeof ts_fixed_cols);
    for (int r = 0; r < SIM_BLOCK_COUNT; r++) {
        snprintf(rp->block_names[r], sizeof rp->block_names[r], "blocked_%s",
                 sim_block_reason_key(r));
        snprintf(rp->block_desc[r], sizeof rp->block_desc[r],
                 "GPUs idle while jobs wait, shape-blocked: %s", sim_block_reason_str(r));
        cols[T_BLOCKED + r] =
            (sim__h5_col){rp->block_names[r], SIM__H5_F64, "GPU", rp->block_desc[r]};
    }
    memcpy(cols + T_OWNED, ts_work_cols, sizeof ts_work_cols);
    int rc =
        sim__h5t_create(&rp->ts, rp->w, "/timeseries",
                        "fixed-width bins of the fleet's state over time", cols, T_NCOLS, diag);
    if (rc || (rc = series_dim(rp->ts, diag)))
        return rc;
    rp->pool_ts = calloc(sc->n_pools ? sc->n_pools : 1, sizeof *rp->pool_ts);
    rp->type_ts = calloc(sc->n_types ? sc->n_types : 1, sizeof *rp->type_ts);
    rp->class_ts = calloc(sc->n_classes ? sc->n_classes : 1, sizeof *rp->class_ts);
    rp->svc_ts = calloc(sc->n_services ? sc->n_services : 1, sizeof *rp->svc_ts);
    if (!rp->pool_ts || !rp->type_ts || !rp->class_ts || !rp->svc_ts)
        return tm_diag_set(diag, TM_ERR_NOMEM, "report", "out of memory");
    char path[160];
    for (size_t p = 0; p < sc->n_pools; p++) {
        snprintf(path, sizeof path, "/timeseries_pool/%s", sc->pools[p].name);
        if ((rc = sim__h5t_create(&rp->pool_ts[p], rp->w, path,
                                  "the pool's GPUs over time, bins as /timeseries", fleet_cols, 3,
                                  diag)) ||
            (rc = series_dim(rp->pool_ts[p], diag)))
            return rc;
    }
    for (size_t t = 0; t < sc->n_types; t++) {
        if (!sim__fleet_has_type(sc, t))
            continue;
        snprintf(path, sizeof path, "/timeseries_type/%s", sc->types[t].name);
        if ((rc = sim__h5t_create(&rp->type_ts[t], rp->w, path,
                                  "the GPU type's GPUs over time, bins as /timeseries", fleet_cols,
                                  3, diag)) ||
            (rc = series_dim(rp->type_ts[t], diag)))
            return rc;
    }
    for (size_t c = 0; c < sc->n_classes; c++) {
        snprintf(path, sizeof path, "/timeseries_class/%s", sc->classes[c].name);
        if ((rc = sim__h5t_create(&rp->class_ts[c], rp->w, path,
                                  "the class's GPUs and queue over time, bins as /timeseries",
                                  class_cols, 2, diag)) ||
            (rc = series_dim(rp->class_ts[c], diag)))
            return rc;
    }
    for (size_t v = 0; v < sc->n_services; v++) {
        snprintf(path, sizeof path, "/timeseries_service/%s", sc->services[v].cfg.name);
        if ((rc = sim__h5t_create(&rp->svc_ts[v], rp->w, path,
                                  "the service's replicas and requests over time, bins as "
                                  "/timeseries",
                                  service_cols, V_NCOLS, diag)) ||
            (rc = series_dim(rp->svc_ts[v], diag)))
            return rc;
    }
    return TM_OK;
}

/* A list of labels: the attribute `labels` (joined by newlines; readers
 * split on "\n") and the string dataset `<obj>_name`, whole (h5io). */
static int attr_labels(sim__h5w *w, const char *obj, const char *const *labels, size_t n,
                       tm_diag *diag)
{
    return sim__h5w_labels(w, obj, labels, n, diag);
}

static int write_labels(report *rp, const sim_scenario *sc, tm_diag *diag)
{
    size_t cap = sc->n_classes;
    if (sc->n_tenants > cap)
        cap = sc->n_tenants;
    if (sc->n_types > cap)
        cap = sc->n_types;
    const char **names = malloc((cap ? cap : 1) * sizeof *names);
    int rc;
    if (!names)
        return tm_diag_set(diag, TM_ERR_NOMEM, "report", "out of memory");
    size_t n = sc->n_classes;
    for (size_t c = 0; c < n; c++)
        names[c] = sc->classes[c].name;
    if (rp->jobs_mode != SIM_JOBS_FULL) {
        rc = rp->jsum ? sim__jobsum_write(rp->jsum, rp->w, sc, diag) : TM_OK;
        goto out;
    }
    if ((rc = attr_labels(rp->w, "/jobs/class", names, n, diag)))
        goto out;
    static const char *const states[] = {"queued", "running", "completed", "rejected", "failed"};
    if ((rc = attr_labels(rp->w, "/jobs/state", states, 5, diag)))
        goto out;
    size_t nt = sc->n_tenants;
    for (size_t k = 0; k < nt; k++)
        names[k] = sc->tenants[k];
    if ((rc = attr_labels(rp->w, "/jobs/tenant", names, nt, diag)))
        goto out;
    const char *reasons[8];
    for (int k = 0; k <= SIM_REJECT_TOTAL; k++)
        reasons[k] = sim_reject_reason_str(k);
    if ((rc = attr_labels(rp->w, "/jobs/reject_reason", reasons, SIM_REJECT_TOTAL + 1, diag)))
        goto out;
    for (size_t t = 0; t < sc->n_types; t++)
        names[t] = sc->types[t].name;
    rc = attr_labels(rp->w, "/jobs/gpu_type", names, sc->n_types, diag);
out:
    free(names);
    return rc;
}

#define N_(a) (sizeof(a) / sizeof((a)[0]))

/* The figures f[0..n) into out (room for SIM__FIGS_MAX); n. */
#define FIGS_RETURN(out, f)                                                                        \
    do {                                                                                           \
        _Static_assert(N_(f) <= SIM__FIGS_MAX, "SIM__FIGS_MAX is too small");                      \
        memcpy((out), (f), sizeof(f));                                                             \
        return N_(f);                                                                              \
    } while (0)

/* Scalars under `group`, from a table of figures. */
static int write_scalars(sim__h5w *w, const char *group, const sim__fig *f, size_t n, tm_diag *diag)
{
    char p[256];
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", group, f[i].name);
        int rc = strcmp(f[i].units, "count") == 0
                     ? sim__h5w_scalar_i64(w, p, (int64_t)f[i].v, "1", f[i].desc, diag)
                     : sim__h5w_scalar_f64(w, p, f[i].v, f[i].units, f[i].desc, diag);
        if (rc)
            return rc;
    }
    return TM_OK;
}

/* One metric under `group`: an integer dataset of units "1" for a count,
 * a float64 otherwise. */
static int write_metric(sim__h5w *w, const char *group, const sim_metric_desc *m, double v,
                        tm_diag *diag)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", group, m->name);
    return strcmp(m->units, "count") == 0
               ? sim__h5w_scalar_i64(w, p, (int64_t)v, "1", m->desc, diag)
               : sim__h5w_scalar_f64(w, p, v, m->units, m->desc, diag);
}

/* The metrics of one class (or of all) under `group`, from the metric table
 * (model.h, SIM_CLASS_METRICS). */
static int write_class(sim__h5w *w, const char *group, const sim_class_result *c, tm_diag *diag)
{
    for (int m = 0; m < SIM_CLASS_METRIC_COUNT; m++) {
        int rc =
            write_metric(w, group, &sim_class_metric_info[m], sim_class_metric_value(c, m), diag);
        if (rc)
            return rc;
    }
    return TM_OK;
}

size_t sim__figs_class_special(const sim_class_result *c, sim__fig *out)
{
    if (isnan(c->special.at_s))
        return 0;
    const sim__fig f[] = {
        {"at_s", c->special.at_s, "s", "the switch to the specialized shape"},
        {"jobs", (double)c->special.jobs, "count",
         "the class's jobs that arrived from the switch on"},
        {"old_gpu_hours", c->special.old_gpu_h, "GPU h",
         "those jobs x the old shape's expected reference GPU-hours per job"},
        {"new_gpu_hours", c->special.new_gpu_h, "GPU h",
         "those jobs x the new shape's expected reference GPU-hours per job"},
        {"freed_gpu_hours", c->special.freed_gpu_h, "GPU h", "old - new, or 0"},
        {"class_gpu_hours", c->special.class_gpu_h, "GPU h",
         "GPU-hours the class held from the switch to the end of the run"},
        {"others_gpu_hours", c->special.others_gpu_h, "GPU h",
         "GPU-hours everything else held in that window"},
        {"capacity_gpu_hours", c->special.capacity_gpu_h, "GPU h",
         "GPU-hours in service in that window"},
        {"reclaimed_gpu_hours", c->special.reclaimed_gpu_h, "GPU h",
         "GPU-hours other work held beyond capacity - old: freed capacity other work used "
         "(at most freed_gpu_hours)"},
    };
    FIGS_RETURN(out, f);
}

size_t sim__figs_service_special(const sim_service_result *v, sim__fig *out)
{
    if (isnan(v->special_at_s))
        return 0;
    const sim_service_special *p = &v->special;
    const sim__fig f[] = {
        {"at_s", v->special_at_s, "s", "the switch to the specialized model"},
        {"old_gpu_hours", p->old_gpu_h, "GPU h",
         "GPU-hours the old model's replicas would have needed for the load from the switch on"},
        {"new_gpu_hours", p->new_gpu_h, "GPU h",
         "GPU-hours the new model's replicas need for the same load"},
        {"freed_gpu_hours", p->freed_gpu_h, "GPU h", "old - new, or 0"},
        {"service_gpu_hours", p->service_gpu_h, "GPU h",
         "GPU-hours the service's replicas held from the switch to the end of the run"},
        {"others_gpu_hours", p->others_gpu_h, "GPU h",
         "GPU-hours everything else held in that window"},
        {"capacity_gpu_hours", p->capacity_gpu_h, "GPU h", "GPU-hours in service in that window"},
        {"reclaimed_gpu_hours", p->reclaimed_gpu_h, "GPU h",
         "GPU-hours other work held beyond capacity - old: freed capacity other work used "
         "(at most freed_gpu_hours)"},
    };
    FIGS_RETURN(out, f);
}

size_t sim__figs_gpu_time(const sim_gpu_time *g, sim__fig *out)
{
    const sim__fig f[] = {
        {"gpu_hours_up", g->up / 3600, "GPU h", "GPU-hours in service"},
        {"gpu_hours_alloc", g->alloc / 3600, "GPU h", "GPU-hours allocated"},
        {"gpu_hours_busy", g->busy / 3600, "GPU h", "GPU-hours doing work"},
        {"alloc_util", ratio(g->alloc, g->up), "1", "allocated / in service"},
        {"busy_util", ratio(g->busy, g->up), "1", "busy / in service"},
        {"gpu_hours_owned", g->owned / 3600, "GPU h", "its GPUs x the run's length"},
        {"work_ref_gpu_hours", g->work_ref / 3600, "GPU h",
         "useful work done on it, reference GPU-hours (jobs and replicas)"},
        {"work_util", ratio(g->work_ref, g->owned), "1",
         "useful reference GPU-hours / GPU-hours owned"},
    };
    FIGS_RETURN(out, f);
}

size_t sim__figs_service(const sim_service_result *v, sim__fig *out)
{
    const sim__fig f[] = {
        {"requests_demanded", v->req_demanded, "1", "requests offered over the run"},
        {"requests_slo_ok", v->req_slo_ok, "1", "requests served within the SLO"},
        {"requests_late", v->req_late, "1", "requests served late (SLO missed)"},
        {"requests_unserved", v->req_unserved, "1", "requests beyond the replicas' throughput"},
        {"requests_api", v->req_api, "1", "requests sent to the API"},
        {"tokens_in_demanded", v->tok_in_demanded, "1", "prompt tokens offered"},
        {"tokens_out_demanded", v->tok_out_demanded, "1", "output tokens offered"},
        {"tokens_in_owned", v->tok_in_owned, "1", "prompt tokens served on owned replicas"},
        {"tokens_out_owned", v->tok_out_owned, "1", "output tokens served on owned replicas"},
        {"tokens_in_api", v->tok_in_api, "1", "prompt tokens sent to the API"},
        {"tokens_out_api", v->tok_out_api, "1", "output tokens sent to the API"},
        {"slo_attainment", v->attainment, "1",
         "requests within the SLO / requests kept on owned replicas"},
        {"api_usd", v->api_usd, "USD", "the API tokens at the service's API price"},
        {"replica_hours_ready", v->replica_hours_ready, "h", "replica-hours serving"},
        {"replica_hours_loading", v->replica_hours_loading, "h",
         "replica-hours placed but loading the model"},
        {"gpu_hours_alloc", v->gpu_hours_alloc, "GPU h", "GPU-hours held by the replicas"},
        {"gpu_hours_busy", v->gpu_hours_busy, "GPU h", "GPU-hours busy serving"},
        {"replicas_ready_mean", v->ready_mean, "1", "time-average replicas serving"},
        {"replicas_ready_max", (double)v->ready_max, "count", "most replicas serving at once"},
        {"replicas_started", (double)v->replicas_started, "count", "replicas placed"},
        {"replicas_lost", (double)v->replicas_lost, "count",
         "replicas lost to GPU failures or preemption"},
        {"specialized_at_s", v->special_at_s, "s", "time of the switch to the specialized model"},
        {"gpus_before", v->gpus_before, "GPU", "mean GPUs of the service before the switch"},
        {"gpus_after", v->gpus_after, "GPU", "mean GPUs of the service after the switch"},
        {"others_gpus_before", v->others_before, "GPU",
         "mean GPUs allocated to everything else before the switch"},
        {"others_gpus_after", v->others_after, "GPU",
         "mean GPUs allocated to everything else after it (docs/output.md: descriptive)"},
        {"work_ref_gpu_hours", v->work_ref_gpu_hours, "GPU h",
         "useful work: busy GPU-hours x the replicas' throughput over the reference type's"},
    };
    FIGS_RETURN(out, f);
}

/* A group's figures (sim__figs_*) under `group`, and its specialization
 * figures (none when nothing was specialized) under `group`/specialization. */
static int write_figs(sim__h5w *w, const char *group, const sim__fig *f, size_t n,
                      const sim__fig *spec, size_t n_spec, tm_diag *diag)
{
    int rc = write_scalars(w, group, f, n, diag);
    if (rc == TM_OK && n_spec > 0) {
        char g[200];
        snprintf(g, sizeof g, "%s/specialization", group);
        rc = write_scalars(w, g, spec, n_spec, diag);
    }
    return rc;
}

static int write_gpu_time(sim__h5w *w, const char *group, const sim_gpu_time *g, tm_diag *diag)
{
    sim__fig f[SIM__FIGS_MAX];
    return write_figs(w, group, f, sim__figs_gpu_time(g, f), NULL, 0, diag);
}

static int write_service(sim__h5w *w, const char *group, const sim_service_spec *spec,
                         const sim_service_result *v, tm_diag *diag)
{
    sim__fig f[SIM__FIGS_MAX], sp[SIM__FIGS_MAX];
    int rc = write_figs(w, group, f, sim__figs_service(v, f), sp, sim__figs_service_special(v, sp),
                        diag);
    /* the SLO as attributes, so a reader (the services plot) needs no JSON */
    if (rc == TM_OK &&
        (rc = sim__h5w_attr_str(w, group, "model", spec->cfg.model, diag)) == TM_OK &&
        (rc = sim__h5w_attr_f64(w, group, "slo_s", spec->cfg.slo_s, diag)) == TM_OK &&
        (rc = sim__h5w_attr_f64(w, group, "slo_target", spec->cfg.slo_target, diag)) == TM_OK)
        rc = sim__h5w_attr_str(w, group, "slo_kind",
                               spec->cfg.slo_kind == SIM__SVC_SLO_WAIT ? "wait" : "response", diag);
    return rc;
}

/* /tenants: one row per tenant of the scenario, and a last row for
 * jobs whose tenant index is beyond them (a trace's own ids). */
static int write_tenants(sim__h5w *w, const sim_scenario *sc, const sim_result *r, tm_diag *diag)
{
    size_t n = r->n_tenants + 1;
    int32_t *idx = malloc(n * sizeof *idx);
    int64_t *arr = malloc(n * sizeof *arr), *done = malloc(n * sizeof *done);
    double *alloc = malloc(n * sizeof *alloc), *work = malloc(n * sizeof *work);
    double *vwork = malloc(n * sizeof *vwork);
    int64_t *started = malloc(n * sizeof *started);
    double *wmean = malloc(n * sizeof *wmean), *w50 = malloc(n * sizeof *w50);
    double *w95 = malloc(n * sizeof *w95);
    const char **names = malloc(n * sizeof *names);
    int rc = TM_OK;
    if (!idx || !arr || !done || !alloc || !work || !vwork || !started || !wmean || !w50 || !w95 ||
        !names) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "report", "out of memory");
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        const sim_tenant_result *t = &r->tenants[k];
        idx[k] = (int32_t)k;
        names[k] = k < r->n_tenants && k < sc->n_tenants ? sc->tenants[k] : "(other)";
        arr[k] = (int64_t)t->arrived;
        done[k] = (int64_t)t->completed;
        alloc[k] = t->gpu_s_alloc / 3600;
        work[k] = t->work_ref_gpu_s / 3600;
        vwork[k] = t->value_work_ref_gpu_s / 3600;
        started[k] = (int64_t)t->started;
        wmean[k] = t->started ? t->wait_mean_s : NAN;
        w50[k] = t->started ? t->wait_p50_s : NAN;
        w95[k] = t->started ? t->wait_p95_s : NAN;
    }
    static const sim__h5_col cols[10] = {
        {"tenant", SIM__H5_I32, "1",
         "tenant index (attribute 'labels'); the last row: every tenant index from the number of "
         "the scenario's tenants on (a trace's own ids)"},
        {"jobs_arrived", SIM__H5_I64, "1", "its jobs that arrived"},
        {"jobs_completed", SIM__H5_I64, "1", "its jobs that completed"},
        {"gpu_hours_alloc", SIM__H5_F64, "GPU h", "GPU-hours its jobs held"},
        {"work_ref_gpu_hours", SIM__H5_F64, "GPU h",
         "useful work of its jobs, reference GPU-hours"},
        {"value_work_ref_gpu_hours", SIM__H5_F64, "GPU h", "the same weighted by job value"},
        {"jobs_started", SIM__H5_I64, "1", "its jobs that started"},
        {"wait_mean_s", SIM__H5_F64, "s", "mean wait of its jobs that started (NaN: none)"},
        {"wait_p50_s", SIM__H5_F64, "s", "median wait of those jobs (0.4 % relative error)"},
        {"wait_p95_s", SIM__H5_F64, "s", "95th percentile wait of those jobs"},
    };
    const void *cv[10] = {idx, arr, done, alloc, work, vwork, started, wmean, w50, w95};
    sim__h5t *t = NULL;
    if ((rc =
             sim__h5t_create(&t, w, "/tenants", "batch jobs' totals per tenant", cols, 10, diag)) ||
        (rc = sim__h5t_dim(t, "tenant_name", NULL, "the tenants, one per row", diag)) ||
        (rc = sim__h5t_append(t, cv, n, diag)) || (rc = sim__h5t_close(t, diag)))
        goto out;
    rc = attr_labels(w, "/tenants/tenant", names, n, diag);
out:
    free(idx);
    free(arr);
    free(done);
    free(alloc);
    free(work);
    free(vwork);
    free(started);
    free(wmean);
    free(w50);
    free(w95);
    free(names);
    return rc;
}

static int write_summary(report *rp, const sim_scenario *sc, const sim_result *r, tm_diag *diag)
{
    sim__h5w *w = rp->w;
    int rc;
    if ((rc = write_class(w, "/summary", &r->classes[r->n_classes], diag)))
        return rc;
    for (int m = 0; m < SIM_RUN_METRIC_COUNT; m++)
        if ((rc = write_metric(w, "/summary", &sim_run_metric_info[m], sim_run_metric_value(r, m),
                               diag)))
            return rc;
    for (int k = 0; k < SIM_BLOCK_COUNT; k++) {
        char p[128], d[256];
        snprintf(p, sizeof p, "/summary/shape_blocked/%s_gpu_hours", sim_block_reason_key(k));
        snprintf(d, sizeof d, "GPU-hours idle while jobs waited: %s", sim_block_reason_str(k));
        if ((rc = sim__h5w_scalar_f64(w, p, r->gpu_s_blocked[k] / 3600, "GPU h", d, diag)))
            return rc;
    }
    char g[160];
    for (size_t c = 0; c < sc->n_classes; c++) {
        snprintf(g, sizeof g, "/summary/classes/%s", sc->classes[c].name);
        sim__fig sp[SIM__FIGS_MAX];
        if ((rc = write_class(w, g, &r->classes[c], diag)) ||
            (rc = write_figs(w, g, NULL, 0, sp, sim__figs_class_special(&r->classes[c], sp),
                             diag)) ||
            (rc = sim__h5w_attr_i64(w, g, "index", (int64_t)c, diag)) ||
            (rc = sim__h5w_attr_str(w, g, "kind", sim_kind_name((int)sc->classes[c].kind), diag)))
            return rc;
    }
    for (size_t v = 0; v < sc->n_services; v++) {
        snprintf(g, sizeof g, "/summary/services/%s", sc->services[v].cfg.name);
        if ((rc = write_service(w, g, &sc->services[v], &r->services[v], diag)))
            return rc;
    }
    for (size_t p = 0; p < sc->n_pools; p++) {
        snprintf(g, sizeof g, "/summary/pools/%s", sc->pools[p].name);
        if ((rc = write_gpu_time(w, g, &r->pools[p], diag)))
            return rc;
    }
    for (size_t t = 0; t < sc->n_types; t++) {
        if (!sim__fleet_has_type(sc, t))
            continue;
        snprintf(g, sizeof g, "/summary/types/%s", sc->types[t].name);
        if ((rc = write_gpu_time(w, g, &r->types[t], diag)))
            return rc;
    }
    return write_tenants(w, sc, r, diag);
}

static void report_free(report *rp)
{
    free(rp->jb);
    sim__jobsum_free(rp->jsum);
    free(rp->pool_ts);
    free(rp->type_ts);
    free(rp->class_ts);
    free(rp->svc_ts);
}

const char *sim_jobs_table_name(sim_jobs_table t)
{
    return t == SIM_JOBS_NONE ? "none" : t == SIM_JOBS_SUMMARY ? "summary" : "full";
}

int sim_jobs_table_parse(const char *s, sim_jobs_table *out)
{
    static const sim_jobs_table all[] = {SIM_JOBS_FULL, SIM_JOBS_SUMMARY, SIM_JOBS_NONE};
    for (size_t i = 0; s && i < N_(all); i++)
        if (strcmp(s, sim_jobs_table_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

int sim_report_open(sim_report **out, const sim_scenario *sc, const char *path, tm_diag *diag)
{
    return sim_report_open_jobs(out, sc, path, SIM_JOBS_FULL, diag);
}

int sim_report_open_jobs(sim_report **out, const sim_scenario *sc, const char *path,
                         sim_jobs_table jobs, tm_diag *diag)
{
    *out = NULL;
    report *rp = calloc(1, sizeof *rp);
    if (!rp)
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    rp->sc = sc;
    rp->jobs_mode = jobs;
    if (jobs == SIM_JOBS_FULL) {
        if (!(rp->jb = malloc(sizeof *rp->jb))) {
            free(rp);
            return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        }
        rp->jb->n = 0;
    } else if (jobs == SIM_JOBS_SUMMARY && sim__jobsum_new(&rp->jsum) != TM_OK) {
        free(rp);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    int rc = sim__h5w_open(&rp->w, path, diag);
    if (rc != TM_OK) {
        report_free(rp);
        free(rp);
        return rc;
    }
    if ((rc = sim__h5w_attr_i64(rp->w, "/", "schema_version", SIM_OUTPUT_SCHEMA, diag)) ||
        (rc = sim__h5w_attr_str(rp->w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(rp->w, "/", "layout", "docs/output.md", diag)) ||
        (jobs != SIM_JOBS_FULL &&
         (rc = sim__h5w_attr_str(rp->w, "/", "jobs_table", sim_jobs_table_name(jobs), diag))) ||
        (jobs == SIM_JOBS_FULL &&
         ((rc = sim__h5t_create(&rp->jobs, rp->w, "/jobs", "one row per job (finished or not)",
                                job_cols, J_NCOLS, diag)) ||
          (rc = sim__h5t_dim(rp->jobs, "job", NULL, "the jobs, one per row of /jobs (no values)",
                             diag)))) ||
        (rc = create_series(rp, diag))) {
        sim_report_abort(rp);
        return rc;
    }
    rp->sink.job = jobs == SIM_JOBS_FULL ? sink_job : jobs == SIM_JOBS_SUMMARY ? sink_jobsum : NULL;
    rp->sink.bin = sink_bin;
    rp->sink.ud = rp;
    *out = rp;
    return TM_OK;
}

const sim_sink *sim_report_sink(sim_report *rp)
{
    return &rp->sink;
}

int sim_report_commit(sim_report *rp, const sim_run_opts *opts, const sim_result *res,
                      const sim__cost_report *cost, tm_diag *diag)
{
    const sim_scenario *sc = rp->sc;
    const sim__provenance_extra prov = {.run = 1, .replication = opts ? opts->replication : 0};
    int rc;
    /* a signal from here on keeps the file from its name (the run watched it) */
    sim__h5w_set_stop(rp->w, opts ? opts->stop_flag : NULL);
    if ((rc = jobs_flush(rp, diag)) || (rc = write_labels(rp, sc, diag)) ||
        (rc = write_summary(rp, sc, res, diag)) ||
        (rc = sim__ledger_write_h5(rp->w, sc, res, diag)) ||
        (rc = sim__provenance_write(rp->w, sc, &prov, diag)) ||
        (rc = sim__cost_write_h5(rp->w, sc, res, cost, diag))) {
        sim_report_abort(rp);
        return rc;
    }
    rc = sim__h5w_commit(rp->w, diag);
    report_free(rp);
    free(rp);
    return rc;
}

void sim_report_abort(sim_report *rp)
{
    if (!rp)
        return;
    sim__h5w_abort(rp->w);
    report_free(rp);
    free(rp);
}
