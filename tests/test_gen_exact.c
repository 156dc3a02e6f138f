/* Method exact and hitfam/exact.h: families checked by the oracle, minimality checked by an
 * exhaustive search over the linear extensions of tiny orders, the proved optima of every rooted
 * tree up to 8 events (d = 3) against tests/data, auto against them, the budget, determinism,
 * minimize --sat's entry point, and every allocation failing in turn. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "hitfam/exact.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(gen_exact);

/* Without the SAT solver every test here is skipped: test_exact_nosat.c checks the refusal. */
#define NEED_SAT()                                                                                 \
    do {                                                                                           \
        if (!hf_exact_available())                                                                 \
            cr_skip_test("this build has no SAT solver");                                          \
    } while (0)

static hf_family *solve(const hf_poset *p, unsigned d, uint64_t conflicts, hf_exact_result *r)
{
    hf_exact_options o;
    hf_exact_options_init(&o);
    o.d = d;
    o.conflicts = conflicts;
    hf_family *f = NULL;
    hf_error err;
    hf_status st = hf_exact_solve(p, &o, &f, r, &err);
    cr_assert_eq(st, HF_OK, "exact: %s", err.text);
    return f;
}

/* The family's rows respect the order and hit every admissible d-tuple (oracle.h). */
static void check_hitting(const hf_poset *p, const hf_family *f, unsigned d)
{
    uint32_t n = hf_poset_size(p);
    size_t m = hf_family_size(f);
    uint32_t *rows = malloc((m ? m : 1) * (n ? n : 1) * sizeof *rows);
    uint32_t *pos = malloc((n ? n : 1) * sizeof *pos);
    for (size_t i = 0; i < m; i++) {
        const uint32_t *s = hf_family_schedule(f, i);
        memcpy(rows + i * n, s, n * sizeof *s);
        for (uint32_t j = 0; j < n; j++)
            pos[s[j]] = j;
        cr_assert(tu_respects_edges(p, pos), "schedule %zu violates the order", i);
    }
    cr_assert(tu_oracle_hitting(p, rows, m, d, NULL), "exact's %zu schedules are not %u-hitting", m,
              d);
    free(rows);
    free(pos);
}

/* ---- exhaustive minimality: no family of m - 1 linear extensions is d-hitting ---- */

typedef struct brute {
    uint32_t n, d;
    size_t ext, tuples, best_hits;
    uint8_t *hit; /* ext * tuples: extension e hits tuple t */
    uint32_t *cover;
} brute;

static bool brute_rec(brute *b, size_t left)
{
    size_t open = 0, first = SIZE_MAX;
    for (size_t t = 0; t < b->tuples; t++)
        if (!b->cover[t]) {
            open++;
            first = first == SIZE_MAX ? t : first;
        }
    if (open == 0)
        return true;
    if (left == 0 || open > left * b->best_hits)
        return false;
    /* some extension must hit the first open tuple */
    for (size_t e = 0; e < b->ext; e++) {
        if (!b->hit[e * b->tuples + first])
            continue;
        for (size_t t = 0; t < b->tuples; t++)
            b->cover[t] += b->hit[e * b->tuples + t];
        bool ok = brute_rec(b, left - 1);
        for (size_t t = 0; t < b->tuples; t++)
            b->cover[t] -= b->hit[e * b->tuples + t];
        if (ok)
            return true;
    }
    return false;
}

/* Whether some family of at most m linear extensions of p is d-hitting, by exhaustive search
 * (the oracle's extensions and closure). */
