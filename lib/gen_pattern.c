/* d >= 3 on forests and in-forests: one schedule per pattern (CAV 2016, Section 5, Lemma 3,
 * breadth-first pieces), deduplicated by a hash each schedule gets from its pieces alone. */
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "gen_pattern.h"
#include "keyset.h"
#include "mod61.h"
#include "poset_i.h"

/* Pattern nodes: at most d - 1 non-leaf nodes, so at most 2d - 1 nodes. */
#define MAXM (2 * HF_MAX_D - 1)
/* The hash works modulo 2^61 - 1 (lib/mod61.h) with two bases. */
#define MODP HF_I_MODP
/* Shapes with more linear extensions than this are first probed for a realised layering. */
#define PROBE_LINEXT 256
/* Most sigmas kept for one shape (bytes: sigmas times pattern nodes). */
#define MAX_SIGMA_BYTES ((uint64_t)1 << 26)

typedef struct pat {
    uint32_t m;
    uint8_t arity[MAXM];
    uint8_t child[MAXM][2];
    uint8_t parent[MAXM];
    uint8_t nlh[MAXM];     /* non-leaf nodes on the longest downward path from the node */
    uint32_t layer[MAXM];  /* lambda-hat: the layer of a non-leaf node, h for leaves */
    uint32_t leaves_unary; /* nodes that every conforming tuple must contain */
    uint32_t two_child;
    uint64_t linext; /* linear extensions of the shape */
    uint32_t free;   /* bit x: one-child node merged with its child (see header) */
} pat;

/* Real nodes of a run of the schedule: their number and two polynomial hashes of their ids. */
typedef struct span {
    uint64_t c;
    uint64_t h[2];
} span;

/* A constraint set of the piece procedure: the nodes at depth `depth` (BFS positions f[]) that
 * the two-child ancestors of a pattern node let through. lp[i] is the span of the levels
 * depth .. depth + i - 1 below them, for i <= lp_len (deeper levels are empty). */
typedef struct tnode {
    uint32_t depth, lp_len;
    size_t f_off, f_len, lp_off;
} tnode;

enum {
    PASS_PREDICT = 0,
    PASS_MEASURE = 1,
    PASS_EMIT = 2,
    PASS_UNREDUCED = 3,
    PASS_COUNT = 4,
    PASS_BOUND = 5
};

typedef struct run {
    hf_i_tree *t;
    hf_ctx *ctx;
    hf_pattern_mode mode;
    int pass;
    bool guard;
    uint32_t dd; /* d' = min(d, real events), at least 1 */
    uint32_t h, n, nreal;
    uint32_t *depth;
    uint32_t *bfs;       /* nodes by BFS position (by depth, left to right) */
    uint32_t *fc;        /* n + 1: BFS position of the first child of the node at a position */
    uint32_t *layer_end; /* h + 1: positions past the nodes of depth <= L */
    uint32_t *next_fork; /* h + 1: the least depth >= L with a two-child node (h if none) */
    uint8_t *real;
    int8_t *hasreal;   /* 0 if the subtree holds a real node, else -1 */
    int8_t *best;      /* MAXM rows of n: see realised() */
    uint32_t *rep;     /* one node per class of isomorphic subtrees at one depth, by position */
    uint32_t *rep_end; /* h + 1: representatives of depth <= L */
    uint32_t *crep;    /* per child slot of the tree: its class's representative */
    uint32_t *row;
    uint32_t *sbuf;
    /* hashing */
    uint32_t *pc; /* n + 1: real nodes before each BFS position */
    uint64_t *ph; /* 2 (n + 1): prefix hashes over BFS positions */
    uint64_t *pw; /* 2 (nreal + 1): powers of the bases, then of their inverses */
    uint64_t *ipw;
    /* constraint sets */
    tnode *tn;
    size_t tn_len, tn_cap;
    uint32_t *fpool;
    size_t f_len, f_cap;
    span *lp;
    size_t lp_len, lp_cap;
    uint64_t *tkey; /* (parent, layer, side) + 1 -> tval */
    uint32_t *tval;
    size_t tmap_cap, tmap_used;
    uint32_t *scratch; /* 2 |F| */
    size_t scratch_cap;
    /* the sigmas of the current shape, grouped by free mask */
    uint8_t *sig;
    size_t sig_cap;
    uint32_t *sigmask;
    size_t sigmask_cap, nsig;
    uint64_t *rbits; /* the realisability tests of the first pass, replayed by the later ones */
    size_t rbits_len, rbits_cap, rbits_pos;
    bool record, replay;     /* this pass writes rbits / reads them instead of testing */
    bool probing, probe_hit; /* probing: stop at the first realised layering */
    hf_i_emitter *em;
    const hf_sink *out;
    hf_i_keyset keys;
    hf_i_pattern_stats st;
    uint64_t row_first, row_last; /* a slice: only these rows are built (gen.h) */
    bool rows_done;               /* the slice is out: the walk stops (HF_EABORTED) */
} run;

