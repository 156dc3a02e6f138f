/* Tests of method chains and of thread attributes: families checked d-hitting by the oracle and
 * by hf_verify on thousands of small orders, decompositions against brute-force width. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_chains.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(gen_chains);

/* ---- helpers ---- */

/* A copy of p (names, Hasse edges, focus marks) whose events get threads: in topological order
 * each event either has none (probability 1/4), continues a random thread whose last event is
 * below it, or starts a new one. Thread names are shuffled so their numbering is not by id. */
static hf_poset *with_threads(const hf_poset *p, hf_ctx *ctx, uint64_t *rng)
{
    uint32_t n = hf_poset_size(p);
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (uint32_t v = 0; v < n; v++)
        cr_assert_eq(hf_poset_builder_add_event(b, hf_poset_name(p, v), NULL), HF_OK);
    size_t m;
    const uint32_t(*edges)[2] = tu_registered_edges(p, &m);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_poset_builder_add_order(b, edges[i][0], edges[i][1]), HF_OK);
    uint32_t *last = malloc((n + 1) * sizeof *last), *cand = malloc((n + 1) * sizeof *cand);
    uint32_t *label = malloc((n + 1) * sizeof *label), threads = 0;
    for (uint32_t i = 0; i <= n; i++)
        label[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_below(rng, i), t = label[i - 1];
        label[i - 1] = label[j];
        label[j] = t;
    }
    const uint32_t *topo = hf_poset_topological_order(p);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = topo[i];
        if (tu_below(rng, 4) == 0)
            continue;
        uint32_t k = 0;
        for (uint32_t t = 0; t < threads; t++)
            if (hf_poset_less(p, last[t], v))
                cand[k++] = t;
        uint32_t t = k && tu_below(rng, 3) ? cand[tu_below(rng, k)] : threads++;
        last[t] = v;
        char name[32];
        snprintf(name, sizeof name, "T%u", (unsigned)label[t]);
        cr_assert_eq(hf_poset_builder_set_thread(b, v, name), HF_OK);
    }
    hf_poset *q;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &q, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    tu_register_edges(q, edges, m);
    free(last);
    free(cand);
    free(label);
    return q;
}

/* Width of the order induced on `in` (NULL: all) by trying every subset. n <= 16. */
static uint32_t brute_width(const hf_poset *p, const bool *in)
{
    uint32_t n = hf_poset_size(p), best = 0;
    bool *lt = tu_closure(p);
    for (uint32_t mask = 0; mask < (1u << n); mask++) {
        uint32_t size = 0;
        bool anti = true;
        for (uint32_t a = 0; a < n && anti; a++) {
            if (!(mask >> a & 1))
                continue;
            if (in && !in[a])
                anti = false;
            size++;
            for (uint32_t b = 0; b < n && anti; b++)
                if ((mask >> b & 1) && lt[(size_t)a * n + b])
                    anti = false;
        }
        if (anti && size > best)
            best = size;
    }
    free(lt);
    return best;
}

/* n (n-1) ... (n-k+1) */
static uint64_t falling(uint64_t n, unsigned k)
{
    uint64_t r = 1;
    for (unsigned i = 0; i < k; i++)
        r *= n > i ? n - i : 0;
    return r;
}

static hf_gen_options chains_options(unsigned d, const uint32_t *focus, size_t focus_count)
{
    return tu_gen_options(d, HF_METHOD_CHAINS, focus, focus_count);
}

/* Generate, check against the oracle and hf_verify, the bound and the prediction; returns the
 * family (caller frees rows). */
