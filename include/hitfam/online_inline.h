/* hitfam: hf_online_step's usual case compiled into the caller's own loop. It reads and writes a
 * session through a published record layout, so that the usual step of a depth-first or a
 * double-tree run costs no call. */
#ifndef HITFAM_ONLINE_INLINE_H
#define HITFAM_ONLINE_INLINE_H

#include <string.h>

#include <hitfam/online.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout below is part of the library's 0.x ABI: a program compiled with this header reads
 * a session's records directly, so the library keeps these types, their fields and their place
 * at the start of every hf_online until the soname changes. Nothing else in it is public: a
 * program reads and writes these records only through hf_online_step_fast. */

/** A node of the union forest (12 bytes): its parent node, the first node of its block of
 * children (HF_NO_EVENT: none yet), and its interned label id (HF_ONLINE_REC_NOLABEL: none),
 * with HF_ONLINE_REC_OVER set for a child outside its parent's block. */
typedef struct hf_online_node_rec {
    uint32_t parent;
    uint32_t kids;
    uint32_t label;
} hf_online_node_rec;

/** hf_online_node_rec.label of an unlabelled node. */
#define HF_ONLINE_REC_NOLABEL 0x7fffffffu
/** hf_online_node_rec.label's flag of a node outside its parent's block of children. */
#define HF_ONLINE_REC_OVER 0x80000000u

/** An event of the open run (12 bytes): its union node and its user value, whose 8 bytes are
 * stored as they lie in memory in a uint64_t (hf_online_rec_user reads them), so that the
 * records need no 8-byte alignment. Its node's block of children is the node's (an event's
 * node gets children only from that event). */
typedef struct hf_online_event_rec {
    uint32_t node;
    uint32_t user[2];
} hf_online_event_rec;

/** The event whose children are being posted: the running event (or the roots). */
typedef struct hf_online_cur {
    uint32_t node;   /**< its union node, HF_NO_EVENT for the roots */
    uint32_t kids;   /**< the node's block of children */
    uint32_t posted; /**< children posted so far */
    uint32_t key;    /**< strategy learn's key */
    uint32_t depth;  /**< strategy doubletree's depth in the binarized forest */
    uint8_t mode;    /**< strategy doubletree's mode */
    uint8_t under;   /**< strategy doubletree's sides of the two-child ancestors */
} hf_online_cur;

/** What hf_online_hot.fast says of the open run. */
enum {
    HF_ONLINE_FAST_NONE = 0,      /**< every step goes through hf_online_step */
    HF_ONLINE_FAST_DFS_LEFT = 1,  /**< a depth-first run, children left to right */
    HF_ONLINE_FAST_DFS_RIGHT = 2, /**< a depth-first run, children right to left */
    HF_ONLINE_FAST_DT = 3         /**< a double-tree run (strategy doubletree) */
};

/** A node of the binarized forest on a double-tree run's stacks: one event of the run (hi ==
 * HF_NO_EVENT: the event lo) or the gadget over its sibling events lo..hi-1; its depth in the
 * binarized forest, the row's mode there (HF_ONLINE_DT_*) and the sides of its two-child strict
 * ancestors (bit 0: under a 0-child with a sibling, bit 1: under a 1-child). */
typedef struct hf_online_dt_item {
    uint32_t lo, hi, depth;
    uint8_t mode, under;
} hf_online_dt_item;

/** Modes of a double-tree row at a node: the first half's preorder (above the row's depth),
 * or a traversal visiting child 0 (left) or child 1 (right) first. */
enum { HF_ONLINE_DT_PREORDER = 0, HF_ONLINE_DT_LEFT = 1, HF_ONLINE_DT_RIGHT = 2 };

/** Flags of the double-tree per-depth record (hf_online_hot.useful): HF_ONLINE_DT_PROPER << v
 * when row (v, depth) is proper, HF_ONLINE_DT_BRANCH when a node of the depth has two children;
 * the record's other bits are the library's. */