static const uint64_t BASE[2] = {UINT64_C(0x1c8f3a5b7d2e4f61) % MODP,
                                 UINT64_C(0x0b5ad4eceda1ce2b) % MODP};

/* a followed by b */
static span cat(const run *r, span a, span b)
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

/* The real nodes at BFS positions lo .. hi - 1. */
static span interval(const run *r, uint32_t lo, uint32_t hi)
{
    uint64_t a[2] = {r->ph[lo], r->ph[r->n + 1 + lo]}, b[2] = {r->ph[hi], r->ph[r->n + 1 + hi]};
    return tail(r, r->pc[lo], a, r->pc[hi], b);
}

/* ---------------------------------------------------------------------------------------- */
/* Constraint sets                                                                          */

static hf_status work(run *r, uint64_t w)
{
    if (r->guard && w > HF_I_PATTERN_MAX_WORK - r->st.work)
        return HF_ETOOLARGE;
    r->st.work += w;
    return HF_OK;
}

/* A new set from the positions in scratch[0 .. len) at depth `depth`: its spans, level by
 * level, until every subtree has ended. O(len * levels). */
static hf_status tnode_add(run *r, uint32_t depth, size_t len)
{
    if (HF_I_GROW(r->ctx, r->tn, &r->tn_cap, r->tn_len + 1) ||
        HF_I_GROW(r->ctx, r->fpool, &r->f_cap, r->f_len + len) ||
        HF_I_GROW(r->ctx, r->scratch, &r->scratch_cap, 2 * len + 2))
        return HF_ENOMEM;
    tnode *tn = &r->tn[r->tn_len];
    tn->depth = depth;
    tn->f_off = r->f_len;
    tn->f_len = len;
    tn->lp_off = r->lp_len;
    tn->lp_len = 0;
    memcpy(r->fpool + r->f_len, r->scratch, len * sizeof *r->fpool);
    r->f_len += len;
    uint32_t *lo = r->scratch, *hi = r->scratch + len;
    for (size_t i = 0; i < len; i++)
        hi[i] = lo[i] + 1;
    span acc = {0, {0, 0}};
    for (;;) {
        if (HF_I_GROW(r->ctx, r->lp, &r->lp_cap, r->lp_len + 1))
            return HF_ENOMEM;
        r->lp[r->lp_len++] = acc;
        span level = {0, {0, 0}};
        bool any = false;
        for (size_t i = 0; i < len; i++)
            if (lo[i] < hi[i]) {
                any = true;
                level = cat(r, level, interval(r, lo[i], hi[i]));
                lo[i] = r->fc[lo[i]];
                hi[i] = r->fc[hi[i]];
            }
        hf_status st = work(r, len + 1);
        if (st)
            return st;
        if (!any)
            break;
        acc = cat(r, acc, level);
        tn->lp_len++;
    }
    r->tn_len++;
    return HF_OK;
}

