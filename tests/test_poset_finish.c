/* Tests of the poset's finishing steps (lib/poset_finish.c) against references computed here:
 * Hasse rows from pairs given in any order and with repeats, the smallest topological order with
 * ids in order or shuffled, height, and the forest views (DFS entry and exit times, preorder,
 * depths, subtree sizes, parents); names added with their hash; the string table's hash bits. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "poset_finish_i.h"
#include "util.h"

TU_SUITE(poset_finish);

/* The order on n events named "v<id>" of the pairs e[0..m), given to the builder in a random
 * order, about one in four twice. */
static hf_poset *build(uint32_t n, const uint32_t (*e)[2], size_t m, uint64_t *rng)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    char name[32];
    for (uint32_t v = 0; v < n; v++) {
        snprintf(name, sizeof name, "v%u", v);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
    }
    uint32_t *perm = tu_random_perm((uint32_t)m, rng);
    for (size_t k = 0; k < m; k++) {
        const uint32_t *pair = e[perm[k]];
        for (int twice = tu_below(rng, 4) == 0; twice >= 0; twice--)
            cr_assert_eq(hf_poset_builder_add_order(b, pair[0], pair[1]), HF_OK);
    }
    free(perm);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    return p;
}

/* p's rows in both directions equal to the covers of the 0/1 matrix cover (sorted, no repeats). */
static void check_rows(const hf_poset *p, const unsigned char *cover)
{
    uint32_t n = p->n;
    size_t edges = 0;
    for (uint32_t v = 0; v < n; v++) {
        size_t s = p->succ_off[v], r = p->pred_off[v];
        for (uint32_t u = 0; u < n; u++) {
            if (cover[(size_t)v * n + u]) {
                cr_assert_lt(s, p->succ_off[v + 1], "row %u ends early", v);
                cr_assert_eq(p->succ[s++], u, "succ row of %u", v);
                edges++;
            }
            if (cover[(size_t)u * n + v]) {
                cr_assert_lt(r, p->pred_off[v + 1], "pred row of %u ends early", v);
                cr_assert_eq(p->pred[r++], u, "pred row of %u", v);
            }
        }
        cr_assert_eq(s, p->succ_off[v + 1], "succ row of %u too long", v);
        cr_assert_eq(r, p->pred_off[v + 1], "pred row of %u too long", v);
    }
    cr_assert_eq(p->edge_count, edges);
}

/* The smallest topological order by choosing, n times, the smallest event all of whose
 * predecessors are placed; then rank, and the height as the longest path. */
static void check_topo(const hf_poset *p, const unsigned char *cover)
{
    uint32_t n = p->n;
    bool *placed = calloc(n + 1, 1);
    uint32_t *len = calloc(n + 1, sizeof *len), height = 0;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t want = HF_NO_EVENT;
        for (uint32_t v = 0; v < n && want == HF_NO_EVENT; v++) {
            bool free_now = !placed[v];
            for (uint32_t u = 0; u < n && free_now; u++)
                free_now = !cover[(size_t)u * n + v] || placed[u];
            if (free_now)
                want = v;
        }
        cr_assert_eq(p->topo[t], want, "topo[%u]", t);
        cr_assert_eq(p->rank[want], t);
        placed[want] = true;
        len[want] = 1;
        for (uint32_t u = 0; u < n; u++)
            if (cover[(size_t)u * n + want] && len[u] + 1 > len[want])
                len[want] = len[u] + 1;
        height = len[want] > height ? len[want] : height;
    }
    cr_assert_eq(p->height, height);
    free(placed);
    free(len);
}

/* The forest views against a DFS over the parent array `up` (HF_NO_EVENT for a
 * root), roots and children in id order. */
