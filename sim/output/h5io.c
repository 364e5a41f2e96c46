/*
 * h5io.c — the HDF5 writer and reader; the only file that includes hdf5.h.
 *
 * How it works. The writer creates "<final>.tmp.<pid>.<n>" itself with
 * O_EXCL (so the name is ours and a missing or read-only directory gives a
 * plain errno), then lets HDF5 truncate and fill it. Commit flushes, closes,
 * fsyncs the file, renames it over the final name and fsyncs the directory;
 * abort unlinks and closes. Nothing ever writes under the final name, so the
 * final name only ever holds a complete file.
 *
 * Closing must not fail: HDF5 before 1.14.1 frees a file whose H5Fclose failed
 * but keeps its ID, and crashes on it later. So commit flushes first (a full
 * disk fails there, with the file still open), and a file being discarded has
 * its descriptor swapped for shared memory before the close (divert_fd).
 *
 * Errors. HDF5's automatic printing is off. HDF5 clears its error stack at
 * the start of every API call, so each call is checked by H5CHK, which walks
 * the stack at once (before any cleanup call) and keeps the innermost
 * message, the API function and any "errno = N" a file driver wrote. A
 * failure with an errno becomes TM_ERR_IO with strerror; others TM_ERR_HDF5.
 * The writer records its first failure and returns it from every later call.
 *
 * Tables. A column is a 1-D dataset with an unlimited maximum length, chunked
 * SIM__H5_CHUNK_ROWS rows, shuffle + deflate. Rows go into a slot: one chunk
 * buffer per column. A table has SIM__H5_PIPE_SLOTS slots used as a ring:
 * when the filling one is full it is shipped (queued for compression) and
 * the next one fills; when all are in flight the oldest is retired (written)
 * first, so memory is bounded and a slow compressor holds the caller back.
 * The datasets get a chunk cache of zero bytes: HDF5 holds no second copy
 * and a full disk is reported by the write that hit it.
 *
 * Threads. HDF5 (serial, not thread-safe) is only ever called by the thread
 * that calls this API, the owner. Each writer has one worker thread, started
 * at the first full chunk, that does nothing but compress: it takes slots
 * from the writer's queue, oldest first, applies the shuffle filter and
 * zlib's deflate at SIM__H5_DEFLATE_LEVEL with the Z_RLE strategy
 * (slot_compress: a zlib stream like HDF5's deflate filter writes, but found
 * in half its time), and marks them done. The owner writes a done slot with
 * H5Dwrite_chunk (filter mask 0), so readers decompress it through the
 * datasets' declared filters. The owner retires chunk k when it ships chunk
 * k + SIM__H5_PIPE_SLOTS - 1, or when the table is finished: points fixed by
 * the calls, not by the worker's speed, so the HDF5 calls and hence the
 * file's bytes are the same on every run. When the slot to retire is not
 * done, the owner compresses queued slots itself while it waits (so two
 * cores share the work when the worker falls behind); with no thread
 * (SIM__H5_PIPE_INLINE, or pthread_create failed) it compresses everything,
 * into the same bytes. The mutex guards the queue and the slots' states; a
 * slot's buffers belong to the owner when FREE or DONE, to no one when
 * QUEUED and to its compressor when BUSY; the tables' layout is fixed before
 * any slot is queued. A compression failure on the worker is posted to the pool
 * (an atomic flag + message) and w_check, at the start of every call, makes
 * it the writer's sticky failure, so it surfaces on the owner's next call.
 * Commit retires every table, then joins the idle worker before flushing;
 * abort joins it first (it finishes the chunk in hand and drops the queue),
 * then frees the slots and discards the file (divert_fd). The worker blocks
 * all signals, so SIGINT and the SIGXFSZ of a write reach the owner.
 * SIM__H5_PIPE_FILTER keeps the old path (H5Dwrite through HDF5's filters,
 * one slot, default deflate strategy) as the reference the tests compare
 * decoded chunks and values with.
 *
 * Reproducibility. Object modification times are off (H5Pset_obj_track_times)
 * so that the same run writes the same bytes. Groups track link creation order
 * so that a reader can list columns and members in the order they were made.
 */
#define _GNU_SOURCE /* sync_file_range, where Linux has it */
#include "output/h5io_int.h"

#include <hdf5.h>

#include <zlib.h>

/* zlib strategy of table chunks: run-length matches only (Z_RLE). On the
 * shuffled columns of a million-job /jobs table it takes about half the CPU
 * of the default strategy at level 1 and gives a 1 % smaller file: the
 * shuffled byte planes are runs (exponents, high bytes, codes) or noise (low
 * mantissa bytes) with little for longer matches to find. The stream is
 * plain deflate, so every reader decodes it (bench/README.md "HDF5 output"). */
#define SIM__H5_DEFLATE_STRATEGY Z_RLE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* HDF5 error capture                                                         */

typedef struct h5err {
    int set;         /* a failure was captured */
    int sys_errno;   /* errno reported by a file driver, or 0 */
    char api[64];    /* outermost function: the API call that failed */
    char inner[256]; /* innermost description */
} h5err;

static herr_t err_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    h5err *x = data;
    if (n == 0)
        snprintf(x->inner, sizeof x->inner, "%s", e->desc ? e->desc : "");
    if (e->func_name)
        snprintf(x->api, sizeof x->api, "%s", e->func_name);
    if (!x->sys_errno && e->desc) {
        const char *p = strstr(e->desc, "errno = ");
        if (p)
            x->sys_errno = atoi(p + 8);
    }
    return 0;
}

