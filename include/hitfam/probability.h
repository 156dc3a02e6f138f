/* hitfam: the probability that one schedule of a sampler (random, rw, pct, pos, basicpos) hits
 * a d-tuple, exactly as a GMP rational where the order allows, else estimated with a confidence
 * interval; and the smallest such probability over the admissible d-tuples of an order.
 * Kept apart from hitfam.h so that callers who do not need big numbers never see <gmp.h>. */
#ifndef HITFAM_PROBABILITY_H
#define HITFAM_PROBABILITY_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include <hitfam/hitfam.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default of hf_hitprob_options.max_ideals. */
#define HF_HITPROB_DEFAULT_MAX_IDEALS ((uint64_t)1 << 20)
/** Default of hf_hitprob_options.samples. */
#define HF_HITPROB_DEFAULT_SAMPLES 100000u
/** PCT's probabilities are exact when its k! n!/(n-c)! equally likely schedules (k threads, c
 * change points) number at most this many (and fit within max_work). */
#define HF_HITPROB_PCT_MAX_SCHEDULES ((uint64_t)1 << 22)
/** Default of hf_hitprob_options.max_work: some seconds (the minimum over the 3-tuples of 16
 * events from 100,000 samples of pos fits). */
#define HF_HITPROB_DEFAULT_MAX_WORK ((uint64_t)1 << 30)

/** Options of hf_hitprob_tuple and hf_hitprob_min. Initialise with hf_hitprob_options_init,
 * then set fields. */
typedef struct hf_hitprob_options {
    hf_method method;    /**< the sampler: HF_METHOD_RANDOM (default: a uniformly random linear
                              extension), HF_METHOD_RW, HF_METHOD_PCT, HF_METHOD_POS or
                              HF_METHOD_BASICPOS (docs/samplers.md) */
    unsigned depth;      /**< PCT's depth (depth - 1 change points), 1..HF_MAX_D; 0 (default):
                              the tuple length d */
    uint64_t seed;       /**< seed of the samples of an estimate (default 0) */
    uint64_t samples;    /**< samples per estimate (default HF_HITPROB_DEFAULT_SAMPLES) */
    uint64_t max_ideals; /**< random and rw are computed exactly when the order has at most
                              this many down-sets (default HF_HITPROB_DEFAULT_MAX_IDEALS; 0:
                              always estimate), their bitsets take at most 128 MiB, the
                              steps between them number at most 2^24 and down-sets times
                              events at most 2^27 */
    uint64_t max_work;   /**< refuse (HF_ETOOLARGE) a call that would pass this many elementary
                              steps: big-number additions of the exact computation (4 each),
                              event placements and tuple tests of an estimate (default
                              HF_HITPROB_DEFAULT_MAX_WORK; 0: no limit) */
    bool exact_only;     /**< HF_ETOOLARGE rather than an estimate when no exact value is
                              available (default false) */
    bool estimate_only;  /**< estimate even where an exact value is available, e.g. to
                              compare the two (default false; HF_EINVAL with exact_only) */
} hf_hitprob_options;

/** Defaults: method random, depth 0, seed 0, HF_HITPROB_DEFAULT_SAMPLES samples,
 * HF_HITPROB_DEFAULT_MAX_IDEALS down-sets, HF_HITPROB_DEFAULT_MAX_WORK, estimates allowed.
 * Always initialise with this function: fields may be added at the end in later versions. */
HF_API void hf_hitprob_options_init(hf_hitprob_options *o);

/** What hf_hitprob_tuple and hf_hitprob_min found. */
typedef struct hf_hitprob_result {
    bool exact;               /**< the value is exact; otherwise estimated from samples */
    unsigned d;               /**< the tuple length (hf_hitprob_min: min(d, n)) */
    uint32_t tuple[HF_MAX_D]; /**< the tuple (hf_hitprob_min: one attaining the minimum, the
                                   first in lexicographic order of ids among the exact
                                   minima, or the estimated one) */
    double value;             /**< the probability (exact, rounded to a double; or
                                   hits / samples) */
    double low, high;         /**< a 95% confidence interval of an estimate (Wilson score,
                                   z = 1.96); both equal to value when exact */
    uint64_t samples;         /**< samples of the estimate (0 when exact) */
    uint64_t hits;            /**< of which hit the tuple */
    double expected_runs;     /**< 1 / value: the expected number of independent runs until
                                   the tuple is hit (a geometric law); infinity when value is 0
                                   (an estimate that never hit it) */
    uint64_t tuples;          /**< hf_hitprob_min: the number of admissible d-tuples */
    uint64_t ideals;          /**< down-sets of the order when computed exactly, else 0 */
} hf_hitprob_result;

