/* SPDX-License-Identifier: Apache-2.0 */
/*
 * work.c — N independent jobs on K worker processes (API: work_int.h).
 *
 * How it works. One anonymous shared mapping, made before the fork, holds a
 * header (the next job index, a stop flag, a "some job failed" flag), one slot
 * per job (state, status, diagnostic), the job results (out_size bytes each)
 * and one "current job" word per worker. A worker loops: take the next index
 * with an atomic fetch-add, mark its slot running, call fn, store the status
 * and the diagnostic, mark the slot done, write the index to a pipe. The
 * parent sleeps in poll() on the pipe (waking every 50 ms to reap workers
 * with waitpid(WNOHANG) and to look at the stop flag), calls `done` for each
 * index it reads, and when a worker dies with its current word still set,
 * records that job as failed and forks a replacement if jobs remain. At the
 * end it sweeps the slots once more, so a note lost with a dying worker
 * cannot lose a result.
 *
 * The atomics are C11 lock-free ones on shared memory (address-free on the
 * platforms tarmac builds on); a slot is published by its state store, which
 * the parent reads after the pipe note or the worker's exit.
 */
#include "studies/work_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

enum { JOB_PENDING = 0, JOB_RUNNING = 1, JOB_DONE = 2 };

typedef struct job_slot {
    atomic_int state;
    int rc;
    tm_diag diag;
} job_slot;

typedef struct shared_hdr {
    atomic_size_t next; /* the next job to hand out */
    atomic_int stop;    /* the parent stops the workers */
    atomic_int failed;  /* some job failed (for stop_on_error) */
} shared_hdr;

typedef struct pool {
    size_t n_jobs;
    sim__work_fn fn;
    void *ud;
    const sim__work_opts *o;
    void *map;
    size_t map_len;
    shared_hdr *sh;
    job_slot *slots;
    unsigned char *outs;
    atomic_long *current; /* per worker: the job it runs, or -1 */
    unsigned n_workers;
    pid_t *pids; /* 0: no process */
    pid_t parent;
    int pipe_r, pipe_w;
    unsigned char *reported; /* parent only: done() called */
    unsigned char *leaving;  /* parent only: per worker, it wrote its exit note */
} pool;

/* A worker's last note: EXIT_NOTE - w says worker w is about to _exit(0), so
 * the parent can wait for it at once instead of at its next 50 ms look
 * around (a pool of short jobs would otherwise end up to 50 ms late). */
#define EXIT_NOTE UINT64_MAX

unsigned sim__work_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (unsigned)n : 1u;
}

static int stop_requested(const pool *p)
{
    return p->o->stop_flag && *p->o->stop_flag;
}

static unsigned char *out_of(const pool *p, size_t k)
{
    return p->o->out_size ? p->outs + k * p->o->out_size : NULL;
}

/* len bytes of zeroed memory shared with the children forked later: a POSIX
 * shared-memory object, unlinked at once (MAP_ANONYMOUS is not POSIX 2008).
 * Pages are allocated when touched. NULL on failure. */
