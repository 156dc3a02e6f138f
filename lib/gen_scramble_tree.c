/* Method scramble on spine forests (d = 3): the Sperner families of lib/gen_scramble.c for the
 * leaves, around a chain of inner events. docs/math.md §7.5 has the proof. */
#include <string.h>

#include "gen.h"
#include "gen_scramble.h"
#include "poset_i.h"

/*
 * A spine forest is a forest (or an in-forest, read reversed) whose inner events, those with a
 * child, form one chain c_1 < ... < c_k, each c_{j+1} a child of c_j: stars (k = 1), brooms,
 * caterpillars, with any number of isolated events. Every other event is a leaf x with an index
 * a(x): j when its parent is c_j, 0 when it has none. Leaves are pairwise incomparable.
 *
 * Rows, the leaves taken in the order of (a(x), id) ("the leaf order"):
 *   A(i, dir), i < t (lib/gen_scramble.c: t the smallest with C(t, t/2) >= m, the x-th
 *       t/2-subset in colex order; one coordinate for a single leaf): with dir increasing, each
 *       leaf whose subset holds i right after its parent (at the start when it has none), in the
 *       leaf order, the chain around them, then the other leaves after c_k in the leaf order;
 *       with dir decreasing, the chain, then the leaves whose subset holds i, then the others,
 *       each block in reverse leaf order. Restricted to the leaves both are the Sperner rows.
 *   S(g), -1 <= g < k: the chain with every leaf in gap max(a(x), g), gap h being the place
 *       after c_h (before c_1 for h = 0): the leaves with a(x) <= g gathered in gap g by
 *       decreasing a(x), then decreasing id; each other leaf right after its parent, by
 *       increasing id. S(-1) puts every leaf right after its parent; it is made when some leaf
 *       is early (a(x) < k), S(g) for g >= 0 when some leaf has a(x) <= g.
 * At most 2t + k + 1 rows; equal rows are emitted once, so the size is exact: each A row and
 * S(-1) is compared with the earlier ones whose hash it shares, by building them again. S(g)
 * for g >= 0 is not built to be counted: it places the leaves of a(x) <= g in gap g < k, where
 * no decreasing A row (all leaves after c_k) and no S(g') (g' != g) has them, and an increasing
 * A row or S(-1) has them there only when S(g) gathers a single leaf x with a(x) = g and is
 * S(-1) itself: such an S(g) is dropped for S(-1).
 */

enum { ROW_A, ROW_S };

/* The most row entries the plan builds (the A rows and S(-1) times the events), about
 * 0.1 s, since auto predicts every spine forest: beyond, the method declines (spine forests of
 * more than about 600,000 events). */
#define SPINE_MAX_WORK ((uint64_t)1 << 25)

typedef struct row_desc {
    uint8_t kind, dir;
    uint32_t idx; /* A: the coordinate; S: g + 1 */
    uint64_t hash;
} row_desc;

typedef struct spine {
    const hf_poset *p;
    hf_ctx *ctx;
    bool dual;       /* an in-forest: rows built on the reversed order, then reversed */
    uint32_t k, m;   /* inner events, leaves */
    uint32_t *chain; /* k */
    uint32_t *leaf;  /* m, in the leaf order: by a(x), then id */
    uint64_t *a;     /* m, in the leaf order: each leaf's subset of the A rows */
    uint32_t *poff;  /* k + 2: leaf[poff[g] .. poff[g + 1]) are the leaves with a(x) = g */
    uint32_t *upto;  /* k + 1: leaves with a(x) <= g */
    unsigned t;
    uint32_t early;
} spine;

static inline uint32_t up_count(const hf_poset *p, uint32_t v, bool dual)
{
    return dual ? (uint32_t)(p->succ_off[v + 1] - p->succ_off[v])
                : (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
}

static inline uint32_t down_count(const hf_poset *p, uint32_t v, bool dual)
{
    return up_count(p, v, !dual);
}

static inline uint32_t up_of(const hf_poset *p, uint32_t v, bool dual)
{
    return dual ? p->succ[p->succ_off[v]] : p->pred[p->pred_off[v]];
}

/* The order read as a tree view (reversed for an in-forest that is not a forest). */
static bool view_dual(const hf_poset *p) { return !(p->shape & HF_SHAPE_FOREST); }

bool hf_i_spine_fits(const hf_poset *p)
{
    if (!(p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)))
        return false;
    bool dual = view_dual(p);
    uint32_t roots = 0;
    for (uint32_t v = 0; v < p->n; v++) {
        if (!down_count(p, v, dual))
            continue;
        uint32_t inner_children = 0;
        const uint32_t *c = dual ? p->pred + p->pred_off[v] : p->succ + p->succ_off[v];
        for (uint32_t i = 0; i < down_count(p, v, dual); i++)
            inner_children += down_count(p, c[i], dual) > 0;
        if (inner_children > 1)
            return false;
        roots += up_count(p, v, dual) == 0;
    }
    return roots <= 1;
}

