/* d >= 3 on forests and in-forests: the pattern family of Chistikov, Majumdar, Niksic (CAV 2016,
 * Section 5, Lemma 3 built breadth-first), over the binarized tree of lib/forest.h. */
#ifndef HITFAM_GEN_PATTERN_H
#define HITFAM_GEN_PATTERN_H

#include "gen.h"

/*
 * Patterns and their canonical form.
 *
 * A pattern (docs/math.md, section 6.1) is a rooted tree X of outdegree <= 2, with the two
 * children of a two-child node labelled left (0) and right (1), a layer lambda for each non-leaf
 * node (strictly increasing downward, in 0..h-1 where h is the binarized tree's height), and a
 * linear extension sigma of X. The left/right labels leave X no automorphism: each node is named
 * by its path from the root (the only child of a one-child node counts as 0), so numbering the
 * nodes in preorder, left child first, gives every pattern exactly one encoding:
 *   arity[0..m-1]   the number of children of each node, in preorder (fixes the shape: the
 *                   sequence is the preorder of a tree iff its running "open slots" count
 *                   1 + sum(arity - 1) stays positive until the last node, where it hits 0);
 *   layer[i]        for each i with arity[i] > 0;
 *   sigma[0..m-1]   preorder indices in schedule order.
 * The generator walks the shapes in lexicographic order of arity, then per shape the sigmas
 * grouped by their free nodes (below), then the layers, and never visits two encodings of one
 * pattern.
 *
 * One schedule per pattern: S(root) = {tree root}; for x in sigma order, Piece(x) = every node
 * at or below some s in S(x) down to layer lambda(x) (h for leaves), in breadth-first order; the
 * children E of Piece(x)'s nodes on that layer become S(y) for x's only child y, or are split
 * into 0-children (left child) and 1-children (right child). Pieces partition the tree; a tuple
 * whose lca-closure maps onto X (order, sides, layers of non-leaf nodes) with sigma ordering the
 * tuple as it is has a_i in Piece(phi(a_i)), so the schedule hits it.
 *
 * Families (each checked d-hitting by brute force in tests/test_gen_pattern.c), chosen by
 * hf_gen_options.pattern_mode:
 *   HF_PATTERN_REALISED: only the patterns some admissible tuple of real events (not virtual
 *     root or gadget nodes; focus events when restricted) conforms to. With d' = min(d, real
 *     events) and L leaves, U one-child nodes, a (shape, layers) pair is realised iff
 *     L + U <= d' and some embedding maps leaves and one-child nodes to real events and at
 *     least d' - L - U two-child nodes to real events too (those complete the tuple; every
 *     one-child node and leaf must be a tuple entry, the two-child nodes are lcas anyway). Then
 *     every sigma is realised: the chosen entries read in sigma order form an admissible,
 *     conforming tuple. The embedding test is a dynamic program over the tree per pattern node
 *     (the most real two-child images of the sub-pattern within each subtree), O(m n).
 *   HF_PATTERN_CANONICAL (the default): realised (shape, layers) pairs, but only the sigmas
 *     that are canonical for some entry set A (the leaves, the one-child nodes and d' - L - U
 *     two-child nodes): the nodes outside A placed as early as they can go, smallest preorder
 *     index first, the entries of A in sigma's order. A tuple with entry set A and order o
 *     conforms to the canonical sigma of (A, o), so the family stays d-hitting; on T_h it has
 *     about 0.8 (d = 3) and 0.45 (d = 4) times the schedules of HF_PATTERN_REALISED.
 *   HF_PATTERN_ALL: every pattern with at most d' - 1 non-leaf nodes, as in the paper.
 * The three families nest: CANONICAL within REALISED within ALL.
 *
 * Free nodes (why deep trees are cheap). If sigma puts a one-child node x directly before its
 * child y, Piece(x) followed by Piece(y) is the breadth-first run of the levels from x's first
 * to y's last below S(x), whatever layer x has: the schedule does not depend on lambda(x). Such
 * an x is *free*: the walk enumerates, per shape, the sigmas grouped by their set of free nodes,
 * and for each group only the layers of the other non-leaf nodes; a free node gets its parent's
 * layer + 1 (the smallest it can take), and the realisability test asks for *some* real image
 * strictly between its parent's and its child's. This is exactly the family of the plain
 * enumeration, with far fewer patterns: a chain of any length has one realised pattern per
 * shape (all its one-child nodes are free) instead of C(h, d - 1), and the work on a long
 * unary path grows only with the sigmas that put some other piece between x and y.
 *
 * When two patterns give one schedule. Within a piece, the procedure lists the nodes level by
 * level, each level left to right: in breadth-first position order. The emitted row is
 * therefore the real events sorted by (the sigma position of the piece that holds them, their
 * breadth-first position). Two patterns give the same row iff these sequences agree, which
 * holds iff they have the same maximal runs of increasing breadth-first position. Empty pieces
 * change nothing, and two consecutive pieces merge into one run when the first ends before the
 * second starts. Nothing simpler holds in general: on a chain, every pattern gives the one
 * schedule. hitfam does not count the sequences combinatorially. It hashes them:
 *
 * Deduplication without building schedules. A piece is the real nodes of some levels below a
 * constraint set: the nodes on one depth that the two-child ancestors' sides let through (the
 * root alone, or the side children of the set's nodes on a layer). Positions in breadth-first
 * order make each node's descendants on a level one interval, so a set's levels cost one
 * interval per node of the set; for each set met, the polynomial hashes (modulo 2^61 - 1, two
 * bases) of its levels are stored as prefix sums over the depth, which gives each piece's hash
 * in O(1) and each schedule's hash (of its real events, i.e. of the emitted row) in O(m). The
 * emitted rows are the sigmas whose 122-bit hash is new; two distinct rows with one hash would
 * drop a row (chance about k^2 / 2^122 for k patterns). predict and generate take the same
 * decisions, so the predicted size equals the number of rows emitted exactly.
 *
 * Layers that cannot be realised are skipped: outside HF_PATTERN_ALL a two-child node only
 * takes layers on which the tree has a two-child node.
 *
 * Cost, with K patterns walked (the sum over groups of sigmas times layerings; the stats'
 * `patterns`), R groups-with-layers tested for realisability (`layered_shapes` counts the
 * realised ones; none tested in HF_PATTERN_ALL) and C = the sum over the constraint sets met of
 * (set size) * (levels below it):
 *   predict:  O(R m n + C + K m) time (tests, sets, piece hashes, one hash-set probe per
 *             pattern, the row hashes sharing the prefix hashes of consecutive sigmas,
 *             docs/math.md 6.5); memory O(m n + sets * h + sum of set sizes) plus 32 to 64
 * bytes per pattern (the hash set, sized once from the count pass; for a slice from its last
 * row). No schedule is built or mapped back. generate: the same walk once to measure
 * (no hash set, R bits kept), then again with the tests replayed from the bits, plus O(n + n_orig)
 * per emitted schedule; a slice that lib/gen.c has already predicted (HF_I_PATTERN_PREDICTED)
 * skips the bound, count and measure walks and runs one walk that tests, hashes and builds,
 * stopping after its last row. Measured (tests/bench/bench_pattern, release build): T_12 (8,191
 * events), d = 4, canonical: predict 0.11 s, generate 1.3 s into a counting sink; a 3,000-event
 * chain: one pattern per shape. The guard refuses with HF_ETOOLARGE, before anything is emitted,
 * when W > HF_I_PATTERN_MAX_WORK (W = the tree nodes the realisability tests visit, at most R m n,
 * + C + K m + the sigma enumeration per shape) or K > HF_I_PATTERN_MAX_PATTERNS. W grows with the
 * layer choices of the non-free nodes: on long unary paths with other branches beside them
 * (a chain with side leaves) every layer of a one-child node between them still gives a new
 * schedule, and d = 4 on a 2,000-event chain with 20 side leaves passes the limit.
 *
 * Cost of the guard. W and K are charged as the walk goes, each charge checked before its work
 * is done, so a walk stops at the first charge past a limit (K overshoots by at most one group
 * of sigmas). Two cheap walks come before the hashing pass, each charging a part of W (and the
 * second all of K) and refusing when that part passes a limit, which the full walk would then
 * pass too; an accepted order gets the same passes and family as without them:
 *   bound (not in HF_PATTERN_ALL): the shapes, their sigmas and layerings, the cost of every
 *     realisability test charged but only the probes of large shapes run: O(sigma work + R m)
 *     plus the probes;
 *   count: the tests run (their answers kept, R bits, and replayed by the later passes), the
 *     patterns counted, no constraint set and no hash: O(sigma work + R m + the tests).
 * The tests compute one value per class of isomorphic subtrees of one depth (n classes at worst,
 * h + 1 on T_h), so on complete trees the count costs O(R m h). Measured (debugoptimized build,
 * loaded machine): T_6..T_8 with d = 6 and T_11 with d = 5, all patterns, T_12 with d = 5
 * realised, a random 6,000-event tree with d = 5 or 6: refused in under 0.2 s (20 to 28 s
 * before). An accepted order pays the bound and count walks on top, the tests run once: about
 * 3 % on a random 400-event tree (d = 4), while sharing the tests makes complete trees faster
 * (`stats --d 5` on T_12: 6.6 s, 16.8 s before).
 */

