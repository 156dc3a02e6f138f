/* Method pattern's pieces (lib/pattern_i.h): the polynomial hashes of runs of real events,
 * the constraint sets of the piece procedure, and the test whether a pattern is realised. */
#include <string.h>

#include "forest.h"
#include "mod61.h"
#include "pattern_i.h"

/* a followed by b */
span hf_i_pattern_cat(const run *r, span a, span b)
{
    span s = {a.c + b.c, {0, 0}};
    for (int i = 0; i < 2; i++)
        s.h[i] = hf_i_addmod(a.h[i], hf_i_mulmod(b.h[i], r->pw[i * (r->nreal + 1) + a.c]));
    return s;
}

/* The part of a prefix sequence after its first `lo` entries: (P(hi) - P(lo)) / base^lo. */
static span tail(const run *r, uint64_t clo, const uint64_t *hlo, uint64_t chi, const uint64_t *hhi)
{
    span s = {chi - clo, {0, 0}};
    for (int i = 0; i < 2; i++)
        s.h[i] = hf_i_mulmod(hf_i_submod(hhi[i], hlo[i]), r->ipw[i * (r->nreal + 1) + clo]);
    return s;
}

/* ---------------------------------------------------------------------------------------- */
/* Constraint sets                                                                          */

hf_status hf_i_pattern_work(run *r, uint64_t w)
{
    if (r->guard && w > HF_I_PATTERN_MAX_WORK - r->st.work)
        return HF_ETOOLARGE;
    r->st.work += w;
    return HF_OK;
}

/* A new set of nesting depth `nest` from the positions in scratch[0 .. len) at depth `depth`:
 * its spans, level by level, until every subtree has ended. O(len * levels). The positions are
 * kept only if the set can have children: on the complete binary tree of 2^20 - 1 events at
 * d = 3 the sets without children hold some 40 million positions. */
static hf_status add_set(run *r, uint32_t depth, size_t len, uint32_t nest)
{
    size_t keep = nest + 2 <= r->dd ? len : 0;
    if (HF_I_GROW(r->ctx, r->tn, &r->tn_cap, r->tn_len + 1) ||
        HF_I_GROW(r->ctx, r->fpool, &r->f_cap, r->f_len + keep) ||
        HF_I_GROW(r->ctx, r->scratch, &r->scratch_cap, 2 * len + 2))
        return HF_ENOMEM;
    tnode *tn = &r->tn[r->tn_len];
    tn->depth = depth;
    tn->nest = nest;
    tn->f_off = r->f_len;
    tn->f_len = keep;
    tn->lp_off = r->lp_len;
    tn->lp_len = 0;
    if (keep) /* fpool is still NULL when no set keeps positions (d' = 1) */
        memcpy(r->fpool + r->f_len, r->scratch, keep * sizeof *r->fpool);
    r->f_len += keep;
    /* Level by level, the runs lo[i] .. hi[i] - 1 of BFS positions below the set's nodes, in
     * position order; a run that has ended leaves the list (live runs keep their order). A run
     * with c real nodes of this level before it adds (ph(hi) - ph(lo)) base^(c - pc(lo)): what
     * appending its own hash (interval) would add, with one multiplication instead of two, and
     * c <= pc(lo) since the earlier runs lie before lo. All residues are reduced, so the spans
     * are the ones the run-by-run concatenation gives. */
    uint32_t *lo = r->scratch, *hi = r->scratch + len;
    const uint32_t *fc = r->fc, *pc = r->pc;
    const uint64_t *ph0 = r->ph, *ph1 = r->ph + r->n + 1, *ipw0 = r->ipw,
                   *ipw1 = r->ipw + r->nreal + 1;
    for (size_t i = 0; i < len; i++)
        hi[i] = lo[i] + 1;
    size_t live = len;
    span acc = {0, {0, 0}};
    for (;;) {
        if (HF_I_GROW(r->ctx, r->lp, &r->lp_cap, r->lp_len + 1))
            return HF_ENOMEM;
        r->lp[r->lp_len++] = acc;
        span level = {0, {0, 0}};
        size_t kept = 0;
        for (size_t i = 0; i < live; i++) {
            uint32_t a = lo[i], b = hi[i];
            if (a == b)
                continue;
            uint32_t g = pc[a] - (uint32_t)level.c;
            level.h[0] = hf_i_addmod(level.h[0], hf_i_mulmod(hf_i_submod(ph0[b], ph0[a]), ipw0[g]));
            level.h[1] = hf_i_addmod(level.h[1], hf_i_mulmod(hf_i_submod(ph1[b], ph1[a]), ipw1[g]));
            level.c += pc[b] - pc[a];
            lo[kept] = fc[a];
            hi[kept++] = fc[b];
        }
        live = kept;
        hf_status st = hf_i_pattern_work(r, len + 1);
        if (st)
            return st;
        if (!kept)
            break;
        acc = hf_i_pattern_cat(r, acc, level);
        tn->lp_len++;
    }
    r->tn_len++;
    return HF_OK;
}

