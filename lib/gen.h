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
} hf_i_method;

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

#endif
