/* The lattice of down-sets behind the exact hit probabilities of random and rw
 * (lib/probability_lattice.c, used by lib/probability.c): every down-set, every step between
 * two of them, and path weights from the empty one to the whole order. */
#ifndef HITFAM_PROBABILITY_I_H
#define HITFAM_PROBABILITY_I_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include "downsets.h"
#include "poset_i.h"

typedef struct hf_i_lattice {
    hf_ctx *ctx;
    const hf_poset *p;
    uint32_t n;
    hf_i_downsets sets; /* in breadth-first order (so by size) */
    size_t *toff;       /* count + 1: the steps out of each down-set */
    uint32_t *tx;       /* the event added */
    size_t *tto;        /* the down-set reached */
    size_t steps, steps_cap;
    mpz_t *num; /* count: path weights of the current computation */
    mpz_t mult; /* rw: the lcm M of the enabled counts */
    mpz_t tmp;
} hf_i_lattice;

/* Every down-set (at most `limit`, else HF_ETOOLARGE) and every step between them; free with
 * hf_i_lattice_free whatever it returns. HF_ENOMEM. */
hf_status hf_i_lattice_build(hf_i_lattice *L, const hf_poset *p, uint64_t limit);
void hf_i_lattice_free(hf_i_lattice *L);
/* The path weights through the down-sets admitted by the tuple (all with d = 0): path counts
 * (random) or probabilities times M^n (rw), into L->num[count - 1]. */
void hf_i_lattice_paths(hf_i_lattice *L, bool rw, const uint32_t *tuple, unsigned d);
/* The exact probability of `tuple` into q, `all` the denominator: e(P) (random) or M^n (rw). */
void hf_i_lattice_prob(hf_i_lattice *L, bool rw, const uint32_t *tuple, unsigned d, const mpz_t all,
                       mpq_t q);

#endif
