/* d <= 3 when the focus events (every event without a focus set) are pairwise incomparable:
 * completely 3-scrambling permutations by the double-tree recursion over blocks, with block
 * families found by search (lib/gen_scramble.h). At d = 3 on spine forests (stars, brooms,
 * caterpillars) the leaves' Sperner families around the chain: lib/gen_scramble_tree.c. */
#include <string.h>

#include "gen.h"
#include "gen_scramble.h"
#include "mod61.h"
#include "poset_i.h"

/*
 * Split families.
 *
 * A split family of a set S of events is a list of rows (orders of S, each cut into a first and
 * a second half) in two groups, upper and lower, of r rows each, such that
 *   (H) the rows hit every ordered triple of distinct events of S, and
 *   (P) each group separates every ordered pair: for a != b in S it has a row with a in the
 *       first half and b in the second.
 * For S = S0 + S1 (disjoint) with split families of r0, r1 rows per group (a group with fewer
 * rows repeats its last one; a single event is its own row), let rc = max(r0, r1) and, with
 * (X_i | Y_i) row j of the upper group of S_i, (Z_i | W_i) row j of its lower group, l(A) the
 * events of A in increasing order and r(A) in decreasing order, the family of S has rc + 2 rows
 * per group:
 *   upper: X0 X1 | Y1 Y0  (j < rc)     l(S0) | l(S1)     r(S1) | r(S0)
 *   lower: Z1 Z0 | W0 W1  (j < rc)     l(S1) | l(S0)     r(S0) | r(S1)
 * This is the double-tree recursion U_k of Chistikov, Majumdar, Niksic (CAV 2016, Section 4)
 * read on an antichain, with leaves that are blocks instead of single events.
 *
 * Claim: it is a split family. (H): a triple inside S_i is hit by the rows of S_i, which the
 * upper and lower rows restrict to. For x, y in S0 and z in S1: x y z and y x z are hit by
 * l(S0) l(S1) and r(S0) r(S1); z x y and z y x by r(S1) r(S0) and l(S1) l(S0); x z y by the upper
 * row j where (P) for S0's upper group puts x in X0 and y in Y0, so z (in X1 or Y1) lies between.
 * Two events in S1 and one in S0 go the same way with the lower group, where S0 is nested
 * inside S1. (P): a pair inside S_i is separated in each group because the halves of S_i's row
 * stay on their sides; a in S0, b in S1 by l(S0) | l(S1) (upper) and r(S0) | r(S1) (lower); a in
 * S1, b in S0 by r(S1) | r(S0) and l(S1) | l(S0).
 *
 * So a set of m events, halved until a block fits a searched base, gets rows(m) per group with
 * rows(1) = 0, rows(m) = min(the smallest base r with s >= m, rows(ceil(m/2)) + 2): 2 rows(m)
 * schedules, at most 4 ceil(log2 m) (the double tree's count, which is the recursion down to
 * single events) and 36 for m = 1,000 against 40. (P) forces 2^r >= m (indeed
 * binomial(r, r/2) >= m, Sperner): the bases reach that bound for r <= 5 and lie close to it up
 * to r = 8; (H) needs about 1.4 log2 m rows at least, so the searched blocks save a constant
 * number of schedules and the recursion adds 4 per doubling.
 *
 * Rows without building them. A row of a block of m events that starts at focus index o lists
 * o + e_i, with (e_i) fixed by m alone; its polynomial hash sum (o + e_i) B^i is
 * hash(e) + o * G(len), G(len) = sum_{i < len} B^i. The halves' hashes are therefore kept per
 * block size (a level of the halving holds at most two sizes) and combined in O(1): the family's
 * rows, their cuts and hashes cost O(log m * rows(m)) to plan, prediction builds no row, and
 * equal rows are told apart by two 61-bit hashes (a collision, chance about rows^2 m / 2^61,
 * would drop a row). Writing a row is O(m) (each block of the halving writes its events straight
 * to their places), plus O(n + edges) to extend it to all events.
 *
 * Other events. The focus events are pairwise incomparable, so any order of them extends to a
 * schedule: before each focus event, its down-set not yet placed (in topological order), then
 * the remaining events. Equal orders of the focus events give equal schedules, distinct ones
 * distinct schedules.
 */

/* Most rows per group: the halving of 2^32 events down to a base of the largest r. */
#define MAX_ROWS 96u

