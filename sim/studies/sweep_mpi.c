/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_mpi.c — `tarmac sweep run --mpi`: the points of a sweep over the
 * ranks of an MPI job (API: sweep_int.h). The only file that includes mpi.h;
 * compiled only with -DTARMAC_MPI=ON, so the default build has no MPI in it.
 *
 * Protocol. Every rank loads the sweep file itself (a point is named by its
 * index alone). Rank 0 works out the points to run and sends one index to
 * each worker rank (tag WORK); a worker runs the point, writes its file with
 * serial HDF5 like any local worker, and answers with the index, the status
 * and the diagnostic (tag DONE); rank 0 records the point (.failed or not)
 * and sends that worker the next index, or -1 when there is none. So the
 * hand-out is dynamic: a rank that drew a fast point comes back sooner, which
 * matters when run times differ by orders of magnitude. Rank 0 does not run
 * points itself (with a single rank it runs them all); it waits with MPI_Test
 * and short sleeps, so it uses next to no CPU and a job can have one rank
 * more than cores. After the last answer rank 0 writes the merged file.
 *
 * Stopping. mpirun forwards SIGINT/SIGTERM to the ranks: a worker's run stops
 * at its next event and answers "interrupted"; rank 0 hands out no more.
 */
#include "studies/sweep_int.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_WORK = 1, TAG_DONE = 2 };

typedef struct done_msg {
    int64_t point;
    int32_t rc;
    char where[sizeof(((tm_diag *)0)->where)];
    char msg[sizeof(((tm_diag *)0)->msg)];
} done_msg;

static int mpi_fail(tm_diag *diag, int err, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(err, s, &n);
    return tm_diag_set(diag, TM_ERR_IO, "MPI", "%s: %.*s", what, n, s);
}

static void nap(void)
{
    struct timespec ts = {0, 200000}; /* 0.2 ms */
    nanosleep(&ts, NULL);
}

static int send_work(int64_t point, int to, tm_diag *diag)
{
    int e = MPI_Send(&point, 1, MPI_INT64_T, to, TAG_WORK, MPI_COMM_WORLD);
    return e == MPI_SUCCESS ? TM_OK : mpi_fail(diag, e, "MPI_Send");
}

/* Rank 0 with workers: hand out todo[] one point at a time. */
static int dispatch(const sim__sweep *sw, const size_t *todo, size_t n, int size,
                    const sim__sweep_run_opts *o, sim__sweep_counts *c, tm_diag *diag)
{
    size_t next = 0, busy = 0;
    int rc = TM_OK, stopping = 0;
    for (int r = 1; r < size && rc == TM_OK; r++) {
        if (next < n) {
            rc = send_work((int64_t)todo[next++], r, diag);
            busy++;
        } else {
            rc = send_work(-1, r, diag);
        }
    }
    while (busy > 0 && rc == TM_OK) {
        done_msg m;
        MPI_Request req;
        MPI_Status st;
        int e =
            MPI_Irecv(&m, (int)sizeof m, MPI_BYTE, MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &req);
        if (e != MPI_SUCCESS)
            return mpi_fail(diag, e, "MPI_Irecv");
        for (int flag = 0; !flag;) {
            if ((e = MPI_Test(&req, &flag, &st)) != MPI_SUCCESS)
                return mpi_fail(diag, e, "MPI_Test");
            if (!flag)
                nap();
            if (o->stop_flag && *o->stop_flag)
                stopping = 1;
        }
        busy--;
        tm_diag d;
        snprintf(d.where, sizeof d.where, "%.*s", (int)sizeof m.where - 1, m.where);
        snprintf(d.msg, sizeof d.msg, "%.*s", (int)sizeof m.msg - 1, m.msg);
        if (m.point >= 0 && (size_t)m.point < sw->n_points)
            sim__sweep_point_done(sw, (size_t)m.point, m.rc, &d, c, n, o->log);
        if (!stopping && next < n) {
            rc = send_work((int64_t)todo[next++], st.MPI_SOURCE, diag);
            busy++;
        } else {
            rc = send_work(-1, st.MPI_SOURCE, diag);
        }
    }
    if (rc == TM_OK && stopping)
        rc = tm_diag_set(diag, TM_ERR_INTERRUPTED, "sweep", "interrupted");
    return rc;
}