enum { HF_ONLINE_DT_PROPER = 1, HF_ONLINE_DT_BRANCH = 16 };

/** The records a step reads and writes, at the start of every session. */
typedef struct hf_online_hot {
    hf_online_node_rec *nodes;   /**< the union forest, n_nodes nodes */
    hf_online_event_rec *ev;     /**< the open run's events, n_ev of them */
    uint32_t *stack;             /**< depth-first runs: ranges (lo, hi) of waiting siblings */
    uint32_t *sched;             /**< the schedules; the open run's starts at sched_len */
    size_t sched_len;            /**< entries of the ended runs' schedules */
    size_t room;                 /**< pending events the stack has room for */
    uint32_t n_nodes;            /**< nodes of the union forest */
    uint32_t ev_lim;             /**< events the run's records and schedule have room for */
    uint32_t n_ev;               /**< events of the open run */
    uint32_t running;            /**< the running event, HF_NO_EVENT when none */
    uint32_t pending;            /**< events posted and not run */
    uint32_t sp;                 /**< entries of stack */
    hf_online_cur cur;           /**< the running event's posting state */
    uint8_t fast;                /**< HF_ONLINE_FAST_* */
    bool branched;               /**< some event had two or more children */
    uint32_t isp;                /**< doubletree: entries of items */
    uint32_t ndef;               /**< doubletree: entries of deferred */
    uint32_t max_depth;          /**< doubletree: the deepest binarized depth seen */
    uint32_t row_D;              /**< doubletree: the run's row: its depth */
    uint32_t row_v;              /**< and its variant, 0..3 (A, B, C, E) */
    hf_online_dt_item *items;    /**< doubletree: the row's nodes to visit, the next on top */
    hf_online_dt_item *deferred; /**< doubletree: the second halves, the next on top */
    uint8_t *useful;             /**< doubletree: the per-depth record (HF_ONLINE_DT_*) */
    char *const *lab_data;       /**< where the interned labels' bytes are */
    size_t *const *lab_off;      /**< where their offsets (by label id) into those bytes are */
} hf_online_hot;

/* Inlined wherever the compiler allows: the point is that the step costs no call. */
#if defined(__GNUC__) || defined(__clang__)
#define HF_ONLINE_INLINE static inline __attribute__((always_inline))
#else
#define HF_ONLINE_INLINE static inline
#endif

/* The user value of the record @p e. */
HF_ONLINE_INLINE uint64_t hf_online_rec_user(const hf_online_event_rec *e)
{
    uint64_t u;
    memcpy(&u, e->user, sizeof u);
    return u;
}

/* Write the record @p e: union node @p node, user value @p user. */
HF_ONLINE_INLINE void hf_online_rec_set(hf_online_event_rec *e, uint32_t node, uint64_t user)
{
    e->node = node;
    memcpy(e->user, &user, sizeof user);
}

/* Whether the running event's next @p n children can be its union node's block children at
 * their ranks, with room for them in the run's records and the pending count: the first of those
 * children's union nodes in @p first when so. */
HF_ONLINE_INLINE bool hf_online_fast_fits(const hf_online_hot *h, uint32_t n, uint32_t *first)
{
    uint32_t kids = h->cur.kids, nn = h->n_nodes;
    *first = kids + h->cur.posted;
    return kids != HF_NO_EVENT && *first <= nn && n <= nn - *first && n <= h->ev_lim - h->n_ev &&
           n <= h->room - h->pending;
}

/* Write the running event's next @p n children (n > 0), when they are the children of its union
 * node's block at their ranks, into the run records after the run's events: false when one of
 * them is not (the records written past the run's events are then left for hf_online_step to
 * write again). */
