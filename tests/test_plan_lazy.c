/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_plan_lazy.c — lazy confirmation in the greedy purchase plan
 * (sim/studies/plan.c, lazy_period; docs/plan.md, "Confirmation"), on hand
 * cases. The scenario is tests/plan_tiny.json (pools big: H100 x 8 at
 * $16,000 a quarter of depreciation, small: L40S x 4 at $2,000; 2 + 1 nodes
 * installed); every verdict, the screen's and the full evaluation's, is
 * written into the two caches before the search, by a rule stated here, so
 * the search simulates nothing and each case's answer is known by hand:
 *
 *   period 1 (demand x1): every fleet passes, screen and full.
 *   period 2 (demand x1.3), the screen: big + small / 2 >= 3, so its minimal
 *   mixes are 2 + 2 ($36,000 a quarter) and 3 + 1 ($50,000).
 *   case "step":  in full, big + small / 2 >= 3.5. The cheapest screened
 *                 mix 2 + 2 fails in full; its pool (small) steps up to 2 + 3
 *                 ($38,000), which passes in full with 2 + 2 failing: chosen.
 *                 3 + 1 is never simulated in full.
 *   case "next":  in full, big >= 3. 2 + 2 fails in full and so does every
 *                 count of small up to --max-nodes 4: dropped; the next
 *                 candidate 3 + 1 is confirmed (passes, 2 + 1 fails) and
 *                 chosen.
 *   case "next" with --lookahead 0: the screen's staircase cuts 3 + 1 by its
 *                 cost bound (it cannot be chosen if 2 + 2 is, on the
 *                 estimates), so when 2 + 2 is dropped no candidate is left:
 *                 the period is searched again with every answer confirmed
 *                 in full, which finds 3 + 1.
 *   case "all":   the "step" rule with --confirm-all: every search's answer
 *                 is confirmed as it is reached, so 3 + 1 is simulated in
 *                 full too (the evidence differs, the choice does not).
 *   case "screen passes nothing": the "step" rule in full, but the screen
 *                 fails every fleet at x1.3: no candidate, so the period is
 *                 searched again with every answer confirmed in full, which
 *                 finds 2 + 3 ($38,000), as --confirm-all does (not the
 *                 largest fleet walked down, which stops at 3 + 1, $50,000).
 *   case "floor": a confirmation that lands on its pool's floor has the
 *                 dearest other pool that grew walked down in full (below).
 *   case "implied": three quarters, period 2 as in "step"; the roll-out
 *                 from 3 + 1 into period 3 asks for 3 + 1 at x1.69, left out
 *                 of the screen's cache: 3 + 2 failing there implies it
 *                 fails (plan.c, implied), so nothing is simulated and the
 *                 plan and the roll-outs' costs are those with the verdict
 *                 written in (without the implication the screen would run
 *                 on the real scenario, where 3 + 1 passes).
 *
 * Checked: the schedule; the evidence of each candidate (screened verdict,
 * full verdict with its replications, origin, chosen); every chosen fleet
 * confirmed in full with all R replications; the spread's neighbour is the
 * confirmed pool's; and that nothing was simulated (the runner ran 0 runs).
 */
#include "check.h"

#include "config/config.h"
#include "studies/plan_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { RULE_STEP, RULE_NEXT };

#define R 3 /* replications */

static void put(sim__size_cache *c, uint32_t big, uint32_t small, double demand, int pass,
                uint32_t runs)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->e = realloc(c->e, c->cap * sizeof *c->e);
        if (!c->e)
            abort();
    }
    sim__size_cache_entry *x = &c->e[c->n++];
    memset(x, 0, sizeof *x);
    x->nodes[0] = big;
    x->nodes[1] = small;
    x->demand = demand;
    sim__size_eval *e = &x->eval;
    e->pass = pass;
    e->why = pass ? -1 : 0;
    e->n_terms = 1;
    e->replications = runs;
    e->reps_meeting = pass ? runs : 0;
    e->gpus = 8.0 * big + 4.0 * small;
    /* straight-line depreciation alone: $16,000 and $2,000 a quarter */
    double month = (16000.0 * big + 2000.0 * small) / 3;
    for (int a = 0; a < SIM__SIZE_N_AS; a++)
        e->usd_per_month[a] = month;
}

static int full_rule(int rule, uint32_t big, uint32_t small)
{
    return rule == RULE_STEP ? 2.0 * big + small >= 7 : big >= 3;
}

