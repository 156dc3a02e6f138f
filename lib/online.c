/* Online scheduling sessions (include/hitfam/online.h): the union forest of the runs, and the
 * three strategies that choose the next event of a run (docs/online.md states and proves their
 * bounds). */
#include <string.h>

#include <hitfam/online.h>

#include "coverage.h"
#include "gen.h"

#define NONE UINT32_MAX

/* A node of the union forest: identified by (parent, rank among its siblings, label). Children in
 * first-seen order. */
typedef struct unode {
    uint32_t parent;
    uint32_t first, last, next; /* children list, and the next sibling */
    uint32_t rank;              /* its place among the run's siblings (posting order, from 0) */
    uint32_t ranks;             /* 1 + the largest rank of its children (0: none) */
    size_t label;               /* offset into the label arena, SIZE_MAX: no label */
} unode;

enum { ST_PENDING = 0, ST_RUNNING = 1, ST_DONE = 2 };
/* Modes of the double-tree rows: the first half's preorder, or a traversal. */
enum { MODE_F = 0, MODE_L = 1, MODE_R = 2 };

/* An event of the open run. */
typedef struct revent {
    uint32_t node;   /* union node */
    uint32_t cursor; /* union child matched by its last posted child (NONE: none yet) */
    uint32_t nkids;  /* children posted so far */
    uint32_t ufirst; /* its union node's first child and ranks, copied when it was posted (the
                        node's record is then in cache) so that its children need not read it */
    uint32_t uranks;
    uint32_t aux;  /* doubletree: depth in the binarized forest; learn: priority key */
    uint64_t user; /* the caller's value (hf_online_post_user) */
    uint8_t state;
    uint8_t mode;  /* doubletree */
    uint8_t under; /* doubletree: a strict ancestor in the binarized forest has two children */
} revent;

/* A node of the binarized forest on the double-tree stacks: one run event (hi == NONE) or the
 * gadget over the sibling run events lo..hi-1. */
typedef struct item {
    uint32_t lo, hi, depth;
    uint8_t mode;
    uint8_t under; /* as revent.under */
} item;

struct hf_online {
    hf_ctx *ctx;
    unsigned d;
    hf_online_strategy strategy;
    hf_method learn_method;
    uint64_t max_runs;

    /* union forest */
    unode *nodes;
    size_t nodes_cap;
    uint32_t n_nodes;
    uint32_t root_first, root_last; /* roots list */
    char *labels;
    size_t labels_len, labels_cap;

    /* runs: schedules of node ids, one after another */
    uint32_t *sched;
    size_t sched_len, sched_cap;
    size_t *run_off; /* runs + 1 offsets */
    size_t runs, run_off_cap;

    /* the open run */
    bool open;
    bool started; /* next() was called in this run */
    revent *ev;
    size_t ev_cap;
    uint32_t n_ev;
    uint32_t recent;  /* first event posted since the last next() */
    uint32_t running; /* NONE before the first next() */
    uint32_t pending;
    uint32_t root_cursor; /* as revent.cursor and nkids, for the roots */
    uint32_t root_kids;
    uint32_t root_ranks;   /* as unode.ranks, for the roots of the union forest */
    uint32_t nodes_before; /* union nodes when the run began */
    bool created;          /* the run made new union nodes */
    /* scheduling state */
    uint32_t *stack; /* dfs: run events */
    size_t stack_cap;
    uint32_t sp;
    item *items; /* doubletree */
    size_t items_cap;
    uint32_t isp;
    item *deferred;
    size_t deferred_cap;
    uint32_t ndef;
    uint32_t *heap; /* learn: run events by (key, newest first) */
    size_t heap_cap;
    uint32_t hn;
    bool right;     /* dfs run: children right to left */
    unsigned row_v; /* doubletree row: variant 0..3 (A, B, C, E) and depth D */
    uint32_t row_D;
    bool learn_plan; /* learn run follows plan_pos */

    /* what earlier runs showed */
    uint32_t max_depth; /* doubletree: binarized height seen */
    uint8_t *useful;    /* doubletree, per depth of the binarized forest: some node there has two
                           children, or a child and an ancestor with two (docs/online.md) */
    size_t useful_cap;
    bool branched; /* some event or the root level had two or more children */
    bool changed_any;

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
    bool repair;        /* the next run aims at the one tuple `aim` (plan_pos holds its plan) */
    uint32_t aim[4];
    unsigned aim_len;
    struct aimed {
        unsigned len; /* tuples of a union forest with fewer than d events are shorter */
        uint32_t t[4];
        bool hit;
    } * attempted; /* tuples aimed at by repair runs that did not hit them (hit: a later run did) */
    size_t n_attempted, attempted_cap;
    uint64_t apart; /* open tuples whose events never ran in one run */
    uint32_t *mark; /* scratch, n_nodes + 1: positions of a run's nodes */
    size_t mark_cap;
    bool stale; /* u must be rebuilt before the next plan */
};

/* ---- names ---- */

static const struct {
    hf_online_strategy s;
    const char *name;
} strategy_names[] = {{HF_ONLINE_AUTO, "auto"},
                      {HF_ONLINE_DFS, "dfs"},
                      {HF_ONLINE_DOUBLETREE, "doubletree"},
                      {HF_ONLINE_LEARN, "learn"}};

const char *hf_online_strategy_name(hf_online_strategy s)
{
    for (size_t i = 0; i < sizeof strategy_names / sizeof strategy_names[0]; i++)
        if (strategy_names[i].s == s)
            return strategy_names[i].name;
    return NULL;
}

