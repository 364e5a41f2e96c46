/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_read.c — the HDF5 reader: whole scalars, attributes, 1-D and 2-D
 * datasets and group listings into malloc'd memory.
 *
 * How it works. A reader is a read-only HDF5 file and its name for
 * messages. Every call opens the object it names (r_open_obj: the path
 * checked, link by link, so a missing one is TM_ERR_NOTFOUND rather than an
 * HDF5 error), converts the stored type to the one asked for (HDF5 does the
 * conversion; sim__h5_info reports the narrowest type that holds the stored
 * one) and closes what it opened, so no HDF5 ID outlives the call but the
 * file's.
 *
 * Statuses. The file is the user's (a result to plot or export, the point
 * files of a sweep merge), so what is wrong with it is a data error: a file
 * that is not HDF5, an object of the wrong kind, type or shape, and any HDF5
 * failure without an errno while reading are TM_ERR_DATA (exit 65). A file
 * or an object that is not there is TM_ERR_NOTFOUND (66); a read that fails
 * with an errno is TM_ERR_IO (74). TM_ERR_INVAL (70) is kept for a caller
 * that breaks the contract (a NULL argument), which no input can cause.
 */
#include "output/h5io_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* Reader                                                                     */

struct sim__h5r {
    hid_t file;
    char *path;
};

static int r_fail(const sim__h5r *r, tm_diag *diag, int status, const char *obj, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));

static int r_fail(const sim__h5r *r, tm_diag *diag, int status, const char *obj, const char *fmt,
                  ...)
{
    if (!diag)
        return status;
    snprintf(diag->where, sizeof diag->where, "%s%s%s", r->path, obj ? ":" : "", obj ? obj : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
    va_end(ap);
    return status;
}

/* An HDF5 failure while reading: with an errno, the read failed (TM_ERR_IO);
 * without one, HDF5 could not make sense of the file (TM_ERR_DATA). */
static int r_fail_h5(const sim__h5r *r, tm_diag *diag, const h5err *e, const char *obj)
{
    char msg[512];
    int st = sim__h5_err_format(e, msg, sizeof msg);
    return r_fail(r, diag, st == TM_ERR_HDF5 ? TM_ERR_DATA : st, obj, "%s", msg);
}

/* An input file that cannot be opened: missing, or not readable, is 66. */
static int open_errno_status(int e)
{
    return e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM || e == ELOOP ||
                   e == ENAMETOOLONG
               ? TM_ERR_NOTFOUND
               : TM_ERR_IO;
}

int sim__h5r_open(sim__h5r **rp, const char *path, tm_diag *diag)
{
    h5err e = {0};
    struct stat st;
    sim__h5r *r = NULL;
    int rc = 0;
    if (!rp)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no place for the reader");
    *rp = NULL;
    if (!path || !*path)
        return tm_diag_set(diag, TM_ERR_NOTFOUND, "", "no input file name");
    sim__h5_init();
    if (stat(path, &st) != 0)
        return tm_diag_set(diag, open_errno_status(errno), path, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return tm_diag_set(diag, TM_ERR_NOTFOUND, path, "is a folder, not an HDF5 file");
    /* Readable at all? Otherwise H5Fis_hdf5 would call it "not HDF5". */
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return tm_diag_set(diag, open_errno_status(errno), path, "cannot open: %s",
                           strerror(errno));
    close(fd);
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0)
        return tm_diag_set(diag, TM_ERR_DATA, path, "not an HDF5 file");
    r = calloc(1, sizeof *r);
    if (!r || !(r->path = malloc(strlen(path) + 1))) {
        free(r);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    strcpy(r->path, path);
    H5CHK(&e, r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT));
out:
    if (e.set) {
        rc = r_fail_h5(r, diag, &e, NULL);
        free(r->path);
        free(r);
        return rc;
    }
    *rp = r;
    return 0;
}

void sim__h5r_close(sim__h5r *r)
{
    if (!r)
        return;
    H5Fclose(r->file);
    free(r->path);
    free(r);
}

int sim__h5r_exists(sim__h5r *r, const char *path)
{
    h5err e = {0};
    if (!r || !sim__h5_path_ok(path, 1))
        return 0;
    return sim__h5_path_exists(r->file, path, &e) == 1;
}

/* Open the object at `path`: TM_ERR_NOTFOUND if it is not there (or `path` is
 * no HDF5 path at all, as a name the user gave may be), TM_ERR_DATA if it is
 * not of `want` (H5I_BADID: any). */
static int r_open_obj(sim__h5r *r, const char *path, H5I_type_t want, hid_t *o, tm_diag *diag)
{
    h5err e = {0};
    *o = H5I_INVALID_HID;
    if (!sim__h5_path_ok(path, 1))
        return r_fail(r, diag, path ? TM_ERR_NOTFOUND : TM_ERR_INVAL, path ? path : "(null)",
                      "not an absolute HDF5 path like /group/name");
    int ex = sim__h5_path_exists(r->file, path, &e);
    if (ex < 0)
        return r_fail_h5(r, diag, &e, path);
    if (ex == 0)
        return r_fail(r, diag, TM_ERR_NOTFOUND, path, "no such %s",
                      want == H5I_GROUP     ? "group"
                      : want == H5I_DATASET ? "dataset"
                                            : "object");
    if ((*o = H5Oopen(r->file, path, H5P_DEFAULT)) < 0) {
        sim__h5_err_capture(&e);
        return r_fail_h5(r, diag, &e, path);
    }
    if (want != H5I_BADID && H5Iget_type(*o) != want) {
        sim__h5_close_id(*o);
        *o = H5I_INVALID_HID;
        return r_fail(r, diag, TM_ERR_DATA, path, "is not a %s",
                      want == H5I_GROUP ? "group" : "dataset");
    }
    return 0;
}

static sim__h5_type classify(hid_t t)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t sz = H5Tget_size(t);
    if (cls == H5T_FLOAT)
        return SIM__H5_F64;
    if (cls == H5T_STRING)
        return SIM__H5_STR;
    if (cls != H5T_INTEGER)
        return SIM__H5_OTHER;
    if (H5Tget_sign(t) == H5T_SGN_NONE) {
        if (sz == 1)
            return SIM__H5_U8;
        return sz <= 2 ? SIM__H5_I32 : SIM__H5_I64;
    }
    return sz <= 4 ? SIM__H5_I32 : SIM__H5_I64;
}

