/* Tests of the d = 3 double-tree family: an explicit D_k and U_k checked by brute force, the
 * on-tree generator compared with U_k restricted to subtrees of T_k, and every family checked
 * by an independent 3-hitting oracle on trees, forests, in-forests and focus sets. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "gen.h"
#include "hitfam/count.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(gen_doubletree);

/* The method under test (gen.h declares it once the registry lists it; a repeated extern
 * declaration is harmless). */
extern const hf_i_method hf_i_method_doubletree;
#define DT hf_i_method_doubletree

/* ---------------------------------------------------------------------------------------- */
/* Oracle: closure, linear extensions, admissible triples                                     */

/* lt[a*n+b] iff a < b, from the edges the test chose (tu_closure). */
static bool *closure(const hf_poset *p) { return tu_closure(p); }

/* Every row a linear extension of lt; every admissible triple of events with sel[] set (all if
 * sel is NULL) hit by some row. */
static void check_3_hitting(uint32_t n, const bool *lt, const uint32_t *rows, size_t m,
                            const bool *sel)
{
    size_t W = (m + 63) / 64 + 1;
    uint64_t *before = calloc((size_t)n * n * W + 1, sizeof *before);
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
                    before[((size_t)a * n + b) * W + s / 64] |= (uint64_t)1 << (s % 64);
            }
    }
    for (uint32_t a = 0; a < n; a++) {
        if (sel && !sel[a])
            continue;
        for (uint32_t b = 0; b < n; b++) {
            if (b == a || (sel && !sel[b]) || lt[(size_t)b * n + a])
                continue;
            const uint64_t *ab = before + ((size_t)a * n + b) * W;
            for (uint32_t c = 0; c < n; c++) {
                if (c == a || c == b || (sel && !sel[c]) || lt[(size_t)c * n + a] ||
                    lt[(size_t)c * n + b])
                    continue;
                const uint64_t *bc = before + ((size_t)b * n + c) * W;
                bool hit = false;
                for (size_t w = 0; w < W && !hit; w++)
                    hit = (ab[w] & bc[w]) != 0;
                cr_assert(hit, "admissible triple (%u,%u,%u) not hit by %zu schedules", a, b, c, m);
            }
        }
    }
    free(pos);
    free(before);
}

/* ---------------------------------------------------------------------------------------- */
/* Running the method                                                                         */

static void options(hf_gen_options *opt, const uint32_t *focus, size_t nf)
{
    hf_gen_options_init(opt);
    opt->d = 3;
    opt->method = HF_METHOD_DOUBLETREE;
    opt->focus = focus;
    opt->focus_count = nf;
}

/* Check, generate into a family, compare with the prediction. */
static hf_family *run_dt(const hf_poset *p, const uint32_t *focus, size_t nf)
{
    hf_gen_options opt;
    options(&opt, focus, nf);
    hf_error err;
    cr_assert_eq(DT.check(p, &opt, &err), HF_OK, "check: %s", err.text);
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    cr_assert_eq(DT.generate(p, &opt, hf_family_sink(f), &err), HF_OK, "generate: %s", err.text);
    mpz_t s;
    mpz_init(s);
    cr_assert_eq(DT.predict(p, &opt, s, &err), HF_OK, "predict: %s", err.text);
    cr_assert(mpz_cmp_ui(s, hf_family_size(f)) == 0, "predicted %lu, emitted %zu", mpz_get_ui(s),
              hf_family_size(f));
    mpz_clear(s);
    return f;
}

static uint32_t *family_rows(const hf_family *f, uint32_t n)
{
    size_t m = hf_family_size(f);
    uint32_t *rows = malloc((m * n + 1) * sizeof *rows);
    for (size_t s = 0; s < m; s++)
        memcpy(rows + s * n, hf_family_schedule(f, s), n * sizeof *rows);
    return rows;
}

/* Height of the binarized tree the method works on. */
static uint32_t tree_height(const hf_poset *p, const uint32_t *focus, size_t nf)
{
    hf_i_tree *t;
    hf_i_tree_options o = {HF_I_GADGET_WEIGHTED, focus, nf};
    cr_assert_eq(hf_i_tree_new(p, &o, &t, NULL), HF_OK);
    uint32_t h = t->height;
    hf_i_tree_free(t);
    return h;
}

/* The whole battery on one order: 3-hitting (on the focus events if given), size bound,
 * no schedule twice, same output twice. Returns the family size. */