/** The probability that one schedule of sampler @p o->method on @p p hits the admissible
 * d-tuple @p tuple (1 <= d <= HF_MAX_D distinct event ids, no later one below an earlier one):
 * that the events appear in the schedule in this order.
 * Exact for random and rw when @p p has at most @p o->max_ideals down-sets: the down-sets I are
 * enumerated (breadth first) and the ways to grow from the empty set to the whole order one
 * minimal event at a time are counted, keeping only the down-sets that contain a_j whenever they
 * contain a_{j+1}; random counts paths (linear extensions with the tuple in order, divided by all
 * of them), rw weighs each step out of I by 1 / (number of events enabled in I), so the value is
 * the sum over those paths of the product of the weights. O(#down-sets * n) to enumerate, then
 * O(#steps) big-number operations (a step per down-set and event enabled in it).
 * Exact for pct when its schedules can be enumerated: every order of the k thread priorities
 * and every choice of the c = min(depth - 1, n) change points is equally likely, so the value
 * is the share of those k! n!/(n-c)! schedules that hit the tuple (at most
 * HF_HITPROB_PCT_MAX_SCHEDULES of them, each O(n log k)).
 * Otherwise (pos, basicpos, larger orders) estimated from @p o->samples schedules of the
 * sampler seeded with @p o->seed: the value is hits / samples, with a Wilson 95% interval.
 * @p out (may be NULL) receives the exact value or the estimate as a rational; @p r (may be
 * NULL) the details. Same input, same result on every machine.
 * Errors: HF_EINVAL (NULL @p p or @p tuple, d out of range, an id out of range or repeated, a
 * tuple that is not admissible, a method that is not a sampler, depth out of range, zero
 * samples, exact_only with estimate_only), HF_ETOOLARGE (exact_only where no exact value is within
 * the limits; more work than max_work), HF_EINVAL for a PCT thread that is not a chain (as gen),
 * HF_ENOMEM. Never prints. */
HF_API HF_NODISCARD hf_status hf_hitprob_tuple(const hf_poset *p, const uint32_t *tuple, unsigned d,
                                               const hf_hitprob_options *o, mpq_t out,
                                               hf_hitprob_result *r, hf_error *err);

/** The smallest probability that one schedule of the sampler hits an admissible d-tuple of
 * @p p, the hardest tuple (in `r->tuple`) and the expected runs until it is hit. With fewer than
 * d events the tuples of all n events are taken (as hf_verify does; `r->d` says so); an order
 * without events gives 1.
 * Exact (random, rw within max_ideals): every admissible tuple computed as in hf_hitprob_tuple,
 * O(#tuples * #steps) big-number operations; pct within HF_HITPROB_PCT_MAX_SCHEDULES: every
 * schedule tested against every tuple. Estimated (otherwise): @p o->samples schedules
 * count the hits of every admissible tuple, O(samples * (n log n + #tuples * d)); the tuple with
 * the fewest hits (the first in lexicographic order of ids on ties) is then estimated again from
 * as many fresh schedules (seed @p o->seed + 0x9e3779b97f4a7c15), so that its value and interval
 * are not biased by the choice; the true minimum may belong to another tuple whose count was
 * close. Refused with HF_ETOOLARGE before the main work when it would pass max_work (the message
 * gives the number of tuples and the work). @p out, @p r may be NULL. Errors as hf_hitprob_tuple
 * (HF_EINVAL for d = 0 or above HF_MAX_D). Reports progress to the context's callback (task
 * "hitprob": tuples, PCT's priority orders or samples done) and stops with HF_EABORTED when it
 * asks to. */
HF_API HF_NODISCARD hf_status hf_hitprob_min(const hf_poset *p, unsigned d,
                                             const hf_hitprob_options *o, mpq_t out,
                                             hf_hitprob_result *r, hf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_PROBABILITY_H */
