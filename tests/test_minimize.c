/* Tests of hf_family_minimize: on thousands of small orders the result is checked d-hitting by
 * hf_verify and by the brute-force oracle, irredundant by brute force, never larger; errors. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "family_i.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(minimize);

/* ---- helpers ---- */

static hf_family *family_of(const hf_poset *p, const uint32_t *rows, size_t m)
{
    hf_family *f = NULL;
    uint32_t n = hf_poset_size(p);
    cr_assert_eq(hf_family_new(hf_poset_ctx(p), n, &f), HF_OK);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_family_append(f, rows + i * n), HF_OK);
    return f;
}

/* The family's rows as one malloc'd block (caller frees). */
static uint32_t *rows_of(const hf_family *f)
{
    uint32_t n = hf_family_events(f);
    size_t m = hf_family_size(f);
    uint32_t *rows = malloc((m * n + 1) * sizeof *rows);
    for (size_t i = 0; i < m; i++)
        memcpy(rows + i * n, hf_family_schedule(f, i), n * sizeof *rows);
    return rows;
}

/* Every linear extension (small orders only), from the edges the test chose. */
static tu_collect all_linext(const hf_poset *p) { return tu_all_extensions(p); }

/* A random linear extension: a uniformly chosen available event at each step. */
static void random_linext(const hf_poset *p, uint64_t *rng, uint32_t *out)
{
    tu_random_extension(p, rng, out);
}

/* A d-hitting family with redundancy: random linear extensions until the oracle says hitting,
 * then copies of some of them and further random ones. */
static tu_collect random_hitting(const hf_poset *p, unsigned d, const bool *in_focus, uint64_t *rng)
{
    uint32_t n = hf_poset_size(p);
    tu_collect c = {n, 0, 0, NULL};
    uint32_t *s = malloc((n + 1) * sizeof *s);
    while (!tu_oracle_hitting(p, c.rows, c.m, d, in_focus)) {
        random_linext(p, rng, s);
        tu_collect_put(&c, s, n);
    }
    size_t m = c.m;
    for (size_t i = 0; i < m; i += 1 + tu_below(rng, 3)) {
        memcpy(s, c.rows + i * n, n * sizeof *s); /* put may move the rows */
        tu_collect_put(&c, s, n);
    }
    for (uint32_t extra = tu_below(rng, 4); extra > 0; extra--) {
        random_linext(p, rng, s);
        tu_collect_put(&c, s, n);
    }
    free(s);
    return c;
}

/* Removing any one schedule breaks hitting. */
static void assert_irredundant(const hf_poset *p, const hf_family *f, unsigned d,
                               const bool *in_focus)
{
    uint32_t n = hf_family_events(f);
    size_t m = hf_family_size(f);
    uint32_t *rows = rows_of(f);
    uint32_t *less = malloc((m * n + 1) * sizeof *less);
    for (size_t i = 0; i < m; i++) {
        size_t k = 0;
        for (size_t j = 0; j < m; j++)
            if (j != i)
                memcpy(less + k++ * n, rows + j * n, n * sizeof *rows);
        cr_assert_not(tu_oracle_hitting(p, less, k, d, in_focus),
                      "schedule %zu of %zu is redundant (n=%u d=%u)", i, m, n, d);
    }
    free(less);
    free(rows);
}

static void assert_hitting(const hf_poset *p, const hf_family *f, unsigned d, const uint32_t *focus,
                           size_t focus_count, const bool *in_focus)
{
    hf_verify_options vo = {.d = d, .focus = focus, .focus_count = focus_count};
    hf_verify_result vr;
    hf_error err;
    cr_assert_eq(hf_verify(p, f, &vo, &vr, &err), HF_OK, "%s", err.text);
    cr_assert(vr.hitting, "hf_verify: not %u-hitting", d);
    uint32_t *rows = rows_of(f);
    cr_assert(tu_oracle_hitting(p, rows, hf_family_size(f), d, in_focus), "oracle: not hitting");
    free(rows);
}