/* Keep the first failure of an operation; call right after the failing call. */
static void h5err_capture(h5err *x)
{
    if (x->set)
        return;
    x->set = 1;
    x->sys_errno = 0;
    x->api[0] = x->inner[0] = '\0';
    /* Upward: the innermost (most specific) entry first, the API call last. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, err_walk, x);
    if (!x->inner[0])
        snprintf(x->inner, sizeof x->inner, "unknown HDF5 failure");
}

/* Check an HDF5 call (negative means failure), capture the error stack into
 * `e` before anything can clear it and jump to the function's cleanup. */
#define H5CHK(e, call)                                                                             \
    do {                                                                                           \
        if ((call) < 0) {                                                                          \
            h5err_capture(e);                                                                      \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Status and message of a captured failure. */
static int h5err_format(const h5err *x, char *msg, size_t cap)
{
    if (x->sys_errno > 0) {
        snprintf(msg, cap, "%s: %s", x->api[0] ? x->api : "HDF5", strerror(x->sys_errno));
        return TM_ERR_IO;
    }
    snprintf(msg, cap, "%s: %s", x->api[0] ? x->api : "HDF5", x->inner);
    return TM_ERR_HDF5;
}

/* Before the first HDF5 call of the process (this is the only file that makes
 * any): no library shutdown at exit, where a file whose close failed would
 * crash HDF5 < 1.14.1 (we close every file ourselves); no error printing. */
static void h5_init(void)
{
    static int done;
    if (!done) {
        H5dont_atexit();
        done = 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void close_id(hid_t id)
{
    if (id < 0)
        return;
    switch (H5Iget_type(id)) {
    case H5I_FILE:
        H5Fclose(id);
        break;
    case H5I_GROUP:
        H5Gclose(id);
        break;
    case H5I_DATASET:
        H5Dclose(id);
        break;
    case H5I_DATATYPE:
        H5Tclose(id);
        break;
    case H5I_DATASPACE:
        H5Sclose(id);
        break;
    case H5I_ATTR:
        H5Aclose(id);
        break;
    case H5I_GENPROP_LST:
        H5Pclose(id);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------------- */
/* Paths, names, types                                                        */

/* An absolute HDF5 path without empty, "." or ".." components; "/" only if
 * allow_root. */
static int path_ok(const char *p, int allow_root)
{
    if (!p || p[0] != '/')
        return 0;
    if (p[1] == '\0')
        return allow_root;
    const char *s = p + 1;
    for (;;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return 0;
        if (!e)
            return 1;
        s = e + 1;
    }
}

static int name_ok(const char *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* 1 if every link on `path` exists (and the object it names), 0 if not, -1 on
 * an HDF5 failure. A prefix that is a dataset makes the rest "not there". */
static int path_exists(hid_t file, const char *path, h5err *e)
{
    if (strcmp(path, "/") == 0)
        return 1;
    size_t len = strlen(path);
    char *buf = malloc(len + 1);
    int rc = -1;
    if (!buf) {
        *e = (h5err){.set = 1, .api = "malloc", .inner = "out of memory"};
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        htri_t ex = H5Lexists(file, buf, H5P_DEFAULT);
        buf[i] = c;
        if (ex < 0) {
            /* Fails when a prefix is not a group: then the path is not there. */
            rc = 0;
            goto out;
        }
        if (ex == 0) {
            rc = 0;
            goto out;
        }
    }
    htri_t ok = H5Oexists_by_name(file, path, H5P_DEFAULT);
    if (ok < 0) {
        h5err_capture(e);
        goto out;
    }
    rc = ok > 0;
out:
    free(buf);
    return rc;
}

static size_t type_size(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
    case SIM__H5_I64:
        return 8;
    case SIM__H5_I32:
        return 4;
    case SIM__H5_U8:
        return 1;
    default:
        return 0;
    }
}

static const char *type_name(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
        return "f64";
    case SIM__H5_I64:
        return "i64";
    case SIM__H5_I32:
        return "i32";
    case SIM__H5_U8:
        return "u8";
    case SIM__H5_STR:
        return "string";
    default:
        return "other";
    }
}

static hid_t type_mem(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
        return H5T_NATIVE_DOUBLE;
    case SIM__H5_I64:
        return H5T_NATIVE_INT64;
    case SIM__H5_I32:
        return H5T_NATIVE_INT32;
    default:
        return H5T_NATIVE_UINT8;
    }
}

static hid_t type_file(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
        return H5T_IEEE_F64LE;
    case SIM__H5_I64:
        return H5T_STD_I64LE;
    case SIM__H5_I32:
        return H5T_STD_I32LE;
    default:
        return H5T_STD_U8LE;
    }
}

/* ------------------------------------------------------------------------- */
/* Writer state                                                               */

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
    uint64_t row0;        /* first row: a multiple of SIM__H5_CHUNK_ROWS */
    size_t nrows;         /* rows it holds; < SIM__H5_CHUNK_ROWS only for the last */
    unsigned char *raw;   /* the column buffers, column i at t->raw_off[i] */
    unsigned char *z;     /* compressed chunks, column i at t->z_off[i] (piped tables) */
    size_t *zlen;         /* compressed bytes per column */
} h5slot;

typedef struct h5col {
    char *name;
    sim__h5_type type;
    hid_t dset;
    unsigned char *buf; /* the filling slot's buffer of this column: SIM__H5_CHUNK_ROWS values */
    size_t nput;        /* values in buf: nbuf, or nbuf + 1 once put in the open row */
} h5col;

struct sim__h5t {
    sim__h5w *w;
    sim__h5t *next;
    char *path;
    h5col *cols;
    size_t ncols;
    /* Layout, fixed at creation (so the compressing threads may read it). */
    size_t *esize;   /* bytes per value of each column */
    size_t *raw_off; /* offset of each column in a slot's raw block */
    size_t *z_off;   /* offset of each column in a slot's z block */
    size_t raw_bytes, z_bytes;
    int piped; /* chunks compressed by us and written directly (SIM__H5_PIPE_WORKER/INLINE) */
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
    int zs_ok[2];
} h5pool;

struct sim__h5w {
    hid_t file;
    hid_t str_type; /* variable-length UTF-8 string */
    hid_t gcpl;     /* groups: creation order tracked, no times */
    hid_t dcpl;     /* contiguous datasets: no times */
    hid_t dapl;     /* chunked datasets: no chunk cache */
    char *final_path;
    char *tmp_path;
    sim__h5t *tables;
    int ntables;       /* tables created so far (sim__h5w_set_pipe must come first) */
    sim__h5_pipe pipe; /* how table chunks are compressed */
    int sync;          /* fsync at commit; benchmarks may turn it off */
    size_t unsynced;   /* chunk bytes written since writeback was last started */
    int status;        /* the first failure; sticky */
    tm_diag err;
    h5pool pool;
};

static int w_fail(sim__h5w *w, tm_diag *diag, int status, const char *obj, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Record the writer's first failure (later ones are consequences) and hand it
 * to the caller. */
static int w_fail(sim__h5w *w, tm_diag *diag, int status, const char *obj, const char *fmt, ...)
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

static int w_fail_h5(sim__h5w *w, tm_diag *diag, const h5err *e, const char *obj)
{
    char msg[512];
    int st = h5err_format(e, msg, sizeof msg);
    return w_fail(w, diag, st, obj, "%s", msg);
}

/* Cold path of w_check: a compression failed on the worker; make it the
 * writer's failure, unless the writer had failed already. */
static void w_adopt_pool_failure(sim__h5w *w)
{
    h5pool *p = &w->pool;
    pthread_mutex_lock(&p->mu);
    w_fail(w, NULL, p->fail_status, p->fail_where, "%s", p->fail_msg);
    pthread_mutex_unlock(&p->mu);
}

/* The sticky status: nonzero means "fail now with the recorded error". A
 * failure the worker thread recorded since the last call becomes the
 * writer's here, so it surfaces on the next call of any kind. */
static int w_check(sim__h5w *w, tm_diag *diag)
{
    if (!w->status && atomic_load_explicit(&w->pool.failed, memory_order_acquire))
        w_adopt_pool_failure(w);
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
        return w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
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
                rc = w_fail(w, diag, TM_ERR_INVAL, buf, "exists and is not a group");
                goto out;
            }
        }
        close_id(o);
        o = H5I_INVALID_HID;
        buf[i] = c;
    }
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, buf);
    close_id(o);
    free(buf);
    return rc;
}

