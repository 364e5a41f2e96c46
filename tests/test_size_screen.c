/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_size_screen.c — screening in sizing (sim/studies/size_search.c): a
 * cheap screen steers the search, the full evaluation confirms its answer.
 * Closed forms stand in for both evaluations, so every case knows the true
 * answer:
 *   - sim__size_fewest_confirm from every screened answer (too low, right,
 *     too high, none) gives the full threshold, with n - 1 failing in full;
 *   - sim__size_fewest_guess gives sim__size_fewest's answer from any guess;
 *   - sim__size_search with a screen whose threshold is wrong (lower,
 *     higher, never passing) gives the unscreened search's answer, its
 *     neighbours and (two pools) its whole frontier, and counts the
 *     corrections; with a right screen it simulates only the answer, n - 1
 *     and the neighbours in full.
 */
#include "check.h"

#include "studies/size_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* passes when a x wa + b x wb >= need (one pool: wb = 0) */
typedef struct form {
    double need, wa, wb;
    size_t calls;
} form;

static int form_pass(const form *f, const uint32_t *nodes)
{
    return f->wa * nodes[0] + f->wb * nodes[1] >= f->need;
}

typedef struct pair {
    form screen, full;
} pair;

static int screen_pass(void *ud, const uint32_t *nodes, int *ok)
{
    pair *p = ud;
    p->screen.calls++;
    *ok = form_pass(&p->screen, nodes);
    return TM_OK;
}

static int full_pass(void *ud, const uint32_t *nodes, int *ok)
{
    pair *p = ud;
    p->full.calls++;
    *ok = form_pass(&p->full, nodes);
    return TM_OK;
}

static void test_confirm(void)
{
    const uint32_t lo = 3, hi = 60;
    for (uint32_t truth = 0; truth <= 70; truth++) {
        for (uint32_t cand = lo; cand <= hi + 1; cand++) {
            pair p = {{0, 1, 0, 0}, {truth, 1, 0, 0}};
            uint32_t nodes[SIM__SIZE_MAX_VARY] = {0};
            int found = -1;
            sim__size_screen_stats st;
            memset(&st, 0, sizeof st);
            int cand_found = cand <= hi; /* hi + 1 stands for "the screen passed nothing" */
            CHECK_EQ_INT(sim__size_fewest_confirm(full_pass, &p, nodes, 0, lo, hi, cand, cand_found,
                                                  &found, &st),
                         TM_OK);
            uint32_t want = truth < lo ? lo : truth;
            if (truth > hi) {
                CHECK_EQ_INT(found, 0);
                CHECK_EQ_INT(st.full_found, 0);
                continue;
            }
            CHECK_EQ_INT(found, 1);
            if (nodes[0] != want)
                check_fail(__FILE__, __LINE__, "truth %u, screen %u: got %u", truth, cand,
                           nodes[0]);
            /* the promise: n passes in full, n - 1 fails in full (or n = lo) */
            int ok;
            full_pass(&p, nodes, &ok);
            CHECK(ok);
            if (nodes[0] > lo) {
                uint32_t m[SIM__SIZE_MAX_VARY] = {nodes[0] - 1};
                full_pass(&p, m, &ok);
                CHECK(!ok);
            }
            CHECK_EQ_INT(st.searches, 1);
            CHECK_EQ_INT(st.agreed + st.corrected, 1);
            CHECK_EQ_INT(st.agreed, cand_found && cand == want);
            /* a right screen costs two full evaluations (one at the floor) */
            if (cand_found && cand == want)
                CHECK(st.full_evals <= 2);
        }
    }
}

static void test_guess(void)
{
    for (uint32_t truth = 0; truth <= 40; truth++)
        for (uint32_t guess = 0; guess <= 45; guess++) {
            pair p = {{truth, 1, 0, 0}, {truth, 1, 0, 0}};
            uint32_t a[SIM__SIZE_MAX_VARY] = {0}, b[SIM__SIZE_MAX_VARY] = {0};
            int fa, fb;
            CHECK_EQ_INT(sim__size_fewest(screen_pass, &p, a, 0, 2, 33, &fa), TM_OK);
            CHECK_EQ_INT(sim__size_fewest_guess(screen_pass, &p, b, 0, 2, 33, guess, &fb), TM_OK);
            CHECK_EQ_INT(fb, fa);
            if (fa)
                CHECK_EQ_INT(b[0], a[0]);
        }
}

/* sim__size_eval_fn over a form (ud is the form); cost: a + 3 b per month */
static int form_eval(void *ud, const uint32_t *nodes, double demand, sim__size_eval *out,
                     tm_diag *diag)
{
    (void)demand;
    (void)diag;
    form *f = ud;
    f->calls++;
    memset(out, 0, sizeof *out);
    out->pass = form_pass(f, nodes);
    out->why = out->pass ? -1 : 0;
    for (int k = 0; k < SIM__SIZE_N_AS; k++)
        out->usd_per_month[k] = nodes[0] + 3.0 * nodes[1];
    out->replications = 1;
    return TM_OK;
}

