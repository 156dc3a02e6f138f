/* Internal state of online scheduling sessions (include/hitfam/online.h), shared by lib/online.c
 * (runs, post, next, the dfs and doubletree strategies), lib/online_learn.c (strategy learn) and
 * lib/online_view.c (names, the union forest as an order, simulation). */
#ifndef HITFAM_ONLINE_I_H
#define HITFAM_ONLINE_I_H

#include <string.h>

#include <hitfam/online_inline.h>

#include "coverage.h"
#include "gen.h"
#include "strtab.h"

/* A node of the union forest: identified by (parent, rank among its siblings, label). The
 * children a run posts under a node it creates are created together, so a node's children of
 * ranks 0, 1, ... form a block of consecutive ids from `kids` on, and post finds a child by its
 * rank with one read (the node at kids + rank is in the block when its parent is right and it is
 * no overflow child). A child that fits no block (a rank beyond the block, posted in a later run
 * once other nodes were created, or another label at a rank of the block) is an overflow child,
 * found by hashing (parent, rank, label). 12 bytes, so that the runs after the first, which post
 * in another order than the one the union forest was made in, touch few cache lines. */
typedef hf_online_node_rec unode; /* include/hitfam/online_inline.h publishes it */

#define NOLABEL HF_ONLINE_REC_NOLABEL
#define OVER    HF_ONLINE_REC_OVER

/* A child outside its parent's block, in order of creation (so by node id). */
typedef struct uover {
    uint32_t parent, rank, label, node;
} uover;

/* What became of a tuple tracked by learn's repair runs: still open, hit by some run, set aside
 * (HF_ONLINE_LEARN_REPAIRS misses, or no plan left without a cycle), or apart (no run has all
 * its events). */
enum { AIM_OPEN = 0, AIM_HIT = 1, AIM_ASIDE = 2, AIM_APART = 3 };
/* Modes of the double-tree rows: the first half's preorder, or a traversal (published). */
enum { MODE_F = HF_ONLINE_DT_PREORDER, MODE_L = HF_ONLINE_DT_LEFT, MODE_R = HF_ONLINE_DT_RIGHT };

/* An event of the open run (12 bytes). Only the running event posts children, so what posting
 * needs of the parent (children posted so far, the double-tree depth and mode) lives in the
 * session (hf_online.cur), and an event needs no state: it is pending, running, or done, as the
 * schedule of the run says. */
typedef hf_online_event_rec revent; /* published, as unode; its node's block of children is
                                       read from the node when it runs */

/* The parent whose children are being posted: the running event, or the roots before the first
 * next(). */
typedef hf_online_cur
    hf_i_cur; /* published, as unode; its fields:
               * node: its union node, NONE for the roots;
               * kids: the node's block of children, as revent;
               * posted: children posted so far: the next child's rank, and the events posted since
               * the last next(); key: learn: its key; depth: doubletree: depth in the binarized
               * forest; mode: doubletree; under: doubletree: the sides of its two-child strict
               * ancestors in the binarized forest it lies under: bit 0 a 0-child with a sibling,
               * bit 1 a 1-child (so nonzero when some strict ancestor has two children) */

/* A node of the binarized forest on the double-tree stacks: one run event (hi == NONE) or the
 * gadget over the sibling run events lo..hi-1 (published, as unode). */
typedef hf_online_dt_item item;

