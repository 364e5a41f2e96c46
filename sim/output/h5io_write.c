/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_write.c — the HDF5 writer: open, commit, abort; groups, scalars,
 * arrays, matrices, links and attributes.
 *
 * How it works. Open claims a fresh temporary name next to the final one
 * (sim__afile_tmp_create in base/: "<final>.tmp.<pid>.<n>", O_EXCL, so the
 * name is ours and a missing or read-only directory gives a plain errno),
 * then lets HDF5 truncate and fill it. Commit finishes the tables, flushes,
 * closes, and hands the file to sim__afile_tmp_commit, which fsyncs it,
 * renames it over the final name and fsyncs the directory; abort unlinks and
 * closes. Nothing ever writes under the final name, so the final name only
 * ever holds a complete file.
 *
 * Closing must not fail: HDF5 before 1.14.1 frees a file whose H5Fclose failed
 * but keeps its ID, and crashes on it later. So commit flushes first (a full
 * disk fails there, with the file still open), and a file being discarded has
 * its descriptor swapped for shared memory before the close (divert_fd).
 *
 * Errors are sticky: the writer records its first failure (sim__h5w_fail)
 * and returns it from every later call, its tables' included; a failure the
 * compression worker posted is adopted by sim__h5w_check at the start of the
 * next call, and so is a signal (sim__h5w_set_stop: the flag a SIGINT or
 * SIGTERM handler sets), which commit looks at once more just before the
 * rename, so an interrupted writer never puts its file in place.
 *
 * Reproducibility. Object modification times are off (H5Pset_obj_track_times)
 * so that the same run writes the same bytes. Groups track link creation order
 * so that a reader can list columns and members in the order they were made.
 */
#include "output/h5io_priv.h"

#include "base/afile_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Record the writer's first failure (later ones are consequences) and hand it
 * to the caller. */
int sim__h5w_fail(sim__h5w *w, tm_diag *diag, int status, const char *obj, const char *fmt, ...)
{
    if (!w->status) {
        w->status = status;
        snprintf(w->err.where, sizeof w->err.where, "%s%s%s", w->final_path, obj ? ":" : "",
                 obj ? obj : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err.msg, sizeof w->err.msg, fmt, ap);
        va_end(ap);
    }
    if (diag)
        *diag = w->err;
    return w->status;
}

int sim__h5w_fail_h5(sim__h5w *w, tm_diag *diag, const h5err *e, const char *obj)
{
    char msg[512];
    int st = sim__h5_err_format(e, msg, sizeof msg);
    return sim__h5w_fail(w, diag, st, obj, "%s", msg);
}

/* Cold path of sim__h5w_check: a compression failed on the worker; make it the
 * writer's failure, unless the writer had failed already. */
static void w_adopt_pool_failure(sim__h5w *w)
{
    h5pool *p = &w->pool;
    pthread_mutex_lock(&p->mu);
    sim__h5w_fail(w, NULL, p->fail_status, p->fail_where, "%s", p->fail_msg);
    pthread_mutex_unlock(&p->mu);
}

/* The sticky status: nonzero means "fail now with the recorded error". A
 * failure the worker thread recorded since the last call becomes the
 * writer's here, so it surfaces on the next call of any kind. */
int sim__h5w_check(sim__h5w *w, tm_diag *diag)
{
    if (!w->status && atomic_load_explicit(&w->pool.failed, memory_order_acquire))
        w_adopt_pool_failure(w);
    if (!w->status && w->stop && *w->stop)
        sim__h5w_fail(w, NULL, TM_ERR_INTERRUPTED, NULL, "interrupted while writing; not written");
    if (w->status && diag)
        *diag = w->err;
    return w->status;
}

/* Make every group on `path` exist: all of it if `leaf` is set, otherwise all
 * but the last component. */