/* Common start of a call that creates an object at `path`: sticky status,
 * path syntax, the name free, the parents there. */
static int w_new_object(sim__h5w *w, const char *path, tm_diag *diag)
{
    h5err e = {0};
    int rc = w_check(w, diag);
    if (rc)
        return rc;
    if (!path_ok(path, 0))
        return w_fail(w, diag, TM_ERR_INVAL, path ? path : "(null)",
                      "not an absolute HDF5 path like /group/name");
    if ((rc = w_mkgroups(w, path, 0, diag)) != 0)
        return rc;
    htri_t ex = H5Lexists(w->file, path, H5P_DEFAULT);
    if (ex < 0) {
        h5err_capture(&e);
        return w_fail_h5(w, diag, &e, path);
    }
    if (ex > 0)
        return w_fail(w, diag, TM_ERR_INVAL, path, "already exists");
    return 0;
}

static int w_need_meta(sim__h5w *w, const char *path, const char *units, int need_units,
                       const char *description, tm_diag *diag)
{
    if (need_units && !units)
        return w_fail(w, diag, TM_ERR_INVAL, path,
                      "units are required (\"1\" for dimensionless values and counts)");
    if (!description)
        return w_fail(w, diag, TM_ERR_INVAL, path, "a description is required");
    return 0;
}

/* Create or replace attribute `name` of the open object `obj`. */
static int attr_put(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hid_t space,
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
    close_id(a);
    return -1;
}

static int attr_put_str(sim__h5w *w, hid_t obj, const char *name, const char *v, h5err *e)
{
    hid_t s = H5I_INVALID_HID;
    int rc = -1;
    H5CHK(e, s = H5Screate(H5S_SCALAR));
    rc = attr_put(obj, name, w->str_type, w->str_type, s, &v, e);
out:
    close_id(s);
    return rc;
}

/* The `units` (if not NULL) and `description` attributes of a dataset. */
static int put_meta(sim__h5w *w, hid_t obj, const char *units, const char *description, h5err *e)
{
    if (units && attr_put_str(w, obj, "units", units, e) < 0)
        return -1;
    return attr_put_str(w, obj, "description", description, e);
}

/* dcpl of a chunked 1-D dataset, shuffled and deflated if `filters`; the
 * caller closes it. slot_compress must stay in step with this pipeline. */
static hid_t chunked_dcpl(hsize_t chunk_rows, int filters, h5err *e)
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
    close_id(p);
    return H5I_INVALID_HID;
}

/* ------------------------------------------------------------------------- */
/* Compression: HDF5's shuffle and deflate filters, done by us                */

/* Test hook (sim__h5_test_fail_compress): the countdown to a failed chunk. */
static atomic_ulong zfail_countdown;

void sim__h5_test_fail_compress(unsigned long nth)
{
    atomic_store(&zfail_countdown, nth);
}

/* 1 if this compression is the one the test hook asked to fail. */
static int zfail_now(void)
{
    unsigned long n = atomic_load(&zfail_countdown);
    while (n > 0) {
        if (atomic_compare_exchange_weak(&zfail_countdown, &n, n - 1))
            return n == 1;
    }
    return 0;
}

/* HDF5's shuffle filter (H5Z_filter_shuffle): byte j of element i goes to
 * dst[j * n + i]. es is a constant where this is inlined, so the inner loop
 * unrolls. n * es bytes, no leftover (chunks hold whole elements). */
static inline void shuffle_es(unsigned char *restrict dst, const unsigned char *restrict src,
                              size_t n, size_t es)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < es; j++)
            dst[j * n + i] = src[i * es + j];
}

static void shuffle(unsigned char *restrict dst, const unsigned char *restrict src, size_t n,
                    size_t es)
{
    switch (es) {
    case 8:
        shuffle_es(dst, src, n, 8);
        break;
    case 4:
        shuffle_es(dst, src, n, 4);
        break;
    default:
        shuffle_es(dst, src, n, es);
        break;
    }
}

/* One zlib stream (zlib format, as H5Z_filter_deflate writes) of n bytes at
 * src into dst (compressBound(n) bytes), with z initialised by the caller's
 * first call (*ok) and reset after: the output is what a fresh
 * deflateInit2 would give, without its allocation per column. */
static int z_chunk(z_stream *z, int *ok, unsigned char *dst, size_t *dst_n,
                   const unsigned char *src, size_t n)
{
    if (!*ok) {
        memset(z, 0, sizeof *z);
        int zr =
            deflateInit2(z, SIM__H5_DEFLATE_LEVEL, Z_DEFLATED, 15, 8, SIM__H5_DEFLATE_STRATEGY);
        if (zr != Z_OK)
            return zr;
        *ok = 1;
    } else if (deflateReset(z) != Z_OK) {
        return Z_STREAM_ERROR;
    }
    z->next_in = (unsigned char *)(uintptr_t)src; /* zlib 1.2 has no const input */
    z->avail_in = (uInt)n;
    z->next_out = dst;
    z->avail_out = (uInt)compressBound((uLong)n);
    int zr = deflate(z, Z_FINISH);
    if (zr != Z_STREAM_END)
        return zr == Z_OK ? Z_BUF_ERROR : zr;
    *dst_n = (size_t)z->total_out;
    return Z_OK;
}

/* Filter every column of a slot as the dataset's pipeline declares: shuffle
 * by the element size (a no-op for bytes), then one zlib stream at
 * SIM__H5_DEFLATE_LEVEL with SIM__H5_DEFLATE_STRATEGY into a compressBound
 * buffer. Any reader's deflate filter (inflate) decodes it; HDF5's own filter
 * would have used the default strategy, so the bytes differ from H5Dwrite's
 * (SIM__H5_PIPE_FILTER) but the values do not. The last, partial chunk was
 * zero-padded to full size, as HDF5 pads it with the fill value. Reads the
 * table's fixed layout only; returns Z_OK or zlib's status. Runs on the
 * worker (who = 1) or on the owner (0), never on both for one slot. */
