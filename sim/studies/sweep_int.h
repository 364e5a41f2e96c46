/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_int.h — running a sweep: points, shards, point files, failure records
 * and the merged file (internal to sim/; the sweep file's JSON is parsed in
 * config/sweep_file.c, the format and the recipes are in docs/sweeps.md, the file
 * layouts in docs/output.md, "Sweep files").
 *
 * A sweep of C combinations and R replications has C * R points; point i is
 * combination i / R at replication i % R, so a point's result depends only on
 * the sweep file and i. Shard K of N owns the points i with i mod N == K
 * (round robin: every shard gets a share of every combination, so the cost
 * of a large fleet is spread over the shards). Point i writes DIR/pNNNNNN.h5
 * (six digits or more), atomically: the run report (or the packing report)
 * plus the group /sweep_point with the point's identity, parameters and a
 * fingerprint of everything its result depends on. A point that fails leaves
 * DIR/pNNNNNN.failed, a text record of the error, instead.
 *
 * A point file is valid (sim__sweep_point_valid) when it opens with the HDF5
 * reader, carries this point's fingerprint and holds its report's key
 * dataset: --resume skips exactly those, so a truncated or foreign file is
 * redone and a temporary file never counts (it is not under the final name).
 */
#ifndef TARMAC_SWEEP_INT_H
#define TARMAC_SWEEP_INT_H

#include "studies/studies.h"

#include <stdio.h>

typedef struct sim__sweep {
    sim_sweep_spec spec;
    char dir[1024]; /* the points folder */
    size_t n_points;
    /* kind pack, per process: the last pod list and node list read */
    char pods_path[1024], nodes_path[1024];
    trace_job *pods;
    size_t n_pods;
    sim_scenario fleet;
    int have_fleet;
} sim__sweep;

/* Load the sweep file; the points folder is `dir`, else the file's "output",
 * else the sweep file's name without ".json" plus ".points". */
int sim__sweep_open(sim__sweep *sw, const char *path, const char *dir, tm_diag *diag);
void sim__sweep_close(sim__sweep *sw);
/* Create the points folder (and nothing above it) if it is missing. */
int sim__sweep_mkdir(const sim__sweep *sw, tm_diag *diag);

/* Point i's combination and replication. */
void sim__sweep_point_of(const sim__sweep *sw, size_t i, size_t *combo, uint32_t *rep);
/* 1 if point i belongs to shard k of n (i mod n == k). */
int sim__sweep_in_shard(size_t i, uint32_t k, uint32_t n);
/* DIR/pNNNNNN.h5 and DIR/pNNNNNN.failed. */
void sim__sweep_point_path(const sim__sweep *sw, size_t i, char *buf, size_t n);
void sim__sweep_failed_path(const sim__sweep *sw, size_t i, char *buf, size_t n);

/* What point i is: its seed (the base's "seed" after the parameters), the
 * 32-bit seed of its first random stream (arrivals of class 0, or the packing
 * order; docs/rng.md) and its fingerprint (16 hex digits: FNV-1a over the
 * tarmac version, the kind, the applied JSON, the base's file and the
 * replication). */
typedef struct sim__sweep_point_info {
    size_t combo;
    uint32_t replication;
    uint64_t seed;
    unsigned long stream_seed;
    char fingerprint[17];
} sim__sweep_point_info;
int sim__sweep_point_info_get(const sim__sweep *sw, size_t i, sim__sweep_point_info *pi,
                              tm_diag *diag);

/* 1 if DIR/pNNNNNN.h5 is a complete file of this very point. */
int sim__sweep_point_valid(const sim__sweep *sw, size_t i);
/* Remove what an interrupted run of point i may have left: temporary files
 * "pNNNNNN.h5.*" and "pNNNNNN.failed.*" of the points folder. */
void sim__sweep_clean_temps(const sim__sweep *sw, size_t i);

/* Run point i and write its file atomically; stop may be NULL (runs of kind
 * scenario stop at it with TM_ERR_INTERRUPTED and leave no file). */
int sim__sweep_run_point(sim__sweep *sw, size_t i, volatile int *stop, tm_diag *diag);
/* Record how point i ended: a failure (not an interruption) writes its
 * .failed record; a success removes an older one. */
int sim__sweep_record(const sim__sweep *sw, size_t i, int rc, const tm_diag *d, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Running a share of the points (local workers here; MPI in sweep_mpi.c)     */

typedef struct sim__sweep_run_opts {
    uint32_t shard_k, shard_n; /* shard_n 1: every point */
    long point;                /* >= 0: that point only */
    int resume;                /* skip valid points */
    unsigned workers;          /* 0: the online cores */
    volatile int *stop_flag;
    FILE *log; /* one line per point, or NULL */
} sim__sweep_run_opts;

typedef struct sim__sweep_counts {
    size_t todo, skipped, ok, failed, interrupted;
} sim__sweep_counts;

/* The points to run, in index order (malloc'd into *todo): the shard's or
 * the one point, minus the valid ones with resume (counted in skipped). */
int sim__sweep_todo(const sim__sweep *sw, const sim__sweep_run_opts *o, size_t **todo, size_t *n,
                    sim__sweep_counts *c, tm_diag *diag);
/* What to do when point i ends (any process that hands out points): record
 * it, count it, log it. */
void sim__sweep_point_done(const sim__sweep *sw, size_t i, int rc, const tm_diag *d,
                           sim__sweep_counts *c, size_t n_todo, FILE *log);
/* Run the todo list on o->workers local processes (sim__work_run). */
int sim__sweep_run_local(sim__sweep *sw, const size_t *todo, size_t n, const sim__sweep_run_opts *o,
                         sim__sweep_counts *c, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* The merged file                                                            */

typedef struct sim__sweep_merge_counts {
    size_t ok, failed, missing;
} sim__sweep_merge_counts;

/* Write one file at `path` with a table of every point's parameters and key
 * results, their means over replications, the failures, external links to
 * the point files and (kind pack) every curve. Points that are neither valid
 * nor failed are "missing" rows. Atomic, like every tarmac file. Once *stop
 * is set (a signal; NULL: never), it stops with TM_ERR_INTERRUPTED and
 * writes nothing. */
int sim__sweep_merge(const sim__sweep *sw, const char *path, sim__sweep_merge_counts *mc,
                     volatile int *stop, tm_diag *diag);

#ifdef TARMAC_MPI
/* `tarmac sweep run --mpi` (sweep_mpi.c, the only MPI user; built with
 * -DTARMAC_MPI=ON): MPI_Init, every rank loads the sweep, rank 0 works out
 * the points to run (o's shard, point and resume) and hands them out one at a
 * time to ranks 1 .. N-1 as they finish (with one rank, it runs them itself);
 * the workers write the point files, rank 0 records every point and, when
 * merge_path is not NULL, writes the merged file; MPI_Finalize. *rank gets
 * this process's rank, *c and *mc rank 0's counts. */
/* Admission of the points to run (sim__sweep_mpi: on rank 0, before any
 * runs or any folder is made): TM_OK, or an error with diag set. */
typedef int (*sim__sweep_admit_fn)(const void *ud, const sim__sweep *sw, const size_t *todo,
                                   size_t n, tm_diag *diag);
int sim__sweep_mpi(const char *sweep_path, const char *dir, const sim__sweep_run_opts *o,
                   sim__sweep_admit_fn admit, const void *admit_ud, const char *merge_path,
                   int *rank, sim__sweep_counts *c, sim__sweep_merge_counts *mc, tm_diag *diag);
#endif

#endif
