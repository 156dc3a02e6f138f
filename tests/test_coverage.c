/* Tests of the incremental coverage bookkeeping: admissible counts, newly hit counts and the
 * remaining count against brute force on random orders, with and without focus sets. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(coverage);

/* ---- brute-force oracle ---- */

/* A uniformly random topological order (not uniform over extensions; any will do here). */
static void random_extension(const bool *lt, uint32_t n, uint64_t *rng, uint32_t *out)
{
    bool used[16] = {0};
    for (uint32_t k = 0; k < n; k++) {
        uint32_t av[16], na = 0;
        for (uint32_t v = 0; v < n; v++) {
            bool minimal = !used[v];
            for (uint32_t u = 0; u < n && minimal; u++)
                minimal = used[u] || !lt[(size_t)u * n + v];
            if (minimal)
                av[na++] = v;
        }
        out[k] = av[tu_below(rng, na)];
        used[out[k]] = true;
    }
}

Test(coverage, matches_brute_force)
{
    uint64_t rng = 77;
    for (unsigned iter = 0; iter < 200; iter++) {
        uint32_t n = 1 + tu_below(&rng, 8);
        hf_poset *p = tu_random_dag(n, 1 + tu_below(&rng, 3), 4, &rng);
        bool *lt = tu_closure(p);
        unsigned d = 1 + iter % 4;
        uint32_t focus[8];
        bool in_focus[8];
        size_t fc = iter % 3 == 0 ? 1 + tu_below(&rng, n) : 0;
        for (uint32_t v = 0; v < n; v++)
            in_focus[v] = fc == 0;
        for (size_t j = 0; j < fc; j++)
            in_focus[focus[j] = tu_below(&rng, n)] = true;
        uint32_t k = 0;
        for (uint32_t v = 0; v < n; v++)
            k += in_focus[v];
        unsigned dd = d < k ? d : k;
        hf_i_coverage *c;
        cr_assert_eq(hf_i_coverage_new(p, d, fc ? focus : NULL, fc, &c, NULL), HF_OK);
        cr_assert_eq(hf_i_coverage_d(c), dd);
        /* brute force: a flag per tuple code (n^dd), set while admissible and unhit */
        uint64_t total = 1;
        for (unsigned i = 0; i < dd; i++)
            total *= n;
        bool *open = calloc(total + 1, 1);
        uint64_t remaining = 0;
        for (uint64_t code = 0; code < total; code++) {
            uint32_t t[4];
            uint64_t x = code;
            bool good = true;
            for (unsigned i = 0; i < dd; i++) {
                t[i] = (uint32_t)(x % n);
                x /= n;
                good = good && in_focus[t[i]];
                for (unsigned j = 0; j < i; j++)
                    good = good && t[j] != t[i];
            }
            for (unsigned i = 0; i < dd && good; i++)
                for (unsigned j = i + 1; j < dd; j++)
                    good = good && !lt[(size_t)t[j] * n + t[i]];
            open[code] = good;
            remaining += good;
        }
        cr_assert_eq(hf_i_coverage_remaining(c), remaining, "iter %u", iter);
        for (unsigned s = 0; s < 6; s++) {
            uint32_t sched[16], pos[16];
            random_extension(lt, n, &rng, sched);
            for (uint32_t i = 0; i < n; i++)
                pos[sched[i]] = i;
            uint64_t fresh = 0;
            for (uint64_t code = 0; code < total; code++) {
                if (!open[code])
                    continue;
                uint64_t x = code;
                uint32_t prev = 0;
                bool hit = true;
                for (unsigned i = 0; i < dd; i++) {
                    uint32_t v = (uint32_t)(x % n);
                    x /= n;
                    if (i > 0) /* digit i is entry i */
                        hit = hit && pos[prev] < pos[v];
                    prev = v;
                }
                if (hit) {
                    open[code] = false;
                    fresh++;
                }
            }
            cr_assert_eq(hf_i_coverage_count_new(c, sched), fresh);
            cr_assert_eq(hf_i_coverage_add(c, sched), fresh);
            remaining -= fresh;
            cr_assert_eq(hf_i_coverage_remaining(c), remaining);
            uint32_t t[4];
            if (remaining) {
                cr_assert(hf_i_coverage_first(c, t));
                uint64_t code = 0; /* entry 0 is the lowest digit */
                for (unsigned i = dd; i-- > 0;)
                    code = code * n + t[i];
                cr_assert(open[code], "first() gave a tuple that is hit or not admissible");
            } else {
                cr_assert_not(hf_i_coverage_first(c, t));
            }
        }
        free(open);
        free(lt);
        hf_i_coverage_free(c);
        hf_poset_free(p);
    }
}

Test(coverage, too_large_is_refused)
{
    hf_poset *p = tu_antichain(2100);
    hf_i_coverage *c;
    hf_error err;
    cr_assert_eq(hf_i_coverage_new(p, 3, NULL, 0, &c, &err), HF_ETOOLARGE);
    cr_assert_null(c);
    cr_assert(strstr(err.text, "2^33"), "%s", err.text);
    cr_assert_eq(hf_i_coverage_new(p, 5, NULL, 0, &c, &err), HF_EINVAL);
    hf_poset_free(p);
}

