/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fileio.c — whole input files read into memory, with a bound (fileio_int.h).
 *
 * The buffer starts at 64 KiB and doubles; a growth past the bound is the
 * refusal, so a file is never read much beyond max_bytes + 1 bytes and
 * the length of a pipe or a device need not be known in advance.
 *
 * A file that is missing, not readable or a folder is TM_ERR_NOTFOUND (exit
 * 66, "cannot open input"); a read that fails once the file is open is
 * TM_ERR_IO (74).
 */
#include "base/fileio_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int sim__file_read(const char *path, size_t max_bytes, char **out, size_t *len_out, tm_diag *diag)
{
    *out = NULL;
    *len_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno; /* missing or not readable: 66; anything else, 74 */
        int st = e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM || e == ELOOP ||
                         e == ENAMETOOLONG
                     ? TM_ERR_NOTFOUND
                     : TM_ERR_IO;
        return tm_diag_set(diag, st, path, "cannot open: %s", strerror(e));
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return tm_diag_set(diag, TM_ERR_NOTFOUND, path, "is a folder, not a file");
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = TM_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > max_bytes + 1) {
                rc = tm_diag_set(diag, TM_ERR_LIMIT, path, "larger than %u MiB",
                                 (unsigned)(max_bytes >> 20));
                break;
            }
            char *nb = realloc(buf, cap + 1); /* + 1: the NUL */
            if (!nb) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = tm_diag_set(diag, TM_ERR_IO, path, "read error: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc == TM_OK && !buf && !(buf = malloc(1)))
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    if (rc != TM_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    *len_out = len;
    return TM_OK;
}
