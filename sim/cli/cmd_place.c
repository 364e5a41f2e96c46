/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_place.c — `tarmac place`: the production adapter of the placement core.
 *
 * Reads a cluster snapshot and the pending jobs (and the running jobs, for
 * preemption and backfilling) as JSON (docs/place-json.md), runs one pass of
 * the policy through exactly the library calls the simulator makes
 * (place_instance_init, place_cluster_*, place_pass_run), and writes the
 * decisions as JSON on stdout. The host side of the pass protocol (place.h,
 * place_decision_kind) is the engine's: a START is taken on the cluster and
 * appended to the running set, a PREEMPT gives its capacity back and leaves
 * the running set by swap-remove, a ROUTE_API marks the entry. So for the same
 * state the decisions are the simulator's (tests/test_place_json.c checks it).
 *
 * The cluster is rebuilt from the snapshot: nodes in service, then every
 * running job's allocation on exactly the GPUs it names
 * (place_cluster_take_exact), then the nodes and GPUs out of service. An
 * allocation that does not fit is bad input, named by its JSON path.
 *
 * State a policy keeps between passes comes with the snapshot: for policy
 * "gavel", the allocation X and the time each job has received (the
 * snapshot's "timeshare"; without X it is solved here, at a round boundary,
 * with the engine's solver, model/gavel_alloc.c, over the jobs the engine
 * would solve for, and written back as "allocation"); for "tiresias-2dlas
 * gittins=class", each class's service distribution ("service_dist"), without
 * which the policy is refused with a message saying so.
 *
 * After the decisions come the queue entries left waiting that no node of
 * the snapshot could ever hold ("unplaceable"), each with the reason the
 * simulator rejects such a job for (place_job_never_fits).
 *
 * Malformed input gets an error object on stdout ({"error": {"where",
 * "message"}}), the usual "tarmac: WHERE: MESSAGE" on stderr, and the exit
 * code of its status (65 for bad input); nothing else is written.
 */
#include "cli/cli_int.h"
#include "config/json_out.h"
#include "model/gavel_int.h"
#include "model/gittins_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static const char place_help[] =
    "Usage: tarmac place [--policy SPEC] [--seed N] [--max-input-bytes N] [--timeout S]\n"
    "                    [SNAPSHOT]\n"
    "       tarmac place --list\n"
    "\n"
    "Read a cluster snapshot and pending jobs as JSON (from SNAPSHOT, or stdin\n"
    "when it is absent or '-'), run one scheduling pass of the placement core,\n"
    "and write the decisions as JSON on stdout, with the queued jobs no node\n"
    "could ever hold (\"unplaceable\", and why). The format: docs/place-json.md.\n"
    "Policy gavel takes its allocation from the snapshot's \"timeshare\" or solves\n"
    "it; tiresias-2dlas gittins=class reads the snapshot's \"service_dist\".\n"
    "\n"
    "Options:\n"
    "  --policy SPEC  the policy, overriding the snapshot's \"policy\"\n"
    "                 (default: order=fifo placement=first-fit backfill=none)\n"
    "  --seed N       seed of the random stream of random policies (default: the\n"
    "                 snapshot's \"seed\", else 1)\n"
    "  --max-input-bytes N\n"
    "                 refuse a snapshot larger than N bytes (default 64 MiB, at most\n"
    "                 256 MiB)\n"
    "  --timeout S    give up after S seconds of wall time (a number, or with a unit:\n"
    "                 500ms, 2s; default 60; 0: no limit)\n"
    "  --list         list the policies, presets' components and their summaries\n"
    "\n"
    "Exit: 0 decisions written; 65 malformed snapshot or policy, or a limit hit;\n"
    "64 usage; 71 out of memory; 74 I/O. Every failure writes {\"error\": ...}.\n";

#define DEFAULT_POLICY          "order=fifo placement=first-fit backfill=none"
#define DEFAULT_MAX_INPUT_BYTES ((uint64_t)64 << 20)
#define DEFAULT_TIMEOUT_US      ((int64_t)60 * SIM_US_PER_S)

/* ------------------------------------------------------------------------- */
/* output                                                                     */

/* The error object on stdout ({"error": {"where", "message", "status"}}),
 * then the message on stderr; the exit code of rc. When even the object
 * cannot be built (out of memory), a fixed one says so: it holds no data, so
 * it needs no JSON writer to stay valid. */
