/* Internal interface of the generators: each method module exports a check, an exact size
 * prediction and a streaming generator; lib/gen.c dispatches between them. */
#ifndef HITFAM_GEN_H
#define HITFAM_GEN_H

#include <gmp.h>

#include "internal.h"

typedef struct hf_i_method {
    hf_method id;
    const char *name;
    /* HF_OK if the method builds a d-hitting family of p; otherwise HF_EUNSUPPORTED and why. */
    hf_status (*check)(const hf_poset *p, const hf_gen_options *opt, hf_error *err);
    /* The exact number of schedules generate() emits. Called only after check() passed. */
    hf_status (*predict)(const hf_poset *p, const hf_gen_options *opt, mpz_t size, hf_error *err);
    hf_status (*generate)(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                          hf_error *err);
    /* predict() runs the construction (without emitting): as costly as generating */
    bool predict_runs;
    /* generate() honours opt->row_first/row_last itself (hf_i_row_want): it emits only those
     * rows of its family and builds none of the others; otherwise lib/gen.c passes the slice
     * of the whole stream on */
    bool rows;
} hf_i_method;

/* What a generator that counts its rows (0-based `index` of the row it is about to build) does
 * with it under opt->row_first/row_last: build and emit it, skip it without building it, or stop
 * (the slice is complete). */
typedef enum hf_i_row_want { HF_I_ROW_TAKE, HF_I_ROW_SKIP, HF_I_ROW_DONE } hf_i_row_want;

static inline hf_i_row_want hf_i_row_want_in(uint64_t row_first, uint64_t row_last, uint64_t index)
{
    if (!row_first)
        return HF_I_ROW_TAKE;
    if (index < row_first - 1)
        return HF_I_ROW_SKIP;
    return row_last && index >= row_last ? HF_I_ROW_DONE : HF_I_ROW_TAKE;
}

static inline hf_i_row_want hf_i_row_want_of(const hf_gen_options *opt, uint64_t index)
{
    return hf_i_row_want_in(opt->row_first, opt->row_last, index);
}

extern const hf_i_method hf_i_method_dfs;
extern const hf_i_method hf_i_method_simple;
extern const hf_i_method hf_i_method_doubletree;
extern const hf_i_method hf_i_method_pattern;
extern const hf_i_method hf_i_method_random;
extern const hf_i_method hf_i_method_greedy;
extern const hf_i_method hf_i_method_chains;
extern const hf_i_method hf_i_method_scramble;
/* The samplers beside random (lib/gen_sample.c, lib/sample.h). */
extern const hf_i_method hf_i_method_rw;
extern const hf_i_method hf_i_method_pct;
extern const hf_i_method hf_i_method_pos;
extern const hf_i_method hf_i_method_basicpos;

extern const hf_i_method hf_i_method_exact;

/* Method exact as auto weighs it (lib/gen_exact.c): look for a family smaller than `upper`
 * schedules (0: none known; then exact builds its own start) within opt->conflicts or
 * HF_EXACT_AUTO_CONFLICTS. *out is the family found, NULL when none smaller was found;
 * *proved (may be NULL) says whether the smallest size known is proved minimum. */
hf_status hf_i_exact_below(const hf_poset *p, const hf_gen_options *opt, uint64_t upper,
                           hf_family **out, bool *proved, hf_error *err);

#endif
