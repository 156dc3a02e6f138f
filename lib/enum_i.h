/* Internal view of an enumeration (lib/enum.c): for its counts (lib/enum_count.c), and for the
 * tests how often the depth-first search placed an event after which no schedule followed,
 * which the completion tests rule out. */
#ifndef HITFAM_ENUM_I_H
#define HITFAM_ENUM_I_H

#include "hitfam/enum.h"

/* Prefixes the depth-first search extended that then had no candidate (0 when every branch
 * ends in a schedule). 0 for HF_ENUM_ALL and NULL. */
uint64_t hf_i_enum_dead_ends(const hf_enum *e);
/* Steps taken so far (the unit of hf_enum_options.max_work). 0 for NULL. */
uint64_t hf_i_enum_work(const hf_enum *e);

/* What lib/enum.c and lib/enum_count.c share: o, or the defaults in *def when o is NULL; NULL
 * (HF_EINVAL, explained in err) for a mode that is not an hf_enum_mode. */
const hf_enum_options *hf_i_enum_options(const hf_enum_options *o, hf_enum_options *def,
                                         hf_error *err);
/* The next schedule into the enumeration's own state (hf_enum_next without the copy, the limit
 * and the count of schedules given): false after the last. */
bool hf_i_enum_advance(hf_enum *e);

/* The dynamic program hf_enum_count falls back on, alone: traces, preemption or delay bounds
 * (HF_EINVAL for other modes), within o->max_work steps (0: no bound) and HF_ENUM_MAX_STATES
 * states. */
hf_status hf_i_enum_count_dp(const hf_poset *p, const hf_enum_options *o, mpz_t out);

/* The delays of running each thread next (HF_ENUM_DELAYS), into cost[0..nt-1]: the runnable
 * threads (run[t] != 0) met before it in the cyclic order of thread numbers from `last`, the last
 * event's thread (0 before the first event). The scheduler's own pick, `last` when it is
 * runnable, else the first runnable thread after it, costs none. One walk, O(nt). */
static inline void hf_i_enum_delay_costs(const uint32_t *run, uint32_t nt, uint32_t last,
                                         uint32_t *cost)
{
    uint32_t c = 0;
    for (uint32_t k = 0, t = last; k < nt; k++, t = t + 1 == nt ? 0 : t + 1) {
        cost[t] = c;
        c += run[t] != 0;
    }
}

#endif
