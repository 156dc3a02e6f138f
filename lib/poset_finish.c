/* The steps of finishing a poset: Hasse rows, the lexicographically smallest topological order
 * (with a cycle's report), transitive reduction through the closure, forest views; and freeing
 * it. hf_poset_builder_finish (lib/poset.c) runs them in turn. */
#include <stdlib.h>
#include <string.h>

#include "poset_finish_i.h"

void hf_poset_free(hf_poset *p)
{
    if (!p)
        return;
    hf_ctx *ctx = p->ctx;
    void *arrays[] = {p->succ_off,    p->succ,       p->pred_off,     p->pred,
                      p->topo,        p->rank,       p->parent,       p->depth,
                      p->subtree,     p->tin,        p->tout,         p->dfs_order,
                      p->closure,     p->focus,      p->threads.of,   p->threads.data,
                      p->threads.off, p->objects.of, p->objects.data, p->objects.off,
                      p->access};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        hf_i_free(ctx, arrays[i]);
    hf_i_strtab_free(ctx, &p->names);
    hf_i_strtab *index = atomic_load_explicit(&p->name_index, memory_order_acquire);
    if (index) {
        hf_i_strtab_free_borrowed(ctx, index);
        hf_i_free(ctx, index);
    }
    hf_i_free(ctx, p);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Compressed rows from a list of pairs (src, dst): rows sorted by dst, duplicates removed. The
 * counts go one place further on (off[v + 2]), so that their prefix sums are the rows' starts
 * one place on (off[v + 1]), which filling moves to the rows' ends: no cursor array. A row that
 * is in order already (pairs given by source in order, as readers of ordered text give them) is
 * not sorted again. */
static hf_status build_rows(hf_ctx *ctx, uint32_t n, const uint32_t *pairs, size_t count,
                            bool reverse, uint32_t **off_out, uint32_t **adj_out, size_t *kept)
{
    if (count > HF_MAX_ORDER_PAIRS) /* (the builder's finish says so first) */
        return HF_ETOOLARGE;
    uint32_t *off = hf_i_calloc(ctx, (size_t)n + 2, sizeof *off);
    uint32_t *adj = hf_i_alloc_array(ctx, count, sizeof *adj);
    if (!off || !adj) {
        hf_i_free(ctx, off);
        hf_i_free(ctx, adj);
        return HF_ENOMEM;
    }
    for (size_t i = 0; i < count; i++)
        off[pairs[2 * i + reverse] + 2]++;
    for (uint32_t v = 0; v < n; v++)
        off[v + 2] += off[v + 1];
    for (size_t i = 0; i < count; i++)
        adj[off[pairs[2 * i + reverse] + 1]++] = pairs[2 * i + !reverse];
    /* sort (where out of order) and deduplicate each row in place, compacting */
    uint32_t w = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t lo = off[v], hi = off[v + 1];
        for (uint32_t i = lo + 1; i < hi; i++)
            if (adj[i] < adj[i - 1]) {
                qsort(adj + lo, hi - lo, sizeof *adj, cmp_u32);
                break;
            }
        off[v] = w;
        for (uint32_t i = lo; i < hi; i++)
            if (i == lo || adj[i] != adj[i - 1])
                adj[w++] = adj[i];
    }
    off[n] = w;
    *off_out = off;
    *adj_out = adj;
    *kept = w;
    return HF_OK;
}

/* Both directions of the rows from the pairs (before, after), and the edge count. */
hf_status hf_i_poset_hasse_rows(hf_poset *p, const uint32_t *pairs, size_t count)
{
    size_t e1, e2;
    hf_status st;
    if ((st = build_rows(p->ctx, p->n, pairs, count, false, &p->succ_off, &p->succ, &e1)) ||
        (st = build_rows(p->ctx, p->n, pairs, count, true, &p->pred_off, &p->pred, &e2)))
        return st;
    p->edge_count = e1;
    return HF_OK;
}

/* The largest in-degree and out-degree of the Hasse rows. */
void hf_i_poset_max_degrees(const hf_poset *p, uint32_t *max_in, uint32_t *max_out)
{
    *max_in = *max_out = 0;
    for (uint32_t v = 0; v < p->n; v++) {
        uint32_t in = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
        uint32_t out = (uint32_t)(p->succ_off[v + 1] - p->succ_off[v]);
        *max_in = in > *max_in ? in : *max_in;
        *max_out = out > *max_out ? out : *max_out;
    }
}

/* Binary min-heap of ids, for the lexicographically smallest topological order. */
static void heap_push(uint32_t *h, size_t *len, uint32_t v)
{
    size_t i = (*len)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, size_t *len)
{
    uint32_t top = h[0], last = h[--(*len)];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *len)
            break;
        if (c + 1 < *len && h[c + 1] < h[c])
            c++;
        if (h[c] >= last)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/* Append to a message buffer, truncating with "..." at the end. */
