/* Method greedy, the packing rounds (lib/gen_greedy.c runs them once its insertion rounds hit few
 * tuples each, see GREEDY_PACK_ROUNDS): each schedule is built around the open tuples directly.
 *
 * The open tuples are listed once, in a seeded random order. A round starts from the order on
 * the focus events (its closure, as the sets of events above and below each one) and takes the
 * listed tuples in turn: a tuple is kept when its entries in that order contradict no relation
 * so far (no later entry at or below an earlier one), and then the relations that put its
 * entries in order are added and closed. The first open tuple is always kept, so every round
 * makes progress. The schedule is then any linear extension of the relations: the events by
 * the number of events below them (a strict relation adds to it), ties by local id. Every
 * listed tuple the schedule hits, kept or not, is dropped from the list by its positions.
 *
 * Cost per round: one pass over the listed tuples (d bit tests each) plus, per relation added,
 * (events below the first + events above the second) * m/64 word operations; then one pass to
 * drop the hit tuples. Memory: the list (d * 4 bytes per open tuple) and 4 m sets of m bits.
 * The coverage bookkeeping of the insertion rounds is no longer updated (its `remaining`
 * stops); the rounds count the list instead. */
#include <string.h>

#include "gen_greedy.h"

typedef struct pack {
    size_t W;
    hf_word *up0, *down0; /* m sets each: events strictly above / below, in the order alone */
    hf_word *up, *down;   /* the same with the relations of the round added */
    uint32_t *tup;        /* R * d local ids */
    size_t R;
    uint32_t *pos;  /* m: position of each event in the round's sequence */
    uint32_t *cnt;  /* m + 1: counting sort by events below */
    uint32_t *rank; /* m */
} pack;

static void pack_free(hf_ctx *ctx, pack *k)
{
    hf_i_free(ctx, k->up0);
    hf_i_free(ctx, k->down0);
    hf_i_free(ctx, k->up);
    hf_i_free(ctx, k->down);
    hf_i_free(ctx, k->tup);
    hf_i_free(ctx, k->pos);
    hf_i_free(ctx, k->cnt);
    hf_i_free(ctx, k->rank);
}

/* Add u < v to the round's relations and close them: everything at or below u goes below
 * everything at or above v. */
static void relate(pack *k, uint32_t u, uint32_t v)
{
    size_t W = k->W;
    hf_word *du = k->down + (size_t)u * W, *uv = k->up + (size_t)v * W;
    hf_i_bit_set(du, u); /* for the loops below only */
    hf_i_bit_set(uv, v);
    for (size_t w = 0; w < W; w++)
        for (hf_word bits = du[w]; bits; bits &= bits - 1) {
            hf_word *ux = k->up + (w * 64 + hf_i_ctz(bits)) * W;
            for (size_t i = 0; i < W; i++)
                ux[i] |= uv[i];
        }
    for (size_t w = 0; w < W; w++)
        for (hf_word bits = uv[w]; bits; bits &= bits - 1) {
            hf_word *dy = k->down + (w * 64 + hf_i_ctz(bits)) * W;
            for (size_t i = 0; i < W; i++)
                dy[i] |= du[i];
        }
    hf_i_bit_clear(du, u);
    hf_i_bit_clear(uv, v);
}

/* One round: the sequence in g->best; returns the number of listed tuples it hits, and drops
 * them from the list. */
static uint64_t pack_round(greedy *g, pack *k)
{
    uint32_t m = g->m;
    unsigned d = g->d;
    size_t W = k->W, sets = (size_t)m * W;
    memcpy(k->up, k->up0, sets * sizeof *k->up);
    memcpy(k->down, k->down0, sets * sizeof *k->down);
    for (size_t i = 0; i < k->R; i++) {
        const uint32_t *t = k->tup + i * d;
        bool ok = true, implied = true;
        for (unsigned a = 0; a < d && ok; a++)
            for (unsigned b = a + 1; b < d && ok; b++)
                ok = !hf_i_bit_test(k->down + (size_t)t[a] * W, t[b]);
        if (!ok)
            continue;
        for (unsigned a = 0; a + 1 < d; a++)
            implied = implied && hf_i_bit_test(k->up + (size_t)t[a] * W, t[a + 1]);
        if (implied)
            continue;
        for (unsigned a = 0; a + 1 < d; a++)
            if (!hf_i_bit_test(k->up + (size_t)t[a] * W, t[a + 1]))
                relate(k, t[a], t[a + 1]);
    }
    /* a linear extension: by the number of events below (strictly more above a relation) */
    memset(k->cnt, 0, ((size_t)m + 1) * sizeof *k->cnt);
    for (uint32_t x = 0; x < m; x++) {
        uint32_t below = 0;
        const hf_word *dx = k->down + (size_t)x * W;
        for (size_t w = 0; w < W; w++)
            below += (uint32_t)hf_i_popcount(dx[w]);
        k->rank[x] = below;
        k->cnt[below + 1]++;
    }
    for (uint32_t r = 0; r < m; r++)
        k->cnt[r + 1] += k->cnt[r];
    for (uint32_t x = 0; x < m; x++) {
        uint32_t p = k->cnt[k->rank[x]]++;
        g->best[p] = x;
        k->pos[x] = p;
    }
    /* drop the hit tuples, keeping the list's order */
    size_t keep = 0;
    for (size_t i = 0; i < k->R; i++) {
        const uint32_t *t = k->tup + i * d;
        bool hit = true;
        for (unsigned a = 0; a + 1 < d && hit; a++)
            hit = k->pos[t[a]] < k->pos[t[a + 1]];
        if (!hit) {
            if (keep != i)
                memmove(k->tup + keep * d, t, d * sizeof *t);
            keep++;
        }
    }
    uint64_t got = k->R - keep;
    k->R = keep;
    return got;
}

