/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_dims.c — what makes tarmac's HDF5 files netCDF-4 readable: HDF5
 * dimension scales (the high-level H5DS library) for tables, label lists as
 * string coordinates, and CF `units` / `long_name` attributes.
 *
 * Every table has one dimension, registered when it is created (default
 * SIM__H5_DIM_DEFAULT, renamed with sim__h5t_dim) and made at commit, once
 * every column is complete: a dataset of that name in the table's group
 * becomes the scale and every column is attached to it. The scale is
 *   - a label list of the group (sim__h5w_labels, `<column>_name`) whose
 *     length is the table's: the names are the coordinate;
 *   - a copy of another 1-D dataset (coord, e.g. /timeseries/t_s for `t`);
 *   - otherwise netCDF's "dimension but not a variable": a float dataset that
 *     is never written, so it takes no space in the file.
 * tarmac's reader does not list dimension-scale datasets among a group's
 * members (h5io_read.c), so tables keep their columns for its readers.
 * docs/hdf5-io.md, "netCDF and xarray", says why this layout.
 */
#include "output/h5io_priv.h"

#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What netCDF-C writes as the NAME of a dimension that has no variable,
 * followed by the length in %10d; readers test the prefix. */
#define NC_DIM_WITHOUT_VARIABLE "This is a netCDF dimension but not a netCDF variable."

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

int sim__h5dim_add(sim__h5w *w, sim__h5t *t, tm_diag *diag)
{
    h5dim *d = calloc(1, sizeof *d);
    if (!d || !(d->table = dup_str(t->path)) || !(d->name = dup_str(SIM__H5_DIM_DEFAULT)) ||
        !(d->desc = dup_str("the rows of the table (a dimension without values)"))) {
        if (d) {
            free(d->table);
            free(d->name);
        }
        free(d);
        return sim__h5w_fail(w, diag, TM_ERR_NOMEM, t->path, "out of memory");
    }
    if (!w->dims_tail)
        w->dims_tail = &w->dims;
    *w->dims_tail = d;
    w->dims_tail = &d->next;
    t->dim = d;
    return TM_OK;
}

void sim__h5dim_free(sim__h5w *w)
{
    while (w->dims) {
        h5dim *d = w->dims;
        w->dims = d->next;
        free(d->table);
        free(d->name);
        free(d->coord);
        free(d->desc);
        for (size_t i = 0; d->members && d->members[i]; i++)
            free(d->members[i]);
        free(d->members);
        for (size_t i = 0; d->axes && i < d->rank; i++)
            free(d->axes[i]);
        free(d->axes);
        free(d);
    }
    w->dims_tail = &w->dims;
}

int sim__h5t_dim(sim__h5t *t, const char *name, const char *coord, const char *description,
                 tm_diag *diag)
{
    if (!t)
        return tm_diag_set(diag, TM_ERR_INVAL, name ? name : "", "no table");
    sim__h5w *w = t->w;
    int rc;
    if ((rc = sim__h5w_check(w, diag)) != 0)
        return rc;
    if (!name || !sim__h5_name_ok(name))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, t->path, "bad dimension name '%s'",
                             name ? name : "(null)");
    if (!description || !*description)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, t->path, "a description is required");
    if (coord && !sim__h5_path_ok(coord, 0))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, t->path, "bad coordinate path '%s'", coord);
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->cols[i].name, name))
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, t->path,
                                 "the dimension name '%s' is a column's", name);
    char *n = dup_str(name), *c = coord ? dup_str(coord) : NULL, *ds = dup_str(description);
    if (!n || (coord && !c) || !ds) {
        free(n);
        free(c);
        free(ds);
        return sim__h5w_fail(w, diag, TM_ERR_NOMEM, t->path, "out of memory");
    }
    h5dim *d = t->dim;
    free(d->name);
    free(d->coord);
    free(d->desc);
    d->name = n;
    d->coord = c;
    d->desc = ds;
    return TM_OK;
}

