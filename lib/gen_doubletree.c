/* d = 3 on forests and in-forests: the double-tree family U_k of Chistikov, Majumdar, Niksic
 * (CAV 2016, Section 4), restricted to the binarized tree and generated row by row. */
#include <pthread.h>
#include <string.h>

#include "family_rows_i.h"
#include "forest.h"
#include "gen.h"
#include "poset_i.h"

/*
 * The rows on the tree.
 *
 * A binarized tree of height k embeds in T_k (a single child is taken as the 0-child) and T_k in
 * the double tree D_k: a node of depth < k is a down event, a node of depth k a leaf; up events
 * have no counterpart. Row i of a group of U_k is built from row i of the same group of U_{k-1},
 * used on both halves D^0 and D^1, for i < 2(k-1), and is a traversal row for i = 2k-2, 2k-1.
 * Unrolled, row i keeps recursing down to depth D = k-1-i/2, where it turns into one of the two
 * traversal rows. On the tree this gives, for the row (variant, D), a first half F and a second
 * half S:
 *   F: the preorder of the nodes of depth <= D, children 0 then 1 in the upper group and 1 then
 *      0 in the lower group; each node u of depth D is followed at once by a traversal of its
 *      "first" child;
 *   S: the nodes u of depth D in the reverse of that order, each giving a traversal of its
 *      other child.
 * The traversal is l (preorder, 0 before 1) in even rows and r (1 before 0) in odd rows. The
 * four variants, by group and row parity:
 *   A (upper, even): l, first child 0      B (upper, odd): r, first child 1
 *   C (lower, even): l, first child 1      E (lower, odd): r, first child 0
 * U_k lists A_D, B_D for D = k-1 .. 0, then C_D, E_D for D = k-1 .. 0; we emit in that order.
 *
 * Which rows coincide, exactly and without comparing rows.
 *
 * A row is a linear extension, so it is fixed by how it orders the pairs x, y split at a
 * two-child node w (x under w's 0-child, y under its 1-child). Against l(root), which puts
 * every x first, a row of the family puts y first for the pairs in S x sub(w1) with S a subset
 * of sub(w0) (variants A, B), or in sub(w0) x T with T a subset of sub(w1) (C, E):
 *   A_D: depth(w) >= D: none; else S = the subtrees of the 1-children of depth D+1 under w0.
 *   B_D: depth(w) >= D: all;  else S = the subtrees of the 0-children of depth D+1 under w0.
 *   C_D: depth(w) > D: none; = D: all; else T = sub(w1) minus the subtrees of its 0-children
 *        of depth D+1.
 *   E_D: depth(w) > D: all; = D: none; else T = sub(w1) minus the subtrees of its 1-children of
 *        depth D+1.
 * Call the row proper if some w gets a proper nonempty S or T. Such a set names its depth D+1,
 * its side and the kind of children, so a proper row equals no other row. Every other row is
 * "plain": each two-child node w is inverted wholly or not at all, depending on depth(w) only,
 * and two plain rows are equal iff they invert the same set of branching depths (depths that
 * hold a two-child node): A: none; B_D: those >= D; C_D: those <= D; E_D: all but D. These are
 * prefixes, suffixes, or all but one, so a few flags per branching depth record which plain rows
 * were emitted. Properness is local: A_D is proper iff some node u of depth D has two children
 * and lies under the 0-child of a two-child strict ancestor; B_D the same with one child or
 * two; C_D iff some u of depth D has a child and lies under a 1-child of a strict ancestor; E_D
 * the same with two children. The tests check the rule against U_k built explicitly from its
 * definition, restricted to subtrees of T_k and deduplicated by comparing rows.
 * The rule replaces hashing and comparing rows: the 4k labels are sorted out in O(n + k) before
 * any row is built, so the prediction builds no row and a duplicate costs O(1) (a chain of
 * 200,000 events has 800,000 labels but may have a handful of distinct rows).
 *
 * Virtual nodes (the root added above a forest, gadgets) have two children, and every leaf is a
 * real event. So each subtree holds real events, and the first real event on the 0-path (or
 * 1-path) below a node of depth D+1 still tells the sets above apart once virtual nodes are
 * dropped: distinct rows stay distinct (the tests also check that no schedule is emitted twice
 * on trees with gadgets). Size at most 4k, exactly 4k on T_k for k >= 2. Focus restriction and
 * in-forests are the forest view's business.
 */

