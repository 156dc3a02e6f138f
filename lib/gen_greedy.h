/* Method greedy (lib/gen_greedy.c: construction; lib/gen_greedy_search.c: local search): the
 * state both parts share. Internal to those two files. */
#ifndef HITFAM_GEN_GREEDY_H
#define HITFAM_GEN_GREEDY_H

#include "coverage.h"
#include "rng.h"

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
 * (this much per tuple to hit, at least LS_ATTEMPT_MIN). About 20 ns each on one core. The dense
 * search spends LS_ATTEMPT_SCALE per admissible tuple per tuple to hit when that is less (orders
 * of fewer than 375 admissible tuples: the same sizes on every tree of up to 8 events, as a tree,
 * a forest and an in-forest, and on antichains of 4..12 events; 8-event trees in about 5 ms
 * instead of 10). */
#define LS_TOTAL_WORK        ((uint64_t)1 << 30)
#define LS_TAIL_WORK         ((uint64_t)1 << 31)
#define LS_ATTEMPT_PER_TUPLE 3000u
#define LS_ATTEMPT_SCALE     8u
#define LS_ATTEMPT_MIN       ((uint64_t)1 << 14)
#define LS_FAILS             2u
#define LS_TENURE            8u
/* Threads of the method's own choice (hf_i_greedy_limits.threads 0): one per processor online,
 * at most GREEDY_MAX_THREADS, on orders of GREEDY_THREADS_MIN_M focus events or more (d = 3). */
#define GREEDY_MAX_THREADS   4u
#define GREEDY_THREADS_MIN_M 256u
/* With more than one thread, a sweep (d = 3) of at least GREEDY_SPLIT_MIN positions is split
 * between them (hf_i_greedy_limits.split_min 0); at most GREEDY_MAX_SWEEP_THREADS. */
#define GREEDY_SPLIT_MIN         256u
#define GREEDY_MAX_SWEEP_THREADS HF_I_COVERAGE_MAX_THREADS
/* The packing rounds (lib/gen_greedy_pack.c) take over on orders of GREEDY_PACK_MIN_M focus
 * events or more, from GREEDY_PACK_ROUNDS schedules on, once at most GREEDY_PACK_OPEN tuples
 * are open (their list: 12 bytes a tuple at d = 3, 96 MiB at most). Orders of fewer events, and
 * families that the insertion rounds finish within GREEDY_PACK_ROUNDS, keep the families of the
 * insertion rounds alone (bench_greedy: the antichains, d = 4, trees, forests, DAGs of 50, 200
 * and 300 events, the DAG of 1,000 events at mean degree 2, 543 schedules). */
#define GREEDY_PACK_MIN_M  512u
#define GREEDY_PACK_ROUNDS 1024u
#define GREEDY_PACK_OPEN   ((uint64_t)1 << 23)
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
    bool plain_moves; /* hf_i_greedy_limits.plain_moves */
    bool popcnt;      /* the processor counts bits in one instruction */
    /* d = 3 with more than one thread: the threads sweeping parts of long sweeps, and the
     * shortest sweep split (hf_i_greedy_limits.split_min) */
    struct sweep_pool *pool;
    uint32_t split_min;
} greedy;

static inline bool less(const greedy *g, uint32_t a, uint32_t b)
{
    return hf_i_less(g->p, g->global[a], g->global[b]);
}

/* The dense local search on all of g->rows (counts for every tuple code; `admissible` tuples
 * to hit): shrinks the family in place and updates g->count. */
hf_status hf_i_greedy_local_search(greedy *g, uint64_t admissible, hf_error *err);
/* The packing rounds (g->cov as the insertion rounds left it, some tuples open): schedules
 * appended to g->rows (and the tuples each leaves open to *left) until every tuple is hit; g->cov
 * is not updated. */
hf_status hf_i_greedy_pack(greedy *g, uint64_t **left, size_t *left_cap, hf_error *err);
/* The tail local search (families beyond the dense limits): left[i] is the number of tuples
 * left open after schedule i; tail_max the most tuples the frozen schedules may leave open. */
hf_status hf_i_greedy_tail_search(greedy *g, const uint64_t *left, const hf_gen_options *opt,
                                  uint64_t tail_max, hf_error *err);

#endif
