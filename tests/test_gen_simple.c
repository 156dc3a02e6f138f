/* Tests of the simple family for d >= 3 (Claim 3.2) and its pruned variant: every family is checked
 * by a brute-force d-hitting oracle written here, on all small tree shapes, random trees, forests
 * and in-forests, focus sets and racing sets; predicted sizes must equal the emitted counts. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gen_simple.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(gen_simple);

#define NO HF_NO_EVENT

/* ---------------------------------------------------------------------------------------- */
/* Orders from parent arrays                                                                */

/* Events 0..n-1 with par[v] the parent of v (NO for roots); an in-forest when reversed. */
static hf_poset *from_parents(hf_ctx *ctx, uint32_t n, const uint32_t *par, bool reversed)
{
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    char name[32];
    for (uint32_t v = 0; v < n; v++) {
        snprintf(name, sizeof name, "e%u", (unsigned)v);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
    }
    for (uint32_t v = 0; v < n; v++)
        if (par[v] != NO)
            cr_assert_eq(reversed ? hf_poset_builder_add_order(b, v, par[v])
                                  : hf_poset_builder_add_order(b, par[v], v),
                         HF_OK);
    hf_poset *p;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t v = 0; v < n; v++)
        if (par[v] != NO) {
            e[m][0] = reversed ? v : par[v];
            e[m][1] = reversed ? par[v] : v;
            m++;
        }
    tu_register_edges(p, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

static void shuffle(uint32_t *a, uint32_t n, uint64_t *rng)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_below(rng, i), x = a[i - 1];
        a[i - 1] = a[j];
        a[j] = x;
    }
}

/* The tree par[0..n-1] (node 0 the root) with ids renamed by a random permutation when rng is
 * given, the root dropped (a forest) when drop_root, and reversed when asked. */
static hf_poset *shape_order(uint32_t n, const uint32_t *par, uint64_t *rng, bool drop_root,
                             bool reversed)
{
    uint32_t *perm = malloc((n + 1) * sizeof *perm), *q = malloc((n + 1) * sizeof *q);
    uint32_t off = drop_root ? 1 : 0, m = n - off;
    for (uint32_t i = 0; i < m; i++)
        perm[i] = i;
    if (rng)
        shuffle(perm, m, rng);
    for (uint32_t v = off; v < n; v++) {
        uint32_t pv = par[v];
        q[perm[v - off]] = pv == NO || (drop_root && pv == 0) ? NO : perm[pv - off];
    }
    hf_poset *p = from_parents(NULL, m, q, reversed);
    free(perm);
    free(q);
    return p;
}

/* ---------------------------------------------------------------------------------------- */
/* A family collected in memory                                                             */

typedef struct fam {
    uint32_t n;
    size_t m, cap;
    uint32_t *rows;
} fam;

static hf_status fam_put(void *user, const uint32_t *s, uint32_t n)
{
    fam *f = user;
    cr_assert_eq(n, f->n);
    if (f->m == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->rows = realloc(f->rows, f->cap * (n ? n : 1) * sizeof *f->rows);
    }
    memcpy(f->rows + f->m * n, s, n * sizeof *s);
    f->m++;
    return HF_OK;
}

static void fam_free(fam *f)
{
    free(f->rows);
    free(f);
}

static fam *fam_new(uint32_t n)
{
    fam *f = calloc(1, sizeof *f);
    f->n = n;
    return f;
}

static bool fam_equal(const fam *a, const fam *b)
{
    return a->n == b->n && a->m == b->m &&
           (a->m == 0 || memcmp(a->rows, b->rows, a->m * a->n * sizeof *a->rows) == 0);
}