static void run_search(size_t nv, form *full, form *screen, uint32_t guess, sim__size_answer *a,
                       sim__size_screen_stats *st)
{
    sim__size_cache cache = {0}, scache = {0};
    sim__size_search_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_vary = nv;
    for (size_t k = 0; k < nv; k++)
        cfg.max[k] = 200;
    cfg.demand = 1;
    cfg.eval = form_eval;
    cfg.ud = full;
    cfg.cache = &cache;
    if (screen) {
        cfg.screen = form_eval;
        cfg.screen_ud = screen;
        cfg.screen_cache = &scache;
        cfg.screen_stats = st;
        cfg.screen_guess[0] = guess;
    }
    tm_diag d;
    tm_diag_clear(&d);
    CHECK_EQ_INT(sim__size_search(&cfg, a, &d), TM_OK);
    CHECK_EQ_U64(a->evaluations, cache.n);
    sim__size_cache_fini(&cache);
    sim__size_cache_fini(&scache);
}

static void same_answer(const sim__size_answer *x, const sim__size_answer *y, size_t nv)
{
    CHECK_EQ_INT(x->found, y->found);
    for (size_t k = 0; k < nv; k++)
        CHECK_EQ_INT(x->best.nodes[k], y->best.nodes[k]);
    CHECK_EQ_INT(x->n_frontier, y->n_frontier);
    for (size_t i = 0; i < x->n_frontier && i < y->n_frontier; i++)
        for (size_t k = 0; k < nv; k++)
            CHECK_EQ_INT(x->frontier[i].nodes[k], y->frontier[i].nodes[k]);
    CHECK_EQ_INT(x->n_neighbours, y->n_neighbours);
    for (size_t i = 0; i < x->n_neighbours && i < y->n_neighbours; i++) {
        CHECK_EQ_INT(x->neighbours[i].eval.pass, y->neighbours[i].eval.pass);
        for (size_t k = 0; k < nv; k++)
            CHECK_EQ_INT(x->neighbours[i].nodes[k], y->neighbours[i].nodes[k]);
    }
}

static void test_search_one_pool(void)
{
    /* the screen's threshold wrong by -9 .. +9 nodes, or never passing */
    for (int need = 1; need <= 90; need += 11)
        for (int err = -9; err <= 10; err++) {
            form full = {need, 1, 0, 0}, ref = full;
            form scr = {err == 10 ? 1e9 : need + err, 1, 0, 0};
            sim__size_answer plain, screened;
            sim__size_screen_stats st;
            memset(&st, 0, sizeof st);
            run_search(1, &ref, NULL, 0, &plain, NULL);
            run_search(1, &full, &scr, err % 2 ? (uint32_t)need + 5 : 0, &screened, &st);
            same_answer(&plain, &screened, 1);
            CHECK_EQ_INT(screened.best.nodes[0], need);
            CHECK_EQ_INT(st.searches, 1);
            /* a wrong verdict at the answer is corrected, a right one confirmed */
            int right = err == 0;
            CHECK_EQ_INT(st.corrected, !right);
            CHECK_EQ_INT(st.agreed, right);
            if (right) /* the answer, n - 1 and n + 1 only */
                CHECK(full.calls <= 3);
            sim__size_answer_fini(&plain);
            sim__size_answer_fini(&screened);
        }
    /* nothing within max passes in full; the screen says something does */
    form full = {1e9, 1, 0, 0}, scr = {10, 1, 0, 0};
    sim__size_answer a;
    sim__size_screen_stats st;
    memset(&st, 0, sizeof st);
    run_search(1, &full, &scr, 0, &a, &st);
    CHECK_EQ_INT(a.found, 0);
    CHECK_EQ_INT(st.corrected, 1);
    sim__size_answer_fini(&a);
}

static void test_search_two_pools(void)
{
    /* a plane 2a + b >= need: the staircase's frontier, screened by a plane
     * that is off in either direction, equals the unscreened one */
    for (int need = 4; need <= 30; need += 13)
        for (int err = -3; err <= 3; err++) {
            form full = {need, 2, 1, 0}, ref = full, scr = {need + err, 2, 1, 0};
            sim__size_answer plain, screened;
            sim__size_screen_stats st;
            memset(&st, 0, sizeof st);
            run_search(2, &ref, NULL, 0, &plain, NULL);
            run_search(2, &full, &scr, 0, &screened, &st);
            CHECK_EQ_INT(plain.found, 1);
            same_answer(&plain, &screened, 2);
            CHECK(st.searches > 0);
            if (err != 0)
                CHECK(st.corrected > 0);
            sim__size_answer_fini(&plain);
            sim__size_answer_fini(&screened);
        }
}

int main(void)
{
    test_confirm();
    test_guess();
    test_search_one_pool();
    test_search_two_pools();
    return check_finish("test_size_screen");
}
