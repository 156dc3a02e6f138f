/* Tests of the poset model: builder errors, transitive reduction, order queries, shapes and
 * forest views, each against a brute-force closure computed here. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oracle.h"
#include "strtab.h"
#include "util.h"

TU_SUITE(poset);

Test(poset, builder_ids_names_and_duplicates)
{
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    uint32_t id = 99;
    cr_assert_eq(hf_poset_builder_add_event(b, "x", &id), HF_OK);
    cr_assert_eq(id, 0);
    cr_assert_eq(hf_poset_builder_add_event(b, "", &id), HF_OK);
    cr_assert_eq(id, 1);
    cr_assert_eq(hf_poset_builder_add_event(b, "y z", &id), HF_OK);
    cr_assert_eq(id, 2);
    id = 99;
    cr_assert_eq(hf_poset_builder_add_event(b, "x", &id), HF_EDUPLICATE);
    cr_assert_eq(id, 0, "duplicate reports the existing id");
    cr_assert_eq(hf_poset_builder_find(b, "y z", &id), HF_OK);
    cr_assert_eq(id, 2);
    cr_assert_eq(hf_poset_builder_find(b, "nope", &id), HF_ENOTFOUND);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 3), HF_EINVAL);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 2), HF_OK);
    cr_assert_eq(hf_poset_builder_set_focus(b, 2), HF_OK);
    cr_assert_eq(hf_poset_builder_set_focus(b, 7), HF_EINVAL);
    hf_poset *p;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "w", NULL), HF_ESTATE);
    hf_poset *again;
    cr_assert_eq(hf_poset_builder_finish(b, &again, &err), HF_ESTATE);
    cr_assert_null(again);
    hf_poset_builder_free(b);
    cr_assert_eq(hf_poset_size(p), 3);
    cr_assert_str_eq(hf_poset_name(p, 1), "");
    cr_assert_str_eq(hf_poset_name(p, 2), "y z");
    cr_assert_null(hf_poset_name(p, 3));
    cr_assert_eq(hf_poset_find(p, "", &id), HF_OK);
    cr_assert_eq(id, 1);
    cr_assert_eq(hf_poset_find(p, "q", &id), HF_ENOTFOUND);
    cr_assert(hf_poset_less(p, 0, 2));
    cr_assert_not(hf_poset_less(p, 2, 0));
    cr_assert_not(hf_poset_less(p, 0, 0));
    cr_assert_not(hf_poset_less(p, 0, 77));
    uint32_t fc;
    const uint32_t *f = hf_poset_focus(p, &fc);
    cr_assert_eq(fc, 1);
    cr_assert_eq(f[0], 2);
    hf_poset_free(p);
    hf_poset_free(NULL);
    hf_poset_builder_free(NULL);
}

Test(poset, many_names_survive_rehashing)
{
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    char name[32];
    for (unsigned i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "n%u", i * 7919u);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
    }
    hf_poset *p;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    for (unsigned i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "n%u", i * 7919u);
        uint32_t id;
        cr_assert_eq(hf_poset_find(p, name, &id), HF_OK);
        cr_assert_eq(id, i);
    }
    hf_poset_free(p);
}

Test(poset, name_length_limit)
{
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    char *big = malloc(HF_MAX_NAME + 2);
    memset(big, 'a', HF_MAX_NAME + 1);
    big[HF_MAX_NAME + 1] = '\0';
    cr_assert_eq(hf_poset_builder_add_event(b, big, NULL), HF_ETOOLARGE);
    big[HF_MAX_NAME] = '\0';
    cr_assert_eq(hf_poset_builder_add_event(b, big, NULL), HF_OK);
    free(big);
    hf_poset_builder_free(b);
}

Test(poset, self_loop_is_reported_with_its_name)
{
    const uint32_t e[][2] = {{0, 1}, {1, 1}};
    hf_status st;
    hf_error err;
    hf_poset *p = tu_poset_try(2, e, 2, &st, &err);
    cr_assert_null(p);
    cr_assert_eq(st, HF_ESELFLOOP);
    cr_assert_str_eq(err.text, "event e1 is ordered before itself");
}

Test(poset, cycle_is_reported_in_order)
{
    /* e0 -> e1 -> e2 -> e3 -> e1, plus a tail e3 -> e4 */
    const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 1}, {3, 4}};
    hf_status st;
    hf_error err;
    hf_poset *p = tu_poset_try(5, e, 5, &st, &err);
    cr_assert_null(p);
    cr_assert_eq(st, HF_ECYCLE);
    /* the message is "cycle: " then a rotation of e1 -> e2 -> e3 -> (first again) */
    const char *rot[] = {"cycle: e1 -> e2 -> e3 -> e1", "cycle: e2 -> e3 -> e1 -> e2",
                         "cycle: e3 -> e1 -> e2 -> e3"};
    bool ok = false;
    for (int i = 0; i < 3; i++)
        ok |= strcmp(err.text, rot[i]) == 0;
    cr_assert(ok, "unexpected cycle message: %s", err.text);
}