hf_status hf_i_greedy_pack(greedy *g, uint64_t **left, size_t *left_cap, hf_error *err)
{
    hf_ctx *ctx = g->ctx;
    uint32_t m = g->m;
    unsigned d = g->d;
    pack k;
    memset(&k, 0, sizeof k);
    k.W = g->W;
    size_t sets = (size_t)m * k.W, m1 = m ? m : 1;
    uint64_t R = hf_i_coverage_remaining(g->cov);
    hf_status st = HF_OK;
    k.up0 = hf_i_calloc(ctx, sets, sizeof *k.up0);
    k.down0 = hf_i_calloc(ctx, sets, sizeof *k.down0);
    k.up = hf_i_alloc_array(ctx, sets, sizeof *k.up);
    k.down = hf_i_alloc_array(ctx, sets, sizeof *k.down);
    k.tup = hf_i_alloc_array(ctx, (size_t)R * d, sizeof *k.tup);
    k.pos = hf_i_alloc_array(ctx, m1, sizeof *k.pos);
    k.cnt = hf_i_alloc_array(ctx, m1 + 1, sizeof *k.cnt);
    k.rank = hf_i_alloc_array(ctx, m1, sizeof *k.rank);
    if (!k.up0 || !k.down0 || !k.up || !k.down || !k.tup || !k.pos || !k.cnt || !k.rank) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    for (uint32_t a = 0; a < m; a++)
        for (uint32_t b = 0; b < m; b++)
            if (a != b && less(g, a, b)) {
                hf_i_bit_set(k.up0 + (size_t)a * k.W, b);
                hf_i_bit_set(k.down0 + (size_t)b * k.W, a);
            }
    /* list the open tuples: rows by prefix (rows of prefixes with a repeated event are empty) */
    uint32_t t[HF_I_COVERAGE_MAX_D] = {0};
    for (;;) {
        const hf_word *row = hf_i_coverage_row(g->cov, t);
        for (size_t w = 0; w < k.W; w++)
            for (hf_word bits = row[w]; bits; bits &= bits - 1) {
                t[d - 1] = (uint32_t)(w * 64 + hf_i_ctz(bits));
                memcpy(k.tup + k.R * d, t, d * sizeof *t);
                k.R++;
            }
        unsigned i = d - 1;
        while (i > 0 && ++t[i - 1] == m)
            t[--i] = 0;
        if (i == 0)
            break;
    }
    for (size_t i = k.R; i > 1; i--) {
        size_t j = (size_t)hf_i_rng_below(&g->rng, i);
        for (unsigned a = 0; a < d; a++) {
            uint32_t x = k.tup[(i - 1) * d + a];
            k.tup[(i - 1) * d + a] = k.tup[j * d + a];
            k.tup[j * d + a] = x;
        }
    }
    hf_i_log(ctx, HF_LOG_PROGRESS, "greedy: packing rounds from %zu schedules (%zu tuples open)",
             g->count, k.R);
    while (k.R > 0) {
        pack_round(g, &k);
        if (HF_I_GROW(ctx, g->rows, &g->cap, (g->count + 1) * m1) ||
            HF_I_GROW(ctx, *left, left_cap, g->count + 1)) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        memcpy(g->rows + g->count * m1, g->best, m * sizeof *g->rows);
        (*left)[g->count] = k.R;
        g->count++;
        if ((st = hf_i_progress(ctx, "greedy", g->count, 0, err)))
            goto out;
        hf_i_log(ctx, HF_LOG_PROGRESS, "greedy: %zu schedules, %zu tuples left", g->count, k.R);
    }
out:
    pack_free(ctx, &k);
    return st;
}
