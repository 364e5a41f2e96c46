/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare.c — policies side by side: replications, warm-up removal, Student-t
 * intervals and paired differences (API and method: compare_int.h; file
 * layout: docs/output.md, "Comparison files").
 *
 * Runs go replication-major: for r in 0..R-1, for each policy p, run the
 * scenario with policy p and replication r. A run's metrics are computed here
 * from the job rows and time-series bins (a sim_sink), not from sim_result,
 * because the warm-up must be removed: a job counts when it arrived at or
 * after the warm-up, a bin when it lies wholly inside [warm-up, horizon]
 * (so the window of the time averages starts at the first bin boundary at or
 * after the warm-up). Memory per run is one quantile sketch.
 */
#include "studies/compare_int.h"

#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "model/metrics_int.h"
#include "version.h"
#include "studies/work_int.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sim__cmp_metric metrics[SIM__CMP_N_METRICS] = {
#define SIM__CMP_ROW_(id, name, units, label, desc) {name, units, label, desc},
    SIM__CMP_METRICS(SIM__CMP_ROW_)
#undef SIM__CMP_ROW_
};

static const sim__cmp_metric class_metrics[SIM__CMPC_N_METRICS] = {
#define SIM__CMP_ROW_(id, name, units, label, desc) {name, units, label, desc},
    SIM__CMP_CLASS_METRICS(SIM__CMP_ROW_)
#undef SIM__CMP_ROW_
};

const sim__cmp_metric *sim__compare_metrics(void)
{
    return metrics;
}

const sim__cmp_metric *sim__compare_class_metrics(void)
{
    return class_metrics;
}

/* ------------------------------------------------------------------------- */
/* statistics                                                                 */

double sim__t_quantile(double confidence, size_t n)
{
    if (n < 2 || !(confidence > 0 && confidence < 1))
        return NAN;
    return gsl_cdf_tdist_Pinv(0.5 + confidence / 2, (double)(n - 1));
}

void sim__stat_interval(const double *x, size_t n, size_t stride, double t, double *mean,
                        double *sd, double *lo, double *hi)
{
    /* Welford: one pass, no cancellation when the values are large and close */
    double m = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i * stride], delta = v - m;
        m += delta / (double)(i + 1);
        m2 += delta * (v - m);
    }
    *mean = n ? m : NAN;
    if (n < 2) {
        *sd = *lo = *hi = NAN;
        return;
    }
    *sd = sqrt(m2 / (double)(n - 1));
    double half = t * *sd / sqrt((double)n);
    *lo = m - half;
    *hi = m + half;
}

/* ------------------------------------------------------------------------- */
/* one run: a sink that keeps the windowed sums                               */

/* The job sums of one class (and, in run_acc, of all jobs). */
typedef struct job_acc {
    sim_quantiles wait; /* started jobs that arrived after the warm-up */
    double wait_sum_s, slowdown_sum;
    double alloc_gpu_s, work_gpu_s;
    uint64_t arrived, started, completed_arrived;
} job_acc;

typedef struct run_acc {
    int64_t warm_us, horizon_us;
    sim_quantiles wait; /* started jobs that arrived after the warm-up */
    double wait_sum_s, slowdown_sum;
    uint64_t arrived, started, completed_in_window, completed_arrived, waiting_end;
    double up_area, alloc_area, queue_area, width_s; /* bins inside the window */
    double owned_area, work_area, value_work_area;
    size_t n_cls;
    job_acc *cls; /* [n_cls]; jobs of other classes count in the totals only */
} run_acc;

static int acc_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    run_acc *a = ud;
    if (r->state == SIM_JOB_COMPLETED && r->end_us >= a->warm_us && r->end_us <= a->horizon_us)
        a->completed_in_window++;
    if (r->submit_us < a->warm_us)
        return TM_OK;
    job_acc *k = r->cls < a->n_cls ? &a->cls[r->cls] : NULL;
    a->arrived++;
    if (k) {
        k->arrived++;
        k->alloc_gpu_s += r->alloc_gpu_s;
        k->work_gpu_s += r->work_ref_gpu_s;
    }
    if (r->start_us >= 0) {
        double w = (double)r->wait_us / SIM_US_PER_S;
        a->started++;
        a->wait_sum_s += w;
        sim__quant_add(&a->wait, r->wait_us);
        if (k) {
            k->started++;
            k->wait_sum_s += w;
            sim__quant_add(&k->wait, r->wait_us);
        }
    } else if (r->state == SIM_JOB_QUEUED) {
        a->waiting_end++;
    }
    if (r->state == SIM_JOB_COMPLETED) {
        /* bounded slowdown, tau = 10 s, as in /summary (DESIGN.md §5) */
        double run_s = (double)r->run_us / SIM_US_PER_S;
        double wait_s = (double)r->wait_us / SIM_US_PER_S;
        double sd = (wait_s + run_s) / (run_s > 10 ? run_s : 10);
        a->slowdown_sum += sd > 1 ? sd : 1;
        a->completed_arrived++;
        if (k) {
            k->slowdown_sum += sd > 1 ? sd : 1;
            k->completed_arrived++;
        }
    }
    return TM_OK;
}