/* A worker rank: run what rank 0 sends until it sends -1. */
static int work(sim__sweep *sw, const sim__sweep_run_opts *o, tm_diag *diag)
{
    for (;;) {
        int64_t point;
        int e = MPI_Recv(&point, 1, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS)
            return mpi_fail(diag, e, "MPI_Recv");
        if (point < 0)
            return TM_OK;
        tm_diag d;
        tm_diag_clear(&d);
        done_msg m;
        memset(&m, 0, sizeof m);
        m.point = point;
        m.rc = (int32_t)sim__sweep_run_point(sw, (size_t)point, o->stop_flag, &d);
        memcpy(m.where, d.where, sizeof m.where);
        memcpy(m.msg, d.msg, sizeof m.msg);
        if ((e = MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD)) != MPI_SUCCESS)
            return mpi_fail(diag, e, "MPI_Send");
    }
}

int sim__sweep_mpi(const char *sweep_path, const char *dir, const sim__sweep_run_opts *o,
                   sim__sweep_admit_fn admit, const void *admit_ud, const char *merge_path,
                   int *rank, sim__sweep_counts *c, sim__sweep_merge_counts *mc, tm_diag *diag)
{
    memset(c, 0, sizeof *c);
    memset(mc, 0, sizeof *mc);
    *rank = 0;
    int size = 1, e = MPI_Init(NULL, NULL);
    if (e != MPI_SUCCESS)
        return mpi_fail(diag, e, "MPI_Init");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sim__sweep sw;
    size_t *todo = NULL, n = 0;
    int rc = sim__sweep_open(&sw, sweep_path, dir, diag);
    int opened = rc == TM_OK;
    if (rc == TM_OK && *rank == 0) {
        if ((rc = sim__sweep_todo(&sw, o, &todo, &n, c, diag)) == TM_OK &&
            (!admit || (rc = admit(admit_ud, &sw, todo, n, diag)) == TM_OK) &&
            (rc = sim__sweep_mkdir(&sw, diag)) == TM_OK)
            for (size_t k = 0; k < n; k++)
                sim__sweep_clean_temps(&sw, todo[k]);
    }
    /* every rank goes on only if every rank is ready (no one left waiting) */
    /* the lowest status (TM_OK is 0, errors are negative): a rank that was
     * ready ends with the status of one that was not, so that every rank
     * exits with the code of what went wrong (65 for a point refused at
     * admission, not 70) */
    int mine = rc, any = TM_OK;
    if ((e = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD)) != MPI_SUCCESS)
        rc = mpi_fail(diag, e, "MPI_Allreduce");
    else if (any != TM_OK && rc == TM_OK)
        rc = tm_diag_set(diag, any, "MPI", "another rank could not start (see its message)");
    if (rc == TM_OK) {
        if (*rank != 0) {
            rc = work(&sw, o, diag);
        } else if (size == 1) {
            sim__sweep_run_opts one = *o;
            one.workers = 1;
            rc = sim__sweep_run_local(&sw, todo, n, &one, c, diag);
        } else {
            rc = dispatch(&sw, todo, n, size, o, c, diag);
            /* an MPI failure mid-way leaves workers waiting: end the job */
            if (rc != TM_OK && rc != TM_ERR_INTERRUPTED) {
                fprintf(stderr, "tarmac: %s: %s\n", diag->where, diag->msg);
                MPI_Abort(MPI_COMM_WORLD, tm_status_exit_code(rc));
            }
        }
    }
    if (rc == TM_OK && *rank == 0 && merge_path)
        rc = sim__sweep_merge(&sw, merge_path, mc, o->stop_flag, diag);
    free(todo);
    if (opened)
        sim__sweep_close(&sw);
    MPI_Finalize();
    return rc;
}
