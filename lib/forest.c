/* Forest normalisation: the one place that turns forests and in-forests of any degree into a
 * single rooted out-tree (virtual root, duality, focus restriction, binary gadgets) and maps
 * the tree's schedules back to the order. */
#include <math.h>
#include <string.h>

#include "forest.h"
#include "poset_i.h"

void hf_i_tree_free(hf_i_tree *t)
{
    if (!t)
        return;
    hf_i_free(t->ctx, t->parent);
    hf_i_free(t->ctx, t->child_off);
    hf_i_free(t->ctx, t->child);
    hf_i_free(t->ctx, t->orig);
    hf_i_free(t->ctx, t);
}

static _Thread_local hf_i_tree_scope *scope_now;

void hf_i_tree_scope_begin(hf_i_tree_scope *s)
{
    s->outer = scope_now;
    s->kept = NULL;
    scope_now = s;
}

void hf_i_tree_scope_end(hf_i_tree_scope *s)
{
    if (s->kept) {
        s->kept->kept = false;
        hf_i_tree_free(s->kept);
        s->kept = NULL;
    }
    scope_now = s->outer;
}

hf_status hf_i_tree_shared(const hf_poset *p, const hf_i_tree_options *opt, hf_i_tree **out,
                           hf_error *err)
{
    hf_i_tree_options o = opt ? *opt : (hf_i_tree_options){HF_I_GADGET_NONE, NULL, 0};
    hf_i_tree_scope *s = scope_now;
    hf_i_tree *k = s ? s->kept : NULL;
    if (k && k->poset == p && k->made.gadget == o.gadget && k->made.focus == o.focus &&
        k->made.focus_count == o.focus_count) {
        *out = k;
        return HF_OK;
    }
    hf_status st = hf_i_tree_new(p, &o, out, err);
    if (!st && s && !k) {
        s->kept = *out;
        (*out)->kept = true;
    }
    return st;
}

void hf_i_tree_release(hf_i_tree *t)
{
    if (t && !t->kept)
        hf_i_tree_free(t);
}

/* The parent of v in tree space: its Hasse predecessor in a forest, successor in an in-forest. */
static uint32_t up_of(const hf_poset *p, bool forest, uint32_t v)
{
    const uint32_t *off = forest ? p->pred_off : p->succ_off;
    const uint32_t *adj = forest ? p->pred : p->succ;
    return off[v] < off[v + 1] ? adj[off[v]] : HF_NO_EVENT;
}

/* Scratch of the construction, freed together. */
typedef struct build {
    uint32_t *near;    /* nearest kept ancestor-or-self in tree space */
    uint32_t *node_of; /* event -> node of the unbinarized tree */
    uint32_t *order;   /* nodes of the unbinarized tree, top-down */
    uint32_t *off0;    /* children of the unbinarized tree (CSR) */
    uint32_t *kids0;
    uint32_t *slot;   /* position of a node among its parent's children */
    uint32_t *h;      /* binarized height below a node */
    double *prefix;   /* prefix sums of child weights */
    uint32_t *gadget; /* scratch of one gadget, 8 per child */
    uint32_t *stack;  /* renumber_preorder's */
} build;

static void build_free(hf_ctx *ctx, build *b)
{
    hf_i_free(ctx, b->near);
    hf_i_free(ctx, b->node_of);
    hf_i_free(ctx, b->order);
    hf_i_free(ctx, b->off0);
    hf_i_free(ctx, b->kids0);
    hf_i_free(ctx, b->slot);
    hf_i_free(ctx, b->h);
    hf_i_free(ctx, b->prefix);
    hf_i_free(ctx, b->gadget);
    hf_i_free(ctx, b->stack);
}

/* Where to split children lo..hi-1 (2 or more): the point where the prefix weight is closest
 * to half. With weights 2^height every child then ends up at most about
 * log2(total / own weight) + 2 levels below, so the binarized height stays within 2 of the
 * best possible for this child order. */
