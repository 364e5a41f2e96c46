/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_preempt_diff.c — priority preemption against a reference: the
 * library's rule, which gathers its candidates once per pass and keeps each
 * job class's answers until a decision changes a node, must choose exactly
 * what the rule that gathered and sorted them for every job chose
 * (ref_preempt_priority.c, a verbatim copy of the old code).
 *
 * Random worlds: 2 to 40 nodes of up to three GPU types (1 to 8 GPUs, host
 * CPU and memory that may bind, some GPUs and nodes out of service), filled
 * with running jobs (whole-GPU gangs, gangs spanning nodes, GPU shares; five
 * priorities; most preemptible; lost work given or computed from start,
 * overhead and checkpoints; some started at this very instant), and a queue
 * of jobs of the same shapes, with type constraints, GPU memory and host
 * resources, mostly of higher priority, many of one class. A pass is run by
 * hand, as the composed policy runs it: in queue order, first-fit when the
 * job fits; otherwise both rules plan() on the same view and must agree on
 * the answer, the victims (in order) and the placement; the victims are then
 * preempted one by one (swap-remove, as the hosts do) and the job started,
 * and the library's rule observe()s every decision. Several passes follow
 * each other on one instance (begin() between them), with time moving on.
 * Reproduce a failure with TARMAC_TEST_SEED=<seed printed>.
 */
#include "check.h"
#include "place_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const place_preempt place__preempt_priority;
extern const place_preempt ref__preempt_priority;

#define MAX_JOBS  400
#define MAX_PARTS 8

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

typedef struct world {
    place_cluster c;
    int64_t now;
    place_running run[MAX_JOBS];
    place_part *run_parts[MAX_JOBS]; /* owned blocks, moved with their entries */
    uint32_t n_run;
    place_job queue[MAX_JOBS];
    uint8_t qstate[MAX_JOBS];
    uint32_t n_queue;
    uint64_t next_id;
} world;

static const uint32_t type_mem[3] = {81920, 40960, 24576};

static place_job random_job(world *w, int running)
{
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = w->next_id++;
    j.estimate_us = below(4) ? (int64_t)(1 + below(3600)) * 1000000 : -1;
    j.deadline_us = -1;
    j.span_slowdown = 1;
    j.gpu_milli = PLACE_MILLI_WHOLE;
    uint32_t shape = below(10);
    if (shape < 3) {
        j.gpus = 1;
        j.gpu_milli = 250 * (1 + below(3));
    } else {
        static const uint32_t g[] = {1, 2, 4, 8, 2, 1, 12};
        j.gpus = g[below(7)];
    }
    if (below(4) == 0)
        j.gpu_mem_mib = 8192u * (1 + below(8));
    if (below(4) == 0)
        j.cpu_milli = 8000 * (1 + below(4));
    if (below(5) == 0)
        j.host_mem_mib = 65536 * (1 + below(4));
    if (!running && below(5) == 0)
        j.type_mask = 1ull << below(3) | (below(2) ? 1ull << below(3) : 0);
    if (below(10) < 7)
        j.flags |= PLACE_JOB_PREEMPTIBLE;
    if (j.gpus > 1 && j.gpu_milli == PLACE_MILLI_WHOLE && below(4) == 0)
        j.flags |= PLACE_JOB_CAN_SPAN;
    j.priority = running ? (int32_t)below(5) : (int32_t)(2 + below(4));
    return j;
}

/* Place j first-fit now (spanning if it must and may); PLACE_OK or NOFIT. */
static int first_fit(const world *w, const place_job *j, place_part *parts, uint32_t *n_parts)
{
    place_view v = {w->now, &w->c,    w->queue, w->qstate, w->n_queue,
                    w->run, w->n_run, NULL,     NULL,      0};
    place_decision d = {0, 0, 0, MAX_PARTS, parts};
    int rc = place__fit_first.fit(NULL, &v, j, &d, NULL);
    *n_parts = d.n_parts;
    return rc;
}

static void run_append(world *w, const place_job *j, place_part *parts, uint32_t n_parts,
                       int64_t start, double lost, int64_t checkpoint, int64_t overhead)
{
    place_part *own = malloc(n_parts * sizeof *own);
    memcpy(own, parts, n_parts * sizeof *own);
    place_running *r = &w->run[w->n_run];
    memset(r, 0, sizeof *r);
    r->job = *j;
    r->start_us = start;
    r->end_estimate_us = j->estimate_us < 0 ? -1 : start + j->estimate_us;
    r->overhead_us = overhead;
    r->checkpoint_us = checkpoint;
    r->lost_gpu_s = lost;
    r->parts = own;
    r->n_parts = n_parts;
    w->run_parts[w->n_run++] = own;
}