int sim__h5w_dim(sim__h5w *w, const char *group, const char *name, size_t rows, const char *coord,
                 const char *const *members, const char *description, tm_diag *diag)
{
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, group ? group : "", "no writer");
    if ((rc = sim__h5w_check(w, diag)) != 0)
        return rc;
    if (!group || !sim__h5_path_ok(group, 1))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, group ? group : "(null)", "bad group path");
    if (!name || !sim__h5_name_ok(name))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, group, "bad dimension name '%s'",
                             name ? name : "(null)");
    if (!description || !*description)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, group, "a description is required");
    if (coord && !sim__h5_path_ok(coord, 0))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, group, "bad coordinate path '%s'", coord);
    if (!w->dims_tail)
        w->dims_tail = &w->dims;
    size_t nm = 0;
    while (members && members[nm])
        nm++;
    h5dim *d = calloc(1, sizeof *d);
    int ok = d && (d->table = dup_str(group)) && (d->name = dup_str(name)) &&
             (!coord || (d->coord = dup_str(coord))) && (d->desc = dup_str(description)) &&
             (!members || (d->members = calloc(nm + 1, sizeof *d->members)));
    for (size_t i = 0; ok && i < nm; i++)
        ok = (d->members[i] = dup_str(members[i])) != NULL;
    if (!ok) {
        if (d) { /* link it in, so that sim__h5dim_free frees what it got */
            *w->dims_tail = d;
            w->dims_tail = &d->next;
        }
        return sim__h5w_fail(w, diag, TM_ERR_NOMEM, group, "out of memory");
    }
    d->fixed_rows = 1;
    d->rows = rows;
    *w->dims_tail = d;
    w->dims_tail = &d->next;
    return TM_OK;
}

int sim__h5w_dim_axes(sim__h5w *w, const char *path, const char *const *dims, size_t rank,
                      tm_diag *diag)
{
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path ? path : "", "no writer");
    if ((rc = sim__h5w_check(w, diag)) != 0)
        return rc;
    if (!path || !sim__h5_path_ok(path, 0))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path ? path : "(null)", "bad dataset path");
    if (!rank || rank > H5S_MAX_RANK || !dims)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "bad rank %zu", rank);
    for (size_t k = 0; k < rank; k++)
        if (!dims[k] || !sim__h5_name_ok(dims[k]))
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "bad dimension name '%s'",
                                 dims[k] ? dims[k] : "(null)");
    if (!w->dims_tail)
        w->dims_tail = &w->dims;
    h5dim *d = calloc(1, sizeof *d);
    int ok = d && (d->table = dup_str(path)) && (d->axes = calloc(rank, sizeof *d->axes));
    for (size_t k = 0; ok && k < rank; k++)
        ok = (d->axes[k] = dup_str(dims[k])) != NULL;
    if (d) { /* linked in even when incomplete, so that sim__h5dim_free frees it */
        d->rank = d->axes ? rank : 0;
        d->fixed_rows = 1;
        *w->dims_tail = d;
        w->dims_tail = &d->next;
    }
    if (!ok)
        return sim__h5w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* CF units                                                                   */

/* Units of tarmac that UDUNITS-2 does not know: counted things and money. */
static int cf_unknown(const char *tok, size_t n)
{
    static const char *const unknown[] = {"GPU", "USD"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        if (strlen(unknown[i]) == n && !memcmp(unknown[i], tok, n))
            return 1;
    return 0;
}

int sim__h5_cf_units(const char *units, char *out, size_t cap)
{
    /* units: factors separated by blanks (a product), then "/divisor"s */
    char num[128] = "", den[128] = "";
    size_t nl = 0, dl = 0;
    int changed = 0, in_den = 0;
    const char *p = units;
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (*p == '/') {
            in_den = 1;
            p++;
            continue;
        }
        size_t n = strcspn(p, " /");
        if (cf_unknown(p, n)) {
            changed = 1;
        } else if (!(n == 1 && *p == '1')) {
            char *b = in_den ? den : num;
            size_t *l = in_den ? &dl : &nl;
            if (*l + n + 2 < sizeof num) {
                *l += (size_t)snprintf(b + *l, sizeof num - *l, "%s%.*s", *l ? " " : "", (int)n, p);
            }
        }
        p += n;
    }
    if (!changed) {
        snprintf(out, cap, "%s", units);
        return 0;
    }
    if (dl)
        snprintf(out, cap, "%s/%s%s%s", nl ? num : "1", dl && strchr(den, ' ') ? "(" : "", den,
                 dl && strchr(den, ' ') ? ")" : "");
    else
        snprintf(out, cap, "%s", nl ? num : "1");
    return 1;
}

/* ------------------------------------------------------------------------- */
/* Making the scales at commit                                                */

/* Is the member `name` of g a dataset marked as a dimension scale? 1, 0, -1 */
static int is_scale(hid_t g, const char *name, h5err *e)
{
    H5L_info_t li;
    H5O_info_t oi;
    if (H5Lget_info(g, name, &li, H5P_DEFAULT) < 0) {
        sim__h5_err_capture(e);
        return -1;
    }
    if (li.type != H5L_TYPE_HARD)
        return 0;
    if (H5Oget_info_by_name(g, name, &oi, H5P_DEFAULT) < 0) {
        sim__h5_err_capture(e);
        return -1;
    }
    if (oi.type != H5O_TYPE_DATASET)
        return 0;
    htri_t ex = H5Aexists_by_name(g, name, "CLASS", H5P_DEFAULT);
    if (ex < 0)
        sim__h5_err_capture(e);
    return ex < 0 ? -1 : ex > 0;
}

