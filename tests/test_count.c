/* Tests of the exact counts and lower bounds: linear extensions, admissible tuples and bounds
 * against brute force written here (permutations, subset DP, optimal families by search). */
#include <criterion/criterion.h>
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "downsets.h"
#include "hitfam/count.h"
#include "internal.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(count);

/* ---------------------------------------------------------------------------------------- */
/* Brute force                                                                               */

/* lt[a*n+b] iff a < b, from the edges the test chose (tu_closure). */
static bool *brute_closure(const hf_poset *p) { return tu_closure(p); }

static void mpz_set_u64(mpz_t z, uint64_t v) { mpz_import(z, 1, -1, sizeof v, 0, 0, &v); }

static bool next_perm(uint32_t *a, uint32_t n)
{
    if (n < 2)
        return false;
    uint32_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0)
        return false;
    uint32_t j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    uint32_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
    for (uint32_t l = i, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* All linear extensions by running through every permutation (n <= 8). If `ext` is non-NULL
 * the extensions are stored there (n ids each). */
static uint64_t brute_linext(const bool *lt, uint32_t n, uint32_t *ext)
{
    uint32_t perm[8], pos[8];
    cr_assert(n <= 8);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t count = 0;
    do {
        for (uint32_t i = 0; i < n; i++)
            pos[perm[i]] = i;
        bool ok = true;
        for (uint32_t a = 0; a < n && ok; a++)
            for (uint32_t b = 0; b < n && ok; b++)
                if (lt[a * n + b] && pos[a] > pos[b])
                    ok = false;
        if (ok) {
            if (ext)
                memcpy(ext + count * n, perm, n * sizeof *perm);
            count++;
        }
    } while (next_perm(perm, n));
    return count;
}

/* Linear extensions by a DP over subsets of events (n <= 20): count[S] = orderings of S that
 * could start a linear extension. */
static uint64_t brute_linext_subsets(const bool *lt, uint32_t n)
{
    cr_assert(n <= 20);
    uint32_t *down = calloc(n + 1, sizeof *down);
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t a = 0; a < n; a++)
            if (lt[a * n + b])
                down[b] |= 1u << a;
    uint64_t *cnt = calloc((size_t)1 << n, sizeof *cnt);
    cnt[0] = 1;
    for (uint32_t S = 0; S < (1u << n); S++) {
        if (!cnt[S])
            continue;
        for (uint32_t x = 0; x < n; x++)
            if (!(S >> x & 1) && (down[x] & ~S) == 0)
                cnt[S | 1u << x] += cnt[S];
    }
    uint64_t r = cnt[(1u << n) - 1];
    free(cnt);
    free(down);
    return r;
}

/* Ordered d-tuples of distinct events from `allowed` with no later entry below an earlier. */
static uint64_t brute_tuples_rec(const bool *lt, uint32_t n, const bool *allowed, unsigned d,
                                 uint32_t *chosen, unsigned k)
{
    if (k == d)
        return 1;
    uint64_t c = 0;
    for (uint32_t x = 0; x < n; x++) {
        if (!allowed[x])
            continue;
        bool ok = true;
        for (unsigned i = 0; i < k && ok; i++)
            ok = chosen[i] != x && !lt[x * n + chosen[i]];
        if (!ok)
            continue;
        chosen[k] = x;
        c += brute_tuples_rec(lt, n, allowed, d, chosen, k + 1);
    }
    return c;
}

static uint64_t brute_tuples(const bool *lt, uint32_t n, unsigned d, const uint32_t *focus,
                             size_t focus_count)
{
    bool *allowed = calloc(n + 1, 1);
    for (uint32_t v = 0; v < n; v++)
        allowed[v] = focus == NULL;
    for (size_t i = 0; focus && i < focus_count; i++)
        allowed[focus[i]] = true;
    uint32_t chosen[HF_MAX_D];
    uint64_t c = brute_tuples_rec(lt, n, allowed, d, chosen, 0);
    free(allowed);
    return c;
}

/* Longest chain (in events) among the events with in[v] set: a longest path in the strict
 * order, events taken by increasing down-set size (a linear extension). */