struct hf_online {
    /* what include/hitfam/online_inline.h reads and writes, first, in the layout it publishes
     * (hf_online_hot), here by the fields' own names */
    union {
        hf_online_hot hot;
        struct {
            unode *nodes;       /* union forest */
            revent *ev;         /* the open run's events */
            uint32_t *stack;    /* dfs: ranges lo, hi of sibling run events not run yet */
            uint32_t *sched;    /* runs: schedules of node ids, one after another */
            size_t sched_len;   /* entries of the ended runs' schedules */
            size_t room;        /* pending events the scheduling structures have room for */
            uint32_t n_nodes;   /* nodes of the union forest */
            uint32_t ev_lim;    /* events the run records and schedule have room for */
            uint32_t n_ev;      /* events of the open run */
            uint32_t running;   /* NONE before the first next() */
            uint32_t pending;   /* events posted and not run */
            uint32_t sp;        /* entries of stack */
            hf_i_cur cur;       /* the event whose children are posted */
            uint8_t fast;       /* HF_ONLINE_FAST_*: the open run's steps the header may take */
            bool branched;      /* some event or the root level had two or more children */
            uint32_t isp;       /* doubletree: entries of items */
            uint32_t ndef;      /* doubletree: entries of deferred */
            uint32_t max_depth; /* doubletree: binarized height seen */
            uint32_t row_D;     /* doubletree row: variant 0..3 (A, B, C, E) and depth D */
            uint32_t row_v;
            item *items;     /* doubletree: the row's nodes to visit */
            item *deferred;  /* doubletree: the second halves */
            uint8_t *useful; /* doubletree, per depth of the binarized forest: which rows of the
                                depth are proper, whether it is branching, and the seen marks of
                                the plain rows (dt_rows in lib/online.c); it is useful when some
                                node there has two children, or a child and an ancestor with two
                                (docs/online.md) */
            char *const *lab_data;  /* &lab.data */
            size_t *const *lab_off; /* &lab.off */
        };
    };
    hf_ctx *ctx;
    unsigned d;
    hf_online_strategy strategy;
    hf_method learn_method;
    uint64_t max_runs;

    /* union forest */
    size_t nodes_cap;
    unode root;  /* the roots' block, as a node's children */
    uover *over; /* overflow children */
    size_t n_over, over_cap;
    uint32_t *ohash; /* open addressing over indices into over (NONE: empty), a power of 2 */
    size_t ohash_cap;
    hf_i_strtab lab;       /* interned labels: each distinct label once, numbered by first use */
    const char *lc_ptr[8]; /* label strings the caller passed lately and their ids: a caller */
    uint32_t lc_id[8];     /* passes the same few strings again and again (lib/online.c) */

    /* runs: schedules of node ids, one after another */
    size_t sched_cap;
    size_t *run_off; /* runs + 1 offsets */
    size_t runs, run_off_cap;

    /* the open run */
    bool open;
    bool started; /* next() was called in this run */
    size_t ev_cap;
    uint32_t nodes_before; /* union nodes when the run began */
    bool created;          /* the run made new union nodes */
    /* scheduling state */
    size_t stack_cap;
    size_t items_cap, deferred_cap; /* doubletree */
    uint32_t *keys;                 /* learn: priority key of each event of the run */
    size_t keys_cap;
    uint32_t *heap; /* learn: run events by (key, newest first) */
    size_t heap_cap;
    uint32_t hn;
    bool right;      /* dfs run: children right to left */
    bool learn_plan; /* learn run follows plan_pos */
    bool dfs_run;    /* the run is depth first (dfs, or learn without a plan) */

    /* what earlier runs showed */
    size_t useful_cap;
    bool changed_any;
    /* doubletree at d = 3: gadgets weighed by what earlier runs showed (lib/online_union.c,
     * docs/online.md) */
    double *gw; /* per union node in its parent's block: the weights of the block's nodes
                   of rank <= its own, summed (a weight is 2^(binarized height - the
                   highest sibling's), as offline doubletree weighs) */
    size_t gw_cap;
    uint32_t gw_n;    /* union nodes weighed (ids below it); 0: none, every gadget by count */
    bool gw_stale;    /* the last weighing ran out of memory: done again at the next end_run */
    bool dt_gadget;   /* the open run expanded a gadget (three sibling events or more) */
    uint64_t dt_base; /* run r plays row r - dt_base of the list dt_rows makes (0: R(A, 0)) */
    uint64_t dt_bits; /* flags set in the per-depth record when the last run ended */

