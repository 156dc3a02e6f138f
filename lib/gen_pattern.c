/* d >= 3 on forests and in-forests: one schedule per pattern (CAV 2016, Section 5, Lemma 3,
 * breadth-first pieces), realised patterns only or all of them, deduplicated by row hashes. */
#include <string.h>

#include "forest.h"
#include "gen_pattern.h"

/* Pattern nodes: at most d - 1 non-leaf nodes, so at most 2d - 1 nodes. */
#define MAXM (2 * HF_MAX_D - 1)

typedef struct pat {
    uint32_t m;
    uint8_t arity[MAXM];
    uint8_t child[MAXM][2];
    uint8_t parent[MAXM];
    uint8_t nlh[MAXM];       /* non-leaf nodes on the longest downward path from the node */
    uint32_t layer[MAXM];    /* lambda-hat: the layer of a non-leaf node, h for leaves */
    uint32_t leaves_unary;   /* nodes that every conforming tuple must contain */
    uint64_t linext;         /* linear extensions of the shape: the sigmas */
} pat;

/* A 128-bit row hash; (0, 0) marks an empty slot and is never produced. */
typedef struct key {
    uint64_t a, b;
} key;

enum { PASS_MEASURE = 0, PASS_EMIT = 1 };

typedef struct run {
    hf_i_tree *t;
    hf_ctx *ctx;
    hf_i_pattern_mode mode;
    int pass;
    uint32_t dd;         /* d' = min(d, real events), at least 1 */
    uint32_t h, n;
    uint64_t unit;       /* cost of one schedule: build, map back, hash */
    uint32_t *depth;
    uint32_t *bfs;       /* nodes by depth */
    uint32_t *layer_end; /* h + 1: index into bfs past the nodes of depth <= L */
    uint8_t *real;
    int8_t *hasreal;     /* 0 if the subtree holds a real node, else -1 */
    int8_t *best;        /* MAXM rows of n: see realised() */
    uint32_t *row;
    uint32_t *sbuf;      /* the sets S(x), one after another */
    hf_i_emitter *em;
    const hf_sink *out;
    key *table;
    size_t cap, used;
    hf_i_pattern_stats st;
} run;

/* ---------------------------------------------------------------------------------------- */
/* Deduplication                                                                            */

static uint64_t fmix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

static key row_key(const uint32_t *s, uint32_t n)
{
    uint64_t a = UINT64_C(0x9e3779b97f4a7c15) ^ n, b = UINT64_C(0x243f6a8885a308d3) + n;
    for (uint32_t i = 0; i < n; i++) {
        a = (a ^ s[i]) * UINT64_C(0x100000001b3);
        a ^= a >> 29;
        b = (b + s[i] + 1) * UINT64_C(0xd6e8feb86659fd93);
        b = (b << 31) | (b >> 33);
    }
    key k = {fmix(a), fmix(b ^ UINT64_C(0x5851f42d4c957f2d))};
    k.a |= 1; /* never the empty marker */
    return k;
}

/* Insert; *fresh tells whether the key was new. */
static hf_status table_add(run *r, key k, bool *fresh)
{
    if (2 * (r->used + 1) > r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 1024;
        key *nt = hf_i_calloc(r->ctx, ncap, sizeof *nt);
        if (!nt)
            return HF_ENOMEM;
        for (size_t i = 0; i < r->cap; i++) {
            if (!r->table[i].a)
                continue;
            size_t j = r->table[i].b & (ncap - 1);
            while (nt[j].a)
                j = (j + 1) & (ncap - 1);
            nt[j] = r->table[i];
        }
        hf_i_free(r->ctx, r->table);
        r->table = nt;
        r->cap = ncap;
    }
    size_t j = k.b & (r->cap - 1);
    while (r->table[j].a) {
        if (r->table[j].a == k.a && r->table[j].b == k.b) {
            *fresh = false;
            return HF_OK;
        }
        j = (j + 1) & (r->cap - 1);
    }
    r->table[j] = k;
    r->used++;
    *fresh = true;
    return HF_OK;
}

