/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib_consumer.c — a scheduler that knows tarmac's placement core only as an
 * installed library (tests/lib_install.sh builds it with pkg-config against
 * the shared object and the static archive, and with CMake's find_package).
 *
 * It includes nothing of tarmac but the installed place.h, builds a small
 * cluster (two GPU types, three nodes), queues four jobs and runs placement
 * passes through place_pass_run, applying each decision as a host does. The
 * expected decisions are worked out by hand (best-fit with FIFO order):
 *
 *   types: 0 = 80 GiB GPUs, 1 = 24 GiB GPUs
 *   nodes: 0 = type 0, 8 GPUs; 1 = type 0, 4 GPUs; 2 = type 1, 4 GPUs
 *   jobs:  1: 4 GPUs of 40 GiB  -> node 1 (best fit: 4 free, not node 0's 8;
 *                                  type 1 lacks the memory)
 *          2: 8 GPUs of 1 GiB   -> node 0 (the only node with 8 GPUs; first-fit
 *                                  on job 1 would have taken it)
 *          3: 4 GPUs of 20 GiB  -> node 2 (types 0 are full)
 *          4: 2 GPUs of 1 GiB   -> waits (no GPU free)
 *   then job 2 ends (its GPUs given back) and a second pass starts job 4 on
 *   node 0, whose two lowest GPUs it takes.
 *
 * Exit 0 when every decision and every count is the expected one; 1 with a
 * message on stderr otherwise.
 */
#include <place.h>

#include <stdio.h>
#include <string.h>

#define N_JOBS 4

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "lib_consumer: FAIL: %s\n", what);
        failures++;
    }
}

/* The host: the cluster, the running jobs and the parts they hold. */
typedef struct host {
    place_cluster cluster;
    place_running running[N_JOBS];
    place_part held[N_JOBS][4];
    uint32_t started_node[N_JOBS]; /* node of each queue entry's decision, or PLACE_NONE */
} host;

static int apply(void *h_, place_view *v, place_decision *d)
{
    host *h = h_;
    if (d->kind != PLACE_START || d->n_parts == 0 || d->n_parts > 4)
        return PLACE_ERR_INVAL;
    const place_job *j = &v->queue[d->index];
    int rc = place_cluster_take_checked(&h->cluster, j, d->parts, d->n_parts);
    if (rc != PLACE_OK)
        return rc;
    uint32_t k = v->n_running;
    memcpy(h->held[k], d->parts, d->n_parts * sizeof *d->parts);
    place_running *r = &h->running[k];
    memset(r, 0, sizeof *r);
    r->job = *j;
    r->start_us = v->now_us;
    r->end_estimate_us = place_end_estimate(&h->cluster, j, d->parts, d->n_parts, v->now_us);
    r->lost_gpu_s = -1;
    r->parts = h->held[k];
    r->n_parts = d->n_parts;
    v->running = h->running;
    v->n_running = k + 1;
    h->started_node[d->index] = d->parts[0].node;
    return PLACE_OK;
}

static place_job job(uint64_t id, uint32_t gpus, uint32_t mem_mib, int64_t estimate_s)
{
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = id;
    j.submit_us = (int64_t)id;
    j.estimate_us = estimate_s * 1000000;
    j.deadline_us = -1;
    j.gpus = gpus;
    j.gpu_milli = PLACE_MILLI_WHOLE;
    j.gpu_mem_mib = mem_mib;
    return j;
}

