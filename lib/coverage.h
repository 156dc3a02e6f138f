/* Incremental coverage bookkeeping for the methods that work on any partial order (random,
 * greedy): which admissible d-tuples (d <= 4) a growing family has not hit yet. */
#ifndef HITFAM_COVERAGE_H
#define HITFAM_COVERAGE_H

#include "gen.h"

/* Largest d the bookkeeping (and so methods random and greedy) handles. */
#define HF_I_COVERAGE_MAX_D 4u
/* Largest bitset the bookkeeping allocates, in bits (1 GiB). */
#define HF_I_COVERAGE_MAX_BITS ((uint64_t)1 << 33)

/* The set of admissible d-tuples of the focus events (all events when there is no focus set)
 * that no schedule added so far hits. Only tuples of m distinct focus events count; with fewer
 * than d focus events the tuples of all m of them are tracked instead (as hf_verify does).
 * Layout: one row of m bits (padded to whole words) per ordered (d-1)-prefix, rows indexed by
 * the prefix's local ids in base m, so m^(d-1) * 64 * ceil(m / 64) bits in all. */
typedef struct hf_i_coverage hf_i_coverage;

/* Build the set of all admissible (focus) d-tuples, 1 <= d <= HF_I_COVERAGE_MAX_D. @p focus
 * may be NULL (or focus_count 0): every event. Errors: HF_EINVAL (bad d or id), HF_ETOOLARGE
 * (the bitset would exceed HF_I_COVERAGE_MAX_BITS, or the order is neither a forest nor small
 * enough to keep a closure), HF_ENOMEM. Time O(m^(d-1) * m / 64) word operations after an
 * O(m^2) closure lookup. Caller frees with hf_i_coverage_free. */
hf_status hf_i_coverage_new(const hf_poset *p, unsigned d, const uint32_t *focus,
                            size_t focus_count, hf_i_coverage **out, hf_error *err);
void hf_i_coverage_free(hf_i_coverage *c);
/* HF_OK iff hf_i_coverage_new would accept the size (the message it would give otherwise):
 * what methods greedy and random check before they start. HF_ENOMEM possible with a focus set
 * larger than the budget (its distinct ids are counted). */
hf_status hf_i_coverage_check_size(const hf_poset *p, unsigned d, const uint32_t *focus,
                                   size_t focus_count, hf_error *err);

/* The tuple length actually tracked: min(d, m). */
unsigned hf_i_coverage_d(const hf_i_coverage *c);
/* Number of focus events m, and the local index of event v (UINT32_MAX if v is not a focus
 * event). Local indices follow event ids. */
uint32_t hf_i_coverage_events(const hf_i_coverage *c);
uint32_t hf_i_coverage_local(const hf_i_coverage *c, uint32_t v);
/* Admissible tuples not hit yet. */
uint64_t hf_i_coverage_remaining(const hf_i_coverage *c);

/* Mark every tuple the linear extension @p schedule (n ids) hits; returns how many of them were
 * not hit before. O(C(m, d-1) * m / 64) word operations. */
uint64_t hf_i_coverage_add(hf_i_coverage *c, const uint32_t *schedule);
/* The number hf_i_coverage_add would return, without marking anything. */
uint64_t hf_i_coverage_count_new(hf_i_coverage *c, const uint32_t *schedule);
/* The same two for the focus events given directly in order: @p seq holds the m local ids. */
uint64_t hf_i_coverage_add_local(hf_i_coverage *c, const uint32_t *seq);
uint64_t hf_i_coverage_count_new_local(hf_i_coverage *c, const uint32_t *seq);
/* Whether hf_i_coverage_count_new_local would be positive; with columns on at d = 3 the walk
 * stops at the first open tuple hit. */
bool hf_i_coverage_hits_local(hf_i_coverage *c, const uint32_t *seq);
/* Mark the tuples hit by a partial schedule: @p len distinct events (ids of the order, ids out
 * of range ignored) in the order they ran, some events of the order missing. Exactly the tuples
 * all of whose events are listed, in that order, are marked; returns how many were new. Same
 * cost as hf_i_coverage_add. */
uint64_t hf_i_coverage_add_partial(hf_i_coverage *c, const uint32_t *events, uint32_t len);
/* Whether the tuple of local ids (hf_i_coverage_d entries, distinct) is admissible and not hit. */
bool hf_i_coverage_open(const hf_i_coverage *c, const uint32_t *tuple);
/* Some uncovered tuple, as event ids in @p tuple (hf_i_coverage_d entries); false if none. */
bool hf_i_coverage_first(const hf_i_coverage *c, uint32_t *tuple);