Test(poset, random_cycles_name_a_real_cycle)
{
    uint64_t rng = 7;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = 2 + tu_below(&rng, 10);
        uint32_t m = tu_below(&rng, 3 * n);
        uint32_t(*e)[2] = malloc((m + 1) * sizeof *e);
        for (uint32_t i = 0; i < m; i++) {
            e[i][0] = tu_below(&rng, n);
            e[i][1] = tu_below(&rng, n);
            if (e[i][0] == e[i][1])
                e[i][1] = (e[i][1] + 1) % n;
        }
        hf_status st;
        hf_error err;
        hf_poset *p = tu_poset_try(n, (const uint32_t(*)[2])e, m, &st, &err);
        if (st == HF_ECYCLE) {
            /* parse the names and check every step is an input edge */
            uint32_t cyc[64], k = 0;
            const char *s = err.text + strlen("cycle: ");
            while (*s) {
                cr_assert_eq(*s, 'e');
                cyc[k++] = (uint32_t)strtoul(s + 1, (char **)&s, 10);
                if (strncmp(s, " -> ", 4) == 0)
                    s += 4;
            }
            cr_assert_geq(k, 3);
            cr_assert_eq(cyc[0], cyc[k - 1]);
            for (uint32_t i = 0; i + 1 < k; i++) {
                bool found = false;
                for (uint32_t j = 0; j < m; j++)
                    found |= e[j][0] == cyc[i] && e[j][1] == cyc[i + 1];
                cr_assert(found, "step %u -> %u of '%s' is not an edge", cyc[i], cyc[i + 1],
                          err.text);
            }
        } else {
            cr_assert_eq(st, HF_OK, "%s", err.text);
        }
        hf_poset_free(p);
        free(e);
    }
}