/* One block size of the plan: its rows, cuts and half hashes (at focus offset 0). */
typedef struct block {
    uint32_t m;                  /* events */
    unsigned r;                  /* rows per group (0 for a single event) */
    const hf_i_scramble_base *b; /* a base, or NULL: halved (or a single event) */
    uint32_t cut[2][MAX_ROWS];
    uint64_t ha[2][MAX_ROWS][2]; /* first half, per hash base */
    uint64_t hb[2][MAX_ROWS][2]; /* second half */
} block;

typedef struct plan {
    hf_ctx *ctx;
    uint32_t m; /* focus events */
    unsigned levels;
    block *blk;        /* levels * 2: floor and ceil of m / 2^level */
    unsigned rows;     /* rows per group at the top */
    unsigned distinct; /* distinct rows */
    uint8_t *keep;     /* 2 * rows: emitted (first of its kind) */
} plan;

static const uint64_t HB[2] = {UINT64_C(0x0f3c5a9d2b7e4c1f) % HF_I_MODP,
                               UINT64_C(0x13579bdf2468ace1) % HF_I_MODP};

/* G(len) = sum_{i < len} B^i and K(len) = sum_{i < len} i B^i. */
static uint64_t geo(int k, uint64_t len)
{
    uint64_t b = HB[k];
    uint64_t num = hf_i_submod(hf_i_powmod(b, len), 1);
    return hf_i_mulmod(num, hf_i_invmod(hf_i_submod(b, 1)));
}

static uint64_t geo_i(int k, uint64_t len)
{
    if (len == 0)
        return 0;
    /* x (1 - len x^(len-1) + (len-1) x^len) / (1 - x)^2 */
    uint64_t x = HB[k], xl1 = hf_i_powmod(x, len - 1), xl = hf_i_mulmod(xl1, x);
    uint64_t lm = len % HF_I_MODP, lm1 = (len - 1) % HF_I_MODP;
    uint64_t t = hf_i_addmod(hf_i_submod(1, hf_i_mulmod(lm, xl1)), hf_i_mulmod(lm1, xl));
    uint64_t d = hf_i_submod(1, x);
    return hf_i_mulmod(hf_i_mulmod(x, t), hf_i_invmod(hf_i_mulmod(d, d)));
}

/* hash of the sequence o + e_i, given hash(e) over len entries */
static uint64_t shift(int k, uint64_t h, uint64_t o, uint64_t len)
{
    return hf_i_addmod(h, hf_i_mulmod(o % HF_I_MODP, geo(k, len)));
}

/* a then b, where a has la entries */
static uint64_t cat(int k, uint64_t a, uint64_t la, uint64_t b)
{
    return hf_i_addmod(a, hf_i_mulmod(hf_i_powmod(HB[k], la), b));
}

/* l(A) and r(A) for A = o .. o+len-1 */
static uint64_t up(int k, uint64_t o, uint64_t len) { return shift(k, geo_i(k, len), o, len); }

static uint64_t down(int k, uint64_t o, uint64_t len)
{
    return len ? hf_i_submod(shift(k, 0, o + len - 1, len), geo_i(k, len)) : 0;
}

/* The smallest base holding m events, or NULL. */
static const hf_i_scramble_base *base_for(uint32_t m)
{
    for (size_t i = 0; i < hf_i_scramble_base_count; i++)
        if (hf_i_scramble_bases[i].s >= m)
            return &hf_i_scramble_bases[i];
    return NULL;
}

/* Row j of group g of a block, with the padding rule (a group with fewer rows repeats its last
 * one). */
static unsigned pad(const block *c, unsigned j) { return j < c->r ? j : c->r - 1; }

static void plan_base(block *c)
{
    const hf_i_scramble_base *b = c->b;
    for (unsigned g = 0; g < 2; g++)
        for (unsigned j = 0; j < c->r; j++) {
            const uint8_t *row = b->rows + (size_t)(g * b->r + j) * b->s;
            uint64_t h[2][2] = {{0, 0}, {0, 0}}, len[2] = {0, 0};
            for (unsigned i = 0; i < b->s; i++) {
                if (row[i] >= c->m)
                    continue;
                int half = i >= b->cuts[g * b->r + j];
                for (int k = 0; k < 2; k++)
                    h[half][k] =
                        hf_i_addmod(h[half][k], hf_i_mulmod(row[i], hf_i_powmod(HB[k], len[half])));
                len[half]++;
            }
            c->cut[g][j] = (uint32_t)len[0];
            for (int k = 0; k < 2; k++) {
                c->ha[g][j][k] = h[0][k];
                c->hb[g][j][k] = h[1][k];
            }
        }
}

