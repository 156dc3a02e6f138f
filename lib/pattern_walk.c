/* Method pattern's walk (lib/pattern_i.h): every shape, its orders (sigmas) and its layerings,
 * each realised pattern hashed from its pieces and, when new, built into one schedule. */
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "keyset.h"
#include "pattern_i.h"

/* Shapes with more linear extensions than this are first probed for a realised layering. */
#define PROBE_LINEXT 256
/* Most sigmas kept for one shape (bytes: sigmas times pattern nodes). */
#define MAX_SIGMA_BYTES ((uint64_t)1 << 26)

/* ---------------------------------------------------------------------------------------- */
/* One schedule per pattern                                                                 */

/* The breadth-first piece procedure of the header comment; row gets all n nodes. O(n). */
static void build(run *r, const pat *P, const uint8_t *sigma)
{
    const hf_i_tree *t = r->t;
    uint32_t s_lo[MAXM] = {0}, s_len[MAXM] = {0};
    uint32_t *row = r->row, *sbuf = r->sbuf, len = 0, sb = 0;
    sbuf[sb++] = t->root;
    s_len[0] = 1;
    for (uint32_t k = 0; k < P->m; k++) {
        uint32_t x = sigma[k], L = P->layer[x], start = len;
        for (uint32_t i = 0; i < s_len[x]; i++)
            row[len++] = sbuf[s_lo[x] + i];
        for (uint32_t j = start; j < len; j++) {
            uint32_t u = row[j];
            if (r->depth[u] < L)
                for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++)
                    row[len++] = t->child[c];
        }
        /* E: the children of the piece's nodes on layer L, split by side for two children */
        for (uint32_t b = 0; b < P->arity[x]; b++) {
            uint32_t y = P->child[x][b];
            s_lo[y] = sb;
            for (uint32_t j = start; j < len; j++) {
                uint32_t u = row[j], lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
                if (r->depth[u] != L)
                    continue;
                if (P->arity[x] == 1)
                    for (uint32_t c = 0; c < cnt; c++)
                        sbuf[sb++] = t->child[lo + c];
                else if (b < cnt)
                    sbuf[sb++] = t->child[lo + b];
            }
            s_len[y] = sb - s_lo[y];
        }
    }
}

/* Whether sigma is the canonical extension of its restriction to some tuple set A: A holds the
 * leaves and one-child nodes and d' - |those| two-child nodes, and every node outside A comes
 * as early as it can (the smallest-index enabled one first, before the next entry of A). A
 * conforming tuple of entry set A, ordered by sigma|A, conforms to the canonical sigma of
 * (A, sigma|A) as well, so the other sigmas can go. O(C(B, need) m^2) with B two-child nodes. */
static bool canonical(const run *r, const pat *P, const uint8_t *sigma)
{
    uint32_t base = 0, nb = 0, need;
    uint8_t bin[MAXM];
    for (uint32_t x = 0; x < P->m; x++) {
        if (P->arity[x] == 2)
            bin[nb++] = (uint8_t)x;
        else
            base |= UINT32_C(1) << x;
    }
    need = r->dd > P->leaves_unary ? r->dd - P->leaves_unary : 0;
    for (uint32_t pick = 0; pick < (UINT32_C(1) << nb); pick++) {
        uint32_t bits = 0;
        for (uint32_t i = 0; i < nb; i++)
            bits += pick >> i & 1;
        if (bits != need)
            continue;
        uint32_t A = base;
        for (uint32_t i = 0; i < nb; i++)
            if (pick >> i & 1)
                A |= UINT32_C(1) << bin[i];
        /* replay: non-A nodes as soon as enabled, A nodes in sigma's order */
        uint32_t avail = 1, k = 0, next = 0;
        bool same = true;
        while (same && k < P->m) {
            uint32_t x = P->m;
            for (uint32_t y = 0; y < P->m; y++)
                if ((avail >> y & 1) && !(A >> y & 1)) {
                    x = y;
                    break;
                }
            if (x == P->m) {
                while (!(A >> sigma[next] & 1))
                    next++;
                x = sigma[next++];
            }
            same = sigma[k++] == x;
            avail &= ~(UINT32_C(1) << x);
            for (uint32_t b = 0; b < P->arity[x]; b++)
                avail |= UINT32_C(1) << P->child[x][b];
        }
        if (same)
            return true;
    }
    return false;
}

