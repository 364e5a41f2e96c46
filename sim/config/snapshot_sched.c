/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot_sched.c — the scheduler state a `tarmac place` snapshot may carry
 * for the policies that keep some between passes (docs/place-json.md):
 *
 *   "timeshare"     Gavel's rounds (policy gavel): per job, the allocation X
 *                   (fractions of time per GPU type) or the work it has left
 *                   (for the caller to solve X), the seconds it has run on
 *                   each type and the seconds it has been in the allocation;
 *   "service_dist"  Tiresias' gittins=class: per workload class, the
 *                   discretised distribution of a job's GPU service.
 *
 * Read after the jobs, since a row names its job by id. Every value is
 * checked here, each error at its JSON path: a fraction outside [0, 1], a
 * row whose fractions sum past 1, time on a type the job may not use, an
 * unknown type name, an id no job has or one given twice, probabilities
 * that are not positive or do not sum to 1, values not ascending.
 */
#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TS_MAX_SECONDS 1e15 /* times in seconds: far beyond any run */
#define SD_MAX_POINTS  1024u
#define SD_MAX_CLASSES 65536u
#define SD_MAX_VALUE   1e15 /* the placement core's bound on distribution values */

typedef struct idk {
    uint64_t id;
    uint64_t type_mask; /* the job's allowed types (0: any) */
} idk;

static int idk_cmp(const void *a, const void *b)
{
    const idk *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct rowref {
    uint64_t id;
    uint32_t entry;
} rowref;

static int rowref_cmp(const void *a, const void *b)
{
    const rowref *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int out_of_range(sim__loader *L, const char *e, const cJSON *x, const char *what, double hi)
{
    if (cJSON_IsNumber(x) && isfinite(x->valuedouble))
        return sim__cfg_fail(L, e, "expected a %s in [0, %g], got %.6g", what, hi, x->valuedouble);
    return sim__cfg_fail(L, e, "expected a %s in [0, %g], got %s", what, hi, sim__json_kind(x));
}

/* A per-type vector at path p: an array of one number per GPU type, or an
 * object from type names to numbers (absent types 0). Each number finite in
 * [0, hi]; out gets n_types values. */
static int type_vector(sim__loader *L, const sim_snapshot *s, const cJSON *v, const char *p,
                       double hi, const char *what, double *out)
{
    char e[SIM__PATH_MAX_LEN];
    for (uint32_t t = 0; t < s->n_types; t++)
        out[t] = 0;
    if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v);
        if ((uint32_t)n != s->n_types)
            return sim__cfg_fail(L, p, "expected one %s per GPU type (%u), got %d", what,
                                 s->n_types, n);
        int i = 0;
        for (const cJSON *x = v->child; x; x = x->next, i++) {
            sim__json_element(e, p, i);
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0 ||
                x->valuedouble > hi)
                return out_of_range(L, e, x, what, hi);
            out[i] = x->valuedouble + 0.0;
        }
        return TM_OK;
    }
    if (!cJSON_IsObject(v))
        return sim__cfg_fail(L, p,
                             "expected an array of one %s per GPU type, or an object from GPU "
                             "type names to numbers, got %s",
                             what, sim__json_kind(v));
    uint64_t seen = 0;
    for (const cJSON *x = v->child; x; x = x->next) {
        sim__json_child(e, p, x->string ? x->string : "");
        uint32_t t;
        for (t = 0; t < s->n_types; t++)
            if (x->string && strcmp(s->type_name[t], x->string) == 0)
                break;
        if (t == s->n_types)
            return sim__cfg_fail(L, e, "no GPU type named \"%s\" in gpu_types",
                                 x->string ? x->string : "");
        if ((seen >> t) & 1u)
            return sim__cfg_fail(L, e, "GPU type \"%s\" given twice", s->type_name[t]);
        seen |= 1ull << t;
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0 ||
            x->valuedouble > hi)
            return out_of_range(L, e, x, what, hi);
        out[t] = x->valuedouble + 0.0;
    }
    return TM_OK;
}

