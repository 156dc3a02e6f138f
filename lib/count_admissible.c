/* Exact counts of admissible d-tuples (include/hitfam/count.h), as GMP integers: a tree
 * dynamic program for forests and in-forests, enumeration of prefixes otherwise. */
#include <string.h>

#include "count_i.h"
#include "hitfam/count.h"

/* Vectors F[0..d] of big numbers, recycled: F[k] = admissible k-tuples of a part of the forest.
 * Entries at len and beyond are zero. */
typedef struct vec_pool {
    unsigned d;
    size_t count, cap;
    mpz_t *num;     /* cap * (d + 1) */
    unsigned *len;  /* cap */
    uint32_t *free; /* cap */
    size_t free_count;
    mpz_t t, u; /* scratch */
    unsigned long binom[HF_MAX_D + 1][HF_MAX_D + 1];
} vec_pool;

static void pool_init(vec_pool *P, unsigned d)
{
    memset(P, 0, sizeof *P);
    P->d = d;
    mpz_init(P->t);
    mpz_init(P->u);
    for (unsigned k = 0; k <= d; k++) {
        P->binom[k][0] = P->binom[k][k] = 1;
        for (unsigned j = 1; j < k; j++)
            P->binom[k][j] = P->binom[k - 1][j - 1] + P->binom[k - 1][j];
    }
}

static void pool_clear(hf_ctx *ctx, vec_pool *P)
{
    for (size_t i = 0; i < P->count * (P->d + 1); i++)
        mpz_clear(P->num[i]);
    hf_i_free(ctx, P->num);
    hf_i_free(ctx, P->len);
    hf_i_free(ctx, P->free);
    mpz_clear(P->t);
    mpz_clear(P->u);
}

/* A vector holding F = (1, 0, ..., 0): the empty part. */
static hf_status pool_get(hf_ctx *ctx, vec_pool *P, uint32_t *id)
{
    unsigned m = P->d + 1;
    if (P->free_count) {
        *id = P->free[--P->free_count];
        for (unsigned k = 0; k < m; k++)
            mpz_set_ui(P->num[*id * m + k], k == 0);
        P->len[*id] = 1;
        return HF_OK;
    }
    if (P->count == P->cap) {
        size_t cap = P->cap ? 2 * P->cap : 16;
        mpz_t *num = hf_i_realloc_array(ctx, P->num, cap * m, sizeof *num);
        if (!num)
            return HF_ENOMEM;
        P->num = num;
        unsigned *len = hf_i_realloc_array(ctx, P->len, cap, sizeof *len);
        if (!len)
            return HF_ENOMEM;
        P->len = len;
        uint32_t *fr = hf_i_realloc_array(ctx, P->free, cap, sizeof *fr);
        if (!fr)
            return HF_ENOMEM;
        P->free = fr;
        P->cap = cap;
    }
    *id = (uint32_t)P->count;
    for (unsigned k = 0; k < m; k++)
        mpz_init_set_ui(P->num[P->count * m + k], k == 0);
    P->len[P->count] = 1;
    P->count++;
    return HF_OK;
}

static mpz_t *pool_vec(vec_pool *P, uint32_t id) { return P->num + (size_t)id * (P->d + 1); }

/* Put v itself below its subtree: if chosen it must come first, so F[k] = G[k] + G[k-1]. */
static void vec_add_root(vec_pool *P, uint32_t id)
{
    mpz_t *F = pool_vec(P, id);
    unsigned len = P->len[id] + 1 <= P->d + 1 ? P->len[id] + 1 : P->d + 1;
    for (unsigned k = len - 1; k >= 1; k--)
        mpz_add(F[k], F[k], F[k - 1]);
    P->len[id] = len;
}

/* A := A * B for disjoint, mutually incomparable parts: a k-tuple of the union interleaves a
 * j-tuple of B with a (k-j)-tuple of A in C(k, j) ways. Descending k reads only entries not yet
 * overwritten. */
static void vec_merge(vec_pool *P, uint32_t a, uint32_t b)
{
    mpz_t *A = pool_vec(P, a), *B = pool_vec(P, b);
    unsigned la = P->len[a], lb = P->len[b];
    unsigned len = la + lb - 1 <= P->d + 1 ? la + lb - 1 : P->d + 1;
    for (unsigned k = len; k-- > 0;) {
        mpz_set_ui(P->t, 0);
        unsigned jlo = k >= la ? k - (la - 1) : 0, jhi = k < lb - 1 ? k : lb - 1;
        for (unsigned j = jlo; j <= jhi; j++) {
            if (mpz_cmp_ui(B[j], 1) == 0) {
                mpz_addmul_ui(P->t, A[k - j], P->binom[k][j]);
            } else {
                mpz_mul(P->u, B[j], A[k - j]);
                mpz_addmul_ui(P->t, P->u, P->binom[k][j]);
            }
        }
        mpz_swap(A[k], P->t);
    }
    P->len[a] = len;
}