/* The set of the `side` child of a two-child pattern node at `layer` whose own set is T. */
static hf_status tnode_child(run *r, uint32_t T, uint32_t layer, uint32_t side, uint32_t *out)
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
    size_t len = 0;
    for (size_t i = 0; i < tn.f_len; i++) {
        uint32_t lo = r->fpool[tn.f_off + i], hi = lo + 1;
        for (uint32_t dep = tn.depth; dep < layer && lo < hi; dep++) {
            lo = r->fc[lo];
            hi = r->fc[hi];
        }
        hf_status st = work(r, layer - tn.depth + hi - lo + 1);
        if (st)
            return st;
        for (uint32_t q = lo; q < hi; q++)
            if (side < r->fc[q + 1] - r->fc[q]) {
                if (HF_I_GROW(r->ctx, r->scratch, &r->scratch_cap, 2 * (len + 1) + 2))
                    return HF_ENOMEM;
                r->scratch[len++] = r->fc[q] + side;
            }
    }
    hf_status st = tnode_add(r, layer + 1, len);
    if (st)
        return st;
    r->tkey[j] = k;
    r->tval[j] = *out = (uint32_t)(r->tn_len - 1);
    r->tmap_used++;
    return HF_OK;
}

/* The real nodes of levels s .. e below set T, in schedule order. O(1). */
static span piece(const run *r, uint32_t T, uint32_t s, uint32_t e)
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
 * node. Pattern nodes children first, tree nodes deepest first; row x is filled only down to
 * the depths its parent reads, and only at the representatives of the subtree classes (two
 * nodes of one depth with isomorphic subtrees, real events included, get the same values),
 * which the rows read through crep. O(m n), O(m h) on complete binary trees. */