static tu_collect check_family(const hf_poset *p, unsigned d, const uint32_t *focus,
                               size_t focus_count, const char *what)
{
    uint32_t n = hf_poset_size(p);
    hf_gen_options opt = chains_options(d, focus, focus_count);
    hf_error err;
    tu_collect c = {n, 0, 0, NULL};
    hf_method used;
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), &used, &err), HF_OK, "%s: %s", what,
                 err.text);
    cr_assert_eq(used, HF_METHOD_CHAINS);
    bool *in = NULL;
    uint8_t *in8 = NULL;
    uint32_t nf = n;
    if (focus_count) {
        in = calloc(n + 1, 1);
        in8 = calloc(n + 1, 1);
        for (size_t i = 0; i < focus_count; i++)
            in[focus[i]] = true, in8[focus[i]] = 1;
        nf = 0;
        for (uint32_t v = 0; v < n; v++)
            nf += in[v];
    }
    cr_assert(tu_oracle_hitting(p, c.rows, c.m, d, in), "%s: not %u-hitting (n=%u)", what, d, n);
    /* hf_verify, through a family */
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
    for (size_t i = 0; i < c.m; i++)
        cr_assert_eq(hf_family_append(f, c.rows + i * n), HF_OK);
    hf_verify_options vo = {.d = d, .focus = focus, .focus_count = focus_count};
    hf_verify_result res;
    cr_assert_eq(hf_verify(p, f, &vo, &res, &err), HF_OK, "%s: %s", what, err.text);
    cr_assert(res.hitting, "%s: hf_verify finds an uncovered tuple (d=%u)", what, d);
    hf_family_free(f);
    /* distinct rows */
    for (size_t i = 0; i < c.m; i++)
        for (size_t j = i + 1; j < c.m; j++)
            cr_assert(memcmp(c.rows + i * n, c.rows + j * n, n * sizeof *c.rows) != 0 || n == 0,
                      "%s: schedules %zu and %zu are equal", what, i, j);
    /* at most (chains) * nf^(d-2), at least one schedule */
    hf_i_chains ch;
    cr_assert_eq(hf_i_chains_decompose(p, in8, true, &ch, &err), HF_OK, "%s", err.text);
    unsigned dd = d < nf ? d : nf;
    uint64_t bound = dd <= 1 ? 1 : (uint64_t)ch.count * falling(nf, dd - 2);
    cr_assert(c.m >= 1 && c.m <= bound, "%s: %zu schedules, bound %llu", what, c.m,
              (unsigned long long)bound);
    hf_i_chains_free(NULL, &ch);
    /* the prediction is exact */
    uint64_t size;
    hf_method chosen;
    cr_assert_eq(hf_method_predict(p, &opt, &size, &chosen, &err), HF_OK, "%s: %s", what, err.text);
    cr_assert_eq(size, c.m, "%s: predicted %llu, emitted %zu", what, (unsigned long long)size, c.m);
    free(in);
    free(in8);
    return c;
}

/* A random focus set (with a duplicate now and then), in *count. */
static uint32_t *random_focus(uint32_t n, uint64_t *rng, size_t *count)
{
    uint32_t *f = malloc((2 * n + 1) * sizeof *f);
    size_t k = 0;
    for (uint32_t v = 0; v < n; v++)
        if (tu_below(rng, 2))
            f[k++] = v;
    if (k == 0 && n > 0)
        f[k++] = tu_below(rng, n);
    if (k && tu_below(rng, 4) == 0)
        f[k++] = f[0];
    *count = k;
    return f;
}

/* ---- families ---- */

Test(gen_chains, hitting_on_thousands_of_orders)
{
    uint64_t rng = 71;
    unsigned runs = 0;
    for (unsigned d = 1; d <= 4; d++)
        for (unsigned i = 0; i < 540; i++) {
            uint32_t n = d == 4 ? tu_below(&rng, 8) : tu_below(&rng, 10);
            if (n == 0 && i % 9 == 5)
                n = 1;
            hf_poset *p = tu_some_order(i, n ? n : 1, &rng);
            if (i % 3 == 1) { /* threads on every third order */
                hf_poset *q = with_threads(p, NULL, &rng);
                hf_poset_free(p);
                p = q;
            }
            size_t fc = 0;
            uint32_t *focus = i % 2 ? random_focus(hf_poset_size(p), &rng, &fc) : NULL;
            char what[64];
            snprintf(what, sizeof what, "shape %u d=%u i=%u", i % 9, d, i);
            tu_collect c = check_family(p, d, focus, fc, what);
            free(c.rows);
            free(focus);
            hf_poset_free(p);
            runs++;
        }
    cr_assert_eq(runs, 4 * 540);
}

/* Double trees, complete trees and wider random DAGs of several densities. */
Test(gen_chains, hitting_on_named_and_wider_orders)
{
    uint64_t rng = 72;
    for (unsigned d = 2; d <= 4; d++) {
        hf_poset *ps[] = {tu_double_tree(2),
                          tu_complete_binary(2),
                          tu_chain(6),
                          tu_antichain(d == 4 ? 7 : 9),
                          tu_random_dag(12, 1, 12, &rng),
                          tu_random_dag(12, 2, 3, &rng),
                          tu_series_parallel(11, &rng),
                          tu_random_inforest(11, 2, &rng)};
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            char what[32];
            snprintf(what, sizeof what, "order %zu d=%u", i, d);
            tu_collect c = check_family(ps[i], d, NULL, 0, what);
            free(c.rows);
            hf_poset_free(ps[i]);
        }
    }
}

