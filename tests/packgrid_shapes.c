/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packgrid_shapes.c — dotprod, gpu-packing and random keep per job shape
 * what they derived from every node (policies/fit_shapes.h: dotprod and
 * gpu-packing a tree of the nodes' best scores or ranks, random a bit set of
 * candidate nodes and its count), brought up to date from the cluster's
 * change journal; every decision must be the one the scan gives
 * ("placement=dotprod:scan", "gpu-packing:scan", "random:scan") and the one
 * a fresh instance gives, which builds its per-shape state from a fresh
 * count of the nodes.
 *
 * Random worlds (20 to 300 nodes of one to three types with different GPU
 * memory, 2 to 8 GPUs each): jobs of many shapes (whole-GPU gangs, shares,
 * CPU only; host CPU and memory; GPU memory some types lack; type masks)
 * start through place_cluster_take and end through place_cluster_give;
 * nodes and GPUs go out of service and come back; nodes are added; bursts
 * of more changes than the journal remembers happen between two questions;
 * some worlds use more shapes than the slots keep (evictions); the cluster
 * is rebuilt under the same instance. For random, each decision is asked
 * under several random streams (the first, the last and drawn candidates),
 * each stream the same for the three instances: a count or an order that
 * differs shows as a different node.
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

/* The fits' random stream: a fixed value (1 draws the first of n, UINT64_MAX
 * the last: place_rand_below takes the high word of value x n), or a
 * splitmix stream from a seed. */
typedef struct stream {
    int fixed;
    uint64_t x;
} stream;