HF_ONLINE_INLINE bool hf_online_fast_match(const hf_online_hot *h, uint32_t n,
                                           const char *const *labels, const uint64_t *users)
{
    uint32_t first, pnode = h->cur.node;
    if (!hf_online_fast_fits(h, n, &first))
        return false;
    const hf_online_node_rec *u = h->nodes + first;
    hf_online_event_rec *ev = h->ev + h->n_ev;
    const uint64_t none = 0, *uv = users ? users : &none;
    size_t ustep = users ? 1 : 0;
    if (!labels) {
        for (uint32_t i = 0; i < n; i++, uv += ustep) {
            if (u[i].parent != pnode || u[i].label != HF_ONLINE_REC_NOLABEL)
                return false;
            hf_online_rec_set(&ev[i], first + i, *uv);
        }
        return true;
    }
    const char *data = *h->lab_data;
    const size_t *off = *h->lab_off;
    for (uint32_t i = 0; i < n; i++, uv += ustep) {
        uint32_t lid = u[i].label;
        const char *b = labels[i];
        if (u[i].parent != pnode)
            return false;
        if (!b) {
            if (lid != HF_ONLINE_REC_NOLABEL)
                return false;
        } else {
            if (lid >= HF_ONLINE_REC_NOLABEL)
                return false;
            const char *a = data + off[lid];
            for (; *a == *b; a++, b++)
                if (!*a)
                    break;
            if (*a != *b)
                return false;
        }
        hf_online_rec_set(&ev[i], first + i, *uv);
    }
    return true;
}

/* hf_online_fast_match with the children's labels given by ids (hf_online_step_ids): @p ids NULL
 * for none, an entry HF_ONLINE_NO_LABEL for an unlabelled child. A block child's label id is
 * below HF_ONLINE_REC_OVER, so an id with that bit never matches. */
HF_ONLINE_INLINE bool hf_online_fast_match_ids(const hf_online_hot *h, uint32_t n,
                                               const uint32_t *ids, const uint64_t *users)
{
    uint32_t first, pnode = h->cur.node;
    if (!hf_online_fast_fits(h, n, &first))
        return false;
    const hf_online_node_rec *u = h->nodes + first;
    hf_online_event_rec *ev = h->ev + h->n_ev;
    const uint64_t none = 0, *uv = users ? users : &none;
    const uint32_t nolabel = HF_ONLINE_REC_NOLABEL, *iv = ids ? ids : &nolabel;
    size_t ustep = users ? 1 : 0, istep = ids ? 1 : 0;
    for (uint32_t i = 0; i < n; i++, uv += ustep, iv += istep) {
        if (u[i].parent != pnode || u[i].label != *iv || (*iv & HF_ONLINE_REC_OVER))
            return false;
        hf_online_rec_set(&ev[i], first + i, *uv);
    }
    return true;
}

/* The end of a step: @p v (of the run's @p hi events, @p pending of them pending with v) runs
 * now. The library's own steps end here too. */
HF_ONLINE_INLINE void hf_online_fast_run(hf_online_hot *h, uint32_t v, uint32_t hi,
                                         uint32_t pending, uint32_t *event, uint64_t *user)
{
    /* everything read before anything is written: a store to a record may alias the session's
     * fields as far as the compiler knows, and would make it read them again */
    const hf_online_event_rec *e = h->ev + v;
    uint32_t node = e->node, kids = h->nodes[node].kids;
    uint64_t u = hf_online_rec_user(e);
    uint32_t *slot = h->sched + h->sched_len + (hi - pending);
    h->n_ev = hi;
    h->running = v;
    h->pending = pending - 1;
    h->cur.node = node;
    h->cur.kids = kids;
    h->cur.posted = 0;
    *slot = node;
    *event = v;
    if (user)
        *user = u;
}

/* The flags a node of a double-tree row with one child (two: @p two) adds to its depth's record
 * when it lies under the sides @p under (docs/online.md): row (v, depth) is proper when the node
 * has two children (A, E) or one or two (B, C) and lies under a 0-child with a sibling (A, B) or
 * a 1-child (C, E). */
