/* What the exact counts share (lib/count.c, lib/count_admissible.c, lib/enum.c): a 64-bit
 * number into a big one, and the tree view of forests and in-forests. */
#ifndef HITFAM_COUNT_I_H
#define HITFAM_COUNT_I_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include "internal.h"
#include "poset_i.h"

static inline void hf_i_mpz_set_u64(mpz_t z, uint64_t v)
{
#if ULONG_MAX >= UINT64_MAX
    mpz_set_ui(z, (unsigned long)v);
#else
    mpz_import(z, 1, -1, sizeof v, 0, 0, &v);
#endif
}

static inline bool hf_i_forest_like(const hf_poset *p)
{
    return p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST);
}

/* The tree view of a forest or in-forest: for an in-forest (p->dual) the tree is the reversed
 * order, so tree parents are Hasse successors and tree children Hasse predecessors. */
static inline uint32_t hf_i_tree_parent(const hf_poset *p, uint32_t v)
{
    if (!p->dual)
        return p->parent[v];
    return p->succ_off[v] < p->succ_off[v + 1] ? p->succ[p->succ_off[v]] : HF_NO_EVENT;
}

static inline const uint32_t *hf_i_tree_children(const hf_poset *p, uint32_t v, uint32_t *count)
{
    const uint32_t *off = p->dual ? p->pred_off : p->succ_off;
    const uint32_t *adj = p->dual ? p->pred : p->succ;
    *count = (uint32_t)(off[v + 1] - off[v]);
    return adj + off[v];
}

#endif
