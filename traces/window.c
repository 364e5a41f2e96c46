/* SPDX-License-Identifier: Apache-2.0 */
/*
 * window.c — a window of another source: jobs [first, first + count), their
 * submit times optionally shifted so the window starts at 0 (the SWF window
 * protocol: the machine starts empty at the first job's submit time). Skipping
 * the first jobs reads them (a stream has no index): O(first) per open.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

typedef struct window {
    trace_source in;
    uint64_t first, count, seen, handed;
    int shift, started;
    int64_t t0_us;
} window;

static int window_next(void *ud, trace_job *job, tm_diag *diag)
{
    window *w = ud;
    if (w->count && w->handed >= w->count)
        return TRACE_END;
    for (;;) {
        int rc = w->in.next(w->in.ud, job, diag);
        if (rc != TM_OK)
            return rc;
        if (w->seen++ < w->first)
            continue;
        if (!w->started) {
            w->started = 1;
            w->t0_us = w->shift ? job->submit_us : 0;
        }
        job->submit_us -= w->t0_us;
        if (job->deadline_us >= 0)
            job->deadline_us = job->deadline_us >= w->t0_us ? job->deadline_us - w->t0_us : 0;
        w->handed++;
        return TM_OK;
    }
}

static void window_close(void *ud)
{
    window *w = ud;
    if (!w)
        return;
    if (w->in.close)
        w->in.close(w->in.ud);
    free(w);
}

int trace_window_open(trace_source *src, trace_source in, uint64_t first, uint64_t count, int shift,
                      tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    window *w = calloc(1, sizeof *w);
    if (!w) {
        if (in.close)
            in.close(in.ud);
        return tm_diag_set(diag, TM_ERR_NOMEM, "window", "out of memory");
    }
    w->in = in;
    w->first = first;
    w->count = count;
    w->shift = shift;
    src->next = window_next;
    src->close = window_close;
    src->ud = w;
    return TM_OK;
}