int sim__h5r_info(sim__h5r *r, const char *path, sim__h5_info *info, tm_diag *diag)
{
    h5err e = {0};
    hid_t o = H5I_INVALID_HID, t = H5I_INVALID_HID, s = H5I_INVALID_HID;
    int rc;
    if (!r || !info)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no reader or info");
    memset(info, 0, sizeof *info);
    if ((rc = r_open_obj(r, path, H5I_BADID, &o, diag)) != 0)
        return rc;
    H5I_type_t it = H5Iget_type(o);
    info->kind = it == H5I_GROUP     ? SIM__H5_GROUP
                 : it == H5I_DATASET ? SIM__H5_DATASET
                                     : SIM__H5_KIND_OTHER;
    info->type = SIM__H5_OTHER;
    if (it == H5I_DATASET) {
        int rank;
        hssize_t np;
        H5CHK(&e, t = H5Dget_type(o));
        info->type = classify(t);
        H5CHK(&e, s = H5Dget_space(o));
        H5CHK(&e, rank = H5Sget_simple_extent_ndims(s));
        H5CHK(&e, np = H5Sget_simple_extent_npoints(s));
        info->rank = rank;
        info->len = (uint64_t)np;
    }
out:
    if (e.set)
        rc = r_fail_h5(r, diag, &e, path);
    sim__h5_close_id(s);
    sim__h5_close_id(t);
    sim__h5_close_id(o);
    return rc;
}