static uint32_t brute_longest_chain(const bool *lt, uint32_t n, const bool *in, uint32_t *len)
{
    uint32_t *order = malloc((n + 1) * sizeof *order), *below = calloc(n + 1, sizeof *below);
    for (uint32_t v = 0; v < n; v++) {
        order[v] = v;
        for (uint32_t u = 0; u < n; u++)
            below[v] += lt[u * n + v];
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort by down-set size */
        for (uint32_t j = i; j > 0 && below[order[j - 1]] > below[order[j]]; j--) {
            uint32_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint32_t best = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = order[i];
        len[v] = 0;
        if (!in[v])
            continue;
        uint32_t m = 0;
        for (uint32_t j = 0; j < i; j++)
            if (in[order[j]] && lt[order[j] * n + v] && len[order[j]] > m)
                m = len[order[j]];
        len[v] = m + 1;
        best = len[v] > best ? len[v] : best;
    }
    free(order);
    free(below);
    return best;
}

/* Longest chain among the events incomparable to some one event. */
static uint32_t brute_free_chain(const bool *lt, uint32_t n)
{
    bool *in = calloc(n + 1, 1);
    uint32_t *len = calloc(n + 1, sizeof *len), best = 0;
    for (uint32_t e = 0; e < n; e++) {
        for (uint32_t v = 0; v < n; v++)
            in[v] = v != e && !lt[v * n + e] && !lt[e * n + v];
        uint32_t c = brute_longest_chain(lt, n, in, len);
        best = c > best ? c : best;
    }
    free(in);
    free(len);
    return best;
}

/* Largest antichain by trying every subset (n <= 16). */
static uint32_t brute_width(const bool *lt, uint32_t n)
{
    cr_assert(n <= 16);
    uint32_t best = 0;
    for (uint32_t S = 0; S < (1u << n); S++) {
        uint32_t c = (uint32_t)__builtin_popcount(S);
        if (c <= best)
            continue;
        bool ok = true;
        for (uint32_t a = 0; a < n && ok; a++)
            for (uint32_t b = 0; b < n && ok; b++)
                if ((S >> a & 1) && (S >> b & 1) && lt[a * n + b])
                    ok = false;
        if (ok)
            best = c;
    }
    return best;
}

/* The antichains docs/bounds.md says general orders use: minimal events, maximal events, the
 * largest set of events with equal longest chain from below. */
static uint32_t documented_width(const bool *lt, uint32_t n)
{
    bool *all = malloc(n + 1);
    uint32_t *len = calloc(n + 1, sizeof *len), *level = calloc(n + 2, sizeof *level);
    memset(all, 1, n + 1);
    brute_longest_chain(lt, n, all, len); /* len[v] = longest chain ending at v */
    uint32_t minimal = 0, maximal = 0, widest = 0;
    for (uint32_t v = 0; v < n; v++) {
        bool has_below = false, has_above = false;
        for (uint32_t u = 0; u < n; u++) {
            has_below |= lt[u * n + v];
            has_above |= lt[v * n + u];
        }
        minimal += !has_below;
        maximal += !has_above;
        level[len[v]]++;
        widest = level[len[v]] > widest ? level[len[v]] : widest;
    }
    free(all);
    free(len);
    free(level);
    uint32_t w = widest;
    w = minimal > w ? minimal : w;
    return maximal > w ? maximal : w;
}

/* The bound of count.h, from the facts: free chain c, antichain w. */
static uint64_t expected_bound(uint32_t n, unsigned d, bool chain, uint32_t c, uint32_t w)
{
    if (n == 0)
        return 0;
    uint64_t b = 1;
    if (d >= 2 && !chain)
        b = 2;
    if (w >= d) {
        uint64_t f = 1;
        for (unsigned k = 2; k <= d; k++)
            f *= k;
        b = f > b ? f : b;
    }
    if (d >= 3) {
        if (c >= 1 && c + 1 > b)
            b = c + 1;
        if (w >= 3) {
            uint64_t lg = 0;
            while ((1u << lg) < w - 1)
                lg++;
            b = lg > b ? lg : b;
        }
    }
    return b;
}

/* Smallest d-hitting family by iterative deepening over the linear extensions (at most 64
 * admissible tuples). Returns 0 when the search exceeds its budget. */
typedef struct cover_search {
    uint64_t *masks;
    size_t m;
    uint64_t budget;
    unsigned best_hit;
} cover_search;

static int cover(cover_search *cs, uint64_t uncovered, unsigned k)
{
    if (!uncovered)
        return 1;
    if (k == 0 || (uint64_t)k * cs->best_hit < (uint64_t)__builtin_popcountll(uncovered))
        return 0;
    if (cs->budget-- == 0)
        return -1;
    uint64_t t = uncovered & -uncovered;
    for (size_t i = 0; i < cs->m; i++)
        if (cs->masks[i] & t) {
            int r = cover(cs, uncovered & ~cs->masks[i], k - 1);
            if (r)
                return r;
        }
    return 0;
}

static unsigned brute_optimum(const bool *lt, uint32_t n, unsigned d)
{
    uint32_t tuples[64][HF_MAX_D], nt = 0, idx[HF_MAX_D];
    /* admissible tuples, by odometer over n^d */
    uint64_t total = 1;
    for (unsigned i = 0; i < d; i++)
        total *= n;
    for (uint64_t code = 0; code < total; code++) {
        uint64_t c = code;
        for (unsigned i = 0; i < d; i++) {
            idx[i] = (uint32_t)(c % n);
            c /= n;
        }
        bool ok = true;
        for (unsigned i = 0; i < d && ok; i++)
            for (unsigned j = i + 1; j < d && ok; j++)
                ok = idx[i] != idx[j] && !lt[idx[j] * n + idx[i]];
        if (!ok)
            continue;
        cr_assert(nt < 64);
        memcpy(tuples[nt++], idx, sizeof idx);
    }
    uint32_t *ext = malloc(40320 * 8 * sizeof *ext);
    uint64_t m = brute_linext(lt, n, ext);
    cover_search cs = {.masks = calloc(m, sizeof(uint64_t)), .m = 0, .budget = 3000000};
    for (uint64_t s = 0; s < m; s++) {
        uint32_t pos[8];
        for (uint32_t i = 0; i < n; i++)
            pos[ext[s * n + i]] = i;
        uint64_t mask = 0;
        for (uint32_t t = 0; t < nt; t++) {
            bool hit = true;
            for (unsigned i = 0; i + 1 < d && hit; i++)
                hit = pos[tuples[t][i]] < pos[tuples[t][i + 1]];
            if (hit)
                mask |= (uint64_t)1 << t;
        }
        /* drop schedules another one dominates */
        bool dominated = false;
        for (size_t i = 0; i < cs.m && !dominated; i++)
            dominated = (mask & ~cs.masks[i]) == 0;
        if (dominated)
            continue;
        size_t w = 0;
        for (size_t i = 0; i < cs.m; i++)
            if (cs.masks[i] & ~mask)
                cs.masks[w++] = cs.masks[i];
        cs.m = w;
        cs.masks[cs.m++] = mask;
    }
    for (size_t i = 0; i < cs.m; i++)
        if ((unsigned)__builtin_popcountll(cs.masks[i]) > cs.best_hit)
            cs.best_hit = (unsigned)__builtin_popcountll(cs.masks[i]);
    uint64_t all = nt == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nt) - 1;
    unsigned opt = 0;
    for (unsigned k = 0;; k++) {
        int r = cover(&cs, all, k);
        if (r < 0)
            break;
        if (r > 0) {
            opt = k;
            break;
        }
    }
    free(cs.masks);
    free(ext);
    return opt;
}

