/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arrival.c — arrival processes: homogeneous Poisson, daily/weekly profiles,
 * growth, and a Markov-modulated (MMPP) factor, all from one generator.
 *
 * The intensity is c(t) * G(t) * m(t): c(t) = rate * daily * weekly is
 * constant on each hour of the week, G(t) = (1 + g)^(t / month) is smooth and
 * monotonic, and m(t) is the MMPP multiplier, constant between state changes.
 *
 * Three ways to sample, chosen per call:
 *  - Homogeneous (flat profiles, g = 0, all MMPP multipliers equal): gaps are
 *    exponential, one draw per arrival.
 *  - Windowed thinning (Lewis & Shedler): time is cut into windows on which
 *    the hour and the MMPP state are constant (ends: the next hour boundary
 *    or the next state change). On a window the exact bound is
 *    c * m * max(G(start), G(end)); candidates are exponential gaps at that
 *    rate, a candidate past the window's end is dropped and generation
 *    restarts at the end (memorylessness makes that exact), and a candidate
 *    at t is kept with probability G(t) / max G (always when g = 0, with no
 *    draw). Acceptance is >= (1 + g)^(-1/730) per candidate, nearly 1.
 *  - Envelope thinning, for g < 0 once the envelope K * G(t) (K = rate * max
 *    daily * max weekly * max multiplier) has less than one expected point
 *    left: the envelope's remaining mass is finite, so the next candidate is
 *    drawn by inverting its integral, and an Exp(1) draw past the whole mass
 *    means there is no arrival left (+inf). Without it a declining process
 *    would scan hours for ever after its last arrival.
 * The hour window is tracked as an integer index, never re-derived from a
 * float at a boundary, so a window end cannot round back onto itself.
 *
 * The MMPP chain is simulated lazily up to the current time; its first state
 * is drawn from the stationary distribution (pi_i proportional to the mean
 * sojourn, the cycle being deterministic) with an exponential residual, so
 * the process is stationary from the start.
 *
 * trace_arrival_expected integrates c(t) G(t) exactly per hour
 * (c * month / ln(1+g) * (G(b) - G(a)), via expm1 for accuracy), sums whole
 * weeks as a geometric series (each week is the previous one times
 * (1+g)^(week/month)), and multiplies by the stationary mean multiplier.
 */
#include "trace.h"

#include <math.h>
#include <string.h>

#define HOUR_S  3600.0
#define WEEK_S  (7.0 * 86400.0)
#define MONTH_S (365.25 / 12.0 * 86400.0)

void trace_arrival_cfg_poisson(trace_arrival_cfg *cfg, double rate_per_s)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->rate_per_s = rate_per_s;
    for (int h = 0; h < 24; h++)
        cfg->daily[h] = 1.0;
    for (int d = 0; d < 7; d++)
        cfg->weekly[d] = 1.0;
    cfg->growth_per_month = 0.0;
    cfg->t0_offset_s = 0.0;
    cfg->mmpp_states = 1;
    for (int i = 0; i < TRACE_MMPP_MAX_STATES; i++) {
        cfg->mmpp_mult[i] = 1.0;
        cfg->mmpp_sojourn_s[i] = 0.0;
    }
}

static double max_of(const double *v, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

/* Multipliers finite and >= 0, at least one positive when `need_positive`. */
static int check_mults(const double *m, int n, const char *name, int need_positive, tm_diag *diag)
{
    int positive = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(m[i]) && m[i] >= 0.0)) {
            char where[64];
            snprintf(where, sizeof where, "arrival.%s[%d]", name, i);
            return tm_diag_set(diag, TM_ERR_INVAL, where,
                               "expected a finite multiplier >= 0, got %.17g", m[i]);
        }
        positive |= m[i] > 0.0;
    }
    if (need_positive && !positive) {
        char where[64];
        snprintf(where, sizeof where, "arrival.%s", name);
        return tm_diag_set(diag, TM_ERR_INVAL, where,
                           "expected at least one positive multiplier (the rate is > 0), got all "
                           "%d zero",
                           n);
    }
    return TM_OK;
}

