/*
 * report.c — a run's results as an HDF5 file (layout: docs/output.md).
 *
 * The report is a sim_sink: job rows and time-series bins go straight into
 * the /jobs and /timeseries tables as the engine produces them, so memory
 * stays constant in the number of jobs. After the run, the summary and the
 * provenance are written and the file is committed: it appears under its
 * final name only when complete (h5io writes a temporary file and renames it).
 * Times are float64 seconds; every dataset carries units and a description.
 */
#include "sim.h"

#include "h5io_int.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bumped whenever the layout changes incompatibly; docs/output.md tracks it. */
#define SIM_OUTPUT_SCHEMA 1

enum {
    J_ID,
    J_TRACE_ID,
    J_CLASS,
    J_STATE,
    J_REJECT,
    J_GPUS,
    J_GPU_MILLI,
    J_GPU_TYPE,
    J_FIRST_NODE,
    J_N_NODES,
    J_SUBMIT,
    J_START,
    J_END,
    J_WAIT,
    J_RUN,
    J_NCOLS
};

static const sim__h5_col job_cols[J_NCOLS] = {
    {"id", SIM__H5_I64, "1", "job number in arrival order, from 1"},
    {"trace_id", SIM__H5_I64, "1", "the job's id in its source (trace or synthesizer)"},
    {"class", SIM__H5_I32, "1", "workload class index (labels: attribute 'labels')"},
    {"state", SIM__H5_U8, "1",
     "state at the end: 0 queued, 1 running, 2 completed, 3 rejected (attribute 'labels')"},
    {"reject_reason", SIM__H5_U8, "1", "why a rejected job can never run (attribute 'labels')"},
    {"gpus", SIM__H5_I32, "GPU", "GPUs requested (gang size)"},
    {"gpu_milli", SIM__H5_I32, "1", "share of each GPU in milli-GPU (1000 = whole GPU)"},
    {"gpu_type", SIM__H5_I32, "1",
     "GPU type it ran on (index into /provenance gpu types, attribute 'labels'); -1 never started"},
    {"first_node", SIM__H5_I64, "1", "first node of its placement; -1 never started"},
    {"n_nodes", SIM__H5_I32, "1", "nodes its placement spans; 0 never started"},
    {"submit_s", SIM__H5_F64, "s", "arrival time"},
    {"start_s", SIM__H5_F64, "s", "start time; NaN if it never started"},
    {"end_s", SIM__H5_F64, "s", "completion time; NaN if it did not complete"},
    {"wait_s", SIM__H5_F64, "s",
     "start - submit; for a job still queued at the end, end of run - submit"},
    {"run_s", SIM__H5_F64, "s",
     "end - start; for a job still running at the end, end of run - start; NaN never started"},
};

enum {
    T_T0,
    T_T1,
    T_UP,
    T_ALLOC,
    T_UTIL,
    T_QUEUE,
    T_RUNNING,
    T_ARRIVALS,
    T_STARTS,
    T_COMPLETIONS,
    T_NCOLS
};

static const sim__h5_col ts_cols[T_NCOLS] = {
    {"t_s", SIM__H5_F64, "s", "start of the bin"},
    {"t_end_s", SIM__H5_F64, "s", "end of the bin (the last bin may be shorter)"},
    {"gpus_up", SIM__H5_F64, "GPU", "GPUs in service, time average over the bin"},
    {"gpus_alloc", SIM__H5_F64, "GPU",
     "GPUs allocated to jobs, time average over the bin (shares count their fraction)"},
    {"alloc_util", SIM__H5_F64, "1", "gpus_alloc / gpus_up (0 when no GPU is in service)"},
    {"queue_len", SIM__H5_F64, "1", "jobs waiting, time average over the bin"},
    {"running", SIM__H5_F64, "1", "jobs running, time average over the bin"},
    {"arrivals", SIM__H5_I64, "1", "jobs that arrived in the bin"},
    {"starts", SIM__H5_I64, "1", "jobs that started in the bin"},
    {"completions", SIM__H5_I64, "1", "jobs that completed in the bin"},
};

