/* SPDX-License-Identifier: Apache-2.0 */
/*
 * afile_int.h — output files that appear only when complete.
 *
 * One primitive for every writer of tarmac: sim__afile_tmp_create claims
 * "<path>.tmp.<pid>.<n>" next to path (O_EXCL, so never someone else's file,
 * and a missing or read-only folder gives a plain errno), the writer fills
 * it, and sim__afile_tmp_commit fsyncs it, renames it over path and fsyncs
 * the folder. Readers therefore see either the old file or the whole new one,
 * after a crash as well. The HDF5 writer (output/h5io_write.c), the sweep's
 * point records and tarmac plot's pictures use the primitive directly.
 *
 * On top of it, an afile is a text file written through stdio: commit checks
 * every write, closes and commits; abort removes the temporary. A path that
 * exists and is not a regular file (/dev/stdout, a FIFO) is written directly.
 *
 * A final name that exists and is neither a regular file nor a folder (a
 * device, a FIFO) is never replaced: the temporary is made in $TMPDIR and
 * commit copies the finished file into the path, then removes it.
 */
#ifndef TARMAC_AFILE_INT_H
#define TARMAC_AFILE_INT_H

#include "status.h"

#include <stdio.h>

/* Claim a fresh temporary name next to path and create it, empty, with
 * O_CREAT | O_EXCL. On success *tmp is the malloc'd name (the caller frees
 * it) and *fd a descriptor open for writing (the caller closes it). On
 * failure *tmp is NULL, *fd is -1, nothing was created and diag, naming path,
 * says why: TM_ERR_CANTCREAT "cannot create the temporary file <tmp>:
 * <strerror>", or TM_ERR_NOMEM. */
int sim__afile_tmp_create(const char *path, char **tmp, int *fd, tm_diag *diag);

/* Put the complete, closed file tmp in place of path: fsync it, rename it
 * over path (replacing any file there) and fsync the folder, so the rename is
 * durable too. With sync == 0 both fsyncs are skipped (benchmarks only: the
 * file may be lost in a power failure). Always disposes of tmp, which stays
 * the caller's string: renamed, or removed on a failure before the rename,
 * when path is left as it was. Naming path: TM_ERR_IO "cannot sync <tmp>:
 * ...", TM_ERR_CANTCREAT "cannot rename <tmp> to the final name: ..." (or, for
 * a device or FIFO, "cannot open: ..."), or, with the file already in place,
 * TM_ERR_IO "written, but cannot sync the directory <dir>: ..."; TM_ERR_NOMEM. */
int sim__afile_tmp_commit(const char *tmp, const char *path, int sync, tm_diag *diag);

typedef struct sim__afile {
    FILE *f; /* write here */
    char *path;
    char *tmp; /* NULL when writing path directly */
} sim__afile;

/* Open for writing; on failure (TM_ERR_CANTCREAT naming path, TM_ERR_NOMEM)
 * the afile is empty and abort is a no-op. */
int sim__afile_open(sim__afile *a, const char *path, tm_diag *diag);
/* Flush, check, close, then sim__afile_tmp_commit. On failure nothing is
 * left at path (TM_ERR_IO with errno's message, naming path: "cannot write:
 * ..." when a write failed). Always releases a. */
int sim__afile_commit(sim__afile *a, tm_diag *diag);
/* Close and remove the temporary (safe on an empty or released afile). */
void sim__afile_abort(sim__afile *a);

#endif