static void world_build(world *w)
{
    memset(w, 0, sizeof *w);
    w->now = 100000000000ll;
    w->next_id = 1 + below(1000);
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    uint32_t n_types = 1 + below(3);
    CHECK_EQ_INT(place_cluster_init(&w->c, &env, n_types, type_mem), PLACE_OK);
    uint32_t nodes = 2 + below(39);
    for (uint32_t n = 0; n < nodes; n++) {
        static const uint32_t g[] = {8, 8, 4, 2, 1, 8};
        uint32_t node;
        int64_t cpu = below(3) ? 64000 : 16000, mem = below(3) ? 1 << 20 : 1 << 18;
        place_cluster_add_node(&w->c, below(n_types), g[below(6)], cpu, mem, &node);
        place_cluster_set_node_up(&w->c, node, 1);
    }
    /* running jobs: placed first-fit until the cluster is (nearly) full */
    for (uint32_t tries = 0; tries < 3 * MAX_JOBS && w->n_run < MAX_JOBS / 2; tries++) {
        place_job j = random_job(w, 1);
        place_part parts[MAX_PARTS];
        uint32_t np;
        if (first_fit(w, &j, parts, &np) != PLACE_OK)
            continue;
        if (place_cluster_take(&w->c, &j, parts, np) != PLACE_OK)
            continue;
        int64_t start = below(8) == 0 ? w->now : w->now - (int64_t)(1 + below(7200)) * 1000000;
        double lost = below(3) == 0 ? (double)below(5000) : -1;
        int64_t ckpt = below(2) ? (int64_t)(60 + below(1800)) * 1000000 : 0;
        int64_t over = below(4) == 0 ? (int64_t)below(300) * 1000000 : 0;
        if (below(6) == 0)
            lost = 100; /* equal losses: the ties of the order */
        run_append(w, &j, parts, np, start, lost, ckpt, over);
    }
    /* a few GPUs and nodes out of service, with their jobs still on them */
    for (uint32_t k = below(3); k > 0; k--) {
        uint32_t n = below(w->c.n_nodes);
        if (w->c.node_gpus[n])
            place_cluster_set_gpu_up(&w->c, n, below(w->c.node_gpus[n]), 0);
    }
    if (below(4) == 0)
        place_cluster_set_node_up(&w->c, below(w->c.n_nodes), 0);
    /* the queue: many of a few classes, some of their own */
    place_job proto[4];
    for (uint32_t k = 0; k < 4; k++)
        proto[k] = random_job(w, 0);
    w->n_queue = 20 + below(MAX_JOBS - 20);
    for (uint32_t i = 0; i < w->n_queue; i++) {
        if (below(3)) {
            w->queue[i] = proto[below(4)];
            w->queue[i].id = w->next_id++;
        } else {
            w->queue[i] = random_job(w, 0);
        }
    }
}

static void world_fini(world *w)
{
    for (uint32_t k = 0; k < w->n_run; k++)
        free(w->run_parts[k]);
    place_cluster_fini(&w->c);
}

/* PREEMPT running entry k: give back, swap-remove (the host's protocol). */
static void apply_preempt(world *w, uint32_t k)
{
    place_cluster_give(&w->c, &w->run[k].job, w->run[k].parts, w->run[k].n_parts);
    free(w->run_parts[k]);
    w->n_run--;
    w->run[k] = w->run[w->n_run];
    w->run_parts[k] = w->run_parts[w->n_run];
}

static uint32_t find_id(const world *w, uint64_t id)
{
    for (uint32_t k = 0; k < w->n_run; k++)
        if (w->run[k].job.id == id)
            return k;
    return PLACE_NONE;
}