static void check_views(const hf_poset *p, const uint32_t *up, bool dual)
{
    uint32_t n = p->n;
    cr_assert_eq(p->dual, dual);
    cr_assert_not_null(p->tin);
    uint32_t *tin = malloc((n + 1) * sizeof *tin), *sub = calloc(n + 1, sizeof *sub);
    uint32_t *depth = calloc(n + 1, sizeof *depth), *order = malloc((n + 1) * sizeof *order);
    /* preorder: roots in id order, each event followed by its children's subtrees in id order
     * (children found by a scan: n is small) */
    uint32_t clock = 0;
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    for (uint32_t r = 0; r < n; r++) {
        if (up[r] != HF_NO_EVENT)
            continue;
        size_t sp = 0;
        stack[sp++] = r;
        while (sp) {
            uint32_t v = stack[--sp];
            tin[v] = clock;
            order[clock++] = v;
            depth[v] = up[v] == HF_NO_EVENT ? 0 : depth[up[v]] + 1;
            for (uint32_t c = n; c-- > 0;) /* pushed in reverse: popped in id order */
                if (up[c] == v)
                    stack[sp++] = c;
        }
    }
    cr_assert_eq(clock, n);
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t u = v; u != HF_NO_EVENT; u = up[u])
            sub[u]++;
    for (uint32_t v = 0; v < n; v++) {
        cr_assert_eq(p->tin[v], tin[v], "tin[%u]", v);
        cr_assert_eq(p->tout[v], tin[v] + sub[v] - 1, "tout[%u]", v);
        cr_assert_eq(p->subtree[v], sub[v], "subtree[%u]", v);
        cr_assert_eq(p->depth[v], depth[v], "depth[%u]", v);
        cr_assert_eq(p->dfs_order[v], order[v], "dfs_order[%u]", v);
        if (!dual)
            cr_assert_eq(p->parent[v], up[v], "parent[%u]", v);
    }
    free(tin);
    free(sub);
    free(depth);
    free(order);
    free(stack);
}

/* Random forests (parents among earlier events), as they are (every edge to a larger id) and
 * with ids shuffled, each also reversed (an in-forest). */
Test(poset_finish, forests_in_id_order_or_not)
{
    uint64_t rng = 16;
    for (int iter = 0; iter < 400; iter++) {
        uint32_t n = 1 + tu_below(&rng, iter < 300 ? 40 : 400);
        uint32_t roots = 1 + tu_below(&rng, 3);
        bool shuffled = iter % 2, in = iter % 4 >= 2;
        uint32_t *perm = tu_random_perm(n, &rng);
        uint32_t *up = malloc(n * sizeof *up);
        uint32_t(*e)[2] = malloc(n * sizeof *e);
        unsigned char *cover = calloc((size_t)n * n, 1);
        size_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            up[i] = HF_NO_EVENT;
        for (uint32_t i = roots; i < n; i++) {
            uint32_t par = tu_below(&rng, i);
            uint32_t a = shuffled ? perm[par] : par, c = shuffled ? perm[i] : i;
            up[c] = a;
            e[m][in] = a;
            e[m][!in] = c;
            cover[(size_t)e[m][0] * n + e[m][1]] = 1;
            m++;
        }
        hf_poset *p = build(n, (const uint32_t(*)[2])e, m, &rng);
        check_rows(p, cover);
        check_topo(p, cover);
        /* a chain or an antichain is both; the views are then the forest's */
        bool forest = !in || hf_poset_shape(p) & HF_SHAPE_FOREST;
        cr_assert_eq(!!(hf_poset_shape(p) & (in ? HF_SHAPE_INFOREST : HF_SHAPE_FOREST)), true);
        if (forest == !in)
            check_views(p, up, in);
        hf_poset_free(p);
        free(perm);
        free(up);
        free(e);
        free(cover);
    }
}

/* Random DAGs with edges to larger ids only, and shuffled: rows, order and height (the
 * transitive edges are dropped by the reduction, which the reference does by brute force). */