/* The sink between the emitter and the caller: drops rows already seen. */
static hf_status dedup_put(void *user, const uint32_t *s, uint32_t n)
{
    run *r = user;
    bool fresh;
    if (table_add(r, row_key(s, n), &fresh))
        return HF_ENOMEM;
    if (!fresh)
        return HF_OK;
    r->st.distinct++;
    return r->out ? r->out->put(r->out->user, s, n) : HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Realisability                                                                            */

/* Whether some admissible tuple of d' real events conforms to (shape, layers). best[x][u] is
 * the most two-child nodes of the sub-pattern at x that an embedding inside sub(u) maps to real
 * events (-1: no embedding; x's image on layer(x) for a non-leaf x, any real node for a leaf).
 * Pattern nodes in reverse preorder (children first), tree nodes deepest first. O(m n). */
static bool realised(run *r, const pat *P)
{
    const hf_i_tree *t = r->t;
    uint32_t n = r->n;
    for (uint32_t x = P->m; x-- > 0;) {
        int8_t *bx = r->best + (size_t)x * n;
        if (P->arity[x] == 0) {
            memcpy(bx, r->hasreal, n);
            continue;
        }
        uint32_t L = P->layer[x];
        const int8_t *b0 = r->best + (size_t)P->child[x][0] * n;
        const int8_t *b1 = r->best + (size_t)P->child[x][1] * n;
        for (uint32_t i = r->layer_end[L]; i-- > 0;) {
            uint32_t u = r->bfs[i], lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
            int v = -1;
            if (r->depth[u] < L) {
                for (uint32_t j = 0; j < cnt; j++)
                    v = bx[t->child[lo + j]] > v ? bx[t->child[lo + j]] : v;
            } else if (P->arity[x] == 2) {
                if (cnt == 2 && b0[t->child[lo]] >= 0 && b1[t->child[lo + 1]] >= 0)
                    v = r->real[u] + b0[t->child[lo]] + b1[t->child[lo + 1]];
            } else if (r->real[u]) {
                for (uint32_t j = 0; j < cnt; j++)
                    v = b0[t->child[lo + j]] > v ? b0[t->child[lo + j]] : v;
            }
            bx[u] = (int8_t)v;
        }
    }
    int need = (int)r->dd - (int)P->leaves_unary;
    return r->best[t->root] >= need;
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
 * (A, sigma|A) as well, so the other sigmas can go. O(C(B, need) m) with B two-child nodes. */
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

/* Every sigma (linear extension of the shape), in lexicographic order of preorder indices. The
 * recursion is at most m <= 15 deep. */
static hf_status each_sigma(run *r, const pat *P, uint8_t *sigma, uint32_t k, uint32_t avail)
{
    if (k == P->m) {
        if (r->mode == HF_I_PATTERN_CANONICAL && !canonical(r, P, sigma))
            return HF_OK;
        build(r, P, sigma);
        r->st.patterns++;
        return hf_i_emit(r->em, r->row, (hf_sink){dedup_put, r});
    }
    for (uint32_t x = 0; x < P->m; x++) {
        if (!(avail >> x & 1))
            continue;
        uint32_t next = avail & ~(UINT32_C(1) << x);
        for (uint32_t b = 0; b < P->arity[x]; b++)
            next |= UINT32_C(1) << P->child[x][b];
        sigma[k] = (uint8_t)x;
        hf_status st = each_sigma(r, P, sigma, k + 1, next);
        if (st)
            return st;
    }
    return HF_OK;
}

/* One (shape, layers) pair: measured in the first pass, emitted in the second. */
static hf_status visit(run *r, const pat *P)
{
    bool test = r->mode != HF_I_PATTERN_ALL;
    if (r->pass == PASS_MEASURE) {
        uint64_t w = r->st.work + (test ? (uint64_t)P->m * r->n : 0);
        if (w > HF_I_PATTERN_MAX_WORK)
            return HF_ETOOLARGE;
        r->st.work = w;
        if (test && !realised(r, P))
            return HF_OK;
        if (P->linext > (HF_I_PATTERN_MAX_WORK - w) / r->unit)
            return HF_ETOOLARGE;
        r->st.work += P->linext * r->unit;
        return HF_OK;
    }
    if (test && !realised(r, P))
        return HF_OK;
    r->st.layered_shapes++;
    uint8_t sigma[MAXM];
    return each_sigma(r, P, sigma, 0, 1);
}

/* Layers of the non-leaf nodes in preorder, each in (parent's layer, h - nlh]: every partial
 * choice extends, so the walk costs O(m) per pair. */
static hf_status each_layering(run *r, pat *P, uint32_t i)
{
    if (i == P->m)
        return visit(r, P);
    if (P->arity[i] == 0) {
        P->layer[i] = r->h;
        return each_layering(r, P, i + 1);
    }
    uint32_t lo = i == 0 ? 0 : P->layer[P->parent[i]] + 1;
    for (uint32_t l = lo; l + P->nlh[i] <= r->h; l++) {
        P->layer[i] = l;
        hf_status st = each_layering(r, P, i + 1);
        if (st)
            return st;
    }
    return HF_OK;
}

/* Children, parents, the counts and the number of sigmas of a complete arity sequence. */
static hf_status finish_shape(run *r, pat *P)
{
    uint8_t stack[MAXM], filled[MAXM] = {0};
    memset(P->child, 0, sizeof P->child);
    P->parent[0] = 0;
    uint32_t sp = 0, size[MAXM];
    P->leaves_unary = 0;
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
    }
    /* nlh, subtree sizes, and the sigmas: linext(x) = prod over children of the multinomial
     * placing their subtrees together times their own linext (exact: m <= 15) */
    uint64_t le[MAXM];
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
    uint64_t num = le[0];
    P->linext = num;
    return each_layering(r, P, 0);
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
        if (r->mode != HF_I_PATTERN_ALL && l2 + op > r->dd)
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

static void run_free(run *r)
{
    hf_ctx *ctx = r->ctx;
    hf_i_free(ctx, r->depth);
    hf_i_free(ctx, r->bfs);
    hf_i_free(ctx, r->layer_end);
    hf_i_free(ctx, r->real);
    hf_i_free(ctx, r->hasreal);
    hf_i_free(ctx, r->best);
    hf_i_free(ctx, r->row);
    hf_i_free(ctx, r->sbuf);
    hf_i_free(ctx, r->table);
    hf_i_emitter_free(r->em);
    hf_i_tree_free(r->t);
}

/* Tree, depths, breadth-first order, real-event flags. O(n) after the tree. */
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
    r->layer_end = hf_i_calloc(ctx, (size_t)r->h + 1, sizeof *r->layer_end);
    r->real = hf_i_malloc(ctx, n);
    r->hasreal = hf_i_malloc(ctx, n);
    r->best = hf_i_alloc_array(ctx, (size_t)MAXM * n, 1);
    r->row = hf_i_alloc_array(ctx, n, sizeof *r->row);
    r->sbuf = hf_i_alloc_array(ctx, n, sizeof *r->sbuf);
    if (!r->depth || !r->bfs || !r->layer_end || !r->real || !r->hasreal || !r->best || !r->row ||
        !r->sbuf || hf_i_emitter_new(t, &r->em))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t head = 0, tail = 0, nreal = 0;
    r->bfs[tail++] = t->root;
    r->depth[t->root] = 0;
    while (head < tail) {
        uint32_t u = r->bfs[head++];
        r->layer_end[r->depth[u]] = head;
        for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++) {
            r->depth[t->child[c]] = r->depth[u] + 1;
            r->bfs[tail++] = t->child[c];
        }
    }
    for (uint32_t L = 1; L <= r->h; L++)
        if (r->layer_end[L] < r->layer_end[L - 1])
            r->layer_end[L] = r->layer_end[L - 1];
    for (uint32_t i = n; i-- > 0;) {
        uint32_t u = r->bfs[i];
        r->real[u] = t->orig[u] != HF_NO_EVENT;
        nreal += r->real[u];
        r->hasreal[u] = r->real[u] ? 0 : -1;
        for (uint32_t c = t->child_off[u]; c < t->child_off[u + 1]; c++)
            if (r->hasreal[t->child[c]] == 0)
                r->hasreal[u] = 0;
    }
    r->dd = opt->d < nreal ? opt->d : nreal;
    if (r->dd == 0)
        r->dd = 1;
    r->unit = (uint64_t)n + t->n_orig + 1;
    return HF_OK;
}

