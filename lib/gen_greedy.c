/* Method greedy, any partial order and d <= 4: a greedy set cover of the admissible d-tuples
 * (docs/math.md, section 7.2) built by insertion, then shrunk by a tabu local search on hit counts.
 *
 * Everything works on the m focus events (all events without a focus set) and the order they
 * inherit; a sequence of them that respects that order always extends to a schedule (place the
 * other events by Kahn's algorithm, a focus event only when it is the next one of the
 * sequence), which happens only when the schedules are emitted.
 *
 * Construction. A round builds some seeded candidates and keeps the one hitting the most tuples
 * not hit yet. A candidate inserts the focus events one at a time, in a random order, each at
 * the slot allowed by the order (after its placed predecessors, before its placed successors)
 * that hits the most new tuples made of it and events already placed; ties go to the PRNG.
 * Later insertions never change the relative order of placed events, so the gains of the
 * insertions add up to the candidate's true gain. The gains by slot come from a difference
 * array over the ordered (d-1)-subsequences already placed (O(k^(d-1)) per insertion); for
 * d = 3 instead from one sweep over the k placed events with the uncovered set kept both by
 * rows and by columns (lib/coverage.c), O(k * m / 64) word operations per insertion. The number
 * of candidates per round is CAND_WORK divided by the cost of one, between 1 and CAND_MAX. The
 * best one is then hill-climbed: each event in turn is taken out and put back at its best
 * allowed slot (the gain changes by exactly the difference of the two slots' gains), for up to
 * IMPROVE_PASSES passes (one when the round affords a single candidate). If
 * no candidate hits anything new the round takes a schedule built around an uncovered tuple,
 * so every round makes progress.
 *
 * Local search. With a hit count per tuple (one byte each) for the family: schedules hitting
 * no tuple alone are dropped; then, until a deterministic work budget runs out, LS_FAILS
 * repairs in a row fail, or the counting bound ceil(admissible tuples / C(m, d)) is reached:
 * drop the schedule hitting the fewest tuples alone and repair. A repair step draws an
 * uncovered tuple, and over every schedule and every entry of the tuple considers the shortest
 * move of that entry (take it out, put it back elsewhere, never past an event it is ordered
 * with) that makes the schedule hit the tuple; the move that leaves the fewest tuples
 * uncovered is made unless it is tabu (that event was moved in that schedule within the last
 * LS_TENURE..2*LS_TENURE steps; allowed anyway when it reaches a new best). A failed repair
 * restores the last complete family and drops another schedule (the next fewest alone-hit).
 * The work budgets count tuple order changes examined, never time. Two regimes:
 *  - dense, while m^d <= LS_MAX_CELLS (m <= 256 at d = 3, m <= 64 at d = 4): a count for
 *    every tuple code (m^d bytes plus m^d bits); a move across j events examines
 *    j * C(m-2, d-2) tuples; LS_TOTAL_WORK in all.
 *  - tail, beyond: the schedules up to the first one after which at most TAIL_MAX tuples were
 *    left open are frozen; those open tuples are listed (indexed by every ordered pair of their
 *    events, d(d-1) entries each) and the later schedules are searched with a count for each
 *    listed tuple only; a move across j events examines the listed tuples with x and one of
 *    them; LS_TAIL_WORK in all. About 40 bytes per listed tuple plus 8 m^2 bytes of index,
 *    after the bookkeeping of the rounds is rebuilt for the frozen schedules (m^d bits); only
 *    while m^2 <= TAIL_MAX_PAIRS (which limits d = 2 only).
 * Both need the family to have at most LS_MAX_ROWS schedules (counts are bytes).
 *
 * Cost: about 2 m^2 * m/64 word operations per candidate at d = 3 (C(m, d) * d lookups
 * otherwise), CAND_WORK per round; the local search at most its budget plus one recount of
 * the family per repair. Memory: lib/coverage.c's m^d bits (twice that at d = 3), the
 * schedules, and the local search's tables above. At d = 3, 1000 events: about 250 MB, and
 * about two minutes on one core. Same seed, same family everywhere: all choices come from the
 * seeded PRNG and all budgets count operations. */
#include <string.h>

#include "coverage.h"

#define NONE UINT32_MAX
/* Candidates per round: about CAND_WORK word operations' worth, 1..CAND_MAX. */
#define CAND_MAX 64u
/* Hill-climbing passes over each round's best candidate. */
#define IMPROVE_PASSES 4u
#define CAND_WORK      ((uint64_t)1 << 23)
/* The local search keeps a byte per tuple: at most 16 Mi tuples (m <= 256 at d = 3, m <= 64
 * at d = 4), and counts of at most 255 schedules. */
#define LS_MAX_CELLS ((uint64_t)1 << 24)
#define LS_MAX_ROWS  255u
/* Beyond, the local search works on the schedules after those leaving at most TAIL_MAX tuples
 * open. */
#define TAIL_MAX       ((uint64_t)1 << 21)
#define TAIL_MAX_PAIRS ((uint64_t)1 << 24)
/* Work budgets of the local search, in tuples examined: in all (dense; tail), and per repair
 * (this much per tuple to hit, at least LS_ATTEMPT_MIN). About 20 ns each on one core. */
#define LS_TOTAL_WORK        ((uint64_t)1 << 30)
#define LS_TAIL_WORK         ((uint64_t)1 << 31)
#define LS_ATTEMPT_PER_TUPLE 3000u
#define LS_ATTEMPT_MIN       ((uint64_t)1 << 14)
#define LS_FAILS             2u
#define LS_TENURE            8u
/* predict() runs the whole generation: refuse beyond these sizes. */
#define PREDICT_MAX_N_D2 5000u
#define PREDICT_MAX_N_D3 300u
#define PREDICT_MAX_N_D4 60u

typedef struct greedy {
    const hf_poset *p;
    hf_ctx *ctx;
    hf_i_coverage *cov;
    hf_i_rng rng;
    uint32_t n, m;
    unsigned d;            /* tuple length tracked */
    size_t W;              /* words of an m-bit set */
    bool ordered;          /* the order has relations (else every slot is allowed) */
    uint32_t *global;      /* m: local id -> event */
    uint32_t *order;       /* m: insertion order of a candidate */
    uint32_t *cand, *best; /* m each */
    int64_t *gain;         /* m + 2: by slot (a difference array while it is built) */
    int64_t *acc;          /* 4 * m: the d = 3 sweep's sums by position */
    hf_word *placed, *pre; /* W each */
    uint32_t *rows;        /* count * m local ids: the family */
    size_t count, cap;
} greedy;

