/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot.c — cluster snapshots for `tarmac place` (docs/place-json.md).
 *
 * The same loader discipline as scenarios: every object's keys are checked,
 * every number is range-checked, errors name the JSON path, and the tree is
 * converted to typed arrays at once (sim_snapshot) and freed. Integers are
 * read through doubles, so they are bounded by 2^53 (285 years of
 * microseconds; ids beyond that are refused rather than rounded). Storage for
 * the running jobs' parts and the jobs' speeds is sized from a first count
 * over the tree, so the arrays never move once pointers into them exist.
 */
#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNAP_INT_MAX ((1ll << 53) - 1)
/* Bounds that keep a hostile snapshot from asking for absurd memory. */
#define SNAP_MAX_ITEMS 10000000
#define SNAP_MAX_PARTS 4096

/* snap_child() and snap_element() for the snapshot reader: a path longer than the
 * buffer ends in "..." (the result of snprintf is checked, not ignored). */
static void snap_child(char *out, const char *path, const char *key)
{
    int n = path[0] ? snprintf(out, SIM__PATH_MAX_LEN, "%s.%s", path, key)
                    : snprintf(out, SIM__PATH_MAX_LEN, "%s", key);
    if (n < 0 || n >= SIM__PATH_MAX_LEN)
        memcpy(out + SIM__PATH_MAX_LEN - 4, "...", 4);
}

static void snap_element(char *out, const char *path, int i)
{
    int n = snprintf(out, SIM__PATH_MAX_LEN, "%s[%d]", path, i);
    if (n < 0 || n >= SIM__PATH_MAX_LEN)
        memcpy(out + SIM__PATH_MAX_LEN - 4, "...", 4);
}

/* The keys of a job; the ones from "start_us" on belong to running jobs only. */
static const char *const snap_job_keys[] = {"id",
                                            "submit_us",
                                            "estimate_us",
                                            "deadline_us",
                                            "attained_gpu_s",
                                            "speed",
                                            "gpu_types",
                                            "gpus",
                                            "gpu_milli",
                                            "gpu_mem_mib",
                                            "cpu_milli",
                                            "host_mem_mib",
                                            "priority",
                                            "tenant",
                                            "class",
                                            "group",
                                            "flags",
                                            "restart_us",
                                            "span_slowdown",
                                            "start_us",
                                            "end_estimate_us",
                                            "lost_gpu_s",
                                            "overhead_us",
                                            "checkpoint_us",
                                            "parts",
                                            NULL};
#define SNAP_RUNNING_KEYS 19 /* index of "start_us" */

/* An array member (required or not); *n gets its size, checked against max. */
static int snap_array(sim__loader *L, const cJSON *o, const char *path, const char *key,
                      int required, int max, const cJSON **arr, int *n)
{
    char p[SIM__PATH_MAX_LEN];
    snap_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    *arr = NULL;
    *n = 0;
    if (!v) {
        if (required)
            return sim__cfg_fail(L, p, "required: expected an array");
        return TM_OK;
    }
    if (!cJSON_IsArray(v))
        return sim__cfg_fail(L, p, "expected an array, got %s", sim__json_kind(v));
    int k = cJSON_GetArraySize(v);
    if (k > max)
        return sim__cfg_fail(L, p, "more than %d entries", max);
    *arr = v;
    *n = k;
    return TM_OK;
}

