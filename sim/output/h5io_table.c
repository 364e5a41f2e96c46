/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_table.c — tables of an HDF5 writer: one 1-D dataset per column,
 * appended row by row.
 *
 * How it works. A column is a 1-D dataset with an unlimited maximum length,
 * chunked SIM__H5_CHUNK_ROWS rows (or the table's length, when it ends
 * inside its first chunk: t_make), shuffle + deflate. Rows go into a slot:
 * one chunk buffer per column. A table has SIM__H5_PIPE_SLOTS slots used as a
 * ring: when the filling one is full it is shipped (queued for compression
 * on the writer's worker, h5io_pool.c) and the next one fills; when all are
 * in flight the oldest is retired (written) first, so memory is bounded and
 * a slow compressor holds the caller back. The datasets get a chunk cache of
 * zero bytes: HDF5 holds no second copy and a full disk is reported by the
 * write that hit it.
 *
 * The owner retires chunk k when it ships chunk k + SIM__H5_PIPE_SLOTS - 1,
 * or when the table is finished: points fixed by the calls, not by the
 * worker's speed, so the HDF5 calls and hence the file's bytes are the same
 * on every run. SIM__H5_PIPE_FILTER keeps the old path (H5Dwrite through
 * HDF5's filters, one slot, default deflate strategy) as the reference the
 * tests compare decoded chunks and values with.
 */
#define _GNU_SOURCE /* sync_file_range, where Linux has it */
#include "output/h5io_priv.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */

/* "/table/column" for messages. */
static void col_where(const sim__h5t *t, size_t col, char *buf, size_t cap)
{
    if (col < t->ncols)
        snprintf(buf, cap, "%s/%s", t->path, t->cols[col].name);
    else
        snprintf(buf, cap, "%s", t->path);
}

/* Free a table. No thread may hold one of its slots: it was drained, or the
 * worker was stopped. */
static void t_free(sim__h5t *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->cols && i < t->ncols; i++) {
        sim__h5_close_id(t->cols[i].dset);
        free(t->cols[i].name);
        free(t->cols[i].units);
        free(t->cols[i].desc);
    }
    for (unsigned k = 0; k < SIM__H5_PIPE_SLOTS; k++) {
        free(t->slot[k].raw);
        free(t->slot[k].z);
        free(t->slot[k].zlen);
    }
    free(t->esize);
    free(t->cols);
    free(t->path);
    free(t);
}

static void t_unlink(sim__h5t *t)
{
    for (sim__h5t **p = &t->w->tables; *p; p = &(*p)->next) {
        if (*p == t) {
            *p = t->next;
            return;
        }
    }
}

/* Drop the open (incomplete) row. */
static void t_drop_row(sim__h5t *t)
{
    for (size_t i = 0; i < t->ncols; i++)
        t->cols[i].nput = t->nbuf;
}

/* Until its first chunk is shipped a table's filling buffer (slot 0) holds
 * only cap rows, column i at cap x the value sizes of the columns before it,
 * and doubles as rows come: a table of a few thousand rows (a pool's time
 * series; a replay of a node list can have hundreds of pools) costs its
 * rows, not a whole chunk of every column. At SIM__H5_CHUNK_ROWS it takes the
 * layout of every slot (raw_off, raw_bytes), before the first chunk is
 * shipped. Grow to hold at least `need` rows; -1 when out of memory (the
 * buffer is unchanged). */
#define T_CAP0 256

static int t_grow(sim__h5t *t, size_t need)
{
    if (need <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : T_CAP0;
    while (cap < need && cap < SIM__H5_CHUNK_ROWS)
        cap *= 2;
    if (cap > SIM__H5_CHUNK_ROWS)
        cap = SIM__H5_CHUNK_ROWS;
    size_t bytes = 0;
    for (size_t i = 0; i < t->ncols; i++)
        bytes += cap * t->esize[i];
    if (cap == SIM__H5_CHUNK_ROWS)
        bytes = t->raw_bytes;
    unsigned char *raw = malloc(bytes ? bytes : 1);
    if (!raw)
        return -1;
    for (size_t i = 0, off = 0; i < t->ncols; i++) {
        h5col *c = &t->cols[i];
        size_t o = cap == SIM__H5_CHUNK_ROWS ? t->raw_off[i] : off;
        if (c->nput)
            memcpy(raw + o, c->buf, c->nput * t->esize[i]);
        c->buf = raw + o;
        off += cap * t->esize[i];
    }
    free(t->slot[0].raw);
    t->slot[0].raw = raw;
    t->cap = cap;
    return 0;
}

/* Point the column buffers at slot k, which becomes the filling slot. */
static void t_fill_from(sim__h5t *t, unsigned k)
{
    for (size_t i = 0; i < t->ncols; i++)
        t->cols[i].buf = t->slot[k].raw + t->raw_off[i];
}

/* Make the columns' datasets, chunked `chunk` rows (1 .. SIM__H5_CHUNK_ROWS),
 * with their units and descriptions, in column order. Done once, as late as
 * the file allows (t->chunk): a table that ends inside its first chunk gets
 * chunks of its own length, so its one chunk per column holds its rows and
 * no padding, which is what the many small tables of a report (pools, cost,
 * ledger, a drained run's time series) cost most in compressing. */
static int t_make(sim__h5t *t, size_t chunk, tm_diag *diag)
{
    sim__h5w *w = t->w;
    h5err e = {0};
    hid_t g = H5I_INVALID_HID, s = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    size_t i = t->ncols;
    int rc = 0;
    if (t->made)
        return 0;
    t->made = 1;
    t->chunk = chunk;
    H5CHK(&e, g = H5Gopen2(w->file, t->path, H5P_DEFAULT));
    H5CHK(&e, dcpl = sim__h5_chunked_dcpl(chunk, w->pipe != SIM__H5_PIPE_NONE, &e));
    H5CHK(&e, s = H5Screate_simple(1, &zero, &unlimited));
    for (i = 0; i < t->ncols; i++) {
        h5col *c = &t->cols[i];
        H5CHK(&e, c->dset = H5Dcreate2(g, c->name, sim__h5_type_file(c->type), s, H5P_DEFAULT, dcpl,
                                       w->dapl));
        H5CHK(&e, sim__h5w_put_meta(w, c->dset, c->units, c->desc, &e));
    }
out:
    if (e.set) {
        char where[600];
        col_where(t, i, where, sizeof where);
        rc = sim__h5w_fail_h5(w, diag, &e, where);
    }
    sim__h5_close_id(dcpl);
    sim__h5_close_id(s);
    sim__h5_close_id(g);
    return rc;
}

/* The touch of the table ops (h5io_priv.h): make the columns of every table
 * whose group holds `path`, with full chunks. */
static int t_touch(sim__h5w *w, const char *path, tm_diag *diag)
{
    for (sim__h5t *t = w->tables; t; t = t->next) {
        size_t n = strlen(t->path);
        if (t->made || strncmp(path, t->path, n) != 0 || path[n] != '/')
            continue;
        int rc = t_make(t, SIM__H5_CHUNK_ROWS, diag);
        if (rc)
            return rc;
    }
    return 0;
}

/* Give slot s its buffers: the raw block, and for a piped table the
 * compressed block. */
static int slot_alloc(const sim__h5t *t, h5slot *s)
{
    if (!s->raw && !(s->raw = malloc(t->raw_bytes)))
        return -1;
    if (t->piped && !s->z) {
        s->z = malloc(t->z_bytes);
        s->zlen = calloc(t->ncols, sizeof *s->zlen);
        if (!s->z || !s->zlen) {
            free(s->z);
            free(s->zlen);
            s->z = NULL;
            s->zlen = NULL;
            return -1;
        }
    }
    return 0;
}

/* Write slot s to the file: every column extended to the slot's last row and
 * its chunk written, column by column (the order the filter path used, so
 * that a file written either way can be compared byte for byte). Piped: the
 * compressed chunk with H5Dwrite_chunk (filter mask 0: every filter of the
 * dataset applied). Otherwise H5Dwrite through HDF5's own filters. */
/* Start the kernel writing back what the file has so far, without waiting
 * (Linux's sync_file_range; elsewhere nothing), so that commit's fsync finds
 * little left to write: on a million-job report it took 0.12 s at the end of
 * the run, now mostly overlapped with the run. Advisory: a failure is
 * ignored here, the fsync at commit reports any real one. */
#define WRITEBACK_EVERY_BYTES (4u << 20)
static void writeback_start(sim__h5w *w)
{
    w->unsynced = 0;
#ifdef SYNC_FILE_RANGE_WRITE
    hid_t fapl = H5Fget_access_plist(w->file);
    int *fdp = NULL;
    if (fapl < 0)
        return;
    if (H5Fget_vfd_handle(w->file, fapl, (void **)&fdp) >= 0 && fdp && *fdp >= 0)
        (void)sync_file_range(*fdp, 0, 0, SYNC_FILE_RANGE_WRITE);
    H5Pclose(fapl);
#endif
}

static int t_write_slot(sim__h5t *t, const h5slot *s, tm_diag *diag)
{
    h5err e = {0};
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    hsize_t start = s->row0, count = s->nrows, len = s->row0 + s->nrows;
    size_t i = t->ncols; /* names the table, not a column, until the loop starts */
    int rc = 0;
    if (!t->piped)
        H5CHK(&e, ms = H5Screate_simple(1, &count, NULL));
    for (i = 0; i < t->ncols; i++) {
        h5col *c = &t->cols[i];
        H5CHK(&e, H5Dset_extent(c->dset, &len));
        if (t->piped) {
            H5CHK(&e,
                  H5Dwrite_chunk(c->dset, H5P_DEFAULT, 0, &start, s->zlen[i], s->z + t->z_off[i]));
            t->w->unsynced += s->zlen[i];
            continue;
        }
        H5CHK(&e, fs = H5Dget_space(c->dset));
        H5CHK(&e, H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
        H5CHK(&e, H5Dwrite(c->dset, sim__h5_type_mem(c->type), ms, fs, H5P_DEFAULT,
                           s->raw + t->raw_off[i]));
        H5CHK(&e, H5Sclose(fs));
        fs = H5I_INVALID_HID;
    }
    if (t->w->sync && t->w->unsynced >= WRITEBACK_EVERY_BYTES)
        writeback_start(t->w);
out:
    if (e.set) {
        char where[600];
        col_where(t, i, where, sizeof where);
        rc = sim__h5w_fail_h5(t->w, diag, &e, where);
    }
    sim__h5_close_id(fs);
    sim__h5_close_id(ms);
    return rc;
}

/* Retire the oldest slot in flight: wait for its compression (helping), then
 * write it, unless the writer has failed, in which case it is dropped. The
 * slot is free afterwards either way. This is the only place chunks reach
 * HDF5, and when it runs depends on the calls made, never on the worker's
 * timing: chunk k is written when chunk k + depth - 1 is shipped, or when the
 * table is finished. So the file's bytes are the same on every run. */
static int t_retire(sim__h5t *t, tm_diag *diag)
{
    sim__h5w *w = t->w;
    h5slot *s = &t->slot[t->head];
    int rc;
    if (t->piped)
        sim__h5pool_wait(&w->pool, s, sim__h5w_check(w, NULL) != 0);
    /* After the wait, so that this slot's own failure is adopted. */
    if ((rc = sim__h5w_check(w, diag)) == 0)
        rc = t_write_slot(t, s, diag);
    s->state = SLOT_FREE;
    t->head = (t->head + 1) % t->depth;
    t->ninflight--;
    return rc;
}

/* Retire every slot in flight, in order; the first failure is returned. */
static int t_drain(sim__h5t *t, tm_diag *diag)
{
    int rc = 0;
    while (t->ninflight > 0) {
        int r = t_retire(t, diag);
        if (!rc)
            rc = r;
    }
    return rc;
}

/* Hand the filling slot's rows on (nbuf > 0): a piped table queues it for
 * compression; either way it is in flight until retired. Then retire the
 * oldest while `depth` slots are in flight, so that one is free to fill.
 * `last`: the table is being finished (the slot may be partial, no slot is
 * needed after it). The filling buffers are empty afterwards, whether or not
 * it worked (a failure is sticky). */
static int t_ship(sim__h5t *t, int last, tm_diag *diag)
{
    sim__h5w *w = t->w;
    unsigned k = (t->head + t->ninflight) % t->depth;
    unsigned next = (k + 1) % t->depth;
    h5slot *s = &t->slot[k];
    int rc = 0;

    /* The table's only chunk when it ends here: as long as the table. */
    if ((rc = t_make(t, last && t->nshipped == 0 ? t->nbuf : SIM__H5_CHUNK_ROWS, diag)) != 0) {
        t->nbuf = 0;
        t_drop_row(t);
        return rc;
    }
    if (t_grow(t, SIM__H5_CHUNK_ROWS) != 0 || slot_alloc(t, s) != 0 ||
        (!last && slot_alloc(t, &t->slot[next]) != 0)) {
        rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, t->path, "out of memory for the chunk buffers");
        t->nbuf = 0;
        t_drop_row(t);
        return rc;
    }
    s->t = t;
    s->row0 = t->nshipped;
    s->nrows = t->nbuf;
    s->zrc = Z_OK;
    t->nshipped += t->nbuf;
    t->nbuf = 0;
    t->ninflight++;
    if (t->piped) {
        if (s->nrows < t->chunk) /* HDF5 pads a partial chunk with the fill value, 0 */
            for (size_t i = 0; i < t->ncols; i++)
                memset(s->raw + t->raw_off[i] + s->nrows * t->esize[i], 0,
                       (t->chunk - s->nrows) * t->esize[i]);
        /* A full chunk means more may follow: worth a thread. The last
         * chunk of a small table is compressed by the owner at once. */
        if (w->pipe == SIM__H5_PIPE_WORKER && s->nrows == SIM__H5_CHUNK_ROWS)
            sim__h5pool_start(&w->pool);
        sim__h5pool_push(&w->pool, s);
    } else {
        s->state = SLOT_DONE;
    }
    while (t->ninflight == t->depth) { /* even after a failure: the slot must come back */
        int r = t_retire(t, diag);
        if (!rc)
            rc = r;
    }
    if (!last)
        t_fill_from(t, (t->head + t->ninflight) % t->depth);
    t_drop_row(t);
    return rc;
}

/* Flush, close and free the table (unlinked from its writer). */
static int t_finish(sim__h5t *t, tm_diag *diag)
{
    int rc = sim__h5w_check(t->w, diag);
    for (size_t i = 0; i < t->ncols && !rc; i++)
        if (t->cols[i].nput != t->nbuf)
            rc = sim__h5w_fail(t->w, diag, TM_ERR_INVAL, t->path,
                               "row %" PRIu64 " was begun (column %s put) but not ended",
                               t->nshipped + t->nbuf, t->cols[i].name);
    if (!rc && t->nbuf > 0)
        rc = t_ship(t, 1, diag);
    int r = t_drain(t, diag); /* on failure, drops what is in flight */
    if (!rc)
        rc = r;
    if (!rc) /* an empty table: full chunks, of which it has none */
        rc = t_make(t, SIM__H5_CHUNK_ROWS, diag);
    if (!rc && t->dim) {
        /* Its dimension's length is the table's: the first 1-D dataset of
         * the group (in creation order) is its first column, which is what
         * sim__h5dim_make would otherwise open every member to find. */
        t->dim->rows = t->nshipped;
        t->dim->fixed_rows = 1;
    }
    for (size_t i = 0; i < t->ncols && !rc; i++) {
        h5col *c = &t->cols[i];
        if (H5Dclose(c->dset) < 0) {
            h5err e = {0};
            char where[600];
            sim__h5_err_capture(&e);
            col_where(t, i, where, sizeof where);
            rc = sim__h5w_fail_h5(t->w, diag, &e, where);
        }
        c->dset = H5I_INVALID_HID;
    }
    t_unlink(t);
    t_free(t);
    return rc;
}

int sim__h5t_close(sim__h5t *t, tm_diag *diag)
{
    if (!t)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "close of no table");
    return t_finish(t, diag);
}

static int t_check_cols(sim__h5w *w, const char *path, const sim__h5_col *cols, size_t ncols,
                        tm_diag *diag)
{
    if (!cols || ncols == 0)
        return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "a table needs at least one column");
    /* O(ncols^2) for the duplicate check: tables have tens of columns. */
    for (size_t i = 0; i < ncols; i++) {
        const sim__h5_col *c = &cols[i];
        if (!sim__h5_name_ok(c->name))
            return sim__h5w_fail(
                w, diag, TM_ERR_INVAL, path,
                "column %zu: name \"%s\" is empty, has a '/' or is \".\" or \"..\"", i,
                c->name ? c->name : "(null)");
        if (sim__h5_type_size(c->type) == 0)
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, path,
                                 "column %s: type %d is not f64, i64, i32 or u8", c->name,
                                 (int)c->type);
        if (!c->units || !c->description)
            return sim__h5w_fail(w, diag, TM_ERR_INVAL, path,
                                 "column %s: units and description are required (units \"1\" when "
                                 "dimensionless)",
                                 c->name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(cols[j].name, c->name) == 0)
                return sim__h5w_fail(w, diag, TM_ERR_INVAL, path, "column %s appears twice",
                                     c->name);
    }
    return 0;
}