static int acc_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    (void)diag;
    run_acc *a = ud;
    if (b->t0_us < a->warm_us || b->t1_us > a->horizon_us)
        return TM_OK;
    double w = (double)(b->t1_us - b->t0_us) / SIM_US_PER_S;
    a->up_area += b->avg[SIM_LV_UP] / PLACE_MILLI_WHOLE * w;
    a->alloc_area += b->avg[SIM_LV_ALLOC] / PLACE_MILLI_WHOLE * w;
    a->queue_area += b->avg[SIM_LV_QUEUE] * w;
    a->width_s += w;
    a->owned_area += b->avg[SIM_LV_OWNED] / PLACE_MILLI_WHOLE * w;
    a->work_area += b->avg[SIM_LV_WORK] / SIM_WORK_SCALE * w - b->lost_work_ref_gpu_s;
    a->value_work_area +=
        b->avg[SIM_LV_VALUE_WORK] / SIM_WORK_SCALE * w - b->lost_value_work_ref_gpu_s;
    return TM_OK;
}

static void run_metrics(const run_acc *a, double *m)
{
    double us = 1.0 / SIM_US_PER_S;
    m[SIM__CMP_WAIT_MEAN] = a->started ? a->wait_sum_s / (double)a->started : NAN;
    m[SIM__CMP_WAIT_P50] = a->started ? sim__quant_get(&a->wait, 0.50) * us : NAN;
    m[SIM__CMP_WAIT_P95] = a->started ? sim__quant_get(&a->wait, 0.95) * us : NAN;
    m[SIM__CMP_WAIT_P99] = a->started ? sim__quant_get(&a->wait, 0.99) * us : NAN;
    m[SIM__CMP_SLOWDOWN] =
        a->completed_arrived ? a->slowdown_sum / (double)a->completed_arrived : NAN;
    m[SIM__CMP_ALLOC_UTIL] = a->up_area > 0 ? a->alloc_area / a->up_area : NAN;
    m[SIM__CMP_QUEUE_LEN] = a->width_s > 0 ? a->queue_area / a->width_s : NAN;
    m[SIM__CMP_ARRIVED] = (double)a->arrived;
    m[SIM__CMP_COMPLETED] = (double)a->completed_in_window;
    m[SIM__CMP_WAITING_END] = (double)a->waiting_end;
    m[SIM__CMP_WORK_UTIL] = a->owned_area > 0 ? a->work_area / a->owned_area : NAN;
    m[SIM__CMP_VALUE_UTIL] = a->owned_area > 0 ? a->value_work_area / a->owned_area : NAN;
}

/* The class metrics of one run: cm[class][class metric]. */
static void run_class_metrics(const run_acc *a, double *cm)
{
    double us = 1.0 / SIM_US_PER_S;
    for (size_t c = 0; c < a->n_cls; c++) {
        const job_acc *k = &a->cls[c];
        double *m = cm + c * SIM__CMPC_N_METRICS;
        m[SIM__CMPC_WAIT_MEAN] = k->started ? k->wait_sum_s / (double)k->started : NAN;
        m[SIM__CMPC_WAIT_P50] = k->started ? sim__quant_get(&k->wait, 0.50) * us : NAN;
        m[SIM__CMPC_WAIT_P95] = k->started ? sim__quant_get(&k->wait, 0.95) * us : NAN;
        m[SIM__CMPC_SLOWDOWN] =
            k->completed_arrived ? k->slowdown_sum / (double)k->completed_arrived : NAN;
        m[SIM__CMPC_ARRIVED] = (double)k->arrived;
        m[SIM__CMPC_GPU_HOURS] = k->alloc_gpu_s / 3600;
        m[SIM__CMPC_WORK] = k->work_gpu_s / 3600;
    }
}

static void run_acc_fini(run_acc *a)
{
    sim__quant_fini(&a->wait);
    for (size_t c = 0; a->cls && c < a->n_cls; c++)
        sim__quant_fini(&a->cls[c].wait);
    free(a->cls);
    a->cls = NULL;
}

