/* Tests of hf_verify and hf_verify_count_uncovered against a brute-force oracle written here:
 * closure by Floyd-Warshall, every d-permutation in lexicographic order, hit by scanning. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hitfam/count.h"
#include "hitfam/hitfam.h"
#include "hitfam/stream.h"
#include "oracle.h"
#include "util.h"
#include "verify_ref.h"

TU_SUITE(verify);

/* ------------------------------------------------------------------------------------------ */
/* Oracle                                                                                     */

typedef struct order {
    uint32_t n;
    unsigned char *lt; /* lt[a * n + b]: a < b */
} order;

static order order_of(const hf_poset *p)
{
    /* from the edges the test chose (util.h), not from the library's view of the order */
    order o = {hf_poset_size(p), (unsigned char *)tu_closure(p)};
    return o;
}

typedef struct naive {
    uint64_t uncovered;
    bool found;
    uint32_t first[HF_MAX_D];
} naive;

/* The oracle proper: tuples of candidate events (ids in increasing order, so that tuples of
 * candidate indices come in the lexicographic order of ids), lt over candidate indices. */
typedef struct naive_run {
    uint32_t n;              /* events of a schedule */
    uint32_t k;              /* candidates */
    const uint32_t *cand;    /* k ids, increasing */
    const unsigned char *lt; /* lt[i * k + j]: cand[i] < cand[j] */
    const uint32_t *pos;     /* pos[s * n + id] */
    size_t m;
    unsigned d;
    uint32_t a[HF_MAX_D]; /* candidate indices */
    unsigned char used[256];
    naive *out;
} naive_run;

static void naive_rec(naive_run *r, unsigned t)
{
    if (t == r->d) {
        for (unsigned i = 0; i < r->d; i++)
            for (unsigned j = i + 1; j < r->d; j++)
                if (r->lt[(size_t)r->a[j] * r->k + r->a[i]])
                    return;
        for (size_t s = 0; s < r->m; s++) {
            const uint32_t *ps = r->pos + s * r->n;
            unsigned i = 1;
            while (i < r->d && ps[r->cand[r->a[i - 1]]] < ps[r->cand[r->a[i]]])
                i++;
            if (i == r->d)
                return;
        }
        if (!r->out->found) {
            r->out->found = true;
            for (unsigned i = 0; i < r->d; i++)
                r->out->first[i] = r->cand[r->a[i]];
        }
        r->out->uncovered++;
        return;
    }
    for (uint32_t x = 0; x < r->k; x++) {
        if (r->used[x])
            continue;
        r->used[x] = 1;
        r->a[t] = x;
        naive_rec(r, t + 1);
        r->used[x] = 0;
    }
}

static naive naive_core(uint32_t n, const uint32_t *cand, uint32_t k, const unsigned char *lt,
                        const uint32_t *rows, size_t m, unsigned d)
{
    naive out = {0};
    cr_assert(k <= 256);
    uint32_t *pos = malloc((m * n + 1) * sizeof *pos);
    for (size_t s = 0; s < m; s++)
        for (uint32_t q = 0; q < n; q++)
            pos[s * n + rows[s * n + q]] = q;
    naive_run r = {.n = n, .k = k, .cand = cand, .lt = lt, .pos = pos, .m = m, .d = d, .out = &out};
    if (d <= k)
        naive_rec(&r, 0);
    free(pos);
    return out;
}

/* Every (focus) d-tuple of a small order. focus: NULL or a flag per event. */
static naive naive_check(const order *o, const uint32_t *rows, size_t m, unsigned d,
                         const unsigned char *focus)
{
    uint32_t n = o->n, k = 0;
    cr_assert(n <= 256);
    uint32_t cand[256];
    for (uint32_t x = 0; x < n; x++)
        if (!focus || focus[x])
            cand[k++] = x;
    unsigned char *lt = malloc((size_t)k * k + 1);
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < k; j++)
            lt[(size_t)i * k + j] = o->lt[(size_t)cand[i] * n + cand[j]];
    naive out = naive_core(n, cand, k, lt, rows, m, d);
    free(lt);
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Schedules and families                                                                     */

/* A random topological sort: any available event, uniformly. */
static void random_extension(const hf_poset *p, uint64_t *rng, uint32_t *out)
{
    tu_random_extension(p, rng, out);
}

typedef struct rows {
    uint32_t n;
    size_t m, cap;
    uint32_t *ids;
} rows;

static void rows_add(rows *r, const uint32_t *s)
{
    if (r->m == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->ids = realloc(r->ids, r->cap * (r->n ? r->n : 1) * sizeof *r->ids);
    }
    memcpy(r->ids + r->m * r->n, s, r->n * sizeof *s);
    r->m++;
}

typedef struct ext_run {
    const hf_poset *p;
    const order *o;
    uint32_t *cur;
    unsigned char *placed;
    rows *out;
    size_t cap;
    bool over;
} ext_run;

static void ext_rec(ext_run *e, uint32_t k)
{
    uint32_t n = e->o->n;
    if (e->over)
        return;
    if (k == n) {
        if (e->out->m == e->cap)
            e->over = true;
        else
            rows_add(e->out, e->cur);
        return;
    }
    for (uint32_t v = 0; v < n; v++) {
        if (e->placed[v])
            continue;
        bool ready = true;
        for (uint32_t u = 0; u < n && ready; u++)
            if (e->o->lt[(size_t)u * n + v] && !e->placed[u])
                ready = false;
        if (!ready)
            continue;
        e->placed[v] = 1;
        e->cur[k] = v;
        ext_rec(e, k + 1);
        e->placed[v] = 0;
    }
}

/* All linear extensions in lexicographic order, or false if there are more than cap. */
static bool all_extensions(const hf_poset *p, const order *o, size_t cap, rows *out)
{
    ext_run e = {.p = p, .o = o, .out = out, .cap = cap};
    e.cur = calloc(o->n + 1, sizeof *e.cur);
    e.placed = calloc(o->n + 1, 1);
    out->n = o->n;
    out->m = 0;
    ext_rec(&e, 0);
    free(e.cur);
    free(e.placed);
    return !e.over;
}

static hf_family *family_of(uint32_t n, const uint32_t *ids, size_t m)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
    static const uint32_t dummy[1] = {0};
    for (size_t s = 0; s < m; s++)
        cr_assert_eq(hf_family_append(f, n ? ids + s * n : dummy), HF_OK);
    return f;
}

static uint64_t count_uncovered(const hf_poset *p, const hf_family *f, unsigned d,
                                const uint32_t *focus, size_t fc)
{
    hf_verify_options opt = {.d = d, .focus = focus, .focus_count = fc};
    hf_error err;
    mpz_t c;
    mpz_init(c);
    hf_status st = hf_verify_count_uncovered(p, f, &opt, c, &err);
    cr_assert_eq(st, HF_OK, "count_uncovered: %s", err.text);
    cr_assert(mpz_fits_ulong_p(c));
    uint64_t v = mpz_get_ui(c);
    mpz_clear(c);
    return v;
}

/* hf_verify and hf_verify_count_uncovered against the oracle. `what` names the case. */
static void compare(const hf_poset *p, const order *o, const uint32_t *ids, size_t m,
                    unsigned d_asked, const uint32_t *focus, size_t fc, const char *what)
{
    unsigned d = d_asked;
    uint32_t n = o->n;
    unsigned char fmask[256] = {0};
    if (focus)
        for (size_t i = 0; i < fc; i++)
            fmask[focus[i]] = 1;
    /* fewer (focus) events than d: the check is for the longest tuples there are */
    unsigned k = focus ? 0 : n;
    for (uint32_t x = 0; focus && x < n; x++)
        k += fmask[x];
    if (d > k)
        d = k;
    naive want = {0}; /* d = 0 (no focus event): nothing to hit */
    if (d > 0)
        want = naive_check(o, ids, m, d, focus ? fmask : NULL);
    hf_family *f = family_of(n, ids, m);
    hf_verify_options opt = {.d = d_asked, .focus = focus, .focus_count = fc};
    hf_verify_result res;
    hf_error err;
    hf_status st = hf_verify(p, f, &opt, &res, &err);
    cr_assert_eq(st, HF_OK, "%s: hf_verify failed: %s", what, err.text);
    cr_assert_eq(res.d, d);
    cr_assert_eq(res.hitting, !want.found, "%s (n=%u m=%zu d=%u focus=%zu): hitting %d, oracle %d",
                 what, n, m, d, focus ? fc : (size_t)n, res.hitting, !want.found);
    if (want.found)
        for (unsigned i = 0; i < d; i++)
            cr_assert_eq(res.witness[i], want.first[i],
                         "%s (n=%u m=%zu d=%u): witness entry %u is %u, oracle %u", what, n, m, d,
                         i, res.witness[i], want.first[i]);
    /* three threads: the same answer */
    hf_verify_result res3;
    opt.threads = 3;
    cr_assert_eq(hf_verify(p, f, &opt, &res3, &err), HF_OK);
    cr_assert_eq(res3.hitting, res.hitting, "%s: 3 threads disagree", what);
    cr_assert_eq(memcmp(res3.witness, res.witness, sizeof res.witness), 0,
                 "%s: 3 threads give another witness", what);
    uint64_t got = count_uncovered(p, f, d_asked, focus, fc);
    cr_assert_eq(got, want.uncovered, "%s (n=%u m=%zu d=%u): %llu uncovered, oracle %llu", what, n,
                 m, d, (unsigned long long)got, (unsigned long long)want.uncovered);
    hf_family_free(f);
}

