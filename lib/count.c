/* Exact counts (linear extensions, admissible d-tuples) and lower bounds on d-hitting families,
 * as GMP integers: tree formulas for forests, down-set DP and prefix enumeration otherwise. */
#include <string.h>

#include "downsets.h"
#include "hitfam/count.h"
#include "internal.h"
#include "poset_i.h"

static void set_u64(mpz_t z, uint64_t v)
{
#if ULONG_MAX >= UINT64_MAX
    mpz_set_ui(z, (unsigned long)v);
#else
    mpz_import(z, 1, -1, sizeof v, 0, 0, &v);
#endif
}

static bool is_forest_like(const hf_poset *p)
{
    return p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST);
}

/* The tree view of a forest or in-forest: for an in-forest (p->dual) the tree is the reversed
 * order, so tree parents are Hasse successors and tree children Hasse predecessors. */
static uint32_t tree_parent(const hf_poset *p, uint32_t v)
{
    if (!p->dual)
        return p->parent[v];
    return p->succ_off[v] < p->succ_off[v + 1] ? p->succ[p->succ_off[v]] : HF_NO_EVENT;
}

static const uint32_t *tree_children(const hf_poset *p, uint32_t v, uint32_t *count)
{
    const size_t *off = p->dual ? p->pred_off : p->succ_off;
    const uint32_t *adj = p->dual ? p->pred : p->succ;
    *count = (uint32_t)(off[v + 1] - off[v]);
    return adj + off[v];
}

/* ---------------------------------------------------------------------------------------- */
/* Antichains and free chains (for the lower bounds, see docs/bounds.md)                     */

typedef struct shape_facts {
    uint32_t antichain;  /* size of the largest antichain found */
    uint32_t free_chain; /* longest chain whose events are all incomparable to one event */
} shape_facts;

/* Forests: the leaves of the tree view are a largest antichain (the root-leaf paths cover the
 * order with as many chains). A chain lies on one root-leaf path, and the events incomparable to
 * e are the subtrees of the siblings of e and of its ancestors (roots count as siblings of each
 * other). So the longest chain avoiding e's comparables is the best height among those
 * siblings, and its maximum over all e is the tallest member of any sibling group that has at
 * least two members (take e in a shorter or equally tall member). O(n). */
static hf_status facts_forest(const hf_poset *p, bool want_chain, shape_facts *sf)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    sf->antichain = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t cnt;
        tree_children(p, v, &cnt);
        sf->antichain += cnt == 0;
    }
    sf->free_chain = 0;
    if (!want_chain)
        return HF_OK;
    uint32_t *h = hf_i_alloc_array(ctx, n, sizeof *h);
    if (!h)
        return HF_ENOMEM;
    uint32_t roots = 0, root_best = 0;
    for (uint32_t t = n; t-- > 0;) { /* children before parents */
        uint32_t v = p->dfs_order[t], cnt, m = 0;
        const uint32_t *ch = tree_children(p, v, &cnt);
        for (uint32_t i = 0; i < cnt; i++)
            m = h[ch[i]] > m ? h[ch[i]] : m;
        h[v] = m + 1;
        if (cnt >= 2 && m > sf->free_chain)
            sf->free_chain = m;
        if (tree_parent(p, v) == HF_NO_EVENT) {
            roots++;
            root_best = h[v] > root_best ? h[v] : root_best;
        }
    }
    if (roots >= 2 && root_best > sf->free_chain)
        sf->free_chain = root_best;
    hf_i_free(ctx, h);
    return HF_OK;
}

/* Other orders (closure available). Antichains: the minimal events, the maximal events, and
 * the largest rank level (events with the same longest chain from below are pairwise
 * incomparable) -- valid, not always a largest antichain. Chain: for each e, the events
 * incomparable to e form a convex set (anything between two of them is incomparable to e too),
 * so the longest chain in it is a longest Hasse path inside it. O(n * (n + e)). */
