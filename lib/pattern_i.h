/* Method pattern (lib/gen_pattern.c, lib/pattern_pieces.c, lib/pattern_walk.c): the state of
 * one run and what the three files call of each other. Internal to them. */
#ifndef HITFAM_PATTERN_I_H
#define HITFAM_PATTERN_I_H

#include "forest.h"
#include "gen_pattern.h"
#include "keyset.h"

/* hf_i_pattern_run flag beside those of gen_pattern.h, for the method's generate(): the guard's
 * walks already ran (lib/gen.c predicts before it asks for a slice), so a slice (opt->row_first)
 * skips them and walks once, up to its last row. Ignored without a slice. */
#define HF_I_PATTERN_PREDICTED 4u
/* hf_i_pattern_run flag for the tests: every realisability test computes its rows afresh over
 * all depths (no row kept from the last test, no row cut at its top), the reference that the
 * kept and cut rows are compared with. */
#define HF_I_PATTERN_PLAIN_TESTS 8u

/* Pattern nodes: at most d - 1 non-leaf nodes, so at most 2d - 1 nodes. */
#define MAXM (2 * HF_MAX_D - 1)

typedef struct pat {
    uint32_t m;
    uint8_t arity[MAXM];
    uint8_t child[MAXM][2];
    uint8_t parent[MAXM];
    uint8_t nlh[MAXM];     /* non-leaf nodes on the longest downward path from the node */
    uint32_t layer[MAXM];  /* lambda-hat: the layer of a non-leaf node, h for leaves */
    uint32_t leaves_unary; /* nodes that every conforming tuple must contain */
    uint32_t two_child;
    uint64_t linext; /* linear extensions of the shape */
    uint32_t free;   /* bit x: one-child node merged with its child (see header) */
} pat;

/* Real nodes of a run of the schedule: their number and two polynomial hashes of their ids. */
typedef struct span {
    uint64_t c;
    uint64_t h[2];
} span;

/* A constraint set of the piece procedure: the nodes at depth `depth` (BFS positions f[]) that
 * the two-child ancestors of a pattern node let through. lp[i] is the span of the levels
 * depth .. depth + i - 1 below them, for i <= lp_len (deeper levels are empty). nest is the
 * number of those ancestors; a set has children only if nest + 2 <= d' (a pattern has at most
 * d' - 1 non-leaf nodes), and only such sets keep f[] (f_len is 0 for the others). */
typedef struct tnode {
    uint32_t depth, lp_len, nest;
    size_t f_off, f_len, lp_off;
} tnode;

enum {
    PASS_PREDICT = 0,
    PASS_MEASURE = 1,
    PASS_EMIT = 2,
    PASS_UNREDUCED = 3,
    PASS_COUNT = 4,
    PASS_BOUND = 5
};

typedef struct run {
    hf_i_tree *t;
    hf_ctx *ctx;
    hf_pattern_mode mode;
    int pass;
    bool guard;
    uint32_t dd; /* d' = min(d, real events), at least 1 */
    uint32_t h, n, nreal;
    uint32_t *depth;
    uint32_t *bfs;       /* nodes by BFS position (by depth, left to right) */
    uint32_t *fc;        /* n + 1: BFS position of the first child of the node at a position */
    uint32_t *layer_end; /* h + 1: positions past the nodes of depth <= L */
    uint32_t *next_fork; /* h + 1: the least depth >= L with a two-child node (h if none) */
    uint8_t *real;
    int8_t *hasreal; /* 0 if the subtree holds a real node, else -1 */
    int8_t *best;    /* MAXM rows of n and a spare one: see realised() */
    /* what row x of best was last computed from (realised() recomputes a row only when
     * these or the values it reads from its children changed): bit x of best_ok, its free bit,
     * its top depth and its last depth; best_ok is cleared for every new shape */
    uint32_t best_ok;
    bool plain_tests; /* HF_I_PATTERN_PLAIN_TESTS */
    uint32_t best_free[MAXM], best_top[MAXM], best_hi[MAXM];
    uint32_t *rep;     /* one node per class of isomorphic subtrees at one depth, by position */
    uint32_t *rep_end; /* h + 1: representatives of depth <= L */
    uint32_t *crep;    /* per child slot of the tree: its class's representative */
    uint32_t *row;
    uint32_t *sbuf;
    /* hashing */
    uint32_t *pc; /* n + 1: real nodes before each BFS position */
    uint64_t *ph; /* 2 (n + 1): prefix hashes over BFS positions */
    uint64_t *pw; /* 2 (nreal + 1): powers of the bases, then of their inverses */
    uint64_t *ipw;
    /* constraint sets */
    tnode *tn;
    size_t tn_len, tn_cap;
    uint32_t *fpool;
    size_t f_len, f_cap;
    span *lp;
    size_t lp_len, lp_cap;
    uint64_t *tkey; /* (parent, layer, side) + 1 -> tval */
    uint32_t *tval;
    size_t tmap_cap, tmap_used;
    uint32_t *scratch; /* 2 |F| */
    size_t scratch_cap;
    /* the sigmas of the current shape, grouped by free mask */
    uint8_t *sig;
    size_t sig_cap;
    uint32_t *sigmask;
    size_t sigmask_cap, nsig;
    uint64_t *rbits; /* the realisability tests of the first pass, replayed by the later ones */
    size_t rbits_len, rbits_cap, rbits_pos;
    bool record, replay;     /* this pass writes rbits / reads them instead of testing */
    bool probing, probe_hit; /* probing: stop at the first realised layering */
    hf_i_emitter *em;
    const hf_sink *out;
    hf_i_keyset keys;
    hf_i_pattern_stats st;
    uint64_t row_first, row_last; /* a slice: only these rows are built (gen.h) */
    bool rows_done;               /* the slice is out: the walk stops (HF_EABORTED) */
} run;

/* ---- pieces (lib/pattern_pieces.c) ---- */

/* The span a followed by b. */
span hf_i_pattern_cat(const run *r, span a, span b);
/* Count w units of work: HF_ETOOLARGE past HF_I_PATTERN_MAX_WORK when guarded. */
hf_status hf_i_pattern_work(run *r, uint64_t w);
/* A new constraint set (nest 0) from the positions in scratch[0 .. len) at depth `depth`. */
hf_status hf_i_pattern_tnode_add(run *r, uint32_t depth, size_t len);
/* The set of the `side` child of a two-child pattern node at `layer` whose own set is T. */
hf_status hf_i_pattern_tnode_child(run *r, uint32_t T, uint32_t layer, uint32_t side,
                                   uint32_t *out);
/* The real nodes of levels s .. e below set T, in schedule order. */
span hf_i_pattern_piece(const run *r, uint32_t T, uint32_t s, uint32_t e);
/* Whether some admissible tuple of d' real events conforms to P with some layers of its free
 * nodes. */
bool hf_i_pattern_realised(run *r, const pat *P);
/* The tree nodes hf_i_pattern_realised visits for P. */
uint64_t hf_i_pattern_test_cost(const run *r, const pat *P);

/* ---- the walk (lib/pattern_walk.c) ---- */

/* Every shape from position pos on (arity sequences in preorder), and for each its sigmas and
 * layerings, as r->pass asks. */
hf_status hf_i_pattern_each_shape(run *r, pat *P, uint32_t pos, uint32_t open, uint32_t nonleaf,
                                  uint32_t lu);

#endif
