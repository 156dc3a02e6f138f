/* Block families of method scramble (lib/gen_scramble.c): found once by search
 * (papers/any-order/scramble/) and checked by tests/test_gen_scramble.c. */
#ifndef HITFAM_GEN_SCRAMBLE_H
#define HITFAM_GEN_SCRAMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hitfam/hitfam.h"

/* A split family of s events: 2r rows, each a permutation of 0..s-1 cut into a first and a
 * second half. Rows 0..r-1 are the upper group, rows r..2r-1 the lower group. Together the rows
 * hit every ordered triple of distinct events, and each group separates every ordered pair:
 * for all a != b it has a row with a in the first half and b in the second. Restricted to the
 * events 0..n-1 (n <= s) it is a split family of n events. */
typedef struct hf_i_scramble_base {
    unsigned r;
    unsigned s;
    const uint8_t *rows; /* 2r * s */
    const uint8_t *cuts; /* 2r: the length of each row's first half */
} hf_i_scramble_base;

/* Sorted by r; s grows with r. */
extern const hf_i_scramble_base hf_i_scramble_bases[];
extern const size_t hf_i_scramble_base_count;

/* The smallest t with C(t, floor(t / 2)) >= m (m >= 3; t <= 34 for 32-bit m), and the next
 * subset of the same size in colex order (x != 0): the Sperner families of lib/gen_scramble.c. */
unsigned hf_i_sperner_t(uint64_t m);
uint64_t hf_i_colex_next(uint64_t x);

/* Spine forests (lib/gen_scramble_tree.c): a forest, or an in-forest read reversed, whose
 * events with children form one chain (stars, brooms, caterpillars, isolated events beside). */
struct hf_poset;
bool hf_i_spine_fits(const struct hf_poset *p);
/* The leaf-block 3-hitting family of a spine forest: its size in *count, its rows (those of
 * opt->row_first..row_last) to sink unless sink.put is NULL. HF_ETOOLARGE beyond its plan's
 * limit. */
hf_status hf_i_spine_run(const struct hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                         uint64_t *count, hf_error *err);

#endif