/* Run the method through its registry entry; predict must equal the number emitted. */
static fam *run_simple(const hf_poset *p, unsigned d, const uint32_t *focus, size_t focus_count)
{
    hf_gen_options opt = tu_gen_options(d, HF_METHOD_SIMPLE, focus, focus_count);
    hf_error err;
    cr_assert_eq(hf_i_method_simple.check(p, &opt, &err), HF_OK, "%s", err.text);
    fam *f = fam_new(hf_poset_size(p));
    cr_assert_eq(hf_i_method_simple.generate(p, &opt, (hf_sink){fam_put, f}, &err), HF_OK, "%s",
                 err.text);
    mpz_t z;
    mpz_init(z);
    cr_assert_eq(hf_i_method_simple.predict(p, &opt, z, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp_ui(z, (unsigned long)f->m) == 0, "d=%u n=%u: predicted %lu, emitted %zu", d,
              hf_poset_size(p), mpz_get_ui(z), f->m);
    mpz_clear(z);
    return f;
}

static fam *run_pruned(const hf_poset *p, unsigned d, const uint32_t *racing, size_t count)
{
    hf_error err;
    fam *f = fam_new(hf_poset_size(p));
    cr_assert_eq(hf_i_simple_generate_pruned(p, d, racing, count, (hf_sink){fam_put, f}, &err),
                 HF_OK, "%s", err.text);
    mpz_t z;
    mpz_init(z);
    cr_assert_eq(hf_i_simple_predict_pruned(p, d, racing, count, z, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp_ui(z, (unsigned long)f->m) == 0, "pruned d=%u: predicted %lu, emitted %zu", d,
              mpz_get_ui(z), f->m);
    mpz_clear(z);
    return f;
}

/* ---------------------------------------------------------------------------------------- */
/* The brute-force oracle                                                                   */

/* lt[a*n+b]: a < b, from the edges the test chose (tu_closure). */
static bool *closure(const hf_poset *p) { return tu_closure(p); }

enum rule { ALL, ALL_IN_SET, FIRST_IN_SET, LAST_IN_SET };

typedef struct oracle {
    uint32_t n, d;
    size_t words; /* per set of schedules */
    const bool *lt;
    const uint64_t *order; /* order[(a*n+b)*words ..]: the schedules that put a before b */
    const bool *set;
    enum rule rule;
    uint32_t tuple[HF_MAX_D];
    uint64_t *hits; /* per level: the schedules that hit tuple[0..level] */
    size_t m;
    uint64_t count;
} oracle;

static bool must_be_in_set(const oracle *o, uint32_t i)
{
    switch (o->rule) {
    case ALL:
        return false;
    case ALL_IN_SET:
        return true;
    case FIRST_IN_SET:
        return i < o->d - 2;
    default:
        return i >= 2;
    }
}

/* Extend the admissible prefix tuple[0..i) (i >= 1), hit by the schedules in hits level i-1. */
static void tuples_from(oracle *o, uint32_t i)
{
    uint32_t n = o->n, prev = o->tuple[i - 1];
    size_t W = o->words;
    const uint64_t *have = o->hits + (size_t)(i - 1) * W;
    uint64_t *next = o->hits + (size_t)i * W;
    for (uint32_t a = 0; a < n; a++) {
        bool ok = !must_be_in_set(o, i) || o->set[a];
        for (uint32_t j = 0; j < i && ok; j++)
            ok = o->tuple[j] != a && !o->lt[(size_t)a * n + o->tuple[j]];
        if (!ok)
            continue;
        o->tuple[i] = a;
        const uint64_t *before = o->order + ((size_t)prev * n + a) * W;
        if (i + 1 == o->d) {
            o->count++;
            bool hit = false;
            for (size_t w = 0; w < W && !hit; w++)
                hit = (have[w] & before[w]) != 0;
            if (!hit) {
                char buf[128];
                int k = 0;
                for (uint32_t j = 0; j <= i; j++)
                    k += snprintf(buf + k, sizeof buf - (size_t)k, " %u", o->tuple[j]);
                cr_assert_fail("admissible %u-tuple (%s ) is not hit (n=%u, %zu schedules)", o->d,
                               buf, n, o->m);
            }
            continue;
        }
        for (size_t w = 0; w < W; w++)
            next[w] = have[w] & before[w];
        tuples_from(o, i + 1);
    }
}

/* All admissible tuples: a single event is hit by every schedule. */
static void all_tuples(oracle *o)
{
    for (size_t w = 0; w < o->words; w++)
        o->hits[w] = ~(uint64_t)0;
    for (uint32_t a = 0; a < o->n; a++) {
        if (must_be_in_set(o, 0) && !o->set[a])
            continue;
        o->tuple[0] = a;
        if (o->d == 1)
            o->count++;
        else
            tuples_from(o, 1);
    }
}

static int cmp_u64_pair(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Checks that every row is a linear extension, no two rows are equal, and every admissible d-tuple
 * the rule selects is hit. Returns the number of tuples checked. */
static uint64_t check_family(const hf_poset *p, const fam *f, unsigned d, const bool *set,
                             enum rule rule)
{
    uint32_t n = hf_poset_size(p);
    size_t m = f->m;
    bool *lt = closure(p);
    uint32_t *pos = malloc((m * n + 1) * sizeof *pos);
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = f->rows + s * n;
        bool *seen = calloc(n + 1, 1);
        for (uint32_t i = 0; i < n; i++) {
            if (row[i] >= n || seen[row[i]])
                cr_assert_fail("schedule %zu: bad or repeated event %u", s, row[i]);
            seen[row[i]] = true;
            pos[s * n + row[i]] = i;
        }
        free(seen);
        /* the test's own edges suffice, by transitivity */
        cr_assert(tu_respects_edges(p, pos + s * n), "schedule %zu breaks the order", s);
    }
    /* no duplicates: sort (hash, index) pairs, compare rows with equal hashes */
    uint64_t *h = malloc((2 * m + 1) * sizeof *h);
    for (size_t s = 0; s < m; s++) {
        uint64_t x = 1469598103934665603u;
        for (uint32_t i = 0; i < n; i++)
            x = (x ^ f->rows[s * n + i]) * 1099511628211u;
        h[2 * s] = x;
        h[2 * s + 1] = s;
    }
    qsort(h, m, 2 * sizeof *h, cmp_u64_pair);
    for (size_t s = 0; s + 1 < m; s++)
        for (size_t r = s + 1; r < m && h[2 * r] == h[2 * s]; r++)
            cr_assert(memcmp(f->rows + h[2 * s + 1] * n, f->rows + h[2 * r + 1] * n,
                             n * sizeof *f->rows) != 0,
                      "schedules %zu and %zu are equal", (size_t)h[2 * s + 1],
                      (size_t)h[2 * r + 1]);
    free(h);
    if (n > 0)
        cr_assert_geq(m, 1);
    size_t words = (m + 63) / 64 + 1;
    uint64_t *order = calloc((size_t)n * n * words + 1, sizeof *order);
    for (size_t s = 0; s < m; s++)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                uint32_t a = f->rows[s * n + i], x = f->rows[s * n + j];
                order[((size_t)a * n + x) * words + s / 64] |= (uint64_t)1 << (s % 64);
            }
    oracle o = {n, d, words, lt, order, set, rule, {0}, calloc((d + 1) * words, 8), m, 0};
    all_tuples(&o);
    free(o.hits);
    free(order);
    free(pos);
    free(lt);
    return o.count;
}

/* ---------------------------------------------------------------------------------------- */
/* The family as defined, built literally                                                   */

typedef struct literal {
    uint32_t n;
    bool dual;    /* an in-forest: work on the reversed order, reverse each schedule */
    uint32_t *up; /* tree parent, NO for a root */
    bool *cand;
    uint32_t k;
    uint32_t tuple[HF_MAX_D];
    bool *placed;
    uint32_t *seq;
    fam *out;
} literal;

static bool tree_ancestor(const literal *l, uint32_t a, uint32_t b) /* a strictly above b */
{
    for (uint32_t x = l->up[b]; x != NO; x = l->up[x])
        if (x == a)
            return true;
    return false;
}

/* Preorder of the unplaced events, children (and roots) by increasing id, or decreasing. */
static void complete(literal *l, uint32_t len, bool right_to_left)
{
    uint32_t n = l->n;
    uint32_t *stack = malloc((n + 1) * sizeof *stack), sp = 0;
    for (uint32_t i = 0; i < n; i++) { /* roots: pushed so that the first is on top */
        uint32_t v = right_to_left ? i : n - 1 - i;
        if (l->up[v] == NO)
            stack[sp++] = v;
    }
    while (sp > 0) {
        uint32_t v = stack[--sp];
        if (!l->placed[v])
            l->seq[len++] = v;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = right_to_left ? i : n - 1 - i;
            if (l->up[c] == v)
                stack[sp++] = c;
        }
    }
    free(stack);
    cr_assert_eq(len, n);
    uint32_t *row = malloc((n + 1) * sizeof *row);
    for (uint32_t i = 0; i < n; i++)
        row[i] = l->seq[l->dual ? n - 1 - i : i];
    fam_put(l->out, row, n);
    free(row);
}

