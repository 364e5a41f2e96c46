/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace.h — the public header of traces/: the job record every reader and the
 * synthesizer produce, the streaming source interface, and the samplers
 * (distributions and arrival processes) the synthesizer is built from.
 *
 * Jobs are streamed: a source hands out the next job in submit order and keeps
 * nothing of the jobs it handed out, so memory is constant in trace length.
 * Sampling uses GSL generators the caller owns (one stream per purpose; see
 * sim/model/rng.c for how they are seeded). Times inside the samplers are double
 * seconds; the job record carries int64 microseconds, rounded once.
 */
#ifndef TARMAC_TRACE_H
#define TARMAC_TRACE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "place.h"
#include "status.h"

/* "end of stream" from trace_source.next and trace_lines_next */
#define TRACE_END 1

/* ------------------------------------------------------------------------- */
/* The job record                                                             */

enum trace_job_flags {
    TRACE_JOB_CAN_SPAN = PLACE_JOB_CAN_SPAN,
    TRACE_JOB_PREEMPTIBLE = PLACE_JOB_PREEMPTIBLE,
};

/* One batch-like job as a trace or the synthesizer describes it. */
typedef struct trace_job {
    uint64_t id;          /* from the trace, else a sequence number from 1 */
    int64_t submit_us;    /* arrival, from the start of the trace/scenario */
    int64_t duration_us;  /* run time at reference speed 1 (>= 0) */
    int64_t estimate_us;  /* user's run-time estimate; -1 unknown */
    int64_t deadline_us;  /* absolute; -1 none */
    uint32_t gpus;        /* gang size; 0 = CPU-only */
    uint32_t gpu_milli;   /* per-GPU share (1..1000; 1000 = whole GPU) */
    uint32_t gpu_mem_mib; /* per GPU; 0 = no requirement */
    uint32_t flags;       /* trace_job_flags */
    int64_t cpu_milli;    /* host CPU for the whole job */
    int64_t host_mem_mib; /* host memory for the whole job */
    uint64_t type_mask;   /* allowed GPU types (catalog bits); 0 = any */
    uint32_t cls;         /* workload class index */
    uint32_t tenant;
    int32_t priority;
    int32_t status; /* trace's own status (SWF field 11); 0 when not given */
    double value;   /* value weight for goodput accounting (default 1) */
    /* relative speed per GPU type (the scenario's type indices), owned by the
     * source and valid for the run; NULL = the class's speeds */
    const double *speed;
} trace_job;

/* Fill a job with the defaults every reader starts from (milli 1000, no
 * estimate, no deadline, value 1, ...). */
void trace_job_defaults(trace_job *j);

/* A stream of jobs in non-decreasing submit order. next() returns TM_OK with
 * *job filled, TRACE_END at the end, or a TM_ERR_* with diag naming the file
 * and line. close() frees everything; it is safe on a source that failed. */
typedef struct trace_source {
    int (*next)(void *ud, trace_job *job, tm_diag *diag);
    void (*close)(void *ud);
    void *ud;
} trace_source;

/* ------------------------------------------------------------------------- */
/* Reading lines of plain or gzip-compressed text                             */

/* A line reader over a file that may be gzip-compressed (detected by its
 * magic bytes, not its name). Lines of any length; the trailing newline and
 * carriage return are removed. Keeps the line number for messages. */
typedef struct trace_lines trace_lines;

int trace_lines_open(trace_lines **tl, const char *path, tm_diag *diag);
/* TM_OK with *line (NUL-terminated, valid until the next call) and *len,
 * TRACE_END at the end of the file, or TM_ERR_IO / TM_ERR_TRACE (corrupt gzip,
 * a NUL byte, a line longer than max_line bytes) with diag at path:line. */
int trace_lines_next(trace_lines *tl, char **line, size_t *len, tm_diag *diag);
/* Line number of the line last returned (from 1). */
uint64_t trace_lines_number(const trace_lines *tl);
const char *trace_lines_path(const trace_lines *tl);
void trace_lines_close(trace_lines *tl);
/* Longest line accepted (bytes); longer ones are an error, not a hang. */
#define TRACE_MAX_LINE (16u << 20)

/* The zlib version in use, for provenance. */
const char *trace_zlib_version(void);

/* ------------------------------------------------------------------------- */
/* Labels: names read from traces (label.c, docs/traces.md "Labels")          */

/* The longest safe label, in bytes: a name of the model (scenarios/SCHEMA.md,
 * "names": at most 63 bytes). */
#define TRACE_LABEL_MAX 63