/* F_v over the tree view in postorder, without recursion. Visiting the child with the largest
 * subtree first keeps the vectors alive at once to O(log n): a vector exists for an ancestor
 * only after one of its children is finished, and the path from the current event to the root
 * leaves a heaviest child at most log2(n) times. O(n * d^2) big-number operations. */
static hf_status admissible_forest(const hf_poset *p, unsigned d, mpz_t out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    vec_pool P;
    pool_init(&P, d);
    uint32_t *fr_node = hf_i_alloc_array(ctx, n, sizeof *fr_node);
    uint32_t *fr_heavy = hf_i_alloc_array(ctx, n, sizeof *fr_heavy);
    uint32_t *fr_pos = hf_i_alloc_array(ctx, n, sizeof *fr_pos);
    uint32_t *fr_acc = hf_i_alloc_array(ctx, n, sizeof *fr_acc);
    uint32_t all = NONE;
    hf_status st = HF_OK;
    if (!fr_node || !fr_heavy || !fr_pos || !fr_acc || (st = pool_get(ctx, &P, &all)))
        goto out;
    for (uint32_t r = 0; r < n; r++) {
        if (hf_i_tree_parent(p, r) != HF_NO_EVENT)
            continue;
        size_t sp = 0;
        uint32_t c = r;
        for (;;) {
            if (c != NONE) {
                uint32_t cnt, heavy = NONE;
                const uint32_t *ch = hf_i_tree_children(p, c, &cnt);
                for (uint32_t i = 0; i < cnt; i++)
                    if (heavy == NONE || p->subtree[ch[i]] > p->subtree[heavy])
                        heavy = ch[i];
                fr_node[sp] = c;
                fr_heavy[sp] = heavy;
                fr_pos[sp] = NONE;
                fr_acc[sp] = NONE;
                sp++;
            }
            size_t f = sp - 1;
            uint32_t cnt;
            const uint32_t *ch = hf_i_tree_children(p, fr_node[f], &cnt);
            c = NONE;
            if (fr_pos[f] == NONE) {
                fr_pos[f] = 0;
                c = fr_heavy[f];
            } else {
                while (fr_pos[f] < cnt && ch[fr_pos[f]] == fr_heavy[f])
                    fr_pos[f]++;
                if (fr_pos[f] < cnt)
                    c = ch[fr_pos[f]++];
            }
            if (c != NONE)
                continue;
            uint32_t F = fr_acc[f];
            if (F == NONE && (st = pool_get(ctx, &P, &F)))
                goto out;
            vec_add_root(&P, F);
            sp--;
            uint32_t *target = sp > 0 ? &fr_acc[sp - 1] : &all;
            if (*target == NONE) {
                *target = F;
            } else {
                vec_merge(&P, *target, F);
                P.free[P.free_count++] = F;
            }
            if (sp == 0)
                break;
        }
    }
    if (P.len[all] > d)
        mpz_set(out, pool_vec(&P, all)[d]);
    else
        mpz_set_ui(out, 0);
out:
    if (!fr_node || !fr_heavy || !fr_pos || !fr_acc)
        st = HF_ENOMEM;
    pool_clear(ctx, &P);
    hf_i_free(ctx, fr_node);
    hf_i_free(ctx, fr_heavy);
    hf_i_free(ctx, fr_pos);
    hf_i_free(ctx, fr_acc);
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory counting admissible tuples");
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Admissible tuples by enumeration of prefixes                                              */

/* Depth-first over admissible (d-1)-prefixes of focus events. blocked[i] holds the events the
 * (i+1)-th entry may not be: the chosen ones and everything strictly below one of them (a later
 * entry below an earlier one is what admissibility forbids). It is a union of principal
 * down-sets, hence down-closed, as hf_i_or_down_set needs. The last entry is only counted.
 * list/list_len: the focus events (sorted, distinct), for counting when they are few. */
static hf_status admissible_enum(const hf_poset *p, unsigned d, const hf_word *mask,
                                 const uint32_t *list, size_t list_len, uint64_t max_work,
                                 mpz_t out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    size_t W = hf_i_words(p->n);
    if (d == 1 || list_len == 0) {
        hf_i_mpz_set_u64(out, d == 1 ? list_len : 0);
        return HF_OK;
    }
    /* each prefix costs a few dozen steps, about W words to extend and min(W, list_len) to count
     * its last entries; the work is checked as it goes (the number of prefixes is what is not
     * known) */
    uint64_t step = 32 + 2 * (uint64_t)W + (list_len < W ? list_len : W), work = 0;
    hf_word *blocked = hf_i_calloc(ctx, (size_t)d * W, sizeof *blocked);
    if (!blocked)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory counting admissible tuples");
    mpz_t part;
    mpz_init(part);
    mpz_set_ui(out, 0);
    uint64_t acc = 0;
    size_t wi[HF_MAX_D];
    hf_word bits[HF_MAX_D];
    unsigned i = 0;
    wi[0] = 0;
    bits[0] = mask[0];
    for (;;) {
        const hf_word *bl = blocked + (size_t)i * W;
        while (bits[i] == 0 && wi[i] + 1 < W) {
            wi[i]++;
            bits[i] = mask[wi[i]] & ~bl[wi[i]];
        }
        if (bits[i] == 0) {
            if (i == 0)
                break;
            i--;
            continue;
        }
        uint32_t x = (uint32_t)(wi[i] * 64 + hf_i_ctz(bits[i]));
        bits[i] &= bits[i] - 1;
        /* every 2^24 steps of work (one report per few milliseconds of enumeration) */
        if ((work + step) >> 24 != work >> 24 &&
            hf_i_progress(ctx, "count", work, max_work == UINT64_MAX ? 0 : max_work, err)) {
            mpz_clear(part);
            hf_i_free(ctx, blocked);
            return HF_EABORTED;
        }
        if ((work += step) > max_work) {
            mpz_clear(part);
            hf_i_free(ctx, blocked);
            return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                             "counting admissible %u-tuples of this order needs more than %" PRIu64
                             " steps of work (the limit; it enumerates the admissible "
                             "%u-prefixes)",
                             d, max_work, d - 1);
        }
        hf_word *nb = blocked + (size_t)(i + 1) * W;
        memcpy(nb, bl, W * sizeof *nb);
        hf_i_or_down_set(p, x, nb);
        hf_i_bit_set(nb, x);
        if (i + 2 < d) {
            i++;
            wi[i] = 0;
            bits[i] = mask[0] & ~nb[0];
            continue;
        }
        uint64_t c = 0;
        if (list_len < W) {
            for (size_t k = 0; k < list_len; k++)
                c += !hf_i_bit_test(nb, list[k]);
        } else {
            for (size_t w = 0; w < W; w++)
                c += hf_i_popcount(mask[w] & ~nb[w]);
        }
        acc += c;
        if (acc >> 63) { /* each step adds at most n < 2^32: flush long before overflow */
            hf_i_mpz_set_u64(part, acc);
            mpz_add(out, out, part);
            acc = 0;
        }
    }
    hf_i_mpz_set_u64(part, acc);
    mpz_add(out, out, part);
    mpz_clear(part);
    hf_i_free(ctx, blocked);
    return HF_OK;
}