static void literal_from(literal *l, uint32_t i)
{
    if (i == l->k) {
        memset(l->placed, 0, l->n * sizeof *l->placed);
        uint32_t len = 0, path[256];
        for (uint32_t j = 0; j < l->k; j++) {
            uint32_t np = 0;
            for (uint32_t x = l->tuple[j]; x != NO && !l->placed[x]; x = l->up[x])
                path[np++] = x;
            while (np > 0) {
                uint32_t x = path[--np];
                l->placed[x] = true;
                l->seq[len++] = x;
            }
        }
        complete(l, len, false);
        complete(l, len, true);
        return;
    }
    for (uint32_t a = 0; a < l->n; a++) {
        bool ok = l->cand[a];
        for (uint32_t j = 0; j < i && ok; j++)
            ok = a != l->tuple[j] && !tree_ancestor(l, a, l->tuple[j]);
        if (ok) {
            l->tuple[i] = a;
            literal_from(l, i + 1);
        }
    }
}

static int cmp_rows_n; /* qsort takes no context; each Criterion test runs in its own process */
static int cmp_rows(const void *x, const void *y)
{
    return memcmp(x, y, (size_t)cmp_rows_n * sizeof(uint32_t)) < 0   ? -1
           : memcmp(x, y, (size_t)cmp_rows_n * sizeof(uint32_t)) > 0 ? 1
                                                                     : 0;
}

/* Rows as a sorted list without repeats (byte order of the ids is enough for equality). */
static void sort_unique(fam *f)
{
    if (f->m == 0)
        return;
    cmp_rows_n = (int)f->n;
    qsort(f->rows, f->m, f->n * sizeof *f->rows, cmp_rows);
    size_t w = 1;
    for (size_t r = 1; r < f->m; r++)
        if (memcmp(f->rows + r * f->n, f->rows + (w - 1) * f->n, f->n * sizeof *f->rows) != 0)
            memmove(f->rows + w++ * f->n, f->rows + r * f->n, f->n * sizeof *f->rows);
    f->m = w;
}

/* The family of docs/math.md (section 4.1) built prefix by prefix (racing == NULL: every event is a
 * candidate), repeats removed, must be exactly the emitted set. */
static void check_literal(const hf_poset *p, unsigned d, const uint32_t *racing, size_t count,
                          const fam *emitted)
{
    uint32_t n = hf_poset_size(p);
    literal l = {n,
                 !(hf_poset_shape(p) & HF_SHAPE_FOREST),
                 malloc((n + 1) * sizeof(uint32_t)),
                 calloc(n + 1, 1),
                 0,
                 {0},
                 calloc(n + 1, 1),
                 malloc((n + 1) * sizeof(uint32_t)),
                 fam_new(n)};
    uint32_t *parent = tu_forest_parents(p, l.dual); /* from the test's own edges */
    for (uint32_t v = 0; v < n; v++) {
        l.up[v] = parent[v] == HF_NO_EVENT ? NO : parent[v];
        l.cand[v] = racing == NULL;
    }
    for (size_t i = 0; i < count; i++)
        l.cand[racing[i]] = true;
    uint32_t ncand = 0;
    for (uint32_t v = 0; v < n; v++)
        ncand += l.cand[v];
    l.k = d - 2 < ncand ? d - 2 : ncand;
    literal_from(&l, 0);
    sort_unique(l.out);
    fam *got = fam_new(n);
    for (size_t r = 0; r < emitted->m; r++)
        fam_put(got, emitted->rows + r * n, n);
    sort_unique(got);
    cr_assert_eq(got->m, emitted->m, "the family repeats a schedule");
    cr_assert_eq(got->m, l.out->m, "d=%u n=%u: %zu distinct schedules by definition, %zu emitted",
                 d, n, l.out->m, got->m);
    cr_assert(fam_equal(got, l.out), "d=%u n=%u: not the defined family", d, n);
    fam_free(got);
    fam_free(l.out);
    free(l.up);
    free(parent);
    free(l.cand);
    free(l.placed);
    free(l.seq);
}

