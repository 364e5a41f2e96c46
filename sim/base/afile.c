/* SPDX-License-Identifier: Apache-2.0 */
/*
 * afile.c — output files that appear only when complete (afile_int.h).
 *
 * How it works. The temporary is a sibling of the final name, so the rename
 * stays inside one file system and is atomic. Its name carries the pid and a
 * counter; O_EXCL makes the claim safe against other processes and against
 * our own earlier files (a retry takes the next counter). Commit fsyncs the
 * file before the rename, so the new name never points at data still in the
 * page cache only, and the folder after it, so the rename itself survives a
 * crash. Everything before the rename can fail and leave path untouched; the
 * folder's fsync comes after, so its failure is reported with the file in
 * place. A file that cannot be created, opened or renamed into place is
 * TM_ERR_CANTCREAT (exit 73); a write, sync or copy that fails once the file
 * exists is TM_ERR_IO (exit 74). The stdio layer (sim__afile_*) checks ferror and fclose before
 * handing the closed file to the primitive.
 *
 * A final name that exists and is neither a regular file nor a folder (a
 * device such as /dev/null, a FIFO, a socket; or a link to one) is never
 * renamed over: that would replace a file that is not ours. The temporary
 * then lives in $TMPDIR (default /tmp), and commit copies the finished file
 * into the path, writing it as a stream (a FIFO's reader gets the whole file,
 * /dev/null swallows it), then removes the temporary. Text files are written
 * to such a path directly (sim__afile_open), with no temporary at all.
 */
#include "base/afile_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Attempts at a fresh name before giving up (only EEXIST retries). */
#define AFILE_TMP_TRIES 1000

/* path exists and is something a rename must not replace: neither a regular
 * file nor a folder (a folder makes the rename fail with its own message). */
static int is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int sim__afile_tmp_create(const char *path, char **tmp, int *fd, tm_diag *diag)
{
    *tmp = NULL;
    *fd = -1;
    if (!*path) /* a name the user left empty: "" would become ".tmp.PID.N" */
        return tm_diag_set(diag, TM_ERR_CANTCREAT, "", "no output file name");
    size_t cap = strlen(path) + 48;
    char *t = malloc(cap);
    if (!t)
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    const char *tmpdir = NULL;
    if (is_special(path)) { /* never next to a device or a FIFO */
        tmpdir = getenv("TMPDIR");
        if (!tmpdir || !*tmpdir)
            tmpdir = "/tmp";
        cap = strlen(tmpdir) + 64;
        char *t2 = realloc(t, cap);
        if (!t2) {
            free(t);
            return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        }
        t = t2;
    }
    for (unsigned n = 0;; n++) {
        if (tmpdir)
            snprintf(t, cap, "%s/tarmac-out.tmp.%ld.%u", tmpdir, (long)getpid(), n);
        else
            snprintf(t, cap, "%s.tmp.%ld.%u", path, (long)getpid(), n);
        int f = open(t, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (f >= 0) {
            *tmp = t;
            *fd = f;
            return TM_OK;
        }
        if (errno != EEXIST || n == AFILE_TMP_TRIES) {
            int rc = tm_diag_set(diag, TM_ERR_CANTCREAT, path,
                                 "cannot create the temporary file %s: %s", t, strerror(errno));
            free(t);
            return rc;
        }
    }
}

/* fsync a file or directory by name. */
static int sync_path(const char *path, int dir)
{
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return r;
}

/* The finished file tmp written into the special file path, as a stream. */
static int copy_into(const char *tmp, const char *path, tm_diag *diag)
{
    int rc = TM_OK;
    int in = open(tmp, O_RDONLY);
    int out = in >= 0 ? open(path, O_WRONLY) : -1;
    if (in < 0) {
        rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot read %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (out < 0) {
        rc = tm_diag_set(diag, TM_ERR_CANTCREAT, path, "cannot open: %s", strerror(errno));
        goto out;
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot read %s: %s", tmp, strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot write: %s", strerror(errno));
                goto out;
            }
            off += w;
        }
    }
out:
    if (out >= 0 && close(out) != 0 && rc == TM_OK)
        rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot write: %s", strerror(errno));
    if (in >= 0)
        close(in);
    unlink(tmp);
    return rc;
}

int sim__afile_tmp_commit(const char *tmp, const char *path, int sync, tm_diag *diag)
{
    if (is_special(path))
        return copy_into(tmp, path, diag);
    if (sync && sync_path(tmp, 0) != 0) {
        int rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot sync %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return rc;
    }
    if (rename(tmp, path) != 0) {
        int rc = tm_diag_set(diag, TM_ERR_CANTCREAT, path, "cannot rename %s to the final name: %s",
                             tmp, strerror(errno));
        unlink(tmp);
        return rc;
    }
    if (!sync)
        return TM_OK;
    /* The file is complete either way, so a failure from here on is reported
     * but the file stays. */
    char *dir = malloc(strlen(path) + 2);
    if (!dir)
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    int rc = TM_OK;
    if (sync_path(dir, 1) != 0 && errno != EINVAL && errno != ENOTSUP)
        rc = tm_diag_set(diag, TM_ERR_IO, path, "written, but cannot sync the directory %s: %s",
                         dir, strerror(errno));
    free(dir);
    return rc;
}

static void afile_release(sim__afile *a)
{
    free(a->path);
    free(a->tmp);
    memset(a, 0, sizeof *a);
}

int sim__afile_open(sim__afile *a, const char *path, tm_diag *diag)
{
    memset(a, 0, sizeof *a);
    if (!(a->path = malloc(strlen(path) + 1)))
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    strcpy(a->path, path);
    struct stat st;
    int fd, rc;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if ((fd = open(path, O_WRONLY | O_TRUNC)) < 0) {
            rc = tm_diag_set(diag, TM_ERR_CANTCREAT, path, "cannot open: %s", strerror(errno));
            afile_release(a);
            return rc;
        }
    } else if ((rc = sim__afile_tmp_create(path, &a->tmp, &fd, diag)) != TM_OK) {
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
    if (fclose(a->f) != 0 && !e)
        e = errno ? errno : EIO;
    a->f = NULL;
    int rc = TM_OK;
    if (e) {
        rc = tm_diag_set(diag, TM_ERR_IO, a->path, "cannot write: %s", strerror(e));
        if (a->tmp)
            unlink(a->tmp);
    } else if (a->tmp) {
        rc = sim__afile_tmp_commit(a->tmp, a->path, 1, diag);
    }
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