/* The one-child nodes of P that sigma follows directly by their child. */
static uint32_t free_mask(const pat *P, const uint8_t *sigma)
{
    uint32_t mask = 0;
    for (uint32_t k = 0; k + 1 < P->m; k++)
        if (P->arity[sigma[k]] == 1 && P->child[sigma[k]][0] == sigma[k + 1])
            mask |= UINT32_C(1) << sigma[k];
    return mask;
}

/* Every sigma of the mode (all linear extensions, or the canonical ones) into r->sig. */
static hf_status collect_sigmas(run *r, const pat *P, uint8_t *sigma, uint32_t k, uint32_t avail)
{
    if (k == P->m) {
        if (r->mode == HF_PATTERN_CANONICAL && !canonical(r, P, sigma))
            return HF_OK;
        if (HF_I_GROW(r->ctx, r->sig, &r->sig_cap, (r->nsig + 1) * P->m) ||
            HF_I_GROW(r->ctx, r->sigmask, &r->sigmask_cap, r->nsig + 1))
            return HF_ENOMEM;
        memcpy(r->sig + r->nsig * P->m, sigma, P->m);
        r->sigmask[r->nsig++] = r->pass == PASS_UNREDUCED ? 0 : free_mask(P, sigma);
        return HF_OK;
    }
    for (uint32_t x = 0; x < P->m; x++) {
        if (!(avail >> x & 1))
            continue;
        uint32_t next = avail & ~(UINT32_C(1) << x);
        for (uint32_t b = 0; b < P->arity[x]; b++)
            next |= UINT32_C(1) << P->child[x][b];
        sigma[k] = (uint8_t)x;
        hf_status st = collect_sigmas(r, P, sigma, k + 1, next);
        if (st)
            return st;
    }
    return HF_OK;
}

/* One realised (shape, free mask, layers): the sigmas sig[from .. to) of that mask. */
static hf_status visit(run *r, const pat *P, size_t from, size_t to)
{
    hf_status st;
    if (r->probe_hit)
        return HF_OK;
    if (r->mode != HF_PATTERN_ALL) {
        if ((st = hf_i_pattern_work(r, hf_i_pattern_test_cost(r, P))))
            return st;
        /* the tests' cost is known without running them; only the probes need their answer */
        if (r->pass == PASS_BOUND && !r->probing)
            return HF_OK;
        bool yes;
        if (r->replay) {
            yes = r->rbits[r->rbits_pos / 64] >> (r->rbits_pos % 64) & 1;
            r->rbits_pos++;
        } else {
            yes = hf_i_pattern_realised(r, P);
            if (r->record) {
                if (HF_I_GROW(r->ctx, r->rbits, &r->rbits_cap, r->rbits_len / 64 + 1))
                    return HF_ENOMEM;
                if (r->rbits_len % 64 == 0)
                    r->rbits[r->rbits_len / 64] = 0;
                r->rbits[r->rbits_len / 64] |= (uint64_t)yes << (r->rbits_len % 64);
                r->rbits_len++;
            }
        }
        if (!yes)
            return HF_OK;
    }
    if (r->probing) {
        r->probe_hit = true;
        return HF_OK;
    }
    if ((st = hf_i_pattern_work(r, (uint64_t)(to - from) * P->m)))
        return st;
    r->st.layered_shapes++;
    r->st.patterns += to - from;
    if (r->pass == PASS_UNREDUCED)
        return HF_OK;
    /* the hash set holds up to one key per pattern */
    if (r->guard && r->st.patterns > HF_I_PATTERN_MAX_PATTERNS)
        return HF_ETOOLARGE;
    if (r->pass == PASS_COUNT)
        return HF_OK;
    /* the piece of every node: its constraint set and its levels */
    uint32_t T[MAXM];
    span sp[MAXM];
    T[0] = 0;
    for (uint32_t x = 0; x < P->m; x++) {
        if (x > 0) {
            uint32_t q = P->parent[x];
            if (P->arity[q] == 1)
                T[x] = T[q];
            else if ((st = hf_i_pattern_tnode_child(r, T[q], P->layer[q], P->child[q][1] == x,
                                                    &T[x])))
                return st;
        }
        uint32_t s = x == 0 ? 0 : P->layer[P->parent[x]] + 1;
        sp[x] = hf_i_pattern_piece(r, T[x], s, P->layer[x]);
    }
    if (r->pass == PASS_MEASURE)
        return HF_OK;
    /* pre[k]: the span of sigma's first k pieces. The sigmas of a group come in the order
     * collect_sigmas lists them (lexicographic), so consecutive ones share long prefixes and
     * only the pieces after the first difference are hashed again: the same hash values as
     * hashing each sigma from its start, at a fraction of the products. */
    span pre[MAXM + 1];
    pre[0] = (span){0, {0, 0}};
    const uint8_t *prev = NULL;
    for (size_t i = from; i < to; i++) {
        const uint8_t *sigma = r->sig + i * P->m;
        uint32_t same = 0;
        if (prev)
            while (same < P->m && sigma[same] == prev[same])
                same++;
        for (uint32_t k = same; k < P->m; k++)
            pre[k + 1] = sp[sigma[k]].c ? hf_i_pattern_cat(r, pre[k], sp[sigma[k]]) : pre[k];
        prev = sigma;
        span acc = pre[P->m];
        hf_i_key k = {acc.h[0] + 1, acc.h[1]};
        bool fresh;
        if (hf_i_keyset_add(r->ctx, &r->keys, k, &fresh))
            return HF_ENOMEM;
        if (!fresh)
            continue;
        r->st.distinct++;
        /* a slice: the rows outside it are told apart by their keys but not built */
        if (r->pass == PASS_EMIT &&
            hf_i_row_want_in(r->row_first, r->row_last, r->st.distinct - 1) == HF_I_ROW_TAKE) {
            build(r, P, sigma);
            if ((st = hf_i_emit(r->em, r->row, *r->out)))
                return st;
            if (hf_i_row_want_in(r->row_first, r->row_last, r->st.distinct) == HF_I_ROW_DONE) {
                r->rows_done = true;
                return HF_EABORTED;
            }
        }
    }
    return HF_OK;
}