static hf_status facts_general(const hf_poset *p, bool want_chain, shape_facts *sf)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    uint32_t *len = hf_i_calloc(ctx, n, sizeof *len);
    uint32_t *level = hf_i_calloc(ctx, (size_t)n + 1, sizeof *level);
    uint8_t *comp = want_chain ? hf_i_alloc_array(ctx, n, 1) : NULL;
    hf_status st = HF_OK;
    if (!len || !level || (want_chain && !comp)) {
        st = HF_ENOMEM;
        goto out;
    }
    uint32_t minimal = 0, maximal = 0, widest = 0;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t v = p->topo[t], m = 0;
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
            m = len[p->pred[i]] > m ? len[p->pred[i]] : m;
        len[v] = m + 1;
        level[len[v]]++;
        widest = level[len[v]] > widest ? level[len[v]] : widest;
        minimal += p->pred_off[v] == p->pred_off[v + 1];
        maximal += p->succ_off[v] == p->succ_off[v + 1];
    }
    sf->antichain = widest;
    sf->antichain = minimal > sf->antichain ? minimal : sf->antichain;
    sf->antichain = maximal > sf->antichain ? maximal : sf->antichain;
    sf->free_chain = 0;
    if (!want_chain)
        goto out;
    /* no chain is longer than the height: stop once it is reached */
    for (uint32_t e = 0; e < n && sf->free_chain < p->height; e++) {
        const hf_word *below_e = p->closure + (size_t)e * p->closure_words;
        for (uint32_t v = 0; v < n; v++)
            comp[v] = v == e || hf_i_bit_test(below_e, v) ||
                      hf_i_bit_test(p->closure + (size_t)v * p->closure_words, e);
        for (uint32_t t = 0; t < n; t++) {
            uint32_t v = p->topo[t], m = 0;
            if (comp[v])
                continue;
            for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
                if (!comp[p->pred[i]] && len[p->pred[i]] > m)
                    m = len[p->pred[i]];
            len[v] = m + 1;
            sf->free_chain = len[v] > sf->free_chain ? len[v] : sf->free_chain;
        }
    }
out:
    hf_i_free(ctx, len);
    hf_i_free(ctx, level);
    hf_i_free(ctx, comp);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Linear extensions of forests: n! / prod(subtree sizes)                                    */

/* Balanced product, so that the big multiplications see operands of similar size (GMP's fast
 * multiplication only pays off then). len >= 1. */
static void product_tree(mpz_t out, const unsigned long *a, size_t len)
{
    if (len <= 16) {
        mpz_set_ui(out, a[0]);
        for (size_t i = 1; i < len; i++)
            mpz_mul_ui(out, out, a[i]);
        return;
    }
    mpz_t right;
    mpz_init(right);
    product_tree(out, a, len / 2);
    product_tree(right, a + len / 2, len - len / 2);
    mpz_mul(out, out, right);
    mpz_clear(right);
}

/* The quotient is built from its prime factorisation instead of dividing two numbers of
 * n log n bits: every k <= n contributes +1 to the exponent vector of k, every subtree size -1;
 * composites hand their exponent to their factors (largest first, so each is pushed once), and
 * what remains on the primes is the exact factorisation of the (integer) quotient. The power
 * product is then taken bit by bit of the exponents: result = prod_b (prod of primes whose
 * exponent has bit b)^(2^b), by repeated squaring. Smallest prime factors of composites up to
 * 2^32 are below 2^16, hence the 16-bit sieve. Time O(n log log n) word operations plus
 * O(M(size of result) log n); memory 10 bytes per event. */