/* Block c halved into c0 (ceil) and c1 (floor). */
static void plan_split(block *c, const block *c0, const block *c1)
{
    uint64_t n0 = c0->m, n1 = c1->m;
    unsigned rc = c->r - 2;
    for (unsigned g = 0; g < 2; g++) {
        for (unsigned j = 0; j < rc; j++) {
            /* a single event is its own row: first half it, second half empty */
            unsigned j0 = c0->r ? pad(c0, j) : 0, j1 = c1->r ? pad(c1, j) : 0;
            uint64_t a0 = c0->r ? c0->cut[g][j0] : 1, a1 = c1->r ? c1->cut[g][j1] : 1;
            uint64_t b0 = n0 - a0, b1 = n1 - a1;
            c->cut[g][j] = (uint32_t)(a0 + a1);
            for (int k = 0; k < 2; k++) {
                uint64_t x0 = c0->r ? c0->ha[g][j0][k] : 0, y0 = c0->r ? c0->hb[g][j0][k] : 0;
                uint64_t x1 = c1->r ? c1->ha[g][j1][k] : 0, y1 = c1->r ? c1->hb[g][j1][k] : 0;
                x1 = shift(k, x1, n0, a1); /* S1 starts at offset n0 */
                y1 = shift(k, y1, n0, b1);
                if (g == 0) { /* X0 X1 | Y1 Y0 */
                    c->ha[g][j][k] = cat(k, x0, a0, x1);
                    c->hb[g][j][k] = cat(k, y1, b1, y0);
                } else { /* Z1 Z0 | W0 W1 */
                    c->ha[g][j][k] = cat(k, x1, a1, x0);
                    c->hb[g][j][k] = cat(k, y0, b0, y1);
                }
            }
        }
        for (int k = 0; k < 2; k++) {
            uint64_t l0 = up(k, 0, n0), l1 = up(k, n0, n1);
            uint64_t r0 = down(k, 0, n0), r1 = down(k, n0, n1);
            /* upper: l(S0) | l(S1), r(S1) | r(S0); lower: l(S1) | l(S0), r(S0) | r(S1) */
            c->ha[g][rc][k] = g ? l1 : l0;
            c->hb[g][rc][k] = g ? l0 : l1;
            c->ha[g][rc + 1][k] = g ? r0 : r1;
            c->hb[g][rc + 1][k] = g ? r1 : r0;
        }
        c->cut[g][rc] = (uint32_t)(g ? n1 : n0);
        c->cut[g][rc + 1] = (uint32_t)(g ? n0 : n1);
    }
}

/* The block of size m at `level`, or NULL if the plan has none (cannot happen for sizes the
 * halving reaches). */
static block *find(const plan *pl, unsigned level, uint32_t m)
{
    if (level >= pl->levels)
        return NULL;
    block *c = &pl->blk[2 * level];
    return c->m == m ? c : c[1].m == m ? &c[1] : NULL;
}

static void plan_free(plan *pl)
{
    hf_i_free(pl->ctx, pl->blk);
    hf_i_free(pl->ctx, pl->keep);
    memset(pl, 0, sizeof *pl);
}