static int w_mkgroups(sim__h5w *w, const char *path, int leaf, tm_diag *diag)
{
    h5err e = {0};
    size_t len = strlen(path);
    char *buf = malloc(len + 1);
    hid_t o = H5I_INVALID_HID;
    int rc = 0;
    if (!buf)
        return sim__h5w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        if (buf[i] == '\0' && !leaf)
            break;
        char c = buf[i];
        buf[i] = '\0';
        htri_t ex;
        H5CHK(&e, ex = H5Lexists(w->file, buf, H5P_DEFAULT));
        if (ex == 0) {
            H5CHK(&e, o = H5Gcreate2(w->file, buf, H5P_DEFAULT, w->gcpl, H5P_DEFAULT));
        } else {
            H5CHK(&e, o = H5Oopen(w->file, buf, H5P_DEFAULT));
            if (H5Iget_type(o) != H5I_GROUP) {
                rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, buf, "exists and is not a group");
                goto out;
            }
        }
        sim__h5_close_id(o);
        o = H5I_INVALID_HID;
        buf[i] = c;
    }
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, buf);
    sim__h5_close_id(o);
    free(buf);
    return rc;
}

/* `path` (valid) is about to be created, opened or given an attribute: the
 * columns of an open table whose group holds it are made first (the table
 * ops' touch). */
static int w_touch(sim__h5w *w, const char *path, tm_diag *diag)
{
    return w->table_ops && w->tables ? w->table_ops->touch(w, path, diag) : 0;
}

/* Common start of a call that creates an object at `path`: sticky status,
 * path syntax, the name free, the parents there. */
int sim__h5w_new_object(sim__h5w *w, const char *path, tm_diag *diag)
{
    h5err e = {0};
    int rc = sim__h5w_check(w, diag);
    if (rc)
        return rc;
    if (!sim__h5_path_ok(path, 0))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path ? path : "(null)",
                             "not an absolute HDF5 path like /group/name");
    if ((rc = w_touch(w, path, diag)) != 0 || (rc = w_mkgroups(w, path, 0, diag)) != 0)
        return rc;
    htri_t ex = H5Lexists(w->file, path, H5P_DEFAULT);
    if (ex < 0) {
        sim__h5_err_capture(&e);
        return sim__h5w_fail_h5(w, diag, &e, path);
    }
    if (ex > 0)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "already exists");
    return 0;
}

int sim__h5w_need_meta(sim__h5w *w, const char *path, const char *units, int need_units,
                       const char *description, tm_diag *diag)
{
    if (need_units && !units)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path,
                             "units are required (\"1\" for dimensionless values and counts)");
    if (!description)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "a description is required");
    return 0;
}

/* Create or replace attribute `name` of the open object `obj`. */
int sim__h5_attr_put(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hid_t space,
                     const void *buf, h5err *e)
{
    hid_t a = H5I_INVALID_HID;
    htri_t ex;
    H5CHK(e, ex = H5Aexists(obj, name));
    if (ex > 0)
        H5CHK(e, H5Adelete(obj, name));
    H5CHK(e, a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT));
    H5CHK(e, H5Awrite(a, mtype, buf));
    H5CHK(e, H5Aclose(a));
    return 0;
out:
    sim__h5_close_id(a);
    return -1;
}

int sim__h5w_attr_put_str(sim__h5w *w, hid_t obj, const char *name, const char *v, h5err *e)
{
    hid_t s = H5I_INVALID_HID;
    int rc = -1;
    H5CHK(e, s = H5Screate(H5S_SCALAR));
    rc = sim__h5_attr_put(obj, name, w->str_type, w->str_type, s, &v, e);
out:
    sim__h5_close_id(s);
    return rc;
}

/* The `units` (if not NULL) and `description` attributes of a dataset, and
 * CF's `long_name`: the description, with the unit when `units` had to drop
 * it (UDUNITS knows no "GPU" or "USD": sim__h5_cf_units). */
int sim__h5w_put_meta(sim__h5w *w, hid_t obj, const char *units, const char *description, h5err *e)
{
    char cf[160], *longname = NULL;
    int changed = units ? sim__h5_cf_units(units, cf, sizeof cf) : 0;
    if (units && sim__h5w_attr_put_str(w, obj, "units", cf, e) < 0)
        return -1;
    if (sim__h5w_attr_put_str(w, obj, "description", description, e) < 0)
        return -1;
    if (changed) {
        size_t n = strlen(description) + strlen(units) + 4;
        if ((longname = malloc(n)) != NULL) /* else the description alone */
            snprintf(longname, n, "%s (%s)", description, units);
    }
    int rc = sim__h5w_attr_put_str(w, obj, "long_name", longname ? longname : description, e);
    free(longname);
    return rc;
}