Test(gen_chains, d_up_to_eight)
{
    uint64_t rng = 73;
    for (unsigned d = 5; d <= HF_MAX_D; d++)
        for (unsigned i = 0; i < 18; i++) {
            hf_poset *p = tu_some_order(i, 3 + tu_below(&rng, d == 8 ? 6 : 5), &rng);
            char what[32];
            snprintf(what, sizeof what, "shape %u d=%u", i % 9, d);
            tu_collect c = check_family(p, d, NULL, 0, what);
            free(c.rows);
            hf_poset_free(p);
        }
}

Test(gen_chains, deterministic)
{
    uint64_t rng = 74;
    for (unsigned i = 0; i < 30; i++) {
        hf_poset *p = tu_some_order(i, 9, &rng);
        hf_gen_options opt = chains_options(3, NULL, 0);
        tu_collect a = {9, 0, 0, NULL}, b = {9, 0, 0, NULL};
        cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&a), NULL, NULL), HF_OK);
        cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&b), NULL, NULL), HF_OK);
        cr_assert_eq(a.m, b.m);
        cr_assert(a.m == 0 || memcmp(a.rows, b.rows, a.m * 9 * sizeof *a.rows) == 0);
        free(a.rows);
        free(b.rows);
        hf_poset_free(p);
    }
}

static int cmp_rows_n;
static int cmp_rows(const void *a, const void *b)
{
    return memcmp(a, b, (size_t)cmp_rows_n * sizeof(uint32_t));
}

/* Chain by chain (each chain's completion built in turn) gives the same set of schedules as
 * all chains at once. */
Test(gen_chains, both_enumeration_orders_agree)
{
    uint64_t rng = 80;
    for (unsigned i = 0; i < 300; i++) {
        uint32_t n = 1 + tu_below(&rng, 10);
        hf_poset *p = tu_some_order(i, n, &rng);
        if (i % 3 == 0) {
            hf_poset *q = with_threads(p, NULL, &rng);
            hf_poset_free(p);
            p = q;
        }
        size_t fc = 0;
        uint32_t *focus = i % 2 ? random_focus(n, &rng, &fc) : NULL;
        hf_gen_options opt = chains_options(2 + i % 3, focus, fc);
        tu_collect a = {n, 0, 0, NULL}, b = {n, 0, 0, NULL};
        hf_error err;
        cr_assert_eq(hf_i_chains_generate(p, &opt, tu_collect_sink(&a), 0, &err), HF_OK, "%s",
                     err.text);
        cr_assert_eq(hf_i_chains_generate(p, &opt, tu_collect_sink(&b), UINT64_MAX, &err), HF_OK,
                     "%s", err.text);
        cr_assert_eq(a.m, b.m);
        cmp_rows_n = (int)n;
        qsort(a.rows, a.m, n * sizeof *a.rows, cmp_rows);
        qsort(b.rows, b.m, n * sizeof *b.rows, cmp_rows);
        cr_assert_eq(memcmp(a.rows, b.rows, a.m * n * sizeof *a.rows), 0);
        free(a.rows);
        free(b.rows);
        free(focus);
        hf_poset_free(p);
    }
}

/* d = 2: at most one schedule per chain of a minimum decomposition, i.e. width many. */
Test(gen_chains, d2_size_is_the_width)
{
    uint64_t rng = 75;
    for (unsigned i = 0; i < 200; i++) {
        uint32_t n = 2 + tu_below(&rng, 9);
        hf_poset *p = tu_some_order(i, n, &rng);
        tu_collect c = check_family(p, 2, NULL, 0, "d=2");
        uint32_t w = brute_width(p, NULL);
        cr_assert(c.m <= w && (w == 1 ? c.m == 1 : c.m >= 2), "n=%u width %u, %zu schedules", n, w,
                  c.m);
        free(c.rows);
        hf_poset_free(p);
    }
}

/* ---- decompositions ---- */

static void check_partition(const hf_poset *p, const hf_i_chains *ch, const uint8_t *in)
{
    uint32_t n = hf_poset_size(p), total = 0;
    for (uint32_t c = 0; c < ch->count; c++) {
        cr_assert_lt(ch->off[c], ch->off[c + 1], "chain %u is empty", c);
        for (uint32_t i = ch->off[c]; i < ch->off[c + 1]; i++) {
            uint32_t v = ch->ev[i];
            cr_assert(!in || in[v]);
            cr_assert_eq(ch->chain_of[v], c);
            if (i > ch->off[c])
                cr_assert(hf_poset_less(p, ch->ev[i - 1], v), "chain %u is no chain", c);
            total++;
        }
    }
    uint32_t want = 0;
    for (uint32_t v = 0; v < n; v++) {
        want += !in || in[v];
        if (in && !in[v])
            cr_assert_eq(ch->chain_of[v], HF_NO_EVENT);
    }
    cr_assert_eq(total, want);
}