Test(poset_finish, dags_in_id_order_or_not)
{
    uint64_t rng = 17;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = 1 + tu_below(&rng, 30);
        bool shuffled = iter % 2;
        uint32_t *perm = tu_random_perm(n, &rng);
        uint32_t(*e)[2] = malloc(((size_t)n * n + 1) * sizeof *e);
        unsigned char *lt = calloc((size_t)n * n, 1), *cover = calloc((size_t)n * n, 1);
        size_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (tu_below(&rng, 4) == 0) {
                    uint32_t a = shuffled ? perm[i] : i, c = shuffled ? perm[j] : j;
                    e[m][0] = a;
                    e[m][1] = c;
                    lt[(size_t)a * n + c] = 1;
                    m++;
                }
        /* closure, in the order of the ranks i < j (perm maps rank to id) */
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t j = 0; j < n; j++)
                    if (lt[(size_t)i * n + k] && lt[(size_t)k * n + j])
                        lt[(size_t)i * n + j] = 1;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t c = 0; c < n; c++) {
                bool cv = lt[(size_t)a * n + c];
                for (uint32_t k = 0; k < n && cv; k++)
                    cv = !(lt[(size_t)a * n + k] && lt[(size_t)k * n + c]);
                cover[(size_t)a * n + c] = cv;
            }
        hf_poset *p = build(n, (const uint32_t(*)[2])e, m, &rng);
        check_rows(p, cover);
        check_topo(p, cover);
        hf_poset_free(p);
        free(perm);
        free(e);
        free(lt);
        free(cover);
    }
}

/* Names given to the builder with their hash make the same order as the public calls; a
 * repeated name is found. */
Test(poset_finish, hashed_names_change_nothing)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    char name[32];
    for (uint32_t v = 0; v < 1000; v++) {
        int len = snprintf(name, sizeof name, "e%u", v);
        uint32_t id = 99;
        cr_assert_eq(hf_i_poset_builder_add_hashed(b, name, (size_t)len,
                                                   hf_i_strtab_hash(name, (size_t)len), &id),
                     HF_OK);
        cr_assert_eq(id, v);
        if (v)
            cr_assert_eq(hf_poset_builder_add_order(b, (v - 1) / 2, v), HF_OK);
    }
    uint32_t id = 0;
    cr_assert_eq(hf_i_poset_builder_add_hashed(b, "e777", 4, hf_i_strtab_hash("e777", 4), &id),
                 HF_EDUPLICATE);
    cr_assert_eq(id, 777);
    cr_assert_eq(hf_poset_builder_add_event(b, "e12", &id), HF_EDUPLICATE);
    cr_assert_eq(id, 12);
    cr_assert_eq(hf_poset_builder_find(b, "e999", &id), HF_OK);
    cr_assert_eq(id, 999);
    cr_assert_eq(hf_poset_builder_find(b, "e1000", &id), HF_ENOTFOUND);
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    cr_assert_eq(hf_poset_size(p), 1000);
    cr_assert_eq(hf_poset_height(p), 10);
    cr_assert(hf_poset_shape(p) & HF_SHAPE_TREE);
    for (uint32_t v = 0; v < 1000; v++) {
        snprintf(name, sizeof name, "e%u", v);
        cr_assert_str_eq(hf_poset_name(p, v), name);
        cr_assert_eq(hf_poset_find(p, name, &id), HF_OK);
        cr_assert_eq(id, v);
    }
    hf_poset_free(p);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The interned-string table: two names whose hashes agree in the 32 bits a slot keeps (found
 * here by sorting many) are still told apart by their bytes, before and after the table grows. */