/* The sums of a run over n_cls classes; run_acc_fini after a failure too. */
static int run_acc_init(run_acc *a, int64_t warm_us, int64_t horizon_us, size_t n_cls)
{
    memset(a, 0, sizeof *a);
    a->warm_us = warm_us;
    a->horizon_us = horizon_us;
    if (sim__quant_init(&a->wait) != TM_OK)
        return TM_ERR_NOMEM;
    if (n_cls && !(a->cls = calloc(n_cls, sizeof *a->cls)))
        return TM_ERR_NOMEM;
    for (; a->n_cls < n_cls; a->n_cls++)
        if (sim__quant_init(&a->cls[a->n_cls].wait) != TM_OK)
            return TM_ERR_NOMEM;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* the comparison                                                             */

int sim__compare_check_policies(const sim__cmp_policy *pol, size_t n, tm_diag *diag)
{
    for (size_t i = 0; i < n; i++) {
        place_instance pi;
        char err[256] = "";
        place_env env = {place_alloc_libc, NULL, NULL, NULL};
        int prc = place_instance_init(&pi, &env, pol[i].spec, err, sizeof err);
        if (prc != PLACE_OK)
            return tm_diag_set(diag, prc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_POLICY,
                               "--policies", "policy %zu ('%s'): %s", i + 1, pol[i].spec,
                               err[0] ? err : place_strerror(prc));
        place_instance_fini(&pi);
    }
    return TM_OK;
}

typedef struct prog_fwd {
    const sim__cmp_opts *o;
    size_t run, n_runs;
} prog_fwd;

static void progress_fwd(void *ud, int64_t now_us, uint64_t events)
{
    prog_fwd *f = ud;
    f->o->progress(f->o->progress_ud, f->run, f->n_runs, now_us, events);
}

void sim__compare_fini(sim__cmp_result *res)
{
    if (!res)
        return;
    free(res->values);
    free(res->stats);
    free(res->class_values);
    free(res->class_stats);
    res->values = NULL;
    res->stats = NULL;
    res->class_values = NULL;
    res->class_stats = NULL;
}

/* One run's result, as a worker hands it back (work_int.h): out_size bytes,
 * the class metrics [class][class metric] after the fixed part. */
typedef struct run_out {
    double m[SIM__CMP_N_METRICS];
    uint64_t events;
    double wall_s;
    double cm[];
} run_out;

typedef struct cmp_jobs {
    const sim_scenario *sc;
    const sim__cmp_policy *pol;
    size_t n_pol, n_runs, finished;
    size_t n_done; /* runs that completed (any way they ran) */
    const sim__cmp_opts *opts;
    int inline_progress; /* runs in this process: progress from inside each run */
} cmp_jobs;

/* Run k: replication k / n_pol under policy k % n_pol (replication-major, as
 * the runs always went). */
static int cmp_job(void *ud, size_t k, void *out, tm_diag *diag)
{
    cmp_jobs *x = ud;
    const sim__cmp_opts *opts = x->opts;
    uint32_t r = (uint32_t)(k / x->n_pol);
    size_t p = k % x->n_pol;
    /* shallow: only the policy string differs */
    sim_scenario run_sc = *(x->pol[p].sc ? x->pol[p].sc : x->sc);
    snprintf(run_sc.policy, sizeof run_sc.policy, "%s", x->pol[p].spec);
    run_acc acc;
    if (run_acc_init(&acc, opts->warmup_us, x->sc->horizon_us, x->sc->n_classes) != TM_OK) {
        run_acc_fini(&acc);
        return tm_diag_set(diag, TM_ERR_NOMEM, "compare", "out of memory");
    }
    prog_fwd fwd = {opts, k, x->n_runs};
    sim_run_opts ro = {.replication = r, .stop_flag = opts->stop_flag};
    if (opts->progress && x->inline_progress) {
        ro.progress = progress_fwd;
        ro.progress_ud = &fwd;
        ro.progress_every = 4096;
    }
    sim_sink sink = {acc_job, acc_bin, &acc};
    sim_result sr;
    int rc = sim_run(&run_sc, &ro, &sink, &sr, diag);
    if (rc == TM_OK) {
        run_out *o = out;
        run_metrics(&acc, o->m);
        run_class_metrics(&acc, o->cm);
        o->events = sr.events;
        o->wall_s = sr.wall_s;
        sim_result_fini(&sr);
    } else if (rc != TM_ERR_INTERRUPTED) {
        /* say which run failed; a long message may lose its end */
        size_t l = strlen(diag->where);
        int n = snprintf(diag->where + l, sizeof diag->where - l, " (policy '%s', replication %u)",
                         x->pol[p].label, r);
        (void)n;
    }
    run_acc_fini(&acc);
    return rc;
}

/* Runs in worker processes: progress by whole runs, as they finish. */
static void cmp_done(void *ud, size_t k, int rc, const tm_diag *d, const void *out)
{
    (void)k;
    (void)d;
    cmp_jobs *x = ud;
    if (rc == TM_OK)
        x->n_done++;
    if (rc != TM_OK || x->inline_progress || !x->opts->progress)
        return;
    const run_out *o = out;
    x->opts->progress(x->opts->progress_ud, x->finished++, x->n_runs, x->sc->horizon_us, o->events);
}

/* An arm with a scenario of its own stays paired with the others: the same
 * classes in the same order (class metrics are per index, the workload
 * streams per class index) and the same horizon (the measurement window). */
static int check_arm(const sim_scenario *sc, const sim__cmp_policy *pol, tm_diag *diag)
{
    const sim_scenario *a = pol->sc;
    char where[128];
    snprintf(where, sizeof where, "--set (policy '%s')", pol->label);
    if (a->horizon_us != sc->horizon_us)
        return tm_diag_set(diag, TM_ERR_SCENARIO, where,
                           "the horizon differs from the compared scenario's (%.0f s, not %.0f "
                           "s): the arms would not be measured over the same window",
                           (double)a->horizon_us / SIM_US_PER_S,
                           (double)sc->horizon_us / SIM_US_PER_S);
    if (a->n_classes != sc->n_classes)
        return tm_diag_set(diag, TM_ERR_SCENARIO, where,
                           "%zu workload classes, the compared scenario has %zu: the arms would "
                           "not see the same jobs",
                           a->n_classes, sc->n_classes);
    for (size_t k = 0; k < sc->n_classes; k++)
        if (strcmp(a->classes[k].name, sc->classes[k].name) != 0)
            return tm_diag_set(diag, TM_ERR_SCENARIO, where,
                               "class %zu is \"%s\", the compared scenario's is \"%s\": the "
                               "classes must keep their names and order",
                               k, a->classes[k].name, sc->classes[k].name);
    return TM_OK;
}

int sim__compare_run(const sim_scenario *sc, const sim__cmp_policy *pol, size_t n_pol,
                     const sim__cmp_opts *opts, sim__cmp_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    tm_diag_clear(diag);
    uint32_t reps = opts->replications;
    double conf = opts->confidence > 0 ? opts->confidence : 0.95;
    if (n_pol < 1 || reps < 2 || !(conf < 1))
        return tm_diag_set(diag, TM_ERR_INVAL, "compare",
                           "needs at least one policy and two replications, confidence in (0, 1)");
    if (opts->warmup_us < 0 || opts->warmup_us >= sc->horizon_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "--warmup",
                           "the warm-up (%.0f s) must be at least 0 and shorter than the horizon "
                           "(%.0f s)",
                           (double)opts->warmup_us / SIM_US_PER_S,
                           (double)sc->horizon_us / SIM_US_PER_S);
    int rc = sim__compare_check_policies(pol, n_pol, diag);
    if (rc != TM_OK)
        return rc;
    for (size_t p = 0; p < n_pol; p++)
        if (pol[p].sc && (rc = check_arm(sc, &pol[p], diag)) != TM_OK)
            return rc;
    res->n_policies = n_pol;
    res->replications = reps;
    res->confidence = conf;
    res->t_quantile = sim__t_quantile(conf, reps);
    res->warmup_us = opts->warmup_us;
    res->horizon_us = sc->horizon_us;
    size_t n_cls = sc->n_classes, nc = n_cls * SIM__CMPC_N_METRICS;
    res->n_classes = n_cls;
    res->values = calloc(n_pol * reps * SIM__CMP_N_METRICS, sizeof *res->values);
    res->stats = calloc(n_pol * SIM__CMP_N_METRICS, sizeof *res->stats);
    res->class_values = calloc(n_pol * reps * nc + 1, sizeof *res->class_values);
    res->class_stats = calloc(n_pol * nc + 1, sizeof *res->class_stats);
    size_t n_runs = n_pol * reps, out_size = sizeof(run_out) + nc * sizeof(double);
    unsigned char *outs = calloc(n_runs, out_size);
    if (!res->values || !res->stats || !res->class_values || !res->class_stats || !outs) {
        free(outs);
        sim__compare_fini(res);
        return tm_diag_set(diag, TM_ERR_NOMEM, "compare", "out of memory");
    }
    /* the runs, on the workers asked for (one: in this process); results do
     * not depend on how many */
    unsigned workers = opts->workers > 1 ? opts->workers : 1;
    cmp_jobs jobs = {sc, pol, n_pol, n_runs, 0, 0, opts, workers == 1};
    sim__work_opts wo = {workers, out_size, 1, opts->stop_flag, cmp_done};
    rc = sim__work_run(n_runs, cmp_job, &jobs, &wo, outs, NULL, NULL, diag);
    if (rc == TM_ERR_INTERRUPTED)
        tm_diag_set(diag, rc, "compare",
                    "interrupted while running the replications (%zu of %zu runs done)",
                    jobs.n_done, n_runs);
    if (rc != TM_OK) {
        free(outs);
        goto fail;
    }
    for (size_t k = 0; k < n_runs; k++) {
        uint32_t r = (uint32_t)(k / n_pol);
        size_t p = k % n_pol;
        const run_out *o = (const run_out *)(outs + k * out_size);
        memcpy(&res->values[((size_t)p * reps + r) * SIM__CMP_N_METRICS], o->m, sizeof o->m);
        if (nc)
            memcpy(&res->class_values[((size_t)p * reps + r) * nc], o->cm, nc * sizeof(double));
        res->events += o->events;
        res->wall_s += o->wall_s;
    }
    free(outs);
    /* intervals: each policy over its replications, and the paired difference
     * to policy 0, replication by replication */
    double *diff = malloc(reps * sizeof *diff);
    if (!diff) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "compare", "out of memory");
        goto fail;
    }
    for (size_t p = 0; p < n_pol; p++)
        for (size_t m = 0; m < SIM__CMP_N_METRICS; m++) {
            sim__cmp_stat *st = &res->stats[p * SIM__CMP_N_METRICS + m];
            const double *x = &res->values[(p * reps) * SIM__CMP_N_METRICS + m];
            st->n = reps;
            sim__stat_interval(x, reps, SIM__CMP_N_METRICS, res->t_quantile, &st->mean, &st->sd,
                               &st->ci_lo, &st->ci_hi);
            for (uint32_t r = 0; r < reps; r++)
                diff[r] = sim__cmp_value(res, p, r, m) - sim__cmp_value(res, 0, r, m);
            sim__stat_interval(diff, reps, 1, res->t_quantile, &st->d_mean, &st->d_sd, &st->d_lo,
                               &st->d_hi);
        }
    /* the same per class: the values of class k are strided by the classes */
    for (size_t p = 0; p < n_pol; p++)
        for (size_t k = 0; k < n_cls; k++)
            for (size_t m = 0; m < SIM__CMPC_N_METRICS; m++) {
                sim__cmp_stat *st = &res->class_stats[(p * n_cls + k) * SIM__CMPC_N_METRICS + m];
                const double *x =
                    &res->class_values[(p * reps * n_cls + k) * SIM__CMPC_N_METRICS + m];
                st->n = reps;
                sim__stat_interval(x, reps, nc, res->t_quantile, &st->mean, &st->sd, &st->ci_lo,
                                   &st->ci_hi);
                for (uint32_t r = 0; r < reps; r++)
                    diff[r] = sim__cmp_class_value(res, p, r, k, m) -
                              sim__cmp_class_value(res, 0, r, k, m);
                sim__stat_interval(diff, reps, 1, res->t_quantile, &st->d_mean, &st->d_sd,
                                   &st->d_lo, &st->d_hi);
            }
    free(diff);
    return TM_OK;