Test(gen_chains, decomposition_is_minimum)
{
    uint64_t rng = 76;
    for (unsigned i = 0; i < 1800; i++) {
        uint32_t n = 1 + tu_below(&rng, 13);
        hf_poset *p =
            i % 10 == 9 ? tu_double_tree(1 + tu_below(&rng, 2)) : tu_some_order(i, n, &rng);
        n = hf_poset_size(p);
        bool *in = NULL;
        uint8_t *in8 = NULL;
        if (i % 2) {
            in = calloc(n, 1);
            in8 = calloc(n, 1);
            for (uint32_t v = 0; v < n; v++)
                in8[v] = in[v] = tu_below(&rng, 3) != 0;
        }
        hf_i_chains ch;
        hf_error err;
        cr_assert_eq(hf_i_chains_decompose(p, in8, false, &ch, &err), HF_OK);
        check_partition(p, &ch, in8);
        uint32_t w = brute_width(p, in);
        cr_assert_eq(ch.count, w, "shape %u n=%u: %u chains, width %u", i % 9, n, ch.count, w);
        hf_i_chains_free(NULL, &ch);
        free(in);
        free(in8);
        hf_poset_free(p);
    }
}

/* Kuhn's augmenting paths on the comparability graph (x < y): n minus a maximum matching is the
 * minimum number of chains. Recursive, O(n^3): for the test's orders of a few hundred events. */
static bool kuhn_try(const bool *lt, uint32_t n, uint32_t y, bool *seen, uint32_t *mate_x)
{
    for (uint32_t x = 0; x < n; x++)
        if (lt[(size_t)x * n + y] && !seen[x]) {
            seen[x] = true;
            if (mate_x[x] == UINT32_MAX || kuhn_try(lt, n, mate_x[x], seen, mate_x)) {
                mate_x[x] = y;
                return true;
            }
        }
    return false;
}

static uint32_t kuhn_min_chains(const hf_poset *p)
{
    uint32_t n = hf_poset_size(p), m = 0;
    bool *lt = tu_closure(p), *seen = malloc(n + 1);
    uint32_t *mate_x = malloc((n + 1) * sizeof *mate_x);
    memset(mate_x, 0xff, (n + 1) * sizeof *mate_x);
    for (uint32_t y = 0; y < n; y++) {
        memset(seen, 0, n + 1);
        m += kuhn_try(lt, n, y, seen, mate_x);
    }
    free(lt);
    free(seen);
    free(mate_x);
    return n - m;
}

/* Larger orders: the chain count against Kuhn's matching, and no antichain larger (random
 * maximal antichains). */
Test(gen_chains, decomposition_on_larger_orders)
{
    uint64_t rng = 77;
    for (unsigned i = 0; i < 60; i++) {
        uint32_t n = 60 + tu_below(&rng, 240);
        hf_poset *p = i % 3 == 0   ? tu_random_dag(n, 3, n, &rng)
                      : i % 3 == 1 ? tu_random_dag(n, 1, 8, &rng)
                                   : tu_series_parallel(n, &rng);
        hf_i_chains ch;
        cr_assert_eq(hf_i_chains_decompose(p, NULL, false, &ch, NULL), HF_OK);
        check_partition(p, &ch, NULL);
        cr_assert_eq(ch.count, kuhn_min_chains(p), "order %u, n=%u", i, n);
        uint32_t best = 0, *order = malloc(n * sizeof *order), *pick = malloc(n * sizeof *pick);
        for (unsigned t = 0; t < 100 && best < ch.count; t++) {
            for (uint32_t v = 0; v < n; v++)
                order[v] = v;
            for (uint32_t v = n; v > 1; v--) {
                uint32_t j = tu_below(&rng, v), x = order[v - 1];
                order[v - 1] = order[j];
                order[j] = x;
            }
            uint32_t k = 0;
            for (uint32_t v = 0; v < n; v++) {
                bool ok = true;
                for (uint32_t j = 0; j < k && ok; j++)
                    ok = !hf_poset_comparable(p, pick[j], order[v]);
                if (ok)
                    pick[k++] = order[v];
            }
            best = k > best ? k : best;
        }
        cr_assert_leq(best, ch.count, "an antichain larger than the chain count");
        free(order);
        free(pick);
        hf_i_chains_free(NULL, &ch);
        hf_poset_free(p);
    }
}

/* ---- threads ---- */