static bool realised(run *r, const pat *P)
{
    const hf_i_tree *t = r->t;
    uint32_t n = r->n, lim[MAXM];
    for (uint32_t x = P->m; x-- > 0;) {
        int8_t *bx = r->best + (size_t)x * n;
        if (P->arity[x] == 0) {
            memcpy(bx, r->hasreal, n);
            continue;
        }
        uint32_t y = P->child[x][0];
        const int8_t *b0 = r->best + (size_t)y * n;
        if (P->free >> x & 1) {
            /* images strictly above the child's: depths < lim */
            lim[x] = P->arity[y] == 0 ? r->h + 1 : (P->free >> y & 1) ? lim[y] - 1 : P->layer[y];
            for (uint32_t i = lim[x] ? r->rep_end[lim[x] - 1] : 0; i-- > 0;) {
                uint32_t u = r->rep[i], lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
                int v = -1;
                bool deeper = r->depth[u] + 1 < lim[x];
                for (uint32_t j = 0; j < cnt; j++) {
                    uint32_t c = r->crep[lo + j];
                    if (deeper && bx[c] > v)
                        v = bx[c];
                    if (r->real[u] && b0[c] > v)
                        v = b0[c];
                }
                bx[u] = (int8_t)v;
            }
            continue;
        }
        uint32_t L = P->layer[x];
        const int8_t *b1 = r->best + (size_t)P->child[x][1] * n;
        for (uint32_t i = r->rep_end[L]; i-- > 0;) {
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
    int need = (int)r->dd - (int)P->leaves_unary;
    return r->best[t->root] >= need;
}

/* The tree nodes realised() visits: the rows of non-leaf nodes down to their depth limit, a
 * copy of n bytes (counted n / 8) per leaf. O(m). */
static uint64_t test_cost(const run *r, const pat *P)
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
        if ((st = work(r, test_cost(r, P))))
            return st;
        /* the tests' cost is known without running them; only the probes need their answer */
        if (r->pass == PASS_BOUND && !r->probing)
            return HF_OK;
        bool yes;
        if (r->replay) {
            yes = r->rbits[r->rbits_pos / 64] >> (r->rbits_pos % 64) & 1;
            r->rbits_pos++;
        } else {
            yes = realised(r, P);
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
    if ((st = work(r, (uint64_t)(to - from) * P->m)))
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
            else if ((st = tnode_child(r, T[q], P->layer[q], P->child[q][1] == x, &T[x])))
                return st;
        }
        uint32_t s = x == 0 ? 0 : P->layer[P->parent[x]] + 1;
        sp[x] = piece(r, T[x], s, P->layer[x]);
    }
    if (r->pass == PASS_MEASURE)
        return HF_OK;
    for (size_t i = from; i < to; i++) {
        const uint8_t *sigma = r->sig + i * P->m;
        span acc = {0, {0, 0}};
        for (uint32_t k = 0; k < P->m; k++)
            if (sp[sigma[k]].c)
                acc = cat(r, acc, sp[sigma[k]]);
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
    hf_status st = work(r, P->linext * per);
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
    return each_mask(r, P);
}

/* Arity sequences in preorder (lexicographic), with at most d' - 1 non-leaf nodes and, for
 * realised patterns, at most d' leaves and one-child nodes (each open slot needs a leaf). */
static hf_status each_shape(run *r, pat *P, uint32_t pos, uint32_t open, uint32_t nonleaf,
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
        hf_status st = each_shape(r, P, pos + 1, op, nl, l2);
        if (st)
            return st;
    }
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Set-up and the method                                                                    */

typedef struct cls_key {
    uint32_t real, cnt, c0, c1, pos;
} cls_key;

static int cmp_cls_key(const void *a, const void *b)
{
    const cls_key *x = a, *y = b;
    const uint32_t kx[5] = {x->real, x->cnt, x->c0, x->c1, x->pos},
                   ky[5] = {y->real, y->cnt, y->c0, y->c1, y->pos};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* Classes of isomorphic subtrees per depth (children in order, real flags kept), deepest level
 * first, each represented by its first node in breadth-first order: realised() computes one
 * value per class. Needs depth, bfs, layer_end and real. O(n log n). */
static hf_status classes(run *r)
{
    const hf_i_tree *t = r->t;
    uint32_t n = r->n, nchild = t->child_off[n], ncls = 0;
    uint32_t *cls = hf_i_alloc_array(r->ctx, n, sizeof *cls);
    uint32_t *first = hf_i_alloc_array(r->ctx, n, sizeof *first);
    cls_key *keys = hf_i_alloc_array(r->ctx, n, sizeof *keys);
    r->rep = hf_i_alloc_array(r->ctx, n, sizeof *r->rep);
    r->rep_end = hf_i_alloc_array(r->ctx, (size_t)r->h + 1, sizeof *r->rep_end);
    r->crep = hf_i_alloc_array(r->ctx, (size_t)nchild + 1, sizeof *r->crep);
    if (!cls || !first || !keys || !r->rep || !r->rep_end || !r->crep) {
        hf_i_free(r->ctx, cls);
        hf_i_free(r->ctx, first);
        hf_i_free(r->ctx, keys);
        return HF_ENOMEM;
    }
    for (uint32_t D = r->h + 1; D-- > 0;) {
        uint32_t lo = D ? r->layer_end[D - 1] : 0, hi = r->layer_end[D];
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t u = r->bfs[i], co = t->child_off[u], cnt = t->child_off[u + 1] - co;
            cls_key k = {r->real[u], cnt, 0, 0, i};
            if (cnt > 2) /* not binarized: a class of its own */
                k.c0 = k.c1 = UINT32_MAX;
            else {
                if (cnt > 0)
                    k.c0 = cls[t->child[co]];
                if (cnt > 1)
                    k.c1 = cls[t->child[co + 1]];
            }
            keys[i - lo] = k;
        }
        qsort(keys, hi - lo, sizeof *keys, cmp_cls_key);
        for (uint32_t j = 0; j < hi - lo; j++) {
            const cls_key *a = &keys[j], *b = j ? &keys[j - 1] : NULL;
            if (!b || a->real != b->real || a->cnt != b->cnt || a->c0 != b->c0 || a->c1 != b->c1 ||
                a->cnt > 2)
                first[ncls++] = a->pos;
            cls[r->bfs[a->pos]] = ncls - 1;
        }
    }
    uint32_t nrep = 0;
    for (uint32_t D = 0, i = 0; D <= r->h; D++) {
        for (; i < r->layer_end[D]; i++)
            if (first[cls[r->bfs[i]]] == i)
                r->rep[nrep++] = r->bfs[i];
        r->rep_end[D] = nrep;
    }
    for (uint32_t j = 0; j < nchild; j++)
        r->crep[j] = r->bfs[first[cls[t->child[j]]]];
    hf_i_free(r->ctx, cls);
    hf_i_free(r->ctx, first);
    hf_i_free(r->ctx, keys);
    return HF_OK;
}

static void run_free(run *r)
{
    hf_ctx *ctx = r->ctx;
    void *bufs[] = {r->rep,       r->rep_end,   r->crep,    r->depth,   r->bfs, r->fc,
                    r->layer_end, r->real,      r->hasreal, r->best,    r->row, r->sbuf,
                    r->pc,        r->next_fork, r->ph,      r->pw,      r->tn,  r->fpool,
                    r->lp,        r->tkey,      r->tval,    r->scratch, r->sig, r->sigmask,
                    r->keys.slot, r->rbits};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        hf_i_free(ctx, bufs[i]);
    hf_i_emitter_free(r->em);
    hf_i_tree_free(r->t);
}

/* Tree, depths, breadth-first order, real-event flags, prefix hashes, the root's set. O(n)
 * after the tree (plus O(log p) for the inverse bases). */
static hf_status run_init(run *r, const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    hf_i_tree_options topt = {HF_I_GADGET_WEIGHTED, opt->focus, opt->focus_count};
    hf_status st = hf_i_tree_new(p, &topt, &r->t, err);
    if (st)
        return st;
    const hf_i_tree *t = r->t;
    hf_ctx *ctx = r->ctx = t->ctx;
    uint32_t n = r->n = t->n;
    r->h = t->height;
    r->depth = hf_i_alloc_array(ctx, n, sizeof *r->depth);
    r->bfs = hf_i_alloc_array(ctx, n, sizeof *r->bfs);
    r->fc = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *r->fc);
    r->layer_end = hf_i_calloc(ctx, (size_t)r->h + 1, sizeof *r->layer_end);
    r->next_fork = hf_i_alloc_array(ctx, (size_t)r->h + 1, sizeof *r->next_fork);
    r->real = hf_i_malloc(ctx, n);
    r->hasreal = hf_i_malloc(ctx, n);
    r->best = hf_i_alloc_array(ctx, (size_t)MAXM * n, 1);
    r->row = hf_i_alloc_array(ctx, n, sizeof *r->row);
    r->sbuf = hf_i_alloc_array(ctx, n, sizeof *r->sbuf);
    r->pc = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *r->pc);
    r->ph = hf_i_alloc_array(ctx, 2 * ((size_t)n + 1), sizeof *r->ph);
    if (!r->depth || !r->bfs || !r->fc || !r->layer_end || !r->real || !r->hasreal || !r->best ||
        !r->row || !r->sbuf || !r->pc || !r->ph || !r->next_fork || hf_i_emitter_new(t, &r->em))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t head = 0, tail_ = 0, nreal = 0;
    r->bfs[tail_++] = t->root;
    r->depth[t->root] = 0;
    r->fc[0] = 1;
    while (head < tail_) {
        uint32_t u = r->bfs[head++];
        r->layer_end[r->depth[u]] = head;
        r->fc[head] = r->fc[head - 1] + (t->child_off[u + 1] - t->child_off[u]);
        for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++) {
            r->depth[t->child[c]] = r->depth[u] + 1;
            r->bfs[tail_++] = t->child[c];
        }
    }
    for (uint32_t L = 1; L <= r->h; L++)
        if (r->layer_end[L] < r->layer_end[L - 1])
            r->layer_end[L] = r->layer_end[L - 1];
    for (uint32_t L = 0; L <= r->h; L++)
        r->next_fork[L] = r->h;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = r->bfs[i];
        if (t->child_off[u + 1] - t->child_off[u] >= 2 && r->depth[u] < r->next_fork[r->depth[u]])
            r->next_fork[r->depth[u]] = r->depth[u];
    }
    for (uint32_t L = r->h; L-- > 0;)
        if (r->next_fork[L + 1] < r->next_fork[L])
            r->next_fork[L] = r->next_fork[L + 1];
    for (uint32_t i = n; i-- > 0;) {
        uint32_t u = r->bfs[i];
        r->real[u] = t->orig[u] != HF_NO_EVENT;
        nreal += r->real[u];
        r->hasreal[u] = r->real[u] ? 0 : -1;
        for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++)
            if (r->hasreal[t->child[c]] == 0)
                r->hasreal[u] = 0;
    }
    r->nreal = nreal;
    if (classes(r))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->dd = opt->d < nreal ? opt->d : nreal;
    if (r->dd == 0)
        r->dd = 1;
    /* powers of the bases and their inverses (p is prime), then prefix hashes */
    r->pw = hf_i_alloc_array(ctx, 4 * ((size_t)nreal + 1), sizeof *r->pw);
    if (!r->pw)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->ipw = r->pw + 2 * ((size_t)nreal + 1);
    for (int i = 0; i < 2; i++) {
        uint64_t *pw = r->pw + i * ((size_t)nreal + 1), *ipw = r->ipw + i * ((size_t)nreal + 1);
        uint64_t inv = hf_i_powmod(BASE[i], MODP - 2);
        pw[0] = ipw[0] = 1;
        for (uint32_t j = 1; j <= nreal; j++) {
            pw[j] = hf_i_mulmod(pw[j - 1], BASE[i]);
            ipw[j] = hf_i_mulmod(ipw[j - 1], inv);
        }
    }
    r->pc[0] = 0;
    r->ph[0] = r->ph[n + 1] = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = r->bfs[i];
        r->pc[i + 1] = r->pc[i] + r->real[u];
        for (int k = 0; k < 2; k++) {
            uint64_t g = r->real[u] ? hf_i_fmix64((uint64_t)u * 2 + (uint64_t)k + 1) % MODP : 0;
            r->ph[k * ((size_t)n + 1) + i + 1] = hf_i_addmod(
                r->ph[k * ((size_t)n + 1) + i], hf_i_mulmod(g, r->pw[k * (nreal + 1) + r->pc[i]]));
        }
    }
    if (HF_I_GROW(ctx, r->scratch, &r->scratch_cap, 4))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->scratch[0] = 0; /* the root's position */
    bool guard = r->guard;
    r->guard = false;
    st = tnode_add(r, 0, 1);
    r->guard = guard;
    if (st)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    return HF_OK;
}