static size_t full_check(const hf_poset *p, const uint32_t *focus, size_t nf)
{
    uint32_t n = hf_poset_size(p);
    hf_family *f = run_dt(p, focus, nf);
    size_t m = hf_family_size(f);
    uint32_t *rows = family_rows(f, n);
    bool *lt = closure(p);
    bool *sel = NULL;
    if (focus) {
        sel = calloc(n + 1, 1);
        for (size_t i = 0; i < nf; i++)
            sel[focus[i]] = true;
    }
    check_3_hitting(n, lt, rows, m, sel);
    uint32_t h = tree_height(p, focus, nf);
    cr_assert_leq(m, h == 0 ? 1 : 4 * (size_t)h, "%zu schedules, binarized height %u", m, h);
    cr_assert_geq(m, 1);
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++)
            cr_assert(memcmp(rows + a * n, rows + b * n, n * sizeof *rows) != 0,
                      "schedules %zu and %zu are equal", a, b);
    hf_family *g = run_dt(p, focus, nf);
    cr_assert_eq(hf_family_size(g), m);
    for (size_t s = 0; s < m; s++)
        cr_assert_arr_eq(hf_family_schedule(g, s), rows + s * n, n * sizeof *rows);
    hf_family_free(g);
    free(sel);
    free(lt);
    free(rows);
    hf_family_free(f);
    return m;
}

/* ---------------------------------------------------------------------------------------- */
/* The explicit double tree D_k and the matrix U_k                                            */

/* Events of D_k: strings w with their first character as the most significant bit; heap
 * index 2^|w| - 1 + val(w). Down events of |w| < k and leaves (|w| = k) keep the heap index,
 * up events are offset by 2^(k+1) - 1 (the numbering of tu_double_tree). */
enum { DOWN, LEAF, UP };

static uint32_t dk_size(uint32_t k) { return 3 * (1u << k) - 2; }

static uint32_t heap(uint32_t len, uint32_t val) { return (1u << len) - 1 + val; }

static uint32_t dk_id(uint32_t k, int type, uint32_t len, uint32_t val)
{
    return type == UP ? (1u << (k + 1)) - 1 + heap(len, val) : heap(len, val);
}

static void dk_decode(uint32_t k, uint32_t id, int *type, uint32_t *len, uint32_t *val)
{
    uint32_t all = (1u << (k + 1)) - 1;
    *type = id >= all ? UP : DOWN;
    uint32_t h = id >= all ? id - all : id;
    uint32_t l = 0;
    while ((1u << (l + 1)) - 1 <= h)
        l++;
    *len = l;
    *val = h - ((1u << l) - 1);
    if (*type == DOWN && l == k)
        *type = LEAF;
}

static bool prefix(uint32_t ul, uint32_t uv, uint32_t vl, uint32_t vv)
{
    return ul <= vl && (vv >> (vl - ul)) == uv;
}

/* The order of D_k straight from its definition (docs/math.md, section 5.1). */
static bool dk_less(uint32_t k, uint32_t a, uint32_t b)
{
    int ta, tb;
    uint32_t al, av, bl, bv;
    dk_decode(k, a, &ta, &al, &av);
    dk_decode(k, b, &tb, &bl, &bv);
    if (a == b)
        return false;
    if (ta == DOWN && tb != UP)
        return prefix(al, av, bl, bv) && al < bl;
    if (ta == DOWN && tb == UP)
        return prefix(al, av, bl, bv) || prefix(bl, bv, al, av);
    if (tb == UP) /* a is a leaf or up */
        return prefix(bl, bv, al, av) && bl < al;
    return false;
}

/* Left (right) traversal of the copy of D_m at string (len, val), appended to out. */
static uint32_t dk_traverse(uint32_t k, uint32_t m, uint32_t len, uint32_t val, bool right,
                            uint32_t *out, uint32_t at)
{
    if (m == 0) {
        out[at++] = dk_id(k, LEAF, len, val);
        return at;
    }
    out[at++] = dk_id(k, DOWN, len, val);
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t b = right ? 1 - i : i;
        at = dk_traverse(k, m - 1, len + 1, (val << 1) | b, right, out, at);
    }
    out[at++] = dk_id(k, UP, len, val);
    return at;
}

/* Image of a D_{k-1} half-row in D^b. */
static uint32_t dk_image(uint32_t k, const uint32_t *half, uint32_t count, uint32_t b,
                         uint32_t *out, uint32_t at)
{
    for (uint32_t i = 0; i < count; i++) {
        int type;
        uint32_t len, val;
        dk_decode(k - 1, half[i], &type, &len, &val);
        out[at++] = dk_id(k, type, len + 1, (b << len) | val);
    }
    return at;
}

/* U_k as 4k full rows of D_k, upper group then lower group, built from U_{k-1} exactly as the
 * matrix of Section 4 (docs/math.md, section 5.3). */