Test(gen_chains, thread_api)
{
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(hf_poset_builder_add_event(b, names[i], NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 5, "x"), HF_EINVAL);
    cr_assert_eq(hf_poset_builder_set_thread(NULL, 0, "x"), HF_EINVAL);
    char *longname = malloc(HF_MAX_NAME + 2);
    memset(longname, 'q', HF_MAX_NAME + 1);
    longname[HF_MAX_NAME + 1] = '\0';
    cr_assert_eq(hf_poset_builder_set_thread(b, 0, longname), HF_ETOOLARGE);
    free(longname);
    cr_assert_eq(hf_poset_builder_set_thread(b, 3, "zeta"), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 1, "alpha"), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 4, "zeta"), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 2, "gone"), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 2, NULL), HF_OK); /* cleared: "gone" unused */
    cr_assert_eq(hf_poset_builder_set_thread(b, 0, "tmp"), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 0, ""), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 3, 4), HF_OK);
    hf_poset *p;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_set_thread(b, 0, "late"), HF_ESTATE);
    hf_poset_builder_free(b);
    cr_assert_eq(hf_poset_thread_count(p), 2);
    cr_assert_eq(hf_poset_thread(p, 0), HF_NO_EVENT);
    cr_assert_eq(hf_poset_thread(p, 1), 0); /* alpha: first appearance by id */
    cr_assert_eq(hf_poset_thread(p, 2), HF_NO_EVENT);
    cr_assert_eq(hf_poset_thread(p, 3), 1);
    cr_assert_eq(hf_poset_thread(p, 4), 1);
    cr_assert_eq(hf_poset_thread(p, 5), HF_NO_EVENT);
    cr_assert_str_eq(hf_poset_thread_name(p, 0), "alpha");
    cr_assert_str_eq(hf_poset_thread_name(p, 1), "zeta");
    cr_assert_null(hf_poset_thread_name(p, 2));
    cr_assert_eq(hf_poset_thread_count(NULL), 0);
    cr_assert_eq(hf_poset_thread(NULL, 0), HF_NO_EVENT);
    /* the threads are chains {b} and {d < e}; a and c are split by the decomposition */
    hf_i_chains ch;
    cr_assert_eq(hf_i_chains_decompose(p, NULL, true, &ch, NULL), HF_OK);
    cr_assert_eq(ch.threads, 2);
    cr_assert_eq(ch.count, 4);
    cr_assert_eq(ch.chain_of[1], 0);
    cr_assert_eq(ch.chain_of[3], 1);
    cr_assert_eq(ch.chain_of[4], 1);
    check_partition(p, &ch, NULL);
    hf_i_chains_free(NULL, &ch);
    hf_poset_free(p);
    /* an order without threads */
    p = tu_chain(3);
    cr_assert_eq(hf_poset_thread_count(p), 0);
    cr_assert_eq(hf_poset_thread(p, 1), HF_NO_EVENT);
    hf_poset_free(p);
}

static hf_poset *read_dot(const char *text, hf_status want, hf_error *err)
{
    hf_poset *p = NULL;
    hf_status st = hf_dot_read_mem(NULL, text, strlen(text), &p, err);
    cr_assert_eq(st, want, "%s: %s", text, err->text);
    return p;
}

Test(gen_chains, dot_threads_read_and_write_back)
{
    hf_error err;
    hf_poset *p = read_dot("digraph { a [thread=\"main loop\"]; b [thread=worker, focus=true]; "
                           "c [thread=\"main loop\"]; d [thread=\"\"]; e [thread=\"x\\\\y\"]; "
                           "a -> c; b -> c }",
                           HF_OK, &err);
    cr_assert_eq(hf_poset_thread_count(p), 3);
    cr_assert_str_eq(hf_poset_thread_name(p, 0), "main loop");
    cr_assert_str_eq(hf_poset_thread_name(p, 1), "worker");
    cr_assert_str_eq(hf_poset_thread_name(p, 2), "x\\\\y"); /* as Graphviz reads it */
    cr_assert_eq(hf_poset_thread(p, 2), 0);
    cr_assert_eq(hf_poset_thread(p, 3), HF_NO_EVENT);
    /* written and read back: same threads */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(hf_dot_write(p, f), HF_OK);
    fclose(f);
    cr_assert(strstr(buf, "[focus=true, thread=worker]"), "%s", buf);
    hf_poset *q = read_dot(buf, HF_OK, &err);
    cr_assert_eq(hf_poset_thread_count(q), 3);
    for (uint32_t v = 0; v < 5; v++)
        cr_assert_eq(hf_poset_thread(q, v), hf_poset_thread(p, v));
    for (uint32_t k = 0; k < 3; k++)
        cr_assert_str_eq(hf_poset_thread_name(q, k), hf_poset_thread_name(p, k));
    uint32_t fc;
    hf_poset_focus(q, &fc);
    cr_assert_eq(fc, 1);
    free(buf);
    hf_poset_free(q);
    /* the family over the threads hits every triple (a -> c, b -> c in the text above) */
    static const uint32_t edges[][2] = {{0, 2}, {1, 2}};
    tu_register_edges(p, edges, 2);
    tu_collect c = check_family(p, 3, NULL, 0, "dot threads");
    free(c.rows);
    hf_poset_free(p);
    /* a thread name longer than HF_MAX_NAME */
    char *text = malloc(HF_MAX_NAME + 64);
    int k = snprintf(text, 64, "digraph { ev [thread=\"");
    memset(text + k, 'q', HF_MAX_NAME + 1);
    strcpy(text + k + HF_MAX_NAME + 1, "\"] }");
    cr_assert_null(read_dot(text, HF_ETOOLARGE, &err));
    cr_assert(strstr(err.text, "ev") && strstr(err.text, "thread"), "%s", err.text);
    free(text);
}