enum { VAR_A = 0, VAR_B = 1, VAR_C = 2, VAR_E = 3 };

/* Per-depth flags: PROPER << variant, and BRANCH. */
enum { PROPER = 1, BRANCH = 16 };

/* A preorder of the whole tree, as rows are copied from it. The tree's node ids are its
 * left-to-right preorder (0-child first), so the subtree of u is positions pos(u) ..
 * pos(u) + size(u) - 1 of either preorder; in the right-to-left one, u comes after its depth(u)
 * ancestors and the nodes right of it, which are those after its subtree in the left-to-right
 * one: pos(u) = depth(u) + n - u - size(u) (pos_in). `val` holds what a row lists at each
 * position with the virtual nodes dropped (the order's events; the tree's nodes, all of them,
 * when a focus set restricted the tree and the emitter extends the row), and rank[i] counts the
 * values at positions before i: positions a..b-1 are val[rank[a] .. rank[b] - 1], one copy.
 * A tree without virtual nodes, unrestricted, has every position's value: rank is then NULL (the
 * identity), and the left-to-right preorder's values are the tree's own map to the order
 * (val borrowed from t->orig), so that a row's plan takes 12 bytes an event fewer. */
typedef struct preorder {
    uint32_t *rank; /* n + 1; NULL: rank[i] = i */
    uint32_t *val;  /* t->orig itself: the tree's, not freed with the plan */
} preorder;

typedef struct plan {
    hf_i_tree *t;
    uint32_t k;       /* height of the tree */
    uint8_t *flags;   /* per depth 0..k-1 */
    uint32_t *nbelow; /* per depth 0..k: number of branching depths < D */
    uint32_t nb;      /* number of branching depths */
    uint8_t *seen;    /* plain rows emitted: prefixes [0,h), suffixes [l,nb), all but one */
    /* for building rows (plan_rows) */
    uint32_t *size;      /* nodes in the subtree of a node */
    uint32_t *by_depth;  /* nodes by depth, in id (= left-to-right preorder) order within one */
    uint32_t *depth_off; /* k + 2 offsets into by_depth */
    preorder ord[2];     /* children 0 then 1 (l), 1 then 0 (r) */
    uint32_t len;        /* values in a row */
    /* Rows described to the family writer as ranges of the two preorders' values
     * (lib/family_rows_i.h): when the values are the order's events in the order a row lists
     * them (no focus restriction, not an in-forest); src_id names them, 0 otherwise. */
    uint64_t src_id;
    size_t max_ranges; /* ranges of a row at most */
} plan;

static void plan_free(plan *pl)
{
    if (!pl->t)
        return;
    hf_ctx *ctx = pl->t->ctx;
    hf_i_free(ctx, pl->flags);
    hf_i_free(ctx, pl->nbelow);
    hf_i_free(ctx, pl->seen);
    hf_i_free(ctx, pl->size);
    hf_i_free(ctx, pl->by_depth);
    hf_i_free(ctx, pl->depth_off);
    for (int i = 0; i < 2; i++) {
        hf_i_free(ctx, pl->ord[i].rank);
        if (pl->ord[i].val != pl->t->orig)
            hf_i_free(ctx, pl->ord[i].val);
    }
    hf_i_tree_release(pl->t);
    pl->t = NULL;
}

/* Tree, depths and the per-depth flags of the dedup rule; with `rows`, what building rows needs
 * (plan_rows). O(n) after the tree, no recursion. */
static hf_status plan_rows(plan *pl, const uint32_t *depth);