static hf_status verify_ids(const hf_poset *p, uint32_t n, const uint32_t *ids, size_t m,
                            unsigned d, hf_verify_result *res, hf_error *err)
{
    hf_family *f = family_of(n, ids, m);
    hf_verify_options opt = {.d = d};
    hf_status st = hf_verify(p, f, &opt, res, err);
    hf_family_free(f);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Random comparisons                                                                         */

static hf_poset *random_small_order(uint64_t *rng, uint32_t n, const char **kind)
{
    switch (tu_below(rng, 9)) {
    case 0:
        *kind = "sparse dag";
        return tu_random_dag(n, 1, 6, rng);
    case 1:
        *kind = "dag 1/3";
        return tu_random_dag(n, 1, 3, rng);
    case 2:
        *kind = "dense dag";
        return tu_random_dag(n, 2, 3, rng);
    case 3:
        *kind = "forest";
        return tu_random_forest(n, 1 + tu_below(rng, 3), rng);
    case 4:
        *kind = "in-forest";
        return tu_random_inforest(n, 1 + tu_below(rng, 3), rng);
    case 5:
        *kind = "antichain";
        return tu_antichain(n);
    case 6:
        *kind = "chain";
        return tu_chain(n);
    case 7:
        *kind = "tree";
        return tu_random_forest(n, 1, rng);
    default:
        *kind = "dag 1/2";
        return tu_random_dag(n, 1, 2, rng);
    }
}

/* A family for the order: random extensions, all of them, or all but one. */
static void random_family(const hf_poset *p, const order *o, uint64_t *rng, rows *fam,
                          const char **kind)
{
    fam->n = o->n;
    fam->m = 0;
    unsigned mode = tu_below(rng, 4);
    if (mode >= 2) {
        rows all = {.n = o->n};
        if (all_extensions(p, o, 600, &all)) {
            if (mode == 3 && all.m > 0) {
                size_t drop = tu_below(rng, (uint32_t)all.m);
                memmove(all.ids + drop * all.n, all.ids + (drop + 1) * all.n,
                        (all.m - drop - 1) * all.n * sizeof *all.ids);
                all.m--;
                *kind = "all extensions but one";
            } else {
                *kind = "all extensions";
            }
            free(fam->ids);
            *fam = all;
            return;
        }
        free(all.ids);
    }
    *kind = "random extensions";
    uint32_t k = tu_below(rng, 9);
    uint32_t *s = malloc((o->n + 1) * sizeof *s);
    for (uint32_t i = 0; i < k; i++) {
        random_extension(p, rng, s);
        rows_add(fam, s);
    }
    free(s);
}

Test(verify, random_small_orders_match_oracle)
{
    uint64_t rng = 0x5eed0001;
    char what[160];
    for (int iter = 0; iter < 4000; iter++) {
        uint32_t n = tu_below(&rng, 9);
        const char *okind, *fkind;
        hf_poset *p = random_small_order(&rng, n, &okind);
        order o = order_of(p);
        rows fam = {.n = n};
        random_family(p, &o, &rng, &fam, &fkind);
        uint32_t focus[16];
        for (unsigned d = 1; d <= 5; d++) {
            snprintf(what, sizeof what, "iter %d, %s, %s", iter, okind, fkind);
            compare(p, &o, fam.ids, fam.m, d, NULL, 0, what);
            /* a random focus list, with repeats, sometimes empty */
            size_t fc = tu_below(&rng, n + 3);
            for (size_t i = 0; i < fc && n > 0; i++)
                focus[i] = tu_below(&rng, n);
            if (n == 0)
                fc = 0;
            snprintf(what, sizeof what, "iter %d, %s, %s, focus", iter, okind, fkind);
            compare(p, &o, fam.ids, fam.m, d, focus, fc, what);
        }
        free(fam.ids);
        free(o.lt);
        hf_poset_free(p);
    }
}

Test(verify, long_tuples_match_oracle)
{
    /* d = 6..8 on 8 or 9 events: prefixes seven levels deep */
    uint64_t rng = 0x5eed0006;
    for (int iter = 0; iter < 24; iter++) {
        uint32_t n = 8 + (uint32_t)(iter % 2);
        const char *okind, *fkind;
        hf_poset *p = random_small_order(&rng, n, &okind);
        order o = order_of(p);
        rows fam = {.n = n};
        random_family(p, &o, &rng, &fam, &fkind);
        for (unsigned d = 6; d <= HF_MAX_D; d++) {
            compare(p, &o, fam.ids, fam.m, d, NULL, 0, okind);
            uint32_t focus[7];
            for (int i = 0; i < 7; i++)
                focus[i] = tu_below(&rng, n);
            compare(p, &o, fam.ids, fam.m, d, focus, 7, okind);
        }
        free(fam.ids);
        free(o.lt);
        hf_poset_free(p);
    }
}

Test(verify, double_tree_and_binary_tree_families_match_oracle)
{
    uint64_t rng = 0x5eed0002;
    hf_poset *orders[] = {tu_double_tree(2), tu_complete_binary(2), tu_double_tree(1)};
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        hf_poset *p = orders[k];
        order o = order_of(p);
        for (int iter = 0; iter < 40; iter++) {
            rows fam = {.n = o.n};
            const char *fkind;
            random_family(p, &o, &rng, &fam, &fkind);
            for (unsigned d = 1; d <= 4; d++) {
                compare(p, &o, fam.ids, fam.m, d, NULL, 0, fkind);
                uint32_t focus[6];
                for (int i = 0; i < 6; i++)
                    focus[i] = tu_below(&rng, o.n);
                compare(p, &o, fam.ids, fam.m, d, focus, 6, fkind);
            }
            free(fam.ids);
        }
        free(o.lt);
        hf_poset_free(p);
    }
}

Test(verify, larger_orders_match_oracle)
{
    /* n = 60 (one word per event set) and n = 130 (three words: checkpoints every 4 positions,
     * so events between a position and the next boundary are cleared one by one) */
    uint64_t rng = 0x5eed0003;
    uint32_t s[130];
    for (int iter = 0; iter < 12; iter++) {
        uint32_t n = iter < 8 ? 60 : 130;
        hf_poset *p = iter % 4 == 3 ? tu_random_forest(n, 2, &rng)
                                    : tu_random_dag(n, 1 + (uint32_t)iter % 4, 40, &rng);
        order o = order_of(p);
        rows fam = {.n = n};
        for (int i = 0; i < 20; i++) {
            random_extension(p, &rng, s);
            rows_add(&fam, s);
        }
        compare(p, &o, fam.ids, fam.m, 2, NULL, 0, "larger, d=2");
        compare(p, &o, fam.ids, fam.m, 3, NULL, 0, "larger, d=3");
        uint32_t focus[30];
        for (int i = 0; i < 30; i++)
            focus[i] = tu_below(&rng, n);
        compare(p, &o, fam.ids, fam.m, 3, focus, 30, "larger, d=3, focus");
        free(fam.ids);
        free(o.lt);
        hf_poset_free(p);
    }
}

static void dfs_preorder(const hf_poset *p, bool reverse, uint32_t *out);

/* Deep forests (in-forests when dual) with shuffled ids, so that ids follow no walk of the
 * tree: kind 0 a chain, 1 a caterpillar (a spine with one leaf below each spine node), 2 a tree
 * whose nodes hang below one of the three latest, 3 two interleaved chains. */
static hf_poset *deep_order(uint64_t *rng, uint32_t n, unsigned kind, bool dual)
{
    uint32_t *id = malloc((n + 1) * sizeof *id);
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    for (uint32_t i = 0; i < n; i++)
        id[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_below(rng, i), t = id[i - 1];
        id[i - 1] = id[j];
        id[j] = t;
    }
    size_t m = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t up;
        if (kind == 0)
            up = i - 1;
        else if (kind == 1)
            up = i % 2 ? i - 1 : i - 2;
        else if (kind == 2)
            up = i - 1 - tu_below(rng, i < 3 ? i : 3);
        else if (i >= 2)
            up = i - 2;
        else
            continue;
        e[m][0] = id[dual ? i : up];
        e[m][1] = id[dual ? up : i];
        m++;
    }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(id);
    free(e);
    return p;
}

static hf_status rows_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)n;
    rows_add(user, s);
    return HF_OK;
}

