/* The simple family for d >= 3 on forests and in-forests (Claim 3.2 of Chistikov, Majumdar,
 * Niksic, CAV 2016): the registry entry and the pruned variant with prefixes from racing events. */
#ifndef HITFAM_GEN_SIMPLE_H
#define HITFAM_GEN_SIMPLE_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include "gen.h"

/* Method "simple" (docs/math.md, section 4): on the tree of the order (restricted to opt->focus
 * when given, so that every admissible d-tuple of focus events is hit), for every admissible
 * prefix a_1..a_{d-2} of real events place the root paths of a_1, ..., a_{d-2} in turn, then
 * complete once in left-to-right and once in right-to-left preorder; every distinct schedule is
 * emitted once, at most 2 n^(d-2) of them (2n - 2h on T_h for d = 3, h >= 2). With fewer than d-2
 * events the prefixes take all of them (no d-tuple exists then; the family stays hitting for
 * every shorter length). HF_EUNSUPPORTED for d <= 2 (use dfs) and for orders that are neither
 * forests nor in-forests. Duplicates are recognised without storing the family: generation takes
 * O(d n) per schedule, amortised, and O(n) memory (about 30 words per event). predict is exact:
 * O(n) for d = 3 and d = 4, about O(n^(d-3)) for larger d, HF_ETOOLARGE (with a lower bound in the
 * message) when that exceeds about a second of work. */
extern const hf_i_method hf_i_method_simple;

/* The count behind the method's predict, with an explicit work limit: the exact family size for
 * the order restricted to `focus` (NULL: every event), after visiting at most `max_visits` placed
 * sequences, else HF_ETOOLARGE with a lower bound in the message. d = 3 takes O(n) whatever the
 * limit; for d >= 4 only the placed sequences with at most d-3 runs are visited (O(n^(d-3)) of
 * them; with at most d-1 leaves also their O(d) extensions by one more run), the rest is counted
 * from subtree sizes. Memory O(n). HF_EINVAL for a focus id out of range. */
hf_status hf_i_simple_count(const hf_poset *p, unsigned d, const uint32_t *focus,
                            size_t focus_count, uint64_t max_visits, mpz_t size, hf_error *err);

/* The pruned variant (section 6 of the paper): the prefixes a_1..a_{d-2} are drawn only from the
 * racing events while the tree keeps every event. On a forest the family hits every admissible
 * d-tuple whose first d-2 entries are racing; on an in-forest (built on the dual tree, which
 * reverses tuples) every admissible d-tuple whose last d-2 entries are racing. At most 2 |R|^(d-2)
 * schedules (2 when R is empty), each distinct schedule once; with fewer than d-2 racing events the
 * prefixes take all of them. `racing` may hold duplicates; ids must be < n (HF_EINVAL otherwise).
 * HF_EUNSUPPORTED for d <= 2 and for orders that are neither forests nor in-forests. Time O(d n)
 * per schedule, amortised; memory O(n). */
hf_status hf_i_simple_generate_pruned(const hf_poset *p, unsigned d, const uint32_t *racing,
                                      size_t racing_count, hf_sink sink, hf_error *err);

/* The exact number of schedules hf_i_simple_generate_pruned emits, into `size` (initialised by
 * the caller); costs and limits as hf_i_simple_count. */
hf_status hf_i_simple_predict_pruned(const hf_poset *p, unsigned d, const uint32_t *racing,
                                     size_t racing_count, mpz_t size, hf_error *err);

#endif
