/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_units.c — takes and gives of whole-GPU gangs on one-GPU nodes
 * (SWF machines), where policies/cluster.c moves a job's parts one at a time
 * with the constants folded in (take_unit, give_unit), a job of one part
 * without the batch (unit_bits_one) or a run of consecutive nodes at once
 * (unit_range), against the general per-part path of the same file on a
 * twin cluster.
 *
 * Cluster A takes and gives jobs without a host share (the folded paths);
 * twin B takes the same parts with place_cluster_take_exact (node_refresh for
 * every part) and gives them back for a job with a host CPU share, which
 * place_cluster_give sends down its general path. After every step every
 * node and GPU field, the totals, the index's bit sets, the change journal
 * and the GPU masks chosen must be the same in both (host CPU aside, which
 * only B uses), and place_cluster_verify must pass. The steps mix gangs of
 * 1 to 150 GPUs placed by the spanning first-fit (long runs of consecutive
 * nodes) and on random free nodes (short runs), nodes and GPUs going out of
 * service and back while jobs hold them, and a second GPU type of two-GPU
 * nodes, so that every branch of the folded paths and every way out of a
 * run is taken.
 */
#include "check.h"
#include "place.h"
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

#define N_NODES 700u /* one-GPU nodes of type 0 (11 index words, not a multiple of 64) */
#define N_WIDE  40u  /* two-GPU nodes of type 1, after them */
#define MAX_RUN 64u  /* jobs held at once */
#define STEPS   6000u

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

typedef struct held {
    place_job ja, jb; /* A: no host share; B: the same with one */
    place_part *pa, *pb;
    uint32_t n;
} held;

static void build(place_cluster *c)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    uint32_t mem[2] = {32 * 1024, 16 * 1024};
    CHECK_EQ_INT(place_cluster_init(c, &env, 2, mem), PLACE_OK);
    for (uint32_t i = 0; i < N_NODES + N_WIDE; i++) {
        uint32_t node;
        uint32_t t = i < N_NODES ? 0 : 1, g = i < N_NODES ? 1 : 2;
        CHECK_EQ_INT(place_cluster_add_node(c, t, g, 1000000, 1 << 20, &node), PLACE_OK);
        CHECK_EQ_INT(place_cluster_set_node_up(c, node, 1), PLACE_OK);
    }
}

static int bits_same(const place_bits *x, const place_bits *y)
{
    return x->n == y->n && !memcmp(x->w0, y->w0, x->n0 * sizeof *x->w0) &&
           !memcmp(x->w1, y->w1, x->n1 * sizeof *x->w1) &&
           !memcmp(x->w2, y->w2, x->n2 * sizeof *x->w2);
}

/* Everything but host CPU is the same in a and b. */
static void same(const place_cluster *a, const place_cluster *b, uint32_t step)
{
    int ok = a->gpus_free == b->gpus_free && a->gpus_up == b->gpus_up && a->changes == b->changes &&
             !memcmp(a->change_ring, b->change_ring, sizeof a->change_ring);
    for (uint32_t t = 0; t < 2 && ok; t++) {
        ok = a->type_gpus_free[t] == b->type_gpus_free[t] &&
             a->type_gpus_up[t] == b->type_gpus_up[t] &&
             bits_same(&a->any_share[t], &b->any_share[t]) && bits_same(&a->up[t], &b->up[t]);
        for (uint32_t f = 0; f <= PLACE_MAX_GPUS_PER_NODE && ok; f++)
            ok = bits_same(&a->by_free[t][f], &b->by_free[t][f]);
    }
    for (uint32_t n = 0; n < a->n_nodes && ok; n++)
        ok = a->node_free[n] == b->node_free[n] && a->node_free_mask[n] == b->node_free_mask[n] &&
             a->node_milli_free[n] == b->node_milli_free[n] && a->node_up[n] == b->node_up[n] &&
             a->node_mem_free_mib[n] == b->node_mem_free_mib[n];
    for (uint32_t g = 0; g < a->n_gpus && ok; g++)
        ok = a->gpu_free_milli[g] == b->gpu_free_milli[g] &&
             a->gpu_free_mem_mib[g] == b->gpu_free_mem_mib[g] && a->gpu_up[g] == b->gpu_up[g];
    if (!ok)
        check_fail(__FILE__, __LINE__, "clusters differ after step %u", step);
    CHECK_EQ_INT(place_cluster_verify(a), PLACE_OK);
    CHECK_EQ_INT(place_cluster_verify(b), PLACE_OK);
}

/* Parts for a gang of g GPUs on type 0: the spanning first-fit, or random
 * free nodes in increasing order. 0 when it does not fit. */