fail:
    sim__compare_fini(res);
    memset(res, 0, sizeof *res);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* the file                                                                   */

/* Labels joined by newlines into one string attribute, as report.c does for
 * /jobs/class (readers split on "\n"). */
/* What attr_joined joins: 0 the labels, 1 the specifications, 2 the keys
 * each arm sets (its lines joined by "; "). */
static const char *pol_field(const sim__cmp_policy *p, int which)
{
    return which == 0 ? p->label : which == 1 ? p->spec : p->set;
}

static int attr_joined(sim__h5w *w, const char *obj, const char *name, const sim__cmp_policy *pol,
                       size_t n, int which, tm_diag *diag)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(pol_field(&pol[i], which)) + 1;
    char *buf = malloc(len);
    if (!buf)
        return tm_diag_set(diag, TM_ERR_NOMEM, obj, "out of memory");
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "\n" : "", pol_field(&pol[i], which));
    int rc = sim__h5w_attr_str(w, obj, name, buf, diag);
    free(buf);
    return rc;
}

/* The policies' field `which` (pol_field) as a list of n strings: a label
 * list (sim__h5w_labels: the `labels` attribute and `<obj>_name`) when
 * `labels`, else the string dataset obj, a coordinate (sim__h5w_names) when
 * `names`, else a plain one along it. */
