/* hf_verify on forests for d >= 3: a prefix is settled by its minimal continuations, and for
 * d = 3 by two bit matrices over the pairs, filled word-parallel before the enumeration. */
#include <string.h>

#include "poset_i.h"
#include "verify_i.h"

/*
 * The continuations of a prefix a1..a_{d-1} on a forest are the events outside F_{d-1}, an
 * up-set; a schedule placing a_{d-1} before c places it before every event above c, so a prefix
 * hits every continuation iff it hits the minimal ones: the roots and the children of members of
 * F_{d-1} that lie outside it. F_{d-1} is the union of the root paths of the entries, so those
 * are the minimal events outside F_{d-2} (w->cand, listed once per (d-2)-prefix) but the topmost
 * node t of a_{d-1}'s root path outside F_{d-2}, plus the children of the nodes of that path
 * from a_{d-1} up to t, but the path's own nodes.
 *
 * For d = 3 (prefix a, b) this splits into two conditions on pairs. With J(x) = the children of
 * the nodes of x's root path that are not on it (and, for J(a), the roots off it), and Sub(c) =
 * c's subtree (the events x with c on x's root path), every minimal continuation lies in J(a) or
 * J(b), and an event of J(a) (of J(b)) is a continuation unless b (a) lies in its subtree; so
 * the prefix (a, b) hits every continuation iff
 *   A[a] has bit b: for every c of J(a), b is in Sub(c) or some schedule has a < b < c, and
 *   B[b] has bit a: for every c of J(b), a is in Sub(c) or some schedule has a < b < c.
 * For fixed a and c, the b of the second kind are the events strictly between a and c in the
 * schedules placing a before c; for fixed b and c, the a are those before b in the schedules
 * placing c after b: unions of runs of positions, each cut from the checkpoints as a whole
 * (O(n/64 + B) word operations per schedule, for all b, or all a, at once). A holds one row, for
 * the first event being enumerated, made when a prefix under it first fails the quick test; B
 * is filled 64 rows (a chunk) at a time, stored transposed (row a, bit b) so that each worker
 * writes whole words of its own, and only once the prefixes whose b lies in the chunk, settled
 * without it (the children along b's path looked up), have cost a fixed share of its filling
 * (lib/verify_prefix.c: pair_settled). Then a prefix costs two bit tests, and only those failing
 * them (the ones with an uncovered continuation) are settled by cuts, which finds the witness or
 * the count. On deep trees the quick test settles nearly every prefix first, so few chunks are
 * filled, and a shard or a witness found early fills only what its prefixes needed.
 *
 * Cost: A's row O(|J(a)| m (n/64 + B)), B's rows the same with J(b), so O(n m (n/64 + B) J) in
 * all for J minimal events per path (a few dozen on random recursive trees), against the cuts'
 * O(n^2 (n/64 + B)) times the schedules consulted per prefix; B takes n^2 bits (kept within
 * PAIR_BUDGET and the memory limit, lib/verify_threads.c). A row of A (of B) is given up when
 * J(a) (J(b)) is longer than 4 n/64 + 64 (wide forests and deep spines: the cuts are cheaper
 * there). Without B (too large), or in a chunk not filled, A's row still settles the b it passes
 * once the children along b's path are looked up.
 */

/* Bits of events beyond n in the last word of a row. */
static hf_word tail_mask(const struct ver *v)
{
    unsigned r = v->n % HF_WORD_BITS;
    return r ? ((hf_word)1 << r) - 1 : ~(hf_word)0;
}

/* x |= the events at positions lo..hi-1 of schedule s. */
static void or_positions(const struct ver *v, hf_word *restrict x, size_t s, uint32_t lo,
                         uint32_t hi)
{
    const uint32_t *row = hf_i_ver_row(v, s);
    const size_t W = v->W;
    const uint32_t B = v->B, k1 = (lo + B - 1) >> v->B_log, k2 = hi >> v->B_log;
    if (hi <= lo)
        return;
    if (k1 >= k2 || hi - lo < W) {
        for (uint32_t q = lo; q < hi; q++)
            hf_i_bit_set(x, row[q]);
        return;
    }
    /* whole blocks k1..k2-1: at positions >= k1 B (all when k1 = 0), not at positions >= k2 B
     * (none when k2 = nb) */
    const hf_word *restrict from = k1 ? v->ck + (s * (v->nb - 1) + k1 - 1) * W : NULL;
    const hf_word *restrict to = k2 < v->nb ? v->ck + (s * (v->nb - 1) + k2 - 1) * W : NULL;
    if (from && to) {
        for (size_t w = 0; w < W; w++)
            x[w] |= from[w] & ~to[w];
    } else if (to) {
        for (size_t w = 0; w < W; w++)
            x[w] |= ~to[w];
        x[W - 1] &= tail_mask(v);
    } else if (from) {
        for (size_t w = 0; w < W; w++)
            x[w] |= from[w];
    } else {
        memset(x, 0xff, W * sizeof *x);
        x[W - 1] &= tail_mask(v);
    }
    for (uint32_t q = lo; q < k1 * B; q++)
        hf_i_bit_set(x, row[q]);
    for (uint32_t q = k2 * B; q < hi; q++)
        hf_i_bit_set(x, row[q]);
}

