/* The sampling methods of gen: rw, pct, pos and basicpos as hf_i_method records, and the count
 * and until-covered streams that they and method random share (the samplers themselves are in
 * lib/samplers.c). */

#include "poset_i.h"
#include "sample.h"

/* ---------------------------------------------------------------------------------------- */
/* The methods: count and until-covered streams                                             */

hf_status hf_i_sample_check(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                            hf_error *err)
{
    const char *name = hf_method_name(m);
    hf_status st = m == HF_METHOD_PCT ? hf_i_pct_check_threads(p, err) : HF_OK;
    if (st)
        return st;
    /* a fixed count needs no coverage bookkeeping, so any d goes */
    if (!opt->count && opt->d > HF_I_COVERAGE_MAX_D)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method %s tracks coverage of tuples of at most %u events (d=%u "
                         "asked); for forests use method simple or pattern",
                         name, HF_I_COVERAGE_MAX_D, opt->d);
    if (!p->tin && !p->closure)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method %s needs a forest, an in-forest or an order of at most %u "
                         "events",
                         name, HF_CLOSURE_MAX_EVENTS);
    return opt->count ? HF_OK
                      : hf_i_coverage_check_size(p, opt->d, opt->focus, opt->focus_count, err);
}

/* The until-covered stream: samples are emitted (or only counted when sink.put is NULL) until
 * every admissible (focus) d-tuple is hit. */
static hf_status run_until_covered(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                                   hf_sink sink, uint64_t *emitted, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    const char *name = hf_method_name(m);
    hf_i_coverage *cov = NULL;
    hf_i_sampler *s = NULL;
    const uint32_t *focus = opt->focus_prefix ? NULL : opt->focus;
    size_t focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    hf_status st = hf_i_coverage_new(p, opt->d, focus, focus_count, &cov, err);
    if (st)
        return st;
    if ((st = hf_i_sampler_new(p, m, opt->d, opt->seed, &s, err))) {
        hf_i_coverage_free(cov);
        return st;
    }
    uint32_t *row = hf_i_alloc_array(ctx, p->n ? p->n : 1, sizeof *row);
    uint64_t count = 0;
    if (!row)
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint64_t total = hf_i_coverage_remaining(cov);
    /* a schedule's cost: the sampler's, and the coverage update (about the events of the
     * coverage times their words per tuple prefix level) */
    uint64_t per = hf_i_sampler_cost(s) + (uint64_t)p->n * (opt->d > 1 ? opt->d - 1 : 1) +
                   p->n / HF_WORD_BITS + 1,
             work = 0;
    while (!st && hf_i_coverage_remaining(cov) > 0) {
        if (count == HF_I_SAMPLE_UNTIL_MAX || work > HF_I_SAMPLE_UNTIL_WORK - per) {
            char why[96];
            if (count == HF_I_SAMPLE_UNTIL_MAX)
                snprintf(why, sizeof why, "%u random schedules", HF_I_SAMPLE_UNTIL_MAX);
            else
                snprintf(why, sizeof why,
                         "%" PRIu64 " random schedules (the work limit of %" PRIu64 " steps)",
                         count, HF_I_SAMPLE_UNTIL_WORK);
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "method %s: %" PRIu64 " admissible %u-tuples are still not hit "
                           "after %s; use method greedy",
                           name, hf_i_coverage_remaining(cov), opt->d, why);
            break;
        }
        work += per;
        if ((st = hf_i_sampler_next(s, row))) {
            st = hf_i_fail(err, st, 0, 0, "out of memory");
            break;
        }
        hf_i_coverage_add(cov, row);
        count++;
        if (sink.put && (st = sink.put(sink.user, row, p->n)))
            break;
        if (count % 64 == 0)
            hf_i_log(ctx, HF_LOG_PROGRESS,
                     "%s: %" PRIu64 " schedules, %" PRIu64 " of %" PRIu64 " tuples left", name,
                     count, hf_i_coverage_remaining(cov), total);
    }
    if (emitted)
        *emitted = count;
    hf_i_free(ctx, row);
    hf_i_sampler_free(s);
    hf_i_coverage_free(cov);
    return st;
}

hf_status hf_i_sample_predict(const hf_poset *p, const hf_gen_options *opt, hf_method m, mpz_t size,
                              hf_error *err)
{
    if (opt->count) {
        mpz_import(size, 1, -1, sizeof opt->count, 0, 0, &opt->count);
        return HF_OK;
    }
    /* the size is only known by running the seeded generation (without emitting) */
    uint32_t limit = opt->d <= 3 ? HF_I_SAMPLE_PREDICT_MAX_N_D3 : HF_I_SAMPLE_PREDICT_MAX_N_D4;
    if (p->n > limit)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the size of a %s family is known only by generating it; hitfam "
                         "predicts it for at most %u events at d=%u (this order has %" PRIu32 ")",
                         hf_method_name(m), limit, opt->d, p->n);
    uint64_t count = 0;
    hf_sink none = {NULL, NULL};
    hf_status st = run_until_covered(p, opt, m, none, &count, err);
    if (!st)
        mpz_import(size, 1, -1, sizeof count, 0, 0, &count);
    return st;
}

hf_status hf_i_sample_count(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                            uint64_t count, hf_sink sink, hf_error *err)
{
    if (!p || !opt || !sink.put)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_i_sampler *s;
    hf_status st = hf_i_sampler_new(p, m, opt->d, opt->seed, &s, err);
    if (st)
        return st;
    uint32_t *row = hf_i_alloc_array(p->ctx, p->n ? p->n : 1, sizeof *row);
    if (!row)
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    for (uint64_t k = 0; k < count && !st; k++) {
        if ((st = hf_i_sampler_next(s, row)))
            st = hf_i_fail(err, st, 0, 0, "out of memory");
        else
            st = sink.put(sink.user, row, p->n);
    }
    hf_i_free(p->ctx, row);
    hf_i_sampler_free(s);
    return st;
}

hf_status hf_i_sample_generate(const hf_poset *p, const hf_gen_options *opt, hf_method m,
                               hf_sink sink, hf_error *err)
{
    if (opt->count)
        return hf_i_sample_count(p, opt, m, opt->count, sink, err);
    return run_until_covered(p, opt, m, sink, NULL, err);
}

/* ---- the four method records ---- */

/* hf_i_method_rw, _pct, _pos and _basicpos: alike but for the id and the name; auto never
 * weighs them (random speaks for the samplers in auto's advice). */
#define SAMPLER_RECORD(NAME, M)                                                                    \
    HF_I_SAMPLE_METHOD_FNS(NAME, M)                                                                \
    const hf_i_method hf_i_method_##NAME = {                                                       \
        .id = M,                                                                                   \
        .name = #NAME,                                                                             \
        .check = NAME##_check,                                                                     \
        .predict = NAME##_predict,                                                                 \
        .generate = NAME##_generate,                                                               \
        .predict_runs = true,                                                                      \
        .sampler = true,                                                                           \
        .auto_rule = hf_i_auto_never,                                                              \
    };

SAMPLER_RECORD(rw, HF_METHOD_RW)
SAMPLER_RECORD(pct, HF_METHOD_PCT)
SAMPLER_RECORD(pos, HF_METHOD_POS)
SAMPLER_RECORD(basicpos, HF_METHOD_BASICPOS)