static int read_timeshare(sim__loader *L, sim_snapshot *s, const cJSON *arr)
{
    static const char *const row_keys[] = {"id",     "x",       "received_s", "active_s",
                                           "left_s", "total_s", NULL};
    if (!cJSON_IsArray(arr))
        return sim__cfg_fail(L, "timeshare", "expected an array of rows, got %s",
                             sim__json_kind(arr));
    int n = cJSON_GetArraySize(arr);
    uint32_t nj = s->n_running + s->n_queue, nt = s->n_types;
    if ((uint32_t)n > nj)
        return sim__cfg_fail(L, "timeshare", "%d rows for %u jobs: at most one row per job", n, nj);
    if (n == 0)
        return TM_OK;
    const cJSON *first = arr->child;
    int have_x = cJSON_IsObject(first) && sim__json_member(first, "x") != NULL;
    idk *jobs = malloc((size_t)nj * sizeof *jobs);
    rowref *ref = malloc((size_t)n * sizeof *ref);
    double *x = malloc((size_t)n * nt * sizeof *x), *recv = malloc((size_t)n * nt * sizeof *recv);
    double *act = malloc((size_t)n * sizeof *act), *left = malloc((size_t)n * sizeof *left);
    double *total = malloc((size_t)n * sizeof *total);
    s->ts_id = malloc((size_t)n * sizeof *s->ts_id);
    s->ts_entry = malloc((size_t)n * sizeof *s->ts_entry);
    s->ts_x = have_x ? malloc((size_t)n * nt * sizeof *s->ts_x) : NULL;
    s->ts_recv_s = malloc((size_t)n * nt * sizeof *s->ts_recv_s);
    s->ts_active_s = malloc((size_t)n * sizeof *s->ts_active_s);
    s->ts_left_s = malloc((size_t)n * sizeof *s->ts_left_s);
    s->ts_total_s = malloc((size_t)n * sizeof *s->ts_total_s);
    int rc = TM_OK;
    if (!jobs || !ref || !x || !recv || !act || !left || !total || !s->ts_id || !s->ts_entry ||
        (have_x && !s->ts_x) || !s->ts_recv_s || !s->ts_active_s || !s->ts_left_s ||
        !s->ts_total_s) {
        rc = sim__cfg_oom(L);
        goto out;
    }
    for (uint32_t k = 0; k < nj; k++) {
        const place_job *j = k < s->n_running ? &s->running[k].job : &s->queue[k - s->n_running];
        jobs[k] = (idk){j->id, j->type_mask};
    }
    qsort(jobs, nj, sizeof *jobs, idk_cmp);
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
        sim__json_element(p, "timeshare", i);
        if ((rc = sim__cfg_check_object(L, o, p, row_keys)))
            goto out;
        int64_t id = 0;
        double a = 0, lf = -1, tt = -1;
        if ((rc = sim__cfg_get_int(L, o, p, "id", &id, 0, ((int64_t)1 << 53) - 1, 1)) ||
            (rc = sim__cfg_get_number(L, o, p, "active_s", &a, 0, TS_MAX_SECONDS, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "left_s", &lf, 0, TS_MAX_SECONDS, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "total_s", &tt, 0, TS_MAX_SECONDS, 0)))
            goto out;
        idk key = {(uint64_t)id, 0};
        const idk *job = bsearch(&key, jobs, nj, sizeof *jobs, idk_cmp);
        if (!job) {
            sim__json_child(q, p, "id");
            rc = sim__cfg_fail(L, q, "no job with id %lld in running or queue", (long long)id);
            goto out;
        }
        const cJSON *xv = sim__json_member(o, "x");
        if ((xv != NULL) != have_x) {
            rc = sim__cfg_fail(L, p,
                               "%s \"x\" but timeshare[0] %s: either every row gives the "
                               "allocation or none does (tarmac place solves it)",
                               xv ? "gives" : "has no", have_x ? "does" : "does not");
            goto out;
        }
        double *xr = x + (size_t)i * nt;
        if (xv) {
            sim__json_child(q, p, "x");
            if ((rc = type_vector(L, s, xv, q, 1.0, "time fraction", xr)))
                goto out;
            double sum = 0;
            for (uint32_t t = 0; t < nt; t++) {
                sum += xr[t];
                if (xr[t] > 0 && job->type_mask && !((job->type_mask >> t) & 1u)) {
                    rc = sim__cfg_fail(L, q,
                                       "gives time on GPU type \"%s\", which job %lld's "
                                       "gpu_types exclude",
                                       s->type_name[t], (long long)id);
                    goto out;
                }
            }
            if (sum > 1 + 1e-9) {
                rc = sim__cfg_fail(L, q,
                                   "the fractions sum to %.6g, more than 1 (a job runs on one "
                                   "GPU type at a time)",
                                   sum);
                goto out;
            }
        }
        double *rr = recv + (size_t)i * nt;
        const cJSON *rv = sim__json_member(o, "received_s");
        if (rv) {
            sim__json_child(q, p, "received_s");
            if ((rc = type_vector(L, s, rv, q, TS_MAX_SECONDS, "number of seconds", rr)))
                goto out;
        } else {
            for (uint32_t t = 0; t < nt; t++)
                rr[t] = 0;
        }
        act[i] = a;
        left[i] = lf;
        total[i] = tt;
        ref[i] = (rowref){(uint64_t)id, (uint32_t)i};
    }
    qsort(ref, (size_t)n, sizeof *ref, rowref_cmp);
    for (int r = 0; r < n; r++) {
        if (r > 0 && ref[r].id == ref[r - 1].id) {
            char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
            sim__json_element(p, "timeshare", (int)ref[r].entry);
            sim__json_child(q, p, "id");
            rc = sim__cfg_fail(L, q, "job id %llu already has a row (timeshare[%u])",
                               (unsigned long long)ref[r].id, ref[r - 1].entry);
            goto out;
        }
        uint32_t e = ref[r].entry;
        s->ts_id[r] = ref[r].id;
        s->ts_entry[r] = e;
        if (have_x)
            memcpy(s->ts_x + (size_t)r * nt, x + (size_t)e * nt, nt * sizeof *x);
        memcpy(s->ts_recv_s + (size_t)r * nt, recv + (size_t)e * nt, nt * sizeof *recv);
        s->ts_active_s[r] = act[e];
        s->ts_left_s[r] = left[e];
        s->ts_total_s[r] = total[e];
    }
    s->n_ts = (uint32_t)n;