static hf_status one_pass(run *r, int pass)
{
    pat P;
    r->pass = pass;
    r->rbits_pos = 0;
    r->st = (hf_i_pattern_stats){0};
    return each_shape(r, &P, 0, 1, 0, 0);
}

hf_status hf_i_pattern_run(const hf_poset *p, const hf_gen_options *opt, unsigned flags,
                           const hf_sink *sink, hf_i_pattern_stats *stats, hf_error *err)
{
    if (!p || !opt || opt->d < 1 || opt->d > HF_MAX_D || (unsigned)opt->pattern_mode > 2)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    run r = {0};
    r.mode = opt->pattern_mode;
    r.out = sink;
    r.row_first = opt->row_first;
    r.row_last = opt->row_last;
    r.guard = !(flags & HF_I_PATTERN_NO_GUARD);
    hf_status st = run_init(&r, p, opt, err);
    if (!st) {
        if (flags & HF_I_PATTERN_UNREDUCED) {
            st = one_pass(&r, PASS_UNREDUCED);
        } else {
            /* With the guard, cheap walks first, each charging part of the full walk's work
             * and refusing when that part passes a limit: the bound (the sigmas, the tests'
             * cost, only the probes tested), then the count (the tests, recorded for the later
             * passes, and the patterns; no constraint set, no hash). */
            if (r.guard && r.mode != HF_PATTERN_ALL)
                st = one_pass(&r, PASS_BOUND);
            if (r.guard && !st) {
                r.record = true;
                st = one_pass(&r, PASS_COUNT);
                r.record = false;
                r.replay = true;
            } else {
                r.record = sink != NULL;
            }
            if (!st && !sink)
                st = one_pass(&r, PASS_PREDICT);
            else if (!st && !(st = one_pass(&r, PASS_MEASURE))) {
                /* the same walk again: no refusal once emitting */
                r.guard = false;
                r.record = false;
                r.replay = true;
                st = one_pass(&r, PASS_EMIT);
                if (st == HF_EABORTED && r.rows_done)
                    st = HF_OK;
            }
        }
        if (st == HF_ETOOLARGE)
            hf_i_fail(err, st, 0, 0,
                      "method pattern: more than %" PRIu64 " steps of work or %" PRIu64
                      " patterns for d=%u on this tree (binarized height %" PRIu32
                      "); use simple or doubletree",
                      (uint64_t)HF_I_PATTERN_MAX_WORK, (uint64_t)HF_I_PATTERN_MAX_PATTERNS, opt->d,
                      r.h);
        else if (st == HF_ENOMEM)
            hf_i_fail(err, st, 0, 0, "out of memory");
    }
    if (stats)
        *stats = r.st;
    run_free(&r);
    return st;
}