static hf_status plan_new(hf_ctx *ctx, uint32_t m, plan *pl, hf_error *err)
{
    memset(pl, 0, sizeof *pl);
    pl->ctx = ctx;
    pl->m = m;
    unsigned levels = 1;
    while (levels < 40 && (m >> (levels - 1)) > 1)
        levels++;
    pl->levels = levels;
    pl->blk = hf_i_calloc(ctx, 2 * (size_t)levels, sizeof *pl->blk);
    if (!pl->blk)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    /* sizes: floor and ceil of m / 2^level (halving into ceil and floor stays among them) */
    for (unsigned l = 0; l < levels; l++) {
        uint32_t lo = (uint32_t)(m >> l), hi = lo + ((m & ((UINT32_C(1) << l) - 1)) != 0);
        pl->blk[2 * l].m = lo;
        pl->blk[2 * l + 1].m = hi;
    }
    /* bottom up: rows(m) = min(base, rows(ceil(m/2)) + 2) */
    for (unsigned l = levels; l-- > 0;)
        for (unsigned w = 0; w < 2; w++) {
            block *c = &pl->blk[2 * l + w];
            if (c->m <= 1)
                continue;
            const hf_i_scramble_base *b = base_for(c->m);
            block *c0 = find(pl, l + 1, c->m - c->m / 2), *c1 = find(pl, l + 1, c->m / 2);
            unsigned split = c0 && c1 ? (c0->r > c1->r ? c0->r : c1->r) + 2 : UINT32_MAX;
            if (b && b->r <= split) {
                c->b = b;
                c->r = b->r;
                plan_base(c);
            } else if (c0 && c1 && split <= MAX_ROWS) {
                c->r = split;
                plan_split(c, c0, c1);
            } else {
                plan_free(pl);
                return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                                 "method scramble: %" PRIu32 " events need more than %u rows", m,
                                 MAX_ROWS);
            }
        }
    block *top = &pl->blk[0];
    pl->rows = top->r;
    pl->keep = hf_i_calloc(ctx, 2 * (size_t)(top->r ? top->r : 1), 1);
    if (!pl->keep) {
        plan_free(pl);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    if (m <= 1) {
        pl->keep[0] = 1;
        pl->distinct = 1;
        return HF_OK;
    }
    uint64_t h[2 * MAX_ROWS][2];
    for (unsigned g = 0; g < 2; g++)
        for (unsigned j = 0; j < top->r; j++)
            for (int k = 0; k < 2; k++)
                h[g * top->r + j][k] = cat(k, top->ha[g][j][k], top->cut[g][j], top->hb[g][j][k]);
    for (unsigned i = 0; i < 2 * top->r; i++) {
        bool dup = false;
        for (unsigned q = 0; q < i && !dup; q++)
            dup = pl->keep[q] && h[q][0] == h[i][0] && h[q][1] == h[i][1];
        if (!dup) {
            pl->keep[i] = 1;
            pl->distinct++;
        }
    }
    return HF_OK;
}

/* Write row j of group g of the block of size m at `level` whose first focus index is o: the
 * first half to a, the second to b. Recursion depth: the levels of the plan (at most 33). */
static void write_row(const plan *pl, unsigned level, uint32_t m, uint32_t o, unsigned g,
                      unsigned j, uint32_t *a, uint32_t *b)
{
    const block *c = find(pl, level, m);
    if (m == 1 || !c->r) {
        a[0] = o;
        return;
    }
    if (c->b) {
        const hf_i_scramble_base *bs = c->b;
        j = pad(c, j);
        const uint8_t *row = bs->rows + (size_t)(g * bs->r + j) * bs->s;
        unsigned cut = bs->cuts[g * bs->r + j];
        for (unsigned i = 0; i < bs->s; i++)
            if (row[i] < m)
                *(i < cut ? a++ : b++) = o + row[i];
        return;
    }
    uint32_t n0 = m - m / 2, n1 = m / 2;
    unsigned rc = c->r - 2;
    j = pad(c, j);
    if (j < rc) {
        const block *c0 = find(pl, level + 1, n0), *c1 = find(pl, level + 1, n1);
        uint32_t a0 = c0->r ? c0->cut[g][pad(c0, j)] : 1, a1 = c1->r ? c1->cut[g][pad(c1, j)] : 1;
        if (g == 0) { /* X0 X1 | Y1 Y0 */
            write_row(pl, level + 1, n0, o, g, j, a, b + (n1 - a1));
            write_row(pl, level + 1, n1, o + n0, g, j, a + a0, b);
        } else { /* Z1 Z0 | W0 W1 */
            write_row(pl, level + 1, n1, o + n0, g, j, a, b + (n0 - a0));
            write_row(pl, level + 1, n0, o, g, j, a + a1, b);
        }
        return;
    }
    /* traversal rows: (first block, second block, increasing?) */
    bool s0_first = (j == rc) == (g == 0), inc = j == rc;
    uint32_t fo = s0_first ? o : o + n0, fl = s0_first ? n0 : n1;
    uint32_t so = s0_first ? o + n0 : o, sl = s0_first ? n1 : n0;
    for (uint32_t i = 0; i < fl; i++)
        a[i] = inc ? fo + i : fo + fl - 1 - i;
    for (uint32_t i = 0; i < sl; i++)
        b[i] = inc ? so + i : so + sl - 1 - i;
}