/* Everything a finished poset says, checked against brute force. */
static void check_against_brute(const hf_poset *p)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    /* Hasse edges are exactly the covering pairs, pred lists mirror succ lists */
    size_t covers = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            bool cover = lt[(size_t)a * n + b];
            for (uint32_t c = 0; c < n && cover; c++)
                if (lt[(size_t)a * n + c] && lt[(size_t)c * n + b])
                    cover = false;
            covers += cover;
            uint32_t cnt;
            const uint32_t *s = hf_poset_hasse_succ(p, a, &cnt);
            bool listed = false;
            for (uint32_t i = 0; i < cnt; i++)
                listed |= s[i] == b;
            cr_assert_eq(listed, cover, "edge %u->%u listed=%d cover=%d", a, b, listed, cover);
            const uint32_t *pr = hf_poset_hasse_pred(p, b, &cnt);
            listed = false;
            for (uint32_t i = 0; i < cnt; i++)
                listed |= pr[i] == a;
            cr_assert_eq(listed, cover);
            cr_assert_eq(hf_poset_less(p, a, b), lt[(size_t)a * n + b], "less(%u,%u)", a, b);
            cr_assert_eq(hf_poset_comparable(p, a, b),
                         lt[(size_t)a * n + b] || lt[(size_t)b * n + a]);
        }
    cr_assert_eq(hf_poset_hasse_edge_count(p), covers);
    /* topological order: a linear extension, and the lexicographically smallest one */
    const uint32_t *topo = hf_poset_topological_order(p);
    bool *done = calloc(n + 1, 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t want = UINT32_MAX;
        for (uint32_t v = 0; v < n && want == UINT32_MAX; v++) {
            if (done[v])
                continue;
            bool avail = true;
            for (uint32_t u = 0; u < n; u++)
                if (lt[(size_t)u * n + v] && !done[u])
                    avail = false;
            if (avail)
                want = v;
        }
        cr_assert_eq(topo[i], want);
        done[want] = true;
    }
    free(done);
    /* height: longest chain in events */
    uint32_t *len = calloc(n + 1, sizeof *len), height = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = topo[i];
        len[v] = 1;
        for (uint32_t u = 0; u < n; u++)
            if (lt[(size_t)u * n + v] && len[u] + 1 > len[v])
                len[v] = len[u] + 1;
        height = len[v] > height ? len[v] : height;
    }
    cr_assert_eq(hf_poset_height(p), height);
    free(len);
    /* shapes */
    uint32_t max_in = 0, max_out = 0, minimal = 0, cnt;
    for (uint32_t v = 0; v < n; v++) {
        hf_poset_hasse_pred(p, v, &cnt);
        max_in = cnt > max_in ? cnt : max_in;
        minimal += cnt == 0;
        hf_poset_hasse_succ(p, v, &cnt);
        max_out = cnt > max_out ? cnt : max_out;
    }
    unsigned shape = hf_poset_shape(p);
    cr_assert_eq(!!(shape & HF_SHAPE_FOREST), max_in <= 1);
    cr_assert_eq(!!(shape & HF_SHAPE_INFOREST), max_out <= 1);
    cr_assert_eq(!!(shape & HF_SHAPE_TREE), max_in <= 1 && minimal == 1);
    cr_assert_eq(!!(shape & HF_SHAPE_CHAIN), height == n);
    cr_assert_eq(!!(shape & HF_SHAPE_ANTICHAIN), covers == 0);
    cr_assert_eq(hf_poset_has_closure(p), !(shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)));
    /* forest views */
    if (shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) {
        bool dual = !(shape & HF_SHAPE_FOREST);
        for (uint32_t v = 0; v < n; v++) {
            uint32_t depth = 0, sub = 1;
            for (uint32_t u = 0; u < n; u++) {
                depth += dual ? lt[(size_t)v * n + u] : lt[(size_t)u * n + v];
                sub += dual ? lt[(size_t)u * n + v] : lt[(size_t)v * n + u];
            }
            cr_assert_eq(hf_poset_depth(p, v), depth);
            cr_assert_eq(hf_poset_subtree_size(p, v), sub);
            if (!dual) {
                const uint32_t *pr = hf_poset_hasse_pred(p, v, &cnt);
                cr_assert_eq(hf_poset_parent(p, v), cnt ? pr[0] : HF_NO_EVENT);
            } else {
                cr_assert_eq(hf_poset_parent(p, v), HF_NO_EVENT);
            }
        }
    }
    /* down sets */
    size_t W = hf_i_words(n);
    hf_word *set = calloc(W + 1, sizeof *set);
    for (uint32_t v = 0; v < n; v++) {
        memset(set, 0, (W + 1) * sizeof *set);
        hf_i_or_down_set(p, v, set);
        for (uint32_t u = 0; u < n; u++)
            cr_assert_eq(hf_i_bit_test(set, u), lt[(size_t)u * n + v]);
    }
    free(set);
    free(lt);
}

Test(poset, random_dags_match_brute_force)
{
    uint64_t rng = 11;
    const uint32_t dens[][2] = {{1, 10}, {1, 4}, {1, 2}, {9, 10}};
    for (int iter = 0; iter < 400; iter++) {
        uint32_t n = tu_below(&rng, 14);
        const uint32_t *d = dens[iter % 4];
        hf_poset *p = tu_random_dag(n, d[0], d[1], &rng);
        check_against_brute(p);
        hf_poset_free(p);
    }
}

Test(poset, random_forests_and_inforests_match_brute_force)
{
    uint64_t rng = 12;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = tu_below(&rng, 20);
        uint32_t roots = 1 + tu_below(&rng, 3);
        hf_poset *p =
            iter % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        check_against_brute(p);
        hf_poset_free(p);
    }
    hf_poset *p = tu_double_tree(3);
    check_against_brute(p);
    hf_poset_free(p);
}