static bool less(const greedy *g, uint32_t a, uint32_t b)
{
    return hf_i_less(g->p, g->global[a], g->global[b]);
}

static void greedy_free(greedy *g)
{
    hf_ctx *ctx = g->ctx;
    hf_i_free(ctx, g->global);
    hf_i_free(ctx, g->order);
    hf_i_free(ctx, g->cand);
    hf_i_free(ctx, g->best);
    hf_i_free(ctx, g->gain);
    hf_i_free(ctx, g->acc);
    hf_i_free(ctx, g->placed);
    hf_i_free(ctx, g->pre);
    hf_i_free(ctx, g->rows);
    hf_i_coverage_free(g->cov);
}

/* ---- construction ---- */

/* Difference array over slots 0..k: every ordered (d-1)-subsequence seq[idx[0..d-2]] with x at
 * rank r forms one tuple, hit by the slots after idx[r-1] and up to idx[r]. */
static void direct_rec(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t *idx,
                       unsigned depth, uint32_t from)
{
    unsigned e = g->d - 1;
    if (depth == e) {
        uint32_t t[HF_I_COVERAGE_MAX_D];
        for (unsigned r = 0; r <= e; r++) {
            for (unsigned i = 0, j = 0; i <= e; i++)
                t[i] = i == r ? x : seq[idx[j++]];
            if (!hf_i_coverage_open(g->cov, t))
                continue;
            uint32_t lo = r ? idx[r - 1] + 1 : 0, hi = r < e ? idx[r] : k;
            g->gain[lo]++;
            g->gain[hi + 1]--;
        }
        return;
    }
    for (uint32_t i = from; i + (e - depth) <= k; i++) {
        idx[depth] = i;
        direct_rec(g, seq, k, x, idx, depth + 1, i + 1);
    }
}

static void gains_direct(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x)
{
    memset(g->gain, 0, (size_t)(k + 2) * sizeof *g->gain);
    uint32_t idx[HF_I_COVERAGE_MAX_D];
    direct_rec(g, seq, k, x, idx, 0, 0);
    for (uint32_t s = 1; s <= k; s++)
        g->gain[s] += g->gain[s - 1];
}

/* d = 3: with a at position i and b at position j > i, slot s hits (x,a,b) when s <= i,
 * (a,x,b) when i < s <= j and (a,b,x) when j < s. Summed over pairs:
 *   gain(s) = sum_{i >= s} X_i + sum_{i < s} (M_i - M'_i + L_i),
 * X_i = #b after a with (x,a,b) open, M_i = #b after a with (a,x,b) open,
 * M'_i = #c before a with (c,x,a) open, L_i = #c before a with (c,a,x) open:
 * rows give the first two, columns the last two. */
static void gains_sweep(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x)
{
    size_t W = g->W;
    memset(g->pre, 0, W * sizeof *g->pre);
    int64_t *X = g->acc, *Y = g->acc + g->m;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t a = seq[i], xa[2] = {x, a}, ax[2] = {a, x};
        const hf_word *rxa = hf_i_coverage_row(g->cov, xa), *rax = hf_i_coverage_row(g->cov, ax);
        const hf_word *cxa = hf_i_coverage_col(g->cov, xa), *cax = hf_i_coverage_col(g->cov, ax);
        int64_t xs = 0, ys = 0;
        for (size_t w = 0; w < W; w++) {
            hf_word after = g->placed[w] & ~g->pre[w], before = g->pre[w];
            xs += hf_i_popcount(rxa[w] & after);
            ys += (int64_t)hf_i_popcount(rax[w] & after) - hf_i_popcount(cxa[w] & before) +
                  hf_i_popcount(cax[w] & before);
        }
        X[i] = xs;
        Y[i] = ys;
        hf_i_bit_set(g->pre, a);
    }
    int64_t suf = 0;
    for (uint32_t i = 0; i < k; i++)
        suf += X[i];
    int64_t pre = 0;
    for (uint32_t s = 0; s <= k; s++) {
        g->gain[s] = suf + pre;
        if (s < k) {
            suf -= X[s];
            pre += Y[s];
        }
    }
}

/* The allowed slots [lo, hi] of x among seq[0..k-1]: after its predecessors, before its
 * successors. */
static void allowed(const greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t *lo,
                    uint32_t *hi)
{
    *lo = 0;
    *hi = k;
    if (g->ordered)
        for (uint32_t i = 0; i < k; i++) {
            if (less(g, seq[i], x))
                *lo = i + 1;
            else if (*hi == k && less(g, x, seq[i]))
                *hi = i;
        }
}

/* Gains of x by slot among seq[0..k-1] (g->placed holds exactly those events); the best
 * allowed slot, `keep` if it is among the best, else a random best one. */
static uint32_t best_slot(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t keep)
{
    uint32_t lo, hi;
    allowed(g, seq, k, x, &lo, &hi);
    if (g->d == 3)
        gains_sweep(g, seq, k, x);
    else
        gains_direct(g, seq, k, x);
    uint32_t pick = lo, ties = 1;
    for (uint32_t s = lo + 1; s <= hi; s++) {
        if (g->gain[s] > g->gain[pick]) {
            pick = s;
            ties = 1;
        } else if (g->gain[s] == g->gain[pick] && hf_i_rng_below(&g->rng, ++ties) == 0) {
            pick = s;
        }
    }
    if (keep != NONE && g->gain[keep] == g->gain[pick])
        pick = keep;
    return pick;
}

static void shuffle(greedy *g)
{
    for (uint32_t i = g->m; i > 1; i--) {
        uint32_t j = (uint32_t)hf_i_rng_below(&g->rng, i);
        uint32_t t = g->order[i - 1];
        g->order[i - 1] = g->order[j];
        g->order[j] = t;
    }
}

/* One candidate: insert the focus events in a random order, each at its best allowed slot.
 * Returns the number of open tuples it hits. */