int sim__h5t_create(sim__h5t **tp, sim__h5w *w, const char *path, const char *description,
                    const sim__h5_col *cols, size_t ncols, tm_diag *diag)
{
    h5err e = {0};
    hid_t g = H5I_INVALID_HID, s = H5I_INVALID_HID;
    const char **names = NULL;
    sim__h5t *t = NULL;
    char where[600];
    hsize_t n_names = ncols;
    size_t i = 0;
    int rc;

    if (!tp || !w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no table or writer");
    *tp = NULL;
    snprintf(where, sizeof where, "%s", path ? path : "(null)");
    if ((rc = sim__h5w_new_object(w, path, diag)) != 0 ||
        (rc = sim__h5w_need_meta(w, path, "", 0, description, diag)) != 0 ||
        (rc = t_check_cols(w, path, cols, ncols, diag)) != 0)
        return rc;
    w->ntables++;

    t = calloc(1, sizeof *t);
    names = calloc(ncols, sizeof *names);
    if (!t || !names || !(t->path = malloc(strlen(path) + 1)) ||
        !(t->cols = calloc(ncols, sizeof *t->cols)) ||
        !(t->esize = calloc(3 * ncols, sizeof *t->esize))) {
        rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    strcpy(t->path, path);
    t->w = w;
    t->ncols = ncols;
    t->raw_off = t->esize + ncols;
    t->z_off = t->esize + 2 * ncols;
    t->piped = w->pipe == SIM__H5_PIPE_WORKER || w->pipe == SIM__H5_PIPE_INLINE;
    t->depth = t->piped ? SIM__H5_PIPE_SLOTS : 1;
    for (i = 0; i < ncols; i++) {
        t->cols[i].dset = H5I_INVALID_HID;
        t->esize[i] = sim__h5_type_size(cols[i].type);
        t->raw_off[i] = t->raw_bytes;
        t->z_off[i] = t->z_bytes;
        t->raw_bytes += SIM__H5_CHUNK_ROWS * t->esize[i];
        t->z_bytes += sim__h5_zbound(SIM__H5_CHUNK_ROWS * t->esize[i], t->esize[i]);
    }
    /* The first slot's buffer now, small (t_grow); the rest when the first
     * chunk is full. */
    if (t_grow(t, 1) != 0 || (t->piped && sim__h5pool_scratch(&w->pool) != 0)) {
        rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    for (i = 0; i < ncols; i++) {
        h5col *c = &t->cols[i];
        c->type = cols[i].type;
        c->name = malloc(strlen(cols[i].name) + 1);
        if (!c->name) {
            rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
            goto out;
        }
        strcpy(c->name, cols[i].name);
        names[i] = c->name;
        if (!(c->units = malloc(strlen(cols[i].units) + 1)) ||
            !(c->desc = malloc(strlen(cols[i].description) + 1))) {
            rc = sim__h5w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
            goto out;
        }
        strcpy(c->units, cols[i].units);
        strcpy(c->desc, cols[i].description);
    }

    H5CHK(&e, g = H5Gcreate2(w->file, path, H5P_DEFAULT, w->gcpl, H5P_DEFAULT));
    H5CHK(&e, sim__h5w_attr_put_str(w, g, "description", description, &e));
    H5CHK(&e, s = H5Screate_simple(1, &n_names, NULL));
    H5CHK(&e, sim__h5_attr_put(g, "columns", w->str_type, w->str_type, s, names, &e));
    H5CHK(&e, H5Sclose(s));
    s = H5I_INVALID_HID;

    /* The columns' datasets are made later (t_make), when their chunk is
     * known. */
    if ((rc = sim__h5dim_add(w, t, diag)) != 0)
        goto out;
    static const sim__h5t_ops ops = {t_finish, t_free, t_touch};
    w->table_ops = &ops;
    t->next = w->tables;
    w->tables = t;
    *tp = t;
    t = NULL;
out:
    if (e.set)
        rc = sim__h5w_fail_h5(w, diag, &e, where);
    t_free(t);
    free(names);
    sim__h5_close_id(s);
    sim__h5_close_id(g);
    return rc;
}

/* Cold path of the puts: say what was wrong (once; the writer keeps the first
 * failure) and drop the row. */
static void t_misuse(sim__h5t *t, size_t col, sim__h5_type as)
{
    char where[600];
    if (!t || sim__h5w_check(t->w, NULL))
        return;
    col_where(t, col, where, sizeof where);
    if (col >= t->ncols)
        sim__h5w_fail(t->w, NULL, TM_ERR_INVAL, where,
                      "row %" PRIu64 ": column index %zu out of range (the table has %zu columns)",
                      t->nshipped + t->nbuf, col, t->ncols);
    else if (t->cols[col].type != as)
        sim__h5w_fail(t->w, NULL, TM_ERR_INVAL, where, "row %" PRIu64 ": column is %s, put as %s",
                      t->nshipped + t->nbuf, sim__h5_type_name(t->cols[col].type),
                      sim__h5_type_name(as));
    else
        sim__h5w_fail(t->w, NULL, TM_ERR_INVAL, where,
                      "row %" PRIu64 ": column put twice in one row", t->nshipped + t->nbuf);
    t_drop_row(t);
}

/* Hot path: nput == nbuf < SIM__H5_CHUNK_ROWS means "not yet put in this row",
 * so the store stays inside the buffer. */
#define T_PUT(t, col, TYPE, CTYPE, v)                                                              \
    do {                                                                                           \
        h5col *c_;                                                                                 \
        if (!(t) || (col) >= (t)->ncols || (c_ = &(t)->cols[col])->type != (TYPE) ||               \
            c_->nput != (t)->nbuf) {                                                               \
            t_misuse(t, col, TYPE);                                                                \
            return;                                                                                \
        }                                                                                          \
        ((CTYPE *)(void *)c_->buf)[c_->nput++] = (v);                                              \
    } while (0)

void sim__h5t_put_f64(sim__h5t *t, size_t col, double v)
{
    T_PUT(t, col, SIM__H5_F64, double, v);
}

void sim__h5t_put_i64(sim__h5t *t, size_t col, int64_t v)
{
    T_PUT(t, col, SIM__H5_I64, int64_t, v);
}

void sim__h5t_put_i32(sim__h5t *t, size_t col, int32_t v)
{
    T_PUT(t, col, SIM__H5_I32, int32_t, v);
}

void sim__h5t_put_u8(sim__h5t *t, size_t col, uint8_t v)
{
    T_PUT(t, col, SIM__H5_U8, uint8_t, v);
}

int sim__h5t_row_end(sim__h5t *t, tm_diag *diag)
{
    int rc;
    if (!t)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "row_end of no table");
    if ((rc = sim__h5w_check(t->w, diag)) != 0) {
        t_drop_row(t);
        return rc;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        if (t->cols[i].nput != t->nbuf + 1) {
            char where[600];
            col_where(t, i, where, sizeof where);
            t_drop_row(t);
            return sim__h5w_fail(t->w, diag, TM_ERR_INVAL, where,
                                 "row %" PRIu64 ": column not put before the end of the row",
                                 t->nshipped + t->nbuf);
        }
    }
    if (++t->nbuf == SIM__H5_CHUNK_ROWS)
        return t_ship(t, 0, diag);
    if (t->nbuf == t->cap && t_grow(t, t->cap + 1) != 0)
        return sim__h5w_fail(t->w, diag, TM_ERR_NOMEM, t->path,
                             "out of memory for the chunk buffers");
    return 0;
}

int sim__h5t_append(sim__h5t *t, const void *const *cols, size_t nrows, tm_diag *diag)
{
    int rc;
    if (!t)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "append to no table");
    if ((rc = sim__h5w_check(t->w, diag)) != 0)
        return rc;
    for (size_t i = 0; i < t->ncols; i++) {
        if (t->cols[i].nput != t->nbuf) {
            t_drop_row(t);
            return sim__h5w_fail(t->w, diag, TM_ERR_INVAL, t->path,
                                 "append in the middle of a row");
        }
        if (nrows > 0 && (!cols || !cols[i]))
            return sim__h5w_fail(t->w, diag, TM_ERR_INVAL, t->path, "no data for column %s",
                                 t->cols[i].name);
    }
    /* Copy through the chunk buffers so every write stays one aligned chunk. */
    for (size_t done = 0; done < nrows;) {
        size_t k = SIM__H5_CHUNK_ROWS - t->nbuf;
        if (k > nrows - done)
            k = nrows - done;
        if (t_grow(t, t->nbuf + k) != 0)
            return sim__h5w_fail(t->w, diag, TM_ERR_NOMEM, t->path,
                                 "out of memory for the chunk buffers");
        for (size_t i = 0; i < t->ncols; i++) {
            h5col *c = &t->cols[i];
            size_t sz = t->esize[i];
            memcpy(c->buf + t->nbuf * sz, (const unsigned char *)cols[i] + done * sz, k * sz);
            c->nput += k;
        }
        t->nbuf += k;
        done += k;
        if (t->nbuf == SIM__H5_CHUNK_ROWS && (rc = t_ship(t, 0, diag)) != 0)
            return rc;
    }
    return 0;
}

uint64_t sim__h5t_rows(const sim__h5t *t)
{
    return t ? t->nshipped + t->nbuf : 0;
}