static hf_status plan_new(const hf_poset *p, const hf_gen_options *opt, bool rows, plan *pl,
                          hf_error *err)
{
    *pl = (plan){0};
    hf_i_tree_options topt = {HF_I_GADGET_WEIGHTED, opt->focus, opt->focus_count};
    hf_status st = hf_i_tree_shared(p, &topt, &pl->t, err);
    if (st)
        return st;
    const hf_i_tree *t = pl->t;
    hf_ctx *ctx = t->ctx;
    uint32_t n = t->n;
    uint32_t *depth = hf_i_alloc_array(ctx, n, sizeof *depth);
    uint8_t *side = hf_i_alloc_array(ctx, n, 1); /* bit 0: under a 0-child with a sibling,
                                                    bit 1: under a 1-child */
    if (!depth || !side)
        goto nomem;
    /* node ids are a preorder: a parent comes before its children; the tree's height is the
     * deepest depth */
    uint32_t k = t->height;
    pl->k = k;
    pl->flags = hf_i_calloc(ctx, (size_t)k + 1, 1);
    pl->nbelow = hf_i_alloc_array(ctx, (size_t)k + 1, sizeof *pl->nbelow);
    if (!pl->flags || !pl->nbelow)
        goto nomem;
    depth[t->root] = 0;
    side[t->root] = 0;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
        uint8_t f = 0;
        if (cnt == 2)
            f |= BRANCH | (side[u] & 1 ? PROPER << VAR_A : 0) | (side[u] & 2 ? PROPER << VAR_E : 0);
        if (cnt >= 1)
            f |= (side[u] & 1 ? PROPER << VAR_B : 0) | (side[u] & 2 ? PROPER << VAR_C : 0);
        pl->flags[depth[u]] |= f;
        for (uint32_t j = 0; j < cnt; j++) {
            uint32_t c = t->child[lo + j];
            depth[c] = depth[u] + 1;
            side[c] = side[u] | (j == 0 && cnt == 2 ? 1 : 0) | (j == 1 ? 2 : 0);
        }
    }
    pl->nb = 0;
    for (uint32_t D = 0; D <= k; D++) {
        pl->nbelow[D] = pl->nb;
        pl->nb += (pl->flags[D] & BRANCH) != 0;
    }
    pl->seen = hf_i_calloc(ctx, 3 * ((size_t)pl->nb + 1), 1);
    if (!pl->seen || (rows && plan_rows(pl, depth)))
        goto nomem;
    hf_i_free(ctx, depth);
    hf_i_free(ctx, side);
    return HF_OK;
nomem:
    hf_i_free(ctx, depth);
    hf_i_free(ctx, side);
    plan_free(pl);
    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
}

/* Subtree sizes, the nodes by depth, and both preorders with their values. O(n). */
static hf_status plan_rows(plan *pl, const uint32_t *depth)
{
    const hf_i_tree *t = pl->t;
    hf_ctx *ctx = t->ctx;
    uint32_t n = t->n, k = pl->k;
    preorder *l = &pl->ord[0], *r = &pl->ord[1];
    /* restricted: the emitter maps nodes to events and extends the row, so every node stays */
    bool keep = t->restricted, whole = !keep && n == t->n_orig; /* whole: no virtual node */
    pl->size = hf_i_alloc_array(ctx, n, sizeof *pl->size);
    pl->by_depth = hf_i_alloc_array(ctx, n, sizeof *pl->by_depth);
    pl->depth_off = hf_i_calloc(ctx, (size_t)k + 2, sizeof *pl->depth_off);
    for (int i = 0; i < 2 && !whole; i++)
        pl->ord[i].rank = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *l->rank);
    l->val = whole ? t->orig : hf_i_alloc_array(ctx, n, sizeof *l->val);
    r->val = hf_i_alloc_array(ctx, n, sizeof *r->val);
    if (!pl->size || !pl->by_depth || !pl->depth_off || (!whole && (!l->rank || !r->rank)) ||
        !l->val || !r->val)
        return HF_ENOMEM;
    /* sizes bottom-up, and the nodes per depth counted */
    for (uint32_t u = n; u-- > 0;) {
        uint32_t s = 1;
        for (uint32_t i = t->child_off[u]; i < t->child_off[u + 1]; i++)
            s += pl->size[t->child[i]];
        pl->size[u] = s;
        pl->depth_off[depth[u] + 1]++;
    }
    for (uint32_t D = 0; D <= k; D++)
        pl->depth_off[D + 1] += pl->depth_off[D];
    /* the nodes by depth, and the left-to-right preorder's values: its positions are the node
     * ids */
    uint32_t m = 0;
    for (uint32_t u = 0; u < n; u++) {
        pl->by_depth[pl->depth_off[depth[u]]++] = u;
        if (whole)
            continue;
        l->rank[u] = m;
        if (keep || t->orig[u] != HF_NO_EVENT)
            l->val[m++] = keep ? u : t->orig[u];
    }
    if (whole)
        m = n;
    else
        l->rank[n] = m;
    for (uint32_t D = k + 1; D > 0; D--) /* the filling moved each offset to the next one's */
        pl->depth_off[D] = pl->depth_off[D - 1];
    pl->depth_off[0] = 0;
    /* the right-to-left preorder (a node, then its children's subtrees from the last), walked
     * with a stack: ranks and values in one pass */
    uint32_t *stack = hf_i_alloc_array(ctx, n, sizeof *stack);
    if (!stack)
        return HF_ENOMEM;
    uint32_t sp = 0, i = 0, c = 0;
    stack[sp++] = t->root;
    while (sp > 0) {
        uint32_t u = stack[--sp];
        if (r->rank)
            r->rank[i++] = c;
        if (keep || t->orig[u] != HF_NO_EVENT)
            r->val[c++] = keep ? u : t->orig[u];
        for (uint32_t j = t->child_off[u]; j < t->child_off[u + 1]; j++)
            stack[sp++] = t->child[j];
    }
    if (r->rank)
        r->rank[n] = c;
    hf_i_free(ctx, stack);
    pl->len = m;
    if (!keep && !t->reversed && m == t->n_orig) {
        uint32_t widest = 0;
        for (uint32_t D = 0; D <= k; D++)
            widest = pl->depth_off[D + 1] - pl->depth_off[D] > widest
                         ? pl->depth_off[D + 1] - pl->depth_off[D]
                         : widest;
        pl->src_id = hf_i_row_source_id();
        pl->max_ranges = 3 * (size_t)widest + 2; /* build_row notes at most this many */
    }
    return HF_OK;
}