static uint64_t build_candidate(greedy *g, uint32_t *seq)
{
    uint32_t m = g->m;
    shuffle(g);
    memset(g->placed, 0, g->W * sizeof *g->placed);
    uint64_t total = 0;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t x = g->order[k];
        uint32_t pick = best_slot(g, seq, k, x, NONE);
        memmove(seq + pick + 1, seq + pick, (size_t)(k - pick) * sizeof *seq);
        seq[pick] = x;
        hf_i_bit_set(g->placed, x);
        total += (uint64_t)g->gain[pick];
    }
    return total;
}

/* Hill climbing on one sequence: take each event out in turn (random order) and put it back
 * at its best allowed slot. Tuples without that event keep their order, so the sequence's gain
 * changes by exactly the difference of the two slots' gains. Returns the new gain. */
static uint64_t improve(greedy *g, uint32_t *seq, uint64_t total, unsigned passes)
{
    uint32_t m = g->m;
    for (unsigned pass = 0; pass < passes; pass++) {
        uint64_t before = total;
        shuffle(g);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t x = g->order[k], p = 0;
            while (seq[p] != x)
                p++;
            memmove(seq + p, seq + p + 1, (size_t)(m - 1 - p) * sizeof *seq);
            memset(g->placed, 0xff, g->W * sizeof *g->placed);
            hf_i_bit_clear(g->placed, x);
            if (m % 64)
                g->placed[g->W - 1] &= ((hf_word)1 << (m % 64)) - 1;
            uint32_t pick = best_slot(g, seq, m - 1, x, p);
            total = total + (uint64_t)g->gain[pick] - (uint64_t)g->gain[p];
            memmove(seq + pick + 1, seq + pick, (size_t)(m - 1 - pick) * sizeof *seq);
            seq[pick] = x;
        }
        if (total == before)
            break;
    }
    return total;
}

/* A sequence hitting the open tuple: each entry's down-set in turn, then the rest, each part
 * in the order of local ids restricted to the down-sets (admissibility keeps later entries out
 * of earlier down-sets). */
static void build_forced(greedy *g, const uint32_t *tuple, uint32_t *seq)
{
    memset(g->placed, 0, g->W * sizeof *g->placed);
    uint32_t k = 0;
    for (unsigned i = 0; i <= g->d; i++) {
        /* a topological order of the focus events below tuple[i]: by depth-free repetition,
         * take events whose focus predecessors are all placed */
        bool more = true;
        while (more) {
            more = false;
            for (uint32_t v = 0; v < g->m; v++) {
                if (hf_i_bit_test(g->placed, v))
                    continue;
                if (i < g->d && v != tuple[i] && !less(g, v, tuple[i]))
                    continue;
                bool ready = true;
                for (uint32_t u = 0; u < g->m && ready; u++)
                    ready = hf_i_bit_test(g->placed, u) || !less(g, u, v);
                if (ready) {
                    hf_i_bit_set(g->placed, v);
                    seq[k++] = v;
                    more = true;
                }
            }
        }
    }
}

/* ---- local search on hit counts ---- */

typedef struct ls {
    uint32_t N;     /* schedules in play: rows[0 .. N * m) */
    uint32_t *rows; /* g->rows after the frozen schedules */
    uint32_t *pos;  /* N * m: position of each event in each schedule */
    /* dense: every tuple by its code (base m); sparse: only the R tuples the frozen schedules
     * leave open, by index, with the list of the tuples of each event */
    bool sparse;
    size_t R;
    uint64_t cells;  /* entries of cnt: R, or m^d */
    uint32_t *tup;   /* R * d local ids */
    size_t *off;     /* m^2 + 1: tuples with events x and y are inc[off[xm+y] .. off[xm+y+1]) */
    uint32_t *inc;   /* d * (d - 1) * R */
    uint8_t *cnt;    /* hit counts */
    hf_word *listed; /* bits: the tuple is in `open` */
    uint32_t *open;  /* codes of tuples that were seen at count 0 (some since hit again) */
    size_t nopen, cap;
    uint64_t uncovered, work, step;
    uint64_t *tabu;  /* N * m: step until which moving that event in that schedule is tabu */
    uint32_t *saved; /* the last complete family */
    uint32_t nsaved;
    uint64_t *unique; /* N: tuples hit by that schedule alone */
} ls;

static uint32_t code_of(const greedy *g, const uint32_t *t)
{
    uint32_t c = 0;
    for (unsigned i = 0; i < g->d; i++)
        c = c * g->m + t[i];
    return c;
}

static hf_status open_push(greedy *g, ls *L, uint32_t code)
{
    if (hf_i_bit_test(L->listed, code))
        return HF_OK;
    if (hf_i_grow(g->ctx, (void **)&L->open, &L->cap, L->nopen + 1, sizeof *L->open))
        return HF_ENOMEM;
    L->open[L->nopen++] = code;
    hf_i_bit_set(L->listed, code);
    return HF_OK;
}

enum { HITS_ADD, HITS_SUB, HITS_UNIQUE };

static hf_status count_hit(greedy *g, ls *L, uint32_t c, int mode, uint64_t *out);

/* Every tuple schedule r hits, in position order: add, remove (pushing tuples left open) or
 * count those hit by r alone. */
static hf_status hits_rec(greedy *g, ls *L, const uint32_t *row, int mode, uint32_t *t,
                          unsigned depth, uint32_t from, uint64_t *out)
{
    if (depth == g->d)
        return count_hit(g, L, code_of(g, t), mode, out);
    for (uint32_t i = from; i + (g->d - depth) <= g->m; i++) {
        t[depth] = row[i];
        if (hits_rec(g, L, row, mode, t, depth + 1, i + 1, out))
            return HF_ENOMEM;
    }
    return HF_OK;
}

static hf_status count_hit(greedy *g, ls *L, uint32_t c, int mode, uint64_t *out)
{
    if (mode == HITS_ADD) {
        if (L->cnt[c]++ == 0)
            L->uncovered--;
    } else if (mode == HITS_SUB) {
        if (--L->cnt[c] == 0) {
            L->uncovered++;
            return open_push(g, L, c);
        }
    } else if (L->cnt[c] == 1) {
        ++*out;
    }
    return HF_OK;
}

static bool hit_in(const greedy *g, const uint32_t *pos, const uint32_t *t)
{
    for (unsigned j = 1; j < g->d; j++)
        if (pos[t[j - 1]] > pos[t[j]])
            return false;
    return true;
}

