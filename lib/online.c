/* Online scheduling sessions (include/hitfam/online.h): runs, posting with the union forest of
 * the runs, and the choice of the next event (strategies dfs and doubletree here, learn in
 * lib/online_learn.c; docs/online.md states and proves their bounds). */
#include <string.h>

#include "online_i.h"

/* A hint that a record will be read soon (a cache line fetched while the caller works); the
 * general cases of post and next kept out of line, so that their usual cases stay short. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#define NOINLINE    __attribute__((noinline))
#define INLINE      inline __attribute__((always_inline))
#else
#define PREFETCH(p) ((void)(p))
#define NOINLINE
#define INLINE inline
#endif

/* ---- session ---- */

/* An array that grows to this many bytes is advised to use huge pages even without option
 * huge_pages, and is moved by a copy into memory advised before the copy touches it: a run that
 * large spends most of its first run on page faults (about 0.33 ns per byte of fresh memory
 * here in 4 KiB pages, 0.11 in 2 MiB ones), more than the copy costs. Past that size it grows
 * fourfold (twofold when so much cannot be had): fewer copies, each of which touches the whole
 * array in fresh memory, while the part of the capacity no run reaches is never touched (an
 * array zeroed whole when it grows keeps to twofold: ONLINE_GROW_ZEROED). */
#define ONLINE_HUGE_AUTO ((size_t)4 << 20)

hf_status hf_i_online_grow(hf_online *s, void *slot, size_t *cap, size_t need, size_t item_size,
                           bool fourfold)
{
    if (need <= *cap)
        return HF_OK;
    size_t c = hf_i_grown_cap(*cap, need, item_size);
    if (!c)
        return HF_ENOMEM;
    if (c * item_size < ONLINE_HUGE_AUTO) {
        hf_status st = hf_i_grow_slot(s->ctx, slot, cap, need, item_size);
        if (!st && s->huge) {
            void *p;
            memcpy(&p, slot, sizeof p);
            hf_i_advise_huge(p, *cap * item_size);
        }
        return st;
    }
    void *old, *p = NULL;
    if (fourfold && c <= SIZE_MAX / 4 / item_size &&
        (p = hf_i_alloc_array(s->ctx, 2 * c, item_size)))
        c *= 2;
    else if (!(p = hf_i_alloc_array(s->ctx, c, item_size)))
        return HF_ENOMEM;
    hf_i_advise_huge(p, c * item_size);
    memcpy(&old, slot, sizeof old);
    if (*cap > 0)
        memcpy(p, old, *cap * item_size);
    hf_i_free(s->ctx, old);
    memcpy(slot, &p, sizeof p);
    *cap = c;
    return HF_OK;
}

static hf_status reserve_event_slow(hf_online *s, uint32_t k);