static bool brute_exists(const hf_poset *p, unsigned d, size_t m)
{
    brute b = {hf_poset_size(p), d, 0, 0, 0, NULL, NULL};
    bool *lt = tu_closure(p);
    tu_collect all = tu_all_extensions(p);
    uint32_t n = b.n;
    /* admissible d-tuples of distinct events, by odometer */
    size_t cap = 1;
    for (unsigned i = 0; i < d; i++)
        cap *= n;
    uint32_t *tuples = malloc(cap * d * sizeof *tuples);
    uint32_t t[8] = {0};
    for (size_t code = 0; code < cap; code++) {
        size_t c = code;
        bool distinct = true;
        for (unsigned i = 0; i < d; i++) {
            t[i] = (uint32_t)(c % n);
            c /= n;
            for (unsigned j = 0; j < i; j++)
                distinct = distinct && t[j] != t[i];
        }
        if (distinct && tu_admissible(lt, n, t, d))
            memcpy(tuples + b.tuples++ * d, t, d * sizeof *t);
    }
    b.ext = all.m;
    b.hit = calloc(b.ext * b.tuples + 1, 1);
    b.cover = calloc(b.tuples + 1, sizeof *b.cover);
    uint32_t *pos = malloc(n * sizeof *pos);
    for (size_t e = 0; e < b.ext; e++) {
        for (uint32_t i = 0; i < n; i++)
            pos[all.rows[e * n + i]] = i;
        size_t hits = 0;
        for (size_t k = 0; k < b.tuples; k++) {
            bool in = true;
            for (unsigned i = 0; i + 1 < d; i++)
                in = in && pos[tuples[k * d + i]] < pos[tuples[k * d + i + 1]];
            b.hit[e * b.tuples + k] = in;
            hits += in;
        }
        b.best_hits = hits > b.best_hits ? hits : b.best_hits;
    }
    bool found = brute_rec(&b, m);
    free(pos);
    free(b.hit);
    free(b.cover);
    free(tuples);
    free(all.rows);
    free(lt);
    return found;
}

/* Every order on up to 4 events (every set of pairs i < j, so every labelled DAG up to
 * isomorphism) and random orders of 5: exact proves a size m, a family of m is hitting, and no
 * family of m - 1 linear extensions exists. */
Test(gen_exact, minimum_checked_by_exhaustive_search)
{
    NEED_SAT();
    uint64_t rng = 5;
    unsigned checked = 0;
    for (uint32_t n = 1; n <= 5; n++) {
        uint32_t pairs = n * (n - 1) / 2;
        uint32_t masks = n <= 4 ? 1u << pairs : 24;
        for (uint32_t it = 0; it < masks; it++) {
            uint32_t mask = n <= 4 ? it : it == 0 ? 0 : tu_below(&rng, 1u << pairs);
            uint32_t edges[10][2];
            size_t m = 0;
            for (uint32_t a = 0, bit = 0; a < n; a++)
                for (uint32_t b = a + 1; b < n; b++, bit++)
                    if (mask >> bit & 1u) {
                        edges[m][0] = a;
                        edges[m][1] = b;
                        m++;
                    }
            hf_poset *p = tu_poset(n, (const uint32_t(*)[2])edges, m);
            for (unsigned d = 2; d <= 3 && d <= n; d++) {
                hf_exact_result r;
                hf_family *f = solve(p, d, 0, &r);
                cr_assert(r.proved, "n=%u mask=%u d=%u not proved", n, mask, d);
                cr_assert_eq(r.schedules, hf_family_size(f));
                cr_assert_eq(r.lower_bound, r.schedules);
                check_hitting(p, f, d);
                cr_assert(!brute_exists(p, d, r.schedules - 1),
                          "n=%u mask=%u d=%u: a family of %zu exists", n, mask, d, r.schedules - 1);
                hf_family_free(f);
                checked++;
            }
            hf_poset_free(p);
        }
    }
    cr_assert_gt(checked, 100);
}

/* d = 4 on the antichain of 4 and 5 events (24 schedules: every ordering of 4 events needs its
 * own), and a few small random orders, by the oracle. */