hf_status hf_online_strategy_from_name(const char *name, hf_online_strategy *s)
{
    if (!name || !s)
        return HF_EINVAL;
    for (size_t i = 0; i < sizeof strategy_names / sizeof strategy_names[0]; i++)
        if (strcmp(strategy_names[i].name, name) == 0) {
            *s = strategy_names[i].s;
            return HF_OK;
        }
    return HF_ENOTFOUND;
}

void hf_online_options_init(hf_online_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->d = 2;
    o->strategy = HF_ONLINE_AUTO;
    o->learn_method = HF_METHOD_AUTO;
    o->max_runs = 100000;
}

hf_online_strategy hf_online_strategy_for(unsigned d)
{
    if (d == 0 || d > 4)
        return HF_ONLINE_AUTO;
    return d <= 2 ? HF_ONLINE_DFS : d == 3 ? HF_ONLINE_DOUBLETREE : HF_ONLINE_LEARN;
}

/* ---- session ---- */

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
    hf_online *s = hf_i_calloc(ctx, 1, sizeof *s);
    if (!s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->ctx = ctx;
    s->d = o->d;
    s->strategy = st;
    s->learn_method = o->learn_method;
    s->max_runs = o->max_runs;
    s->root_first = s->root_last = NONE;
    s->running = NONE;
    s->target = s->next_target = SIZE_MAX;
    s->run_off = hf_i_alloc_array(ctx, 8, sizeof *s->run_off);
    if (!s->run_off) {
        hf_i_free(ctx, s);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    s->run_off_cap = 8;
    s->run_off[0] = 0;
    *out = s;
    return HF_OK;
}

static void learn_drop(hf_online *s)
{
    hf_poset_free(s->u);
    hf_family_free(s->fam);
    hf_i_coverage_free(s->cov);
    hf_i_free(s->ctx, s->tried);
    hf_i_free(s->ctx, s->plan_pos);
    s->u = NULL;
    s->fam = NULL;
    s->cov = NULL;
    s->tried = NULL;
    s->plan_pos = NULL;
    s->plan_n = 0;
    s->tuples = 0;
    s->plan_left = 0;
    s->next_target = SIZE_MAX;
    s->repair = false;
}

void hf_online_free(hf_online *s)
{
    if (!s)
        return;
    hf_ctx *ctx = s->ctx;
    learn_drop(s);
    hf_i_free(ctx, s->nodes);
    hf_i_free(ctx, s->labels);
    hf_i_free(ctx, s->sched);
    hf_i_free(ctx, s->run_off);
    hf_i_free(ctx, s->ev);
    hf_i_free(ctx, s->stack);
    hf_i_free(ctx, s->items);
    hf_i_free(ctx, s->deferred);
    hf_i_free(ctx, s->heap);
    hf_i_free(ctx, s->useful);
    hf_i_free(ctx, s->attempted);
    hf_i_free(ctx, s->mark);
    hf_i_free(ctx, s);
}

hf_online_strategy hf_online_strategy_of(const hf_online *s)
{
    return s ? s->strategy : HF_ONLINE_AUTO;
}

/* ---- runs ---- */

hf_status hf_online_begin_run(hf_online *s, hf_error *err)
{
    if (!s)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session");
    if (s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "run %zu is still open: end it with hf_online_end_run first", s->runs + 1);
    if (hf_i_grow(s->ctx, (void **)&s->run_off, &s->run_off_cap, s->runs + 2, sizeof *s->run_off))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->open = true;
    s->started = false;
    s->n_ev = 0;
    s->recent = 0;
    s->running = NONE;
    s->pending = 0;
    s->root_cursor = NONE;
    s->root_kids = 0;
    s->nodes_before = s->n_nodes;
    s->created = false;
    s->sp = s->isp = s->ndef = s->hn = 0;
    uint64_t r = s->runs;
    s->right = false;
    s->learn_plan = false;
    switch (s->strategy) {
    case HF_ONLINE_DFS:
        s->right = r % 2 == 1;
        break;
    case HF_ONLINE_DOUBLETREE:
        if (s->d <= 2 || r == 0) { /* R(A, 0) and R(B, 0): the two preorders */
            s->row_v = (unsigned)(r % 4);
            s->row_D = 0;
        } else { /* then the four rows of each useful depth, as run 1 found them (run 1 was the
                    first row of depth 0 when depth 0 is useful) */
            uint64_t j = s->useful_cap > 0 && s->useful[0] ? r : r - 1, want = j / 4;
            s->row_v = (unsigned)(j % 4);
            s->row_D = 0;
            for (uint32_t D = 0; D <= s->max_depth && D < s->useful_cap; D++)
                if (s->useful[D] && want-- == 0) {
                    s->row_D = D;
                    break;
                }
        }
        break;
    default: /* learn: follow the plan made when the last run ended; none: left-to-right dfs */
        s->target = s->next_target;
        s->learn_plan = (s->target != SIZE_MAX || s->repair) && s->plan_pos;
        break;
    }
    return HF_OK;
}

uint32_t hf_online_pending(const hf_online *s) { return s && s->open ? s->pending : 0; }

static bool label_eq(const hf_online *s, uint32_t node, const char *label)
{
    size_t off = s->nodes[node].label;
    if (off == SIZE_MAX || !label)
        return off == SIZE_MAX && !label;
    return strcmp(s->labels + off, label) == 0;
}

/* Room for one more event of the run in every structure next() and end_run() use, so that they
 * never allocate. */
static hf_status reserve_event_slow(hf_online *s)
{
    size_t need = (size_t)s->n_ev + 1;
    hf_ctx *ctx = s->ctx;
    if (hf_i_grow(ctx, (void **)&s->ev, &s->ev_cap, need, sizeof *s->ev) ||
        hf_i_grow(ctx, (void **)&s->sched, &s->sched_cap, s->sched_len + need, sizeof *s->sched))
        return HF_ENOMEM;
    switch (s->strategy) {
    case HF_ONLINE_DFS:
        return hf_i_grow(ctx, (void **)&s->stack, &s->stack_cap, need, sizeof *s->stack);
    case HF_ONLINE_DOUBLETREE:
        if (2 * need + 2 > s->useful_cap) { /* depths of the binarized forest, zeroed */
            size_t old = s->useful_cap;
            if (hf_i_grow(ctx, (void **)&s->useful, &s->useful_cap, 2 * need + 2, 1))
                return HF_ENOMEM;
            memset(s->useful + old, 0, s->useful_cap - old);
        }
        if (hf_i_grow(ctx, (void **)&s->stack, &s->stack_cap, need, sizeof *s->stack) ||
            hf_i_grow(ctx, (void **)&s->items, &s->items_cap, 2 * need + 2, sizeof *s->items) ||
            hf_i_grow(ctx, (void **)&s->deferred, &s->deferred_cap, 2 * need + 2,
                      sizeof *s->deferred))
            return HF_ENOMEM;
        return HF_OK;
    default:
        if (hf_i_grow(ctx, (void **)&s->stack, &s->stack_cap, need, sizeof *s->stack) ||
            hf_i_grow(ctx, (void **)&s->heap, &s->heap_cap, need, sizeof *s->heap))
            return HF_ENOMEM;
        return HF_OK;
    }
}

static inline hf_status reserve_event(hf_online *s)
{
    size_t need = (size_t)s->n_ev + 1;
    if (need <= s->ev_cap && s->sched_len + need <= s->sched_cap && need <= s->stack_cap &&
        (s->strategy == HF_ONLINE_DFS ||
         (s->strategy == HF_ONLINE_LEARN
              ? need <= s->heap_cap
              : 2 * need + 2 <= s->items_cap && 2 * need + 2 <= s->deferred_cap)))
        return HF_OK;
    return reserve_event_slow(s);
}

/* The union child of the parent's node (the union roots for a root) with this rank and label,
 * or NONE. Fast path: the sibling that follows the one its previous sibling matched; a rank
 * beyond every known child's is new at once. */
static uint32_t match_child(const hf_online *s, uint32_t prun, uint32_t rank, const char *label)
{
    uint32_t cursor = prun == NONE ? s->root_cursor : s->ev[prun].cursor;
    uint32_t first = prun == NONE ? s->root_first : s->ev[prun].ufirst;
    uint32_t ranks = prun == NONE ? s->root_ranks : s->ev[prun].uranks;
    if (rank >= ranks)
        return NONE;
    uint32_t cand = cursor == NONE ? first : s->nodes[cursor].next;
    if (cand != NONE && s->nodes[cand].rank == rank && label_eq(s, cand, label))
        return cand;
    for (uint32_t c = first; c != NONE; c = s->nodes[c].next)
        if (s->nodes[c].rank == rank && label_eq(s, c, label))
            return c;
    return NONE;
}

hf_status hf_online_post(hf_online *s, uint32_t parent, const char *label, uint32_t *event,
                         hf_error *err)
{
    return hf_online_post_user(s, parent, label, 0, event, err);
}

hf_status hf_online_post_user(hf_online *s, uint32_t parent, const char *label, uint64_t user,
                              uint32_t *event, hf_error *err)
{
    if (!s)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session");
    if (!s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "no run is open: call hf_online_begin_run before posting events");
    if (parent == NONE) {
        if (s->started)
            return hf_i_fail(err, HF_ESTATE, 0, 0,
                             "a root event must be posted before the run's first "
                             "hf_online_next; later events are children of the running event");
    } else if (parent >= s->n_ev) {
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "unknown parent event %" PRIu32 " (the run has %" PRIu32 " events)",
                         parent, s->n_ev);
    } else if (s->ev[parent].state == ST_PENDING) {
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "parent event %" PRIu32 " has not run yet: post its children while it "
                         "runs",
                         parent);
    } else if (s->ev[parent].state == ST_DONE) {
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "parent event %" PRIu32 " has finished: children must be posted while "
                         "their parent runs, before the next hf_online_next",
                         parent);
    }
    size_t llen = label ? strlen(label) : 0;
    if (llen > HF_MAX_NAME)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "label longer than %u bytes", HF_MAX_NAME);
    if (s->n_ev >= HF_MAX_EVENTS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "more than %u events in one run", HF_MAX_EVENTS);
    if (reserve_event(s))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t *nkids = parent == NONE ? &s->root_kids : &s->ev[parent].nkids;
    uint32_t node = match_child(s, parent, *nkids, label);
    if (node == NONE) {
        if (s->n_nodes >= HF_MAX_EVENTS)
            return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "more than %u events in the union forest",
                             HF_MAX_EVENTS);
        /* a label read back from this session (hf_online_node_label) lives in the arena, which
         * may move */
        bool inside = label && s->labels && label >= s->labels && label < s->labels + s->labels_len;
        size_t at = inside ? (size_t)(label - s->labels) : 0;
        if (hf_i_grow(s->ctx, (void **)&s->nodes, &s->nodes_cap, (size_t)s->n_nodes + 1,
                      sizeof *s->nodes) ||
            (label &&
             hf_i_grow(s->ctx, (void **)&s->labels, &s->labels_cap, s->labels_len + llen + 1, 1)))
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        if (inside)
            label = s->labels + at;
        uint32_t pnode = parent == NONE ? NONE : s->ev[parent].node;
        node = s->n_nodes++;
        unode *u = &s->nodes[node];
        u->parent = pnode;
        u->first = u->last = u->next = NONE;
        u->rank = *nkids;
        u->ranks = 0;
        u->label = SIZE_MAX;
        if (label) {
            memcpy(s->labels + s->labels_len, label, llen + 1);
            u->label = s->labels_len;
            s->labels_len += llen + 1;
        }
        uint32_t *first = pnode == NONE ? &s->root_first : &s->nodes[pnode].first;
        uint32_t *last = pnode == NONE ? &s->root_last : &s->nodes[pnode].last;
        uint32_t *ranks = pnode == NONE ? &s->root_ranks : &s->nodes[pnode].ranks;
        if (*last == NONE)
            *first = node;
        else
            s->nodes[*last].next = node;
        *last = node;
        if (*ranks <= *nkids)
            *ranks = *nkids + 1;
        if (parent != NONE) {
            s->ev[parent].ufirst = *first;
            s->ev[parent].uranks = *ranks;
        }
        s->created = true;
    }
    (*nkids)++;
    *(parent == NONE ? &s->root_cursor : &s->ev[parent].cursor) = node;
    uint32_t id = s->n_ev++;
    revent *e = &s->ev[id];
    e->node = node;
    e->cursor = NONE;
    e->nkids = 0;
    e->ufirst = s->nodes[node].first;
    e->uranks = s->nodes[node].ranks;
    e->state = ST_PENDING;
    e->mode = MODE_F;
    e->under = 0;
    e->aux = 0;
    e->user = user;
    if (s->strategy == HF_ONLINE_LEARN && s->learn_plan) {
        if (node < s->plan_n && s->plan_pos[node] != NONE)
            e->aux = 2 * s->plan_pos[node];
        else if (parent != NONE)
            e->aux = s->ev[parent].aux | 1; /* right after its nearest planned ancestor */
        else
            e->aux = 2 * s->plan_n + 1;
    }
    s->pending++;
    if (event)
        *event = id;
    return HF_OK;
}