/* dcpl of a chunked 1-D dataset, shuffled and deflated if `filters`; the
 * caller closes it. slot_compress must stay in step with this pipeline. */
hid_t sim__h5_chunked_dcpl(hsize_t chunk_rows, int filters, h5err *e)
{
    hid_t p = H5I_INVALID_HID;
    H5CHK(e, p = H5Pcreate(H5P_DATASET_CREATE));
    H5CHK(e, H5Pset_chunk(p, 1, &chunk_rows));
    if (filters) {
        H5CHK(e, H5Pset_shuffle(p));
        H5CHK(e, H5Pset_deflate(p, SIM__H5_DEFLATE_LEVEL));
    }
    H5CHK(e, H5Pset_obj_track_times(p, 0));
    return p;
out:
    sim__h5_close_id(p);
    return H5I_INVALID_HID;
}

/* ------------------------------------------------------------------------- */
/* Writer lifecycle                                                           */

static void w_close_handles(sim__h5w *w)
{
    sim__h5_close_id(w->str_type);
    sim__h5_close_id(w->gcpl);
    sim__h5_close_id(w->dcpl);
    sim__h5_close_id(w->dapl);
    sim__h5_close_id(w->dxpl);
    w->str_type = w->gcpl = w->dcpl = w->dapl = w->dxpl = H5I_INVALID_HID;
}

/* Swap the descriptor under an open file for an anonymous shared-memory
 * object, so that the writes of its last close go to memory and cannot fail.
 * Why: in HDF5 before 1.14.1 a failed H5Fclose (say the disk is full) frees
 * the file but leaves its ID behind, and the library crashes on it later (at
 * exit, or when the memory is reused). Only for files whose content we drop. */
static int divert_fd(hid_t file)
{
    hid_t fapl = H5Fget_access_plist(file);
    int *fdp = NULL, rc = -1;
    if (fapl < 0)
        return -1;
    if (H5Fget_vfd_handle(file, fapl, (void **)&fdp) >= 0 && fdp && *fdp >= 0) {
        for (unsigned n = 0; n < 100; n++) {
            char name[64];
            snprintf(name, sizeof name, "/tarmac-h5io-%ld-%u", (long)getpid(), n);
            int m = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
            if (m < 0 && errno == EEXIST)
                continue;
            if (m >= 0) {
                shm_unlink(name);
                rc = dup2(m, *fdp) < 0 ? -1 : 0;
                close(m);
            }
            break;
        }
    }
    H5Pclose(fapl);
    return rc;
}

/* Free everything; remove the temporary file unless it was renamed. */
static void w_discard(sim__h5w *w)
{
    /* First the worker: once it is joined, no slot is in anyone's hands. */
    sim__h5pool_stop(&w->pool);
    while (w->tables) {
        sim__h5t *t = w->tables;
        w->tables = t->next;
        w->table_ops->free(t);
    }
    w_close_handles(w);
    if (w->tmp_path)
        unlink(w->tmp_path);
    if (w->file >= 0) {
        /* If no shared memory is to be had, a close on the real file is all
         * that is left; it fails only if the disk does. */
        divert_fd(w->file);
        H5Fclose(w->file);
    }
    sim__h5pool_fini(&w->pool);
    sim__h5dim_free(w);
    free(w->tmp_path);
    free(w->final_path);
    free(w);
}

/* Open a writer for final_path: claim a fresh temporary name next to it and
 * create the file there, or (src != NULL) move the complete file src onto the
 * temporary name and open it read-write. */