Test(verify, deep_forests_and_in_forests_match_oracle)
{
    /* A prefix whose first schedule places it right after its down-set is settled without
     * building the down-set; these orders make that the usual case, next to families where it
     * is not (random extensions, a hitting family less one schedule). */
    uint64_t rng = 0x5eed0009;
    char what[160];
    static const char *kinds[] = {"chain", "caterpillar", "deep tree", "two chains"};
    static const char *fams[] = {"generated d=2", "generated d=3", "generated d=3 less one",
                                 "random extensions", "DFS preorders"};
    for (int iter = 0; iter < 240; iter++) {
        bool big = iter % 8 == 7; /* d = 2 only: three words per set, partial blocks */
        uint32_t n = big ? 100 + tu_below(&rng, 100) : 1 + tu_below(&rng, 36);
        unsigned kind = (unsigned)iter % 4, fam_kind = tu_below(&rng, 5);
        bool dual = (iter / 4) % 2;
        hf_poset *p = deep_order(&rng, n, kind, dual);
        if (fam_kind == 4 && dual)
            fam_kind = 3;
        order o = order_of(p);
        rows fam = {.n = n};
        uint32_t *s = malloc((n + 1) * sizeof *s);
        if (fam_kind <= 2) {
            hf_gen_options g;
            hf_gen_options_init(&g);
            g.d = fam_kind == 0 ? 2 : 3;
            hf_error err;
            hf_sink sink = {.put = rows_put, .user = &fam};
            cr_assert_eq(hf_generate(p, &g, sink, NULL, &err), HF_OK, "%s", err.text);
            if (fam_kind == 2 && fam.m > 0) {
                size_t drop = tu_below(&rng, (uint32_t)fam.m);
                memmove(fam.ids + drop * n, fam.ids + (drop + 1) * n,
                        (fam.m - drop - 1) * n * sizeof *fam.ids);
                fam.m--;
            }
        } else if (fam_kind == 3) {
            for (uint32_t i = 1 + tu_below(&rng, 6); i > 0; i--) {
                random_extension(p, &rng, s);
                rows_add(&fam, s);
            }
        } else {
            dfs_preorder(p, false, s);
            rows_add(&fam, s);
            dfs_preorder(p, true, s);
            rows_add(&fam, s);
        }
        uint32_t focus[200];
        size_t fc = n / 2;
        for (size_t i = 0; i < fc; i++)
            focus[i] = tu_below(&rng, n);
        for (unsigned d = 2; d <= (big ? 2u : n <= 14 ? 4u : 3u); d++) {
            snprintf(what, sizeof what, "iter %d, %s%s, %s", iter, dual ? "in-forest " : "",
                     kinds[kind], fams[fam_kind]);
            compare(p, &o, fam.ids, fam.m, d, NULL, 0, what);
            compare(p, &o, fam.ids, fam.m, d, focus, fc, what);
        }
        free(s);
        free(fam.ids);
        free(o.lt);
        hf_poset_free(p);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Facts of docs/math.md, section 8                                                           */

static uint64_t admissible_count(const hf_poset *p, unsigned d)
{
    hf_family *f = family_of(hf_poset_size(p), NULL, 0);
    uint64_t c = count_uncovered(p, f, d, NULL, 0);
    hf_family_free(f);
    return c;
}

Test(verify, empty_family_leaves_the_published_admissible_counts_uncovered)
{
    hf_poset *t2 = tu_complete_binary(2), *t3 = tu_complete_binary(3), *d2 = tu_double_tree(2);
    cr_assert_eq(admissible_count(t2, 3), 102);
    cr_assert_eq(admissible_count(t2, 4), 220);
    cr_assert_eq(admissible_count(t3, 3), 1710);
    cr_assert_eq(admissible_count(t3, 4), 13844);
    cr_assert_eq(admissible_count(d2, 3), 280);
    hf_poset_free(t2);
    hf_poset_free(t3);
    hf_poset_free(d2);
}

Test(verify, all_linear_extensions_are_hitting)
{
    /* T_2: all its linear extensions form a 4-hitting family; D_2 has 280 and they are
     * 3-hitting. */
    hf_poset *t2 = tu_complete_binary(2), *d2 = tu_double_tree(2);
    order ot = order_of(t2), od = order_of(d2);
    rows et = {0}, ed = {0};
    cr_assert(all_extensions(t2, &ot, 100000, &et));
    cr_assert(all_extensions(d2, &od, 100000, &ed));
    cr_assert_eq(ed.m, 280);
    hf_verify_result res;
    hf_error err;
    cr_assert_eq(verify_ids(t2, 7, et.ids, et.m, 4, &res, &err), HF_OK, "%s", err.text);
    cr_assert(res.hitting);
    cr_assert_eq(verify_ids(d2, 10, ed.ids, ed.m, 3, &res, &err), HF_OK, "%s", err.text);
    cr_assert(res.hitting);
    /* the oracle agrees on d = 4 for D_2 with all extensions, and on T_2 without one */
    compare(d2, &od, ed.ids, ed.m, 4, NULL, 0, "D_2 all extensions");
    compare(t2, &ot, et.ids + 7, et.m - 1, 4, NULL, 0, "T_2 all but the first");
    free(et.ids);
    free(ed.ids);
    free(ot.lt);
    free(od.lt);
    hf_poset_free(t2);
    hf_poset_free(d2);
}

Test(verify, chain_plus_free_event_needs_every_position)
{
    /* a chain of c events and one free event: its c + 1 linear extensions are 3-hitting and
     * each one is needed */
    for (uint32_t c = 1; c <= 6; c++) {
        uint32_t(*e)[2] = malloc(c * sizeof *e);
        for (uint32_t i = 0; i + 1 < c; i++) {
            e[i][0] = i;
            e[i][1] = i + 1;
        }
        hf_poset *p = tu_poset(c + 1, (const uint32_t(*)[2])e, c - 1);
        order o = order_of(p);
        rows all = {0};
        cr_assert(all_extensions(p, &o, 1000, &all));
        cr_assert_eq(all.m, c + 1);
        hf_verify_result res;
        hf_error err;
        cr_assert_eq(verify_ids(p, c + 1, all.ids, all.m, 3, &res, &err), HF_OK);
        cr_assert(res.hitting);
        for (size_t drop = 0; drop < all.m; drop++) {
            rows less = {.n = c + 1};
            for (size_t s = 0; s < all.m; s++)
                if (s != drop)
                    rows_add(&less, all.ids + s * (c + 1));
            cr_assert_eq(verify_ids(p, c + 1, less.ids, less.m, 3, &res, &err), HF_OK);
            if (c >= 2)
                cr_assert(!res.hitting, "c=%u: dropping schedule %zu kept the family hitting", c,
                          drop);
            compare(p, &o, less.ids, less.m, 3, NULL, 0, "chain plus free event");
            free(less.ids);
        }
        free(all.ids);
        free(o.lt);
        free(e);
        hf_poset_free(p);
    }
}

/* Next k-subset of 0..total-1 in lexicographic order; false after the last. */
static bool next_subset(uint32_t *c, uint32_t k, uint32_t total)
{
    uint32_t i = k;
    while (i > 0 && c[i - 1] == total - k + i - 1)
        i--;
    if (i == 0)
        return false;
    c[i - 1]++;
    for (uint32_t j = i; j < k; j++)
        c[j] = c[j - 1] + 1;
    return true;
}

/* Whether some family of k permutations of an antichain of 3 or 4 events, containing the
 * identity (relabelling makes that no loss), is 3-hitting. */
static bool antichain_has_hitting_family(hf_poset *p, const rows *perms, uint32_t k)
{
    uint32_t n = perms->n, c[8];
    rows fam = {.n = n};
    for (uint32_t i = 0; i + 1 < k; i++)
        c[i] = i;
    bool found = false;
    do {
        fam.m = 0;
        rows_add(&fam, perms->ids);
        for (uint32_t i = 0; i + 1 < k; i++)
            rows_add(&fam, perms->ids + (size_t)(c[i] + 1) * n);
        hf_verify_result res;
        hf_error err;
        cr_assert_eq(verify_ids(p, n, fam.ids, fam.m, 3, &res, &err), HF_OK);
        found = res.hitting;
    } while (!found && next_subset(c, k - 1, (uint32_t)perms->m - 1));
    free(fam.ids);
    return found;
}

Test(verify, antichain_optimal_three_hitting_sizes)
{
    /* docs/math.md, section 8: the optimal 3-hitting families of A3 and A4 have 6 schedules. */
    for (uint32_t n = 3; n <= 4; n++) {
        hf_poset *p = tu_antichain(n);
        order o = order_of(p);
        rows perms = {0};
        cr_assert(all_extensions(p, &o, 100, &perms));
        cr_assert(!antichain_has_hitting_family(p, &perms, 5), "A%u: 5 schedules hit", n);
        cr_assert(antichain_has_hitting_family(p, &perms, 6), "A%u: no 6 schedules hit", n);
        free(perms.ids);
        free(o.lt);
        hf_poset_free(p);
    }
}

Test(verify, t1_and_d1_need_two_schedules)
{
    hf_poset *orders[] = {tu_complete_binary(1), tu_double_tree(1)};
    for (int k = 0; k < 2; k++) {
        hf_poset *p = orders[k];
        order o = order_of(p);
        rows all = {0};
        cr_assert(all_extensions(p, &o, 100, &all));
        cr_assert_eq(all.m, 2);
        hf_verify_result res;
        hf_error err;
        cr_assert_eq(verify_ids(p, o.n, all.ids, 2, 3, &res, &err), HF_OK);
        cr_assert(res.hitting);
        for (size_t s = 0; s < 2; s++) {
            cr_assert_eq(verify_ids(p, o.n, all.ids + s * o.n, 1, 3, &res, &err), HF_OK);
            cr_assert(!res.hitting);
        }
        free(all.ids);
        free(o.lt);
        hf_poset_free(p);
    }
}

/* Left-to-right (or right-to-left) DFS preorder of a forest: roots and children by id, from
 * the parent edges the test chose. */
static void dfs_preorder(const hf_poset *p, bool reverse, uint32_t *out)
{
    uint32_t n = hf_poset_size(p), k = 0, sp = 0;
    uint32_t *parent = tu_edge_parents(p, false);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = reverse ? i : n - 1 - i; /* pushed so that the first root pops first */
        if (parent[r] == HF_NO_EVENT)
            stack[sp++] = r;
    }
    /* children by id in compressed rows */
    uint32_t *off = calloc(n + 2, sizeof *off), *child = malloc((n + 1) * sizeof *child);
    for (uint32_t v = 0; v < n; v++)
        if (parent[v] != HF_NO_EVENT)
            off[parent[v] + 2]++;
    for (uint32_t v = 0; v < n; v++)
        off[v + 2] += off[v + 1];
    for (uint32_t v = 0; v < n; v++)
        if (parent[v] != HF_NO_EVENT)
            child[off[parent[v] + 1]++] = v;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        out[k++] = v;
        uint32_t c = off[v + 1] - off[v]; /* pushed so that the first child pops first */
        for (uint32_t i = 0; i < c; i++)
            stack[sp++] = child[off[v] + (reverse ? i : c - 1 - i)];
    }
    cr_assert_eq(k, n);
    free(stack);
    free(parent);
    free(off);
    free(child);
}

Test(verify, dfs_preorders_of_a_forest_are_two_hitting)
{
    /* Claim 3.1: lambda and rho hit every admissible pair; one alone only for a chain. */
    uint64_t rng = 0x5eed0004;
    for (int iter = 0; iter < 60; iter++) {
        uint32_t n = 1 + tu_below(&rng, iter < 30 ? 12 : 300);
        hf_poset *p =
            iter % 7 == 0 ? tu_chain(n) : tu_random_forest(n, 1 + tu_below(&rng, 3), &rng);
        uint32_t *ids = malloc(2 * n * sizeof *ids);
        dfs_preorder(p, false, ids);
        dfs_preorder(p, true, ids + n);
        hf_verify_result res;
        hf_error err;
        cr_assert_eq(verify_ids(p, n, ids, 2, 2, &res, &err), HF_OK, "%s", err.text);
        cr_assert(res.hitting);
        cr_assert_eq(verify_ids(p, n, ids, 1, 2, &res, &err), HF_OK, "%s", err.text);
        bool chain = hf_poset_shape(p) & HF_SHAPE_CHAIN;
        cr_assert_eq(res.hitting, chain);
        if (n <= 12) {
            order o = order_of(p);
            compare(p, &o, ids, 1, 2, NULL, 0, "lambda alone");
            compare(p, &o, ids + n, 1, 3, NULL, 0, "rho alone, d=3");
            compare(p, &o, ids, 2, 3, NULL, 0, "lambda and rho, d=3");
            free(o.lt);
        }
        free(ids);
        hf_poset_free(p);
    }
}

