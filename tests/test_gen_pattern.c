/* Tests of the pattern family (d >= 3, Section 5): every family checked d-hitting by an
 * independent brute-force oracle on all small plane trees, forests and in-forests, random trees
 * and focus sets; prediction, determinism, deduplication and the work guard. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "gen_pattern.h"
#include "hitfam/count.h"
#include "oracle.h"
#include "pattern_i.h"
#include "util.h"

TU_SUITE(gen_pattern);

#define PAT hf_i_method_pattern

/* ---------------------------------------------------------------------------------------- */
/* Oracle                                                                                     */

/* lt[a*n+b] iff a < b: a search from every event over the Hasse successors. */
static bool *order_closure(const hf_poset *p) { return tu_closure(p); }

typedef struct oracle {
    uint32_t n, d;
    size_t m, W;
    const bool *lt;
    const bool *sel;
    uint64_t *before; /* (a, b): bitset of the rows with a before b */
    uint64_t *sets;   /* d rows of W words: the rows hitting the current prefix */
    uint32_t tuple[HF_MAX_D];
    uint64_t tuples;
    bool missed;
    uint32_t witness[HF_MAX_D], witness_len;
} oracle;

/* Extend the admissible prefix tuple[0..k) in every way, counting admissible d-tuples; an
 * admissible prefix extends to an admissible d-tuple (n >= d), so an empty set of hitting rows
 * is a miss (recorded, and not extended further). */
static void extend(oracle *o, uint32_t k)
{
    if (k == o->d) {
        o->tuples++;
        return;
    }
    for (uint32_t c = 0; c < o->n; c++) {
        if (o->sel && !o->sel[c])
            continue;
        bool ok = true;
        for (uint32_t i = 0; i < k && ok; i++)
            ok = o->tuple[i] != c && !o->lt[(size_t)c * o->n + o->tuple[i]];
        if (!ok)
            continue;
        uint64_t *cur = o->sets + (size_t)k * o->W;
        bool any = false;
        for (size_t w = 0; w < o->W; w++) {
            cur[w] = k == 0 ? ~(uint64_t)0
                            : o->sets[(size_t)(k - 1) * o->W + w] &
                                  o->before[((size_t)o->tuple[k - 1] * o->n + c) * o->W + w];
            any |= cur[w] != 0;
        }
        o->tuple[k] = c;
        if (!any) {
            if (!o->missed) {
                o->missed = true;
                memcpy(o->witness, o->tuple, sizeof o->tuple);
                o->witness_len = k + 1;
            }
            continue;
        }
        extend(o, k + 1);
    }
}

/* Asserts that the rows are linear extensions of lt; returns whether every admissible
 * min(d, |sel|)-tuple of events in sel (all if NULL) is hit, and in *tuples (may be NULL) the
 * number of admissible tuples when it is. */
static bool is_hitting(uint32_t n, const bool *lt, const uint32_t *rows, size_t m, unsigned d,
                       const bool *sel, uint64_t *tuples)
{
    uint32_t nsel = 0;
    for (uint32_t a = 0; a < n; a++)
        nsel += !sel || sel[a];
    oracle o = {.n = n, .d = d < nsel ? d : nsel, .m = m, .W = (m + 63) / 64, .lt = lt, .sel = sel};
    cr_assert(m > 0 || o.d == 0, "empty family");
    o.before = calloc((size_t)n * n * o.W + 1, sizeof *o.before);
    o.sets = calloc((size_t)HF_MAX_D * o.W + 1, sizeof *o.sets);
    uint32_t *pos = malloc((n + 1) * sizeof *pos);
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = rows + s * n;
        memset(pos, 0xff, (n + 1) * sizeof *pos);
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_lt(row[i], n, "schedule %zu: bad id", s);
            cr_assert_eq(pos[row[i]], UINT32_MAX, "schedule %zu repeats event %u", s, row[i]);
            pos[row[i]] = i;
        }
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++) {
                if (lt[(size_t)a * n + b])
                    cr_assert_lt(pos[a], pos[b], "schedule %zu breaks %u < %u", s, a, b);
                if (pos[a] < pos[b])
                    o.before[((size_t)a * n + b) * o.W + s / 64] |= (uint64_t)1 << (s % 64);
            }
    }
    extend(&o, 0);
    free(pos);
    free(o.before);
    free(o.sets);
    if (tuples)
        *tuples = o.tuples;
    return !o.missed;
}