static hsize_t ds_len(hid_t d, h5err *e)
{
    hid_t s = H5Dget_space(d);
    hsize_t n = 0;
    if (s < 0 || H5Sget_simple_extent_ndims(s) != 1 || H5Sget_simple_extent_dims(s, &n, NULL) < 0)
        sim__h5_err_capture(e);
    sim__h5_close_id(s);
    return n;
}

/* The scale dataset `d->name` in g, created unless it is a label list there. */
static int make_scale(sim__h5w *w, hid_t g, const h5dim *d, hsize_t rows, hid_t *scale,
                      tm_diag *diag)
{
    h5err e = {0};
    hid_t src = H5I_INVALID_HID, s = H5I_INVALID_HID, ds = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    double *v = NULL;
    char *units = NULL;
    char where[600];
    int rc = TM_OK;
    snprintf(where, sizeof where, "%s/%s", d->table, d->name);
    htri_t ex = H5Lexists(g, d->name, H5P_DEFAULT);
    H5CHK(&e, ex);
    if (ex > 0) {
        int sc = is_scale(g, d->name, &e);
        H5CHK(&e, sc);
        if (!sc)
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                                 "the dimension's name is taken by another object");
        H5CHK(&e, ds = H5Dopen2(g, d->name, H5P_DEFAULT));
        hsize_t n = ds_len(ds, &e);
        if (e.set)
            goto out;
        if (n != rows) {
            rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                               "the dimension has %llu values for %llu rows", (unsigned long long)n,
                               (unsigned long long)rows);
            goto out;
        }
        *scale = ds;
        return TM_OK;
    }
    H5CHK(&e, s = H5Screate_simple(1, &rows, NULL));
    if (d->coord) {
        snprintf(where, sizeof where, "%s", d->coord);
        H5CHK(&e, src = H5Dopen2(w->file, d->coord, H5P_DEFAULT));
        hsize_t n = ds_len(src, &e);
        if (e.set)
            goto out;
        if (n != rows) {
            rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, d->table,
                               "the coordinate %s has %llu values for %llu rows", d->coord,
                               (unsigned long long)n, (unsigned long long)rows);
            goto out;
        }
        v = malloc((rows ? rows : 1) * sizeof *v);
        if (!v) {
            rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, d->coord, "out of memory");
            goto out;
        }
        if (rows)
            H5CHK(&e, H5Dread(src, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
        hid_t a = H5Aopen(src, "units", H5P_DEFAULT);
        if (a >= 0) {
            H5Aread(a, w->str_type, &units);
            H5Aclose(a);
        } else {
            H5Eclear2(H5E_DEFAULT);
        }
        snprintf(where, sizeof where, "%s/%s", d->table, d->name);
        if (rows > SIM__H5_CHUNK_ROWS)
            H5CHK(&e, dcpl = sim__h5_chunked_dcpl(SIM__H5_CHUNK_ROWS, 1, &e));
        H5CHK(&e, ds = H5Dcreate2(g, d->name, H5T_IEEE_F64LE, s, H5P_DEFAULT,
                                  dcpl >= 0 ? dcpl : w->dcpl, w->dapl));
        if (rows)
            H5CHK(&e, H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, w->dxpl, v));
        H5CHK(&e, sim__h5w_put_meta(w, ds, units ? units : "1", d->desc, &e));
        H5CHK(&e, H5DSset_scale(ds, d->name));
    } else {
        /* never written: no storage, readers see the fill value */
        char nm[sizeof NC_DIM_WITHOUT_VARIABLE + 16];
        snprintf(nm, sizeof nm, "%s%10llu", NC_DIM_WITHOUT_VARIABLE, (unsigned long long)rows);
        H5CHK(&e, ds = H5Dcreate2(g, d->name, H5T_IEEE_F32LE, s, H5P_DEFAULT, w->dcpl, w->dapl));
        H5CHK(&e, sim__h5w_put_meta(w, ds, "1", d->desc, &e));
        H5CHK(&e, H5DSset_scale(ds, nm));
    }
    *scale = ds;
    ds = H5I_INVALID_HID;
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, where);
    if (units)
        H5free_memory(units);
    free(v);
    sim__h5_close_id(ds);
    sim__h5_close_id(dcpl);
    sim__h5_close_id(s);
    sim__h5_close_id(src);
    return rc;
}