static void *shared_map(size_t len)
{
    for (unsigned n = 0; n < 100; n++) {
        char name[64];
        snprintf(name, sizeof name, "/tarmac-work-%ld-%u", (long)getpid(), n);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return NULL;
        shm_unlink(name);
        void *m = ftruncate(fd, (off_t)len) == 0
                      ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
        close(fd);
        return m == MAP_FAILED ? NULL : m;
    }
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* in this process                                                            */

static int run_inline(size_t n, sim__work_fn fn, void *ud, const sim__work_opts *o, void *out,
                      int *rcs, tm_diag *diags, tm_diag *diag)
{
    int first_rc = TM_OK, stopped = 0, failed = 0;
    unsigned char *scratch = NULL;
    if (o->out_size && !out && !(scratch = malloc(o->out_size)))
        return tm_diag_set(diag, TM_ERR_NOMEM, "workers", "out of memory");
    for (size_t k = 0; k < n; k++) {
        tm_diag d;
        tm_diag_clear(&d);
        int rc;
        unsigned char *ok = out ? (unsigned char *)out + k * o->out_size : scratch;
        if (ok)
            memset(ok, 0, o->out_size);
        if ((o->stop_flag && *o->stop_flag) || (o->stop_on_error && failed)) {
            rc = TM_ERR_INTERRUPTED;
            snprintf(d.msg, sizeof d.msg, "not run");
        } else {
            rc = fn(ud, k, ok, &d);
            if (o->done)
                o->done(ud, k, rc, &d, ok);
        }
        if (rc == TM_ERR_INTERRUPTED)
            stopped = 1;
        else if (rc != TM_OK && !failed) {
            failed = 1;
            first_rc = rc;
            if (diag)
                *diag = d;
        }
        if (rcs)
            rcs[k] = rc;
        if (diags)
            diags[k] = d;
    }
    free(scratch);
    if (stopped && o->stop_flag && *o->stop_flag)
        return tm_diag_set(diag, TM_ERR_INTERRUPTED, "workers", "interrupted");
    return first_rc;
}

/* ------------------------------------------------------------------------- */
/* worker processes                                                           */

static void worker_main(pool *p, unsigned w)
{
#ifdef __linux__
    /* stop when the parent dies, and do not start if it already has */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != p->parent)
        _exit(0);
#endif
    close(p->pipe_r);
    for (;;) {
        if (atomic_load(&p->sh->stop) || stop_requested(p) ||
            (p->o->stop_on_error && atomic_load(&p->sh->failed)))
            break;
        size_t k = atomic_fetch_add(&p->sh->next, 1);
        if (k >= p->n_jobs)
            break;
        atomic_store(&p->current[w], (long)k);
        job_slot *s = &p->slots[k];
        atomic_store(&s->state, JOB_RUNNING);
        tm_diag d;
        tm_diag_clear(&d);
        int rc = p->fn(p->ud, k, out_of(p, k), &d);
        s->rc = rc;
        s->diag = d;
        if (rc != TM_OK && rc != TM_ERR_INTERRUPTED)
            atomic_store(&p->sh->failed, 1);
        atomic_store(&s->state, JOB_DONE); /* publishes rc and diag */
        atomic_store(&p->current[w], -1L);
        uint64_t note = k;
        ssize_t wr;
        do
            wr = write(p->pipe_w, &note, sizeof note);
        while (wr < 0 && errno == EINTR);
        if (wr != (ssize_t)sizeof note || rc == TM_ERR_INTERRUPTED)
            break;
    }
    uint64_t note = EXIT_NOTE - w;
    ssize_t wr;
    do
        wr = write(p->pipe_w, &note, sizeof note);
    while (wr < 0 && errno == EINTR);
    _exit(0);
}

static int spawn(pool *p, unsigned w, tm_diag *diag)
{
    atomic_store(&p->current[w], -1L);
    p->leaving[w] = 0;
    fflush(NULL); /* no buffered output copied into the child */
    pid_t pid = fork();
    if (pid < 0)
        return tm_diag_set(diag, TM_ERR_SYSTEM, "workers", "cannot fork a worker process: %s",
                           strerror(errno));
    if (pid == 0)
        worker_main(p, w);
    p->pids[w] = pid;
    return TM_OK;
}

static void report(pool *p, size_t k)
{
    if (p->reported[k])
        return;
    p->reported[k] = 1;
    if (p->o->done)
        p->o->done(p->ud, k, p->slots[k].rc, &p->slots[k].diag, out_of(p, k));
}

static void drain_notes(pool *p)
{
    uint64_t notes[64];
    for (;;) {
        ssize_t r = read(p->pipe_r, notes, sizeof notes);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        /* writes of 8 bytes to a pipe are atomic: whole notes only */
        for (size_t i = 0; i < (size_t)r / sizeof notes[0]; i++) {
            if (notes[i] < p->n_jobs && atomic_load(&p->slots[notes[i]].state) == JOB_DONE)
                report(p, (size_t)notes[i]);
            else if (notes[i] > EXIT_NOTE - p->n_workers)
                p->leaving[EXIT_NOTE - notes[i]] = 1;
        }
    }
}

/* Worker w has exited with wait status st. If it was running a job, that job
 * failed (or was interrupted, when we stopped it). 1 when the exit was not
 * the normal end of a worker (exit status 0). */