/* (sparse: the positions of schedule r must be current) */
static hf_status hits(greedy *g, ls *L, uint32_t r, int mode, uint64_t *out)
{
    if (L->sparse) {
        const uint32_t *pos = L->pos + (size_t)r * g->m;
        for (size_t i = 0; i < L->R; i++)
            if (hit_in(g, pos, L->tup + i * g->d) && count_hit(g, L, (uint32_t)i, mode, out))
                return HF_ENOMEM;
        return HF_OK;
    }
    uint32_t t[HF_I_COVERAGE_MAX_D];
    return hits_rec(g, L, L->rows + (size_t)r * g->m, mode, t, 0, 0, out);
}

static void set_pos(greedy *g, ls *L, uint32_t r)
{
    const uint32_t *row = L->rows + (size_t)r * g->m;
    for (uint32_t i = 0; i < g->m; i++)
        L->pos[(size_t)r * g->m + row[i]] = i;
}

/* The d events e[] with sort keys key[]: their tuple code in key order. */
static uint32_t sorted_code(const greedy *g, const uint32_t *e, const int64_t *key)
{
    uint32_t t[HF_I_COVERAGE_MAX_D];
    int64_t k[HF_I_COVERAGE_MAX_D];
    for (unsigned i = 0; i < g->d; i++) {
        unsigned j = i;
        for (; j > 0 && k[j - 1] > key[i]; j--) {
            k[j] = k[j - 1];
            t[j] = t[j - 1];
        }
        k[j] = key[i];
        t[j] = e[i];
    }
    return code_of(g, t);
}

typedef struct move {
    uint32_t r, p, q; /* in schedule r, the event at position p goes to position q */
} move;

/* The change in open tuples when making move mv (apply: make it). Only tuples of x = the moved
 * event and some event it passes change order; each such set of events is visited once: y is
 * the passed event nearest x's old position among those in the set. */
static int64_t move_eval(greedy *g, ls *L, move mv, bool apply)
{
    uint32_t m = g->m, p = mv.p, q = mv.q;
    uint32_t *row = L->rows + (size_t)mv.r * m;
    uint32_t f0, f1;
    int64_t xnew;
    if (q > p) {
        f0 = p + 1;
        f1 = q;
        xnew = 2 * (int64_t)q + 1;
    } else {
        f0 = q;
        f1 = p - 1;
        xnew = 2 * (int64_t)q - 1;
    }
    int64_t delta = 0;
    if (L->sparse) {
        /* the listed tuples with x and a passed event y, each once: skip those with another
         * passed event nearer to x's old position than y */
        const uint32_t *pos = L->pos + (size_t)mv.r * m, x = row[p];
        for (uint32_t i = 0; i <= f1 - f0; i++) {
            uint32_t fy = q > p ? f0 + i : f1 - i, y = row[fy];
            size_t pair = (size_t)x * m + y;
            for (size_t k = L->off[pair]; k < L->off[pair + 1]; k++) {
                uint32_t ti = L->inc[k];
                const uint32_t *t = L->tup + (size_t)ti * g->d;
                bool was = true, now = true, twice = false;
                int64_t po = INT64_MIN, pn = INT64_MIN;
                for (unsigned j = 0; j < g->d; j++) {
                    uint32_t pz = pos[t[j]];
                    if (t[j] != x && t[j] != y && pz >= f0 && pz <= f1 &&
                        (q > p ? pz < fy : pz > fy))
                        twice = true;
                    int64_t ko = 2 * (int64_t)pz, kn = t[j] == x ? xnew : ko;
                    was = was && ko > po;
                    now = now && kn > pn;
                    po = ko;
                    pn = kn;
                }
                L->work++;
                if (twice || was == now)
                    continue;
                if (!apply) {
                    delta += was ? L->cnt[ti] == 1 : -(L->cnt[ti] == 0);
                } else if (was) {
                    if (--L->cnt[ti] == 0) {
                        L->uncovered++;
                        if (open_push(g, L, ti))
                            return INT64_MIN;
                    }
                } else if (L->cnt[ti]++ == 0) {
                    L->uncovered--;
                }
            }
        }
    } else {
        uint32_t e[HF_I_COVERAGE_MAX_D];
        int64_t ko[HF_I_COVERAGE_MAX_D], kn[HF_I_COVERAGE_MAX_D];
        e[0] = row[p];
        ko[0] = 2 * (int64_t)p;
        kn[0] = xnew;
        unsigned rest = g->d - 2;
        for (uint32_t i = 0; i <= f1 - f0; i++) {
            /* nearest to p first */
            uint32_t fy = q > p ? f0 + i : f1 - i;
            e[1] = row[fy];
            ko[1] = kn[1] = 2 * (int64_t)fy;
            /* the other entries: positions outside p and the passed events nearer than fy */
            uint32_t skip_lo = q > p ? p : fy, skip_hi = q > p ? fy : p;
            uint32_t idx[HF_I_COVERAGE_MAX_D] = {0};
            unsigned depth = 0;
            uint32_t next = 0;
            /* iterative enumeration of increasing position tuples of length `rest` */
            for (;;) {
                if (depth == rest) {
                    for (unsigned j = 0; j < rest; j++) {
                        e[2 + j] = row[idx[j]];
                        ko[2 + j] = kn[2 + j] = 2 * (int64_t)idx[j];
                    }
                    uint32_t co = sorted_code(g, e, ko), cn = sorted_code(g, e, kn);
                    L->work++;
                    if (apply) {
                        if (--L->cnt[co] == 0) {
                            L->uncovered++;
                            if (open_push(g, L, co))
                                return INT64_MIN;
                        }
                        if (L->cnt[cn]++ == 0)
                            L->uncovered--;
                    } else {
                        delta += (L->cnt[co] == 1) - (L->cnt[cn] == 0);
                    }
                    if (depth == 0)
                        break;
                    next = idx[--depth] + 1;
                    continue;
                }
                if (next >= skip_lo && next <= skip_hi)
                    next = skip_hi + 1;
                if (next + (rest - depth) > m) {
                    if (depth == 0)
                        break;
                    next = idx[--depth] + 1;
                    continue;
                }
                idx[depth++] = next++;
            }
        }
    }
    if (apply) {
        uint32_t x = row[p];
        if (q > p)
            memmove(row + p, row + p + 1, (size_t)(q - p) * sizeof *row);
        else
            memmove(row + q + 1, row + q, (size_t)(p - q) * sizeof *row);
        row[q] = x;
        uint32_t a = q < p ? q : p, b = q < p ? p : q;
        for (uint32_t i = a; i <= b; i++)
            L->pos[(size_t)mv.r * m + row[i]] = i;
    }
    return delta;
}