hf_status hf_count_admissible(const hf_poset *p, unsigned d, const uint32_t *focus,
                              size_t focus_count, mpz_t out, hf_error *err)
{
    return hf_count_admissible_bounded(p, d, focus, focus_count, HF_COUNT_DEFAULT_WORK, out, err);
}

hf_status hf_count_admissible_bounded(const hf_poset *p, unsigned d, const uint32_t *focus,
                                      size_t focus_count, uint64_t max_work, mpz_t out,
                                      hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_status bad = hf_i_check_d_focus(p, d, focus, focus_count, err);
    if (bad)
        return bad;
    uint32_t n = p->n;
    if (n == 0) {
        mpz_set_ui(out, 0);
        return HF_OK;
    }
    if (!focus && hf_i_forest_like(p))
        return admissible_forest(p, d, out, err);
    if (!hf_i_forest_like(p) && !p->closure)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "counting admissible tuples of an order that is neither a forest nor "
                         "an in-forest is limited to %u events",
                         HF_CLOSURE_MAX_EVENTS);
    hf_ctx *ctx = p->ctx;
    size_t W = hf_i_words(n);
    hf_word *mask = hf_i_calloc(ctx, W, sizeof *mask);
    uint32_t *list = hf_i_alloc_array(ctx, n, sizeof *list);
    if (!mask || !list) {
        hf_i_free(ctx, mask);
        hf_i_free(ctx, list);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory counting admissible tuples");
    }
    if (focus) {
        for (size_t i = 0; i < focus_count; i++)
            hf_i_bit_set(mask, focus[i]);
    } else {
        for (uint32_t v = 0; v < n; v++)
            hf_i_bit_set(mask, v);
    }
    size_t list_len = 0;
    for (uint32_t v = 0; v < n; v++)
        if (hf_i_bit_test(mask, v))
            list[list_len++] = v;
    hf_status st =
        admissible_enum(p, d, mask, list, list_len, max_work ? max_work : UINT64_MAX, out, err);
    hf_i_free(ctx, mask);
    hf_i_free(ctx, list);
    return st;
}
