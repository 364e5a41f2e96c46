/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_priv.h — the layouts and helpers the pieces of the HDF5 I/O share
 * (private to sim/output/h5io*.c; everything else uses output/h5io_int.h).
 *
 * The pieces: h5io.c (error capture, paths, types, library-wide queries),
 * h5io_write.c (the writer: open, commit, abort, groups, scalars, arrays,
 * attributes), h5io_table.c (tables, appended row by row), h5io_pool.c (the
 * compression worker of a writer) and h5io_read.c (the reader). Only these
 * files include hdf5.h.
 *
 * Functions here are shared across the pieces, hence sim__h5*_ names; the
 * types are the structs the pieces exchange, so they keep short names.
 */
#ifndef TARMAC_H5IO_PRIV_H
#define TARMAC_H5IO_PRIV_H

#include "output/h5io_int.h"

#include <hdf5.h>
#include <pthread.h>
#include <stdatomic.h>
#include <zlib.h>

/* zlib strategy of table chunks: run-length matches only (Z_RLE). On the
 * shuffled columns of a million-job /jobs table it takes about half the CPU
 * of the default strategy at level 1 and gives a 1 % smaller file: the
 * shuffled byte planes are runs (exponents, high bytes, codes) or noise (low
 * mantissa bytes) with little for longer matches to find. The stream is
 * plain deflate, so every reader decodes it (bench/README.md "HDF5 output"). */
#define SIM__H5_DEFLATE_STRATEGY Z_RLE

/* ------------------------------------------------------------------------- */
/* HDF5 error capture (h5io.c)                                                */

typedef struct h5err {
    int set;         /* a failure was captured */
    int sys_errno;   /* errno reported by a file driver, or 0 */
    char api[64];    /* outermost function: the API call that failed */
    char inner[256]; /* innermost description */
} h5err;

/* Check an HDF5 call (negative means failure), capture the error stack into
 * `e` before anything can clear it and jump to the function's cleanup. */