/* One pass: returns the number of preemptions made (to show coverage). */
static uint32_t one_pass(world *w, void *st, void *ref, uint64_t seed, uint32_t pass)
{
    uint32_t preempted = 0;
    place_view v = {w->now, &w->c,    w->queue, w->qstate, w->n_queue,
                    w->run, w->n_run, NULL,     NULL,      0};
    CHECK_EQ_INT(place__preempt_priority.begin(st, &v), PLACE_OK);
    memset(w->qstate, 0, sizeof w->qstate);
    for (uint32_t i = 0; i < w->n_queue; i++) {
        const place_job *j = &w->queue[i];
        place_part parts[MAX_PARTS];
        uint32_t np = 0;
        v = (place_view){w->now, &w->c,    w->queue, w->qstate, w->n_queue,
                         w->run, w->n_run, NULL,     NULL,      0};
        place_decision d = {PLACE_START, i, 0, MAX_PARTS, parts};
        if (first_fit(w, j, parts, &np) != PLACE_OK) {
            uint32_t va[MAX_JOBS], vb[MAX_JOBS], na = 0, nb = 0;
            place_part pa[MAX_PARTS], pb[MAX_PARTS];
            place_decision da = {0, 0, 0, MAX_PARTS, pa}, db = {0, 0, 0, MAX_PARTS, pb};
            int ra = place__preempt_priority.plan(st, &v, i, va, w->n_run, &na, &da);
            int rb = ref__preempt_priority.plan(ref, &v, i, vb, w->n_run, &nb, &db);
            int same = ra == rb && (ra != PLACE_OK || (na == nb && da.n_parts == db.n_parts));
            for (uint32_t q = 0; same && ra == PLACE_OK && q < na; q++)
                same = va[q] == vb[q];
            for (uint32_t q = 0; same && ra == PLACE_OK && q < da.n_parts; q++)
                same = pa[q].node == pb[q].node && pa[q].gpus == pb[q].gpus &&
                       pa[q].gpu == pb[q].gpu && pa[q].milli == pb[q].milli;
            if (!same) {
                check_fail(__FILE__, __LINE__,
                           "seed %llu pass %u queue[%u]: got rc %d, %u victims (first %u), "
                           "node %u; want rc %d, %u victims (first %u), node %u",
                           (unsigned long long)seed, pass, i, ra, na, na ? va[0] : 0,
                           da.n_parts ? pa[0].node : 0, rb, nb, nb ? vb[0] : 0,
                           db.n_parts ? pb[0].node : 0);
                return preempted;
            }
            if (ra != PLACE_OK)
                continue;
            /* the victims by id, as the composed policy stops them */
            uint64_t ids[MAX_JOBS];
            for (uint32_t q = 0; q < na; q++)
                ids[q] = w->run[va[q]].job.id;
            for (uint32_t q = 0; q < na; q++) {
                uint32_t k = find_id(w, ids[q]);
                if (k == PLACE_NONE)
                    break; /* (one victim twice: the plan is dropped, as compose does) */
                apply_preempt(w, k);
                preempted++;
                v = (place_view){w->now, &w->c,    w->queue, w->qstate, w->n_queue,
                                 w->run, w->n_run, NULL,     NULL,      0};
                place_decision dp = {PLACE_PREEMPT, k, 0, 0, NULL};
                place__preempt_priority.observe(st, &v, &dp);
            }
            memcpy(parts, pa, da.n_parts * sizeof *parts);
            np = da.n_parts;
            if (place_cluster_check(&w->c, j, parts, np) != PLACE_OK)
                continue; /* the plan's capacity did not come free (the drop above) */
        }
        if (w->n_run == MAX_JOBS || place_cluster_take(&w->c, j, parts, np) != PLACE_OK)
            continue;
        w->qstate[i] = PLACE_Q_STARTED;
        run_append(w, j, parts, np, w->now, -1, 0, 0);
        d.n_parts = np;
        v = (place_view){w->now, &w->c,    w->queue, w->qstate, w->n_queue,
                         w->run, w->n_run, NULL,     NULL,      0};
        place__preempt_priority.observe(st, &v, &d);
    }
    return preempted;
}

int main(void)
{
    uint64_t seed0 = check_seed(7);
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    uint32_t worlds = 300, preempted = 0, passes = 0;
    for (uint32_t k = 0; k < worlds && check_failures == 0; k++) {
        uint64_t seed = seed0 + k;
        sm = seed;
        world w;
        world_build(&w);
        void *st = NULL, *ref = NULL;
        CHECK_EQ_INT(place__preempt_priority.create(&env, "", &st, NULL, 0), PLACE_OK);
        CHECK_EQ_INT(ref__preempt_priority.create(&env, "", &ref, NULL, 0), PLACE_OK);
        for (uint32_t pass = 0; pass < 3 && check_failures == 0; pass++) {
            preempted += one_pass(&w, st, ref, seed, pass);
            passes++;
            /* the next pass: time moves on (or not), started jobs are running */
            w.now += below(2) ? (int64_t)below(600) * 1000000 : 0;
        }
        place__preempt_priority.destroy(st);
        ref__preempt_priority.destroy(ref);
        world_fini(&w);
    }
    printf("%u worlds, %u passes, %u preemptions compared\n", worlds, passes, preempted);
    CHECK(preempted > 1000); /* the comparison covers real preemptions */
    return check_finish("test_place_preempt_diff");
}
