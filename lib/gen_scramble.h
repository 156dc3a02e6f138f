/* Block families of method scramble (lib/gen_scramble.c): found once by search
 * (papers/any-order/scramble/) and checked by tests/test_gen_scramble.c. */
#ifndef HITFAM_GEN_SCRAMBLE_H
#define HITFAM_GEN_SCRAMBLE_H

#include <stddef.h>
#include <stdint.h>

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

#endif