/* Write into out (TRACE_LABEL_MAX + 1 bytes) the safe form of the label
 * raw[0..len) (any bytes, NUL included): control characters (C0, DEL, C1)
 * and '/' become '_', bytes that are not valid UTF-8 '?', "" becomes "-",
 * "." and ".." become "_." and "_..", and the result is cut to
 * TRACE_LABEL_MAX bytes at a character boundary. The result follows the
 * scenario name rule. Returns 1 when the label was changed, 0 when it was
 * safe already (out holds the same bytes). */
int trace_label_safe(char *out, const char *raw, size_t len);

/* ------------------------------------------------------------------------- */
/* Distributions                                                              */

typedef enum trace_dist_kind {
    TRACE_DIST_CONSTANT = 0, /* p[0] = value */
    TRACE_DIST_EXPONENTIAL,  /* p[0] = mean */
    TRACE_DIST_LOGNORMAL,    /* p[0] = mu, p[1] = sigma of log(x) */
    TRACE_DIST_WEIBULL,      /* p[0] = scale lambda, p[1] = shape k */
    TRACE_DIST_PARETO,       /* p[0] = scale x_m (minimum), p[1] = shape alpha */
    TRACE_DIST_UNIFORM,      /* p[0] = low, p[1] = high */
    TRACE_DIST_DISCRETE,     /* values[i] with probability weights[i] / sum */
    TRACE_DIST_EMPIRICAL,    /* one of values[0..n) uniformly (a trace column) */
} trace_dist_kind;

/* A distribution of a non-negative quantity (a duration in seconds, a GPU
 * count, ...). Samples are clamped to [min, max] (defaults 0 and +inf; see
 * trace_dist_set_clamp). The struct owns values/weights and its GSL lookup
 * table; trace_dist_fini frees them. Every init zeroes the struct first and
 * leaves it zeroed on failure, so trace_dist_fini is always safe. */
typedef struct trace_dist {
    trace_dist_kind kind;
    double p[2];
    double min, max;
    size_t n;
    double *values;            /* DISCRETE: as given; EMPIRICAL: sorted ascending */
    double *weights;           /* DISCRETE: normalised to probabilities (sum 1) */
    gsl_ran_discrete_t *table; /* DISCRETE: Walker alias table */
    double mean;               /* set by init: what trace_dist_mean returns */
} trace_dist;

/* Parametric distributions (constant, exponential, lognormal, Weibull, Pareto,
 * uniform); parameters must be finite and describe a non-negative quantity:
 * constant >= 0, exponential mean > 0, lognormal sigma >= 0, Weibull and
 * Pareto scale and shape > 0, uniform 0 <= low <= high. DISCRETE and
 * EMPIRICAL have their own init functions. TM_ERR_INVAL otherwise, with diag
 * naming the parameter ("weibull.shape") and the value found. */
int trace_dist_init(trace_dist *d, trace_dist_kind kind, double p0, double p1, tm_diag *diag);
/* Lognormal from its mean and the sigma of log(x): mu = ln(mean) - sigma^2/2. */
int trace_dist_init_lognormal_mean(trace_dist *d, double mean, double sigma, tm_diag *diag);
/* Discrete over n >= 1 finite values >= 0 with finite non-negative weights
 * (not all zero); copies both. */
int trace_dist_init_discrete(trace_dist *d, const double *values, const double *weights, size_t n,
                             tm_diag *diag);
/* Empirical over n >= 1 finite values >= 0; takes ownership of `values`
 * (malloc'd) whatever the outcome (it is freed on failure) and sorts it. */
int trace_dist_init_empirical(trace_dist *d, double *values, size_t n, tm_diag *diag);
/* Clamp samples to [min, max] (not NaN, min <= max; either may be infinite).
 * TM_ERR_INVAL otherwise, leaving the previous bounds. */
int trace_dist_set_clamp(trace_dist *d, double min, double max, tm_diag *diag);
/* Free what d owns and zero it; safe on a zeroed or failed struct, and twice. */
void trace_dist_fini(trace_dist *d);
/* *d = src with every value multiplied by c > 0 (parameters, values and the
 * clamp bounds): the distribution of c X. d must not be src. */
int trace_dist_scaled(trace_dist *d, const trace_dist *src, double c, tm_diag *diag);

/* One sample, clamped (one GSL call per sample, never two in one expression;
 * CONSTANT draws nothing). */
double trace_dist_sample(const trace_dist *d, gsl_rng *r);
/* An exponential draw of mean mu: gsl_ran_exponential's inversion
 * (-mu log1p(-u), u from gsl_rng_uniform), the same operations in the same
 * order, so the same double (test_dist checks it draw for draw), inline: the
 * synthesizer makes two a job. */
static inline double trace_exponential(const gsl_rng *r, double mu)
{
    double u = r->type->get_double(r->state);
    return -mu * log1p(-u);
}
/* The mean before clamping (analytic; the sample mean for EMPIRICAL; +inf
 * where it does not exist, e.g. Pareto with alpha <= 1). */