static int w_open(sim__h5w **wp, const char *src, const char *final_path, tm_diag *diag)
{
    h5err e = {0};
    hid_t fcpl = H5I_INVALID_HID, fapl = H5I_INVALID_HID;
    sim__h5w *w = NULL;
    int rc = 0;

    if (!wp)
        return tm_diag_set(diag, TM_ERR_INVAL, final_path, "no place for the writer");
    *wp = NULL;
    if (!final_path || !*final_path)
        return tm_diag_set(diag, TM_ERR_CANTCREAT, "", "no output file name");
    sim__h5_init();

    w = calloc(1, sizeof *w);
    if (!w)
        return tm_diag_set(diag, TM_ERR_NOMEM, final_path, "out of memory");
    w->file = w->str_type = w->gcpl = w->dcpl = w->dapl = w->dxpl = H5I_INVALID_HID;
    w->pipe = SIM__H5_PIPE_WORKER;
    w->sync = 1;
    if (sim__h5pool_init(&w->pool) != 0) {
        free(w);
        return tm_diag_set(diag, TM_ERR_NOMEM, final_path, "cannot create a mutex");
    }
    if (!(w->final_path = malloc(strlen(final_path) + 1))) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, final_path, "out of memory");
        goto out;
    }
    strcpy(w->final_path, final_path);

    /* Claim a fresh temporary name: O_EXCL, so never someone else's file.
     * HDF5 truncates and fills it (or, to edit, src is moved onto it). */
    int fd;
    if ((rc = sim__afile_tmp_create(final_path, &w->tmp_path, &fd, diag)) != TM_OK)
        goto out;
    close(fd);
    /* The claimed (empty) name is replaced by the file to edit: a rename, so
     * the file is never under two names and never under the final one. */
    if (src && rename(src, w->tmp_path) != 0) {
        rc = tm_diag_set(diag, errno == ENOENT ? TM_ERR_NOTFOUND : TM_ERR_IO, src,
                         "cannot move the file to %s: %s", w->tmp_path, strerror(errno));
        goto out;
    }

    H5CHK(&e, fapl = H5Pcreate(H5P_FILE_ACCESS));
    /* Closing the file closes whatever is still open in it (abort relies on it). */
    H5CHK(&e, H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG));
    if (src) {
        H5CHK(&e, w->file = H5Fopen(w->tmp_path, H5F_ACC_RDWR, fapl));
    } else {
        H5CHK(&e, fcpl = H5Pcreate(H5P_FILE_CREATE));
        H5CHK(&e, H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
        H5CHK(&e, w->file = H5Fcreate(w->tmp_path, H5F_ACC_TRUNC, fcpl, fapl));
    }

    H5CHK(&e, w->str_type = H5Tcopy(H5T_C_S1));
    H5CHK(&e, H5Tset_size(w->str_type, H5T_VARIABLE));
    H5CHK(&e, H5Tset_cset(w->str_type, H5T_CSET_UTF8));
    H5CHK(&e, w->gcpl = H5Pcreate(H5P_GROUP_CREATE));
    H5CHK(&e, H5Pset_link_creation_order(w->gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    H5CHK(&e, H5Pset_obj_track_times(w->gcpl, 0));
    H5CHK(&e, w->dcpl = H5Pcreate(H5P_DATASET_CREATE));
    H5CHK(&e, H5Pset_obj_track_times(w->dcpl, 0));
    H5CHK(&e, w->dapl = H5Pcreate(H5P_DATASET_ACCESS));
    H5CHK(&e, H5Pset_chunk_cache(w->dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0,
                                 H5D_CHUNK_CACHE_W0_DEFAULT));
    /* HDF5 callocs a type-conversion and a background buffer of this size
     * (1 MiB by default) for every write that converts, which every string
     * write does: 50 string datasets cost 100 MiB of zeroing (a third of a
     * drained run's report). 64 KiB holds 4096 strings; longer lists are
     * converted in strips of that many. */
    H5CHK(&e, w->dxpl = H5Pcreate(H5P_DATASET_XFER));
    H5CHK(&e, H5Pset_buffer(w->dxpl, 64 * 1024, NULL, NULL));
out:
    if (e.set) {
        char msg[512];
        rc = tm_diag_set(diag, sim__h5_err_format(&e, msg, sizeof msg), src ? src : final_path,
                         "%s", msg);
    }
    sim__h5_close_id(fcpl);
    sim__h5_close_id(fapl);
    if (rc) {
        if (w->final_path) {
            w_discard(w);
        } else {
            sim__h5pool_fini(&w->pool);
            free(w);
        }
        return rc;
    }
    *wp = w;
    return 0;
}

int sim__h5w_open(sim__h5w **wp, const char *final_path, tm_diag *diag)
{
    return w_open(wp, NULL, final_path, diag);
}

int sim__h5w_open_edit(sim__h5w **wp, const char *src_path, const char *final_path, tm_diag *diag)
{
    if (!src_path || !*src_path)
        return tm_diag_set(diag, TM_ERR_INVAL, final_path ? final_path : "", "no file to edit");
    return w_open(wp, src_path, final_path, diag);
}

void sim__h5w_abort(sim__h5w *w)
{
    if (w)
        w_discard(w);
}

int sim__h5w_set_pipe(sim__h5w *w, sim__h5_pipe pipe, tm_diag *diag)
{
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "no writer");
    if ((rc = sim__h5w_check(w, diag)) != 0)
        return rc;
    if (pipe != SIM__H5_PIPE_WORKER && pipe != SIM__H5_PIPE_INLINE && pipe != SIM__H5_PIPE_FILTER &&
        pipe != SIM__H5_PIPE_NONE)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, NULL, "unknown table pipeline %d", (int)pipe);
    if (w->ntables > 0)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, NULL,
                             "the table pipeline is chosen before the first table");
    w->pipe = pipe;
    w->pool.no_thread = pipe != SIM__H5_PIPE_WORKER;
    return 0;
}

