/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evq_int.h — the pending-event queue of the engine (internal to sim/).
 *
 * The engine schedules an event with sim__evq_push, runs them in order with
 * sim__evq_pop, and withdraws one it no longer wants (the completion of a job
 * that was preempted, the failure of a node that was drained) with
 * sim__evq_cancel. Order is (t_us, kind, seq): time first, then the kind,
 * whose numeric value is its priority at equal time (lower runs first), then
 * the insertion sequence. It is total, so a run is deterministic.
 *
 * The layout is here because the engine owns the storage (a member of its
 * struct); only evq.c reads or writes the fields, and evq.c explains them.
 */
#ifndef TARMAC_SIM_EVQ_INT_H
#define TARMAC_SIM_EVQ_INT_H

#include <stddef.h>
#include <stdint.h>

#ifndef __SIZEOF_INT128__
#error "evq.c needs unsigned __int128 (gcc or clang on a 64-bit target)"
#endif

/* A kind is 0..SIM__EVQ_KIND_MAX; its value is its priority at equal time. */
#define SIM__EVQ_KIND_MAX 255u
/* The most events that can be pending at once (2^25, about 33 million). */
#define SIM__EVQ_CAP_MAX (UINT32_C(1) << 25)
/* sim__evq_pop / sim__evq_peek: the queue is empty (not an error). */
#define SIM__EVQ_EMPTY 1
/* A handle that never names an event (generations of pending events are odd). */
#define SIM__EVQ_HANDLE_NONE UINT64_C(0)

/* An event as pushed, plus the sequence number the queue gave it. */
typedef struct sim__event {
    int64_t t_us;  /* when it happens, microseconds from the scenario's start */
    uint32_t kind; /* 0..SIM__EVQ_KIND_MAX; lower runs first at equal time */
    uint32_t a;    /* the engine's: object index */
    uint64_t b;    /* the engine's: extra */
    uint64_t seq;  /* insertion sequence: 0 for the queue's first push, then +1 per push */
} sim__event;

/* A realloc-shaped allocator: new_size 0 frees p (which may be NULL) and
 * returns NULL; otherwise it returns a block of new_size bytes, aligned as
 * malloc's are, holding the first min(old_size, new_size) bytes of p, or NULL
 * with p untouched. evq.c only ever passes p == NULL or new_size == 0. */
typedef void *(*sim__evq_alloc_fn)(void *ud, void *p, size_t old_size, size_t new_size);

__extension__ typedef unsigned __int128 sim__evq_key;

/* A slot: the payload and true sequence number of one pending event, and the
 * generation that makes handles to it checkable. */
typedef struct sim__evq_slot {
    uint64_t b;
    uint64_t seq;
    uint32_t a;
    uint32_t gen; /* odd while the slot holds a pending event */
} sim__evq_slot;

typedef struct sim__evq {
    sim__evq_key *heap;   /* heap[0] is the first event; heap[n..cap+3) are sentinels */
    sim__evq_slot *slots; /* payloads */
    uint32_t *slot_pos;   /* per slot: heap index while pending, next free slot when free */
    uint32_t n;           /* pending events */
    uint32_t cap;         /* heap entries and slots allocated */
    uint32_t slots_used;  /* slots ever handed out: [0, slots_used) are initialised */
    uint32_t free_head;   /* first free slot, or UINT32_MAX */
    uint32_t retired;     /* slots whose generation ran out; never reused */
    uint32_t rank_next;   /* the order rank the next push gets (see evq.c) */
    uint32_t rank_limit;  /* renumber the ranks when rank_next reaches this */
    uint32_t renumbers;   /* how many times they were renumbered (for tests) */
    uint64_t seq_next;    /* sequence number of the next push */
    void *mem;            /* the one allocation behind heap, slots and slot_pos */
    size_t mem_size;
    sim__evq_alloc_fn alloc;
    void *alloc_ud;
} sim__evq;

/* Set up an empty queue in caller storage with room for cap_hint events before
 * it first grows (0 picks a small default), using malloc/realloc/free. Returns
 * TM_OK, TM_ERR_NOMEM, or TM_ERR_LIMIT if cap_hint > SIM__EVQ_CAP_MAX. Whatever
 * it returns, sim__evq_fini(q) is then safe. */
int sim__evq_init(sim__evq *q, uint32_t cap_hint);
/* The same with allocator alloc(ud, ...) (NULL: malloc/realloc/free). */
int sim__evq_init_alloc(sim__evq *q, uint32_t cap_hint, sim__evq_alloc_fn alloc, void *ud);
/* Free the queue's memory, dropping pending events. Safe on a zeroed struct,
 * after a failed init, and twice. The queue must be initialised again before
 * any other use. */
void sim__evq_fini(sim__evq *q);

/* Schedule an event at t_us (any int64_t) of kind <= SIM__EVQ_KIND_MAX (else
 * TM_ERR_INVAL). If handle is not NULL it receives a handle for sim__evq_cancel
 * and sim__evq_get, good until the event is popped or cancelled. Allocates only
 * when the queue is full (capacity doubles, out of line). Returns TM_OK, or
 * TM_ERR_NOMEM / TM_ERR_LIMIT (SIM__EVQ_CAP_MAX events pending) leaving the
 * queue as it was. */
int sim__evq_push(sim__evq *q, int64_t t_us, uint32_t kind, uint32_t a, uint64_t b,
                  uint64_t *handle);
/* Remove the first event, copying it into *out (out may be NULL). Returns TM_OK,
 * or SIM__EVQ_EMPTY when no event is pending. Its handle goes stale. */
int sim__evq_pop(sim__evq *q, sim__event *out);
/* Copy the first event into *out (may be NULL) and leave it pending. Returns
 * TM_OK or SIM__EVQ_EMPTY. */
int sim__evq_peek(const sim__evq *q, sim__event *out);
/* Withdraw a pending event, O(log n). Returns TM_OK, or TM_ERR_STALE, queue
 * unchanged, if the handle names no pending event: its event was popped or
 * cancelled (even if the slot has since been reused), or it was never issued. */
int sim__evq_cancel(sim__evq *q, uint64_t handle);
/* Copy the pending event a handle names into *out (may be NULL). TM_OK, or
 * TM_ERR_STALE as for sim__evq_cancel. */
int sim__evq_get(const sim__evq *q, uint64_t handle, sim__event *out);
/* Pending events. */
size_t sim__evq_size(const sim__evq *q);

/* Verify every invariant of evq.c (heap order, positions, slots, free list,
 * sentinels, ranks): TM_OK or TM_ERR_INTERNAL. O(cap); for tests and asserts. */
int sim__evq_check(const sim__evq *q);

#endif