double trace_dist_mean(const trace_dist *d);
/* The CDF before clamping, for tests against theory: analytic for the
 * parametric kinds, the step function of the values for DISCRETE (O(n)) and
 * EMPIRICAL (O(log n)). */
double trace_dist_cdf(const trace_dist *d, double x);

/* Read one numeric column of a CSV file (plain or gzip) with a header row
 * (by column name), streaming line by line (memory: the longest line, at
 * most TRACE_MAX_LINE, plus the output).
 * Header names are trimmed of blanks; fields may be double-quoted (RFC 4180
 * quoting within one line; "" is a quote); a UTF-8 BOM and \r\n endings are
 * accepted; blank lines are allowed only at the end of the file. Values are
 * parsed with strtod (C locale assumed) and must be finite. On success
 * *values (malloc'd, caller frees; NULL when n is 0) gets the n values in
 * file order. Errors: TM_ERR_NOTFOUND (no such file) or TM_ERR_IO with
 * strerror; TM_ERR_TRACE for a file that is not a regular one, an empty
 * file, a missing or ambiguous column, a short row, an empty, non-numeric or
 * non-finite value, with diag.where = "path:line"; TM_ERR_LIMIT for a file
 * larger than TRACE_CSV_MAX_BYTES. On error *values = NULL and *n = 0. */
int trace_csv_column(const char *path, const char *column, double **values, size_t *n,
                     tm_diag *diag);
/* trace_csv_column reads a regular file of at most this many bytes (a
 * FIFO, device or folder is TM_ERR_TRACE, a larger file TM_ERR_LIMIT), and
 * its messages never quote the file's content. */
#define TRACE_CSV_MAX_BYTES (64u << 20)

/* ------------------------------------------------------------------------- */
/* Arrival processes                                                          */

#define TRACE_MMPP_MAX_STATES 4

/* Arrivals with intensity
 *     lambda(t) = rate * daily[hour(t)] * weekly[day(t)] * (1 + growth)^(t / month)
 *                 * mmpp_mult[state(t)]
 * where hour and day count from t0_offset_s seconds after Monday 00:00,
 * month = 365.25/12 days, and state(t) is a continuous-time Markov chain
 * (the bursty, Markov-modulated part) that stays in state i for an
 * exponential time of mean mmpp_sojourn_s[i] and then moves to the next state
 * cyclically (i+1 mod n). With flat profiles, no growth and one state this is
 * a homogeneous Poisson process. The time-varying parts are sampled by
 * thinning (Lewis & Shedler 1979) against a piecewise bound. */
typedef struct trace_arrival_cfg {
    double rate_per_s;       /* base rate */
    double daily[24];        /* multipliers per hour of day (all 1 = flat) */
    double weekly[7];        /* multipliers per day of week, Monday first */
    double growth_per_month; /* > -1 */
    double t0_offset_s;
    uint32_t mmpp_states; /* 1 = no modulation */
    double mmpp_mult[TRACE_MMPP_MAX_STATES];
    double mmpp_sojourn_s[TRACE_MMPP_MAX_STATES];
} trace_arrival_cfg;

/* Flat, no growth, one state, the given rate. The unused MMPP sojourns are
 * 0, so raising mmpp_states without setting them fails validation. */
void trace_arrival_cfg_poisson(trace_arrival_cfg *cfg, double rate_per_s);

/* The latest time the samplers produce: int64 microseconds end here
 * (about 292,000 years). */
#define TRACE_ARRIVAL_T_MAX_S 9.2e12
/* The largest peak intensity (rate times the largest multipliers) accepted:
 * a trillion arrivals a second, far past any workload, and far enough below
 * DBL_MAX that counts over the longest time stay finite. */
#define TRACE_ARRIVAL_PEAK_MAX_PER_S 1e12
/* The highest intensity of cfg over [t0_s, t1_s]: the rate times the largest
 * daily x weekly product of the hours covered, the largest MMPP multiplier
 * and the growth at the later end (the earlier for a decline); +inf when the
 * product overflows, NaN when t1_s < t0_s. */
double trace_arrival_peak(const trace_arrival_cfg *cfg, double t0_s, double t1_s);
/* The bound on it, owned here for every caller (loading, admission, the
 * service model): TM_OK when trace_arrival_peak over [t0_s, t1_s] is at most
 * TRACE_ARRIVAL_PEAK_MAX_PER_S, TM_ERR_INVAL otherwise with diag naming
 * "arrival.growth_per_month" (when growth over the span takes it there) or
 * "arrival.rate_per_s", and the peak. */
int trace_arrival_check_peak(const trace_arrival_cfg *cfg, double t0_s, double t1_s, tm_diag *diag);

