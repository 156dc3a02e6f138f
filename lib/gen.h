/* Internal interface of the generators: each method module exports a check, an exact size
 * prediction and a streaming generator; lib/gen.c dispatches between them. */
#ifndef HITFAM_GEN_H
#define HITFAM_GEN_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include "internal.h"

/* How auto treats a method on an order: each method states its own rule (and the limits behind
 * it) beside its code, so that lib/gen.c names no method. */
typedef enum hf_i_auto_rule {
    HF_I_AUTO_WEIGH,  /* auto predicts it (or runs it) and keeps it when it is the smallest */
    HF_I_AUTO_ADVISE, /* not weighed on this order, but named in auto's advice when it applies */
    HF_I_AUTO_NEVER,  /* never auto's choice nor in its advice (samplers that random speaks for) */
} hf_i_auto_rule;

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
    /* A sampler: a seeded stream of schedules, with a count or until covered (lib/sample.h). */
    bool sampler;
    /* The method reads opt->focus_prefix; the others see no focus set under it (they hit every
     * tuple of the whole order, which includes the tuples asked for). */
    bool focus_prefix;
    /* auto's rule on p for d; NULL: always weighed. */
    hf_i_auto_rule (*auto_rule)(const hf_poset *p, unsigned d);
    /* auto's search for a family of fewer than `upper` schedules (0: no bound known) within a
     * budget, instead of a prediction: *out is NULL when it found none. NULL: auto predicts (or
     * runs the method into memory, if predict_runs). */
    hf_status (*auto_below)(const hf_poset *p, const hf_gen_options *opt, uint64_t upper,
                            hf_family **out, bool *proved, hf_error *err);
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

/* The rules of methods auto never weighs: named in its advice, or not at all. */
hf_i_auto_rule hf_i_auto_advise(const hf_poset *p, unsigned d);
hf_i_auto_rule hf_i_auto_never(const hf_poset *p, unsigned d);
/* The registered method of id m, or NULL (HF_METHOD_AUTO is a choice, not a method). */
const hf_i_method *hf_i_method_of(hf_method m);

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

/* Which rows doubletree's second thread assembles the bytes of, when it builds rows ahead for a
 * family writer (lib/gen_doubletree.c): BALANCED (the library's) every row but those the caller
 * already waits for, which it then writes from their ranges itself; the tests force ALWAYS and
 * NEVER to check each way. Set only while no generation runs. */
typedef enum hf_i_assembly {
    HF_I_ASSEMBLE_BALANCED = 0,
    HF_I_ASSEMBLE_ALWAYS = 1,
    HF_I_ASSEMBLE_NEVER = 2
} hf_i_assembly;
extern hf_i_assembly hf_i_doubletree_assembly;

/* Method exact as auto weighs it (lib/gen_exact.c): look for a family smaller than `upper`
 * schedules (0: none known; then exact builds its own start) within opt->conflicts or
 * HF_EXACT_AUTO_CONFLICTS. *out is the family found, NULL when none smaller was found;
 * *proved (may be NULL) says whether the smallest size known is proved minimum. */
hf_status hf_i_exact_below(const hf_poset *p, const hf_gen_options *opt, uint64_t upper,
                           hf_family **out, bool *proved, hf_error *err);

#endif