Test(verify, copies_of_schedules_change_nothing)
{
    /* A large tree. lambda and rho, repeated, stay 2-hitting; lambda alone (repeated or not)
     * leaves exactly the incomparable pairs uncovered, C(n,2) - sum of depths for a tree, and
     * the first uncovered pair is found by a scan. */
    uint64_t rng = 0x5eed0005;
    const uint32_t n = 20000;
    const size_t m = 30;
    hf_poset *p = tu_random_forest(n, 1, &rng);
    uint32_t *ids = malloc(m * n * sizeof *ids);
    dfs_preorder(p, false, ids);
    dfs_preorder(p, true, ids + n);
    for (size_t s = 2; s < m; s++)
        memcpy(ids + s * n, ids + (s % 2) * n, n * sizeof *ids);
    hf_verify_result res;
    hf_error err;
    cr_assert_eq(verify_ids(p, n, ids, m, 2, &res, &err), HF_OK, "%s", err.text);
    cr_assert(res.hitting);

    hf_family *f = family_of(n, ids, m);
    hf_verify_options opt = {.d = 2};
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_OK, "%s", err.text);
    cr_assert_eq(mpz_cmp_ui(c, 0), 0);
    hf_family_free(f);

    for (size_t s = 1; s < m; s++)
        memcpy(ids + s * n, ids, n * sizeof *ids);
    uint64_t depth_sum = 0;
    for (uint32_t v = 0; v < n; v++)
        depth_sum += hf_poset_depth(p, v);
    uint64_t want = (uint64_t)n * (n - 1) / 2 - depth_sum;
    hf_verify_result once;
    cr_assert_eq(verify_ids(p, n, ids, 1, 2, &once, &err), HF_OK, "%s", err.text);
    f = family_of(n, ids, m);
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_OK, "%s", err.text);
    cr_assert(!res.hitting);
    cr_assert(!once.hitting);
    cr_assert_eq(once.witness[0], res.witness[0]);
    cr_assert_eq(once.witness[1], res.witness[1]);
    cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_OK, "%s", err.text);
    cr_assert_eq(mpz_get_ui(c), want);
    mpz_clear(c);
    /* first uncovered pair (a, b): the smallest a preceded in lambda by a non-ancestor, then the
     * smallest such b */
    uint32_t *pos = malloc(n * sizeof *pos);
    for (uint32_t q = 0; q < n; q++)
        pos[ids[q]] = q;
    uint32_t a = 0;
    while (pos[a] == hf_poset_depth(p, a))
        a++;
    uint32_t b = UINT32_MAX;
    for (uint32_t q = 0; q < pos[a]; q++)
        if (!hf_poset_less(p, ids[q], a) && ids[q] < b)
            b = ids[q];
    cr_assert_eq(res.witness[0], a);
    cr_assert_eq(res.witness[1], b);
    free(pos);
    hf_family_free(f);
    free(ids);
    hf_poset_free(p);
}

/* a < b in a forest (walk b's parents) or an in-forest (walk a's successors), by the parents
 * of the test's own edges (parent[] from tu_edge_parents) */
static bool forest_less(const uint32_t *parent, bool in_forest, uint32_t a, uint32_t b)
{
    for (uint32_t v = parent[in_forest ? a : b]; v != HF_NO_EVENT; v = parent[v])
        if (v == (in_forest ? b : a))
            return true;
    return false;
}

Test(verify, wide_family_with_focus_matches_oracle)
{
    /* 40,000 events and 100 distinct schedules: checkpoints every 64 positions would pass their
     * memory budget, so the blocks are longer. The focus set keeps the prefixes few and lets
     * the oracle run on 60 events. */
    uint64_t rng = 0x5eed0007;
    const uint32_t n = 40000, k = 60;
    const size_t m = 100;
    for (int shape = 0; shape < 2; shape++) {
        hf_poset *p = shape == 0 ? tu_random_forest(n, 3, &rng) : tu_random_inforest(n, 3, &rng);
        uint32_t *ids = malloc(m * n * sizeof *ids);
        for (size_t s = 0; s < m; s++)
            random_extension(p, &rng, ids + s * n);
        unsigned char *chosen = calloc(n, 1);
        uint32_t cand[60], focus[60];
        for (uint32_t i = 0; i < k;) {
            uint32_t x = tu_below(&rng, n);
            if (!chosen[x]) {
                chosen[x] = 1;
                focus[i++] = x;
            }
        }
        for (uint32_t x = 0, i = 0; x < n; x++)
            if (chosen[x])
                cand[i++] = x;
        unsigned char lt[60 * 60];
        uint32_t *parent = tu_edge_parents(p, shape == 1);
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t j = 0; j < k; j++)
                lt[i * k + j] = i != j && forest_less(parent, shape == 1, cand[i], cand[j]);
        free(parent);
        hf_family *f = family_of(n, ids, m);
        for (unsigned d = 2; d <= 3; d++) {
            naive want = naive_core(n, cand, k, lt, ids, m, d);
            hf_verify_options opt = {.d = d, .focus = focus, .focus_count = k};
            hf_verify_result res;
            hf_error err;
            cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_OK, "%s", err.text);
            cr_assert_eq(res.hitting, !want.found, "d=%u", d);
            for (unsigned i = 0; i < d && want.found; i++)
                cr_assert_eq(res.witness[i], want.first[i], "d=%u entry %u", d, i);
            cr_assert_eq(count_uncovered(p, f, d, focus, k), want.uncovered, "d=%u", d);
        }
        hf_family_free(f);
        free(chosen);
        free(ids);
        hf_poset_free(p);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Errors and edge cases                                                                      */

static hf_poset *small_order(void)
{
    static const uint32_t e[][2] = {{0, 1}, {1, 2}};
    return tu_poset(4, e, 2); /* e0 < e1 < e2, e3 free */
}