/*
 * Sperner families (used instead of the recursion when they give fewer schedules: from about
 * 20 focus events on; 18 schedules for 100, 26 for 1,000 against 22 and 36).
 *
 * Give focus event x the x-th k-subset A_x of {0, ..., t - 1} in colex order, k = floor(t / 2),
 * t the smallest with C(t, k) >= m: no A_x contains another (all have k elements). For each
 * coordinate i two rows: the events with i in A_x first, then the others; both blocks in
 * increasing order in one row and in decreasing order in the other. 2t schedules.
 *
 * Claim: every ordered triple (x, y, z) of distinct focus events is hit. A_x is not inside A_z,
 * so some i lies in A_x and not in A_z: in both rows of i, x is in the first block and z in the
 * second. If i is in A_y, y shares x's block and one of the two rows puts x before y there (the
 * increasing one when x < y, else the decreasing one), then z follows in the second block; if
 * not, y shares z's block and one of the rows puts y before z.
 *
 * Distinct rows (the count predicted is 2t): a row "B increasing, then the rest increasing" has
 * at most one descent, at the cut, so when it has one it tells B; likewise a decreasing row has
 * at most one ascent. For m >= 4 no row is both, and no block B_i = {x : i in A_x} is a prefix
 * or a suffix of the events except B_{t-1} (a suffix, giving one fully decreasing row): the
 * k-subsets of {0, ..., t - 2} are all present (C(t - 1, k) < m), so B_i holds events on both
 * sides of one it misses. For m = 3 (t = 3, k = 1) the six rows are the six orders.
 * (docs/bounds.md gives the longer argument; tests compare the prediction with the rows.)
 */

/* The smallest t with C(t, floor(t / 2)) >= m (m >= 3; t <= 34 for 32-bit m). */
unsigned hf_i_sperner_t(uint64_t m)
{
    for (unsigned t = 1;; t++) {
        uint64_t c = 1, k = t / 2;
        for (uint64_t i = 1; i <= k && c < m; i++)
            c = c * (t - k + i) / i;
        if (c >= m)
            return t;
    }
}

/* Next k-subset in colex order (Gosper's hack); x != 0. */
uint64_t hf_i_colex_next(uint64_t x)
{
    uint64_t c = x & (~x + 1), r = x + c;
    return (((r ^ x) >> 2) / c) | r;
}

/* Row j (coordinate j / 2, increasing when j is even) of the Sperner family of m events into
 * row (m entries). O(m). */
static void sperner_row(uint32_t m, unsigned t, unsigned j, uint32_t *row)
{
    unsigned i = j / 2, k = t / 2;
    bool inc = j % 2 == 0;
    uint64_t a = (UINT64_C(1) << k) - 1;
    uint32_t first = 0;
    for (uint32_t x = 0; x < m; x++, a = hf_i_colex_next(a))
        first += (uint32_t)(a >> i) & 1;
    uint32_t ia = 0, ib = 0;
    a = (UINT64_C(1) << k) - 1;
    for (uint32_t x = 0; x < m; x++, a = hf_i_colex_next(a)) {
        bool in = (a >> i) & 1;
        if (in)
            row[inc ? ia : first - 1 - ia] = x, ia++;
        else
            row[first + (inc ? ib : m - first - 1 - ib)] = x, ib++;
    }
}

/* The focus events by id and whether they are pairwise incomparable: no focus event has a
 * focus event below it (one pass in topological order). */
typedef struct focus {
    uint32_t m;
    uint32_t *ev; /* m */
    uint8_t *in;  /* n */
} focus;

static void focus_free(hf_ctx *ctx, focus *f)
{
    hf_i_free(ctx, f->ev);
    hf_i_free(ctx, f->in);
}