static int pol_strings(sim__h5w *w, const char *obj, const sim__cmp_policy *pol, size_t n,
                       int which, int labels, int names, const char *description, tm_diag *diag)
{
    const char **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return tm_diag_set(diag, TM_ERR_NOMEM, obj, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = pol_field(&pol[i], which);
    int rc = labels  ? sim__h5w_labels(w, obj, v, n, diag)
             : names ? sim__h5w_names(w, obj, v, n, description, diag)
                     : sim__h5w_array_str(w, obj, v, n, description, diag);
    free(v);
    return rc;
}

/* The policies' labels on the code column `col`: `labels` and `<col>_name`. */
static int pol_labels(sim__h5w *w, const char *col, const sim__cmp_policy *pol, size_t n,
                      tm_diag *diag)
{
    return pol_strings(w, col, pol, n, 0, 1, 0, NULL, diag);
}

/* The scenario's class names on the code column `col`: `labels` and `<col>_name`. */
static int class_labels(sim__h5w *w, const char *col, const sim_scenario *sc, tm_diag *diag)
{
    const char **v = malloc((sc->n_classes ? sc->n_classes : 1) * sizeof *v);
    if (!v)
        return tm_diag_set(diag, TM_ERR_NOMEM, col, "out of memory");
    for (size_t k = 0; k < sc->n_classes; k++)
        v[k] = sc->classes[k].name;
    int rc = sim__h5w_labels(w, col, v, sc->n_classes, diag);
    free(v);
    return rc;
}

enum { S_POLICY, S_N, S_MEAN, S_SD, S_LO, S_HI, S_DMEAN, S_DSD, S_DLO, S_DHI, S_NCOLS };

static int write_metric(sim__h5w *w, const sim__cmp_result *res, const sim__cmp_policy *pol,
                        size_t m, tm_diag *diag)
{
    const sim__cmp_metric *mt = &metrics[m];
    char path[128], desc[512];
    snprintf(path, sizeof path, "/compare/metrics/%s", mt->name);
    snprintf(desc, sizeof desc, "%s: one row per policy", mt->description);
    const char *u = mt->units;
    const sim__h5_col cols[S_NCOLS] = {
        {"policy", SIM__H5_I32, "1", "policy index (attribute 'labels'; /compare@policies)"},
        {"n", SIM__H5_I64, "1", "replications"},
        {"mean", SIM__H5_F64, u, "mean over the replications"},
        {"sd", SIM__H5_F64, u, "standard deviation over the replications"},
        {"ci_low", SIM__H5_F64, u, "lower end of the Student-t confidence interval of the mean"},
        {"ci_high", SIM__H5_F64, u, "upper end of the Student-t confidence interval of the mean"},
        {"diff_mean", SIM__H5_F64, u,
         "mean paired difference to the first policy (same replication, same jobs)"},
        {"diff_sd", SIM__H5_F64, u, "standard deviation of the paired differences"},
        {"diff_ci_low", SIM__H5_F64, u, "lower end of the interval of the paired difference"},
        {"diff_ci_high", SIM__H5_F64, u, "upper end of the interval of the paired difference"},
    };
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, path, desc, cols, S_NCOLS, diag);
    if (rc || (rc = sim__h5t_dim(t, "policy_name", NULL, "the policies, one per row", diag)))
        return rc;
    for (size_t p = 0; p < res->n_policies; p++) {
        const sim__cmp_stat *st = &res->stats[p * SIM__CMP_N_METRICS + m];
        sim__h5t_put_i32(t, S_POLICY, (int32_t)p);
        sim__h5t_put_i64(t, S_N, st->n);
        sim__h5t_put_f64(t, S_MEAN, st->mean);
        sim__h5t_put_f64(t, S_SD, st->sd);
        sim__h5t_put_f64(t, S_LO, st->ci_lo);
        sim__h5t_put_f64(t, S_HI, st->ci_hi);
        sim__h5t_put_f64(t, S_DMEAN, st->d_mean);
        sim__h5t_put_f64(t, S_DSD, st->d_sd);
        sim__h5t_put_f64(t, S_DLO, st->d_lo);
        sim__h5t_put_f64(t, S_DHI, st->d_hi);
        if ((rc = sim__h5t_row_end(t, diag)))
            return rc;
    }
    char col[160];
    snprintf(col, sizeof col, "%s/policy", path);
    if ((rc = sim__h5t_close(t, diag)) || (rc = pol_labels(w, col, pol, res->n_policies, diag)) ||
        (rc = sim__h5w_attr_str(w, path, "label", mt->label, diag)) ||
        (rc = sim__h5w_attr_str(w, path, "units", mt->units, diag)))
        return rc;
    return TM_OK;
}