/* ---------------------------------------------------------------------------------------- */
/* Helpers                                                                                    */

static hf_poset *draw(unsigned kind, uint32_t n, uint64_t *rng)
{
    switch (kind % 9) {
    case 0:
        return tu_random_dag(n, 1, 4, rng);
    case 1:
        return tu_random_dag(n, 1, 2, rng);
    case 2:
        return tu_random_dag(n, 3, 4, rng);
    case 3:
        return tu_random_dag(n, 1, 10, rng);
    case 4:
        return tu_random_forest(n, 1 + tu_below(rng, 3), rng);
    case 5:
        return tu_random_inforest(n, 1 + tu_below(rng, 3), rng);
    case 6:
        return tu_antichain(n);
    case 7:
        return tu_chain(n);
    default:
        return tu_random_dag(n, 2, 5, rng);
    }
}

static void expect_linext(const hf_poset *p, uint64_t want)
{
    mpz_t got, w;
    mpz_inits(got, w, NULL);
    hf_error err;
    hf_status st = hf_count_linear_extensions(p, got, &err);
    cr_assert_eq(st, HF_OK, "linear extensions: %s", err.text);
    mpz_set_u64(w, want);
    cr_assert(mpz_cmp(got, w) == 0,
              "linear extensions of a %u-event order (shape %#x): got %s, "
              "want %s",
              hf_poset_size(p), hf_poset_shape(p), mpz_get_str(NULL, 10, got),
              mpz_get_str(NULL, 10, w));
    mpz_clears(got, w, NULL);
}

static void expect_tuples(const hf_poset *p, unsigned d, const uint32_t *focus, size_t fc,
                          uint64_t want)
{
    mpz_t got, w;
    mpz_inits(got, w, NULL);
    hf_error err;
    hf_status st = hf_count_admissible(p, d, focus, fc, got, &err);
    cr_assert_eq(st, HF_OK, "admissible tuples: %s", err.text);
    mpz_set_u64(w, want);
    cr_assert(mpz_cmp(got, w) == 0,
              "admissible %u-tuples of a %u-event order (shape %#x, focus %s %zu): got %s, "
              "want %s",
              d, hf_poset_size(p), hf_poset_shape(p), focus ? "yes" : "no", fc,
              mpz_get_str(NULL, 10, got), mpz_get_str(NULL, 10, w));
    mpz_clears(got, w, NULL);
}

static uint64_t lower_bound(const hf_poset *p, unsigned d)
{
    mpz_t b;
    mpz_init(b);
    hf_error err;
    cr_assert_eq(hf_count_lower_bound(p, d, b, &err), HF_OK, "lower bound: %s", err.text);
    cr_assert(mpz_sizeinbase(b, 2) <= 63);
    uint64_t v = 0;
    mpz_export(&v, NULL, -1, sizeof v, 0, 0, b);
    mpz_clear(b);
    return v;
}

static uint64_t tuples_u64(const hf_poset *p, unsigned d)
{
    mpz_t c;
    mpz_init(c);
    cr_assert_eq(hf_count_admissible(p, d, NULL, 0, c, NULL), HF_OK);
    uint64_t v = 0;
    mpz_export(&v, NULL, -1, sizeof v, 0, 0, c);
    mpz_clear(c);
    return v;
}

/* ---------------------------------------------------------------------------------------- */
/* Random small orders against brute force                                                   */

Test(count, random_small_orders_match_brute_force)
{
    uint64_t rng = 0xc0ffee;
    for (unsigned round = 0; round < 360; round++) {
        uint32_t n = tu_below(&rng, 9);
        hf_poset *p = draw(round, n, &rng);
        bool *lt = brute_closure(p);
        expect_linext(p, brute_linext(lt, n, NULL));
        for (unsigned d = 1; d <= 5; d++) {
            expect_tuples(p, d, NULL, 0, brute_tuples(lt, n, d, NULL, 0));
            /* a random focus set, duplicates allowed */
            uint32_t focus[12];
            size_t fc = n ? tu_below(&rng, 12) : 0;
            for (size_t i = 0; i < fc; i++)
                focus[i] = tu_below(&rng, n);
            expect_tuples(p, d, focus, fc, brute_tuples(lt, n, d, focus, fc));
            /* every event named: the enumeration must agree with the tree formula */
            uint32_t everyone[8];
            for (uint32_t v = 0; v < n; v++)
                everyone[v] = v;
            expect_tuples(p, d, everyone, n, brute_tuples(lt, n, d, NULL, 0));
        }
        free(lt);
        hf_poset_free(p);
    }
}

Test(count, medium_orders_match_subset_dp)
{
    uint64_t rng = 77;
    for (unsigned round = 0; round < 90; round++) {
        uint32_t n = 9 + tu_below(&rng, 8); /* 9..16 */
        hf_poset *p = draw(round, n, &rng);
        bool *lt = brute_closure(p);
        expect_linext(p, brute_linext_subsets(lt, n));
        for (unsigned d = 1; d <= 4; d++)
            expect_tuples(p, d, NULL, 0, brute_tuples(lt, n, d, NULL, 0));
        free(lt);
        hf_poset_free(p);
    }
    /* larger forests and in-forests: the tree programs against the subset DP */
    for (unsigned round = 0; round < 20; round++) {
        uint32_t n = 17 + tu_below(&rng, 4);
        hf_poset *p = draw(4 + round % 2, n, &rng);
        bool *lt = brute_closure(p);
        expect_linext(p, brute_linext_subsets(lt, n));
        for (unsigned d = 1; d <= 3; d++)
            expect_tuples(p, d, NULL, 0, brute_tuples(lt, n, d, NULL, 0));
        free(lt);
        hf_poset_free(p);
    }
}