hf_status hf_online_new(hf_ctx *ctx, const hf_online_options *o, hf_online **out, hf_error *err)
{
    if (!out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no place to store the session");
    *out = NULL;
    if (!o)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no options given");
    if (o->d == 0 || o->d > 4)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "online sessions take d from 1 to 4 (d=%u asked)",
                         o->d);
    hf_online_strategy st = o->strategy;
    if (!hf_online_strategy_name(st))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "unknown online strategy %d", (int)st);
    if (st == HF_ONLINE_AUTO)
        st = hf_online_strategy_for(o->d);
    if (st == HF_ONLINE_DFS && o->d > 2)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "strategy dfs hits tuples of at most 2 events (d=%u asked); use "
                         "doubletree for d = 3 or learn",
                         o->d);
    if (st == HF_ONLINE_DOUBLETREE && o->d > 3)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "strategy doubletree hits tuples of at most 3 events (d=%u asked); use "
                         "learn for d = 4",
                         o->d);
    if (!hf_method_name(o->learn_method))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "unknown method %d for strategy learn",
                         (int)o->learn_method);
    if (o->size_hint > HF_MAX_EVENTS)
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "size hint %" PRIu32 " is beyond the %u events a run may have",
                         o->size_hint, HF_MAX_EVENTS);
    hf_online *s = hf_i_calloc(ctx, 1, sizeof *s);
    if (!s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->ctx = ctx;
    s->d = o->d;
    s->strategy = st;
    s->learn_method = o->learn_method;
    s->max_runs = o->max_runs;
    s->root = (unode){NONE, NONE, NOLABEL};
    s->lab_data = &s->lab.data;
    s->lab_off = &s->lab.off;
    s->running = NONE;
    s->target = s->next_target = SIZE_MAX;
    s->lead = SIZE_MAX;
    s->run_off = hf_i_alloc_array(ctx, 8, sizeof *s->run_off);
    if (!s->run_off) {
        hf_i_free(ctx, s);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    s->run_off_cap = 8;
    s->run_off[0] = 0;
    s->huge = o->huge_pages;
    /* the hint: room for a run of that many events, the schedules of two runs (a later run
     * then writes its schedule where run 1 left room instead of a copy), and a union forest of
     * that many nodes */
    if (o->size_hint > 0 && (reserve_event_slow(s, o->size_hint) ||
                             ONLINE_GROW(s, s->sched, &s->sched_cap, 2 * (size_t)o->size_hint) ||
                             ONLINE_GROW(s, s->nodes, &s->nodes_cap, o->size_hint))) {
        hf_online_free(s);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    s->ev_lim = 0;
    *out = s;
    return HF_OK;
}

void hf_online_free(hf_online *s)
{
    if (!s)
        return;
    hf_ctx *ctx = s->ctx;
    hf_i_online_learn_drop(s);
    hf_i_free(ctx, s->nodes);
    hf_i_free(ctx, s->over);
    hf_i_free(ctx, s->ohash);
    hf_i_strtab_free(ctx, &s->lab);
    hf_i_free(ctx, s->sched);
    hf_i_free(ctx, s->run_off);
    hf_i_free(ctx, s->ev);
    hf_i_free(ctx, s->stack);
    hf_i_free(ctx, s->items);
    hf_i_free(ctx, s->deferred);
    hf_i_free(ctx, s->keys);
    hf_i_free(ctx, s->heap);
    hf_i_free(ctx, s->useful);
    hf_i_free(ctx, s->gw);
    hf_i_free(ctx, s->aims);
    hf_i_free(ctx, s->learnt);
    hf_i_free(ctx, s->mark);
    hf_i_free(ctx, s->id_labels);
    hf_i_free(ctx, s);
}

hf_online_strategy hf_online_strategy_of(const hf_online *s)
{
    return s ? s->strategy : HF_ONLINE_AUTO;
}

/* ---- doubletree: which rows the runs play ---- */

/* Run 1 plays R(A, 0) and records, per depth D of the binarized forest, in s->useful[D]: DT_PROPER
 * << v when row (v, D) is proper, DT_BRANCH when a node of depth D has two children (dt_expand);
 * at d = 3 the weighing at its end makes the record again for the weighed gadgets the later runs
 * use (hf_i_online_dt_end, which also says from which run the list below is played). The later
 * runs play the rows (v, D) of the useful depths, D increasing, v = A, B, C, E, each
 * unless it equals a row played before it. As docs/online.md (Lemma 4) shows, a row that is not
 * proper ("plain") is fixed by the set of branching depths it inverts: A: none; B_D: those >= D;
 * C_D: those <= D; E_D: all but D. Numbering the branching depths b_0 < .. < b_{nb-1}, those sets
 * are the empty one (run 1's), prefixes {b_0..b_{h-1}}, suffixes {b_l..b_{nb-1}} and the sets of
 * all but one b_i with 0 < i < nb - 1 (only E_{b_i} gives one of these, so it is never met
 * twice). So two marks per branching depth say which plain rows were played: DT_SEEN_PRE at
 * b_{h-1} for the prefix of h, DT_SEEN_SUF at b_{l-1} for the suffix from l; both depths are
 * behind the scan when it reaches the row. docs/online.md proves that these rows are 3-hitting
 * and that they are the distinct rows of the offline rule on the binarized forest. */
/* (DT_PROPER, DT_BRANCH and the seen marks: lib/online_i.h) */

/* A depth is useful iff it is branching or its row B or C is proper (a node there has a child
 * and a two-child strict ancestor). */
#define DT_USEFUL (DT_BRANCH | (DT_PROPER << 1) | (DT_PROPER << 2))

/* A plain row whose set keeps its mark in bit @p bit of depth @p at (NONE: the empty set, which
 * run 1 played): whether it is new; marks it. */
static bool dt_mark(uint8_t *f, uint32_t at, uint8_t bit)
{
    if (at == NONE || (f[at] & bit))
        return false;
    f[at] |= bit;
    return true;
}

/* The row of index @p want (0: run 1's R(A, 0)) among the distinct rows of the useful depths, in
 * the order above, in *v and *D; returns the number of distinct rows when there are at most
 * @p want, else want + 1 (UINT64_MAX: count them all). O(height), no allocation: the seen marks
 * are made again from none. */
static uint64_t dt_rows(hf_online *s, uint64_t want, uint32_t *v, uint32_t *D)
{
    if (s->useful_cap == 0)
        return 1;
    uint8_t *f = s->useful;
    uint32_t top = s->max_depth < s->useful_cap ? s->max_depth : (uint32_t)s->useful_cap - 1;
    uint32_t nb = 0, last = NONE; /* branching depths, the deepest */
    for (uint32_t d = 0; d <= top; d++) {
        f[d] &= (uint8_t) ~(DT_SEEN_PRE | DT_SEEN_SUF);
        if (f[d] & DT_BRANCH)
            nb++, last = d;
    }
    uint64_t count = 1;
    uint32_t below = 0, prev = NONE; /* branching depths < d, the deepest of them */
    for (uint32_t d = 0; d <= top; d++) {
        if (!(f[d] & DT_USEFUL))
            continue;
        bool branch = (f[d] & DT_BRANCH) != 0;
        for (unsigned w = 0; w < 4; w++) {
            bool take;
            if (f[d] & (DT_PROPER << w))
                take = true;
            else if (w == 0) /* A: the empty set */
                take = false;
            else if (w == 1) /* B: the suffix from index below; from 0 it is every depth */
                take = below == 0   ? dt_mark(f, last, DT_SEEN_PRE)
                       : below < nb ? dt_mark(f, prev, DT_SEEN_SUF)
                                    : false;
            else if (w == 2) /* C: the prefix up to d */
                take = dt_mark(f, branch ? d : prev, DT_SEEN_PRE);
            else if (!branch) /* E: every branching depth */
                take = dt_mark(f, last, DT_SEEN_PRE);
            else if (below == 0) /* E: all but the first, a suffix (empty when nb = 1) */
                take = nb > 1 && dt_mark(f, d, DT_SEEN_SUF);
            else if (below == nb - 1) /* E: all but the last, a prefix */
                take = dt_mark(f, prev, DT_SEEN_PRE);
            else /* E: all but a middle one, met once */
                take = true;
            if (take && count++ == want) {
                *v = w;
                *D = d;
                return count;
            }
        }
        if (branch)
            below++, prev = d;
    }
    return count;
}

/* ---- runs ---- */

hf_status hf_online_begin_run(hf_online *s, hf_error *err)
{
    if (!s)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session");
    if (s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "run %zu is still open: end it with hf_online_end_run first", s->runs + 1);
    if (HF_I_GROW(s->ctx, s->run_off, &s->run_off_cap, s->runs + 2))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->open = true;
    s->started = false;
    s->n_ev = 0;
    s->running = NONE;
    s->pending = 0;
    s->cur = (hf_i_cur){NONE, s->root.kids, 0, 0, 0, MODE_F, 0};
    s->ev_lim = 0; /* the schedule moved on: reserve_event_slow works the limit out again */
    s->nodes_before = s->n_nodes;
    s->created = false;
    s->dt_gadget = false;
    s->sp = s->isp = s->ndef = s->hn = 0;
    uint64_t r = s->runs;
    s->right = false;
    s->learn_plan = false;
    s->dfs_run = false;
    switch (s->strategy) {
    case HF_ONLINE_DFS:
        s->right = r % 2 == 1;
        break;
    case HF_ONLINE_DOUBLETREE:
        if (s->d <= 2 || r == s->dt_base) { /* R(A, 0) and R(B, 0): the two preorders */
            s->row_v = (uint32_t)((r - s->dt_base) % 4);
            s->row_D = 0;
        } else if (dt_rows(s, r - s->dt_base, &s->row_v, &s->row_D) <= r - s->dt_base) {
            /* beyond the rows: any one */
            s->row_v = (uint32_t)(r % 4);
            s->row_D = 0;
        }
        break;
    default: /* learn: follow the plan made when the last run ended; none: left-to-right dfs */
        s->target = s->next_target;
        s->learn_plan = (s->target != SIZE_MAX || s->repair) && s->plan_pos;
        break;
    }
    s->dfs_run = s->strategy != HF_ONLINE_DOUBLETREE && !s->learn_plan;
    s->fast = s->strategy == HF_ONLINE_DOUBLETREE ? HF_ONLINE_FAST_DT
              : !s->dfs_run                       ? HF_ONLINE_FAST_NONE
              : s->right                          ? HF_ONLINE_FAST_DFS_RIGHT
                                                  : HF_ONLINE_FAST_DFS_LEFT;
    return HF_OK;
}

uint32_t hf_online_pending(const hf_online *s) { return s && s->open ? s->pending : 0; }

/* ---- posting ---- */

/* Room for @p k more events of the run in every structure next() and end_run() use, so that they
 * never allocate. */
static hf_status reserve_event_slow(hf_online *s, uint32_t k)
{
    size_t need = (size_t)s->n_ev + k, pend = (size_t)s->pending + k;
    if (ONLINE_GROW(s, s->ev, &s->ev_cap, need) ||
        ONLINE_GROW(s, s->sched, &s->sched_cap, s->sched_len + need))
        return HF_ENOMEM;
    size_t lim = s->ev_cap < s->sched_cap - s->sched_len ? s->ev_cap : s->sched_cap - s->sched_len;
    /* the scheduling structures hold pending events only: every stack range, double-tree item
     * (on the stack or deferred) and heap entry holds at least one pending event, and they are
     * disjoint, so they grow with the pending events, not with the run */
    size_t room = SIZE_MAX;
    switch (s->strategy) {
    case HF_ONLINE_DOUBLETREE:
        if (2 * need + 2 > s->useful_cap) { /* depths of the binarized forest, zeroed */
            size_t old = s->useful_cap;
            if (ONLINE_GROW_ZEROED(s, s->useful, &s->useful_cap, 2 * need + 2))
                return HF_ENOMEM;
            memset(s->useful + old, 0, s->useful_cap - old);
        }
        if ((s->useful_cap - 2) / 2 < lim)
            lim = (s->useful_cap - 2) / 2;
        if (ONLINE_GROW(s, s->items, &s->items_cap, pend + 2) ||
            ONLINE_GROW(s, s->deferred, &s->deferred_cap, pend + 2))
            return HF_ENOMEM;
        room = (s->items_cap < s->deferred_cap ? s->items_cap : s->deferred_cap) - 2;
        break;
    default: /* dfs, and learn (its runs without a plan are depth first) */
        if (s->strategy == HF_ONLINE_LEARN) {
            if (ONLINE_GROW(s, s->heap, &s->heap_cap, pend) ||
                ONLINE_GROW(s, s->keys, &s->keys_cap, need))
                return HF_ENOMEM;
            room = s->heap_cap;
            if (s->keys_cap < lim)
                lim = s->keys_cap;
        }
        if (ONLINE_GROW(s, s->stack, &s->stack_cap, 2 * pend + 2))
            return HF_ENOMEM;
        if ((s->stack_cap - 2) / 2 < room)
            room = (s->stack_cap - 2) / 2;
        break;
    }
    s->room = room;
    s->ev_lim = lim < HF_MAX_EVENTS ? (uint32_t)lim : HF_MAX_EVENTS;
    return HF_OK;
}

/* Has event @p e of the open run run? (Not the running one: the error path of post.) */
static bool event_ran(const hf_online *s, uint32_t e)
{
    const uint32_t *run = s->sched + s->sched_len;
    for (uint32_t i = 0, ran = s->n_ev - s->pending; i < ran; i++)
        if (run[i] == s->ev[e].node) /* a run's events have distinct union nodes */
            return true;
    return false;
}

/* Why @p parent may not get a child now (post's checks off its usual path). */
static hf_status post_refuse(const hf_online *s, uint32_t parent, hf_error *err)
{
    if (!s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "no run is open: call hf_online_begin_run before posting events");
    if (parent == NONE)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "a root event must be posted before the run's first "
                         "hf_online_next; later events are children of the running event");
    if (parent >= s->n_ev)
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "unknown parent event %" PRIu32 " (the run has %" PRIu32 " events)",
                         parent, s->n_ev);
    if (!event_ran(s, parent))
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "parent event %" PRIu32 " has not run yet: post its children while it "
                         "runs",
                         parent);
    return hf_i_fail(err, HF_ESTATE, 0, 0,
                     "parent event %" PRIu32 " has finished: children must be posted while "
                     "their parent runs, before the next hf_online_next",
                     parent);
}

