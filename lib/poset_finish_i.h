/* What lib/poset.c (the builder, and hf_poset_builder_finish, which runs the steps in turn)
 * shares with lib/poset_finish.c (the steps). Internal. */
#ifndef HITFAM_POSET_FINISH_I_H
#define HITFAM_POSET_FINISH_I_H

#include "poset_i.h"

/* The Hasse rows of p in both directions (sorted by id, duplicates dropped) from count pairs
 * (before, after), and p->edge_count. HF_ENOMEM leaves what was made in p for hf_poset_free. */
hf_status hf_i_poset_hasse_rows(hf_poset *p, const uint32_t *pairs, size_t count);

/* The largest in-degree and out-degree of p's rows. */
void hf_i_poset_max_degrees(const hf_poset *p, uint32_t *max_in, uint32_t *max_out);

/* p->topo and p->rank: the lexicographically smallest topological order (Kahn's algorithm with a
 * min-heap); HF_ECYCLE with the cycle in the message when there is none. Needs p's names. */
hf_status hf_i_poset_topo_sort(hf_poset *p, hf_error *err);

/* Transitive reduction of p's rows through the closure (kept in p->closure), in topological
 * order. Time O(e * n / 64), memory n * n bits. */
hf_status hf_i_poset_reduce(hf_poset *p, hf_error *err);

/* Depth, subtree sizes and DFS intervals of a forest (dual: an in-forest, the tree reversed). */
hf_status hf_i_poset_forest_views(hf_poset *p, bool dual);

#endif /* HITFAM_POSET_FINISH_I_H */
