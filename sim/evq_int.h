/*
 * evq_int.h — the pending-event queue of the engine (internal to sim/).
 *
 * The engine schedules an event with sim__evq_push, runs them in order with
 * sim__evq_pop, and withdraws one it no longer wants (a completion of a job
 * that was preempted, a failure of a node that was drained) with
 * sim__evq_cancel. Order is (t_us, kind, seq): time first, then the kind,
 * whose numeric value is its priority at equal time (lower runs first), then
 * the insertion sequence. It is total, so a run is deterministic.
 *
 * The layout is here because the engine owns the storage (a member of its
 * struct); only evq.c reads or writes the fields. evq.c explains the layout.
 */
#ifndef TARMAC_SIM_EVQ_INT_H
#define TARMAC_SIM_EVQ_INT_H

#include <stddef.h>
#include <stdint.h>

#ifndef __SIZEOF_INT128__
#error "evq needs a compiler with unsigned __int128 (gcc or clang on a 64-bit target)"
#endif

/* A kind is 0..SIM__EVQ_KIND_MAX; its value is its priority at equal time. */
#define SIM__EVQ_KIND_MAX 255u
/* Sequence numbers are 56 bits: 7e16 pushes, two decades at 1e8 pushes per second. */
#define SIM__EVQ_SEQ_MAX ((UINT64_C(1) << 56) - 1)
/* The most events that can be pending at once (slot numbers are 32 bits). */
#define SIM__EVQ_CAP_MAX (UINT32_C(1) << 31)
/* sim__evq_pop / sim__evq_peek: the queue is empty (not an error). */
#define SIM__EVQ_EMPTY 1
/* A handle that never names an event (live generations are odd; see evq.c). */
#define SIM__EVQ_HANDLE_NONE UINT64_C(0)

/* An event as pushed, plus the sequence number the queue gave it. */
typedef struct sim__event {
    int64_t t_us;  /* when it happens, microseconds from the scenario's start */
    uint32_t kind; /* 0..SIM__EVQ_KIND_MAX; lower runs first at equal time */
    uint32_t a;    /* the engine's: object index */
    uint64_t b;    /* the engine's: extra */
    uint64_t seq;  /* insertion sequence, 0 for the first push of the queue */
} sim__event;

/* A realloc-shaped allocator: new_size 0 frees p and returns NULL; otherwise it
 * returns a block of new_size bytes holding the first min(old, new) bytes of p,
 * or NULL (p untouched) on failure. */
typedef void *(*sim__evq_alloc_fn)(void *ud, void *p, size_t old_size, size_t new_size);

__extension__ typedef unsigned __int128 sim__evq_key;

/* The payload of a slot and the generation that makes handles to it checkable. */
typedef struct sim__evq_slot {
    uint64_t b;
    uint32_t a;
    uint32_t gen; /* odd while the slot holds a pending event */
} sim__evq_slot;

typedef struct sim__evq {
    sim__evq_key *heap;   /* heap[0] is the minimum; heap[n..cap+3) are sentinels */
    uint32_t *heap_slot;  /* heap_slot[i]: the slot of heap[i] */
    uint32_t *slot_pos;   /* per slot: heap index while pending, next free slot when free */
    sim__evq_slot *slots; /* per slot: payload and generation */
    uint32_t n;           /* pending events */
    uint32_t cap;         /* heap entries and slots allocated */
    uint32_t slots_used;  /* slots ever handed out: [0, slots_used) are initialised */
    uint32_t free_head;   /* first free slot, or UINT32_MAX */
    uint32_t retired;     /* slots whose generation ran out; never reused */
    uint64_t next_seq;    /* sequence number of the next push */
    void *heap_mem;       /* the allocation behind heap (heap is aligned inside it) */
    size_t heap_mem_size; /* its size, for the allocator */
    sim__evq_alloc_fn alloc;
    void *alloc_ud;
} sim__evq;

/* Set up an empty queue in caller storage with room for cap_hint events before
 * it first grows (0 picks a small default), allocating with malloc/realloc/free.
 * Returns TM_OK, TM_ERR_NOMEM, or TM_ERR_LIMIT if cap_hint > SIM__EVQ_CAP_MAX.
 * On failure *q is still safe to sim__evq_fini. */
int sim__evq_init(sim__evq *q, uint32_t cap_hint);
/* The same with the allocator alloc(ud, ...) (NULL: malloc/realloc/free). */
int sim__evq_init_alloc(sim__evq *q, uint32_t cap_hint, sim__evq_alloc_fn alloc, void *ud);
/* Free the queue's memory; pending events are dropped. Safe on a zeroed struct,
 * after a failed init and twice in a row. */
void sim__evq_fini(sim__evq *q);

/* Schedule an event. kind must be <= SIM__EVQ_KIND_MAX (else TM_ERR_INVAL). If
 * handle is not NULL it receives a handle for sim__evq_cancel/sim__evq_get, valid
 * until the event is popped or cancelled. Never allocates unless the queue is
 * full (capacity doubles). Returns TM_OK; TM_ERR_NOMEM or TM_ERR_LIMIT (too many
 * pending events, or the sequence numbers ran out) leave the queue as it was. */
int sim__evq_push(sim__evq *q, int64_t t_us, uint32_t kind, uint32_t a, uint64_t b,
                  uint64_t *handle);
/* Remove the first event into *out (out may be NULL to drop it). Returns TM_OK,
 * or SIM__EVQ_EMPTY when there is none. Its handle goes stale. */
int sim__evq_pop(sim__evq *q, sim__event *out);
/* Copy the first event into *out (may be NULL) without removing it. Returns TM_OK
 * or SIM__EVQ_EMPTY. */
int sim__evq_peek(const sim__evq *q, sim__event *out);
/* Withdraw a pending event, O(log n). Returns TM_OK, or TM_ERR_STALE if the handle
 * does not name a pending event (already popped or cancelled, or never issued);
 * the queue is then unchanged. */
int sim__evq_cancel(sim__evq *q, uint64_t handle);
/* Copy a pending event into *out (may be NULL). TM_OK or TM_ERR_STALE as above. */
int sim__evq_get(const sim__evq *q, uint64_t handle, sim__event *out);
/* Pending events. */
size_t sim__evq_size(const sim__evq *q);

/* Verify every invariant (heap order, heap_slot and slot_pos inverse of each
 * other, generations, sentinels, free list): TM_OK or TM_ERR_INTERNAL. O(cap);
 * for tests and asserts. */
int sim__evq_check(const sim__evq *q);

#endif