/* ---- learn: a heap of pending events by (key, newest first) ---- */

static bool heap_less(const hf_online *s, uint32_t a, uint32_t b)
{
    uint32_t ka = s->ev[a].aux, kb = s->ev[b].aux;
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

/* The binary children of the node whose children are the run events lo..hi-1 (a run event's
 * children, or a gadget's): none, one, two events, or two halves (a half of one event is that
 * event, of more a gadget). */
static int binary_children(uint32_t lo, uint32_t hi, uint32_t depth, item *b)
{
    uint32_t m = hi - lo;
    if (m == 0)
        return 0;
    if (m <= 2) {
        for (uint32_t i = 0; i < m; i++)
            b[i] = (item){lo + i, NONE, depth + 1, 0, 0};
        return (int)m;
    }
    uint32_t mid = lo + (m + 1) / 2;
    b[0] = (item){lo, mid - lo == 1 ? NONE : mid, depth + 1, 0, 0};
    b[1] = (item){mid, hi - mid == 1 ? NONE : hi, depth + 1, 0, 0};
    return 2;
}

/* Expand a node of the row (mode and depth given) whose children are lo..hi-1: push what the row
 * visits next on top (see lib/gen_doubletree.c for the rows: F is the preorder of the nodes of
 * depth <= D, each node of depth D followed at once by a traversal of its first child; the
 * second halves follow in reverse). */
static void dt_expand(hf_online *s, uint32_t lo, uint32_t hi, uint32_t depth, uint8_t mode,
                      uint8_t under)
{
    item b[2];
    int cnt = binary_children(lo, hi, depth, b);
    if (cnt >= 2)
        s->branched = true;
    if (cnt == 0)
        return;
    if (cnt == 2 || under)
        s->useful[depth] = 1;
    for (int i = 0; i < cnt; i++)
        b[i].under = under || cnt == 2;
    unsigned v = s->row_v;
    bool lower = v >= 2;
    uint8_t trav = (v & 1) ? MODE_R : MODE_L;
    int first = v == 1 || v == 2; /* B and C traverse child 1 first */
    if (mode != MODE_F) {
        for (int i = 0; i < cnt; i++)
            b[i].mode = mode;
        /* the child visited first on top */
        if (mode == MODE_L)
            for (int i = cnt; i-- > 0;)
                s->items[s->isp++] = b[i];
        else
            for (int i = 0; i < cnt; i++)
                s->items[s->isp++] = b[i];
        return;
    }
    if (depth < s->row_D) {
        if (lower)
            for (int i = 0; i < cnt; i++)
                s->items[s->isp++] = b[i];
        else
            for (int i = cnt; i-- > 0;)
                s->items[s->isp++] = b[i];
        return;
    }
    /* a node of depth D: its other child waits for the second half */
    if (1 - first < cnt) {
        b[1 - first].mode = trav;
        s->deferred[s->ndef++] = b[1 - first];
    }
    if (first < cnt) {
        b[first].mode = trav;
        s->items[s->isp++] = b[first];
    }
}

/* The children of the running event (or the roots) are the events posted since the last next():
 * hand them to the strategy. */
static void take_children(hf_online *s)
{
    uint32_t lo = s->recent, hi = s->n_ev;
    uint32_t par = s->running;
    if (par == NONE && hi - lo >= 2)
        s->branched = true;
    if (par != NONE && hi - lo >= 2)
        s->branched = true;
    switch (s->strategy) {
    case HF_ONLINE_DOUBLETREE:
        if (par == NONE) {
            if (hi - lo == 1)
                s->items[s->isp++] = (item){lo, NONE, 0, MODE_F, 0};
            else if (hi > lo)
                s->items[s->isp++] = (item){lo, hi, 0, MODE_F, 0};
        } else {
            dt_expand(s, lo, hi, s->ev[par].aux, s->ev[par].mode, s->ev[par].under);
        }
        break;
    default:
        if (s->strategy == HF_ONLINE_LEARN && s->learn_plan) {
            for (uint32_t i = lo; i < hi; i++)
                heap_push(s, i);
            break;
        }
        /* dfs, and a learn run without a plan: depth first */
        if (s->right)
            for (uint32_t i = lo; i < hi; i++)
                s->stack[s->sp++] = i;
        else
            for (uint32_t i = hi; i-- > lo;)
                s->stack[s->sp++] = i;
        break;
    }
    s->recent = hi;
}

hf_status hf_online_next(hf_online *s, uint32_t *event, hf_error *err)
{
    if (!s || !event)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session or no place to store the event");
    if (!s->open)
        return hf_i_fail(err, HF_ESTATE, 0, 0, "no run is open: call hf_online_begin_run first");
    take_children(s);
    if (s->running != NONE)
        s->ev[s->running].state = ST_DONE;
    s->running = NONE;
    s->started = true;
    if (s->pending == 0)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "no event is pending: the run is over, end it with hf_online_end_run");
    uint32_t v;
    if (s->strategy == HF_ONLINE_DOUBLETREE) {
        for (;;) {
            if (s->isp == 0) {
                if (s->ndef == 0) /* cannot happen: every pending event is on a stack */
                    return hf_i_fail(err, HF_ESTATE, 0, 0, "internal error: lost an event");
                s->items[s->isp++] = s->deferred[--s->ndef];
            }
            item it = s->items[--s->isp];
            if (it.hi != NONE) {
                dt_expand(s, it.lo, it.hi, it.depth, it.mode, it.under);
                continue;
            }
            v = it.lo;
            s->ev[v].aux = it.depth;
            s->ev[v].mode = it.mode;
            s->ev[v].under = it.under;
            if (it.depth > s->max_depth)
                s->max_depth = it.depth;
            break;
        }
    } else if (s->strategy == HF_ONLINE_LEARN && s->learn_plan) {
        v = heap_pop(s);
    } else {
        v = s->stack[--s->sp];
    }
    s->ev[v].state = ST_RUNNING;
    s->running = v;
    s->pending--;
    s->sched[s->sched_len + (s->n_ev - s->pending - 1)] = s->ev[v].node;
    *event = v;
    return HF_OK;
}