static hf_status linext_forest(const hf_poset *p, mpz_t out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    if (n < 2) {
        mpz_set_ui(out, 1);
        return HF_OK;
    }
    int64_t *ex = hf_i_calloc(ctx, (size_t)n + 1, sizeof *ex);
    uint16_t *spf = hf_i_calloc(ctx, (size_t)n + 1, sizeof *spf);
    unsigned long *words = NULL;
    hf_status st = HF_OK;
    if (!ex || !spf) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory counting linear extensions");
        goto out;
    }
    for (uint32_t k = 2; k <= n; k++)
        ex[k] = 1;
    for (uint32_t v = 0; v < n; v++)
        ex[p->subtree[v]]--;
    for (uint64_t i = 2; i * i <= n; i++)
        if (!spf[i])
            for (uint64_t j = i * i; j <= n; j += i)
                if (!spf[j])
                    spf[j] = (uint16_t)i;
    for (uint32_t k = n; k >= 4; k--)
        if (spf[k] && ex[k]) {
            ex[spf[k]] += ex[k];
            ex[k / spf[k]] += ex[k];
        }
    int64_t top = 0;
    size_t primes = 0;
    for (uint32_t k = 2; k <= n; k++) {
        if (spf[k])
            continue;
        if (ex[k] < 0) { /* the hook-length quotient is an integer: this cannot happen */
            st = hf_i_fail(err, HF_ESTATE, 0, 0,
                           "internal error: negative prime exponent in the hook-length formula");
            goto out;
        }
        top |= ex[k];
        primes++;
    }
    words = hf_i_alloc_array(ctx, primes ? primes : 1, sizeof *words);
    if (!words) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory counting linear extensions");
        goto out;
    }
    mpz_set_ui(out, 1);
    mpz_t part;
    mpz_init(part);
    for (int b = 62; b >= 0; b--) {
        if ((top >> b) == 0)
            continue;
        mpz_mul(out, out, out);
        size_t len = 0;
        unsigned long word = 1;
        for (uint32_t k = 2; k <= n; k++) {
            if (spf[k] || !((ex[k] >> b) & 1))
                continue;
            if (word > ULONG_MAX / k) {
                words[len++] = word;
                word = 1;
            }
            word *= k;
        }
        if (word > 1)
            words[len++] = word;
        if (len) {
            product_tree(part, words, len);
            mpz_mul(out, out, part);
        }
    }
    mpz_clear(part);
out:
    hf_i_free(ctx, ex);
    hf_i_free(ctx, spf);
    hf_i_free(ctx, words);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Linear extensions of other orders: dynamic programming over down-sets                     */

/* Forward over down-set sizes, a table of the down-sets of one size each with the number of
 * linear extensions of the sub-order it induces: every down-set J of size k+1 arises from each J -
 * x with x maximal in J, so pushing each I's count to I + x for every minimal x outside I gives
 * e(J) = sum over maximal x of e(J - x). Only two sizes are alive at a time. Time
 * O(#down-sets * (n + e)), memory O(width of the largest level * n / 64) words.
 * An antichain of w events gives 2^w distinct down-sets (one per subset), so a wide order is
 * refused before any work. */
static hf_status linext_ideals(const hf_poset *p, mpz_t out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    size_t W = hf_i_words(n);
    hf_i_downsets cur, nxt;
    hf_i_downsets_init(&cur, W, sizeof(mpz_t));
    hf_i_downsets_init(&nxt, W, sizeof(mpz_t));
    size_t room = HF_COUNT_MAX_IDEALS;
    shape_facts sf;
    hf_status st = facts_general(p, false, &sf);
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory counting linear extensions");
    if (sf.antichain >= 64 || ((uint64_t)1 << sf.antichain) > HF_COUNT_MAX_IDEALS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the order has more than %u down-sets (HF_COUNT_MAX_IDEALS; it has an "
                         "antichain of %" PRIu32 " events): its linear extensions are not counted",
                         HF_COUNT_MAX_IDEALS, sf.antichain);
    hf_word *J = hf_i_calloc(ctx, W, sizeof *J);
    mpz_t one;
    mpz_init_set_ui(one, 1);
    if (!J || (st = hf_i_downsets_add_mpz(ctx, &cur, J, one, false, &room)))
        goto out;
    hf_word last_mask = n % 64 ? ((hf_word)1 << (n % 64)) - 1 : ~(hf_word)0;
    for (uint32_t k = 0; k < n; k++) {
        for (size_t e = 0; e < cur.count; e++) {
            const hf_word *I = hf_i_downsets_key(&cur, e);
            memcpy(J, I, W * sizeof *J);
            for (size_t w = 0; w < W; w++) {
                hf_word outside = ~I[w] & (w + 1 == W ? last_mask : ~(hf_word)0);
                while (outside) {
                    uint32_t x = (uint32_t)(w * 64 + hf_i_ctz(outside));
                    outside &= outside - 1;
                    bool minimal = true;
                    for (size_t i = p->pred_off[x]; i < p->pred_off[x + 1] && minimal; i++)
                        minimal = hf_i_bit_test(I, p->pred[i]);
                    if (!minimal)
                        continue;
                    hf_i_bit_set(J, x);
                    st = hf_i_downsets_add_mpz(ctx, &nxt, J, hf_i_downsets_mpz(&cur)[e], false,
                                               &room);
                    hf_i_bit_clear(J, x);
                    if (st)
                        goto out;
                }
            }
        }
        hf_i_downsets_clear_mpz(ctx, &cur);
        cur = nxt;
        hf_i_downsets_init(&nxt, W, sizeof(mpz_t));
    }
    mpz_set(out, hf_i_downsets_mpz(&cur)[0]);
out:
    if (!J)
        st = HF_ENOMEM;
    mpz_clear(one);
    hf_i_downsets_clear_mpz(ctx, &cur);
    hf_i_downsets_clear_mpz(ctx, &nxt);
    hf_i_free(ctx, J);
    if (st == HF_ETOOLARGE)
        return hf_i_fail(err, st, 0, 0,
                         "the order has more than %u down-sets (HF_COUNT_MAX_IDEALS): its "
                         "linear extensions are not counted",
                         HF_COUNT_MAX_IDEALS);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, st, 0, 0, "out of memory counting linear extensions");
    return st;
}