static int slot_compress(h5pool *p, int who, h5slot *s)
{
    const sim__h5t *t = s->t;
    unsigned char *scratch = p->scratch[who];
    for (size_t i = 0; i < t->ncols; i++) {
        size_t es = t->esize[i], n = SIM__H5_CHUNK_ROWS * es;
        const unsigned char *src = s->raw + t->raw_off[i];
        if (es > 1) {
            shuffle(scratch, src, SIM__H5_CHUNK_ROWS, es);
            src = scratch;
        }
        size_t zn = 0;
        int zr = zfail_now()
                     ? Z_MEM_ERROR
                     : z_chunk(&p->zs[who], &p->zs_ok[who], s->z + t->z_off[i], &zn, src, n);
        if (zr != Z_OK) {
            s->zcol = i;
            return zr;
        }
        s->zlen[i] = zn;
    }
    return Z_OK;
}

/* ------------------------------------------------------------------------- */
/* The worker pool                                                            */
/*
 * One worker thread per writer compresses queued slots, oldest first. It
 * never calls HDF5 and touches nothing but the slots it takes (and their
 * tables' fixed layout); the owner writes the chunks in its own time. The
 * owner, when it must wait for a slot, compresses queued ones itself, so it
 * is never idle while there is work, and with no thread it does it all.
 */

/* Called with mu held: a slot was compressed (status zr). */
static void slot_done(h5pool *p, h5slot *s, int zr)
{
    s->zrc = zr;
    s->state = SLOT_DONE;
    if (zr != Z_OK && !atomic_load_explicit(&p->failed, memory_order_relaxed)) {
        const sim__h5t *t = s->t;
        p->fail_status = zr == Z_MEM_ERROR ? TM_ERR_NOMEM : TM_ERR_INTERNAL;
        snprintf(p->fail_where, sizeof p->fail_where, "%s/%s", t->path, t->cols[s->zcol].name);
        snprintf(p->fail_msg, sizeof p->fail_msg,
                 "compressing rows %" PRIu64 "..%" PRIu64 ": zlib deflate: %s", s->row0,
                 s->row0 + s->nrows - 1, zr == Z_MEM_ERROR ? "out of memory" : zError(zr));
        atomic_store_explicit(&p->failed, 1, memory_order_release);
    }
    pthread_cond_broadcast(&p->done);
}

/* Called with mu held: take the oldest queued slot, or NULL. */
static h5slot *pool_pop(h5pool *p)
{
    h5slot *s = p->head;
    if (s) {
        p->head = s->qnext;
        if (!p->head)
            p->tail = NULL;
        s->qnext = NULL;
        s->state = SLOT_BUSY;
    }
    return s;
}

static void *pool_main(void *arg)
{
    h5pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && !p->head)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->quit)
            break; /* what is still queued is the owner's to drop */
        h5slot *s = pool_pop(p);
        pthread_mutex_unlock(&p->mu);
        int zr = slot_compress(p, 1, s);
        pthread_mutex_lock(&p->mu);
        slot_done(p, s, zr);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int pool_init(h5pool *p)
{
    memset(p, 0, sizeof *p);
    atomic_init(&p->failed, 0);
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&p->work, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        return -1;
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
        return -1;
    }
    p->inited = 1;
    return 0;
}

/* The shuffle buffers, on the first piped table. */
static int pool_scratch(h5pool *p)
{
    for (int i = 0; i < 2; i++)
        if (!p->scratch[i] && !(p->scratch[i] = malloc(SIM__H5_CHUNK_ROWS * sizeof(double))))
            return -1;
    return 0;
}

/* Start the worker if there is none yet. With all signals blocked in it, so
 * that signals (SIGINT, a SIGXFSZ of the owner's writes) go to the other
 * threads. If no thread can be had, the owner compresses everything: the
 * same bytes, only slower, so this is not an error. */
static void pool_start(h5pool *p)
{
    sigset_t all, old;
    if (p->running || p->no_thread)
        return;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    p->running = pthread_create(&p->thread, NULL, pool_main, p) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!p->running)
        p->no_thread = 1;
}

/* Stop and join the worker. It finishes the slot in its hands (one chunk of
 * one table: a millisecond or so) and leaves the rest of the queue. */
static void pool_stop(h5pool *p)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    p->running = 0;
    p->no_thread = 1; /* no restart: the writer is being finished */
    p->head = p->tail = NULL;
}

static void pool_fini(h5pool *p)
{
    pool_stop(p);
    if (p->inited) {
        pthread_cond_destroy(&p->done);
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
        p->inited = 0;
    }
    for (int i = 0; i < 2; i++) {
        free(p->scratch[i]);
        p->scratch[i] = NULL;
        if (p->zs_ok[i])
            deflateEnd(&p->zs[i]);
        p->zs_ok[i] = 0;
    }
}

