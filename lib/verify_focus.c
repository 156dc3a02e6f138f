/* Verification with a focus set, at the cost of the focus set: the order and the family
 * projected onto the focus events.
 *
 * Why it is exact. Whether a tuple of focus events is admissible depends only on the order
 * between its entries, and whether a schedule hits it only on the relative positions of its
 * entries. Restricting the order to the k focus events (a < b in the restriction iff a < b in
 * the order) and deleting the other events from every schedule therefore keeps both: the
 * projected family hits exactly the tuples the family hits, and the projected schedules are
 * linear extensions of the restriction. Focus events keep their relative id order, so the
 * lexicographically first uncovered tuple is the same one, renamed.
 *
 * Cost. k^2 order queries (O(1) each on the orders hf_verify accepts: forests, in-forests and
 * orders with a closure), the covering pairs of the restriction by bitsets over the k events
 * (for each focus event b, its predecessors in decreasing topological position, each taken
 * unless an earlier taken one is above it: O(k/64) per predecessor, k^2/64 words in all), and
 * one pass over the family (m * n). The check that follows costs what it costs for a k-event
 * order instead of an n-event one. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "poset_i.h"
#include "verify_focus.h"
#include "verify_i.h"

/* focus events by topological position */
struct ranked {
    uint32_t rank, id;
};

static int ranked_cmp(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

hf_status hf_i_focus_project(const hf_poset *p, const uint32_t *rows, size_t m,
                             const uint32_t *focus, size_t focus_count, struct hf_i_projection *out,
                             hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    memset(out, 0, sizeof *out);
    uint32_t n = p->n;
    hf_status st = HF_ENOMEM;
    hf_poset_builder *b = NULL;
    hf_word *below = NULL, *covered = NULL;
    struct ranked *topo = NULL;
    uint32_t *local = hf_i_alloc_array(ctx, n ? n : 1, sizeof *local);
    if (!local)
        goto fail;
    for (uint32_t x = 0; x < n; x++)
        local[x] = HF_NO_EVENT;
    for (size_t i = 0; i < focus_count; i++)
        local[focus[i]] = 0;
    uint32_t k = 0;
    for (uint32_t x = 0; x < n; x++)
        if (local[x] == 0)
            k++;
    out->k = k;
    out->ids = hf_i_alloc_array(ctx, k ? k : 1, sizeof *out->ids);
    if (!out->ids)
        goto fail;
    /* focus events in increasing id order get ids 0..k-1 */
    k = 0;
    for (uint32_t x = 0; x < n; x++)
        if (local[x] == 0) {
            out->ids[k] = x;
            local[x] = k++;
        }

    size_t W = hf_i_words(k) ? hf_i_words(k) : 1;
    below = hf_i_calloc(ctx, (size_t)k * W, sizeof *below);
    covered = hf_i_calloc(ctx, W, sizeof *covered);
    topo = hf_i_alloc_array(ctx, k ? k : 1, sizeof *topo);
    if (!below || !covered || !topo)
        goto fail;
    for (uint32_t i = 0; i < k; i++) {
        topo[i].rank = p->rank[out->ids[i]];
        topo[i].id = i;
    }
    qsort(topo, k, sizeof *topo, ranked_cmp);
    /* below[b] = the focus events strictly below b; only earlier ones in topological order can
     * be */
    for (uint32_t j = 0; j < k; j++)
        for (uint32_t i = 0; i < j; i++)
            if (hf_i_less(p, out->ids[topo[i].id], out->ids[topo[j].id]))
                hf_i_bit_set(below + (size_t)topo[j].id * W, topo[i].id);

    if ((st = hf_poset_builder_new(ctx, &b)))
        goto fail;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t id;
        if ((st = hf_poset_builder_add_event(b, hf_poset_name(p, out->ids[i]), &id)))
            goto fail;
    }
    /* the covering pairs: predecessors of b from the latest in topological order; one below a
     * predecessor already taken is not a cover */
    for (uint32_t j = 0; j < k; j++) {
        uint32_t bj = topo[j].id;
        const hf_word *bel = below + (size_t)bj * W;
        memset(covered, 0, W * sizeof *covered);
        for (uint32_t i = j; i-- > 0;) {
            uint32_t a = topo[i].id;
            if (!hf_i_bit_test(bel, a) || hf_i_bit_test(covered, a))
                continue;
            if ((st = hf_poset_builder_add_order(b, a, bj)))
                goto fail;
            const hf_word *ba = below + (size_t)a * W;
            for (size_t w = 0; w < W; w++)
                covered[w] |= ba[w];
        }
    }
    hf_i_free(ctx, below);
    hf_i_free(ctx, covered);
    hf_i_free(ctx, topo);
    below = covered = NULL;
    topo = NULL;
    st = hf_poset_builder_finish(b, &out->p, err);
    hf_poset_builder_free(b);
    b = NULL;
    if (st)
        goto fail;

    if ((st = hf_family_new(ctx, k, &out->f)))
        goto fail;
    uint32_t *row = hf_i_alloc_array(ctx, k ? k : 1, sizeof *row);
    if (!row) {
        st = HF_ENOMEM;
        goto fail;
    }
    uint64_t work = 0;
    for (size_t s = 0; s < m && !st; s++) {
        const uint32_t *src = rows + s * (size_t)n;
        uint32_t q = 0;
        for (uint32_t t = 0; t < n; t++)
            if (local[src[t]] != HF_NO_EVENT)
                row[q++] = local[src[t]];
        st = hf_family_append(out->f, row);
        if (!st)
            st = hf_i_ver_setup_tick(ctx, &work, (uint64_t)n + 1, err);
    }
    hf_i_free(ctx, row);
    if (st)
        goto fail;
    hf_i_free(ctx, local);
    return HF_OK;
fail:
    hf_poset_builder_free(b);
    hf_i_free(ctx, below);
    hf_i_free(ctx, covered);
    hf_i_free(ctx, topo);
    hf_i_free(ctx, local);
    hf_i_projection_free(ctx, out);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, HF_ENOMEM, 0, 0,
                         "out of memory projecting a family of %zu schedules onto its focus set",
                         m);
    return st;
}

void hf_i_projection_free(hf_ctx *ctx, struct hf_i_projection *pr)
{
    hf_family_free(pr->f);
    hf_poset_free(pr->p);
    hf_i_free(ctx, pr->ids);
    memset(pr, 0, sizeof *pr);
}