/* An open tuple drawn uniformly from the list (dropping entries hit again meanwhile). */
static bool draw_open(greedy *g, ls *L, uint32_t *t)
{
    while (L->nopen) {
        size_t i = (size_t)hf_i_rng_below(&g->rng, L->nopen);
        uint32_t c = L->open[i];
        if (L->cnt[c] == 0 && L->sparse) {
            memcpy(t, L->tup + (size_t)c * g->d, g->d * sizeof *t);
            return true;
        }
        if (L->cnt[c] == 0) {
            for (unsigned j = g->d; j-- > 0;) {
                t[j] = c % g->m;
                c /= g->m;
            }
            return true;
        }
        L->open[i] = L->open[--L->nopen];
        hf_i_bit_clear(L->listed, c);
    }
    return false;
}

/* One tabu step toward hitting a drawn open tuple. */
static hf_status repair_step(greedy *g, ls *L, uint64_t *best_seen)
{
    uint32_t t[HF_I_COVERAGE_MAX_D], m = g->m;
    if (!draw_open(g, L, t))
        return HF_OK;
    L->step++;
    move pick = {0, 0, 0};
    int64_t top = INT64_MAX;
    uint32_t ties = 0;
    for (uint32_t r = 0; r < L->N; r++) {
        const uint32_t *pos = L->pos + (size_t)r * m, *row = L->rows + (size_t)r * m;
        for (unsigned i = 0; i < g->d; i++) {
            bool in_order = true;
            uint32_t prev = 0;
            bool have = false;
            for (unsigned j = 0; j < g->d && in_order; j++) {
                if (j == i)
                    continue;
                if (have && pos[t[j]] < prev)
                    in_order = false;
                prev = pos[t[j]];
                have = true;
            }
            if (!in_order)
                continue;
            uint32_t x = t[i], px = pos[x], q;
            if (i > 0 && px < pos[t[i - 1]])
                q = pos[t[i - 1]];
            else if (i + 1 < g->d && px > pos[t[i + 1]])
                q = pos[t[i + 1]];
            else
                continue;
            if (g->ordered) {
                bool ok = true;
                uint32_t a = q > px ? px + 1 : q, b = q > px ? q : px - 1;
                for (uint32_t k = a; k <= b && ok; k++)
                    ok = q > px ? !less(g, x, row[k]) : !less(g, row[k], x);
                if (!ok)
                    continue;
            }
            move mv = {r, px, q};
            int64_t delta = move_eval(g, L, mv, false);
            bool tabu = L->tabu[(size_t)r * m + x] > L->step;
            if (tabu && (int64_t)L->uncovered + delta >= (int64_t)*best_seen)
                continue;
            if (delta < top) {
                top = delta;
                pick = mv;
                ties = 1;
            } else if (delta == top && hf_i_rng_below(&g->rng, ++ties) == 0) {
                pick = mv;
            }
        }
    }
    if (top == INT64_MAX)
        return HF_OK;
    uint32_t x = L->rows[(size_t)pick.r * m + pick.p];
    if (move_eval(g, L, pick, true) == INT64_MIN)
        return HF_ENOMEM;
    L->tabu[(size_t)pick.r * m + x] = L->step + LS_TENURE + hf_i_rng_below(&g->rng, LS_TENURE);
    if (L->uncovered < *best_seen)
        *best_seen = L->uncovered;
    return HF_OK;
}

/* Counts from scratch for the first N schedules. */
static hf_status ls_recount(greedy *g, ls *L)
{
    uint64_t cells = L->cells;
    memset(L->cnt, 0, cells);
    memset(L->listed, 0, hf_i_words(cells) * sizeof *L->listed);
    L->nopen = 0;
    L->uncovered = 0; /* counts only the open tuples seen; the family covers all but these */
    for (uint32_t r = 0; r < L->N; r++) {
        set_pos(g, L, r);
        uint64_t none = 0;
        if (hits(g, L, r, HITS_ADD, &none))
            return HF_ENOMEM;
    }
    L->uncovered = 0;
    return HF_OK;
}

static void drop_row(greedy *g, ls *L, uint32_t r)
{
    uint32_t m = g->m, last = L->N - 1;
    if (r != last) {
        memcpy(L->rows + (size_t)r * m, L->rows + (size_t)last * m, m * sizeof *L->rows);
        memcpy(L->pos + (size_t)r * m, L->pos + (size_t)last * m, m * sizeof *L->pos);
    }
    L->N--;
}

static hf_status unique_counts(greedy *g, ls *L)
{
    for (uint32_t r = 0; r < L->N; r++) {
        L->unique[r] = 0;
        if (hits(g, L, r, HITS_UNIQUE, &L->unique[r]))
            return HF_ENOMEM;
    }
    return HF_OK;
}

static void ls_free(greedy *g, ls *L)
{
    hf_i_free(g->ctx, L->pos);
    hf_i_free(g->ctx, L->cnt);
    hf_i_free(g->ctx, L->listed);
    hf_i_free(g->ctx, L->open);
    hf_i_free(g->ctx, L->tabu);
    hf_i_free(g->ctx, L->saved);
    hf_i_free(g->ctx, L->unique);
    hf_i_free(g->ctx, L->tup);
    hf_i_free(g->ctx, L->off);
    hf_i_free(g->ctx, L->inc);
}

/* Shrink the schedules after the first `base` ones in place (g->count updated) so that with
 * the first ones they still hit every tuple. L holds the sparse tuple set if any (else the
 * dense one is used) and is freed here; `admissible` is the number of tuples to hit. */