static hf_status focus_new(const hf_poset *p, const hf_gen_options *opt, focus *f, uint32_t *bad_lo,
                           uint32_t *bad_hi, hf_error *err)
{
    memset(f, 0, sizeof *f);
    f->in = hf_i_calloc(p->ctx, p->n ? p->n : 1, 1);
    uint8_t *below = hf_i_calloc(p->ctx, p->n ? p->n : 1, 1); /* some focus event below */
    uint32_t *src = hf_i_calloc(p->ctx, p->n ? p->n : 1, sizeof *src);
    if (!f->in || !below || !src) {
        hf_i_free(p->ctx, below);
        hf_i_free(p->ctx, src);
        focus_free(p->ctx, f);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    if (opt->focus && opt->focus_count)
        for (size_t i = 0; i < opt->focus_count; i++)
            f->in[opt->focus[i]] = 1;
    else
        memset(f->in, 1, p->n);
    hf_status st = HF_OK;
    *bad_lo = *bad_hi = HF_NO_EVENT;
    for (uint32_t i = 0; i < p->n && *bad_hi == HF_NO_EVENT; i++) {
        uint32_t v = p->topo[i];
        for (size_t e = p->pred_off[v]; e < p->pred_off[v + 1]; e++) {
            uint32_t u = p->pred[e];
            if (f->in[u] || below[u]) {
                below[v] = 1;
                src[v] = f->in[u] ? u : src[u];
                break;
            }
        }
        if (below[v] && f->in[v]) {
            *bad_lo = src[v];
            *bad_hi = v;
        }
        f->m += f->in[v];
    }
    hf_i_free(p->ctx, below);
    hf_i_free(p->ctx, src);
    if (*bad_hi != HF_NO_EVENT) {
        focus_free(p->ctx, f);
        return HF_EUNSUPPORTED;
    }
    f->ev = hf_i_alloc_array(p->ctx, f->m ? f->m : 1, sizeof *f->ev);
    if (!f->ev) {
        focus_free(p->ctx, f);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    uint32_t k = 0;
    for (uint32_t v = 0; v < p->n; v++)
        if (f->in[v])
            f->ev[k++] = v;
    return st;
}

static hf_status scramble_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d > 3)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method scramble builds families for d <= 3 (d=%u asked); greedy "
                         "covers antichains up to d=4",
                         opt->d);
    focus f;
    uint32_t lo, hi;
    hf_status st = focus_new(p, opt, &f, &lo, &hi, err);
    if (st == HF_EUNSUPPORTED && opt->d == 3 && hf_i_spine_fits(p))
        return HF_OK; /* a spine forest (lib/gen_scramble_tree.c) */
    if (st == HF_EUNSUPPORTED) {
        char a[64], b[64];
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method scramble needs pairwise incomparable %s, or for d=3 a forest "
                         "whose events with children form one chain; %s < %s",
                         opt->focus && opt->focus_count ? "focus events" : "events (an antichain)",
                         hf_i_name_quote(hf_i_name(p, lo), a, sizeof a),
                         hf_i_name_quote(hf_i_name(p, hi), b, sizeof b));
    }
    if (!st)
        focus_free(p->ctx, &f);
    return st;
}

/* The focus events, or check()'s refusal; *spine (f not set) when the order is a spine forest
 * for the leaf-block family of lib/gen_scramble_tree.c instead. */
static hf_status open_focus(const hf_poset *p, const hf_gen_options *opt, focus *f, bool *spine,
                            hf_error *err)
{
    uint32_t lo, hi;
    *spine = false;
    hf_status st = focus_new(p, opt, f, &lo, &hi, err);
    if (st != HF_EUNSUPPORTED)
        return st;
    st = scramble_check(p, opt, err);
    *spine = st == HF_OK;
    return st;
}

static hf_status scramble_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                  hf_error *err)
{
    focus f;
    bool spine;
    hf_status st = open_focus(p, opt, &f, &spine, err);
    if (!st && spine) {
        uint64_t count = 0;
        hf_sink none = {NULL, NULL};
        if (!(st = hf_i_spine_run(p, opt, none, &count, err)))
            mpz_set_ui(size, (unsigned long)count);
        return st;
    }
    if (st)
        return st;
    uint32_t m = f.m;
    focus_free(p->ctx, &f);
    if (opt->d <= 2 || m <= 1) {
        mpz_set_ui(size, opt->d == 2 && m >= 2 ? 2 : 1);
        return HF_OK;
    }
    plan pl;
    if ((st = plan_new(p->ctx, m, &pl, err)))
        return st;
    unsigned t = hf_i_sperner_t(m);
    mpz_set_ui(size, 2 * t < pl.distinct ? 2 * t : pl.distinct);
    plan_free(&pl);
    return HF_OK;
}