hf_status hf_i_pattern_tnode_add(run *r, uint32_t depth, size_t len)
{
    return add_set(r, depth, len, 0);
}

/* The set of the `side` child of a two-child pattern node at `layer` whose own set is T. */
hf_status hf_i_pattern_tnode_child(run *r, uint32_t T, uint32_t layer, uint32_t side, uint32_t *out)
{
    uint64_t k = ((uint64_t)T << 32 | (uint64_t)layer << 1 | side) + 1;
    if (2 * (r->tmap_used + 1) > r->tmap_cap) {
        size_t ncap = r->tmap_cap ? 2 * r->tmap_cap : 256;
        uint64_t *nk = hf_i_calloc(r->ctx, ncap, sizeof *nk);
        uint32_t *nv = hf_i_alloc_array(r->ctx, ncap, sizeof *nv);
        if (!nk || !nv) {
            hf_i_free(r->ctx, nk);
            hf_i_free(r->ctx, nv);
            return HF_ENOMEM;
        }
        for (size_t i = 0; i < r->tmap_cap; i++) {
            if (!r->tkey[i])
                continue;
            size_t j = hf_i_fmix64(r->tkey[i]) & (ncap - 1);
            while (nk[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = r->tkey[i];
            nv[j] = r->tval[i];
        }
        hf_i_free(r->ctx, r->tkey);
        hf_i_free(r->ctx, r->tval);
        r->tkey = nk;
        r->tval = nv;
        r->tmap_cap = ncap;
    }
    size_t j = hf_i_fmix64(k) & (r->tmap_cap - 1);
    while (r->tkey[j]) {
        if (r->tkey[j] == k) {
            *out = r->tval[j];
            return HF_OK;
        }
        j = (j + 1) & (r->tmap_cap - 1);
    }
    /* the side children of the set's nodes on `layer` */
    const tnode tn = r->tn[T];
    if (tn.nest + 2 > r->dd) /* no pattern asks for it (see tnode): its positions are gone */
        return HF_EINVAL;
    size_t len = 0;
    for (size_t i = 0; i < tn.f_len; i++) {
        uint32_t lo = r->fpool[tn.f_off + i], hi = lo + 1;
        for (uint32_t dep = tn.depth; dep < layer && lo < hi; dep++) {
            lo = r->fc[lo];
            hi = r->fc[hi];
        }
        hf_status st = hf_i_pattern_work(r, layer - tn.depth + hi - lo + 1);
        if (st)
            return st;
        for (uint32_t q = lo; q < hi; q++)
            if (side < r->fc[q + 1] - r->fc[q]) {
                if (HF_I_GROW(r->ctx, r->scratch, &r->scratch_cap, 2 * (len + 1) + 2))
                    return HF_ENOMEM;
                r->scratch[len++] = r->fc[q] + side;
            }
    }
    hf_status st = add_set(r, layer + 1, len, tn.nest + 1);
    if (st)
        return st;
    r->tkey[j] = k;
    r->tval[j] = *out = (uint32_t)(r->tn_len - 1);
    r->tmap_used++;
    return HF_OK;
}

/* The real nodes of levels s .. e below set T, in schedule order. O(1). */
span hf_i_pattern_piece(const run *r, uint32_t T, uint32_t s, uint32_t e)
{
    const tnode *tn = &r->tn[T];
    span z = {0, {0, 0}};
    if (e < s || s < tn->depth)
        return z;
    uint64_t i0 = s - tn->depth, i1 = (uint64_t)e - tn->depth + 1;
    if (i1 > tn->lp_len)
        i1 = tn->lp_len;
    if (i0 >= i1)
        return z;
    const span *a = &r->lp[tn->lp_off + i0], *b = &r->lp[tn->lp_off + i1];
    return tail(r, a->c, a->h, b->c, b->h);
}

/* ---------------------------------------------------------------------------------------- */
/* Realisability                                                                            */

/* Whether some admissible tuple of d' real events conforms to the pattern with some layers
 * of its free nodes. best[x][u] is the most two-child nodes of the sub-pattern at x that an
 * embedding inside sub(u) maps to real events (-1: none). A non-free non-leaf x sits on
 * layer(x); a free x on any real node strictly above its child's image; a leaf on any real
 * node. Pattern nodes children first, tree nodes deepest first, and only at the representatives
 * of the subtree classes (two nodes of one depth with isomorphic subtrees, real events
 * included, get the same values), which the rows read through crep.
 *
 * Row x is filled only at the depths its parent reads: from top(x) (one below the parent's
 * layer; one below the parent's top when the parent is free, whose row reaches up to its own
 * top) down to x's layer (to its child's image for a free x). A non-free parent reads x's row
 * at top(x) only, a free one at every depth of it. And the row of the last test is kept when x
 * reads the same as then: its free bit, top and last depth, and no child whose values at the
 * depths x reads changed. The layerings of one shape come in preorder with the last nodes
 * changing fastest, and a deep node's values at its top often stay when its layer moves, so
 * most tests recompute a few rows only. O(m n) at worst, O(m h) on complete binary trees. */
bool hf_i_pattern_realised(run *r, const pat *P)
{
    const hf_i_tree *t = r->t;
    uint32_t n = r->n, lim[MAXM], top[MAXM], changed = 0;
    const int8_t *rows[MAXM]; /* x's row: a leaf's is hasreal itself */
    if (r->plain_tests)
        r->best_ok = 0;
    top[0] = 0;
    for (uint32_t x = 1; x < P->m; x++) {
        uint32_t q = P->parent[x];
        top[x] = r->plain_tests ? 0 : (P->free >> q & 1) ? top[q] + 1 : P->layer[q] + 1;
    }
    for (uint32_t x = P->m; x-- > 0;) {
        int8_t *bx = r->best + (size_t)x * n;
        if (P->arity[x] == 0) {
            rows[x] = r->hasreal;
            continue;
        }
        rows[x] = bx;
        uint32_t y = P->child[x][0], fx = P->free >> x & 1, hi;
        if (fx) /* images strictly above the child's: depths < lim */
            lim[x] = P->arity[y] == 0 ? r->h + 1 : (P->free >> y & 1) ? lim[y] - 1 : P->layer[y];
        hi = fx ? lim[x] : P->layer[x] + 1; /* the depths top(x) .. hi - 1 */
        bool kept = (r->best_ok >> x & 1) && r->best_free[x] == fx && r->best_top[x] == top[x] &&
                    r->best_hi[x] == hi;
        bool pfree = x > 0 && (P->free >> P->parent[x] & 1);
        if (kept && !(changed >> P->child[x][0] & 1) &&
            !(P->arity[x] == 2 && (changed >> P->child[x][1] & 1)))
            continue;
        /* What the parent reads changes unless the new values equal the last ones there. A
         * free parent reads every depth of the row (taken as changed); a non-free one reads
         * depth top(x) only, which the last row must have held: kept aside to compare. */
        bool cmp = !pfree && (r->best_ok >> x & 1) && r->best_top[x] == top[x] &&
                   r->best_hi[x] > top[x] && hi > top[x];
        r->best_ok |= UINT32_C(1) << x;
        r->best_free[x] = fx;
        r->best_top[x] = top[x];
        r->best_hi[x] = hi;
        /* representatives rep[lo_i .. hi_i) have depths top(x) .. hi - 1, rep[lo_i .. top_i)
         * depth top(x) */
        uint32_t lo_i = top[x] ? r->rep_end[top[x] - 1 < r->h ? top[x] - 1 : r->h] : 0;
        uint32_t hi_i = hi ? r->rep_end[hi - 1 < r->h ? hi - 1 : r->h] : 0;
        uint32_t top_i = top[x] <= r->h ? r->rep_end[top[x]] : lo_i;
        int8_t *old = r->best + (size_t)MAXM * n;
        if (cmp)
            for (uint32_t i = lo_i; i < top_i; i++)
                old[i - lo_i] = bx[r->rep[i]];
        const int8_t *b0 = rows[y];
        if (fx) {
            for (uint32_t i = hi_i; i-- > lo_i;) {
                uint32_t u = r->rep[i], lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
                int v = -1;
                bool deeper = r->depth[u] + 1 < hi;
                for (uint32_t j = 0; j < cnt; j++) {
                    uint32_t c = r->crep[lo + j];
                    if (deeper && bx[c] > v)
                        v = bx[c];
                    if (r->real[u] && b0[c] > v)
                        v = b0[c];
                }
                bx[u] = (int8_t)v;
            }
        } else {
            uint32_t L = P->layer[x];
            const int8_t *b1 = P->arity[x] == 2 ? rows[P->child[x][1]] : NULL;
            for (uint32_t i = hi_i; i-- > lo_i;) {
                uint32_t u = r->rep[i], lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
                const uint32_t *c = r->crep + lo;
                int v = -1;
                if (r->depth[u] < L) {
                    for (uint32_t j = 0; j < cnt; j++)
                        v = bx[c[j]] > v ? bx[c[j]] : v;
                } else if (P->arity[x] == 2) {
                    if (cnt == 2 && b0[c[0]] >= 0 && b1[c[1]] >= 0)
                        v = r->real[u] + b0[c[0]] + b1[c[1]];
                } else if (r->real[u]) {
                    for (uint32_t j = 0; j < cnt; j++)
                        v = b0[c[j]] > v ? b0[c[j]] : v;
                }
                bx[u] = (int8_t)v;
            }
        }
        bool diff = !cmp;
        for (uint32_t i = lo_i; i < top_i && !diff; i++)
            diff = old[i - lo_i] != bx[r->rep[i]];
        if (diff)
            changed |= UINT32_C(1) << x;
    }
    int need = (int)r->dd - (int)P->leaves_unary;
    return rows[0][t->root] >= need;
}

/* The tree nodes hf_i_pattern_realised() visits: the rows of non-leaf nodes down to their depth
 * limit, and n / 8 per leaf (for the copy of n bytes a leaf's row once was: still charged, so
 * that the work limit refuses the trees it refused). O(m). */
uint64_t hf_i_pattern_test_cost(const run *r, const pat *P)
{
    uint64_t c = 0;
    uint32_t lim[MAXM];
    for (uint32_t x = P->m; x-- > 0;) {
        if (P->arity[x] == 0) {
            c += r->n / 8 + 1;
            continue;
        }
        uint32_t y = P->child[x][0];
        if (P->free >> x & 1) {
            lim[x] = P->arity[y] == 0 ? r->h + 1 : (P->free >> y & 1) ? lim[y] - 1 : P->layer[y];
            c += lim[x] ? r->layer_end[lim[x] - 1] : 0;
        } else {
            c += r->layer_end[P->layer[x]];
        }
    }
    return c;
}
