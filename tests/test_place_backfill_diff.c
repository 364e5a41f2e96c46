/*
 * test_place_backfill_diff.c — the reserving backfill rules against a
 * reference: random simulations, pass after pass, with the profile the
 * library keeps across passes and with the one it used to rebuild in every
 * pass (ref_backfill_profile.c, a verbatim copy of the old code).
 *
 * Two hosts start from the same random world. Host A runs the library's
 * composed policy ("order=fifo placement=FIT backfill=RULE") as one instance
 * for the whole simulation, so its profile is carried from pass to pass,
 * and its hopeless() skips fits. Host B runs the same pass by hand (FIFO,
 * the same fit, no preemption) with the reference profile's allow() as the
 * veto and its reserve() for each blocked job, and beside it a library
 * profile (also kept for the whole simulation) fed the same calls: every
 * allow() answer and every reservation must agree, hopeless() must never
 * refuse a job the fit then places, and both hosts must take the same
 * decisions. Between passes the world moves: time advances (sometimes not
 * at all), jobs end before or after their estimates, GPUs and nodes fail and
 * come back, capacity is taken and given back behind the view's back, and
 * new jobs arrive (gangs, spanning gangs, shares, CPU-only jobs, unknown and
 * zero estimates, host CPU and memory that bind).
 * Reproduce a failure with TARMAC_TEST_SEED=<seed printed>.
 */
#include "check.h"
#include "place_int.h" /* the library's profile, driven directly */
#include "place_views.h"
#include "ref_backfill_profile.h"

#include <stdio.h>
#include <string.h>

#define S 1000000ll

static pv_host HA, HB;
static uint64_t sm;