static uint64_t stream_next(void *ud)
{
    stream *s = ud;
    if (s->fixed)
        return s->x;
    uint64_t z = (s->x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define RUN_MAX 4096

typedef struct world {
    place_cluster c;
    uint32_t n_types;
    place_job job[RUN_MAX];
    place_part parts[RUN_MAX][4];
    uint32_t n_parts[RUN_MAX];
    uint32_t n_run;
} world;

static void add_nodes(world *w, uint32_t nodes)
{
    for (uint32_t k = 0; k < nodes; k++) {
        uint32_t n;
        int64_t cpu = below(4) == 0 ? 32000 : 96000, mem = below(3) == 0 ? 131072 : 393216;
        CHECK_EQ_INT(place_cluster_add_node(&w->c, below(w->n_types), 2 + below(7), cpu, mem, &n),
                     PLACE_OK);
        place_cluster_set_node_up(&w->c, n, 1);
    }
}

static void world_cluster(world *w, place_env *env)
{
    uint32_t mem[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < PLACE_MAX_TYPES; t++)
        mem[t] = t % 2 ? 16384 : 32768;
    w->n_types = 1 + below(3);
    w->n_run = 0;
    CHECK_EQ_INT(place_cluster_init(&w->c, env, w->n_types, mem), PLACE_OK);
    add_nodes(w, 20 + below(281));
}

static place_job random_job(uint64_t id, int many_shapes)
{
    static const uint32_t shares[] = {100, 200, 250, 300, 500, 700};
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = id;
    j.estimate_us = -1;
    j.deadline_us = -1;
    j.cpu_milli = (int64_t)below(5) * (many_shapes ? 1000 + below(50) : 4000);
    j.host_mem_mib = (int64_t)below(3) * (many_shapes ? 1024 + below(50) : 16384);
    j.gpu_mem_mib = below(4) == 0 ? 20000 : 4096 * below(3);
    if (below(8) == 0)
        j.type_mask = 1 + below(7);
    uint32_t k = below(10);
    if (k < 5) {
        j.gpus = 1;
        j.gpu_milli = shares[below(6)];
    } else if (k < 9) {
        j.gpus = 1 + below(8);
        j.gpu_milli = PLACE_MILLI_WHOLE;
    } else {
        j.gpus = 0; /* CPU only */
        j.gpu_milli = PLACE_MILLI_WHOLE;
        j.gpu_mem_mib = 0;
    }
    return j;
}

typedef struct answer {
    int rc;
    uint32_t n_parts, node, gpu;
} answer;

static answer ask(const place_fit *f, void *st, const place_view *v, const place_job *j,
                  const place_env *env, place_part *parts)
{
    place_fit_ctx ctx = {env, NULL, NULL};
    place_decision d = {0, 0, 0, 4, parts};
    answer a = {f->fit(st, v, j, &d, &ctx), 0, PLACE_NONE, PLACE_NONE};
    if (a.rc == PLACE_OK) {
        a.n_parts = d.n_parts;
        a.node = parts[0].node;
        a.gpu = parts[0].gpu;
    }
    return a;
}

static void *make(const place_fit *f, place_env *env, const char *args)
{
    void *st = NULL;
    char err[128];
    CHECK_EQ_INT(f->create(env, args, &st, err, sizeof err), PLACE_OK);
    return st;
}

static uint32_t one_world(const char *name, int many_shapes, uint32_t steps)
{
    const place_fit *f = place_fit_find(name);
    CHECK(f != NULL);
    if (!f)
        return 0;
    int is_random = strcmp(name, "random") == 0;
    stream rs = {0, 0};
    place_env env = {place_alloc_libc, NULL, stream_next, &rs};
    world *w = calloc(1, sizeof *w);
    world_cluster(w, &env);
    void *kept = make(f, &env, ""), *scan = make(f, &env, "scan");
    place_part pa[4], pb[4], pc[4];
    uint64_t id = 1;
    uint32_t asked = 0;
    int failures0 = check_failures;
    for (uint32_t step = 0; step < steps && check_failures == failures0; step++) {
        uint32_t what = below(100);
        if (what < 18 && w->n_run > 0) { /* a job ends */
            uint32_t r = below(w->n_run), last = --w->n_run;
            place_cluster_give(&w->c, &w->job[r], w->parts[r], w->n_parts[r]);
            w->job[r] = w->job[last];
            memcpy(w->parts[r], w->parts[last], sizeof w->parts[r]);
            w->n_parts[r] = w->n_parts[last];
            continue;
        }
        if (what < 20) { /* a node or a GPU goes out of service or comes back */
            uint32_t n = below(w->c.n_nodes);
            if (below(2))
                place_cluster_set_node_up(&w->c, n, !w->c.node_up[n]);
            else
                place_cluster_set_gpu_up(&w->c, n, below(w->c.node_gpus[n]), below(3) != 0);
            continue;
        }
        if (what < 21) { /* nodes added */
            add_nodes(w, 1 + below(4));
            continue;
        }
        if (what == 21 && below(4) == 0) { /* another cluster under the same instances */
            place_cluster_fini(&w->c);
            world_cluster(w, &env);
            continue;
        }
        place_job j = random_job(id++, many_shapes);
        uint8_t qs = PLACE_Q_WAITING;
        place_view v = {0, &w->c, &j, &qs, 1, NULL, 0, NULL, NULL, 0};
        int burst = what == 22; /* placed without asking the fits: many changes */
        if (!burst) {
            /* streams: the first candidate, the last one, then drawn ones */
            uint32_t probes = is_random ? 5 : 1;
            for (uint32_t p = 0; p < probes && check_failures == failures0; p++) {
                stream s0 = {p < 2, p == 0 ? 1 : p == 1 ? UINT64_MAX : rnd()};
                rs = s0;
                answer a = ask(f, kept, &v, &j, &env, pa);
                rs = s0;
                answer b = ask(f, scan, &v, &j, &env, pb);
                rs = s0;
                void *fresh = make(f, &env, "");
                answer c = ask(f, fresh, &v, &j, &env, pc);
                f->destroy(fresh);
                CHECK_EQ_INT(a.rc, b.rc);
                CHECK_EQ_INT(a.rc, c.rc);
                CHECK_EQ_INT(a.n_parts, b.n_parts);
                CHECK_EQ_INT(a.node, b.node);
                CHECK_EQ_INT(a.gpu, b.gpu);
                CHECK_EQ_INT(a.node, c.node);
                CHECK_EQ_INT(a.gpu, c.gpu);
                asked++;
            }
            if (check_failures > failures0) {
                fprintf(stderr, "packgrid_shapes: %s step %u, job %llu (%u x %u milli)\n", name,
                        step, (unsigned long long)j.id, j.gpus, j.gpu_milli);
                break;
            }
        }
        uint32_t times = burst ? 400 + below(1200) : 1;
        for (uint32_t b = 0; b < times; b++) {
            if (w->n_run == RUN_MAX)
                break;
            place_job jb = burst ? random_job(id++, many_shapes) : j;
            place_part *pp = w->parts[w->n_run];
            answer a = burst ? ask(place_fit_find("first-fit"), NULL, &v, &jb, &env, pp)
                             : (answer){PLACE_OK, 0, 0, 0};
            if (!burst) {
                rs = (stream){1, 1};
                a = ask(f, kept, &v, &jb, &env, pp);
            }
            if (a.rc != PLACE_OK || a.n_parts > 4)
                continue;
            if (place_cluster_take(&w->c, &jb, pp, a.n_parts) != PLACE_OK)
                continue;
            w->job[w->n_run] = jb;
            w->n_parts[w->n_run] = a.n_parts;
            w->n_run++;
        }
        if (burst) /* and as many ended, some of them */
            for (uint32_t b = 0; b < times / 2 && w->n_run > 0; b++) {
                uint32_t r = --w->n_run;
                place_cluster_give(&w->c, &w->job[r], w->parts[r], w->n_parts[r]);
            }
    }
    CHECK_EQ_INT(place_cluster_verify(&w->c), PLACE_OK);
    f->destroy(kept);
    f->destroy(scan);
    place_cluster_fini(&w->c);
    free(w);
    return asked;
}

int main(void)
{
    rng_s = check_seed(20261204);
    uint64_t asked = 0;
    for (int k = 0; k < 10 && check_failures == 0; k++) {
        asked += one_world("dotprod", 0, 3000);
        asked += one_world("random", 0, 2000);
        asked += one_world("gpu-packing", 0, 3000);
    }
    for (int k = 0; k < 2 && check_failures == 0; k++) {
        asked += one_world("dotprod", 1, 3000); /* more shapes than the slots */
        asked += one_world("random", 1, 2000);
        asked += one_world("gpu-packing", 1, 3000);
    }
    CHECK(asked > 50000);
    return check_finish("packgrid_shapes");
}