static int write_runs(sim__h5w *w, const sim__cmp_result *res, const sim__cmp_policy *pol,
                      tm_diag *diag)
{
    sim__h5_col cols[2 + SIM__CMP_N_METRICS] = {
        {"policy", SIM__H5_I32, "1", "policy index (attribute 'labels')"},
        {"replication", SIM__H5_I64, "1", "replication index (selects the random streams)"},
    };
    for (size_t m = 0; m < SIM__CMP_N_METRICS; m++)
        cols[2 + m] =
            (sim__h5_col){metrics[m].name, SIM__H5_F64, metrics[m].units, metrics[m].description};
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, "/compare/runs",
                             "one row per run (policy, replication): the metrics of that run", cols,
                             2 + SIM__CMP_N_METRICS, diag);
    if (rc || (rc = sim__h5t_dim(t, "run", NULL,
                                 "the runs, one per (policy, replication) (no values)", diag)))
        return rc;
    for (size_t p = 0; p < res->n_policies; p++)
        for (uint32_t r = 0; r < res->replications; r++) {
            sim__h5t_put_i32(t, 0, (int32_t)p);
            sim__h5t_put_i64(t, 1, r);
            for (size_t m = 0; m < SIM__CMP_N_METRICS; m++)
                sim__h5t_put_f64(t, 2 + m, sim__cmp_value(res, p, r, m));
            if ((rc = sim__h5t_row_end(t, diag)))
                return rc;
        }
    if ((rc = sim__h5t_close(t, diag)))
        return rc;
    return pol_labels(w, "/compare/runs/policy", pol, res->n_policies, diag);
}