out:
    free(jobs);
    free(ref);
    free(x);
    free(recv);
    free(act);
    free(left);
    free(total);
    return rc;
}

/* A number array member of o (required), at most max entries; *n its size. */
static int num_array(sim__loader *L, const cJSON *o, const char *p, const char *key,
                     const cJSON **arr, int *n)
{
    char q[SIM__PATH_MAX_LEN];
    sim__json_child(q, p, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v)
        return sim__cfg_fail(L, q, "required: expected an array of numbers");
    if (!cJSON_IsArray(v))
        return sim__cfg_fail(L, q, "expected an array of numbers, got %s", sim__json_kind(v));
    *n = cJSON_GetArraySize(v);
    if ((uint32_t)*n > SD_MAX_POINTS)
        return sim__cfg_fail(L, q, "more than %u points", SD_MAX_POINTS);
    *arr = v;
    return TM_OK;
}

static int read_service_dist(sim__loader *L, sim_snapshot *s, const cJSON *arr)
{
    static const char *const keys[] = {"class", "value", "prob", NULL};
    if (!cJSON_IsArray(arr))
        return sim__cfg_fail(L, "service_dist",
                             "expected an array of {\"class\", \"value\", \"prob\"}, got %s",
                             sim__json_kind(arr));
    int n = cJSON_GetArraySize(arr);
    if ((uint32_t)n > SD_MAX_CLASSES)
        return sim__cfg_fail(L, "service_dist", "more than %u classes", SD_MAX_CLASSES);
    /* first the classes and the points, to size the arrays */
    uint32_t n_cls = 0;
    size_t points = 0;
    int i = 0, rc;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "service_dist", i);
        int64_t cls = 0;
        const cJSON *va, *pa;
        int nv, np;
        if ((rc = sim__cfg_check_object(L, o, p, keys)) ||
            (rc = sim__cfg_get_int(L, o, p, "class", &cls, 0, SD_MAX_CLASSES - 1, 1)) ||
            (rc = num_array(L, o, p, "value", &va, &nv)) ||
            (rc = num_array(L, o, p, "prob", &pa, &np)))
            return rc;
        if (nv != np) {
            char q[SIM__PATH_MAX_LEN];
            sim__json_child(q, p, "prob");
            return sim__cfg_fail(L, q, "%d probabilities for %d values: one per value", np, nv);
        }
        if (nv == 0) {
            char q[SIM__PATH_MAX_LEN];
            sim__json_child(q, p, "value");
            return sim__cfg_fail(L, q, "expected at least one point");
        }
        if ((uint32_t)cls + 1 > n_cls)
            n_cls = (uint32_t)cls + 1;
        points += (size_t)nv;
    }
    s->n_service_dist = n_cls;
    if (n_cls == 0)
        return TM_OK;
    s->service_dist = calloc(n_cls, sizeof *s->service_dist);
    s->sd_value = malloc(points * sizeof *s->sd_value);
    s->sd_prob = malloc(points * sizeof *s->sd_prob);
    if (!s->service_dist || !s->sd_value || !s->sd_prob)
        return sim__cfg_oom(L);
    size_t at = 0;
    i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN], e[SIM__PATH_MAX_LEN];
        sim__json_element(p, "service_dist", i);
        int64_t cls = 0;
        sim__cfg_get_int(L, o, p, "class", &cls, 0, SD_MAX_CLASSES - 1, 1);
        place_service_dist *d = &s->service_dist[cls];
        if (d->n) {
            sim__json_child(q, p, "class");
            return sim__cfg_fail(L, q, "class %lld given twice", (long long)cls);
        }
        const cJSON *va = sim__json_member(o, "value"), *pa = sim__json_member(o, "prob");
        uint32_t k = 0;
        double sum = 0;
        sim__json_child(q, p, "value");
        for (const cJSON *v = va->child; v; v = v->next, k++) {
            sim__json_element(e, q, (int)k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
                v->valuedouble > SD_MAX_VALUE)
                return out_of_range(L, e, v, "number of GPU-seconds", SD_MAX_VALUE);
            if (k > 0 && !(v->valuedouble > s->sd_value[at + k - 1]))
                return sim__cfg_fail(L, e, "values must ascend: %.17g after %.17g", v->valuedouble,
                                     s->sd_value[at + k - 1]);
            s->sd_value[at + k] = v->valuedouble;
        }
        k = 0;
        sim__json_child(q, p, "prob");
        for (const cJSON *v = pa->child; v; v = v->next, k++) {
            sim__json_element(e, q, (int)k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0) ||
                v->valuedouble > 1)
                return cJSON_IsNumber(v) && isfinite(v->valuedouble)
                           ? sim__cfg_fail(L, e, "expected a probability in (0, 1], got %.6g",
                                           v->valuedouble)
                           : sim__cfg_fail(L, e, "expected a probability in (0, 1], got %s",
                                           sim__json_kind(v));
            s->sd_prob[at + k] = v->valuedouble;
            sum += v->valuedouble;
        }
        if (fabs(sum - 1) > 1e-6)
            return sim__cfg_fail(L, q, "the probabilities sum to %.9g, not 1", sum);
        d->n = k;
        d->value = s->sd_value + at;
        d->prob = s->sd_prob + at;
        at += k;
    }
    return TM_OK;
}

int sim__snap_sched(sim__loader *L, sim_snapshot *s, const cJSON *root)
{
    const cJSON *ts = sim__json_member(root, "timeshare");
    const cJSON *sd = sim__json_member(root, "service_dist");
    int rc = TM_OK;
    if (ts && (rc = read_timeshare(L, s, ts)) != TM_OK)
        return rc;
    if (sd && (rc = read_service_dist(L, s, sd)) != TM_OK)
        return rc;
    return TM_OK;
}

void sim__snap_sched_fini(sim_snapshot *s)
{
    free(s->ts_id);
    free(s->ts_entry);
    free(s->ts_x);
    free(s->ts_recv_s);
    free(s->ts_active_s);
    free(s->ts_left_s);
    free(s->ts_total_s);
    free(s->service_dist);
    free(s->sd_value);
    free(s->sd_prob);
}