/* Minimise a copy of rows and check everything the API promises. Returns the result size. */
static size_t check_one(const hf_poset *p, const tu_collect *c, unsigned d, uint64_t seed,
                        uint64_t rounds, bool drop_only, const uint32_t *focus, size_t focus_count,
                        const bool *in_focus)
{
    hf_family *f = family_of(p, c->rows, c->m);
    hf_minimize_options o;
    hf_minimize_options_init(&o);
    o.d = d;
    o.seed = seed;
    o.rounds = rounds;
    o.drop_only = drop_only;
    o.focus = focus;
    o.focus_count = focus_count;
    hf_minimize_result r;
    hf_error err;
    cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_OK, "%s", err.text);
    cr_assert_eq(r.before, c->m);
    cr_assert_leq(r.after, r.after_drop);
    cr_assert_leq(r.after_drop, r.before);
    cr_assert_eq(r.after, hf_family_size(f));
    if (drop_only)
        cr_assert_eq(r.rounds_run, 0);
    else if (rounds)
        cr_assert_leq(r.rounds_run, rounds);
    assert_hitting(p, f, d, focus, focus_count, in_focus);
    assert_irredundant(p, f, d, in_focus);
    /* every surviving schedule is a linear extension (the oracle asserted it); same seed,
     * same family */
    hf_family *g = family_of(p, c->rows, c->m);
    cr_assert_eq(hf_family_minimize(p, g, &o, NULL, &err), HF_OK, "%s", err.text);
    cr_assert(hf_i_family_same(f, g), "not deterministic");
    size_t m = hf_family_size(f);
    hf_family_free(g);
    hf_family_free(f);
    return m;
}

/* ---- tests ---- */

Test(minimize, all_linear_extensions_of_tiny_orders)
{
    uint64_t rng = 11;
    unsigned orders = 0;
    for (unsigned d = 2; d <= 4; d++)
        for (unsigned i = 0; i < 180; i++) {
            uint32_t n = 2 + tu_below(&rng, d == 4 ? 4 : 5);
            hf_poset *p = tu_some_order(i, n, &rng);
            tu_collect c = all_linext(p);
            cr_assert(tu_oracle_hitting(p, c.rows, c.m, d, NULL));
            bool drop_only = i % 3 == 0;
            size_t m = check_one(p, &c, d, i, 30, drop_only, NULL, 0, NULL);
            cr_assert_leq(m, c.m);
            free(c.rows);
            hf_poset_free(p);
            orders++;
        }
    cr_assert_eq(orders, 540);
}

Test(minimize, random_families_with_copies)
{
    uint64_t rng = 12;
    unsigned orders = 0;
    for (unsigned d = 2; d <= 4; d++)
        for (unsigned i = 0; i < 450; i++) {
            uint32_t n = 1 + tu_below(&rng, d == 4 ? 6 : 7);
            hf_poset *p = tu_some_order(i, n, &rng);
            tu_collect c = random_hitting(p, d, NULL, &rng);
            check_one(p, &c, d, i, i % 2 ? 20 : 0, i % 5 == 0, NULL, 0, NULL);
            free(c.rows);
            hf_poset_free(p);
            orders++;
        }
    cr_assert_eq(orders, 1350);
}

Test(minimize, families_of_the_generators)
{
    uint64_t rng = 13;
    unsigned runs = 0;
    for (unsigned d = 2; d <= 4; d++)
        for (unsigned i = 0; i < 120; i++) {
            uint32_t n = 2 + tu_below(&rng, d == 4 ? 5 : 7);
            hf_poset *p = tu_some_order(i, n, &rng);
            hf_gen_options g;
            hf_gen_options_init(&g);
            g.d = d;
            g.method = i % 2 ? HF_METHOD_GREEDY : HF_METHOD_AUTO;
            g.seed = i;
            tu_collect c = {n, 0, 0, NULL};
            hf_error err;
            cr_assert_eq(hf_generate(p, &g, tu_collect_sink(&c), NULL, &err), HF_OK, "%s",
                         err.text);
            /* the generated family twice over */
            size_t m = c.m;
            uint32_t s[8];
            for (size_t j = 0; j < m; j++) {
                memcpy(s, c.rows + j * n, n * sizeof *s); /* put may move the rows */
                tu_collect_put(&c, s, n);
            }
            size_t k = check_one(p, &c, d, i, 25, false, NULL, 0, NULL);
            cr_assert_leq(k, m);
            free(c.rows);
            hf_poset_free(p);
            runs++;
        }
    cr_assert_eq(runs, 360);
}

Test(minimize, focus_sets)
{
    uint64_t rng = 14;
    for (unsigned d = 2; d <= 4; d++)
        for (unsigned i = 0; i < 90; i++) {
            uint32_t n = 2 + tu_below(&rng, 6);
            hf_poset *p = tu_some_order(i, n, &rng);
            uint32_t focus[8];
            bool in_focus[8] = {0};
            size_t fc = 0;
            for (uint32_t v = 0; v < n; v++)
                if (tu_below(&rng, 3) != 0) {
                    focus[fc++] = v;
                    in_focus[v] = true;
                }
            if (fc == 0) {
                focus[fc++] = 0;
                in_focus[0] = true;
            }
            tu_collect c = random_hitting(p, d, in_focus, &rng);
            check_one(p, &c, d, i, 20, false, focus, fc, in_focus);
            free(c.rows);
            hf_poset_free(p);
        }
}