static int snap_type_index(sim__loader *L, const sim_snapshot *s, const cJSON *v, const char *p,
                           uint32_t *out)
{
    if (cJSON_IsString(v)) {
        for (uint32_t t = 0; t < s->n_types; t++)
            if (strcmp(s->type_name[t], v->valuestring) == 0) {
                *out = t;
                return TM_OK;
            }
        return sim__cfg_fail(L, p, "no GPU type named \"%s\" in gpu_types", v->valuestring);
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (!cJSON_IsNumber(v) || x != floor(x) || x < 0 || x >= s->n_types)
        return sim__cfg_fail(L, p, "expected a GPU type name or an index below %u, got %s",
                             s->n_types, sim__json_kind(v));
    *out = (uint32_t)x;
    return TM_OK;
}

/* A node's owner ("tenant", the jobs' tenant numbers; absent: shared). The
 * owners' array is made at the first node that has one. */
static int snap_node_tenant(sim__loader *L, sim_snapshot *s, const cJSON *o, const char *p,
                            uint32_t i, uint32_t nn)
{
    if (!sim__json_member(o, "tenant"))
        return TM_OK;
    int64_t t = 0;
    int rc = sim__cfg_get_int(L, o, p, "tenant", &t, 0, (int64_t)PLACE_NONE - 1, 1);
    if (rc)
        return rc;
    if (!s->node_tenant) {
        s->node_tenant = malloc((size_t)nn * sizeof *s->node_tenant);
        if (!s->node_tenant)
            return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
        for (uint32_t k = 0; k < nn; k++)
            s->node_tenant[k] = PLACE_NONE;
    }
    s->node_tenant[i] = (uint32_t)t;
    return TM_OK;
}

/* A job (queue entry, or the job of a running entry). */
static int snap_job(sim__loader *L, sim_snapshot *s, const cJSON *o, const char *p, place_job *j,
                    int running)
{
    int rc = sim__cfg_check_object(L, o, p, snap_job_keys);
    if (rc)
        return rc;
    if (!running)
        for (const char *const *k = snap_job_keys + SNAP_RUNNING_KEYS; *k; k++)
            if (sim__json_member(o, *k)) {
                char q[SIM__PATH_MAX_LEN];
                snap_child(q, p, *k);
                return sim__cfg_fail(L, q, "only a running job has this key");
            }
    memset(j, 0, sizeof *j);
    int64_t id = 0, submit = 0, est = -1, dl = -1, gpus = 1, milli = PLACE_MILLI_WHOLE, mem = 0,
            cpu = 0, hmem = 0, prio = 0, tenant = 0, cls = 0, group = 0, restart = 0;
    double att = 0, span = 1;
    if ((rc = sim__cfg_get_int(L, o, p, "id", &id, 0, SNAP_INT_MAX, 1)) ||
        (rc = sim__cfg_get_int(L, o, p, "submit_us", &submit, -SNAP_INT_MAX, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "estimate_us", &est, -1, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "deadline_us", &dl, -1, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "attained_gpu_s", &att, 0, 1e18, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "gpus", &gpus, 0, 1 << 20, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "gpu_milli", &milli, 1, PLACE_MILLI_WHOLE, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "gpu_mem_mib", &mem, 0, UINT32_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "cpu_milli", &cpu, 0, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "host_mem_mib", &hmem, 0, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "priority", &prio, INT32_MIN, INT32_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "tenant", &tenant, 0, UINT32_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "class", &cls, 0, UINT32_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "group", &group, 0, UINT32_MAX, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "restart_us", &restart, 0, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "span_slowdown", &span, 1, 1000, 0)))
        return rc;
    char q[SIM__PATH_MAX_LEN];
    if (milli < PLACE_MILLI_WHOLE && gpus != 1) {
        snap_child(q, p, "gpu_milli");
        return sim__cfg_fail(L, q, "a share below 1000 milli-GPU needs \"gpus\": 1, got %lld GPUs",
                             (long long)gpus);
    }
    j->id = (uint64_t)id;
    j->submit_us = submit;
    j->estimate_us = est;
    j->deadline_us = dl;
    j->attained_gpu_s = att;
    j->gpus = (uint32_t)gpus;
    j->gpu_milli = (uint32_t)milli;
    j->gpu_mem_mib = (uint32_t)mem;
    j->cpu_milli = cpu;
    j->host_mem_mib = hmem;
    j->priority = (int32_t)prio;
    j->tenant = (uint32_t)tenant;
    j->cls = (uint32_t)cls;
    j->group = (uint32_t)group;
    j->restart_us = restart;
    j->span_slowdown = span;
    const cJSON *arr;
    int n;
    if ((rc = snap_array(L, o, p, "gpu_types", 0, PLACE_MAX_TYPES, &arr, &n)))
        return rc;
    int i = 0;
    for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next, i++) {
        char e[SIM__PATH_MAX_LEN];
        snap_child(q, p, "gpu_types");
        snap_element(e, q, i);
        uint32_t t;
        if ((rc = snap_type_index(L, s, v, e, &t)))
            return rc;
        j->type_mask |= 1ull << t;
    }
    if ((rc = snap_array(L, o, p, "flags", 0, 8, &arr, &n)))
        return rc;
    static const struct {
        const char *name;
        uint32_t bit;
    } flags[] = {{"can_span", PLACE_JOB_CAN_SPAN},
                 {"preemptible", PLACE_JOB_PREEMPTIBLE},
                 {"service", PLACE_JOB_SERVICE},
                 {"api_ok", PLACE_JOB_API_OK}};
    i = 0;
    for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next, i++) {
        char e[SIM__PATH_MAX_LEN];
        snap_child(q, p, "flags");
        snap_element(e, q, i);
        size_t f;
        for (f = 0; f < sizeof flags / sizeof flags[0]; f++)
            if (cJSON_IsString(v) && strcmp(v->valuestring, flags[f].name) == 0)
                break;
        if (f == sizeof flags / sizeof flags[0])
            return sim__cfg_fail(
                L, e, "expected \"can_span\", \"preemptible\", \"service\" or \"api_ok\"");
        j->flags |= flags[f].bit;
    }
    if ((rc = snap_array(L, o, p, "speed", 0, PLACE_MAX_TYPES, &arr, &n)))
        return rc;
    if (arr) {
        snap_child(q, p, "speed");
        if ((uint32_t)n != s->n_types)
            return sim__cfg_fail(L, q, "expected one speed per GPU type (%u), got %d", s->n_types,
                                 n);
        if (s->n_speeds + s->n_types > s->cap_speeds)
            return sim__cfg_fail(L, q, "internal: speed storage exhausted");
        double *sp = s->speeds + s->n_speeds;
        i = 0;
        for (const cJSON *v = arr->child; v; v = v->next, i++) {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
                v->valuedouble > 1e6) {
                char e[SIM__PATH_MAX_LEN];
                snap_element(e, q, i);
                return sim__cfg_fail(L, e, "expected a speed in [0, 1e6], got %s",
                                     sim__json_kind(v));
            }
            sp[i] = v->valuedouble;
        }
        j->speed = sp;
        s->n_speeds += s->n_types;
    }
    return TM_OK;
}