/* ---- learn: the offline family of the union forest and its coverage ---- */

/* The union forest as a poset with short names, its offline family, and the coverage of every
 * run so far. On failure everything is dropped. */
static hf_status learn_rebuild(hf_online *s, hf_error *err)
{
    learn_drop(s);
    uint32_t n = s->n_nodes;
    if (n == 0)
        return HF_OK;
    hf_poset_builder *b = NULL;
    hf_status st = hf_poset_builder_new(s->ctx, &b);
    char name[24];
    for (uint32_t v = 0; v < n && !st; v++) {
        snprintf(name, sizeof name, "n%" PRIu32, v);
        st = hf_poset_builder_add_event(b, name, NULL);
    }
    for (uint32_t v = 0; v < n && !st; v++)
        if (s->nodes[v].parent != NONE)
            st = hf_poset_builder_add_order(b, s->nodes[v].parent, v);
    if (!st)
        st = hf_poset_builder_finish(b, &s->u, err);
    else
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
    hf_poset_builder_free(b);
    if (st)
        goto fail;
    unsigned d = s->d < n ? s->d : n;
    if ((st = hf_i_coverage_check_size(s->u, d, NULL, 0, err)) != HF_OK)
        goto fail;
    if ((st = hf_family_new(s->ctx, n, &s->fam)) != HF_OK) {
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
        goto fail;
    }
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = s->learn_method;
    if ((st = hf_generate(s->u, &opt, hf_family_sink(s->fam), NULL, err)) != HF_OK)
        goto fail;
    if ((st = hf_i_coverage_new(s->u, d, NULL, 0, &s->cov, err)) != HF_OK)
        goto fail;
    s->tuples = hf_i_coverage_remaining(s->cov);
    s->tried = hf_i_calloc(s->ctx, hf_family_size(s->fam) + 1, 1);
    s->plan_pos = hf_i_alloc_array(s->ctx, n, sizeof *s->plan_pos);
    if (!s->tried || !s->plan_pos) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    s->plan_n = n;
    for (size_t r = 0; r < s->runs; r++)
        hf_i_coverage_add_partial(s->cov, s->sched + s->run_off[r],
                                  (uint32_t)(s->run_off[r + 1] - s->run_off[r]));
    return HF_OK;
fail:
    learn_drop(s);
    return st;
}

