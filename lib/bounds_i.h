/* Internal: the SAT refutation behind hitfam/bounds.h (implemented in lib/exact_sat.c, which
 * holds the encoding). */
#ifndef HF_BOUNDS_I_H
#define HF_BOUNDS_I_H

#include "internal.h"

/* Answers of hf_i_exact_refute. */
#define HF_I_REFUTED 0 /* no d-hitting family of R schedules exists */
#define HF_I_FOUND   1 /* one exists */
#define HF_I_UNKNOWN 2 /* the budget ran out */

/* Whether the order induced on the `count` events of `events` (distinct ids) has a d-hitting
 * family of at most `R` schedules (1 <= R <= HF_EXACT_MAX_ROWS), by one solver call of
 * at most `budget` conflicts (learned clauses). *answer: HF_I_REFUTED, HF_I_FOUND or
 * HF_I_UNKNOWN; *conflicts the conflicts spent. Errors: HF_EUNSUPPORTED without the solver,
 * HF_ETOOLARGE beyond exact's limits, HF_ENOMEM. */
hf_status hf_i_exact_refute(const hf_poset *p, unsigned d, const uint32_t *events, size_t count,
                            size_t R, uint64_t budget, int *answer, uint64_t *conflicts,
                            hf_error *err);

#endif