Test(count, lower_bound_follows_its_definition)
{
    uint64_t rng = 4242;
    for (unsigned round = 0; round < 400; round++) {
        uint32_t n = tu_below(&rng, 12);
        hf_poset *p = draw(round, n, &rng);
        bool *lt = brute_closure(p);
        unsigned shape = hf_poset_shape(p);
        bool chain = shape & HF_SHAPE_CHAIN;
        uint32_t c = brute_free_chain(lt, n), width = brute_width(lt, n);
        uint32_t w =
            (shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) ? width : documented_width(lt, n);
        cr_assert(w <= width);
        for (unsigned d = 1; d <= HF_MAX_D; d++) {
            uint64_t got = lower_bound(p, d);
            cr_assert_eq(got, expected_bound(n, d, chain, c, w),
                         "round %u, n=%u, d=%u, shape %#x: got %llu", round, n, d, shape,
                         (unsigned long long)got);
            cr_assert(got <= expected_bound(n, d, chain, c, width));
        }
        free(lt);
        hf_poset_free(p);
    }
}

Test(count, lower_bound_is_below_the_optimum)
{
    uint64_t rng = 99;
    unsigned checked = 0;
    for (unsigned round = 0; round < 150; round++) {
        uint32_t n = 1 + tu_below(&rng, 5);
        hf_poset *p = draw(round, n, &rng);
        bool *lt = brute_closure(p);
        for (unsigned d = 2; d <= 4; d++) {
            if (d > n || (d == 4 && n > 4))
                continue;
            unsigned opt = brute_optimum(lt, n, d);
            if (opt == 0)
                continue; /* search budget exceeded */
            checked++;
            uint64_t lb = lower_bound(p, d);
            cr_assert(lb <= opt, "n=%u d=%u shape %#x: bound %llu above optimum %u", n, d,
                      hf_poset_shape(p), (unsigned long long)lb, opt);
        }
        free(lt);
        hf_poset_free(p);
    }
    cr_assert(checked > 150);
}

/* Closure by a search from every event (for larger sparse orders, where Floyd-Warshall is too
 * slow). */
static bool *search_closure(const hf_poset *p) { return tu_closure(p); }

Test(count, small_focus_on_larger_orders)
{
    uint64_t rng = 31337;
    for (unsigned round = 0; round < 12; round++) {
        hf_poset *p;
        switch (round % 4) {
        case 0:
            p = tu_random_forest(3000, 1 + round % 3, &rng);
            break;
        case 1:
            p = tu_random_inforest(3000, 2, &rng);
            break;
        case 2:
            p = tu_random_dag(300, 1, 40, &rng);
            break;
        default:
            p = tu_random_dag(200, 1, 8, &rng);
            break;
        }
        uint32_t n = hf_poset_size(p);
        bool *lt = search_closure(p);
        for (unsigned d = 1; d <= 4; d++) {
            uint32_t focus[12];
            size_t fc = 1 + tu_below(&rng, 3 + 9 * (n > 1000));
            for (size_t i = 0; i < fc; i++)
                focus[i] = tu_below(&rng, n);
            if (round % 4 == 0) /* an event with its parent and a child */
                for (size_t i = 0; i + 2 < fc; i += 3) {
                    uint32_t up = hf_poset_parent(p, focus[i]), c;
                    const uint32_t *down = hf_poset_hasse_succ(p, focus[i], &c);
                    if (up != HF_NO_EVENT)
                        focus[i + 1] = up;
                    if (c)
                        focus[i + 2] = down[0];
                }
            expect_tuples(p, d, focus, fc, brute_tuples(lt, n, d, focus, fc));
        }
        free(lt);
        hf_poset_free(p);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Published numbers (docs/math.md, section 8)                                              */

Test(count, math_md_numbers)
{
    hf_poset *t2 = tu_complete_binary(2), *t3 = tu_complete_binary(3), *d2 = tu_double_tree(2);
    expect_tuples(t2, 3, NULL, 0, 102);
    expect_tuples(t2, 4, NULL, 0, 220);
    expect_tuples(t3, 3, NULL, 0, 1710);
    expect_tuples(t3, 4, NULL, 0, 13844);
    expect_linext(d2, 280);
    expect_tuples(d2, 3, NULL, 0, 280);
    /* the same through the enumeration (every event a focus event) */
    uint32_t all[15];
    for (uint32_t v = 0; v < 15; v++)
        all[v] = v;
    expect_tuples(t2, 3, all, 7, 102);
    expect_tuples(t3, 4, all, 15, 13844);
    expect_tuples(d2, 3, all, 10, 280);
    /* optima of docs/math.md (section 8) are at least the bounds */
    cr_assert_leq(lower_bound(t2, 3), 8);
    cr_assert_leq(lower_bound(t2, 4), 24);
    cr_assert_leq(lower_bound(d2, 3), 8);
    hf_poset *t1 = tu_complete_binary(1), *d1 = tu_double_tree(1);
    cr_assert_leq(lower_bound(t1, 3), 2);
    cr_assert_leq(lower_bound(d1, 3), 2);
    hf_poset_free(t1);
    hf_poset_free(d1);
    hf_poset_free(t2);
    hf_poset_free(t3);
    hf_poset_free(d2);
}

static FILE *open_data(const char *name)
{
    const char *root = getenv("HITFAM_SOURCE_ROOT");
    if (!root)
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/%s", root, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(path, sizeof path, "%s/../shared/data/%s", root, name);
        f = fopen(path, "r");
    }
    return f;
}

Test(count, optimum_trees_data)
{
    FILE *f = open_data("optimum_trees_d3.txt");
    if (!f)
        cr_skip("optimum_trees_d3.txt not found (HITFAM_SOURCE_ROOT unset?)");
    char line[256], levels[64];
    unsigned height, opt, rows = 0;
    unsigned long long linext, tuples;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int got = sscanf(line, "levels=%63s height=%u opt=%u linext=%llu tuples=%llu", levels,
                         &height, &opt, &linext, &tuples);
        cr_assert_eq(got, 5, "unreadable line: %s", line);
        hf_poset *p = tu_tree_from_levels(levels);
        cr_assert_eq(hf_poset_height(p), height, "%s", levels);
        expect_linext(p, linext);
        expect_tuples(p, 3, NULL, 0, tuples);
        uint64_t lb = lower_bound(p, 3);
        cr_assert(lb >= 1 && lb <= opt, "%s: bound %llu, optimum %u", levels,
                  (unsigned long long)lb, opt);
        hf_poset_free(p);
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, 80);
}