int sim__h5r_list(sim__h5r *r, const char *group_path, sim__h5_order order, char ***names,
                  size_t *n, tm_diag *diag)
{
    h5err e = {0};
    hid_t g = H5I_INVALID_HID, gcpl = H5I_INVALID_HID;
    H5_index_t idx = order == SIM__H5_ORDER_CREATION ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    H5G_info_t gi;
    char **block = NULL;
    int rc;
    if (!r || !names || !n)
        return tm_diag_set(diag, TM_ERR_INVAL, group_path, "no reader or output");
    *names = NULL;
    *n = 0;
    if ((rc = r_open_obj(r, group_path, H5I_GROUP, &g, diag)) != 0)
        return rc;
    H5CHK(&e, H5Gget_info(g, &gi));
    if (order == SIM__H5_ORDER_CREATION) {
        unsigned flags = 0;
        H5CHK(&e, gcpl = H5Gget_create_plist(g));
        H5CHK(&e, H5Pget_link_creation_order(gcpl, &flags));
        if (!(flags & H5P_CRT_ORDER_TRACKED)) {
            rc = r_fail(r, diag, TM_ERR_DATA, group_path,
                        "the group does not record the order of its members (a file tarmac did "
                        "not write?)");
            goto out;
        }
    }
    /* Two passes over the links: sizes, then names, into one block. */
    size_t bytes = 0;
    for (hsize_t i = 0; i < gi.nlinks; i++) {
        ssize_t len;
        H5CHK(&e, len = H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT));
        bytes += (size_t)len + 1;
    }
    size_t np = (size_t)gi.nlinks;
    block = malloc(np * sizeof *block + bytes + 1);
    if (!block) {
        rc = r_fail(r, diag, TM_ERR_NOMEM, group_path, "out of memory");
        goto out;
    }
    char *p = (char *)(block + np);
    for (size_t i = 0; i < np; i++) {
        ssize_t len;
        H5CHK(&e, len = H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, (hsize_t)i, p,
                                           bytes - (size_t)(p - (char *)(block + np)) + 1,
                                           H5P_DEFAULT));
        block[i] = p;
        p += len + 1;
    }
    /* Leave out the writer's dimension scales (datasets with a CLASS
     * attribute; never follows an external link). */
    size_t kept = 0;
    for (size_t i = 0; i < np; i++) {
        H5L_info_t li;
        H5O_info_t oi;
        htri_t scale = 0;
        H5CHK(&e, H5Lget_info(g, block[i], &li, H5P_DEFAULT));
        if (li.type == H5L_TYPE_HARD) {
            H5CHK(&e, H5Oget_info_by_name(g, block[i], &oi, H5P_DEFAULT));
            if (oi.type == H5O_TYPE_DATASET)
                H5CHK(&e, scale = H5Aexists_by_name(g, block[i], "CLASS", H5P_DEFAULT));
        }
        if (!scale)
            block[kept++] = block[i];
    }
    *names = block;
    *n = kept;
    block = NULL;
out:
    if (e.set)
        rc = r_fail_h5(r, diag, &e, group_path);
    free(block);
    sim__h5_close_id(gcpl);
    sim__h5_close_id(g);
    return rc;
}

/* Open the value a read names: the dataset at `path`, or its attribute
 * `attr` when attr is not NULL, with the value's type and dataspace; `where`
 * gets "path" or "path@attr" for messages. On failure the diagnostic is set
 * and every id this opened is closed again and left invalid. */
static int r_open_value(sim__h5r *r, const char *path, const char *attr, char *where,
                        size_t where_size, hid_t *o, hid_t *a, hid_t *t, hid_t *s, tm_diag *diag)
{
    h5err e = {0};
    int rc;
    snprintf(where, where_size, "%s%s%s", path ? path : "(null)", attr ? "@" : "",
             attr ? attr : "");
    if ((rc = r_open_obj(r, path, attr ? H5I_BADID : H5I_DATASET, o, diag)) != 0)
        return rc;
    if (attr) {
        htri_t ex;
        H5CHK(&e, ex = H5Aexists(*o, attr));
        if (!ex) {
            rc = r_fail(r, diag, TM_ERR_NOTFOUND, where, "no such attribute");
            goto out;
        }
        H5CHK(&e, *a = H5Aopen(*o, attr, H5P_DEFAULT));
        H5CHK(&e, *t = H5Aget_type(*a));
        H5CHK(&e, *s = H5Aget_space(*a));
    } else {
        H5CHK(&e, *t = H5Dget_type(*o));
        H5CHK(&e, *s = H5Dget_space(*o));
    }
    return 0;
out:
    if (e.set)
        rc = r_fail_h5(r, diag, &e, where);
    sim__h5_close_id(*s);
    sim__h5_close_id(*t);
    sim__h5_close_id(*a);
    sim__h5_close_id(*o);
    *o = *a = *t = *s = H5I_INVALID_HID;
    return rc;
}

/* Read a numeric dataset or attribute (`attr` names it on the object at
 * `path`) into a malloc'd array of `mtype`; scalar_only demands one value. */
/* cols: NULL reads rank 0 or 1 only; otherwise rank 2 too, *cols getting the
 * second dimension (1 for rank 0 or 1) and *n every value, row-major. */