void sim__h5w_set_sync(sim__h5w *w, int on)
{
    if (w)
        w->sync = on != 0;
}

void sim__h5w_set_stop(sim__h5w *w, volatile int *stop)
{
    if (w)
        w->stop = stop;
}

int sim__h5w_commit(sim__h5w *w, tm_diag *diag)
{
    h5err e = {0};
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "commit of no writer");
    if ((rc = sim__h5w_check(w, diag)) != 0)
        goto out;
    while (w->tables) {
        sim__h5t *t = w->tables;
        if ((rc = w->table_ops->finish(t, diag)) != 0)
            goto out;
    }
    sim__h5pool_stop(&w->pool); /* idle: every table was drained */
    if ((rc = sim__h5dim_make(w, diag)) != 0)
        goto out;
    w_close_handles(w);
    /* Flush first: a full disk then fails here, and the file is still ours to
     * discard safely (see divert_fd). The close after it writes next to
     * nothing. If it fails all the same, the ID is no longer usable. */
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) {
        sim__h5_err_capture(&e);
        rc = sim__h5w_fail_h5(w, diag, &e, NULL);
        goto out;
    }
    herr_t cr = H5Fclose(w->file);
    w->file = H5I_INVALID_HID;
    if (cr < 0) {
        sim__h5_err_capture(&e);
        rc = sim__h5w_fail_h5(w, diag, &e, NULL);
        goto out;
    }
    /* the last moment a signal can still keep the file from its name */
    if ((rc = sim__h5w_check(w, diag)) != 0)
        goto out;
    /* fsync, rename over the final name, fsync the folder; the temporary
     * is renamed or removed either way. */
    tm_diag d;
    int st = sim__afile_tmp_commit(w->tmp_path, w->final_path, w->sync, &d);
    free(w->tmp_path);
    w->tmp_path = NULL;
    if (st != TM_OK)
        rc = sim__h5w_fail(w, diag, st, NULL, "%s", d.msg);
out:
    w_discard(w);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Writer: groups, scalars, arrays, attributes                                */

int sim__h5w_group(sim__h5w *w, const char *path, tm_diag *diag)
{
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no writer");
    int rc = sim__h5w_check(w, diag);
    if (rc)
        return rc;
    if (!sim__h5_path_ok(path, 1))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path ? path : "(null)",
                             "not an absolute HDF5 path like /group/name");
    if ((rc = w_touch(w, path, diag)) != 0)
        return rc;
    return w_mkgroups(w, path, 1, diag);
}