static int report_error(int rc, const tm_diag *d)
{
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jnode *e = sim__jout_object(j, root, "error");
    sim__jout_str(j, e, "where", d->where);
    sim__jout_str(j, e, "message", d->msg[0] ? d->msg : tm_strerror(rc));
    sim__jout_str(j, e, "status", tm_status_name(rc));
    tm_diag jd;
    tm_diag_clear(&jd);
    if (sim__jout_print(j, stdout, SIM__JOUT_LINES, &jd) == TM_ERR_NOMEM)
        printf("{\"error\":{\"where\":\"json\",\"message\":\"out of memory\",\"status\":\"%s\"}}\n",
               tm_status_name(TM_ERR_NOMEM));
    fflush(stdout);
    sim__jout_free(j);
    return sim__cli_error(rc, d);
}

/* A start's parts: [{"node", "gpus", "gpu" (null: any), "milli", "mem_mib",
 * "gpu_ids"}]. */
static void put_parts(sim__jout *j, sim__jnode *o, const place_part *p, uint32_t n)
{
    sim__jnode *a = sim__jout_array(j, o, "parts");
    for (uint32_t k = 0; k < n; k++) {
        sim__jnode *e = sim__jout_object(j, a, NULL);
        sim__jout_uint(j, e, "node", p[k].node);
        sim__jout_uint(j, e, "gpus", p[k].gpus);
        if (p[k].gpu == PLACE_GPU_ANY)
            sim__jout_null(j, e, "gpu");
        else
            sim__jout_uint(j, e, "gpu", p[k].gpu);
        sim__jout_uint(j, e, "milli", p[k].milli);
        sim__jout_uint(j, e, "mem_mib", p[k].mem_mib);
        sim__jnode *ids = sim__jout_array(j, e, "gpu_ids");
        for (uint64_t m = p[k].mask; m; m &= m - 1)
            sim__jout_int(j, ids, NULL, __builtin_ctzll(m));
    }
}

/* ------------------------------------------------------------------------- */
/* the host                                                                   */

typedef struct logged {
    uint32_t kind, index;
    uint64_t id;
    place_part *parts; /* as applied (masks filled); START only */
    uint32_t n_parts;
} logged;

typedef struct host {
    const sim_snapshot *s;
    place_cluster c;
    uint8_t *qstate;
    place_running *run;
    uint32_t n_run, cap_run;
    place_part **owned; /* part blocks of jobs started in this pass */
    uint32_t n_owned;
    logged *log;
    uint32_t n_log, cap_log;
} host;

static void host_fini(host *h)
{
    for (uint32_t k = 0; k < h->n_owned; k++)
        free(h->owned[k]);
    free(h->owned);
    free(h->run);
    free(h->qstate);
    free(h->log);
    place_cluster_fini(&h->c);
}

static int apply(void *ud, place_view *v, place_decision *d)
{
    host *h = ud;
    if (h->n_log == h->cap_log)
        return PLACE_ERR_NOMEM; /* sized for every possible decision */
    logged *lg = &h->log[h->n_log];
    memset(lg, 0, sizeof *lg);
    lg->kind = d->kind;
    lg->index = d->index;
    switch (d->kind) {
    case PLACE_START: {
        const place_job *j = &h->s->queue[d->index];
        if (h->n_run == h->cap_run)
            return PLACE_ERR_NOMEM;
        place_part *p = malloc(d->n_parts * sizeof *p);
        if (!p)
            return PLACE_ERR_NOMEM;
        h->owned[h->n_owned++] = p;
        memcpy(p, d->parts, d->n_parts * sizeof *p);
        int rc = place_cluster_take(&h->c, j, p, d->n_parts);
        if (rc != PLACE_OK)
            return rc;
        h->qstate[d->index] = PLACE_Q_STARTED;
        place_running *r = &h->run[h->n_run++];
        memset(r, 0, sizeof *r);
        r->job = *j;
        r->start_us = h->s->now_us;
        r->end_estimate_us = place_end_estimate(&h->c, j, p, d->n_parts, h->s->now_us);
        r->overhead_us = j->restart_us;
        r->lost_gpu_s = -1; /* computed from the run so far, as the engine does */
        r->parts = p;
        r->n_parts = d->n_parts;
        lg->id = j->id;
        lg->parts = p;
        lg->n_parts = d->n_parts;
        break;
    }
    case PLACE_PREEMPT: {
        place_running *r = &h->run[d->index];
        lg->id = r->job.id;
        place_cluster_give(&h->c, &r->job, r->parts, r->n_parts);
        h->run[d->index] = h->run[--h->n_run]; /* swap-remove, as the engine does */
        break;
    }
    case PLACE_ROUTE_API:
        lg->id = h->s->queue[d->index].id;
        h->qstate[d->index] = PLACE_Q_ROUTED;
        break;
    default:
        return PLACE_ERR_INVAL;
    }
    h->n_log++;
    v->running = h->run;
    v->n_running = h->n_run;
    return PLACE_OK;
}