Test(gen_chains, bad_threads_are_refused_with_both_events)
{
    hf_error err;
    /* "w" holds b and c, which are not ordered */
    hf_poset *p = read_dot("digraph { a -> b; a -> c; b [thread=w]; c [thread=w]; a [thread=w] }",
                           HF_OK, &err);
    hf_gen_options opt = chains_options(3, NULL, 0);
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "thread w") && strstr(err.text, " b ") && strstr(err.text, " c "),
              "%s", err.text);
    tu_collect c = {3, 0, 0, NULL};
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, &err), HF_EINVAL);
    cr_assert_eq(c.m, 0);
    cr_assert(strstr(err.text, "not a chain"), "%s", err.text);
    uint64_t size;
    cr_assert_eq(hf_method_predict(p, &opt, &size, NULL, &err), HF_EINVAL);
    /* a focus set does not excuse a thread that is no chain */
    uint32_t focus[] = {0};
    opt.focus = focus;
    opt.focus_count = 1;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    /* auto still finds another method */
    opt = chains_options(3, NULL, 0);
    opt.method = HF_METHOD_AUTO;
    hf_method used;
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), &used, &err), HF_OK, "%s", err.text);
    cr_assert_neq(used, HF_METHOD_CHAINS);
    free(c.rows);
    hf_poset_free(p);
}

/* ---- limits, sinks, allocation failures ---- */

static hf_status stop_after_two(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    return ++*(int *)user == 2 ? HF_EABORTED : HF_OK;
}

Test(gen_chains, limits_and_sinks)
{
    hf_error err;
    hf_poset *p = tu_antichain(200);
    hf_gen_options opt = chains_options(5, NULL, 0);
    int calls = 0;
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){stop_after_two, &calls}, NULL, &err), HF_ETOOLARGE);
    cr_assert_eq(calls, 0, "refused before emitting");
    cr_assert(strstr(err.text, "more than") && strstr(err.text, "d=5"), "%s", err.text);
    uint64_t size;
    cr_assert_eq(hf_method_predict(p, &opt, &size, NULL, &err), HF_ETOOLARGE);
    hf_poset_free(p);
    /* predicting runs the construction: refused sooner than generating */
    p = tu_antichain(600);
    opt.d = 3;
    cr_assert_eq(hf_method_predict(p, &opt, &size, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "known only by building"), "%s", err.text);
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){stop_after_two, &calls}, NULL, &err), HF_EABORTED);
    cr_assert_eq(calls, 2);
    hf_poset_free(p);
    /* no events: one empty schedule; one event: one schedule whatever d */
    p = tu_poset(0, NULL, 0);
    tu_collect c = check_family(p, 3, NULL, 0, "empty");
    cr_assert_eq(c.m, 1);
    free(c.rows);
    hf_poset_free(p);
    p = tu_antichain(1);
    c = check_family(p, 4, NULL, 0, "one event");
    cr_assert_eq(c.m, 1);
    free(c.rows);
    hf_poset_free(p);
}

