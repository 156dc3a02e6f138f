/* hitfam/bounds.h: every certified bound at most the optimum (proved optima of every rooted
 * tree up to 8 events from tests/data, exact's proved minima of random orders up to 8 events),
 * equal to SCAN on small antichains, never below hf_count_lower_bound, its certificate checked
 * again against the oracle's closure (the sub-order solved anew, the antichain, the chain),
 * determinism, errors, the description, and every allocation failing in turn. */
#include <criterion/criterion.h>
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "hitfam/bounds.h"
#include "hitfam/count.h"
#include "hitfam/exact.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(bounds);

/* SCAN(3, w) for w = 0..8 (Chee, Colbourn, Horsley, Zhou 2013; ../shared/data/README.md). */
static const uint64_t scan3[] = {0, 1, 2, 6, 6, 7, 8, 8, 8};

static hf_bound *compute(const hf_poset *p, unsigned d, uint64_t conflicts)
{
    hf_bound_options o;
    hf_bound_options_init(&o);
    o.d = d;
    o.conflicts = conflicts;
    hf_bound *b = NULL;
    hf_error err;
    hf_status st = hf_bound_compute(p, &o, &b, &err);
    cr_assert_eq(st, HF_OK, "bound: %s", err.text);
    cr_assert_not_null(b);
    return b;
}

/* The smallest t with C(t - 1, floor((t - 1) / 2)) >= w - 1, recomputed. */
static uint64_t sperner(uint64_t w)
{
    for (uint64_t t = 1;; t++) {
        double c = 1;
        uint64_t k = t - 1;
        for (uint64_t i = 1; i <= k / 2; i++)
            c = c * (double)(k - k / 2 + i) / (double)i;
        if (c + 0.5 >= (double)(w - 1))
            return t;
    }
}

/* The proved minimum of p by method exact (d), which must prove it. */
static size_t optimum(const hf_poset *p, unsigned d)
{
    hf_exact_options o;
    hf_exact_options_init(&o);
    o.d = d;
    hf_family *f = NULL;
    hf_exact_result r;
    hf_error err;
    cr_assert_eq(hf_exact_solve(p, &o, &f, &r, &err), HF_OK, "%s", err.text);
    cr_assert(r.proved, "exact did not prove the minimum (%zu..%zu)", r.lower_bound, r.schedules);
    hf_family_free(f);
    return r.schedules;
}

/* Check the certificate against the oracle's closure of the order's registered edges. */
static void check_certificate(const hf_poset *p, const hf_bound *b, const char *what)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    const uint32_t *ev = b->events;
    size_t k = b->event_count;
    for (size_t i = 0; i < k; i++)
        cr_assert_lt(ev[i], n, "%s: event out of range", what);
#define CMP(a, c) (lt[(size_t)(a)*n + (c)] || lt[(size_t)(c)*n + (a)])
    switch (b->kind) {
    case HF_BOUND_EMPTY:
        cr_assert_eq(n, 0u, "%s", what);
        cr_assert_eq(b->value, 0u, "%s", what);
        break;
    case HF_BOUND_ONE:
        cr_assert_eq(b->value, 1u, "%s", what);
        break;
    case HF_BOUND_PAIR:
        cr_assert_eq(k, 2u, "%s", what);
        cr_assert(!CMP(ev[0], ev[1]) && ev[0] != ev[1], "%s: pair comparable", what);
        cr_assert_eq(b->value, 2u, "%s", what);
        break;
    case HF_BOUND_CHAIN:
        cr_assert_geq(k, 2u, "%s", what);
        for (size_t i = 0; i + 1 < k; i++) {
            for (size_t j = i + 1; j + 1 < k; j++)
                cr_assert(CMP(ev[i], ev[j]), "%s: chain events %zu, %zu incomparable", what, i, j);
            cr_assert(!CMP(ev[i], ev[k - 1]) && ev[i] != ev[k - 1],
                      "%s: chain event %zu comparable to the free event", what, i);
        }
        cr_assert_eq(b->value, (uint64_t)k, "%s: chain of %zu", what, k - 1);
        cr_assert_geq(b->d, 3u, "%s", what);
        break;
    case HF_BOUND_FACTORIAL:
    case HF_BOUND_ANTICHAIN: {
        for (size_t i = 0; i < k; i++)
            for (size_t j = i + 1; j < k; j++)
                cr_assert(!CMP(ev[i], ev[j]) && ev[i] != ev[j], "%s: antichain comparable", what);
        if (b->kind == HF_BOUND_FACTORIAL) {
            uint64_t f = 1;
            for (unsigned i = 2; i <= b->d; i++)
                f *= i;
            cr_assert_eq(k, b->d, "%s", what);
            cr_assert_eq(b->value, f, "%s", what);
        } else {
            uint64_t t = scan3[k < 8 ? k : 8], s = sperner(k);
            cr_assert_eq(b->value, t > s ? t : s, "%s: antichain of %zu", what, k);
        }
        break;
    }
    case HF_BOUND_SAT: {
        /* the induced sub-order, built from the oracle's closure, solved anew */
        uint32_t(*edges)[2] = malloc((k * k + 1) * sizeof *edges);
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < k; j++)
                if (lt[(size_t)ev[i] * n + ev[j]]) {
                    edges[m][0] = (uint32_t)i;
                    edges[m][1] = (uint32_t)j;
                    m++;
                }
        hf_poset *q = tu_poset((uint32_t)k, (const uint32_t(*)[2])edges, m);
        size_t opt = optimum(q, b->d);
        cr_assert_geq(opt, b->value, "%s: the sub-order's minimum %zu is below the bound %llu",
                      what, opt, (unsigned long long)b->value);
        hf_poset_free(q);
        free(edges);
        cr_assert_geq(b->calls, 1u, "%s", what);
        break;
    }
    default:
        cr_assert_fail("%s: unknown kind %d", what, (int)b->kind);
    }