static hf_status local_search(greedy *g, ls *L, uint32_t base, uint64_t admissible, hf_error *err)
{
    uint32_t m = g->m;
    if (!L->sparse) {
        L->cells = 1;
        for (unsigned i = 0; i < g->d; i++)
            L->cells *= m;
    }
    L->rows = g->rows + (size_t)base * m;
    L->N = (uint32_t)(g->count - base);
    size_t nm = (size_t)L->N * m;
    L->pos = hf_i_alloc_array(g->ctx, nm, sizeof *L->pos);
    L->cnt = hf_i_malloc(g->ctx, (size_t)L->cells);
    L->listed = hf_i_alloc_array(g->ctx, hf_i_words(L->cells), sizeof *L->listed);
    L->tabu = hf_i_calloc(g->ctx, nm, sizeof *L->tabu);
    L->saved = hf_i_alloc_array(g->ctx, nm, sizeof *L->saved);
    L->unique = hf_i_alloc_array(g->ctx, L->N, sizeof *L->unique);
    hf_status st = HF_OK;
    if (!L->pos || !L->cnt || !L->listed || !L->tabu || !L->saved || !L->unique)
        goto nomem;
    if (ls_recount(g, L))
        goto nomem;
    /* the counting bound: a schedule hits exactly C(m, d) tuples */
    uint64_t per = 1;
    for (unsigned i = 0; i < g->d; i++)
        per = per * (m - i) / (i + 1);
    uint64_t floor = (admissible + per - 1) / per;
    /* schedules nothing needs */
    for (;;) {
        if (unique_counts(g, L))
            goto nomem;
        uint32_t r = 0;
        while (r < L->N && L->unique[r])
            r++;
        if (r == L->N || L->N <= 1)
            break;
        uint64_t none = 0;
        if (hits(g, L, r, HITS_SUB, &none))
            goto nomem;
        drop_row(g, L, r);
    }
    memcpy(L->saved, L->rows, (size_t)L->N * m * sizeof *L->saved);
    L->nsaved = L->N;
    uint64_t attempt = admissible * LS_ATTEMPT_PER_TUPLE;
    if (attempt < LS_ATTEMPT_MIN)
        attempt = LS_ATTEMPT_MIN;
    unsigned fails = 0;
    uint64_t budget = L->sparse ? LS_TAIL_WORK : LS_TOTAL_WORK;
    uint64_t round = 0;
    while (L->N > floor && L->N > 1 && L->work < budget && fails < LS_FAILS) {
        if ((st = hf_i_progress(g->ctx, "greedy", ++round, 0, err))) {
            ls_free(g, L);
            return st;
        }
        if (unique_counts(g, L))
            goto nomem;
        /* the fails-th fewest alone-hit schedule (lowest index on ties) */
        uint32_t r = 0;
        for (unsigned k = 0; k <= fails % L->N; k++) {
            uint32_t pick = NONE;
            for (uint32_t i = 0; i < L->N; i++)
                if (L->unique[i] != UINT64_MAX && (pick == NONE || L->unique[i] < L->unique[pick]))
                    pick = i;
            r = pick;
            L->unique[pick] = UINT64_MAX;
        }
        uint64_t none = 0;
        if (hits(g, L, r, HITS_SUB, &none))
            goto nomem;
        drop_row(g, L, r);
        memset(L->tabu, 0, nm * sizeof *L->tabu);
        L->step = 0;
        uint64_t best_seen = L->uncovered;
        uint64_t stop = L->work + attempt;
        if (stop > budget)
            stop = budget;
        while (L->uncovered > 0 && L->work < stop) {
            if (repair_step(g, L, &best_seen))
                goto nomem;
            L->work += L->N; /* the step's own overhead, so that a stuck search still ends */
        }
        if (L->uncovered == 0) {
            memcpy(L->saved, L->rows, (size_t)L->N * m * sizeof *L->saved);
            L->nsaved = L->N;
            fails = 0;
            hf_i_log(g->ctx, HF_LOG_PROGRESS, "greedy: local search reached %" PRIu32 " schedules",
                     L->N);
        } else {
            memcpy(L->rows, L->saved, (size_t)L->nsaved * m * sizeof *L->rows);
            L->N = L->nsaved;
            if (ls_recount(g, L))
                goto nomem;
            fails++;
        }
    }
    g->count = base + L->nsaved;
    memcpy(L->rows, L->saved, (size_t)L->nsaved * m * sizeof *L->rows);
    ls_free(g, L);
    return HF_OK;
nomem:
    ls_free(g, L);
    st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    return st;
}

/* Families too large for a count per tuple: freeze the first schedules, up to the last one
 * after which at most TAIL_MAX tuples were left open, list those tuples, and run the local
 * search on the later schedules with a count for each listed tuple only. The bookkeeping of
 * the rounds is rebuilt for the frozen schedules to list the tuples, then freed. */
