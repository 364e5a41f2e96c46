/* SPDX-License-Identifier: Apache-2.0 */
/*
 * partition.c — who may use a tenant's nodes: "none" and "strict".
 *
 * A node may belong to a tenant (place_cluster.node_tenant); the partition
 * rule of the composed policy says what that means (docs/partition.md):
 *
 *   none    ownership is ignored: one orchestrated fleet, every job anywhere.
 *           No veto is installed, so the composed policy decides exactly as
 *           it did before owners existed.
 *   strict  the siloed baseline: a job runs only on nodes its tenant owns and
 *           on shared nodes; nothing is lent. Each tenant has its own queue
 *           (PLACE_PARTITION_QUEUES): a job that does not fit stops only its
 *           tenant's queue, so a tenant's jobs are decided as they would be on
 *           a fleet of its own nodes alone.
 *
 * "borrow" (lending idle owned capacity, reclaimed by preemption) is in
 * partition_borrow.c.
 * Source: the static partitions of batch schedulers (Slurm's AllowAccounts /
 * AllowGroups per partition; Kueue ClusterQueues without a cohort).
 */
#include "place_int.h"

/* May job j use node n? Its tenant's own nodes and shared nodes only. */
static int strict_allow(void *state, const place_view *v, const place_job *j, uint32_t node,
                        int phase)
{
    (void)state;
    (void)phase;
    uint32_t owner = place_node_tenant(v->cluster, node);
    return owner == PLACE_NONE || owner == j->tenant;
}

const place_partition place__partition_none = {
    .name = "none",
    .summary = "node owners are ignored: one shared fleet",
};

const place_partition place__partition_strict = {
    .name = "strict",
    .summary = "siloed: a job runs only on its tenant's nodes (and shared ones); one queue per "
               "tenant",
    .flags = PLACE_PARTITION_QUEUES,
    .allow = strict_allow,
};