/* Whether row (v, D) differs from every row taken before it; takes it. O(1). */
static bool plan_take(plan *pl, unsigned v, uint32_t D)
{
    if (pl->flags[D] & (PROPER << v))
        return true;
    /* the inverted branching depths, as indices lo..hi-1 into the sorted branching depths */
    uint32_t nb = pl->nb, below = pl->nbelow[D], upto = pl->nbelow[D + 1];
    uint32_t lo = 0, hi = 0;
    size_t slot;
    switch (v) {
    case VAR_A:
        break;
    case VAR_B:
        lo = below, hi = nb;
        break;
    case VAR_C:
        hi = upto;
        break;
    default: /* VAR_E: all but D */
        hi = nb;
        if (upto > below) {
            if (below == 0)
                lo = 1;
            else if (below == nb - 1)
                hi = nb - 1;
            else {
                slot = 2 * ((size_t)nb + 1) + below;
                goto mark;
            }
        }
    }
    if (lo >= hi)
        slot = 0; /* the empty prefix */
    else if (lo == 0)
        slot = hi;
    else /* a suffix [lo, nb) with 0 < lo < nb */
        slot = (size_t)nb + 1 + lo;
mark:
    if (pl->seen[slot])
        return false;
    pl->seen[slot] = 1;
    return true;
}

/* The rows in U_k order: index r = 0 .. 4k-1 to (variant, D). */
static void row_of(uint32_t k, uint64_t r, unsigned *v, uint32_t *D)
{
    bool lower = r >= 2 * (uint64_t)k;
    uint64_t i = lower ? r - 2 * (uint64_t)k : r;
    *D = k - 1 - (uint32_t)(i / 2);
    *v = (lower ? VAR_C : VAR_A) + (unsigned)(i % 2);
}

static hf_status dt_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d < 3)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method doubletree builds 3-hitting families only (d=%u asked); use dfs "
                         "for d <= 2",
                         opt->d);
    if (opt->d > 3)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method doubletree builds 3-hitting families only (d=%u asked); methods "
                         "simple and pattern cover d > 3",
                         opt->d);
    if (!(p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)))
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method doubletree needs a forest or an in-forest; this order has an "
                         "event with two predecessors and one with two successors");
    return HF_OK;
}

/* Exact size: the dedup rule run over the 4k row labels, no row built. O(n log n) for the
 * forest view, then O(n + k) time and O(n) memory. */