static int worker_exited(pool *p, unsigned w, int st, int stopping)
{
    int abnormal = !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    long k = atomic_load(&p->current[w]);
    if (k < 0 || (size_t)k >= p->n_jobs)
        return abnormal;
    job_slot *s = &p->slots[k];
    if (atomic_load(&s->state) == JOB_DONE)
        return abnormal;
    tm_diag_clear(&s->diag);
    if (stopping) {
        s->rc = TM_ERR_INTERRUPTED;
        snprintf(s->diag.msg, sizeof s->diag.msg, "interrupted");
    } else {
        s->rc = TM_ERR_INTERNAL;
        snprintf(s->diag.where, sizeof s->diag.where, "worker %ld", (long)p->pids[w]);
        if (WIFSIGNALED(st)) {
            /* killed from outside (the kernel's OOM killer sends SIGKILL, an
             * operator may send anything): the system's doing, not a bug of
             * tarmac (71, EX_OSERR); a crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
             * SIGILL) is ours (70) */
            int sig = WTERMSIG(st);
            int crash = sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS || sig == SIGFPE ||
                        sig == SIGILL || sig == SIGSYS || sig == SIGTRAP;
            if (!crash)
                s->rc = TM_ERR_SYSTEM;
            snprintf(s->diag.msg, sizeof s->diag.msg,
                     "a worker was killed by signal %d (%s) while running job %ld%s", sig,
                     strsignal(sig), k, sig == SIGKILL ? "; out of memory?" : "");
        } else
            snprintf(s->diag.msg, sizeof s->diag.msg,
                     "the worker process exited with status %d while running job %ld",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1, k);
        atomic_store(&p->sh->failed, 1);
    }
    atomic_store(&s->state, JOB_DONE);
    report(p, (size_t)k);
    return 1;
}

static int run_forked(pool *p, tm_diag *diag)
{
    int rc = TM_OK, stopping = 0;
    unsigned alive = 0;
    for (unsigned w = 0; w < p->n_workers; w++) {
        if ((rc = spawn(p, w, diag)) != TM_OK)
            break;
        alive++;
    }
    if (rc != TM_OK) {
        /* stop the workers already started; report what they did */
        atomic_store(&p->sh->stop, 1);
        stopping = 1;
    }
    while (alive > 0) {
        struct pollfd pfd = {p->pipe_r, POLLIN, 0};
        poll(&pfd, 1, 50); /* EINTR (a signal) is a reason to look around, too */
        drain_notes(p);
        if (!stopping && stop_requested(p)) {
            stopping = 1;
            atomic_store(&p->sh->stop, 1);
            for (unsigned w = 0; w < p->n_workers; w++)
                if (p->pids[w] > 0)
                    kill(p->pids[w], SIGTERM);
        }
        for (unsigned w = 0; w < p->n_workers; w++) {
            if (p->pids[w] <= 0)
                continue;
            int st;
            /* a worker that wrote its exit note is gone or about to be */
            pid_t r = waitpid(p->pids[w], &st, p->leaving[w] ? 0 : WNOHANG);
            if (r < 0 && errno == EINTR)
                continue;
            if (r != p->pids[w])
                continue;
            drain_notes(p); /* its last notes, if it wrote them */
            p->leaving[w] = 0;
            int abnormal = worker_exited(p, w, st, stopping);
            p->pids[w] = 0;
            alive--;
            /* a worker that died leaves its share to a new one */
            int more = atomic_load(&p->sh->next) < p->n_jobs && !atomic_load(&p->sh->stop) &&
                       !(p->o->stop_on_error && atomic_load(&p->sh->failed));
            if (!stopping && more && abnormal && spawn(p, w, diag) == TM_OK)
                alive++;
        }
    }
    drain_notes(p);
    return rc;
}