HF_ONLINE_INLINE uint8_t hf_online_dt_flags(unsigned under, bool two)
{
    unsigned f =
        ((under & 1) ? HF_ONLINE_DT_PROPER << 1 : 0) | ((under & 2) ? HF_ONLINE_DT_PROPER << 2 : 0);
    if (two)
        f |= HF_ONLINE_DT_BRANCH | ((under & 1) ? HF_ONLINE_DT_PROPER : 0) |
             ((under & 2) ? HF_ONLINE_DT_PROPER << 3 : 0);
    return (uint8_t)f;
}

/* The new running event's state in a double-tree run (hf_online_fast_dt_pick): its depth in the
 * binarized forest and the sides of its two-child ancestors, the deepest depth seen. */
HF_ONLINE_INLINE void hf_online_fast_dt_enter(hf_online_hot *h, uint32_t depth, uint8_t under)
{
    h->cur.depth = depth;
    h->cur.under = under;
    if (depth > h->max_depth)
        h->max_depth = depth;
}

/* hf_online_fast_dt_pick when the running event's last @p posted children (the run's events up
 * to @p hi) are known, @p posted > 0: when they are one or two and the row visits its binary
 * children in order (a traversal, or the preorder above the row's depth), the child visited
 * first in *@p v, the other pushed on the row's stack, the per-depth record updated. */
HF_ONLINE_INLINE bool hf_online_fast_dt_child(hf_online_hot *h, uint32_t hi, uint32_t posted,
                                              uint32_t *v)
{
    uint32_t depth = h->cur.depth, ev = hi - posted;
    uint8_t mode = h->cur.mode, under = h->cur.under;
    bool left;
    if (posted > 2)
        return false;
    if (mode != HF_ONLINE_DT_PREORDER)
        left = mode == HF_ONLINE_DT_LEFT;
    else if (depth < h->row_D)
        left = h->row_v < 2; /* C and E: lower, child 1 first */
    else
        return false;
    uint8_t *at = h->useful + depth;
    uint8_t f = hf_online_dt_flags(under, posted == 2);
    if (posted == 2) {
        hf_online_dt_item *it = h->items + h->isp;
        h->isp++;
        h->branched = true;
        it->lo = left ? ev + 1 : ev;
        it->hi = HF_NO_EVENT;
        it->depth = depth + 1;
        it->mode = mode;
        it->under = (uint8_t)(under | (left ? 2 : 1));
        under = (uint8_t)(under | (left ? 1 : 2));
        ev = left ? ev : ev + 1;
    }
    *at = (uint8_t)(*at | f);
    hf_online_fast_dt_enter(h, depth + 1, under);
    *v = ev;
    return true;
}

/* hf_online_fast_dt_pick when no children were posted: when the node on top of the row's stacks
 * is one event, popped into *@p v. */
HF_ONLINE_INLINE bool hf_online_fast_dt_pop(hf_online_hot *h, uint32_t *v)
{
    /* items pushed by one field each and read back by one field each: an item copied whole is
     * read as one wide load from narrower stores, which the processor cannot forward */
    uint32_t isp = h->isp, ndef = h->ndef;
    const hf_online_dt_item *it;
    if (isp > 0)
        it = h->items + isp - 1;
    else if (ndef > 0)
        it = h->deferred + ndef - 1;
    else
        return false;
    if (it->hi != HF_NO_EVENT)
        return false;
    uint32_t ev = it->lo, depth = it->depth;
    uint8_t mode = it->mode, under = it->under;
    if (isp > 0)
        h->isp = isp - 1;
    else
        h->ndef = ndef - 1;
    h->cur.mode = mode;
    hf_online_fast_dt_enter(h, depth, under);
    *v = ev;
    return true;
}

/* The next event of a double-tree run in its usual cases, in *@p v, the running event's state
 * (depth, mode, sides) set for it and the row's stacks and record updated: the running event's
 * last @p posted children (the run's events up to @p hi) are one or two, and the row visits its
 * binary children in order (a traversal, or the preorder above the row's depth), so the child
 * visited first runs now and the other, if any, waits on top of the stack; or none were posted
 * and the item on top of the stacks is one event. False, with nothing changed, in every other
 * case (more children: a gadget; a node at the row's depth; a gadget on top; empty stacks),
 * which the library expands. The library's own double-tree steps start with its two halves. */
