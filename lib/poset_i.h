/* The layout of struct hf_poset, for the code that builds a poset (poset.c, poset_finish.c, the
 * readers) and the code that walks its arrays in inner loops (methods, verify, counts). Everything
 * else uses the accessors of hitfam/poset.h and the functions of internal.h. */
#ifndef HITFAM_POSET_I_H
#define HITFAM_POSET_I_H

#include <stdatomic.h>

#include "internal.h"
#include "strtab.h"

/* Per-event labels drawn from a set of names (threads, objects). of[v] in 0..count-1 or
 * HF_NO_EVENT; of is NULL when no event has a label. Names NUL-terminated in data at off[k],
 * numbered by first appearance in id order. */
typedef struct hf_i_labels {
    uint32_t *of;
    uint32_t count;
    char *data;
    size_t *off;
} hf_i_labels;

static inline const char *hf_i_label_name(const hf_i_labels *l, uint32_t k)
{
    return l->data + l->off[k];
}

/* The poset layout. Hasse diagram in compressed rows, both directions, sorted by id. */
struct hf_poset {
    hf_ctx *ctx;
    uint32_t n;
    /* The events' names, index = id (data never NULL). Their slots are there when the builder
     * placed every name; a reader that appended names without placing them (the fast DOT
     * reader) leaves the slots out (NULL), and the first lookup by name places every name in a
     * table of its own, name_index (hf_i_poset_names_index), which shares data and off. */
    hf_i_strtab names;
    _Atomic(hf_i_strtab *) name_index;
    size_t edge_count;  /* at most HF_MAX_ORDER_PAIRS */
    uint32_t *succ_off; /* n + 1 */
    uint32_t *succ;
    uint32_t *pred_off; /* n + 1 */
    uint32_t *pred;
    uint32_t *topo; /* lexicographically smallest topological order */
    uint32_t *rank; /* rank[v] = position of v in topo */
    uint32_t height;
    unsigned shape;
    /* Forest views (forest or in-forest; for an in-forest, the tree is the reversed order:
     * parents are Hasse successors). tin/tout are DFS entry/exit times on that tree. */
    bool dual;        /* the views describe the in-forest */
    uint32_t *parent; /* forest parent (only when shape has HF_SHAPE_FOREST) */
    uint32_t *depth;
    uint32_t *subtree;
    uint32_t *tin;
    uint32_t *tout;
    uint32_t *dfs_order; /* events by tin */
    /* Closure of other orders: below[v] (closure_words words) has bit u iff u < v. */
    hf_word *closure;
    size_t closure_words;
    uint32_t *focus;
    uint32_t focus_count;
    hf_i_labels threads; /* hf_poset_builder_set_thread */
    hf_i_labels objects; /* hf_poset_builder_set_object */
    uint8_t *access;     /* hf_access per event; NULL when no event touches an object */
};

/* The names with every one placed in slots, for lookups by name: p->names when the builder
 * placed them all, else name_index, made at the first call (by whichever thread gets there
 * first: a finished poset is read from several threads at once). NULL when that table cannot be
 * allocated (a later call tries again). O(n) the first time, O(1) after. */
const hf_i_strtab *hf_i_poset_names_index(const hf_poset *p);

static inline const char *hf_i_name(const hf_poset *p, uint32_t id)
{
    return hf_i_strtab_str(&p->names, id);
}

#endif /* HITFAM_POSET_I_H */