static const sim__plan_cand *cand_of(const sim__plan *pl, uint32_t t, uint32_t big, uint32_t small)
{
    for (size_t i = 0; i < pl->n_cand; i++)
        if (pl->cand[i].period == t && pl->cand[i].nodes[0] == big && pl->cand[i].nodes[1] == small)
            return &pl->cand[i];
    return NULL;
}

/* The world of every case: plan_tiny.json's two pools searched for
 * wait_p95 <= 30m with R replications in full and 2 on the screen, their
 * verdicts in two caches the cases fill by hand, 30 % growth a quarter,
 * a one-quarter lead time, at most 4 nodes a pool. */
typedef struct {
    sim__size_term terms[SIM__SIZE_MAX_TERMS];
    sim__size_runner run, scr;
    sim__size_cache full, screen;
    sim__plan_cfg cfg;
} world;

static void world_init(world *w, const sim_scenario *sc, size_t periods, uint32_t lookahead)
{
    tm_diag d;
    tm_diag_clear(&d);
    memset(w, 0, sizeof *w);
    size_t nt = 0;
    CHECK_EQ_INT(
        sim__size_parse_targets("wait_p95<=30m", sc, w->terms, SIM__SIZE_MAX_TERMS, &nt, &d),
        TM_OK);
    w->run.base = sc;
    w->run.terms = w->terms;
    w->run.n_terms = nt;
    w->run.n_vary = 2;
    w->run.vary[0] = 0;
    w->run.vary[1] = 1;
    w->run.replications = R;
    w->run.confidence = 0.95;
    w->run.workers = 1;
    w->run.warmup_us = sc->horizon_us / 10;
    w->scr = w->run;
    w->scr.replications = 2;
    sim__plan_cfg *cfg = &w->cfg;
    cfg->run = &w->run;
    cfg->cache = &w->full;
    cfg->screen = &w->scr;
    cfg->screen_cache = &w->screen;
    cfg->n_periods = periods;
    cfg->months_per_period = 3;
    cfg->growth = 0.3;
    cfg->demand0 = 1;
    cfg->budget_usd = INFINITY;
    cfg->lookahead = lookahead;
    for (size_t k = 0; k < 2; k++) {
        cfg->installed[k] = sc->pools[k].nodes;
        cfg->lead[k] = 1;
        cfg->max_nodes[k] = 4;
        cfg->node_usd[k] = k ? 40000 : 320000;
    }
}

static int screen_none; /* the case "screen passes nothing" */