static void msg_append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t sl = strlen(s);
    if (*len + sl + 4 >= cap) {
        if (*len + 4 < cap) {
            memcpy(buf + *len, "...", 4);
            *len += 3;
        }
        *len = cap; /* full: ignore the rest */
        return;
    }
    memcpy(buf + *len, s, sl + 1);
    *len += sl;
}

/* Kahn's algorithm left events with positive in-degree: each has a remaining predecessor, so
 * walking predecessors from one of them closes a cycle. */
static hf_status report_cycle(const hf_poset *p, const uint32_t *indeg, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    uint32_t *seen_at = hf_i_alloc_array(ctx, n, sizeof *seen_at);
    uint32_t *walk = hf_i_alloc_array(ctx, n, sizeof *walk);
    if (!seen_at || !walk) {
        hf_i_free(ctx, seen_at);
        hf_i_free(ctx, walk);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory while reporting a cycle");
    }
    memset(seen_at, 0xff, n * sizeof *seen_at);
    uint32_t v = 0;
    while (indeg[v] == 0)
        v++;
    uint32_t len = 0;
    while (seen_at[v] == UINT32_MAX) {
        seen_at[v] = len;
        walk[len++] = v;
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
            if (indeg[p->pred[i]] > 0) {
                v = p->pred[i];
                break;
            }
    }
    /* walk[seen_at[v]..len) followed backwards is the cycle; print it forwards */
    char msg[sizeof err->text];
    size_t ml = 0;
    char q[96];
    msg[0] = '\0';
    msg_append(msg, sizeof msg, &ml, "cycle: ");
    for (uint32_t i = len; i-- > seen_at[v];) {
        msg_append(msg, sizeof msg, &ml, hf_i_name_quote(hf_i_name(p, walk[i]), q, sizeof q));
        msg_append(msg, sizeof msg, &ml, " -> ");
    }
    msg_append(msg, sizeof msg, &ml, hf_i_name_quote(hf_i_name(p, walk[len - 1]), q, sizeof q));
    hf_i_free(ctx, seen_at);
    hf_i_free(ctx, walk);
    return hf_i_fail(err, HF_ECYCLE, 0, 0, "%s", msg);
}

hf_status hf_i_poset_topo_sort(hf_poset *p, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    uint32_t *indeg = hf_i_alloc_array(ctx, n, sizeof *indeg);
    uint32_t *heap = hf_i_alloc_array(ctx, n, sizeof *heap);
    p->topo = hf_i_alloc_array(ctx, n, sizeof *p->topo);
    p->rank = hf_i_alloc_array(ctx, n, sizeof *p->rank);
    hf_status st = HF_OK;
    if (!indeg || !heap || !p->topo || !p->rank) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    /* Every edge going to a larger id (as readers of text written in order give them): the ids
     * in order are the smallest topological order, each event being free when its turn comes. */
    bool forward = true;
    for (uint32_t v = 0; v < n && forward; v++)
        forward = p->pred_off[v] == p->pred_off[v + 1] || p->pred[p->pred_off[v + 1] - 1] < v;
    if (forward) {
        for (uint32_t v = 0; v < n; v++)
            p->topo[v] = p->rank[v] = v;
        goto out;
    }
    size_t hl = 0, k = 0;
    for (uint32_t v = 0; v < n; v++) {
        indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
        if (indeg[v] == 0)
            heap_push(heap, &hl, v);
    }
    while (hl > 0) {
        uint32_t v = heap_pop(heap, &hl);
        p->rank[v] = (uint32_t)k;
        p->topo[k++] = v;
        for (size_t i = p->succ_off[v]; i < p->succ_off[v + 1]; i++)
            if (--indeg[p->succ[i]] == 0)
                heap_push(heap, &hl, p->succ[i]);
    }
    if (k < n)
        st = report_cycle(p, indeg, err);
out:
    hf_i_free(ctx, indeg);
    hf_i_free(ctx, heap);
    return st;
}

/* Transitive reduction with the ancestor closure, in topological order: an edge u -> v is
 * implied iff u lies below another predecessor of v, i.e. in the union U of the predecessors'
 * ancestor sets. below(v) = U | preds(v). Time O(e * n / 64), memory n * n bits. */
hf_status hf_i_poset_reduce(hf_poset *p, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    size_t W = hf_i_words(n);
    p->closure_words = W;
    p->closure = hf_i_calloc(ctx, (size_t)n * W, sizeof *p->closure);
    uint32_t *kept = hf_i_alloc_array(ctx, 2 * p->edge_count, sizeof *kept);
    if (!p->closure || !kept) {
        hf_i_free(ctx, kept);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory computing the order's closure");
    }
    size_t k = 0;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t v = p->topo[t];
        hf_word *row = p->closure + (size_t)v * W;
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++) {
            const hf_word *pr = p->closure + (size_t)p->pred[i] * W;
            for (size_t w = 0; w < W; w++)
                row[w] |= pr[w];
        }
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++) {
            uint32_t u = p->pred[i];
            if (!hf_i_bit_test(row, u)) {
                kept[2 * k] = u;
                kept[2 * k + 1] = v;
                k++;
            }
        }
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
            hf_i_bit_set(row, p->pred[i]);
    }
    hf_i_free(ctx, p->succ_off);
    hf_i_free(ctx, p->succ);
    hf_i_free(ctx, p->pred_off);
    hf_i_free(ctx, p->pred);
    p->succ_off = p->pred_off = NULL;
    p->succ = p->pred = NULL;
    hf_status st = hf_i_poset_hasse_rows(p, kept, k);
    hf_i_free(ctx, kept);
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory");
    return HF_OK;
}

