/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tiresias.c — Tiresias (Gu et al., NSDI 2019): discretised 2D-LAS with
 * preemption, starvation promotion, the Gittins-index variant and
 * consolidated or relaxed placement, as one whole policy ("tiresias-2dlas";
 * the preset "tiresias" is this policy with its defaults). docs/tiresias.md
 * states the rules, the parameters and where this differs from the paper and
 * the authors' simulator.
 *
 * Queues. A job's executed service is its attained GPU service (GPUs x time
 * it has run: place_job.attained_gpu_s for a waiting job; for a running one
 * that plus its width times the time since start_us, its current run) minus
 * what it had when it was last promoted. K thresholds split it into K + 1
 * queues; a new job is in queue 0. A running job whose executed service
 * crosses a threshold is demoted; the policy asks for a pass at the next
 * crossing (place_policy.wake), so that a waiting job of a higher queue may
 * preempt it then.
 *
 * A pass walks the waiting jobs by queue (0 first); within a queue in
 * arrival order (FIFO, the paper's default) or, with a duration distribution,
 * by Gittins index (highest first, ties in arrival order). A job that fits
 * starts; one that does not may preempt running jobs of strictly lower queues
 * (preemptible, whole-GPU, started before now), taken lowest queue first,
 * then least executed service, then latest arrival, until the job fits on
 * what they free; victims that turn out not to be needed are put back
 * (latest first). A job that still does not fit is stepped over (greedy, as
 * the authors' simulator places every queue in order). The host stops the
 * victims (PREEMPT), which pay their class's checkpoint loss and restart
 * overhead in the ledger, then starts the job (START).
 *
 * Starvation (STARVELIMIT): a job in a queue below 0 that has run and has
 * waited, since it last stopped, at least `starve` times its executed time
 * (executed GPU service / GPUs) goes back to queue 0 with its executed
 * service reset; the policy asks for a pass when that happens. 0 = off.
 *
 * Gittins index (2D-Gittins): for executed service a and quantum D, over a
 * distribution S of total GPU service, G(a) = P(S - a <= D | S > a) /
 * E[min(S - a, D) | S > a]; 0 when no mass lies above a. The distribution is
 * given in the specification (gittins=V:W,V:W... weighted values in
 * GPU-seconds), learned (gittins=learn) from the jobs this policy saw
 * finish: their executed service when they left the running set without
 * being preempted by it (a completion, or a kill, seen at the next pass),
 * or per class from the host (gittins=class: place_view.service_dist, the
 * discretised GPU service of the class's configured distributions; a job's
 * index is over its own class's distribution).
 *
 * Placement: consolidated puts a gang on one node, or when it is wider than
 * any node of its type on the fewest nodes that can hold it, and waits
 * otherwise; relaxed takes any free GPUs (first fit, spanning nodes in index
 * order when the job may span). skewed=C,C... consolidates only those
 * classes (the paper consolidates models with skewed tensor sizes) and
 * relaxes the others.
 *
 * Arguments (space-separated key=value): thresholds=T,T... (GPU-seconds,
 * ascending; default 3250,7200: three queues, as the authors' simulator),
 * starve=R (default 0: off), placement=consolidated|relaxed (default
 * consolidated), skewed=C,C..., gittins=learn|class|V:W,V:W..., delta=D
 * (GPU-seconds, default 3250).
 *
 * Cost per pass: O((Q + R) log(Q + R)) for Q waiting and R running jobs,
 * plus per job that does not fit O(victims of lower queues x parts).
 * Source: Gu et al., "Tiresias: A GPU cluster manager for distributed deep
 * learning", NSDI 2019; its simulator github.com/SymbioticLab/Tiresias
 * (run_sim.py, dlas_sim_jobs), read for the rules; the code is ours.
 *
 * One file, just past a thousand lines: the ordering, the preemption plan
 * and the wake-ups share the per-job records (service at the last
 * promotion, time waited since the last stop) and the learned distribution,
 * which is why this is a whole policy rather than an order and a preempt
 * component. The seam for a split is the Gittins distribution (parse_dist
 * to gittins), which touches nothing else of the state.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR_MAX_THR    15
#define TR_MAX_SKEWED 64
#define TR_MAX_SAMPLE (1u << 20) /* learned samples kept, at most */
#define TR_EPS        1e-6       /* GPU-seconds: a crossing within this counts as reached */
#define TR_MAX_VALUE  1e15       /* thresholds, delta, distribution values and weights, at most */

enum { TR_CONSOLIDATED = 0, TR_RELAXED = 1 };
enum { TR_GITTINS_OFF = 0, TR_GITTINS_GIVEN = 1, TR_GITTINS_LEARN = 2, TR_GITTINS_CLASS = 3 };

/* What the policy remembers of a job across passes, by id. */
typedef struct rec {
    uint64_t id;
    double base;     /* attained service at its last promotion (executed = attained - base) */
    int64_t pend_us; /* time waited since it last stopped (reset at promotion) */
    int64_t seen_us; /* when it was last seen */
    uint8_t running; /* running when last seen */
    uint8_t used;
    /* a running job's service rate and service at start, for learning */
    double att0, rate;
    int64_t start_us;
} rec;

/* A point of the duration distribution. */
typedef struct dpt {
    double v, w, pw, pwv;
} dpt;

/* Per node scratch: GPUs and host capacity the chosen victims free there,
 * valid when stamp is the current stamp. */
typedef struct nx {
    uint32_t g, stamp;
    int64_t cpu, mem;
} nx;

/* A node and the GPUs it would have free (consolidated spans sort these). */
typedef struct nfree {
    uint32_t f, n;
} nfree;

/* A waiting job of the pass, in the order it is considered. */
typedef struct ent {
    uint32_t idx, level;
    double rank; /* Gittins index (0 without) */
} ent;

/* A candidate victim: a running job of the pass. */
typedef struct vic {
    uint64_t id;
    uint32_t level;
    double exec;
    int64_t submit;
    uint32_t gone; /* stopped or no longer running */
} vic;

typedef struct tires {
    place_env env;
    double thr[TR_MAX_THR];
    uint32_t n_thr;
    double starve, delta;
    int placement;
    uint32_t skewed[TR_MAX_SKEWED], n_skewed;
    int gittins;
    /* distribution: values ascending with weights, prefix sums of w and w*v */
    dpt *d;
    uint32_t n_d, cap_d;
    int dirty_d; /* learned samples arrived: sort and sum again */
    /* gittins=class: the view's per-class distributions, with prefix sums;
     * class k's points are cd[c_off[k] .. c_off[k + 1]) */
    dpt *cd;
    uint32_t cap_cd;
    uint32_t *c_off;
    uint32_t cap_off, n_cls;
    const place_service_dist *cd_src; /* the view's tables they were made from */
    /* job records: open addressing, rebuilt each pass */
    rec *tab;
    uint32_t tcap; /* power of two, at most half full */
    uint32_t n_rec;
    /* the pass */
    int64_t now;
    ent *ent;
    uint32_t n_ent, cap_ent, cursor;
    vic *vic;
    uint32_t n_vic, cap_vic;
    int vic_sorted;                    /* sorted lazily, at the first plan of the pass */
    uint64_t lvl_gpus[TR_MAX_THR + 1]; /* GPUs the candidate victims hold, per queue */
    uint32_t *vsel;                    /* chosen victims (indices into vic) */
    uint32_t cap_vsel;
    /* scratch per node: GPUs and host capacity freed by chosen victims */
    nx *nx;
    uint32_t cap_node, cur_stamp;
    uint32_t *touched, n_touched, cap_touched;
    nfree *order; /* node order for consolidated spans */
    uint32_t cap_order;
    /* a plan in progress: victims by id, then the START */
    int plan;
    uint32_t plan_queue, plan_n, plan_next;
    uint64_t *plan_ids;
    uint32_t cap_plan_ids;
    place_part *plan_parts;
    uint32_t plan_n_parts, cap_plan_parts;
    int64_t wake_starve; /* earliest starvation promotion among waiting jobs */
} tires;

/* ------------------------------------------------------------------------- */
/* arguments                                                                  */

static int parse_list(const char *s, double *out, uint32_t cap, uint32_t *n)
{
    return place__parse_numbers(s, out, cap, n);
}

static int dist_push(tires *s, double v, double w)
{
    if (place__grow(&s->env, (void **)&s->d, &s->cap_d, s->n_d + 1, sizeof *s->d) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    s->d[s->n_d].v = v;
    s->d[s->n_d].w = w;
    s->n_d++;
    s->dirty_d = 1;
    return PLACE_OK;
}

static int parse_dist(tires *s, const char *p)
{
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || *end != ':' || !(v >= 0) || v > TR_MAX_VALUE)
            return PLACE_ERR_SPEC;
        p = end + 1;
        double w = strtod(p, &end);
        if (end == p || !(w > 0) || w > TR_MAX_VALUE)
            return PLACE_ERR_SPEC;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return PLACE_ERR_SPEC;
        if (dist_push(s, v, w) != PLACE_OK)
            return PLACE_ERR_NOMEM;
    }
    return s->n_d ? PLACE_OK : PLACE_ERR_SPEC;
}

static void tr_destroy(void *state);

static int tr_create(const place_env *env, const char *args, void **state, char *err,
                     size_t err_len)
{
    tires *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->thr[0] = 3250;
    s->thr[1] = 7200;
    s->n_thr = 2;
    s->delta = 3250;
    s->placement = TR_CONSOLIDATED;
    const char *p = args ? args : "";
    char tok[4096], shown[128] = "";
    int rc = PLACE_OK;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " \t");
        snprintf(shown, sizeof shown, "%.*s", len < 100 ? (int)len : 100, p);
        if (len >= sizeof tok) {
            rc = PLACE_ERR_SPEC;
            goto bad;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        p += len;
        char *eq = strchr(tok, '=');
        const char *val = eq ? eq + 1 : "";
        if (eq)
            *eq = '\0';
        rc = PLACE_ERR_SPEC;
        if (!eq) {
            goto bad;
        } else if (strcmp(tok, "thresholds") == 0) {
            uint32_t n;
            if (parse_list(val, s->thr, TR_MAX_THR, &n) != PLACE_OK || n == 0)
                goto bad;
            for (uint32_t k = 0; k < n; k++)
                if (!(s->thr[k] > 0) || s->thr[k] > TR_MAX_VALUE ||
                    (k > 0 && s->thr[k] <= s->thr[k - 1]))
                    goto bad;
            s->n_thr = n;
        } else if (strcmp(tok, "starve") == 0) {
            char *end;
            double x = strtod(val, &end);
            if (end == val || *end || !(x >= 0) || x > 1e9)
                goto bad;
            s->starve = x;
        } else if (strcmp(tok, "delta") == 0) {
            char *end;
            double x = strtod(val, &end);
            if (end == val || *end || !(x > 0) || x > TR_MAX_VALUE)
                goto bad;
            s->delta = x;
        } else if (strcmp(tok, "placement") == 0) {
            if (strcmp(val, "consolidated") == 0)
                s->placement = TR_CONSOLIDATED;
            else if (strcmp(val, "relaxed") == 0)
                s->placement = TR_RELAXED;
            else
                goto bad;
        } else if (strcmp(tok, "skewed") == 0) {
            double c[TR_MAX_SKEWED];
            uint32_t n;
            if (parse_list(val, c, TR_MAX_SKEWED, &n) != PLACE_OK || n == 0)
                goto bad;
            for (uint32_t k = 0; k < n; k++) {
                if (!(c[k] >= 0) || c[k] > 4e9 || c[k] != floor(c[k]))
                    goto bad;
                s->skewed[k] = (uint32_t)c[k];
            }
            s->n_skewed = n;
        } else if (strcmp(tok, "gittins") == 0) {
            if (s->gittins != TR_GITTINS_OFF)
                goto bad;
            if (strcmp(val, "learn") == 0) {
                s->gittins = TR_GITTINS_LEARN;
            } else if (strcmp(val, "class") == 0) {
                s->gittins = TR_GITTINS_CLASS;
            } else {
                int r = parse_dist(s, val);
                if (r == PLACE_ERR_NOMEM) {
                    rc = r;
                    goto bad;
                }
                if (r != PLACE_OK)
                    goto bad;
                s->gittins = TR_GITTINS_GIVEN;
            }
        } else {
            goto bad;
        }
    }
    *state = s;
    return PLACE_OK;
bad:
    if (err && err_len && rc == PLACE_ERR_SPEC) {
        snprintf(err, err_len,
                 "policy 'tiresias-2dlas': bad argument '%.80s' (thresholds=T,T... ascending "
                 "GPU-seconds, at most %d; starve=R; delta=D; placement=consolidated|relaxed; "
                 "skewed=C,C...; gittins=learn|class|V:W,V:W...)",
                 shown, TR_MAX_THR);
    }
    tr_destroy(s);
    return rc;
}

static void tr_destroy(void *state)
{
    tires *s = state;
    if (!s)
        return;
    place_env *e = &s->env;
    place__free(e, s->d, s->cap_d * sizeof *s->d);
    place__free(e, s->cd, s->cap_cd * sizeof *s->cd);
    place__free(e, s->c_off, s->cap_off * sizeof *s->c_off);
    place__free(e, s->tab, s->tcap * sizeof *s->tab);
    place__free(e, s->ent, s->cap_ent * sizeof *s->ent);
    place__free(e, s->vic, s->cap_vic * sizeof *s->vic);
    place__free(e, s->vsel, s->cap_vsel * sizeof *s->vsel);
    place__free(e, s->nx, s->cap_node * sizeof *s->nx);
    place__free(e, s->touched, s->cap_touched * sizeof *s->touched);
    place__free(e, s->order, s->cap_order * sizeof *s->order);
    place__free(e, s->plan_ids, s->cap_plan_ids * sizeof *s->plan_ids);
    place__free(e, s->plan_parts, s->cap_plan_parts * sizeof *s->plan_parts);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

/* ------------------------------------------------------------------------- */
/* job records                                                                */

static uint32_t rec_slot(uint64_t id, uint32_t cap)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

static rec *rec_find(rec *tab, uint32_t cap, uint64_t id)
{
    if (!cap)
        return NULL;
    for (uint32_t h = rec_slot(id, cap);; h = (h + 1) & (cap - 1)) {
        if (!tab[h].used)
            return NULL;
        if (tab[h].id == id)
            return &tab[h];
    }
}

static rec *rec_put(rec *tab, uint32_t cap, uint64_t id)
{
    uint32_t h = rec_slot(id, cap);
    while (tab[h].used && tab[h].id != id)
        h = (h + 1) & (cap - 1);
    if (!tab[h].used) {
        memset(&tab[h], 0, sizeof tab[h]);
        tab[h].used = 1;
        tab[h].id = id;
    }
    return &tab[h];
}

/* GPU service per second of a job (GPUs x share). */
static double job_rate(const place_job *j)
{
    return (double)j->gpus * (double)j->gpu_milli / PLACE_MILLI_WHOLE;
}

static double running_attained(const place_running *r, int64_t now)
{
    int64_t el = now > r->start_us ? now - r->start_us : 0;
    return r->job.attained_gpu_s + job_rate(&r->job) * (double)el / 1e6;
}

/* now + us (rounded up, at least 1 us later), or PLACE_T_NEVER when that is
 * beyond any time a host can hold. */
static int64_t due_after(int64_t now, double us)
{
    double t = ceil(us);
    if (!(t >= 1))
        t = 1;
    if (t >= (double)(PLACE_T_NEVER - now) || t >= 9e18)
        return PLACE_T_NEVER;
    return now + (int64_t)t;
}

static uint32_t level_of(const tires *s, double exec)
{
    uint32_t q = 0;
    while (q < s->n_thr && exec >= s->thr[q] - TR_EPS)
        q++;
    return q;
}

/* ------------------------------------------------------------------------- */
/* Gittins index                                                              */

static int dcmp(const void *a, const void *b)
{
    const dpt *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

static void dist_prepare(tires *s)
{
    if (!s->dirty_d)
        return;
    if (s->n_d > 1)
        qsort(s->d, s->n_d, sizeof *s->d, dcmp);
    double w = 0, wv = 0;
    for (uint32_t k = 0; k < s->n_d; k++) {
        w += s->d[k].w;
        wv += s->d[k].w * s->d[k].v;
        s->d[k].pw = w;
        s->d[k].pwv = wv;
    }
    s->dirty_d = 0;
}

/* First index of d[0..n) with a value above x (n when none). */
static uint32_t dist_above(const dpt *d, uint32_t n, double x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (d[m].v > x)
            hi = m;
        else
            lo = m + 1;
    }
    return lo;
}

/* G(a) = P(S - a <= D | S > a) / E[min(S - a, D) | S > a] over the n points
 * d (ascending, with prefix sums); 0 without mass above a. */
static double gittins_over(const dpt *d, uint32_t n, double delta, double a)
{
    if (n == 0)
        return 0;
    uint32_t i = dist_above(d, n, a), k = dist_above(d, n, a + delta);
    double wtot = d[n - 1].pw;
    double w_i = i ? d[i - 1].pw : 0, w_k = k ? d[k - 1].pw : 0;
    double wv_i = i ? d[i - 1].pwv : 0, wv_k = k ? d[k - 1].pwv : 0;
    double above = wtot - w_i;
    if (!(above > 0))
        return 0;
    double done = w_k - w_i;                                    /* mass in (a, a + D] */
    double e = (wv_k - wv_i) - a * done + delta * (wtot - w_k); /* x above */
    if (!(e > 0))
        return 0;
    return done / e;
}

/* The index of a waiting job of class cls with executed service a. */
static double gittins(const tires *s, uint32_t cls, double a)
{
    if (s->gittins != TR_GITTINS_CLASS)
        return gittins_over(s->d, s->n_d, s->delta, a);
    if (cls >= s->n_cls)
        return 0;
    uint32_t o = s->c_off[cls];
    return gittins_over(s->cd + o, s->c_off[cls + 1] - o, s->delta, a);
}

/* gittins=class: copy the view's per-class distributions (once: the host
 * keeps them for the run) and sum them. PLACE_ERR_SPEC when the view has none
 * or a class's points are not finite values >= 0 with positive weights; a
 * class with no points gets index 0 (its jobs keep arrival order). */
static int class_dists(tires *s, const place_view *v)
{
    if (!v->service_dist || v->n_service_dist == 0)
        return PLACE_ERR_SPEC;
    if (s->cd_src == v->service_dist && s->n_cls == v->n_service_dist)
        return PLACE_OK;
    uint64_t total = 0;
    for (uint32_t k = 0; k < v->n_service_dist; k++)
        total += v->service_dist[k].n;
    if (total > TR_MAX_SAMPLE)
        return PLACE_ERR_SPEC;
    if (place__grow(&s->env, (void **)&s->c_off, &s->cap_off, v->n_service_dist + 1,
                    sizeof *s->c_off) ||
        place__grow(&s->env, (void **)&s->cd, &s->cap_cd, total ? (uint32_t)total : 1,
                    sizeof *s->cd))
        return PLACE_ERR_NOMEM;
    uint32_t m = 0;
    for (uint32_t k = 0; k < v->n_service_dist; k++) {
        const place_service_dist *sd = &v->service_dist[k];
        s->c_off[k] = m;
        if (sd->n && (!sd->value || !sd->prob))
            return PLACE_ERR_SPEC;
        for (uint32_t q = 0; q < sd->n; q++) {
            double x = sd->value[q], w = sd->prob[q];
            if (!(x >= 0) || x > TR_MAX_VALUE || !(w > 0) || w > TR_MAX_VALUE)
                return PLACE_ERR_SPEC;
            s->cd[m + q] = (dpt){x, w, 0, 0};
        }
        if (sd->n > 1)
            qsort(s->cd + m, sd->n, sizeof *s->cd, dcmp);
        double pw = 0, pwv = 0;
        for (uint32_t q = 0; q < sd->n; q++) {
            pw += s->cd[m + q].w;
            pwv += s->cd[m + q].w * s->cd[m + q].v;
            s->cd[m + q].pw = pw;
            s->cd[m + q].pwv = pwv;
        }
        m += sd->n;
    }
    s->c_off[v->n_service_dist] = m;
    s->n_cls = v->n_service_dist;
    s->cd_src = v->service_dist;
    return PLACE_OK;
}

/* ------------------------------------------------------------------------- */
/* placement                                                                  */

static int consolidates(const tires *s, const place_job *j)
{
    if (s->n_skewed == 0)
        return s->placement == TR_CONSOLIDATED;
    for (uint32_t k = 0; k < s->n_skewed; k++)
        if (s->skewed[k] == j->cls)
            return 1;
    return 0;
}

/* A new stamp: no node carries freed capacity any more. */
static void stamp_next(tires *s)
{
    s->n_touched = 0;
    if (++s->cur_stamp == 0) {
        for (uint32_t n = 0; n < s->cap_node; n++)
            s->nx[n].stamp = 0;
        s->cur_stamp = 1;
    }
}

/* GPUs free on node n once the chosen victims stop. */
static uint32_t avail(const tires *s, const place_cluster *c, uint32_t n)
{
    uint32_t f = c->node_free[n];
    if (n < s->cap_node && s->nx[n].stamp == s->cur_stamp)
        f += s->nx[n].g;
    return f;
}

static int host_ok_x(const tires *s, const place_cluster *c, uint32_t n, const place_job *j)
{
    int64_t cpu = c->node_cpu_free_milli[n], mem = c->node_mem_free_mib[n];
    if (n < s->cap_node && s->nx[n].stamp == s->cur_stamp) {
        cpu += s->nx[n].cpu;
        mem += s->nx[n].mem;
    }
    return cpu >= j->cpu_milli && mem >= j->host_mem_mib;
}

static int node_cmp(const void *a, const void *b)
{
    const nfree *x = a, *y = b;
    if (x->f != y->f)
        return x->f > y->f ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* A gang over several nodes of type t, on the capacity free once the chosen
 * victims stop: relaxed in node order, consolidated on the fewest nodes
 * (most free first) and only if that is the fewest the type allows. */
static int span_build(tires *s, const place_view *v, const place_job *j, uint32_t t, int cons,
                      place_decision *d)
{
    const place_cluster *c = v->cluster;
    uint32_t np = 0, need = j->gpus, m = 0;
    if (cons) {
        if (place__grow(&s->env, (void **)&s->order, &s->cap_order, c->n_nodes ? c->n_nodes : 1,
                        sizeof *s->order))
            return PLACE_ERR_NOMEM;
    }
    for (uint32_t n = place_bits_next(&c->up[t], 0); n != PLACE_NONE;
         n = place_bits_next(&c->up[t], n + 1)) {
        uint32_t f = avail(s, c, n);
        if (f == 0)
            continue;
        if (cons) {
            s->order[m++] = (nfree){f, n};
            continue;
        }
        if (np == d->cap_parts)
            return PLACE_ERR_NOFIT;
        uint32_t take = f < need ? f : need;
        d->parts[np++] = place__part_gpus(j, n, take);
        need -= take;
        if (need == 0)
            break;
    }
    if (cons) {
        if (m > 1)
            qsort(s->order, m, sizeof *s->order, node_cmp);
        uint32_t most = c->type_max_gpus[t] ? c->type_max_gpus[t] : 1;
        uint32_t fewest = (j->gpus + most - 1) / most;
        for (uint32_t k = 0; k < m && need > 0; k++) {
            if (np == d->cap_parts || np == fewest)
                return PLACE_ERR_NOFIT;
            uint32_t f = s->order[k].f;
            uint32_t take = f < need ? f : need;
            d->parts[np++] = place__part_gpus(j, s->order[k].n, take);
            need -= take;
        }
    }
    if (need > 0)
        return PLACE_ERR_NOFIT;
    d->n_parts = np;
    return PLACE_OK;
}

/* Could job j be placed on the capacity free once the chosen victims stop,
 * only on node n (single node)? */
static int node_holds(const tires *s, const place_cluster *c, const place_job *j, uint32_t n)
{
    return c->node_up[n] && place_type_ok(c, j, c->node_type[n]) && c->node_gpus[n] >= j->gpus &&
           avail(s, c, n) >= j->gpus && host_ok_x(s, c, n, j);
}

/* Place job j on free capacity now (no victims): PLACE_OK with d->n_parts. */
static int fit_now(tires *s, const place_view *v, const place_job *j, place_decision *d)
{
    stamp_next(s); /* no victims chosen */
    if (j->gpus == 0 || j->gpu_milli < PLACE_MILLI_WHOLE || !consolidates(s, j))
        return (consolidates(s, j) ? place__fit_best.fit : place__fit_first.fit)(NULL, v, j, d,
                                                                                 NULL);
    place_job one = *j;
    one.flags &= ~(uint32_t)PLACE_JOB_CAN_SPAN;
    int rc = place__fit_best.fit(NULL, v, &one, d, NULL);
    if (rc != PLACE_ERR_NOFIT || !(j->flags & PLACE_JOB_CAN_SPAN))
        return rc;
    const place_cluster *c = v->cluster;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!((c->types_present >> t) & 1u) || !place_type_ok(c, j, t) ||
            c->type_gpus_free[t] < j->gpus || c->type_max_gpus[t] >= j->gpus)
            continue; /* (one node of the type could hold it: wait for one) */
        rc = span_build(s, v, j, t, 1, d);
        if (rc != PLACE_ERR_NOFIT) {
            if (rc == PLACE_OK && place_cluster_check(c, j, d->parts, d->n_parts) != PLACE_OK)
                continue;
            return rc;
        }
    }
    return PLACE_ERR_NOFIT;
}

/* ------------------------------------------------------------------------- */
/* the pass                                                                   */

static int ent_cmp(const void *a, const void *b)
{
    const ent *x = a, *y = b;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank > y->rank ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int vic_cmp(const void *a, const void *b)
{
    const vic *x = a, *y = b;
    if (x->level != y->level)
        return x->level > y->level ? -1 : 1;
    if (x->exec != y->exec)
        return x->exec < y->exec ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit > y->submit ? -1 : 1;
    return x->id > y->id ? -1 : x->id < y->id;
}

/* Bring the records to this view: carry over those of the jobs in it, learn
 * from running jobs that left, update waiting times and promote. */
static int records_update(tires *s, const place_view *v)
{
    uint32_t need = 2 * (v->n_queue + v->n_running) + 2, cap = 64;
    while (cap < need)
        cap *= 2;
    rec *nu = place__realloc(&s->env, NULL, 0, cap * sizeof *nu);
    if (!nu)
        return PLACE_ERR_NOMEM;
    rec *old = s->tab;
    uint32_t ocap = s->tcap;
    memset(nu, 0, cap * sizeof *nu);
    int64_t now = v->now_us;
    s->wake_starve = PLACE_T_NEVER;
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        rec *o = rec_find(old, ocap, rj->job.id), *x = rec_put(nu, cap, rj->job.id);
        if (o)
            *x = *o;
        x->running = 1;
        x->seen_us = now;
        x->att0 = rj->job.attained_gpu_s;
        x->rate = job_rate(&rj->job);
        x->start_us = rj->start_us;
    }
    for (uint32_t i = 0; i < v->n_queue; i++) {
        const place_job *j = &v->queue[i];
        if (v->queue_state[i] != PLACE_Q_WAITING)
            continue;
        rec *o = rec_find(old, ocap, j->id);
        if (!o && !(j->attained_gpu_s > 0))
            continue; /* a job that never ran: queue 0, nothing to remember */
        rec *x = rec_put(nu, cap, j->id);
        if (o) {
            *x = *o;
            if (!o->running && o->seen_us <= now)
                x->pend_us += now - o->seen_us; /* waited since it was last seen */
        }
        x->running = 0;
        x->seen_us = now;
    }
    /* running jobs that left without a preemption by this policy: finished */
    if (s->gittins == TR_GITTINS_LEARN && old) {
        for (uint32_t k = 0; k < ocap; k++) {
            const rec *o = &old[k];
            if (!o->used || !o->running || rec_find(nu, cap, o->id))
                continue;
            if (s->n_d >= TR_MAX_SAMPLE)
                break;
            int64_t el = now > o->start_us ? now - o->start_us : 0;
            double att = o->att0 + o->rate * (double)el / 1e6 - o->base;
            if (dist_push(s, att > 0 ? att : 0, 1.0) != PLACE_OK) {
                place__free(&s->env, old, ocap * sizeof *old);
                s->tab = nu;
                s->tcap = cap;
                return PLACE_ERR_NOMEM;
            }
        }
    }
    place__free(&s->env, old, ocap * sizeof *old);
    s->tab = nu;
    s->tcap = cap;
    return PLACE_OK;
}

static int tr_begin(void *state, const place_view *v)
{
    tires *s = state;
    s->now = v->now_us;
    s->plan = 0;
    s->cursor = 0;
    s->n_ent = 0;
    s->n_vic = 0;
    s->vic_sorted = 0;
    memset(s->lvl_gpus, 0, sizeof s->lvl_gpus);
    int rc = records_update(s, v);
    if (rc != PLACE_OK)
        return rc;
    if (s->gittins == TR_GITTINS_CLASS) {
        rc = class_dists(s, v);
        if (rc != PLACE_OK)
            return rc;
    } else if (s->gittins != TR_GITTINS_OFF) {
        dist_prepare(s);
    }
    if (place__grow(&s->env, (void **)&s->ent, &s->cap_ent, v->n_queue ? v->n_queue : 1,
                    sizeof *s->ent) ||
        place__grow(&s->env, (void **)&s->vic, &s->cap_vic, v->n_running ? v->n_running : 1,
                    sizeof *s->vic))
        return PLACE_ERR_NOMEM;
    for (uint32_t i = 0; i < v->n_queue; i++) {
        if (v->queue_state[i] != PLACE_Q_WAITING)
            continue;
        const place_job *j = &v->queue[i];
        rec *x = rec_find(s->tab, s->tcap, j->id);
        double exec = j->attained_gpu_s - (x ? x->base : 0);
        uint32_t level = level_of(s, exec);
        if (x && s->starve > 0 && level > 0 && exec > 0) {
            double rate = job_rate(j) > 0 ? job_rate(j) : 1;
            double limit_us = s->starve * exec / rate * 1e6;
            if ((double)x->pend_us >= limit_us - 0.5) {
                x->base = j->attained_gpu_s; /* promoted: back to queue 0 */
                x->pend_us = 0;
                exec = 0;
                level = 0;
            } else {
                int64_t due = due_after(v->now_us, limit_us - (double)x->pend_us);
                if (due < s->wake_starve)
                    s->wake_starve = due;
            }
        }
        ent *e = &s->ent[s->n_ent++];
        e->idx = i;
        e->level = level;
        e->rank = s->gittins != TR_GITTINS_OFF ? gittins(s, j->cls, exec > 0 ? exec : 0) : 0;
    }
    if (s->n_ent > 1)
        qsort(s->ent, s->n_ent, sizeof *s->ent, ent_cmp);
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        if (!(rj->job.flags & PLACE_JOB_PREEMPTIBLE) || rj->start_us >= v->now_us ||
            rj->job.gpus == 0 || rj->job.gpu_milli < PLACE_MILLI_WHOLE)
            continue;
        rec *x = rec_find(s->tab, s->tcap, rj->job.id);
        double exec = running_attained(rj, v->now_us) - (x ? x->base : 0);
        vic *w = &s->vic[s->n_vic++];
        w->id = rj->job.id;
        w->exec = exec;
        w->level = level_of(s, exec);
        w->submit = rj->job.submit_us;
        w->gone = 0;
        s->lvl_gpus[w->level] += rj->job.gpus;
    }
    uint32_t nn = v->cluster->n_nodes ? v->cluster->n_nodes : 1;
    if (nn > s->cap_node) {
        uint32_t old = s->cap_node;
        if (place__grow(&s->env, (void **)&s->nx, &s->cap_node, nn, sizeof *s->nx))
            return PLACE_ERR_NOMEM;
        memset(s->nx + old, 0, (s->cap_node - old) * sizeof *s->nx);
        s->cur_stamp = 0;
        for (uint32_t n = 0; n < s->cap_node; n++)
            s->nx[n].stamp = 0;
    }
    return PLACE_OK;
}

static uint32_t running_by_id(const place_view *v, uint64_t id)
{
    for (uint32_t k = 0; k < v->n_running; k++)
        if (v->running[k].job.id == id)
            return k;
    return PLACE_NONE;
}

/* Count victim w's capacity as freed (per node). */
static int victim_add(tires *s, const place_view *v, const place_running *r)
{
    const place_cluster *c = v->cluster;
    for (uint32_t p = 0; p < r->n_parts; p++) {
        const place_part *pt = &r->parts[p];
        uint32_t n = pt->node;
        if (n >= c->n_nodes || n >= s->cap_node)
            continue;
        if (s->nx[n].stamp != s->cur_stamp) {
            s->nx[n] = (nx){0, s->cur_stamp, 0, 0};
            if (place__grow(&s->env, (void **)&s->touched, &s->cap_touched, s->n_touched + 1,
                            sizeof *s->touched))
                return PLACE_ERR_NOMEM;
            s->touched[s->n_touched++] = n;
        }
        uint32_t ng = c->node_gpus[n], g0 = c->node_gpu0[n];
        for (uint64_t m = pt->mask; m; m &= m - 1) {
            uint32_t g = (uint32_t)__builtin_ctzll(m);
            if (g < ng && c->gpu_up[g0 + g] && c->node_up[n])
                s->nx[n].g++;
        }
        int64_t cpu, mem;
        place__part_host_share(&r->job, r->parts, r->n_parts, p, &cpu, &mem);
        s->nx[n].cpu += cpu;
        s->nx[n].mem += mem;
    }
    return PLACE_OK;
}

/* Rebuild the freed capacity from the victims vsel[0..k). */
static int victims_apply(tires *s, const place_view *v, uint32_t k, const uint32_t *rix)
{
    stamp_next(s);
    for (uint32_t q = 0; q < k; q++)
        if (victim_add(s, v, &v->running[rix[q]]) != PLACE_OK)
            return PLACE_ERR_NOMEM;
    return PLACE_OK;
}

/* Does job j fit the capacity free once the chosen victims stop? The node
 * (single) or the parts (span) go to d. */
static int fits_freed(tires *s, const place_view *v, const place_job *j, place_decision *d)
{
    const place_cluster *c = v->cluster;
    int cons = consolidates(s, j);
    uint32_t best = PLACE_NONE, best_left = UINT32_MAX;
    for (uint32_t q = 0; q < s->n_touched; q++) {
        uint32_t n = s->touched[q];
        if (!node_holds(s, c, j, n))
            continue;
        uint32_t left = avail(s, c, n) - j->gpus;
        if (best == PLACE_NONE || (cons ? left < best_left : n < best) ||
            (cons && left == best_left && n < best)) {
            best = n;
            best_left = left;
        }
    }
    if (best != PLACE_NONE) {
        d->parts[0] = place__part_whole(j, best);
        d->n_parts = 1;
        return PLACE_OK;
    }
    if (!(j->flags & PLACE_JOB_CAN_SPAN))
        return PLACE_ERR_NOFIT;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!((c->types_present >> t) & 1u) || !place_type_ok(c, j, t))
            continue;
        if (cons && c->type_max_gpus[t] >= j->gpus)
            continue; /* one node could hold it: consolidated waits for one */
        uint64_t total = c->type_gpus_free[t];
        for (uint32_t q = 0; q < s->n_touched; q++)
            if (c->node_type[s->touched[q]] == t)
                total += s->nx[s->touched[q]].g;
        if (total < j->gpus)
            continue;
        if (span_build(s, v, j, t, cons, d) == PLACE_OK)
            return PLACE_OK;
    }
    return PLACE_ERR_NOFIT;
}