int main(void)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    static host h;
    const uint32_t mem[2] = {81920, 24576};
    const uint32_t shape[3][2] = {{0, 8}, {0, 4}, {1, 4}}; /* type, GPUs */
    char err[160];

    if (place_cluster_init(&h.cluster, &env, 2, mem) != PLACE_OK) {
        fprintf(stderr, "lib_consumer: place_cluster_init failed\n");
        return 1;
    }
    for (uint32_t n = 0; n < 3; n++) {
        uint32_t node = PLACE_NONE;
        int rc =
            place_cluster_add_node(&h.cluster, shape[n][0], shape[n][1], 64000, 1 << 20, &node);
        expect(rc == PLACE_OK && node == n, "place_cluster_add_node");
        expect(place_cluster_set_node_up(&h.cluster, node, 1) == PLACE_OK,
               "place_cluster_set_node_up");
    }
    expect(h.cluster.gpus_free == 16, "16 GPUs free in an empty cluster");
    expect(place_cluster_verify(&h.cluster) == PLACE_OK, "place_cluster_verify (empty)");

    /* The library refuses a bad specification with a message naming the token. */
    place_instance pi;
    err[0] = '\0';
    expect(place_instance_init(&pi, &env, "order=fifo placement=no-such-fit", err, sizeof err) !=
               PLACE_OK,
           "an unknown placement rule is refused");
    expect(strstr(err, "no-such-fit") != NULL, "the refusal names the unknown rule");
    if (place_instance_init(&pi, &env, "order=fifo placement=best-fit backfill=easy", err,
                            sizeof err) != PLACE_OK) {
        fprintf(stderr, "lib_consumer: place_instance_init: %s\n", err);
        place_cluster_fini(&h.cluster);
        return 1;
    }

    place_job queue[N_JOBS] = {job(1, 4, 40960, 3600), job(2, 8, 1024, 600), job(3, 4, 20480, 3600),
                               job(4, 2, 1024, 60)};
    uint8_t qs[N_JOBS] = {PLACE_Q_WAITING, PLACE_Q_WAITING, PLACE_Q_WAITING, PLACE_Q_WAITING};
    for (int i = 0; i < N_JOBS; i++)
        h.started_node[i] = PLACE_NONE;
    place_view v = {0, &h.cluster, queue, qs, N_JOBS, h.running, 0, NULL, NULL, 0};
    place_part parts[8];
    place_pass_stats st;

    int rc = place_pass_run(&pi, &v, qs, parts, 8, apply, &h, &st);
    printf("pass 1: %s, %u started, %llu GPUs free; jobs on nodes %d %d %d %d\n",
           place_strerror(rc), st.started, (unsigned long long)h.cluster.gpus_free,
           (int)h.started_node[0], (int)h.started_node[1], (int)h.started_node[2],
           (int)h.started_node[3]);
    expect(rc == PLACE_OK, "pass 1 ends well");
    expect(st.started == 3 && st.invalid == 0, "pass 1 starts three jobs, refuses none");
    expect(h.started_node[0] == 1, "job 1 (4 x 40 GiB) best-fits on node 1");
    expect(h.started_node[1] == 0, "job 2 (8 GPUs) goes to node 0");
    expect(h.started_node[2] == 2, "job 3 (4 x 20 GiB) goes to node 2, of the 24 GiB type");
    expect(h.started_node[3] == PLACE_NONE && qs[3] == PLACE_Q_WAITING, "job 4 waits");
    expect(h.cluster.gpus_free == 0, "no GPU free after pass 1");
    expect(place_cluster_verify(&h.cluster) == PLACE_OK, "place_cluster_verify (pass 1)");

    /* Job 2 ends at t = 600 s: the host gives its GPUs back and drops it. */
    uint32_t k2 = PLACE_NONE;
    for (uint32_t k = 0; k < v.n_running; k++)
        if (h.running[k].job.id == 2)
            k2 = k;
    expect(k2 != PLACE_NONE, "job 2 is running");
    if (k2 != PLACE_NONE) {
        place_cluster_give(&h.cluster, &h.running[k2].job, h.running[k2].parts,
                           h.running[k2].n_parts);
        uint32_t last = v.n_running - 1;
        if (k2 != last) {
            h.running[k2] = h.running[last];
            memcpy(h.held[k2], h.held[last], sizeof h.held[k2]);
            h.running[k2].parts = h.held[k2];
        }
        v.n_running = last;
    }
    expect(h.cluster.gpus_free == 8, "8 GPUs free once job 2 ended");
    v.now_us = 600 * 1000000ll;
    /* the started jobs leave the queue; job 4 is all that waits */
    place_job rest[1] = {queue[3]};
    uint8_t rest_qs[1] = {PLACE_Q_WAITING};
    v.queue = rest;
    v.queue_state = rest_qs;
    v.n_queue = 1;
    h.started_node[0] = PLACE_NONE;
    rc = place_pass_run(&pi, &v, rest_qs, parts, 8, apply, &h, &st);
    printf("pass 2: %s, %u started, %llu GPUs free; job 4 on node %d\n", place_strerror(rc),
           st.started, (unsigned long long)h.cluster.gpus_free, (int)h.started_node[0]);
    expect(rc == PLACE_OK && st.started == 1, "pass 2 starts job 4");
    expect(h.started_node[0] == 0, "job 4 goes to node 0, freed by job 2");
    expect(h.running[v.n_running - 1].parts[0].mask == 0x3u, "job 4 holds GPUs 0 and 1");
    expect(h.cluster.gpus_free == 6, "6 GPUs free after pass 2");
    expect(place_cluster_verify(&h.cluster) == PLACE_OK, "place_cluster_verify (pass 2)");

    /* The registry is reachable through the exported API. */
    size_t n_fits = 0;
    expect(place_fit_list(&n_fits) != NULL && n_fits >= 3, "place_fit_list");
    expect(place_fit_find("best-fit") != NULL, "place_fit_find(best-fit)");
    expect(strcmp(place_status_name(PLACE_ERR_NOFIT), "PLACE_ERR_NOFIT") == 0, "place_status_name");

    place_instance_fini(&pi);
    place_cluster_fini(&h.cluster);
    if (failures) {
        fprintf(stderr, "lib_consumer: %d check(s) failed\n", failures);
        return 1;
    }
    printf("lib_consumer: placement ABI %u, all decisions as expected\n",
           (unsigned)PLACE_ABI_VERSION);
    return 0;
}