/* Extend the order `row` of the focus events to a schedule: before each focus event its
 * unplaced down-set, in topological order (an iterative depth-first walk over predecessors),
 * then the events left, in topological order. O(n + edges). */
static void extend(const hf_poset *p, const focus *f, const uint32_t *row, uint8_t *placed,
                   uint32_t *stack, size_t *next, uint32_t *out)
{
    uint32_t k = 0;
    memset(placed, 0, p->n);
    for (uint32_t i = 0; i < f->m; i++) {
        uint32_t sp = 0;
        stack[sp++] = f->ev[row[i]];
        next[f->ev[row[i]]] = p->pred_off[f->ev[row[i]]];
        while (sp) {
            uint32_t v = stack[sp - 1];
            if (next[v] < p->pred_off[v + 1]) {
                uint32_t u = p->pred[next[v]++];
                if (!placed[u]) {
                    placed[u] = 1; /* on the stack: not pushed twice */
                    next[u] = p->pred_off[u];
                    stack[sp++] = u;
                }
                continue;
            }
            out[k++] = v;
            placed[v] = 1;
            sp--;
        }
    }
    for (uint32_t i = 0; i < p->n; i++)
        if (!placed[p->topo[i]])
            out[k++] = p->topo[i];
}

static hf_status scramble_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                   hf_error *err)
{
    focus f;
    bool spine;
    hf_status st = open_focus(p, opt, &f, &spine, err);
    if (!st && spine) {
        uint64_t count;
        return hf_i_spine_run(p, opt, sink, &count, err);
    }
    if (st)
        return st;
    /* d <= 2 or at most one focus event: the increasing order, and for d = 2 its reverse */
    bool small = opt->d <= 2 || f.m <= 1;
    plan pl;
    memset(&pl, 0, sizeof pl);
    if (!small && (st = plan_new(p->ctx, f.m, &pl, err))) {
        focus_free(p->ctx, &f);
        return st;
    }
    size_t nn = p->n ? p->n : 1;
    uint32_t *row = hf_i_alloc_array(p->ctx, f.m ? f.m : 1, sizeof *row);
    uint32_t *out = hf_i_alloc_array(p->ctx, nn, sizeof *out);
    uint32_t *stack = hf_i_alloc_array(p->ctx, nn, sizeof *stack);
    size_t *next = hf_i_alloc_array(p->ctx, nn, sizeof *next);
    uint8_t *placed = hf_i_malloc(p->ctx, nn);
    if (!row || !out || !stack || !next || !placed) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto done;
    }
    unsigned r = pl.rows, count = small ? (opt->d == 2 && f.m >= 2 ? 2 : 1) : 2 * r;
    uint64_t index = 0; /* of the next emitted row: a slice builds only its own rows */
    unsigned t = small ? 0 : hf_i_sperner_t(f.m);
    bool sperner = !small && 2 * t < pl.distinct;
    if (sperner)
        count = 2 * t;
    for (unsigned i = 0; i < count && !st; i++) {
        if (!small && !sperner && !pl.keep[i])
            continue;
        hf_i_row_want want = hf_i_row_want_of(opt, index++);
        if (want == HF_I_ROW_DONE)
            break;
        if (want == HF_I_ROW_SKIP)
            continue;
        if (small) {
            for (uint32_t v = 0; v < f.m; v++)
                row[v] = i ? f.m - 1 - v : v;
        } else if (sperner) {
            sperner_row(f.m, t, i, row);
        } else {
            unsigned g = i / r, j = i % r;
            write_row(&pl, 0, f.m, 0, g, j, row, row + pl.blk[0].cut[g][j]);
        }
        extend(p, &f, row, placed, stack, next, out);
        st = sink.put(sink.user, out, p->n);
    }
done:
    hf_i_free(p->ctx, row);
    hf_i_free(p->ctx, out);
    hf_i_free(p->ctx, stack);
    hf_i_free(p->ctx, next);
    hf_i_free(p->ctx, placed);
    plan_free(&pl);
    focus_free(p->ctx, &f);
    return st;
}

const hf_i_method hf_i_method_scramble = {
    .id = HF_METHOD_SCRAMBLE,
    .name = "scramble",
    .check = scramble_check,
    .predict = scramble_predict,
    .generate = scramble_generate,
    .rows = true,
};