static void run_case(const sim_scenario *sc, int rule, int confirm_all, uint32_t lookahead,
                     uint32_t want_big, uint32_t want_small, const char *name)
{
    tm_diag d;
    tm_diag_clear(&d);
    world w;
    world_init(&w, sc, 2, lookahead);
    w.cfg.confirm_all = confirm_all;
    double d1 = sim__plan_demand(&w.cfg, 1);
    for (uint32_t b = 0; b <= 4; b++)
        for (uint32_t s = 0; s <= 4; s++) {
            put(&w.full, b, s, 1, 1, R);
            put(&w.screen, b, s, 1, 1, 2);
            int fp = full_rule(rule, b, s);
            put(&w.full, b, s, d1, fp, fp ? R : 2); /* a failing fleet: stopped after 2 */
            put(&w.screen, b, s, d1, !screen_none && 2.0 * b + s >= 6, 2);
        }
    sim__plan pl;
    int rc = sim__plan_greedy(&w.cfg, &pl, &d);
    if (rc != TM_OK)
        fprintf(stderr, "%s: %s: %s\n", name, d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_INT(pl.found, 1);
    CHECK_EQ_INT((int)w.run.runs, 0); /* every verdict came from the caches */
    CHECK_EQ_INT((int)w.scr.runs, 0);
    CHECK_EQ_INT((int)pl.n_periods, 2);
    if (rc != TM_OK || pl.n_periods != 2) {
        sim__plan_fini(&pl);
        sim__size_cache_fini(&w.full);
        sim__size_cache_fini(&w.screen);
        return;
    }
    CHECK_EQ_INT(pl.p[0].nodes[0], 2);
    CHECK_EQ_INT(pl.p[0].nodes[1], 1);
    if (pl.p[1].nodes[0] != want_big || pl.p[1].nodes[1] != want_small)
        check_fail(__FILE__, __LINE__, "%s: period 2 chose %u + %u, expected %u + %u", name,
                   pl.p[1].nodes[0], pl.p[1].nodes[1], want_big, want_small);
    /* every chosen fleet: a candidate confirmed in full with all R runs */
    for (uint32_t t = 0; t < 2; t++) {
        size_t chosen = 0;
        for (size_t i = 0; i < pl.n_cand; i++) {
            const sim__plan_cand *c = &pl.cand[i];
            if (c->period != t || !c->chosen)
                continue;
            chosen++;
            CHECK_EQ_INT(c->nodes[0], pl.p[t].nodes[0]);
            CHECK_EQ_INT(c->nodes[1], pl.p[t].nodes[1]);
            CHECK_EQ_INT(c->full, 1);
            CHECK_EQ_INT((int)c->full_runs, R);
            CHECK_EQ_INT((int)c->full_meeting, R);
        }
        CHECK_EQ_INT((int)chosen, 1);
        CHECK_EQ_INT(pl.p[t].eval.pass, 1);
        CHECK_EQ_INT((int)pl.p[t].eval.replications, R);
    }
    const sim__plan_cand *c22 = cand_of(&pl, 1, 2, 2), *c31 = cand_of(&pl, 1, 3, 1),
                         *c23 = cand_of(&pl, 1, 2, 3);
    /* with --confirm-all the staircase confirmed each step as it went: 2 + 2
     * never became a candidate; nor when the screen passed nothing (the
     * period searched again with every answer confirmed: conf_pool -1) */
    CHECK(confirm_all || screen_none ? c22 == NULL : c22 != NULL);
    if (screen_none && !confirm_all)
        CHECK_EQ_INT(pl.p[1].conf_pool, -1);
    /* searched again: lazily, when no candidate was left (the screen passed
     * nothing, or "next" with the look-ahead 0); never the first period, never
     * with --confirm-all */
    CHECK_EQ_INT(pl.p[0].searched_again, 0);
    CHECK_EQ_INT(pl.p[1].searched_again,
                 !confirm_all && (screen_none || (rule == RULE_NEXT && !lookahead)));
    CHECK(c31 != NULL);
    if (confirm_all && c31 && c23) {
        CHECK_EQ_INT(c23->origin, 0);
        CHECK_EQ_INT(c23->full, 1);
        CHECK_EQ_INT(c23->chosen, 1);
        CHECK_EQ_INT(c31->full, 1);
        CHECK_EQ_INT(c31->chosen, 0);
    }
    if (!c22 || !c31) {
        CHECK(fabs(pl.own_usd - 72000) < 1e-6);
        sim__plan_fini(&pl);
        sim__size_cache_fini(&w.full);
        sim__size_cache_fini(&w.screen);
        return;
    }
    /* the screen's cheapest mix, 2 + 2, passed the screen and failed in full
     * (2 runs: the sequential stop); its pool is small */
    CHECK_EQ_INT(c22->origin, 0);
    CHECK_EQ_INT(c22->screen, 1);
    CHECK_EQ_INT(c22->full, 0);
    CHECK_EQ_INT((int)c22->full_runs, 2);
    CHECK_EQ_INT(c22->pool, 1);
    CHECK_EQ_INT(c22->chosen, 0);
    CHECK(fabs(c22->screen_usd - 36000) < 1e-6);
    CHECK_EQ_INT(c31->screen, 1);
    CHECK_EQ_INT(c31->pool, 0); /* small at its floor: the staircase's a_top end */
    if (rule == RULE_STEP) {
        CHECK(c23 != NULL);
        if (c23) {
            CHECK_EQ_INT(c23->origin, 1);
            CHECK_EQ_INT(c23->full, 1);
            CHECK_EQ_INT(c23->chosen, 1);
            CHECK(fabs(c23->usd - 38000) < 1e-6);
        }
        /* lazily, 3 + 1 was only screened */
        CHECK_EQ_INT(c31->full, -1);
        CHECK_EQ_INT(c31->chosen, 0);
        /* the spread: one small node fewer (2 + 2), failing in full, on the
         * 2 replications it ran */
        CHECK_EQ_INT(pl.p[1].fewer_pool, 1);
        CHECK_EQ_INT((int)pl.p[1].fewer_meeting, 0);
        CHECK_EQ_INT((int)pl.p[1].fewer_runs, 2);
    } else {
        /* nothing in the small pool passes with 2 big nodes: the next
         * candidate is confirmed and chosen */
        CHECK(c23 == NULL);
        CHECK_EQ_INT(c31->full, 1);
        CHECK_EQ_INT(c31->chosen, 1);
        /* with the look-ahead 0 the screen's staircase cut 3 + 1 (its cost
         * bound, $50,000, is above 2 + 2's estimated $36,000): no candidate
         * was left, and the period was searched again with every answer
         * confirmed (conf_pool -1: the spread's pool is then the dearest) */
        CHECK_EQ_INT(pl.p[1].conf_pool, lookahead ? 0 : -1);
        CHECK_EQ_INT(pl.p[1].fewer_pool, 0); /* 2 + 1, failing in full */
        CHECK_EQ_INT((int)pl.p[1].fewer_meeting, 0);
    }
    CHECK(fabs(pl.own_usd - (34000 + (rule == RULE_STEP ? 38000 : 50000))) < 1e-6);
    printf("%s: period 2 chose %u + %u, %zu candidates recorded, $%.0f\n", name, pl.p[1].nodes[0],
           pl.p[1].nodes[1], pl.n_cand, pl.own_usd);
    sim__plan_fini(&pl);
    sim__size_cache_fini(&w.full);
    sim__size_cache_fini(&w.screen);
}

/* Roll-outs reuse the verdicts the monotonicity they assume implies
 * (plan.c, implied; docs/plan.md, "Roll-outs on estimates"). Three
 * quarters; period 2 as in case "step" (candidates 2 + 2 and 3 + 1, both
 * rolled out into period 3; 2 + 3 chosen); at period 3's demand x1.69 a
 * fleet passes, screen and full, when big + small / 2 >= 4.5. The roll-out
 * from 3 + 1 first asks for 3 + 1 at x1.69 itself; with drop set it is left
 * out of the screen's cache, and 3 + 2 (which fails, with at least its
 * nodes in every pool) implies that it fails: nothing is simulated, and
 * the plan, the candidates and their roll-outs' costs are those with the
 * verdict written in. Period 3 never asks for 3 + 1 (its fleet has at
 * least 3 small nodes), so without the implication the screen would run. */
static void run_implied(const sim_scenario *sc, int drop, sim__plan *out)
{
    tm_diag d;
    tm_diag_clear(&d);
    world w;
    world_init(&w, sc, 3, 2);
    double d1 = sim__plan_demand(&w.cfg, 1), d2 = sim__plan_demand(&w.cfg, 2);
    for (uint32_t b = 0; b <= 4; b++)
        for (uint32_t s = 0; s <= 4; s++) {
            put(&w.full, b, s, 1, 1, R);
            put(&w.screen, b, s, 1, 1, 2);
            int fp = full_rule(RULE_STEP, b, s);
            put(&w.full, b, s, d1, fp, fp ? R : 2);
            put(&w.screen, b, s, d1, 2.0 * b + s >= 6, 2);
            int p2 = 2.0 * b + s >= 9;
            put(&w.full, b, s, d2, p2, p2 ? R : 2);
            if (!(drop && b == 3 && s == 1))
                put(&w.screen, b, s, d2, p2, 2);
        }
    int rc = sim__plan_greedy(&w.cfg, out, &d);
    if (rc != TM_OK)
        fprintf(stderr, "implied: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_INT(out->found, 1);
    CHECK_EQ_INT((int)w.run.runs, 0);
    CHECK_EQ_INT((int)w.scr.runs, 0);
    CHECK_EQ_INT((int)out->n_periods, 3);
    if (drop)
        CHECK(out->implied >= 1);
    sim__size_cache_fini(&w.full);
    sim__size_cache_fini(&w.screen);
}

/* The floor walk: a confirmation that lands its pool at the floor (the
 * fleet in service) has simulated no fleet one node fewer there, so the
 * dearest other pool that grew is walked down in full instead. The screen
 * here passes 2b + s >= 8 (mixes 2 + 4, 3 + 2, 4 + 1), the full rule is
 * "next" (big >= 3): 2 + 4 fails in full and nothing in small passes with
 * 2 big nodes, so it is dropped; 3 + 2, confirmed along small, lands on
 * 3 + 1 (small at its floor of 1); big is walked down: 2 + 1 fails in full,
 * so 3 + 1 is chosen, confirmed in big, its spread neighbour 2 + 1 (big,
 * failing on its 2 replications). Without the walk, 3 + 1 stays confirmed
 * in small and the spread's neighbour is small's 3 + 0, below the fleet in
 * service (this case then fails). */
static void floor_case(const sim_scenario *sc)
{
    tm_diag d;
    tm_diag_clear(&d);
    world w;
    world_init(&w, sc, 2, 2);
    double d1 = sim__plan_demand(&w.cfg, 1);
    for (uint32_t b = 0; b <= 4; b++)
        for (uint32_t s = 0; s <= 4; s++) {
            put(&w.full, b, s, 1, 1, R);
            put(&w.screen, b, s, 1, 1, 2);
            int fp = full_rule(RULE_NEXT, b, s);
            put(&w.full, b, s, d1, fp, fp ? R : 2);
            put(&w.screen, b, s, d1, 2.0 * b + s >= 8, 2);
        }
    sim__plan pl;
    int rc = sim__plan_greedy(&w.cfg, &pl, &d);
    if (rc != TM_OK)
        fprintf(stderr, "floor: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_INT((int)w.run.runs, 0);
    CHECK_EQ_INT((int)w.scr.runs, 0);
    if (rc == TM_OK && pl.n_periods == 2) {
        CHECK_EQ_INT(pl.p[1].nodes[0], 3);
        CHECK_EQ_INT(pl.p[1].nodes[1], 1);
        CHECK_EQ_INT(pl.p[1].conf_pool, 0);
        CHECK_EQ_INT(pl.p[1].fewer_pool, 0);
        CHECK_EQ_INT((int)pl.p[1].fewer_meeting, 0);
        CHECK_EQ_INT((int)pl.p[1].fewer_runs, 2);
        const sim__plan_cand *c = cand_of(&pl, 1, 3, 1);
        CHECK(c != NULL && c->chosen && c->full == 1 && c->pool == 0);
        printf("floor: period 2 chose %u + %u, confirmed in pool %d, one fewer in pool %d\n",
               pl.p[1].nodes[0], pl.p[1].nodes[1], pl.p[1].conf_pool, pl.p[1].fewer_pool);
    }
    sim__plan_fini(&pl);
    sim__size_cache_fini(&w.full);
    sim__size_cache_fini(&w.screen);
}

static void implied_case(const sim_scenario *sc)
{
    sim__plan a, b;
    run_implied(sc, 0, &a);
    run_implied(sc, 1, &b);
    CHECK_EQ_INT((int)a.n_periods, (int)b.n_periods);
    for (size_t t = 0; t < a.n_periods && t < b.n_periods; t++)
        for (size_t k = 0; k < 2; k++)
            CHECK_EQ_INT(a.p[t].nodes[k], b.p[t].nodes[k]);
    CHECK(fabs(a.own_usd - b.own_usd) < 1e-6);
    CHECK_EQ_INT((int)a.n_cand, (int)b.n_cand);
    const sim__plan_cand *c31 = cand_of(&b, 1, 3, 1), *c31a = cand_of(&a, 1, 3, 1);
    CHECK(c31 != NULL && c31a != NULL);
    if (c31 && c31a) {
        CHECK(isfinite(c31->ahead));
        CHECK(fabs(c31->ahead - c31a->ahead) < 1e-6);
    }
    printf("implied: period 3 chose %u + %u, $%.0f; 3 + 1 rolled out at $%.0f, %zu verdicts "
           "implied\n",
           b.p[2].nodes[0], b.p[2].nodes[1], b.own_usd, c31 ? c31->ahead : NAN, b.implied);
    sim__plan_fini(&a);
    sim__plan_fini(&b);
}

int main(void)
{
    const char *src = getenv("TARMAC_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/plan_tiny.json", src ? src : ".");
    sim_scenario sc;
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim_scenario_load_file(&sc, path, &d);
    if (rc != TM_OK)
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        run_case(&sc, RULE_STEP, 0, 2, 2, 3, "step");
        run_case(&sc, RULE_NEXT, 0, 2, 3, 1, "next");
        run_case(&sc, RULE_NEXT, 0, 0, 3, 1, "next, look-ahead 0 (searched again)");
        run_case(&sc, RULE_STEP, 1, 2, 2, 3, "all");
        screen_none = 1;
        run_case(&sc, RULE_STEP, 0, 2, 2, 3, "screen passes nothing");
        run_case(&sc, RULE_STEP, 1, 2, 2, 3, "screen passes nothing, --confirm-all");
        screen_none = 0;
        floor_case(&sc);
        implied_case(&sc);
        sim_scenario_fini(&sc);
    }
    return check_finish("test_plan_lazy");
}