#undef CMP
    free(lt);
}

/* Never below hf_count_lower_bound. */
static void check_not_below_count(const hf_poset *p, const hf_bound *b, unsigned d,
                                  const char *what)
{
    mpz_t v;
    mpz_init(v);
    cr_assert_eq(hf_count_lower_bound(p, d, v, NULL), HF_OK);
    cr_assert(mpz_cmp_ui(v, (unsigned long)b->value) <= 0, "%s: %llu below count's bound", what,
              (unsigned long long)b->value);
    mpz_clear(v);
}

/* ---- every rooted tree up to 8 events against its optimum ---- */

typedef struct tree_tally {
    unsigned equal, sat;
} tree_tally;

static void check_tree(hf_poset *p, const char *levels, unsigned opt, void *user)
{
    tree_tally *t = user;
    hf_bound *b = compute(p, 3, 0);
    cr_assert_leq(b->value, opt, "%s: bound %llu above the optimum %u", levels,
                  (unsigned long long)b->value, opt);
    check_certificate(p, b, levels);
    check_not_below_count(p, b, 3, levels);
    t->equal += b->value == opt;
    t->sat += b->kind == HF_BOUND_SAT;
    hf_bound_free(b);
}

Test(bounds, every_rooted_tree_up_to_8_events, .timeout = 240)
{
    if (!hf_exact_available())
        cr_skip_test("this build has no SAT solver");
    tree_tally t = {0, 0};
    unsigned count = tu_each_tree_optimum("optimum_trees_d3.txt", check_tree, &t);
    cr_assert_eq(count, 83u);
    count += tu_each_tree_optimum("optimum_trees8_d3.txt", check_tree, &t);
    cr_assert_eq(count, 83u + 115u);
    /* the whole tree fits the solver: its refutation reaches the optimum on every one */
    cr_assert_eq(t.equal, count, "bound = optimum on %u of %u trees", t.equal, count);
    cr_assert_gt(t.sat, 0u);
}

/* ---- random orders of 3..8 events against exact's proved minima ---- */

Test(bounds, random_orders_up_to_8_events, .timeout = 240)
{
    if (!hf_exact_available())
        cr_skip_test("this build has no SAT solver");
    uint64_t rng = 0x5eed0b0dULL;
    for (unsigned i = 0; i < 60; i++) {
        uint32_t n = 3 + i % 6;
        hf_poset *p = i % 3 == 0   ? tu_random_forest(n, 1 + i % 2, &rng)
                      : i % 3 == 1 ? tu_random_inforest(n, 1, &rng)
                                   : tu_random_dag(n, 1 + i % 3, 4, &rng);
        for (unsigned d = 2; d <= 3; d++) {
            char what[64];
            snprintf(what, sizeof what, "order %u (%u events), d=%u", i, n, d);
            /* a small sub-order budget: the bound comes from parts of the order too */
            hf_bound_options o;
            hf_bound_options_init(&o);
            o.d = d;
            o.max_events = i % 2 ? 5 : 0;
            hf_bound *b = NULL;
            cr_assert_eq(hf_bound_compute(p, &o, &b, NULL), HF_OK);
            size_t opt = optimum(p, d);
            cr_assert_leq(b->value, opt, "%s: bound %llu above the optimum %zu", what,
                          (unsigned long long)b->value, opt);
            check_certificate(p, b, what);
            check_not_below_count(p, b, d, what);
            hf_bound_free(b);
        }
        hf_poset_free(p);
    }
}