static int r_numeric(sim__h5r *r, const char *path, const char *attr, int want_int, hid_t mtype,
                     size_t esize, int scalar_only, void **v, size_t *n, size_t *cols,
                     tm_diag *diag)
{
    h5err e = {0};
    hid_t o = H5I_INVALID_HID, a = H5I_INVALID_HID, t = H5I_INVALID_HID, s = H5I_INVALID_HID;
    void *buf = NULL;
    char where[600];
    int rc;
    *v = NULL;
    *n = 0;
    if ((rc = r_open_value(r, path, attr, where, sizeof where, &o, &a, &t, &s, diag)) != 0)
        return rc;
    H5T_class_t cls = H5Tget_class(t);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        rc = r_fail(r, diag, TM_ERR_DATA, where, "stored as %s, not a number",
                    sim__h5_type_name(classify(t)));
        goto out;
    }
    if (want_int && cls == H5T_FLOAT) {
        rc = r_fail(r, diag, TM_ERR_DATA, where, "stored as floating point, not as an integer");
        goto out;
    }
    int rank;
    hssize_t np;
    H5CHK(&e, rank = H5Sget_simple_extent_ndims(s));
    H5CHK(&e, np = H5Sget_simple_extent_npoints(s));
    if (rank > (cols ? 2 : 1)) {
        rc = r_fail(r, diag, TM_ERR_DATA, where, "has %d dimensions; only 0 to %d are read", rank,
                    cols ? 2 : 1);
        goto out;
    }
    if (cols) {
        hsize_t dims[2] = {1, 1};
        if (rank == 2)
            H5CHK(&e, H5Sget_simple_extent_dims(s, dims, NULL));
        *cols = (size_t)dims[1];
    }
    if (scalar_only && np != 1) {
        rc = r_fail(r, diag, TM_ERR_DATA, where, "has %lld values, want one", (long long)np);
        goto out;
    }
    size_t count = (size_t)np;
    if (count > (SIZE_MAX - 1) / esize) {
        rc = r_fail(r, diag, TM_ERR_NOMEM, where, "%zu values do not fit in memory", count);
        goto out;
    }
    buf = malloc((count ? count : 1) * esize);
    if (!buf) {
        rc = r_fail(r, diag, TM_ERR_NOMEM, where, "out of memory for %zu values", count);
        goto out;
    }
    if (count > 0) {
        if (attr)
            H5CHK(&e, H5Aread(a, mtype, buf));
        else
            H5CHK(&e, H5Dread(o, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    }
    *v = buf;
    *n = count;
    buf = NULL;
out:
    if (e.set)
        rc = r_fail_h5(r, diag, &e, where);
    free(buf);
    sim__h5_close_id(s);
    sim__h5_close_id(t);
    sim__h5_close_id(a);
    sim__h5_close_id(o);
    return rc;
}

int sim__h5r_array_f64(sim__h5r *r, const char *path, double **v, size_t *n, tm_diag *diag)
{
    if (!r || !v || !n)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no reader or output");
    void *p;
    int rc = r_numeric(r, path, NULL, 0, H5T_NATIVE_DOUBLE, sizeof(double), 0, &p, n, NULL, diag);
    *v = p;
    return rc;
}

int sim__h5r_matrix_f64(sim__h5r *r, const char *path, double **v, size_t *rows, size_t *cols,
                        tm_diag *diag)
{
    if (!r || !v || !rows || !cols)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no reader or output");
    void *p;
    size_t n = 0;
    *cols = 0;
    int rc = r_numeric(r, path, NULL, 0, H5T_NATIVE_DOUBLE, sizeof(double), 0, &p, &n, cols, diag);
    *v = p;
    *rows = rc == TM_OK && *cols ? n / *cols : 0;
    return rc;
}

int sim__h5r_array_i64(sim__h5r *r, const char *path, int64_t **v, size_t *n, tm_diag *diag)
{
    if (!r || !v || !n)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no reader or output");
    void *p;
    int rc = r_numeric(r, path, NULL, 1, H5T_NATIVE_INT64, sizeof(int64_t), 0, &p, n, NULL, diag);
    *v = p;
    return rc;
}

static int r_one(sim__h5r *r, const char *path, const char *attr, int want_int, hid_t mtype,
                 size_t esize, void *out, tm_diag *diag)
{
    void *p = NULL;
    size_t n;
    if (!r || !out)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no reader or output");
    int rc = r_numeric(r, path, attr, want_int, mtype, esize, 1, &p, &n, NULL, diag);
    if (!rc)
        memcpy(out, p, esize);
    free(p);
    return rc;
}

int sim__h5r_scalar_f64(sim__h5r *r, const char *path, double *v, tm_diag *diag)
{
    return r_one(r, path, NULL, 0, H5T_NATIVE_DOUBLE, sizeof *v, v, diag);
}

int sim__h5r_scalar_i64(sim__h5r *r, const char *path, int64_t *v, tm_diag *diag)
{
    return r_one(r, path, NULL, 1, H5T_NATIVE_INT64, sizeof *v, v, diag);
}

int sim__h5r_attr_f64(sim__h5r *r, const char *obj_path, const char *name, double *v, tm_diag *diag)
{
    if (!name)
        return tm_diag_set(diag, TM_ERR_INVAL, obj_path, "no attribute name");
    return r_one(r, obj_path, name, 0, H5T_NATIVE_DOUBLE, sizeof *v, v, diag);
}

int sim__h5r_attr_i64(sim__h5r *r, const char *obj_path, const char *name, int64_t *v,
                      tm_diag *diag)
{
    if (!name)
        return tm_diag_set(diag, TM_ERR_INVAL, obj_path, "no attribute name");
    return r_one(r, obj_path, name, 1, H5T_NATIVE_INT64, sizeof *v, v, diag);
}

/* A single string, variable or fixed length, from a dataset or an attribute
 * (`attr` on the object at `path`), into malloc'd memory. */
static int r_string(sim__h5r *r, const char *path, const char *attr, char **v, tm_diag *diag)
{
    h5err e = {0};
    hid_t o = H5I_INVALID_HID, a = H5I_INVALID_HID, t = H5I_INVALID_HID, s = H5I_INVALID_HID;
    hid_t mt = H5I_INVALID_HID;
    char *vl = NULL, *buf = NULL;
    char where[600];
    int rc;
    if (!r || !v)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no reader or output");
    *v = NULL;
    if ((rc = r_open_value(r, path, attr, where, sizeof where, &o, &a, &t, &s, diag)) != 0)
        return rc;
    if (H5Tget_class(t) != H5T_STRING) {
        rc = r_fail(r, diag, TM_ERR_DATA, where, "stored as %s, not a string",
                    sim__h5_type_name(classify(t)));
        goto out;
    }
    hssize_t np;
    H5CHK(&e, np = H5Sget_simple_extent_npoints(s));
    if (np != 1) {
        rc = r_fail(r, diag, TM_ERR_DATA, where, "has %lld strings, want one", (long long)np);
        goto out;
    }
    htri_t var;
    H5CHK(&e, var = H5Tis_variable_str(t));
    if (var) {
        H5T_cset_t cset;
        H5CHK(&e, cset = H5Tget_cset(t));
        H5CHK(&e, mt = H5Tcopy(H5T_C_S1));
        H5CHK(&e, H5Tset_size(mt, H5T_VARIABLE));
        H5CHK(&e, H5Tset_cset(mt, cset));
        if (attr)
            H5CHK(&e, H5Aread(a, mt, &vl));
        else
            H5CHK(&e, H5Dread(o, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &vl));
        size_t len = vl ? strlen(vl) : 0;
        buf = malloc(len + 1);
        if (buf)
            memcpy(buf, vl ? vl : "", len + 1);
    } else {
        size_t size = H5Tget_size(t);
        H5CHK(&e, mt = H5Tcopy(t));
        buf = calloc(1, size + 1);
        if (buf) {
            if (attr)
                H5CHK(&e, H5Aread(a, mt, buf));
            else
                H5CHK(&e, H5Dread(o, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        }
    }
    if (!buf) {
        rc = r_fail(r, diag, TM_ERR_NOMEM, where, "out of memory");
        goto out;
    }
    *v = buf;
    buf = NULL;
out:
    if (e.set)
        rc = r_fail_h5(r, diag, &e, where);
    if (vl)
        H5free_memory(vl);
    free(buf);
    sim__h5_close_id(mt);
    sim__h5_close_id(s);
    sim__h5_close_id(t);
    sim__h5_close_id(a);
    sim__h5_close_id(o);
    return rc;
}

int sim__h5r_scalar_str(sim__h5r *r, const char *path, char **v, tm_diag *diag)
{
    return r_string(r, path, NULL, v, diag);
}

int sim__h5r_attr_str(sim__h5r *r, const char *obj_path, const char *name, char **v, tm_diag *diag)
{
    if (!name)
        return tm_diag_set(diag, TM_ERR_INVAL, obj_path, "no attribute name");
    return r_string(r, obj_path, name, v, diag);
}