    /* learn */
    hf_poset *u;        /* the union forest the plan was made for (NULL: none) */
    hf_family *fam;     /* its offline family */
    hf_i_coverage *cov; /* tuples of u not hit yet */
    uint64_t tuples;    /* admissible tuples of u */
    uint8_t *tried;     /* per schedule of fam: played as a target */
    uint32_t *plan_pos; /* position of each node of u in the target, plan_n entries */
    uint32_t plan_n;
    size_t target;      /* schedule of fam this run follows, SIZE_MAX: none */
    size_t next_target; /* chosen at end_run */
    uint64_t plan_left; /* untried schedules that still hit something */
    bool repair;        /* the next run follows a repair plan (plan_pos) for `lead` */
    struct hf_i_aim {
        unsigned len;   /* tuples of a union forest with fewer than d events are shorter */
        uint32_t t[4];  /* union nodes, in the order wanted */
        uint8_t status; /* AIM_* */
        uint8_t tries;  /* repair runs that aimed at it and missed it */
    } * aims;           /* tuples taken out of the coverage for repair runs */
    size_t n_aims, aims_cap;
    size_t lead;           /* the tuple of aims the repair runs aim at (SIZE_MAX: none yet) */
    size_t lead_base;      /* the run its plans are made from */
    uint32_t (*learnt)[2]; /* edges its misses taught (repair_learn in lib/online_learn.c) */
    size_t n_learnt, learnt_cap;
    uint32_t *mark; /* scratch, 2 (n_nodes + 1): positions of runs' nodes */
    size_t mark_cap;
    bool stale;             /* u must be rebuilt before the next plan */
    bool huge;              /* option huge_pages: advise the large arrays to use 2 MiB pages */
    const char **id_labels; /* hf_online_step_ids: the labels its ids stand for, when it hands */
    size_t id_labels_cap;   /* the step to hf_online_step */
};

/* The fields by name lie where the published layout has them. */
#define HF_I_HOT_AT(f) _Static_assert(offsetof(hf_online, f) == offsetof(hf_online_hot, f), #f)
HF_I_HOT_AT(nodes);
HF_I_HOT_AT(ev);
HF_I_HOT_AT(stack);
HF_I_HOT_AT(sched);
HF_I_HOT_AT(sched_len);
HF_I_HOT_AT(room);
HF_I_HOT_AT(n_nodes);
HF_I_HOT_AT(ev_lim);
HF_I_HOT_AT(n_ev);
HF_I_HOT_AT(running);
HF_I_HOT_AT(pending);
HF_I_HOT_AT(sp);
HF_I_HOT_AT(cur);
HF_I_HOT_AT(fast);
HF_I_HOT_AT(branched);
HF_I_HOT_AT(isp);
HF_I_HOT_AT(ndef);
HF_I_HOT_AT(max_depth);
HF_I_HOT_AT(row_D);
HF_I_HOT_AT(row_v);
HF_I_HOT_AT(items);
HF_I_HOT_AT(deferred);
HF_I_HOT_AT(useful);
HF_I_HOT_AT(lab_data);
HF_I_HOT_AT(lab_off);
#undef HF_I_HOT_AT

/* HF_I_GROW for the arrays that grow with the events (run records, schedule, union nodes,
 * scheduling structures): with option huge_pages, an array that grew is advised to use huge
 * pages, and past 4 MiB it grows fourfold (hf_i_online_grow in lib/online.c). ONLINE_GROW_ZEROED
 * for an array whose new capacity is zeroed whole (the per-depth record): twofold, so that no
 * more is touched than doubling touches. */
#define ONLINE_GROW(s, arr, cap, need)                                                             \
    hf_i_online_grow((s), (void *)&(arr), (cap), (need), sizeof *(arr), true)
#define ONLINE_GROW_ZEROED(s, arr, cap, need)                                                      \
    hf_i_online_grow((s), (void *)&(arr), (cap), (need), sizeof *(arr), false)
hf_status hf_i_online_grow(hf_online *s, void *slot, size_t *cap, size_t need, size_t item_size,
                           bool fourfold);

/* lib/online.c: the rank of union node @p node among its siblings. O(1) in its parent's block,
 * O(log overflow children) outside it. */
uint32_t hf_i_online_rank(const hf_online *s, uint32_t node);

/* Doubletree's per-depth record (hf_online.useful; dt_rows in lib/online.c): DT_PROPER << v when
 * row (v, D) is proper, DT_BRANCH when a node of depth D has two children, and the seen marks
 * of the plain rows. */
enum {
    DT_PROPER = HF_ONLINE_DT_PROPER,
    DT_BRANCH = HF_ONLINE_DT_BRANCH,
    DT_SEEN_PRE = 32,
    DT_SEEN_SUF = 64
};

