/* hf_verify with a choice of how each prefix is settled, for the benchmark's comparison of the
 * greedy order (hf_verify) with the increasing-position order it replaced. */
#ifndef HITFAM_VERIFY_REF_H
#define HITFAM_VERIFY_REF_H

#include "hitfam/count.h"
#include "internal.h"

/* hf_verify; with @p reference, the last prefix entry consults the schedules in increasing
 * position of that entry until its continuations are all hit, as hitfam 0.1.0 did (the same
 * answer, found more slowly on families for trees). */
hf_status hf_i_verify_reference(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                                bool reference, hf_verify_result *result, hf_error *err);

/* hf_verify_count_uncovered, with @p reference as above (the same count). */
hf_status hf_i_verify_count_reference(const hf_poset *p, const hf_family *f,
                                      const hf_verify_options *opt, bool reference, mpz_t out,
                                      hf_error *err);

/* A chunk of B (forests, d = 3) is filled once the prefixes settled without it have cost
 * 1/HF_I_PAIR_RENT of its filling: on the 2,000-event random tree of bench_verify a chunk pays
 * for itself many times over, on deep trees few prefixes need one. */
#define HF_I_PAIR_RENT 4

/* hf_verify (into result) or, with result NULL, hf_verify_count_uncovered (into out), with B's
 * chunks of the forests' d = 3 check (lib/verify_forest.c) filled once the prefixes settled
 * without them cost 1/rent of their filling (HF_I_PAIR_RENT in hf_verify): rent 0 never fills
 * them, UINT_MAX fills each at its first need. The same answers; the tests reach both paths. */
hf_status hf_i_verify_rent(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                           unsigned rent, hf_verify_result *result, mpz_t out, hf_error *err);

#endif
