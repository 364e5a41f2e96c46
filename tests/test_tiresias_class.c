/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tiresias_class.c — Tiresias' Gittins index over the per-class
 * distributions a host puts in its view (gittins=class, policies/tiresias.c,
 * docs/tiresias.md), on hand-built views: the order follows indices computed
 * by hand for two-point distributions, each job over its own class's
 * distribution; a view without distributions is refused.
 */
#include "check.h"
#include "place_views.h"

#include <stdio.h>
#include <string.h>

#define S_ (1000000ll)

static pv_host H;
static uint64_t started[PV_MAX];
static uint32_t n_started;

/* The host of these passes: STARTs only (no job here is preemptible). */
static int apply_start(void *host, place_view *v, place_decision *d)
{
    (void)host;
    (void)v;
    if (d->kind != PLACE_START || d->n_parts > PV_PARTS)
        return PLACE_ERR_INVAL;
    place_job *j = &H.queue[d->index];
    int rc = place_cluster_take(&H.c, j, d->parts, d->n_parts);
    if (rc != PLACE_OK)
        return rc;
    H.qstate[d->index] = PLACE_Q_STARTED;
    started[n_started++] = j->id;
    return PLACE_OK;
}

static void wait_job(uint64_t id, uint32_t cls, double att)
{
    place_job j = pv_job(id, 1);
    j.cls = cls;
    j.attained_gpu_s = att;
    pv_queue(&H, j);
}

/* One pass of spec over H with the per-class distributions sd[0..n); the
 * started ids as "4 2 1" into buf. */
static int pass(const char *spec, const place_service_dist *sd, uint32_t n, char *buf, size_t len)
{
    place_env env = pv_env();
    place_instance pi;
    char err[256];
    if (place_instance_init(&pi, &env, spec, err, sizeof err) != PLACE_OK)
        check_fail(__FILE__, __LINE__, "policy '%s': %s", spec, err);
    place_view v = pv_view(&H);
    v.service_dist = sd;
    v.n_service_dist = n;
    place_part parts[16];
    n_started = 0;
    int rc = place_pass_run(&pi, &v, H.qstate, parts, 16, apply_start, NULL, NULL);
    place_instance_fini(&pi);
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < n_started && used + 24 < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%llu", k ? " " : "",
                                 (unsigned long long)started[k]);
    return rc;
}

/* Class 0: {10, 100} GPU-s, equally likely. With D = 10, by hand:
 * G(0) = P(S <= 10) / E[min(S, 10)] = 0.5 / 10 = 0.05, G(5) = 0.5 / (0.5 x 5
 * + 0.5 x 10) = 0.067, G(50) = 0, G(95) = 1 / 5 = 0.2. Four waiting jobs of
 * class 0 with those attained services, 4 GPUs: order 95, 5, 0, 50, the
 * order test_tiresias finds for gittins=10:1,100:1. */
static const double v0[2] = {10, 100}, p0[2] = {0.5, 0.5};

static void test_one_class(void)
{
    uint32_t g[1] = {4};
    char buf[64];
    place_service_dist sd[1] = {{2, v0, p0}};
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 1000 * S_;
    wait_job(1, 0, 0);
    wait_job(2, 0, 5);
    wait_job(3, 0, 50);
    wait_job(4, 0, 95);
    CHECK_EQ_INT(
        pass("tiresias-2dlas thresholds=1e9 gittins=class delta=10", sd, 1, buf, sizeof buf),
        PLACE_OK);
    CHECK_STR(buf, "4 2 1 3");
    pv_fini(&H);
}

/* Two classes, one GPU: job 1 of class 1 arrived first, job 2 of class 0
 * second. Class 1 is {5 with probability p, 1000 otherwise}: with D = 10,
 * G1(0) = p / (5 p + 10 (1 - p)) = p / (10 - 5 p), equal to class 0's 0.05 at
 * p = 0.4. At p = 0.39, G1(0) = 0.0484 < 0.05: job 2 (class 0) goes first;
 * at p = 0.41, G1(0) = 0.0516 > 0.05: job 1 does. Without the index (or under
 * gittins=learn, before any job finished) arrival order: job 1. */