int sim__work_run(size_t n_jobs, sim__work_fn fn, void *ud, const sim__work_opts *o, void *out,
                  int *rcs, tm_diag *diags, tm_diag *diag)
{
    tm_diag_clear(diag);
    unsigned workers = o->workers ? o->workers : sim__work_cores();
    if ((size_t)workers > n_jobs)
        workers = (unsigned)(n_jobs ? n_jobs : 1);
    if (workers <= 1 || n_jobs <= 1)
        return run_inline(n_jobs, fn, ud, o, out, rcs, diags, diag);

    pool p;
    memset(&p, 0, sizeof p);
    p.n_jobs = n_jobs;
    p.fn = fn;
    p.ud = ud;
    p.o = o;
    p.n_workers = workers;
    p.parent = getpid();
    p.pipe_r = p.pipe_w = -1;
    size_t off_slots = (sizeof(shared_hdr) + 63) / 64 * 64;
    size_t off_outs = off_slots + n_jobs * sizeof(job_slot);
    off_outs = (off_outs + 63) / 64 * 64;
    size_t off_cur = off_outs + n_jobs * o->out_size;
    off_cur = (off_cur + 63) / 64 * 64;
    p.map_len = off_cur + workers * sizeof(atomic_long);
    int rc = TM_OK;
    p.map = shared_map(p.map_len);
    p.pids = calloc(workers, sizeof *p.pids);
    p.reported = calloc(n_jobs, 1);
    p.leaving = calloc(workers, 1);
    int fds[2] = {-1, -1};
    if (p.map == MAP_FAILED || !p.pids || !p.reported || !p.leaving) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "workers", "out of memory for %zu jobs", n_jobs);
        goto out;
    }
    if (pipe(fds) != 0) {
        rc = tm_diag_set(diag, TM_ERR_SYSTEM, "workers", "cannot make a pipe: %s", strerror(errno));
        goto out;
    }
    p.pipe_r = fds[0];
    p.pipe_w = fds[1];
    fcntl(p.pipe_r, F_SETFL, fcntl(p.pipe_r, F_GETFL) | O_NONBLOCK);
    fcntl(p.pipe_r, F_SETFD, FD_CLOEXEC);
    fcntl(p.pipe_w, F_SETFD, FD_CLOEXEC);
    p.sh = p.map;
    p.slots = (job_slot *)((unsigned char *)p.map + off_slots);
    p.outs = (unsigned char *)p.map + off_outs;
    p.current = (atomic_long *)((unsigned char *)p.map + off_cur);
    atomic_init(&p.sh->next, 0);
    atomic_init(&p.sh->stop, 0);
    atomic_init(&p.sh->failed, 0);
    for (size_t k = 0; k < n_jobs; k++)
        atomic_init(&p.slots[k].state, JOB_PENDING);
    for (unsigned w = 0; w < workers; w++)
        atomic_init(&p.current[w], -1L);

    rc = run_forked(&p, diag);

    /* every slot: done ones reported (a note may have died with a worker);
     * the rest never ran */
    int first_rc = TM_OK, interrupted = 0;
    for (size_t k = 0; k < n_jobs; k++) {
        job_slot *s = &p.slots[k];
        int st = atomic_load(&s->state);
        if (st == JOB_DONE) {
            report(&p, k);
        } else {
            int stopped = stop_requested(&p) || atomic_load(&p.sh->stop) ||
                          (o->stop_on_error && atomic_load(&p.sh->failed));
            tm_diag_clear(&s->diag);
            if (!stopped && k < atomic_load(&p.sh->next)) {
                /* taken by a worker that died before it marked the job running */
                s->rc = TM_ERR_INTERNAL;
                snprintf(s->diag.msg, sizeof s->diag.msg,
                         "its worker process died before starting it");
                atomic_store(&s->state, JOB_DONE);
                report(&p, k);
            } else {
                s->rc = TM_ERR_INTERRUPTED;
                snprintf(s->diag.msg, sizeof s->diag.msg, "not run");
            }
        }
        if (s->rc == TM_ERR_INTERRUPTED)
            interrupted = 1;
        else if (s->rc != TM_OK && first_rc == TM_OK) {
            first_rc = s->rc;
            if (rc == TM_OK && diag)
                *diag = s->diag;
        }
        if (rcs)
            rcs[k] = s->rc;
        if (diags)
            diags[k] = s->diag;
        if (out && o->out_size)
            memcpy((unsigned char *)out + k * o->out_size, out_of(&p, k), o->out_size);
    }
    if (rc == TM_OK) {
        if (interrupted && stop_requested(&p))
            rc = tm_diag_set(diag, TM_ERR_INTERRUPTED, "workers", "interrupted");
        else
            rc = first_rc;
    }
out:
    if (p.pipe_r >= 0)
        close(p.pipe_r);
    if (p.pipe_w >= 0)
        close(p.pipe_w);
    if (p.map)
        munmap(p.map, p.map_len);
    free(p.pids);
    free(p.reported);
    free(p.leaving);
    return rc;
}