static uint32_t *build_u(uint32_t k)
{
    if (k == 0)
        return malloc(sizeof(uint32_t));
    uint32_t *prev = build_u(k - 1);
    uint32_t N = dk_size(k), H = N / 2, h = k == 1 ? 0 : dk_size(k - 1) / 2;
    uint32_t *rows = malloc((size_t)4 * k * N * sizeof *rows);
    uint32_t bot = dk_id(k, DOWN, 0, 0), top = dk_id(k, UP, 0, 0);
    for (uint32_t g = 0; g < 2; g++) {
        uint32_t *out = rows + (size_t)g * 2 * k * N;
        /* upper: D^0 outside, D^1 nested; lower: the other way round */
        uint32_t outer = g, inner = 1 - g;
        for (uint32_t i = 0; i + 2 < 2 * k; i++) {
            const uint32_t *x = prev + ((size_t)g * 2 * (k - 1) + i) * 2 * h;
            uint32_t at = 0, *row = out + (size_t)i * N;
            row[at++] = bot;
            at = dk_image(k, x, h, outer, row, at);
            at = dk_image(k, x, h, inner, row, at);
            cr_assert_eq(at, H);
            at = dk_image(k, x + h, h, inner, row, at);
            at = dk_image(k, x + h, h, outer, row, at);
            row[at++] = top;
            cr_assert_eq(at, N);
        }
        for (uint32_t r = 0; r < 2; r++) {
            /* upper: bot l(D0) | l(D1) top, bot r(D1) | r(D0) top; lower mirrored */
            uint32_t *row = out + (size_t)(2 * k - 2 + r) * N, at = 0;
            uint32_t firstb = (r == 0) == (g == 0) ? 0 : 1;
            row[at++] = bot;
            at = dk_traverse(k, k - 1, 1, firstb, r == 1, row, at);
            cr_assert_eq(at, H);
            at = dk_traverse(k, k - 1, 1, 1 - firstb, r == 1, row, at);
            row[at++] = top;
            cr_assert_eq(at, N);
        }
    }
    free(prev);
    return rows;
}