HF_ONLINE_INLINE bool hf_online_fast_dt_pick(hf_online_hot *h, uint32_t hi, uint32_t posted,
                                             uint32_t *v)
{
    return posted > 0 ? hf_online_fast_dt_child(h, hi, posted, v) : hf_online_fast_dt_pop(h, v);
}

/* The step of a double-tree run once the running event's @p n children were matched (or n = 0):
 * hf_online_fast_dt_pick's cases, false with nothing changed in the others and when no event is
 * pending. */
HF_ONLINE_INLINE bool hf_online_fast_dt_matched(hf_online_hot *h, uint32_t n, uint32_t *event,
                                                uint64_t *user)
{
    uint32_t hi = h->n_ev + n, pending = h->pending + n, v;
    if (pending == 0 || !hf_online_fast_dt_pick(h, hi, h->cur.posted + n, &v))
        return false;
    hf_online_fast_run(h, v, hi, pending, event, user);
    return true;
}

/* The step of a depth-first run (as hf_online_fast_dfs below) once the running event's @p n
 * children were matched (or n = 0): false, with nothing changed, when no event is pending. */
HF_ONLINE_INLINE bool hf_online_fast_dfs_matched(hf_online_hot *h, uint32_t n, uint32_t *event,
                                                 uint64_t *user)
{
    if (h->pending + n == 0)
        return false;
    uint32_t hi = h->n_ev + n, posted = h->cur.posted + n, pending = h->pending + n, v;
    bool right = h->fast == HF_ONLINE_FAST_DFS_RIGHT;
    if (posted > 0) {
        uint32_t lo = hi - posted;
        if (posted >= 2) {
            uint32_t sp = h->sp, *top = h->stack + sp;
            h->branched = true;
            h->sp = sp + 2;
            top[0] = right ? lo : lo + 1;
            top[1] = right ? hi - 1 : hi;
        }
        v = right ? hi - 1 : lo;
    } else {
        uint32_t sp = h->sp, *top = h->stack + sp - 2, a = top[0], b = top[1];
        if (right)
            v = --b, top[1] = b;
        else
            v = a++, top[0] = a;
        if (a == b)
            h->sp = sp - 2;
    }
    hf_online_fast_run(h, v, hi, pending, event, user);
    return true;
}

/* The step of a depth-first run (h->fast not HF_ONLINE_FAST_NONE, an event running) when the
 * running event's @p n children match as hf_online_fast_match says and some event is pending:
 * the first child runs now and its siblings wait as one range, or without children the next
 * waiting sibling runs. False, with nothing changed, in every other case. It calls nothing, so
 * it keeps to few registers; the library's own depth-first step is this one. */
HF_ONLINE_INLINE bool hf_online_fast_dfs(hf_online_hot *h, uint32_t n, const char *const *labels,
                                         const uint64_t *users, uint32_t *event, uint64_t *user)
{
    if (n > 0 && !hf_online_fast_match(h, n, labels, users))
        return false;
    return hf_online_fast_dfs_matched(h, n, event, user);
}

/* hf_online_step with its results passed through locals of its own: the caller's @p event and
 * @p user are then never handed to a function the compiler cannot see, so it may keep them in
 * registers across the loop around hf_online_step_fast instead of storing and loading them at
 * every step. */
static inline hf_status hf_online_step_out(hf_online *s, uint32_t n, const char *const *labels,
                                           const uint64_t *users, uint32_t *event, uint64_t *user,
                                           hf_error *err)
{
    uint32_t e = HF_NO_EVENT;
    uint64_t u = 0;
    hf_status st = hf_online_step(s, n, labels, users, event ? &e : NULL, user ? &u : NULL, err);
    if (st == HF_OK && event) /* on an error hf_online_step stores nothing */
        *event = e;
    if (st == HF_OK && user)
        *user = u;
    return st;
}