/* The state of one arrival stream. Fields are set by init and next(); read
 * them, do not write them. The MMPP starts in its stationary distribution
 * (drawn from r at the first next()), so trace_arrival_expected holds from
 * t_start_s on. */
typedef struct trace_arrival {
    trace_arrival_cfg cfg;
    double t_s;            /* time of the last arrival (or of the start); +inf when done */
    uint32_t state;        /* current MMPP state */
    double state_end_s;    /* when the MMPP leaves the state */
    int started;           /* the MMPP state has been drawn */
    double hpp_rate_per_s; /* >= 0: homogeneous, gaps are Exp(1 / this); < 0: thinning */
    double env_rate_per_s; /* rate * max daily * max weekly * max mmpp_mult */
    double log1p_growth;   /* ln(1 + growth_per_month) */
    int64_t hour;          /* current hour window, counted from Monday 00:00 */
    double hour_end_s;     /* when that window ends */
} trace_arrival;

/* Check cfg and start at time t_start_s (finite, |t| <= TRACE_ARRIVAL_T_MAX_S).
 * cfg must be finite with rate >= 0, multipliers >= 0, growth > -1,
 * |t0_offset_s| <= TRACE_ARRIVAL_T_MAX_S, 1 <= mmpp_states <=
 * TRACE_MMPP_MAX_STATES, sojourns > 0 (when there are several states) and,
 * if rate > 0, at least one positive daily, weekly and MMPP multiplier, and
 * a peak rate (rate times the largest multipliers) of at most
 * TRACE_ARRIVAL_PEAK_MAX_PER_S. TM_ERR_INVAL otherwise, with diag naming the field
 * ("arrival.daily[3]") and the value found. */
int trace_arrival_init(trace_arrival *a, const trace_arrival_cfg *cfg, double t_start_s,
                       tm_diag *diag);
/* The next arrival time (s) after the previous one; +inf if the rate is 0
 * for ever, after the last arrival of a declining process (growth < 0: the
 * total is finite), and beyond TRACE_ARRIVAL_T_MAX_S (or where the intensity
 * overflows a double); once +inf, always +inf. Uses r for every draw (the
 * MMPP's too). Cost: O(1) per arrival for a homogeneous process; otherwise
 * one step per hour window and one draw per MMPP state change passed. */
double trace_arrival_next(trace_arrival *a, gsl_rng *r);
/* The deterministic part of the intensity at t (the MMPP factor excluded);
 * NaN for |t| > TRACE_ARRIVAL_T_MAX_S. */
double trace_arrival_rate(const trace_arrival_cfg *cfg, double t_s);
/* The expected number of arrivals in [t0, t1] with the MMPP at its stationary
 * mean (for tests and for offered-load figures), integrated exactly. t0 and a
 * finite t1 must lie within +-TRACE_ARRIVAL_T_MAX_S; t1 may be +inf (then +inf
 * unless the rate is 0 or growth < 0). 0 when t1 <= t0; NaN when cfg is
 * invalid or a time is out of range. Cost: O(hours in two weeks). */
double trace_arrival_expected(const trace_arrival_cfg *cfg, double t0_s, double t1_s);

/* ------------------------------------------------------------------------- */
/* The synthesizer                                                            */

/* One class of synthetic jobs. The distributions and generators are borrowed
 * and must outlive the source. */
typedef struct trace_synth_cfg {
    uint32_t cls;
    const trace_arrival_cfg *arrival;
    const trace_dist *gpus; /* GPUs per job, rounded to an integer >= 1 */
    /* Either duration_s: run time at reference speed, seconds; or work_gpu_s:
     * reference GPU-seconds, run time = work / (gpus x e(gpus)) with the gang's
     * scaling efficiency e(g) = scaling_per_doubling ^ log2(g). */
    const trace_dist *duration_s;
    const trace_dist *work_gpu_s;
    double scaling_per_doubling;
    const trace_dist *share_milli;     /* per-GPU share of 1-GPU jobs; NULL = whole GPUs */
    const trace_dist *estimate_factor; /* estimate = run time x sample; NULL = no estimate */
    const trace_dist *tenant;          /* tenant index; NULL = tenant 0 */
    uint32_t gpu_mem_mib;
    uint32_t flags;
    uint64_t type_mask;
    int32_t priority;
    int64_t deadline_us; /* relative to arrival; -1 none */
    double value;
    double t_end_s;    /* no arrivals after this time */
    uint64_t max_jobs; /* 0 = no limit */
    /* one generator per quantity, so that changing one distribution never
     * shifts another's draws; r_share, r_estimate, r_tenant may be NULL when
     * the matching distribution is */
    gsl_rng *r_arrival, *r_gpus, *r_duration, *r_share, *r_estimate, *r_tenant;
    /* Specialization: jobs arriving at or after special_s take their GPU count,
     * size, share, estimate, memory, types, flags and value from *special (its
     * arrival process and generators are not used: the same arrivals and the
     * same streams). NULL: none. */
    const struct trace_synth_cfg *special;
    double special_s;
} trace_synth_cfg;

