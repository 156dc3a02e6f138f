/* Tests of the forest view: virtual roots, in-forest duality, binary gadgets (shape, height,
 * ancestry), focus restriction and the mapping of schedules back to the order. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "poset_i.h"
#include "util.h"

TU_SUITE(forest);

/* Is a a proper ancestor of b in the tree? */
static bool tree_anc(const hf_i_tree *t, uint32_t a, uint32_t b)
{
    for (uint32_t u = t->parent[b]; u != HF_NO_EVENT; u = t->parent[u])
        if (u == a)
            return true;
    return false;
}

static uint32_t tree_depth_max(const hf_i_tree *t)
{
    uint32_t best = 0;
    for (uint32_t v = 0; v < t->n; v++) {
        uint32_t d = 0;
        for (uint32_t u = t->parent[v]; u != HF_NO_EVENT; u = t->parent[u])
            d++;
        best = d > best ? d : best;
    }
    return best;
}

/* Structure, ancestry and height of a tree built from p (restricted to `keep` if non-NULL). */
static void check_tree(const hf_poset *p, const hf_i_tree *t, hf_i_gadget g, const bool *keep)
{
    uint32_t n = hf_poset_size(p);
    bool forest = hf_poset_shape(p) & HF_SHAPE_FOREST;
    cr_assert_eq(t->reversed, !forest);
    cr_assert_eq(t->parent[t->root], HF_NO_EVENT);
    uint32_t *node = malloc((n + 1) * sizeof *node);
    memset(node, 0xff, (n + 1) * sizeof *node);
    for (uint32_t v = 0; v < t->n; v++) {
        if (v != t->root)
            cr_assert_neq(t->parent[v], HF_NO_EVENT, "node %u has no parent", v);
        uint32_t k = t->child_off[v + 1] - t->child_off[v];
        if (g != HF_I_GADGET_NONE)
            cr_assert_leq(k, 2, "node %u has %u children", v, k);
        for (uint32_t i = t->child_off[v]; i < t->child_off[v + 1]; i++)
            cr_assert_eq(t->parent[t->child[i]], v);
        if (t->orig[v] != HF_NO_EVENT) {
            cr_assert_eq(node[t->orig[v]], HF_NO_EVENT, "event mapped twice");
            node[t->orig[v]] = v;
        } else if (v != t->root) {
            /* a gadget node always has two children */
            cr_assert_eq(k, 2);
        }
    }
    for (uint32_t a = 0; a < n; a++) {
        bool in = keep ? keep[a] : true;
        cr_assert_eq(node[a] != HF_NO_EVENT, in);
    }
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            if (node[a] == HF_NO_EVENT || node[b] == HF_NO_EVENT)
                continue;
            bool below = forest ? hf_poset_less(p, a, b) : hf_poset_less(p, b, a);
            cr_assert_eq(tree_anc(t, node[a], node[b]), below, "ancestry of %u,%u", a, b);
        }
    cr_assert_eq(t->height, tree_depth_max(t));
    free(node);
}

Test(forest, random_forests_all_gadgets)
{
    uint64_t rng = 31;
    for (int iter = 0; iter < 400; iter++) {
        uint32_t n = tu_below(&rng, 40);
        uint32_t roots = 1 + tu_below(&rng, 5);
        hf_poset *p =
            iter % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        for (int g = HF_I_GADGET_NONE; g <= HF_I_GADGET_BALANCED; g++) {
            hf_i_tree_options opt = {(hf_i_gadget)g, NULL, 0};
            hf_i_tree *t;
            cr_assert_eq(hf_i_tree_new(p, &opt, &t, NULL), HF_OK);
            check_tree(p, t, (hf_i_gadget)g, NULL);
            /* a virtual root exactly when there is not a single root */
            uint32_t minimal = 0, c;
            for (uint32_t v = 0; v < n; v++) {
                if (hf_poset_shape(p) & HF_SHAPE_FOREST)
                    hf_poset_hasse_pred(p, v, &c);
                else
                    hf_poset_hasse_succ(p, v, &c);
                minimal += c == 0;
            }
            cr_assert_eq(t->orig[t->root] == HF_NO_EVENT, minimal != 1);
            if (g == HF_I_GADGET_WEIGHTED) {
                uint32_t lg = 0;
                while ((1u << lg) < n + 1)
                    lg++;
                cr_assert_leq(t->height, hf_poset_height(p) + lg + 2);
            }
            hf_i_tree_free(t);
        }
        hf_poset_free(p);
    }
}