static int w_scalar(sim__h5w *w, const char *path, hid_t ftype, hid_t mtype, const void *buf,
                    const char *units, int need_units, const char *description, tm_diag *diag)
{
    h5err e = {0};
    hid_t s = H5I_INVALID_HID, d = H5I_INVALID_HID;
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no writer");
    if ((rc = sim__h5w_new_object(w, path, diag)) != 0 ||
        (rc = sim__h5w_need_meta(w, path, units, need_units, description, diag)) != 0)
        return rc;
    H5CHK(&e, s = H5Screate(H5S_SCALAR));
    H5CHK(&e, d = H5Dcreate2(w->file, path, ftype, s, H5P_DEFAULT, w->dcpl, H5P_DEFAULT));
    H5CHK(&e, H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, w->dxpl, buf));
    H5CHK(&e, sim__h5w_put_meta(w, d, units, description, &e));
    H5CHK(&e, H5Dclose(d));
    d = H5I_INVALID_HID;
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, path);
    sim__h5_close_id(d);
    sim__h5_close_id(s);
    return rc;
}

int sim__h5w_scalar_f64(sim__h5w *w, const char *path, double v, const char *units,
                        const char *description, tm_diag *diag)
{
    return w_scalar(w, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, units, 1, description, diag);
}

int sim__h5w_scalar_i64(sim__h5w *w, const char *path, int64_t v, const char *units,
                        const char *description, tm_diag *diag)
{
    return w_scalar(w, path, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, units, 1, description, diag);
}

int sim__h5w_scalar_str(sim__h5w *w, const char *path, const char *v, const char *description,
                        tm_diag *diag)
{
    if (w && !sim__h5w_check(w, NULL) && !v)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "NULL string");
    return w_scalar(w, path, w ? w->str_type : H5I_INVALID_HID, w ? w->str_type : H5I_INVALID_HID,
                    &v, NULL, 0, description, diag);
}

static int w_array(sim__h5w *w, const char *path, sim__h5_type type, const void *v, size_t n,
                   const char *units, const char *description, tm_diag *diag)
{
    h5err e = {0};
    hid_t s = H5I_INVALID_HID, d = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hsize_t dims = n;
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no writer");
    if ((rc = sim__h5w_new_object(w, path, diag)) != 0 ||
        (rc = sim__h5w_need_meta(w, path, units, 1, description, diag)) != 0)
        return rc;
    if (n > 0 && !v)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "NULL data for %zu values", n);
    H5CHK(&e, s = H5Screate_simple(1, &dims, NULL));
    if (n > SIM__H5_CHUNK_ROWS)
        H5CHK(&e, dcpl = sim__h5_chunked_dcpl(SIM__H5_CHUNK_ROWS, 1, &e));
    H5CHK(&e, d = H5Dcreate2(w->file, path, sim__h5_type_file(type), s, H5P_DEFAULT,
                             dcpl >= 0 ? dcpl : w->dcpl, w->dapl));
    if (n > 0)
        H5CHK(&e, H5Dwrite(d, sim__h5_type_mem(type), H5S_ALL, H5S_ALL, w->dxpl, v));
    H5CHK(&e, sim__h5w_put_meta(w, d, units, description, &e));
    H5CHK(&e, H5Dclose(d));
    d = H5I_INVALID_HID;
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, path);
    sim__h5_close_id(d);
    sim__h5_close_id(dcpl);
    sim__h5_close_id(s);
    return rc;
}

int sim__h5w_array_f64(sim__h5w *w, const char *path, const double *v, size_t n, const char *units,
                       const char *description, tm_diag *diag)
{
    return w_array(w, path, SIM__H5_F64, v, n, units, description, diag);
}

int sim__h5w_array_i64(sim__h5w *w, const char *path, const int64_t *v, size_t n, const char *units,
                       const char *description, tm_diag *diag)
{
    return w_array(w, path, SIM__H5_I64, v, n, units, description, diag);
}

static int w_attr(sim__h5w *w, const char *obj_path, const char *name, hid_t ftype, hid_t mtype,
                  const void *buf, tm_diag *diag)
{
    h5err e = {0};
    hid_t o = H5I_INVALID_HID, s = H5I_INVALID_HID;
    char where[600];
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, obj_path, "no writer");
    if ((rc = sim__h5w_check(w, diag)) != 0)
        return rc;
    snprintf(where, sizeof where, "%s@%s", obj_path ? obj_path : "(null)", name ? name : "(null)");
    if (!sim__h5_path_ok(obj_path, 1))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                             "not an absolute HDF5 path like /group/name");
    if (!name || !*name)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, where, "an attribute needs a name");
    if ((rc = w_touch(w, obj_path, diag)) != 0)
        return rc;
    int ex = sim__h5_path_exists(w->file, obj_path, &e);
    if (ex < 0)
        goto out;
    if (ex == 0)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                             "no such group or dataset (create it before its attributes)");
    H5CHK(&e, o = H5Oopen(w->file, obj_path, H5P_DEFAULT));
    H5CHK(&e, s = H5Screate(H5S_SCALAR));
    H5CHK(&e, sim__h5_attr_put(o, name, ftype, mtype, s, buf, &e));
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, where);
    sim__h5_close_id(s);
    sim__h5_close_id(o);
    return rc;
}