Test(count, antichain_bounds)
{
    static const unsigned best[] = {0, 0, 0, 6, 6, 7, 8, 8, 8}; /* n = 3..8, strength 3 */
    for (uint32_t n = 3; n <= 8; n++) {
        hf_poset *p = tu_antichain(n);
        uint64_t lb = lower_bound(p, 3);
        cr_assert(lb >= 6 && lb <= best[n], "A%u: %llu", n, (unsigned long long)lb);
        if (n >= 5 && n <= 6)
            cr_assert_eq(lower_bound(p, 4), 24); /* optimal strength-4 size */
        hf_poset_free(p);
    }
    /* wide antichains: the log2 bound takes over from 3! */
    hf_poset *p = tu_antichain(1000);
    cr_assert_eq(lower_bound(p, 3), 10); /* ceil(log2 999) */
    cr_assert_eq(lower_bound(p, 2), 2);
    cr_assert_eq(lower_bound(p, 1), 1);
    hf_poset_free(p);
    p = tu_antichain(65);
    cr_assert_eq(lower_bound(p, 3), 6); /* log2 64 = 6 = 3! */
    hf_poset_free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* Large orders                                                                               */

static void product(mpz_t out, const uint32_t *a, size_t len)
{
    if (len == 0) {
        mpz_set_ui(out, 1);
    } else if (len == 1) {
        mpz_set_ui(out, a[0]);
    } else {
        mpz_t r;
        mpz_init(r);
        product(out, a, len / 2);
        product(r, a + len / 2, len - len / 2);
        mpz_mul(out, out, r);
        mpz_clear(r);
    }
}

/* Admissible triples of a forest from depths (ancestor counts) and subtree sizes: every 3-set
 * is an antichain (6 orders), a comparable pair plus a free event (3), a "V" (one event below
 * two incomparable ones, 2) or a chain (1). */
static void forest_triples(mpz_t out, uint32_t n, const uint32_t *depth, const uint32_t *size)
{
    mpz_t cp, c3, s2, v, pr, a, t;
    mpz_inits(cp, c3, s2, v, pr, a, t, NULL);
    for (uint32_t i = 0; i < n; i++) {
        mpz_add_ui(cp, cp, depth[i]);
        mpz_bin_uiui(t, depth[i], 2);
        mpz_add(c3, c3, t);
        mpz_bin_uiui(t, size[i] - 1, 2);
        mpz_add(s2, s2, t);
    }
    mpz_sub(v, s2, c3);
    mpz_mul_ui(pr, cp, n - 2);
    mpz_submul_ui(pr, v, 2);
    mpz_submul_ui(pr, c3, 3);
    mpz_bin_uiui(a, n, 3);
    mpz_sub(a, a, pr);
    mpz_sub(a, a, v);
    mpz_sub(a, a, c3);
    mpz_mul_ui(out, a, 6);
    mpz_addmul_ui(out, pr, 3);
    mpz_addmul_ui(out, v, 2);
    mpz_add(out, out, c3);
    mpz_clears(cp, c3, s2, v, pr, a, t, NULL);
}

/* depth and subtree size of each event in the tree view: parents are Hasse predecessors, or
 * successors when `reversed` */
static void tree_stats(const hf_poset *p, bool reversed, uint32_t *depth, uint32_t *size)
{
    /* from the parent edges the test chose: depths top-down and sizes bottom-up in breadth-first
     * order (children in compressed rows) */
    uint32_t n = hf_poset_size(p);
    uint32_t *parent = tu_edge_parents(p, reversed), *order = malloc((n + 1) * sizeof *order);
    uint32_t *off = calloc(n + 2, sizeof *off), *child = malloc((n + 1) * sizeof *child);
    for (uint32_t v = 0; v < n; v++)
        if (parent[v] != HF_NO_EVENT)
            off[parent[v] + 2]++;
    for (uint32_t v = 0; v < n; v++)
        off[v + 2] += off[v + 1];
    for (uint32_t v = 0; v < n; v++)
        if (parent[v] != HF_NO_EVENT)
            child[off[parent[v] + 1]++] = v;
    uint32_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        size[v] = 1;
        depth[v] = 0;
        if (parent[v] == HF_NO_EVENT)
            order[k++] = v;
    }
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = off[order[i]]; j < off[order[i] + 1]; j++) {
            depth[child[j]] = depth[order[i]] + 1;
            order[k++] = child[j];
        }
    cr_assert_eq(k, n);
    for (uint32_t i = n; i-- > 0;)
        if (parent[order[i]] != HF_NO_EVENT)
            size[parent[order[i]]] += size[order[i]];
    free(parent);
    free(order);
    free(off);
    free(child);
}