/* Rebuild the cluster of the snapshot; diag names the entry that does not fit. */
static int build(host *h, const char *name, tm_diag *diag)
{
    const sim_snapshot *s = h->s;
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    if (place_cluster_init(&h->c, &env, s->n_types, s->type_mem_mib) != PLACE_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "place", "out of memory");
    h->c.node_tenant = s->node_tenant; /* owners, for the partition rule */
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        const sim_snapshot_node *nd = &s->nodes[n];
        int rc =
            place_cluster_add_node(&h->c, nd->type, nd->gpus, nd->cpu_milli, nd->mem_mib, NULL);
        if (rc == PLACE_OK)
            rc = place_cluster_set_node_up(&h->c, n, 1);
        if (rc != PLACE_OK)
            return tm_diag_set(diag, rc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_SCENARIO, name,
                               "nodes[%u]: cannot add the node: %s", n, place_strerror(rc));
    }
    for (uint32_t k = 0; k < s->n_running; k++) {
        const place_running *r = &s->running[k];
        int rc = place_cluster_take_exact(&h->c, &r->job, r->parts, r->n_parts);
        if (rc != PLACE_OK) {
            char where[600];
            snprintf(where, sizeof where, "%s: running[%u]", name, k);
            return tm_diag_set(diag, TM_ERR_SCENARIO, where,
                               "its allocation does not fit the nodes: %s%s", place_strerror(rc),
                               rc == PLACE_ERR_INVAL
                                   ? " (gpu_ids must name free GPUs, as many as \"gpus\"; a "
                                     "share names its \"gpu\")"
                                   : "");
        }
    }
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        for (uint64_t m = s->nodes[n].gpus_down; m; m &= m - 1)
            place_cluster_set_gpu_up(&h->c, n, (uint32_t)__builtin_ctzll(m), 0);
        if (!s->nodes[n].up)
            place_cluster_set_node_up(&h->c, n, 0);
    }
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* the state of round-based and Gittins policies                              */

/* Gavel's allocation for the pass, as the engine hands it to the policy
 * (place_view.timeshare): the snapshot's own X, or X solved here by the
 * engine's solver (model/gavel_alloc.c) over the jobs the engine puts in
 * its problem. */
typedef struct gavel_pass {
    int solved; /* 1 when ts is set */
    place_timeshare ts;
    uint32_t n;   /* rows solved here (0 when the snapshot gave X) */
    uint64_t *id; /* the rows solved here, ids ascending */
    double *x, *recv, *act;
    uint32_t lps; /* LPs the solve took */
} gavel_pass;

static void gavel_pass_fini(gavel_pass *g)
{
    free(g->id);
    free(g->x);
    free(g->recv);
    free(g->act);
}

/* Hand the policy n rows over nt types: the snapshot's or those solved here. */
static void gavel_pass_rows(gavel_pass *g, uint32_t n, uint32_t nt, const uint64_t *id,
                            const double *x, const double *recv, const double *act)
{
    g->ts.n_rows = n;
    g->ts.n_types = nt;
    g->ts.job_id = id;
    g->ts.x = x;
    g->ts.recv_s = recv;
    g->ts.active_s = act;
    g->solved = 1;
}

typedef struct gkey {
    uint64_t id;
    uint32_t k; /* running index, or n_running + queue index */
} gkey;

