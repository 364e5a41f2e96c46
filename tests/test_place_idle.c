/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_idle.c — PLACE_POLICY_IDLE_WHEN_FULL (place.h), the property
 * that lets the engine skip a pass when no whole GPU is free. Every composed
 * specification of the registry's components that claims it (place_spec_props)
 * is run on random full clusters (every GPU taken by running jobs, some
 * preemptible, waiting jobs of every priority, tenants, service replicas):
 * the pass must decide nothing, refuse nothing and want no wake-up, and the
 * same instance must then decide on a cluster with GPUs free exactly what a
 * fresh instance decides there (the full pass kept no state). Specifications
 * that do not claim it include ones that do act on a full cluster
 * (preemption), which this checker is shown to catch.
 */
#include "check.h"
#include "place_views.h"

#include <stdio.h>
#include <string.h>

static pv_host A, B; /* big: not on the stack */
static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng >> 33) % n);
}

/* A cluster of 4 nodes (types 0, 0, 1, 1; 4 or 8 GPUs) filled by running
 * jobs of 1 to 4 GPUs, and 1 to 12 waiting jobs of 1 to 8 GPUs. With drop
 * set, the first running job is left out (its GPUs are free): the same
 * random draws otherwise. */
static void build(pv_host *h, uint64_t seed, int drop)
{
    static const uint32_t types[4] = {0, 0, 1, 1}, gpus[4] = {4, 8, 4, 8};
    pv_init(h, 2, NULL, types, gpus, 4);
    h->now_us = 1000000000;
    rng = seed;
    uint64_t id = 1;
    int first = 1;
    for (uint32_t n = 0; n < 4; n++) {
        uint32_t left = gpus[n];
        while (left > 0) {
            uint32_t k = 1 + rnd(left < 4 ? left : 4);
            place_job j = pv_job(id++, k);
            j.priority = (int32_t)rnd(3);
            j.tenant = rnd(3);
            j.submit_us = h->now_us - 1000000 * (int64_t)(1 + rnd(100));
            j.attained_gpu_s = (double)rnd(1000);
            if (rnd(2))
                j.flags |= PLACE_JOB_PREEMPTIBLE;
            place_part p = {n, (uint16_t)k, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
            int64_t end = h->now_us + 1000000 * (int64_t)(1 + rnd(3600));
            if (!(drop && first))
                pv_running(h, j, &p, 1, j.submit_us, end, 0);
            first = 0;
            left -= k;
        }
    }
    uint32_t nq = 1 + rnd(12);
    for (uint32_t i = 0; i < nq; i++) {
        place_job j = pv_job(id++, 1 + rnd(8));
        j.priority = (int32_t)rnd(10);
        j.tenant = rnd(3);
        j.submit_us = h->now_us - 1000000 * (int64_t)rnd(100);
        j.estimate_us = rnd(2) ? 1000000 * (int64_t)(1 + rnd(7200)) : -1;
        j.deadline_us = rnd(4) ? -1 : h->now_us + 1000000 * (int64_t)rnd(7200);
        j.attained_gpu_s = (double)rnd(1000);
        if (rnd(3) == 0)
            j.flags |= PLACE_JOB_PREEMPTIBLE;
        if (rnd(6) == 0) {
            j.flags |= PLACE_JOB_SERVICE | PLACE_JOB_API_OK;
            j.group = 1;
        }
        pv_queue(h, j);
    }
}

static int same_log(const pv_host *x, const pv_host *y)
{
    if (x->n_log != y->n_log)
        return 0;
    for (uint32_t k = 0; k < x->n_log; k++) {
        const pv_logged *a = &x->log[k], *b = &y->log[k];
        if (a->kind != b->kind || a->id != b->id || a->n_parts != b->n_parts)
            return 0;
        for (uint32_t p = 0; p < a->n_parts; p++)
            if (a->parts[p].node != b->parts[p].node || a->parts[p].gpus != b->parts[p].gpus ||
                a->parts[p].mask != b->parts[p].mask)
                return 0;
    }
    return 1;
}

static int init(place_instance *pi, const char *spec)
{
    place_env env = pv_env();
    char err[256];
    return place_instance_init(pi, &env, spec, err, sizeof err) == PLACE_OK;
}

/* A full pass of spec on seed's cluster: 1 when it decided or refused
 * something or asked for a wake-up. When check is set (spec claims the
 * property), also the pass after it on GPUs freed against a fresh
 * instance's. */
static int acts_when_full(const char *spec, uint64_t seed, int check)
{
    place_instance pi;
    if (!init(&pi, spec))
        return 0;
    build(&A, seed, 0);
    CHECK_EQ_U64(A.c.gpus_free, 0);
    int rc = pv_pass_instance(&A, &pi);
    int acts =
        rc != PLACE_OK || A.n_log > 0 || A.stats.invalid > 0 || A.stats.wake_us != PLACE_T_NEVER;
    for (uint32_t i = 0; i < A.n_queue; i++)
        acts |= A.qstate[i] != PLACE_Q_WAITING;
    if (check && acts)
        check_fail(__FILE__, __LINE__, "'%s' claims IDLE_WHEN_FULL but acts (seed %llu)", spec,
                   (unsigned long long)seed);
    pv_fini(&A);
    if (check && !acts) {
        build(&A, seed, 1);
        build(&B, seed, 1);
        CHECK(A.c.gpus_free > 0);
        CHECK_EQ_INT(pv_pass_instance(&A, &pi), PLACE_OK);
        place_instance fresh;
        CHECK(init(&fresh, spec));
        CHECK_EQ_INT(pv_pass_instance(&B, &fresh), PLACE_OK);
        if (!same_log(&A, &B) || A.stats.wake_us != B.stats.wake_us)
            check_fail(__FILE__, __LINE__, "'%s': the full pass changed the next one (seed %llu)",
                       spec, (unsigned long long)seed);
        place_instance_fini(&fresh);
        pv_fini(&A);
        pv_fini(&B);
    }
    place_instance_fini(&pi);
    return acts;
}

int main(void)
{
    /* the claims, by hand (FIFO_FIRST_FREE: fifo first-fit, backfill none or
     * greedy, nothing else) */
    const uint32_t both = PLACE_POLICY_IDLE_WHEN_FULL | PLACE_POLICY_FIFO_FIRST_FREE;
    CHECK_EQ_INT(place_spec_props("fifo-first-fit"), both);
    CHECK_EQ_INT(place_spec_props("fifo-best-fit"), 0); /* best-fit has a begin() */
    CHECK_EQ_INT(place_spec_props("order=fifo placement=first-fit backfill=none"), both);
    CHECK_EQ_INT(place_spec_props(""), both); /* the defaults */
    CHECK_EQ_INT(place_spec_props("order=fifo placement=first-fit backfill=greedy"), both);
    CHECK_EQ_INT(place_spec_props("compose backfill=greedy placement=worst-fit"),
                 PLACE_POLICY_IDLE_WHEN_FULL);
    /* another order: the queue is not taken in arrival order */
    CHECK_EQ_INT(place_spec_props("order=sjf placement=first-fit") & PLACE_POLICY_FIFO_FIRST_FREE,
                 0);
    CHECK_EQ_INT(place_spec_props("order=priority placement=first-fit backfill=none") &
                     PLACE_POLICY_FIFO_FIRST_FREE,
                 0);
    /* a rule with state claims only by its own declaration */
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "conservative" : "easy";
        const place_backfill *bf = place_backfill_find(name);
        CHECK(bf != NULL);
        CHECK_EQ_INT(place_spec_props(name),
                     (bf->flags & PLACE_BF_IDLE_WHEN_FULL) ? PLACE_POLICY_IDLE_WHEN_FULL : 0);
        char spec[96];
        snprintf(spec, sizeof spec, "order=fifo placement=first-fit backfill=%s", name);
        CHECK_EQ_INT(place_spec_props(spec) & PLACE_POLICY_FIFO_FIRST_FREE,
                     0); /* reservations are state */
    }
    CHECK_EQ_INT(place_spec_props("priority-preempt"), 0);
    CHECK_EQ_INT(place_spec_props("tiresias"), 0);
    CHECK_EQ_INT(place_spec_props("gavel"), 0);
    CHECK_EQ_INT(place_spec_props("fgd"), 0); /* fgd is not PLACE_FIT_PURE */
    CHECK_EQ_INT(place_spec_props("order=fifo preempt=priority"), 0);
    CHECK_EQ_INT(place_spec_props("order=fifo partition=strict"), 0);
    CHECK_EQ_INT(place_spec_props("order=no-such-order"), 0);
    CHECK_EQ_INT(place_spec_props("fifo-first-fit extra"), 0); /* a preset takes no arguments */
    CHECK_EQ_INT(place_spec_props(NULL), 0);

    /* every composition of the registry's components (those that build
     * without arguments): the claim, checked where made */
    size_t no, nf, nb, np, ns, nt;
    const place_order *const *o = place_order_list(&no);
    const place_fit *const *f = place_fit_list(&nf);
    const place_backfill *const *b = place_backfill_list(&nb);
    const place_preempt *const *pr = place_preempt_list(&np);
    const place_service *const *sv = place_service_list(&ns);
    const place_partition *const *pt = place_partition_list(&nt);
    unsigned claimed = 0, checked = 0, caught = 0;
    for (size_t io = 0; io < no; io++)
        for (size_t ifit = 0; ifit < nf; ifit++)
            for (size_t ib = 0; ib < nb; ib++)
                for (size_t ip = 0; ip < np; ip++)
                    for (size_t is = 0; is < ns; is++)
                        for (size_t it = 0; it < nt; it++) {
                            char spec[256];
                            snprintf(spec, sizeof spec,
                                     "order=%s placement=%s backfill=%s preempt=%s service=%s "
                                     "partition=%s",
                                     o[io]->name, f[ifit]->name, b[ib]->name, pr[ip]->name,
                                     sv[is]->name, pt[it]->name);
                            place_instance pi;
                            if (!init(&pi, spec))
                                continue; /* needs arguments */
                            place_instance_fini(&pi);
                            int claim = (place_spec_props(spec) & PLACE_POLICY_IDLE_WHEN_FULL) != 0;
                            claimed += (unsigned)claim;
                            for (uint64_t seed = 1; seed <= (claim ? 24u : 2u); seed++) {
                                int acts = acts_when_full(spec, seed, claim);
                                checked += (unsigned)claim;
                                caught += (unsigned)(!claim && acts);
                            }
                        }
    printf("test_place_idle: %u specifications claim the property, %u full passes checked, "
           "%u full passes of non-claiming ones act\n",
           claimed, checked, caught);
    /* order fifo x the pure fits without begin() (first-fit, worst-fit,
     * topology, hetero, smallest-type) x backfill none and greedy, and those
     * backfilling rules that declare PLACE_BF_IDLE_WHEN_FULL */
    size_t nbf = 2;
    for (size_t ib = 0; ib < nb; ib++)
        nbf += (b[ib]->flags & PLACE_BF_IDLE_WHEN_FULL) != 0;
    CHECK_EQ_U64(claimed, 5 * nbf);
    /* the checker catches a policy that acts on a full cluster: priority
     * preemption evicts a preemptible job for a more important one */
    int seen = 0;
    for (uint64_t seed = 1; seed <= 24 && !seen; seed++)
        seen = acts_when_full("order=priority placement=first-fit preempt=priority", seed, 0);
    CHECK(seen);
    return check_finish("test_place_idle");
}