/* n = 200, d = 3, hundreds of schedules: the workload greedy and random put on it. */
Test(coverage, fast_enough_at_200_events)
{
    uint64_t rng = 5;
    hf_poset *p = tu_random_dag(200, 1, 50, &rng);
    hf_i_coverage *c;
    cr_assert_eq(hf_i_coverage_new(p, 3, NULL, 0, &c, NULL), HF_OK);
    const uint32_t *topo = hf_poset_topological_order(p);
    uint64_t before = hf_i_coverage_remaining(c), got = 0;
    for (unsigned s = 0; s < 300; s++)
        got += hf_i_coverage_add(c, topo);
    cr_assert_eq(before - got, hf_i_coverage_remaining(c));
    cr_assert_gt(got, 0);
    hf_i_coverage_free(c);
    hf_poset_free(p);
}

/* The column copy (turned on part way) agrees with the rows after every add, and the adds by
 * local sequence count as the adds by schedule. */
Test(coverage, columns_and_local_sequences)
{
    uint64_t rng = 31;
    for (unsigned iter = 0; iter < 60; iter++) {
        uint32_t n = 3 + tu_below(&rng, 8);
        hf_poset *p = tu_random_dag(n, tu_below(&rng, 3), 4, &rng);
        bool *lt = tu_closure(p);
        unsigned d = 2 + iter % 3;
        uint32_t focus[10];
        size_t fc = iter % 2 ? 2 + tu_below(&rng, n - 1) : 0;
        for (size_t j = 0; j < fc; j++)
            focus[j] = tu_below(&rng, n);
        hf_i_coverage *a, *b;
        cr_assert_eq(hf_i_coverage_new(p, d, fc ? focus : NULL, fc, &a, NULL), HF_OK);
        cr_assert_eq(hf_i_coverage_new(p, d, fc ? focus : NULL, fc, &b, NULL), HF_OK);
        uint32_t m = hf_i_coverage_events(a), dd = hf_i_coverage_d(a);
        for (unsigned s = 0; s < 5; s++) {
            if (s == 2)
                cr_assert_eq(hf_i_coverage_columns(a, NULL), HF_OK);
            uint32_t sched[16], seq[16], k = 0;
            random_extension(lt, n, &rng, sched);
            for (uint32_t i = 0; i < n; i++)
                if (hf_i_coverage_local(a, sched[i]) != UINT32_MAX)
                    seq[k++] = hf_i_coverage_local(a, sched[i]);
            cr_assert_eq(k, m);
            uint64_t fresh = hf_i_coverage_count_new_local(b, seq);
            cr_assert_eq(hf_i_coverage_count_new(a, sched), fresh);
            cr_assert_eq(hf_i_coverage_add(a, sched), fresh);
            cr_assert_eq(hf_i_coverage_add_local(b, seq), fresh);
            cr_assert_eq(hf_i_coverage_remaining(a), hf_i_coverage_remaining(b));
            if (s < 2 || dd < 2)
                continue;
            /* every tuple: open in the rows iff open in the columns */
            uint64_t total = 1;
            for (unsigned i = 0; i < dd; i++)
                total *= m;
            for (uint64_t code = 0; code < total; code++) {
                uint32_t t[4];
                uint64_t x = code;
                bool distinct = true;
                for (unsigned i = 0; i < dd; i++) {
                    t[i] = (uint32_t)(x % m);
                    x /= m;
                    for (unsigned j = 0; j < i; j++)
                        distinct = distinct && t[j] != t[i];
                }
                if (!distinct)
                    continue;
                bool open = hf_i_coverage_open(a, t);
                cr_assert_eq(open, hf_i_coverage_open(b, t));
                cr_assert_eq(open, hf_i_bit_test(hf_i_coverage_col(a, t + 1), t[0]),
                             "iter %u code %" PRIu64, iter, code);
            }
            if (dd != 3)
                continue;
            /* d = 3: x and y are adjacent iff some open tuple has them next to each other */
            for (uint32_t x = 0; x < m; x++)
                for (uint32_t y = 0; y < m; y++) {
                    bool next = false;
                    for (uint32_t z = 0; z < m && !next; z++) {
                        uint32_t t1[3] = {x, y, z}, t2[3] = {y, x, z}, t3[3] = {z, x, y},
                                 t4[3] = {z, y, x};
                        if (z == x || z == y || x == y)
                            continue;
                        next = hf_i_coverage_open(a, t1) || hf_i_coverage_open(a, t2) ||
                               hf_i_coverage_open(a, t3) || hf_i_coverage_open(a, t4);
                    }
                    cr_assert_eq(next, hf_i_bit_test(hf_i_coverage_adjacent(a, x), y),
                                 "iter %u adjacency of %u and %u", iter, x, y);
                }
        }
        free(lt);
        hf_i_coverage_free(a);
        hf_i_coverage_free(b);
        hf_poset_free(p);
    }
}

Test(coverage, columns_out_of_memory)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (unsigned i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "e%u", i);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
    }
    hf_poset *p;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    hf_i_coverage *c;
    cr_assert_eq(hf_i_coverage_new(p, 3, NULL, 0, &c, NULL), HF_OK);
    chaos.left = 0;
    cr_assert_eq(hf_i_coverage_columns(c, NULL), HF_ENOMEM);
    chaos.left = -1;
    cr_assert_eq(hf_i_coverage_columns(c, NULL), HF_OK);
    hf_i_coverage_free(c);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}