static int gkey_cmp(const void *a, const void *b)
{
    const gkey *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The snapshot's timeshare row of job id, or UINT32_MAX. */
static uint32_t ts_row(const sim_snapshot *s, uint64_t id)
{
    uint32_t lo = 0, hi = s->n_ts;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->ts_id[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_ts && s->ts_id[lo] == id ? lo : UINT32_MAX;
}

/* Solve X for the objective as the engine's gavel_round does: the batch jobs
 * (not service replicas, with GPUs) running or queued, ids ascending; per
 * type the job's speed (unknown: 1) where place_type_ok allows it, else 0;
 * a GPU share counts its fraction; capacity the type's GPUs in service;
 * work left and whole work from the rows (ftf and makespan need them); age
 * since submission. A running job's previous row (fifo keeps types) is its
 * type now. The received and active seconds are the rows'. */
static int gavel_solve_pass(const sim_snapshot *s, const place_cluster *c, int objective,
                            gavel_pass *g, const char *name, tm_diag *d)
{
    uint32_t nt = s->n_types, n = 0, nj = s->n_running + s->n_queue;
    gkey *keys = malloc(((size_t)nj + 1) * sizeof *keys);
    double *thr = NULL, *gpus = NULL, *left = NULL, *total = NULL, *age = NULL, *prev = NULL;
    double cap[PLACE_MAX_TYPES];
    int rc = TM_OK;
    if (!keys)
        goto oom;
    for (uint32_t k = 0; k < nj; k++) {
        const place_job *j = k < s->n_running ? &s->running[k].job : &s->queue[k - s->n_running];
        if (!(j->flags & PLACE_JOB_SERVICE) && j->gpus > 0)
            keys[n++] = (gkey){j->id, k};
    }
    qsort(keys, n, sizeof *keys, gkey_cmp);
    size_t m = n ? n : 1;
    thr = malloc(m * nt * sizeof *thr);
    prev = calloc(m * nt, sizeof *prev);
    gpus = malloc(m * sizeof *gpus);
    left = malloc(m * sizeof *left);
    total = malloc(m * sizeof *total);
    age = malloc(m * sizeof *age);
    g->id = malloc(m * sizeof *g->id);
    g->x = calloc(m * nt, sizeof *g->x);
    g->recv = calloc(m * nt, sizeof *g->recv);
    g->act = calloc(m, sizeof *g->act);
    if (!thr || !prev || !gpus || !left || !total || !age || !g->id || !g->x || !g->recv || !g->act)
        goto oom;
    int needs_left = objective == SIM_GAVEL_FTF || objective == SIM_GAVEL_MAKESPAN;
    for (uint32_t t = 0; t < nt; t++)
        cap[t] = (double)c->type_gpus_up[t];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = keys[i].k;
        const place_job *j = k < s->n_running ? &s->running[k].job : &s->queue[k - s->n_running];
        g->id[i] = j->id;
        gpus[i] = (double)j->gpus * j->gpu_milli / PLACE_MILLI_WHOLE;
        for (uint32_t t = 0; t < nt; t++) {
            double sp = j->speed ? j->speed[t] : 1.0;
            if (!(sp > 0))
                sp = 1.0;
            thr[(size_t)i * nt + t] = place_type_ok(c, j, t) ? sp : 0.0;
        }
        if (k < s->n_running && s->running[k].n_parts)
            prev[(size_t)i * nt + c->node_type[s->running[k].parts[0].node]] = 1;
        uint32_t r = ts_row(s, j->id);
        if (r != UINT32_MAX) {
            memcpy(g->recv + (size_t)i * nt, s->ts_recv_s + (size_t)r * nt, nt * sizeof *g->recv);
            g->act[i] = s->ts_active_s[r];
        }
        left[i] = r != UINT32_MAX ? s->ts_left_s[r] : -1;
        if (left[i] < 0 && needs_left) {
            char where[600];
            if (k < s->n_running)
                snprintf(where, sizeof where, "%s: running[%u]", name, k);
            else
                snprintf(where, sizeof where, "%s: queue[%u]", name, k - s->n_running);
            rc = tm_diag_set(d, TM_ERR_SCENARIO, where,
                             "policy gavel %s needs the work job %llu has left: give it a "
                             "timeshare row with \"left_s\" (seconds at speed 1), or give "
                             "every row the allocation \"x\" (docs/place-json.md)",
                             place_gavel_objective_name(objective), (unsigned long long)j->id);
            goto out;
        }
        if (left[i] < 0)
            left[i] = 0;
        total[i] = r != UINT32_MAX && s->ts_total_s[r] >= 0 ? s->ts_total_s[r] : left[i];
        age[i] = (double)(s->now_us - j->submit_us) / 1e6;
    }
    sim__gavel_problem p = {
        .n_jobs = n,
        .n_types = nt,
        .thr = thr,
        .gpus = gpus,
        .cap = cap,
        .left_s = left,
        .total_s = total,
        .age_s = age,
        .prev_x = prev,
    };
    sim__gavel_stats st = {0};
    if ((rc = sim__gavel_solve(objective, &p, g->x, &st, d)) != TM_OK)
        goto out;
    g->n = n;
    g->lps = st.lps;
    gavel_pass_rows(g, n, nt, g->id, g->x, g->recv, g->act);
    goto out;
oom:
    rc = tm_diag_set(d, TM_ERR_NOMEM, "place", "out of memory");
out:
    free(keys);
    free(thr);
    free(prev);
    free(gpus);
    free(left);
    free(total);
    free(age);
    return rc;
}

/* The timeshare of policy "gavel": the snapshot's X when its rows give one,
 * else X solved here. Nothing for another policy. */
static int gavel_prepare(const sim_snapshot *s, const place_cluster *c, const char *policy,
                         gavel_pass *g, const char *name, tm_diag *d)
{
    int objective;
    int64_t round_us;
    int gs = sim__gavel_spec(policy, &objective, &round_us, d);
    if (gs <= 0)
        return gs; /* 0: not gavel; < 0: gavel with bad arguments (the message set) */
    g->ts.round_us = round_us;
    if (s->now_us % round_us != 0)
        return TM_OK; /* between boundaries the policy decides nothing: no X needed */
    if (s->ts_x) {
        gavel_pass_rows(g, s->n_ts, s->n_types, s->ts_id, s->ts_x, s->ts_recv_s, s->ts_active_s);
        return TM_OK;
    }
    return gavel_solve_pass(s, c, objective, g, name, d);
}

static uint64_t stream_rand(void *ud)
{
    gsl_rng *r = ud;
    uint64_t hi = gsl_rng_get(r) & 0xffffffffu;
    uint64_t lo = gsl_rng_get(r) & 0xffffffffu;
    return (hi << 32) | lo;
}

/* ------------------------------------------------------------------------- */
/* input                                                                      */

/* Read all of path (stdin when NULL), refusing more than max bytes. */
static int read_input(const char *path, size_t max, char **buf, size_t *len, tm_diag *d)
{
    FILE *f = path ? fopen(path, "rb") : stdin;
    const char *name = path ? path : "stdin";
    if (!f)
        return tm_diag_set(d, errno == ENOENT ? TM_ERR_NOTFOUND : TM_ERR_IO, name,
                           "cannot open: %s", strerror(errno));
    /* a folder opens, then fails to read (EISDIR, 74): it is not a snapshot
     * file at all, 66 as for every command's input */
    struct stat sb;
    if (path && fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return tm_diag_set(d, TM_ERR_NOTFOUND, name, "is a folder, not a file");
    }
    size_t cap = 0, n = 0;
    char *b = NULL;
    int rc = TM_OK;
    for (;;) {
        if (n > max) {
            rc = tm_diag_set(d, TM_ERR_LIMIT, name,
                             "larger than %zu bytes (the limit of --max-input-bytes)", max);
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            if (cap > max + 1)
                cap = max + 1; /* one byte more than allowed tells a file too large */
            char *nb = realloc(b, cap + 1);
            if (!nb) {
                rc = tm_diag_set(d, TM_ERR_NOMEM, name, "out of memory");
                break;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = tm_diag_set(d, TM_ERR_IO, name, "read error: %s", strerror(errno));
            break;
        }
    }
    if (path)
        fclose(f);
    if (rc != TM_OK) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return TM_OK;
}

static void list_components(void)
{
    size_t n;
    printf("policies:\n");
    const place_policy *const *p = place_policy_list(&n);
    for (size_t i = 0; i < n; i++)
        printf("  %-16s %s\n", p[i]->name, p[i]->summary);
#define LIST_(kind, title)                                                                         \
    do {                                                                                           \
        const place_##kind *const *l_ = place_##kind##_list(&n);                                   \
        printf("%s:\n", title);                                                                    \
        for (size_t i_ = 0; i_ < n; i_++)                                                          \
            printf("  %-16s %s\n", l_[i_]->name, l_[i_]->summary);                                 \
    } while (0)
    LIST_(order, "order=");
    LIST_(fit, "placement=");
    LIST_(backfill, "backfill=");
    LIST_(preempt, "preempt=");
    LIST_(service, "service=");
    LIST_(partition, "partition=");
#undef LIST_
}

/* ------------------------------------------------------------------------- */
/* the time limit                                                             */

/* When the time limit strikes, the handler writes the error object and the
 * message prepared in advance (write(2) is async-signal-safe; stdio is not)
 * and exits. The timer is stopped before the decisions are written, so the
 * two outputs never mix. */
static char timeout_out[512], timeout_err[512];
static size_t timeout_out_len, timeout_err_len;

static void on_timeout(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDOUT_FILENO, timeout_out, timeout_out_len);
    ignored = write(STDERR_FILENO, timeout_err, timeout_err_len);
    (void)ignored;
    _exit(tm_status_exit_code(TM_ERR_LIMIT));
}

/* SIGINT and SIGTERM before the answer is ready: the same way, an error
 * object and exit 130 (the handler of either is set back to the default
 * when the answer is written, so a signal then ends the process as usual). */
static char intr_out[512], intr_err[512];
static size_t intr_out_len, intr_err_len;

static void on_interrupt(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDOUT_FILENO, intr_out, intr_out_len);
    ignored = write(STDERR_FILENO, intr_err, intr_err_len);
    (void)ignored;
    _exit(tm_status_exit_code(TM_ERR_INTERRUPTED));
}