static hf_status dt_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size, hf_error *err)
{
    plan pl;
    hf_status st = plan_new(p, opt, false, &pl, err);
    if (st)
        return st;
    uint64_t count = pl.k == 0 ? 1 : 0; /* a single node: its one schedule */
    for (uint64_t r = 0; r < 4 * (uint64_t)pl.k; r++) {
        unsigned v;
        uint32_t D;
        row_of(pl.k, r, &v, &D);
        count += plan_take(&pl, v, D);
    }
    mpz_set_ui(size, 0);
    mpz_import(size, 1, -1, sizeof count, 0, 0, &count); /* exact whatever the width of long */
    plan_free(&pl);
    return HF_OK;
}

/* The position of node @p u, of depth @p depth, in preorder ord[@p right] (see preorder). */
static inline uint32_t pos_in(const plan *pl, bool right, uint32_t u, uint32_t depth)
{
    return right ? depth + pl->t->n - u - pl->size[u] : u;
}

/* The values before position @p a of preorder o. */
static inline uint32_t rank_at(const preorder *o, uint32_t a) { return o->rank ? o->rank[a] : a; }

/* Appends positions a .. b-1 of preorder o to row at len (row NULL: only counted); returns the
 * new length. */
static inline uint32_t put(const preorder *o, uint32_t a, uint32_t b, uint32_t *row, uint32_t len)
{
    uint32_t from = rank_at(o, a), count = rank_at(o, b) - from;
    if (row)
        memcpy(row + len, o->val + from, (size_t)count * sizeof *row);
    return len + count;
}

/* The ranges of a row being built: values rank[a] .. rank[b] - 1 of preorder src, joined to the
 * previous range when they continue it. NULL ranges: not recorded. */
typedef struct range_list {
    hf_i_row_range *r;
    size_t count;
} range_list;

static inline void note(range_list *rl, uint32_t src, const preorder *o, uint32_t a, uint32_t b)
{
    if (!rl || !rl->r)
        return;
    uint32_t from = rank_at(o, a), to = rank_at(o, b);
    if (from == to)
        return;
    hf_i_row_range *last = rl->count ? &rl->r[rl->count - 1] : NULL;
    if (last && last->src == src && last->b == from)
        last->b = to;
    else
        rl->r[rl->count++] = (hf_i_row_range){src, from, to};
}

/* Row (v, D) (see the comment at the top) into row, pl->len values (row NULL: only its ranges
 * into rl). F is the preorder T of the
 * tree (l in the upper group, r in the lower) with each node u of depth D followed by the
 * traversal X (l or r) of its first child, and without the rest of u's subtree: runs of T
 * between the nodes of depth D, and one range of X per node. S is one range of X per node of
 * depth D. The nodes of depth D, in l order, are the reverse of their r order (two of them split
 * at their lowest common ancestor). O(n) copied, O(nodes of depth D) steps; no recursion. */
static void build_row(const plan *pl, unsigned v, uint32_t D, uint32_t *row, range_list *rl)
{
    if (rl)
        rl->count = 0;
    const hf_i_tree *t = pl->t;
    bool lower = v >= VAR_C, right = v & 1;
    uint32_t first = v == VAR_B || v == VAR_C; /* index of the child traversed in F */
    const preorder *T = &pl->ord[lower], *X = &pl->ord[right];
    const uint32_t *at = pl->by_depth + pl->depth_off[D];
    uint32_t count = pl->depth_off[D + 1] - pl->depth_off[D];
    uint32_t len = 0, next = 0; /* the next position of T not yet in the row or skipped */
    for (uint32_t j = 0; j < count; j++) {
        uint32_t u = at[lower ? count - 1 - j : j];
        uint32_t p = pos_in(pl, lower, u, D), lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
        if (first < cnt) {
            uint32_t c = t->child[lo + first], a = pos_in(pl, right, c, D + 1);
            if (X == T && a == p + 1) { /* u's first child's subtree follows it in T */
                len = put(T, next, a + pl->size[c], row, len);
                note(rl, lower, T, next, a + pl->size[c]);
            } else {
                len = put(T, next, p + 1, row, len);
                note(rl, lower, T, next, p + 1);
                len = put(X, a, a + pl->size[c], row, len);
                note(rl, right, X, a, a + pl->size[c]);
            }
        } else {
            len = put(T, next, p + 1, row, len);
            note(rl, lower, T, next, p + 1);
        }
        next = p + pl->size[u];
    }
    len = put(T, next, t->n, row, len);
    note(rl, lower, T, next, t->n);
    for (uint32_t j = count; j-- > 0;) {
        uint32_t u = at[lower ? count - 1 - j : j];
        uint32_t lo = t->child_off[u], cnt = t->child_off[u + 1] - lo;
        if (1 - first < cnt) {
            uint32_t c = t->child[lo + 1 - first], a = pos_in(pl, right, c, D + 1);
            len = put(X, a, a + pl->size[c], row, len);
            note(rl, right, X, a, a + pl->size[c]);
        }
    }
    (void)len; /* pl->len: every value once (the tests compare with the walk of the tree) */
}

