/*
 * trace.h — the public header of traces/: the job record every reader and the
 * synthesizer produce, the streaming source interface, and the samplers
 * (distributions and arrival processes) the synthesizer is built from.
 *
 * Jobs are streamed: a source hands out the next job in submit order and keeps
 * nothing of the jobs it handed out, so memory is constant in trace length.
 * Sampling uses GSL generators the caller owns (one stream per purpose; see
 * sim/rng.c for how they are seeded). Times inside the samplers are double
 * seconds; the job record carries int64 microseconds, rounded once.
 */
#ifndef TARMAC_TRACE_H
#define TARMAC_TRACE_H

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
/* The mean before clamping (analytic; the sample mean for EMPIRICAL; +inf
 * where it does not exist, e.g. Pareto with alpha <= 1). */
double trace_dist_mean(const trace_dist *d);
/* The CDF before clamping, for tests against theory: analytic for the
 * parametric kinds, the step function of the values for DISCRETE (O(n)) and
 * EMPIRICAL (O(log n)). */
double trace_dist_cdf(const trace_dist *d, double x);

/* Read one numeric column of a CSV file with a header row (by column name),
 * streaming line by line (memory: the longest line plus the output).
 * Header names are trimmed of blanks; fields may be double-quoted (RFC 4180
 * quoting within one line; "" is a quote); a UTF-8 BOM and \r\n endings are
 * accepted; blank lines are allowed only at the end of the file. Values are
 * parsed with strtod (C locale assumed) and must be finite. On success
 * *values (malloc'd, caller frees; NULL when n is 0) gets the n values in
 * file order. Errors: TM_ERR_NOTFOUND (no such file) or TM_ERR_IO with
 * strerror; TM_ERR_TRACE for an empty file, a missing or ambiguous column
 * (the message lists the columns), a short row, an empty, non-numeric or
 * non-finite value, with diag.where = "path:line". On error *values = NULL
 * and *n = 0. */
int trace_csv_column(const char *path, const char *column, double **values, size_t *n,
                     tm_diag *diag);

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
 * if rate > 0, at least one positive daily, weekly and MMPP multiplier.
 * TM_ERR_INVAL otherwise, with diag naming the field ("arrival.daily[3]")
 * and the value found. */
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
} trace_synth_cfg;

int trace_synth_open(trace_source *src, const trace_synth_cfg *cfg, tm_diag *diag);

#endif