typedef struct report {
    sim__h5w *w;
    sim__h5t *jobs, *ts;
} report;

static double us_to_s(int64_t us)
{
    return us < 0 ? NAN : (double)us / SIM_US_PER_S;
}

static int sink_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    report *rp = ud;
    sim__h5t *t = rp->jobs;
    sim__h5t_put_i64(t, J_ID, (int64_t)r->id);
    sim__h5t_put_i64(t, J_TRACE_ID, (int64_t)r->trace_id);
    sim__h5t_put_i32(t, J_CLASS, (int32_t)r->cls);
    sim__h5t_put_u8(t, J_STATE, (uint8_t)r->state);
    sim__h5t_put_u8(t, J_REJECT, (uint8_t)r->reject_reason);
    sim__h5t_put_i32(t, J_GPUS, (int32_t)r->gpus);
    sim__h5t_put_i32(t, J_GPU_MILLI, (int32_t)r->gpu_milli);
    sim__h5t_put_i32(t, J_GPU_TYPE, r->gpu_type);
    sim__h5t_put_i64(t, J_FIRST_NODE, r->first_node == PLACE_NONE ? -1 : (int64_t)r->first_node);
    sim__h5t_put_i32(t, J_N_NODES, (int32_t)r->n_nodes);
    sim__h5t_put_f64(t, J_SUBMIT, us_to_s(r->submit_us));
    sim__h5t_put_f64(t, J_START, us_to_s(r->start_us));
    sim__h5t_put_f64(t, J_END, us_to_s(r->end_us));
    sim__h5t_put_f64(t, J_WAIT, us_to_s(r->wait_us));
    sim__h5t_put_f64(t, J_RUN, us_to_s(r->run_us));
    return sim__h5t_row_end(t, diag);
}

static int sink_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    report *rp = ud;
    sim__h5t *t = rp->ts;
    sim__h5t_put_f64(t, T_T0, us_to_s(b->t0_us));
    sim__h5t_put_f64(t, T_T1, us_to_s(b->t1_us));
    sim__h5t_put_f64(t, T_UP, b->gpus_up);
    sim__h5t_put_f64(t, T_ALLOC, b->gpus_alloc);
    sim__h5t_put_f64(t, T_UTIL, b->gpus_up > 0 ? b->gpus_alloc / b->gpus_up : 0.0);
    sim__h5t_put_f64(t, T_QUEUE, b->queue_len);
    sim__h5t_put_f64(t, T_RUNNING, b->running);
    sim__h5t_put_i64(t, T_ARRIVALS, (int64_t)b->arrivals);
    sim__h5t_put_i64(t, T_STARTS, (int64_t)b->starts);
    sim__h5t_put_i64(t, T_COMPLETIONS, (int64_t)b->completions);
    return sim__h5t_row_end(t, diag);
}

/* A list of labels as one attribute: the labels joined by newlines (h5io
 * keeps attributes to scalars; readers split on "\n"). */
static int attr_labels(sim__h5w *w, const char *obj, const char *const *labels, size_t n,
                       tm_diag *diag)
{
    char buf[8192];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < sizeof buf - 1; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "\n" : "", labels[i]);
    return sim__h5w_attr_str(w, obj, "labels", buf, diag);
}

static int write_labels(report *rp, const sim_scenario *sc, tm_diag *diag)
{
    const char *names[PLACE_MAX_TYPES > 256 ? PLACE_MAX_TYPES : 256];
    int rc;
    size_t n = sc->n_classes < 256 ? sc->n_classes : 256;
    for (size_t c = 0; c < n; c++)
        names[c] = sc->classes[c].name;
    if ((rc = attr_labels(rp->w, "/jobs/class", names, n, diag)))
        return rc;
    static const char *const states[] = {"queued", "running", "completed", "rejected"};
    if ((rc = attr_labels(rp->w, "/jobs/state", states, 4, diag)))
        return rc;
    const char *reasons[8];
    for (int k = 0; k <= SIM_REJECT_TOTAL; k++)
        reasons[k] = sim_reject_reason_str(k);
    if ((rc = attr_labels(rp->w, "/jobs/reject_reason", reasons, SIM_REJECT_TOTAL + 1, diag)))
        return rc;
    for (size_t t = 0; t < sc->n_types; t++)
        names[t] = sc->types[t].name;
    return attr_labels(rp->w, "/jobs/gpu_type", names, sc->n_types, diag);
}