static hf_status tail_search(greedy *g, const uint64_t *left, const hf_gen_options *opt,
                             uint64_t tail_max, hf_error *err)
{
    uint32_t base = 0, m = g->m;
    while (base < g->count && left[base] > tail_max)
        base++;
    /* now the rows up to `base` leave at most TAIL_MAX open; freeze them */
    base++;
    /* (the pair index has m^2 entries: only at d = 2 can m be too large for it) */
    if (base >= g->count || g->count - base < 2 || g->count - base > LS_MAX_ROWS ||
        (uint64_t)m * m > TAIL_MAX_PAIRS)
        return HF_OK;
    hf_i_coverage_free(g->cov);
    g->cov = NULL;
    const uint32_t *focus = opt->focus_prefix ? NULL : opt->focus;
    size_t focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    hf_status st = hf_i_coverage_new(g->p, opt->d, focus, focus_count, &g->cov, err);
    if (st)
        return st;
    for (uint32_t r = 0; r < base; r++)
        hf_i_coverage_add_local(g->cov, g->rows + (size_t)r * m);
    ls L;
    memset(&L, 0, sizeof L);
    L.sparse = true;
    L.R = L.cells = hf_i_coverage_remaining(g->cov);
    unsigned d = g->d;
    size_t pairs = (size_t)m * m;
    L.tup = hf_i_alloc_array(g->ctx, L.R * d, sizeof *L.tup);
    L.off = hf_i_calloc(g->ctx, pairs + 1, sizeof *L.off);
    L.inc = hf_i_alloc_array(g->ctx, L.R * d * (d - 1), sizeof *L.inc);
    if (!L.tup || !L.off || !L.inc) {
        ls_free(g, &L);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    /* every open tuple: rows by prefix, prefixes of distinct events */
    size_t k = 0, W = g->W;
    uint32_t t[HF_I_COVERAGE_MAX_D] = {0};
    for (;;) {
        bool distinct = true;
        for (unsigned i = 0; i + 1 < d; i++)
            for (unsigned j = 0; j < i; j++)
                distinct = distinct && t[i] != t[j];
        if (distinct) {
            const hf_word *row = hf_i_coverage_row(g->cov, t);
            for (size_t w = 0; w < W; w++)
                for (hf_word bits = row[w]; bits; bits &= bits - 1) {
                    t[d - 1] = (uint32_t)(w * 64 + hf_i_ctz(bits));
                    memcpy(L.tup + k * d, t, d * sizeof *t);
                    for (unsigned i = 0; i < d; i++)
                        for (unsigned j = 0; j < d; j++)
                            if (i != j)
                                L.off[(size_t)t[i] * m + t[j] + 1]++;
                    k++;
                }
        }
        unsigned i = d - 1;
        while (i > 0 && ++t[i - 1] == m)
            t[--i] = 0;
        if (i == 0)
            break;
    }
    for (size_t x = 0; x < pairs; x++)
        L.off[x + 1] += L.off[x];
    for (size_t i = 0; i < L.R; i++)
        for (unsigned a = 0; a < d; a++)
            for (unsigned b = 0; b < d; b++)
                if (a != b)
                    L.inc[L.off[(size_t)L.tup[i * d + a] * m + L.tup[i * d + b]]++] = (uint32_t)i;
    for (size_t x = pairs; x > 0; x--)
        L.off[x] = L.off[x - 1];
    L.off[0] = 0;
    hf_i_log(g->ctx, HF_LOG_PROGRESS,
             "greedy: local search on the last %zu schedules (%zu "
             "tuples)",
             g->count - base, L.R);
    return local_search(g, &L, base, L.R, err);
}

/* ---- the method ---- */

/* The schedule of sequence seq: focus events in that order, the others by Kahn's algorithm
 * (as soon as they are available). indeg and stack are n-entry scratch arrays. */
static void extend(greedy *g, const uint32_t *seq, uint32_t *out, uint32_t *indeg, uint32_t *stack)
{
    const hf_poset *p = g->p;
    uint32_t n = g->n, top = 0, k = 0, next = 0;
    for (uint32_t v = 0; v < n; v++) {
        indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
        if (!indeg[v] && hf_i_coverage_local(g->cov, v) == NONE)
            stack[top++] = v;
    }
    while (k < n) {
        uint32_t v;
        if (top)
            v = stack[--top];
        else
            v = g->global[seq[next++]]; /* available: see the file's comment */
        out[k++] = v;
        for (size_t i = p->succ_off[v]; i < p->succ_off[v + 1]; i++) {
            uint32_t w = p->succ[i];
            if (--indeg[w] == 0 && hf_i_coverage_local(g->cov, w) == NONE)
                stack[top++] = w;
        }
    }
}

static hf_status greedy_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d > HF_I_COVERAGE_MAX_D)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method greedy tracks coverage of tuples of at most %u events (d=%u "
                         "asked); for forests use method simple or pattern",
                         HF_I_COVERAGE_MAX_D, opt->d);
    if (!p->tin && !p->closure)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method greedy needs a forest, an in-forest or an order of at most %u "
                         "events",
                         HF_CLOSURE_MAX_EVENTS);
    return hf_i_coverage_check_size(p, opt->d, opt->focus, opt->focus_count, err);
}

/* Word operations of one candidate, for the number of candidates per round. */
static uint64_t candidate_cost(const greedy *g)
{
    uint64_t m = g->m;
    if (g->d == 0)
        return 1;
    if (g->d == 3)
        return m * m * 2 * (g->W ? g->W : 1) + m;
    uint64_t c = g->d ? g->d : 1;
    for (unsigned i = 0; i + 1 < g->d; i++)
        c = c * (m - i) / (i + 1);
    return c * m / g->d + m;
}