/* x |= Sub(c), the events of c's subtree. */
static void or_subtree(const struct ver *v, hf_word *x, uint32_t c)
{
    const hf_poset *p = v->p;
    for (uint32_t t = p->tin[c]; t <= p->tout[c]; t++)
        hf_i_bit_set(x, p->dfs_order[t]);
}

static bool all_zero(const hf_word *x, size_t W)
{
    for (size_t w = 0; w < W; w++)
        if (x[w])
            return false;
    return true;
}

void hf_i_ver_forest_frontier(struct worker *w, const hf_word *F)
{
    const struct ver *v = w->v;
    const hf_poset *p = v->p;
    const size_t limit = 4 * v->W + 64;
    size_t k = 0;
    for (uint32_t x = 0; x < v->n; x++)
        if (p->parent[x] == HF_NO_EVENT && !hf_i_bit_test(F, x)) {
            if (k == limit)
                goto many;
            w->cand[k++] = x;
        }
    for (size_t u = 0; u < v->W; u++)
        for (hf_word b = F[u]; b; b &= b - 1) {
            uint32_t x = (uint32_t)(u * HF_WORD_BITS + hf_i_ctz(b));
            for (size_t e = p->succ_off[x]; e < p->succ_off[x + 1]; e++)
                if (!hf_i_bit_test(F, p->succ[e])) {
                    if (k == limit)
                        goto many;
                    w->cand[k++] = p->succ[e];
                }
        }
    w->cand_count = k;
    return;
many:
    w->cand_count = SIZE_MAX;
}

/* Whether one of the k schedules sel (placing a_{d-1} at sel_at) places c after a_{d-1}. */
static bool hit_by(const struct ver *v, const uint32_t *sel, const uint32_t *sel_at, size_t k,
                   uint32_t c, uint64_t *steps)
{
    const uint32_t *pc = v->pos + (size_t)c * v->m;
    size_t j = 0;
    while (j < k && pc[sel[j]] < sel_at[j])
        j++;
    *steps += j + 1;
    return j < k;
}

bool hf_i_ver_forest_covered(struct worker *w, const hf_word *Fprev, uint32_t b, size_t k,
                             bool below_only)
{
    const struct ver *v = w->v;
    const hf_poset *p = v->p;
    if (w->cand_count == SIZE_MAX)
        return false;
    /* the topmost node of b's root path outside F_{d-2}: listed in w->cand, inside F_{d-1} */
    uint32_t top = b, below = HF_NO_EVENT;
    size_t budget = v->W + 16; /* nodes of the path and children looked up */
    while (p->parent[top] != HF_NO_EVENT && !hf_i_bit_test(Fprev, p->parent[top])) {
        top = p->parent[top];
        if (!budget--)
            return false;
    }
    for (size_t i = 0; !below_only && i < w->cand_count; i++)
        if (w->cand[i] != top && !hit_by(v, w->sel, w->sel_at, k, w->cand[i], &w->steps))
            return false;
    for (uint32_t u = b;; u = p->parent[u]) {
        for (size_t e = p->succ_off[u]; e < p->succ_off[u + 1]; e++) {
            uint32_t x = p->succ[e];
            if (x == below)
                continue;
            if (!budget--)
                return false;
            if (!hit_by(v, w->sel, w->sel_at, k, x, &w->steps))
                return false;
        }
        if (u == top)
            return true;
        below = u;
    }
}