static void check_hitting(uint32_t n, const bool *lt, const uint32_t *rows, size_t m, unsigned d,
                          const bool *sel)
{
    cr_assert(is_hitting(n, lt, rows, m, d, sel, NULL), "%zu schedules are not %u-hitting", m, d);
}

/* The oracle counts the published numbers of admissible tuples (docs/math.md, section 8) and sees
 * that two DFS orders of T_2 are not 3-hitting while all linear extensions are. */
Test(gen_pattern, oracle_self_check)
{
    struct {
        uint32_t h;
        unsigned d;
        uint64_t tuples;
    } cases[] = {{2, 3, 102}, {2, 4, 220}, {3, 3, 1710}, {3, 4, 13844}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hf_poset *p = tu_complete_binary(cases[i].h);
        uint32_t n = hf_poset_size(p);
        bool *lt = order_closure(p);
        /* every linear extension of T_h for h = 2 would do; use 2 * (number of tuples) random
         * ones, generated here by repeatedly taking a random enabled event */
        size_t m = 4000;
        uint32_t *rows = malloc(m * n * sizeof *rows);
        uint64_t rng = 3;
        for (size_t s = 0; s < m; s++) {
            bool *done = calloc(n, 1);
            for (uint32_t k = 0; k < n; k++) {
                uint32_t cand[64], nc = 0;
                for (uint32_t v = 0; v < n; v++) {
                    bool ok = !done[v];
                    for (uint32_t u = 0; u < n && ok; u++)
                        ok = !lt[(size_t)u * n + v] || done[u];
                    if (ok)
                        cand[nc++] = v;
                }
                uint32_t v = cand[tu_below(&rng, nc)];
                done[v] = true;
                rows[s * n + k] = v;
            }
            free(done);
        }
        uint64_t tuples = 0;
        bool hit = is_hitting(n, lt, rows, m, cases[i].d, NULL, &tuples);
        if (cases[i].h == 2) {
            cr_assert(hit);
            cr_assert_eq(tuples, cases[i].tuples, "T_%u, d=%u: %" PRIu64 " tuples", cases[i].h,
                         cases[i].d, tuples);
            cr_assert(!is_hitting(n, lt, rows, 2, 3, NULL, NULL), "two schedules hit all triples");
        } else if (hit) {
            cr_assert_eq(tuples, cases[i].tuples);
        }
        free(rows);
        free(lt);
        hf_poset_free(p);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Running the method                                                                         */

static void options(hf_gen_options *opt, unsigned d, const uint32_t *focus, size_t nf,
                    hf_pattern_mode mode)
{
    hf_gen_options_init(opt);
    opt->d = d;
    opt->method = HF_METHOD_PATTERN;
    opt->focus = focus;
    opt->focus_count = nf;
    opt->pattern_mode = mode;
}

static int cmp_rows_n;
static int cmp_rows(const void *x, const void *y)
{
    return memcmp(x, y, (size_t)cmp_rows_n * sizeof(uint32_t));
}

/* No two rows of f are equal. */
static void check_distinct(const hf_family *f)
{
    size_t m = hf_family_size(f);
    uint32_t n = hf_family_events(f);
    if (m < 2)
        return;
    uint32_t *copy = malloc(m * n * sizeof *copy);
    for (size_t i = 0; i < m; i++)
        memcpy(copy + i * n, hf_family_schedule(f, i), n * sizeof *copy);
    cmp_rows_n = (int)n;
    qsort(copy, m, n * sizeof *copy, cmp_rows);
    for (size_t i = 1; i < m; i++)
        cr_assert(memcmp(copy + (i - 1) * n, copy + i * n, n * sizeof *copy) != 0,
                  "a schedule emitted twice");
    free(copy);
}

static const uint32_t *rows_of(const hf_family *f)
{
    return hf_family_size(f) ? hf_family_schedule(f, 0) : NULL;
}

/* Check, generate through hf_generate, compare with hf_method_predict and with the walk's own
 * count, no duplicates. `stats` (may be NULL) gets the prediction walk's figures. */
static hf_family *run_mode(const hf_poset *p, unsigned d, const uint32_t *focus, size_t nf,
                           hf_pattern_mode mode, hf_i_pattern_stats *stats)
{
    hf_gen_options opt;
    options(&opt, d, focus, nf, mode);
    hf_error err;
    cr_assert_eq(PAT.check(p, &opt, &err), HF_OK, "check: %s", err.text);
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    hf_method used;
    cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f), &used, &err), HF_OK, "generate: %s",
                 err.text);
    cr_assert_eq(used, HF_METHOD_PATTERN);
    uint64_t size;
    cr_assert_eq(hf_method_predict(p, &opt, &size, NULL, &err), HF_OK, "predict: %s", err.text);
    cr_assert_eq(size, hf_family_size(f), "mode %d: predicted %" PRIu64 ", emitted %zu", (int)mode,
                 size, hf_family_size(f));
    hf_i_pattern_stats s;
    cr_assert_eq(hf_i_pattern_run(p, &opt, 0, NULL, &s, &err), HF_OK, "%s", err.text);
    cr_assert_eq(s.distinct, size);
    cr_assert_geq(s.patterns, s.distinct);
    if (stats)
        *stats = s;
    check_distinct(f);
    return f;
}