hf_status hf_online_post(hf_online *s, uint32_t parent, const char *label, uint32_t *event,
                         hf_error *err)
{
    return hf_online_post_user(s, parent, label, 0, event, err);
}

/* hf_online_post_user, every case. */
static NOINLINE hf_status post_slow(hf_online *s, uint32_t parent, const char *label, uint64_t user,
                                    uint32_t *event, hf_error *err)
{
    if (!s)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session");
    /* the usual case: a child of the running event, or a root before the first next() */
    if (parent != s->running || (parent == NONE && s->started) || !s->open)
        return post_refuse(s, parent, err);
    /* the child of this rank in the parent's block, else an overflow child: a label that
     * matches is an interned one, so not too long */
    uint32_t rank = s->cur.posted, node = NONE;
    uint32_t c = hf_i_online_block_child(s, s->cur.node, s->cur.kids, rank);
    if (c != NONE && hf_i_online_label_is(s, s->nodes[c].label, label))
        node = c;
    else if (s->n_over > 0) {
        uint32_t lid = hf_i_online_label_find(s, label);
        if (!label || lid != NOLABEL)
            node = hf_i_online_over_find(s, s->cur.node, rank, lid);
    }
    size_t llen = 0;
    if (node == NONE && label && (llen = strlen(label)) > HF_MAX_NAME)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "label longer than %u bytes", HF_MAX_NAME);
    if (s->n_ev >= s->ev_lim || s->pending >= s->room) {
        if (s->n_ev >= HF_MAX_EVENTS)
            return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "more than %u events in one run",
                             HF_MAX_EVENTS);
        if (reserve_event_slow(s, 1))
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    if (node == NONE) {
        hf_status st = hf_i_online_create_node(s, label, llen, &node, err);
        if (st)
            return st;
    }
    s->cur.posted++;
    uint32_t id = s->n_ev++;
    hf_online_rec_set(&s->ev[id], node, user);
    if (s->learn_plan) {
        if (node < s->plan_n && s->plan_pos[node] != NONE)
            s->keys[id] = 2 * s->plan_pos[node];
        else if (parent != NONE)
            s->keys[id] = s->cur.key | 1; /* right after its nearest planned ancestor */
        else
            s->keys[id] = 2 * s->plan_n + 1;
    }
    s->pending++;
    if (event)
        *event = id;
    return HF_OK;
}

/* Equal strings, inline: labels are short, and a call would cost more than the loop. */
static inline bool str_eq(const char *a, const char *b)
{
    for (; *a == *b; a++, b++)
        if (!*a)
            return true;
    return false;
}

