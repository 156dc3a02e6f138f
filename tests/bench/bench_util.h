/* Helpers shared by the benchmark programs: a clock, a PRNG, failing with a message, and trees
 * built from parent arrays. */
#ifndef HITFAM_BENCH_UTIL_H
#define HITFAM_BENCH_UTIL_H

#include <stdint.h>

#include "hitfam/hitfam.h"

/* Seconds on the monotonic clock. */
double bench_now(void);
/* splitmix64 */
uint64_t bench_next_u64(uint64_t *state);
/* Print "PROGRAM: what: status (message)" to stderr and exit 1. */
_Noreturn void bench_die(const char *program, const char *what, hf_status st, const hf_error *err);
/* An order on n events named by their ids, with the m pairs (pairs[2i] before pairs[2i+1]).
 * Exits through bench_die on failure. */
hf_poset *bench_from_pairs(const char *program, uint32_t n, const uint32_t *pairs, size_t m);
/* The same, built in @p ctx (NULL: the default context). */
hf_poset *bench_from_pairs_ctx(const char *program, hf_ctx *ctx, uint32_t n, const uint32_t *pairs,
                               size_t m);
/* A forest given by parent[] (HF_NO_EVENT marks a root); events named by their ids, which keeps
 * text output short. Exits through bench_die on failure. */
hf_poset *bench_from_parents(const char *program, uint32_t n, const uint32_t *parent);

#endif