/* The tuples aimed at by repair runs and never hit are set aside again after the coverage was
 * rebuilt from the runs. */
static void learn_set_aside(hf_online *s)
{
    unsigned d = hf_i_coverage_d(s->cov);
    for (size_t i = 0; i < s->n_attempted; i++) {
        uint32_t loc[4];
        bool in = !s->attempted[i].hit && s->attempted[i].len == d;
        for (unsigned j = 0; j < d; j++) {
            uint32_t v = s->attempted[i].t[j];
            loc[j] = v < s->plan_n ? hf_i_coverage_local(s->cov, v) : NONE;
            in = in && loc[j] != NONE;
        }
        if (in && hf_i_coverage_open(s->cov, loc))
            hf_i_coverage_add_partial(s->cov, s->attempted[i].t, d);
    }
}

/* mark[v] = the position + 1 of node v in the run, 0 when it did not run. */
static void mark_run(hf_online *s, size_t run)
{
    memset(s->mark, 0, ((size_t)s->n_nodes + 1) * sizeof *s->mark);
    for (size_t i = s->run_off[run]; i < s->run_off[run + 1]; i++)
        s->mark[s->sched[i]] = (uint32_t)(i - s->run_off[run]) + 1;
}

/* Whether the marked run ran the d nodes of t in that order. */
static bool marked_hits(const hf_online *s, const uint32_t *t, unsigned d)
{
    uint32_t prev = 0;
    for (unsigned j = 0; j < d; j++) {
        if (s->mark[t[j]] <= prev)
            return false;
        prev = s->mark[t[j]];
    }
    return true;
}