static uint32_t split_point(const double *prefix, uint32_t lo, uint32_t hi, bool by_count)
{
    if (by_count)
        return lo + (hi - lo) / 2;
    double half = (prefix[lo] + prefix[hi]) / 2;
    uint32_t best = lo + 1;
    double best_gap = fabs(prefix[best] - half);
    for (uint32_t m = lo + 2; m < hi; m++) { /* linear scan: children are seen O(depth) times */
        double gap = fabs(prefix[m] - half);
        if (gap < best_gap) {
            best = m;
            best_gap = gap;
        }
    }
    return best;
}

/* Number the nodes in preorder (root 0, children keep their order). The generators walk the
 * tree in DFS-like orders; with preorder ids those walks read the arrays sequentially, which
 * made generation on a 10^6-event random tree about six times faster than with the events'
 * own ids (tests/bench/bench_trees.c). `stack` holds t->n ids. */
static hf_status renumber_preorder(hf_i_tree *t, uint32_t *stack)
{
    hf_ctx *ctx = t->ctx;
    uint32_t N = t->n;
    uint32_t *inv = hf_i_alloc_array(ctx, N, sizeof *inv); /* new id -> old id */
    uint32_t *pre = hf_i_alloc_array(ctx, N, sizeof *pre); /* old id -> new id */
    uint32_t *parent = hf_i_alloc_array(ctx, N, sizeof *parent);
    uint32_t *orig = hf_i_alloc_array(ctx, N, sizeof *orig);
    uint32_t *child = hf_i_alloc_array(ctx, N, sizeof *child);
    uint32_t *off = hf_i_alloc_array(ctx, (size_t)N + 1, sizeof *off);
    if (!inv || !pre || !parent || !orig || !child || !off) {
        hf_i_free(ctx, inv);
        hf_i_free(ctx, pre);
        hf_i_free(ctx, parent);
        hf_i_free(ctx, orig);
        hf_i_free(ctx, child);
        hf_i_free(ctx, off);
        return HF_ENOMEM;
    }
    uint32_t sp = 0, k = 0;
    stack[sp++] = t->root;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        pre[v] = k;
        inv[k++] = v;
        for (uint32_t i = t->child_off[v + 1]; i-- > t->child_off[v];)
            stack[sp++] = t->child[i];
    }
    off[0] = 0;
    for (uint32_t u = 0; u < N; u++) {
        uint32_t v = inv[u];
        parent[u] = t->parent[v] == HF_NO_EVENT ? HF_NO_EVENT : pre[t->parent[v]];
        orig[u] = t->orig[v];
        off[u + 1] = off[u];
        for (uint32_t i = t->child_off[v]; i < t->child_off[v + 1]; i++)
            child[off[u + 1]++] = pre[t->child[i]];
    }
    hf_i_free(ctx, t->parent);
    hf_i_free(ctx, t->orig);
    hf_i_free(ctx, t->child);
    hf_i_free(ctx, t->child_off);
    hf_i_free(ctx, inv);
    hf_i_free(ctx, pre);
    t->parent = parent;
    t->orig = orig;
    t->child = child;
    t->child_off = off;
    t->root = 0;
    return HF_OK;
}

/* The binary gadget of a node with k >= 3 children whose binarized heights are hk[0..k-1], left
 * to right: children lo..hi-1 split at split_point, recursively, each part of two or more
 * children under a gadget node. Its shape, for the preorder walks that place it: child j ends
 * lead[j] >= 1 levels below the node, and opened[j] gadget nodes (the parts that start at j,
 * but not the whole) come just before it in preorder, at levels lead[j] - opened[j] ..
 * lead[j] - 1. Returns the node's binarized height. prefix: k + 1 doubles; stack: 3k. */