/* Attach every 1-D dataset of g that is not a scale to `scale`. */
typedef struct attach_ctx {
    hid_t scale;
    hsize_t rows;
    int found; /* first pass: rows taken from the first column */
    char *const *members;
    h5err *e;
} attach_ctx;

static herr_t attach_one(hid_t g, const char *name, const H5L_info_t *li, void *op)
{
    attach_ctx *c = op;
    if (li->type != H5L_TYPE_HARD)
        return 0;
    if (c->members) {
        size_t i = 0;
        while (c->members[i] && strcmp(c->members[i], name))
            i++;
        if (!c->members[i])
            return 0;
    }
    /* One open for the kind, the scale test (is_scale's CLASS attribute) and
     * the shape: each lookup by name walks the group's link index. */
    hid_t d = H5Oopen(g, name, H5P_DEFAULT);
    if (d < 0) {
        sim__h5_err_capture(c->e);
        return -1;
    }
    if (H5Iget_type(d) != H5I_DATASET) {
        H5Oclose(d);
        return 0;
    }
    htri_t sc = H5Aexists(d, "CLASS");
    if (sc != 0) {
        if (sc < 0)
            sim__h5_err_capture(c->e);
        H5Oclose(d);
        return sc < 0 ? -1 : 0;
    }
    hid_t sp = H5Dget_space(d);
    int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    sim__h5_close_id(sp);
    if (rank != 1) { /* scalars and matrices keep no dimension here */
        H5Oclose(d);
        if (rank >= 0)
            return 0;
        sim__h5_err_capture(c->e);
        return -1;
    }
    hsize_t n = ds_len(d, c->e);
    herr_t r = c->e->set ? -1 : 0;
    int has = 0;
    if (!r && c->scale >= 0 && (has = H5DSget_num_scales(d, 0)) < 0) {
        sim__h5_err_capture(c->e);
        r = -1;
    }
    if (!r && c->scale < 0) {
        if (!c->found)
            c->rows = n;
        c->found = 1;
    } else if (!r && !has && n == c->rows && H5DSattach_scale(d, c->scale, 0) < 0) {
        sim__h5_err_capture(c->e);
        r = -1;
    }
    H5Oclose(d);
    return r;
}

/* Attach each axis of the N-D dataset d->table to its scale (sim__h5w_dim_axes). */
static int attach_axes(sim__h5w *w, const h5dim *d, tm_diag *diag)
{
    h5err e = {0};
    hid_t ds = H5I_INVALID_HID, sp = H5I_INVALID_HID, sc = H5I_INVALID_HID;
    hsize_t len[H5S_MAX_RANK];
    char where[600];
    int rc = TM_OK;
    snprintf(where, sizeof where, "%s", d->table);
    size_t cut = (size_t)(strrchr(d->table, '/') - d->table);
    H5CHK(&e, ds = H5Dopen2(w->file, d->table, H5P_DEFAULT));
    H5CHK(&e, sp = H5Dget_space(ds));
    int rank = H5Sget_simple_extent_ndims(sp);
    H5CHK(&e, rank);
    if ((size_t)rank != d->rank) {
        rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, where, "%d axes, %zu dimensions given", rank,
                           d->rank);
        goto out;
    }
    H5CHK(&e, H5Sget_simple_extent_dims(sp, len, NULL));
    for (size_t k = 0; k < d->rank; k++) {
        snprintf(where, sizeof where, "%.*s/%s", (int)cut, d->table, d->axes[k]);
        int there = sim__h5_path_exists(w->file, where, &e);
        H5CHK(&e, there);
        if (!there) {
            rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                               "no such dimension scale (axis %zu of %s)", k, d->table);
            goto out;
        }
        H5CHK(&e, sc = H5Dopen2(w->file, where, H5P_DEFAULT));
        htri_t is = H5DSis_scale(sc);
        H5CHK(&e, is);
        hsize_t n = is ? ds_len(sc, &e) : 0;
        if (e.set)
            goto out;
        if (!is) {
            rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                               "not a dimension scale (axis %zu of %s)", k, d->table);
            goto out;
        }
        if (n != len[k]) {
            rc = sim__h5w_fail(w, diag, TM_ERR_INVAL, where,
                               "the dimension has %llu values for axis %zu of %s (%llu)",
                               (unsigned long long)n, k, d->table, (unsigned long long)len[k]);
            goto out;
        }
        H5CHK(&e, H5DSattach_scale(ds, sc, (unsigned)k));
        sim__h5_close_id(sc);
        sc = H5I_INVALID_HID;
    }
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, where);
    sim__h5_close_id(sc);
    sim__h5_close_id(sp);
    sim__h5_close_id(ds);
    return rc;
}