/* The peak intensity of cfg: the rate times the largest daily x weekly
 * product of hours h0..h1 (of the week, Monday 00:00 first; all of them when
 * the span is a week or more), the largest MMPP multiplier and `growth`. */
static double peak_of(const trace_arrival_cfg *cfg, double h0, double h1, double growth)
{
    if (h1 > h0 + 167)
        h1 = h0 + 167;
    double c = 0.0;
    for (double h = h0; h <= h1; h++) {
        double hd = fmod(h, 24.0), dw = fmod(floor(h / 24.0), 7.0);
        if (hd < 0)
            hd += 24.0;
        if (dw < 0)
            dw += 7.0;
        double x = cfg->daily[(int)hd] * cfg->weekly[(int)dw];
        if (x > c)
            c = x;
    }
    uint32_t n =
        cfg->mmpp_states >= 1 && cfg->mmpp_states <= TRACE_MMPP_MAX_STATES ? cfg->mmpp_states : 1;
    double m = max_of(cfg->mmpp_mult, (int)n);
    if (cfg->rate_per_s == 0.0 || c == 0.0 || m == 0.0)
        return 0.0; /* no arrival, however much it grows */
    return cfg->rate_per_s * c * m * growth;
}

/* The one place the bound TRACE_ARRIVAL_PEAK_MAX_PER_S is held: `peak` (of
 * peak_of) over [t0_s, t1_s], `flat` the same without the growth. */
static int peak_check(const trace_arrival_cfg *cfg, double flat, double peak, double t0_s,
                      double t1_s, tm_diag *diag)
{
    if (peak <= TRACE_ARRIVAL_PEAK_MAX_PER_S)
        return TM_OK;
    if (flat <= TRACE_ARRIVAL_PEAK_MAX_PER_S)
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival.growth_per_month",
                           "a growth of %.6g a month compounded over %.3g months takes the peak "
                           "rate (the rate times the largest daily, weekly and MMPP multipliers) "
                           "from %.3g to %.3g per second, past the most a run can hold, %.3g per "
                           "second",
                           cfg->growth_per_month, (t1_s - t0_s) / MONTH_S, flat, peak,
                           TRACE_ARRIVAL_PEAK_MAX_PER_S);
    return tm_diag_set(diag, TM_ERR_INVAL, "arrival.rate_per_s",
                       "expected a peak rate (the rate times the largest daily, weekly and "
                       "MMPP multipliers) of at most %.3g per second, got %.17g",
                       TRACE_ARRIVAL_PEAK_MAX_PER_S, flat);
}

/* Hours of the week covered by [t0_s, t1_s], and the largest growth on it. */
static int span_of(const trace_arrival_cfg *cfg, double t0_s, double t1_s, double *h0, double *h1,
                   double *g)
{
    if (!(t1_s >= t0_s) || !(fabs(t0_s) <= TRACE_ARRIVAL_T_MAX_S) ||
        !(fabs(t1_s) <= TRACE_ARRIVAL_T_MAX_S) ||
        !(fabs(cfg->t0_offset_s) <= TRACE_ARRIVAL_T_MAX_S))
        return -1;
    *h0 = floor((t0_s + cfg->t0_offset_s) / HOUR_S);
    *h1 = floor((t1_s + cfg->t0_offset_s) / HOUR_S);
    double lg = log1p(cfg->growth_per_month);
    /* G is monotonic: its largest value is at one end */
    *g = lg == 0.0 ? 1.0 : exp(lg * ((lg > 0 ? t1_s : t0_s) / MONTH_S));
    return 0;
}

double trace_arrival_peak(const trace_arrival_cfg *cfg, double t0_s, double t1_s)
{
    double h0, h1, g;
    if (span_of(cfg, t0_s, t1_s, &h0, &h1, &g))
        return NAN;
    double x = peak_of(cfg, h0, h1, g);
    return isnan(x) ? INFINITY : x;
}