Test(gen_exact, families_hit_on_random_orders)
{
    NEED_SAT();
    uint64_t rng = 77;
    for (int it = 0; it < 60; it++) {
        uint32_t n = 3 + tu_below(&rng, 5);
        hf_poset *p = it % 3 == 0   ? tu_random_forest(n, 1 + tu_below(&rng, 3), &rng)
                      : it % 3 == 1 ? tu_random_inforest(n, 1 + tu_below(&rng, 2), &rng)
                                    : tu_random_dag(n, 1, 3, &rng);
        unsigned d = 2 + (unsigned)(it % 2);
        hf_exact_result r;
        hf_family *f = solve(p, d, 0, &r);
        cr_assert(r.proved);
        check_hitting(p, f, d);
        /* auto never gives more */
        hf_gen_options opt = tu_gen_options(d, HF_METHOD_AUTO, NULL, 0);
        uint64_t a;
        cr_assert_eq(hf_method_predict(p, &opt, &a, NULL, NULL), HF_OK);
        cr_assert_geq(a, r.schedules);
        hf_family_free(f);
        hf_poset_free(p);
    }
    for (uint32_t n = 4; n <= 5; n++) {
        hf_poset *p = tu_antichain(n);
        hf_exact_result r;
        hf_family *f = solve(p, 4, 0, &r);
        cr_assert(r.proved);
        cr_assert_eq(r.schedules, 24u);
        check_hitting(p, f, 4);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* The antichain table of lib/gen_exact.c (SCAN(3, w) for w <= 8, a lower bound for orders of
 * width w) is proved here by the solver: an antichain of w events uses the table at w - 1 only,
 * so each entry rests on the ones before. */
Test(gen_exact, antichain_table_proved, .timeout = 300)
{
    NEED_SAT();
    static const size_t scan3[] = {0, 1, 2, 6, 6, 7, 8, 8, 8};
    for (uint32_t w = 3; w <= 8; w++) {
        hf_poset *p = tu_antichain(w);
        hf_exact_result r;
        hf_family *f = solve(p, 3, 0, &r);
        cr_assert(r.proved, "w=%u", w);
        cr_assert_eq(r.schedules, scan3[w], "w=%u: %zu", w, r.schedules);
        check_hitting(p, f, 3);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* With a focus set the search runs on the induced order and extends each schedule. */
Test(gen_exact, focus_sets)
{
    NEED_SAT();
    uint64_t rng = 9;
    for (int it = 0; it < 20; it++) {
        uint32_t n = 5 + tu_below(&rng, 5);
        hf_poset *p = tu_random_dag(n, 1, 4, &rng);
        uint32_t focus[4] = {0, 1 + tu_below(&rng, n - 1), tu_below(&rng, n), n - 1};
        bool in[16] = {false};
        for (int i = 0; i < 4; i++)
            in[focus[i]] = true;
        hf_exact_options o;
        hf_exact_options_init(&o);
        o.d = 3;
        o.focus = focus;
        o.focus_count = 4;
        hf_family *f = NULL;
        hf_exact_result r;
        hf_error err;
        cr_assert_eq(hf_exact_solve(p, &o, &f, &r, &err), HF_OK, "%s", err.text);
        cr_assert(r.proved);
        size_t m = hf_family_size(f);
        uint32_t *rows = malloc(m * n * sizeof *rows);
        for (size_t i = 0; i < m; i++)
            memcpy(rows + i * n, hf_family_schedule(f, i), n * sizeof *rows);
        cr_assert(tu_oracle_hitting(p, rows, m, 3, in));
        free(rows);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* ---- the proved optima of every rooted tree up to 8 events, d = 3 ---- */

static void check_optimum(hf_poset *p, const char *levels, unsigned opt, void *user)
{
    (void)user;
    hf_exact_result r;
    hf_family *f = solve(p, 3, 0, &r);
    cr_assert(r.proved, "%s: not proved", levels);
    cr_assert_eq(r.schedules, opt, "%s: exact %zu, optimum %u", levels, r.schedules, opt);
    check_hitting(p, f, 3);
    /* auto finds a family of the optimum's size */
    hf_gen_options o = tu_gen_options(3, HF_METHOD_AUTO, NULL, 0);
    uint64_t a;
    hf_method chosen;
    cr_assert_eq(hf_method_predict(p, &o, &a, &chosen, NULL), HF_OK);
    cr_assert_eq(a, opt, "%s: auto (%s) %llu, optimum %u", levels, hf_method_name(chosen),
                 (unsigned long long)a, opt);
    hf_family_free(f);
}

/* tests/data/optimum_trees_d3.txt: every rooted tree of 3..7 events, optima from integer
 * programming (an independent computation); tests/data/optimum_trees8_d3.txt: the 115 trees of
 * 8 events, optima proved by this method (a regression record for exact and auto). */
Test(gen_exact, every_rooted_tree_up_to_8_events, .timeout = 300)
{
    NEED_SAT();
    unsigned count = tu_each_tree_optimum("optimum_trees_d3.txt", check_optimum, NULL);
    cr_assert_eq(count, 83u);
    count += tu_each_tree_optimum("optimum_trees8_d3.txt", check_optimum, NULL);
    cr_assert_eq(count, 83u + 115u);
}

/* ---- budget, determinism, start families, errors ---- */

Test(gen_exact, budget_runs_out_with_the_best_family)
{
    NEED_SAT();
    hf_poset *p = tu_antichain(9);
    hf_exact_result r;
    hf_family *f = solve(p, 3, 50, &r);
    cr_assert(r.exhausted);
    cr_assert(!r.proved);
    cr_assert_leq(r.lower_bound, r.schedules);
    cr_assert_geq(r.lower_bound, 8u); /* the table at 8 events */
    cr_assert_eq(r.schedules, hf_family_size(f));
    cr_assert_leq(r.conflicts, 50u + 10u);
    check_hitting(p, f, 3);
    /* the same budget gives the same family */
    hf_exact_result r2;
    hf_family *g = solve(p, 3, 50, &r2);
    cr_assert_eq(hf_family_size(g), hf_family_size(f));
    cr_assert_eq(memcmp(hf_family_schedule(g, 0), hf_family_schedule(f, 0),
                        hf_family_size(f) * 9 * sizeof(uint32_t)),
                 0);
    cr_assert_eq(r2.conflicts, r.conflicts);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(gen_exact, deterministic_through_generate)
{
    NEED_SAT();
    hf_poset *p = tu_tree_from_levels("0122211");
    hf_gen_options o = tu_gen_options(3, HF_METHOD_EXACT, NULL, 0);
    tu_collect a = {7, 0, 0, NULL}, b = {7, 0, 0, NULL};
    cr_assert_eq(hf_generate(p, &o, tu_collect_sink(&a), NULL, NULL), HF_OK);
    cr_assert_eq(hf_generate(p, &o, tu_collect_sink(&b), NULL, NULL), HF_OK);
    cr_assert_eq(a.m, b.m);
    cr_assert_eq(memcmp(a.rows, b.rows, a.m * 7 * sizeof *a.rows), 0);
    cr_assert(tu_oracle_hitting(p, a.rows, a.m, 3, NULL));
    uint64_t size;
    cr_assert_eq(hf_method_predict(p, &o, &size, NULL, NULL), HF_OK);
    cr_assert_eq(size, a.m);
    free(a.rows);
    free(b.rows);
    hf_poset_free(p);
}

Test(gen_exact, start_family_and_remove_one)
{
    NEED_SAT();
    hf_poset *p = tu_tree_from_levels("01222111");
    /* doubletree's family, then one SAT step down, then a proof */
    hf_gen_options o = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, 8, &f), HF_OK);
    cr_assert_eq(hf_generate(p, &o, hf_family_sink(f), NULL, NULL), HF_OK);
    size_t before = hf_family_size(f);
    hf_exact_options eo;
    hf_exact_options_init(&eo);
    eo.d = 3;
    hf_exact_verdict v;
    hf_exact_result r;
    hf_error err;
    unsigned steps = 0;
    do {
        cr_assert_eq(hf_exact_remove_one(p, f, &eo, &v, &r, &err), HF_OK, "%s", err.text);
        check_hitting(p, f, 3);
        cr_assert_eq(hf_family_size(f), r.schedules);
        steps++;
    } while (v == HF_EXACT_IMPROVED && steps < 20);
    cr_assert_eq(v, HF_EXACT_MINIMAL);
    cr_assert_lt(hf_family_size(f), before);
    hf_exact_result best;
    hf_family *g = solve(p, 3, 0, &best);
    cr_assert_eq(hf_family_size(f), best.schedules);
    /* the proved family as a start: nothing to do */
    eo.start = f;
    hf_family *h = NULL;
    cr_assert_eq(hf_exact_solve(p, &eo, &h, &r, &err), HF_OK, "%s", err.text);
    cr_assert(r.proved);
    cr_assert_eq(r.schedules, best.schedules);
    /* a budget of one conflict: nothing known, the family unchanged */
    eo.start = NULL;
    eo.conflicts = 1;
    cr_assert_eq(hf_family_remove(h, 0), HF_OK);
    cr_assert_eq(hf_exact_remove_one(p, h, &eo, &v, &r, &err), HF_EMISMATCH);
    cr_assert(strstr(err.text, "not 3-hitting"), "%s", err.text);
    hf_family_free(h);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(gen_exact, refusals)
{
    NEED_SAT();
    hf_exact_options o;
    hf_exact_options_init(&o);
    o.d = 3;
    hf_family *f = NULL;
    hf_error err;
    hf_poset *big = tu_antichain(HF_EXACT_MAX_EVENTS + 1);
    cr_assert_eq(hf_exact_solve(big, &o, &f, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "at most 64 events"), "%s", err.text);
    hf_gen_options g = tu_gen_options(3, HF_METHOD_EXACT, NULL, 0);
    cr_assert_eq(hf_method_check(big, &g, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "at most 64 events"), "%s", err.text);
    hf_poset *wide = tu_antichain(60);
    o.d = 4; /* 60 * 59 * 58 * 57 4-tuples */
    cr_assert_eq(hf_exact_solve(wide, &o, &f, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "admissible 4-tuples"), "%s", err.text);
    o.d = 0;
    cr_assert_eq(hf_exact_solve(wide, &o, &f, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_exact_solve(NULL, &o, &f, NULL, &err), HF_EINVAL);
    hf_poset_free(wide);
    hf_poset_free(big);
    /* a start family that is not hitting */
    hf_poset *p = tu_antichain(4);
    hf_family *s;
    cr_assert_eq(hf_family_new(NULL, 4, &s), HF_OK);
    uint32_t id[4] = {0, 1, 2, 3};
    cr_assert_eq(hf_family_append(s, id), HF_OK);
    o.d = 3;
    o.start = s;
    cr_assert_eq(hf_exact_solve(p, &o, &f, NULL, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "start family is not 3-hitting"), "%s", err.text);
    hf_family_free(s);
    hf_poset_free(p);
}

Test(gen_exact, allocation_failures)
{
    NEED_SAT();
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    hf_poset *base = tu_tree_from_levels("0122311");
    hf_poset *p = tu_poset_copy(base, ctx);
    uint32_t focus[] = {1, 2, 3, 5, 6};
    for (int s = 0; s < 3; s++) {
        hf_gen_options opt = tu_gen_options(3, s == 2 ? HF_METHOD_AUTO : HF_METHOD_EXACT,
                                            s == 1 ? focus : NULL, s == 1 ? 5 : 0);
        tu_collect want = {7, 0, 0, NULL};
        chaos.left = -1;
        cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&want), NULL, NULL), HF_OK);
        bool done = false;
        for (long k = 0; !done; k++) {
            tu_collect got = {7, 0, 0, NULL};
            long live = chaos.live;
            chaos.left = k;
            chaos.once = false;
            hf_error err;
            hf_status st = hf_generate(p, &opt, tu_collect_sink(&got), NULL, &err);
            chaos.left = -1;
            cr_assert_eq(chaos.live, live, "leak after failing allocation %ld", k);
            if (st == HF_OK) {
                cr_assert_eq(got.m, want.m);
                cr_assert_eq(memcmp(got.rows, want.rows, want.m * 7 * sizeof *want.rows), 0);
                done = true;
            } else {
                cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", k, hf_strerror(st));
            }
            free(got.rows);
        }
        free(want.rows);
    }
    /* hf_exact_remove_one */
    hf_family *f;
    chaos.left = -1;
    cr_assert_eq(hf_family_new(ctx, 7, &f), HF_OK);
    hf_gen_options dt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
    cr_assert_eq(hf_generate(p, &dt, hf_family_sink(f), NULL, NULL), HF_OK);
    size_t m = hf_family_size(f);
    hf_exact_options eo;
    hf_exact_options_init(&eo);
    eo.d = 3;
    for (long k = 0;; k++) {
        long live = chaos.live;
        chaos.left = k;
        hf_exact_verdict v;
        hf_status st = hf_exact_remove_one(p, f, &eo, &v, NULL, NULL);
        chaos.left = -1;
        if (st == HF_OK) {
            cr_assert_lt(hf_family_size(f), m);
            break;
        }
        cr_assert_eq(st, HF_ENOMEM);
        cr_assert_eq(chaos.live, live, "leak after failing allocation %ld", k);
        cr_assert_eq(hf_family_size(f), m);
    }
    hf_family_free(f);
    hf_poset_free(p);
    hf_poset_free(base);
    hf_ctx_free(ctx);
}

/* ---- progress and cancellation ---- */

typedef struct exact_log {
    unsigned calls, after_stop; /* reports, and reports after the one that stopped */
    uint64_t stop_at;           /* stop at the first report of this many conflicts; 0: never */
    uint64_t last_done, last_total;
    bool stopped, decreasing, other_task;
} exact_log;

static bool on_exact_progress(const hf_progress *pr, void *user)
{
    exact_log *l = user;
    if (strcmp(pr->task, "exact") != 0) {
        l->other_task = true;
        return true;
    }
    l->calls++;
    l->after_stop += l->stopped;
    l->decreasing |= pr->done < l->last_done;
    l->last_done = pr->done;
    l->last_total = pr->total;
    if (l->stop_at && pr->done >= l->stop_at)
        l->stopped = true;
    return !l->stopped;
}

/* The antichain of 10 events at d = 3 takes far more conflicts than these budgets to prove:
 * the progress callback sees the conflicts grow inside the solver's calls, and a stop ends the
 * search within a few hundred conflicts with HF_EABORTED, everything released (the context's
 * allocations counted here, the solver's by the sanitizer build's leak check). */
Test(gen_exact, progress_reports_conflicts_and_cancels)
{
    NEED_SAT();
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    exact_log l = {0};
    cr_assert_eq(hf_ctx_set_progress(ctx, on_exact_progress, &l), HF_OK);
    hf_poset *base = tu_antichain(10);
    hf_poset *p = tu_poset_copy(base, ctx);
    long live = chaos.live;
    /* a callback that never stops changes nothing */
    hf_exact_result quiet, seen;
    hf_family *f = solve(base, 3, 3000, &quiet);
    hf_family *g = solve(p, 3, 3000, &seen);
    cr_assert(quiet.exhausted && seen.exhausted);
    cr_assert_eq(seen.conflicts, quiet.conflicts);
    cr_assert_eq(hf_family_size(g), hf_family_size(f));
    cr_assert_eq(memcmp(hf_family_schedule(g, 0), hf_family_schedule(f, 0),
                        hf_family_size(f) * 10 * sizeof(uint32_t)),
                 0);
    cr_assert_gt(l.calls, seen.calls + 5, "%u reports for %u calls", l.calls, seen.calls);
    cr_assert(!l.decreasing);
    cr_assert_eq(l.last_total, 3000u);
    cr_assert_geq(l.last_done + 300, seen.conflicts, "last report at %" PRIu64, l.last_done);
    hf_family_free(g);
    /* stopped at 1000 conflicts of the default budget: the search ends there */
    hf_exact_options o;
    hf_exact_options_init(&o);
    o.d = 3;
    l = (exact_log){.stop_at = 1000};
    hf_family *h = NULL;
    hf_error err;
    cr_assert_eq(hf_exact_solve(p, &o, &h, NULL, &err), HF_EABORTED);
    cr_assert_null(h);
    cr_assert(strstr(err.text, "exact: stopped by the progress callback"), "%s", err.text);
    cr_assert(l.stopped);
    cr_assert_eq(l.after_stop, 0u);
    cr_assert_lt(l.last_done, 1000u + 300u);
    cr_assert_eq(l.last_total, HF_EXACT_DEFAULT_CONFLICTS);
    cr_assert_eq(chaos.live, live);
    /* minimize --sat's step: stopped, the family is left as it was */
    hf_family *start;
    cr_assert_eq(hf_family_new(ctx, 10, &start), HF_OK);
    for (size_t i = 0; i < hf_family_size(f); i++)
        cr_assert_eq(hf_family_append(start, hf_family_schedule(f, i)), HF_OK);
    size_t m = hf_family_size(start);
    hf_exact_verdict v = HF_EXACT_IMPROVED;
    l = (exact_log){.stop_at = 500};
    live = chaos.live;
    cr_assert_eq(hf_exact_remove_one(p, start, &o, &v, NULL, &err), HF_EABORTED);
    cr_assert(strstr(err.text, "exact: stopped by the progress callback"), "%s", err.text);
    cr_assert_eq(l.after_stop, 0u);
    cr_assert_eq(hf_family_size(start), m);
    cr_assert_eq(
        memcmp(hf_family_schedule(start, 0), hf_family_schedule(f, 0), m * 10 * sizeof(uint32_t)),
        0);
    cr_assert_eq(chaos.live, live);
    /* the same through hf_generate (method exact) */
    l = (exact_log){.stop_at = 200};
    hf_gen_options go = tu_gen_options(3, HF_METHOD_EXACT, NULL, 0);
    tu_collect none = {10, 0, 0, NULL};
    cr_assert_eq(hf_generate(p, &go, tu_collect_sink(&none), NULL, &err), HF_EABORTED);
    cr_assert_eq(none.m, 0u);
    /* and through auto, which weighs exact (and greedy) here: the stop keeps its message */
    l = (exact_log){.stop_at = 1};
    go.method = HF_METHOD_AUTO;
    err = (hf_error){0};
    cr_assert_eq(hf_generate(p, &go, tu_collect_sink(&none), NULL, &err), HF_EABORTED);
    cr_assert(strstr(err.text, "stopped by the progress callback"), "auto: '%s'", err.text);
    cr_assert_eq(none.m, 0u);
    free(none.rows);
    hf_family_free(start);
    hf_family_free(f);
    hf_poset_free(p);
    hf_poset_free(base);
    hf_ctx_free(ctx);
}