/* ---------------------------------------------------------------------------------------- */
/* Shapes                                                                                   */

/* All rooted trees with n nodes as canonical level sequences (Beyer and Hedetniemi's successor
 * rule); calls fn with the parent array of each. */
static void each_shape(uint32_t n, void (*fn)(uint32_t n, const uint32_t *par, void *user),
                       void *user)
{
    uint32_t lv[16], par[16], last[16];
    for (uint32_t i = 0; i < n; i++)
        lv[i] = i;
    for (;;) {
        for (uint32_t i = 0; i < n; i++) {
            last[lv[i]] = i;
            par[i] = lv[i] == 0 ? NO : last[lv[i] - 1];
        }
        fn(n, par, user);
        uint32_t p = n;
        while (p-- > 0 && lv[p] <= 1) {
        }
        if (p == UINT32_MAX || p == 0)
            break;
        uint32_t q = p;
        while (lv[--q] != lv[p] - 1) {
        }
        for (uint32_t i = p; i < n; i++)
            lv[i] = lv[i - p + q];
    }
}

typedef struct shape_run {
    unsigned d;
    uint64_t rng;
    size_t shapes, schedules;
} shape_run;

static void check_shape(uint32_t n, const uint32_t *par, void *user)
{
    shape_run *r = user;
    r->shapes++;
    /* the tree as listed, renamed, without its root, and the duals of both */
    for (int variant = 0; variant < 5; variant++) {
        bool drop = variant == 2 || variant == 4, rev = variant >= 3;
        if (drop && n == 1)
            continue;
        hf_poset *p = shape_order(n, par, variant == 1 || variant == 4 ? &r->rng : NULL, drop, rev);
        fam *f = run_simple(p, r->d, NULL, 0);
        check_family(p, f, r->d, NULL, ALL);
        check_literal(p, r->d, NULL, 0, f);
        r->schedules += f->m;
        fam_free(f);
        hf_poset_free(p);
    }
}

Test(gen_simple, every_tree_shape_up_to_9_nodes_d3)
{
    shape_run r = {3, 1, 0, 0};
    for (uint32_t n = 1; n <= 9; n++)
        each_shape(n, check_shape, &r);
    cr_assert_gt(r.shapes, 400);
}

Test(gen_simple, every_tree_shape_up_to_7_nodes_d4)
{
    shape_run r = {4, 2, 0, 0};
    for (uint32_t n = 1; n <= 7; n++)
        each_shape(n, check_shape, &r);
    cr_assert_gt(r.shapes, 80);
}