static uint32_t gadget_shape(const uint32_t *hk, uint32_t k, bool by_count, double *prefix,
                             uint32_t *stack, uint32_t *lead, uint32_t *opened)
{
    uint32_t hmax = 0;
    for (uint32_t j = 0; j < k; j++) {
        hmax = hk[j] > hmax ? hk[j] : hmax;
        opened[j] = 0;
    }
    prefix[0] = 0;
    for (uint32_t j = 0; j < k; j++) {
        int e = (int)hk[j] - (int)hmax;
        prefix[j + 1] = prefix[j] + ldexp(1.0, e < -1000 ? -1000 : e);
    }
    uint32_t sp = 0, hv = 0;
    stack[sp++] = 0;
    stack[sp++] = k;
    stack[sp++] = 0;
    while (sp > 0) {
        uint32_t depth = stack[--sp], hi = stack[--sp], l = stack[--sp];
        uint32_t m = split_point(prefix, l, hi, by_count);
        uint32_t parts[2][2] = {{l, m}, {m, hi}};
        for (uint32_t s = 0; s < 2; s++) {
            uint32_t a = parts[s][0], z = parts[s][1];
            if (z - a == 1) {
                lead[a] = depth + 1;
                hv = hk[a] + depth + 1 > hv ? hk[a] + depth + 1 : hv;
            } else {
                opened[a]++;
                stack[sp++] = a;
                stack[sp++] = z;
                stack[sp++] = depth + 1;
            }
        }
    }
    return hv;
}

/* Node u of a tree written in preorder, at level d with k children: in preorder a node's
 * parent is the last node met one level up (at[d - 1]), whose next child slot is cur[d - 1]. */
static inline void place(hf_i_tree *t, uint32_t u, uint32_t orig, uint32_t d, uint32_t k,
                         uint32_t *at, uint32_t *cur)
{
    t->orig[u] = orig;
    if (d == 0) {
        t->parent[u] = HF_NO_EVENT;
    } else {
        t->parent[u] = at[d - 1];
        t->child[cur[d - 1]++] = u;
    }
    at[d] = u;
    t->child_off[u + 1] = t->child_off[u] + k;
    cur[d] = t->child_off[u];
}

/* The tree read off the poset's forest views (lib/poset_finish.c) when it keeps every event: its
 * nodes are the events in the views' DFS order (roots and children in id order, the preorder the
 * general construction below ends with), after a virtual root when there is not exactly one root,
 * with each gadget's nodes just before the child subtrees they open. In preorder a node's parent
 * is the last node met one level up, so the tree follows from each node's level and degree. With
 * gadgets one pass bottom-up (reverse DFS order, the children's heights on a stack) shapes them;
 * one pass top-down writes the tree, the levels of the event nodes above on a stack. Each event's
 * degree is read once, a few nodes ahead (the one scattered read), against about ten passes with
 * scattered reads and writes for the general construction. False when it does not apply (a focus
 * set, or the views are missing); t is then untouched. */