static void spine_free(spine *s)
{
    hf_i_free(s->ctx, s->chain);
    hf_i_free(s->ctx, s->leaf);
    hf_i_free(s->ctx, s->a);
    hf_i_free(s->ctx, s->poff);
    hf_i_free(s->ctx, s->upto);
}

static hf_status spine_new(const hf_poset *p, spine *s, hf_error *err)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->ctx = p->ctx;
    s->dual = view_dual(p);
    uint32_t n = p->n, n1 = n ? n : 1;
    for (uint32_t v = 0; v < n; v++)
        s->k += down_count(p, v, s->dual) > 0;
    s->m = n - s->k;
    s->chain = hf_i_alloc_array(s->ctx, s->k ? s->k : 1, sizeof *s->chain);
    s->leaf = hf_i_alloc_array(s->ctx, n1, sizeof *s->leaf);
    s->a = hf_i_alloc_array(s->ctx, n1, sizeof *s->a);
    s->poff = hf_i_calloc(s->ctx, (size_t)s->k + 2, sizeof *s->poff);
    s->upto = hf_i_alloc_array(s->ctx, (size_t)s->k + 1, sizeof *s->upto);
    /* scratch: each inner event's chain index + 1; the leaves by id and their a(x); the next
     * place of each a(x) in the leaf order */
    uint32_t *pos = hf_i_alloc_array(s->ctx, n1, sizeof *pos);
    uint32_t *ids = hf_i_alloc_array(s->ctx, n1, sizeof *ids);
    uint32_t *par = hf_i_alloc_array(s->ctx, n1, sizeof *par);
    uint32_t *at = hf_i_alloc_array(s->ctx, (size_t)s->k + 1, sizeof *at);
    if (!s->chain || !s->leaf || !s->a || !s->poff || !s->upto || !pos || !ids || !par || !at) {
        hf_i_free(s->ctx, pos);
        hf_i_free(s->ctx, ids);
        hf_i_free(s->ctx, par);
        hf_i_free(s->ctx, at);
        spine_free(s);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    /* the chain from its root: each inner event has at most one inner child */
    uint32_t c = HF_NO_EVENT;
    for (uint32_t v = 0; v < n && c == HF_NO_EVENT; v++)
        if (down_count(p, v, s->dual) && !up_count(p, v, s->dual))
            c = v;
    for (uint32_t j = 0; j < s->k; j++) {
        s->chain[j] = c;
        pos[c] = j + 1;
        uint32_t next = HF_NO_EVENT, deg = down_count(p, c, s->dual);
        const uint32_t *ch = s->dual ? p->pred + p->pred_off[c] : p->succ + p->succ_off[c];
        for (uint32_t i = 0; i < deg; i++)
            if (down_count(p, ch[i], s->dual))
                next = ch[i];
        c = next;
    }
    uint32_t x = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (down_count(p, v, s->dual))
            continue;
        ids[x] = v;
        par[x] = up_count(p, v, s->dual) ? pos[up_of(p, v, s->dual)] : 0;
        s->poff[par[x] + 1]++;
        s->early += par[x] < s->k;
        x++;
    }
    for (uint32_t g = 0; g <= s->k; g++) {
        s->upto[g] = (g ? s->upto[g - 1] : 0) + s->poff[g + 1];
        s->poff[g + 1] += s->poff[g];
    }
    /* the leaves in the leaf order (a counting sort, stable in id), the leaf of rank x by id
     * with the x-th t/2-subset of {0..t-1} in colex order; one coordinate for a single leaf,
     * otherwise t >= 2, so that every subset is nonempty */
    s->t = s->m >= 2 ? hf_i_sperner_t(s->m) : 1;
    uint64_t a = s->m >= 2 ? (UINT64_C(1) << (s->t / 2)) - 1 : 1;
    memcpy(at, s->poff, ((size_t)s->k + 1) * sizeof *at);
    for (x = 0; x < s->m; x++) {
        uint32_t q = at[par[x]]++;
        s->leaf[q] = ids[x];
        s->a[q] = a;
        if (s->m >= 2)
            a = hf_i_colex_next(a);
    }
    hf_i_free(s->ctx, pos);
    hf_i_free(s->ctx, ids);
    hf_i_free(s->ctx, par);
    hf_i_free(s->ctx, at);
    return HF_OK;
}