/* The id of @p label (not NULL), NOLABEL when it is not interned. The strings the caller passed
 * lately are tried first (two slots chosen by the address), their bytes compared with the
 * interned label's, so a buffer the caller reuses for another label does no harm; a label a
 * harness passes again costs a short compare instead of a hash of it. */
static inline uint32_t label_lookup(hf_online *s, const char *label)
{
    size_t k = (size_t)(((uint64_t)(uintptr_t)label * 0x9e3779b97f4a7c15u) >> 61), k2 = (k + 1) & 7;
    if (s->lc_ptr[k] == label && str_eq(hf_i_strtab_str(&s->lab, s->lc_id[k]), label))
        return s->lc_id[k];
    if (s->lc_ptr[k2] == label && str_eq(hf_i_strtab_str(&s->lab, s->lc_id[k2]), label))
        return s->lc_id[k2];
    uint32_t id = hf_i_online_label_find(s, label);
    if (id != NOLABEL) { /* the first slot, unless it is taken and the second is free */
        if (s->lc_ptr[k] && !s->lc_ptr[k2])
            k = k2;
        s->lc_ptr[k] = label;
        s->lc_id[k] = id;
    }
    return id;
}

/* The usual cases on their own, so that they stay short: a child of the running event, in a run
 * without a plan, with room, that matches the child of its rank in its union node's block (later
 * runs), or that is new and extends that block with a label already seen or none (the first
 * run). */
hf_status hf_online_post_user(hf_online *s, uint32_t parent, const char *label, uint64_t user,
                              uint32_t *event, hf_error *err)
{
    if (!s || parent == NONE || parent != s->running || s->learn_plan || s->n_ev >= s->ev_lim ||
        s->pending >= s->room)
        return post_slow(s, parent, label, user, event, err);
    uint32_t rank = s->cur.posted, node = NONE, kids = NONE;
    if (s->cur.kids != NONE && (node = s->cur.kids + rank) < s->n_nodes) {
        const unode *u = &s->nodes[node];
        if (u->parent != s->cur.node || (u->label & OVER)) /* not the block's */
            return post_slow(s, parent, label, user, event, err);
        if (u->label == NOLABEL ? label != NULL
                                : !label || !str_eq(hf_i_strtab_str(&s->lab, u->label), label))
            return post_slow(s, parent, label, user, event, err);
        kids = u->kids;
        if (kids != NONE) /* the child may run next, and post its own children */
            PREFETCH(&s->nodes[kids]);
    } else {
        node = s->n_nodes;
        if ((rank > 0 &&
             (s->cur.kids == NONE ||
              hf_i_online_block_child(s, s->cur.node, s->cur.kids, rank - 1) != node - 1)) ||
            s->n_over > 0 || node >= s->nodes_cap || node >= HF_MAX_EVENTS)
            return post_slow(s, parent, label, user, event, err);
        uint32_t lid = label ? label_lookup(s, label) : NOLABEL;
        if (label && lid == NOLABEL) /* a new label: interned by the general case */
            return post_slow(s, parent, label, user, event, err);
        s->nodes[node] = (unode){s->cur.node, NONE, lid};
        if (rank == 0)
            s->cur.kids = s->nodes[s->cur.node].kids = node;
        s->n_nodes = node + 1;
        s->created = true;
    }
    uint32_t id = s->n_ev++;
    hf_online_rec_set(&s->ev[id], node, user);
    s->cur.posted = rank + 1;
    s->pending++;
    if (event)
        *event = id;
    return HF_OK;
}

/* ---- posting an event's children in one call ---- */

/* Post the current parent's next child, whose union node is @p node (room reserved). */
static inline void post_known(hf_online *s, uint32_t parent, uint32_t node, uint64_t user)
{
    uint32_t id = s->n_ev++;
    hf_online_rec_set(&s->ev[id], node, user);
    if (s->learn_plan) { /* as post_slow */
        if (node < s->plan_n && s->plan_pos[node] != NONE)
            s->keys[id] = 2 * s->plan_pos[node];
        else if (parent != NONE)
            s->keys[id] = s->cur.key | 1;
        else
            s->keys[id] = 2 * s->plan_n + 1;
    }
    s->cur.posted++;
    s->pending++;
}

/* The children the usual path of post_children could not post, every case: all of them are
 * posted, or (an error) none. */
static NOINLINE hf_status post_children_slow(hf_online *s, uint32_t parent, uint32_t n,
                                             const char *const *labels, const uint64_t *users,
                                             hf_error *err)
{
    hf_status st = hf_i_online_prepare_children(s, n, labels, err);
    if (st)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        const char *label = labels ? labels[i] : NULL;
        uint32_t node = hf_i_online_child_find(s, s->cur.posted, label);
        /* prepared: making the node allocates nothing and cannot fail */
        if (node == NONE &&
            (st = hf_i_online_create_node(s, label, label ? strlen(label) : 0, &node, err)))
            return st;
        post_known(s, parent, node, users ? users[i] : 0);
    }
    return HF_OK;
}

/* hf_online_post_children. The usual cases in one loop, as hf_online_post_user's: children of the
 * running event that match their ranks in its union node's block (later runs), then children that
 * extend that block with labels already seen or none (the first run); the rest in
 * post_children_slow, after which an error takes back what the loop posted. */