static hf_family *run_pattern(const hf_poset *p, unsigned d, const uint32_t *focus, size_t nf)
{
    return run_mode(p, d, focus, nf, HF_PATTERN_CANONICAL, NULL);
}

/* Generate in a mode and check d-hitting with the oracle. */
static void check_poset_mode(const hf_poset *p, unsigned d, hf_pattern_mode mode)
{
    hf_family *f = run_mode(p, d, NULL, 0, mode, NULL);
    bool *lt = order_closure(p);
    check_hitting(hf_poset_size(p), lt, rows_of(f), hf_family_size(f), d, NULL);
    free(lt);
    hf_family_free(f);
}

static void check_poset(const hf_poset *p, unsigned d)
{
    check_poset_mode(p, d, HF_PATTERN_CANONICAL);
}

/* ---------------------------------------------------------------------------------------- */
/* Small orders from level sequences                                                          */

/* A forest (or tree) from a level sequence: the parent of node i is the last earlier node one
 * level up. Ids are permuted by `perm` so that child order is not the construction order;
 * edges point to the root if `in`. */
static hf_poset *from_levels(const uint32_t *lev, uint32_t n, const uint32_t *perm, bool in)
{
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (lev[i] == 0)
            continue;
        uint32_t j = i;
        while (lev[--j] != lev[i] - 1)
            ;
        e[m][in ? 1 : 0] = perm[j];
        e[m][in ? 0 : 1] = perm[i];
        m++;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

typedef struct sweep {
    unsigned d;
    hf_pattern_mode mode;
    uint64_t rng;
    uint32_t count;
} sweep;

static void check_levels(const uint32_t *lev, uint32_t n, void *user)
{
    sweep *s = user;
    uint32_t perm[16];
    for (uint32_t k = 0; k < n; k++)
        perm[k] = k;
    for (uint32_t k = n; k > 1; k--) {
        uint32_t j = tu_below(&s->rng, k), tmp = perm[k - 1];
        perm[k - 1] = perm[j];
        perm[j] = tmp;
    }
    for (int in = 0; in < 2; in++) {
        hf_poset *p = from_levels(lev, n, perm, in);
        check_poset_mode(p, s->d, s->mode);
        hf_poset_free(p);
    }
    s->count++;
}

/* Every plane tree (Catalan(n-1) of them) or plane forest (Catalan(n)) on n events, as an
 * out-tree and as an in-tree. */
static uint32_t sweep_mode(unsigned d, uint32_t n, bool forest, hf_pattern_mode mode)
{
    sweep s = {d, mode, 0x5eed + n * 17 + d, 0};
    tu_each_level_sequence(n, forest, check_levels, &s);
    return s.count;
}

static uint32_t sweep_all(unsigned d, uint32_t n, bool forest)
{
    return sweep_mode(d, n, forest, HF_PATTERN_CANONICAL);
}

static uint32_t catalan(uint32_t k)
{
    uint64_t c = 1;
    for (uint32_t i = 0; i < k; i++)
        c = c * 2 * (2 * i + 1) / (i + 2);
    return (uint32_t)c;
}

Test(gen_pattern, d3_every_small_tree_and_forest)
{
    for (uint32_t n = 1; n <= 8; n++) {
        cr_assert_eq(sweep_all(3, n, false), catalan(n - 1));
        if (n <= 7)
            cr_assert_eq(sweep_all(3, n, true), catalan(n));
    }
}

Test(gen_pattern, d4_every_small_tree_and_forest)
{
    for (uint32_t n = 1; n <= 8; n++) {
        cr_assert_eq(sweep_all(4, n, false), catalan(n - 1));
        if (n <= 7)
            cr_assert_eq(sweep_all(4, n, true), catalan(n));
    }
}

Test(gen_pattern, d5_every_small_tree_and_forest)
{
    for (uint32_t n = 1; n <= 7; n++) {
        cr_assert_eq(sweep_all(5, n, false), catalan(n - 1));
        if (n <= 6)
            cr_assert_eq(sweep_all(5, n, true), catalan(n));
    }
}

/* The other two modes through hf_generate on every small tree and forest (the canonical one,
 * the method's default, is swept above). */
Test(gen_pattern, realised_every_small_tree_and_forest)
{
    for (uint32_t n = 1; n <= 8; n++) {
        sweep_mode(3, n, false, HF_PATTERN_REALISED);
        sweep_mode(4, n, false, HF_PATTERN_REALISED);
        if (n <= 7) {
            sweep_mode(3, n, true, HF_PATTERN_REALISED);
            sweep_mode(4, n, true, HF_PATTERN_REALISED);
            sweep_mode(5, n, false, HF_PATTERN_REALISED);
        }
        if (n <= 6)
            sweep_mode(5, n, true, HF_PATTERN_REALISED);
    }
}

Test(gen_pattern, all_every_small_tree_and_forest)
{
    for (uint32_t n = 1; n <= 8; n++) {
        sweep_mode(3, n, false, HF_PATTERN_ALL);
        sweep_mode(4, n, false, HF_PATTERN_ALL);
        if (n <= 7)
            sweep_mode(3, n, true, HF_PATTERN_ALL);
        if (n <= 6)
            sweep_mode(5, n, false, HF_PATTERN_ALL);
    }
}

/* The realisability test keeps rows from one test to the next and cuts each row at the depth
 * its parent reads: the same answers as computing every row afresh over every depth
 * (HF_I_PATTERN_PLAIN_TESTS), so the same patterns, walk and rows, in the three modes and the
 * unreduced count. */
static void same_as_plain_tests(const hf_poset *p, unsigned d, hf_pattern_mode mode)
{
    hf_gen_options opt;
    options(&opt, d, NULL, 0, mode);
    hf_i_pattern_stats s[2], u[2];
    tu_collect c[2];
    for (int k = 0; k < 2; k++) {
        unsigned flags = HF_I_PATTERN_NO_GUARD | (k ? HF_I_PATTERN_PLAIN_TESTS : 0u);
        c[k] = (tu_collect){hf_poset_size(p), 0, 0, NULL};
        hf_sink sink = tu_collect_sink(&c[k]);
        cr_assert_eq(hf_i_pattern_run(p, &opt, flags, &sink, &s[k], NULL), HF_OK);
        cr_assert_eq(hf_i_pattern_run(p, &opt, flags | HF_I_PATTERN_UNREDUCED, NULL, &u[k], NULL),
                     HF_OK);
    }
    cr_assert_eq(s[0].layered_shapes, s[1].layered_shapes, "d=%u mode %d", d, mode);
    cr_assert_eq(s[0].patterns, s[1].patterns);
    cr_assert_eq(s[0].distinct, s[1].distinct);
    cr_assert_eq(u[0].layered_shapes, u[1].layered_shapes);
    cr_assert_eq(u[0].patterns, u[1].patterns);
    cr_assert_eq(c[0].m, c[1].m);
    cr_assert_eq(c[0].m, s[0].distinct);
    cr_assert(memcmp(c[0].rows, c[1].rows, c[0].m * c[0].n * sizeof *c[0].rows) == 0,
              "d=%u mode %d: other rows", d, mode);
    free(c[0].rows);
    free(c[1].rows);
}

static void plain_levels(const uint32_t *lev, uint32_t n, void *user)
{
    (void)user;
    uint32_t perm[16];
    for (uint32_t k = 0; k < n; k++)
        perm[k] = k;
    hf_poset *p = from_levels(lev, n, perm, 0);
    for (unsigned d = 3; d <= (n < 8 ? 5u : 4u); d++)
        same_as_plain_tests(p, d, d == 4 ? HF_PATTERN_REALISED : HF_PATTERN_CANONICAL);
    hf_poset_free(p);
}

Test(gen_pattern, kept_and_cut_test_rows_match_plain_tests)
{
    for (uint32_t n = 1; n <= 8; n++)
        tu_each_level_sequence(n, false, plain_levels, NULL);
    uint64_t rng = 91;
    for (int it = 0; it < 16; it++) {
        uint32_t n = 10 + tu_below(&rng, it < 12 ? 40 : 120), roots = 1 + tu_below(&rng, 3);
        hf_poset *p =
            it % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        same_as_plain_tests(p, 3, HF_PATTERN_CANONICAL);
        same_as_plain_tests(p, 4, it % 3 ? HF_PATTERN_CANONICAL : HF_PATTERN_REALISED);
        if (n <= 20)
            same_as_plain_tests(p, 5, HF_PATTERN_CANONICAL);
        hf_poset_free(p);
    }
    for (uint32_t h = 2; h <= 5; h++) {
        hf_poset *p = tu_complete_binary(h);
        same_as_plain_tests(p, 4, HF_PATTERN_CANONICAL);
        if (h <= 4)
            same_as_plain_tests(p, 5, HF_PATTERN_ALL);
        hf_poset_free(p);
    }
}

/* With n < d the family must hit every n-tuple (d' = min(d, n)). */
Test(gen_pattern, d6_to_8_small_trees)
{
    for (unsigned d = 6; d <= 8; d++)
        for (uint32_t n = 4; n <= 6; n++)
            sweep_all(d, n, false);
}

/* ---------------------------------------------------------------------------------------- */
/* Random and standard orders                                                                 */

Test(gen_pattern, d3_random_forests_and_inforests)
{
    uint64_t rng = 42;
    for (int it = 0; it < 40; it++) {
        uint32_t n = 10 + tu_below(&rng, 51), roots = 1 + tu_below(&rng, 4);
        hf_poset *p =
            it % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        check_poset(p, 3);
        hf_poset_free(p);
    }
}

Test(gen_pattern, d4_random_forests)
{
    uint64_t rng = 7;
    for (int it = 0; it < 12; it++) {
        uint32_t n = 9 + tu_below(&rng, 12), roots = 1 + tu_below(&rng, 3);
        hf_poset *p =
            it % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        check_poset(p, 4);
        hf_poset_free(p);
    }
}

Test(gen_pattern, complete_binary_trees_and_wide_trees)
{
    for (uint32_t h = 1; h <= 4; h++) {
        hf_poset *p = tu_complete_binary(h);
        check_poset(p, 3);
        if (h <= 3)
            check_poset(p, 4);
        hf_poset_free(p);
    }
    /* gadgets: a star and a broom */
    const char *shapes[] = {"0111111111", "0123111111", "01212121212"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        hf_poset *p = tu_tree_from_levels(shapes[i]);
        check_poset(p, 3);
        check_poset(p, 4);
        hf_poset_free(p);
    }
}

/* The prediction (the exact size `stats` prints) against the family built, d = 3..5, on random
 * forests and in-forests and on complete binary trees of up to 63 events: at d = 5 the
 * constraint sets nest three deep, and the deepest ones keep no positions (pattern_i.h). */
Test(gen_pattern, prediction_matches_family_d3_to_5)
{
    uint64_t rng = 1625;
    for (unsigned d = 3; d <= 5; d++) {
        for (int it = 0; it < 8; it++) {
            uint32_t n = 12 + tu_below(&rng, 40), roots = 1 + tu_below(&rng, 3);
            hf_poset *p =
                it % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
            hf_family_free(run_pattern(p, d, NULL, 0));
            hf_poset_free(p);
        }
        for (uint32_t h = 1; h <= 5; h++) {
            hf_poset *p = tu_complete_binary(h);
            hf_family_free(run_pattern(p, d, NULL, 0));
            hf_poset_free(p);
        }
    }
}

Test(gen_pattern, focus_sets)
{
    uint64_t rng = 99;
    for (int it = 0; it < 20; it++) {
        uint32_t n = 8 + tu_below(&rng, 20);
        hf_poset *p = it % 2 ? tu_random_inforest(n, 2, &rng) : tu_random_forest(n, 1, &rng);
        uint32_t focus[32], nf = 0;
        bool sel[32] = {0};
        for (uint32_t a = 0; a < n; a++)
            if (tu_below(&rng, 2)) {
                focus[nf++] = a;
                sel[a] = true;
            }
        unsigned d = 3 + (unsigned)(it % 2);
        hf_family *f = run_mode(p, d, focus, nf, (hf_pattern_mode)(it % 3), NULL);
        bool *lt = order_closure(p);
        check_hitting(n, lt, rows_of(f), hf_family_size(f), d, sel);
        free(lt);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Modes, determinism, limits                                                                 */

/* All rows of a within b. */
static bool subset(const hf_family *a, const hf_family *b)
{
    uint32_t n = hf_family_events(a);
    for (size_t i = 0; i < hf_family_size(a); i++) {
        bool found = false;
        for (size_t j = 0; j < hf_family_size(b) && !found; j++)
            found = memcmp(hf_family_schedule(a, i), hf_family_schedule(b, j),
                           n * sizeof(uint32_t)) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* Canonical sigmas of realised patterns within all sigmas of realised patterns within all
 * patterns: the families nest, and the largest is d-hitting too. */
Test(gen_pattern, modes_nest)
{
    uint64_t rng = 5;
    for (int it = 0; it < 16; it++) {
        uint32_t n = 4 + tu_below(&rng, 9);
        hf_poset *p = tu_random_forest(n, 1 + tu_below(&rng, 2), &rng);
        unsigned d = 3 + (unsigned)(it % 2);
        hf_i_pattern_stats sc, sr, sa;
        hf_family *fc = run_mode(p, d, NULL, 0, HF_PATTERN_CANONICAL, &sc);
        hf_family *fr = run_mode(p, d, NULL, 0, HF_PATTERN_REALISED, &sr);
        hf_family *fa = run_mode(p, d, NULL, 0, HF_PATTERN_ALL, &sa);
        cr_assert_leq(sc.patterns, sr.patterns);
        cr_assert_leq(sr.patterns, sa.patterns);
        cr_assert_leq(sc.distinct, sr.distinct);
        cr_assert_leq(sr.distinct, sa.distinct);
        cr_assert(subset(fc, fr), "a canonical schedule missing from the realised family");
        cr_assert(subset(fr, fa), "a realised schedule missing from the all-pattern family");
        bool *lt = order_closure(p);
        check_hitting(n, lt, rows_of(fa), hf_family_size(fa), d, NULL);
        free(lt);
        hf_family_free(fc);
        hf_family_free(fr);
        hf_family_free(fa);
        hf_poset_free(p);
    }
}

Test(gen_pattern, deterministic)
{
    uint64_t rng = 11;
    hf_poset *p = tu_random_forest(40, 2, &rng);
    hf_family *a = run_pattern(p, 3, NULL, 0), *b = run_pattern(p, 3, NULL, 0);
    cr_assert_eq(hf_family_size(a), hf_family_size(b));
    for (size_t i = 0; i < hf_family_size(a); i++)
        cr_assert(
            memcmp(hf_family_schedule(a, i), hf_family_schedule(b, i), 40 * sizeof(uint32_t)) == 0,
            "schedule %zu differs between runs", i);
    hf_family_free(a);
    hf_family_free(b);
    hf_poset_free(p);
}

Test(gen_pattern, check_refuses_small_d_and_general_orders)
{
    hf_poset *t = tu_complete_binary(2);
    hf_gen_options opt;
    hf_error err;
    options(&opt, 2, NULL, 0, HF_PATTERN_CANONICAL);
    cr_assert_eq(PAT.check(t, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "dfs") != NULL, "%s", err.text);
    for (unsigned d = 3; d <= HF_MAX_D; d++) {
        options(&opt, d, NULL, 0, HF_PATTERN_CANONICAL);
        cr_assert_eq(PAT.check(t, &opt, &err), HF_OK);
    }
    const uint32_t diamond[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_poset *q = tu_poset(4, diamond, 4);
    options(&opt, 3, NULL, 0, HF_PATTERN_CANONICAL);
    cr_assert_eq(PAT.check(q, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "forest") != NULL, "%s", err.text);
    hf_poset_free(q);
    hf_poset_free(t);
}

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(size_t *)user;
    return HF_OK;
}

Test(gen_pattern, work_guard_refuses_before_emitting)
{
    hf_poset *p = tu_complete_binary(9);
    hf_gen_options opt;
    options(&opt, 8, NULL, 0, HF_PATTERN_CANONICAL);
    hf_error err;
    size_t emitted = 0;
    cr_assert_eq(PAT.generate(p, &opt, (hf_sink){count_put, &emitted}, &err), HF_ETOOLARGE);
    cr_assert_eq(emitted, 0);
    cr_assert(strstr(err.text, "pattern") != NULL, "%s", err.text);
    mpz_t s;
    mpz_init(s);
    cr_assert_eq(PAT.predict(p, &opt, s, &err), HF_ETOOLARGE);
    mpz_clear(s);
    hf_poset_free(p);
}

/* A slice skips the guard's walks in the method's generate (lib/gen.c predicts first): through
 * hf_generate, a slice of an order past the limits is still refused before its first row, by
 * the prediction, first rows and last rows alike. */
Test(gen_pattern, slice_past_the_limit_refused_before_emitting)
{
    hf_poset *p = tu_complete_binary(9);
    const uint64_t slices[][2] = {{1, 1}, {1, 0}, {1000, 1000}};
    for (size_t i = 0; i < sizeof slices / sizeof *slices; i++) {
        hf_gen_options opt;
        options(&opt, 8, NULL, 0, HF_PATTERN_CANONICAL);
        opt.max_names = 0;
        opt.row_first = slices[i][0];
        opt.row_last = slices[i][1];
        hf_error err;
        size_t emitted = 0;
        cr_assert_eq(hf_generate(p, &opt, (hf_sink){count_put, &emitted}, NULL, &err), HF_ETOOLARGE,
                     "rows %zu", i);
        cr_assert_eq(emitted, 0);
        cr_assert(strstr(err.text, "method pattern: more than") != NULL, "%s", err.text);
    }
    hf_poset_free(p);
}

/* Orders far past the limits (the examples of the work guard's issue: T_6 with d = 6 and all
 * patterns, T_12 with d = 5 and realised patterns) are refused by the first, counting walk: no
 * schedule hashed, the count over the limit by at most one group of sigmas, the work within
 * it; the message names the limits and the other methods. */
Test(gen_pattern, over_limit_refused_by_the_counting_walk)
{
    const struct {
        uint32_t h;
        unsigned d;
        hf_pattern_mode mode;
    } cases[] = {{6, 6, HF_PATTERN_ALL}, {11, 5, HF_PATTERN_ALL}, {12, 5, HF_PATTERN_REALISED}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hf_poset *p = tu_complete_binary(cases[i].h);
        hf_gen_options opt;
        options(&opt, cases[i].d, NULL, 0, cases[i].mode);
        hf_error err;
        hf_i_pattern_stats s;
        cr_assert_eq(hf_i_pattern_run(p, &opt, 0, NULL, &s, &err), HF_ETOOLARGE);
        cr_assert(strstr(err.text, "method pattern: more than 3000000000 steps of work or "
                                   "8388608 patterns") != NULL,
                  "%s", err.text);
        cr_assert(strstr(err.text, "use simple or doubletree") != NULL, "%s", err.text);
        cr_assert_eq(s.distinct, 0, "refused before any schedule was hashed");
        cr_assert_gt(s.patterns, HF_I_PATTERN_MAX_PATTERNS);
        cr_assert_leq(s.patterns, HF_I_PATTERN_MAX_PATTERNS + (1u << 16));
        cr_assert_leq(s.work, HF_I_PATTERN_MAX_WORK);
        mpz_t size;
        mpz_init(size);
        cr_assert_eq(PAT.predict(p, &opt, size, &err), HF_ETOOLARGE);
        mpz_clear(size);
        size_t emitted = 0;
        cr_assert_eq(PAT.generate(p, &opt, (hf_sink){count_put, &emitted}, &err), HF_ETOOLARGE);
        cr_assert_eq(emitted, 0);
        cr_assert(strstr(err.text, "more than") != NULL, "%s", err.text);
        hf_poset_free(p);
    }
}

/* The counting walk changes nothing once it accepts: with and without the guard (which skips
 * it) the walk counts the same patterns, work and schedules. */
Test(gen_pattern, within_limits_still_accepted)
{
    hf_poset *p = tu_complete_binary(6);
    hf_gen_options opt;
    options(&opt, 5, NULL, 0, HF_PATTERN_REALISED);
    hf_i_pattern_stats a, b;
    cr_assert_eq(hf_i_pattern_run(p, &opt, 0, NULL, &a, NULL), HF_OK);
    cr_assert_eq(hf_i_pattern_run(p, &opt, HF_I_PATTERN_NO_GUARD, NULL, &b, NULL), HF_OK);
    cr_assert_eq(a.distinct, b.distinct);
    cr_assert_eq(a.patterns, b.patterns);
    cr_assert_eq(a.work, b.work);
    cr_assert_gt(a.patterns, a.distinct);
    cr_assert_leq(a.patterns, HF_I_PATTERN_MAX_PATTERNS);
    hf_poset_free(p);
}

static hf_status failing_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    return ++*(size_t *)user == 3 ? HF_EIO : HF_OK;
}

Test(gen_pattern, sink_error_stops)
{
    hf_poset *p = tu_complete_binary(3);
    hf_gen_options opt;
    options(&opt, 3, NULL, 0, HF_PATTERN_CANONICAL);
    size_t calls = 0;
    cr_assert_eq(PAT.generate(p, &opt, (hf_sink){failing_put, &calls}, NULL), HF_EIO);
    cr_assert_eq(calls, 3);
    hf_poset_free(p);
}

Test(gen_pattern, single_event_and_chain)
{
    hf_poset *one = tu_chain(1), *ch = tu_chain(12), *two = tu_antichain(2);
    hf_family *f = run_pattern(one, 3, NULL, 0);
    cr_assert_eq(hf_family_size(f), 1);
    hf_family_free(f);
    f = run_pattern(ch, 5, NULL, 0);
    cr_assert_eq(hf_family_size(f), 1, "a chain has one schedule");
    hf_family_free(f);
    check_poset(two, 3);
    hf_poset_free(one);
    hf_poset_free(ch);
    hf_poset_free(two);
}

/* ---------------------------------------------------------------------------------------- */
/* Counting and out of memory                                                                 */

/* The plain enumeration counts more patterns than the walk (free nodes merged), never fewer,
 * and the same (shape, layers) pairs are realised with every layer a free node may take. */
Test(gen_pattern, unreduced_count_bounds_the_walk)
{
    uint64_t rng = 77;
    for (int it = 0; it < 10; it++) {
        hf_poset *p = tu_random_forest(6 + tu_below(&rng, 30), 1, &rng);
        for (int mode = 0; mode <= 2; mode++) {
            hf_gen_options opt;
            options(&opt, 3 + (unsigned)(it % 2), NULL, 0, (hf_pattern_mode)mode);
            hf_i_pattern_stats walk, plain;
            cr_assert_eq(hf_i_pattern_run(p, &opt, 0, NULL, &walk, NULL), HF_OK);
            cr_assert_eq(hf_i_pattern_run(p, &opt, HF_I_PATTERN_UNREDUCED, NULL, &plain, NULL),
                         HF_OK);
            cr_assert_geq(plain.patterns, walk.patterns);
            cr_assert_geq(walk.patterns, walk.distinct);
        }
        hf_poset_free(p);
    }
}

/* A copy of q whose allocations go through ctx. */
static hf_poset *with_ctx(const hf_poset *q, hf_ctx *ctx) { return tu_poset_copy(q, ctx); }

/* Every allocation of predict and generate (each mode) fails in turn: HF_ENOMEM, nothing
 * leaked, nothing emitted twice; then the run succeeds with the same result. */
Test(gen_pattern, out_of_memory_paths)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    uint64_t rng = 3;
    hf_poset *q = tu_random_forest(30, 2, &rng);
    hf_poset *p = with_ctx(q, ctx);
    for (int mode = 0; mode <= 2; mode++)
        for (int gen = 0; gen < 2; gen++) {
            hf_gen_options opt;
            options(&opt, 4, NULL, 0, (hf_pattern_mode)mode);
            c.left = -1;
            size_t want = 0;
            hf_i_pattern_stats s;
            hf_sink sink = {count_put, &want};
            cr_assert_eq(hf_i_pattern_run(p, &opt, 0, gen ? &sink : NULL, &s, NULL), HF_OK);
            if (!gen)
                want = s.distinct;
            hf_status st = HF_ENOMEM;
            for (long fail = 0; st == HF_ENOMEM; fail++) {
                cr_assert_lt(fail, 100000);
                long live = c.live;
                size_t got = 0;
                sink.user = &got;
                c.left = fail;
                hf_error err;
                st = hf_i_pattern_run(p, &opt, 0, gen ? &sink : NULL, &s, &err);
                c.left = -1;
                cr_assert_eq(c.live, live, "leak after failing allocation %ld", fail);
                if (st == HF_ENOMEM)
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
                else
                    cr_assert_eq(gen ? got : s.distinct, want);
            }
            cr_assert_eq(st, HF_OK);
        }
    hf_poset_free(p);
    hf_poset_free(q);
    hf_ctx_free(ctx);
}