/* For greedy: the uncovered row of ordered prefix @p prefix (local ids, d-1 of them): bit y is
 * set iff (prefix, y) is admissible and not hit yet. W = hf_i_coverage_row_words words. */
const hf_word *hf_i_coverage_row(const hf_i_coverage *c, const uint32_t *prefix);
size_t hf_i_coverage_row_words(const hf_i_coverage *c);
/* Also keep the set by columns, kept in step by every later add (d >= 2; a no-op otherwise or
 * when already on): twice the memory plus a count of open tuples per row and per column (the
 * adds skip empty rows; at d = 3 they visit only the rows left open, see
 * hf_i_coverage_adjacent), and each newly hit tuple costs one more bit clear.
 * HF_ENOMEM leaves the bookkeeping as it was. Time O(m^(d-1) * m / 64 + remaining tuples). */
hf_status hf_i_coverage_columns(hf_i_coverage *c, hf_error *err);
/* With columns on: the column of @p tail (local ids a_2..a_d): bit a is set iff (a, tail) is
 * admissible and not hit yet. hf_i_coverage_row_words words. */
const hf_word *hf_i_coverage_col(const hf_i_coverage *c, const uint32_t *tail);
/* With columns on and d = 3: the adds mark on @p threads threads (0 counts as 1; at most
 * HF_I_COVERAGE_MAX_THREADS), the same sets for any number; a no-op otherwise. HF_ENOMEM leaves
 * the number as it was. */
#define HF_I_COVERAGE_MAX_THREADS 16u
hf_status hf_i_coverage_threads(hf_i_coverage *c, unsigned threads, hf_error *err);
/* With columns on and d = 3: bit a is set iff some open tuple has a and x next to each other,
 * (x, a, *), (a, x, *), (*, x, a) or (*, a, x): the rows and columns of (x, a) and (a, x) are
 * empty otherwise. hf_i_coverage_row_words words. */
const hf_word *hf_i_coverage_adjacent(const hf_i_coverage *c, uint32_t x);

/* Method random: uniform random linear extensions (see lib/gen_random.c), streamed until the
 * stream's first prefix that is d-hitting. */
extern const hf_i_method hf_i_method_random;
/* Method greedy: set cover by insertion-built schedules, then a tabu local search on hit
 * counts that removes schedules (see lib/gen_greedy.c for the thresholds and costs). */
extern const hf_i_method hf_i_method_greedy;

/* Method greedy with other thresholds, for tests: the local search counts hits per tuple while
 * m^d <= dense_cells, and beyond works on the schedules after those leaving at most
 * tail_tuples tuples open (the method uses 2^24 and 2^21); plain_moves: evaluate the moves of
 * the dense search at d = 3 by enumerating their tuples instead of by bitsets (the same family
 * either way, which tests check); threads: see below. Same contract as generate; when
 * @p emitted is non-NULL it receives the number of schedules (sink.put may then be NULL). */
typedef struct hf_i_greedy_limits {
    uint64_t dense_cells;
    uint64_t tail_tuples;
    bool plain_moves;
    /* threads marking each chosen schedule's tuples at d = 3 (hf_i_coverage_threads): 0 (the
     * method's choice) one per processor online, at most GREEDY_MAX_THREADS, from
     * GREEDY_THREADS_MIN_M focus events on, else one. The same threads share the candidates'
     * sweeps (d = 3) of at least split_min positions (0: GREEDY_SPLIT_MIN). The family never
     * depends on either. */
    unsigned threads;
    uint32_t split_min;
    /* the packing rounds (lib/gen_greedy_pack.c) replace the insertion rounds once pack_rounds
     * schedules are chosen and at most pack_open tuples are open (pack_rounds 0: on orders of
     * at least GREEDY_PACK_MIN_M focus events, after GREEDY_PACK_ROUNDS; pack_open 0:
     * GREEDY_PACK_OPEN); any thread count gives the same family */
    uint64_t pack_rounds, pack_open;
} hf_i_greedy_limits;
hf_status hf_i_greedy_run(const hf_poset *p, const hf_gen_options *opt,
                          const hf_i_greedy_limits *lim, hf_sink sink, uint64_t *emitted,
                          hf_error *err);

/* Exactly @p count independent uniform random linear extensions of @p p (approximately uniform
 * beyond the exact samplers' limits, see lib/gen_random.c), from opt->seed; opt->d and the focus
 * set are ignored. Same seed, same schedules on every machine. */
hf_status hf_i_random_generate_count(const hf_poset *p, const hf_gen_options *opt, uint64_t count,
                                     hf_sink sink, hf_error *err);

#endif
