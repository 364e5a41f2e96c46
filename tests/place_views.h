/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_views.h — hand-built views for the placement-core tests, and a host
 * that applies decisions the way the engine and `tarmac place` do (START:
 * take and append to running; PREEMPT: give and swap-remove; ROUTE_API: mark
 * the entry), logging every applied decision. Links the placement core only.
 */
#ifndef TARMAC_PLACE_VIEWS_H
#define TARMAC_PLACE_VIEWS_H

#include "place.h"

#define PV_MAX   256
#define PV_PARTS 16

typedef struct pv_logged {
    uint32_t kind, index;
    uint64_t id; /* job id of the queue entry, or of the running victim */
    uint32_t n_parts;
    place_part parts[PV_PARTS]; /* as applied: masks filled */
} pv_logged;

typedef struct pv_host {
    place_cluster c;
    int64_t now_us;
    place_job queue[PV_MAX];
    uint8_t qstate[PV_MAX];
    uint32_t n_queue;
    place_running run[PV_MAX];
    place_part run_parts[PV_MAX][PV_PARTS];
    uint32_t n_run;
    pv_logged log[PV_MAX];
    uint32_t n_log;
    place_pass_stats stats;
} pv_host;

place_env pv_env(void);
/* A job of `gpus` whole GPUs, id, no estimate/deadline. */
place_job pv_job(uint64_t id, uint32_t gpus);
/* Set up h with nodes: types[k], gpus[k] GPUs, 64 cores, 512 GiB each, all in
 * service; type memory from mem_mib (n_types entries, NULL = 80 GiB each). */
void pv_init(pv_host *h, uint32_t n_types, const uint32_t *mem_mib, const uint32_t *types,
             const uint32_t *gpus, uint32_t n_nodes);
void pv_fini(pv_host *h);
/* Add a running job on the given parts (allocated exactly when a part has a
 * mask, else as place_cluster_take would). Returns its running index. */
uint32_t pv_running(pv_host *h, place_job j, const place_part *parts, uint32_t n_parts,
                    int64_t start_us, int64_t end_estimate_us, double lost_gpu_s);
/* Shorthand: a running job of k whole GPUs on node n. */
uint32_t pv_running_whole(pv_host *h, uint64_t id, uint32_t n, uint32_t k, int64_t end_us);
/* Append a waiting job to the queue. */
void pv_queue(pv_host *h, place_job j);
/* The view over h. */
place_view pv_view(pv_host *h);
/* Run one pass of `spec` over h; returns place_pass_run's status. */
int pv_pass(pv_host *h, const char *spec);
/* Run one pass of an instance over h. */
int pv_pass_instance(pv_host *h, const place_instance *pi);
/* The job ids of the applied START decisions, in order, as "1 4 7" into buf. */
const char *pv_started(const pv_host *h, char *buf, size_t n);

#endif