/* ---- antichains ---- */

Test(bounds, antichains_meet_scan)
{
    for (uint32_t w = 1; w <= 8; w++) {
        hf_poset *p = tu_antichain(w);
        hf_bound_options o;
        hf_bound_options_init(&o);
        o.no_sat = true; /* the table alone */
        hf_bound *b = NULL;
        cr_assert_eq(hf_bound_compute(p, &o, &b, NULL), HF_OK);
        cr_assert_eq(b->value, scan3[w], "antichain %u: %llu", (unsigned)w,
                     (unsigned long long)b->value);
        check_certificate(p, b, "antichain");
        hf_bound_free(b);
        if (w >= 4) { /* d = 4: 24 = 4!, the minimum for 4..6 events */
            o.d = 4;
            cr_assert_eq(hf_bound_compute(p, &o, &b, NULL), HF_OK);
            cr_assert_eq(b->value, 24u);
            cr_assert_eq(b->kind, HF_BOUND_FACTORIAL);
            check_certificate(p, b, "antichain d=4");
            hf_bound_free(b);
        }
        hf_poset_free(p);
    }
    /* the Sperner bound for large antichains: 10 at 100 events, 14 at 1,000 */
    static const uint32_t big[] = {100, 1000};
    static const uint64_t want[] = {10, 14};
    for (size_t i = 0; i < 2; i++) {
        hf_poset *p = tu_antichain(big[i]);
        hf_bound_options o;
        hf_bound_options_init(&o);
        o.no_sat = true;
        hf_bound *b = NULL;
        cr_assert_eq(hf_bound_compute(p, &o, &b, NULL), HF_OK);
        cr_assert_eq(b->value, want[i], "%u: %llu", (unsigned)big[i], (unsigned long long)b->value);
        cr_assert_eq(b->kind, HF_BOUND_ANTICHAIN);
        cr_assert_eq(b->event_count, big[i]);
        char text[256];
        hf_bound_describe(p, b, text, sizeof text);
        cr_assert(strstr(text, "Sperner"), "%s", text);
        hf_bound_free(b);
        hf_poset_free(p);
    }
}

/* ---- larger trees: the solver's sub-orders raise the bound, deterministically ---- */

Test(bounds, larger_trees_deterministic)
{
    if (!hf_exact_available())
        cr_skip_test("this build has no SAT solver");
    uint64_t rng = 77;
    unsigned raised = 0;
    for (unsigned i = 0; i < 6; i++) {
        hf_poset *p = tu_random_forest(20 + 10 * i, 1, &rng);
        hf_bound *a = compute(p, 3, 5000), *b = compute(p, 3, 5000);
        cr_assert_eq(a->value, b->value);
        cr_assert_eq(a->kind, b->kind);
        cr_assert_eq(a->spent, b->spent);
        cr_assert_eq(a->event_count, b->event_count);
        cr_assert_eq(memcmp(a->events, b->events, a->event_count * sizeof *a->events), 0);
        cr_assert_leq(a->spent, 5000u + 5000u / 4);
        check_not_below_count(p, a, 3, "forest");
        mpz_t v;
        mpz_init(v);
        cr_assert_eq(hf_count_lower_bound(p, 3, v, NULL), HF_OK);
        raised += mpz_cmp_ui(v, (unsigned long)a->value) < 0;
        mpz_clear(v);
        if (a->kind == HF_BOUND_SAT)
            check_certificate(p, a, "forest");
        hf_bound_free(a);
        hf_bound_free(b);
        hf_poset_free(p);
    }
    cr_assert_gt(raised, 0u, "no tree's bound rose above hf_count_lower_bound");
}

/* ---- errors and the description ---- */