Test(gen_simple, every_tree_shape_up_to_6_nodes_d5_to_d8)
{
    for (unsigned d = 5; d <= HF_MAX_D; d++) {
        shape_run r = {d, d, 0, 0};
        for (uint32_t n = 1; n <= 6; n++)
            each_shape(n, check_shape, &r);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Random trees                                                                             */

enum kind { RECURSIVE, CATERPILLAR, STAR, DEEP, WIDE, N_KINDS };

/* A random tree of about n nodes of the given kind, node 0 the root, parents before children. */
static uint32_t random_tree(enum kind kind, uint32_t n, uint32_t *par, uint64_t *rng)
{
    if (n == 0)
        n = 1;
    par[0] = NO;
    switch (kind) {
    case RECURSIVE:
        for (uint32_t v = 1; v < n; v++)
            par[v] = tu_below(rng, v);
        break;
    case CATERPILLAR: { /* a spine, each node with a few leaves */
        uint32_t spine = 1 + tu_below(rng, n);
        for (uint32_t v = 1; v < n; v++)
            par[v] = v < spine ? v - 1 : tu_below(rng, spine);
        break;
    }
    case STAR: /* a star, sometimes of small stars */
        for (uint32_t v = 1; v < n; v++)
            par[v] = v < 4 || tu_below(rng, 2) ? 0 : 1 + tu_below(rng, 3);
        break;
    case DEEP: { /* a long chain with short side branches */
        uint32_t chain = (n * 3 + 3) / 4;
        for (uint32_t v = 1; v < n; v++)
            par[v] = v < chain ? v - 1 : tu_below(rng, 3) ? tu_below(rng, chain) : v - 1;
        break;
    }
    default: { /* depth at most 2, many children */
        uint32_t top = 1 + tu_below(rng, n);
        for (uint32_t v = 1; v < n; v++)
            par[v] = v < top || top == 1 ? 0 : 1 + tu_below(rng, top - 1);
        break;
    }
    }
    return n;
}

static hf_poset *random_order(uint32_t max_n, uint64_t *rng, enum kind kind, uint32_t *n_out)
{
    uint32_t par[256];
    uint32_t n = random_tree(kind, 1 + tu_below(rng, max_n), par, rng);
    bool drop = n > 1 && tu_below(rng, 3) == 0, rev = tu_below(rng, 3) == 0;
    hf_poset *p = shape_order(n, par, rng, drop, rev);
    *n_out = hf_poset_size(p);
    return p;
}

Test(gen_simple, random_trees_d3)
{
    uint64_t rng = 3;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n;
        hf_poset *p = random_order(iter < 200 ? 60 : 100, &rng, (enum kind)(iter % N_KINDS), &n);
        fam *f = run_simple(p, 3, NULL, 0);
        check_family(p, f, 3, NULL, ALL);
        check_literal(p, 3, NULL, 0, f);
        cr_assert_leq(f->m, 2 * (size_t)(n ? n : 1));
        fam_free(f);
        hf_poset_free(p);
    }
}

Test(gen_simple, random_trees_d4)
{
    uint64_t rng = 4;
    for (int iter = 0; iter < 200; iter++) {
        uint32_t n;
        hf_poset *p = random_order(30, &rng, (enum kind)(iter % N_KINDS), &n);
        fam *f = run_simple(p, 4, NULL, 0);
        check_family(p, f, 4, NULL, ALL);
        check_literal(p, 4, NULL, 0, f);
        cr_assert_leq(f->m, 2 * (size_t)n * n + 2);
        fam_free(f);
        hf_poset_free(p);
    }
}

Test(gen_simple, random_trees_d5)
{
    uint64_t rng = 5;
    for (int iter = 0; iter < 60; iter++) {
        uint32_t n;
        hf_poset *p = random_order(13, &rng, (enum kind)(iter % N_KINDS), &n);
        fam *f = run_simple(p, 5, NULL, 0);
        check_family(p, f, 5, NULL, ALL);
        check_literal(p, 5, NULL, 0, f);
        fam_free(f);
        hf_poset_free(p);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Complete binary trees                                                                    */

Test(gen_simple, complete_binary_trees_have_2n_minus_2h_schedules_for_d3)
{
    for (uint32_t h = 1; h <= 6; h++) {
        hf_poset *p = tu_complete_binary(h);
        uint32_t n = hf_poset_size(p);
        fam *f = run_simple(p, 3, NULL, 0);
        uint64_t tuples = check_family(p, f, 3, NULL, ALL);
        /* docs/math.md, section 4.2: 2n - 2h distinct schedules; T_1 has only two linear
         * extensions, both in the family, so there the formula's 4 collapses to 2. */
        cr_assert_eq(f->m, h == 1 ? 2 : 2 * (size_t)n - 2 * h, "h=%u: %zu", h, f->m);
        if (h == 2)
            cr_assert_eq(tuples, 102);
        if (h == 3)
            cr_assert_eq(tuples, 1710);
        fam_free(f);
        hf_poset_free(p);
    }
}

Test(gen_simple, complete_binary_trees_d4)
{
    for (uint32_t h = 1; h <= 4; h++) {
        hf_poset *p = tu_complete_binary(h);
        uint32_t n = hf_poset_size(p);
        fam *f = run_simple(p, 4, NULL, 0);
        uint64_t tuples = check_family(p, f, 4, NULL, ALL);
        cr_assert_leq(f->m, 2 * (size_t)n * n);
        if (h == 2)
            cr_assert_eq(tuples, 220);
        if (h == 3)
            cr_assert_eq(tuples, 13844);
        fam_free(f);
        hf_poset_free(p);
    }
}

Test(gen_simple, same_input_same_family)
{
    uint64_t rng = 6;
    for (int iter = 0; iter < 20; iter++) {
        uint64_t save = rng;
        uint32_t n;
        hf_poset *p = random_order(40, &rng, (enum kind)(iter % N_KINDS), &n);
        rng = save;
        hf_poset *p2 = random_order(40, &rng, (enum kind)(iter % N_KINDS), &n);
        for (unsigned d = 3; d <= 4; d++) {
            fam *a = run_simple(p, d, NULL, 0), *b = run_simple(p2, d, NULL, 0);
            cr_assert(fam_equal(a, b));
            fam_free(a);
            fam_free(b);
        }
        hf_poset_free(p);
        hf_poset_free(p2);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Focus sets and the pruned variant                                                        */

Test(gen_simple, focus_sets_hit_every_focus_tuple)
{
    uint64_t rng = 7;
    for (int iter = 0; iter < 150; iter++) {
        unsigned d = iter % 3 == 2 ? 4 : 3;
        uint32_t n;
        hf_poset *p = random_order(d == 3 ? 50 : 25, &rng, (enum kind)(iter % N_KINDS), &n);
        bool *set = calloc(n + 1, 1);
        uint32_t *focus = malloc((2 * n + 1) * sizeof *focus), k = 0;
        uint32_t pct = tu_below(&rng, 100);
        for (uint32_t v = 0; v < n; v++)
            if (tu_below(&rng, 100) < pct) {
                focus[k++] = v;
                set[v] = true;
                if (tu_below(&rng, 4) == 0)
                    focus[k++] = v; /* duplicates are allowed */
            }
        fam *f = run_simple(p, d, focus, k);
        check_family(p, f, d, set, ALL_IN_SET);
        fam_free(f);
        free(focus);
        free(set);
        hf_poset_free(p);
    }
}

static uint64_t power(uint64_t b, unsigned e)
{
    uint64_t r = 1;
    while (e--)
        r *= b;
    return r;
}

Test(gen_simple, pruned_hits_tuples_with_racing_prefix)
{
    uint64_t rng = 8;
    for (int iter = 0; iter < 240; iter++) {
        unsigned d = iter % 4 == 3 ? 4 : iter % 8 == 5 ? 5 : 3;
        uint32_t n;
        hf_poset *p = random_order(d == 3   ? 50
                                   : d == 4 ? 22
                                            : 12,
                                   &rng, (enum kind)(iter % N_KINDS), &n);
        bool *set = calloc(n + 1, 1);
        uint32_t *racing = malloc((n + 8) * sizeof *racing), r = 0;
        uint32_t want = tu_below(&rng, 8);
        for (uint32_t i = 0; i < want && n > 0; i++) {
            uint32_t v = tu_below(&rng, n);
            racing[r++] = v;
            set[v] = true;
        }
        uint32_t distinct = 0;
        for (uint32_t v = 0; v < n; v++)
            distinct += set[v];
        fam *f = run_pruned(p, d, racing, r);
        /* an in-forest is built on its dual tree, which reverses every tuple */
        bool dual = !(hf_poset_shape(p) & HF_SHAPE_FOREST);
        check_family(p, f, d, set, dual ? LAST_IN_SET : FIRST_IN_SET);
        check_literal(p, d, racing, r, f);
        uint64_t bound = 2 * power(distinct, d - 2);
        cr_assert_leq(f->m, bound > 2 ? bound : 2, "|R|=%u d=%u: %zu", distinct, d, f->m);
        fam_free(f);
        free(racing);
        free(set);
        hf_poset_free(p);
    }
}

Test(gen_simple, pruned_with_every_event_racing_is_the_plain_family)
{
    uint64_t rng = 9;
    for (int iter = 0; iter < 40; iter++) {
        uint32_t n;
        hf_poset *p = random_order(30, &rng, (enum kind)(iter % N_KINDS), &n);
        uint32_t *all = malloc((n + 1) * sizeof *all);
        for (uint32_t v = 0; v < n; v++)
            all[v] = v;
        for (unsigned d = 3; d <= 4; d++) {
            fam *a = run_simple(p, d, NULL, 0), *b = run_pruned(p, d, all, n);
            cr_assert(fam_equal(a, b));
            fam_free(a);
            fam_free(b);
        }
        free(all);
        hf_poset_free(p);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* A long chain                                                                             */

typedef struct stream {
    const hf_poset *p;
    uint32_t *pos;
    size_t count;
    uint64_t hashes[512];
} stream;

/* Checks each schedule in O(n + edges) against the test's own edges, and remembers its hash. */
static hf_status stream_put(void *user, const uint32_t *s, uint32_t n)
{
    stream *c = user;
    uint64_t x = 1469598103934665603u;
    for (uint32_t i = 0; i < n; i++) {
        c->pos[s[i]] = i;
        x = (x ^ s[i]) * 1099511628211u;
    }
    if (!tu_respects_edges(c->p, c->pos))
        return HF_ESCHEDULE;
    if (c->count < 512)
        c->hashes[c->count] = x;
    c->count++;
    return HF_OK;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

Test(gen_simple, a_long_chain_with_side_events, .timeout = 120)
{
    const uint32_t chain = 200000, sides = 6;
    const uint32_t at[] = {40, 31, 17, 9, 3, 0};
    uint32_t n = chain + sides;
    uint32_t *par = malloc(n * sizeof *par);
    for (int reversed = 0; reversed < 2; reversed++) {
        /* Few schedules need the side events near the bottom of the tree: a chain of c events
         * next to a free event forces c + 1 schedules. In the forest the chain runs 0 -> 1 ->
         * ...; in the in-forest every event points to the next one and the dual tree's bottom
         * is the chain's start. */
        for (uint32_t v = 0; v < chain; v++)
            par[v] = reversed ? (v + 1 < chain ? v + 1 : NO) : (v ? v - 1 : NO);
        for (uint32_t i = 0; i < sides; i++)
            par[chain + i] = reversed ? at[i] : chain - 1 - at[i];
        hf_poset *p = from_parents(NULL, n, par, reversed);
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = 3;
        mpz_t z;
        mpz_init(z);
        cr_assert_eq(hf_i_method_simple.predict(p, &opt, z, NULL), HF_OK);
        cr_assert(mpz_cmp_ui(z, 512) < 0, "predicted %lu", mpz_get_ui(z));
        stream c = {p, malloc(n * sizeof(uint32_t)), 0, {0}};
        cr_assert_eq(hf_i_method_simple.generate(p, &opt, (hf_sink){stream_put, &c}, NULL), HF_OK);
        cr_assert(mpz_cmp_ui(z, (unsigned long)c.count) == 0, "predicted %lu, emitted %zu",
                  mpz_get_ui(z), c.count);
        cr_assert_geq(c.count, at[0] + 1);
        qsort(c.hashes, c.count, sizeof *c.hashes, cmp_u64);
        for (size_t i = 0; i + 1 < c.count; i++)
            cr_assert_neq(c.hashes[i], c.hashes[i + 1]);
        free(c.pos);
        mpz_clear(z);
        hf_poset_free(p);
    }
    free(par);
}

/* ---------------------------------------------------------------------------------------- */
/* Larger trees: predict against the number emitted                                         */

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

static void predict_matches_count(const hf_poset *p, unsigned d)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    hf_error err;
    mpz_t z;
    mpz_init(z);
    cr_assert_eq(hf_i_method_simple.predict(p, &opt, z, &err), HF_OK, "%s", err.text);
    uint64_t emitted = 0;
    cr_assert_eq(hf_i_method_simple.generate(p, &opt, (hf_sink){count_put, &emitted}, &err), HF_OK,
                 "%s", err.text);
    cr_assert(mpz_cmp_ui(z, (unsigned long)emitted) == 0, "d=%u n=%u: predicted %lu, emitted %llu",
              d, hf_poset_size(p), mpz_get_ui(z), (unsigned long long)emitted);
    mpz_clear(z);
}

Test(gen_simple, predict_matches_the_count_on_larger_trees)
{
    uint64_t rng = 10;
    const struct {
        unsigned d;
        uint32_t n;
    } cases[] = {{3, 400}, {4, 120}, {5, 35}, {6, 16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int kind = 0; kind < N_KINDS; kind++) {
            uint32_t par[512];
            uint32_t n = random_tree((enum kind)kind, cases[c].n, par, &rng);
            for (int variant = 0; variant < 3; variant++) {
                hf_poset *p = shape_order(n, par, &rng, variant == 1, variant == 2);
                predict_matches_count(p, cases[c].d);
                hf_poset_free(p);
            }
        }
}

/* Few leaves: the two halves of the family can share schedules. */
Test(gen_simple, predict_matches_the_count_on_trees_with_few_leaves)
{
    uint64_t rng = 11;
    for (int iter = 0; iter < 60; iter++) {
        unsigned d = 3 + iter % 3;
        uint32_t legs = 1 + tu_below(&rng, d), n = d == 5 ? 30 : 90, par[128];
        /* a stem, then legs of random lengths, sometimes forking once more */
        uint32_t stem = tu_below(&rng, 5), v = 1;
        par[0] = NO;
        for (; v <= stem && v < n; v++)
            par[v] = v - 1;
        uint32_t top = v - 1;
        for (uint32_t l = 0; l < legs && v < n; l++) {
            uint32_t len = 1 + tu_below(&rng, (n - v) / (legs - l) + 1), at = top;
            if (l > 0 && tu_below(&rng, 3) == 0)
                at = tu_below(&rng, v);
            for (uint32_t i = 0; i < len && v < n; i++, v++) {
                par[v] = at;
                at = v;
            }
        }
        bool rev = iter % 4 == 3, drop = iter % 4 == 2 && v > 1;
        hf_poset *p = shape_order(v, par, &rng, drop, rev);
        if (iter < 20) { /* also against the oracle, on shorter legs */
            fam *f = run_simple(p, d, NULL, 0);
            if (hf_poset_size(p) <= 40)
                check_family(p, f, d, NULL, ALL);
            fam_free(f);
        }
        predict_matches_count(p, d);
        hf_poset_free(p);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Refusals, limits, sinks and allocation failures                                          */

Test(gen_simple, huge_predictions_stop_with_a_lower_bound)
{
    uint64_t rng = 12;
    hf_poset *p = tu_random_forest(300, 1, &rng);
    mpz_t z;
    mpz_init(z);
    hf_error err;
    cr_assert_eq(hf_i_simple_count(p, 6, NULL, 0, 1000, z, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "at least"), "%s", err.text);
    cr_assert_eq(hf_i_simple_count(p, 5, NULL, 0, 1000000, z, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp_ui(z, 2ul * 300 * 300 * 300) <= 0 && mpz_cmp_ui(z, 1000000) > 0);
    hf_poset_free(p);
    /* d = 4 is counted in O(n) */
    p = tu_random_forest(3000, 1, &rng);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 4;
    cr_assert_eq(hf_i_method_simple.predict(p, &opt, z, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp_ui(z, 2ul * 3000 * 3000) <= 0 && mpz_cmp_ui(z, 1000000) > 0);
    mpz_clear(z);
    hf_poset_free(p);
}

Test(gen_simple, refusals_say_why)
{
    hf_error err;
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    hf_poset *tree = tu_complete_binary(2);
    for (unsigned d = 1; d <= 2; d++) {
        opt.d = d;
        cr_assert_eq(hf_i_method_simple.check(tree, &opt, &err), HF_EUNSUPPORTED);
        cr_assert(strstr(err.text, "dfs"), "%s", err.text);
    }
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_poset *diamond = tu_poset(4, e, 4);
    opt.d = 3;
    cr_assert_eq(hf_i_method_simple.check(diamond, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "forest"), "%s", err.text);
    fam *f = fam_new(7);
    hf_sink sink = {fam_put, f};
    uint32_t racing[] = {1, 2, 7};
    mpz_t z;
    mpz_init(z);
    cr_assert_eq(hf_i_simple_generate_pruned(tree, 3, racing, 3, sink, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "out of range"), "%s", err.text);
    cr_assert_eq(hf_i_simple_predict_pruned(tree, 3, racing, 3, z, &err), HF_EINVAL);
    cr_assert_eq(hf_i_simple_generate_pruned(tree, 3, NULL, 2, sink, &err), HF_EINVAL);
    cr_assert_eq(hf_i_simple_generate_pruned(tree, 2, racing, 2, sink, &err), HF_EUNSUPPORTED);
    cr_assert_eq(hf_i_simple_generate_pruned(tree, HF_MAX_D + 1, racing, 2, sink, &err), HF_EINVAL);
    cr_assert_eq(hf_i_simple_generate_pruned(tree, 3, racing, 2, (hf_sink){NULL, NULL}, &err),
                 HF_EINVAL);
    cr_assert_eq(hf_i_simple_predict_pruned(diamond, 3, racing, 2, z, &err), HF_EUNSUPPORTED);
    cr_assert_eq(hf_i_simple_count(tree, 3, racing, 3, 100, z, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "focus event id 7"), "%s", err.text);
    cr_assert_eq(hf_i_simple_count(tree, 2, NULL, 0, 100, z, &err), HF_EUNSUPPORTED);
    cr_assert_eq(f->m, 0);
    mpz_clear(z);
    fam_free(f);
    hf_poset_free(diamond);
    hf_poset_free(tree);
}

typedef struct stopper {
    int calls, stop_at;
} stopper;

static hf_status stop_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    stopper *st = user;
    return ++st->calls == st->stop_at ? HF_EABORTED : HF_OK;
}

Test(gen_simple, a_sink_can_stop_the_generator)
{
    hf_poset *p = tu_complete_binary(3);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    for (int at = 1; at <= 3; at++) { /* a lambda schedule, a rho one, ... */
        stopper st = {0, at};
        cr_assert_eq(hf_i_method_simple.generate(p, &opt, (hf_sink){stop_put, &st}, NULL),
                     HF_EABORTED);
        cr_assert_eq(st.calls, at);
        st = (stopper){0, at};
        uint32_t racing[] = {3, 4};
        cr_assert_eq(hf_i_simple_generate_pruned(p, 3, racing, 2, (hf_sink){stop_put, &st}, NULL),
                     HF_EABORTED);
        cr_assert_eq(st.calls, at);
    }
    hf_poset_free(p);
}

enum { DO_GEN, DO_GEN_FOCUS, DO_PREDICT3, DO_PREDICT4, DO_GEN_PRUNED, DO_PREDICT_PRUNED };

static hf_status chaos_run(const hf_poset *p, int what, fam *f, mpz_t z, hf_error *err)
{
    static const uint32_t some[] = {0, 3, 4, 9};
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = what == DO_PREDICT4 ? 4 : 3;
    f->m = 0;
    switch (what) {
    case DO_GEN:
        return hf_i_method_simple.generate(p, &opt, (hf_sink){fam_put, f}, err);
    case DO_GEN_FOCUS:
        opt.focus = some;
        opt.focus_count = 4;
        return hf_i_method_simple.generate(p, &opt, (hf_sink){fam_put, f}, err);
    case DO_PREDICT3:
    case DO_PREDICT4:
        return hf_i_method_simple.predict(p, &opt, z, err);
    case DO_GEN_PRUNED:
        return hf_i_simple_generate_pruned(p, 4, some, 4, (hf_sink){fam_put, f}, err);
    default:
        return hf_i_simple_predict_pruned(p, 4, some, 4, z, err);
    }
}

Test(gen_simple, out_of_memory_paths)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    uint64_t rng = 13;
    for (int shape = 0; shape < 2; shape++) {
        uint32_t par[64];
        uint32_t n = random_tree(RECURSIVE, 20, par, &rng);
        hf_poset *p = from_parents(ctx, n, par, shape == 1);
        for (int what = DO_GEN; what <= DO_PREDICT_PRUNED; what++) {
            fam *want = fam_new(n), *got = fam_new(n);
            mpz_t zw, zg;
            mpz_inits(zw, zg, NULL);
            c.left = -1;
            cr_assert_eq(chaos_run(p, what, want, zw, NULL), HF_OK);
            hf_status st = HF_ENOMEM;
            for (long fail = 0; st == HF_ENOMEM; fail++) {
                cr_assert_lt(fail, 1000);
                c.left = fail;
                hf_error err;
                st = chaos_run(p, what, got, zg, &err);
                if (st == HF_ENOMEM)
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
            }
            c.left = -1;
            cr_assert_eq(st, HF_OK);
            cr_assert(fam_equal(want, got));
            cr_assert(mpz_cmp(zw, zg) == 0);
            mpz_clears(zw, zg, NULL);
            fam_free(want);
            fam_free(got);
        }
        hf_poset_free(p);
    }
    hf_ctx_free(ctx);
}

Test(gen_simple, d3_closed_form_on_the_smallest_trees)
{
    /* d = 3 is predicted from the tree alone (count_d3, no search): it must still equal the
     * number emitted where the tree is a lone node, virtual or real, a chain, a star or a
     * forest of single events, with and without a focus set of one event */
    static const uint32_t one[] = {0};
    uint64_t rng = 1203;
    for (uint32_t n = 0; n <= 6; n++) {
        hf_poset *ps[3] = {tu_chain(n), tu_antichain(n), tu_random_forest(n, 1, &rng)};
        for (int k = 0; k < 3; k++) {
            fam *f = run_simple(ps[k], 3, NULL, 0);
            fam_free(f);
            if (n > 0) {
                f = run_simple(ps[k], 3, one, 1);
                fam_free(f);
            }
            hf_poset_free(ps[k]);
        }
    }
}
