/* The forest view every tree construction works on: one rooted out-tree, built from a forest or
 * an in-forest of any degree, optionally restricted to focus events and binarized, with the map
 * back to the order's events. */
#ifndef HITFAM_FOREST_H
#define HITFAM_FOREST_H

#include "internal.h"

/* How nodes with more than two children are split into binary gadgets of virtual events. */
typedef enum hf_i_gadget {
    HF_I_GADGET_NONE = 0,     /* keep any degree */
    HF_I_GADGET_WEIGHTED = 1, /* split children where the weights 2^height balance */
    HF_I_GADGET_BALANCED = 2  /* split children in halves by count (the naive gadget) */
} hf_i_gadget;

typedef struct hf_i_tree_options {
    hf_i_gadget gadget;
    const uint32_t *focus; /* NULL: every event; else the tree is the order induced on these */
    size_t focus_count;
} hf_i_tree_options;

/* A rooted out-tree over nodes 0..n-1. `orig[v]` is the order's event that node v stands for,
 * or HF_NO_EVENT for a virtual node (the root added above a forest, gadget nodes). Children
 * keep the order of the events' ids, left to right. When `reversed` is set the tree is the dual
 * of an in-forest: a schedule of the tree, read backwards, is a schedule of the order, and an
 * admissible tuple of the order read backwards is admissible in the tree (docs/math.md,
 * section 2.3). Restricting to focus events keeps a forest a forest (parent = nearest focus
 * ancestor). */
typedef struct hf_i_tree {
    hf_ctx *ctx;
    const hf_poset *poset;
    uint32_t n;      /* nodes, virtual ones included */
    uint32_t n_orig; /* events of the order */
    uint32_t root;
    uint32_t height; /* longest root-to-leaf path, in edges */
    bool reversed;
    bool restricted;     /* a focus set dropped some events */
    uint32_t *parent;    /* HF_NO_EVENT for the root */
    uint32_t *child_off; /* n + 1 offsets into child */
    uint32_t *child;
    uint32_t *orig;
    hf_i_tree_options made; /* the options it was built with (hf_i_tree_shared) */
    bool kept;              /* held by a hf_i_tree_scope: hf_i_tree_release leaves it */
} hf_i_tree;

/* Build the tree of a forest (preferred when the order is both) or an in-forest. A virtual root
 * is added unless exactly one root remains. HF_EUNSUPPORTED for other orders. O(n) time and
 * memory plus O(n log n) for weighted gadgets; no recursion. `opt` may be NULL. */
hf_status hf_i_tree_new(const hf_poset *p, const hf_i_tree_options *opt, hf_i_tree **out,
                        hf_error *err);
void hf_i_tree_free(hf_i_tree *t);

/* Facts of the tree hf_i_tree_new builds with no focus set and no gadget, read off the order
 * without building it: its leaves and the events on its first-child and last-child descents from
 * the root (spine[0] and spine[1]; a virtual root is no event). O(n) sequential reads plus the
 * two descents, no allocation. HF_EUNSUPPORTED for an order that is neither a forest nor an
 * in-forest. */
hf_status hf_i_tree_outline(const hf_poset *p, uint32_t *leaves, uint32_t spine[2]);

/* Trees shared within one generation (lib/gen.c opens a scope around hf_generate): auto
 * predicts a method and then generates it, and both may use the same tree. Between begin and
 * end, on this thread, hf_i_tree_shared returns the tree the scope keeps when it was built for
 * the same order with the same options (focus compared by pointer), else a new one, which the
 * scope keeps if it keeps none yet. Such a tree is read only; hf_i_tree_release frees a tree
 * unless a scope keeps it, and the scope's end frees the kept one. Scopes nest. */
typedef struct hf_i_tree_scope {
    struct hf_i_tree_scope *outer;
    hf_i_tree *kept;
} hf_i_tree_scope;
void hf_i_tree_scope_begin(hf_i_tree_scope *s);
void hf_i_tree_scope_end(hf_i_tree_scope *s);
hf_status hf_i_tree_shared(const hf_poset *p, const hf_i_tree_options *opt, hf_i_tree **out,
                           hf_error *err);
void hf_i_tree_release(hf_i_tree *t);

/* Map schedules of the tree back to the order: drop virtual nodes, translate ids, extend a
 * focus-restricted schedule to all events (each focus event preceded by its unscheduled
 * ancestors, the rest appended in topological order, which keeps the focus events' relative
 * order), reverse for in-forests, and hand the result to the sink. O(n_orig) per schedule. */
typedef struct hf_i_emitter hf_i_emitter;
hf_status hf_i_emitter_new(const hf_i_tree *t, hf_i_emitter **out);
void hf_i_emitter_free(hf_i_emitter *e);
hf_status hf_i_emit(hf_i_emitter *e, const uint32_t *schedule, hf_sink sink);

#endif