Test(verify, schedule_errors_name_the_schedule_and_events)
{
    hf_poset *p = small_order();
    hf_verify_result res;
    hf_error err;
    const uint32_t repeat[] = {0, 1, 2, 3, 0, 0, 2, 3};
    cr_assert_eq(verify_ids(p, 4, repeat, 2, 2, &res, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 2") && strstr(err.text, "e0"), "%s", err.text);
    cr_assert(strstr(err.text, "twice"), "%s", err.text);

    const uint32_t range[] = {0, 1, 7, 3};
    cr_assert_eq(verify_ids(p, 4, range, 1, 2, &res, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 1") && strstr(err.text, "7"), "%s", err.text);
    cr_assert(strstr(err.text, "range"), "%s", err.text);

    const uint32_t order_bad[] = {0, 1, 2, 3, 3, 0, 1, 2, 0, 2, 1, 3, 1, 0, 2, 3};
    cr_assert_eq(verify_ids(p, 4, order_bad, 4, 3, &res, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 3") && strstr(err.text, "e1") && strstr(err.text, "e2"),
              "%s", err.text);

    /* d > n and d = 1 still check the schedules */
    cr_assert_eq(verify_ids(p, 4, order_bad + 8, 1, 6, &res, &err), HF_ESCHEDULE);
    cr_assert_eq(verify_ids(p, 4, order_bad + 8, 1, 1, &res, &err), HF_ESCHEDULE);
    hf_family *f = family_of(4, range, 1);
    hf_verify_options opt = {.d = 2};
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 1"), "%s", err.text);
    mpz_clear(c);
    hf_family_free(f);
    hf_poset_free(p);
}

/* A family read from text: the refused schedule's line goes to err.line, the message stays the
 * one of a family built in memory (which has no lines: err.line 0). Through the store too. */
Test(verify, refused_schedule_of_a_text_family_gives_its_line)
{
    hf_poset *p = small_order();
    static const char text[] = "# hitfam 0 d=2\n\ne0 e1 e2 e3\n# a comment\n\ne0 e2 e1 e3\n";
    hf_family *f;
    hf_error err;
    cr_assert_eq(tu_read_len(p, text, strlen(text), &f, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_schedule_line(f, 1), 6);
    hf_verify_options opt;
    hf_verify_options_init(&opt);
    hf_verify_result res;
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 6);
    char text_msg[sizeof err.text];
    memcpy(text_msg, err.text, sizeof text_msg);
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 6);
    /* the same schedules in memory: the same message, no line */
    hf_family *g = family_of(4, hf_family_schedule(f, 0), 2);
    cr_assert_eq(hf_verify(p, g, &opt, &res, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 0);
    cr_assert_str_eq(err.text, text_msg);
    cr_assert(strstr(err.text, "schedule 2") && !strstr(err.text, "line"), "%s", err.text);
    /* the store read from the same text */
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    cr_assert(in);
    hf_family_store *st;
    hf_family_header h;
    cr_assert_eq(hf_family_store_read(p, in, 0, &st, &h, &err), HF_OK, "%s", err.text);
    fclose(in);
    cr_assert_eq(hf_verify_store(p, st, &opt, &res, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 6);
    cr_assert_str_eq(err.text, text_msg);
    cr_assert_eq(hf_verify_store_count_uncovered(p, st, &opt, c, &err), HF_ESCHEDULE);
    cr_assert_eq(err.line, 6);
    mpz_clear(c);
    hf_family_store_free(st);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(verify, family_of_another_size_is_a_mismatch)
{
    hf_poset *p = small_order();
    hf_family *f = family_of(5, NULL, 0);
    hf_verify_options opt = {.d = 2};
    hf_verify_result res;
    hf_error err;
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_EMISMATCH);
    cr_assert_str_eq(err.text, "family has 5 events, order has 4");
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_EMISMATCH);
    mpz_clear(c);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(verify, bad_arguments_are_rejected)
{
    hf_poset *p = small_order();
    hf_family *f = family_of(4, NULL, 0);
    hf_verify_result res;
    hf_error err;
    mpz_t c;
    mpz_init(c);
    unsigned bad[] = {0, HF_MAX_D + 1, 100};
    for (int i = 0; i < 3; i++) {
        hf_verify_options opt = {.d = bad[i]};
        err.text[0] = '\0';
        cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_EINVAL);
        cr_assert(strstr(err.text, "d must be"), "%s", err.text);
        cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_EINVAL);
    }
    hf_verify_options opt = {.d = 2};
    cr_assert_eq(hf_verify(NULL, f, &opt, &res, &err), HF_EINVAL);
    cr_assert_eq(hf_verify(p, NULL, &opt, &res, &err), HF_EINVAL);
    cr_assert_eq(hf_verify(p, f, NULL, &res, &err), HF_EINVAL);
    cr_assert_eq(hf_verify(p, f, &opt, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_verify(p, f, &opt, NULL, NULL), HF_EINVAL);
    const uint32_t focus[] = {1, 4};
    hf_verify_options fo = {.d = 2, .focus = focus, .focus_count = 2};
    cr_assert_eq(hf_verify(p, f, &fo, &res, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "focus") && strstr(err.text, "4"), "%s", err.text);
    cr_assert_eq(hf_verify_count_uncovered(p, f, &fo, c, &err), HF_EINVAL);
    mpz_clear(c);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(verify, d_larger_than_n_checks_the_longest_tuples)
{
    /* no 5-tuple of 4 events exists; a "5-hitting" family must still hit every admissible
     * 4-tuple (every linear extension), as d-hitting implies d'-hitting for d' <= d */
    hf_poset *p = small_order();
    hf_verify_result res;
    hf_error err;
    order o = order_of(p);
    rows all = {0};
    cr_assert(all_extensions(p, &o, 1000, &all));
    for (unsigned d = 5; d <= HF_MAX_D; d++) {
        cr_assert_eq(verify_ids(p, 4, NULL, 0, d, &res, &err), HF_OK);
        cr_assert_not(res.hitting);
        cr_assert_eq(res.d, 4);
        cr_assert_eq(verify_ids(p, 4, all.ids, all.m, d, &res, &err), HF_OK);
        cr_assert(res.hitting);
        hf_family *f = family_of(4, NULL, 0);
        cr_assert_eq(count_uncovered(p, f, d, NULL, 0), admissible_count(p, 4));
        hf_family_free(f);
    }
    /* d = n = 4: the admissible 4-tuples are the linear extensions */
    cr_assert_eq(verify_ids(p, 4, NULL, 0, 4, &res, &err), HF_OK);
    cr_assert(!res.hitting);
    cr_assert_eq(admissible_count(p, 4), 4);
    free(all.ids);
    free(o.lt);
    hf_poset_free(p);
}

Test(verify, empty_order)
{
    hf_poset *p = tu_poset(0, NULL, 0);
    hf_verify_result res;
    hf_error err;
    for (unsigned d = 1; d <= HF_MAX_D; d++) {
        cr_assert_eq(verify_ids(p, 0, NULL, 0, d, &res, &err), HF_OK, "%s", err.text);
        cr_assert(res.hitting);
        cr_assert_eq(verify_ids(p, 0, NULL, 3, d, &res, &err), HF_OK, "%s", err.text);
        cr_assert(res.hitting);
        cr_assert_eq(admissible_count(p, d), 0);
    }
    hf_poset_free(p);
}

Test(verify, d_one_needs_one_schedule)
{
    hf_poset *p = small_order();
    hf_verify_result res;
    hf_error err;
    cr_assert_eq(verify_ids(p, 4, NULL, 0, 1, &res, &err), HF_OK);
    cr_assert(!res.hitting);
    cr_assert_eq(res.witness[0], 0);
    cr_assert_eq(admissible_count(p, 1), 4);
    const uint32_t s[] = {3, 0, 1, 2};
    cr_assert_eq(verify_ids(p, 4, s, 1, 1, &res, &err), HF_OK);
    cr_assert(res.hitting);

    hf_family *f = family_of(4, NULL, 0);
    const uint32_t focus[] = {3, 2, 3};
    hf_verify_options opt = {.d = 1, .focus = focus, .focus_count = 3};
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_OK);
    cr_assert(!res.hitting);
    cr_assert_eq(res.witness[0], 2);
    cr_assert_eq(count_uncovered(p, f, 1, focus, 3), 2);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(verify, empty_focus_list_needs_nothing)
{
    hf_poset *p = small_order();
    hf_family *f = family_of(4, NULL, 0);
    const uint32_t focus[1] = {0};
    for (unsigned d = 1; d <= 4; d++) {
        hf_verify_options opt = {.d = d, .focus = focus, .focus_count = 0};
        hf_verify_result res;
        hf_error err;
        cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_OK);
        cr_assert(res.hitting);
        cr_assert_eq(count_uncovered(p, f, d, focus, 0), 0);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

Test(verify, witness_is_the_first_uncovered_tuple)
{
    /* antichain {0,1,2}, schedules 012 and 210: the uncovered 3-tuples are the other four
     * permutations, the first being (0,2,1) */
    hf_poset *p = tu_antichain(3);
    const uint32_t s[] = {0, 1, 2, 2, 1, 0};
    hf_verify_result res;
    hf_error err;
    cr_assert_eq(verify_ids(p, 3, s, 2, 3, &res, &err), HF_OK);
    cr_assert(!res.hitting);
    cr_assert_eq(res.witness[0], 0);
    cr_assert_eq(res.witness[1], 2);
    cr_assert_eq(res.witness[2], 1);
    for (unsigned i = 3; i < HF_MAX_D; i++)
        cr_assert_eq(res.witness[i], HF_NO_EVENT);
    hf_family *f = family_of(3, s, 2);
    cr_assert_eq(count_uncovered(p, f, 3, NULL, 0), 4);
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Threads and shards                                                                         */

typedef struct outcome {
    hf_verify_result res;
    uint64_t uncovered;
} outcome;

static outcome run(const hf_poset *p, const hf_family *f, unsigned d, const uint32_t *focus,
                   size_t fc, unsigned threads, uint32_t shard, uint32_t shards, bool reference)
{
    hf_verify_options opt;
    hf_verify_options_init(&opt);
    opt.d = d;
    opt.focus = focus;
    opt.focus_count = fc;
    opt.threads = threads;
    opt.shard_index = shard;
    opt.shard_count = shards;
    outcome o;
    hf_error err;
    hf_status st = hf_i_verify_reference(p, f, &opt, reference, &o.res, &err);
    cr_assert_eq(st, HF_OK, "hf_verify: %s", err.text);
    mpz_t c;
    mpz_init(c);
    st = hf_verify_count_uncovered(p, f, &opt, c, &err);
    cr_assert_eq(st, HF_OK, "count: %s", err.text);
    cr_assert(mpz_fits_ulong_p(c));
    o.uncovered = mpz_get_ui(c);
    mpz_clear(c);
    return o;
}

/* Lexicographic order of two witnesses of d entries. */
static int witness_cmp(const uint32_t *a, const uint32_t *b, unsigned d)
{
    for (unsigned i = 0; i < d; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The whole check by the reference order on one thread; the greedy order on 1..4 threads gives
 * the same; k shards (on 2 threads) combine to it: hitting iff all are, the counts add up, the
 * least shard witness is the whole witness, and each shard's witness starts with one of its
 * events. */
static void check_threads_and_shards(const hf_poset *p, const hf_family *f, unsigned d,
                                     const uint32_t *focus, size_t fc, const char *what)
{
    outcome whole = run(p, f, d, focus, fc, 1, 0, 1, true);
    for (unsigned t = 1; t <= 4; t++) {
        outcome o = run(p, f, d, focus, fc, t, 0, 1, false);
        cr_assert_eq(o.res.hitting, whole.res.hitting, "%s d=%u threads=%u: hitting", what, d, t);
        cr_assert_eq(o.res.d, whole.res.d);
        cr_assert_eq(memcmp(o.res.witness, whole.res.witness, sizeof o.res.witness), 0,
                     "%s d=%u threads=%u: witness", what, d, t);
        cr_assert_eq(o.uncovered, whole.uncovered, "%s d=%u threads=%u: %llu uncovered, not %llu",
                     what, d, t, (unsigned long long)o.uncovered,
                     (unsigned long long)whole.uncovered);
    }
    /* rank of each (focus) event among the (focus) events */
    uint32_t n = hf_poset_size(p);
    uint32_t *rank = malloc((n + 1) * sizeof *rank);
    unsigned char *in = calloc(n + 1, 1);
    for (uint32_t x = 0; x < n; x++)
        in[x] = !focus;
    for (size_t i = 0; focus && i < fc; i++)
        in[focus[i]] = 1;
    for (uint32_t x = 0, r = 0; x < n; x++)
        rank[x] = in[x] ? r++ : UINT32_MAX;
    for (uint32_t k = 2; k <= 5; k++) {
        bool hitting = true;
        uint64_t sum = 0;
        uint32_t least[HF_MAX_D];
        bool any = false;
        for (uint32_t i = 0; i < k; i++) {
            outcome o = run(p, f, d, focus, fc, 2, i, k, false);
            cr_assert_eq(o.res.d, whole.res.d);
            hitting &= o.res.hitting;
            sum += o.uncovered;
            if (!o.res.hitting) {
                cr_assert_eq(rank[o.res.witness[0]] % k, i, "%s d=%u: shard %u/%u's witness", what,
                             d, i, k);
                if (!any || witness_cmp(o.res.witness, least, o.res.d) < 0)
                    memcpy(least, o.res.witness, sizeof least);
                any = true;
            } else if (o.res.d > 0) {
                cr_assert_eq(o.res.witness[0], HF_NO_EVENT);
            }
        }
        cr_assert_eq(hitting, whole.res.hitting, "%s d=%u k=%u: shards' hitting", what, d, k);
        cr_assert_eq(sum, whole.uncovered, "%s d=%u k=%u: shards count %llu, whole %llu", what, d,
                     k, (unsigned long long)sum, (unsigned long long)whole.uncovered);
        if (any)
            cr_assert_eq(witness_cmp(least, whole.res.witness, whole.res.d), 0,
                         "%s d=%u k=%u: least shard witness", what, d, k);
    }
    free(rank);
    free(in);
}

Test(verify, threads_and_shards_give_the_one_thread_answer)
{
    uint64_t rng = 0x5eed0016;
    char what[160];
    for (int iter = 0; iter < 150; iter++) {
        uint32_t n = tu_below(&rng, iter < 100 ? 14 : 70);
        const char *okind;
        hf_poset *p = random_small_order(&rng, n, &okind);
        hf_family *f = family_of(n, NULL, 0);
        uint32_t s[80];
        uint32_t m = tu_below(&rng, 14);
        for (uint32_t i = 0; i < m; i++) {
            random_extension(p, &rng, s);
            cr_assert_eq(hf_family_append(f, s), HF_OK);
        }
        uint32_t focus[40];
        size_t fc = n ? tu_below(&rng, 30) : 0;
        for (size_t i = 0; i < fc; i++)
            focus[i] = tu_below(&rng, n);
        for (unsigned d = 1; d <= (n <= 30 ? 4u : 3u); d++) {
            snprintf(what, sizeof what, "iter %d, %s, n=%u, m=%u", iter, okind, n, m);
            check_threads_and_shards(p, f, d, NULL, 0, what);
            if (iter % 3 == 0) {
                snprintf(what, sizeof what, "iter %d, %s, n=%u, m=%u, focus", iter, okind, n, m);
                check_threads_and_shards(p, f, d, focus, fc, what);
            }
        }
        hf_family_free(f);
        hf_poset_free(p);
    }
}

Test(verify, threads_and_shards_on_generated_tree_families)
{
    /* 3-hitting families of trees and in-trees (the greedy order's main case), whole and with
     * schedules left out */
    uint64_t rng = 0x5eed0017;
    for (int iter = 0; iter < 8; iter++) {
        uint32_t n = 40 + tu_below(&rng, 120);
        hf_poset *p = iter % 2 ? tu_random_inforest(n, 1, &rng) : tu_random_forest(n, 1, &rng);
        hf_family *f = family_of(n, NULL, 0);
        hf_gen_options g;
        hf_gen_options_init(&g);
        g.d = 3;
        hf_error err;
        cr_assert_eq(hf_generate(p, &g, hf_family_sink(f), NULL, &err), HF_OK, "%s", err.text);
        size_t m = hf_family_size(f);
        char what[96];
        snprintf(what, sizeof what, "tree %d (n=%u, %zu schedules)", iter, n, m);
        check_threads_and_shards(p, f, 3, NULL, 0, what);
        /* without its last schedules */
        hf_family *g2 = family_of(n, NULL, 0);
        for (size_t i = 0; i + 1 + (size_t)iter % 3 < m; i++)
            cr_assert_eq(hf_family_append(g2, hf_family_schedule(f, i)), HF_OK);
        snprintf(what, sizeof what, "tree %d (n=%u) cut", iter, n);
        check_threads_and_shards(p, g2, 3, NULL, 0, what);
        hf_family_free(g2);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* A forest of n events for the pair matrices of d = 3 (lib/verify_forest.c), ids shuffled: 0 a
 * random recursive forest of 1 to 3 roots, 1 a deep one (each node below one of the three
 * latest), 2 a bushy one (below one of the first three), 3 a star, 4 an antichain (many minimal
 * continuations: A's rows give up). */
static hf_poset *pairs_forest(uint64_t *rng, uint32_t n, unsigned kind)
{
    uint32_t *parent = malloc((n + 1) * sizeof *parent), *perm = tu_random_perm(n, rng);
    uint32_t roots = 1 + tu_below(rng, 3);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t up = HF_NO_EVENT;
        if (kind == 0 && i >= roots)
            up = tu_below(rng, i);
        else if (kind == 1 && i > 0)
            up = i - 1 - tu_below(rng, i < 3 ? i : 3);
        else if (kind == 2 && i > 0)
            up = tu_below(rng, i < 3 ? i : 3);
        else if (kind == 3 && i > 0)
            up = 0;
        parent[i] = up;
    }
    /* parent links over the shuffled ids (a parent keeps a smaller index before shuffling) */
    uint32_t(*e)[2] = malloc((n + 1) * sizeof *e);
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (parent[i] != HF_NO_EVENT) {
            e[m][0] = perm[parent[i]];
            e[m++][1] = perm[i];
        }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    free(e);
    free(perm);
    free(parent);
    return p;
}

static uint64_t reference_count(const hf_poset *p, const hf_family *f, const hf_verify_options *o)
{
    hf_error err;
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_i_verify_count_reference(p, f, o, true, c, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_fits_ulong_p(c));
    uint64_t v = mpz_get_ui(c);
    mpz_clear(c);
    return v;
}

/* B's chunks never filled, filled at their first need and at the default rent, on 1 and 3
 * threads: the reference order's answer, witness and count (whole, the reference's). */
static void check_rents(const hf_poset *p, const hf_family *f, const outcome *whole,
                        const char *what)
{
    static const unsigned rents[] = {0, 1, HF_I_PAIR_RENT, UINT_MAX};
    for (unsigned r = 0; r < 4; r++)
        for (unsigned t = 1; t <= 3; t += 2) {
            hf_verify_options o;
            hf_verify_options_init(&o);
            o.d = 3;
            o.threads = t;
            hf_verify_result res;
            hf_error err;
            cr_assert_eq(hf_i_verify_rent(p, f, &o, rents[r], &res, NULL, &err), HF_OK, "%s",
                         err.text);
            cr_assert_eq(res.hitting, whole->res.hitting, "%s rent %u threads %u: hitting", what,
                         rents[r], t);
            cr_assert_eq(memcmp(res.witness, whole->res.witness, sizeof res.witness), 0,
                         "%s rent %u threads %u: witness", what, rents[r], t);
            mpz_t c;
            mpz_init(c);
            cr_assert_eq(hf_i_verify_rent(p, f, &o, rents[r], NULL, c, &err), HF_OK, "%s",
                         err.text);
            cr_assert(mpz_cmp_ui(c, (unsigned long)whole->uncovered) == 0,
                      "%s rent %u threads %u: count", what, rents[r], t);
            mpz_clear(c);
        }
}

/* auto's d = 3 family of @p p (n events), less the schedules i with i % every == phase (none
 * when every is 0): the generated families and the same with some left out, which the forest
 * tests below compare with the reference. */
static hf_family *generated_less(const hf_poset *p, uint32_t n, size_t every, size_t phase)
{
    hf_family *g = family_of(n, NULL, 0), *f = family_of(n, NULL, 0);
    hf_gen_options go = tu_gen_options(3, HF_METHOD_AUTO, NULL, 0);
    hf_error err;
    cr_assert_eq(hf_generate(p, &go, hf_family_sink(g), NULL, &err), HF_OK, "%s", err.text);
    for (size_t i = 0; i < hf_family_size(g); i++)
        if (every == 0 || i % every != phase)
            cr_assert_eq(hf_family_append(f, hf_family_schedule(g, i)), HF_OK);
    hf_family_free(g);
    return f;
}

/* The number of schedules of auto's d = 3 family of @p p. */
static size_t generated_size(const hf_poset *p, uint32_t n)
{
    hf_family *g = generated_less(p, n, 0, 0);
    size_t m = hf_family_size(g);
    hf_family_free(g);
    return m;
}

/* d = 3 on forests, where prefixes are settled by the pair matrices A and B, by A's rows and the
 * children along the second entry's path (chunks of B not filled), or by cuts when they
 * find an uncovered continuation: the answer, witness and count of the reference order (the
 * count by the reference order too), on 1..4 threads, in 2..5 shards, with a focus set, and
 * with a memory limit that leaves B out. Families: generated (3-hitting), generated less a few
 * schedules, random extensions. Sizes around one and two words of events. */
Test(verify, pair_matrices_give_the_reference_answer_on_forests)
{
    uint64_t rng = 0x5eed0021;
    static const uint32_t sizes[] = {3, 12, 63, 64, 65, 129, 150};
    static const char *kinds[] = {"random", "deep", "bushy", "star", "antichain"};
    char what[160];
    for (int iter = 0; iter < 28; iter++) {
        uint32_t n = sizes[iter % 7];
        unsigned kind = iter < 21 ? (unsigned)(iter / 7) : 3 + (unsigned)iter % 2;
        if (kind == 4 && n > 65)
            n = 65; /* every prefix uncovered: the reference count is slow beyond */
        hf_poset *p = pairs_forest(&rng, n, kind);
        unsigned fam = tu_below(&rng, 3);
        hf_family *f;
        hf_error err;
        if (fam < 2) {
            size_t m = generated_size(p, n), drop = fam ? 1 + tu_below(&rng, 3) : 0;
            f = generated_less(p, n, drop ? m / (drop + 1) + 1 : 0, 1);
        } else {
            f = tu_random_family(p, 1 + tu_below(&rng, 12), &rng);
        }
        snprintf(what, sizeof what, "iter %d, %s forest, n=%u, %s, %zu schedules", iter,
                 kinds[kind], n,
                 fam == 0   ? "generated"
                 : fam == 1 ? "generated less some"
                            : "random extensions",
                 hf_family_size(f));
        check_threads_and_shards(p, f, 3, NULL, 0, what);
        outcome whole = run(p, f, 3, NULL, 0, 1, 0, 1, true);
        hf_verify_options o;
        hf_verify_options_init(&o);
        o.d = 3;
        cr_assert_eq(whole.uncovered, reference_count(p, f, &o), "%s: count", what);
        check_rents(p, f, &whole, what);
        if (fam == 0 && kind < 3)
            cr_assert(whole.res.hitting, "%s: the generated family", what);
        /* the tables in a mapped file: no room for B, the same answers */
        o.memory_limit = 1;
        o.threads = 2;
        hf_verify_result res;
        cr_assert_eq(hf_verify(p, f, &o, &res, &err), HF_OK, "%s", err.text);
        cr_assert_eq(res.hitting, whole.res.hitting, "%s: memory limit", what);
        cr_assert_eq(memcmp(res.witness, whole.res.witness, sizeof res.witness), 0, "%s", what);
        if (iter % 4 == 0 && n >= 12) {
            uint32_t focus[200];
            size_t fc = n / 2;
            for (size_t i = 0; i < fc; i++)
                focus[i] = tu_below(&rng, n);
            check_threads_and_shards(p, f, 3, focus, fc, what);
            hf_verify_options_init(&o);
            o.d = 3;
            o.focus = focus;
            o.focus_count = fc;
            cr_assert_eq(run(p, f, 3, focus, fc, 1, 0, 1, false).uncovered,
                         reference_count(p, f, &o), "%s: focus count", what);
        }
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* d = 3 on deep forests (chains, spines with a side leaf below each spine node, under shuffled
 * ids), where the quick test settles most prefixes and B's chunks are filled only where needed,
 * and on in-forests (random, and the reversed spine): their generated families (3-hitting),
 * the same less one schedule and less a few (the check must find what they miss), and random
 * extensions; the answer, witness and count of the reference order on 1-4 threads and shards,
 * and with B's chunks never, at once or lazily filled. */
Test(verify, deep_forests_and_in_forests_give_the_reference_answer)
{
    uint64_t rng = 0x5eed0016;
    char what[160];
    unsigned missed = 0;
    static const char *kinds[] = {"chain", "spine with leaves", "in-forest", "in-spine"};
    for (int iter = 0; iter < 12; iter++) {
        unsigned kind = (unsigned)iter % 4;
        uint32_t n = iter < 8 ? 70 : 129;
        uint32_t *parent = malloc(n * sizeof *parent), *perm = tu_random_perm(n, &rng);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t up = kind == 0   ? i - 1
                          : kind == 2 ? tu_below(&rng, i ? i : 1)
                          : i % 2     ? i - 1
                                      : i - 2;
            parent[i] = i == 0 ? HF_NO_EVENT : up;
        }
        /* the links over shuffled ids, child -> parent for an in-forest */
        uint32_t(*e)[2] = malloc(n * sizeof *e);
        size_t links = 0;
        for (uint32_t i = 0; i < n; i++)
            if (parent[i] != HF_NO_EVENT) {
                e[links][kind >= 2] = perm[parent[i]];
                e[links++][kind < 2] = perm[i];
            }
        hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, links);
        free(e);
        free(perm);
        free(parent);
        for (unsigned fam = 0; fam < 4; fam++) {
            hf_family *f;
            if (fam == 0) {
                f = generated_less(p, n, 0, 0);
            } else if (fam < 3) { /* less one at random, or less every (m / 3 + 1)-th */
                size_t m = generated_size(p, n);
                f = fam == 1 ? generated_less(p, n, SIZE_MAX, tu_below(&rng, m))
                             : generated_less(p, n, m / 3 + 1, 0);
            } else {
                f = tu_random_family(p, 1 + tu_below(&rng, 6), &rng);
            }
            snprintf(what, sizeof what, "iter %d, %s, n=%u, family %u, %zu schedules", iter,
                     kinds[kind], n, fam, hf_family_size(f));
            check_threads_and_shards(p, f, 3, NULL, 0, what);
            outcome whole = run(p, f, 3, NULL, 0, 1, 0, 1, true);
            hf_verify_options o;
            hf_verify_options_init(&o);
            o.d = 3;
            cr_assert_eq(whole.uncovered, reference_count(p, f, &o), "%s: count", what);
            if (fam == 0)
                cr_assert(whole.res.hitting, "%s: the generated family", what);
            missed += fam > 0 && !whole.res.hitting;
            check_rents(p, f, &whole, what);
            hf_family_free(f);
        }
        hf_poset_free(p);
    }
    cr_assert_gt(missed, 12, "the families less some schedules were nearly all 3-hitting");
}

Test(verify, bad_shards_are_rejected)
{
    hf_poset *p = tu_antichain(4);
    hf_family *f = family_of(4, NULL, 0);
    hf_verify_options opt;
    hf_verify_options_init(&opt);
    cr_assert_eq(opt.d, 2);
    cr_assert_eq(opt.threads, 0);
    cr_assert_eq(opt.shard_count, 1);
    hf_verify_result res;
    hf_error err;
    opt.shard_count = 3;
    opt.shard_index = 3;
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "shard index 3"), "%s", err.text);
    opt.shard_count = 0;
    opt.shard_index = 1;
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_EINVAL);
    opt.shard_index = 0;
    cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_OK);
    cr_assert(!res.hitting);
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Progress and cancellation                                                                  */

typedef struct progress_log {
    unsigned calls, stop_at; /* stop (return false) at this call; 0: never */
    uint64_t first_total;    /* total of the first report */
    uint64_t last_done, last_total;
    bool other_task, backward; /* a task other than "verify"; done went down */
    bool past_total;           /* done above a known total */
} progress_log;

static bool on_progress(const hf_progress *pr, void *user)
{
    progress_log *l = user;
    if (strcmp(pr->task, "verify") != 0)
        l->other_task = true;
    if (l->calls == 0)
        l->first_total = pr->total;
    else if (pr->done < l->last_done)
        l->backward = true;
    if (pr->total && pr->done > pr->total)
        l->past_total = true;
    l->last_done = pr->done;
    l->last_total = pr->total;
    return ++l->calls != l->stop_at;
}

/* Stops at the k-th report for k = 1, 4, 7: HF_EABORTED with the message (or, when the check
 * ended before that report, HF_OK with fewer reports), no report after the stop, nothing left
 * allocated. */
static void check_stops(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                        bool count, progress_log *l, const tu_chaos *ch, const char *what)
{
    long base = ch->live;
    for (unsigned k = 1; k <= 7; k += 3) {
        *l = (progress_log){.stop_at = k};
        hf_error err;
        hf_status st;
        if (count) {
            mpz_t c;
            mpz_init(c);
            st = hf_verify_count_uncovered(p, f, opt, c, &err);
            mpz_clear(c);
        } else {
            hf_verify_result res;
            st = hf_verify(p, f, opt, &res, &err);
        }
        cr_assert(st == HF_EABORTED || (st == HF_OK && l->calls < k), "%s, stop %u: %s", what, k,
                  hf_strerror(st));
        if (st == HF_EABORTED) {
            cr_assert(strstr(err.text, "verify: stopped by the progress callback"), "%s", err.text);
            cr_assert_eq(l->calls, k, "%s: %u reports after a stop at %u", what, l->calls, k);
        }
        cr_assert_eq(ch->live, base, "%s, stop %u: %ld blocks left", what, k, ch->live - base);
    }
}

/* Checks long enough to poll many times, on a counting context (a stop must leave nothing
 * allocated): the uncovered 3-tuples of 40 random schedules of a random order of 240 events,
 * and a 3-hitting family of a 400-event tree, which hf_verify follows to the end. */
Test(verify, progress_reports_and_cancels_on_one_and_several_threads)
{
    tu_chaos ch = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&ch);
    progress_log l = {0};
    uint64_t rng = 0x5eed0018;
    const uint32_t n = 240;
    hf_poset *q = tu_random_dag(n, 1, 40, &rng);
    hf_family *f = tu_random_family(q, 40, &rng);
    hf_poset *p = tu_poset_copy(q, ctx);
    hf_poset_free(q);
    q = tu_random_forest(400, 1, &rng);
    hf_poset *t = tu_poset_copy(q, ctx);
    hf_poset_free(q);
    hf_family *hit = family_of(400, NULL, 0);
    hf_gen_options g = tu_gen_options(3, HF_METHOD_AUTO, NULL, 0);
    hf_error err;
    cr_assert_eq(hf_generate(t, &g, hf_family_sink(hit), NULL, &err), HF_OK, "%s", err.text);
    /* the answers without a callback */
    outcome plain = run(p, f, 3, NULL, 0, 1, 0, 1, false);
    cr_assert(!plain.res.hitting && plain.uncovered > 1000);
    cr_assert_eq(hf_ctx_set_progress(ctx, on_progress, &l), HF_OK);
    hf_verify_options opt;
    hf_verify_options_init(&opt);
    opt.d = 3;
    mpz_t c;
    mpz_init(c);
    char what[64];
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        opt.threads = threads;
        /* a callback that never stops changes nothing; it hears of the first events done */
        l = (progress_log){0};
        cr_assert_eq(hf_verify_count_uncovered(p, f, &opt, c, &err), HF_OK, "%s", err.text);
        cr_assert_eq(mpz_get_ui(c), plain.uncovered);
        cr_assert(l.calls >= 3, "threads %u: %u reports", threads, l.calls);
        cr_assert(!l.other_task && !l.backward && !l.past_total);
        cr_assert_eq(l.last_total, n);
        hf_verify_result res;
        cr_assert_eq(hf_verify(p, f, &opt, &res, &err), HF_OK, "%s", err.text);
        cr_assert_eq(memcmp(res.witness, plain.res.witness, sizeof res.witness), 0);
        l = (progress_log){0};
        cr_assert_eq(hf_verify(t, hit, &opt, &res, &err), HF_OK, "%s", err.text);
        cr_assert(res.hitting);
        cr_assert(l.calls >= 3, "threads %u: %u reports on the tree", threads, l.calls);
        cr_assert(!l.other_task && !l.backward && !l.past_total);
        snprintf(what, sizeof what, "count, threads %u", threads);
        check_stops(p, f, &opt, true, &l, &ch, what);
        snprintf(what, sizeof what, "tree, threads %u", threads);
        check_stops(t, hit, &opt, false, &l, &ch, what);
    }
    /* a family of many schedules reports (and stops) while its tables are built, before the
     * first events are counted */
    hf_family *big = family_of(n, NULL, 0);
    for (unsigned i = 0; i < 8; i++)
        for (size_t k = 0; k < hf_family_size(f); k++)
            cr_assert_eq(hf_family_append(big, hf_family_schedule(f, k)), HF_OK);
    long base = ch.live;
    l = (progress_log){.stop_at = 1};
    cr_assert_eq(hf_verify_count_uncovered(p, big, &opt, c, &err), HF_EABORTED);
    cr_assert_eq(l.first_total, 0);
    cr_assert_eq(ch.live, base);
    /* with a focus set, the second report comes while the family is restricted to it */
    uint32_t focus[120];
    for (uint32_t i = 0; i < 120; i++)
        focus[i] = 2 * i;
    opt.focus = focus;
    opt.focus_count = 120;
    l = (progress_log){.stop_at = 2};
    cr_assert_eq(hf_verify_count_uncovered(p, big, &opt, c, &err), HF_EABORTED);
    cr_assert_eq(l.calls, 2);
    cr_assert_eq(ch.live, base);
    mpz_clear(c);
    hf_family_free(big);
    hf_family_free(hit);
    hf_family_free(f);
    hf_poset_free(t);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

/* ------------------------------------------------------------------------------------------ */
/* Out of memory                                                                              */

Test(verify, every_allocation_failure_is_reported_and_cleaned_up)
{
    tu_chaos ch = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&ch);
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (int i = 0; i < 12; i++) {
        char name[8];
        snprintf(name, sizeof name, "v%d", i);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
    }
    uint32_t edges[12][2];
    size_t m = 0;
    for (uint32_t i = 0; i + 2 < 12; i += 2) {
        cr_assert_eq(hf_poset_builder_add_order(b, i, i + 2), HF_OK);
        cr_assert_eq(hf_poset_builder_add_order(b, i, i + 3), HF_OK);
        edges[m][0] = i, edges[m++][1] = i + 2;
        edges[m][0] = i, edges[m++][1] = i + 3;
    }
    hf_poset *p;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    tu_register_edges(p, (const uint32_t(*)[2])edges, m);
    uint64_t rng = 7;
    uint32_t s[12];
    hf_family *f = family_of(12, NULL, 0);
    for (int i = 0; i < 5; i++) {
        random_extension(p, &rng, s);
        cr_assert_eq(hf_family_append(f, s), HF_OK);
    }
    long base = ch.live;
    /* without a focus set, then with one smaller than the order (checked on its projection) */
    static const uint32_t focus[] = {1, 4, 4, 7, 8, 11};
    for (unsigned t = 0; t < 12; t++) {
        unsigned d = t % 4 + 1;
        bool verify_done = false, count_done = false;
        for (long k = 0; k < 400 && !(verify_done && count_done); k++) {
            hf_verify_options opt = {.d = d};
            if (t >= 4 && t < 8) {
                opt.focus = focus;
                opt.focus_count = sizeof focus / sizeof focus[0];
            }
            if (t >= 8) {
                /* three threads on the second of two shards: every buffer allocated first */
                opt.threads = 3;
                opt.shard_index = 1;
                opt.shard_count = 2;
            }
            hf_verify_result res;
            hf_error err;
            ch.left = k;
            hf_status st = hf_verify(p, f, &opt, &res, &err);
            ch.left = -1;
            cr_assert(st == HF_OK || st == HF_ENOMEM, "d=%u k=%ld: %s", d, k, hf_strerror(st));
            cr_assert_eq(ch.live, base, "d=%u k=%ld: %ld blocks leaked", d, k, ch.live - base);
            verify_done |= st == HF_OK;
            mpz_t c;
            mpz_init(c);
            ch.left = k;
            st = hf_verify_count_uncovered(p, f, &opt, c, &err);
            ch.left = -1;
            mpz_clear(c);
            cr_assert(st == HF_OK || st == HF_ENOMEM, "d=%u k=%ld: %s", d, k, hf_strerror(st));
            cr_assert_eq(ch.live, base);
            count_done |= st == HF_OK;
        }
        cr_assert(verify_done && count_done);
    }
    hf_family_free(f);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

/* A random in-forest of @p n events (each event after the first r points to an earlier one,
 * which is above it), under shuffled ids, built on @p ctx (NULL: the default). */
static hf_poset *random_in_forest(uint32_t n, uint32_t r, uint64_t *rng, hf_ctx *ctx)
{
    uint32_t *perm = tu_random_perm(n, rng);
    uint32_t(*e)[2] = malloc((n ? n : 1) * sizeof *e);
    size_t links = 0;
    for (uint32_t i = r; i < n; i++) {
        e[links][0] = perm[i];
        e[links++][1] = perm[tu_below(rng, i)];
    }
    hf_poset *q = tu_poset(n, (const uint32_t(*)[2])e, links);
    free(e);
    free(perm);
    if (!ctx)
        return q;
    hf_poset *p = tu_poset_copy(q, ctx);
    hf_poset_free(q);
    return p;
}

/* In-forests at d = 3 and 4 are checked as their dual forests with the schedules reversed: the
 * answer, witness and count are the reference order's on the order itself, and the same with a
 * memory limit that leaves no room for the reversed copy (the dual not used); 1 and 3 threads;
 * generated families (hitting), the same less a schedule, random extensions. The progress of a
 * hitting family's check goes forward only (the dual answers alone); failing allocations at
 * every step give out of memory or the answer, and leave nothing allocated. (That the dual is
 * used at all shows in tests/bench/bench_verify's in-tree row, not here.) */
Test(verify, in_forests_are_checked_as_their_dual_forests)
{
    uint64_t rng = 0x5eed0031;
    static const uint32_t sizes[] = {4, 12, 30, 65, 100};
    char what[160];
    unsigned missed = 0;
    for (int iter = 0; iter < 15; iter++) {
        uint32_t n = sizes[iter % 5];
        unsigned d = 3 + (unsigned)(iter % 2) * (n <= 30);
        hf_poset *p = random_in_forest(n, 1 + tu_below(&rng, 3), &rng, NULL);
        cr_assert(hf_poset_shape(p) & HF_SHAPE_INFOREST);
        for (unsigned fam = 0; fam < 3; fam++) {
            hf_family *f;
            if (fam < 2) {
                hf_family *g = family_of(n, NULL, 0);
                hf_gen_options go = tu_gen_options(d, HF_METHOD_AUTO, NULL, 0);
                hf_error err;
                cr_assert_eq(hf_generate(p, &go, hf_family_sink(g), NULL, &err), HF_OK, "%s",
                             err.text);
                size_t m = hf_family_size(g), drop = fam ? tu_below(&rng, (uint32_t)m) : m;
                f = family_of(n, NULL, 0);
                for (size_t i = 0; i < m; i++)
                    if (i != drop)
                        cr_assert_eq(hf_family_append(f, hf_family_schedule(g, i)), HF_OK);
                hf_family_free(g);
            } else {
                f = tu_random_family(p, 1 + tu_below(&rng, 5), &rng);
            }
            snprintf(what, sizeof what, "iter %d, n=%u, d=%u, family %u, %zu schedules", iter, n, d,
                     fam, hf_family_size(f));
            hf_verify_options o;
            hf_verify_options_init(&o);
            o.d = d;
            outcome ref = run(p, f, d, NULL, 0, 1, 0, 1, true);
            uint64_t ref_count = reference_count(p, f, &o);
            cr_assert_eq(ref.res.hitting, ref_count == 0, "%s", what);
            if (fam == 0)
                cr_assert(ref.res.hitting, "%s: the generated family", what);
            missed += !ref.res.hitting;
            for (unsigned limit = 0; limit < 2; limit++)
                for (unsigned threads = 1; threads <= 3; threads += 2) {
                    o.threads = threads;
                    o.memory_limit = limit; /* 1 byte: no room for the copy */
                    hf_verify_result res;
                    hf_error err;
                    cr_assert_eq(hf_verify(p, f, &o, &res, &err), HF_OK, "%s: %s", what, err.text);
                    cr_assert_eq(res.hitting, ref.res.hitting, "%s", what);
                    cr_assert_eq(res.d, ref.res.d, "%s", what);
                    cr_assert_eq(memcmp(res.witness, ref.res.witness, sizeof res.witness), 0,
                                 "%s: witness (limit %u, %u threads)", what, limit, threads);
                    mpz_t c;
                    mpz_init(c);
                    cr_assert_eq(hf_verify_count_uncovered(p, f, &o, c, &err), HF_OK, "%s",
                                 err.text);
                    cr_assert_eq(mpz_get_ui(c), ref_count, "%s: count (limit %u)", what, limit);
                    mpz_clear(c);
                }
            hf_family_free(f);
        }
        hf_poset_free(p);
    }
    cr_assert_gt(missed, 8, "the families less a schedule were nearly all hitting");

    /* progress: a hitting family's check goes forward only */
    tu_chaos ch = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&ch);
    progress_log l = {0};
    cr_assert_eq(hf_ctx_set_progress(ctx, on_progress, &l), HF_OK);
    hf_poset *p = random_in_forest(300, 1, &rng, ctx);
    hf_family *hit = family_of(300, NULL, 0);
    hf_gen_options go = tu_gen_options(3, HF_METHOD_AUTO, NULL, 0);
    hf_error err;
    cr_assert_eq(hf_generate(p, &go, hf_family_sink(hit), NULL, &err), HF_OK, "%s", err.text);
    hf_family *few = tu_random_family(p, 2, &rng);
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = 3;
    o.threads = 1;
    hf_verify_result res;
    l = (progress_log){0};
    cr_assert_eq(hf_verify(p, hit, &o, &res, &err), HF_OK, "%s", err.text);
    cr_assert(res.hitting && !l.backward && !l.other_task && l.calls >= 1);
    l = (progress_log){0};
    cr_assert_eq(hf_verify(p, few, &o, &res, &err), HF_OK, "%s", err.text);
    cr_assert(!res.hitting && !l.other_task);
    cr_assert_eq(hf_ctx_set_progress(ctx, NULL, NULL), HF_OK);

    /* failing allocations at every step of both checks: out of memory or the answer, nothing
     * left allocated */
    hf_verify_result want[2];
    hf_family *fams[2] = {hit, few};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(hf_verify(p, fams[i], &o, &want[i], &err), HF_OK, "%s", err.text);
    for (int i = 0; i < 2; i++) {
        long base = ch.live;
        bool done = false;
        for (long k = 0; !done && k < 100000; k++) {
            ch.left = k;
            hf_status st = hf_verify(p, fams[i], &o, &res, &err);
            ch.left = -1;
            cr_assert(st == HF_OK || st == HF_ENOMEM, "k=%ld: %s", k, hf_strerror(st));
            cr_assert_eq(ch.live, base, "k=%ld: %ld blocks leaked", k, ch.live - base);
            if (st == HF_OK) {
                done = true;
                cr_assert_eq(res.hitting, want[i].hitting);
                cr_assert_eq(memcmp(res.witness, want[i].witness, sizeof res.witness), 0);
            }
        }
        cr_assert(done);
    }
    hf_family_free(hit);
    hf_family_free(few);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}