Test(minimize, saturated_counters)
{
    /* every pair of a 5-antichain is hit by 60 of its 120 orders; five copies of each make 300,
     * beyond a one-byte counter */
    hf_poset *p = tu_antichain(5);
    tu_collect all = all_linext(p);
    cr_assert_eq(all.m, 120);
    tu_collect c = {5, 0, 0, NULL};
    for (int copy = 0; copy < 5; copy++)
        for (size_t i = 0; i < all.m; i++)
            tu_collect_put(&c, all.rows + i * 5, 5);
    for (unsigned d = 2; d <= 3; d++) {
        size_t m = check_one(p, &c, d, 7, 100, false, NULL, 0, NULL);
        cr_assert_geq(m,
                      d == 2 ? 2u : 6u); /* A5's optimum for d = 3 is 7 (docs/math.md, section 8) */
        if (d == 3)
            cr_assert_geq(m, 7u);
    }
    free(all.rows);
    free(c.rows);
    hf_poset_free(p);
}

Test(minimize, published_optima_are_lower_bounds)
{
    /* docs/math.md, section 8: optimal 3-hitting sizes A3 = 6, A4 = 6, A5 = 7, T_2 = 8, D_2 = 8 */
    static const struct {
        int kind;
        uint32_t size;
        size_t opt;
    } cases[] = {{0, 3, 6}, {0, 4, 6}, {0, 5, 7}, {1, 2, 8}, {2, 2, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hf_poset *p = cases[i].kind == 0   ? tu_antichain(cases[i].size)
                      : cases[i].kind == 1 ? tu_complete_binary(cases[i].size)
                                           : tu_double_tree(cases[i].size);
        hf_gen_options g;
        hf_gen_options_init(&g);
        g.d = 3;
        g.method = HF_METHOD_GREEDY;
        tu_collect c = {hf_poset_size(p), 0, 0, NULL};
        hf_error err;
        cr_assert_eq(hf_generate(p, &g, tu_collect_sink(&c), NULL, &err), HF_OK, "%s", err.text);
        size_t m = check_one(p, &c, 3, 1, 0, false, NULL, 0, NULL);
        cr_assert_geq(m, cases[i].opt);
        cr_assert_leq(m, c.m);
        free(c.rows);
        hf_poset_free(p);
    }
}

Test(minimize, d1_and_tiny_families)
{
    hf_poset *p = tu_random_dag(6, 1, 3, &(uint64_t){3});
    tu_collect c = all_linext(p);
    size_t m = check_one(p, &c, 1, 0, 0, false, NULL, 0, NULL);
    cr_assert_eq(m, 1);
    free(c.rows);
    hf_poset_free(p);
    /* a chain: one schedule, whatever d */
    p = tu_chain(5);
    uint32_t row[5] = {0, 1, 2, 3, 4};
    c = (tu_collect){5, 0, 0, NULL};
    for (int i = 0; i < 4; i++)
        tu_collect_put(&c, row, 5);
    for (unsigned d = 1; d <= 4; d++)
        cr_assert_eq(check_one(p, &c, d, 0, 0, false, NULL, 0, NULL), 1);
    free(c.rows);
    hf_poset_free(p);
    /* d above the number of events: the longest tuples there are (as hf_verify) */
    p = tu_antichain(2);
    uint32_t two[4] = {0, 1, 1, 0};
    c = (tu_collect){2, 0, 0, NULL};
    tu_collect_put(&c, two, 2);
    tu_collect_put(&c, two + 2, 2);
    tu_collect_put(&c, two, 2);
    hf_family *f = family_of(p, c.rows, c.m);
    hf_minimize_options o;
    hf_minimize_options_init(&o);
    o.d = 8;
    hf_minimize_result r;
    hf_error err;
    cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_OK, "%s", err.text);
    cr_assert_eq(r.d, 2);
    cr_assert_eq(hf_family_size(f), 2);
    hf_family_free(f);
    free(c.rows);
    hf_poset_free(p);
    /* no events: every (empty) schedule is redundant */
    p = tu_antichain(0);
    cr_assert_eq(hf_family_new(NULL, 0, &f), HF_OK);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(hf_family_append(f, NULL), HF_OK);
    o.d = 2;
    cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(f), 0);
    hf_verify_options vo = {.d = 2};
    hf_verify_result vr;
    cr_assert_eq(hf_verify(p, f, &vo, &vr, &err), HF_OK);
    cr_assert(vr.hitting);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(minimize, not_hitting_is_refused_with_the_verify_witness)
{
    uint64_t rng = 15;
    unsigned refused = 0;
    for (unsigned d = 2; d <= 4; d++)
        for (unsigned i = 0; i < 150; i++) {
            uint32_t n = 3 + tu_below(&rng, 4);
            hf_poset *p = tu_some_order(i, n, &rng);
            tu_collect c = random_hitting(p, d, NULL, &rng);
            /* drop schedules from the end until it is no longer hitting */
            while (c.m > 0 && tu_oracle_hitting(p, c.rows, c.m, d, NULL))
                c.m--;
            if (tu_oracle_hitting(p, c.rows, c.m, d, NULL)) { /* a chain: nothing to refuse */
                free(c.rows);
                hf_poset_free(p);
                continue;
            }
            hf_family *f = family_of(p, c.rows, c.m), *g = family_of(p, c.rows, c.m);
            hf_minimize_options o;
            hf_minimize_options_init(&o);
            o.d = d;
            hf_minimize_result r;
            hf_error err;
            cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_EMISMATCH);
            cr_assert(hf_i_family_same(f, g), "the family changed");
            cr_assert(strstr(err.text, "not") && strstr(err.text, "hitting"), "%s", err.text);
            hf_verify_options vo = {.d = d};
            hf_verify_result vr;
            cr_assert_eq(hf_verify(p, g, &vo, &vr, NULL), HF_OK);
            cr_assert_not(vr.hitting);
            cr_assert_eq(r.d, vr.d);
            for (unsigned j = 0; j < vr.d; j++) {
                cr_assert_eq(r.witness[j], vr.witness[j]);
                cr_assert(strstr(err.text, hf_poset_name(p, vr.witness[j])), "%s", err.text);
            }
            refused++;
            hf_family_free(f);
            hf_family_free(g);
            free(c.rows);
            hf_poset_free(p);
        }
    cr_assert_gt(refused, 300);
}