Test(poset, transitive_and_duplicate_edges_are_removed)
{
    /* a tree 0 -> 1 -> 2, 0 -> 3 plus the transitive 0 -> 2 and duplicates: still a tree */
    const uint32_t e[][2] = {{0, 1}, {1, 2}, {0, 3}, {0, 2}, {0, 1}, {1, 2}};
    hf_poset *p = tu_poset(4, e, 6);
    cr_assert_eq(hf_poset_hasse_edge_count(p), 3);
    cr_assert(hf_poset_shape(p) & HF_SHAPE_TREE);
    cr_assert_eq(hf_poset_parent(p, 2), 1);
    check_against_brute(p);
    hf_poset_free(p);
}

Test(poset, empty_and_single_orders)
{
    hf_poset *p = tu_poset(0, NULL, 0);
    cr_assert_eq(hf_poset_size(p), 0);
    cr_assert_eq(hf_poset_height(p), 0);
    cr_assert(hf_poset_shape(p) & HF_SHAPE_CHAIN);
    cr_assert(hf_poset_shape(p) & HF_SHAPE_ANTICHAIN);
    cr_assert_eq(hf_poset_find(p, "", NULL), HF_ENOTFOUND);
    hf_poset_free(p);
    p = tu_poset(1, NULL, 0);
    cr_assert_eq(hf_poset_height(p), 1);
    cr_assert(hf_poset_shape(p) & HF_SHAPE_TREE);
    hf_poset_free(p);
}

Test(poset, long_chain_without_recursion)
{
    hf_poset *p = tu_chain(200000);
    cr_assert_eq(hf_poset_height(p), 200000);
    cr_assert(hf_poset_less(p, 0, 199999));
    cr_assert_not(hf_poset_less(p, 199999, 0));
    cr_assert_eq(hf_poset_depth(p, 199999), 199999);
    cr_assert_eq(hf_poset_subtree_size(p, 0), 200000);
    hf_poset_free(p);
}

Test(poset, general_orders_beyond_the_closure_limit_are_refused)
{
    uint32_t n = HF_CLOSURE_MAX_EVENTS + 1;
    /* a diamond among an antichain: in-degree 2 and out-degree 2, so not a forest */
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_status st;
    hf_error err;
    hf_poset *p = tu_poset_try(n, e, 4, &st, &err);
    cr_assert_null(p);
    cr_assert_eq(st, HF_ETOOLARGE);
    cr_assert(strstr(err.text, "32768") != NULL, "%s", err.text);
    /* a forest of the same size is fine */
    const uint32_t f[][2] = {{0, 1}, {0, 2}, {1, 3}};
    p = tu_poset_try(n, f, 3, &st, &err);
    cr_assert_eq(st, HF_OK);
    hf_poset_free(p);
}

Test(poset, every_allocation_failure_is_clean)
{
    bool finished = false;
    for (long k = 0; !finished; k++) {
        /* only the allocation after k successes fails; later ones succeed */
        tu_chaos c = {.left = k, .once = true};
        hf_allocator a = tu_chaos_allocator(&c);
        hf_ctx *ctx;
        if (hf_ctx_new(&a, NULL, NULL, &ctx) != HF_OK) {
            cr_assert_eq(k, 0);
            continue;
        }
        hf_poset_builder *b = NULL;
        hf_poset *p = NULL;
        hf_status st = hf_poset_builder_new(ctx, &b);
        char name[16];
        for (unsigned i = 0; i < 40 && !st; i++) {
            snprintf(name, sizeof name, "v%u", i);
            st = hf_poset_builder_add_event(b, name, NULL);
        }
        /* a diamond-rich order (needs the closure) */
        for (unsigned i = 0; i + 2 < 40 && !st; i++) {
            st = hf_poset_builder_add_order(b, i, i + 1);
            if (!st)
                st = hf_poset_builder_add_order(b, i, i + 2);
        }
        if (!st)
            st = hf_poset_builder_finish(b, &p, NULL);
        cr_assert(st == HF_OK || st == HF_ENOMEM, "k=%ld status %d", k, st);
        finished = st == HF_OK;
        hf_poset_free(p);
        hf_poset_builder_free(b);
        hf_ctx_free(ctx);
        cr_assert_eq(c.live, 0, "k=%ld: %ld blocks leaked", k, c.live);
    }
}

/* Reserving room for strings to come keeps every string found and numbered as before, never
 * shrinks the slots, waits while appended strings are not placed, and a failure leaves the table
 * as it was. */