/* Layers of the non-leaf nodes in preorder, each in (parent's layer, h - nlh]; a free node
 * takes the parent's layer + 1, which gives the same schedule as any layer it could have.
 * Without the skipping of fork-less layers every partial choice extends, so the walk costs
 * O(m) per choice; with it, a dead end costs at most O(m h). */
static hf_status each_layering(run *r, pat *P, uint32_t i, size_t from, size_t to)
{
    if (r->probe_hit)
        return HF_OK;
    if (i == P->m)
        return visit(r, P, from, to);
    if (P->arity[i] == 0) {
        P->layer[i] = r->h;
        return each_layering(r, P, i + 1, from, to);
    }
    uint32_t lo = i == 0 ? 0 : P->layer[P->parent[i]] + 1;
    /* a realised two-child node sits on a two-child tree node: skip the layers without one */
    bool fork = P->arity[i] == 2 && r->mode != HF_PATTERN_ALL && !(P->free >> i & 1);
    for (uint32_t l = lo; l + P->nlh[i] <= r->h; l++) {
        if (fork && (l = r->next_fork[l]) + P->nlh[i] > r->h)
            break;
        P->layer[i] = l;
        hf_status st = each_layering(r, P, i + 1, from, to);
        if (st || (P->free >> i & 1))
            return st;
    }
    return HF_OK;
}

typedef struct sig_ref {
    uint32_t mask, index;
} sig_ref;

