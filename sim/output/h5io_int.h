/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_int.h — writing and reading tarmac's HDF5 files (internal to sim/).
 *
 * sim/output/h5io*.c are the only files of the project that include hdf5.h
 * (h5io_priv.h says which piece does what); everything else goes through
 * these opaque handles. docs/hdf5-io.md describes the layout.
 *
 * Writer. sim__h5w_open creates "<final>.tmp.<pid>.<n>" next to the final
 * name; sim__h5w_commit flushes, fsyncs and renames it into place, so a file
 * under the final name is always complete. Paths are absolute HDF5 paths
 * ("/summary/wait_p99_us"); missing parent groups are created on the way.
 * Every numeric dataset and table column carries a `units` and a
 * `description` string attribute, and both are required: units follow
 * UDUNITS spelling ("s", "us", "W", "USD", "USD/h", "GPU", "1" for a
 * dimensionless ratio or a count).
 *
 * Errors are sticky: once a call on a writer fails, every later call on it
 * (its tables included) returns the same status and diag, and commit fails
 * too, so a forgotten check can never produce a file. After a failure, call
 * sim__h5w_abort (commit, when it fails, cleans up by itself).
 *
 * Tables. A table is a group whose members are one 1-D dataset per column,
 * all of the same length, chunked SIM__H5_CHUNK_ROWS rows at a time (a table
 * that ends inside its first chunk with at least one row: chunked by its own
 * length; an empty one keeps whole chunks), shuffled
 * and deflated. Rows are buffered one chunk per column; a full chunk is
 * compressed on the writer's worker thread while the next fills, and written
 * later by the calling thread (the only one that calls HDF5), so a table costs
 * at most SIM__H5_PIPE_SLOTS chunks per column, raw and compressed, however
 * long it grows. The file's bytes do not depend on the thread's timing.
 *
 * Threads. A writer, its tables and readers are used from one thread at a
 * time (as before), which is the thread that calls HDF5; the worker only
 * compresses. A failure on the worker is returned by the next call.
 *
 * Reader. Reads whole scalars, attributes and 1-D datasets into malloc'd
 * memory the caller frees with free().
 *
 * Status codes: TM_ERR_INVAL (misuse: bad path, missing units, wrong column
 * type, name already taken), TM_ERR_IO (a system call failed: no space,
 * read-only file system, missing directory; msg carries strerror), TM_ERR_HDF5
 * (any other HDF5 failure; msg carries HDF5's innermost message),
 * TM_ERR_NOTFOUND (reader: no such file, object or attribute), TM_ERR_NOMEM.
 * diag->where is "file:/object/path" (attributes "file:/object/path@name").
 */
#ifndef TARMAC_H5IO_INT_H
#define TARMAC_H5IO_INT_H

#include "status.h"

#include <stddef.h>
#include <stdint.h>

/* Rows per chunk of a table column (and of a large fixed array): 128 KiB of
 * doubles, inside HDF5's recommended 10 KiB .. 1 MiB. */
#define SIM__H5_CHUNK_ROWS 16384
/* gzip level of chunked datasets: 1, because on a million-job table level 4
 * costs a third more time for 2 % smaller files (bench/README.md). */
#define SIM__H5_DEFLATE_LEVEL 1

/* Chunk buffers a table may have in flight (filled, being compressed or
 * waiting to be written) besides the one being filled: SIM__H5_PIPE_SLOTS - 1.
 * Memory per open table is SIM__H5_PIPE_SLOTS x (raw + compressed) chunks of
 * every column: 3 x 2 x 86 B x 16384 = 8.5 MB for the 15-column jobs table. */
#define SIM__H5_PIPE_SLOTS 3

typedef struct sim__h5w sim__h5w; /* a file being written */
typedef struct sim__h5t sim__h5t; /* a table of a writer, appended row by row */
typedef struct sim__h5r sim__h5r; /* a file open for reading */

/* Element types. Stored little-endian: f64 IEEE double, i64/i32 signed, u8. */
typedef enum sim__h5_type {
    SIM__H5_F64 = 0,
    SIM__H5_I64,
    SIM__H5_I32,
    SIM__H5_U8,
    SIM__H5_STR,  /* reader only (sim__h5r_info) */
    SIM__H5_OTHER /* reader only: compound, enum, ... */
} sim__h5_type;

/* One column of a table. The strings are copied; none may be NULL. */
typedef struct sim__h5_col {
    const char *name;  /* a single link name: no '/', not "." or ".." */
    sim__h5_type type; /* F64, I64, I32 or U8 */
    const char *units;
    const char *description;
} sim__h5_col;

/* ------------------------------------------------------------------------- */
/* Writer                                                                     */

/* Create the temporary file for `final_path` (its directory must exist and be
 * writable). On success *w is the writer; on failure *w is NULL, nothing is
 * left on disk and diag says why (TM_ERR_IO with strerror for a missing or
 * read-only directory). The final name is not touched until commit. */
int sim__h5w_open(sim__h5w **w, const char *final_path, tm_diag *diag);

/* Flush every table, close, fsync the file, rename it to the final name
 * (replacing any file there) and fsync the directory. Always consumes w: on
 * failure the temporary file is removed, any older file under the final name
 * is left as it was, and diag says why. */
int sim__h5w_commit(sim__h5w *w, tm_diag *diag);

/* Close and remove the temporary file and free w and its tables. NULL is a
 * no-op. Never touches the final name. */
void sim__h5w_abort(sim__h5w *w);

/* Watch *stop (set by a SIGINT/SIGTERM handler; NULL: nothing to watch):
 * once it is nonzero, the next call on w or its tables fails with
 * TM_ERR_INTERRUPTED ("FILE: interrupted while writing; not written"), as
 * does commit up to the rename, so an interrupted file is never put in place. */
void sim__h5w_set_stop(sim__h5w *w, volatile int *stop);

/* How the chunks of tables are compressed and written. Every mode but NONE
 * stores chunks that decode to the same bytes (shuffle + deflate
 * SIM__H5_DEFLATE_LEVEL), which any reader decompresses through the
 * datasets' declared filters; WORKER and INLINE store the same bytes (deflate
 * strategy Z_RLE), FILTER HDF5's (the default strategy). */
typedef enum sim__h5_pipe {
    /* The default: full chunks are shuffled and deflated by a worker thread
     * of the writer (the calling thread helps when it would otherwise wait),
     * and written by the calling thread with HDF5's direct chunk write. */
    SIM__H5_PIPE_WORKER = 0,
    /* The same, with no thread: the calling thread compresses. The file is
     * byte-identical to WORKER's. */
    SIM__H5_PIPE_INLINE,
    /* HDF5's own filter pipeline in H5Dwrite, on the calling thread (the
     * writer before 0.2). Its deflate uses zlib's default strategy, so its
     * chunks are other bytes for the same values (and about twice the CPU).
     * For tests and benchmarks. */
    SIM__H5_PIPE_FILTER,
    /* No filters at all (the columns are chunked but not compressed). For
     * benchmarks. */
    SIM__H5_PIPE_NONE
} sim__h5_pipe;

/* Choose the table pipeline; before the first sim__h5t_create of w, or it is
 * an error (TM_ERR_INVAL, sticky). Result files keep the default. */
int sim__h5w_set_pipe(sim__h5w *w, sim__h5_pipe pipe, tm_diag *diag);

/* Benchmarks only: with on == 0, commit skips its two fsyncs (file and
 * folder), so a committed file is complete in the page cache but may be lost
 * or empty after a power failure or kernel crash. The default (1) is what
 * makes a commit durable; never turn it off for result files. */
void sim__h5w_set_sync(sim__h5w *w, int on);

/* Create the group at `path` and its parents; an existing group is fine. */
int sim__h5w_group(sim__h5w *w, const char *path, tm_diag *diag);

/* Scalar datasets. The name must be new. */
int sim__h5w_scalar_f64(sim__h5w *w, const char *path, double v, const char *units,
                        const char *description, tm_diag *diag);
int sim__h5w_scalar_i64(sim__h5w *w, const char *path, int64_t v, const char *units,
                        const char *description, tm_diag *diag);
/* A UTF-8 string (variable length, as h5py writes a str); no units. */
int sim__h5w_scalar_str(sim__h5w *w, const char *path, const char *v, const char *description,
                        tm_diag *diag);

/* 1-D datasets of n values written at once (n may be 0; v may then be NULL).
 * Above SIM__H5_CHUNK_ROWS values they are chunked and compressed like table
 * columns, below they are contiguous. */
int sim__h5w_array_f64(sim__h5w *w, const char *path, const double *v, size_t n, const char *units,
                       const char *description, tm_diag *diag);
int sim__h5w_array_i64(sim__h5w *w, const char *path, const int64_t *v, size_t n, const char *units,
                       const char *description, tm_diag *diag);

/* Attributes on an existing group or dataset ("/" is the root group). An
 * attribute of the same name is replaced. */
int sim__h5w_attr_str(sim__h5w *w, const char *obj_path, const char *name, const char *v,
                      tm_diag *diag);
int sim__h5w_attr_f64(sim__h5w *w, const char *obj_path, const char *name, double v, tm_diag *diag);
int sim__h5w_attr_i64(sim__h5w *w, const char *obj_path, const char *name, int64_t v,
                      tm_diag *diag);

/* The names of the codes of an integer column (or of any dataset): the
 * `labels` attribute (the names joined by newlines, as before; no length
 * limit) and a 1-D variable-length UTF-8 string dataset `<obj_path>_name`
 * with the names exactly (names may hold newlines there), marked as an HDF5
 * dimension scale: a coordinate for netCDF tools, not a member for
 * sim__h5r_list. */
int sim__h5w_labels(sim__h5w *w, const char *obj_path, const char *const *labels, size_t n,
                    tm_diag *diag);

/* A dimension for the fixed arrays of a group that is not a table: at
 * commit, the scale `name` of `group` (rows values: a copy of coord, with its
 * units, or none) is made as for a table (sim__h5t_dim), and attached to the
 * group's 1-D datasets named in members (NULL-terminated; NULL: every one
 * of rows values) that have no dimension scale yet. Dimensions are made in
 * the order they were declared, so declare a named-members one first. */
int sim__h5w_dim(sim__h5w *w, const char *group, const char *name, size_t rows, const char *coord,
                 const char *const *members, const char *description, tm_diag *diag);

/* A 1-D dataset of n variable-length UTF-8 strings (n may be 0), each
 * stored whole (no length limit; a string may hold newlines), with a
 * `long_name` and `description` and no units. sim__h5w_names marks it as
 * an HDF5 dimension scale named after its last path component: a string
 * coordinate for netCDF tools (as the `<column>_name` lists of
 * sim__h5w_labels), not a member for sim__h5r_list; sim__h5w_array_str
 * keeps it a plain dataset (attach it with sim__h5w_dim). */
int sim__h5w_names(sim__h5w *w, const char *path, const char *const *v, size_t n,
                   const char *description, tm_diag *diag);
int sim__h5w_array_str(sim__h5w *w, const char *path, const char *const *v, size_t n,
                       const char *description, tm_diag *diag);

/* The dimensions of an N-D dataset (a matrix): at commit, axis k of the
 * dataset at `path` is attached to the dimension scale dims[k] of the
 * dataset's own group, which must be there by then with as many values as
 * the axis (declared earlier with sim__h5w_dim, whose scales are made in
 * order first, or a list of sim__h5w_names or sim__h5w_labels). */
int sim__h5w_dim_axes(sim__h5w *w, const char *path, const char *const *dims, size_t rank,
                      tm_diag *diag);

/* Open a writer on an existing complete file instead of a new one, to add to
 * it (a sweep adds a point's parameters to the run report): src_path, a name
 * of the caller's that is not final_path, is renamed to a fresh temporary name
 * for final_path and opened read-write; then as for sim__h5w_open: commit
 * renames it to final_path, abort (or a failure here) removes it. So the
 * content never appears under final_path before it is complete, and src_path
 * is gone afterwards whatever happens. Objects already in the file cannot be
 * created again (names are taken); attributes can be replaced. */
int sim__h5w_open_edit(sim__h5w **w, const char *src_path, const char *final_path, tm_diag *diag);

/* A 2-D float64 dataset of rows x cols values, row-major (v[r * cols + c]),
 * written at once; chunked by whole rows and compressed above
 * SIM__H5_CHUNK_ROWS values, contiguous below. */
int sim__h5w_matrix_f64(sim__h5w *w, const char *path, const double *v, size_t rows, size_t cols,
                        const char *units, const char *description, tm_diag *diag);

/* An external link at `path` (new; parents on demand) to the object obj_path
 * ("/" for the root group) of the HDF5 file `file`. A relative `file` is
 * resolved by readers against the folder of the file holding the link (HDF5's
 * rule, after HDF5_EXT_PREFIX), so keep linked files next to it. The target
 * need not exist yet. */
int sim__h5w_external_link(sim__h5w *w, const char *path, const char *file, const char *obj_path,
                           tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */

/* Create the table group at `path` (new; parents on demand) with a
 * `description` and a `columns` attribute (the column names in order, an
 * array of strings), and one empty column dataset per entry of cols[0..ncols).
 * The writer owns the table: commit or abort closes it, or close it earlier
 * with sim__h5t_close. *t is NULL on failure. */
int sim__h5t_create(sim__h5t **t, sim__h5w *w, const char *path, const char *description,
                    const sim__h5_col *cols, size_t ncols, tm_diag *diag);

/* One row: put every column exactly once, in any order, then end the row.
 * A put of the wrong type, to a column out of range or twice in a row is
 * recorded and reported by row_end (and by commit); the row is dropped. */
void sim__h5t_put_f64(sim__h5t *t, size_t col, double v);
void sim__h5t_put_i64(sim__h5t *t, size_t col, int64_t v);
void sim__h5t_put_i32(sim__h5t *t, size_t col, int32_t v);
void sim__h5t_put_u8(sim__h5t *t, size_t col, uint8_t v);
/* End the row; writes a chunk when one is full. Fails if a column was not put. */
int sim__h5t_row_end(sim__h5t *t, tm_diag *diag);

/* Append nrows rows at once: cols[i] points at nrows values of column i's
 * type (double, int64_t, int32_t or uint8_t). Not in the middle of a row. */
int sim__h5t_append(sim__h5t *t, const void *const *cols, size_t nrows, tm_diag *diag);

/* The dimension of a table (docs/hdf5-io.md, "netCDF and xarray"): every
 * column is attached, at commit, to the HDF5 dimension scale `name` of the
 * table's group, so that netCDF-4 and xarray see the columns as variables
 * along a named dimension. Without this call the name is SIM__H5_DIM_DEFAULT.
 * The scale is the label list `name` of the group if sim__h5w_labels made
 * one (`<column>_name`, as many names as rows: the names are the
 * coordinate); else, with coord (a 1-D dataset of the file, complete at
 * commit, as long as the table), a copy of its values with its units; else a
 * dimension without values (no storage). name must not be a column's. */
#define SIM__H5_DIM_DEFAULT "row"
int sim__h5t_dim(sim__h5t *t, const char *name, const char *coord, const char *description,
                 tm_diag *diag);

/* Rows ended or appended so far. */
uint64_t sim__h5t_rows(const sim__h5t *t);

/* Write what is buffered, close the table and free it (t is invalid after,
 * even on failure). Optional: commit does it for tables still open. */
int sim__h5t_close(sim__h5t *t, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Reader                                                                     */

typedef enum sim__h5_order {
    SIM__H5_ORDER_NAME = 0, /* byte order of the names (strcmp) */
    SIM__H5_ORDER_CREATION  /* the order the writer created them (tarmac files track it) */
} sim__h5_order;

typedef enum sim__h5_kind { SIM__H5_GROUP = 0, SIM__H5_DATASET, SIM__H5_KIND_OTHER } sim__h5_kind;

typedef struct sim__h5_info {
    sim__h5_kind kind;
    /* datasets only: the narrowest of F64 (any float), I64 (i64, u32, u64),
     * I32 (i8, i16, i32, u16), U8, STR, OTHER that holds the stored type */
    sim__h5_type type;
    int rank;     /* 0 for a scalar */
    uint64_t len; /* number of elements (1 for a scalar) */
} sim__h5_info;

/* Open an existing file read-only. TM_ERR_NOTFOUND if it does not exist,
 * TM_ERR_HDF5 if it is not an HDF5 file. *r is NULL on failure. */
int sim__h5r_open(sim__h5r **r, const char *path, tm_diag *diag);
/* NULL is a no-op. */
void sim__h5r_close(sim__h5r *r);

/* 1 if a group or dataset exists at `path`, 0 otherwise (or for a bad path). */
int sim__h5r_exists(sim__h5r *r, const char *path);
/* What is at `path`. */
int sim__h5r_info(sim__h5r *r, const char *path, sim__h5_info *info, tm_diag *diag);

/* The member names of a group, in name or creation order, leaving out the
 * dimension-scale datasets the writer adds for netCDF (sim__h5t_dim,
 * sim__h5w_labels): a table lists its columns only. *names is one
 * malloc'd block (the pointer array followed by the strings): free(*names)
 * frees all of it. Never NULL on success, even for an empty group. */
int sim__h5r_list(sim__h5r *r, const char *group_path, sim__h5_order order, char ***names,
                  size_t *n, tm_diag *diag);

/* Scalars (or 1-D datasets of exactly one element). f64 reads any integer or
 * float type; i64 refuses floats (TM_ERR_INVAL). A string is malloc'd. */
int sim__h5r_scalar_f64(sim__h5r *r, const char *path, double *v, tm_diag *diag);
int sim__h5r_scalar_i64(sim__h5r *r, const char *path, int64_t *v, tm_diag *diag);
int sim__h5r_scalar_str(sim__h5r *r, const char *path, char **v, tm_diag *diag);

/* Attributes of a group or dataset; TM_ERR_NOTFOUND if absent. */
int sim__h5r_attr_str(sim__h5r *r, const char *obj_path, const char *name, char **v, tm_diag *diag);
int sim__h5r_attr_f64(sim__h5r *r, const char *obj_path, const char *name, double *v,
                      tm_diag *diag);
int sim__h5r_attr_i64(sim__h5r *r, const char *obj_path, const char *name, int64_t *v,
                      tm_diag *diag);

/* A whole scalar or 1-D numeric dataset (a table column, say) as *n values in
 * a malloc'd array, never NULL on success (even for n == 0). f64 converts any
 * integer or float type (integers beyond 2^53 round); i64 reads integer types
 * only (u64 beyond INT64_MAX clips). */
int sim__h5r_array_f64(sim__h5r *r, const char *path, double **v, size_t *n, tm_diag *diag);
int sim__h5r_array_i64(sim__h5r *r, const char *path, int64_t **v, size_t *n, tm_diag *diag);
/* A whole 2-D numeric dataset as *rows x *cols values, row-major, in a
 * malloc'd array, converted to double (a 0-D or 1-D one: *cols is 1). */
int sim__h5r_matrix_f64(sim__h5r *r, const char *path, double **v, size_t *rows, size_t *cols,
                        tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Checking                                                                   */

/* Files, groups, datasets, named types and attributes open in HDF5 right
 * now, over all files: 0 whenever no writer, table or reader is open. Tests
 * assert it to catch a leaked handle or a file that failed to close. */
long sim__h5_open_ids(void);

/* Test hook: the nth column chunk compressed from now on (a table's chunk
 * counts once per column; any writer, any thread) fails as if zlib ran out of
 * memory; 0 disarms it. The failure is TM_ERR_NOMEM, like a real one. */
void sim__h5_test_fail_compress(unsigned long nth);

/* The HDF5 library version ("1.10.8") into buf, for provenance. */
void sim__h5_version(char *buf, size_t n);

#endif
