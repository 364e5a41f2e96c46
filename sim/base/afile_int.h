/*
 * afile_int.h — text output files that appear only when complete.
 *
 * The HDF5 writer (h5io.c) and the trace writer (traces/fmt_tarmac.c) do the
 * same for their formats. An afile writes "<path>.tmp.<pid>.<n>" (O_EXCL, so
 * never someone else's file); commit checks every write, syncs, closes and
 * renames it over path; abort removes it. A path that exists and is not a
 * regular file (/dev/stdout, a FIFO) is written directly.
 */
#ifndef TARMAC_AFILE_INT_H
#define TARMAC_AFILE_INT_H

#include "status.h"

#include <stdio.h>

typedef struct sim__afile {
    FILE *f; /* write here */
    char *path;
    char *tmp; /* NULL when writing path directly */
} sim__afile;

/* Open for writing; on failure (TM_ERR_IO naming path, TM_ERR_NOMEM) the
 * afile is empty and abort is a no-op. */
int sim__afile_open(sim__afile *a, const char *path, tm_diag *diag);
/* Flush, check, sync, close, rename. On failure nothing is left at path
 * (TM_ERR_IO with errno's message, naming path). Always releases a. */
int sim__afile_commit(sim__afile *a, tm_diag *diag);
/* Close and remove the temporary (safe on an empty or released afile). */
void sim__afile_abort(sim__afile *a);

#endif