Test(forest, weighted_gadget_on_a_star_is_balanced)
{
    for (uint32_t k = 3; k <= 1100; k += 137) {
        uint32_t(*e)[2] = malloc(k * sizeof *e);
        for (uint32_t i = 0; i < k; i++) {
            e[i][0] = 0;
            e[i][1] = i + 1;
        }
        hf_poset *p = tu_poset(k + 1, (const uint32_t(*)[2])e, k);
        hf_i_tree_options opt = {HF_I_GADGET_WEIGHTED, NULL, 0};
        hf_i_tree *t;
        cr_assert_eq(hf_i_tree_new(p, &opt, &t, NULL), HF_OK);
        uint32_t lg = 0;
        while ((1u << lg) < k)
            lg++;
        cr_assert_eq(t->height, lg, "star of %u: height %u", k, t->height);
        hf_i_tree_free(t);
        hf_poset_free(p);
        free(e);
    }
}

Test(forest, weighted_gadget_keeps_a_deep_child_high)
{
    /* root 0 with 1000 leaf children and one chain of 20 events below child 1 */
    uint32_t leaves = 1000, chain = 20, n = 1 + leaves + chain;
    uint32_t(*e)[2] = malloc(n * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 1; i <= leaves; i++) {
        e[m][0] = 0;
        e[m++][1] = i;
    }
    for (uint32_t i = 0; i < chain; i++) {
        e[m][0] = i == 0 ? 1 : leaves + i;
        e[m++][1] = leaves + 1 + i;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    hf_i_tree *w, *b;
    hf_i_tree_options ow = {HF_I_GADGET_WEIGHTED, NULL, 0}, ob = {HF_I_GADGET_BALANCED, NULL, 0};
    cr_assert_eq(hf_i_tree_new(p, &ow, &w, NULL), HF_OK);
    cr_assert_eq(hf_i_tree_new(p, &ob, &b, NULL), HF_OK);
    check_tree(p, w, HF_I_GADGET_WEIGHTED, NULL);
    check_tree(p, b, HF_I_GADGET_BALANCED, NULL);
    /* the chain hangs 21 edges below the root; weighted puts its subtree near the top */
    cr_assert_leq(w->height, 21 + 3, "weighted height %u", w->height);
    cr_assert_geq(b->height, 20 + 9, "balanced height %u", b->height);
    hf_i_tree_free(w);
    hf_i_tree_free(b);
    hf_poset_free(p);
    free(e);
}

/* collects emitted schedules */
struct collect {
    uint32_t *rows;
    size_t m, n;
};
static hf_status collect_put(void *user, const uint32_t *s, uint32_t n)
{
    struct collect *c = user;
    cr_assert_eq(n, c->n);
    memcpy(c->rows + c->m * n, s, n * sizeof *s);
    c->m++;
    return HF_OK;
}

Test(forest, focus_restriction_and_extension)
{
    uint64_t rng = 32;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = 1 + tu_below(&rng, 30);
        hf_poset *p = iter % 2 ? tu_random_inforest(n, 1 + tu_below(&rng, 3), &rng)
                               : tu_random_forest(n, 1 + tu_below(&rng, 3), &rng);
        bool *keep = calloc(n, 1);
        uint32_t *focus = malloc(n * sizeof *focus);
        size_t fc = 0;
        for (uint32_t v = 0; v < n; v++)
            if (tu_below(&rng, 3) == 0) {
                keep[v] = true;
                focus[fc++] = v;
            }
        hf_i_tree_options opt = {(hf_i_gadget)(iter % 3), focus, fc};
        hf_i_tree *t;
        cr_assert_eq(hf_i_tree_new(p, &opt, &t, NULL), HF_OK);
        check_tree(p, t, opt.gadget, keep);
        /* a random linear extension of the tree, mapped back */
        uint32_t *sched = malloc(t->n * sizeof *sched), *avail = malloc(t->n * sizeof *avail);
        size_t na = 0, k = 0;
        avail[na++] = t->root;
        while (na > 0) {
            uint32_t j = tu_below(&rng, (uint32_t)na);
            uint32_t v = avail[j];
            avail[j] = avail[--na];
            sched[k++] = v;
            for (uint32_t i = t->child_off[v]; i < t->child_off[v + 1]; i++)
                avail[na++] = t->child[i];
        }
        hf_i_emitter *em;
        cr_assert_eq(hf_i_emitter_new(t, &em), HF_OK);
        struct collect c = {malloc(2 * n * sizeof(uint32_t)), 0, n};
        for (int rep = 0; rep < 2; rep++) /* twice: the marks must reset between schedules */
            cr_assert_eq(hf_i_emit(em, sched, (hf_sink){collect_put, &c}), HF_OK);
        cr_assert_eq(memcmp(c.rows, c.rows + n, n * sizeof(uint32_t)), 0);
        cr_assert_eq(hf_schedule_check(p, c.rows, 0, NULL), HF_OK);
        /* the focus events keep the tree's relative order (reversed for in-forests) */
        uint32_t *pos = malloc(n * sizeof *pos);
        for (uint32_t i = 0; i < n; i++)
            pos[c.rows[i]] = i;
        uint32_t prev = UINT32_MAX;
        for (size_t i = 0; i < k; i++) {
            uint32_t v = t->orig[sched[t->reversed ? k - 1 - i : i]];
            if (v == HF_NO_EVENT)
                continue;
            if (prev != UINT32_MAX)
                cr_assert_lt(pos[prev], pos[v]);
            prev = v;
        }
        free(pos);
        free(c.rows);
        hf_i_emitter_free(em);
        free(sched);
        free(avail);
        hf_i_tree_free(t);
        free(keep);
        free(focus);
        hf_poset_free(p);
    }
}