/* The views of a forest (parents are Hasse predecessors) in three passes over the topological
 * order, no stack: there the roots come in id order, and so do the children of each event (they
 * all become free when it is placed, and the smallest free event is placed first), which is the
 * order of the DFS. Depths top-down; subtree sizes bottom-up; then each event's DFS entry time is
 * its parent's next free time, which moves on by the event's subtree (tout holds those times
 * until the last pass). */
static void forest_views_down(hf_poset *p)
{
    uint32_t n = p->n, clock = 0;
    const uint32_t *topo = p->topo, *parent = p->parent;
    for (uint32_t v = 0; v < n; v++)
        p->subtree[v] = 1;
    for (uint32_t t = n; t-- > 0;) {
        uint32_t v = topo[t];
        if (parent[v] != HF_NO_EVENT)
            p->subtree[parent[v]] += p->subtree[v];
    }
    for (uint32_t t = 0; t < n; t++) {
        uint32_t v = topo[t], u = parent[v];
        uint32_t at;
        if (u == HF_NO_EVENT) {
            p->depth[v] = 0;
            at = clock;
            clock += p->subtree[v];
        } else {
            p->depth[v] = p->depth[u] + 1;
            at = p->tout[u];
            p->tout[u] += p->subtree[v];
        }
        p->tin[v] = at;
        p->tout[v] = at + 1;
        p->dfs_order[at] = v;
    }
    for (uint32_t v = 0; v < n; v++)
        p->tout[v] = p->tin[v] + p->subtree[v] - 1;
}

/* Forest views: depth, subtree sizes and DFS intervals on the forest whose parent links are the
 * Hasse predecessors (or, for an in-forest, the Hasse successors). */
hf_status hf_i_poset_forest_views(hf_poset *p, bool dual)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    const uint32_t *up_off = dual ? p->succ_off : p->pred_off;
    const uint32_t *up = dual ? p->succ : p->pred;
    const uint32_t *down_off = dual ? p->pred_off : p->succ_off;
    const uint32_t *down = dual ? p->pred : p->succ;
    p->dual = dual;
    p->depth = hf_i_alloc_array(ctx, n, sizeof *p->depth);
    p->subtree = hf_i_alloc_array(ctx, n, sizeof *p->subtree);
    p->tin = hf_i_alloc_array(ctx, n, sizeof *p->tin);
    p->tout = hf_i_alloc_array(ctx, n, sizeof *p->tout);
    p->dfs_order = hf_i_alloc_array(ctx, n, sizeof *p->dfs_order);
    if (!p->depth || !p->subtree || !p->tin || !p->tout || !p->dfs_order)
        return HF_ENOMEM;
    if (!dual) {
        p->parent = hf_i_alloc_array(ctx, n, sizeof *p->parent);
        if (!p->parent)
            return HF_ENOMEM;
        for (uint32_t v = 0; v < n; v++)
            p->parent[v] = up_off[v] < up_off[v + 1] ? up[up_off[v]] : HF_NO_EVENT;
        forest_views_down(p);
        return HF_OK;
    }
    /* an in-forest: the topological order does not give the reversed tree's children in id
     * order, so a DFS walks it */
    size_t *next = hf_i_alloc_array(ctx, n, sizeof *next);
    uint32_t *stack = hf_i_alloc_array(ctx, n, sizeof *stack);
    if (!next || !stack) {
        hf_i_free(ctx, next);
        hf_i_free(ctx, stack);
        return HF_ENOMEM;
    }
    /* iterative DFS: roots and children in id order */
    uint32_t clock = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (up_off[r] < up_off[r + 1])
            continue;
        size_t sp = 0;
        stack[sp++] = r;
        p->depth[r] = 0;
        p->tin[r] = clock;
        p->dfs_order[clock++] = r;
        next[r] = down_off[r];
        while (sp > 0) {
            uint32_t v = stack[sp - 1];
            if (next[v] < down_off[v + 1]) {
                uint32_t c = down[next[v]++];
                p->depth[c] = p->depth[v] + 1;
                p->tin[c] = clock;
                p->dfs_order[clock++] = c;
                next[c] = down_off[c];
                stack[sp++] = c;
            } else {
                p->tout[v] = clock - 1;
                p->subtree[v] = clock - p->tin[v];
                sp--;
            }
        }
    }
    hf_i_free(ctx, next);
    hf_i_free(ctx, stack);
    return HF_OK;
}
