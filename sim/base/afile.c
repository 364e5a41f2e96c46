/*
 * afile.c — text output files that appear only when complete (afile_int.h).
 */
#include "base/afile_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void afile_release(sim__afile *a)
{
    free(a->path);
    free(a->tmp);
    memset(a, 0, sizeof *a);
}

int sim__afile_open(sim__afile *a, const char *path, tm_diag *diag)
{
    memset(a, 0, sizeof *a);
    size_t cap = strlen(path) + 48;
    a->path = malloc(strlen(path) + 1);
    a->tmp = malloc(cap);
    if (!a->path || !a->tmp) {
        afile_release(a);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    strcpy(a->path, path);
    struct stat st;
    int fd;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(a->tmp);
        a->tmp = NULL;
        fd = open(path, O_WRONLY | O_TRUNC);
    } else {
        for (unsigned n = 0;; n++) {
            snprintf(a->tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(), n);
            fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
            if (fd >= 0 || errno != EEXIST || n == 1000)
                break;
        }
    }
    if (fd < 0) {
        int e = errno;
        int rc = a->tmp
                     ? tm_diag_set(diag, TM_ERR_IO, path, "cannot create the temporary file %s: %s",
                                   a->tmp, strerror(e))
                     : tm_diag_set(diag, TM_ERR_IO, path, "cannot open: %s", strerror(e));
        afile_release(a);
        return rc;
    }
    a->f = fdopen(fd, "w");
    if (!a->f) {
        close(fd);
        sim__afile_abort(a);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    return TM_OK;
}

int sim__afile_commit(sim__afile *a, tm_diag *diag)
{
    if (!a->f)
        return tm_diag_set(diag, TM_ERR_INVAL, "afile", "not open");
    int e = 0;
    if (fflush(a->f) != 0 || ferror(a->f))
        e = errno ? errno : EIO;
    else if (a->tmp && fsync(fileno(a->f)) != 0)
        e = errno;
    if (fclose(a->f) != 0 && !e)
        e = errno ? errno : EIO;
    a->f = NULL;
    int rc = TM_OK;
    if (e)
        rc = tm_diag_set(diag, TM_ERR_IO, a->path, "cannot write: %s", strerror(e));
    else if (a->tmp && rename(a->tmp, a->path) != 0)
        rc = tm_diag_set(diag, TM_ERR_IO, a->path, "cannot rename %s to the final name: %s", a->tmp,
                         strerror(errno));
    else if (a->tmp) {
        free(a->tmp); /* renamed: nothing to remove */
        a->tmp = NULL;
    }
    if (a->tmp)
        unlink(a->tmp);
    afile_release(a);
    return rc;
}

void sim__afile_abort(sim__afile *a)
{
    if (a->f)
        fclose(a->f);
    a->f = NULL;
    if (a->tmp)
        unlink(a->tmp);
    afile_release(a);
}