/* The metrics of one class (or of all) under `group`. */
static int write_class(sim__h5w *w, const char *group, const sim_class_result *c, tm_diag *diag)
{
    char p[256];
    struct {
        const char *name;
        double v;
        const char *units, *desc;
    } f[] = {
        {"wait_mean_s", c->wait_mean_s, "s", "mean wait (first start - arrival) of started jobs"},
        {"wait_p50_s", c->wait_p50_s, "s", "median wait of started jobs (0.5 % relative error)"},
        {"wait_p95_s", c->wait_p95_s, "s", "95th percentile wait of started jobs"},
        {"wait_p99_s", c->wait_p99_s, "s", "99th percentile wait of started jobs"},
        {"wait_max_s", c->wait_max_s, "s", "largest wait of a started job"},
        {"slowdown_mean", c->slowdown_mean, "1",
         "mean bounded slowdown max(1, (wait + run) / max(run, 10 s)) of completed jobs"},
        {"gpu_hours_alloc", c->gpu_s_alloc / 3600, "GPU h", "GPU-hours allocated to the jobs"},
    };
    struct {
        const char *name;
        uint64_t v;
        const char *desc;
    } k[] = {
        {"jobs_arrived", c->arrived, "jobs that arrived"},
        {"jobs_started", c->started, "jobs that started"},
        {"jobs_completed", c->completed, "jobs that completed"},
        {"jobs_rejected", c->rejected, "jobs rejected because they can never fit the fleet"},
        {"jobs_queued_end", c->queued_end, "jobs still waiting at the end"},
        {"jobs_running_end", c->running_end, "jobs still running at the end"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", group, f[i].name);
        int rc = sim__h5w_scalar_f64(w, p, f[i].v, f[i].units, f[i].desc, diag);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", group, k[i].name);
        int rc = sim__h5w_scalar_i64(w, p, (int64_t)k[i].v, "1", k[i].desc, diag);
        if (rc)
            return rc;
    }
    return TM_OK;
}

static int write_summary(report *rp, const sim_scenario *sc, const sim_result *r, tm_diag *diag)
{
    sim__h5w *w = rp->w;
    int rc;
    if ((rc = write_class(w, "/summary", &r->classes[r->n_classes], diag)))
        return rc;
    struct {
        const char *name;
        double v;
        const char *units, *desc;
    } f[] = {
        {"t_end_s", (double)r->t_end_us / SIM_US_PER_S, "s", "simulated time at the end"},
        {"alloc_util", r->alloc_util, "1", "GPU-time allocated / GPU-time in service"},
        {"gpu_hours_up", r->gpu_s_up / 3600, "GPU h", "GPU-hours in service"},
        {"queue_len_mean", r->queue_len_mean, "1", "time-average number of jobs waiting"},
        {"running_mean", r->running_mean, "1", "time-average number of jobs running"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "/summary/%s", f[i].name);
        if ((rc = sim__h5w_scalar_f64(w, p, f[i].v, f[i].units, f[i].desc, diag)))
            return rc;
    }
    if ((rc = sim__h5w_scalar_i64(w, "/summary/events", (int64_t)r->events, "1", "events processed",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/summary/passes", (int64_t)r->passes, "1",
                                  "scheduling passes run", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/summary/policy_errors", (int64_t)r->policy_errors, "1",
                                  "invalid policy decisions refused by the engine", diag)))
        return rc;
    for (size_t c = 0; c < sc->n_classes; c++) {
        char g[160];
        snprintf(g, sizeof g, "/summary/classes/%s", sc->classes[c].name);
        if ((rc = write_class(w, g, &r->classes[c], diag)))
            return rc;
        if ((rc = sim__h5w_attr_i64(w, g, "index", (int64_t)c, diag)))
            return rc;
    }
    return TM_OK;
}

static int write_provenance(report *rp, const sim_scenario *sc, const sim_run_opts *opts,
                            tm_diag *diag)
{
    sim__h5w *w = rp->w;
    int rc;
    char *resolved = sim_scenario_resolved_json(sc);
    if (!resolved)
        return tm_diag_set(diag, TM_ERR_NOMEM, "report", "out of memory");
    rc = sim__h5w_scalar_str(w, "/provenance/scenario_given", sc->json_given ? sc->json_given : "",
                             "the scenario text as given", diag);
    if (rc == TM_OK)
        rc = sim__h5w_scalar_str(w, "/provenance/scenario_resolved", resolved,
                                 "the scenario with every default filled in (JSON)", diag);
    free(resolved);
    if (rc)
        return rc;
    if ((rc = sim__h5w_scalar_str(w, "/provenance/scenario_source", sc->source,
                                  "file the scenario came from", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/provenance/scenario_name", sc->name, "the scenario's name",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/provenance/seed", (int64_t)sc->seed, "1",
                                  "scenario seed (random streams: docs/rng.md)", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/provenance/replication",
                                  opts ? (int64_t)opts->replication : 0, "1",
                                  "replication index (selects independent streams)", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/provenance/tarmac_version", TARMAC_VERSION,
                                  "version of tarmac that wrote the file", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/provenance/policy", sc->policy,
                                  "placement-core specification", diag)))
        return rc;
    char lib[64];
    struct {
        const char *name, *v;
    } libs[4];
    size_t nl = 0;
    libs[nl].name = "gsl";
    libs[nl++].v = sim_lib_version_gsl();
    libs[nl].name = "hdf5";
    sim__h5_version(lib, sizeof lib);
    libs[nl++].v = lib;
    libs[nl].name = "cjson";
    libs[nl++].v = sim_lib_version_cjson();
    libs[nl].name = "zlib";
    libs[nl++].v = trace_zlib_version();
    for (size_t i = 0; i < nl; i++) {
        char p[96];
        snprintf(p, sizeof p, "/provenance/libraries/%s", libs[i].name);
        if ((rc = sim__h5w_scalar_str(w, p, libs[i].v, "library version", diag)))
            return rc;
    }
    return TM_OK;
}

int sim_report_run(const sim_scenario *sc, const sim_run_opts *opts, const char *path,
                   sim_result *res, tm_diag *diag)
{
    report rp = {NULL, NULL, NULL};
    memset(res, 0, sizeof *res);
    int rc = sim__h5w_open(&rp.w, path, diag);
    if (rc != TM_OK)
        return rc;
    if ((rc = sim__h5w_attr_i64(rp.w, "/", "schema_version", SIM_OUTPUT_SCHEMA, diag)) ||
        (rc = sim__h5w_attr_str(rp.w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(rp.w, "/", "layout", "docs/output.md", diag)) ||
        (rc = sim__h5t_create(&rp.jobs, rp.w, "/jobs", "one row per job (finished or not)",
                              job_cols, J_NCOLS, diag)) ||
        (rc = sim__h5t_create(&rp.ts, rp.w, "/timeseries",
                              "fixed-width bins of the fleet's state over time", ts_cols, T_NCOLS,
                              diag)))
        goto fail;
    sim_sink sink = {sink_job, sink_bin, &rp};
    if ((rc = sim_run(sc, opts, &sink, res, diag)) != TM_OK)
        goto fail;
    if ((rc = write_labels(&rp, sc, diag)) || (rc = write_summary(&rp, sc, res, diag)) ||
        (rc = write_provenance(&rp, sc, opts, diag)))
        goto fail;
    rc = sim__h5w_commit(rp.w, diag);
    if (rc != TM_OK)
        sim_result_fini(res);
    return rc;
fail:
    sim__h5w_abort(rp.w);
    sim_result_fini(res);
    return rc;
}