Test(forest, general_orders_are_refused)
{
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_poset *p = tu_poset(4, e, 4);
    hf_i_tree *t = (hf_i_tree *)1;
    hf_error err;
    cr_assert_eq(hf_i_tree_new(p, NULL, &t, &err), HF_EUNSUPPORTED);
    cr_assert_null(t);
    hf_poset_free(p);
}

/* The same tree, array by array. */
static void assert_tree_eq(const hf_i_tree *a, const hf_i_tree *b)
{
    cr_assert_eq(a->n, b->n);
    cr_assert_eq(a->root, b->root);
    cr_assert_eq(a->height, b->height);
    cr_assert_eq(a->reversed, b->reversed);
    cr_assert_eq(a->restricted, b->restricted);
    cr_assert_eq(memcmp(a->parent, b->parent, a->n * sizeof *a->parent), 0);
    cr_assert_eq(memcmp(a->orig, b->orig, a->n * sizeof *a->orig), 0);
    cr_assert_eq(memcmp(a->child_off, b->child_off, (a->n + 1) * sizeof *a->child_off), 0);
    cr_assert_eq(memcmp(a->child, b->child, a->child_off[a->n] * sizeof *a->child), 0);
}

/* A random forest or in-forest of n events and about `roots` roots whose parents are drawn from
 * the first `hubs` events of each stretch, so that some events get many children. */
static hf_poset *hubby_forest(uint32_t n, uint32_t roots, uint32_t hubs, bool in, uint64_t *rng)
{
    uint32_t *parent = malloc((n ? n : 1) * sizeof *parent);
    for (uint32_t v = 0; v < n; v++) {
        if (v < roots || tu_below(rng, 50) == 0) {
            parent[v] = HF_NO_EVENT;
            continue;
        }
        uint32_t lo = tu_below(rng, 4) == 0 ? 0 : v - 1 - tu_below(rng, v);
        uint32_t span = v - lo < hubs ? v - lo : hubs;
        parent[v] = lo + tu_below(rng, span);
    }
    hf_poset *p = tu_parents_poset(parent, n, in);
    free(parent);
    return p;
}

Test(forest, tree_from_views_equals_the_general_construction)
{
    /* Without a focus set the tree is read off the poset's forest views, gadgets included; a
     * focus set naming every event takes the general construction, which must give the same
     * tree, node for node. */
    uint64_t rng = 77;
    for (int iter = 0; iter < 600; iter++) {
        uint32_t n = 1 + tu_below(&rng, iter < 500 ? 60 : 3000);
        uint32_t roots = 1 + tu_below(&rng, iter % 3 ? 2 : 9);
        bool in = iter % 2;
        hf_poset *p = iter % 5 == 0 ? (in ? tu_random_inforest(n, roots, &rng)
                                          : tu_random_forest(n, roots, &rng))
                                    : hubby_forest(n, roots, 1 + tu_below(&rng, 6), in, &rng);
        cr_assert_not_null(p->dfs_order, "no forest views: the fast path is not exercised");
        uint32_t *all = malloc(p->n * sizeof *all);
        for (uint32_t v = 0; v < p->n; v++)
            all[v] = v;
        for (int g = HF_I_GADGET_NONE; g <= HF_I_GADGET_BALANCED; g++) {
            hf_i_tree_options fast = {(hf_i_gadget)g, NULL, 0},
                              general = {(hf_i_gadget)g, all, p->n};
            hf_i_tree *a, *b;
            cr_assert_eq(hf_i_tree_new(p, &fast, &a, NULL), HF_OK);
            cr_assert_eq(hf_i_tree_new(p, &general, &b, NULL), HF_OK);
            assert_tree_eq(a, b);
            if (n <= 60)
                check_tree(p, a, (hf_i_gadget)g, NULL);
            hf_i_tree_free(a);
            hf_i_tree_free(b);
        }
        free(all);
        hf_poset_free(p);
    }
}