/* /compare/class_metrics/<metric>: one row per (class, policy), the columns
 * of /compare/metrics/<metric> after a class column. */
static int write_class_metric(sim__h5w *w, const sim_scenario *sc, const sim__cmp_result *res,
                              const sim__cmp_policy *pol, size_t m, tm_diag *diag)
{
    const sim__cmp_metric *mt = &class_metrics[m];
    char path[128], desc[512];
    snprintf(path, sizeof path, "/compare/class_metrics/%s", mt->name);
    snprintf(desc, sizeof desc, "%s: one row per (class, policy)", mt->description);
    const char *u = mt->units;
    const sim__h5_col cols[1 + S_NCOLS] = {
        {"class", SIM__H5_I32, "1", "workload class index (attribute 'labels')"},
        {"policy", SIM__H5_I32, "1", "policy index (attribute 'labels'; /compare@policies)"},
        {"n", SIM__H5_I64, "1", "replications"},
        {"mean", SIM__H5_F64, u, "mean over the replications"},
        {"sd", SIM__H5_F64, u, "standard deviation over the replications"},
        {"ci_low", SIM__H5_F64, u, "lower end of the Student-t confidence interval of the mean"},
        {"ci_high", SIM__H5_F64, u, "upper end of the Student-t confidence interval of the mean"},
        {"diff_mean", SIM__H5_F64, u,
         "mean paired difference to the first policy (same replication, same jobs)"},
        {"diff_sd", SIM__H5_F64, u, "standard deviation of the paired differences"},
        {"diff_ci_low", SIM__H5_F64, u, "lower end of the interval of the paired difference"},
        {"diff_ci_high", SIM__H5_F64, u, "upper end of the interval of the paired difference"},
    };
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, path, desc, cols, 1 + S_NCOLS, diag);
    if (rc || (rc = sim__h5t_dim(t, "class_policy", NULL,
                                 "one per (class, policy), class-major (no values)", diag)))
        return rc;
    for (size_t k = 0; k < res->n_classes; k++)
        for (size_t p = 0; p < res->n_policies; p++) {
            const sim__cmp_stat *st = sim__cmp_class_stat(res, p, k, m);
            sim__h5t_put_i32(t, 0, (int32_t)k);
            sim__h5t_put_i32(t, 1 + S_POLICY, (int32_t)p);
            sim__h5t_put_i64(t, 1 + S_N, st->n);
            sim__h5t_put_f64(t, 1 + S_MEAN, st->mean);
            sim__h5t_put_f64(t, 1 + S_SD, st->sd);
            sim__h5t_put_f64(t, 1 + S_LO, st->ci_lo);
            sim__h5t_put_f64(t, 1 + S_HI, st->ci_hi);
            sim__h5t_put_f64(t, 1 + S_DMEAN, st->d_mean);
            sim__h5t_put_f64(t, 1 + S_DSD, st->d_sd);
            sim__h5t_put_f64(t, 1 + S_DLO, st->d_lo);
            sim__h5t_put_f64(t, 1 + S_DHI, st->d_hi);
            if ((rc = sim__h5t_row_end(t, diag)))
                return rc;
        }
    char col[160];
    if ((rc = sim__h5t_close(t, diag)))
        return rc;
    snprintf(col, sizeof col, "%s/policy", path);
    if ((rc = pol_labels(w, col, pol, res->n_policies, diag)))
        return rc;
    snprintf(col, sizeof col, "%s/class", path);
    if ((rc = class_labels(w, col, sc, diag)) ||
        (rc = sim__h5w_attr_str(w, path, "label", mt->label, diag)) ||
        (rc = sim__h5w_attr_str(w, path, "units", mt->units, diag)))
        return rc;
    return TM_OK;
}

