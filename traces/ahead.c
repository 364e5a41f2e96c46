/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ahead.c — sources read ahead on a thread of their own (trace_ahead_open).
 *
 * A synthesized job costs about a third of what the engine spends on it in
 * an M/M/c run (two exponential draws and their log1p alone a fifth), and it
 * does not
 * depend on the simulation: a class's jobs are a function of its random
 * streams only. So a second core can make them while the first simulates.
 * One producer thread serves a group of sources (the lanes): it fills each
 * lane's blocks of jobs in turn, calling the lane's source exactly as the
 * consumer would have, in the same order, so the jobs, the end and any error
 * (with its diagnostic) reach the consumer as they would have without the
 * thread. The producer runs at most LANE_BLOCKS blocks ahead of the consumer
 * on each lane and sleeps when every lane is full.
 *
 * Each lane has a ring of LANE_BLOCKS blocks. A block is FREE, FILLING (the
 * producer's, outside the lock), or FULL (the consumer's from then on,
 * outside the lock, until it hands the block back). The mutex guards the
 * states and the group's flags; `work` wakes the producer, `ready` the
 * consumer. The consumer is one thread (the engine's), for all lanes.
 *
 * The last lane to close stops the producer (it finishes the block in hand),
 * joins it, and then closes the sources: a source is never called by two
 * threads, nor after its close. The producer blocks every signal, so SIGINT
 * reaches the simulation thread as before; a source that may wait in a read
 * (a pipe, a FIFO) would then wait on, deaf to the signal whose EINTR ends
 * such a read, so only sources that cannot wait long (synthesizers, regular
 * files) are read ahead.
 */
#include "trace.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Each lane has LANE_BLOCKS blocks of group.block_jobs jobs: 4,096 (450 KB)
 * for up to three lanes, fewer for more, 256 at least: 6 MB at most. A
 * block is handed over with a lock and perhaps a wake-up (some microseconds),
 * and the two cores' caches pass it along line by line: blocks of 256 jobs
 * cost an M/M/c run about 10 % more wall time than blocks of thousands. */
enum { LANE_BLOCKS = 3, BLOCK_JOBS_MAX = 4096, BLOCK_JOBS_MIN = 256, GROUP_JOBS = 12288 };
enum { B_FREE, B_FILLING, B_FULL };

typedef struct block {
    trace_job *jobs; /* block_jobs of them */
    uint32_t n;      /* jobs in it */
    int state;       /* B_FREE, B_FILLING, B_FULL */
    int end;         /* the source's status after the jobs: TM_OK = more follow */
    tm_diag diag;    /* the diagnostic with `end` when it is an error */
} block;

struct ahead_group;

/* The producer's fields and the consumer's are on cache lines of their own:
 * the consumer writes pos at every job, and a producer reading `in` from the
 * same line would pull it back and forth between the cores at every job
 * (measured: both threads twice as slow). */
typedef struct lane {
    _Alignas(64) struct ahead_group *g;
    trace_source in;
    block *blocks; /* LANE_BLOCKS */
    uint32_t fill; /* the block the producer fills next */
    int ended;     /* the producer has seen the source's end or error */
    int closed;    /* the consumer closed the lane */
    /* the consumer's alone: blocks[read] is its (owned) from when it finds
     * the block full to when it hands it back; it has read pos of its avail
     * jobs */
    _Alignas(64) const block *cur; /* blocks + read */
    uint32_t read, pos, avail;
    int owned;
} lane;

typedef struct ahead_group {
    lane *lanes;
    size_t n, open;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, ready;
    int quit;
    uint32_t block_jobs;
} ahead_group;

/* The next lane with a free block to fill, from lane `from` on; n if none. */
static size_t lane_to_fill(const ahead_group *g, size_t from)
{
    for (size_t k = 0; k < g->n; k++) {
        size_t i = (from + k) % g->n;
        const lane *l = &g->lanes[i];
        if (!l->ended && !l->closed && l->blocks[l->fill].state == B_FREE)
            return i;
    }
    return g->n;
}

static void *producer_main(void *arg)
{
    ahead_group *g = arg;
    size_t next = 0;
    pthread_mutex_lock(&g->mu);
    for (;;) {
        size_t i;
        while (!g->quit && (i = lane_to_fill(g, next)) == g->n)
            pthread_cond_wait(&g->work, &g->mu);
        if (g->quit)
            break;
        lane *l = &g->lanes[i];
        block *b = &l->blocks[l->fill];
        b->state = B_FILLING;
        pthread_mutex_unlock(&g->mu);
        uint32_t n = 0, cap = g->block_jobs;
        int rc = TM_OK;
        trace_source in = l->in;
        trace_job *jobs = b->jobs;
        tm_diag *diag = &b->diag;
        tm_diag_clear(diag);
        while (n < cap && (rc = in.next(in.ud, &jobs[n], diag)) == TM_OK)
            n++;
        pthread_mutex_lock(&g->mu);
        b->n = n;
        b->end = rc;
        b->state = B_FULL;
        l->ended = rc != TM_OK;
        l->fill = (l->fill + 1) % LANE_BLOCKS;
        next = (i + 1) % g->n; /* the lanes take turns */
        pthread_cond_signal(&g->ready);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

/* The consumer's side once its block is read through (or before the first):
 * hand the block back and wait for the next, or return the source's end. */
static int lane_refill(lane *l, trace_job *job, tm_diag *diag)
{
    ahead_group *g = l->g;
    pthread_mutex_lock(&g->mu);
    for (;;) {
        block *b = &l->blocks[l->read];
        if (l->owned) {
            if (b->end != TM_OK) {
                /* the source's end or error, repeated to every later call */
                int end = b->end;
                if (end != TRACE_END && diag)
                    *diag = b->diag;
                pthread_mutex_unlock(&g->mu);
                return end;
            }
            b->state = B_FREE;
            l->owned = 0;
            l->pos = l->avail = 0;
            l->read = (l->read + 1) % LANE_BLOCKS;
            pthread_cond_signal(&g->work);
            continue;
        }
        if (b->state != B_FULL) {
            pthread_cond_wait(&g->ready, &g->mu);
            continue;
        }
        l->owned = 1;
        l->cur = b;
        l->avail = b->n;
        if (l->avail) {
            *job = b->jobs[0];
            l->pos = 1;
            pthread_mutex_unlock(&g->mu);
            return TM_OK;
        }
    }
}

static int lane_next(void *ud, trace_job *job, tm_diag *diag)
{
    lane *l = ud;
    if (l->pos < l->avail) {
        *job = l->cur->jobs[l->pos++];
        return TM_OK;
    }
    return lane_refill(l, job, diag);
}

static void group_free(ahead_group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        if (g->lanes[i].in.close)
            g->lanes[i].in.close(g->lanes[i].in.ud);
        if (g->lanes[i].blocks)
            for (int k = 0; k < LANE_BLOCKS; k++)
                free(g->lanes[i].blocks[k].jobs);
        free(g->lanes[i].blocks);
    }
    free(g->lanes);
    free(g);
}

static void lane_close(void *ud)
{
    lane *l = ud;
    ahead_group *g = l->g;
    pthread_mutex_lock(&g->mu);
    l->closed = 1;
    int last = --g->open == 0;
    if (last) {
        g->quit = 1;
        pthread_cond_signal(&g->work);
    }
    pthread_mutex_unlock(&g->mu);
    if (!last)
        return;
    pthread_join(g->thread, NULL);
    pthread_cond_destroy(&g->ready);
    pthread_cond_destroy(&g->work);
    pthread_mutex_destroy(&g->mu);
    group_free(g);
}

int trace_ahead_open(trace_source *srcs, size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof(lane))
        return 0;
    ahead_group *g = calloc(1, sizeof *g);
    if (!g)
        return 0;
    g->lanes = aligned_alloc(64, n * sizeof *g->lanes);
    if (!g->lanes) {
        free(g);
        return 0;
    }
    memset(g->lanes, 0, n * sizeof *g->lanes);
    g->n = n;
    size_t per = GROUP_JOBS / n;
    g->block_jobs = per > BLOCK_JOBS_MAX   ? BLOCK_JOBS_MAX
                    : per < BLOCK_JOBS_MIN ? BLOCK_JOBS_MIN
                                           : (uint32_t)per;
    for (size_t i = 0; i < n; i++) {
        g->lanes[i].g = g;
        g->lanes[i].blocks = calloc(LANE_BLOCKS, sizeof(block));
        if (!g->lanes[i].blocks)
            goto undo;
        for (int k = 0; k < LANE_BLOCKS; k++)
            if (!(g->lanes[i].blocks[k].jobs = malloc(g->block_jobs * sizeof(trace_job))))
                goto undo;
    }
    if (pthread_mutex_init(&g->mu, NULL) != 0)
        goto undo;
    if (pthread_cond_init(&g->work, NULL) != 0)
        goto undo_mu;
    if (pthread_cond_init(&g->ready, NULL) != 0)
        goto undo_work;
    /* the lanes take the sources before the producer can call them */
    for (size_t i = 0; i < n; i++)
        g->lanes[i].in = srcs[i];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int started = pthread_create(&g->thread, NULL, producer_main, g) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!started) {
        for (size_t i = 0; i < n; i++)
            g->lanes[i].in = (trace_source){0};
        pthread_cond_destroy(&g->ready);
        goto undo_work;
    }
    g->open = n;
    for (size_t i = 0; i < n; i++)
        srcs[i] = (trace_source){.next = lane_next, .close = lane_close, .ud = &g->lanes[i]};
    return 1;
undo_work:
    pthread_cond_destroy(&g->work);
undo_mu:
    pthread_mutex_destroy(&g->mu);
undo:
    group_free(g);
    return 0;
}