static uint32_t choose(place_cluster *a, uint32_t g, place_part *parts, uint32_t cap)
{
    place_job j;
    memset(&j, 0, sizeof j);
    j.gpus = g;
    j.gpu_milli = PLACE_MILLI_WHOLE;
    j.flags = PLACE_JOB_CAN_SPAN;
    j.type_mask = 1;
    if (a->type_gpus_free[0] < g)
        return 0;
    if (rnd(3)) {
        place_view v;
        memset(&v, 0, sizeof v);
        v.cluster = a;
        place_decision d = {PLACE_START, 0, 0, cap, parts};
        return place_fit_span_first(&v, &j, &d, NULL) == PLACE_OK ? d.n_parts : 0;
    }
    uint32_t np = 0;
    for (uint32_t n = place_cluster_next_free(a, 0, 1, rnd(N_NODES)); n != PLACE_NONE && np < g;
         n = place_cluster_next_free(a, 0, 1, n + 1 + rnd(3))) {
        place_part p = {n, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
        parts[np++] = p;
    }
    return np == g ? np : 0;
}

int main(void)
{
    rng = check_seed(0x9e3779b97f4a7c15ull) | 1;
    place_cluster a, b;
    build(&a);
    build(&b);
    held run[MAX_RUN];
    uint32_t n_run = 0, ranges = 0, singles = 0;
    place_part *scratch = malloc(200 * sizeof *scratch);
    CHECK(scratch != NULL);
    for (uint32_t step = 0; step < STEPS; step++) {
        uint32_t what = rnd(10);
        if (what < 5 && n_run < MAX_RUN) { /* start a gang */
            int wide = rnd(8) == 0;
            uint32_t g = wide ? 1 + rnd(2) : (rnd(4) ? 8 + rnd(143) : 1 + rnd(7)), np = 0;
            if (wide) {
                uint32_t n = place_cluster_next_free(&a, 1, g, 0);
                if (n != PLACE_NONE) {
                    place_part p = {n, (uint16_t)g, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
                    scratch[np++] = p;
                }
            } else
                np = choose(&a, g, scratch, 200);
            if (np == 0)
                continue;
            held *h = &run[n_run++];
            memset(&h->ja, 0, sizeof h->ja);
            h->ja.gpus = g;
            h->ja.gpu_milli = PLACE_MILLI_WHOLE;
            h->ja.flags = PLACE_JOB_CAN_SPAN;
            h->jb = h->ja;
            h->jb.cpu_milli = g; /* one milli-CPU a GPU: B's parts go the general way */
            h->n = np;
            h->pa = malloc(np * sizeof *h->pa);
            h->pb = malloc(np * sizeof *h->pb);
            CHECK(h->pa && h->pb);
            memcpy(h->pa, scratch, np * sizeof *h->pa);
            CHECK_EQ_INT(place_cluster_take(&a, &h->ja, h->pa, np), PLACE_OK);
            memcpy(h->pb, h->pa, np * sizeof *h->pb); /* A's masks: the GPUs B must take */
            CHECK_EQ_INT(place_cluster_take_exact(&b, &h->jb, h->pb, np), PLACE_OK);
            for (uint32_t k = 0; k < np; k++)
                CHECK(h->pa[k].mask != 0);
            for (uint32_t k = 1; k < np; k++)
                ranges += h->pa[k].node == h->pa[k - 1].node + 1;
            singles += np == 1 && h->ja.gpus == 1 && a.node_gpus[h->pa[0].node] == 1;
        } else if (what < 8 && n_run > 0) { /* end one */
            uint32_t r = rnd(n_run);
            held *h = &run[r];
            place_cluster_give(&a, &h->ja, h->pa, h->n);
            place_cluster_give(&b, &h->jb, h->pb, h->n);
            free(h->pa);
            free(h->pb);
            run[r] = run[--n_run];
        } else if (what == 8) { /* a node out of service, or back */
            uint32_t n = rnd(N_NODES + N_WIDE);
            int up = !a.node_up[n];
            CHECK_EQ_INT(place_cluster_set_node_up(&a, n, up), PLACE_OK);
            CHECK_EQ_INT(place_cluster_set_node_up(&b, n, up), PLACE_OK);
        } else { /* a GPU out of service, or back */
            uint32_t n = rnd(N_NODES + N_WIDE), g = rnd(a.node_gpus[n]);
            int up = !a.gpu_up[a.node_gpu0[n] + g];
            CHECK_EQ_INT(place_cluster_set_gpu_up(&a, n, g, up), PLACE_OK);
            CHECK_EQ_INT(place_cluster_set_gpu_up(&b, n, g, up), PLACE_OK);
        }
        same(&a, &b, step);
    }
    /* the steps did exercise runs of consecutive nodes (unit_range's case) */
    CHECK(ranges > 1000);
    /* and one-part jobs on one-GPU nodes (the take and give without a batch) */
    CHECK(singles > 50);
    while (n_run > 0) {
        held *h = &run[--n_run];
        place_cluster_give(&a, &h->ja, h->pa, h->n);
        place_cluster_give(&b, &h->jb, h->pb, h->n);
        free(h->pa);
        free(h->pb);
        same(&a, &b, STEPS);
    }
    free(scratch);
    place_cluster_fini(&a);
    place_cluster_fini(&b);
    return check_finish("test_place_units");
}