Test(poset, strtab_reserve_keeps_every_string)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_i_strtab t = {0};
    char s[32];
    uint32_t k;
    for (uint32_t i = 0; i < 100; i++) {
        int n = snprintf(s, sizeof s, "r%u", i);
        cr_assert_eq(hf_i_strtab_intern(ctx, &t, s, (size_t)n, &k), HF_OK);
    }
    size_t before = t.mask + 1;
    c.left = 0;
    c.once = true;
    cr_assert_eq(hf_i_strtab_reserve(ctx, &t, 5000), HF_ENOMEM);
    cr_assert_eq(t.mask + 1, before, "a failed reservation leaves the slots");
    c.left = -1;
    cr_assert_eq(hf_i_strtab_reserve(ctx, &t, 5000), HF_OK);
    cr_assert_geq(t.mask + 1, 10000, "room for 5,000 strings at most half full");
    size_t reserved = t.mask + 1;
    cr_assert_eq(hf_i_strtab_reserve(ctx, &t, 10), HF_OK);
    cr_assert_eq(t.mask + 1, reserved, "never shrunk");
    for (uint32_t i = 0; i < 5000; i++) {
        int n = snprintf(s, sizeof s, "r%u", i);
        cr_assert_eq(hf_i_strtab_intern(ctx, &t, s, (size_t)n, &k), HF_OK);
        cr_assert_eq(k, i, "index by first addition");
    }
    cr_assert_eq(t.mask + 1, reserved, "5,000 strings fit without growing");
    cr_assert_eq(hf_i_strtab_append(ctx, &t, "x", 1), HF_OK);
    cr_assert_eq(hf_i_strtab_reserve(ctx, &t, 100000), HF_OK);
    cr_assert_eq(t.mask + 1, reserved, "nothing while an appended string waits");
    cr_assert_eq(hf_i_strtab_index(ctx, &t), HF_OK);
    for (uint32_t i = 0; i < 5000; i++) {
        int n = snprintf(s, sizeof s, "r%u", i);
        cr_assert_eq(hf_i_strtab_find(&t, s, (size_t)n, NULL), i);
    }
    cr_assert_eq(hf_i_strtab_find(&t, "x", 1, NULL), 5000);
    hf_i_strtab_free(ctx, &t);
    hf_ctx_free(ctx);
    cr_assert_eq(c.live, 0, "%ld blocks leaked", c.live);
}

/* The interned-string table under the builder's names and labels: indices by first addition,
 * lookups by bytes (not by a NUL), and an allocation failure at any point leaves it as it was. */
Test(poset, strtab_interns_and_fails_cleanly)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_i_strtab t = {0};
    char s[32];
    uint32_t k = 99;
    cr_assert_eq(hf_i_strtab_find(&t, "a", 1, NULL), HF_NO_EVENT, "empty table finds nothing");
    for (uint32_t i = 0; i < 300; i++) {
        int n = snprintf(s, sizeof s, "s%u", i % 150); /* each string added twice */
        for (long fail = 0;; fail++) {
            c.left = fail;
            c.once = true;
            uint32_t before = t.count;
            hf_status st = hf_i_strtab_intern(ctx, &t, s, (size_t)n, &k);
            if (st == HF_OK)
                break;
            cr_assert_eq(st, HF_ENOMEM);
            cr_assert_eq(t.count, before, "a failure adds nothing");
            for (uint32_t j = 0; j < t.count; j++) {
                const char *v = hf_i_strtab_str(&t, j);
                cr_assert_eq(hf_i_strtab_find(&t, v, strlen(v), NULL), j);
            }
        }
        c.left = -1;
        cr_assert_eq(k, i % 150, "index by first addition");
        cr_assert_str_eq(hf_i_strtab_str(&t, k), s);
    }
    cr_assert_eq(t.count, 150);
    cr_assert_eq(hf_i_strtab_find(&t, "s12", 2, NULL), 1, "only the first n bytes count");
    cr_assert_eq(hf_i_strtab_find(&t, "s", 1, NULL), HF_NO_EVENT, "a prefix is another string");
    cr_assert_eq(hf_i_strtab_find(&t, "s150", 4, NULL), HF_NO_EVENT);
    hf_i_strtab_free(ctx, &t);
    cr_assert_null(t.data);
    hf_ctx_free(ctx);
    cr_assert_eq(c.live, 0, "%ld blocks leaked", c.live);
}