/* A repair plan for the open tuple t (node ids, d of them) whose events all ran in run `run`:
 * the run's own order, changed only as much as t's order asks (at each step the event that ran
 * first in that run among those whose parent and whose predecessor in t are placed). Nodes of
 * other runs get no position (they are placed as new events are). O(n^2) for n union nodes. */
static void repair_plan(hf_online *s, size_t run, const uint32_t *t, unsigned d)
{
    uint32_t n = s->plan_n, len = (uint32_t)(s->run_off[run + 1] - s->run_off[run]);
    const uint32_t *row = s->sched + s->run_off[run];
    for (uint32_t v = 0; v < n; v++)
        s->plan_pos[v] = NONE;
    uint32_t *rank = s->mark; /* chain predecessor in t, by node: NONE or t[j-1] */
    for (uint32_t v = 0; v <= n; v++)
        rank[v] = NONE;
    for (unsigned j = 1; j < d; j++)
        rank[t[j]] = t[j - 1];
    for (uint32_t k = 0; k < len; k++) {
        uint32_t pick = NONE;
        for (uint32_t i = 0; i < len && pick == NONE; i++) {
            uint32_t v = row[i], par = s->nodes[v].parent;
            if (s->plan_pos[v] != NONE)
                continue;
            if (par != NONE && s->plan_pos[par] == NONE)
                continue;
            if (rank[v] != NONE && s->plan_pos[rank[v]] == NONE)
                continue;
            pick = v;
        }
        if (pick == NONE) /* cannot happen for an admissible tuple: the constraints are acyclic */
            break;
        s->plan_pos[pick] = k;
    }
}

/* After a run: bring the coverage up to date and choose what the next run follows: first the
 * untried schedule of the offline family that hits the most tuples no run has hit; once none
 * hits any, one open tuple at a time, by a repair plan made from a run where its events all
 * ran. */