Test(poset_finish, strtab_equal_hash_bits)
{
    hf_i_strtab t = {0};
    enum { COUNT = 1 << 18 }; /* about 8 pairs expected among 2^35 */
    uint64_t *keys = malloc(COUNT * sizeof *keys);
    char s[32], s2[32];
    for (uint32_t i = 0; i < COUNT; i++) {
        int n = snprintf(s, sizeof s, "n%u", i);
        keys[i] = (uint64_t)(uint32_t)hf_i_strtab_hash(s, (size_t)n) << 32 | i;
    }
    qsort(keys, COUNT, sizeof *keys, cmp_u64);
    uint32_t a = 0, b = 0;
    for (uint32_t i = 1; i < COUNT && a == b; i++)
        if (keys[i] >> 32 == keys[i - 1] >> 32) {
            a = (uint32_t)keys[i - 1];
            b = (uint32_t)keys[i];
        }
    free(keys);
    cr_assert_neq(a, b, "no two names among %u agree in 32 hash bits", COUNT);
    int na = snprintf(s, sizeof s, "n%u", a), nb = snprintf(s2, sizeof s2, "n%u", b);
    uint32_t k;
    cr_assert_eq(hf_i_strtab_intern(NULL, &t, s, (size_t)na, &k), HF_OK);
    cr_assert_eq(k, 0);
    cr_assert_eq(hf_i_strtab_find(&t, s2, (size_t)nb, NULL), HF_NO_EVENT, "%s is not %s", s2, s);
    cr_assert_eq(hf_i_strtab_intern(NULL, &t, s2, (size_t)nb, &k), HF_OK);
    cr_assert_eq(k, 1);
    cr_assert_eq(hf_i_strtab_find(&t, s, (size_t)na, NULL), 0);
    cr_assert_eq(hf_i_strtab_find(&t, s2, (size_t)nb, NULL), 1);
    /* and after the table grew */
    for (uint32_t i = 0; i < 1000; i++) {
        int n = snprintf(s, sizeof s, "m%u", i);
        cr_assert_eq(hf_i_strtab_intern(NULL, &t, s, (size_t)n, &k), HF_OK);
        cr_assert_eq(k, i + 2);
    }
    cr_assert_eq(hf_i_strtab_find(&t, s2, (size_t)nb, NULL), 1);
    snprintf(s, sizeof s, "n%u", a);
    cr_assert_eq(hf_i_strtab_find(&t, s, (size_t)na, NULL), 0);
    hf_i_strtab_free(NULL, &t);
}

/* The tree the generators work on (lib/forest.c): read off the forest views when every event is
 * kept and no node needs a gadget, else built by the general construction. The general one is
 * reached with a focus set of every event, which drops nothing and so gives the same tree:
 * both must agree node for node on random forests and in-forests, of any degree and of degree
 * at most two, with one root or several, ids in order or shuffled, for each kind of gadget. */
Test(poset_finish, tree_from_views_matches_general)
{
    uint64_t rng = 61;
    const hf_i_gadget gadgets[] = {HF_I_GADGET_NONE, HF_I_GADGET_WEIGHTED, HF_I_GADGET_BALANCED};
    unsigned fast_shapes = 0;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = 1 + tu_below(&rng, iter < 200 ? 30 : 300);
        uint32_t roots = 1 + tu_below(&rng, 4);
        bool shuffled = iter % 2, in = iter % 4 >= 2, binary = iter % 8 >= 4;
        uint32_t *perm = tu_random_perm(n, &rng);
        uint32_t *kids = calloc(n, sizeof *kids);
        uint32_t(*e)[2] = malloc(n * sizeof *e);
        size_t m = 0;
        for (uint32_t i = roots; i < n; i++) {
            uint32_t par = tu_below(&rng, i);
            while (binary && kids[par] >= 2)
                par = (par + 1) % i;
            if (binary && kids[par] >= 2)
                continue; /* (every earlier event is full: i becomes a root) */
            kids[par]++;
            e[m][in] = shuffled ? perm[par] : par;
            e[m][!in] = shuffled ? perm[i] : i;
            m++;
        }
        hf_poset *p = build(n, (const uint32_t(*)[2])e, m, &rng);
        uint32_t *all = malloc(n * sizeof *all);
        for (uint32_t v = 0; v < n; v++)
            all[v] = v;
        for (int g = 0; g < 3; g++) {
            hf_i_tree_options direct = {gadgets[g], NULL, 0}, general = {gadgets[g], all, n};
            hf_i_tree *a = NULL, *b = NULL;
            cr_assert_eq(hf_i_tree_new(p, &direct, &a, NULL), HF_OK);
            cr_assert_eq(hf_i_tree_new(p, &general, &b, NULL), HF_OK);
            cr_assert_eq(a->n, b->n, "iter %d gadget %d", iter, g);
            cr_assert_eq(a->root, b->root);
            cr_assert_eq(a->height, b->height, "iter %d gadget %d", iter, g);
            cr_assert_eq(a->reversed, b->reversed);
            cr_assert_eq(a->restricted, b->restricted);
            cr_assert_eq(a->n_orig, b->n_orig);
            for (uint32_t v = 0; v < a->n; v++) {
                cr_assert_eq(a->parent[v], b->parent[v], "iter %d gadget %d node %u", iter, g, v);
                cr_assert_eq(a->orig[v], b->orig[v], "iter %d gadget %d node %u", iter, g, v);
                cr_assert_eq(a->child_off[v + 1], b->child_off[v + 1], "iter %d node %u", iter, v);
            }
            for (uint32_t k = 0; k < a->child_off[a->n]; k++)
                cr_assert_eq(a->child[k], b->child[k], "iter %d gadget %d child %u", iter, g, k);
            fast_shapes += g > 0 && a->n <= n + 1;
            hf_i_tree_free(a);
            hf_i_tree_free(b);
        }
        /* the NULL options are gadget-free and keep every event */
        hf_i_tree *c = NULL;
        cr_assert_eq(hf_i_tree_new(p, NULL, &c, NULL), HF_OK);
        cr_assert_eq(c->n, n + (c->orig[0] == HF_NO_EVENT));
        hf_i_tree_free(c);
        hf_poset_free(p);
        free(all);
        free(perm);
        free(kids);
        free(e);
    }
    cr_assert_gt(fast_shapes, 100, "trees without gadget nodes under a gadget option: %u",
                 fast_shapes);
}