void hf_i_ver_forest_row_a(struct worker *w, uint32_t a)
{
    const struct ver *v = w->v;
    const size_t W = v->W, m = v->m;
    hf_word *row = w->pair_a, *x = w->pair_tmp;
    w->pair_a_ok = w->cand_count != SIZE_MAX;
    if (!w->pair_a_ok)
        return;
    memset(row, 0xff, W * sizeof *row);
    row[W - 1] &= tail_mask(v);
    const uint32_t *pa = v->pos + (size_t)a * m;
    for (size_t i = 0; i < w->cand_count; i++) {
        uint32_t c = w->cand[i];
        const uint32_t *pc = v->pos + (size_t)c * m;
        memset(x, 0, W * sizeof *x);
        or_subtree(v, x, c);
        for (size_t s = 0; s < m; s++)
            if (pa[s] < pc[s])
                or_positions(v, x, s, pa[s] + 1, pc[s]);
        for (size_t u = 0; u < W; u++)
            row[u] &= x[u];
        w->steps += m * (W + 1);
    }
}

/* B's row for b (the a, as bits) into out. */
#define ROW_BUDGET(W) (4 * (W) + 64)

static void row_b(struct worker *w, uint32_t b, hf_word *out)
{
    const struct ver *v = w->v;
    const hf_poset *p = v->p;
    const size_t W = v->W, m = v->m;
    hf_word *x = w->pair_tmp;
    memset(out, 0xff, W * sizeof *out);
    out[W - 1] &= tail_mask(v);
    const uint32_t *pb = v->pos + (size_t)b * m;
    uint32_t below = HF_NO_EVENT;
    size_t budget = ROW_BUDGET(W); /* as for A's rows: beyond it no a passes (the cuts decide) */
    for (uint32_t u = b; u != HF_NO_EVENT; below = u, u = p->parent[u])
        for (size_t e = p->succ_off[u]; e < p->succ_off[u + 1]; e++) {
            uint32_t c = p->succ[e];
            if (c == below)
                continue;
            if (!budget--) {
                memset(out, 0, W * sizeof *out);
                return;
            }
            const uint32_t *pc = v->pos + (size_t)c * m;
            memset(x, 0, W * sizeof *x);
            or_subtree(v, x, c);
            for (size_t s = 0; s < m; s++)
                if (pb[s] < pc[s])
                    or_positions(v, x, s, 0, pb[s]);
            for (size_t i = 0; i < W; i++)
                out[i] &= x[i];
            w->steps += m * (W + 1);
            if (all_zero(out, W))
                return;
        }
}

bool hf_i_ver_forest_rows_b(struct worker *w, struct shared *sh, size_t chunk)
{
    const struct ver *v = w->v;
    const size_t W = v->W;
    hf_word *block = w->pair_block; /* 64 rows of W words: row j for b = 64 chunk + j */
    uint32_t first = (uint32_t)(chunk * HF_WORD_BITS);
    uint32_t rows = v->n - first < HF_WORD_BITS ? v->n - first : HF_WORD_BITS;
    for (uint32_t j = 0; j < rows; j++) {
        row_b(w, first + j, block + j * W);
        if (hf_i_ver_tick(w, sh, 1))
            return false;
    }
    /* transposed: word `chunk` of row a gets bit j from row j's bit a */
    for (size_t u = 0; u < W; u++) {
        uint32_t a0 = (uint32_t)(u * HF_WORD_BITS);
        uint32_t as = v->n - a0 < HF_WORD_BITS ? v->n - a0 : HF_WORD_BITS;
        for (uint32_t i = 0; i < as; i++) {
            hf_word t = 0;
            for (uint32_t j = 0; j < rows; j++)
                t |= ((block[j * W + u] >> i) & 1) << j;
            sh->pair_b[(size_t)(a0 + i) * W + chunk] = t;
        }
    }
    return true;
}

bool hf_i_ver_forest_chunk_costs(const struct ver *v, uint64_t *cost)
{
    const hf_poset *p = v->p;
    const size_t W = v->W, cap = ROW_BUDGET(W) + 1;
    /* j[x]: the children of the nodes of x's root path that are not on it (row_b's loop) */
    uint32_t *j = hf_i_alloc_array(v->ctx, v->n ? v->n : 1, sizeof *j);
    if (!j)
        return false;
    for (size_t u = 0; u * HF_WORD_BITS < v->n; u++)
        cost[u] = HF_WORD_BITS * W; /* the transposition */
    for (uint32_t t = 0; t < v->n; t++) {
        uint32_t x = p->dfs_order[t], up = p->parent[x];
        uint32_t out = (uint32_t)(p->succ_off[x + 1] - p->succ_off[x]);
        j[x] = up == HF_NO_EVENT ? out : j[up] - 1 + out;
        cost[x / HF_WORD_BITS] += (j[x] < cap ? j[x] : cap) * (uint64_t)v->m * (W + 1);
    }
    hf_i_free(v->ctx, j);
    return true;
}