static hf_status learn_end(hf_online *s, hf_online_run_result *r, bool changed, hf_error *err)
{
    if (hf_i_grow(s->ctx, (void **)&s->mark, &s->mark_cap, (size_t)s->n_nodes + 1, sizeof *s->mark))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    size_t last = s->runs - 1;
    /* the tuples aimed at: did the last run hit them? */
    mark_run(s, last);
    unsigned dd = s->d < s->plan_n ? s->d : s->plan_n;
    for (size_t i = 0; i < s->n_attempted; i++)
        if (s->attempted[i].len == dd)
            s->attempted[i].hit = s->attempted[i].hit || marked_hits(s, s->attempted[i].t, dd);
    if (s->repair) {
        if (s->aim_len != dd || !marked_hits(s, s->aim, dd)) {
            if (hf_i_grow(s->ctx, (void **)&s->attempted, &s->attempted_cap, s->n_attempted + 1,
                          sizeof *s->attempted))
                return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            memcpy(s->attempted[s->n_attempted].t, s->aim, sizeof s->aim);
            s->attempted[s->n_attempted].len = s->aim_len;
            s->attempted[s->n_attempted++].hit = false;
        }
        s->repair = false;
    }
    bool rebuild = s->stale || !s->cov || s->n_nodes != s->plan_n;
    if (rebuild || changed) {
        size_t target = s->target;
        hf_status st = rebuild ? learn_rebuild(s, err) : HF_OK;
        if (!st && !rebuild) { /* same union, other events together: count again */
            hf_i_coverage *c = NULL;
            unsigned d = s->d < s->plan_n ? s->d : s->plan_n;
            st = hf_i_coverage_new(s->u, d, NULL, 0, &c, err);
            if (!st) {
                hf_i_coverage_free(s->cov);
                s->cov = c;
                for (size_t k = 0; k < s->runs; k++)
                    hf_i_coverage_add_partial(s->cov, s->sched + s->run_off[k],
                                              (uint32_t)(s->run_off[k + 1] - s->run_off[k]));
                if (target < hf_family_size(s->fam))
                    s->tried[target] = 1;
            }
        }
        s->stale = st != HF_OK;
        if (st) {
            learn_drop(s);
            return st;
        }
        s->apart = 0;
        if (s->cov)
            learn_set_aside(s);
    } else {
        hf_i_coverage_add_partial(s->cov, s->sched + s->run_off[last],
                                  (uint32_t)(s->run_off[last + 1] - s->run_off[last]));
        if (s->target != SIZE_MAX && s->target < hf_family_size(s->fam))
            s->tried[s->target] = 1;
    }
    s->next_target = SIZE_MAX;
    s->plan_left = 0;
    uint64_t best = 0;
    if (s->cov && hf_i_coverage_remaining(s->cov) > 0) {
        size_t m = hf_family_size(s->fam);
        if (m <= HF_ONLINE_LEARN_GREEDY) {
            for (size_t k = 0; k < m; k++) {
                if (s->tried[k])
                    continue;
                uint64_t c = hf_i_coverage_count_new(s->cov, hf_family_schedule(s->fam, k));
                if (c > 0)
                    s->plan_left++;
                if (c > best) {
                    best = c;
                    s->next_target = k;
                }
            }
        } else {
            /* a large family: the next untried schedule, in the family's order, that hits an
             * open tuple (each schedule is counted once per growth of the union forest) */
            for (size_t k = 0; k < m; k++) {
                if (s->tried[k])
                    continue;
                if (s->next_target == SIZE_MAX) {
                    if (hf_i_coverage_count_new(s->cov, hf_family_schedule(s->fam, k)) > 0)
                        s->next_target = k;
                    else
                        s->tried[k] = 1;
                }
                if (!s->tried[k])
                    s->plan_left++;
            }
        }
    }
    if (s->next_target != SIZE_MAX) {
        const uint32_t *row = hf_family_schedule(s->fam, s->next_target);
        for (uint32_t i = 0; i < s->plan_n; i++)
            s->plan_pos[row[i]] = i;
    } else if (s->cov) {
        unsigned d = hf_i_coverage_d(s->cov);
        uint32_t t[4];
        while (!s->repair && hf_i_coverage_first(s->cov, t)) {
            /* the latest run where all of t ran */
            size_t run = SIZE_MAX;
            for (size_t k = s->runs; k-- > 0 && run == SIZE_MAX;) {
                mark_run(s, k);
                bool all = true;
                for (unsigned j = 0; j < d && all; j++)
                    all = s->mark[t[j]] != 0;
                if (all)
                    run = k;
            }
            hf_i_coverage_add_partial(s->cov, t, d); /* aimed at now, or out of reach */
            if (run == SIZE_MAX) {
                s->apart++;
                continue;
            }
            repair_plan(s, run, t, d);
            memset(s->aim, 0xff, sizeof s->aim);
            memcpy(s->aim, t, d * sizeof *t);
            s->aim_len = d;
            s->repair = true;
        }
    }
    r->tuples = s->tuples;
    uint64_t open = s->cov ? hf_i_coverage_remaining(s->cov) : 0;
    uint64_t aside = 0;
    unsigned dnow = s->cov ? hf_i_coverage_d(s->cov) : 0;
    for (size_t i = 0; i < s->n_attempted; i++)
        aside += !s->attempted[i].hit && s->attempted[i].len == dnow;
    r->tuples_apart = s->apart + aside;
    r->tuples_hit = s->tuples - open - r->tuples_apart - (s->repair ? 1 : 0);
    r->more = s->next_target != SIZE_MAX || s->repair;
    r->bound = s->runs + s->plan_left + (s->repair ? 1 : 0);
    return HF_OK;
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
    if (s->n_ev > s->recent)
        take_children(s);
    if (s->pending > 0)
        return hf_i_fail(err, HF_ESTATE, 0, 0,
                         "%" PRIu32 " posted events have not run: a run plays all its events",
                         s->pending);
    if (s->running != NONE)
        s->ev[s->running].state = ST_DONE;
    s->running = NONE;
    s->open = false;
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
        if (s->d == 1 || !s->branched) {
            r->bound = 1;
        } else if (s->d == 2) {
            r->bound = 2;
        } else {
            uint64_t u = 0;
            for (uint32_t D = 0; D <= s->max_depth && D < s->useful_cap; D++)
                u += s->useful[D];
            r->bound = (s->useful[0] ? 0 : 1) + 4 * u;
        }
        break;
    default:
        st = learn_end(s, r, changed, err);
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

/* ---- what the session saw ---- */

size_t hf_online_runs(const hf_online *s) { return s ? s->runs : 0; }

const uint32_t *hf_online_schedule(const hf_online *s, size_t run, uint32_t *len)
{
    if (len)
        *len = 0;
    if (!s || run >= s->runs)
        return NULL;
    if (len)
        *len = (uint32_t)(s->run_off[run + 1] - s->run_off[run]);
    return s->sched + s->run_off[run];
}

uint32_t hf_online_run_events(const hf_online *s) { return s ? s->n_ev : 0; }

uint32_t hf_online_event_node(const hf_online *s, uint32_t event)
{
    return s && event < s->n_ev ? s->ev[event].node : NONE;
}

uint64_t hf_online_event_user(const hf_online *s, uint32_t event)
{
    return s && event < s->n_ev ? s->ev[event].user : 0;
}

uint32_t hf_online_nodes(const hf_online *s) { return s ? s->n_nodes : 0; }

uint32_t hf_online_node_parent(const hf_online *s, uint32_t node)
{
    return s && node < s->n_nodes ? s->nodes[node].parent : NONE;
}

const char *hf_online_node_label(const hf_online *s, uint32_t node)
{
    if (!s || node >= s->n_nodes || s->nodes[node].label == SIZE_MAX)
        return NULL;
    return s->labels + s->nodes[node].label;
}

/* One step of a node's name, written at buf[pos..] within cap - 1 bytes; returns its length. */
static size_t name_step(const hf_online *s, uint32_t node, char *buf, size_t cap, size_t pos)
{
    size_t len = 0;
    const unode *u = &s->nodes[node];
#define PUT(ch)                                                                                    \
    do {                                                                                           \
        if (buf && pos + len + 1 < cap)                                                            \
            buf[pos + len] = (ch);                                                                 \
        len++;                                                                                     \
    } while (0)
    if (u->label != SIZE_MAX)
        for (const char *c = s->labels + u->label; *c; c++) {
            if (*c == '\\' || *c == '/' || *c == '#')
                PUT('\\');
            PUT(*c);
        }
    if (u->label == SIZE_MAX || u->rank > 0) {
        char num[16];
        int k = snprintf(num, sizeof num, "#%" PRIu32, u->rank);
        for (int i = 0; i < k; i++)
            PUT(num[i]);
    }
#undef PUT
    return len;
}

size_t hf_online_node_name(const hf_online *s, uint32_t node, char *buf, size_t cap)
{
    if (buf && cap > 0)
        buf[0] = '\0';
    if (!s || node >= s->n_nodes)
        return 0;
    size_t total = 0;
    for (uint32_t v = node; v != NONE; v = s->nodes[v].parent)
        total += name_step(s, v, NULL, 0, 0) + (s->nodes[v].parent != NONE);
    /* write from the end: each step after the separator that precedes it */
    size_t end = total;
    for (uint32_t v = node; v != NONE; v = s->nodes[v].parent) {
        size_t len = name_step(s, v, NULL, 0, 0);
        end -= len;
        name_step(s, v, buf, cap, end);
        if (s->nodes[v].parent != NONE) {
            end--;
            if (buf && end + 1 < cap)
                buf[end] = '/';
        }
    }
    if (buf && cap > 0)
        buf[total < cap ? total : cap - 1] = '\0';
    return total;
}

hf_status hf_online_poset(const hf_online *s, hf_poset **out, hf_error *err)
{
    if (!s || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no session or no place to store the order");
    *out = NULL;
    hf_poset_builder *b = NULL;
    char *buf = NULL;
    size_t cap = 0;
    hf_status st = hf_poset_builder_new(s->ctx, &b);
    for (uint32_t v = 0; v < s->n_nodes && !st; v++) {
        size_t need = hf_online_node_name(s, v, NULL, 0) + 1;
        if (need > HF_MAX_NAME + 1) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "the name of union event %" PRIu32 " is longer than %u bytes", v,
                           HF_MAX_NAME);
            break;
        }
        if (hf_i_grow(s->ctx, (void **)&buf, &cap, need, 1)) {
            st = HF_ENOMEM;
            break;
        }
        hf_online_node_name(s, v, buf, cap);
        st = hf_poset_builder_add_event(b, buf, NULL);
    }
    for (uint32_t v = 0; v < s->n_nodes && !st; v++)
        if (s->nodes[v].parent != NONE)
            st = hf_poset_builder_add_order(b, s->nodes[v].parent, v);
    hf_i_free(s->ctx, buf);
    if (!st)
        st = hf_poset_builder_finish(b, out, err);
    else if (st != HF_ETOOLARGE)
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
    hf_poset_builder_free(b);
    return st;
}