int trace_synth_open(trace_source *src, const trace_synth_cfg *cfg, tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Trace readers (docs/traces.md lists the formats and their edge cases)      */

/* What a reader does with a malformed row: stop there (strict, the default),
 * or skip it, count it and report it (lenient). A row that is well formed but
 * that the format's documented rules do not replay (an SWF job of unknown
 * size, an openb pod with no deletion time, ...) is "dropped" in both modes:
 * counted, never an error. */
typedef enum trace_mode {
    TRACE_STRICT = 0,
    TRACE_LENIENT = 1,
} trace_mode;

/* Counters a reader keeps while it reads (caller-owned; see trace_read_opts). */
typedef struct trace_read_stats {
    uint64_t lines;       /* lines read, header and comments included */
    uint64_t rows;        /* data rows (or JSON records) seen */
    uint64_t records;     /* records handed out (jobs, nodes or requests) */
    uint64_t bad;         /* malformed rows skipped (lenient mode) */
    uint64_t dropped;     /* well-formed rows not replayed, by the format's rules */
    uint64_t no_estimate; /* records handed out with no run-time estimate (SWF) */
    tm_diag first_bad;    /* the first malformed row ("file:line", what was wrong) */
} trace_read_stats;

/* Where an SWF job's run-time estimate (trace_job.estimate_us, what
 * backfilling and SJF order by) comes from (docs/traces.md, "Estimates"). */
typedef enum trace_estimate_source {
    TRACE_EST_REQUESTED = 0,      /* field 9, the user's requested time; -1: none */
    TRACE_EST_RUNTIME = 1,        /* the actual run time (perfect estimates) */
    TRACE_EST_REQUESTED_ELSE = 2, /* field 9, else the actual run time */
} trace_estimate_source;
/* "requested", "runtime", "requested-else-runtime"; NULL for another value. */
const char *trace_estimate_source_name(int source);
/* The source named `name`, or -1. */
int trace_estimate_source_find(const char *name);

/* Options every reader takes. trace_read_opts_init sets the defaults. */
typedef struct trace_read_opts {
    trace_mode mode;
    /* lenient: called for every malformed row skipped (may be NULL) */
    void (*on_bad)(void *ud, const tm_diag *d);
    void *on_bad_ud;
    trace_read_stats *stats; /* updated as rows are read (may be NULL) */
    uint32_t cls;            /* workload class index of every job */
    /* GPU type names, in the order of the bits of trace_job.type_mask (the
     * scenario's types). Formats that name GPU models map them onto these
     * through their documented model table; NULL = no type constraints. */
    const char *const *type_names;
    size_t n_types;
    /* Formats with calendar timestamps (Helios, Philly): the time that is 0,
     * as seconds since 1970-01-01 00:00:00 of the trace's own clock;
     * has_origin 0 = the first record's submit time. */
    int64_t origin_s;
    int has_origin;
    /* SWF: 1 drops cancelled jobs (status 5) even when they ran (default 0:
     * a cancelled job that ran replays as it ran; one that never ran is
     * dropped). */
    int swf_drop_cancelled;
    /* Set (non-zero) by a signal handler to stop reading: checked every 4096
     * lines, and every 256 KiB read within a run of empty lines (skipped in
     * bulk); the read then fails with TM_ERR_INTERRUPTED. NULL: never. */
    volatile int *stop_flag;
    /* SWF: where run-time estimates come from (default TRACE_EST_REQUESTED). */
    trace_estimate_source swf_estimates;
    /* 1: rows need not be in submit order (a reader used as a list, e.g. by
     * the packing experiment); 0 (default): a row out of order is malformed. */
    int any_order;
} trace_read_opts;

void trace_read_opts_init(trace_read_opts *o);

/* Index of `name` in o->type_names (case-insensitive), or -1. */
int trace_type_index(const trace_read_opts *o, const char *name);

/* ---- tarmac's own format (traces/FORMAT.md) ---- */

/* Read a tarmac trace (CSV with a header; plain or gzip). Lossless for every
 * field of trace_job. Columns are found by name; submit_us and duration_us
 * are required, the others default as trace_job_defaults says. */
int trace_tarmac_open(trace_source *src, const char *path, const trace_read_opts *o, tm_diag *diag);

typedef struct trace_tarmac_writer trace_tarmac_writer;
/* Create (replace) a tarmac trace at path; gzip-compressed when the name ends
 * in ".gz". The header is written at once. The trace goes to a temporary file
 * next to path, renamed over it by a successful close: path never holds a
 * partial trace (a path that exists and is not a regular file, such as
 * /dev/stdout, is written directly). */
int trace_tarmac_writer_open(trace_tarmac_writer **w, const char *path, tm_diag *diag);
/* One job (any order is written; readers for the engine need submit order). */
int trace_tarmac_write(trace_tarmac_writer *w, const trace_job *j, tm_diag *diag);
/* Flush, sync, close and rename to the final name; reports a failed write
 * (errno's message, naming the file), and then leaves nothing behind. Always
 * frees w (NULL is a no-op). */
int trace_tarmac_writer_close(trace_tarmac_writer *w, tm_diag *diag);
/* Discard: close, remove the temporary file, free (NULL is a no-op). */
void trace_tarmac_writer_abort(trace_tarmac_writer *w);
/* The header line of the format (no newline). */
const char *trace_tarmac_header(void);

/* ---- Standard Workload Format (Parallel Workloads Archive) ---- */

/* The machine an SWF header describes. */
typedef struct trace_swf_info {
    int64_t max_nodes;       /* MaxNodes, -1 absent */
    int64_t max_procs;       /* MaxProcs, -1 absent */
    int64_t max_jobs;        /* MaxJobs, -1 absent */
    int64_t unix_start_s;    /* UnixStartTime, -1 absent */
    uint32_t nodes;          /* the machine: MaxNodes, else MaxProcs */
    uint32_t procs_per_node; /* MaxProcs / MaxNodes when it divides, else 1 */
} trace_swf_info;

/* Open an SWF log (plain or gzip) and read its header into *info (may be
 * NULL). Jobs: id = field 1, submit = field 2, duration = field 4 (run time),
 * GPUs = field 5 (allocated processors; field 8 when -1) rounded up to whole
 * nodes, estimate = field 9, status = field 11, tenant = field 12, and
 * TRACE_JOB_CAN_SPAN (a job takes whole nodes of one processor-"GPU" each, or
 * procs_per_node). docs/traces.md: -1 fields, run times <= 0, cancelled jobs. */
int trace_swf_open(trace_source *src, const char *path, const trace_read_opts *o,
                   trace_swf_info *info, tm_diag *diag);

/* ---- Fleets: node lists ---- */

/* One node of a fleet a trace describes. */
typedef struct trace_node {
    char name[TRACE_LABEL_MAX + 1]; /* the trace's, made safe (trace_label_safe) */
    char model[32];     /* the trace's GPU model (one of its reader's table); "" CPU-only */
    char type_name[32]; /* the tarmac catalog type it maps to; "" CPU-only */
    uint32_t gpus;
    int64_t cpu_milli;
    int64_t mem_mib;
} trace_node;

typedef struct trace_node_source {
    int (*next)(void *ud, trace_node *node, tm_diag *diag); /* TM_OK, TRACE_END or error */
    void (*close)(void *ud);
    void *ud;
} trace_node_source;

/* Alibaba GPU v2023 (openb) node list: sn,cpu_milli,memory_mib,gpu,model.
 * Models map to catalog types: P100, T4, A10 as named, V100M16 -> V100,
 * V100M32 -> V100-32GB, G1/G2/G3 -> the catalog's undisclosed "G1".."G3". */
int trace_openb_nodes_open(trace_node_source *src, const char *path, const trace_read_opts *o,
                           tm_diag *diag);
/* The catalog type an openb model name maps to, or NULL when unknown. */
const char *trace_openb_model_type(const char *model);

/* Alibaba PAI 2020 machine table (no header):
 * machine,gpu_type,cap_cpu,cap_mem,cap_gpu (cores, GB, GPUs). gpu_type
 * CPU -> CPU-only node, MISC -> K80 (the older K40m/K80/M60 mix, documented),
 * P100, T4, V100 -> V100, V100M32 -> V100-32GB. */
int trace_pai_machines_open(trace_node_source *src, const char *path, const trace_read_opts *o,
                            tm_diag *diag);
const char *trace_pai_gpu_type(const char *gpu_type);

/* ---- Jobs from GPU-cluster traces ---- */

/* Alibaba GPU v2023 (openb) pod list, the 11-column or the 5-column form.
 * One pod = one job: cpu_milli, memory_mib, num_gpu (0 = CPU-only),
 * gpu_milli (per-GPU share), gpu_spec (models, '|'-separated) -> type_mask,
 * submit = creation_time, duration = deletion_time - scheduled_time (or
 * - creation_time when never scheduled). The 5-column form has no times: its
 * pods all arrive at 0 with duration 0 (packing experiments only). */
int trace_openb_pods_open(trace_source *src, const char *path, const trace_read_opts *o,
                          tm_diag *diag);

/* Alibaba PAI 2020 task table (no header):
 * job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,
 * plan_gpu,gpu_type. One job per instance (inst_num of them per row), rows
 * in start_time order. plan_cpu and plan_gpu are percent, plan_mem GB. */
int trace_pai_tasks_open(trace_source *src, const char *path, const trace_read_opts *o,
                         tm_diag *diag);

/* Helios (SenseTime, SC'21) cluster_log.csv: job_id,user,vc,gpu_num,cpu_num,
 * node_num,state,submit_time,start_time,end_time,duration,queue. */
int trace_helios_open(trace_source *src, const char *path, const trace_read_opts *o, tm_diag *diag);

/* Philly (Microsoft, ATC'19) cluster_job_log: a JSON array of jobs
 * {status, vc, jobid, attempts[{start_time, end_time, detail[{ip, gpus[]}]}],
 * submitted_time, user}, read as a stream (constant memory). */
int trace_philly_open(trace_source *src, const char *path, const trace_read_opts *o, tm_diag *diag);

/* ---- Gavel (OSDI'20): throughput matrix and traces ---- */

typedef struct trace_gavel_matrix trace_gavel_matrix;

/* What a throughput matrix may declare (Gavel's own: 6 worker types, 26 job
 * types, 492 throughputs). Every job type becomes a class of the replay. */
#define TRACE_GAVEL_MAX_WORKERS   64u
#define TRACE_GAVEL_MAX_JOB_TYPES 256u
#define TRACE_GAVEL_MAX_ENTRIES   65536u

/* Load a throughput matrix ({worker: {"('type', scale)": {"null": tput, ...}}}).
 * Only the isolated throughputs ("null", finite, >= 0) are kept; scales are
 * 1..4096. TM_ERR_TRACE at path:line past a TRACE_GAVEL_MAX_* bound, for a
 * (worker, job type, scale) given twice, and for two job types (or two
 * workers) with one safe name (trace_label_safe). */
int trace_gavel_matrix_load(trace_gavel_matrix **m, const char *path, tm_diag *diag);
void trace_gavel_matrix_free(trace_gavel_matrix *m);
/* Worker types ("k80", "p100", "v100", ...) and job types, in first-seen
 * order, by their safe names (trace_label_safe: the file's own where those
 * are safe already, as in Gavel's matrices). */
size_t trace_gavel_matrix_workers(const trace_gavel_matrix *m, const char *const **names);
size_t trace_gavel_matrix_job_types(const trace_gavel_matrix *m, const char *const **names);
/* Index of a job type named as in the file or by its safe name, or -1. */
int trace_gavel_matrix_job_type(const trace_gavel_matrix *m, const char *job_type);
/* Isolated throughput (steps/s) of (job type, scale factor) on a worker type
 * (0: the matrix says it cannot run there); NAN when the matrix has no
 * entry. Names as in the file or safe; O(log entries). */
double trace_gavel_matrix_tput(const trace_gavel_matrix *m, const char *worker,
                               const char *job_type, uint32_t scale);

/* A Gavel trace, the 7-column msr form or the 10-column physical-cluster form
 * (told apart by the number of tab-separated fields). duration = total_steps /
 * throughput on ref_worker; gpus = scale_factor; cls = o->cls + the job
 * type's index in m (one class per job type). A scale missing from the matrix
 * uses the largest scale of that job type below it, the throughput scaled by
 * scale / that scale (counted in *approximated when not NULL). When o names
 * GPU types that are worker types of m, each job's speed[] (over o's types)
 * is its row of m relative to ref_worker and its type_mask the types with a
 * throughput above 0 (fmt_gavel.c). */
int trace_gavel_open(trace_source *src, const char *path, const trace_gavel_matrix *m,
                     const char *ref_worker, const trace_read_opts *o, uint64_t *approximated,
                     tm_diag *diag);

/* ---- Request-level load: the Azure LLM inference trace 2023 ---- */

typedef struct trace_request {
    uint64_t id;        /* row number from 1 */
    int64_t arrival_us; /* from the first request */
    uint32_t prompt_tokens;
    uint32_t output_tokens;
} trace_request;

typedef struct trace_request_source {
    int (*next)(void *ud, trace_request *req, tm_diag *diag); /* TM_OK, TRACE_END or error */
    void (*close)(void *ud);
    void *ud;
} trace_request_source;

/* arrived_at (s, non-decreasing), num_prefill_tokens, num_decode_tokens. */
int trace_azure_llm_open(trace_request_source *src, const char *path, const trace_read_opts *o,
                         tm_diag *diag);

/* A load profile: per bin of bin_s seconds from 0, the requests and tokens
 * that arrived in it, as rates. Arrays are malloc'd (trace_load_profile_fini). */
typedef struct trace_load_profile {
    double bin_s;
    size_t n_bins;
    double *requests_per_s;
    double *prompt_tokens_per_s;
    double *output_tokens_per_s;
    uint64_t requests;
    double prompt_tokens, output_tokens;
} trace_load_profile;

/* Aggregate a request stream into bins (consumes the stream; does not close
 * it). Memory: the bins, not the requests. */
int trace_load_profile_build(trace_load_profile *p, trace_request_source *src, double bin_s,
                             tm_diag *diag);
void trace_load_profile_fini(trace_load_profile *p);

/* ---- Philly-derived empirical distributions ---- */

/* From a CSV of (duration_s, num_gpus) pairs (gavel/philly_job_distribution.csv):
 * the run times as an empirical distribution and the GPU counts as a discrete
 * one (the marginals; the pairing is not kept). Either output may be NULL. */
int trace_philly_dists(const char *path, trace_dist *duration_s, trace_dist *gpus, tm_diag *diag);

/* ---- Sources over sources ---- */

/* Jobs [first, first + count) of `in` (count 0 = to the end), with submit
 * times shifted so that the first job arrives at 0 when shift is set. Takes
 * ownership of `in` (closes it, even on failure). */
int trace_window_open(trace_source *src, trace_source in, uint64_t first, uint64_t count, int shift,
                      tm_diag *diag);

/* Read the n sources srcs[0..n) ahead on one thread of their own (ahead.c):
 * each srcs[i] is replaced by a source that returns the same jobs, then the
 * same end or error with the same diagnostic, while the thread draws up to a
 * few thousand jobs ahead. The sources must not share state with the caller
 * or each other (a synthesizer's random streams are its own). Closing the
 * last of the n stops the thread and closes the originals. Returns 1, or 0
 * when the thread or its memory cannot be had: srcs are then unchanged and
 * still work as before. The consumer is one thread. The thread blocks all
 * signals: not for a source that may wait in a read (a pipe, a FIFO), which
 * a signal's EINTR could no longer stop. */
int trace_ahead_open(trace_source *srcs, size_t n);

/* Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS" (no time zone); 0 on
 * success, -1 if malformed. */
int trace_parse_datetime(const char *s, int64_t *out_s);

/* ------------------------------------------------------------------------- */
/* The format table (formats.c): a format is a reader file plus a line there  */

/* What a jobs reader needs besides the path and the options. */
typedef struct trace_open_args {
    const trace_gavel_matrix *gavel_matrix; /* TRACE_FORMAT_NEEDS_MATRIX: required */
    const char *gavel_reference;            /* its reference worker; NULL: "v100" */
} trace_open_args;

enum trace_format_flags {
    /* the trace says nothing of its machine: the host must give a fleet
     * (formats with a `machine` function describe theirs; request traces
     * need none) */
    TRACE_FORMAT_NEEDS_FLEET = 1u << 0,
    TRACE_FORMAT_WINDOWS = 1u << 1,          /* a job log for window replay */
    TRACE_FORMAT_POD_LIST = 1u << 2,         /* a pod list for packing experiments */
    TRACE_FORMAT_REQUESTS = 1u << 3,         /* requests, not jobs: open_requests */
    TRACE_FORMAT_SCENARIO_CLASSES = 1u << 4, /* its jobs carry a scenario's class indices */
    TRACE_FORMAT_NEEDS_MATRIX = 1u << 5,     /* needs trace_open_args.gavel_matrix */
    TRACE_FORMAT_ESTIMATES = 1u << 6, /* a requested-time field: trace_read_opts.swf_estimates */
};

typedef struct trace_format {
    const char *name;    /* as a user names it ("swf") */
    const char *summary; /* one line, for help texts */
    unsigned flags;      /* trace_format_flags */
    /* open the jobs (NULL for request traces); a may be NULL when the
     * format needs nothing of it */
    int (*open)(trace_source *src, const char *path, const trace_read_opts *o,
                const trace_open_args *a, tm_diag *diag);
    /* open the requests (TRACE_FORMAT_REQUESTS), else NULL */
    int (*open_requests)(trace_request_source *src, const char *path, const trace_read_opts *o,
                         tm_diag *diag);
    /* read the machine the trace's header describes; NULL when it has none */
    int (*machine)(const char *path, const trace_read_opts *o, trace_swf_info *info, tm_diag *diag);
} trace_format;

/* The formats, in the order help texts list them; *n their number. */
const trace_format *trace_formats(size_t *n);
/* The format named name, or NULL. */
const trace_format *trace_format_find(const char *name);

/* Node lists: the fleet a trace ran on. */
typedef struct trace_node_format {
    const char *name, *summary;
    int (*open)(trace_node_source *src, const char *path, const trace_read_opts *o, tm_diag *diag);
} trace_node_format;

const trace_node_format *trace_node_formats(size_t *n);
const trace_node_format *trace_node_format_find(const char *name);

#endif