static bool tree_from_views(const hf_poset *p, const hf_i_tree_options *opt, bool forest,
                            hf_i_tree *t, hf_status *st)
{
    uint32_t n = p->n;
    if (opt->focus || n == 0 || !p->dfs_order || !p->depth || p->dual != !forest)
        return false;
    const uint32_t *up_off = forest ? p->pred_off : p->succ_off;
    const uint32_t *down_off = forest ? p->succ_off : p->pred_off;
    const uint32_t *order = p->dfs_order, *depth = p->depth;
    uint32_t roots = 0, deepest = 0;
    size_t max_down = 0;
    for (uint32_t v = 0; v < n; v++) {
        roots += up_off[v] == up_off[v + 1];
        size_t d = down_off[v + 1] - down_off[v];
        max_down = d > max_down ? d : max_down;
        deepest = depth[v] > deepest ? depth[v] : deepest;
    }
    hf_ctx *ctx = p->ctx;
    uint32_t shift = roots != 1;
    bool gadgets = opt->gadget != HF_I_GADGET_NONE && (max_down > 2 || roots > 2);
    size_t wide = (max_down > roots ? max_down : roots) + 1;
    /* per event, by DFS position: lead (levels below its parent node, 1 without a gadget),
     * opened (gadget nodes just before it) and its number of children */
    uint32_t *lead = NULL, *opened = NULL, *kids = NULL, *hs = NULL, *is = NULL, *scratch = NULL;
    double *prefix = NULL;
    uint32_t extra = 0, height = 0;
    bool ok = true;
    if (gadgets) {
        lead = hf_i_alloc_array(ctx, n, sizeof *lead);
        opened = hf_i_alloc_array(ctx, n, sizeof *opened);
        kids = hf_i_alloc_array(ctx, n, sizeof *kids);
        /* a stack: heights and DFS positions bottom-up, levels and children left top-down */
        hs = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *hs);
        is = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *is);
        scratch = hf_i_alloc_array(ctx, 6 * wide, sizeof *scratch);
        prefix = hf_i_alloc_array(ctx, wide + 1, sizeof *prefix);
        ok = lead && opened && kids && hs && is && scratch && prefix;
    }
    if (ok && gadgets) {
        bool by_count = opt->gadget == HF_I_GADGET_BALANCED;
        uint32_t *hk = scratch, *lk = scratch + wide, *ol = scratch + 2 * wide,
                 *stk = scratch + 3 * wide;
        uint32_t sp = 0;
        enum { AHEAD = 16 };
        /* i == n stands for the virtual root, whose children are the roots: it comes last */
        for (uint32_t r = n + shift; r-- > 0;) {
            uint32_t i = r == 0 && shift ? n : r - shift;
#if defined(__GNUC__)
            if (i >= AHEAD && i - AHEAD < n)
                __builtin_prefetch(&down_off[order[i - AHEAD]]);
#endif
            uint32_t k = i == n ? roots : (uint32_t)(down_off[order[i] + 1] - down_off[order[i]]);
            uint32_t h = 0;
            if (k <= 2) {
                for (uint32_t j = 0; j < k; j++) {
                    uint32_t c = is[sp - 1 - j];
                    lead[c] = 1;
                    opened[c] = 0;
                    h = hs[sp - 1 - j] + 1 > h ? hs[sp - 1 - j] + 1 : h;
                }
            } else {
                for (uint32_t j = 0; j < k; j++)
                    hk[j] = hs[sp - 1 - j];
                h = gadget_shape(hk, k, by_count, prefix, stk, lk, ol);
                for (uint32_t j = 0; j < k; j++) {
                    uint32_t c = is[sp - 1 - j];
                    lead[c] = lk[j];
                    opened[c] = ol[j];
                }
                extra += k - 2;
            }
            sp -= k;
            if (i < n) {
                kids[i] = k;
                hs[sp] = h;
                is[sp++] = i;
            } else {
                height = h;
            }
        }
        if (!shift)
            height = hs[0];
    }
    hf_i_free(ctx, scratch);
    hf_i_free(ctx, prefix);
    if (!gadgets)
        height = deepest + shift;
    uint32_t N = n + shift + extra;
    /* per level: the last node met there and where its next child goes */
    size_t levels = (size_t)height + 2;
    uint32_t *at = NULL, *cur = NULL;
    if (ok) {
        at = hf_i_alloc_array(ctx, levels, sizeof *at);
        cur = hf_i_alloc_array(ctx, levels, sizeof *cur);
        t->parent = hf_i_alloc_array(ctx, N, sizeof *t->parent);
        t->orig = hf_i_alloc_array(ctx, N, sizeof *t->orig);
        t->child_off = hf_i_alloc_array(ctx, (size_t)N + 1, sizeof *t->child_off);
        t->child = hf_i_alloc_array(ctx, N, sizeof *t->child);
        ok = at && cur && t->parent && t->orig && t->child_off && t->child;
    }
    if (ok && !gadgets) { /* the stack of the pass below; bottom-up had none */
        hs = hf_i_alloc_array(ctx, (size_t)deepest + 2, sizeof *hs);
        is = hf_i_alloc_array(ctx, (size_t)deepest + 2, sizeof *is);
        ok = hs && is;
    }
    if (!ok)
        goto done;
    uint32_t u = 0;
    t->child_off[0] = 0;
    if (shift)
        place(t, u++, HF_NO_EVENT, 0, gadgets && roots > 2 ? 2 : roots, at, cur);
    /* the event nodes above: their levels and children still to come (the virtual root's are
     * the roots); this reads no event's depth, and its degree only once */
    uint32_t *evl = hs, *left = is, sp = 0;
    if (shift) {
        evl[sp] = 0;
        left[sp++] = roots;
    }
    enum { AHEAD = 16 };
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k;
        if (gadgets) {
            k = kids[i];
        } else {
#if defined(__GNUC__)
            if (i + AHEAD < n)
                __builtin_prefetch(&down_off[order[i + AHEAD]]);
#endif
            k = (uint32_t)(down_off[order[i] + 1] - down_off[order[i]]);
        }
        while (sp > 0 && left[sp - 1] == 0)
            sp--;
        uint32_t d = sp == 0 ? 0 : evl[sp - 1] + (gadgets ? lead[i] : 1);
        if (sp > 0)
            left[sp - 1]--;
        for (uint32_t g = gadgets ? d - opened[i] : d; g < d; g++) /* gadget nodes, top-down */
            place(t, u++, HF_NO_EVENT, g, 2, at, cur);
        evl[sp] = d;
        left[sp++] = k;
        place(t, u++, order[i], d, gadgets && k > 2 ? 2 : k, at, cur);
    }
    t->n = N;
    t->root = 0;
    t->height = height;
