/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packgrid_clus.c — gpu-clustering keeps per-node affinity counts between
 * decisions (policies/fit_gpu_clustering.c, "Following the running set");
 * every decision must be the one a fresh instance gives, which counts the
 * whole running set from scratch.
 *
 * Random worlds (20 to 200 nodes of one to three types, 2 to 8 GPUs each):
 * jobs start (whole-GPU gangs and shares) through the host protocol (take,
 * append to the running array), end (give, swap-remove), the running array
 * moves, the cluster is rebuilt under the same instance, and some worlds use
 * more affinities than the counts keep (the marking fallback). Each job is
 * asked of the long-lived instance and of a fresh one, in tarmac's mode and
 * in k8s mode; the answers (status, node, GPU) must be equal.
 */
#include "check.h"
#include "place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_s;

static uint64_t rnd(void)
{
    uint64_t z = (rng_s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

#define RUN_MAX 4096

typedef struct world {
    place_cluster c;
    uint32_t n_types;
    place_running *run; /* moved now and then */
    place_part parts[RUN_MAX][4];
    uint32_t n_run;
} world;

static void world_cluster(world *w, place_env *env)
{
    uint32_t mem[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < PLACE_MAX_TYPES; t++)
        mem[t] = 16384;
    w->n_types = 1 + below(3);
    CHECK_EQ_INT(place_cluster_init(&w->c, env, w->n_types, mem), PLACE_OK);
    uint32_t nodes = 20 + below(181);
    for (uint32_t k = 0; k < nodes; k++) {
        uint32_t n;
        CHECK_EQ_INT(
            place_cluster_add_node(&w->c, below(w->n_types), 2 + below(7), 64000, 262144, &n),
            PLACE_OK);
        place_cluster_set_node_up(&w->c, n, 1);
    }
}

static place_job random_job(uint64_t id, int many_keys)
{
    static const uint32_t shares[] = {100, 200, 250, 300, 500, 700};
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = id;
    j.estimate_us = -1;
    j.deadline_us = -1;
    j.cpu_milli = (int64_t)below(4) * 1000;
    uint32_t k = below(10);
    if (k < 5) {
        j.gpus = 1;
        j.gpu_milli = many_keys ? 10 + 10 * below(90) : shares[below(6)];
    } else if (k < 9) {
        j.gpus = 1u << below(3);
        j.gpu_milli = PLACE_MILLI_WHOLE;
    } else {
        j.gpus = 0; /* CPU only */
        j.gpu_milli = PLACE_MILLI_WHOLE;
        j.cpu_milli = 500;
    }
    return j;
}

/* The decision of fit f on a fresh instance. */
static int fresh_fit(const place_fit *f, const char *args, place_env *env, const place_view *v,
                     const place_job *j, place_decision *d)
{
    void *st = NULL;
    char err[128];
    CHECK_EQ_INT(f->create(env, args, &st, err, sizeof err), PLACE_OK);
    int rc = f->begin ? f->begin(st, v) : PLACE_OK;
    if (rc == PLACE_OK)
        rc = f->fit(st, v, j, d, NULL);
    f->destroy(st);
    return rc;
}

static void one_world(const char *args, int many_keys, uint32_t steps)
{
    const place_fit *f = place_fit_find("gpu-clustering");
    CHECK(f != NULL);
    if (!f)
        return;
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    world *w = calloc(1, sizeof *w);
    w->run = calloc(RUN_MAX, sizeof *w->run);
    world_cluster(w, &env);
    void *st = NULL;
    char err[128];
    CHECK_EQ_INT(f->create(&env, args, &st, err, sizeof err), PLACE_OK);
    place_part pa[4], pb[4];
    uint64_t id = 1;
    int failures0 = check_failures;
    for (uint32_t step = 0; step < steps; step++) {
        uint32_t what = below(100);
        if (what < 20 && w->n_run > 0) { /* a job ends: give, swap-remove */
            uint32_t r = below(w->n_run);
            place_cluster_give(&w->c, &w->run[r].job, w->run[r].parts, w->run[r].n_parts);
            uint32_t last = --w->n_run;
            if (r != last) {
                w->run[r] = w->run[last];
                memcpy(w->parts[r], w->parts[last], sizeof w->parts[r]);
                w->run[r].parts = w->parts[r];
            }
            continue;
        }
        if (what < 23) { /* the running array moves */
            place_running *moved = calloc(RUN_MAX, sizeof *moved);
            memcpy(moved, w->run, w->n_run * sizeof *moved);
            free(w->run);
            w->run = moved;
            continue;
        }
        if (what < 24) { /* another cluster under the same instance, empty */
            place_cluster_fini(&w->c);
            w->n_run = 0;
            world_cluster(w, &env);
            continue;
        }
        place_job j = random_job(id++, many_keys);
        uint8_t qs = PLACE_Q_WAITING;
        place_view v = {0, &w->c, &j, &qs, 1, w->run, w->n_run, NULL, NULL, 0};
        place_decision da = {0, 0, 0, 4, pa}, db = {0, 0, 0, 4, pb};
        if (f->begin)
            CHECK_EQ_INT(f->begin(st, &v), PLACE_OK);
        int ra = f->fit(st, &v, &j, &da, NULL);
        int rb = fresh_fit(f, args, &env, &v, &j, &db);
        CHECK_EQ_INT(ra, rb);
        if (ra != PLACE_OK || rb != PLACE_OK)
            continue;
        CHECK_EQ_INT(da.n_parts, db.n_parts);
        CHECK_EQ_INT(pa[0].node, pb[0].node);
        CHECK_EQ_INT(pa[0].gpu, pb[0].gpu);
        if (check_failures > failures0) {
            fprintf(stderr, "packgrid_clus: '%s' step %u, job %llu (%u x %u milli)\n", args, step,
                    (unsigned long long)j.id, j.gpus, j.gpu_milli);
            break;
        }
        if (w->n_run == RUN_MAX || da.n_parts > 4)
            continue;
        if (place_cluster_take(&w->c, &j, pa, da.n_parts) != PLACE_OK)
            continue;
        place_running *r = &w->run[w->n_run];
        memset(r, 0, sizeof *r);
        r->job = j;
        r->end_estimate_us = -1;
        r->lost_gpu_s = -1;
        memcpy(w->parts[w->n_run], pa, da.n_parts * sizeof *pa);
        r->parts = w->parts[w->n_run];
        r->n_parts = da.n_parts;
        w->n_run++;
    }
    f->destroy(st);
    place_cluster_fini(&w->c);
    free(w->run);
    free(w);
}

int main(void)
{
    rng_s = check_seed(20261203);
    for (int k = 0; k < 12 && check_failures == 0; k++) {
        one_world("", 0, 3000);
        one_world("k8s", 0, 1500);
    }
    for (int k = 0; k < 3 && check_failures == 0; k++) {
        one_world("", 1, 2000); /* more than 64 affinities: the fallback */
        one_world("k8s", 1, 800);
    }
    return check_finish("packgrid_clus");
}