/* Owner: queue a filled slot for compression. */
static void pool_push(h5pool *p, h5slot *s)
{
    pthread_mutex_lock(&p->mu);
    s->state = SLOT_QUEUED;
    s->qnext = NULL;
    if (p->tail)
        p->tail->qnext = s;
    else
        p->head = s;
    p->tail = s;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

/* Owner: unlink a queued slot that will not be written after all. */
static void pool_unqueue(h5pool *p, h5slot *s)
{
    h5slot **q = &p->head, *prev = NULL;
    for (; *q; prev = *q, q = &(*q)->qnext) {
        if (*q == s) {
            *q = s->qnext;
            if (p->tail == s)
                p->tail = prev;
            s->qnext = NULL;
            return;
        }
    }
}

/* Owner: wait until slot s is compressed, compressing queued slots (of any
 * table, oldest first) meanwhile. With `drop`, a slot still queued is taken
 * out instead and left uncompressed (the writer has failed). Afterwards no
 * thread touches s. */
static void slot_wait(h5pool *p, h5slot *s, int drop)
{
    pthread_mutex_lock(&p->mu);
    if (drop && s->state == SLOT_QUEUED) {
        pool_unqueue(p, s);
        s->state = SLOT_DONE;
        s->zrc = Z_OK;
    }
    while (s->state != SLOT_DONE) {
        h5slot *x = drop ? NULL : pool_pop(p);
        if (x) {
            pthread_mutex_unlock(&p->mu);
            int zr = slot_compress(p, 0, x);
            pthread_mutex_lock(&p->mu);
            slot_done(p, x, zr);
        } else {
            pthread_cond_wait(&p->done, &p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
}

/* ------------------------------------------------------------------------- */
/* Writer lifecycle                                                           */

static void w_close_handles(sim__h5w *w)
{
    close_id(w->str_type);
    close_id(w->gcpl);
    close_id(w->dcpl);
    close_id(w->dapl);
    w->str_type = w->gcpl = w->dcpl = w->dapl = H5I_INVALID_HID;
}

/* Free a table. No thread may hold one of its slots: it was drained, or the
 * worker was stopped. */
static void t_free(sim__h5t *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->cols && i < t->ncols; i++) {
        close_id(t->cols[i].dset);
        free(t->cols[i].name);
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
    pool_stop(&w->pool);
    while (w->tables) {
        sim__h5t *t = w->tables;
        w->tables = t->next;
        t_free(t);
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
    pool_fini(&w->pool);
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
        return tm_diag_set(diag, TM_ERR_INVAL, "", "no output file name");
    h5_init();

    w = calloc(1, sizeof *w);
    if (!w)
        return tm_diag_set(diag, TM_ERR_NOMEM, final_path, "out of memory");
    w->file = w->str_type = w->gcpl = w->dcpl = w->dapl = H5I_INVALID_HID;
    w->pipe = SIM__H5_PIPE_WORKER;
    w->sync = 1;
    if (pool_init(&w->pool) != 0) {
        free(w);
        return tm_diag_set(diag, TM_ERR_NOMEM, final_path, "cannot create a mutex");
    }
    size_t cap = strlen(final_path) + 48;
    w->final_path = malloc(strlen(final_path) + 1);
    char *tmp = malloc(cap);
    if (!w->final_path || !tmp) {
        free(tmp);
        rc = tm_diag_set(diag, TM_ERR_NOMEM, final_path, "out of memory");
        goto out;
    }
    strcpy(w->final_path, final_path);

    /* Claim a fresh temporary name: O_EXCL, so never someone else's file. */
    for (unsigned n = 0;; n++) {
        snprintf(tmp, cap, "%s.tmp.%ld.%u", final_path, (long)getpid(), n);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            close(fd);
            w->tmp_path = tmp;
            break;
        }
        if (errno != EEXIST || n == 1000) {
            rc = tm_diag_set(diag, TM_ERR_IO, final_path, "cannot create the temporary file %s: %s",
                             tmp, strerror(errno));
            free(tmp);
            goto out;
        }
    }
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
out:
    if (e.set) {
        char msg[512];
        rc =
            tm_diag_set(diag, h5err_format(&e, msg, sizeof msg), src ? src : final_path, "%s", msg);
    }
    close_id(fcpl);
    close_id(fapl);
    if (rc) {
        if (w->final_path) {
            w_discard(w);
        } else {
            pool_fini(&w->pool);
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
    if ((rc = w_check(w, diag)) != 0)
        return rc;
    if (pipe != SIM__H5_PIPE_WORKER && pipe != SIM__H5_PIPE_INLINE && pipe != SIM__H5_PIPE_FILTER &&
        pipe != SIM__H5_PIPE_NONE)
        return w_fail(w, diag, TM_ERR_INVAL, NULL, "unknown table pipeline %d", (int)pipe);
    if (w->ntables > 0)
        return w_fail(w, diag, TM_ERR_INVAL, NULL,
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

static int t_finish(sim__h5t *t, tm_diag *diag);

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

int sim__h5w_commit(sim__h5w *w, tm_diag *diag)
{
    h5err e = {0};
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "commit of no writer");
    if ((rc = w_check(w, diag)) != 0)
        goto out;
    while (w->tables) {
        sim__h5t *t = w->tables;
        if ((rc = t_finish(t, diag)) != 0)
            goto out;
    }
    pool_stop(&w->pool); /* idle: every table was drained */
    w_close_handles(w);
    /* Flush first: a full disk then fails here, and the file is still ours to
     * discard safely (see divert_fd). The close after it writes next to
     * nothing. If it fails all the same, the ID is no longer usable. */
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) {
        h5err_capture(&e);
        rc = w_fail_h5(w, diag, &e, NULL);
        goto out;
    }
    herr_t cr = H5Fclose(w->file);
    w->file = H5I_INVALID_HID;
    if (cr < 0) {
        h5err_capture(&e);
        rc = w_fail_h5(w, diag, &e, NULL);
        goto out;
    }
    if (w->sync && sync_path(w->tmp_path, 0) != 0) {
        rc = w_fail(w, diag, TM_ERR_IO, NULL, "cannot sync %s: %s", w->tmp_path, strerror(errno));
        goto out;
    }
    if (rename(w->tmp_path, w->final_path) != 0) {
        rc = w_fail(w, diag, TM_ERR_IO, NULL, "cannot rename %s to the final name: %s", w->tmp_path,
                    strerror(errno));
        goto out;
    }
    free(w->tmp_path);
    w->tmp_path = NULL; /* renamed: nothing to remove */

    /* Make the rename itself durable. The file is complete either way, so a
     * failure here is reported but the file stays. */
    char *dir = malloc(strlen(w->final_path) + 2);
    if (!dir) {
        rc = w_fail(w, diag, TM_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    strcpy(dir, w->final_path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (w->sync && sync_path(dir, 1) != 0 && errno != EINVAL && errno != ENOTSUP)
        rc = w_fail(w, diag, TM_ERR_IO, NULL, "written, but cannot sync the directory %s: %s", dir,
                    strerror(errno));
    free(dir);
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
    int rc = w_check(w, diag);
    if (rc)
        return rc;
    if (!path_ok(path, 1))
        return w_fail(w, diag, TM_ERR_INVAL, path ? path : "(null)",
                      "not an absolute HDF5 path like /group/name");
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
    if ((rc = w_new_object(w, path, diag)) != 0 ||
        (rc = w_need_meta(w, path, units, need_units, description, diag)) != 0)
        return rc;
    H5CHK(&e, s = H5Screate(H5S_SCALAR));
    H5CHK(&e, d = H5Dcreate2(w->file, path, ftype, s, H5P_DEFAULT, w->dcpl, H5P_DEFAULT));
    H5CHK(&e, H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5CHK(&e, put_meta(w, d, units, description, &e));
    H5CHK(&e, H5Dclose(d));
    d = H5I_INVALID_HID;
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, path);
    close_id(d);
    close_id(s);
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
    if (w && !w_check(w, NULL) && !v)
        return w_fail(w, diag, TM_ERR_INVAL, path, "NULL string");
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
    if ((rc = w_new_object(w, path, diag)) != 0 ||
        (rc = w_need_meta(w, path, units, 1, description, diag)) != 0)
        return rc;
    if (n > 0 && !v)
        return w_fail(w, diag, TM_ERR_INVAL, path, "NULL data for %zu values", n);
    H5CHK(&e, s = H5Screate_simple(1, &dims, NULL));
    if (n > SIM__H5_CHUNK_ROWS)
        H5CHK(&e, dcpl = chunked_dcpl(SIM__H5_CHUNK_ROWS, 1, &e));
    H5CHK(&e, d = H5Dcreate2(w->file, path, type_file(type), s, H5P_DEFAULT,
                             dcpl >= 0 ? dcpl : w->dcpl, w->dapl));
    if (n > 0)
        H5CHK(&e, H5Dwrite(d, type_mem(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5CHK(&e, put_meta(w, d, units, description, &e));
    H5CHK(&e, H5Dclose(d));
    d = H5I_INVALID_HID;
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, path);
    close_id(d);
    close_id(dcpl);
    close_id(s);
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
    if ((rc = w_check(w, diag)) != 0)
        return rc;
    snprintf(where, sizeof where, "%s@%s", obj_path ? obj_path : "(null)", name ? name : "(null)");
    if (!path_ok(obj_path, 1))
        return w_fail(w, diag, TM_ERR_INVAL, where, "not an absolute HDF5 path like /group/name");
    if (!name || !*name)
        return w_fail(w, diag, TM_ERR_INVAL, where, "an attribute needs a name");
    int ex = path_exists(w->file, obj_path, &e);
    if (ex < 0)
        goto out;
    if (ex == 0)
        return w_fail(w, diag, TM_ERR_INVAL, where,
                      "no such group or dataset (create it before its attributes)");
    H5CHK(&e, o = H5Oopen(w->file, obj_path, H5P_DEFAULT));
    H5CHK(&e, s = H5Screate(H5S_SCALAR));
    H5CHK(&e, attr_put(o, name, ftype, mtype, s, buf, &e));
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, where);
    close_id(s);
    close_id(o);
    return rc;
}

int sim__h5w_attr_str(sim__h5w *w, const char *obj_path, const char *name, const char *v,
                      tm_diag *diag)
{
    if (w && !w_check(w, NULL) && !v)
        return w_fail(w, diag, TM_ERR_INVAL, obj_path, "NULL string for attribute %s",
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
    if ((rc = w_new_object(w, path, diag)) != 0 ||
        (rc = w_need_meta(w, path, units, 1, description, diag)) != 0)
        return rc;
    if (rows * cols > 0 && !v)
        return w_fail(w, diag, TM_ERR_INVAL, path, "NULL data for %zu x %zu values", rows, cols);
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
        H5CHK(&e, H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5CHK(&e, put_meta(w, d, units, description, &e));
    H5CHK(&e, H5Dclose(d));
    d = H5I_INVALID_HID;
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, path);
    close_id(d);
    close_id(dcpl);
    close_id(s);
    return rc;
}

int sim__h5w_external_link(sim__h5w *w, const char *path, const char *file, const char *obj_path,
                           tm_diag *diag)
{
    h5err e = {0};
    int rc;
    if (!w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no writer");
    if ((rc = w_new_object(w, path, diag)) != 0)
        return rc;
    if (!file || !*file || !path_ok(obj_path, 1))
        return w_fail(w, diag, TM_ERR_INVAL, path,
                      "an external link needs a file name and an absolute object path");
    H5CHK(&e, H5Lcreate_external(file, obj_path, w->file, path, H5P_DEFAULT, H5P_DEFAULT));
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, path);
    return rc;
}

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
        H5CHK(&e,
              H5Dwrite(c->dset, type_mem(c->type), ms, fs, H5P_DEFAULT, s->raw + t->raw_off[i]));
        H5CHK(&e, H5Sclose(fs));
        fs = H5I_INVALID_HID;
    }
    if (t->w->sync && t->w->unsynced >= WRITEBACK_EVERY_BYTES)
        writeback_start(t->w);
out:
    if (e.set) {
        char where[600];
        col_where(t, i, where, sizeof where);
        rc = w_fail_h5(t->w, diag, &e, where);
    }
    close_id(fs);
    close_id(ms);
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
        slot_wait(&w->pool, s, w_check(w, NULL) != 0);
    /* After the wait, so that this slot's own failure is adopted. */
    if ((rc = w_check(w, diag)) == 0)
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

    if (t_grow(t, SIM__H5_CHUNK_ROWS) != 0 || slot_alloc(t, s) != 0 ||
        (!last && slot_alloc(t, &t->slot[next]) != 0)) {
        rc = w_fail(w, diag, TM_ERR_NOMEM, t->path, "out of memory for the chunk buffers");
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
        if (s->nrows < SIM__H5_CHUNK_ROWS) /* HDF5 pads a partial chunk with the fill value, 0 */
            for (size_t i = 0; i < t->ncols; i++)
                memset(s->raw + t->raw_off[i] + s->nrows * t->esize[i], 0,
                       (SIM__H5_CHUNK_ROWS - s->nrows) * t->esize[i]);
        /* A full chunk means more may follow: worth a thread. The last
         * chunk of a small table is compressed by the owner at once. */
        if (w->pipe == SIM__H5_PIPE_WORKER && s->nrows == SIM__H5_CHUNK_ROWS)
            pool_start(&w->pool);
        pool_push(&w->pool, s);
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
    int rc = w_check(t->w, diag);
    for (size_t i = 0; i < t->ncols && !rc; i++)
        if (t->cols[i].nput != t->nbuf)
            rc = w_fail(t->w, diag, TM_ERR_INVAL, t->path,
                        "row %" PRIu64 " was begun (column %s put) but not ended",
                        t->nshipped + t->nbuf, t->cols[i].name);
    if (!rc && t->nbuf > 0)
        rc = t_ship(t, 1, diag);
    int r = t_drain(t, diag); /* on failure, drops what is in flight */
    if (!rc)
        rc = r;
    for (size_t i = 0; i < t->ncols && !rc; i++) {
        h5col *c = &t->cols[i];
        if (H5Dclose(c->dset) < 0) {
            h5err e = {0};
            char where[600];
            h5err_capture(&e);
            col_where(t, i, where, sizeof where);
            rc = w_fail_h5(t->w, diag, &e, where);
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
        return w_fail(w, diag, TM_ERR_INVAL, path, "a table needs at least one column");
    /* O(ncols^2) for the duplicate check: tables have tens of columns. */
    for (size_t i = 0; i < ncols; i++) {
        const sim__h5_col *c = &cols[i];
        if (!name_ok(c->name))
            return w_fail(w, diag, TM_ERR_INVAL, path,
                          "column %zu: name \"%s\" is empty, has a '/' or is \".\" or \"..\"", i,
                          c->name ? c->name : "(null)");
        if (type_size(c->type) == 0)
            return w_fail(w, diag, TM_ERR_INVAL, path,
                          "column %s: type %d is not f64, i64, i32 or u8", c->name, (int)c->type);
        if (!c->units || !c->description)
            return w_fail(w, diag, TM_ERR_INVAL, path,
                          "column %s: units and description are required (units \"1\" when "
                          "dimensionless)",
                          c->name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(cols[j].name, c->name) == 0)
                return w_fail(w, diag, TM_ERR_INVAL, path, "column %s appears twice", c->name);
    }
    return 0;
}

int sim__h5t_create(sim__h5t **tp, sim__h5w *w, const char *path, const char *description,
                    const sim__h5_col *cols, size_t ncols, tm_diag *diag)
{
    h5err e = {0};
    hid_t g = H5I_INVALID_HID, s = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    const char **names = NULL;
    sim__h5t *t = NULL;
    char where[600];
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, n_names = ncols;
    size_t i = 0;
    int rc;

    if (!tp || !w)
        return tm_diag_set(diag, TM_ERR_INVAL, path, "no table or writer");
    *tp = NULL;
    snprintf(where, sizeof where, "%s", path ? path : "(null)");
    if ((rc = w_new_object(w, path, diag)) != 0 ||
        (rc = w_need_meta(w, path, "", 0, description, diag)) != 0 ||
        (rc = t_check_cols(w, path, cols, ncols, diag)) != 0)
        return rc;
    w->ntables++;

    t = calloc(1, sizeof *t);
    names = calloc(ncols, sizeof *names);
    if (!t || !names || !(t->path = malloc(strlen(path) + 1)) ||
        !(t->cols = calloc(ncols, sizeof *t->cols)) ||
        !(t->esize = calloc(3 * ncols, sizeof *t->esize))) {
        rc = w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
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
        t->esize[i] = type_size(cols[i].type);
        t->raw_off[i] = t->raw_bytes;
        t->z_off[i] = t->z_bytes;
        t->raw_bytes += SIM__H5_CHUNK_ROWS * t->esize[i];
        t->z_bytes += (size_t)compressBound((uLong)(SIM__H5_CHUNK_ROWS * t->esize[i]));
    }
    /* The first slot's buffer now, small (t_grow); the rest when the first
     * chunk is full. */
    if (t_grow(t, 1) != 0 || (t->piped && pool_scratch(&w->pool) != 0)) {
        rc = w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    for (i = 0; i < ncols; i++) {
        h5col *c = &t->cols[i];
        c->type = cols[i].type;
        c->name = malloc(strlen(cols[i].name) + 1);
        if (!c->name) {
            rc = w_fail(w, diag, TM_ERR_NOMEM, path, "out of memory");
            goto out;
        }
        strcpy(c->name, cols[i].name);
        names[i] = c->name;
    }

    H5CHK(&e, g = H5Gcreate2(w->file, path, H5P_DEFAULT, w->gcpl, H5P_DEFAULT));
    H5CHK(&e, attr_put_str(w, g, "description", description, &e));
    H5CHK(&e, s = H5Screate_simple(1, &n_names, NULL));
    H5CHK(&e, attr_put(g, "columns", w->str_type, w->str_type, s, names, &e));
    H5CHK(&e, H5Sclose(s));
    s = H5I_INVALID_HID;

    H5CHK(&e, dcpl = chunked_dcpl(SIM__H5_CHUNK_ROWS, w->pipe != SIM__H5_PIPE_NONE, &e));
    H5CHK(&e, s = H5Screate_simple(1, &zero, &unlimited));
    for (i = 0; i < ncols; i++) {
        h5col *c = &t->cols[i];
        snprintf(where, sizeof where, "%s/%s", path, c->name);
        H5CHK(&e,
              c->dset = H5Dcreate2(g, c->name, type_file(c->type), s, H5P_DEFAULT, dcpl, w->dapl));
        H5CHK(&e, put_meta(w, c->dset, cols[i].units, cols[i].description, &e));
    }
    t->next = w->tables;
    w->tables = t;
    *tp = t;
    t = NULL;
out:
    if (e.set)
        rc = w_fail_h5(w, diag, &e, where);
    t_free(t);
    free(names);
    close_id(dcpl);
    close_id(s);
    close_id(g);
    return rc;
}

/* Cold path of the puts: say what was wrong (once; the writer keeps the first
 * failure) and drop the row. */
static void t_misuse(sim__h5t *t, size_t col, sim__h5_type as)
{
    char where[600];
    if (!t || w_check(t->w, NULL))
        return;
    col_where(t, col, where, sizeof where);
    if (col >= t->ncols)
        w_fail(t->w, NULL, TM_ERR_INVAL, where,
               "row %" PRIu64 ": column index %zu out of range (the table has %zu columns)",
               t->nshipped + t->nbuf, col, t->ncols);
    else if (t->cols[col].type != as)
        w_fail(t->w, NULL, TM_ERR_INVAL, where, "row %" PRIu64 ": column is %s, put as %s",
               t->nshipped + t->nbuf, type_name(t->cols[col].type), type_name(as));
    else
        w_fail(t->w, NULL, TM_ERR_INVAL, where, "row %" PRIu64 ": column put twice in one row",
               t->nshipped + t->nbuf);
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
    if ((rc = w_check(t->w, diag)) != 0) {
        t_drop_row(t);
        return rc;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        if (t->cols[i].nput != t->nbuf + 1) {
            char where[600];
            col_where(t, i, where, sizeof where);
            t_drop_row(t);
            return w_fail(t->w, diag, TM_ERR_INVAL, where,
                          "row %" PRIu64 ": column not put before the end of the row",
                          t->nshipped + t->nbuf);
        }
    }
    if (++t->nbuf == SIM__H5_CHUNK_ROWS)
        return t_ship(t, 0, diag);
    if (t->nbuf == t->cap && t_grow(t, t->cap + 1) != 0)
        return w_fail(t->w, diag, TM_ERR_NOMEM, t->path, "out of memory for the chunk buffers");
    return 0;
}

int sim__h5t_append(sim__h5t *t, const void *const *cols, size_t nrows, tm_diag *diag)
{
    int rc;
    if (!t)
        return tm_diag_set(diag, TM_ERR_INVAL, "", "append to no table");
    if ((rc = w_check(t->w, diag)) != 0)
        return rc;
    for (size_t i = 0; i < t->ncols; i++) {
        if (t->cols[i].nput != t->nbuf) {
            t_drop_row(t);
            return w_fail(t->w, diag, TM_ERR_INVAL, t->path, "append in the middle of a row");
        }
        if (nrows > 0 && (!cols || !cols[i]))
            return w_fail(t->w, diag, TM_ERR_INVAL, t->path, "no data for column %s",
                          t->cols[i].name);
    }
    /* Copy through the chunk buffers so every write stays one aligned chunk. */
    for (size_t done = 0; done < nrows;) {
        size_t k = SIM__H5_CHUNK_ROWS - t->nbuf;
        if (k > nrows - done)
            k = nrows - done;
        if (t_grow(t, t->nbuf + k) != 0)
            return w_fail(t->w, diag, TM_ERR_NOMEM, t->path, "out of memory for the chunk buffers");
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

static int r_fail_h5(const sim__h5r *r, tm_diag *diag, const h5err *e, const char *obj)
{
    char msg[512];
    int st = h5err_format(e, msg, sizeof msg);
    return r_fail(r, diag, st, obj, "%s", msg);
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
        return tm_diag_set(diag, TM_ERR_INVAL, "", "no input file name");
    h5_init();
    if (stat(path, &st) != 0)
        return tm_diag_set(diag, errno == ENOENT ? TM_ERR_NOTFOUND : TM_ERR_IO, path, "%s",
                           strerror(errno));
    if (S_ISDIR(st.st_mode))
        return tm_diag_set(diag, TM_ERR_IO, path, "is a directory");
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0)
        return tm_diag_set(diag, TM_ERR_HDF5, path, "not an HDF5 file");
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
    if (!r || !path_ok(path, 1))
        return 0;
    return path_exists(r->file, path, &e) == 1;
}

/* Open the object at `path`: TM_ERR_NOTFOUND if it is not there, TM_ERR_INVAL
 * if it is not of `want` (H5I_BADID: any). */
static int r_open_obj(sim__h5r *r, const char *path, H5I_type_t want, hid_t *o, tm_diag *diag)
{
    h5err e = {0};
    *o = H5I_INVALID_HID;
    if (!path_ok(path, 1))
        return r_fail(r, diag, TM_ERR_INVAL, path ? path : "(null)",
                      "not an absolute HDF5 path like /group/name");
    int ex = path_exists(r->file, path, &e);
    if (ex < 0)
        return r_fail_h5(r, diag, &e, path);
    if (ex == 0)
        return r_fail(r, diag, TM_ERR_NOTFOUND, path, "no such %s",
                      want == H5I_GROUP     ? "group"
                      : want == H5I_DATASET ? "dataset"
                                            : "object");
    if ((*o = H5Oopen(r->file, path, H5P_DEFAULT)) < 0) {
        h5err_capture(&e);
        return r_fail_h5(r, diag, &e, path);
    }
    if (want != H5I_BADID && H5Iget_type(*o) != want) {
        close_id(*o);
        *o = H5I_INVALID_HID;
        return r_fail(r, diag, TM_ERR_INVAL, path, "is not a %s",
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
    close_id(s);
    close_id(t);
    close_id(o);
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
            rc = r_fail(r, diag, TM_ERR_INVAL, group_path,
                        "the group does not record creation order; list it by name");
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
    *names = block;
    *n = np;
    block = NULL;
out:
    if (e.set)
        rc = r_fail_h5(r, diag, &e, group_path);
    free(block);
    close_id(gcpl);
    close_id(g);
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
    snprintf(where, sizeof where, "%s%s%s", path ? path : "(null)", attr ? "@" : "",
             attr ? attr : "");
    if ((rc = r_open_obj(r, path, attr ? H5I_BADID : H5I_DATASET, &o, diag)) != 0)
        return rc;
    if (attr) {
        htri_t ex;
        H5CHK(&e, ex = H5Aexists(o, attr));
        if (!ex) {
            rc = r_fail(r, diag, TM_ERR_NOTFOUND, where, "no such attribute");
            goto out;
        }
        H5CHK(&e, a = H5Aopen(o, attr, H5P_DEFAULT));
        H5CHK(&e, t = H5Aget_type(a));
        H5CHK(&e, s = H5Aget_space(a));
    } else {
        H5CHK(&e, t = H5Dget_type(o));
        H5CHK(&e, s = H5Dget_space(o));
    }
    H5T_class_t cls = H5Tget_class(t);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        rc = r_fail(r, diag, TM_ERR_INVAL, where, "stored as %s, not a number",
                    type_name(classify(t)));
        goto out;
    }
    if (want_int && cls == H5T_FLOAT) {
        rc = r_fail(r, diag, TM_ERR_INVAL, where,
                    "stored as floating point; read it as f64, not as an integer");
        goto out;
    }
    int rank;
    hssize_t np;
    H5CHK(&e, rank = H5Sget_simple_extent_ndims(s));
    H5CHK(&e, np = H5Sget_simple_extent_npoints(s));
    if (rank > (cols ? 2 : 1)) {
        rc = r_fail(r, diag, TM_ERR_INVAL, where, "has %d dimensions; only 0 to %d are read", rank,
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
        rc = r_fail(r, diag, TM_ERR_INVAL, where, "has %lld values, want one", (long long)np);
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
    close_id(s);
    close_id(t);
    close_id(a);
    close_id(o);
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
    snprintf(where, sizeof where, "%s%s%s", path ? path : "(null)", attr ? "@" : "",
             attr ? attr : "");
    if ((rc = r_open_obj(r, path, attr ? H5I_BADID : H5I_DATASET, &o, diag)) != 0)
        return rc;
    if (attr) {
        htri_t ex;
        H5CHK(&e, ex = H5Aexists(o, attr));
        if (!ex) {
            rc = r_fail(r, diag, TM_ERR_NOTFOUND, where, "no such attribute");
            goto out;
        }
        H5CHK(&e, a = H5Aopen(o, attr, H5P_DEFAULT));
        H5CHK(&e, t = H5Aget_type(a));
        H5CHK(&e, s = H5Aget_space(a));
    } else {
        H5CHK(&e, t = H5Dget_type(o));
        H5CHK(&e, s = H5Dget_space(o));
    }
    if (H5Tget_class(t) != H5T_STRING) {
        rc = r_fail(r, diag, TM_ERR_INVAL, where, "stored as %s, not a string",
                    type_name(classify(t)));
        goto out;
    }
    hssize_t np;
    H5CHK(&e, np = H5Sget_simple_extent_npoints(s));
    if (np != 1) {
        rc = r_fail(r, diag, TM_ERR_INVAL, where, "has %lld strings, want one", (long long)np);
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
    close_id(mt);
    close_id(s);
    close_id(t);
    close_id(a);
    close_id(o);
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

/* ------------------------------------------------------------------------- */
/* Checking                                                                   */

long sim__h5_open_ids(void)
{
    h5_init();
    return (long)H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
}

void sim__h5_version(char *buf, size_t n)
{
    unsigned maj = 0, min = 0, rel = 0;
    if (H5get_libversion(&maj, &min, &rel) < 0)
        snprintf(buf, n, "unknown");
    else
        snprintf(buf, n, "%u.%u.%u", maj, min, rel);
}