static void timeout_start(int64_t us, const char *name)
{
    char sec[32], where[128];
    snprintf(sec, sizeof sec, "%.6g", (double)us / SIM_US_PER_S);
    /* the input's name as a JSON string body (cut short if long) */
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && w + 7 < sizeof where; p++) {
        if (*p == '"' || *p == '\\')
            w += (size_t)snprintf(where + w, sizeof where - w, "\\%c", *p);
        else if (*p < 0x20)
            w += (size_t)snprintf(where + w, sizeof where - w, "\\u%04x", *p);
        else
            where[w++] = (char)*p;
    }
    where[w] = '\0';
    int n = snprintf(intr_out, sizeof intr_out,
                     "{\"error\":{\"where\":\"%s\",\"message\":\"interrupted (SIGINT or SIGTERM) "
                     "before an answer\",\"status\":\"%s\"}}\n",
                     where, tm_status_name(TM_ERR_INTERRUPTED));
    intr_out_len = n > 0 && (size_t)n < sizeof intr_out ? (size_t)n : 0;
    n = snprintf(intr_err, sizeof intr_err,
                 "tarmac: place: %s: interrupted while answering (no decision written)\n", name);
    intr_err_len = n > 0 && (size_t)n < sizeof intr_err ? (size_t)n : 0;
    fflush(stdout);
    struct sigaction si;
    memset(&si, 0, sizeof si);
    si.sa_handler = on_interrupt;
    sigemptyset(&si.sa_mask);
    sigaction(SIGINT, &si, NULL);
    sigaction(SIGTERM, &si, NULL);
    if (us <= 0)
        return;
    n = snprintf(timeout_out, sizeof timeout_out,
                 "{\"error\":{\"where\":\"%s\",\"message\":\"no answer within the time "
                 "limit of %s s (--timeout)\",\"status\":\"%s\"}}\n",
                 where, sec, tm_status_name(TM_ERR_LIMIT));
    timeout_out_len = n > 0 && (size_t)n < sizeof timeout_out ? (size_t)n : 0;
    n = snprintf(timeout_err, sizeof timeout_err,
                 "tarmac: place: %s: no answer within the time limit of %s s (--timeout)\n", name,
                 sec);
    timeout_err_len = n > 0 && (size_t)n < sizeof timeout_err ? (size_t)n : 0;
    fflush(stdout);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timeout;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(us / SIM_US_PER_S);
    it.it_value.tv_usec = (suseconds_t)(us % SIM_US_PER_S);
    setitimer(ITIMER_REAL, &it, NULL);
}