#define H5CHK(e, call)                                                                             \
    do {                                                                                           \
        if ((call) < 0) {                                                                          \
            sim__h5_err_capture(e);                                                                \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Where a slot (one chunk of every column of a table) is in the pipeline.
 * FREE and the owner's side of the rest change on the owner thread only;
 * QUEUED -> BUSY -> DONE change under the pool's mutex. */
enum { SLOT_FREE = 0, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

typedef struct h5slot {
    struct h5slot *qnext; /* next in the pool's queue (pool mutex) */
    sim__h5t *t;          /* its table: the compressor reads only the layout */
    int state;            /* SLOT_* (pool mutex once queued) */
    int zrc;              /* Z_OK, or zlib's failure (by whoever compressed it) */
    size_t zcol;          /* the column that failed */
    uint64_t row0;        /* first row: a multiple of its table's chunk */
    size_t nrows;         /* rows it holds; < its table's chunk only for the last */
    unsigned char *raw;   /* the column buffers, column i at t->raw_off[i] */
    unsigned char *z;     /* compressed chunks, column i at t->z_off[i] (piped tables) */
    size_t *zlen;         /* compressed bytes per column */
} h5slot;

/* The dimension of a table, made a dimension scale at commit (h5io_dims.c). */
typedef struct h5dim {
    struct h5dim *next;
    char *table;    /* the table's group */
    char *name;     /* the dimension: a member of the group */
    char *coord;    /* NULL, or the 1-D dataset whose values the scale copies */
    char *desc;     /* description of the scale dataset */
    int fixed_rows; /* rows given (sim__h5w_dim), or the finished table's; else found at commit */
    hsize_t rows;
    char **members; /* NULL-terminated names to attach, or NULL: every 1-D dataset */
    /* sim__h5w_dim_axes: `table` is then an N-D dataset and axes[k] the scale
     * of its group that axis k is attached to (rank names); else NULL */
    char **axes;
    size_t rank;
} h5dim;

typedef struct h5col {
    char *name;
    char *units, *desc; /* for the dataset, made when its table's chunk is known */
    sim__h5_type type;
    hid_t dset;         /* H5I_INVALID_HID until then (t->made) */
    unsigned char *buf; /* the filling slot's buffer of this column: SIM__H5_CHUNK_ROWS values */
    size_t nput;        /* values in buf: nbuf, or nbuf + 1 once put in the open row */
} h5col;

struct sim__h5t {
    sim__h5w *w;
    sim__h5t *next;
    char *path;
    h5dim *dim; /* its dimension (the writer's, outlives the table) */
    h5col *cols;
    size_t ncols;
    /* Layout, fixed at creation (so the compressing threads may read it). */
    size_t *esize;   /* bytes per value of each column */
    size_t *raw_off; /* offset of each column in a slot's raw block */
    size_t *z_off;   /* offset of each column in a slot's z block */
    size_t raw_bytes, z_bytes;
    int piped; /* chunks compressed by us and written directly (SIM__H5_PIPE_WORKER/INLINE) */
    /* Rows per chunk of the columns: SIM__H5_CHUNK_ROWS, or the table's
     * length when it ends inside its first chunk. Set (and the datasets
     * made, t->made) before the first slot is shipped, when the table is
     * finished empty, or when something else is put under its group. */
    size_t chunk;
    int made;
    /* Owner thread only. */
    size_t cap;        /* rows the filling buffer holds (t_grow); SIM__H5_CHUNK_ROWS once shipped */
    size_t nbuf;       /* complete rows in the filling slot, < SIM__H5_CHUNK_ROWS between calls */
    uint64_t nshipped; /* rows handed on: in the file or in a slot in flight */
    unsigned depth;    /* slots that may be in flight: SIM__H5_PIPE_SLOTS if piped, else 1 */
    unsigned head;     /* the oldest slot in flight */
    unsigned ninflight;
    h5slot slot[SIM__H5_PIPE_SLOTS]; /* used in a ring: head, head+1, ..., then the filling one */
};

/* The compression worker of a writer, and the queue of slots it works on. */
typedef struct h5pool {
    pthread_mutex_t mu;
    pthread_cond_t work;  /* to the worker: a slot was queued, or quit */
    pthread_cond_t done;  /* to the owner: a slot was compressed */
    h5slot *head, *tail;  /* queued slots, oldest first (mu) */
    int quit;             /* (mu) */
    atomic_int failed;    /* a compression failed: status and msg below (written under mu) */
    int fail_status;      /* (mu) */
    char fail_where[600]; /* (mu) */
    char fail_msg[256];   /* (mu) */
    /* Owner thread only. */
    int inited;    /* mu, work and done exist */
    int running;   /* the worker thread exists */
    int no_thread; /* never start one: SIM__H5_PIPE_INLINE, or pthread_create failed */
    pthread_t thread;
    /* [0] the owner's, [1] the worker's: */
    unsigned char *scratch[2]; /* shuffled chunk of one column */
    z_stream zs[2];            /* deflate state, reset per column (zs_ok once initialised) */
    int zs_ok[2];              /* 1 once initialised; 2: its level was switched (z_planes) */
    struct h5zconst *zc[2];    /* streams of constant chunks (slot_compress), lazily */
    unsigned zc_next[2];       /* the entry to replace next */
} h5pool;

typedef struct sim__h5t_ops sim__h5t_ops;

struct sim__h5w {
    hid_t file;
    hid_t str_type; /* variable-length UTF-8 string */
    hid_t gcpl;     /* groups: creation order tracked, no times */
    hid_t dcpl;     /* contiguous datasets: no times */
    hid_t dapl;     /* chunked datasets: no chunk cache */
    hid_t dxpl;     /* whole-dataset writes: a small type-conversion buffer */
    char *final_path;
    char *tmp_path;
    sim__h5t *tables;
    /* how to finish and free them: set by the table layer when it links its
     * first table in, so that the writer below calls up into the tables
     * through these pointers and never by name */
    const sim__h5t_ops *table_ops;
    h5dim *dims, **dims_tail; /* the tables' dimensions, in creation order */
    int ntables;              /* tables created so far (sim__h5w_set_pipe must come first) */
    sim__h5_pipe pipe;        /* how table chunks are compressed */
    int sync;                 /* fsync at commit; benchmarks may turn it off */
    size_t unsynced;          /* chunk bytes written since writeback was last started */
    int status;               /* the first failure; sticky */
    tm_diag err;
    h5pool pool;
    volatile int *stop; /* set by a signal handler: fail at the next call (may be NULL) */
};

/* ------------------------------------------------------------------------- */
/* h5io.c: errors, paths, types                                               */

/* Keep the first failure of an operation; call right after the failing call. */
void sim__h5_err_capture(h5err *x);
/* Status (TM_ERR_IO when a driver reported an errno, else TM_ERR_HDF5) and
 * message of a captured failure. */
int sim__h5_err_format(const h5err *x, char *msg, size_t cap);
/* Before the first HDF5 call of an open: no library shutdown at exit, no
 * error printing. */
void sim__h5_init(void);
/* Close any kind of HDF5 ID; negative IDs are ignored. */
void sim__h5_close_id(hid_t id);
/* An absolute HDF5 path without empty, "." or ".." components; "/" only if
 * allow_root. */
int sim__h5_path_ok(const char *p, int allow_root);
/* A single link name: not empty, no '/', not "." or "..". */
int sim__h5_name_ok(const char *s);
/* 1 if every link on `path` exists (and the object it names), 0 if not, -1 on
 * an HDF5 failure (captured into e). */
int sim__h5_path_exists(hid_t file, const char *path, h5err *e);
/* Bytes per value (0 for STR and OTHER), a name for messages, and the memory
 * and file (little-endian) HDF5 types of an element type. */
size_t sim__h5_type_size(sim__h5_type t);
const char *sim__h5_type_name(sim__h5_type t);
hid_t sim__h5_type_mem(sim__h5_type t);
hid_t sim__h5_type_file(sim__h5_type t);

/* ------------------------------------------------------------------------- */
/* h5io_write.c: the writer's failure and object helpers                      */

/* Record the writer's first failure (later ones are consequences), copy it
 * to diag (if not NULL) and return its status. obj names the object. */
int sim__h5w_fail(sim__h5w *w, tm_diag *diag, int status, const char *obj, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same for a captured HDF5 failure. */
int sim__h5w_fail_h5(sim__h5w *w, tm_diag *diag, const h5err *e, const char *obj);
/* The sticky status: nonzero means "fail now with the recorded error"; a
 * failure the worker posted since the last call is adopted here. */
int sim__h5w_check(sim__h5w *w, tm_diag *diag);
/* Common start of a call that creates an object at `path`: sticky status,
 * path syntax, the name free, the parents there. */
int sim__h5w_new_object(sim__h5w *w, const char *path, tm_diag *diag);
/* units (when need_units) and description present. */
int sim__h5w_need_meta(sim__h5w *w, const char *path, const char *units, int need_units,
                       const char *description, tm_diag *diag);
/* Create or replace attribute `name` of the open object `obj`; -1 with e set
 * on failure. */
int sim__h5_attr_put(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hid_t space,
                     const void *buf, h5err *e);
int sim__h5w_attr_put_str(sim__h5w *w, hid_t obj, const char *name, const char *v, h5err *e);
/* The `units` (if not NULL) and `description` attributes of a dataset. */
int sim__h5w_put_meta(sim__h5w *w, hid_t obj, const char *units, const char *description, h5err *e);
/* dcpl of a chunked 1-D dataset, shuffled and deflated if `filters`; the
 * caller closes it. h5io_pool.c's compression must stay in step with it. */
hid_t sim__h5_chunked_dcpl(hsize_t chunk_rows, int filters, h5err *e);

/* ------------------------------------------------------------------------- */
/* h5io_dims.c: dimension scales and CF attributes                            */

/* Register the dimension of a new table (default name SIM__H5_DIM_DEFAULT). */
int sim__h5dim_add(sim__h5w *w, sim__h5t *t, tm_diag *diag);
/* Commit: make every registered dimension a scale and attach the columns. */
int sim__h5dim_make(sim__h5w *w, tm_diag *diag);
/* Free the registered dimensions. */
void sim__h5dim_free(sim__h5w *w);
/* The `units` attribute CF tools accept for a tarmac unit: tokens that are
 * not UDUNITS ("GPU", "USD") become 1 ("GPU h" -> "h", "USD/h" -> "1/h").
 * Returns 1 if it differs from `units`. */
int sim__h5_cf_units(const char *units, char *out, size_t cap);

/* ------------------------------------------------------------------------- */
/* h5io_table.c: what the writer needs of its tables                          */

/* finish: flush, close and free the table (unlinked from its writer).
 * free: free a table; NULL is a no-op. No thread may hold one of its
 * slots: it was drained, or the worker was stopped.
 * touch: `path` is about to be created, opened or given an attribute: the
 * columns of a table whose group holds it are made now (full chunks), so
 * that they exist and keep their place in the group's creation order. */
struct sim__h5t_ops {
    int (*finish)(sim__h5t *t, tm_diag *diag);
    void (*free)(sim__h5t *t);
    int (*touch)(sim__h5w *w, const char *path, tm_diag *diag);
};

/* ------------------------------------------------------------------------- */
/* h5io_pool.c: the compression worker                                       */

/* Mutex and conditions; -1 if they cannot be had. */
int sim__h5pool_init(h5pool *p);
/* The shuffle buffers, on the first piped table; -1 when out of memory. */
int sim__h5pool_scratch(h5pool *p);
/* Start the worker if there is none yet (and one may be started). */
void sim__h5pool_start(h5pool *p);
/* Stop and join the worker; what is still queued is the owner's to drop. */
void sim__h5pool_stop(h5pool *p);
/* Stop, then free everything; safe after a failed init. */
void sim__h5pool_fini(h5pool *p);
/* Bytes a compressed chunk of n bytes of es-byte values may take. */
size_t sim__h5_zbound(size_t n, size_t es);
/* Owner: queue a filled slot for compression. */
void sim__h5pool_push(h5pool *p, h5slot *s);
/* Owner: wait until slot s is compressed, compressing queued slots
 * meanwhile; with `drop`, a slot still queued is taken out uncompressed. */
void sim__h5pool_wait(h5pool *p, h5slot *s, int drop);

#endif