/* The row of d (n events) into out. O(n). */
static void build(const spine *s, const row_desc *d, uint32_t *out)
{
    uint32_t w = 0, k = s->k, m = s->m;
    if (d->kind == ROW_A && !d->dir) {
        /* the leaves holding i in their gaps, the others after c_k */
        for (uint32_t g = 0; g <= k; g++) {
            if (g)
                out[w++] = s->chain[g - 1];
            for (uint32_t q = s->poff[g]; q < s->poff[g + 1]; q++)
                if ((s->a[q] >> d->idx) & 1)
                    out[w++] = s->leaf[q];
        }
        for (uint32_t q = 0; q < m; q++)
            if (!((s->a[q] >> d->idx) & 1))
                out[w++] = s->leaf[q];
    } else if (d->kind == ROW_A) {
        for (uint32_t j = 0; j < k; j++)
            out[w++] = s->chain[j];
        for (int pass = 1; pass >= 0; pass--)
            for (uint32_t q = m; q-- > 0;)
                if ((int)((s->a[q] >> d->idx) & 1) == pass)
                    out[w++] = s->leaf[q];
    } else {
        /* gap h after c_h; g = idx - 1 (none gathered for idx 0): the gathered leaves are
         * leaf[0 .. upto[g]) read backwards */
        uint32_t gathered = d->idx ? s->upto[d->idx - 1] : 0;
        for (uint32_t h = 0; h <= k; h++) {
            if (h)
                out[w++] = s->chain[h - 1];
            if (d->idx && h == d->idx - 1)
                for (uint32_t q = gathered; q-- > 0;)
                    out[w++] = s->leaf[q];
            for (uint32_t q = s->poff[h] > gathered ? s->poff[h] : gathered; q < s->poff[h + 1];
                 q++)
                out[w++] = s->leaf[q];
        }
    }
    if (s->dual)
        for (uint32_t i = 0, j = w ? w - 1 : 0; i < j; i++, j--) {
            uint32_t tmp = out[i];
            out[i] = out[j];
            out[j] = tmp;
        }
}

static uint64_t row_hash(const uint32_t *row, uint32_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (uint32_t i = 0; i < n; i++) {
        h ^= row[i];
        h *= UINT64_C(0x100000001b3);
        h ^= h >> 29;
    }
    return h;
}

hf_status hf_i_spine_run(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                         uint64_t *count, hf_error *err)
{
    spine s;
    hf_status st = spine_new(p, &s, err);
    if (st)
        return st;
    uint32_t n = p->n, n1 = n ? n : 1;
    /* built: the A rows and S(-1); S(g), g >= 0, only counted (see the top) */
    size_t built = 2 * (size_t)s.t + (s.early > 0), cand = built;
    for (uint32_t g = 0; g < s.k; g++)
        cand += s.upto[g] >= 1;
    if ((uint64_t)built * n > SPINE_MAX_WORK) {
        spine_free(&s);
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "method scramble would build %zu rows of %" PRIu32
                         " events to plan the family of this spine forest (%" PRIu32
                         " leaves); it builds at most %" PRIu64 " row entries",
                         built, n, s.m, SPINE_MAX_WORK);
    }
    row_desc *keep = hf_i_alloc_array(s.ctx, cand ? cand : 1, sizeof *keep);
    uint32_t *row = hf_i_alloc_array(s.ctx, n1, sizeof *row);
    uint32_t *other = hf_i_alloc_array(s.ctx, n1, sizeof *other);
    if (!keep || !row || !other) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto done;
    }
    size_t kept = 0;
    for (int kind = ROW_A; kind <= ROW_S; kind++) {
        uint32_t idx_end = kind == ROW_A ? s.t : s.k + 1;
        for (uint32_t idx = 0; idx < idx_end; idx++)
            for (uint8_t dir = 0; dir < 2; dir++) {
                if (kind == ROW_S && dir)
                    continue;
                if (kind == ROW_S && (idx ? s.upto[idx - 1] == 0 : s.early == 0))
                    continue;
                row_desc d = {(uint8_t)kind, dir, idx, 0};
                if (kind == ROW_S && idx) {
                    /* one gathered leaf in its own gap: S(-1) again; else a row of its own */
                    if (s.upto[idx - 1] > 1 || s.poff[idx - 1] > 0)
                        keep[kept++] = d;
                    continue;
                }
                build(&s, &d, row);
                d.hash = row_hash(row, n);
                bool seen = false;
                for (size_t i = 0; i < kept && !seen; i++)
                    if (keep[i].hash == d.hash) {
                        build(&s, &keep[i], other);
                        seen = memcmp(row, other, n * sizeof *row) == 0;
                    }
                if (!seen)
                    keep[kept++] = d;
            }
    }
    *count = kept;
    if (sink.put)
        for (size_t i = 0; i < kept && !st; i++) {
            hf_i_row_want want = hf_i_row_want_of(opt, i);
            if (want == HF_I_ROW_DONE)
                break;
            if (want == HF_I_ROW_SKIP)
                continue;
            build(&s, &keep[i], row);
            st = sink.put(sink.user, row, n);
        }
done:
    hf_i_free(s.ctx, keep);
    hf_i_free(s.ctx, row);
    hf_i_free(s.ctx, other);
    spine_free(&s);
    return st;
}