/* Largest work W (node steps, see above) the pattern method accepts. */
#define HF_I_PATTERN_MAX_WORK ((uint64_t)3000000000u)
/* Most patterns walked (the hash set then stays under 256 MiB). */
#define HF_I_PATTERN_MAX_PATTERNS ((uint64_t)1 << 23)

/* hf_i_pattern_run flags */
#define HF_I_PATTERN_UNREDUCED 1u /* only count the patterns of the plain enumeration */
#define HF_I_PATTERN_NO_GUARD  2u /* no work limit (benchmarks and tables) */

typedef struct hf_i_pattern_stats {
    uint64_t layered_shapes; /* realised (shape, free nodes, layers) walked */
    uint64_t patterns;       /* patterns walked, i.e. schedules before deduplication */
    uint64_t distinct;       /* distinct schedules of the order */
    uint64_t work;           /* W of the cost model above */
} hf_i_pattern_stats;

/* Run the pattern construction of opt->pattern_mode on a forest or in-forest (opt->d in
 * 1..HF_MAX_D, opt->focus as in hf_gen_options): with a sink, stream each distinct schedule to
 * it; without, only count (the prediction). Fill `stats` (may be NULL; on HF_ETOOLARGE it
 * holds the walk that refused, so distinct is 0 when a cheap walk refused). With
 * HF_I_PATTERN_UNREDUCED, only stats->patterns and layered_shapes are filled, counting every
 * (shape, layers, sigma) of the mode as the paper does (free nodes not merged; costs
 * R m n with every layering tested). HF_EUNSUPPORTED for other orders, HF_ETOOLARGE past the
 * work limit (nothing emitted), HF_ENOMEM, or the sink's status. */
hf_status hf_i_pattern_run(const hf_poset *p, const hf_gen_options *opt, unsigned flags,
                           const hf_sink *sink, hf_i_pattern_stats *stats, hf_error *err);

extern const hf_i_method hf_i_method_pattern;

#endif