/* The family formats write a name bare exactly when hf_i_name_is_bare says so (hf_i_name_write
 * has a one-pass shortcut for identifiers): keywords in any case, a byte order mark, bytes past
 * 0x7f, digits, numerals and random mixes of such pieces. */
Test(poset_finish, names_written_bare_exactly_when_bare)
{
    static const char *const pieces[] = {
        "node", "NoDe", "edge", "graph", "diGraph",      "subgraph", "strict", "e",
        "_",    "7",    "-",    ".",     "\xEF\xBB\xBF", "\xC3\xA9", "\xEF",   "x\"y",
        " ",    "\\",   "0",    "Z9"};
    const size_t count = sizeof pieces / sizeof pieces[0];
    uint64_t rng = 1201;
    for (int iter = 0; iter < 20000; iter++) {
        char name[64] = "";
        for (uint32_t k = 1 + tu_below(&rng, 3); k > 0; k--)
            strcat(name, pieces[tu_below(&rng, (uint32_t)count)]);
        char *buf = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&buf, &size);
        cr_assert_eq(hf_name_write(out, name), HF_OK);
        fclose(out);
        bool bare = hf_i_name_is_bare(name);
        cr_assert_eq(size == strlen(name) && memcmp(buf, name, size) == 0, bare, "%s", name);
        cr_assert_eq(buf[0] == '"', !bare, "%s", name);
        free(buf);
    }
}

/* DOT's keywords, in any case, are never bare names (a reader would take them for keywords),
 * and a letter more or less makes a plain identifier: names of each keyword's length and one
 * either side. */
Test(poset_finish, keywords_are_never_bare)
{
    static const char *const kw[] = {"node", "edge", "graph", "digraph", "subgraph", "strict"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
        size_t len = strlen(kw[i]);
        char name[16];
        for (unsigned mask = 0; mask < (1u << len); mask += 1 + mask / 3) { /* some casings */
            for (size_t k = 0; k < len; k++)
                name[k] = (char)((mask >> k & 1) ? kw[i][k] - 'a' + 'A' : kw[i][k]);
            name[len] = '\0';
            cr_assert(!hf_i_name_is_bare(name), "%s", name);
            name[len] = 'x';
            name[len + 1] = '\0';
            cr_assert(hf_i_name_is_bare(name), "%s", name);
            name[len - 1] = '\0';
            cr_assert(hf_i_name_is_bare(name), "%s", name);
        }
    }
}

/* Names appended without a lookup (hf_i_poset_builder_add_new, as the fast DOT reader does once
 * its own table holds every event) among names added the usual way: found by the builder before
 * they are placed, placed when the builder is next asked (a repeat is then still refused), and
 * the finished poset finds each by name, in runs long enough that the table grows meanwhile. */