Test(minimize, bad_arguments)
{
    hf_poset *p = tu_antichain(5);
    tu_collect c = all_linext(p);
    hf_family *f = family_of(p, c.rows, c.m);
    hf_minimize_options o;
    hf_minimize_options_init(&o);
    cr_assert_eq(o.d, 2);
    cr_assert_eq(o.rounds, 0);
    cr_assert_not(o.drop_only);
    hf_error err;
    cr_assert_eq(hf_family_minimize(NULL, f, &o, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_family_minimize(p, NULL, &o, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_family_minimize(p, f, NULL, NULL, &err), HF_EINVAL);
    o.d = 0;
    cr_assert_eq(hf_family_minimize(p, f, &o, NULL, &err), HF_EINVAL);
    o.d = HF_MAX_D + 1;
    cr_assert_eq(hf_family_minimize(p, f, &o, NULL, &err), HF_EINVAL);
    o.d = 5;
    cr_assert_eq(hf_family_minimize(p, f, &o, NULL, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "d <= 4"), "%s", err.text);
    o.d = 3;
    uint32_t focus[2] = {1, 9};
    o.focus = focus;
    o.focus_count = 2;
    cr_assert_eq(hf_family_minimize(p, f, &o, NULL, &err), HF_EINVAL);
    o.focus = NULL;
    o.focus_count = 0;
    cr_assert_eq(hf_family_size(f), 120);
    /* a family over another number of events */
    hf_family *g = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &g), HF_OK);
    cr_assert_eq(hf_family_minimize(p, g, &o, NULL, &err), HF_EMISMATCH);
    hf_family_free(g);
    /* a schedule that is not a linear extension */
    hf_family_free(f);
    hf_poset_free(p);
    p = tu_chain(3);
    uint32_t bad[3] = {0, 2, 1};
    f = family_of(p, bad, 1);
    cr_assert_eq(hf_family_minimize(p, f, &o, NULL, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 1"), "%s", err.text);
    cr_assert_eq(hf_family_schedule(f, 0)[1], 2);
    hf_family_free(f);
    hf_poset_free(p);
    free(c.rows);
}

Test(minimize, counter_table_limit)
{
    /* 1291^3 > 2^31 >= 1290^3: refused before any large allocation */
    hf_poset *p = tu_antichain(1291);
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 1291, &f), HF_OK);
    hf_minimize_options o;
    hf_minimize_options_init(&o);
    o.d = 3;
    hf_error err;
    cr_assert_eq(hf_family_minimize(p, f, &o, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "1291^3"), "%s", err.text);
    /* with a focus set the table is small; the empty family is then not hitting */
    uint32_t focus[3] = {4, 700, 1290};
    o.focus = focus;
    o.focus_count = 3;
    hf_minimize_result r;
    cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_EMISMATCH);
    cr_assert_eq(r.witness[0], 4);
    cr_assert_eq(r.witness[1], 700);
    cr_assert_eq(r.witness[2], 1290);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(minimize, out_of_memory_leaves_the_family_unchanged)
{
    tu_chaos ch = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&ch);
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    static const char *names[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(hf_poset_builder_add_event(b, names[i], NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 1), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 2), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 3, 4), HF_OK);
    hf_poset *p;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    static const uint32_t edges[][2] = {{0, 1}, {0, 2}, {3, 4}};
    tu_register_edges(p, edges, 3);
    tu_collect c = all_linext(p);
    hf_family *ref = family_of(p, c.rows, c.m);
    hf_minimize_options o;
    hf_minimize_options_init(&o);
    o.d = 3;
    o.rounds = 40;
    long failures = 0;
    for (long k = 0;; k++) {
        hf_family *f = family_of(p, c.rows, c.m);
        long live = ch.live, calls = ch.calls;
        ch.left = k;
        ch.once = false;
        hf_error err;
        hf_status st = hf_family_minimize(p, f, &o, NULL, &err);
        ch.left = -1;
        if (st == HF_OK) {
            cr_assert_eq(ch.live, live, "leak after success");
            cr_assert_lt(hf_family_size(f), c.m);
            hf_family_free(f);
            break;
        }
        cr_assert_eq(st, HF_ENOMEM, "k=%ld: %s", k, err.text);
        cr_assert_gt(ch.calls, calls);
        cr_assert_eq(ch.live, live, "k=%ld: leak", k);
        cr_assert(hf_i_family_same(f, ref), "k=%ld: the family changed", k);
        failures++;
        hf_family_free(f);
    }
    cr_assert_gt(failures, 10);
    hf_family_free(ref);
    free(c.rows);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