static INLINE hf_status post_children(hf_online *s, uint32_t parent, uint32_t n,
                                      const char *const *labels, const uint64_t *users,
                                      uint32_t *first, hf_error *err)
{
    if (parent != s->running || (parent == NONE && s->started) || !s->open)
        return post_refuse(s, parent, err);
    if (n > s->ev_lim - s->n_ev || n > s->room - s->pending) {
        if (n > HF_MAX_EVENTS - s->n_ev)
            return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "more than %u events in one run",
                             HF_MAX_EVENTS);
        if (reserve_event_slow(s, n))
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    uint32_t i = 0, ev0 = s->n_ev, nodes0 = s->n_nodes, kids0 = s->cur.kids;
    bool created0 = s->created;
    if (parent != NONE && !s->learn_plan) {
        uint32_t pnode = s->cur.node, kids = s->cur.kids, rank = s->cur.posted;
        revent *ev = s->ev + ev0;
        if (kids != NONE)
            for (; i < n; i++) {
                uint32_t node = kids + rank + i;
                if (node >= s->n_nodes)
                    break;
                const unode *u = &s->nodes[node];
                const char *label = labels ? labels[i] : NULL;
                if (u->parent != pnode || (u->label & OVER))
                    break;
                if (u->label == NOLABEL
                        ? label != NULL
                        : !label || !str_eq(hf_i_strtab_str(&s->lab, u->label), label))
                    break;
                hf_online_rec_set(&ev[i], node, users ? users[i] : 0);
            }
        if (i < n && s->n_over == 0 &&
            (kids == NONE
                 ? rank + i == 0
                 : rank + i > 0 && kids + rank + i == s->n_nodes &&
                       hf_i_online_block_child(s, pnode, kids, rank + i - 1) == s->n_nodes - 1))
            for (; i < n; i++) {
                uint32_t node = s->n_nodes;
                const char *label = labels ? labels[i] : NULL;
                if (node >= s->nodes_cap || node >= HF_MAX_EVENTS)
                    break;
                uint32_t lid = label ? label_lookup(s, label) : NOLABEL;
                if (label && lid == NOLABEL) /* a new label: interned by the general case */
                    break;
                s->nodes[node] = (unode){pnode, NONE, lid};
                if (kids == NONE)
                    kids = s->cur.kids = s->nodes[pnode].kids = node;
                s->n_nodes = node + 1;
                s->created = true;
                hf_online_rec_set(&ev[i], node, users ? users[i] : 0);
            }
        s->n_ev += i;
        s->pending += i;
        s->cur.posted = rank + i;
    }
    if (first)
        *first = ev0;
    if (i == n)
        return HF_OK;
    hf_status st = post_children_slow(s, parent, n - i, labels ? labels + i : NULL,
                                      users ? users + i : NULL, err);
    if (st) { /* nothing posted: the loop's children and the block nodes it made taken back */
        uint32_t k = s->n_ev - ev0;
        s->n_ev = ev0;
        s->pending -= k;
        s->cur.posted -= k;
        if (s->n_nodes > nodes0) {
            if (kids0 == NONE)
                (s->cur.node == NONE ? &s->root : &s->nodes[s->cur.node])->kids = NONE;
            s->cur.kids = kids0;
            s->n_nodes = nodes0;
            s->created = created0;
        }
    }
    return st;
}

/* post_children out of line, for hf_online_step's cases beyond its own loop. */
static NOINLINE hf_status post_children_out(hf_online *s, uint32_t parent, uint32_t n,
                                            const char *const *labels, const uint64_t *users,
                                            hf_error *err)
{
    return post_children(s, parent, n, labels, users, NULL, err);
}

hf_status hf_online_post_children(hf_online *s, uint32_t parent, uint32_t n,
                                  const char *const *labels, const uint64_t *users, uint32_t *first,
                                  hf_error *err)
{
    if (!s)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session");
    return post_children(s, parent, n, labels, users, first, err);
}

/* ---- learn: a heap of pending events by (key, newest first) ---- */

static bool heap_less(const hf_online *s, uint32_t a, uint32_t b)
{
    uint32_t ka = s->keys[a], kb = s->keys[b];
    return ka < kb || (ka == kb && a > b);
}

static void heap_push(hf_online *s, uint32_t v)
{
    uint32_t i = s->hn++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!heap_less(s, v, s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = v;
}

static uint32_t heap_pop(hf_online *s)
{
    uint32_t top = s->heap[0], v = s->heap[--s->hn], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= s->hn)
            break;
        if (c + 1 < s->hn && heap_less(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!heap_less(s, s->heap[c], v))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->hn > 0)
        s->heap[i] = v;
    return top;
}

/* ---- doubletree: the row (variant, D) on the binarized forest, step by step ---- */

/* An item of the double-tree stacks, written and read one field at a time: an item made in a
 * local record and copied whole is read back as one 16-byte load from the fields' separate
 * stores, which the processor cannot forward (a stall of its own on every expansion, measured). */
static inline void item_put(item *it, uint32_t lo, uint32_t hi, uint32_t depth, uint8_t mode,
                            uint8_t under)
{
    it->lo = lo;
    it->hi = hi;
    it->depth = depth;
    it->mode = mode;
    it->under = under;
}

/* Expand a node of the row (mode and depth given) whose children are lo..hi-1: push what the row
 * visits next on top (see lib/gen_doubletree.c for the rows: F is the preorder of the nodes of
 * depth <= D, each node of depth D followed at once by a traversal of its first child; the
 * second halves follow in reverse). The node's binary children: none, one, two events, or two
 * halves (a half of one event is that event, of more a gadget), split where the weighed gadget
 * splits once the union forest was weighed, else by count. */
static inline void dt_expand(hf_online *s, uint32_t lo, uint32_t hi, uint32_t depth, uint8_t mode,
                             uint8_t under)
{
    uint32_t m = hi - lo;
    if (m == 0)
        return;
    /* child 0: lo .. h0 - 1 (h0 NONE: the event lo); child 1 (when cnt = 2): l1 .. h1 - 1 */
    uint32_t h0 = NONE, l1 = lo + 1, h1 = NONE;
    int cnt = m == 1 ? 1 : 2;
    if (m > 2) {
        uint32_t mid = s->gw_n ? hf_i_online_gadget_split(s, lo, hi) : lo + (m + 1) / 2;
        s->dt_gadget = true;
        h0 = mid - lo == 1 ? NONE : mid;
        l1 = mid;
        h1 = hi - mid == 1 ? NONE : hi;
    }
    if (cnt == 2)
        s->branched = true;
    s->useful[depth] |= hf_online_dt_flags(under, cnt == 2);
    uint8_t u0 = (uint8_t)(under | (cnt == 2 ? 1 : 0)), u1 = (uint8_t)(under | 2);
    uint32_t cd = depth + 1;
    int top; /* the child visited first, pushed last */
    uint8_t cm = mode;
    if (mode != MODE_F) {
        top = mode == MODE_L ? 0 : 1;
    } else if (depth < s->row_D) {
        top = s->row_v >= 2 ? 1 : 0; /* C and E: lower, child 1 first */
    } else {
        /* a node of depth D: child `first` is traversed now, the other waits for the second
         * half (with one child and first = 1, that child waits) */
        unsigned v = s->row_v;
        int first = v == 1 || v == 2; /* B and C traverse child 1 first */
        cm = (v & 1) ? MODE_R : MODE_L;
        if (1 - first < cnt) {
            item *it = &s->deferred[s->ndef++];
            if (first == 0)
                item_put(it, l1, h1, cd, cm, u1);
            else
                item_put(it, lo, h0, cd, cm, u0);
        }
        if (first < cnt) {
            item *it = &s->items[s->isp++];
            if (first == 0)
                item_put(it, lo, h0, cd, cm, u0);
            else
                item_put(it, l1, h1, cd, cm, u1);
        }
        return;
    }
    if (cnt == 1) {
        item_put(&s->items[s->isp++], lo, h0, cd, cm, u0);
    } else if (top == 0) {
        item_put(&s->items[s->isp++], l1, h1, cd, cm, u1);
        item_put(&s->items[s->isp++], lo, h0, cd, cm, u0);
    } else {
        item_put(&s->items[s->isp++], lo, h0, cd, cm, u0);
        item_put(&s->items[s->isp++], l1, h1, cd, cm, u1);
    }
}

