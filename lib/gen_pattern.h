/* d >= 3 on forests and in-forests: the pattern family of Chistikov, Majumdar, Niksic (CAV 2016,
 * Section 5, Lemma 3 built breadth-first), over the binarized tree of lib/forest.h. */
#ifndef HITFAM_GEN_PATTERN_H
#define HITFAM_GEN_PATTERN_H

#include "gen.h"

/*
 * Patterns and their canonical form.
 *
 * A pattern (MATH.md, "d >= 3, patterns") is a rooted tree X of outdegree <= 2, with the two
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
 * The generator walks the patterns in lexicographic order of (arity, layer, sigma) and never
 * builds two encodings of one pattern.
 *
 * One schedule per pattern: S(root) = {tree root}; for x in sigma order, Piece(x) = every node
 * at or below some s in S(x) down to layer lambda(x) (h for leaves), in breadth-first order; the
 * children E of Piece(x)'s nodes on that layer become S(y) for x's only child y, or are split
 * into 0-children (left child) and 1-children (right child). Pieces partition the tree; a tuple
 * whose lca-closure maps onto X (order, sides, layers of non-leaf nodes) with sigma ordering the
 * tuple as it is has a_i in Piece(phi(a_i)), so the schedule hits it.
 *
 * Families (each checked d-hitting by brute force in tests/test_gen_pattern.c):
 *   HF_I_PATTERN_REALISED: only the patterns some admissible tuple of real events
 *     (not virtual root or gadget nodes; focus events when restricted) conforms to. With d' =
 *     min(d, real events) and L leaves, U one-child nodes, a (shape, layers) pair is realised
 *     iff L + U <= d' and some embedding maps leaves and one-child nodes to real events and at
 *     least d' - L - U two-child nodes to real events too (those complete the tuple; every
 *     one-child node and leaf must be a tuple entry, the two-child nodes are lcas anyway). Then
 *     every sigma is realised: the chosen entries read in sigma order form an admissible,
 *     conforming tuple. The embedding test is a dynamic program over the tree per pattern node
 *     (the most real two-child images of the sub-pattern within each subtree), O(m n).
 *   HF_I_PATTERN_CANONICAL (the method): realised (shape, layers) pairs, but only the sigmas
 *     that are canonical for some entry set A (the leaves, the one-child nodes and d' - L - U
 *     two-child nodes): the nodes outside A placed as early as they can go, smallest preorder
 *     index first, the entries of A in sigma's order. A tuple with entry set A and order o
 *     conforms to the canonical sigma of (A, o), so the family stays d-hitting; on T_h it has
 *     about 0.8 (d = 3) and 0.45 (d = 4) times the schedules of HF_I_PATTERN_REALISED.
 *   HF_I_PATTERN_ALL: every pattern with at most d' - 1 non-leaf nodes, as in the paper.
 * The three families nest: CANONICAL within REALISED within ALL.
 * Equal schedules (after mapping back to the order) are emitted once: a 128-bit hash of every
 * emitted row is kept (collisions are ignored: two distinct rows with one hash would drop a
 * row; the chance is about m^2 / 2^128).
 *
 * Cost: W = sum over tested (shape, layers) pairs of m * n (the embedding test; none in ALL
 * mode) plus (number of patterns) * (n + n_orig) to build, map and hash each schedule; time
 * O(W) (the embedding tests run in both passes), memory O(n d) plus 32 bytes per distinct
 * schedule. There are at most (#shapes) * h^(d-1) pairs, each with at most m!/(prod of subtree
 * sizes) sigmas, so W grows like h^(d-1) * n: fine for d = 3, 4 on trees of thousands of events
 * (T_12, 8,191 events, d = 4: W = 2.5e9, under 2 s), hopeless for d = 8 on large trees; deep
 * trees suffer most (a chain of 3,000 events is refused for d = 3 although it has a single
 * schedule). A first pass computes W before anything is emitted and refuses with HF_ETOOLARGE
 * when W > HF_I_PATTERN_MAX_WORK. predict() runs the whole generation into the hash set (the
 * same cost as generate(), without the sink).
 */

/* Largest work W (node steps, see above) the pattern method accepts. */
#define HF_I_PATTERN_MAX_WORK ((uint64_t)3000000000u)

typedef enum hf_i_pattern_mode {
    HF_I_PATTERN_REALISED = 0,
    HF_I_PATTERN_ALL = 1,
    HF_I_PATTERN_CANONICAL = 2
} hf_i_pattern_mode;

typedef struct hf_i_pattern_stats {
    uint64_t layered_shapes; /* (shape, layers) pairs used */
    uint64_t patterns;       /* patterns, i.e. schedules built before deduplication */
    uint64_t distinct;       /* distinct schedules of the order emitted */
    uint64_t work;           /* W of the cost model above */
} hf_i_pattern_stats;

/* Run the pattern construction of `mode` on a forest or in-forest (opt->d in 1..HF_MAX_D,
 * opt->focus as in hf_gen_options): stream each distinct schedule to `sink` (NULL: only count)
 * and fill `stats` (may be NULL). HF_EUNSUPPORTED for other orders, HF_ETOOLARGE past the work
 * limit (nothing emitted), HF_ENOMEM, or the sink's status. */
hf_status hf_i_pattern_run(const hf_poset *p, const hf_gen_options *opt, hf_i_pattern_mode mode,
                           const hf_sink *sink, hf_i_pattern_stats *stats, hf_error *err);

extern const hf_i_method hf_i_method_pattern;

#endif