static void two_classes(double p, const char *spec, const char *want)
{
    uint32_t g[1] = {1};
    char buf[64];
    double v1[2] = {5, 1000}, p1[2] = {p, 1 - p};
    place_service_dist sd[2] = {{2, v0, p0}, {2, v1, p1}};
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 1000 * S_;
    wait_job(1, 1, 0);
    wait_job(2, 0, 0);
    CHECK_EQ_INT(pass(spec, sd, 2, buf, sizeof buf), PLACE_OK);
    CHECK_STR(buf, want);
    pv_fini(&H);
}

static void test_two_classes(void)
{
    const char *spec = "tiresias-2dlas thresholds=1e9 gittins=class delta=10";
    two_classes(0.39, spec, "2");
    two_classes(0.41, spec, "1");
    two_classes(0.39, "tiresias-2dlas thresholds=1e9 delta=10", "1");
    two_classes(0.39, "tiresias-2dlas thresholds=1e9 gittins=learn delta=10", "1");
    /* the same distribution given once for all jobs orders by arrival: the
     * index is per class only under gittins=class */
    two_classes(0.39, "tiresias-2dlas thresholds=1e9 gittins=10:1,100:1 delta=10", "1");
}

/* Executed service counts against the job's own class: job 1 of class 1
 * ({5: 0.39, 1000: 0.61}) has 995 GPU-s, so G1(995) = 1 / 5 = 0.2 beats
 * job 2's G0(0) = 0.05 (job 1 is in a lower queue under the default
 * thresholds, so this runs with one queue). */
static void test_attained_per_class(void)
{
    uint32_t g[1] = {1};
    char buf[64];
    double v1[2] = {5, 1000}, p1[2] = {0.39, 0.61};
    place_service_dist sd[2] = {{2, v0, p0}, {2, v1, p1}};
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 1000 * S_;
    wait_job(2, 0, 0);
    wait_job(1, 1, 995);
    CHECK_EQ_INT(
        pass("tiresias-2dlas thresholds=1e9 gittins=class delta=10", sd, 2, buf, sizeof buf),
        PLACE_OK);
    CHECK_STR(buf, "1");
    pv_fini(&H);
}

/* A host without distributions, or with a bad one, is refused (the engine
 * checks every class before a run: tests/tiresias_gittins.sh). A class with
 * no points, or a job of a class past the table, gets index 0. */
static void test_refused(void)
{
    uint32_t g[1] = {1};
    char buf[64];
    const char *spec = "tiresias-2dlas thresholds=1e9 gittins=class delta=10";
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 1000 * S_;
    wait_job(1, 1, 0);
    wait_job(2, 0, 0);
    CHECK_EQ_INT(pass(spec, NULL, 0, buf, sizeof buf), PLACE_ERR_SPEC);
    double bad_v[1] = {-1}, bad_p[1] = {1};
    place_service_dist bad[1] = {{1, bad_v, bad_p}};
    CHECK_EQ_INT(pass(spec, bad, 1, buf, sizeof buf), PLACE_ERR_SPEC);
    double zero_p[1] = {0};
    place_service_dist zero[1] = {{1, v0, zero_p}};
    CHECK_EQ_INT(pass(spec, zero, 1, buf, sizeof buf), PLACE_ERR_SPEC);
    /* class 0 known, class 1 past the table: G1 = 0 < G0(0) = 0.05 */
    place_service_dist one[1] = {{2, v0, p0}};
    CHECK_EQ_INT(pass(spec, one, 1, buf, sizeof buf), PLACE_OK);
    CHECK_STR(buf, "2");
    pv_fini(&H);
    char err[256];
    place_env env = pv_env();
    place_instance pi;
    CHECK_EQ_INT(place_instance_init(&pi, &env, "tiresias-2dlas gittins=classes", err, sizeof err),
                 PLACE_ERR_SPEC);
    CHECK(strstr(err, "gittins=classes") != NULL);
    CHECK_EQ_INT(place_instance_init(&pi, &env, "tiresias-2dlas gittins=class gittins=learn", err,
                                     sizeof err),
                 PLACE_ERR_SPEC);
}

int main(void)
{
    test_one_class();
    test_two_classes();
    test_attained_per_class();
    test_refused();
    return check_finish("test_tiresias_class");
}
