/* Arithmetic modulo the Mersenne prime 2^61 - 1, for the polynomial hashes that tell schedules
 * apart without comparing them (lib/gen_pattern.c, lib/gen_scramble.c). Operands are < p. */
#ifndef HITFAM_MOD61_H
#define HITFAM_MOD61_H

#include <stdint.h>

#define HF_I_MODP ((UINT64_C(1) << 61) - 1)

static inline uint64_t hf_i_mulmod(uint64_t a, uint64_t b)
{
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t lo = al * bl, mid = ah * bl + al * bh, hi = ah * bh;
    /* 2^64 = 8 and 2^61 = 1 modulo p */
    uint64_t s = (hi << 3) + (mid >> 29) + ((mid & ((UINT64_C(1) << 29) - 1)) << 32) +
                 (lo & HF_I_MODP) + (lo >> 61);
    s = (s & HF_I_MODP) + (s >> 61);
    s = (s & HF_I_MODP) + (s >> 61);
    return s >= HF_I_MODP ? s - HF_I_MODP : s;
}

static inline uint64_t hf_i_addmod(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s >= HF_I_MODP ? s - HF_I_MODP : s;
}

static inline uint64_t hf_i_submod(uint64_t a, uint64_t b)
{
    return a >= b ? a - b : a + HF_I_MODP - b;
}

static inline uint64_t hf_i_powmod(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    for (; e; e >>= 1, a = hf_i_mulmod(a, a))
        if (e & 1)
            r = hf_i_mulmod(r, a);
    return r;
}

/* The inverse of a nonzero residue (p is prime). */
static inline uint64_t hf_i_invmod(uint64_t a) { return hf_i_powmod(a, HF_I_MODP - 2); }

#endif