/* A built row's description (lib/family_rows_i.h), its bytes assembled already or NULL. */
static hf_i_rows describe(const plan *pl, const range_list *rl, const char *bytes, unsigned threads)
{
    return (hf_i_rows){.n = pl->len,
                       .id = pl->src_id,
                       .src = {pl->ord[0].val, pl->ord[1].val},
                       .ranges = rl ? rl->r : NULL,
                       .count = rl ? rl->count : 0,
                       .threads = threads,
                       .bytes = bytes};
}

/* Hands a built row to the sink: as its ranges (and its bytes when they were assembled) when
 * the sink takes them (`described`: the row of values was not built), through the emitter when
 * a focus set restricted the tree, else directly (read backwards for an in-forest). */
static hf_status emit_row(const plan *pl, hf_i_emitter *em, uint32_t *row, const range_list *rl,
                          const char *bytes, bool described, unsigned threads, hf_sink sink)
{
    if (described) {
        hf_i_rows h = describe(pl, rl, bytes, threads);
        return hf_i_sink_put_rows(sink, &h);
    }
    if (em)
        return hf_i_emit(em, row, sink);
    if (pl->t->reversed)
        for (uint32_t i = 0, j = pl->len; i + 1 < j; i++, j--) {
            uint32_t x = row[i];
            row[i] = row[j - 1];
            row[j - 1] = x;
        }
    return sink.put(sink.user, row, pl->len);
}

/* The rows to build, in order: the labels of U_k that pass the dedup rule and the slice. */
typedef struct row_label {
    uint8_t v;
    uint32_t D;
} row_label;

/* Rows built on a second thread, one ahead of the caller's (hf_gen_options.threads): the worker
 * fills buf[i % 2] with row i once the caller has handed row i - 2 to the sink. The worker only
 * reads the plan and writes its buffer: no allocation, no callback. When the rows reach a
 * family writer that assembles them (lib/family_rows_i.h), the worker also copies row i's
 * bytes into bytes[i % 2], so that the caller's thread only writes them; but not when the
 * caller has handed row i - 1 to the sink already and waits for row i (assemble_row). */
typedef struct ahead {
    const plan *pl;
    const row_label *rows;
    size_t count;
    uint32_t *buf[2]; /* NULL: rows described by their ranges only */
    range_list *rl;   /* two, one per buffer */
    const hf_writer *w;
    char *bytes[2];    /* NULL: not assembled */
    bool assembled[2]; /* bytes[i % 2] holds row i */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t built, used; /* rows built by the worker, rows whose buffer the caller gave back */
    bool stop;
} ahead;

hf_i_assembly hf_i_doubletree_assembly = HF_I_ASSEMBLE_BALANCED;

/* Whether the worker assembles row i, whose ranges it has built. Not when the caller waits for
 * it: the caller then writes the row from its ranges (gathered from the renders), which costs
 * it about what the assembly would cost the worker, and the worker goes on to the next row.
 * Assembling it anyway had the caller idle while the worker copied: on the random recursive
 * tree of 10^6 events, whose deep rows have many short ranges, 0.14-0.21 s (median) of a 0.5 s
 * writing (docs/JOURNAL.md). */