/* The greedy family; schedules go to sink (only counted when sink.put is NULL). */
hf_status hf_i_greedy_run(const hf_poset *p, const hf_gen_options *opt,
                          const hf_i_greedy_limits *lim, hf_sink sink, uint64_t *emitted,
                          hf_error *err)
{
    greedy g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.ctx = p->ctx;
    g.n = p->n;
    g.ordered = p->edge_count > 0;
    const uint32_t *focus = opt->focus_prefix ? NULL : opt->focus;
    size_t focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    hf_status st = hf_i_coverage_new(p, opt->d, focus, focus_count, &g.cov, err);
    if (st)
        return st;
    hf_i_rng_seed(&g.rng, opt->seed);
    g.m = hf_i_coverage_events(g.cov);
    g.d = hf_i_coverage_d(g.cov);
    g.W = hf_i_coverage_row_words(g.cov);
    if (g.d == 3 && (st = hf_i_coverage_columns(g.cov, err))) {
        greedy_free(&g);
        return st;
    }
    size_t n1 = g.n ? g.n : 1, m1 = g.m ? g.m : 1;
    uint32_t *out = NULL, *stack = NULL, *indeg = NULL;
    uint64_t *left = NULL; /* tuples left open after each round */
    size_t left_cap = 0;
    g.global = hf_i_alloc_array(g.ctx, m1, sizeof *g.global);
    g.order = hf_i_alloc_array(g.ctx, m1, sizeof *g.order);
    g.cand = hf_i_alloc_array(g.ctx, m1, sizeof *g.cand);
    g.best = hf_i_alloc_array(g.ctx, m1, sizeof *g.best);
    g.gain = hf_i_alloc_array(g.ctx, m1 + 2, sizeof *g.gain);
    g.acc = hf_i_alloc_array(g.ctx, 4 * m1, sizeof *g.acc);
    g.placed = hf_i_alloc_array(g.ctx, g.W ? g.W : 1, sizeof *g.placed);
    g.pre = hf_i_alloc_array(g.ctx, g.W ? g.W : 1, sizeof *g.pre);
    if (!g.global || !g.order || !g.cand || !g.best || !g.gain || !g.acc || !g.placed || !g.pre) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    for (uint32_t v = 0; v < g.n; v++) {
        uint32_t l = hf_i_coverage_local(g.cov, v);
        if (l != NONE)
            g.global[l] = v;
    }
    for (uint32_t a = 0; a < g.m; a++)
        g.order[a] = a;
    uint64_t total = hf_i_coverage_remaining(g.cov);
    uint64_t per_cand = candidate_cost(&g);
    unsigned cands = per_cand >= CAND_WORK              ? 1u
                     : CAND_WORK / per_cand >= CAND_MAX ? CAND_MAX
                                                        : (unsigned)(CAND_WORK / per_cand);
    while (hf_i_coverage_remaining(g.cov) > 0) {
        uint64_t best_gain = 0;
        for (unsigned c = 0; c < cands; c++) {
            uint64_t gain = build_candidate(&g, g.cand);
            if (gain > best_gain) {
                best_gain = gain;
                memcpy(g.best, g.cand, g.m * sizeof *g.best);
            }
        }
        if (best_gain > 0)
            best_gain = improve(&g, g.best, best_gain, cands > 1 ? IMPROVE_PASSES : 1);
        if (best_gain == 0) {
            uint32_t tuple[HF_I_COVERAGE_MAX_D];
            hf_i_coverage_first(g.cov, tuple);
            for (unsigned i = 0; i < g.d; i++)
                tuple[i] = hf_i_coverage_local(g.cov, tuple[i]);
            build_forced(&g, tuple, g.best);
        }
        hf_i_coverage_add_local(g.cov, g.best);
        if (hf_i_grow(g.ctx, (void **)&g.rows, &g.cap, (g.count + 1) * m1, sizeof *g.rows)) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        memcpy(g.rows + g.count * m1, g.best, g.m * sizeof *g.rows);
        if (hf_i_grow(g.ctx, (void **)&left, &left_cap, g.count + 1, sizeof *left)) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        left[g.count] = hf_i_coverage_remaining(g.cov);
        g.count++;
        if ((st = hf_i_progress(g.ctx, "greedy", g.count, 0, err)))
            goto out;
        hf_i_log(g.ctx, HF_LOG_PROGRESS,
                 "greedy: %zu schedules, %" PRIu64 " of %" PRIu64 " tuples left", g.count,
                 hf_i_coverage_remaining(g.cov), total);
    }
    uint64_t cells = 1;
    for (unsigned i = 0; i < g.d; i++)
        cells *= g.m;
    if (g.d >= 2 && g.count > 1) {
        if (g.count <= LS_MAX_ROWS && cells <= lim->dense_cells) {
            ls L;
            memset(&L, 0, sizeof L);
            if ((st = local_search(&g, &L, 0, total, err)))
                goto out;
        } else if ((st = tail_search(&g, left, opt, lim->tail_tuples, err))) {
            goto out;
        }
    }
    if (sink.put) {
        out = hf_i_alloc_array(g.ctx, n1, sizeof *out);
        stack = hf_i_alloc_array(g.ctx, n1, sizeof *stack);
        indeg = hf_i_alloc_array(g.ctx, n1, sizeof *indeg);
        if (!out || !stack || !indeg) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < g.count; i++) {
            extend(&g, g.rows + i * m1, out, indeg, stack);
            if ((st = sink.put(sink.user, out, g.n)))
                goto out;
        }
    }
    if (emitted)
        *emitted = g.count;
out:
    hf_i_free(g.ctx, left);
    hf_i_free(g.ctx, out);
    hf_i_free(g.ctx, stack);
    hf_i_free(g.ctx, indeg);
    greedy_free(&g);
    return st;
}

static const hf_i_greedy_limits greedy_limits = {LS_MAX_CELLS, TAIL_MAX};

static hf_status greedy_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                hf_error *err)
{
    /* the size is only known by running the (deterministic) construction without emitting */
    uint32_t limit = opt->d <= 2   ? PREDICT_MAX_N_D2
                     : opt->d == 3 ? PREDICT_MAX_N_D3
                                   : PREDICT_MAX_N_D4;
    if (p->n > limit)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the size of a greedy family is known only by building it; hitfam "
                         "predicts it for at most %u events at d=%u (this order has %" PRIu32 ")",
                         limit, opt->d, p->n);
    uint64_t count = 0;
    hf_sink none = {NULL, NULL};
    hf_status st = hf_i_greedy_run(p, opt, &greedy_limits, none, &count, err);
    if (!st)
        mpz_import(size, 1, -1, sizeof count, 0, 0, &count);
    return st;
}

static hf_status greedy_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                 hf_error *err)
{
    return hf_i_greedy_run(p, opt, &greedy_limits, sink, NULL, err);
}

/* The largest orders on which auto runs greedy, whose size is known only by running it: beyond
 * these it is left to an explicit --method, so that auto stays quick. On forests and in-forests
 * other than small antichains auto keeps to the tree methods: greedy can beat them on small
 * wide shallow trees too, but its local search spends a fixed budget even on tiny orders, which
 * the exhaustive tree tests would pay thousands of times (docs/ROADMAP.md). */
static hf_i_auto_rule greedy_auto_rule(const hf_poset *p, unsigned d)
{
    bool weigh;
    if (d == 1) /* dfs is optimal for d = 1 (one schedule) */
        weigh = false;
    else if (p->shape & HF_SHAPE_ANTICHAIN)
        /* On antichains greedy reaches the best known sizes (6, 7, 8, 8, 8 for 4..8 events at
         * d = 3) and stays 2 below scramble up to 64 events; auto runs it up to 32 events (4 s;
         * 64 events take 25 s) and, at d = 4, 10 events (2 s). dfs is optimal for d = 2. */
        weigh = (d == 3 && p->n <= 32) || (d == 4 && p->n <= 10);
    else if (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST))
        weigh = false;
    else
        weigh = p->n <= (d == 2 ? 2000u : d == 3 ? 200u : 40u);
    return weigh ? HF_I_AUTO_WEIGH : HF_I_AUTO_ADVISE;
}

const hf_i_method hf_i_method_greedy = {
    .id = HF_METHOD_GREEDY,
    .name = "greedy",
    .check = greedy_check,
    .predict = greedy_predict,
    .generate = greedy_generate,
    .predict_runs = true,
    .auto_rule = greedy_auto_rule,
};
