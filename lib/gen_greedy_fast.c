/* Method greedy's local search at d = 3: moves evaluated by bitset ANDs (see
 * lib/gen_greedy_search.c for the search). */
#include <string.h>

#include "gen_greedy_ls.h"

/* Flip tuple code c in the three layouts of sets 0..2 (at count 1) or 3..5 (at count 0). */
void hf_i_greedy_fast_flip(const greedy *g, const ls *L, unsigned zero, uint32_t c)
{
    uint32_t m = g->m, a = c / m / m, b = c / m % m, z = c % m;
    hf_word *w = fast_set(g, L, 3 * zero + FAST_ROW, a, b);
    w[z / 64] ^= (hf_word)1 << (z % 64);
    w = fast_set(g, L, 3 * zero + FAST_COL, b, z);
    w[a / 64] ^= (hf_word)1 << (a % 64);
    w = fast_set(g, L, 3 * zero + FAST_MID, a, z);
    w[b / 64] ^= (hf_word)1 << (b % 64);
}

void hf_i_greedy_fast_reset(const greedy *g, const ls *L)
{
    size_t W = g->W, sets = (size_t)g->m * g->m;
    memset(L->fast, 0, 3 * sets * W * sizeof *L->fast);
    hf_word *zero = L->fast + 3 * sets * W;
    for (size_t i = 0; i < 3 * sets; i++)
        for (size_t w = 0; w < W; w++)
            zero[i * W + w] =
                w + 1 < W || g->m % 64 == 0 ? ~(hf_word)0 : ((hf_word)1 << (g->m % 64)) - 1;
}

void hf_i_greedy_fast_pre(const greedy *g, const ls *L, uint32_t r, uint32_t from)
{
    if (!L->fast)
        return;
    uint32_t m = g->m;
    size_t W = g->W;
    const uint32_t *row = L->rows + (size_t)r * m;
    hf_word *pre = L->pre + (size_t)r * (m + 1) * W;
    if (from == 0)
        memset(pre, 0, W * sizeof *pre);
    for (uint32_t k = from; k < m; k++) {
        memcpy(pre + (k + 1) * W, pre + k * W, W * sizeof *pre);
        hf_i_bit_set(pre + (k + 1) * W, row[k]);
    }
}

/* The evaluation is mostly population counts: compiled twice, as the construction's sweep (see
 * lib/gen_greedy.c), once for processors with the instruction. */
#if defined(__GNUC__)
#define FAST_INLINE inline __attribute__((always_inline))
#else
#define FAST_INLINE inline
#endif

static FAST_INLINE uint64_t and_count(const hf_word *a, const hf_word *b, size_t W)
{
    uint64_t c = 0;
    for (size_t w = 0; w < W; w++)
        c += hf_i_popcount(a[w] & b[w]);
    return c;
}

static FAST_INLINE uint64_t andnot_count(const hf_word *a, const hf_word *b, size_t W)
{
    uint64_t c = 0;
    for (size_t w = 0; w < W; w++)
        c += hf_i_popcount(a[w] & ~b[w]);
    return c;
}

static FAST_INLINE uint64_t and_andnot_count(const hf_word *a, const hf_word *b, const hf_word *c,
                                             size_t W)
{
    uint64_t n = 0;
    for (size_t w = 0; w < W; w++)
        n += hf_i_popcount(a[w] & b[w] & ~c[w]);
    return n;
}

/* move_eval without making the move, d = 3 with the sets of ls.fast: for each passed event y,
 * the tuples of x, y and a third event z change by where z lies (positions before, between,
 * after), each part one AND of a count-1 or count-0 set with the events in that range. The
 * same work is counted as the enumeration of move_eval, so that budgets end at the same step. */
static FAST_INLINE int64_t move_eval_body(greedy *g, ls *L, move mv)
{
    uint32_t m = g->m, p = mv.p, q = mv.q;
    size_t W = g->W;
    const uint32_t *row = L->rows + (size_t)mv.r * m;
    const hf_word *pre = L->pre + (size_t)mv.r * (m + 1) * W;
    uint32_t x = row[p];
    int64_t plus = 0, minus = 0;
    if (q > p) {
        /* z before p: (z,x,y) -> (z,y,x); z after y up to q: (x,y,z) -> (y,z,x); z after q:
         * (x,y,z) -> (y,x,z) */
        const hf_word *A = pre + (size_t)p * W, *Q = pre + (size_t)(q + 1) * W;
        for (uint32_t fy = p + 1; fy <= q; fy++) {
            uint32_t y = row[fy];
            const hf_word *F = pre + (size_t)(fy + 1) * W;
            plus += and_count(fast_set(g, L, FAST_COL, x, y), A, W);
            plus += andnot_count(fast_set(g, L, FAST_ROW, x, y), F, W);
            minus += and_count(fast_set(g, L, 3 + FAST_COL, y, x), A, W);
            minus += and_andnot_count(fast_set(g, L, 3 + FAST_MID, y, x), Q, F, W);
            minus += andnot_count(fast_set(g, L, 3 + FAST_ROW, y, x), Q, W);
            L->work += m - (fy - p + 1);
        }
    } else {
        /* z after p: (y,x,z) -> (x,y,z); z from q to before y: (z,y,x) -> (x,z,y); z before q:
         * (z,y,x) -> (z,x,y) */
        const hf_word *P = pre + (size_t)(p + 1) * W, *Q = pre + (size_t)q * W;
        for (uint32_t fy = p; fy-- > q;) {
            uint32_t y = row[fy];
            const hf_word *F = pre + (size_t)fy * W;
            plus += andnot_count(fast_set(g, L, FAST_ROW, y, x), P, W);
            plus += and_count(fast_set(g, L, FAST_COL, y, x), F, W);
            minus += andnot_count(fast_set(g, L, 3 + FAST_ROW, x, y), P, W);
            minus += and_andnot_count(fast_set(g, L, 3 + FAST_MID, x, y), F, Q, W);
            minus += and_count(fast_set(g, L, 3 + FAST_COL, x, y), Q, W);
            L->work += m - (p - fy + 1);
        }
    }
    return plus - minus;
}

static int64_t move_eval_plain(greedy *g, ls *L, move mv) { return move_eval_body(g, L, mv); }

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static int64_t move_eval_popcnt(greedy *g, ls *L, move mv)
{
    return move_eval_body(g, L, mv);
}
#else
static int64_t move_eval_popcnt(greedy *g, ls *L, move mv) { return move_eval_body(g, L, mv); }
#endif

int64_t hf_i_greedy_move_eval_fast(greedy *g, ls *L, move mv)
{
    return g->popcnt ? move_eval_popcnt(g, L, mv) : move_eval_plain(g, L, mv);
}