static int snap_parts(sim__loader *L, sim_snapshot *s, const cJSON *o, const char *p,
                      place_running *r)
{
    static const char *const part_keys[] = {"node",    "gpus",    "gpu", "milli",
                                            "mem_mib", "gpu_ids", NULL};
    const cJSON *arr;
    int n, rc;
    if ((rc = snap_array(L, o, p, "parts", 1, SNAP_MAX_PARTS, &arr, &n)))
        return rc;
    char q[SIM__PATH_MAX_LEN];
    snap_child(q, p, "parts");
    if (n < 1)
        return sim__cfg_fail(L, q, "a running job needs at least one part");
    if (s->n_parts + (size_t)n > s->cap_parts)
        return sim__cfg_fail(L, q, "internal: part storage exhausted");
    place_part *pt = s->parts + s->n_parts;
    int i = 0;
    for (const cJSON *v = arr->child; v; v = v->next, i++) {
        char e[SIM__PATH_MAX_LEN];
        snap_element(e, q, i);
        if ((rc = sim__cfg_check_object(L, v, e, part_keys)))
            return rc;
        int64_t node = 0, gpus = 0, milli = r->job.gpu_milli, mem = r->job.gpu_mem_mib;
        if ((rc = sim__cfg_get_int(L, v, e, "node", &node, 0, (int64_t)s->n_nodes - 1, 1)) ||
            (rc = sim__cfg_get_int(L, v, e, "gpus", &gpus, 0, PLACE_MAX_GPUS_PER_NODE, 1)) ||
            (rc = sim__cfg_get_int(L, v, e, "milli", &milli, 1, PLACE_MILLI_WHOLE, 0)) ||
            (rc = sim__cfg_get_int(L, v, e, "mem_mib", &mem, 0, UINT32_MAX, 0)))
            return rc;
        place_part *x = &pt[i];
        memset(x, 0, sizeof *x);
        x->node = (uint32_t)node;
        x->gpus = (uint16_t)gpus;
        x->milli = (uint32_t)milli;
        x->mem_mib = (uint32_t)mem;
        x->gpu = PLACE_GPU_ANY;
        const cJSON *g = sim__json_member(v, "gpu");
        if (g && !cJSON_IsNull(g)) {
            int64_t gi = 0;
            if ((rc = sim__cfg_get_int(L, v, e, "gpu", &gi, 0, PLACE_MAX_GPUS_PER_NODE - 1, 0)))
                return rc;
            x->gpu = (uint16_t)gi;
        }
        const cJSON *ids;
        int nid;
        if ((rc = snap_array(L, v, e, "gpu_ids", 1, PLACE_MAX_GPUS_PER_NODE, &ids, &nid)))
            return rc;
        int k = 0;
        for (const cJSON *id = ids->child; id; id = id->next, k++) {
            double y = cJSON_IsNumber(id) ? id->valuedouble : -1;
            char f[SIM__PATH_MAX_LEN], h[SIM__PATH_MAX_LEN];
            snap_child(f, e, "gpu_ids");
            snap_element(h, f, k);
            if (!cJSON_IsNumber(id) || y != floor(y) || y < 0 || y >= PLACE_MAX_GPUS_PER_NODE)
                return sim__cfg_fail(L, h, "expected a GPU index in [0, %u)",
                                     PLACE_MAX_GPUS_PER_NODE);
            uint64_t bit = 1ull << (uint32_t)y;
            if (x->mask & bit)
                return sim__cfg_fail(L, h, "GPU %d given twice", (int)y);
            x->mask |= bit;
        }
    }
    r->parts = pt;
    r->n_parts = (uint32_t)n;
    s->n_parts += (size_t)n;
    return TM_OK;
}