int trace_arrival_check_peak(const trace_arrival_cfg *cfg, double t0_s, double t1_s, tm_diag *diag)
{
    double h0, h1, g;
    if (span_of(cfg, t0_s, t1_s, &h0, &h1, &g))
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival",
                           "expected a span [t0, t1] within +-%.3g s, got [%.17g, %.17g]",
                           TRACE_ARRIVAL_T_MAX_S, t0_s, t1_s);
    double flat = peak_of(cfg, h0, h1, 1.0), peak = peak_of(cfg, h0, h1, g);
    return peak_check(cfg, isnan(flat) ? INFINITY : flat, isnan(peak) ? INFINITY : peak, t0_s, t1_s,
                      diag);
}

static int cfg_check(const trace_arrival_cfg *cfg, tm_diag *diag)
{
    int rc;
    double rate = cfg->rate_per_s;
    if (!(isfinite(rate) && rate >= 0.0))
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival.rate_per_s",
                           "expected a finite rate >= 0, got %.17g", rate);
    int live = rate > 0.0;
    if ((rc = check_mults(cfg->daily, 24, "daily", live, diag)) != TM_OK)
        return rc;
    if ((rc = check_mults(cfg->weekly, 7, "weekly", live, diag)) != TM_OK)
        return rc;
    double g = cfg->growth_per_month;
    if (!(isfinite(g) && g > -1.0))
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival.growth_per_month",
                           "expected a finite growth > -1, got %.17g", g);
    if (!(isfinite(cfg->t0_offset_s) && fabs(cfg->t0_offset_s) <= TRACE_ARRIVAL_T_MAX_S))
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival.t0_offset_s",
                           "expected a finite offset within +-%.3g s, got %.17g",
                           TRACE_ARRIVAL_T_MAX_S, cfg->t0_offset_s);
    uint32_t n = cfg->mmpp_states;
    if (n < 1 || n > TRACE_MMPP_MAX_STATES)
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival.mmpp_states",
                           "expected 1 to %d states, got %u", TRACE_MMPP_MAX_STATES, n);
    if ((rc = check_mults(cfg->mmpp_mult, (int)n, "mmpp_mult", live, diag)) != TM_OK)
        return rc;
    if (n > 1) {
        for (uint32_t i = 0; i < n; i++) {
            double s = cfg->mmpp_sojourn_s[i];
            if (!(isfinite(s) && s > 0.0)) {
                char where[64];
                snprintf(where, sizeof where, "arrival.mmpp_sojourn_s[%u]", i);
                return tm_diag_set(diag, TM_ERR_INVAL, where,
                                   "expected a finite mean sojourn > 0 s, got %.17g", s);
            }
        }
    }
    /* Each factor finite is not enough: their product, and the expected
     * counts over hours built on it, must be too (1e308 in a daily profile
     * made the rate of a service infinite in the middle of a run). The
     * growth is held to the bound where the span is known (admission,
     * trace_arrival_check_peak over the horizon). */
    double peak = peak_of(cfg, 0, 167, 1.0);
    return peak_check(cfg, peak, peak, 0.0, 0.0, diag);
    return TM_OK;
}

static int all_equal(const double *v, int n)
{
    for (int i = 1; i < n; i++)
        if (v[i] != v[0])
            return 0;
    return 1;
}

/* Floor division and modulo for possibly negative hour indices. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    return a - floor_div(a, b) * b;
}

/* rate * daily * weekly on hour window `hour` (counted from Monday 00:00). */
static double hour_factor(const trace_arrival_cfg *cfg, int64_t hour)
{
    int64_t h = floor_mod(hour, 24);
    int64_t d = floor_mod(floor_div(hour, 24), 7);
    return cfg->rate_per_s * cfg->daily[h] * cfg->weekly[d];
}

static int64_t hour_of(const trace_arrival_cfg *cfg, double t_s)
{
    return (int64_t)floor((t_s + cfg->t0_offset_s) / HOUR_S);
}

static double hour_start(const trace_arrival_cfg *cfg, int64_t hour)
{
    return (double)hour * HOUR_S - cfg->t0_offset_s;
}

