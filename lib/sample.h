/* The sampling methods (random, rw, pct, pos, basicpos): one seeded stream of random linear
 * extensions per method, and the count and until-covered machinery they all share. */
#ifndef HITFAM_SAMPLE_H
#define HITFAM_SAMPLE_H

#include "coverage.h"
#include "gen_chains.h"
#include "rng.h"

/* Until-covered stops after this many schedules (every sampler): on orders where some tuple is
 * rarely hit (an event beside a long chain) the stream can need far more than d! ln C samples. */
#define HF_I_SAMPLE_UNTIL_MAX 20000u
/* ... and once its schedules have cost this many elementary steps (hf_i_sampler_cost per
 * schedule, plus the coverage update): a few seconds, whatever the sampler's cost per schedule
 * (the Markov chain of method random on large general orders costs n^3 ln n steps each). */
#define HF_I_SAMPLE_UNTIL_WORK ((uint64_t)1 << 29)
/* predict() of an until-covered stream runs it: refused beyond these sizes. */
#define HF_I_SAMPLE_PREDICT_MAX_N_D3 3000u
#define HF_I_SAMPLE_PREDICT_MAX_N_D4 200u

/* A seeded stream of linear extensions of one order by one sampling method. Not thread-safe;
 * the order must outlive it. */
typedef struct hf_i_sampler hf_i_sampler;

/* Whether @p m is one of the sampling methods. */
bool hf_i_is_sampler(hf_method m);

/* A stream of method @p m (a sampler) on @p p. @p d is PCT's depth (d - 1 change points; the
 * other samplers ignore it), @p seed the stream's seed. Preprocessing: random as in
 * lib/gen_random.c; pct a chain decomposition (gen_chains.h, O(n) on forests); rw, pos,
 * basicpos O(n + e). Errors: HF_EINVAL (a thread that is not a chain, for pct; a method that
 * is not a sampler), HF_ENOMEM. Caller frees with hf_i_sampler_free. */
hf_status hf_i_sampler_new(const hf_poset *p, hf_method m, unsigned d, uint64_t seed,
                           hf_i_sampler **out, hf_error *err);
void hf_i_sampler_free(hf_i_sampler *s);
/* The next schedule into @p row (n ids). HF_ENOMEM only for method random's big draws. */
hf_status hf_i_sampler_next(hf_i_sampler *s, uint32_t *row);

/* About the elementary steps one schedule costs (for work limits): n + e, or method random's
 * (hf_i_uniform_cost). */
uint64_t hf_i_sampler_cost(const hf_i_sampler *s);

/* PCT's threads (valid while @p s lives), NULL for the other methods: for tests. */
const hf_i_chains *hf_i_sampler_pct_threads(const hf_i_sampler *s);

/* PCT's check of the order: each named thread must be a chain (hf_i_chains_check_threads),
 * else HF_EINVAL naming it. */
hf_status hf_i_pct_check_threads(const hf_poset *p, hf_error *err);

/* PCT with chosen draws, for exact probabilities: the number of change points of @p s
 * (min(d - 1, n)), and one schedule from the initial priorities @p prio (one per thread of
 * hf_i_sampler_pct_threads, distinct) and the change points @p cps (that many distinct steps in
 * 1..n, the i-th lowering its thread to -i). @p s must be a pct stream. */
uint32_t hf_i_pct_change_points(const hf_i_sampler *s);
void hf_i_pct_schedule(hf_i_sampler *s, const uint32_t *prio, const uint32_t *cps, uint32_t *row);

/* POS: called after each step with the executed event and the enabled events that received a
 * fresh priority because they conflict with it (one call per refreshed group of a step, never
 * called with count 0). For tests. */
typedef void (*hf_i_pos_refresh_fn)(void *user, uint32_t executed, const uint32_t *events,
                                    uint32_t count);
void hf_i_sampler_on_refresh(hf_i_sampler *s, hf_i_pos_refresh_fn fn, void *user);

/* The methods' shared parts, for method @p m: check (coverage limits without a count; pct's
 * threads), predict (the count, or a run of the until-covered stream without emitting), and
 * generate (exactly opt->count schedules, or the stream until every admissible (focus) d-tuple
 * is hit, refused with HF_ETOOLARGE after HF_I_SAMPLE_UNTIL_MAX schedules). */
hf_status hf_i_sample_check(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                            hf_error *err);
hf_status hf_i_sample_predict(const hf_poset *p, const hf_gen_options *opt, hf_method m, mpz_t size,
                              hf_error *err);
hf_status hf_i_sample_generate(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                               hf_sink sink, hf_error *err);
/* Exactly @p count schedules of method @p m from opt->seed (opt->d is PCT's depth). */
hf_status hf_i_sample_count(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                            uint64_t count, hf_sink sink, hf_error *err);

/* The check, predict and generate of a sampling method's record (hf_i_method): static
 * functions NAME_check, NAME_predict and NAME_generate, the shared parts above for method M. */
#define HF_I_SAMPLE_METHOD_FNS(NAME, M)                                                            \
    static hf_status NAME##_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)     \
    {                                                                                              \
        return hf_i_sample_check(p, opt, M, err);                                                  \
    }                                                                                              \
    static hf_status NAME##_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,      \
                                    hf_error *err)                                                 \
    {                                                                                              \
        return hf_i_sample_predict(p, opt, M, size, err);                                          \
    }                                                                                              \
    static hf_status NAME##_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,   \
                                     hf_error *err)                                                \
    {                                                                                              \
        return hf_i_sample_generate(p, opt, M, sink, err);                                         \
    }

/* Method random's uniform sampler (lib/gen_random.c), behind the stream above. */
typedef struct hf_i_uniform hf_i_uniform;
hf_status hf_i_uniform_new(const hf_poset *p, uint64_t seed, hf_i_uniform **out, hf_error *err);
hf_status hf_i_uniform_next(hf_i_uniform *u, uint32_t *row);
void hf_i_uniform_free(hf_i_uniform *u);
/* About the steps one schedule costs: n on forests, n^2 with the down-set table, the chain's
 * steps beyond. */
uint64_t hf_i_uniform_cost(const hf_i_uniform *u);

/* An exponential variate of mean 1 from @p r by von Neumann's comparison method: only
 * comparisons and one addition of doubles, so the same seed gives the same value on every
 * machine (no libm call). */
double hf_i_rng_exp(hf_i_rng *r);

#endif