/* Victims of strictly lower queues for waiting job j of queue `level`:
 * PLACE_OK with their running indices in rix[0..*k) and the job's parts in d. */
static int plan_victims(tires *s, const place_view *v, const place_job *j, uint32_t level,
                        uint32_t *rix, uint32_t *k_out, place_decision *d)
{
    *k_out = 0;
    if (j->gpus == 0 || j->gpu_milli < PLACE_MILLI_WHOLE || s->n_vic == 0)
        return PLACE_ERR_NOFIT;
    /* a bound: every GPU free now and every GPU lower queues hold (victims
     * stopped in this pass still count: their GPUs are free or taken) */
    uint64_t room = v->cluster->gpus_free;
    for (uint32_t q = level + 1; q <= s->n_thr; q++)
        room += s->lvl_gpus[q];
    if (room < j->gpus)
        return PLACE_ERR_NOFIT;
    if (!s->vic_sorted) {
        if (s->n_vic > 1)
            qsort(s->vic, s->n_vic, sizeof *s->vic, vic_cmp);
        s->vic_sorted = 1;
    }
    if (s->vic[0].level <= level)
        return PLACE_ERR_NOFIT;
    stamp_next(s);
    uint32_t k = 0;
    int ok = 0;
    for (uint32_t q = 0; q < s->n_vic && s->vic[q].level > level; q++) {
        if (s->vic[q].gone)
            continue;
        uint32_t r = running_by_id(v, s->vic[q].id);
        if (r == PLACE_NONE) {
            s->vic[q].gone = 1;
            continue;
        }
        rix[k++] = r;
        if (victim_add(s, v, &v->running[r]) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        if (fits_freed(s, v, j, d) == PLACE_OK) {
            ok = 1;
            break;
        }
    }
    if (!ok)
        return PLACE_ERR_NOFIT;
    /* put back every victim the job can do without, latest first */
    for (uint32_t q = k; q-- > 0;) {
        uint32_t keep = rix[q];
        memmove(&rix[q], &rix[q + 1], (k - q - 1) * sizeof *rix);
        if (victims_apply(s, v, k - 1, rix) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        if (fits_freed(s, v, j, d) == PLACE_OK) {
            k--;
        } else {
            memmove(&rix[q + 1], &rix[q], (k - q - 1) * sizeof *rix);
            rix[q] = keep;
        }
    }
    if (k == 0)
        return PLACE_ERR_NOFIT; /* (it fits without victims: the fit said otherwise) */
    if (victims_apply(s, v, k, rix) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    if (fits_freed(s, v, j, d) != PLACE_OK)
        return PLACE_ERR_NOFIT;
    *k_out = k;
    return PLACE_OK;
}

static int plan_emit(tires *s, const place_view *v, place_decision *d)
{
    if (s->plan_next < s->plan_n) {
        uint32_t r = running_by_id(v, s->plan_ids[s->plan_next]);
        if (r == PLACE_NONE) {
            s->plan = 0;
            s->cursor++;
            return PLACE_DONE;
        }
        s->plan_next++;
        d->kind = PLACE_PREEMPT;
        d->index = r;
        d->n_parts = 0;
        return PLACE_OK;
    }
    if (s->plan_n_parts > d->cap_parts) {
        s->plan = 0;
        s->cursor++;
        return PLACE_DONE;
    }
    memcpy(d->parts, s->plan_parts, s->plan_n_parts * sizeof *d->parts);
    d->n_parts = s->plan_n_parts;
    d->kind = PLACE_START;
    d->index = s->plan_queue;
    s->plan = 0;
    s->cursor++;
    return PLACE_OK;
}

static int tr_decide(void *state, const place_view *v, place_decision *d)
{
    tires *s = state;
    if (s->plan) {
        int rc = plan_emit(s, v, d);
        if (rc != PLACE_DONE)
            return rc;
    }
    while (s->cursor < s->n_ent) {
        const ent *e = &s->ent[s->cursor];
        if (v->queue_state[e->idx] != PLACE_Q_WAITING) {
            s->cursor++;
            continue;
        }
        const place_job *j = &v->queue[e->idx];
        d->n_parts = 0;
        int rc = fit_now(s, v, j, d);
        if (rc == PLACE_OK) {
            d->kind = PLACE_START;
            d->index = e->idx;
            s->cursor++;
            return PLACE_OK;
        }
        if (rc != PLACE_ERR_NOFIT)
            return rc;
        if (place__grow(&s->env, (void **)&s->vsel, &s->cap_vsel, s->n_vic ? s->n_vic : 1,
                        sizeof *s->vsel))
            return PLACE_ERR_NOMEM;
        uint32_t k;
        d->n_parts = 0;
        rc = plan_victims(s, v, j, e->level, s->vsel, &k, d);
        if (rc == PLACE_ERR_NOMEM)
            return rc;
        if (rc == PLACE_OK) {
            if (place__grow(&s->env, (void **)&s->plan_ids, &s->cap_plan_ids, k,
                            sizeof *s->plan_ids) ||
                place__grow(&s->env, (void **)&s->plan_parts, &s->cap_plan_parts, d->n_parts,
                            sizeof *s->plan_parts))
                return PLACE_ERR_NOMEM;
            for (uint32_t q = 0; q < k; q++)
                s->plan_ids[q] = v->running[s->vsel[q]].job.id;
            memcpy(s->plan_parts, d->parts, d->n_parts * sizeof *d->parts);
            s->plan_n_parts = d->n_parts;
            s->plan_n = k;
            s->plan_next = 0;
            s->plan_queue = e->idx;
            s->plan = 1;
            rc = plan_emit(s, v, d);
            if (rc != PLACE_DONE)
                return rc;
            continue;
        }
        s->cursor++; /* stepped over: the next job may still fit */
    }
    return PLACE_DONE;
}

static void tr_observe(void *state, const place_view *v, const place_decision *d, int status)
{
    tires *s = state;
    if (status != PLACE_OK) {
        if (s->plan) {
            s->plan = 0;
            s->cursor++;
        }
        return;
    }
    if (d->kind == PLACE_PREEMPT && s->plan_next > 0) {
        /* the victim stops now: it waits from now, and it did not finish */
        uint64_t id = s->plan_ids[s->plan_next - 1];
        rec *x = rec_find(s->tab, s->tcap, id);
        if (x) {
            x->running = 0;
            x->seen_us = v->now_us;
        }
        for (uint32_t q = 0; q < s->n_vic; q++)
            if (s->vic[q].id == id)
                s->vic[q].gone = 1;
    }
}

/* After a pass: the next demotion of a running job or starvation promotion
 * of a waiting one. */
static int64_t tr_wake(void *state, const place_view *v)
{
    tires *s = state;
    int64_t t = s->wake_starve > v->now_us ? s->wake_starve : PLACE_T_NEVER;
    /* a demotion matters only when a job of the queue it leaves (or a higher
     * one) still waits: it may preempt the job then */
    uint32_t wait_level = s->n_thr + 1;
    for (uint32_t k = 0; k < s->n_ent; k++)
        if (s->ent[k].idx < v->n_queue && v->queue_state[s->ent[k].idx] == PLACE_Q_WAITING) {
            wait_level = s->ent[k].level; /* (ent is sorted by level) */
            break;
        }
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        double rate = job_rate(&rj->job);
        if (!(rate > 0) || !(rj->job.flags & PLACE_JOB_PREEMPTIBLE))
            continue;
        rec *x = rec_find(s->tab, s->tcap, rj->job.id);
        double exec = running_attained(rj, v->now_us) - (x ? x->base : 0);
        uint32_t q = level_of(s, exec);
        if (q >= s->n_thr || q < wait_level)
            continue;
        int64_t due = due_after(v->now_us, (s->thr[q] - exec) / rate * 1e6);
        if (due < t)
            t = due;
    }
    return t;
}

const place_policy place__policy_tiresias = {
    .abi = PLACE_ABI_VERSION,
    .size = sizeof(place_policy),
    .name = "tiresias-2dlas",
    .summary = "Tiresias: discretised 2D-LAS queues with preemption, starvation promotion, "
               "Gittins index and consolidated or relaxed placement",
    .create = tr_create,
    .destroy = tr_destroy,
    .begin = tr_begin,
    .decide = tr_decide,
    .observe = tr_observe,
    .wake = tr_wake,
};
