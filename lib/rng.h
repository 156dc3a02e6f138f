/* The library's one pseudo-random generator: xoshiro256** (Blackman and Vigna), its state filled
 * by splitmix64 from a 64-bit seed. Every randomised method draws from it, so the same seed gives
 * the same family on every machine. */
#ifndef HITFAM_RNG_H
#define HITFAM_RNG_H

#include <stdint.h>

typedef struct hf_i_rng {
    uint64_t s[4];
} hf_i_rng;
void hf_i_rng_seed(hf_i_rng *r, uint64_t seed);
uint64_t hf_i_rng_next(hf_i_rng *r);
/* Uniform in [0, bound), bound > 0, by rejection (no modulo bias). */
uint64_t hf_i_rng_below(hf_i_rng *r, uint64_t bound);

#endif