/* The children of the running event (or the roots) are the events posted since the last next():
 * hand them to the strategy. */
static inline void take_children(hf_online *s)
{
    uint32_t hi = s->n_ev, lo = hi - s->cur.posted;
    uint32_t par = s->running;
    if (hi - lo >= 2)
        s->branched = true;
    switch (s->strategy) {
    case HF_ONLINE_DOUBLETREE:
        if (par == NONE) {
            if (hi > lo)
                item_put(&s->items[s->isp++], lo, hi - lo == 1 ? NONE : hi, 0, MODE_F, 0);
        } else {
            dt_expand(s, lo, hi, s->cur.depth, s->cur.mode, s->cur.under);
        }
        break;
    default:
        if (s->strategy == HF_ONLINE_LEARN && s->learn_plan) {
            for (uint32_t i = lo; i < hi; i++)
                heap_push(s, i);
            break;
        }
        /* dfs, and a learn run without a plan: depth first; the stack holds ranges of sibling
         * events (lo, hi), the next one taken from the front (left to right) or the back */
        if (hi > lo) {
            s->stack[s->sp++] = lo;
            s->stack[s->sp++] = hi;
        }
        break;
    }
    s->cur.posted = 0;
}

/* The next event of the double-tree row (NONE if the stacks are empty, which cannot happen while
 * an event is pending): an event on top is taken as the callers' inline step takes it
 * (hf_online_fast_dt_pick of include/hitfam/online_inline.h), a gadget on top is expanded. */
static inline uint32_t dt_pop(hf_online *s)
{
    for (;;) {
        uint32_t v;
        if (hf_online_fast_dt_pop(&s->hot, &v))
            return v;
        const item *it;
        if (s->isp > 0) {
            it = &s->items[--s->isp];
        } else {
            if (s->ndef == 0)
                return NONE;
            it = &s->deferred[--s->ndef];
        }
        dt_expand(s, it->lo, it->hi, it->depth, it->mode, it->under);
    }
}

/* The next event of the double-tree row once the running event's last @p posted children (the
 * run's events up to @p hi) are known, its state left for run_event (NONE as dt_pop). Below one
 * or two children that the row visits in order, dt_expand would push them and dt_pop take the one
 * visited first back at once: there hf_online_fast_dt_pick (the callers' inline step) runs that
 * one and pushes only the other, with the flags and sides dt_expand gives them. */
static INLINE uint32_t dt_next(hf_online *s, uint32_t hi, uint32_t posted)
{
    uint32_t v;
    if (posted > 0) {
        if (hf_online_fast_dt_child(&s->hot, hi, posted, &v))
            return v;
        if (posted >= 2)
            s->branched = true;
        dt_expand(s, hi - posted, hi, s->cur.depth, s->cur.mode, s->cur.under);
    }
    return dt_pop(s);
}

/* Make @p v the running event. */
static inline void run_event(hf_online *s, uint32_t v)
{
    const revent *e = &s->ev[v];
    s->running = v;
    s->sched[s->sched_len + (s->n_ev - s->pending)] = e->node;
    s->pending--;
    s->cur.node = e->node;
    s->cur.kids = s->nodes[e->node].kids;
    s->cur.posted = 0;
    s->cur.key = s->learn_plan ? s->keys[v] : 0;
}

/* hf_online_next, every case. */
static NOINLINE hf_status next_slow(hf_online *s, uint32_t *event, hf_error *err)
{
    if (!s || !event)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session or no place to store the event");
    if (!s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0, "no run is open: call hf_online_begin_run first");
    take_children(s);
    s->running = NONE;
    s->started = true;
    if (s->pending == 0)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "no event is pending: the run is over, end it with hf_online_end_run");
    uint32_t v;
    if (s->strategy == HF_ONLINE_DOUBLETREE) {
        if ((v = dt_pop(s)) == NONE) /* cannot happen: every pending event is on a stack */
            return hf_i_fail(err, HF_ESTATE, 0, 0, "internal error: lost an event");
    } else if (s->strategy == HF_ONLINE_LEARN && s->learn_plan) {
        v = heap_pop(s);
    } else {
        uint32_t *top = &s->stack[s->sp - 2];
        v = s->right ? --top[1] : top[0]++;
        if (top[0] == top[1])
            s->sp -= 2;
    }
    run_event(s, v);
    *event = v;
    return HF_OK;
}

/* Depth first: the next event after `posted` children were posted (events hi - posted .. hi - 1,
 * one range of the stack), or else the next one of the range on top of the stack. */
static inline uint32_t dfs_pick(hf_online *s, uint32_t hi, uint32_t posted)
{
    if (posted > 0) {
        uint32_t lo = hi - posted;
        if (posted >= 2) {
            s->branched = true;
            s->stack[s->sp++] = s->right ? lo : lo + 1;
            s->stack[s->sp++] = s->right ? hi - 1 : hi;
        }
        return s->right ? hi - 1 : lo;
    }
    uint32_t *top = &s->stack[s->sp - 2];
    uint32_t v = s->right ? --top[1] : top[0]++;
    if (top[0] == top[1])
        s->sp -= 2;
    return v;
}

/* Depth-first and double-tree runs on their own. Depth first: the running event's children
 * (posted since the last call) are one range of the stack, and the first of them runs at once. */
static inline hf_status next_event(hf_online *s, uint32_t *event, hf_error *err)
{
    if (!s || !event || !s->open || s->pending == 0 || s->learn_plan)
        return next_slow(s, event, err);
    uint32_t posted = s->cur.posted, v;
    if (!s->dfs_run) { /* doubletree */
        if (s->running == NONE)
            take_children(s); /* the roots */
        else
            s->cur.posted = 0; /* taken by dt_next */
        if ((v = s->running == NONE ? dt_pop(s) : dt_next(s, s->n_ev, posted)) == NONE)
            return next_slow(s, event, err);
    } else {
        v = dfs_pick(s, s->n_ev, posted);
    }
    s->started = true;
    run_event(s, v);
    *event = v;
    return HF_OK;
}

hf_status hf_online_next(hf_online *s, uint32_t *event, hf_error *err)
{
    return next_event(s, event, err);
}