static bool assemble_row(ahead *a, size_t i)
{
    if (hf_i_doubletree_assembly != HF_I_ASSEMBLE_BALANCED)
        return hf_i_doubletree_assembly == HF_I_ASSEMBLE_ALWAYS;
    pthread_mutex_lock(&a->mu);
    bool waits = a->used >= i; /* rows 0 .. i-1 handed to the sink */
    pthread_mutex_unlock(&a->mu);
    return !waits;
}

static void *ahead_work(void *arg)
{
    ahead *a = arg;
    for (size_t i = 0; i < a->count; i++) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && i >= a->used + 2)
            pthread_cond_wait(&a->cv, &a->mu);
        bool stop = a->stop;
        pthread_mutex_unlock(&a->mu);
        if (stop)
            break;
        build_row(a->pl, a->rows[i].v, a->rows[i].D, a->buf[i % 2], &a->rl[i % 2]);
        a->assembled[i % 2] = false;
        if (a->bytes[i % 2] && assemble_row(a, i)) {
            hf_i_rows h = describe(a->pl, &a->rl[i % 2], NULL, 2);
            a->assembled[i % 2] = hf_i_writer_assemble(a->w, &h, a->bytes[i % 2]);
        }
        pthread_mutex_lock(&a->mu);
        a->built = i + 1;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
    }
    return NULL;
}

/* The rows through the sink, built on a second thread. false: the thread could not be started
 * (nothing was emitted). */
static bool emit_ahead(const plan *pl, const row_label *rows, size_t count, uint32_t *buf[2],
                       range_list rl[2], const hf_writer *w, char *bytes[2], bool described,
                       hf_i_emitter *em, hf_sink sink, hf_status *st)
{
    ahead a = {.pl = pl,
               .rows = rows,
               .count = count,
               .buf = {buf[0], buf[1]},
               .rl = rl,
               .w = w,
               .bytes = {bytes[0], bytes[1]}};
    if (pthread_mutex_init(&a.mu, NULL))
        return false;
    if (pthread_cond_init(&a.cv, NULL)) {
        pthread_mutex_destroy(&a.mu);
        return false;
    }
    pthread_t tid;
    bool started = pthread_create(&tid, NULL, ahead_work, &a) == 0;
    for (size_t i = 0; started && i < count && !*st; i++) {
        pthread_mutex_lock(&a.mu);
        while (a.built <= i)
            pthread_cond_wait(&a.cv, &a.mu);
        pthread_mutex_unlock(&a.mu);
        const char *b = a.assembled[i % 2] ? a.bytes[i % 2] : NULL;
        *st = emit_row(pl, em, buf[i % 2], &rl[i % 2], b, described, 2, sink);
        pthread_mutex_lock(&a.mu);
        a.used = i + 1;
        a.stop = *st != HF_OK;
        pthread_cond_broadcast(&a.cv);
        pthread_mutex_unlock(&a.mu);
    }
    if (started)
        pthread_join(tid, NULL);
    pthread_cond_destroy(&a.cv);
    pthread_mutex_destroy(&a.mu);
    return started;
}

static void *prepare_writer(void *w)
{
    hf_i_writer_prepare(w);
    return NULL;
}

/* Below this many events the writer is not prepared on a second thread. */
enum { PREPARE_EVENTS = 2048 };

/* O(n log n) for the forest view, then O(n) per emitted schedule and O(1) per skipped row of
 * U_k (duplicates, and the rows outside a slice); O(n) memory besides the sink (twice with a
 * second thread). */