hf_status hf_count_linear_extensions(const hf_poset *p, mpz_t out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (p->n == 0) {
        mpz_set_ui(out, 1);
        return HF_OK;
    }
    if (is_forest_like(p))
        return linext_forest(p, out, err);
    return linext_ideals(p, out, err);
}

/* ---------------------------------------------------------------------------------------- */
/* Admissible tuples of forests: a tree dynamic program                                      */

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
        if (tree_parent(p, r) != HF_NO_EVENT)
            continue;
        size_t sp = 0;
        uint32_t c = r;
        for (;;) {
            if (c != NONE) {
                uint32_t cnt, heavy = NONE;
                const uint32_t *ch = tree_children(p, c, &cnt);
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
            const uint32_t *ch = tree_children(p, fr_node[f], &cnt);
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
        set_u64(out, d == 1 ? list_len : 0);
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
            set_u64(part, acc);
            mpz_add(out, out, part);
            acc = 0;
        }
    }
    set_u64(part, acc);
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
    if (d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D, d);
    if (focus_count && !focus)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "focus_count without a focus array");
    for (size_t i = 0; i < focus_count; i++)
        if (focus[i] >= p->n)
            return hf_i_fail(err, HF_EINVAL, 0, 0, "focus event id %" PRIu32 " out of range",
                             focus[i]);
    uint32_t n = p->n;
    if (n == 0) {
        mpz_set_ui(out, 0);
        return HF_OK;
    }
    if (!focus && is_forest_like(p))
        return admissible_forest(p, d, out, err);
    if (!is_forest_like(p) && !p->closure)
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

/* ---------------------------------------------------------------------------------------- */
/* Lower bounds                                                                               */

hf_status hf_count_lower_bound(const hf_poset *p, unsigned d, mpz_t out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D, d);
    if (p->n == 0) {
        mpz_set_ui(out, 0);
        return HF_OK;
    }
    uint64_t bound = 1;
    if (d >= 2 && !(p->shape & HF_SHAPE_CHAIN))
        bound = 2;
    shape_facts sf;
    hf_status st;
    if (is_forest_like(p))
        st = facts_forest(p, d >= 3, &sf);
    else if (p->closure)
        st = facts_general(p, d >= 3, &sf);
    else
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "lower bounds for orders that are neither forests nor in-forests are "
                         "limited to %u events",
                         HF_CLOSURE_MAX_EVENTS);
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory computing a lower bound");
    if (sf.antichain >= d) {
        uint64_t f = 1;
        for (unsigned k = 2; k <= d; k++)
            f *= k;
        bound = f > bound ? f : bound;
    }
    if (d >= 3) {
        if (sf.free_chain >= 1 && (uint64_t)sf.free_chain + 1 > bound)
            bound = (uint64_t)sf.free_chain + 1;
        if (sf.antichain >= 3) {
            /* ceil(log2(w - 1)): the bits needed to tell w - 1 columns apart */
            uint64_t m = sf.antichain - 1, bits = 0;
            while (((uint64_t)1 << bits) < m)
                bits++;
            bound = bits > bound ? bits : bound;
        }
    }
    set_u64(out, bound);
    return HF_OK;
}
