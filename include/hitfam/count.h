/* hitfam: exact counts and bounds as GMP integers.
 * Kept apart from hitfam.h so that callers who do not need big numbers never see <gmp.h>. */
#ifndef HITFAM_COUNT_H
#define HITFAM_COUNT_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest number of down-sets (order ideals) the general linear-extension counter visits before
 * giving up with HF_ETOOLARGE. */
#define HF_COUNT_MAX_IDEALS 4000000u

/** Number of linear extensions of @p p into @p out (initialised by the caller).
 * Forests and in-forests: the hook-length formula n! / prod(subtree sizes), O(n log n) big-number
 * work, any size. Other orders: dynamic programming over down-sets, O(#down-sets * n) time and
 * memory; HF_ETOOLARGE when there are more than HF_COUNT_MAX_IDEALS down-sets (never a wrong
 * number); HF_EABORTED when the context's progress callback (task "count", the down-sets made
 * so far) says stop. */
HF_API HF_NODISCARD hf_status hf_count_linear_extensions(const hf_poset *p, mpz_t out,
                                                         hf_error *err);

/** The decimal logarithm of the number of linear extensions of @p p into @p out (0 for a single
 * extension), for printing a count of millions of digits without computing it. Forests and
 * in-forests: log10 n! - sum of log10(subtree size) in double arithmetic, O(n), accurate to
 * about 1e-9 for 10^6 events. Other orders: from hf_count_linear_extensions (its limits and
 * errors). */
HF_API HF_NODISCARD hf_status hf_count_linear_extensions_log10(const hf_poset *p, double *out,
                                                               hf_error *err);

/** Work (about word operations) hf_count_admissible may spend enumerating prefixes on orders
 * that are neither forests nor in-forests: some seconds. */
#define HF_COUNT_DEFAULT_WORK ((uint64_t)1 << 32)

/** Number of admissible d-tuples (1 <= d <= HF_MAX_D) into @p out. An admissible tuple is a set
 * of d events together with a linear extension of the order they induce, so the count is the sum
 * over d-subsets X of e(P|X). Forests and in-forests: a tree dynamic program with O(n * d^2)
 * big-number operations, any size. Other orders: enumeration of admissible (d-1)-prefixes with
 * bitsets, O(#prefixes * n / 64), stopped with HF_ETOOLARGE (never a wrong number) when it
 * would pass HF_COUNT_DEFAULT_WORK, and refused beyond HF_CLOSURE_MAX_EVENTS events. If @p focus
 * is non-NULL only tuples of focus events are counted (always by enumeration). */
HF_API HF_NODISCARD hf_status hf_count_admissible(const hf_poset *p, unsigned d,
                                                  const uint32_t *focus, size_t focus_count,
                                                  mpz_t out, hf_error *err);
/** hf_count_admissible with its own work limit @p max_work (0: none; the enumeration may then
 * take hours, e.g. 60 events at d = 8). */
HF_API HF_NODISCARD hf_status hf_count_admissible_bounded(const hf_poset *p, unsigned d,
                                                          const uint32_t *focus, size_t focus_count,
                                                          uint64_t max_work, mpz_t out,
                                                          hf_error *err);

/** A lower bound on the size of every d-hitting family of @p p (1 <= d <= HF_MAX_D), the
 * largest of: 1 if n > 0; 2 if some pair is incomparable; for d >= 3 the chain-plus-free-event
 * bound (a chain of c events all incomparable to one event e forces c + 1 schedules); d! if some
 * antichain has d events; for d >= 3 the bound ceil(log2(w - 1)) from an antichain of w events.
 * Which antichains and chains are examined is documented in docs/bounds.md. Exact for the shapes
 * it was designed for (docs/math.md, section 1.4), but in general only a bound. */
HF_API HF_NODISCARD hf_status hf_count_lower_bound(const hf_poset *p, unsigned d, mpz_t out,
                                                   hf_error *err);

/** The exact family size @p opt's method would produce (see hf_method_predict), as a big
 * integer. */
HF_API HF_NODISCARD hf_status hf_method_predict_mpz(const hf_poset *p, const hf_gen_options *opt,
                                                    mpz_t size, hf_method *chosen, hf_error *err);

/** Number of admissible d-tuples not hit by @p f (after the same schedule checks as hf_verify). */
HF_API HF_NODISCARD hf_status hf_verify_count_uncovered(const hf_poset *p, const hf_family *f,
                                                        const hf_verify_options *opt, mpz_t out,
                                                        hf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_COUNT_H */
