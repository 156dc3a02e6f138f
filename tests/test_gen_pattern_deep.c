/* Tests of the pattern family on deep and larger trees (long chains, chains with side leaves,
 * caterpillars, random trees of hundreds of events), each family checked by hf_verify. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gen_pattern.h"
#include "hitfam/count.h"
#include "util.h"

TU_SUITE(gen_pattern_deep);

/* Generate through hf_generate in `mode`; the prediction (hf_method_predict and the walk's
 * own count) must equal the number of rows emitted. */
static hf_family *run_mode(const hf_poset *p, unsigned d, const uint32_t *focus, size_t nf,
                           hf_pattern_mode mode, hf_i_pattern_stats *stats)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = HF_METHOD_PATTERN;
    opt.focus = focus;
    opt.focus_count = nf;
    opt.pattern_mode = mode;
    hf_error err;
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f), NULL, &err), HF_OK, "generate: %s",
                 err.text);
    uint64_t size;
    cr_assert_eq(hf_method_predict(p, &opt, &size, NULL, &err), HF_OK, "predict: %s", err.text);
    cr_assert_eq(size, hf_family_size(f));
    hf_i_pattern_stats s;
    cr_assert_eq(hf_i_pattern_run(p, &opt, 0, NULL, &s, &err), HF_OK, "%s", err.text);
    cr_assert_eq(s.distinct, size);
    if (stats)
        *stats = s;
    return f;
}