done:
    hf_i_free(ctx, lead);
    hf_i_free(ctx, opened);
    hf_i_free(ctx, kids);
    hf_i_free(ctx, hs);
    hf_i_free(ctx, is);
    hf_i_free(ctx, at);
    hf_i_free(ctx, cur);
    *st = ok ? HF_OK : HF_ENOMEM;
    return true;
}

hf_status hf_i_tree_new(const hf_poset *p, const hf_i_tree_options *opt, hf_i_tree **out,
                        hf_error *err)
{
    *out = NULL;
    hf_i_tree_options defaults = {HF_I_GADGET_NONE, NULL, 0};
    if (!opt)
        opt = &defaults;
    bool forest = p->shape & HF_SHAPE_FOREST;
    if (!forest && !(p->shape & HF_SHAPE_INFOREST))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "the order is neither a forest nor an in-forest");
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    build b = {0};
    hf_i_tree *t = hf_i_calloc(ctx, 1, sizeof *t);
    if (!t)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    t->ctx = ctx;
    t->poset = p;
    t->n_orig = n;
    t->reversed = !forest;
    t->made = *opt;
    hf_status fst;
    if (tree_from_views(p, opt, forest, t, &fst)) {
        if (fst) {
            hf_i_tree_free(t);
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        }
        *out = t;
        return HF_OK;
    }
    /* Kept events get nodes 0..K-1 in id order; then the virtual root; then gadget nodes,
     * fewer than K of them. */
    size_t cap = 2 * (size_t)n + 2;
    b.near = hf_i_alloc_array(ctx, n + 1, sizeof *b.near);
    b.node_of = hf_i_alloc_array(ctx, n + 1, sizeof *b.node_of);
    b.order = hf_i_alloc_array(ctx, n + 2, sizeof *b.order);
    b.off0 = hf_i_calloc(ctx, n + 3, sizeof *b.off0);
    b.kids0 = hf_i_alloc_array(ctx, n + 1, sizeof *b.kids0);
    b.slot = hf_i_alloc_array(ctx, cap, sizeof *b.slot);
    b.h = hf_i_alloc_array(ctx, cap, sizeof *b.h);
    b.stack = hf_i_alloc_array(ctx, cap, sizeof *b.stack);
    t->parent = hf_i_alloc_array(ctx, cap, sizeof *t->parent);
    t->orig = hf_i_alloc_array(ctx, cap, sizeof *t->orig);
    if (!b.near || !b.node_of || !b.order || !b.off0 || !b.kids0 || !b.slot || !b.h || !b.stack ||
        !t->parent || !t->orig)
        goto nomem;

    /* keep[] via node_of: HF_NO_EVENT = dropped */
    if (opt->focus) {
        memset(b.node_of, 0xff, (size_t)n * sizeof *b.node_of);
        for (size_t i = 0; i < opt->focus_count; i++)
            b.node_of[opt->focus[i]] = 0;
    } else {
        memset(b.node_of, 0, (size_t)n * sizeof *b.node_of);
    }
    uint32_t K = 0;
    for (uint32_t v = 0; v < n; v++)
        if (b.node_of[v] != HF_NO_EVENT) {
            b.node_of[v] = K;
            t->orig[K++] = v;
        }
    t->restricted = K < n;
    /* nearest kept ancestor-or-self, top-down in tree space */
    uint32_t roots = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = p->topo[forest ? i : n - 1 - i];
        uint32_t u = up_of(p, forest, v);
        uint32_t above = u == HF_NO_EVENT ? HF_NO_EVENT : b.near[u];
        b.near[v] = b.node_of[v] != HF_NO_EVENT ? v : above;
        if (b.node_of[v] != HF_NO_EVENT) {
            t->parent[b.node_of[v]] = above == HF_NO_EVENT ? HF_NO_EVENT : b.node_of[above];
            roots += above == HF_NO_EVENT;
        }
    }
    uint32_t N = K;
    if (roots != 1) {
        t->root = N;
        t->orig[N] = HF_NO_EVENT;
        t->parent[N] = HF_NO_EVENT;
        for (uint32_t v = 0; v < K; v++)
            if (t->parent[v] == HF_NO_EVENT)
                t->parent[v] = N;
        N++;
    } else {
        for (uint32_t v = 0; v < K; v++)
            if (t->parent[v] == HF_NO_EVENT)
                t->root = v;
    }
    uint32_t N0 = N; /* nodes of the unbinarized tree */
    /* its children, in node (= id) order, and a top-down order by BFS */
    for (uint32_t v = 0; v < N0; v++)
        if (t->parent[v] != HF_NO_EVENT)
            b.off0[t->parent[v] + 2]++;
    for (uint32_t v = 0; v < N0; v++)
        b.off0[v + 2] += b.off0[v + 1];
    for (uint32_t v = 0; v < N0; v++)
        if (t->parent[v] != HF_NO_EVENT) {
            uint32_t par = t->parent[v];
            b.kids0[b.off0[par + 1]++] = v;
        }
    for (uint32_t v = 0; v < N0; v++)
        for (uint32_t i = b.off0[v]; i < b.off0[v + 1]; i++)
            b.slot[b.kids0[i]] = i - b.off0[v];
    uint32_t head = 0, tail = 0;
    b.order[tail++] = t->root;
    while (head < tail) {
        uint32_t v = b.order[head++];
        for (uint32_t i = b.off0[v]; i < b.off0[v + 1]; i++)
            b.order[tail++] = b.kids0[i];
    }

    /* bottom-up: heights, and gadgets for nodes with more than two children */
    uint32_t wide = 0;
    for (uint32_t v = 0; v < N0; v++)
        wide = b.off0[v + 1] - b.off0[v] > wide ? b.off0[v + 1] - b.off0[v] : wide;
    wide++;
    b.prefix = hf_i_alloc_array(ctx, (size_t)wide + 1, sizeof *b.prefix);
    b.gadget = hf_i_alloc_array(ctx, 8 * (size_t)wide, sizeof *b.gadget);
    if (!b.prefix || !b.gadget)
        goto nomem;
    /* the children's heights, their shape (gadget_shape's stack of 3), and per level the last
     * node placed and its children so far */
    uint32_t *hk = b.gadget, *lead = hk + wide, *opened = lead + wide, *gstack = opened + wide,
             *atl = gstack + 3 * wide, *nk = atl + wide;
    for (uint32_t i = N0; i-- > 0;) {
        uint32_t v = b.order[i];
        uint32_t lo = b.off0[v], k = b.off0[v + 1] - lo;
        uint32_t hmax = 0;
        for (uint32_t j = 0; j < k; j++)
            hmax = b.h[b.kids0[lo + j]] > hmax ? b.h[b.kids0[lo + j]] : hmax;
        if (k <= 2 || opt->gadget == HF_I_GADGET_NONE) {
            b.h[v] = k ? hmax + 1 : 0;
            continue;
        }
        const uint32_t *kids = b.kids0 + lo;
        for (uint32_t j = 0; j < k; j++)
            hk[j] = b.h[kids[j]];
        b.h[v] = gadget_shape(hk, k, opt->gadget == HF_I_GADGET_BALANCED, b.prefix, gstack, lead,
                              opened);
        /* in the gadget's preorder a node's parent is the last node placed one level up */
        atl[0] = v;
        nk[0] = 0;
        for (uint32_t j = 0; j < k; j++) {
            for (uint32_t l = lead[j] - opened[j]; l < lead[j]; l++) {
                uint32_t g = N++;
                t->parent[g] = atl[l - 1];
                t->orig[g] = HF_NO_EVENT;
                b.slot[g] = nk[l - 1]++;
                atl[l] = g;
                nk[l] = 0;
            }
            t->parent[kids[j]] = atl[lead[j] - 1];
            b.slot[kids[j]] = nk[lead[j] - 1]++;
        }
    }
    t->n = N;
    t->height = b.h[t->root];

    /* final children lists from parent + slot */
    t->child_off = hf_i_calloc(ctx, (size_t)N + 1, sizeof *t->child_off);
    t->child = hf_i_alloc_array(ctx, N, sizeof *t->child);
    if (!t->child_off || !t->child)
        goto nomem;
    for (uint32_t v = 0; v < N; v++)
        if (t->parent[v] != HF_NO_EVENT)
            t->child_off[t->parent[v] + 1]++;
    for (uint32_t v = 0; v < N; v++)
        t->child_off[v + 1] += t->child_off[v];
    for (uint32_t v = 0; v < N; v++)
        if (t->parent[v] != HF_NO_EVENT)
            t->child[t->child_off[t->parent[v]] + b.slot[v]] = v;
    if (renumber_preorder(t, b.stack) != HF_OK)
        goto nomem;
    build_free(ctx, &b);
    *out = t;
    return HF_OK;