/* /compare/class_runs: one row per (policy, replication, class). */
static int write_class_runs(sim__h5w *w, const sim_scenario *sc, const sim__cmp_result *res,
                            const sim__cmp_policy *pol, tm_diag *diag)
{
    sim__h5_col cols[3 + SIM__CMPC_N_METRICS] = {
        {"policy", SIM__H5_I32, "1", "policy index (attribute 'labels')"},
        {"replication", SIM__H5_I64, "1", "replication index (selects the random streams)"},
        {"class", SIM__H5_I32, "1", "workload class index (attribute 'labels')"},
    };
    for (size_t m = 0; m < SIM__CMPC_N_METRICS; m++)
        cols[3 + m] = (sim__h5_col){class_metrics[m].name, SIM__H5_F64, class_metrics[m].units,
                                    class_metrics[m].description};
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, "/compare/class_runs",
                             "one row per run and workload class (policy, replication, class): "
                             "the class's metrics in that run",
                             cols, 3 + SIM__CMPC_N_METRICS, diag);
    if (rc || (rc = sim__h5t_dim(t, "run_class", NULL,
                                 "one per (policy, replication, class) (no values)", diag)))
        return rc;
    for (size_t p = 0; p < res->n_policies; p++)
        for (uint32_t r = 0; r < res->replications; r++)
            for (size_t k = 0; k < res->n_classes; k++) {
                sim__h5t_put_i32(t, 0, (int32_t)p);
                sim__h5t_put_i64(t, 1, r);
                sim__h5t_put_i32(t, 2, (int32_t)k);
                for (size_t m = 0; m < SIM__CMPC_N_METRICS; m++)
                    sim__h5t_put_f64(t, 3 + m, sim__cmp_class_value(res, p, r, k, m));
                if ((rc = sim__h5t_row_end(t, diag)))
                    return rc;
            }
    if ((rc = sim__h5t_close(t, diag)) ||
        (rc = pol_labels(w, "/compare/class_runs/policy", pol, res->n_policies, diag)))
        return rc;
    return class_labels(w, "/compare/class_runs/class", sc, diag);
}

int sim__compare_write(const char *path, const sim_scenario *sc, const sim__cmp_policy *pol,
                       size_t n_pol, const sim__cmp_result *res, volatile int *stop, tm_diag *diag)
{
    sim__h5w *w;
    int rc = sim__h5w_open(&w, path, diag);
    if (rc != TM_OK)
        return rc;
    sim__h5w_set_stop(w, stop);
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", 1, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "compare", diag)) ||
        (rc = sim__h5w_group(w, "/compare", diag)) ||
        (rc = sim__h5w_attr_str(w, "/compare", "description",
                                "policies side by side: replications with common random numbers, "
                                "warm-up removed, Student-t intervals",
                                diag)) ||
        (rc = attr_joined(w, "/compare", "policies", pol, n_pol, 0, diag)) ||
        (rc = attr_joined(w, "/compare", "policy_specs", pol, n_pol, 1, diag)) ||
        (rc = attr_joined(w, "/compare", "policy_settings", pol, n_pol, 2, diag)) ||
        (rc = pol_strings(w, "/compare/policy_name", pol, n_pol, 0, 0, 1,
                          "the policies' labels (the attribute 'policies'), one per policy",
                          diag)) ||
        (rc = pol_strings(w, "/compare/policy_spec", pol, n_pol, 1, 0, 0,
                          "each policy's specification (the attribute 'policy_specs')", diag)) ||
        (rc = pol_strings(w, "/compare/policy_settings", pol, n_pol, 2, 0, 0,
                          "the keys each policy sets, '; '-separated (the attribute "
                          "'policy_settings')",
                          diag)) ||
        (rc = sim__h5w_dim(w, "/compare", "policy_name", n_pol, NULL,
                           (const char *const[]){"policy_spec", "policy_settings", NULL},
                           "the policies", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/compare/replications", res->replications, "1",
                                  "replications per policy (indices 0 .. n-1)", diag)) ||
        (rc =
             sim__h5w_scalar_f64(w, "/compare/warmup_s", (double)res->warmup_us / SIM_US_PER_S, "s",
                                 "simulated time removed from the start of every run", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/compare/horizon_s", (double)res->horizon_us / SIM_US_PER_S,
                                  "s", "end of the measurement window (the scenario's horizon)",
                                  diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/compare/confidence", res->confidence, "1",
                                  "confidence level of the intervals", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/compare/t_quantile", res->t_quantile, "1",
                                  "Student-t quantile the intervals use (replications - 1 "
                                  "degrees of freedom)",
                                  diag)) ||
        (rc = write_runs(w, res, pol, diag)))
        goto fail;
    for (size_t m = 0; m < SIM__CMP_N_METRICS; m++)
        if ((rc = write_metric(w, res, pol, m, diag)))
            goto fail;
    if (res->n_classes) {
        if ((rc = write_class_runs(w, sc, res, pol, diag)))
            goto fail;
        for (size_t m = 0; m < SIM__CMPC_N_METRICS; m++)
            if ((rc = write_class_metric(w, sc, res, pol, m, diag)))
                goto fail;
    }
    if ((rc = sim__provenance_write(w, sc, NULL, diag)))
        goto fail;
    return sim__h5w_commit(w, diag);
fail:
    sim__h5w_abort(w);
    return rc;
}