/* hf_online_step, every case. */
static NOINLINE hf_status step_slow(hf_online *s, uint32_t n, const char *const *labels,
                                    const uint64_t *users, uint32_t *event, uint64_t *user,
                                    hf_error *err)
{
    if (!s || !event)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session or no place to store the event");
    if (n > 0) {
        hf_status st = post_children(s, s->running, n, labels, users, NULL, err);
        if (st)
            return st;
    }
    if (s->open && s->pending == 0) { /* the run is over: the running event is done */
        s->running = NONE;
        s->started = true;
        *event = NONE;
        if (user)
            *user = 0;
        return HF_OK;
    }
    hf_status st = next_event(s, event, err);
    if (!st && user)
        *user = hf_online_rec_user(&s->ev[*event]);
    return st;
}

/* The end of a step: @p hi events, @p pending of them pending; @p v runs now. */
static INLINE void step_run(hf_online *s, uint32_t v, uint32_t hi, uint32_t pending,
                            uint32_t *event, uint64_t *user)
{
    hf_online_fast_run(&s->hot, v, hi, pending, event, user);
}

/* Write the running event's next @p n children (n > 0), as the children of its union node's
 * block at their ranks, into the run records after the run's events, without counting them:
 * false (nothing counted) when one of them is not its block's or there is no room for them
 * (hf_online_fast_match of include/hitfam/online_inline.h, the code the callers' inline step
 * runs). */
static INLINE bool match_children(hf_online *s, uint32_t n, const char *const *labels,
                                  const uint64_t *users)
{
    return hf_online_fast_match(&s->hot, n, labels, users);
}

/* Write the running event's @p n children (n > 0) into the run records after the run's events,
 * without counting them, when its union node has no children yet (every step of a first run
 * but the roots', and a node new to a later run): they are new, and make the node's block at
 * ranks 0 .. n - 1 in the next ids, as post_children's loop of new children would make them one
 * by one (a node without a block has no overflow child either: its first child opens its
 * block). Without @p by_id the labels are @p labels (NULL: none) and must be interned already;
 * with it they are the ids @p ids (hf_online_step_ids; NULL: none), checked. False, with nothing
 * counted and the union forest as it was, when the node has children, a label is new or an id
 * unknown, or there is no room for them: the general step takes those. */
static INLINE bool create_children(hf_online *s, uint32_t n, const char *const *labels, bool by_id,
                                   const uint32_t *ids, const uint64_t *users)
{
    uint32_t nn = s->n_nodes, pnode = s->cur.node;
    if (s->cur.kids != NONE || s->cur.posted != 0 || s->learn_plan || nn > s->nodes_cap ||
        n > s->nodes_cap - nn || n > HF_MAX_EVENTS - nn || n > s->ev_lim - s->n_ev ||
        n > s->room - s->pending)
        return false;
    unode *u = s->nodes + nn;
    revent *ev = s->ev + s->n_ev;
    for (uint32_t i = 0; i < n; i++) { /* written past the union forest until all are checked */
        uint32_t lid = NOLABEL;
        if (by_id) {
            lid = ids ? ids[i] : NOLABEL;
            if (lid != HF_ONLINE_NO_LABEL && lid >= s->lab.count)
                return false;
        } else if (labels && labels[i] && (lid = label_lookup(s, labels[i])) == NOLABEL) {
            return false;
        }
        u[i] = (unode){pnode, NONE, lid};
        hf_online_rec_set(&ev[i], nn + i, users ? users[i] : 0);
    }
    s->nodes[pnode].kids = s->cur.kids = nn;
    s->n_nodes = nn + n;
    s->created = true;
    return true;
}

/* hf_online_step when the depth-first case below does not apply: a running event whose children
 * match their union node's block, in a double-tree run with room for them, here; the rest in
 * step_slow. */
static NOINLINE hf_status step_general(hf_online *s, uint32_t n, const char *const *labels,
                                       const uint64_t *users, uint32_t *event, uint64_t *user,
                                       hf_error *err)
{
    /* a running event means an open run */
    if (!s || !event || s->running == NONE || s->learn_plan || n > s->ev_lim - s->n_ev ||
        n > s->room - s->pending)
        return step_slow(s, n, labels, users, event, user, err);
    if (n > 0 && !match_children(s, n, labels, users)) { /* the first run, say */
        hf_status st = post_children_out(s, s->running, n, labels, users, err);
        if (st)
            return st;
        n = 0; /* posted and counted */
    }
    uint32_t posted = s->cur.posted + n, pending = s->pending + n, v;
    if (pending == 0)
        return step_slow(s, 0, labels, users, event, user, err);
    uint32_t hi = s->n_ev + n;
    s->n_ev = hi;
    if (s->dfs_run) {
        v = dfs_pick(s, hi, posted);
    } else { /* doubletree */
        s->pending = pending;
        s->cur.posted = posted;
        take_children(s);
        if ((v = dt_pop(s)) == NONE) /* cannot happen: every pending event is on a stack */
            return hf_i_fail(err, HF_ESTATE, 0, 0, "internal error: lost an event");
    }
    step_run(s, v, hi, pending, event, user);
    return HF_OK;
}

/* hf_online_step in a depth-first run: the usual step of a later run as the callers' inline step
 * takes it (hf_online_fast_dfs), else step_general. */
static NOINLINE hf_status step_depth_first(hf_online *s, uint32_t n, const char *const *labels,
                                           const uint64_t *users, uint32_t *event, uint64_t *user,
                                           hf_error *err)
{
    if (hf_online_fast_dfs(&s->hot, n, labels, users, event, user))
        return HF_OK;
    if (n > 0 && create_children(s, n, labels, false, NULL, users) &&
        hf_online_fast_dfs_matched(&s->hot, n, event, user))
        return HF_OK;
    return step_general(s, n, labels, users, event, user, err);
}

/* hf_online_step in a double-tree run, the usual case as hf_online_fast_dt (the children match
 * their union node's block and there is room): the running event's children taken by dt_next,
 * whose usual cases are the callers' inline step's (hf_online_fast_dt_child and
 * hf_online_fast_dt_pop), the rest expanded as take_children does; every other case in
 * step_general. (Handing the item the row visits next back from the expansion instead
 * of a push and a pop saved 40 instructions per event, and cost 10% more time: measured.) */