static hf_status dt_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                             hf_error *err)
{
    /* with two threads, a family writer at the end of the sink makes its tokens on the second
     * one while the plan is made here, and here too once the plan is made (it is not used
     * otherwise until the first row; its memory is allocated here first: the context's
     * allocator is called from the caller's thread alone) */
    bool threaded = opt->threads >= 2;
    hf_writer *sw = threaded ? hf_i_sink_writer(sink) : NULL; /* the family writer, if any */
    hf_writer *w = p->n >= PREPARE_EVENTS ? sw : NULL;
    pthread_t tid;
    bool preparing = hf_i_writer_reserve(w) && pthread_create(&tid, NULL, prepare_writer, w) == 0;
    plan pl;
    hf_status st = plan_new(p, opt, true, &pl, err);
    if (preparing) { /* the tokens not made yet are made here too */
        hf_i_writer_prepare(w);
        pthread_join(tid, NULL);
        hf_i_writer_prepared(w);
    }
    if (st)
        return st;
    hf_ctx *ctx = pl.t->ctx;
    hf_i_emitter *em = NULL;
    range_list rl[2] = {{NULL, 0}, {NULL, 0}};
    /* rows described by their ranges when the sink takes them (lib/family_rows_i.h): no row of
     * values is built; without memory for the ranges, rows go as values */
    bool described = pl.src_id && hf_i_sink_takes_rows(sink);
    for (int i = 0; i < (threaded ? 2 : 1) && described; i++)
        described = (rl[i].r = hf_i_alloc_array(ctx, pl.max_ranges, sizeof *rl[i].r)) != NULL;
    if (!described) { /* rows as values: no ranges noted */
        hf_i_free(ctx, rl[0].r);
        rl[0].r = NULL;
    }
    size_t len = pl.len ? pl.len : 1;
    uint32_t *buf[2] = {NULL, NULL};
    char *bytes[2] = {NULL, NULL}; /* assembled rows (below) */
    for (int i = 0; i < (threaded ? 2 : 1) && !described; i++)
        buf[i] = hf_i_alloc_array(ctx, len, sizeof(uint32_t));
    /* the rows to build: a slice (opt->row_first) runs the labels before it through the dedup
     * rule only, O(1) each */
    row_label *rows = hf_i_alloc_array(ctx, 4 * (size_t)pl.k + 1, sizeof *rows);
    if ((!described && (!buf[0] || (threaded && !buf[1]))) || !rows ||
        (pl.t->restricted && hf_i_emitter_new(pl.t, &em))) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    size_t count = 0;
    if (pl.k == 0 && hf_i_row_want_of(opt, 0) == HF_I_ROW_TAKE)
        rows[count++] = (row_label){VAR_A, 0}; /* a single node */
    uint64_t index = 0;
    for (uint64_t r = 0; r < 4 * (uint64_t)pl.k; r++) {
        unsigned v;
        uint32_t D;
        row_of(pl.k, r, &v, &D);
        if (!plan_take(&pl, v, D))
            continue;
        hf_i_row_want want = hf_i_row_want_of(opt, index++);
        if (want == HF_I_ROW_DONE)
            break;
        if (want == HF_I_ROW_TAKE)
            rows[count++] = (row_label){(uint8_t)v, D};
    }
    /* rows to a family writer through a second thread: assembled there (the renders made
     * here first); without memory for the two rows' bytes, described only */
    hf_writer *aw = described && count > 1 ? sw : NULL;
    if (aw && hf_i_writer_ready_rows(aw, &(hf_i_rows){.n = pl.len,
                                                      .id = pl.src_id,
                                                      .src = {pl.ord[0].val, pl.ord[1].val},
                                                      .threads = opt->threads})) {
        size_t size = hf_i_writer_assembly_size(aw);
        for (int i = 0; i < 2; i++)
            bytes[i] = hf_i_malloc(ctx, size);
        if (!bytes[0] || !bytes[1]) {
            hf_i_free(ctx, bytes[0]);
            hf_i_free(ctx, bytes[1]);
            bytes[0] = bytes[1] = NULL;
        }
    }
    if (threaded && count > 1 &&
        emit_ahead(&pl, rows, count, buf, rl, aw, bytes, described, em, sink, &st))
        goto out;
    for (size_t i = 0; i < count && !st; i++) {
        build_row(&pl, rows[i].v, rows[i].D, buf[0], &rl[0]);
        st = emit_row(&pl, em, buf[0], &rl[0], NULL, described, opt->threads, sink);
    }
out:
    hf_i_free(ctx, bytes[0]);
    hf_i_free(ctx, bytes[1]);
    hf_i_free(ctx, rl[0].r);
    hf_i_free(ctx, rl[1].r);
    hf_i_free(ctx, buf[0]);
    hf_i_free(ctx, buf[1]);
    hf_i_free(ctx, rows);
    hf_i_emitter_free(em);
    plan_free(&pl);
    return st;
}

const hf_i_method hf_i_method_doubletree = {
    .id = HF_METHOD_DOUBLETREE,
    .name = "doubletree",
    .check = dt_check,
    .predict = dt_predict,
    .generate = dt_generate,
    .rows = true,
};