Test(minimize, larger_orders_d3)
{
    /* random orders of 12..20 events, greedy families twice over: hf_verify checks */
    uint64_t rng = 16;
    for (unsigned i = 0; i < 18; i++) {
        uint32_t n = 12 + tu_below(&rng, 9);
        hf_poset *p = tu_some_order(i, n, &rng);
        hf_gen_options g;
        hf_gen_options_init(&g);
        g.d = 3;
        g.method = HF_METHOD_GREEDY;
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        hf_error err;
        cr_assert_eq(hf_generate(p, &g, hf_family_sink(f), NULL, &err), HF_OK, "%s", err.text);
        size_t m = hf_family_size(f);
        for (size_t j = 0; j < m; j++) {
            uint32_t s[32];
            memcpy(s, hf_family_schedule(f, j), n * sizeof *s);
            cr_assert_eq(hf_family_append(f, s), HF_OK);
        }
        hf_minimize_options o;
        hf_minimize_options_init(&o);
        o.d = 3;
        o.seed = i;
        o.rounds = 300;
        hf_minimize_result r;
        cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_OK, "%s", err.text);
        cr_assert_leq(r.after_drop, m);
        cr_assert_leq(r.after, r.after_drop);
        hf_verify_options vo = {.d = 3};
        hf_verify_result vr;
        cr_assert_eq(hf_verify(p, f, &vo, &vr, &err), HF_OK, "%s", err.text);
        cr_assert(vr.hitting, "n=%u shape %u", n, i % 9);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* A schedule that is no linear extension, in a family read from text: hf_family_minimize says
 * where it was read (err->line), as hf_verify does; the same rows built in memory have no line. */
Test(minimize, refused_schedule_of_a_text_family_gives_its_line)
{
    static const uint32_t e[][2] = {{0, 1}, {1, 2}};
    hf_poset *p = tu_poset(4, e, 2); /* e0 < e1 < e2, e3 free */
    static const char text[] = "# hitfam 0 d=2\n\ne0 e1 e2 e3\n# a comment\n\ne0 e2 e1 e3\n";
    hf_family *f;
    hf_error err;
    cr_assert_eq(tu_read_len(p, text, strlen(text), &f, NULL, &err), HF_OK, "%s", err.text);
    hf_minimize_options o;
    hf_minimize_options_init(&o);
    o.d = 2;
    hf_minimize_result r;
    cr_assert_eq(hf_family_minimize(p, f, &o, &r, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 6);
    cr_assert(strstr(err.text, "schedule 2"), "%s", err.text);
    hf_family *g = family_of(p, hf_family_schedule(f, 0), 2);
    cr_assert_eq(hf_family_minimize(p, g, &o, &r, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 0);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}