static int cmp_sig_ref(const void *a, const void *b)
{
    const sig_ref *x = a, *y = b;
    if (x->mask != y->mask)
        return x->mask < y->mask ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The sigmas of the shape, sorted by free mask, then each mask's layerings. */
static hf_status each_mask(run *r, pat *P)
{
    r->nsig = 0;
    if (r->mode != HF_PATTERN_ALL && P->linext > PROBE_LINEXT) {
        /* most large shapes have no realised layering on small trees: look first */
        P->free = 0;
        for (uint32_t x = 0; x < P->m; x++)
            if (P->arity[x] == 1)
                P->free |= UINT32_C(1) << x;
        r->probing = true;
        r->probe_hit = false;
        hf_status st = each_layering(r, P, 0, 0, 0);
        r->probing = false;
        if (st)
            return st;
        if (!r->probe_hit)
            return HF_OK;
        r->probe_hit = false;
    }
    uint64_t per =
        r->mode == HF_PATTERN_CANONICAL ? (uint64_t)P->m * P->m * (1u << P->two_child) : P->m;
    if (P->linext > MAX_SIGMA_BYTES / P->m || P->linext > HF_I_PATTERN_MAX_WORK / per)
        return HF_ETOOLARGE;
    hf_status st = hf_i_pattern_work(r, P->linext * per);
    uint8_t sigma[MAXM];
    if (st || (st = collect_sigmas(r, P, sigma, 0, 1)) || r->nsig == 0)
        return st;
    /* group by mask (stable) */
    sig_ref *ref = hf_i_alloc_array(r->ctx, r->nsig + 1, sizeof *ref);
    uint8_t *copy = hf_i_alloc_array(r->ctx, r->nsig * P->m + 1, 1);
    if (!ref || !copy) {
        hf_i_free(r->ctx, ref);
        hf_i_free(r->ctx, copy);
        return HF_ENOMEM;
    }
    for (size_t i = 0; i < r->nsig; i++)
        ref[i] = (sig_ref){r->sigmask[i], (uint32_t)i};
    qsort(ref, r->nsig, sizeof *ref, cmp_sig_ref);
    memcpy(copy, r->sig, r->nsig * P->m);
    for (size_t i = 0; i < r->nsig; i++) {
        memcpy(r->sig + i * P->m, copy + (size_t)ref[i].index * P->m, P->m);
        r->sigmask[i] = ref[i].mask;
    }
    hf_i_free(r->ctx, ref);
    hf_i_free(r->ctx, copy);
    for (size_t from = 0; from < r->nsig && !st;) {
        size_t to = from;
        while (to < r->nsig && r->sigmask[to] == r->sigmask[from])
            to++;
        P->free = r->sigmask[from];
        st = each_layering(r, P, 0, from, to);
        from = to;
    }
    return st;
}

/* Children, parents, the counts and the number of sigmas of a complete arity sequence. */
static hf_status finish_shape(run *r, pat *P)
{
    uint8_t stack[MAXM], filled[MAXM] = {0};
    memset(P->child, 0, sizeof P->child);
    P->parent[0] = 0;
    uint32_t sp = 0, size[MAXM];
    P->leaves_unary = 0;
    P->two_child = 0;
    for (uint32_t i = 0; i < P->m; i++) {
        if (i > 0) {
            uint32_t q = stack[sp - 1];
            P->child[q][filled[q]++] = (uint8_t)i;
            P->parent[i] = (uint8_t)q;
            if (filled[q] == P->arity[q])
                sp--;
        }
        if (P->arity[i] > 0)
            stack[sp++] = (uint8_t)i;
        P->leaves_unary += P->arity[i] < 2;
        P->two_child += P->arity[i] == 2;
    }
    /* nlh, subtree sizes, and the sigmas: linext(x) = prod over children of the multinomial
     * placing their subtrees together times their own linext (exact: m <= 15) */
    uint64_t le[MAXM] = {0};
    for (uint32_t i = P->m; i-- > 0;) {
        size[i] = 1;
        le[i] = 1;
        P->nlh[i] = P->arity[i] > 0;
        uint32_t placed = 0;
        for (uint32_t b = 0; b < P->arity[i]; b++) {
            uint32_t c = P->child[i][b];
            if (P->nlh[c] + 1 > P->nlh[i])
                P->nlh[i] = (uint8_t)(P->nlh[c] + 1);
            uint64_t binom = 1;
            for (uint32_t j = 1; j <= size[c]; j++)
                binom = binom * (placed + j) / j;
            le[i] *= binom * le[c];
            placed += size[c];
            size[i] += size[c];
        }
    }
    P->linext = le[0];
    r->best_ok = 0; /* the realisability rows were another shape's */
    return each_mask(r, P);
}

/* Arity sequences in preorder (lexicographic), with at most d' - 1 non-leaf nodes and, for
 * realised patterns, at most d' leaves and one-child nodes (each open slot needs a leaf). */
hf_status hf_i_pattern_each_shape(run *r, pat *P, uint32_t pos, uint32_t open, uint32_t nonleaf,
                                  uint32_t lu)
{
    if (open == 0) {
        P->m = pos;
        return finish_shape(r, P);
    }
    for (uint32_t a = 0; a <= 2; a++) {
        uint32_t nl = nonleaf + (a > 0), l2 = lu + (a < 2), op = open - 1 + a;
        if (nl + 1 > r->dd)
            continue;
        if (r->mode != HF_PATTERN_ALL && l2 + op > r->dd)
            continue;
        if (pos + 1 + op > MAXM)
            continue;
        P->arity[pos] = (uint8_t)a;
        hf_status st = hf_i_pattern_each_shape(r, P, pos + 1, op, nl, l2);
        if (st)
            return st;
    }
    return HF_OK;
}