Test(count, forest_triples_formula_is_right)
{
    uint64_t rng = 5;
    for (unsigned round = 0; round < 60; round++) {
        uint32_t n = 3 + tu_below(&rng, 12);
        bool rev = round % 2;
        hf_poset *p = rev ? tu_random_inforest(n, 1 + tu_below(&rng, 3), &rng)
                          : tu_random_forest(n, 1 + tu_below(&rng, 3), &rng);
        uint32_t depth[16], size[16];
        tree_stats(p, rev, depth, size);
        bool *lt = brute_closure(p);
        mpz_t f, b;
        mpz_inits(f, b, NULL);
        forest_triples(f, n, depth, size);
        mpz_set_u64(b, brute_tuples(lt, n, 3, NULL, 0));
        cr_assert(mpz_cmp(f, b) == 0);
        mpz_clears(f, b, NULL);
        free(lt);
        hf_poset_free(p);
    }
}

static void check_large_forest(hf_poset *p, bool reversed)
{
    uint32_t n = hf_poset_size(p);
    uint32_t *depth = malloc(n * sizeof *depth), *size = malloc(n * sizeof *size);
    tree_stats(p, reversed, depth, size);
    mpz_t want, got, den;
    mpz_inits(want, got, den, NULL);
    mpz_fac_ui(want, n);
    product(den, size, n);
    cr_assert(mpz_divisible_p(want, den));
    mpz_divexact(want, want, den);
    cr_assert_eq(hf_count_linear_extensions(p, got, NULL), HF_OK);
    cr_assert(mpz_cmp(got, want) == 0, "linear extensions of a %u-event forest", n);
    forest_triples(want, n, depth, size);
    cr_assert_eq(hf_count_admissible(p, 3, NULL, 0, got, NULL), HF_OK);
    cr_assert(mpz_cmp(got, want) == 0, "triples of a %u-event forest", n);
    mpz_clears(want, got, den, NULL);
    free(depth);
    free(size);
}

Test(count, large_chain_star_and_forest)
{
    const uint32_t n = 200000;
    mpz_t got, want;
    mpz_inits(got, want, NULL);

    hf_poset *p = tu_chain(n);
    cr_assert_eq(hf_count_linear_extensions(p, got, NULL), HF_OK);
    cr_assert(mpz_cmp_ui(got, 1) == 0);
    for (unsigned d = 1; d <= 4; d++) {
        cr_assert_eq(hf_count_admissible(p, d, NULL, 0, got, NULL), HF_OK);
        mpz_bin_uiui(want, n, d); /* one order per d-set */
        cr_assert(mpz_cmp(got, want) == 0, "chain, d=%u", d);
    }
    cr_assert_eq(lower_bound(p, 3), 1);
    hf_poset_free(p);

    /* a star: root and n-1 leaves, and its reverse */
    uint32_t(*e)[2] = malloc((n - 1) * sizeof *e);
    for (uint32_t i = 1; i < n; i++) {
        e[i - 1][0] = 0;
        e[i - 1][1] = i;
    }
    p = tu_poset(n, (const uint32_t(*)[2])e, n - 1);
    mpz_fac_ui(want, n - 1);
    cr_assert_eq(hf_count_linear_extensions(p, got, NULL), HF_OK);
    cr_assert(mpz_cmp(got, want) == 0, "star: (n-1)! extensions");
    check_large_forest(p, false);
    cr_assert_eq(lower_bound(p, 3), 18); /* ceil(log2(n - 2)) beats 3! and the chain bound 2 */
    hf_poset_free(p);
    for (uint32_t i = 1; i < n; i++) {
        e[i - 1][0] = i;
        e[i - 1][1] = 0;
    }
    p = tu_poset(n, (const uint32_t(*)[2])e, n - 1);
    mpz_fac_ui(want, n - 1);
    cr_assert_eq(hf_count_linear_extensions(p, got, NULL), HF_OK);
    cr_assert(mpz_cmp(got, want) == 0, "in-star: (n-1)! extensions");
    check_large_forest(p, true);
    hf_poset_free(p);
    free(e);

    uint64_t rng = 2024;
    p = tu_random_forest(n, 3, &rng);
    check_large_forest(p, false);
    hf_poset_free(p);
    p = tu_random_inforest(n, 1, &rng);
    check_large_forest(p, true);
    hf_poset_free(p);
    mpz_clears(got, want, NULL);
}

Test(count, large_forest_lower_bound_chain_term)
{
    /* two chains of 100000 under one root: the free-chain bound gives 100001 for d >= 3 */
    const uint32_t half = 100000, n = 2 * half + 1;
    uint32_t(*e)[2] = malloc(n * sizeof *e);
    size_t m = 0;
    for (uint32_t b = 0; b < 2; b++)
        for (uint32_t i = 0; i < half; i++) {
            e[m][0] = i == 0 ? 0 : 1 + b * half + i - 1;
            e[m][1] = 1 + b * half + i;
            m++;
        }
    hf_poset *p = tu_poset(n, (const uint32_t(*)[2])e, m);
    cr_assert_eq(lower_bound(p, 3), half + 1);
    cr_assert_eq(lower_bound(p, 2), 2);
    mpz_t got, want;
    mpz_inits(got, want, NULL);
    mpz_bin_uiui(want, 2 * half, half); /* interleavings of the two chains */
    cr_assert_eq(hf_count_linear_extensions(p, got, NULL), HF_OK);
    cr_assert(mpz_cmp(got, want) == 0);
    mpz_clears(got, want, NULL);
    hf_poset_free(p);
    free(e);
}

/* ---------------------------------------------------------------------------------------- */
/* Limits and errors                                                                          */