static hf_status pattern_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d < 3)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method pattern builds d-hitting families for d >= 3 (d=%u asked); use "
                         "dfs for d <= 2",
                         opt->d);
    if (!(p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method pattern needs a forest or an in-forest; this order has an event "
                         "with two predecessors and one with two successors");
    return HF_OK;
}

/* The walk with piece hashes and the hash set, no schedule built: see gen_pattern.h. */
static hf_status pattern_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                 hf_error *err)
{
    hf_i_pattern_stats s;
    hf_status st = hf_i_pattern_run(p, opt, 0, NULL, &s, err);
    if (st)
        return st;
    uint64_t count = s.distinct;
    mpz_set_ui(size, 0);
    mpz_import(size, 1, -1, sizeof count, 0, 0, &count); /* exact whatever the width of long */
    return HF_OK;
}

static hf_status pattern_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                  hf_error *err)
{
    return hf_i_pattern_run(p, opt, 0, &sink, NULL, err);
}

/* For d = 3 doubletree was smaller than pattern on every tree measured
 * (papers/chistikov2016/pattern_table.md): auto weighs pattern from d = 4 on. */
static hf_i_auto_rule pattern_auto_rule(const hf_poset *p, unsigned d)
{
    (void)p;
    return d == 3 ? HF_I_AUTO_ADVISE : HF_I_AUTO_WEIGH;
}

const hf_i_method hf_i_method_pattern = {
    .id = HF_METHOD_PATTERN,
    .name = "pattern",
    .check = pattern_check,
    .predict = pattern_predict,
    .generate = pattern_generate,
    .predict_runs = false,
    .auto_rule = pattern_auto_rule,
    .rows = true,
};