/* lib/online_union.c: where the gadget over the sibling run events lo..hi-1 (hi - lo >= 3)
 * splits: its first half is lo..mid-1. Where the union forest remembers those events as the
 * consecutive children of one block and weighed them (the last weighing), at the point where
 * their weights balance as offline doubletree splits (lib/forest.c); otherwise by count, the
 * first half ceil((hi - lo) / 2) events. O(log(hi - lo)). */
uint32_t hf_i_online_gadget_split(const hf_online *s, uint32_t lo, uint32_t hi);
/* lib/online_union.c: at the end of a doubletree run at d = 3. When the union forest grew (or
 * the last weighing failed): weigh every block's nodes by the binarized heights of the union
 * forest's block forest, and set the per-depth record and the height seen to those of that
 * forest binarized with the weighed gadgets. When the list of rows changed after run 1 (a
 * weighing, or a flag the run added to the record), the runs start it again (dt_base). O(n)
 * for a weighing of n union nodes, O(height) otherwise; HF_ENOMEM leaves the weights and the
 * record as they were. */
hf_status hf_i_online_dt_end(hf_online *s, hf_error *err);

/* lib/online_learn.c: drop the plan (union poset, family, coverage). */
void hf_i_online_learn_drop(hf_online *s);
/* ---- lib/online_union.c: the union forest ---- */

_Static_assert(HF_ONLINE_NO_LABEL == NOLABEL, "hf_online_step_ids's no label is the records'");

/* Intern @p label (llen bytes, not NULL) in `*id`. HF_ENOMEM (or HF_EINVAL for a part of a label
 * of the table longer than HF_MAX_NAME) leaves the session as it was. */
hf_status hf_i_online_label_intern(hf_online *s, const char *label, size_t llen, uint32_t *id);

/* The label of id @p lid (NOLABEL: none) is @p label. */
static inline bool hf_i_online_label_is(const hf_online *s, uint32_t lid, const char *label)
{
    if (lid == NOLABEL || !label)
        return lid == NOLABEL && !label;
    return strcmp(hf_i_strtab_str(&s->lab, lid), label) == 0;
}

/* The child of rank @p rank in the block of @p pnode (whose block starts at @p kids), NONE if the
 * block has no such child. */
static inline uint32_t hf_i_online_block_child(const hf_online *s, uint32_t pnode, uint32_t kids,
                                               uint32_t rank)
{
    if (kids == NONE || kids + rank >= s->n_nodes)
        return NONE;
    const unode *u = &s->nodes[kids + rank];
    return u->parent == pnode && !(u->label & OVER) ? kids + rank : NONE;
}

/* The id of @p label, NOLABEL when it is not interned (or NULL). */
uint32_t hf_i_online_label_find(const hf_online *s, const char *label);
/* The overflow child of @p parent with this rank and label id, NONE if there is none. */
uint32_t hf_i_online_over_find(const hf_online *s, uint32_t parent, uint32_t rank, uint32_t label);
/* The union node of the current parent's child of rank @p rank with @p label, NONE if there is
 * none yet. */
uint32_t hf_i_online_child_find(const hf_online *s, uint32_t rank, const char *label);
/* Before the current parent's children of ranks cur.posted .. cur.posted + n - 1 (labels[i], or
 * none when @p labels is NULL) are posted: check the labels of those that need a new union node,
 * intern them, and make room for the new nodes, so that hf_i_online_create_node cannot fail for
 * them. On an error the union forest is as it was (interned labels aside, which no node uses). */
hf_status hf_i_online_prepare_children(hf_online *s, uint32_t n, const char *const *labels,
                                       hf_error *err);
/* Make the union node of the current parent's child of rank cur.posted and this label (llen
 * bytes) in *out: in the parent's block when it extends it, else an overflow child. */
hf_status hf_i_online_create_node(hf_online *s, const char *label, size_t llen, uint32_t *out,
                                  hf_error *err);

/* lib/online_learn.c: after a run of strategy learn, update the coverage and choose the next plan.
 */
hf_status hf_i_online_learn_end(hf_online *s, hf_online_run_result *r, bool changed, hf_error *err);

#endif /* HITFAM_ONLINE_I_H */
