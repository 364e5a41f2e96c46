/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fileio_int.h — whole input files read into memory, with a bound.
 *
 * Scenario, fleet and sweep files are small and are parsed from one buffer;
 * the bound keeps a hostile input (a huge file, /dev/zero) from eating
 * memory: reading stops as soon as the file is known to exceed it, before it
 * is all read.
 */
#ifndef TARMAC_FILEIO_INT_H
#define TARMAC_FILEIO_INT_H

#include "status.h"

#include <stddef.h>

/* The whole of file `path`, NUL-terminated, into *out (malloc'd, the caller
 * frees it; *len excludes the NUL). A file of more than max_bytes is refused
 * (TM_ERR_LIMIT, "larger than N MiB" with N = max_bytes in MiB). Other
 * failures: TM_ERR_NOTFOUND or TM_ERR_IO ("cannot open: ...", "read error:
 * ..."), TM_ERR_NOMEM. The diagnostic names path. On failure *out is NULL
 * and *len 0. */
int sim__file_read(const char *path, size_t max_bytes, char **out, size_t *len, tm_diag *diag);

#endif
