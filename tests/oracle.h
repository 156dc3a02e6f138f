/* Brute-force oracle shared by the suites: the closure of an order, a d-hitting check written
 * from the definition, a collecting sink, and order shapes (unions of chains, series-parallel). */
#ifndef HITFAM_TESTS_ORACLE_H
#define HITFAM_TESTS_ORACLE_H

#include <stdbool.h>

#include "util.h"

typedef struct tu_collect {
    uint32_t n;
    size_t m, cap;
    uint32_t *rows;
} tu_collect;

/* lt[a * n + b] iff a < b, computed from the edges registered for p (util.h), never from the
 * library's Hasse lists or order queries. The caller frees. */
bool *tu_closure(const hf_poset *p);
/* Whether the schedule whose positions are pos[v] (v's index in it) respects every registered
 * edge of p. O(edges). */
bool tu_respects_edges(const hf_poset *p, const uint32_t *pos);
/* For a forest (reversed: an in-forest), each event's parent by the closure of the registered
 * edges (HF_NO_EVENT for roots): the predecessor (successor) with the most predecessors
 * (successors) of its own. The caller frees. O(n^2). */
uint32_t *tu_forest_parents(const hf_poset *p, bool reversed);
/* For a forest (reversed: an in-forest) whose registered edges are exactly its parent edges,
 * each event's parent (HF_NO_EVENT for roots); a test failure if some event has two. The
 * caller frees. O(n + edges), for orders too large for a closure. */
uint32_t *tu_edge_parents(const hf_poset *p, bool reversed);
/* A linear extension of p by its registered edges: at each step an event whose predecessors are
 * all placed, chosen uniformly among them. O(n + edges). */
void tu_random_extension(const hf_poset *p, uint64_t *rng, uint32_t *out);
/* Every linear extension of p by its registered edges, in lexicographic order (small orders). */
tu_collect tu_all_extensions(const hf_poset *p);
struct hf_i_method;
/* Run an internal method (lib/gen.h) through check and generate, asserting success; with
 * `predict` also assert that its prediction equals the number of schedules emitted. The caller
 * frees the rows. */
tu_collect tu_run_method(const struct hf_i_method *m, const hf_poset *p, unsigned d, uint64_t seed,
                         const uint32_t *focus, size_t focus_count, bool predict);
hf_status tu_collect_put(void *user, const uint32_t *s, uint32_t n);
hf_sink tu_collect_sink(tu_collect *c);
bool tu_admissible(const bool *lt, uint32_t n, const uint32_t *t, unsigned d);
bool tu_oracle_hitting(const hf_poset *p, const uint32_t *rows, size_t m, unsigned d,
                       const bool *in_focus);
hf_poset *tu_union_of_chains(uint32_t n, uint64_t *rng);
hf_poset *tu_series_parallel(uint32_t n, uint64_t *rng);
hf_poset *tu_some_order(unsigned i, uint32_t n, uint64_t *rng);

#endif
