/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io_pool.c — the compression worker of an HDF5 writer: HDF5's shuffle and
 * deflate filters, applied by us to whole table chunks, off the HDF5 thread.
 *
 * How it works. HDF5 (serial, not thread-safe) is only ever called by the
 * thread that calls the h5io API, the owner. Each writer has one worker
 * thread, started at the first full chunk, that does nothing but compress:
 * it takes slots (one chunk of every column of a table) from the writer's
 * queue, oldest first, applies the shuffle filter and zlib's deflate at
 * SIM__H5_DEFLATE_LEVEL with the Z_RLE strategy (slot_compress: a zlib
 * stream like HDF5's deflate filter writes, but found in half its time; noise
 * planes in stored blocks, a column equal to an earlier one given its
 * stream, a constant chunk's stream taken from a per-thread cache), and
 * marks them done. The owner writes a done slot with H5Dwrite_chunk (filter
 * mask 0; h5io_table.c), so readers decompress it through the datasets'
 * declared filters. When the slot the owner must write is not done, it
 * compresses queued slots itself while it waits (so two cores share the work
 * when the worker falls behind); with no thread (SIM__H5_PIPE_INLINE, or
 * pthread_create failed) it compresses everything, into the same bytes.
 *
 * The mutex guards the queue and the slots' states; a slot's buffers belong
 * to the owner when FREE or DONE, to no one when QUEUED and to its
 * compressor when BUSY; the tables' layout is fixed before any slot is
 * queued. A compression failure on the worker is posted to the pool (an
 * atomic flag + message) and the writer's sticky check, at the start of
 * every call, adopts it, so it surfaces on the owner's next call. Stopping
 * joins the worker after the chunk in hand and drops the queue. The worker
 * blocks all signals, so SIGINT and the SIGXFSZ of a write reach the owner.
 */
#include "output/h5io_priv.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* z initialised (by the caller's first call, *ok) or reset: what a fresh
 * deflateInit2 at SIM__H5_DEFLATE_LEVEL gives, without its allocation per
 * column. deflateReset keeps the level a deflateParams set (*ok == 2):
 * zlib 1.2.12 and later take it back with deflateParams before any input;
 * older ones, whose deflateParams would flush a stream not yet begun, get a
 * new stream. */
static int z_start(z_stream *z, int *ok)
{
    if (*ok && deflateReset(z) != Z_OK)
        return Z_STREAM_ERROR;
    if (*ok == 2) {
#if ZLIB_VERNUM >= 0x12c0
        if (deflateParams(z, SIM__H5_DEFLATE_LEVEL, SIM__H5_DEFLATE_STRATEGY) != Z_OK)
            return Z_STREAM_ERROR;
        *ok = 1;
#else
        deflateEnd(z);
        *ok = 0;
#endif
    }
    if (!*ok) {
        memset(z, 0, sizeof *z);
        int zr =
            deflateInit2(z, SIM__H5_DEFLATE_LEVEL, Z_DEFLATED, 15, 8, SIM__H5_DEFLATE_STRATEGY);
        if (zr != Z_OK)
            return zr;
        *ok = 1;
    }
    return Z_OK;
}

/* One zlib stream (zlib format, as H5Z_filter_deflate writes) of n bytes at
 * src into dst (cap bytes, at least compressBound(n)). */
static int z_chunk(z_stream *z, int *ok, unsigned char *dst, size_t cap, size_t *dst_n,
                   const unsigned char *src, size_t n)
{
    int zr = z_start(z, ok);
    if (zr != Z_OK)
        return zr;
    z->next_in = (unsigned char *)(uintptr_t)src; /* zlib 1.2 has no const input */
    z->avail_in = (uInt)n;
    z->next_out = dst;
    z->avail_out = (uInt)cap;
    zr = deflate(z, Z_FINISH);
    if (zr != Z_STREAM_END)
        return zr == Z_OK ? Z_BUF_ERROR : zr;
    *dst_n = (size_t)z->total_out;
    return Z_OK;
}

/* 1 if a shuffled byte plane of n bytes is noise to run-length deflate, so
 * that storing it costs at most a few percent more bytes than deflating it
 * and saves nearly all the work: the low mantissa bytes of times and
 * durations, the low byte of an id. Noise here: its bytes repeat their
 * neighbour less than 1/64 of the time (runs are all Z_RLE codes; random
 * bytes repeat 1/256 of the time) and the byte histogram is flat enough
 * that Huffman codes save under about 3 % (a collision probability, the
 * sum of the squared frequencies, within 10 % of a uniform one's: Rényi
 * entropy above 7.86 bits). Integer arithmetic only, so the choice, and
 * hence the file's bytes, is the same on every machine. A first look at
 * 256 bytes turns away the plainly repetitive planes cheaply. */
#define Z_NOISE_MIN 4096
static int plane_noise(const unsigned char *b, size_t n)
{
    if (n < Z_NOISE_MIN)
        return 0;
    size_t same = 0;
    for (size_t i = 1; i < 256; i++)
        same += b[i] == b[i - 1];
    if (same * 64 > 256)
        return 0;
    uint32_t h[256] = {0};
    same = 0;
    h[b[0]]++;
    for (size_t i = 1; i < n; i++) {
        h[b[i]]++;
        same += b[i] == b[i - 1];
    }
    if (same * 64 > n)
        return 0;
    uint64_t sq = 0;
    for (int v = 0; v < 256; v++)
        sq += (uint64_t)h[v] * h[v];
    /* sum h^2 / n^2 <= 1.1 / 256 */
    return (uint64_t)2560 * sq <= (uint64_t)11 * n * n;
}

/* Bytes a column's compressed chunk may take (t->z_off spacing): zlib's
 * bound for one call plus room for z_planes' block boundaries (a stored
 * block header and an end of block per switch; a plane switches twice). */
size_t sim__h5_zbound(size_t n, size_t es)
{
    return (size_t)compressBound((uLong)n) + 16 * es + 64;
}

/* As z_chunk, for the es byte planes (plane bytes each) of a shuffled chunk:
 * runs of noise planes (plane_noise) go in stored blocks (level 0), the rest
 * through SIM__H5_DEFLATE_LEVEL and SIM__H5_DEFLATE_STRATEGY, switched with
 * deflateParams in one stream. A chunk with no noise plane is z_chunk's
 * stream exactly. Any reader inflates either. */
static int z_planes(z_stream *z, int *ok, unsigned char *dst, size_t cap, size_t *dst_n,
                    const unsigned char *src, size_t plane, size_t es)
{
    int noise[8], any = 0;
    if (es > 8)
        return z_chunk(z, ok, dst, cap, dst_n, src, plane * es);
    for (size_t p = 0; p < es; p++)
        any |= noise[p] = plane_noise(src + p * plane, plane);
    if (!any)
        return z_chunk(z, ok, dst, cap, dst_n, src, plane * es);
    int zr = z_start(z, ok);
    if (zr != Z_OK)
        return zr;
    z->next_out = dst;
    z->avail_out = (uInt)cap;
    int level = SIM__H5_DEFLATE_LEVEL;
    for (size_t p = 0; p < es;) {
        size_t q = p + 1;
        while (q < es && noise[q] == noise[p])
            q++;
        int want = noise[p] ? 0 : SIM__H5_DEFLATE_LEVEL;
        if (want != level) {
            *ok = 2;
            if ((zr = deflateParams(z, want, SIM__H5_DEFLATE_STRATEGY)) != Z_OK)
                return zr;
            level = want;
        }
        z->next_in = (unsigned char *)(uintptr_t)(src + p * plane);
        z->avail_in = (uInt)((q - p) * plane);
        if ((zr = deflate(z, Z_NO_FLUSH)) != Z_OK || z->avail_in != 0)
            return zr == Z_OK ? Z_BUF_ERROR : zr;
        p = q;
    }
    zr = deflate(z, Z_FINISH);
    if (zr != Z_STREAM_END)
        return zr == Z_OK ? Z_BUF_ERROR : zr;
    *dst_n = (size_t)z->total_out;
    return Z_OK;
}

/* z_planes, or, should its block boundaries not fit in cap (they always
 * have), the plain stream, which fits in compressBound(n). Deterministic
 * either way. */
static int z_column(z_stream *z, int *ok, unsigned char *dst, size_t cap, size_t *dst_n,
                    const unsigned char *src, size_t plane, size_t es)
{
    int zr = z_planes(z, ok, dst, cap, dst_n, src, plane, es);
    if (zr == Z_BUF_ERROR)
        zr = z_chunk(z, ok, dst, cap, dst_n, src, plane * es);
    return zr;
}

/* Streams of constant chunks: a column chunk whose values are all the same
 * bytes (a class code, a GPU count, a NaN deadline, a zero loss: half the
 * columns of a typical jobs table) compresses to a few hundred bytes that
 * depend only on the value, its size and the chunk's length, yet deflating
 * it reads and checksums every byte. Each compressing thread keeps the last
 * ZC_N such streams and copies a match: a stream is a function of its
 * input, so the bytes are those compressing again would give, and which
 * thread had it cached never shows. */
#define ZC_N   16
#define ZC_MAX 1024 /* longer streams are not kept */
struct h5zconst {
    size_t es, n, zlen; /* zlen 0: an empty entry */
    unsigned char v[8], z[ZC_MAX];
};

/* The cached stream of a constant chunk (n bytes of es-byte values equal to
 * v), or NULL. */
static struct h5zconst *zc_find(h5pool *p, int who, const unsigned char *v, size_t es, size_t n)
{
    for (unsigned k = 0; p->zc[who] && k < ZC_N; k++) {
        struct h5zconst *c = &p->zc[who][k];
        if (c->zlen && c->es == es && c->n == n && !memcmp(c->v, v, es))
            return c;
    }
    return NULL;
}

/* Keep the stream z (zlen bytes) of a constant chunk, if it is short and
 * there is memory for the cache (else nothing: the cache only saves work). */
static void zc_keep(h5pool *p, int who, const unsigned char *v, size_t es, size_t n,
                    const unsigned char *z, size_t zlen)
{
    if (zlen == 0 || zlen > ZC_MAX ||
        (!p->zc[who] && !(p->zc[who] = calloc(ZC_N, sizeof *p->zc[who]))))
        return;
    struct h5zconst *c = &p->zc[who][p->zc_next[who]];
    p->zc_next[who] = (p->zc_next[who] + 1) % ZC_N;
    c->es = es;
    c->n = n;
    c->zlen = zlen;
    memcpy(c->v, v, es);
    memcpy(c->z, z, zlen);
}

/* Filter every column of a slot as the dataset's pipeline declares: shuffle
 * by the element size (a no-op for bytes), then one zlib stream at
 * SIM__H5_DEFLATE_LEVEL with SIM__H5_DEFLATE_STRATEGY (noise planes at level
 * 0: z_column) into a buffer of sim__h5_zbound bytes, or a copy of an
 * earlier column's stream or of a cached constant chunk's. Any reader's deflate filter (inflate)
 * decodes it; HDF5's own filter would have used the default strategy, so the bytes differ from
 * H5Dwrite's (SIM__H5_PIPE_FILTER) but the values do not. The last, partial chunk was zero-padded
 * to full size, as HDF5 pads it with the fill value. Reads the table's fixed layout only; returns
 * Z_OK or zlib's status. Runs on the worker (who = 1) or on the owner (0), never on both for one
 * slot. */
static int slot_compress(h5pool *p, int who, h5slot *s)
{
    const sim__h5t *t = s->t;
    unsigned char *scratch = p->scratch[who];
    for (size_t i = 0; i < t->ncols; i++) {
        size_t es = t->esize[i], n = t->chunk * es;
        const unsigned char *src = s->raw + t->raw_off[i];
        /* A column whose chunk holds the same bytes as an earlier column's
         * (the jobs table's id and trace_id, or run_s and the GPU-seconds
         * of one-GPU jobs) gets that column's stream: deflate is a
         * function of its input, so the bytes are the ones compressing it
         * again would give, without the work. Differing columns usually
         * part in their first bytes. */
        size_t j = 0;
        while (j < i && (t->esize[j] != es || memcmp(s->raw + t->raw_off[j], src, n) != 0))
            j++;
        if (j < i) {
            memcpy(s->z + t->z_off[i], s->z + t->z_off[j], s->zlen[j]);
            s->zlen[i] = s->zlen[j];
            continue;
        }
        /* every value the bytes of the first: the chunk equals itself
         * shifted by one value */
        const unsigned char *v = src;
        int constant = es <= 8 && n > es && memcmp(src, src + es, n - es) == 0;
        struct h5zconst *hit = constant ? zc_find(p, who, v, es, n) : NULL;
        if (es > 1 && !hit) {
            shuffle(scratch, src, t->chunk, es);
            src = scratch;
        }
        unsigned char *dst = s->z + t->z_off[i];
        size_t zn = 0, cap = sim__h5_zbound(n, es);
        int zr = Z_OK;
        if (zfail_now())
            zr = Z_MEM_ERROR;
        else if (hit)
            memcpy(dst, hit->z, zn = hit->zlen);
        else if ((zr = z_column(&p->zs[who], &p->zs_ok[who], dst, cap, &zn, src, t->chunk, es)) ==
                     Z_OK &&
                 constant)
            zc_keep(p, who, v, es, n, dst, zn);
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

int sim__h5pool_init(h5pool *p)
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
int sim__h5pool_scratch(h5pool *p)
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
void sim__h5pool_start(h5pool *p)
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
void sim__h5pool_stop(h5pool *p)
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

void sim__h5pool_fini(h5pool *p)
{
    sim__h5pool_stop(p);
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
        free(p->zc[i]);
        p->zc[i] = NULL;
    }
}

/* Owner: queue a filled slot for compression. */
void sim__h5pool_push(h5pool *p, h5slot *s)
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
void sim__h5pool_wait(h5pool *p, h5slot *s, int drop)
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