int sim__h5dim_make(sim__h5w *w, tm_diag *diag)
{
    int rc;
    for (h5dim *d = w->dims; d; d = d->next) {
        if (d->axes) {
            if ((rc = attach_axes(w, d, diag)) != TM_OK)
                return rc;
            continue;
        }
        h5err e = {0};
        hid_t g = H5I_INVALID_HID, scale = H5I_INVALID_HID;
        attach_ctx c = {H5I_INVALID_HID, d->rows, d->fixed_rows, d->members, &e};
        rc = TM_OK;
        H5CHK(&e, g = H5Gopen2(w->file, d->table, H5P_DEFAULT));
        if (!d->fixed_rows)
            H5CHK(&e, H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, attach_one, &c));
        if ((rc = make_scale(w, g, d, c.rows, &scale, diag)) != TM_OK)
            goto out;
        c.scale = scale;
        H5CHK(&e, H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, attach_one, &c));
    out:
        if (e.set)
            rc = sim__h5w_fail_h5(w, diag, &e, d->table);
        sim__h5_close_id(scale);
        sim__h5_close_id(g);
        if (rc)
            return rc;
    }
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* Label lists                                                                */

static int w_strings(sim__h5w *w, const char *path, const char *const *v, size_t n, int scale,
                     const char *description, tm_diag *diag)
{
    h5err e = {0};
    hid_t s = H5I_INVALID_HID, ds = H5I_INVALID_HID;
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path ? path : "", "no writer");
    if ((rc = sim__h5w_new_object(w, path, diag)) != 0 ||
        (rc = sim__h5w_need_meta(w, path, NULL, 0, description, diag)) != 0)
        return rc;
    if (n && !v)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "no strings");
    for (size_t i = 0; i < n; i++)
        if (!v[i])
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "string %zu is NULL", i);
    hsize_t dims = n;
    H5CHK(&e, s = H5Screate_simple(1, &dims, NULL));
    H5CHK(&e, ds = H5Dcreate2(w->file, path, w->str_type, s, H5P_DEFAULT, w->dcpl, w->dapl));
    if (n)
        H5CHK(&e, H5Dwrite(ds, w->str_type, H5S_ALL, H5S_ALL, w->dxpl, v));
    H5CHK(&e, sim__h5w_put_meta(w, ds, NULL, description, &e));
    if (scale)
        H5CHK(&e, H5DSset_scale(ds, strrchr(path, '/') + 1));
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, path);
    sim__h5_close_id(ds);
    sim__h5_close_id(s);
    return rc;
}

int sim__h5w_names(sim__h5w *w, const char *path, const char *const *v, size_t n,
                   const char *description, tm_diag *diag)
{
    return w_strings(w, path, v, n, 1, description, diag);
}

int sim__h5w_array_str(sim__h5w *w, const char *path, const char *const *v, size_t n,
                       const char *description, tm_diag *diag)
{
    return w_strings(w, path, v, n, 0, description, diag);
}

int sim__h5w_labels(sim__h5w *w, const char *col_path, const char *const *labels, size_t n,
                    tm_diag *diag)
{
    char *joined = NULL, *path = NULL;
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, col_path ? col_path : "", "no writer");
    if ((rc = sim__h5w_check(w, diag)) != 0)
        return rc;
    if (!col_path || !sim__h5_path_ok(col_path, 0) || (n && !labels))
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, col_path ? col_path : "(null)",
                             "bad label list");
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        if (!labels[i])
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, col_path, "label %zu is NULL", i);
        len += strlen(labels[i]) + 1;
    }
    joined = malloc(len);
    path = malloc(strlen(col_path) + sizeof "_name");
    if (!joined || !path) {
        rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, col_path, "out of memory");
        goto out;
    }
    size_t o = 0;
    joined[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(labels[i]);
        if (i)
            joined[o++] = '\n';
        memcpy(joined + o, labels[i], l);
        o += l;
    }
    joined[o] = '\0';
    if ((rc = sim__h5w_attr_str(w, col_path, "labels", joined, diag)) != 0)
        goto out;
    sprintf(path, "%s_name", col_path);
    char desc[600];
    const char *base = strrchr(col_path, '/') + 1;
    snprintf(desc, sizeof desc, "the names of the codes of %s: value i names code i", base);
    rc = w_strings(w, path, labels, n, 1, desc, diag);
out:
    free(joined);
    free(path);
    return rc;
}