Test(poset_finish, names_appended_then_placed)
{
    uint64_t rng = 4242;
    for (int iter = 0; iter < 6; iter++) {
        hf_poset_builder *b = NULL;
        cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
        uint32_t n = 1 + tu_below(&rng, iter < 3 ? 100 : 30000);
        char name[32];
        for (uint32_t v = 0; v < n; v++) {
            int len = snprintf(name, sizeof name, "x%u", v);
            uint32_t id = HF_NO_EVENT;
            /* runs of appends between ordinary additions */
            if (tu_below(&rng, 64) < (iter % 2 ? 63u : 32u))
                cr_assert_eq(hf_i_poset_builder_add_new(b, name, (size_t)len, &id), HF_OK);
            else
                cr_assert_eq(hf_poset_builder_add_event(b, name, &id), HF_OK);
            cr_assert_eq(id, v);
            if (tu_below(&rng, 50) == 0) {
                uint32_t w = tu_below(&rng, v + 1), got = HF_NO_EVENT;
                snprintf(name, sizeof name, "x%u", w);
                cr_assert_eq(hf_poset_builder_find(b, name, &got), HF_OK, "%s", name);
                cr_assert_eq(got, w);
                cr_assert_eq(hf_poset_builder_find(b, "y", &got), HF_ENOTFOUND);
            }
            if (tu_below(&rng, 200) == 0) {
                uint32_t w = tu_below(&rng, v + 1), got = HF_NO_EVENT;
                snprintf(name, sizeof name, "x%u", w);
                cr_assert_eq(hf_poset_builder_add_event(b, name, &got), HF_EDUPLICATE, "%s", name);
                cr_assert_eq(got, w);
            }
        }
        hf_poset *p = NULL;
        cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
        hf_poset_builder_free(b);
        cr_assert_eq(hf_poset_size(p), n);
        for (uint32_t v = 0; v < n; v++) {
            snprintf(name, sizeof name, "x%u", v);
            uint32_t id = HF_NO_EVENT;
            cr_assert_eq(hf_poset_find(p, name, &id), HF_OK, "%s", name);
            cr_assert_eq(id, v);
            cr_assert_str_eq(hf_poset_name(p, v), name);
        }
        uint32_t id;
        cr_assert_eq(hf_poset_find(p, "x-1", &id), HF_ENOTFOUND);
        hf_poset_free(p);
    }
}

/* Appending and placing fail cleanly: with the allocation after k successes failing, for every
 * k, a call that reports HF_ENOMEM leaves the builder as it was (the same call then gives the
 * same id), finishing too, and so does the finished poset's first lookup, which places the
 * appended names; nothing leaks. */
Test(poset_finish, names_appended_allocation_failures)
{
    bool clean = false;
    for (long k = 0; !clean; k++) {
        tu_chaos c = {.left = k, .once = true};
        hf_allocator a = tu_chaos_allocator(&c);
        hf_ctx *ctx;
        if (hf_ctx_new(&a, NULL, NULL, &ctx) != HF_OK)
            continue;
        hf_poset_builder *b = NULL;
        if (hf_poset_builder_new(ctx, &b) != HF_OK) {
            hf_ctx_free(ctx);
            continue;
        }
        bool failed = false;
        char name[32];
        for (uint32_t v = 0; v < 300; v++) {
            int len = snprintf(name, sizeof name, "z%u", v);
            uint32_t id = HF_NO_EVENT;
            for (int again = 0; again < 2; again++) {
                hf_status st = v % 7 ? hf_i_poset_builder_add_new(b, name, (size_t)len, &id)
                                     : hf_poset_builder_add_event(b, name, &id);
                cr_assert(st == HF_OK || (st == HF_ENOMEM && again == 0), "k=%ld v=%u", k, v);
                failed |= st == HF_ENOMEM;
                if (st == HF_OK)
                    break;
            }
            cr_assert_eq(id, v, "k=%ld", k);
        }
        hf_poset *p = NULL;
        hf_status st = hf_poset_builder_finish(b, &p, NULL);
        if (st == HF_ENOMEM) {
            failed = true;
            st = hf_poset_builder_finish(b, &p, NULL);
        }
        cr_assert_eq(st, HF_OK, "k=%ld", k);
        for (uint32_t v = 0; v < 300; v++) {
            snprintf(name, sizeof name, "z%u", v);
            uint32_t id = HF_NO_EVENT;
            /* the first lookup places the appended names: it may fail, and the next succeeds */
            st = hf_poset_find(p, name, &id);
            if (st == HF_ENOMEM && v == 0) {
                failed = true;
                st = hf_poset_find(p, name, &id);
            }
            cr_assert_eq(st, HF_OK, "k=%ld %s", k, name);
            cr_assert_eq(id, v);
        }
        hf_poset_free(p);
        hf_poset_builder_free(b);
        hf_ctx_free(ctx);
        cr_assert_eq(c.live, 0, "k=%ld: %ld blocks leaked", k, c.live);
        clean = !failed;
    }
}