/* A tree from parent[] (HF_NO_EVENT: a root). */
static hf_poset *from_parents(uint32_t n, const uint32_t *parent)
{
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (parent[i] != HF_NO_EVENT) {
            e[m][0] = parent[i];
            e[m][1] = i;
            m++;
        }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

/* A chain of len events with `side` leaves hung from evenly spaced chain events (ids after the
 * chain's). */
static hf_poset *chain_with_leaves(uint32_t len, uint32_t side)
{
    uint32_t n = len + side, *parent = malloc(n * sizeof *parent);
    for (uint32_t i = 0; i < len; i++)
        parent[i] = i ? i - 1 : HF_NO_EVENT;
    for (uint32_t j = 0; j < side; j++)
        parent[len + j] = (uint32_t)((uint64_t)(j + 1) * len / (side + 1));
    hf_poset *p = from_parents(n, parent);
    free(parent);
    return p;
}

/* A caterpillar: a spine of len events, each with `legs` leaves. */
static hf_poset *caterpillar(uint32_t len, uint32_t legs)
{
    uint32_t n = len * (1 + legs), *parent = malloc(n * sizeof *parent);
    for (uint32_t i = 0; i < len; i++) {
        parent[i] = i ? i - 1 : HF_NO_EVENT;
        for (uint32_t j = 0; j < legs; j++)
            parent[len + i * legs + j] = i;
    }
    hf_poset *p = from_parents(n, parent);
    free(parent);
    return p;
}

/* Generate in `mode`, check predict == emitted, and verify d-hitting with hf_verify. */
static size_t verified_size(const hf_poset *p, unsigned d, hf_pattern_mode mode,
                            hf_i_pattern_stats *stats)
{
    hf_family *f = run_mode(p, d, NULL, 0, mode, stats);
    hf_verify_options vo = {.d = d};
    hf_verify_result res;
    hf_error err;
    cr_assert_eq(hf_verify(p, f, &vo, &res, &err), HF_OK, "%s", err.text);
    cr_assert(res.hitting, "d=%u mode %d: %zu schedules are not d-hitting", d, (int)mode,
              hf_family_size(f));
    size_t m = hf_family_size(f);
    hf_family_free(f);
    return m;
}

/* All one-child nodes of a chain's patterns are free: one pattern per shape, not C(h, d-1).
 * A chain has a single schedule, so a valid one is d-hitting; hf_verify's cost grows with the
 * (d-1)-prefixes, so it checks a shorter chain. */
Test(gen_pattern_deep, long_chain_is_one_schedule)
{
    hf_poset *p = tu_chain(3000), *q = tu_chain(300);
    for (unsigned d = 3; d <= 4; d++)
        for (int mode = HF_PATTERN_CANONICAL; mode <= HF_PATTERN_REALISED; mode++) {
            hf_i_pattern_stats s;
            cr_assert_eq(verified_size(q, d, (hf_pattern_mode)mode, &s), 1);
            hf_family *f = run_mode(p, d, NULL, 0, (hf_pattern_mode)mode, &s);
            cr_assert_eq(hf_family_size(f), 1);
            cr_assert_eq(hf_schedule_check(p, hf_family_schedule(f, 0), 0, NULL), HF_OK);
            cr_assert_leq(s.patterns, d, "%" PRIu64 " patterns walked", s.patterns);
            cr_assert_lt(s.work, 100000000, "work %" PRIu64, s.work);
            hf_family_free(f);
        }
    hf_poset_free(p);
    hf_poset_free(q);
}

/* Long unary paths between branchings: not refused, d-hitting, and at least the chain lower
 * bound (docs/bounds.md, bound 3: a chain of c events and one event incomparable to all of them
 * need c + 1 schedules for d = 3). The 2,000-event chain's 21,131 schedules are generated and
 * each checked against the order; hf_verify (minutes under the sanitizers there) checks the
 * same shape on 600 events. */
Test(gen_pattern_deep, long_chain_with_side_leaves)
{
    const uint32_t side = 20, lens[] = {2000, 600};
    for (int i = 0; i < 2; i++) {
        uint32_t len = lens[i];
        hf_poset *p = chain_with_leaves(len, side);
        size_t m;
        if (i == 0) {
            hf_family *f = run_mode(p, 3, NULL, 0, HF_PATTERN_CANONICAL, NULL);
            m = hf_family_size(f);
            for (size_t k = 0; k < m; k++)
                cr_assert_eq(hf_schedule_check(p, hf_family_schedule(f, k), 0, NULL), HF_OK);
            hf_family_free(f);
        } else {
            m = verified_size(p, 3, HF_PATTERN_CANONICAL, NULL);
        }
        /* the last leaf hangs from chain event side * len / (side + 1) */
        uint32_t last = (uint32_t)((uint64_t)side * len / (side + 1));
        cr_assert_geq(m, len - (last + 1) + 1, "%zu schedules on a chain of %u", m, len);
        hf_poset_free(p);
    }
    hf_poset *p = chain_with_leaves(100, 4);
    verified_size(p, 4, HF_PATTERN_CANONICAL, NULL);
    verified_size(p, 4, HF_PATTERN_REALISED, NULL);
    hf_poset_free(p);
}

Test(gen_pattern_deep, caterpillars)
{
    hf_poset *p = caterpillar(40, 1);
    verified_size(p, 3, HF_PATTERN_CANONICAL, NULL);
    verified_size(p, 3, HF_PATTERN_REALISED, NULL);
    hf_poset_free(p);
    p = caterpillar(10, 2);
    verified_size(p, 4, HF_PATTERN_CANONICAL, NULL);
    verified_size(p, 4, HF_PATTERN_REALISED, NULL);
    verified_size(p, 3, HF_PATTERN_ALL, NULL);
    hf_poset_free(p);
}

/* Random forests and in-forests of up to a few hundred events, every mode. */
Test(gen_pattern_deep, random_trees_up_to_hundreds_verified)
{
    uint64_t rng = 2024;
    for (int it = 0; it < 6; it++) {
        uint32_t n = 100 + tu_below(&rng, 151), roots = 1 + tu_below(&rng, 3);
        hf_poset *p =
            it % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        verified_size(p, 3, (hf_pattern_mode)(it % 3), NULL);
        hf_poset_free(p);
    }
    for (int it = 0; it < 4; it++) {
        uint32_t n = 30 + tu_below(&rng, 31);
        hf_poset *p = tu_random_forest(n, 1 + tu_below(&rng, 2), &rng);
        verified_size(p, 4, (hf_pattern_mode)(it % 2), NULL);
        hf_poset_free(p);
    }
}