Test(count, wide_general_order_is_refused)
{
    /* an antichain of 40 plus a diamond: neither a forest nor an in-forest */
    uint32_t e[4][2] = {{40, 41}, {40, 42}, {41, 43}, {42, 43}};
    hf_poset *p = tu_poset(44, (const uint32_t(*)[2])e, 4);
    cr_assert_eq(hf_poset_shape(p) & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST), 0);
    mpz_t got;
    mpz_init_set_ui(got, 12345);
    hf_error err;
    cr_assert_eq(hf_count_linear_extensions(p, got, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "more than") && strstr(err.text, "down-sets"), "%s", err.text);
    /* the other counts still work */
    bool *lt = brute_closure(p);
    expect_tuples(p, 3, NULL, 0, brute_tuples(lt, 44, 3, NULL, 0));
    cr_assert_eq(lower_bound(p, 3), 6);
    free(lt);
    mpz_clear(got);
    hf_poset_free(p);
}

Test(count, down_set_limit_during_the_count)
{
    /* six chains of 12 (13^6 > 4M down-sets, yet no antichain wider than 6), two of them joined
     * below and above by extra events so that the order is not a forest or in-forest */
    uint32_t e[80][2];
    size_t m = 0;
    for (uint32_t c = 0; c < 6; c++)
        for (uint32_t i = 1; i < 12; i++) {
            e[m][0] = c * 12 + i - 1;
            e[m][1] = c * 12 + i;
            m++;
        }
    uint32_t lo = 72, hi = 73;
    uint32_t extra[4][2] = {{lo, 0}, {lo, 12}, {11, hi}, {23, hi}};
    for (int i = 0; i < 4; i++, m++) {
        e[m][0] = extra[i][0];
        e[m][1] = extra[i][1];
    }
    hf_poset *p = tu_poset(74, (const uint32_t(*)[2])e, m);
    cr_assert_eq(hf_poset_shape(p) & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST), 0);
    mpz_t got;
    mpz_init(got);
    hf_error err;
    cr_assert_eq(hf_count_linear_extensions(p, got, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "more than") && strstr(err.text, "down-sets"), "%s", err.text);
    mpz_clear(got);
    hf_poset_free(p);
}

Test(count, invalid_arguments_and_empty_order)
{
    hf_poset *p = tu_chain(3);
    mpz_t z;
    mpz_init(z);
    hf_error err;
    cr_assert_eq(hf_count_linear_extensions(NULL, z, &err), HF_EINVAL);
    cr_assert_eq(hf_count_admissible(NULL, 2, NULL, 0, z, &err), HF_EINVAL);
    cr_assert_eq(hf_count_lower_bound(NULL, 2, z, &err), HF_EINVAL);
    cr_assert_eq(hf_count_admissible(p, 0, NULL, 0, z, &err), HF_EINVAL);
    cr_assert_eq(hf_count_admissible(p, HF_MAX_D + 1, NULL, 0, z, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "d must be"), "%s", err.text);
    cr_assert_eq(hf_count_lower_bound(p, 0, z, &err), HF_EINVAL);
    cr_assert_eq(hf_count_lower_bound(p, HF_MAX_D + 1, z, &err), HF_EINVAL);
    uint32_t bad[2] = {1, 3};
    cr_assert_eq(hf_count_admissible(p, 2, bad, 2, z, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "out of range"), "%s", err.text);
    cr_assert_eq(hf_count_admissible(p, 2, NULL, 1, z, &err), HF_EINVAL);
    /* a focus array with no events: nothing is counted */
    cr_assert_eq(hf_count_admissible(p, 1, bad, 0, z, &err), HF_OK);
    cr_assert(mpz_cmp_ui(z, 0) == 0);
    /* d larger than n */
    cr_assert_eq(hf_count_admissible(p, 4, NULL, 0, z, &err), HF_OK);
    cr_assert(mpz_cmp_ui(z, 0) == 0);
    cr_assert_eq(hf_count_admissible(p, HF_MAX_D, NULL, 0, z, NULL), HF_OK);
    cr_assert(mpz_cmp_ui(z, 0) == 0);
    hf_poset_free(p);

    p = tu_antichain(0);
    cr_assert_eq(hf_count_linear_extensions(p, z, &err), HF_OK);
    cr_assert(mpz_cmp_ui(z, 1) == 0);
    cr_assert_eq(hf_count_admissible(p, 1, NULL, 0, z, &err), HF_OK);
    cr_assert(mpz_cmp_ui(z, 0) == 0);
    cr_assert_eq(hf_count_lower_bound(p, 3, z, &err), HF_OK);
    cr_assert(mpz_cmp_ui(z, 0) == 0);
    hf_poset_free(p);

    p = tu_antichain(1);
    cr_assert_eq(lower_bound(p, 3), 1);
    cr_assert_eq(tuples_u64(p, 1), 1);
    hf_poset_free(p);
    mpz_clear(z);
}

/* ---------------------------------------------------------------------------------------- */
/* Allocation failures                                                                        */

/* The same order, built again with a context. */
static hf_poset *with_ctx(const hf_poset *q, hf_ctx *ctx) { return tu_poset_copy(q, ctx); }

enum { DO_LINEXT, DO_TUPLES, DO_TUPLES_FOCUS, DO_BOUND };

static hf_status run(const hf_poset *p, int what, mpz_t out, hf_error *err)
{
    static const uint32_t focus[] = {0, 2, 3, 5};
    switch (what) {
    case DO_LINEXT:
        return hf_count_linear_extensions(p, out, err);
    case DO_TUPLES:
        return hf_count_admissible(p, 3, NULL, 0, out, err);
    case DO_TUPLES_FOCUS:
        return hf_count_admissible(p, 3, focus, 4, out, err);
    default:
        return hf_count_lower_bound(p, 3, out, err);
    }
}