nomem:
    build_free(ctx, &b);
    hf_i_tree_free(t);
    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
}

hf_status hf_i_tree_outline(const hf_poset *p, uint32_t *leaves, uint32_t spine[2])
{
    bool forest = p->shape & HF_SHAPE_FOREST;
    if (!forest && !(p->shape & HF_SHAPE_INFOREST))
        return HF_EUNSUPPORTED;
    const uint32_t *up_off = forest ? p->pred_off : p->succ_off;
    const uint32_t *down_off = forest ? p->succ_off : p->pred_off;
    const uint32_t *down = forest ? p->succ : p->pred;
    uint32_t roots = 0, first = HF_NO_EVENT, last = HF_NO_EVENT;
    *leaves = 0;
    for (uint32_t v = 0; v < p->n; v++) {
        if (up_off[v] == up_off[v + 1]) {
            roots++;
            first = first == HF_NO_EVENT ? v : first;
            last = v;
        }
        *leaves += down_off[v] == down_off[v + 1];
    }
    if (p->n == 0)
        *leaves = 1; /* the virtual root alone */
    /* children are in id order: the first child is the smallest id, the last the largest */
    for (int w = 0; w < 2; w++) {
        spine[w] = 0;
        for (uint32_t x = roots == 1 || !w ? first : last; x != HF_NO_EVENT;) {
            spine[w]++;
            uint32_t next = HF_NO_EVENT;
            for (size_t i = down_off[x]; i < down_off[x + 1]; i++)
                if (next == HF_NO_EVENT || (w ? down[i] > next : down[i] < next))
                    next = down[i];
            x = next;
        }
    }
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Mapping schedules back                                                                     */

struct hf_i_emitter {
    const hf_i_tree *t;
    uint32_t *out;
    uint32_t *mark; /* mark[v] == epoch: v is placed in the current schedule */
    uint32_t epoch;
    uint32_t *stack;
};

void hf_i_emitter_free(hf_i_emitter *e)
{
    if (!e)
        return;
    hf_ctx *ctx = e->t->ctx;
    hf_i_free(ctx, e->out);
    hf_i_free(ctx, e->mark);
    hf_i_free(ctx, e->stack);
    hf_i_free(ctx, e);
}

hf_status hf_i_emitter_new(const hf_i_tree *t, hf_i_emitter **out)
{
    *out = NULL;
    hf_i_emitter *e = hf_i_calloc(t->ctx, 1, sizeof *e);
    if (!e)
        return HF_ENOMEM;
    e->t = t;
    e->out = hf_i_alloc_array(t->ctx, t->n_orig, sizeof *e->out);
    e->mark = hf_i_calloc(t->ctx, t->n_orig, sizeof *e->mark);
    e->stack = hf_i_alloc_array(t->ctx, t->n_orig, sizeof *e->stack);
    if (!e->out || !e->mark || !e->stack) {
        hf_i_emitter_free(e);
        return HF_ENOMEM;
    }
    *out = e;
    return HF_OK;
}

hf_status hf_i_emit(hf_i_emitter *e, const uint32_t *schedule, hf_sink sink)
{
    const hf_i_tree *t = e->t;
    const hf_poset *p = t->poset;
    uint32_t n = t->n_orig, k = 0;
    bool forest = !t->reversed;
    if (!t->restricted) {
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t v = t->orig[schedule[i]];
            if (v != HF_NO_EVENT)
                e->out[k++] = v;
        }
    } else {
        if (++e->epoch == 0) { /* wrapped: clear the marks once every 2^32 schedules */
            memset(e->mark, 0, (size_t)n * sizeof *e->mark);
            e->epoch = 1;
        }
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t v = t->orig[schedule[i]];
            if (v == HF_NO_EVENT)
                continue;
            uint32_t sp = 0;
            for (uint32_t u = v; u != HF_NO_EVENT && e->mark[u] != e->epoch;
                 u = up_of(p, forest, u))
                e->stack[sp++] = u;
            while (sp > 0) {
                uint32_t w = e->stack[--sp];
                e->mark[w] = e->epoch;
                e->out[k++] = w;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = p->topo[forest ? i : n - 1 - i];
            if (e->mark[v] != e->epoch) {
                e->mark[v] = e->epoch;
                e->out[k++] = v;
            }
        }
    }
    if (t->reversed)
        for (uint32_t i = 0; i < k / 2; i++) {
            uint32_t x = e->out[i];
            e->out[i] = e->out[k - 1 - i];
            e->out[k - 1 - i] = x;
        }
    return sink.put(sink.user, e->out, k);
}

hf_status hf_poset_tree_height(const hf_poset *p, uint32_t *height)
{
    if (!p || !height)
        return HF_EINVAL;
    hf_i_tree_options opt = {HF_I_GADGET_WEIGHTED, NULL, 0};
    hf_i_tree *t;
    hf_status st = hf_i_tree_new(p, &opt, &t, NULL);
    if (st)
        return st;
    *height = t->height;
    hf_i_tree_free(t);
    return HF_OK;
}
