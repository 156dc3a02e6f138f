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

#endif