/* hf_online_step_ids as hf_online_step_out. */
static inline hf_status hf_online_step_ids_out(hf_online *s, uint32_t n, const uint32_t *label_ids,
                                               const uint64_t *users, uint32_t *event,
                                               uint64_t *user, hf_error *err)
{
    uint32_t e = HF_NO_EVENT;
    uint64_t u = 0;
    hf_status st =
        hf_online_step_ids(s, n, label_ids, users, event ? &e : NULL, user ? &u : NULL, err);
    if (st == HF_OK && event) /* on an error hf_online_step stores nothing */
        *event = e;
    if (st == HF_OK && user)
        *user = u;
    return st;
}

/* The step of a double-tree run when the running event's @p n children match as
 * hf_online_fast_match says, and hf_online_fast_dt_matched takes it: false, with nothing
 * changed, in every other case. */
HF_ONLINE_INLINE bool hf_online_fast_dt(hf_online_hot *h, uint32_t n, const char *const *labels,
                                        const uint64_t *users, uint32_t *event, uint64_t *user)
{
    if (n > 0 && !hf_online_fast_match(h, n, labels, users))
        return false;
    return hf_online_fast_dt_matched(h, n, event, user);
}

/** hf_online_step, with its usual case compiled into the caller: in a depth-first run (strategy
 * dfs, and learn's runs without a plan) or a double-tree run (strategy doubletree) the running
 * event posts the children an earlier run posted at the same place (the same number or fewer,
 * with the same labels), and there is room for them; in a double-tree run the event has at most
 * two children and its row visits them in order, or it has none and the row's next node is one
 * event. That case is handled here, without a call, and every other case (the first run's new
 * children, new or other children, a gadget or the row's depth in a double-tree run, learn's
 * plans, the end of the run, misuse) by hf_online_step itself.
 * Same arguments, results, errors and schedules as hf_online_step, which it may be mixed with,
 * and with the other calls of a run, freely. Labels are compared with the interned labels of the
 * union forest byte by byte, as hf_online_step does. O(n + the labels' lengths). */
HF_ONLINE_INLINE hf_status hf_online_step_fast(hf_online *s, uint32_t n, const char *const *labels,
                                               const uint64_t *users, uint32_t *event,
                                               uint64_t *user, hf_error *err)
{
    hf_online_hot *h = (hf_online_hot *)(void *)s;
    if (s && event && h->fast != HF_ONLINE_FAST_NONE && h->running != HF_NO_EVENT &&
        (h->fast == HF_ONLINE_FAST_DT ? hf_online_fast_dt(h, n, labels, users, event, user)
                                      : hf_online_fast_dfs(h, n, labels, users, event, user)))
        return HF_OK;
    return hf_online_step_out(s, n, labels, users, event, user, err);
}

/** hf_online_step_ids (hitfam/online.h), with its usual case compiled into the caller as
 * hf_online_step_fast does: a depth-first or double-tree run's step whose children are those of
 * their union node's block, each label id compared as one number. Same arguments, results,
 * errors and schedules as hf_online_step_ids. O(n). */
HF_ONLINE_INLINE hf_status hf_online_step_ids_fast(hf_online *s, uint32_t n,
                                                   const uint32_t *label_ids, const uint64_t *users,
                                                   uint32_t *event, uint64_t *user, hf_error *err)
{
    hf_online_hot *h = (hf_online_hot *)(void *)s;
    if (s && event && h->fast != HF_ONLINE_FAST_NONE && h->running != HF_NO_EVENT &&
        (n == 0 || hf_online_fast_match_ids(h, n, label_ids, users)) &&
        (h->fast == HF_ONLINE_FAST_DT ? hf_online_fast_dt_matched(h, n, event, user)
                                      : hf_online_fast_dfs_matched(h, n, event, user)))
        return HF_OK;
    return hf_online_step_ids_out(s, n, label_ids, users, event, user, err);
}

#ifdef __cplusplus
}
#endif

#endif /* HITFAM_ONLINE_INLINE_H */