static uint64_t rnd(void)
{
    uint64_t z = (sm += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

/* What the world knows and the policies do not: how long each job really
 * runs (before or after its estimate), by id. */
static int64_t true_end[4096];

/* Capacity taken behind the view's back (listed by no running job). */
typedef struct phantom {
    place_job j;
    place_part part;
} phantom;
static phantom ph_a[8], ph_b[8];
static uint32_t n_ph;

static uint64_t seed, next_id, n_hopeless;
static const char *cfg_name;

static void fail_here(int line, const char *what, int pass)
{
    check_fail(__FILE__, line, "%s: %s at pass %d (seed %llu)", cfg_name, what, pass,
               (unsigned long long)seed);
}

/* ------------------------------------------------------------------------- */
/* host B: the pass by hand, with the reference profile                       */

typedef struct driver {
    ref_profile *ref;
    place__profile *lib;
    int mismatch;
} driver;

static int allow_both(void *ud, const place_view *v, const place_job *j, const place_part *p)
{
    driver *dr = ud;
    int a = ref_profile_allow(dr->ref, v, j, p), b = place__profile_allow(dr->lib, v, j, p);
    if (a != b)
        dr->mismatch = 1;
    return a;
}

static void start_b(pv_host *h, uint32_t i, const place_decision *d)
{
    place_job *j = &h->queue[i];
    uint32_t r = h->n_run;
    memcpy(h->run_parts[r], d->parts, d->n_parts * sizeof *d->parts);
    CHECK_EQ_INT(place_cluster_take(&h->c, j, h->run_parts[r], d->n_parts), PLACE_OK);
    h->qstate[i] = PLACE_Q_STARTED;
    place_running *x = &h->run[r];
    memset(x, 0, sizeof *x);
    x->job = *j;
    x->start_us = h->now_us;
    x->end_estimate_us = place_end_estimate(&h->c, j, h->run_parts[r], d->n_parts, h->now_us);
    x->overhead_us = j->restart_us;
    x->lost_gpu_s = -1;
    x->parts = h->run_parts[r];
    x->n_parts = d->n_parts;
    h->n_run++;
    pv_logged *lg = &h->log[h->n_log++];
    lg->kind = PLACE_START;
    lg->index = i;
    lg->id = j->id;
    lg->n_parts = d->n_parts;
    memcpy(lg->parts, h->run_parts[r], d->n_parts * sizeof *d->parts);
}

/* One pass on host B; 0 when the two profiles disagreed somewhere. */
static int pass_b(pv_host *h, const place_fit *fit, driver *dr, int pass)
{
    place_view v = pv_view(h);
    place_env env = pv_env();
    place_fit_ctx ctx = {&env, allow_both, dr};
    place_part buf[64];
    h->n_log = 0;
    ref_profile_begin(dr->ref, &v);
    place__profile_begin(dr->lib, &v);
    for (uint32_t i = 0; i < h->n_queue; i++) {
        if (h->qstate[i] != PLACE_Q_WAITING || h->n_run == PV_MAX)
            continue;
        const place_job *j = &h->queue[i];
        int hopeless = place__profile_hopeless(dr->lib, &v, j);
        n_hopeless += (uint64_t)hopeless;
        place_decision d = {0, i, 0, 64, buf};
        int rc = fit->fit(NULL, &v, j, &d, &ctx);
        if (rc == PLACE_OK && hopeless) {
            fail_here(__LINE__, "hopeless() refused a job the fit places", pass);
            return 0;
        }
        if (rc == PLACE_OK && (d.n_parts > PV_PARTS ||
                               place_cluster_check(&h->c, j, d.parts, d.n_parts) != PLACE_OK)) {
            h->qstate[i] = PLACE_Q_SKIPPED; /* refused, as place_pass_run does */
            continue;
        }
        if (rc == PLACE_OK) {
            d.kind = PLACE_START;
            start_b(h, i, &d);
            v.running = h->run;
            v.n_running = h->n_run;
            ref_profile_observe(dr->ref, &v, &d);
            place__profile_observe(dr->lib, &v, &d);
            continue;
        }
        CHECK_EQ_INT(rc, PLACE_ERR_NOFIT);
        CHECK_EQ_INT(ref_profile_reserve(dr->ref, &v, i), PLACE_OK);
        CHECK_EQ_INT(place__profile_reserve(dr->lib, &v, i), PLACE_OK);
    }
    if (dr->mismatch) {
        fail_here(__LINE__, "allow() answers differ", pass);
        return 0;
    }
    uint32_t n = ref_profile_n_resv(dr->ref);
    if (place__profile_n_resv(dr->lib) != n) {
        fail_here(__LINE__, "reservation counts differ", pass);
        return 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t na, nb, ga, gb, qa, qb;
        int64_t sa, sb, ea, eb;
        ref_profile_resv(dr->ref, k, &na, &sa, &ea, &ga, &qa);
        place__profile_resv(dr->lib, k, &nb, &sb, &eb, &gb, &qb);
        if (na != nb || sa != sb || ea != eb || ga != gb || qa != qb) {
            check_fail(__FILE__, __LINE__,
                       "%s: reservation %u: node %u [%lld, %lld) %u GPUs for %u, want node %u "
                       "[%lld, %lld) %u GPUs for %u, at pass %d (seed %llu)",
                       cfg_name, k, nb, (long long)sb, (long long)eb, gb, qb, na, (long long)sa,
                       (long long)ea, ga, qa, pass, (unsigned long long)seed);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------------- */
/* the world                                                                  */

static place_job random_job(uint32_t max_node, uint32_t n_types)
{
    place_job j = pv_job(++next_id, 1);
    uint32_t kind = below(10);
    if (kind < 5)
        j.gpus = 1 + below(max_node);
    else if (kind < 7) {
        j.gpus = max_node + 1 + below(3 * max_node); /* larger than any node: spans */
        j.flags |= PLACE_JOB_CAN_SPAN;
    } else if (kind < 9) {
        j.gpus = 1;
        j.gpu_milli = below(2) ? 250 : 500;
    } else {
        j.gpus = below(4) == 0 ? 0 : 1 + below(max_node); /* some CPU-only */
    }
    if (below(5) == 0 && j.gpus > 1)
        j.flags |= PLACE_JOB_CAN_SPAN;
    uint32_t e = below(12);
    j.estimate_us = e == 0 ? -1 : e == 1 ? 0 : (int64_t)(1 + below(40)) * S;
    if (below(3) == 0) { /* host resources that bind (64 cores, 512 GiB a node) */
        j.cpu_milli = (int64_t)(1 + below(64)) * 1000;
        j.host_mem_mib = (int64_t)below(513) * 1024;
    }
    if (n_types > 1 && below(3) == 0)
        j.type_mask = 1ull << below(n_types);
    if (below(4) == 0)
        j.gpu_mem_mib = 50 * 1024; /* only the 80 GiB type holds it */
    int64_t run = j.estimate_us > 0 ? j.estimate_us * (int64_t)(20 + below(130)) / 100
                                    : (int64_t)(1 + below(30)) * S;
    true_end[j.id % 4096] = run;
    return j;
}

/* Give back what ended by now; swap-remove, as the engine does. */
static void end_jobs(pv_host *h)
{
    for (uint32_t k = h->n_run; k-- > 0;) {
        place_running *r = &h->run[k];
        if (r->start_us + true_end[r->job.id % 4096] > h->now_us)
            continue;
        place_cluster_give(&h->c, &r->job, r->parts, r->n_parts);
        uint32_t last = h->n_run - 1;
        if (k != last) {
            h->run[k] = h->run[last];
            memcpy(h->run_parts[k], h->run_parts[last], sizeof h->run_parts[k]);
            h->run[k].parts = h->run_parts[k];
        }
        h->n_run--;
    }
}

static void compact(pv_host *h)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < h->n_queue; i++) {
        if (h->qstate[i] == PLACE_Q_STARTED)
            continue;
        h->queue[w] = h->queue[i];
        h->qstate[w++] = PLACE_Q_WAITING;
    }
    h->n_queue = w;
}

/* Move running job k of h to node m, keeping its id, start, estimate and
 * parts array (stopped and restarted at one instant, elsewhere): only its
 * placement tells. 1 when it moved. */
static int move_job(pv_host *h, uint32_t k, uint32_t m)
{
    place_running *r = &h->run[k];
    place_part *pt = h->run_parts[k];
    place_part to = pt[0];
    to.node = m;
    to.mask = 0;
    /* another node: what the job holds now does not count for it */
    if (place_cluster_check(&h->c, &r->job, &to, 1) != PLACE_OK)
        return 0;
    place_cluster_give(&h->c, &r->job, pt, 1);
    pt[0] = to;
    CHECK_EQ_INT(place_cluster_take(&h->c, &r->job, pt, 1), PLACE_OK);
    return 1;
}

/* The same change to the cluster of both hosts. */
static void fail_or_repair(void)
{
    uint32_t n = below(HA.c.n_nodes);
    uint32_t what = below(40);
    if (what == 8 && HA.n_run > 0) {
        uint32_t k = below(HA.n_run);
        const place_running *r = &HA.run[k];
        if (r->n_parts == 1 && r->job.gpus > 0 && r->job.gpu_milli == PLACE_MILLI_WHOLE &&
            r->parts[0].node != n && move_job(&HA, k, n))
            CHECK_EQ_INT(move_job(&HB, k, n), 1);
    } else if (what == 0) {
        int up = !HA.c.node_up[n];
        place_cluster_set_node_up(&HA.c, n, up);
        place_cluster_set_node_up(&HB.c, n, up);
    } else if (what < 4) {
        uint32_t g = below(HA.c.node_gpus[n]);
        int up = !HA.c.gpu_up[HA.c.node_gpu0[n] + g];
        place_cluster_set_gpu_up(&HA.c, n, g, up);
        place_cluster_set_gpu_up(&HB.c, n, g, up);
    } else if (what < 6 && n_ph < 8) {
        /* a whole GPU taken by something no view lists */
        uint32_t t = HA.c.node_type[n];
        if (place_cluster_next_free(&HA.c, t, 1, n) == n) {
            phantom *a = &ph_a[n_ph], *b = &ph_b[n_ph];
            a->j = pv_job(0, 1);
            a->part = (place_part){n, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
            *b = *a;
            if (place_cluster_take(&HA.c, &a->j, &a->part, 1) == PLACE_OK) {
                CHECK_EQ_INT(place_cluster_take(&HB.c, &b->j, &b->part, 1), PLACE_OK);
                n_ph++;
            }
        }
    } else if (what < 8 && n_ph > 0) {
        n_ph--;
        place_cluster_give(&HA.c, &ph_a[n_ph].j, &ph_a[n_ph].part, 1);
        place_cluster_give(&HB.c, &ph_b[n_ph].j, &ph_b[n_ph].part, 1);
    }
}

static int same_log(void)
{
    if (HA.n_log != HB.n_log)
        return 0;
    for (uint32_t k = 0; k < HA.n_log; k++) {
        const pv_logged *a = &HA.log[k], *b = &HB.log[k];
        if (a->kind != b->kind || a->id != b->id || a->n_parts != b->n_parts)
            return 0;
        for (uint32_t q = 0; q < a->n_parts; q++)
            if (a->parts[q].node != b->parts[q].node || a->parts[q].gpus != b->parts[q].gpus ||
                a->parts[q].gpu != b->parts[q].gpu || a->parts[q].mask != b->parts[q].mask)
                return 0;
    }
    return 1;
}

typedef struct config {
    const char *name, *fit, *backfill;
    uint32_t n_types, n_nodes, gpus; /* gpus 0: a mix of 1, 2, 4 and 8 */
} config;

/* One simulation; returns the number of passes in which some job was blocked. */
static uint32_t simulate(const config *cf, uint32_t passes)
{
    uint32_t types[32], gpus[32], mem[2] = {40 * 1024, 80 * 1024}, max_node = 0;
    for (uint32_t n = 0; n < cf->n_nodes; n++) {
        static const uint32_t mix[4] = {1, 2, 4, 8};
        types[n] = cf->n_types > 1 ? below(cf->n_types) : 0;
        gpus[n] = cf->gpus ? cf->gpus : mix[below(4)];
        if (gpus[n] > max_node)
            max_node = gpus[n];
    }
    pv_init(&HA, cf->n_types, mem, types, gpus, cf->n_nodes);
    pv_init(&HB, cf->n_types, mem, types, gpus, cf->n_nodes);
    n_ph = 0;
    place_env env = pv_env();
    char spec[128], err[128];
    snprintf(spec, sizeof spec, "order=fifo placement=%s backfill=%s", cf->fit, cf->backfill);
    place_instance pi;
    CHECK_EQ_INT(place_instance_init(&pi, &env, spec, err, sizeof err), PLACE_OK);
    uint32_t max_resv = strcmp(cf->backfill, "easy") == 0 ? 1 : UINT32_MAX;
    driver dr = {NULL, NULL, 0};
    CHECK_EQ_INT(ref_profile_create(&env, max_resv, &dr.ref), PLACE_OK);
    CHECK_EQ_INT(place__profile_create(&env, max_resv, &dr.lib), PLACE_OK);
    const place_fit *fit = place_fit_find(cf->fit);
    uint32_t blocked = 0;
    for (int pass = 0; pass < (int)passes && !check_failures; pass++) {
        int64_t dt = below(3) == 0 ? 0 : (int64_t)below(6) * S;
        HA.now_us += dt;
        HB.now_us += dt;
        end_jobs(&HA);
        end_jobs(&HB);
        for (uint32_t k = below(3); k > 0; k--)
            fail_or_repair();
        for (uint32_t k = below(4); k > 0 && HA.n_queue < 60; k--) {
            place_job j = random_job(max_node, cf->n_types);
            pv_queue(&HA, j);
            pv_queue(&HB, j);
        }
        CHECK_EQ_INT(pv_pass_instance(&HA, &pi), PLACE_OK);
        if (!pass_b(&HB, fit, &dr, pass))
            break;
        if (!same_log()) {
            fail_here(__LINE__, "the hosts' decisions differ", pass);
            break;
        }
        blocked += HB.n_queue > 0 && HB.qstate[0] == PLACE_Q_WAITING;
        compact(&HA);
        compact(&HB);
    }
    ref_profile_destroy(dr.ref);
    place__profile_destroy(dr.lib);
    place_instance_fini(&pi);
    pv_fini(&HA);
    pv_fini(&HB);
    return blocked;
}

int main(void)
{
    seed = check_seed(20261202);
    sm = seed;
    static const config cfgs[] = {
        {"swf-like easy", "first-fit", "easy", 1, 24, 1},
        {"swf-like conservative", "first-fit", "conservative", 1, 24, 1},
        {"8-GPU nodes easy best-fit", "best-fit", "easy", 1, 6, 8},
        {"mixed easy first-fit", "first-fit", "easy", 2, 8, 0},
        {"mixed easy topology", "topology", "easy", 2, 8, 0},
        {"mixed easy worst-fit", "worst-fit", "easy", 2, 8, 0},
        {"mixed conservative best-fit", "best-fit", "conservative", 2, 8, 0},
        {"mixed conservative first-fit", "first-fit", "conservative", 2, 6, 0},
    };
    uint32_t blocked = 0;
    for (int round = 0; round < 12 && !check_failures; round++)
        for (size_t k = 0; k < sizeof cfgs / sizeof *cfgs && !check_failures; k++) {
            cfg_name = cfgs[k].name;
            blocked += simulate(&cfgs[k], 120);
        }
    printf("passes with a blocked head: %u, hopeless answers: %llu\n", blocked,
           (unsigned long long)n_hopeless);
    CHECK(blocked > 1000);    /* the reservations had work to do */
    CHECK(n_hopeless > 1000); /* and hopeless() refused fits */
    return check_finish("test_place_backfill_diff");
}