Test(gen_doubletree, explicit_u_k_is_3_hitting_on_d_k)
{
    for (uint32_t k = 1; k <= 5; k++) {
        uint32_t N = dk_size(k);
        uint32_t *rows = build_u(k);
        bool *lt = calloc((size_t)N * N, 1);
        for (uint32_t a = 0; a < N; a++)
            for (uint32_t b = 0; b < N; b++)
                lt[(size_t)a * N + b] = dk_less(k, a, b);
        /* the definition agrees with the test helper's D_k */
        hf_poset *p = tu_double_tree(k);
        cr_assert_eq(hf_poset_size(p), N);
        for (uint32_t a = 0; a < N; a++)
            for (uint32_t b = 0; b < N; b++)
                cr_assert_eq(hf_poset_less(p, a, b), lt[(size_t)a * N + b], "k=%u %u<%u", k, a, b);
        check_3_hitting(N, lt, rows, 4 * k, NULL);
        if (k >= 2)
            for (uint32_t a = 0; a < 4 * k; a++)
                for (uint32_t b = a + 1; b < 4 * k; b++)
                    cr_assert(
                        memcmp(rows + (size_t)a * N, rows + (size_t)b * N, N * sizeof *rows) != 0,
                        "k=%u rows %u and %u equal", k, a, b);
        hf_poset_free(p);
        free(lt);
        free(rows);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* The generator against U_k restricted to subtrees of T_k                                    */

/* A subtree of T_k given by membership over heap indices (prefix-closed, a node's only child
 * is its 0-child, as the generator embeds it). Builds the poset with events in heap order, so
 * that children keep the order 0, 1. */
static hf_poset *subtree_poset(uint32_t k, const bool *in, uint32_t *ev_heap, uint32_t *n_out)
{
    uint32_t total = (1u << (k + 1)) - 1, n = 0;
    uint32_t *ev_of = malloc(total * sizeof *ev_of);
    for (uint32_t h = 0; h < total; h++)
        if (in[h]) {
            ev_of[h] = n;
            ev_heap[n++] = h;
        }
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 1; i < n; i++) {
        e[m][0] = ev_of[(ev_heap[i] - 1) / 2];
        e[m][1] = i;
        m++;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    free(ev_of);
    *n_out = n;
    return p;
}

/* U_h restricted to the subtree, first occurrences in U_h order, as heap indices. */
static size_t restricted_u(uint32_t h, const bool *in, uint32_t n, uint32_t *out)
{
    if (h == 0) {
        out[0] = 0;
        return 1;
    }
    uint32_t N = dk_size(h);
    uint32_t *rows = build_u(h);
    size_t m = 0;
    for (uint32_t r = 0; r < 4 * h; r++) {
        uint32_t at = 0, *row = out + m * n;
        for (uint32_t i = 0; i < N; i++) {
            int type;
            uint32_t len, val;
            dk_decode(h, rows[(size_t)r * N + i], &type, &len, &val);
            if (type != UP && in[heap(len, val)])
                row[at++] = heap(len, val);
        }
        cr_assert_eq(at, n);
        bool dup = false;
        for (size_t s = 0; s < m && !dup; s++)
            dup = memcmp(out + s * n, row, n * sizeof *row) == 0;
        m += !dup;
    }
    free(rows);
    return m;
}

static uint32_t subtree_height(uint32_t k, const bool *in)
{
    uint32_t h = 0;
    for (uint32_t l = 0; l <= k; l++)
        for (uint32_t i = (1u << l) - 1; i < (1u << (l + 1)) - 1; i++)
            if (in[i])
                h = l;
    return h;
}

static void compare_with_u(uint32_t k, const bool *in)
{
    uint32_t total = (1u << (k + 1)) - 1, n;
    uint32_t *ev_heap = malloc(total * sizeof *ev_heap);
    hf_poset *p = subtree_poset(k, in, ev_heap, &n);
    uint32_t h = subtree_height(k, in);
    uint32_t *want = malloc(((size_t)4 * (h + 1) * n + 1) * sizeof *want);
    size_t m = restricted_u(h, in, n, want);
    hf_family *f = run_dt(p, NULL, 0);
    cr_assert_eq(hf_family_size(f), m, "k=%u h=%u n=%u: %zu schedules, U_h restricted has %zu", k,
                 h, n, hf_family_size(f), m);
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = hf_family_schedule(f, s);
        for (uint32_t i = 0; i < n; i++)
            cr_assert_eq(ev_heap[row[i]], want[s * n + i], "k=%u n=%u schedule %zu pos %u", k, n, s,
                         i);
    }
    hf_family_free(f);
    hf_poset_free(p);
    free(want);
    free(ev_heap);
}

static bool valid_subtree(uint32_t total, const bool *in)
{
    if (!in[0])
        return false;
    for (uint32_t i = 1; i < total; i++)
        if (in[i] && !in[(i - 1) / 2])
            return false;
    for (uint32_t i = 0; 2 * i + 2 < total; i++)
        if (in[2 * i + 2] && !in[2 * i + 1])
            return false;
    return true;
}

Test(gen_doubletree, equals_u_k_restricted_on_every_subtree_up_to_height_3)
{
    uint32_t k = 3, total = 15, tried = 0;
    bool in[15];
    for (uint32_t mask = 0; mask < (1u << total); mask++) {
        for (uint32_t i = 0; i < total; i++)
            in[i] = (mask >> i) & 1;
        if (!valid_subtree(total, in))
            continue;
        compare_with_u(k, in);
        tried++;
    }
    cr_assert_gt(tried, 100);
}

Test(gen_doubletree, equals_u_k_restricted_on_random_subtrees)
{
    uint64_t rng = 301;
    for (uint32_t k = 4; k <= 7; k++)
        for (int iter = 0; iter < 150; iter++) {
            uint32_t total = (1u << (k + 1)) - 1;
            bool *in = calloc(total, 1);
            uint32_t keep = 30 + tu_below(&rng, 70); /* percent */
            /* each node keeps each child with probability keep; an only child goes left */
            in[0] = true;
            for (uint32_t i = 0; 2 * i + 2 < total; i++) {
                if (!in[i])
                    continue;
                uint32_t kids = (tu_below(&rng, 100) < keep) + (tu_below(&rng, 100) < keep);
                in[2 * i + 1] = kids >= 1;
                in[2 * i + 2] = kids == 2;
            }
            cr_assert(valid_subtree(total, in));
            compare_with_u(k, in);
            free(in);
        }
}

/* ---------------------------------------------------------------------------------------- */
/* Trees, forests and in-forests                                                              */

enum { AS_TREE, AS_FOREST, AS_INFOREST };

/* The order of a rooted tree given by parents (par[0] = HF_NO_EVENT, par[v] < v), with ids
 * permuted by perm (NULL: identity): the tree itself, the forest left when the root is
 * dropped, or the in-forest with every edge reversed. */
static hf_poset *tree_order(uint32_t n, const uint32_t *par, const uint32_t *perm, int as)
{
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    uint32_t shift = as == AS_FOREST ? 1 : 0;
    for (uint32_t v = 1; v < n; v++) {
        if (as == AS_FOREST && par[v] == 0)
            continue;
        uint32_t a = par[v] - shift, b = v - shift;
        if (perm) {
            a = perm[a];
            b = perm[b];
        }
        e[m][as == AS_INFOREST] = a;
        e[m][as != AS_INFOREST] = b;
        m++;
    }
    hf_poset *p = tu_poset(n - shift, (const uint32_t(*)[2])e, m);
    free(e);
    return p;
}

/* One plane tree from its level sequence, checked as a tree, forest and in-forest. */
static void check_plane_tree(const uint32_t *lev, uint32_t n, void *user)
{
    (void)user;
    uint32_t last[16], par[16];
    for (uint32_t v = 0; v < n; v++) {
        last[lev[v]] = v;
        par[v] = v == 0 ? HF_NO_EVENT : last[lev[v] - 1];
    }
    for (int as = AS_TREE; as <= AS_INFOREST; as++) {
        hf_poset *p = tree_order(n, par, NULL, as);
        full_check(p, NULL, 0);
        hf_poset_free(p);
    }
}

Test(gen_doubletree, every_plane_tree_up_to_9_nodes)
{
    static const size_t catalan[] = {1, 1, 2, 5, 14, 42, 132, 429, 1430};
    for (uint32_t n = 1; n <= 9; n++)
        cr_assert_eq(tu_each_level_sequence(n, false, check_plane_tree, NULL), catalan[n - 1]);
}

/* Random tree shapes, parents before children. */
enum { BALANCED, RECURSIVE, CATERPILLAR, STAR, DEEP_CHAIN, WIDE_SHALLOW, BINARY, N_KINDS };

static void random_shape(int kind, uint32_t n, uint64_t *rng, uint32_t *par)
{
    uint32_t *kids = calloc(n + 1, sizeof *kids);
    uint32_t arity = 2 + tu_below(rng, 3), spine = 1 + n / 3 + tu_below(rng, n / 3 + 1);
    par[0] = HF_NO_EVENT;
    for (uint32_t v = 1; v < n; v++) {
        switch (kind) {
        case BALANCED:
            par[v] = (v - 1) / arity;
            break;
        case RECURSIVE:
            par[v] = tu_below(rng, v);
            break;
        case CATERPILLAR:
            par[v] = v < spine ? v - 1 : tu_below(rng, spine < v ? spine : v);
            break;
        case STAR:
            par[v] = 0;
            break;
        case DEEP_CHAIN: /* a long chain with small side branches hanging anywhere */
            par[v] = v < spine * 2 && v < n - 1 && tu_below(rng, 4) ? v - 1 : tu_below(rng, v);
            break;
        case WIDE_SHALLOW:
            par[v] = tu_below(rng, v < 1 + n / 10 ? v : 1 + n / 10);
            break;
        default: /* BINARY: random binary tree */
            do
                par[v] = tu_below(rng, v);
            while (kids[par[v]] >= 2);
        }
        kids[par[v]]++;
    }
    free(kids);
}

static void random_battery(uint64_t seed, int count, uint32_t lo, uint32_t hi)
{
    uint64_t rng = seed;
    for (int iter = 0; iter < count; iter++) {
        uint32_t n = lo + tu_below(&rng, hi - lo + 1);
        int kind = (int)tu_below(&rng, N_KINDS), as = (int)tu_below(&rng, 3);
        uint32_t *par = malloc(n * sizeof *par);
        random_shape(kind, n, &rng, par);
        uint32_t *perm = tu_random_perm(n, &rng);
        if (as == AS_FOREST) /* the ids left after dropping the root */
            for (uint32_t i = 0, j = 0; i < n; i++)
                if (perm[i] != n - 1)
                    perm[j++] = perm[i];
        hf_poset *p = tree_order(n, par, perm, as);
        full_check(p, NULL, 0);
        hf_poset_free(p);
        free(perm);
        free(par);
    }
}

Test(gen_doubletree, thousands_of_small_random_trees) { random_battery(401, 3000, 2, 40); }

Test(gen_doubletree, random_trees_up_to_300_events) { random_battery(402, 40, 100, 300); }

Test(gen_doubletree, focus_sets_on_random_trees)
{
    uint64_t rng = 403;
    for (int iter = 0; iter < 800; iter++) {
        uint32_t n = 2 + tu_below(&rng, 40);
        int kind = (int)tu_below(&rng, N_KINDS), as = (int)tu_below(&rng, 3);
        uint32_t *par = malloc(n * sizeof *par);
        random_shape(kind, n, &rng, par);
        uint32_t *perm = tu_random_perm(n, &rng);
        if (as == AS_FOREST)
            for (uint32_t i = 0, j = 0; i < n; i++)
                if (perm[i] != n - 1)
                    perm[j++] = perm[i];
        hf_poset *p = tree_order(n, par, perm, as);
        uint32_t N = hf_poset_size(p), nf = 0;
        uint32_t *focus = malloc((N + 1) * sizeof *focus);
        uint32_t percent = 10 + tu_below(&rng, 80);
        for (uint32_t v = 0; v < N; v++)
            if (tu_below(&rng, 100) < percent)
                focus[nf++] = v;
        full_check(p, focus, nf);
        hf_poset_free(p);
        free(focus);
        free(perm);
        free(par);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Sizes                                                                                      */

static size_t family_size(const hf_poset *p)
{
    hf_family *f = run_dt(p, NULL, 0);
    size_t m = hf_family_size(f);
    hf_family_free(f);
    return m;
}

static uint32_t ceil_log2(uint32_t n)
{
    uint32_t l = 0;
    while ((1u << l) < n)
        l++;
    return l;
}

Test(gen_doubletree, sizes_on_complete_trees_and_antichains)
{
    /* T_2: the published optimum 8 = 4k; T_k in general: 4k, all distinct */
    for (uint32_t k = 1; k <= 8; k++) {
        hf_poset *p = tu_complete_binary(k);
        if (k <= 4)
            cr_assert_eq(full_check(p, NULL, 0), k == 1 ? 2 : 4 * k, "T_%u", k);
        else
            cr_assert_eq(family_size(p), 4 * k, "T_%u", k);
        hf_poset_free(p);
    }
    /* T_k restricted from the explicit U_k has 4k distinct rows too (k >= 2) */
    for (uint32_t k = 2; k <= 6; k++) {
        uint32_t total = (1u << (k + 1)) - 1;
        bool *in = malloc(total);
        memset(in, 1, total);
        uint32_t *rows = malloc((size_t)4 * k * total * sizeof *rows);
        cr_assert_eq(restricted_u(k, in, total, rows), 4 * k);
        free(rows);
        free(in);
    }
    for (uint32_t n = 1; n <= 70; n++) {
        hf_poset *p = tu_antichain(n);
        size_t m = n <= 24 ? full_check(p, NULL, 0) : family_size(p);
        cr_assert_leq(m, n == 1 ? 1 : 4 * (size_t)ceil_log2(n), "antichain %u: %zu", n, m);
        hf_poset_free(p);
    }
    /* one event, and no event at all: one schedule */
    hf_poset *one = tu_chain(1), *none = tu_antichain(0);
    cr_assert_eq(full_check(one, NULL, 0), 1);
    cr_assert_eq(family_size(none), 1);
    hf_poset_free(one);
    hf_poset_free(none);
    /* a chain needs one schedule */
    hf_poset *c = tu_chain(50);
    cr_assert_eq(full_check(c, NULL, 0), 1);
    hf_poset_free(c);
}

/* A chain with one free event needs one schedule per position of the free event (docs/bounds.md,
 * bound 3; lower bound): the family meets it with at most 4 * height. */
Test(gen_doubletree, chain_and_free_event_meets_the_lower_bound)
{
    for (uint32_t m = 1; m <= 30; m++) {
        uint32_t(*e)[2] = malloc((m + 1) * sizeof *e);
        for (uint32_t i = 0; i + 1 < m; i++) {
            e[i][0] = i;
            e[i][1] = i + 1;
        }
        hf_poset *p = tu_poset(m + 1, (const uint32_t(*)[2])e, m - 1);
        size_t s = full_check(p, NULL, 0);
        cr_assert_geq(s, m + 1);
        hf_poset_free(p);
        free(e);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* A deep tree, refusals, sinks and allocation failures                                       */

/* Counts schedules of a big forest or in-forest and checks each is a linear extension, O(n). */
struct big_check {
    const hf_poset *p;
    uint32_t *pos;
    size_t count;
};

/* Plain tests rather than assertions per event: this runs on millions of events. */
static hf_status big_put(void *user, const uint32_t *s, uint32_t n)
{
    struct big_check *c = user;
    cr_assert_eq(n, hf_poset_size(c->p));
    memset(c->pos, 0xff, n * sizeof *c->pos);
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        ok &= s[i] < n && c->pos[s[i]] == UINT32_MAX;
        if (s[i] < n)
            c->pos[s[i]] = i;
    }
    cr_assert(ok, "schedule %zu is no permutation", c->count);
    cr_assert(tu_respects_edges(c->p, c->pos), "schedule %zu is no linear extension", c->count);
    c->count++;
    return HF_OK;
}

struct big_check_stop {
    struct big_check c;
    size_t limit;
};

static hf_status big_put_stop(void *user, const uint32_t *s, uint32_t n)
{
    struct big_check_stop *c = user;
    hf_status st = big_put(&c->c, s, n);
    return st ? st : c->c.count == c->limit ? HF_EABORTED : HF_OK;
}

/* A chain of `chain` events with `sides` side events hanging from chain events of depth >=
 * low, as a forest or an in-forest, ids shuffled. */
static hf_poset *chain_with_sides(uint32_t chain, uint32_t sides, uint32_t low, bool in,
                                  uint64_t *rng)
{
    uint32_t n = chain + sides;
    uint32_t *perm = tu_random_perm(n, rng);
    uint32_t(*e)[2] = malloc(n * sizeof *e);
    for (uint32_t v = 1; v < n; v++) {
        uint32_t par = v < chain ? v - 1 : low + tu_below(rng, chain - low);
        e[v - 1][in] = perm[par];
        e[v - 1][!in] = perm[v];
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, n - 1);
    free(e);
    free(perm);
    return p;
}

static uint64_t predicted(const hf_poset *p)
{
    hf_gen_options opt;
    options(&opt, NULL, 0);
    mpz_t s;
    mpz_init(s);
    cr_assert_eq(DT.predict(p, &opt, s, NULL), HF_OK);
    cr_assert(mpz_fits_ulong_p(s));
    uint64_t v = mpz_get_ui(s);
    mpz_clear(s);
    return v;
}

Test(gen_doubletree, deep_chain_with_side_events_streams)
{
    /* the recursion of U_k is 200,000 levels deep here; nothing may recurse */
    uint32_t chain = 200000, sides = 6, n = chain + sides;
    uint64_t rng = 404;
    for (int in = 0; in < 2; in++) {
        /* side events near the bottom: few distinct rows, the whole family streams */
        hf_poset *p = chain_with_sides(chain, sides, chain - 12, in, &rng);
        hf_gen_options opt;
        options(&opt, NULL, 0);
        cr_assert_eq(DT.check(p, &opt, NULL), HF_OK);
        struct big_check c = {p, malloc(n * sizeof(uint32_t)), 0};
        cr_assert_eq(DT.generate(p, &opt, (hf_sink){big_put, &c}, NULL), HF_OK);
        cr_assert_eq(predicted(p), c.count);
        cr_assert_geq(c.count, 2);
        cr_assert_leq(c.count, 4 * 13);
        free(c.pos);
        hf_poset_free(p);
        /* side events anywhere: a free event beside a chain of m events needs m + 1
         * schedules, so the family has about as many rows as the chain is deep; stream the
         * first few and count the rest */
        p = chain_with_sides(chain, sides, 0, in, &rng);
        struct big_check_stop cs = {{p, malloc(n * sizeof(uint32_t)), 0}, 10};
        cr_assert_eq(DT.generate(p, &opt, (hf_sink){big_put_stop, &cs}, NULL), HF_EABORTED);
        cr_assert_eq(cs.c.count, 10);
        uint64_t m = predicted(p);
        uint32_t top = chain; /* the shallowest chain event with a side event */
        for (uint32_t v = 0; v < n; v++) {
            uint32_t cnt;
            if (in)
                hf_poset_hasse_pred(p, v, &cnt);
            else
                hf_poset_hasse_succ(p, v, &cnt);
            if (cnt == 2 && hf_poset_depth(p, v) < top)
                top = hf_poset_depth(p, v);
        }
        cr_assert_geq(m, chain - top, "%lu schedules, side event at depth %u", m, top);
        cr_assert_leq(m, 4 * (uint64_t)chain);
        free(cs.c.pos);
        hf_poset_free(p);
    }
}

/* The same shape, small enough for the oracle. */
Test(gen_doubletree, short_chains_with_side_events)
{
    uint64_t rng = 405;
    for (int iter = 0; iter < 200; iter++) {
        uint32_t chain = 2 + tu_below(&rng, 60), sides = 1 + tu_below(&rng, 6), n = chain + sides;
        uint32_t *par = malloc(n * sizeof *par);
        par[0] = HF_NO_EVENT;
        for (uint32_t v = 1; v < chain; v++)
            par[v] = v - 1;
        for (uint32_t v = chain; v < n; v++)
            par[v] = tu_below(&rng, v);
        uint32_t *perm = tu_random_perm(n, &rng);
        hf_poset *p = tree_order(n, par, perm, iter % 2 ? AS_INFOREST : AS_TREE);
        full_check(p, NULL, 0);
        hf_poset_free(p);
        free(perm);
        free(par);
    }
}

Test(gen_doubletree, refusals_say_why)
{
    hf_gen_options opt;
    options(&opt, NULL, 0);
    hf_error err;
    hf_poset *tree = tu_complete_binary(2);
    opt.d = 2;
    cr_assert_eq(DT.check(tree, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "3-hitting families only (d=2 asked)"), "%s", err.text);
    cr_assert(strstr(err.text, "use dfs"), "%s", err.text);
    opt.d = 4;
    cr_assert_eq(DT.check(tree, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "d=4"), "%s", err.text);
    opt.d = 3;
    cr_assert_eq(DT.check(tree, &opt, &err), HF_OK);
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_poset *diamond = tu_poset(4, e, 4);
    cr_assert_eq(DT.check(diamond, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "needs a forest or an in-forest"), "%s", err.text);
    /* a double tree is neither, though the construction comes from it */
    hf_poset *d2 = tu_double_tree(2);
    cr_assert_eq(DT.check(d2, &opt, &err), HF_EUNSUPPORTED);
    hf_poset_free(d2);
    hf_poset_free(diamond);
    hf_poset_free(tree);
}

static hf_status stop_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    return ++*(int *)user == 3 ? HF_EABORTED : HF_OK;
}

Test(gen_doubletree, a_sink_can_stop_the_generator)
{
    hf_poset *p = tu_complete_binary(3);
    hf_gen_options opt;
    options(&opt, NULL, 0);
    int calls = 0;
    cr_assert_eq(DT.generate(p, &opt, (hf_sink){stop_put, &calls}, NULL), HF_EABORTED);
    cr_assert_eq(calls, 3);
    hf_poset_free(p);
}

/* The same order, built again with a context. */
static hf_poset *with_ctx(const hf_poset *q, hf_ctx *ctx) { return tu_poset_copy(q, ctx); }

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(size_t *)user;
    return HF_OK;
}

Test(gen_doubletree, out_of_memory_paths)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    uint64_t rng = 406;
    hf_poset *orders[3] = {tu_random_forest(40, 3, &rng), tu_random_inforest(30, 1, &rng),
                           tu_antichain(9)};
    static const uint32_t focus[] = {1, 3, 4, 8};
    for (int k = 0; k < 3; k++) {
        hf_poset *p = with_ctx(orders[k], ctx);
        for (int what = 0; what < 5; what++) { /* 3, 4: a second thread builds the rows */
            hf_gen_options opt;
            bool f = what == 2 || what == 4;
            options(&opt, f ? focus : NULL, f ? 4 : 0);
            opt.threads = what >= 3 ? 2 : 1;
            hf_status st = HF_ENOMEM;
            long fail = 0;
            for (; st == HF_ENOMEM; fail++) {
                cr_assert_lt(fail, 100000);
                c.left = fail;
                hf_error err;
                size_t count = 0;
                mpz_t s;
                mpz_init(s);
                st = what == 1 ? DT.predict(p, &opt, s, &err)
                               : DT.generate(p, &opt, (hf_sink){count_put, &count}, &err);
                mpz_clear(s);
                if (st == HF_ENOMEM)
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
            }
            c.left = -1;
            cr_assert_eq(st, HF_OK);
            cr_assert_gt(fail, 3, "only %ld allocations to fail", fail);
        }
        hf_poset_free(p);
        hf_poset_free(orders[k]);
    }
    hf_ctx_free(ctx);
}

/* ---------------------------------------------------------------------------------------- */
/* Rows built on a second thread (hf_gen_options.threads)                                     */

struct stop_after {
    hf_family *f;
    size_t limit;
};

/* A sink that keeps `limit` schedules, then stops the generator. */
static hf_status stop_after_put(void *user, const uint32_t *s, uint32_t n)
{
    struct stop_after *c = user;
    if (hf_family_size(c->f) == c->limit)
        return HF_EABORTED;
    hf_sink k = hf_family_sink(c->f);
    return k.put(k.user, s, n);
}

static hf_family *run_threads(const hf_poset *p, const hf_gen_options *base, unsigned threads,
                              size_t limit, hf_status *st)
{
    hf_gen_options opt = *base;
    opt.threads = threads;
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    struct stop_after c = {f, limit};
    *st = DT.generate(p, &opt, (hf_sink){stop_after_put, &c}, NULL);
    return f;
}

Test(gen_doubletree, second_thread_gives_the_same_rows)
{
    uint64_t rng = 407;
    for (int iter = 0; iter < 600; iter++) {
        uint32_t n = 1 + tu_below(&rng, iter < 500 ? 60 : 3000);
        int kind = (int)tu_below(&rng, N_KINDS), as = (int)tu_below(&rng, 3);
        if (as == AS_FOREST && n < 2)
            n = 2;
        uint32_t *par = malloc(n * sizeof *par);
        random_shape(kind, n, &rng, par);
        uint32_t *perm = tu_random_perm(n, &rng);
        if (as == AS_FOREST)
            for (uint32_t i = 0, j = 0; i < n; i++)
                if (perm[i] != n - 1)
                    perm[j++] = perm[i];
        hf_poset *p = tree_order(n, par, perm, as);
        uint32_t N = hf_poset_size(p), nf = 0;
        uint32_t *focus = malloc((N + 1) * sizeof *focus);
        if (tu_below(&rng, 3) == 0)
            for (uint32_t v = 0; v < N; v++)
                if (tu_below(&rng, 2))
                    focus[nf++] = v;
        hf_gen_options opt;
        options(&opt, nf ? focus : NULL, nf);
        if (tu_below(&rng, 3) == 0) { /* a slice, maybe reaching beyond the family */
            opt.row_first = 1 + tu_below(&rng, 12);
            opt.row_last = tu_below(&rng, 2) ? 0 : opt.row_first + tu_below(&rng, 12);
        }
        /* the whole stream, and a sink that stops it after a few schedules */
        size_t limit = tu_below(&rng, 2) ? SIZE_MAX : tu_below(&rng, 6);
        hf_status st1, st2;
        hf_family *one = run_threads(p, &opt, 1, limit, &st1);
        hf_family *two = run_threads(p, &opt, 2, limit, &st2);
        cr_assert_eq(st1, st2, "n %u: status %d on one thread, %d on two", N, st1, st2);
        cr_assert(st1 == HF_OK || st1 == HF_EABORTED);
        tu_assert_family_eq(one, two);
        cr_assert(hf_family_size(one) > 0 || opt.row_first > 1 || limit == 0);
        hf_family_free(one);
        hf_family_free(two);
        hf_poset_free(p);
        free(focus);
        free(perm);
        free(par);
    }
}