hf_status hf_i_pattern_run(const hf_poset *p, const hf_gen_options *opt, hf_i_pattern_mode mode,
                           const hf_sink *sink, hf_i_pattern_stats *stats, hf_error *err)
{
    if (!p || !opt || opt->d < 1 || opt->d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    run r = {0};
    r.mode = mode;
    r.out = sink;
    hf_status st = run_init(&r, p, opt, err);
    pat P;
    if (!st) {
        r.pass = PASS_MEASURE;
        st = each_shape(&r, &P, 0, 1, 0, 0);
        if (st == HF_ETOOLARGE)
            hf_i_fail(err, st, 0, 0,
                      "method pattern: more than %" PRIu64 " steps of work for d=%u on this "
                      "tree (binarized height %" PRIu32 "); use simple or doubletree",
                      (uint64_t)HF_I_PATTERN_MAX_WORK, opt->d, r.h);
    }
    if (!st) {
        r.pass = PASS_EMIT;
        st = each_shape(&r, &P, 0, 1, 0, 0);
        if (st == HF_ENOMEM)
            hf_i_fail(err, st, 0, 0, "out of memory");
    }
    if (stats)
        *stats = r.st;
    run_free(&r);
    return st;
}

/* The method's family: realised patterns, canonical sigmas only (about half the schedules of
 * all realised sigmas for d = 4; both checked d-hitting by brute force in the tests). */
#define METHOD_MODE HF_I_PATTERN_CANONICAL

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

/* The whole generation into the hash set, nothing streamed: see the cost in gen_pattern.h. */
static hf_status pattern_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                 hf_error *err)
{
    hf_i_pattern_stats s;
    hf_status st = hf_i_pattern_run(p, opt, METHOD_MODE, NULL, &s, err);
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
    return hf_i_pattern_run(p, opt, METHOD_MODE, &sink, NULL, err);
}

const hf_i_method hf_i_method_pattern = {
    .id = HF_METHOD_PATTERN,
    .name = "pattern",
    .check = pattern_check,
    .predict = pattern_predict,
    .generate = pattern_generate,
    .predict_runs = true,
};