Test(gen_chains, allocation_failures)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    long base = chaos.live;
    uint64_t rng = 78;
    hf_poset *shapes[3];
    {
        hf_poset *g = tu_random_dag(9, 1, 3, &rng);
        shapes[0] = with_threads(g, ctx, &rng); /* threads plus matching */
        hf_poset_free(g);
        hf_poset *t = tu_random_forest(9, 2, &rng);
        hf_poset_builder *b;
        cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
        for (uint32_t v = 0; v < 9; v++)
            cr_assert_eq(hf_poset_builder_add_event(b, hf_poset_name(t, v), NULL), HF_OK);
        for (uint32_t v = 0; v < 9; v++)
            if (hf_poset_parent(t, v) != HF_NO_EVENT)
                cr_assert_eq(hf_poset_builder_add_order(b, hf_poset_parent(t, v), v), HF_OK);
        cr_assert_eq(hf_poset_builder_finish(b, &shapes[1], NULL), HF_OK);
        hf_poset_builder_free(b);
        hf_poset_free(t);
        g = tu_random_dag(9, 1, 4, &rng);
        hf_poset *h = with_threads(g, NULL, &rng);
        hf_poset_free(g);
        /* no threads, general order, through ctx */
        cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
        for (uint32_t v = 0; v < 9; v++)
            cr_assert_eq(hf_poset_builder_add_event(b, hf_poset_name(h, v), NULL), HF_OK);
        for (uint32_t v = 0; v < 9; v++) {
            uint32_t cnt;
            const uint32_t *s = hf_poset_hasse_succ(h, v, &cnt);
            for (uint32_t i = 0; i < cnt; i++)
                cr_assert_eq(hf_poset_builder_add_order(b, v, s[i]), HF_OK);
        }
        cr_assert_eq(hf_poset_builder_finish(b, &shapes[2], NULL), HF_OK);
        hf_poset_builder_free(b);
        hf_poset_free(h);
    }
    for (int s = 0; s < 3; s++)
        for (unsigned d = 2; d <= 4; d++) {
            hf_gen_options opt = chains_options(d, NULL, 0);
            uint32_t focus[] = {0, 2, 3, 5, 8};
            if (d == 4) {
                opt.focus = focus;
                opt.focus_count = 5;
            }
            tu_collect want = {9, 0, 0, NULL};
            chaos.left = -1;
            cr_assert_eq(hf_generate(shapes[s], &opt, tu_collect_sink(&want), NULL, NULL), HF_OK);
            bool done = false;
            for (long k = 0; !done; k++) {
                tu_collect got = {9, 0, 0, NULL};
                long live = chaos.live;
                chaos.left = k;
                chaos.once = false;
                hf_error err;
                hf_status st = hf_generate(shapes[s], &opt, tu_collect_sink(&got), NULL, &err);
                chaos.left = -1;
                cr_assert_eq(chaos.live, live, "leak after failing allocation %ld", k);
                if (st == HF_OK) {
                    cr_assert_eq(got.m, want.m);
                    cr_assert_eq(memcmp(got.rows, want.rows, want.m * 9 * sizeof *want.rows), 0);
                    done = true;
                } else {
                    cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", k, hf_strerror(st));
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
                }
                free(got.rows);
            }
            free(want.rows);
        }
    for (int s = 0; s < 3; s++)
        hf_poset_free(shapes[s]);
    /* the builder's thread calls under failing allocations leave it usable */
    for (long k = 0; k < 40; k++) {
        hf_poset_builder *b;
        chaos.left = -1;
        cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
        for (uint32_t v = 0; v < 40; v++) {
            char name[16];
            snprintf(name, sizeof name, "e%u", (unsigned)v);
            cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        }
        chaos.left = k;
        chaos.once = true;
        bool failed = false;
        for (uint32_t v = 0; v < 40; v++) {
            char name[16];
            snprintf(name, sizeof name, "t%u", (unsigned)(v % 23));
            hf_status st = hf_poset_builder_set_thread(b, v, name);
            if (st == HF_ENOMEM) {
                failed = true;
                cr_assert_eq(hf_poset_builder_set_thread(b, v, name), HF_OK);
            } else {
                cr_assert_eq(st, HF_OK);
            }
        }
        hf_poset *p = NULL;
        hf_status st = hf_poset_builder_finish(b, &p, NULL);
        if (st == HF_ENOMEM) {
            failed = true;
        } else {
            cr_assert_eq(st, HF_OK);
            cr_assert_eq(hf_poset_thread_count(p), 23);
            for (uint32_t v = 0; v < 40; v++)
                cr_assert_eq(hf_poset_thread(p, v), v % 23);
        }
        hf_poset_free(p);
        hf_poset_builder_free(b);
        chaos.left = -1;
        (void)failed;
    }
    cr_assert_eq(chaos.live, base);
    hf_ctx_free(ctx);
}

/* ---- a large order ---- */

/* 8 chains of 2500 events; cross edges go from position j of one chain to a later position of
 * another, so the order is acyclic and its width is at most 8. */