int sim__h5w_attr_str(sim__h5w *w, const char *obj_path, const char *name, const char *v,
                      tm_diag *diag)
{
    if (w && !sim__h5w_check(w, NULL) && !v)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, obj_path, "NULL string for attribute %s",
                             name ? name : "(null)");
    return w_attr(w, obj_path, name, w ? w->str_type : H5I_INVALID_HID,
                  w ? w->str_type : H5I_INVALID_HID, &v, diag);
}

int sim__h5w_attr_f64(sim__h5w *w, const char *obj_path, const char *name, double v, tm_diag *diag)
{
    return w_attr(w, obj_path, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, diag);
}

int sim__h5w_attr_i64(sim__h5w *w, const char *obj_path, const char *name, int64_t v, tm_diag *diag)
{
    return w_attr(w, obj_path, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, diag);
}

int sim__h5w_matrix_f64(sim__h5w *w, const char *path, const double *v, size_t rows, size_t cols,
                        const char *units, const char *description, tm_diag *diag)
{
    h5err e = {0};
    hid_t s = H5I_INVALID_HID, d = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hsize_t dims[2] = {rows, cols};
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no writer");
    if ((rc = sim__h5w_new_object(w, path, diag)) != 0 ||
        (rc = sim__h5w_need_meta(w, path, units, 1, description, diag)) != 0)
        return rc;
    if (rows * cols > 0 && !v)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "NULL data for %zu x %zu values", rows,
                             cols);
    H5CHK(&e, s = H5Screate_simple(2, dims, NULL));
    if (rows * cols > SIM__H5_CHUNK_ROWS && cols > 0) {
        /* chunks of whole rows, about SIM__H5_CHUNK_ROWS values each */
        hsize_t chunk[2] = {SIM__H5_CHUNK_ROWS / cols ? SIM__H5_CHUNK_ROWS / cols : 1, cols};
        if (chunk[0] > rows)
            chunk[0] = rows;
        H5CHK(&e, dcpl = H5Pcreate(H5P_DATASET_CREATE));
        H5CHK(&e, H5Pset_chunk(dcpl, 2, chunk));
        H5CHK(&e, H5Pset_shuffle(dcpl));
        H5CHK(&e, H5Pset_deflate(dcpl, SIM__H5_DEFLATE_LEVEL));
        H5CHK(&e, H5Pset_obj_track_times(dcpl, 0));
    }
    H5CHK(&e, d = H5Dcreate2(w->file, path, H5T_IEEE_F64LE, s, H5P_DEFAULT,
                             dcpl >= 0 ? dcpl : w->dcpl, w->dapl));
    if (rows * cols > 0)
        H5CHK(&e, H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, w->dxpl, v));
    H5CHK(&e, sim__h5w_put_meta(w, d, units, description, &e));
    H5CHK(&e, H5Dclose(d));
    d = H5I_INVALID_HID;
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, path);
    sim__h5_close_id(d);
    sim__h5_close_id(dcpl);
    sim__h5_close_id(s);
    return rc;
}

int sim__h5w_external_link(sim__h5w *w, const char *path, const char *file, const char *obj_path,
                           tm_diag *diag)
{
    h5err e = {0};
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no writer");
    if ((rc = sim__h5w_new_object(w, path, diag)) != 0)
        return rc;
    if (!file || !*file || !sim__h5_path_ok(obj_path, 1))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path,
                             "an external link needs a file name and an absolute object path");
    H5CHK(&e, H5Lcreate_external(file, obj_path, w->file, path, H5P_DEFAULT, H5P_DEFAULT));
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, path);
    return rc;
}
