/* Exact counts of linear extensions and lower bounds on d-hitting families, as GMP integers:
 * tree formulas for forests, down-set DP otherwise (admissible tuples: lib/count_admissible.c). */
#include <string.h>

#include "count_i.h"
#include "downsets.h"
#include "hitfam/count.h"
#include "internal.h"
#include "poset_i.h"

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
        hf_i_tree_children(p, v, &cnt);
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
        const uint32_t *ch = hf_i_tree_children(p, v, &cnt);
        for (uint32_t i = 0; i < cnt; i++)
            m = h[ch[i]] > m ? h[ch[i]] : m;
        h[v] = m + 1;
        if (cnt >= 2 && m > sf->free_chain)
            sf->free_chain = m;
        if (hf_i_tree_parent(p, v) == HF_NO_EVENT) {
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
    size_t room = HF_COUNT_MAX_IDEALS, expanded = 0;
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
            /* the down-sets made so far, every 4096 expanded (some milliseconds) */
            if ((++expanded & 4095) == 0 &&
                (st = hf_i_progress(ctx, "count", HF_COUNT_MAX_IDEALS - room, 0, err)))
                goto out;
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
    if (hf_i_forest_like(p))
        return linext_forest(p, out, err);
    return linext_ideals(p, out, err);
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
    if (hf_i_forest_like(p))
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
    hf_i_mpz_set_u64(out, bound);
    return HF_OK;
}