Test(forest, out_of_memory_paths)
{
    /* every allocation of both constructions fails once in turn: HF_ENOMEM, nothing leaked,
     * and the tree once the allocations succeed */
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    uint64_t rng = 78;
    hf_poset *orders[3] = {hubby_forest(200, 5, 3, false, &rng),
                           hubby_forest(150, 1, 2, true, &rng), tu_random_forest(40, 1, &rng)};
    uint32_t all[200];
    for (uint32_t v = 0; v < 200; v++)
        all[v] = v;
    for (int k = 0; k < 3; k++) {
        hf_poset *p = tu_poset_copy(orders[k], ctx);
        for (int what = 0; what < 4; what++) {
            hf_i_tree_options opt = {what % 2 ? HF_I_GADGET_WEIGHTED : HF_I_GADGET_NONE,
                                     what >= 2 ? all : NULL, what >= 2 ? p->n : 0};
            hf_status st = HF_ENOMEM;
            long fail = 0;
            hf_i_tree *t = NULL;
            for (; st == HF_ENOMEM; fail++) {
                cr_assert_lt(fail, 1000);
                long live = c.live;
                c.left = fail;
                hf_error err;
                st = hf_i_tree_new(p, &opt, &t, &err);
                c.left = -1;
                if (st == HF_ENOMEM) {
                    cr_assert_null(t);
                    cr_assert_eq(c.live, live, "a failed allocation leaked");
                }
            }
            cr_assert_eq(st, HF_OK);
            cr_assert_gt(fail, 3, "only %ld allocations to fail", fail);
            hf_i_tree_free(t);
        }
        hf_poset_free(p);
        hf_poset_free(orders[k]);
    }
    hf_ctx_free(ctx);
}

Test(forest, outline_matches_the_tree)
{
    /* leaves and the events on both spines, read off the order, against the tree itself */
    uint64_t rng = 79;
    for (int iter = 0; iter < 400; iter++) {
        uint32_t n = tu_below(&rng, 50);
        uint32_t roots = 1 + tu_below(&rng, 4);
        bool in = iter % 2;
        hf_poset *p = iter % 3 ? hubby_forest(n, roots, 1 + tu_below(&rng, 4), in, &rng)
                      : in     ? tu_random_inforest(n, roots, &rng)
                               : tu_random_forest(n, roots, &rng);
        uint32_t leaves, spine[2];
        cr_assert_eq(hf_i_tree_outline(p, &leaves, spine), HF_OK);
        hf_i_tree *t;
        cr_assert_eq(hf_i_tree_new(p, NULL, &t, NULL), HF_OK);
        uint32_t want_leaves = 0, want[2] = {0, 0};
        for (uint32_t v = 0; v < t->n; v++)
            want_leaves += t->child_off[v] == t->child_off[v + 1];
        for (int w = 0; w < 2; w++)
            for (uint32_t x = t->root; x != HF_NO_EVENT;) {
                want[w] += t->orig[x] != HF_NO_EVENT;
                uint32_t lo = t->child_off[x], hi = t->child_off[x + 1];
                x = lo == hi ? HF_NO_EVENT : t->child[w ? hi - 1 : lo];
            }
        cr_assert_eq(leaves, want_leaves, "n=%u", n);
        cr_assert_eq(spine[0], want[0], "n=%u", n);
        cr_assert_eq(spine[1], want[1], "n=%u", n);
        hf_i_tree_free(t);
        hf_poset_free(p);
    }
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_poset *p = tu_poset(4, e, 4);
    uint32_t leaves, spine[2];
    cr_assert_eq(hf_i_tree_outline(p, &leaves, spine), HF_EUNSUPPORTED);
    hf_poset_free(p);
}