/* A poset whose names were appended without a place has no slots until a name is first looked
 * up; then threads looking names up at once, each from another start, all find every name, and
 * one table of places stays (the others' freed: LeakSanitizer would see a lost one). */
typedef struct {
    const hf_poset *p;
    uint32_t start;
    bool ok;
} finder;

static void *find_all(void *arg)
{
    finder *f = arg;
    uint32_t n = hf_poset_size(f->p);
    char name[32];
    f->ok = true;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t v = (f->start + k) % n, id = HF_NO_EVENT;
        snprintf(name, sizeof name, "w%u", v);
        f->ok &= hf_poset_find(f->p, name, &id) == HF_OK && id == v;
    }
    uint32_t id;
    f->ok &= hf_poset_find(f->p, "w-1", &id) == HF_ENOTFOUND;
    return NULL;
}

Test(poset_finish, appended_names_are_placed_at_the_first_lookup)
{
    for (int round = 0; round < 20; round++) {
        hf_poset_builder *b = NULL;
        cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
        uint32_t n = 2000 + 100 * (uint32_t)round;
        char name[32];
        for (uint32_t v = 0; v < n; v++) {
            int len = snprintf(name, sizeof name, "w%u", v);
            uint32_t id;
            /* a few placed first, as the fast reader does before its own table */
            hf_status st = v < 50 ? hf_poset_builder_add_event(b, name, &id)
                                  : hf_i_poset_builder_add_new(b, name, (size_t)len, &id);
            cr_assert_eq(st, HF_OK);
        }
        hf_poset *p = NULL;
        cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
        hf_poset_builder_free(b);
        cr_assert_null(p->names.slots, "the names were placed before any lookup");
        cr_assert_null(atomic_load(&p->name_index));
        enum { THREADS = 4 };
        finder f[THREADS];
        pthread_t tid[THREADS];
        for (int t = 0; t < THREADS; t++) {
            f[t] = (finder){.p = p, .start = (uint32_t)t * n / THREADS};
            cr_assert_eq(pthread_create(&tid[t], NULL, find_all, &f[t]), 0);
        }
        for (int t = 0; t < THREADS; t++) {
            pthread_join(tid[t], NULL);
            cr_assert(f[t].ok, "round %d, thread %d", round, t);
        }
        const hf_i_strtab *index = atomic_load(&p->name_index);
        cr_assert_not_null(index);
        cr_assert_eq(hf_i_poset_names_index(p), index);
        cr_assert_eq(index->indexed, n);
        hf_poset_free(p);
    }
}

/* The Hasse rows are indexed by 32-bit offsets: more constraints than HF_MAX_ORDER_PAIRS are
 * refused before any pair is read, the rows as they were (a builder's finish says so first,
 * with the count). */
Test(poset_finish, rows_refuse_more_pairs_than_32_bit_offsets_index)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    uint32_t a, c;
    cr_assert_eq(hf_poset_builder_add_event(b, "a", &a), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "c", &c), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, a, c), HF_OK);
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    const uint32_t pair[2] = {0, 1};
    uint32_t *succ_off = p->succ_off, *pred_off = p->pred_off;
    cr_assert_eq(hf_i_poset_hasse_rows(p, pair, (size_t)HF_MAX_ORDER_PAIRS + 1), HF_ETOOLARGE);
    cr_assert_eq(p->succ_off, succ_off, "rows changed by a refused call");
    cr_assert_eq(p->pred_off, pred_off);
    cr_assert_eq(hf_poset_hasse_edge_count(p), 1);
    hf_poset_free(p);
}