/* G(t) = (1 + g)^(t / month), from ln(1 + g). */
static double growth_at(double log1p_g, double t_s)
{
    return log1p_g == 0.0 ? 1.0 : exp(log1p_g * (t_s / MONTH_S));
}

double trace_arrival_rate(const trace_arrival_cfg *cfg, double t_s)
{
    /* Beyond the range the hour index would overflow int64. */
    if (!(fabs(t_s) <= TRACE_ARRIVAL_T_MAX_S && fabs(cfg->t0_offset_s) <= TRACE_ARRIVAL_T_MAX_S))
        return NAN;
    return hour_factor(cfg, hour_of(cfg, t_s)) * growth_at(log1p(cfg->growth_per_month), t_s);
}

int trace_arrival_init(trace_arrival *a, const trace_arrival_cfg *cfg, double t_start_s,
                       tm_diag *diag)
{
    memset(a, 0, sizeof *a);
    int rc = cfg_check(cfg, diag);
    if (rc != TM_OK)
        return rc;
    if (!(isfinite(t_start_s) && fabs(t_start_s) <= TRACE_ARRIVAL_T_MAX_S))
        return tm_diag_set(diag, TM_ERR_INVAL, "arrival.t_start_s",
                           "expected a finite start within +-%.3g s, got %.17g",
                           TRACE_ARRIVAL_T_MAX_S, t_start_s);
    a->cfg = *cfg;
    a->t_s = t_start_s;
    a->log1p_growth = log1p(cfg->growth_per_month);
    int n = (int)cfg->mmpp_states;
    a->env_rate_per_s = cfg->rate_per_s * max_of(cfg->daily, 24) * max_of(cfg->weekly, 7) *
                        max_of(cfg->mmpp_mult, n);
    int flat = all_equal(cfg->daily, 24) && all_equal(cfg->weekly, 7) &&
               cfg->growth_per_month == 0.0 && all_equal(cfg->mmpp_mult, n);
    if (cfg->rate_per_s == 0.0)
        a->hpp_rate_per_s = 0.0;
    else if (flat)
        a->hpp_rate_per_s = cfg->rate_per_s * cfg->daily[0] * cfg->weekly[0] * cfg->mmpp_mult[0];
    else
        a->hpp_rate_per_s = -1.0;
    a->hour = hour_of(cfg, t_start_s);
    a->hour_end_s = hour_start(cfg, a->hour + 1);
    a->state = 0;
    a->state_end_s = INFINITY;
    a->started = 0;
    return TM_OK;
}

/* Draw the MMPP's first state from its stationary distribution. */
static void mmpp_start(trace_arrival *a, gsl_rng *r)
{
    uint32_t n = a->cfg.mmpp_states;
    a->started = 1;
    if (n == 1)
        return;
    double total = 0.0;
    for (uint32_t i = 0; i < n; i++)
        total += a->cfg.mmpp_sojourn_s[i];
    double u = gsl_rng_uniform(r);
    double x = u * total, acc = 0.0;
    uint32_t s = n - 1;
    for (uint32_t i = 0; i < n; i++) {
        acc += a->cfg.mmpp_sojourn_s[i];
        if (x < acc) {
            s = i;
            break;
        }
    }
    a->state = s;
    /* The residual sojourn is again exponential with the same mean. */
    double soj = gsl_ran_exponential(r, a->cfg.mmpp_sojourn_s[s]);
    a->state_end_s = a->t_s + soj;
}

/* Move the hour window and the MMPP state forward to contain t. The hour
 * jumps in O(1) (an envelope candidate may be years ahead) and is then
 * fixed up by whole steps, so a t exactly at a window's end lands in the
 * next window whatever the rounding. The MMPP costs one draw per state
 * change passed. */