/* ---- simulation on a known forest ---- */

hf_status hf_online_simulate(const hf_poset *p, const hf_online_options *o, hf_sink sink,
                             hf_online_sim_result *res, hf_error *err)
{
    hf_online_sim_result dummy;
    hf_online_sim_result *r = res ? res : &dummy;
    memset(r, 0, sizeof *r);
    if (!p || !o || !sink.put)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "no order, options or sink");
    if (!(hf_poset_shape(p) & HF_SHAPE_FOREST))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "online scheduling needs a forest: some event has two predecessors, "
                         "and an online run reveals an event when its one parent runs");
    hf_ctx *ctx = hf_poset_ctx(p);
    hf_online *s = NULL;
    hf_status st = hf_online_new(ctx, o, &s, err);
    if (st)
        return st;
    r->strategy = s->strategy;
    uint32_t n = hf_poset_size(p);
    uint32_t *map = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *map);
    uint32_t *order = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *order);
    if (!map || !order) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    for (;;) {
        if ((st = hf_online_begin_run(s, err)) != HF_OK)
            goto out;
        uint32_t e, k = 0;
        for (uint32_t v = 0; v < n && !st; v++)
            if (hf_poset_parent(p, v) == HF_NO_EVENT &&
                (st = hf_online_post(s, HF_NO_EVENT, hf_poset_name(p, v), &e, err)) == HF_OK)
                map[e] = v;
        while (!st && hf_online_pending(s) > 0) {
            if ((st = hf_online_next(s, &e, err)) != HF_OK)
                break;
            uint32_t v = map[e], cnt;
            order[k++] = v;
            const uint32_t *succ = hf_poset_hasse_succ(p, v, &cnt);
            for (uint32_t i = 0; i < cnt && !st; i++) {
                uint32_t ce;
                if ((st = hf_online_post(s, e, hf_poset_name(p, succ[i]), &ce, err)) == HF_OK)
                    map[ce] = succ[i];
            }
        }
        if (st)
            goto out;
        hf_online_run_result rr;
        if ((st = hf_online_end_run(s, &rr, err)) != HF_OK)
            goto out;
        r->runs++;
        r->bound = rr.bound;
        if (rr.more && n > 0 && rr.bound > HF_GEN_DEFAULT_MAX_NAMES / n) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "strategy %s would play %" PRIu64 " runs of %" PRIu32
                           " events, more than %" PRIu64 " names in all",
                           hf_online_strategy_name(s->strategy), rr.bound, n,
                           (uint64_t)HF_GEN_DEFAULT_MAX_NAMES);
            goto out;
        }
        if ((st = sink.put(sink.user, order, n)) != HF_OK) {
            hf_i_fail(err, st, 0, 0, "the sink stopped after %" PRIu64 " schedules: %s",
                      r->runs - 1, hf_strerror(st));
            goto out;
        }
        if (!rr.more)
            break;
    }
out:
    hf_i_free(ctx, map);
    hf_i_free(ctx, order);
    hf_online_free(s);
    return st;
}