static void timeout_stop(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

/* ------------------------------------------------------------------------- */
/* the command                                                                */

enum { O_POLICY = 256, O_MAX_INPUT_BYTES, O_TIMEOUT, O_LIST };

static const sim__cli_opt place_opts[] = {
    {"policy", O_POLICY, 1, "a specification"},
    {"max-input-bytes", O_MAX_INPUT_BYTES, 1, "an integer in [0, 268435456]"},
    {"timeout", O_TIMEOUT, 1, "a duration: seconds, or 500ms, 2s, ..."},
    {"list", O_LIST, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec place_spec = {
    .cmd = &sim__cmd_place,
    .shared = SIM__CLI_SEED,
    .operand = "snapshot file",
    .max_operands = 1,
    .opts = place_opts,
};

static int cmd_place(int argc, char **argv)
{
    const char *policy = NULL;
    uint64_t max_input = DEFAULT_MAX_INPUT_BYTES;
    int64_t timeout_us = DEFAULT_TIMEOUT_US;
    sim__cli_args a;
    sim__cli_args_init(&a, &place_spec, argc, argv);
    int key;
    const char *val;
    while ((key = sim__cli_next(&a, &val)) > 0) {
        switch (key) {
        case O_POLICY:
            policy = val;
            break;
        case O_MAX_INPUT_BYTES:
            if (sim__cli_parse_u64(val, SIM_SNAPSHOT_MAX_BYTES, &max_input) != 0)
                return sim__cli_usage("place", "%s needs an integer in [0, %u]", a.opt,
                                      (unsigned)SIM_SNAPSHOT_MAX_BYTES);
            break;
        case O_TIMEOUT:
            if (sim__cli_parse_duration(val, &timeout_us) != 0)
                return sim__cli_bad_value(&a);
            break;
        case O_LIST:
            list_components();
            return 0;
        }
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    /* no operand or "-": stdin */
    const char *path = a.n_operands && strcmp(a.operands[0], "-") != 0 ? a.operands[0] : NULL;
    uint64_t seed = a.seed;
    tm_diag d;
    tm_diag_clear(&d);
    char *text = NULL;
    size_t len = 0;
    timeout_start(timeout_us, path ? path : "stdin");
    int rc = read_input(path, (size_t)max_input, &text, &len, &d);
    if (rc != TM_OK) {
        timeout_stop();
        return report_error(rc, &d);
    }
    sim_snapshot s;
    rc = sim_snapshot_parse(&s, text, len, path ? path : "stdin", &d);
    free(text);
    if (rc != TM_OK) {
        timeout_stop();
        return report_error(rc, &d);
    }
    if (!policy)
        policy = s.policy[0] ? s.policy : DEFAULT_POLICY;
    if (!a.have_seed)
        seed = s.seed;

    int io_broken = 0;
    host h;
    memset(&h, 0, sizeof h);
    h.s = &s;
    place_instance pi;
    memset(&pi, 0, sizeof pi);
    gavel_pass gp;
    memset(&gp, 0, sizeof gp);
    gsl_rng *r = NULL;
    place_part *scratch = NULL;
    uint32_t cap = s.n_running + s.n_queue;
    h.cap_run = cap;
    h.cap_log = cap + 1;
    h.run = calloc(cap ? cap : 1, sizeof *h.run);
    h.qstate = calloc(s.n_queue ? s.n_queue : 1, 1);
    h.log = calloc(h.cap_log, sizeof *h.log);
    h.owned = calloc(s.n_queue ? s.n_queue : 1, sizeof *h.owned);
    uint32_t cap_parts = s.n_nodes ? (s.n_nodes < 65536 ? s.n_nodes : 65536) : 1;
    scratch = calloc(cap_parts, sizeof *scratch);
    r = sim_rng_new(seed, 0, SIM_STREAM_POLICY, 0);
    if (!h.run || !h.qstate || !h.log || !h.owned || !scratch || !r) {
        rc = tm_diag_set(&d, TM_ERR_NOMEM, "place", "out of memory");
        goto out;
    }
    memcpy(h.run, s.running, s.n_running * sizeof *h.run);
    h.n_run = s.n_running;
    if ((rc = build(&h, path ? path : "stdin", &d)) != TM_OK)
        goto out;
    place_env env = {place_alloc_libc, NULL, stream_rand, r};
    char perr[256];
    int prc = place_instance_init(&pi, &env, policy, perr, sizeof perr);
    if (prc != PLACE_OK) {
        rc = tm_diag_set(&d, prc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_POLICY, "policy", "%s",
                         perr[0] ? perr : place_strerror(prc));
        goto out;
    }
    if (sim__gittins_spec(policy) && s.n_service_dist == 0) {
        rc = tm_diag_set(&d, TM_ERR_POLICY, "policy",
                         "'%s': gittins=class needs each class's service distribution, which "
                         "this snapshot does not carry: give it \"service_dist\" "
                         "(docs/place-json.md), or use gittins=V:W,... or gittins=learn",
                         policy);
        goto out;
    }
    if ((rc = gavel_prepare(&s, &h.c, policy, &gp, path ? path : "stdin", &d)) != TM_OK)
        goto out;
    place_view v = {s.now_us,
                    &h.c,
                    s.queue,
                    h.qstate,
                    s.n_queue,
                    h.run,
                    h.n_run,
                    gp.solved ? &gp.ts : NULL,
                    s.n_service_dist ? s.service_dist : NULL,
                    s.n_service_dist};
    place_pass_stats st;
    prc = place_pass_run(&pi, &v, h.qstate, scratch, cap_parts, apply, &h, &st);
    if (prc == PLACE_ERR_NOMEM) {
        rc = tm_diag_set(&d, TM_ERR_NOMEM, "place", "out of memory");
        goto out;
    }
    if (prc < 0) {
        rc = tm_diag_set(&d, TM_ERR_POLICY, "policy", "policy '%s' failed: %s", policy,
                         place_strerror(prc));
        goto out;
    }
    /* answered in time: from here on only the output is left to write */
    timeout_stop();
    /* one decision per line, so that a reader (or a diff) can take them one
     * by one (SIM__JOUT_LINES) */
    {
        sim__jnode *root;
        sim__jout *j = sim__jout_new(&root);
        sim__jnode *dec = sim__jout_array(j, root, "decisions");
        for (uint32_t k = 0; k < h.n_log; k++) {
            const logged *lg = &h.log[k];
            sim__jnode *o = sim__jout_object(j, dec, NULL);
            sim__jout_str(j, o, "kind",
                          lg->kind == PLACE_START     ? "start"
                          : lg->kind == PLACE_PREEMPT ? "preempt"
                                                      : "route_api");
            sim__jout_uint(j, o, lg->kind == PLACE_PREEMPT ? "running_index" : "queue_index",
                           lg->index);
            sim__jout_uint(j, o, "job_id", lg->id);
            if (lg->kind == PLACE_START)
                put_parts(j, o, lg->parts, lg->n_parts);
        }
        sim__jnode *so = sim__jout_object(j, root, "stats");
        sim__jout_uint(j, so, "started", st.started);
        sim__jout_uint(j, so, "preempted", st.preempted);
        sim__jout_uint(j, so, "routed", st.routed);
        sim__jout_uint(j, so, "invalid", st.invalid);
        sim__jout_str(j, so, "last_invalid",
                      st.invalid ? place_status_name(st.last_invalid) : NULL);
        sim__jout_str(j, root, "policy", policy);
        /* the jobs left waiting that no node could ever hold, with the reason the
         * simulator would reject them for at arrival (place_job_never_fits) */
        sim__jnode *un = sim__jout_array(j, root, "unplaceable");
        place_capacity capacity;
        place_capacity_init(&capacity, &h.c);
        for (uint32_t k = 0; k < s.n_queue; k++) {
            int why = h.qstate[k] == PLACE_Q_STARTED || h.qstate[k] == PLACE_Q_ROUTED
                          ? PLACE_NEVER_NONE
                          : place_job_never_fits(&capacity, &s.queue[k]);
            if (why == PLACE_NEVER_NONE)
                continue;
            sim__jnode *o = sim__jout_object(j, un, NULL);
            sim__jout_uint(j, o, "queue_index", k);
            sim__jout_uint(j, o, "job_id", s.queue[k].id);
            sim__jout_str(j, o, "reason", place_never_reason_key(why));
            sim__jout_str(j, o, "message", place_never_reason_str(why));
        }
        /* the allocation solved for the pass, one row per line, for the
         * caller to keep and send back as the rows' "x" */
        if (gp.n) {
            sim__jnode *al = sim__jout_array(j, root, "allocation");
            for (uint32_t k = 0; k < gp.n; k++) {
                sim__jnode *o = sim__jout_object(j, al, NULL);
                sim__jout_uint(j, o, "id", gp.id[k]);
                sim__jnode *xa = sim__jout_array(j, o, "x");
                for (uint32_t t = 0; t < s.n_types; t++)
                    sim__jout_num(j, xa, NULL, gp.x[(size_t)k * s.n_types + t]);
            }
        }
        rc = sim__jout_print(j, stdout, SIM__JOUT_LINES, &d);
        sim__jout_free(j);
        /* the decisions are incomplete; stdout is broken, so say it on stderr */
        io_broken = rc == TM_ERR_IO;
    }
out:
    timeout_stop();
    place_instance_fini(&pi);
    gavel_pass_fini(&gp);
    free(scratch);
    if (r)
        gsl_rng_free(r);
    host_fini(&h);
    sim_snapshot_fini(&s);
    if (rc == TM_OK)
        return 0;
    return io_broken ? sim__cli_error(rc, &d) : report_error(rc, &d);
}

const sim__cli_command sim__cmd_place = {
    "place",    cmd_place, "one scheduling pass on a cluster snapshot (JSON in, decisions out)",
    place_help, NULL,
};
