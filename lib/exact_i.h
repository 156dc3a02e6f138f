/* Method exact (lib/gen_exact.c, lib/exact_problem.c, lib/exact_sat.c): the problem on the
 * focus events, families as rows of local ids, and the SAT search. Internal to those files. */
#ifndef HITFAM_EXACT_I_H
#define HITFAM_EXACT_I_H

#include "hitfam/exact.h"
#include "internal.h"

/* Pair relations: a constant, or +-(free pair index + 1). */
#define REL_TRUE  INT32_MAX
#define REL_FALSE INT32_MIN

/* The message of every refusal for want of the solver. */
extern const char hf_i_exact_missing_sat[];

/* ---- the problem: focus events, pair relations, tuple constraints ---- */

typedef struct problem {
    const hf_poset *p;
    hf_ctx *ctx;
    uint32_t n, k;
    unsigned d;        /* min(d, k) */
    uint32_t *global;  /* k: local id -> event */
    uint32_t *local;   /* n: event -> local id or NONE */
    int32_t *rel;      /* k * k: rel[a * k + b], a before b */
    uint32_t pairs;    /* P: free pairs */
    uint64_t tuples;   /* admissible d-tuples (before merging) */
    bool antichain;    /* no two focus events comparable */
    int32_t *sets;     /* count * (d - 1) codes, sorted, 0-padded: the constraints */
    uint32_t *set_len; /* count */
    size_t count, cap;
    size_t singles; /* constraints of one pair (the first `singles` after sorting by length) */
    uint32_t *pair_a, *pair_b; /* P: the free pairs' events, pair_a < pair_b */
} problem;

void hf_i_exact_problem_free(problem *q);

static inline int32_t rel(const problem *q, uint32_t a, uint32_t b) { return q->rel[a * q->k + b]; }

static inline unsigned set_stride(const problem *q) { return q->d > 1 ? q->d - 1 : 1; }

/* Arguments, the SAT solver's presence, and the limits; then the constraints. On error *q is
 * freed. */
hf_status hf_i_exact_prepare(problem *q, const hf_poset *p, unsigned d, const uint32_t *focus,
                             size_t focus_count, hf_error *err);

/* ---- families of local sequences ---- */

typedef struct rows {
    uint32_t *v; /* m * k local ids */
    size_t m, cap;
} rows;

hf_status hf_i_exact_rows_push(hf_ctx *ctx, rows *f, uint32_t k, const uint32_t *seq);
/* Drop redundant rows (the last ones first), keeping at least one when there are events.
 * *hitting: every constraint is hit. */
hf_status hf_i_exact_rows_irredundant(const problem *q, rows *f, bool *hitting, hf_error *err);
/* The schedules of all events that the rows give (non-focus events as soon as available). */
hf_status hf_i_exact_rows_to_family(const problem *q, const rows *f, hf_family **out,
                                    hf_error *err);
/* The focus events of every schedule of fam, in order, appended to f. */
hf_status hf_i_exact_family_to_rows(const problem *q, const hf_family *fam, rows *f, hf_error *err);

/* ---- the SAT search ---- */

typedef struct search_result {
    size_t lower;   /* proved lower bound */
    bool proved;    /* the best size (family or upper bound) is the minimum */
    bool exhausted; /* the budget ran out */
    uint64_t conflicts;
    unsigned calls;
} search_result;

/* Go down from *best (or, empty, from `upper` schedules known) to the smallest family the
 * solver finds within `budget` conflicts (`per_call` at most per call, 0: no limit), stopping
 * at `lower`; with one_step, after the first call. */
hf_status hf_i_exact_search(problem *q, rows *best, size_t upper, size_t lower, uint64_t budget,
                            uint64_t per_call, bool one_step, search_result *res, hf_error *err);

#endif