static hf_poset *eight_chains(uint64_t *rng, bool threads)
{
    const uint32_t L = 2500, W = 8, n = L * W;
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    for (uint32_t c = 0; c < W; c++)
        for (uint32_t j = 0; j < L; j++) {
            char name[32], th[8];
            snprintf(name, sizeof name, "c%u_%u", (unsigned)c, (unsigned)j);
            uint32_t id;
            cr_assert_eq(hf_poset_builder_add_event(b, name, &id), HF_OK);
            if (j)
                cr_assert_eq(hf_poset_builder_add_order(b, id - 1, id), HF_OK);
            snprintf(th, sizeof th, "P%u", (unsigned)c);
            if (threads)
                cr_assert_eq(hf_poset_builder_set_thread(b, id, th), HF_OK);
        }
    for (uint32_t k = 0; k < n / 4; k++) {
        uint32_t c1 = tu_below(rng, W), c2 = tu_below(rng, W), j = tu_below(rng, L - 60);
        if (c1 != c2)
            cr_assert_eq(
                hf_poset_builder_add_order(b, c1 * L + j, c2 * L + j + 1 + tu_below(rng, 50)),
                HF_OK);
    }
    hf_poset *p;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    return p;
}

/* A sink that checks each schedule against the Hasse diagram and records where the focus
 * events are, for a brute-force triple check. */
typedef struct big_sink {
    const hf_poset *p;
    const uint32_t *focus;
    uint32_t k;
    uint32_t *pos;  /* n scratch */
    uint32_t *fpos; /* k per schedule */
    size_t count, cap;
} big_sink;

static hf_status big_put(void *user, const uint32_t *s, uint32_t n)
{
    big_sink *b = user;
    if (n != hf_poset_size(b->p) || hf_schedule_check(b->p, s, b->count, NULL) != HF_OK)
        return HF_ESCHEDULE;
    for (uint32_t i = 0; i < n; i++)
        b->pos[s[i]] = i;
    if (b->count == b->cap)
        b->fpos = realloc(b->fpos, (b->cap = 2 * b->cap + 16) * b->k * sizeof *b->fpos);
    for (uint32_t i = 0; i < b->k; i++)
        b->fpos[b->count * b->k + i] = b->pos[b->focus[i]];
    b->count++;
    return HF_OK;
}

/* Every admissible triple of distinct focus events is hit by some recorded schedule. */
static bool big_triples_hit(const big_sink *b)
{
    for (uint32_t x = 0; x < b->k; x++)
        for (uint32_t y = 0; y < b->k; y++)
            for (uint32_t z = 0; z < b->k; z++) {
                uint32_t a = b->focus[x], c = b->focus[y], e = b->focus[z];
                if (a == c || a == e || c == e || hf_poset_less(b->p, c, a) ||
                    hf_poset_less(b->p, e, a) || hf_poset_less(b->p, e, c))
                    continue;
                bool hit = false;
                for (size_t s = 0; s < b->count && !hit; s++) {
                    const uint32_t *f = b->fpos + s * b->k;
                    hit = f[x] < f[y] && f[y] < f[z];
                }
                if (!hit)
                    return false;
            }
    return true;
}

Test(gen_chains, twenty_thousand_events_in_eight_chains)
{
    uint64_t rng = 79;
    for (int threads = 0; threads < 2; threads++) {
        hf_poset *p = eight_chains(&rng, threads);
        uint32_t n = hf_poset_size(p);
        hf_i_chains ch;
        cr_assert_eq(hf_i_chains_decompose(p, NULL, threads, &ch, NULL), HF_OK);
        cr_assert_leq(ch.count, 8);
        hf_i_chains_free(NULL, &ch);
        /* d = 2: hf_verify on the whole family */
        hf_family *f;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        hf_gen_options opt = chains_options(2, NULL, 0);
        hf_error err;
        cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f), NULL, &err), HF_OK, "%s", err.text);
        cr_assert_leq(hf_family_size(f), 8);
        hf_verify_options vo = {.d = 2};
        hf_verify_result res;
        cr_assert_eq(hf_verify(p, f, &vo, &res, &err), HF_OK, "%s", err.text);
        cr_assert(res.hitting);
        hf_family_free(f);
        /* d = 3 over a focus set (8 * 20,000 schedules of every event would take minutes):
         * every schedule checked, every admissible focus triple hit */
        uint32_t k = threads ? 400 : 60;
        uint32_t *focus = malloc(k * sizeof *focus);
        for (uint32_t i = 0; i < k; i++)
            focus[i] = (uint32_t)(((uint64_t)i * n) / k + tu_below(&rng, n / k));
        opt = chains_options(3, focus, k);
        big_sink bs = {p, focus, k, malloc(n * sizeof(uint32_t)), NULL, 0, 0};
        cr_assert_eq(hf_generate(p, &opt, (hf_sink){big_put, &bs}, NULL, &err), HF_OK, "%s",
                     err.text);
        cr_assert(bs.count >= 8 && bs.count <= 8 * k, "%zu", bs.count);
        if (!threads)
            cr_assert(big_triples_hit(&bs));
        free(bs.pos);
        free(bs.fpos);
        free(focus);
        hf_poset_free(p);
    }
}