Test(count, out_of_memory_paths)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    uint64_t rng = 11;
    hf_poset *orders[4];
    orders[0] = tu_random_dag(12, 1, 3, &rng);
    orders[1] = tu_random_forest(40, 2, &rng);
    orders[2] = tu_random_inforest(40, 1, &rng);
    orders[3] = tu_double_tree(2);
    for (int k = 0; k < 4; k++) {
        hf_poset *p = with_ctx(orders[k], ctx);
        for (int what = DO_LINEXT; what <= DO_BOUND; what++) {
            mpz_t want, got;
            mpz_inits(want, got, NULL);
            c.left = -1;
            cr_assert_eq(run(p, what, want, NULL), HF_OK);
            hf_status st = HF_ENOMEM;
            for (long fail = 0; st == HF_ENOMEM; fail++) {
                cr_assert_lt(fail, 100000);
                c.left = fail;
                hf_error err;
                st = run(p, what, got, &err);
                if (st == HF_ENOMEM)
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
            }
            c.left = -1;
            cr_assert_eq(st, HF_OK);
            cr_assert(mpz_cmp(want, got) == 0);
            mpz_clears(want, got, NULL);
        }
        hf_poset_free(p);
        hf_poset_free(orders[k]);
    }
    hf_ctx_free(ctx);
}

/* The work limit of the prefix enumeration: a clear refusal below the work needed, the same
 * number as unbounded above it. */
Test(count, admissible_tuples_within_a_work_limit)
{
    uint64_t rng = 77;
    hf_poset *p = tu_random_dag(40, 1, 8, &rng);
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    hf_error err;
    cr_assert_eq(hf_count_admissible_bounded(p, 4, NULL, 0, 0, a, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_count_admissible(p, 4, NULL, 0, b, &err), HF_OK, "%s", err.text);
    cr_assert(mpz_cmp(a, b) == 0);
    cr_assert_eq(hf_count_admissible_bounded(p, 4, NULL, 0, 1000, b, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "more than 1000 steps"), "%s", err.text);
    /* forests are counted by their formula, whatever the limit */
    hf_poset *t = tu_random_forest(500, 1, &rng);
    cr_assert_eq(hf_count_admissible_bounded(t, 4, NULL, 0, 1, b, &err), HF_OK, "%s", err.text);
    hf_poset_free(t);
    mpz_clears(a, b, NULL);
    hf_poset_free(p);
}

/* The shared table of down-sets (lib/downsets.h): keys of two words found again after many
 * growths, values that follow their keys, the room budget refusing the set past it (the table
 * unchanged), and every allocation failing in turn leaving a table that is whole and leaks
 * nothing. */
static hf_status fill_downsets(hf_ctx *ctx, hf_i_downsets *t, size_t sets, size_t *room)
{
    hf_word key[2];
    mpz_t v;
    mpz_init(v);
    hf_status st = HF_OK;
    for (size_t i = 0; i < 2 * sets && !st; i++) {
        /* every set twice: first created, then its value doubled */
        size_t k = i % sets;
        key[0] = (hf_word)k * 0x9e3779b97f4a7c15u;
        key[1] = k % 3;
        mpz_set_ui(v, (unsigned long)k + 1);
        st = hf_i_downsets_add_mpz(ctx, t, key, v, k % 2 == 1, room);
    }
    mpz_clear(v);
    return st;
}

Test(count, downset_table)
{
    enum { SETS = 5000 };
    hf_i_downsets t;
    hf_i_downsets_init(&t, 2, sizeof(mpz_t));
    size_t room = SETS;
    cr_assert_eq(fill_downsets(NULL, &t, SETS, &room), HF_OK);
    cr_assert_eq(t.count, SETS);
    cr_assert_eq(room, 0);
    for (size_t k = 0; k < SETS; k++) {
        const hf_word *key = hf_i_downsets_key(&t, k);
        cr_assert_eq(key[0], (hf_word)k * 0x9e3779b97f4a7c15u);
        cr_assert_eq(hf_i_downsets_find(&t, key), k);
        long want = 2 * ((long)k + 1) * (k % 2 ? -1 : 1);
        cr_assert_eq(mpz_get_si(hf_i_downsets_mpz(&t)[k]), want, "set %zu", k);
    }
    hf_word other[2] = {1, 7};
    cr_assert_eq(hf_i_downsets_find(&t, other), SIZE_MAX);
    size_t at = 0;
    bool fresh = true;
    cr_assert_eq(hf_i_downsets_add(NULL, &t, other, &room, &at, &fresh), HF_ETOOLARGE);
    cr_assert_eq(t.count, SETS);
    cr_assert_eq(hf_i_downsets_add(NULL, &t, hf_i_downsets_key(&t, 17), &room, &at, &fresh), HF_OK,
                 "a present set needs no room");
    cr_assert(!fresh);
    cr_assert_eq(at, 17);
    hf_i_downsets_clear_mpz(NULL, &t);
    cr_assert_eq(t.count, 0);
    cr_assert_eq(hf_i_downsets_find(&t, other), SIZE_MAX);

    tu_chaos c = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    long base = c.live;
    hf_status st = HF_ENOMEM;
    for (long fail = 0; st == HF_ENOMEM; fail++) {
        cr_assert_lt(fail, 1000);
        hf_i_downsets_init(&t, 2, sizeof(mpz_t));
        room = 300;
        c.left = fail;
        st = fill_downsets(ctx, &t, 300, &room);
        c.left = -1;
        /* what was added is whole: every key found at its index */
        for (size_t k = 0; k < t.count; k++)
            cr_assert_eq(hf_i_downsets_find(&t, hf_i_downsets_key(&t, k)), k);
        hf_i_downsets_clear_mpz(ctx, &t);
        cr_assert_eq(c.live, base, "leak after failing allocation %ld", fail);
    }
    cr_assert_eq(st, HF_OK);
    hf_ctx_free(ctx);
}
