/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleetcost_be.c — whole-fleet breakeven's arithmetic (sim/studies/fleetbe.c)
 * on cases worked by hand.
 *
 * Crossover: own costs 100 at x1 and 160 at x4; the API option 130 and 100.
 * own - api is -30 at x1 and +60 at x4; linear in log(scale) it is 0 a third
 * of the way, at 4^(1/3) = 1.5874: own is cheaper below, the API above.
 * Reserved (120, 480) never crosses own (always above) but crosses the API:
 * -10 + t 390 = 0 -> t = 1/39, 4^(1/39). On-demand (90, 200) crosses own
 * where own - od = 10 - t 50 = 0 -> t = 1/5, 4^(1/5) = 1.3195, own cheaper
 * above; and the API where -40 + t 140 = 0 -> t = 2/7, 4^(2/7) = 1.4860.
 * Four crossovers in all.
 * Always wins: own 50 / 100 at the ends, the next cheapest 100 / 400: own is
 * the cheapest throughout, 50 % below at x0.5 and 75 % below at x2.
 */
#include "check.h"
#include "studies/fleetbe_int.h"

#include <math.h>
#include <string.h>

static void set(sim__fbe_point *p, double scale, double own, double res, double od, double api)
{
    memset(p, 0, sizeof *p);
    p->scale = scale;
    p->found = 1;
    p->usd[SIM__FBE_OWN] = own;
    p->usd[SIM__FBE_RESERVED] = res;
    p->usd[SIM__FBE_ONDEMAND] = od;
    p->usd[SIM__FBE_API] = api;
}

int main(void)
{
    sim__fbe_point p[3];
    sim__fbe_cross c[8];
    set(&p[0], 1, 100, 120, 90, 130);
    set(&p[1], 4, 160, 480, 200, 100);
    size_t n = sim__fbe_crossings(p, 2, c, 8);
    CHECK_EQ_INT(n, 4);
    int seen_api = 0, seen_od = 0, seen_od_api = 0, seen_res_api = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].a == SIM__FBE_OWN && c[i].b == SIM__FBE_API) {
            seen_api = 1;
            CHECK(fabs(c[i].scale - cbrt(4.0)) < 1e-12);
            CHECK_EQ_INT(c[i].a_cheaper_above, 0);
        } else if (c[i].a == SIM__FBE_OWN && c[i].b == SIM__FBE_ONDEMAND) {
            seen_od = 1;
            CHECK(fabs(c[i].scale - pow(4.0, 0.2)) < 1e-12);
            CHECK_EQ_INT(c[i].a_cheaper_above, 1);
        } else if (c[i].a == SIM__FBE_RESERVED && c[i].b == SIM__FBE_API) {
            seen_res_api = 1;
            CHECK(fabs(c[i].scale - pow(4.0, 1.0 / 39)) < 1e-12);
            CHECK_EQ_INT(c[i].a_cheaper_above, 0);
        } else if (c[i].a == SIM__FBE_ONDEMAND && c[i].b == SIM__FBE_API) {
            seen_od_api = 1;
            CHECK(fabs(c[i].scale - pow(4.0, 2.0 / 7)) < 1e-12);
        }
        CHECK(c[i].a != SIM__FBE_RESERVED || c[i].b != SIM__FBE_OWN);
    }
    CHECK(seen_api && seen_od && seen_od_api && seen_res_api);

    sim__fbe_result r;
    memset(&r, 0, sizeof r);
    r.pts = p;
    r.n = 3;
    set(&p[0], 0.5, 50, 100, 120, 150);
    set(&p[1], 1, 70, 150, 200, 250);
    set(&p[2], 2, 100, 400, 450, 500);
    r.n_cross = sim__fbe_crossings(p, 3, r.cross, SIM__FBE_MAX_CROSS);
    CHECK_EQ_INT(r.n_cross, 0);
    char buf[2048];
    sim__fbe_summary(buf, sizeof buf, &r);
    printf("%s", buf);
    CHECK(strstr(buf, "own is the cheapest at every scale from x0.5 to x2") != NULL);
    CHECK(strstr(buf, "50 % below reserved at x0.5") != NULL);
    CHECK(strstr(buf, "75 % below reserved at x2") != NULL);
    /* no fleet found anywhere: said so */
    for (int i = 0; i < 3; i++)
        for (int o = 0; o < SIM__FBE_N; o++)
            p[i].usd[o] = NAN;
    r.n_cross = sim__fbe_crossings(p, 3, r.cross, SIM__FBE_MAX_CROSS);
    CHECK_EQ_INT(r.n_cross, 0);
    sim__fbe_summary(buf, sizeof buf, &r);
    CHECK(strstr(buf, "no option could be priced") != NULL);
    return check_finish("fleetcost_be");
}