/* A job id names one job: the decisions refer to jobs by id, so two entries
 * with one id would make an answer ambiguous. Entry k is running[k] for
 * k < n_running, else queue[k - n_running]; sorted by (id, k), the first
 * repeat is reported at its later entry. O(n log n). */
typedef struct snap_idk {
    uint64_t id;
    uint32_t k;
} snap_idk;

static int idk_cmp(const void *a, const void *b)
{
    const snap_idk *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static void snap_entry_path(const sim_snapshot *s, uint32_t k, char *out)
{
    if (k < s->n_running)
        snap_element(out, "running", (int)k);
    else
        snap_element(out, "queue", (int)(k - s->n_running));
}

static int snap_unique_ids(sim__loader *L, const sim_snapshot *s)
{
    size_t n = (size_t)s->n_running + s->n_queue;
    if (n < 2)
        return TM_OK;
    snap_idk *v = malloc(n * sizeof *v);
    if (!v)
        return sim__cfg_oom(L);
    for (uint32_t k = 0; k < n; k++) {
        v[k].id = k < s->n_running ? s->running[k].job.id : s->queue[k - s->n_running].id;
        v[k].k = k;
    }
    qsort(v, n, sizeof *v, idk_cmp);
    int rc = TM_OK;
    for (size_t i = 1; i < n; i++)
        if (v[i].id == v[i - 1].id) {
            char p[SIM__PATH_MAX_LEN], first[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
            snap_entry_path(s, v[i].k, p);
            snap_entry_path(s, v[i - 1].k, first);
            snap_child(q, p, "id");
            rc = sim__cfg_fail(L, q, "job id %llu is already %s's: ids must be unique",
                               (unsigned long long)v[i].id, first);
            break;
        }
    free(v);
    return rc;
}

static int snap_tree(sim__loader *L, sim_snapshot *s, const cJSON *root)
{
    static const char *const keys[] = {"now_us",  "policy", "seed",      "gpu_types",    "nodes",
                                       "running", "queue",  "timeshare", "service_dist", NULL};
    int rc = sim__cfg_check_object(L, root, "", keys);
    if (rc)
        return rc;
    int64_t now = 0, seed = 1;
    if ((rc = sim__cfg_get_int(L, root, "", "now_us", &now, 0, SNAP_INT_MAX, 1)) ||
        (rc = sim__cfg_get_int(L, root, "", "seed", &seed, 0, SNAP_INT_MAX, 0)) ||
        (rc = sim__cfg_get_string(L, root, "", "policy", s->policy, sizeof s->policy, "")))
        return rc;
    s->now_us = now;
    s->seed = (uint64_t)seed;
    const cJSON *types, *nodes, *running, *queue;
    int nt, nn, nr, nq;
    if ((rc = snap_array(L, root, "", "gpu_types", 1, PLACE_MAX_TYPES, &types, &nt)) ||
        (rc = snap_array(L, root, "", "nodes", 1, SNAP_MAX_ITEMS, &nodes, &nn)) ||
        (rc = snap_array(L, root, "", "running", 0, SNAP_MAX_ITEMS, &running, &nr)) ||
        (rc = snap_array(L, root, "", "queue", 0, SNAP_MAX_ITEMS, &queue, &nq)))
        return rc;
    if (nt < 1)
        return sim__cfg_fail(L, "gpu_types", "expected at least one GPU type");
    static const char *const type_keys_snap[] = {"name", "mem_mib", NULL};
    int i = 0;
    for (const cJSON *o = types->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        snap_element(p, "gpu_types", i);
        int64_t mem = 0;
        if ((rc = sim__cfg_check_object(L, o, p, type_keys_snap)) ||
            (rc = sim__cfg_get_name(L, o, p, "name", s->type_name[i], SIM_NAME_MAX, NULL)) ||
            (rc = sim__cfg_get_int(L, o, p, "mem_mib", &mem, 0, UINT32_MAX, 1)))
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(s->type_name[k], s->type_name[i]) == 0)
                return sim__cfg_fail(L, p, "GPU type \"%s\" given twice", s->type_name[i]);
        s->type_mem_mib[i] = (uint32_t)mem;
    }
    s->n_types = (uint32_t)nt;
    /* storage, sized from the counts: parts and speeds bounded per entry */
    s->nodes = calloc(nn ? (size_t)nn : 1, sizeof *s->nodes);
    s->queue = calloc(nq ? (size_t)nq : 1, sizeof *s->queue);
    s->running = calloc(nr ? (size_t)nr : 1, sizeof *s->running);
    s->cap_speeds = (size_t)(nq + nr) * s->n_types;
    s->speeds = calloc(s->cap_speeds ? s->cap_speeds : 1, sizeof *s->speeds);
    size_t parts = 0;
    for (const cJSON *o = running ? running->child : NULL; o; o = o->next) {
        const cJSON *pa = cJSON_IsObject(o) ? sim__json_member(o, "parts") : NULL;
        int k = cJSON_IsArray(pa) ? cJSON_GetArraySize(pa) : 0;
        parts += (size_t)(k < SNAP_MAX_PARTS ? k : SNAP_MAX_PARTS);
    }
    s->cap_parts = parts;
    s->parts = calloc(parts ? parts : 1, sizeof *s->parts);
    if (!s->nodes || !s->queue || !s->running || !s->speeds || !s->parts)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    static const char *const node_keys[] = {"type", "gpus",      "cpu_milli", "mem_mib",
                                            "up",   "gpus_down", "tenant",    NULL};
    i = 0;
    for (const cJSON *o = nodes->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
        snap_element(p, "nodes", i);
        if ((rc = sim__cfg_check_object(L, o, p, node_keys)))
            return rc;
        sim_snapshot_node *nd = &s->nodes[i];
        int64_t gpus = 8;
        nd->cpu_milli = INT64_MAX / 4; /* absent: no limit, as in a scenario */
        nd->mem_mib = INT64_MAX / 4;
        nd->up = 1;
        snap_child(q, p, "type");
        const cJSON *tv = sim__json_member(o, "type");
        if (!tv)
            return sim__cfg_fail(L, q, "required: a GPU type name or index");
        if ((rc = snap_type_index(L, s, tv, q, &nd->type)) ||
            (rc = sim__cfg_get_int(L, o, p, "gpus", &gpus, 0, PLACE_MAX_GPUS_PER_NODE, 0)) ||
            (rc = sim__cfg_get_int(L, o, p, "cpu_milli", &nd->cpu_milli, 0, SNAP_INT_MAX, 0)) ||
            (rc = sim__cfg_get_int(L, o, p, "mem_mib", &nd->mem_mib, 0, SNAP_INT_MAX, 0)) ||
            (rc = sim__cfg_get_bool(L, o, p, "up", &nd->up)))
            return rc;
        nd->gpus = (uint32_t)gpus;
        if ((rc = snap_node_tenant(L, s, o, p, (uint32_t)i, (uint32_t)nn)))
            return rc;
        const cJSON *down;
        int ndown;
        if ((rc = snap_array(L, o, p, "gpus_down", 0, PLACE_MAX_GPUS_PER_NODE, &down, &ndown)))
            return rc;
        int k = 0;
        for (const cJSON *v = down ? down->child : NULL; v; v = v->next, k++) {
            double y = cJSON_IsNumber(v) ? v->valuedouble : -1;
            char e[SIM__PATH_MAX_LEN];
            snap_child(q, p, "gpus_down");
            snap_element(e, q, k);
            if (!cJSON_IsNumber(v) || y != floor(y) || y < 0 || y >= (double)nd->gpus)
                return sim__cfg_fail(L, e, "expected a GPU index below the node's %u GPUs",
                                     nd->gpus);
            nd->gpus_down |= 1ull << (uint32_t)y;
        }
    }
    s->n_nodes = (uint32_t)nn;
    i = 0;
    for (const cJSON *o = running ? running->child : NULL; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        snap_element(p, "running", i);
        place_running *r = &s->running[i];
        int64_t start = 0, end = -1, overhead = 0, checkpoint = 0;
        double lost = -1;
        if ((rc = snap_job(L, s, o, p, &r->job, 1)) ||
            (rc = sim__cfg_get_int(L, o, p, "start_us", &start, -SNAP_INT_MAX, SNAP_INT_MAX, 0)) ||
            (rc = sim__cfg_get_int(L, o, p, "end_estimate_us", &end, -1, SNAP_INT_MAX, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "lost_gpu_s", &lost, -1, 1e18, 0)) ||
            (rc = sim__cfg_get_int(L, o, p, "overhead_us", &overhead, 0, SNAP_INT_MAX, 0)) ||
            (rc = sim__cfg_get_int(L, o, p, "checkpoint_us", &checkpoint, 0, SNAP_INT_MAX, 0)) ||
            (rc = snap_parts(L, s, o, p, r)))
            return rc;
        r->start_us = start;
        r->end_estimate_us = end;
        r->lost_gpu_s = lost < 0 ? -1 : lost;
        r->overhead_us = overhead;
        r->checkpoint_us = checkpoint;
        s->n_running++;
    }
    i = 0;
    for (const cJSON *o = queue ? queue->child : NULL; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        snap_element(p, "queue", i);
        if ((rc = snap_job(L, s, o, p, &s->queue[i], 0)))
            return rc;
        s->n_queue++;
    }
    if ((rc = snap_unique_ids(L, s)))
        return rc;
    return sim__snap_sched(L, s, root);
}

int sim_snapshot_parse(sim_snapshot *s, const char *text, size_t len, const char *name,
                       tm_diag *diag)
{
    memset(s, 0, sizeof *s);
    tm_diag_clear(diag);
    sim__loader L = {name ? name : "(snapshot)", "", diag, NULL};
    if (len > SIM_SNAPSHOT_MAX_BYTES)
        return tm_diag_set(diag, TM_ERR_LIMIT, L.file, "larger than %u MiB",
                           (unsigned)(SIM_SNAPSHOT_MAX_BYTES >> 20));
    if (memchr(text, '\0', len))
        return tm_diag_set(diag, TM_ERR_JSON, L.file, "contains a NUL byte: not a JSON text");
    char *copy = malloc(len + 1);
    if (!copy)
        return tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    const char *end = NULL;
    int oom, rc;
    cJSON *root = sim__json_parse(copy, len + 1, &end, &oom);
    if (!root && oom) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    } else if (!root) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at || at < copy || at > copy + len)
            at = copy + len;
        sim__json_line_col(copy, at, &line, &col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d", L.file, line, col);
        rc = tm_diag_set(diag, TM_ERR_JSON, where,
                         "malformed JSON near \"%.20s\" (a syntax error, or nesting deeper "
                         "than %d levels)",
                         at, CJSON_NESTING_LIMIT);
    } else {
        rc = sim__json_no_nul(&L, copy, len);
        if (rc == TM_OK)
            rc = snap_tree(&L, s, root);
        cJSON_Delete(root);
    }
    free(copy);
    if (rc != TM_OK)
        sim_snapshot_fini(s);
    return rc;
}

void sim_snapshot_fini(sim_snapshot *s)
{
    if (!s)
        return;
    free(s->nodes);
    free(s->queue);
    free(s->running);
    free(s->parts);
    free(s->speeds);
    free(s->node_tenant);
    sim__snap_sched_fini(s);
    memset(s, 0, sizeof *s);
}
