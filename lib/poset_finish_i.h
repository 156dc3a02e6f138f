/* What lib/poset.c (the builder, and hf_poset_builder_finish, which runs the steps in turn)
 * shares with lib/poset_finish.c (the steps), and the builder's calls for readers of large
 * inputs (lib/io_dot_fast.c). Internal. */
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

/* Depth, subtree sizes and DFS intervals of a forest (dual: an in-forest, the tree reversed);
 * a forest's come from p->topo. */
hf_status hf_i_poset_forest_views(hf_poset *p, bool dual);

/* hf_poset_builder_add_event for the name s[0..n) (no NUL byte in it) whose hf_i_strtab_hash
 * is h: a reader that hashed the name already does not hash it again. */
hf_status hf_i_poset_builder_add_hashed(hf_poset_builder *b, const char *s, size_t n, uint64_t h,
                                        uint32_t *id);

/* hf_poset_builder_add_event for a name s[0..n) that the caller knows no event has (a reader
 * keeping a table of its own over the names): the name is appended without a lookup, and the
 * builder's table places all such names at once when it is next asked (finishing included). */
hf_status hf_i_poset_builder_add_new(hf_poset_builder *b, const char *s, size_t n, uint32_t *id);

/* Room in the builder's table of names for `count` events at once (hf_i_strtab_reserve), for a
 * reader that expects that many. HF_ENOMEM leaves the builder as it was. */
hf_status hf_i_poset_builder_reserve(hf_poset_builder *b, size_t count);

/* The builder's table of event names (index = id), for hf_i_strtab_prefetch. */
const hf_i_strtab *hf_i_poset_builder_names(const hf_poset_builder *b);

#endif /* HITFAM_POSET_FINISH_I_H */