Test(bounds, errors_and_description)
{
    hf_poset *p = tu_tree_from_levels("0122211");
    hf_bound_options o;
    hf_bound_options_init(&o);
    hf_bound *b = NULL;
    hf_error err;
    cr_assert_eq(hf_bound_compute(NULL, &o, &b, &err), HF_EINVAL);
    cr_assert_eq(hf_bound_compute(p, NULL, &b, &err), HF_EINVAL);
    cr_assert_eq(hf_bound_compute(p, &o, NULL, &err), HF_EINVAL);
    o.d = 0;
    cr_assert_eq(hf_bound_compute(p, &o, &b, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "d must be"), "%s", err.text);
    o.d = 3;
    o.max_events = 65;
    cr_assert_eq(hf_bound_compute(p, &o, &b, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "max_events"), "%s", err.text);
    o.max_events = 0;
    o.no_sat = true;
    hf_poset *c = tu_tree_from_levels("012341");
    cr_assert_eq(hf_bound_compute(c, &o, &b, &err), HF_OK);
    char text[512];
    size_t len = hf_bound_describe(c, b, text, sizeof text);
    cr_assert_eq(len, strlen(text));
    cr_assert_eq(b->kind, HF_BOUND_CHAIN, "%s", text);
    cr_assert_eq(b->value, 5u, "%s", text);
    cr_assert(strstr(text, "chain of 4 events incomparable to"), "%s", text);
    char small[8];
    cr_assert_eq(hf_bound_describe(c, b, small, sizeof small), len);
    cr_assert_eq(strlen(small), 7u);
    hf_bound_free(b);
    hf_poset_free(c);
    if (hf_exact_available()) {
        o.no_sat = false;
        cr_assert_eq(hf_bound_compute(p, &o, &b, &err), HF_OK);
        hf_bound_describe(p, b, text, sizeof text);
        cr_assert_eq(b->kind, HF_BOUND_SAT, "%s", text);
        cr_assert(strstr(text, "SAT: no "), "%s", text);
        cr_assert(strstr(text, "-schedule family for the sub-order of all 7 events"), "%s", text);
        cr_assert(strstr(text, " conflicts"), "%s", text);
        hf_bound_free(b);
    }
    cr_assert_str_eq(hf_bound_kind_name(HF_BOUND_SAT), "sat");
    cr_assert_str_eq(hf_bound_kind_name(HF_BOUND_ANTICHAIN), "antichain");
    hf_bound_free(NULL);
    hf_poset_free(p);
    /* the empty order */
    hf_poset *e = tu_antichain(0);
    cr_assert_eq(hf_bound_compute(e, &o, &b, &err), HF_OK);
    cr_assert_eq(b->value, 0u);
    cr_assert_eq(b->kind, HF_BOUND_EMPTY);
    hf_bound_free(b);
    hf_poset_free(e);
}

/* ---- every allocation failing in turn ---- */

Test(bounds, allocation_failures, .timeout = 120)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    uint64_t rng = 9;
    hf_poset *bases[3] = {tu_tree_from_levels("01223221"), tu_random_dag(9, 2, 4, &rng),
                          tu_random_forest(30, 1, &rng)};
    for (int s = 0; s < 3; s++) {
        hf_poset *p = tu_poset_copy(bases[s], ctx);
        hf_bound_options o;
        hf_bound_options_init(&o);
        o.conflicts = 2000;
        hf_bound *want = NULL;
        chaos.left = -1;
        cr_assert_eq(hf_bound_compute(p, &o, &want, NULL), HF_OK);
        for (long k = 0;; k++) {
            long live = chaos.live;
            chaos.left = k;
            chaos.once = false;
            hf_bound *got = NULL;
            hf_error err;
            hf_status st = hf_bound_compute(p, &o, &got, &err);
            chaos.left = -1;
            if (st == HF_OK) {
                cr_assert_eq(got->value, want->value);
                cr_assert_eq(got->kind, want->kind);
                hf_bound_free(got);
                break;
            }
            cr_assert_eq(st, HF_ENOMEM, "order %d, allocation %ld: %s", s, k, err.text);
            cr_assert_eq(chaos.live, live, "leak after failing allocation %ld", k);
        }
        hf_bound_free(want);
        hf_poset_free(p);
    }
    for (int s = 0; s < 3; s++)
        hf_poset_free(bases[s]);
    hf_ctx_free(ctx);
}
