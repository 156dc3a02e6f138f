/* Method greedy's local search (lib/gen_greedy_search.c) and its bitset move evaluation at
 * d = 3 (lib/gen_greedy_fast.c): the state they share. Internal to those files. */
#ifndef HITFAM_GEN_GREEDY_LS_H
#define HITFAM_GEN_GREEDY_LS_H

#include "gen_greedy.h"

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
    uint8_t *cnt_saved; /* sparse: cnt for the saved family (a failed repair restores it) */
    uint64_t *unique;   /* N: tuples hit by that schedule alone */
    /* d = 3, dense: the tuples at count 1 and at count 0 as bitsets in three layouts each
     * (FAST_* below; m^2 sets of W words each), and for each schedule the sets of events at
     * positions before k, k = 0..m ((m + 1) * W words per schedule) */
    hf_word *fast;
    hf_word *pre;
} ls;

typedef struct move {
    uint32_t r, p, q; /* in schedule r, the event at position p goes to position q */
} move;

/* Layouts of ls.fast: set (a, b) of ROW holds c, of COL holds a given (b, c), of MID holds b
 * given (a, c), for the tuples (a, b, c); first those at count 1, then those at count 0. */
enum { FAST_ROW, FAST_COL, FAST_MID, FAST_SETS = 6 };

static inline hf_word *fast_set(const greedy *g, const ls *L, unsigned k, uint32_t a, uint32_t b)
{
    return L->fast + (((size_t)k * g->m + a) * g->m + b) * g->W;
}

/* Flip tuple code c in the three layouts of sets 0..2 (at count 1) or 3..5 (at count 0). */
void hf_i_greedy_fast_flip(const greedy *g, const ls *L, unsigned zero, uint32_t c);
/* The count of code c went from `from` to `to` (by one): keep the sets in step. */
static inline void fast_count(const greedy *g, const ls *L, uint32_t c, unsigned from, unsigned to)
{
    if (!L->fast)
        return;
    if ((from == 0) != (to == 0))
        hf_i_greedy_fast_flip(g, L, 1, c);
    if ((from == 1) != (to == 1))
        hf_i_greedy_fast_flip(g, L, 0, c);
}

/* Every code at count 0 (codes with a repeated event included: moves never ask for them). */
void hf_i_greedy_fast_reset(const greedy *g, const ls *L);
/* The sets of events before each position of schedule r, from position `from` on. */
void hf_i_greedy_fast_pre(const greedy *g, const ls *L, uint32_t r, uint32_t from);
/* The change in open tuples move mv would make, without making it (L->fast set). */
int64_t hf_i_greedy_move_eval_fast(greedy *g, ls *L, move mv);

#endif