static void advance_to(trace_arrival *a, gsl_rng *r, double t_s)
{
    if (t_s >= a->hour_end_s) {
        int64_t h = hour_of(&a->cfg, t_s);
        if (h > a->hour) {
            a->hour = h;
            a->hour_end_s = hour_start(&a->cfg, h + 1);
        }
        while (t_s >= a->hour_end_s) {
            a->hour++;
            a->hour_end_s = hour_start(&a->cfg, a->hour + 1);
        }
    }
    while (t_s >= a->state_end_s) {
        a->state = (a->state + 1) % a->cfg.mmpp_states;
        double soj = gsl_ran_exponential(r, a->cfg.mmpp_sojourn_s[a->state]);
        a->state_end_s += soj;
    }
}

static double finish(trace_arrival *a, double t_s)
{
    if (!(t_s <= TRACE_ARRIVAL_T_MAX_S))
        t_s = INFINITY;
    a->t_s = t_s;
    return t_s;
}

/* The remaining mass of the envelope K * G(s) over (t, inf), for g < 0. */
static double envelope_mass(const trace_arrival *a, double t_s)
{
    return a->env_rate_per_s * growth_at(a->log1p_growth, t_s) * MONTH_S / -a->log1p_growth;
}

/* Envelope thinning from t (g < 0): exact, and ends with +inf. */
static double next_envelope(trace_arrival *a, gsl_rng *r, double t_s)
{
    double lg = a->log1p_growth, k = a->env_rate_per_s;
    for (;;) {
        double mass = envelope_mass(a, t_s);
        double e = gsl_ran_exponential(r, 1.0);
        if (!(e < mass))
            return finish(a, INFINITY);
        /* Solve k * month / -lg * (G(t) - G(s)) = e for s. */
        double gs = growth_at(lg, t_s) - e * -lg / (k * MONTH_S);
        double s = MONTH_S * log(gs) / lg;
        t_s = s > t_s ? s : t_s;
        if (t_s > TRACE_ARRIVAL_T_MAX_S)
            return finish(a, INFINITY);
        advance_to(a, r, t_s);
        double c = hour_factor(&a->cfg, a->hour) * a->cfg.mmpp_mult[a->state];
        double u = gsl_rng_uniform(r);
        if (u * k < c)
            return finish(a, t_s);
    }
}

/* Windowed thinning from the last arrival; see the top of the file. */
static double next_thinning(trace_arrival *a, gsl_rng *r)
{
    double t = a->t_s, lg = a->log1p_growth;
    for (;;) {
        if (t > TRACE_ARRIVAL_T_MAX_S)
            return finish(a, INFINITY);
        advance_to(a, r, t);
        if (lg < 0.0 && envelope_mass(a, t) < 1.0)
            return next_envelope(a, r, t);
        double end = a->hour_end_s < a->state_end_s ? a->hour_end_s : a->state_end_s;
        double c = hour_factor(&a->cfg, a->hour) * a->cfg.mmpp_mult[a->state];
        if (c == 0.0) {
            t = end;
            continue;
        }
        double gmax = growth_at(lg, lg > 0.0 ? end : t);
        double bound = c * gmax;
        if (!isfinite(bound))
            return finish(a, INFINITY); /* the intensity overflows a double */
        double mean_gap = 1.0 / bound;
        if (!isfinite(mean_gap)) {
            /* A subnormal bound: an arrival in this window has probability
             * < 1e-300, and GSL would turn an infinite mean into NaN. */
            t = end;
            continue;
        }
        double gap = trace_exponential(r, mean_gap);
        double cand = t + gap;
        if (cand >= end) {
            t = end; /* restart at the window's end */
            continue;
        }
        t = cand;
        if (lg == 0.0)
            return finish(a, t);
        double u = gsl_rng_uniform(r);
        if (u * gmax < growth_at(lg, t))
            return finish(a, t);
    }
}

double trace_arrival_next(trace_arrival *a, gsl_rng *r)
{
    if (!(a->t_s < INFINITY))
        return INFINITY;
    if (a->hpp_rate_per_s >= 0.0) {
        double mean_gap = 1.0 / a->hpp_rate_per_s;
        if (!isfinite(mean_gap)) /* a zero or subnormal rate */
            return finish(a, INFINITY);
        double gap = trace_exponential(r, mean_gap);
        return finish(a, a->t_s + gap);
    }
    if (!a->started)
        mmpp_start(a, r);
    return next_thinning(a, r);
}