static INLINE hf_status step_double_tree_matched(hf_online *s, uint32_t n, uint32_t *event,
                                                 uint64_t *user, hf_error *err)
{
    uint32_t hi = s->n_ev + n, pending = s->pending + n;
    uint32_t v = dt_next(s, hi, s->cur.posted + n);
    if (v == NONE) /* cannot happen: every pending event is on a stack */
        return hf_i_fail(err, HF_ESTATE, 0, 0, "internal error: lost an event");
    step_run(s, v, hi, pending, event, user);
    return HF_OK;
}

static NOINLINE hf_status step_double_tree(hf_online *s, uint32_t n, const char *const *labels,
                                           const uint64_t *users, uint32_t *event, uint64_t *user,
                                           hf_error *err)
{
    if ((n > 0 && !match_children(s, n, labels, users) &&
         !create_children(s, n, labels, false, NULL, users)) ||
        s->pending + n == 0)
        return step_general(s, n, labels, users, event, user, err);
    return step_double_tree_matched(s, n, event, user, err);
}

/* Only a choice of the function that takes the step, so that each keeps to its own registers. */
hf_status hf_online_step(hf_online *s, uint32_t n, const char *const *labels, const uint64_t *users,
                         uint32_t *event, uint64_t *user, hf_error *err)
{
    /* a running event means an open run; dfs_run excludes learn's plans */
    if (s && event && s->running != NONE) {
        if (s->dfs_run)
            return step_depth_first(s, n, labels, users, event, user, err);
        if (s->strategy == HF_ONLINE_DOUBLETREE)
            return step_double_tree(s, n, labels, users, event, user, err);
    }
    return step_general(s, n, labels, users, event, user, err);
}

hf_status hf_online_end_run(hf_online *s, hf_online_run_result *res, hf_error *err)
{
    hf_online_run_result dummy;
    hf_online_run_result *r = res ? res : &dummy;
    memset(r, 0, sizeof *r);
    if (!s)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session");
    if (!s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0, "no run is open");
    /* refused before anything changes: children posted since the last next are pending (so
     * there are none here), and the ranks of the ones posted after a refusal count on them */
    if (s->pending > 0)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "%" PRIu32 " posted events have not run: a run plays all its events",
                         s->pending);
    s->running = NONE;
    s->open = false;
    s->fast = HF_ONLINE_FAST_NONE;
    s->sched_len += s->n_ev;
    s->runs++;
    s->run_off[s->runs] = s->sched_len;
    bool changed = (s->runs > 1 && s->created) || s->n_ev < s->n_nodes;
    s->changed_any = s->changed_any || changed;
    r->runs = s->runs;
    r->events = s->n_ev;
    r->nodes = s->n_nodes;
    r->changed = changed;
    hf_status st = HF_OK;
    switch (s->strategy) {
    case HF_ONLINE_DFS:
        r->bound = s->d == 1 || !s->branched ? 1 : 2;
        break;
    case HF_ONLINE_DOUBLETREE:
        if (s->d == 3) /* the gadgets weighed, the record made again (lib/online_union.c) */
            st = hf_i_online_dt_end(s, err);
        if (s->d == 1 || !s->branched) {
            r->bound = 1;
        } else if (s->d == 2) {
            r->bound = 2;
        } else {
            uint32_t v, D;
            r->bound = s->dt_base + dt_rows(s, UINT64_MAX, &v, &D);
        }
        break;
    default:
        st = hf_i_online_learn_end(s, r, changed, err);
        break;
    }
    if (s->strategy != HF_ONLINE_LEARN)
        r->more = s->runs < r->bound;
    if (st) /* out of memory may pass: the plan is built again after the next run */
        r->more = st == HF_ENOMEM;
    if (s->max_runs && s->runs >= s->max_runs)
        r->more = false;
    return st;
}

/* ---- labels given by ids ---- */

hf_status hf_online_label_id(hf_online *s, const char *label, uint32_t *id, hf_error *err)
{
    if (!s || !label || !id)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session, label or place to store the id");
    size_t llen = strlen(label);
    if (llen > HF_MAX_NAME)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "label longer than %u bytes", HF_MAX_NAME);
    hf_status st = hf_i_online_label_intern(s, label, llen, id);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, st, 0, 0, "out of memory");
    if (st)
        return hf_i_fail(err, st, 0, 0, "label longer than %u bytes", HF_MAX_NAME);
    return HF_OK;
}

/* hf_online_step_ids, every case: the ids checked and turned into the labels they stand for,
 * then hf_online_step. */
static NOINLINE hf_status step_ids_general(hf_online *s, uint32_t n, const uint32_t *ids,
                                           const uint64_t *users, uint32_t *event, uint64_t *user,
                                           hf_error *err)
{
    if (!s || !event)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session or no place to store the event");
    if (!ids || n == 0)
        return hf_online_step(s, n, NULL, users, event, user, err);
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] != HF_ONLINE_NO_LABEL && ids[i] >= s->lab.count)
            return hf_i_fail(err, HF_EINVAL, 0, 0,
                             "label id %" PRIu32 " of child %" PRIu32
                             " was not given by hf_online_label_id",
                             ids[i], i);
    if (HF_I_GROW(s->ctx, s->id_labels, &s->id_labels_cap, n))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        s->id_labels[i] = ids[i] == HF_ONLINE_NO_LABEL ? NULL : hf_i_strtab_str(&s->lab, ids[i]);
    return hf_online_step(s, n, s->id_labels, users, event, user, err);
}

/* hf_online_step_ids in a double-tree run: step_double_tree's usual case with the ids matched. */
static NOINLINE hf_status step_double_tree_ids(hf_online *s, uint32_t n, const uint32_t *ids,
                                               const uint64_t *users, uint32_t *event,
                                               uint64_t *user, hf_error *err)
{
    if ((n > 0 && !hf_online_fast_match_ids(&s->hot, n, ids, users) &&
         !create_children(s, n, NULL, true, ids, users)) ||
        s->pending + n == 0)
        return step_ids_general(s, n, ids, users, event, user, err);
    return step_double_tree_matched(s, n, event, user, err);
}

hf_status hf_online_step_ids(hf_online *s, uint32_t n, const uint32_t *label_ids,
                             const uint64_t *users, uint32_t *event, uint64_t *user, hf_error *err)
{
    if (s && event && s->running != NONE) {
        if (s->dfs_run) {
            if ((n == 0 || hf_online_fast_match_ids(&s->hot, n, label_ids, users) ||
                 create_children(s, n, NULL, true, label_ids, users)) &&
                hf_online_fast_dfs_matched(&s->hot, n, event, user))
                return HF_OK;
        } else if (s->strategy == HF_ONLINE_DOUBLETREE) {
            return step_double_tree_ids(s, n, label_ids, users, event, user, err);
        }
    }
    return step_ids_general(s, n, label_ids, users, event, user, err);
}