/* The integral of c(t) G(t) over [t0, t1] (finite, t0 <= t1), hour by hour:
 * O(hours in [t0, t1]). */
static double integrate_hours(const trace_arrival_cfg *cfg, double lg, double t0, double t1)
{
    double sum = 0.0;
    for (int64_t h = hour_of(cfg, t0);; h++) {
        double a = hour_start(cfg, h), b = hour_start(cfg, h + 1);
        if (a >= t1)
            break;
        if (a < t0)
            a = t0;
        if (b > t1)
            b = t1;
        if (b <= a)
            continue;
        double c = hour_factor(cfg, h);
        if (c == 0.0)
            continue;
        if (lg == 0.0)
            sum += c * (b - a);
        else /* c * month / lg * (G(b) - G(a)) = c * G(a) * month / lg * expm1(lg (b-a)/month) */
            sum += c * growth_at(lg, a) * MONTH_S / lg * expm1(lg * ((b - a) / MONTH_S));
    }
    return sum;
}

/* The stationary mean of the MMPP multiplier. */
static double mmpp_mean(const trace_arrival_cfg *cfg)
{
    if (cfg->mmpp_states == 1)
        return cfg->mmpp_mult[0];
    double num = 0.0, den = 0.0;
    for (uint32_t i = 0; i < cfg->mmpp_states; i++) {
        num += cfg->mmpp_mult[i] * cfg->mmpp_sojourn_s[i];
        den += cfg->mmpp_sojourn_s[i];
    }
    return num / den;
}

double trace_arrival_expected(const trace_arrival_cfg *cfg, double t0_s, double t1_s)
{
    if (cfg_check(cfg, NULL) != TM_OK)
        return NAN;
    if (!(isfinite(t0_s) && fabs(t0_s) <= TRACE_ARRIVAL_T_MAX_S) || isnan(t1_s) ||
        (isfinite(t1_s) && fabs(t1_s) > TRACE_ARRIVAL_T_MAX_S))
        return NAN;
    if (t1_s <= t0_s)
        return 0.0;
    double m = mmpp_mean(cfg);
    if (cfg->rate_per_s == 0.0 || m == 0.0)
        return 0.0;
    double lg = log1p(cfg->growth_per_month);
    if (isfinite(t1_s) && t1_s - t0_s <= 2.0 * WEEK_S)
        return m * integrate_hours(cfg, lg, t0_s, t1_s);

    /* head [t0, wa), whole weeks [wa, wb), tail [wb, t1) */
    double off = cfg->t0_offset_s;
    int64_t k0 = (int64_t)ceil((t0_s + off) / WEEK_S);
    double wa = (double)k0 * WEEK_S - off;
    if (wa < t0_s) /* rounding */
        wa = (double)++k0 * WEEK_S - off;
    double sum = integrate_hours(cfg, lg, t0_s, wa);
    double week = integrate_hours(cfg, lg, wa, wa + WEEK_S);
    double lw = lg * (WEEK_S / MONTH_S); /* ln of the growth over a week */
    if (!isfinite(t1_s)) {
        if (lg >= 0.0)
            return week > 0.0 ? INFINITY : m * sum;
        return m * (sum + week * (-1.0 / expm1(lw))); /* 1 + q + q^2 + ... = 1 / (1 - q) */
    }
    int64_t k1 = (int64_t)floor((t1_s + off) / WEEK_S);
    double wb = (double)k1 * WEEK_S - off;
    if (wb > t1_s)
        wb = (double)--k1 * WEEK_S - off;
    double nweeks = (double)(k1 - k0);
    double series = lw == 0.0 ? nweeks : expm1(nweeks * lw) / expm1(lw);
    sum += week * series;
    sum += integrate_hours(cfg, lg, wb, t1_s);
    return m * sum;
}
