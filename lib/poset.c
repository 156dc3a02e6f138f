/* The data model: a builder that collects named events and "before" constraints, and the
 * immutable poset it finishes into (Hasse diagram, topological order, forest views, closure). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "poset_i.h"

/* Per-event labels drawn from a set of names (threads, objects): of[v] indexes the names, or is
 * HF_NO_EVENT (none); events from `len` on have none. */
typedef struct label_builder {
    uint32_t *of;
    size_t of_cap;
    uint32_t len;
    hf_i_strtab names;
} label_builder;

enum { FLAG_FOCUS = 1, ACCESS_SHIFT = 1, ACCESS_MASK = 3 << ACCESS_SHIFT };

struct hf_poset_builder {
    hf_ctx *ctx;
    bool finished;
    uint32_t n;
    hf_i_strtab names; /* event names, index = id */
    uint32_t *edges;   /* pairs (before, after) */
    size_t edge_count, edge_cap;
    uint8_t *flags; /* per event: FLAG_FOCUS, and the access (hf_access) << ACCESS_SHIFT */
    size_t flags_cap;
    label_builder threads, objects;
};

/* ---------------------------------------------------------------------------------------- */
/* Builder                                                                                    */

hf_status hf_poset_builder_new(hf_ctx *ctx, hf_poset_builder **out)
{
    if (!out)
        return HF_EINVAL;
    *out = NULL;
    hf_poset_builder *b = hf_i_calloc(ctx, 1, sizeof *b);
    if (!b)
        return HF_ENOMEM;
    b->ctx = ctx;
    *out = b;
    return HF_OK;
}

static void label_builder_free(hf_ctx *ctx, label_builder *lb)
{
    hf_i_free(ctx, lb->of);
    hf_i_strtab_free(ctx, &lb->names);
}

void hf_poset_builder_free(hf_poset_builder *b)
{
    if (!b)
        return;
    hf_ctx *ctx = b->ctx;
    hf_i_strtab_free(ctx, &b->names);
    hf_i_free(ctx, b->edges);
    hf_i_free(ctx, b->flags);
    label_builder_free(ctx, &b->threads);
    label_builder_free(ctx, &b->objects);
    hf_i_free(ctx, b);
}

hf_status hf_poset_builder_add_event(hf_poset_builder *b, const char *name, uint32_t *id)
{
    if (!b || !name)
        return HF_EINVAL;
    if (b->finished)
        return HF_ESTATE;
    size_t len = strlen(name);
    if (len > HF_MAX_NAME)
        return HF_ETOOLARGE;
    size_t slot;
    uint32_t found = hf_i_strtab_find(&b->names, name, len, &slot);
    if (found != HF_NO_EVENT) {
        if (id)
            *id = found;
        return HF_EDUPLICATE;
    }
    if (b->n >= HF_MAX_EVENTS)
        return HF_ETOOLARGE;
    /* both allocate before changing anything, so that a failure leaves the builder unchanged */
    hf_status st;
    if ((st = HF_I_GROW(b->ctx, b->flags, &b->flags_cap, (size_t)b->n + 1)) ||
        (st = hf_i_strtab_add(b->ctx, &b->names, name, len, slot)))
        return st;
    b->flags[b->n] = 0;
    if (id)
        *id = b->n;
    b->n++;
    return HF_OK;
}

hf_status hf_poset_builder_find(const hf_poset_builder *b, const char *name, uint32_t *id)
{
    if (!b || !name)
        return HF_EINVAL;
    if (b->finished)
        return HF_ESTATE;
    uint32_t found = hf_i_strtab_find(&b->names, name, strlen(name), NULL);
    if (found == HF_NO_EVENT)
        return HF_ENOTFOUND;
    if (id)
        *id = found;
    return HF_OK;
}

hf_status hf_poset_builder_add_order(hf_poset_builder *b, uint32_t before, uint32_t after)
{
    if (!b)
        return HF_EINVAL;
    if (b->finished)
        return HF_ESTATE;
    if (before >= b->n || after >= b->n)
        return HF_EINVAL;
    hf_status st = HF_I_GROW(b->ctx, b->edges, &b->edge_cap, 2 * (b->edge_count + 1));
    if (st)
        return st;
    b->edges[2 * b->edge_count] = before;
    b->edges[2 * b->edge_count + 1] = after;
    b->edge_count++;
    return HF_OK;
}

hf_status hf_poset_builder_set_focus(hf_poset_builder *b, uint32_t id)
{
    if (!b)
        return HF_EINVAL;
    if (b->finished)
        return HF_ESTATE;
    if (id >= b->n)
        return HF_EINVAL;
    b->flags[id] |= FLAG_FOCUS;
    return HF_OK;
}

/* Give event id the label s (NULL or "": none). Every allocation comes first, so that a failure
 * leaves the table as it was. */
static hf_status label_set(hf_ctx *ctx, label_builder *lb, uint32_t id, const char *s)
{
    if (!s || !s[0]) {
        if (id < lb->len)
            lb->of[id] = HF_NO_EVENT;
        return HF_OK;
    }
    size_t len = strlen(s);
    if (len > HF_MAX_NAME)
        return HF_ETOOLARGE;
    hf_status st;
    uint32_t k;
    if ((st = HF_I_GROW(ctx, lb->of, &lb->of_cap, (size_t)id + 1)) ||
        (st = hf_i_strtab_intern(ctx, &lb->names, s, len, &k)))
        return st;
    while (lb->len <= id)
        lb->of[lb->len++] = HF_NO_EVENT;
    lb->of[id] = k;
    return HF_OK;
}

static hf_status builder_event(const hf_poset_builder *b, uint32_t id)
{
    if (!b)
        return HF_EINVAL;
    if (b->finished)
        return HF_ESTATE;
    return id < b->n ? HF_OK : HF_EINVAL;
}

hf_status hf_poset_builder_set_thread(hf_poset_builder *b, uint32_t id, const char *thread)
{
    hf_status st = builder_event(b, id);
    return st ? st : label_set(b->ctx, &b->threads, id, thread);
}

hf_status hf_poset_builder_set_object(hf_poset_builder *b, uint32_t id, const char *object,
                                      hf_access access)
{
    hf_status st = builder_event(b, id);
    if (st)
        return st;
    bool named = object && object[0];
    if (named ? access != HF_ACCESS_READ && access != HF_ACCESS_WRITE : access != HF_ACCESS_NONE)
        return HF_EINVAL;
    if ((st = label_set(b->ctx, &b->objects, id, object)))
        return st;
    b->flags[id] = (uint8_t)((b->flags[id] & ~ACCESS_MASK) | ((unsigned)access << ACCESS_SHIFT));
    return HF_OK;
}

/* The builder's labels, renumbered by first appearance in id order (unused names dropped). */
static hf_status take_labels(hf_ctx *ctx, uint32_t n, const label_builder *lb, hf_i_labels *out)
{
    bool any = false;
    for (uint32_t v = 0; v < lb->len && !any; v++)
        any = lb->of[v] != HF_NO_EVENT;
    if (!any)
        return HF_OK;
    const hf_i_strtab *names = &lb->names;
    uint32_t *map = hf_i_alloc_array(ctx, names->count, sizeof *map);
    out->of = hf_i_alloc_array(ctx, n, sizeof *out->of);
    if (!map || !out->of) {
        hf_i_free(ctx, map);
        return HF_ENOMEM;
    }
    memset(map, 0xff, names->count * sizeof *map);
    size_t bytes = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t old = v < lb->len ? lb->of[v] : HF_NO_EVENT;
        if (old != HF_NO_EVENT && map[old] == HF_NO_EVENT) {
            map[old] = out->count++;
            bytes += strlen(hf_i_strtab_str(names, old)) + 1;
        }
        out->of[v] = old == HF_NO_EVENT ? HF_NO_EVENT : map[old];
    }
    out->off = hf_i_alloc_array(ctx, out->count, sizeof *out->off);
    out->data = hf_i_malloc(ctx, bytes);
    if (!out->off || !out->data) {
        hf_i_free(ctx, map);
        return HF_ENOMEM;
    }
    size_t at = 0;
    for (uint32_t old = 0; old < names->count; old++) {
        if (map[old] == HF_NO_EVENT)
            continue;
        const char *s = hf_i_strtab_str(names, old);
        size_t len = strlen(s);
        out->off[map[old]] = at;
        memcpy(out->data + at, s, len + 1);
        at += len + 1;
    }
    hf_i_free(ctx, map);
    return HF_OK;
}

/* Access kinds, kept only when some event touches an object. */
static hf_status take_access(hf_poset *p, const hf_poset_builder *b)
{
    if (!p->objects.of)
        return HF_OK;
    p->access = hf_i_malloc(p->ctx, p->n ? p->n : 1);
    if (!p->access)
        return HF_ENOMEM;
    for (uint32_t v = 0; v < p->n; v++)
        p->access[v] = (uint8_t)((b->flags[v] & ACCESS_MASK) >> ACCESS_SHIFT);
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Finishing                                                                                  */

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
    hf_i_free(ctx, p);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Compressed rows from a list of pairs (src, dst): rows sorted by dst, duplicates removed. */
static hf_status build_rows(hf_ctx *ctx, uint32_t n, const uint32_t *pairs, size_t count,
                            bool reverse, size_t **off_out, uint32_t **adj_out, size_t *kept)
{
    size_t *off = hf_i_calloc(ctx, (size_t)n + 1, sizeof *off);
    uint32_t *adj = hf_i_alloc_array(ctx, count, sizeof *adj);
    size_t *fill = hf_i_alloc_array(ctx, n, sizeof *fill);
    if (!off || !adj || !fill) {
        hf_i_free(ctx, off);
        hf_i_free(ctx, adj);
        hf_i_free(ctx, fill);
        return HF_ENOMEM;
    }
    for (size_t i = 0; i < count; i++)
        off[pairs[2 * i + reverse] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        off[v + 1] += off[v];
    memcpy(fill, off, n * sizeof *fill);
    for (size_t i = 0; i < count; i++)
        adj[fill[pairs[2 * i + reverse]]++] = pairs[2 * i + !reverse];
    /* sort and deduplicate each row in place, compacting */
    size_t w = 0;
    for (uint32_t v = 0; v < n; v++) {
        size_t lo = off[v], hi = off[v + 1];
        qsort(adj + lo, hi - lo, sizeof *adj, cmp_u32);
        off[v] = w;
        for (size_t i = lo; i < hi; i++)
            if (i == lo || adj[i] != adj[i - 1])
                adj[w++] = adj[i];
    }
    off[n] = w;
    hf_i_free(ctx, fill);
    *off_out = off;
    *adj_out = adj;
    *kept = w;
    return HF_OK;
}

/* Both directions of the rows from the pairs (before, after), and the edge count. */
static hf_status hasse_rows(hf_poset *p, const uint32_t *pairs, size_t count)
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
static void max_degrees(const hf_poset *p, uint32_t *max_in, uint32_t *max_out)
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

static hf_status topo_sort(hf_poset *p, hf_error *err)
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
static hf_status reduce(hf_poset *p, hf_error *err)
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
    hf_status st = hasse_rows(p, kept, k);
    hf_i_free(ctx, kept);
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory");
    return HF_OK;
}

/* Forest views: depth, subtree sizes and DFS intervals on the forest whose parent links are the
 * Hasse predecessors (or, for an in-forest, the Hasse successors). */
static hf_status forest_views(hf_poset *p, bool dual)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    const size_t *up_off = dual ? p->succ_off : p->pred_off;
    const uint32_t *up = dual ? p->succ : p->pred;
    const size_t *down_off = dual ? p->pred_off : p->succ_off;
    const uint32_t *down = dual ? p->pred : p->succ;
    p->dual = dual;
    p->depth = hf_i_alloc_array(ctx, n, sizeof *p->depth);
    p->subtree = hf_i_alloc_array(ctx, n, sizeof *p->subtree);
    p->tin = hf_i_alloc_array(ctx, n, sizeof *p->tin);
    p->tout = hf_i_alloc_array(ctx, n, sizeof *p->tout);
    p->dfs_order = hf_i_alloc_array(ctx, n, sizeof *p->dfs_order);
    size_t *next = hf_i_alloc_array(ctx, n, sizeof *next);
    uint32_t *stack = hf_i_alloc_array(ctx, n, sizeof *stack);
    if (!dual)
        p->parent = hf_i_alloc_array(ctx, n, sizeof *p->parent);
    if (!p->depth || !p->subtree || !p->tin || !p->tout || !p->dfs_order || !next || !stack ||
        (!dual && !p->parent)) {
        hf_i_free(ctx, next);
        hf_i_free(ctx, stack);
        return HF_ENOMEM;
    }
    if (!dual)
        for (uint32_t v = 0; v < n; v++)
            p->parent[v] = up_off[v] < up_off[v + 1] ? up[up_off[v]] : HF_NO_EVENT;
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

static hf_status take_names(hf_poset *p, hf_poset_builder *b)
{
    if (!b->names.data) { /* no events: keep a valid empty table */
        b->names.data = hf_i_calloc(p->ctx, 1, 1);
        if (!b->names.data)
            return HF_ENOMEM;
        b->names.data_cap = 1;
    }
    p->names = b->names;
    b->names = (hf_i_strtab){0};
    return HF_OK;
}

hf_status hf_poset_builder_finish(hf_poset_builder *b, hf_poset **out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!b || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    *out = NULL;
    if (b->finished)
        return hf_i_fail(err, HF_ESTATE, 0, 0, "builder already finished");
    hf_ctx *ctx = b->ctx;
    uint32_t n = b->n;
    char q[128];
    for (size_t i = 0; i < b->edge_count; i++)
        if (b->edges[2 * i] == b->edges[2 * i + 1])
            return hf_i_fail(
                err, HF_ESELFLOOP, 0, 0, "event %s is ordered before itself",
                hf_i_name_quote(hf_i_strtab_str(&b->names, b->edges[2 * i]), q, sizeof q));

    hf_poset *p = hf_i_calloc(ctx, 1, sizeof *p);
    if (!p)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    p->ctx = ctx;
    p->n = n;
    hf_status st;
    if ((st = hasse_rows(p, b->edges, b->edge_count))) {
        hf_i_fail(err, st, 0, 0, "out of memory");
        goto fail;
    }
    /* names are needed by the cycle message; borrow them without taking ownership yet */
    p->names = b->names;
    st = topo_sort(p, err);
    p->names = (hf_i_strtab){0};
    if (st)
        goto fail;

    uint32_t max_in, max_out;
    max_degrees(p, &max_in, &max_out);
    /* With in-degree (or out-degree) at most one there is no transitive edge to remove. */
    if (max_in > 1 && max_out > 1) {
        if (n > HF_CLOSURE_MAX_EVENTS) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "the order has %" PRIu32 " events and is neither a forest nor an "
                           "in-forest; such orders are limited to %u events",
                           n, HF_CLOSURE_MAX_EVENTS);
            goto fail;
        }
        if ((st = reduce(p, err)))
            goto fail;
        max_degrees(p, &max_in, &max_out);
    }

    /* height: longest chain, in events */
    {
        uint32_t *len = hf_i_calloc(ctx, n, sizeof *len);
        if (!len) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
        for (uint32_t t = 0; t < n; t++) {
            uint32_t v = p->topo[t], best = 0;
            for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
                best = len[p->pred[i]] > best ? len[p->pred[i]] : best;
            len[v] = best + 1;
            p->height = len[v] > p->height ? len[v] : p->height;
        }
        hf_i_free(ctx, len);
    }

    uint32_t minimal = 0;
    for (uint32_t v = 0; v < n; v++)
        minimal += p->pred_off[v] == p->pred_off[v + 1];
    if (max_in <= 1)
        p->shape |= HF_SHAPE_FOREST;
    if (max_out <= 1)
        p->shape |= HF_SHAPE_INFOREST;
    if (max_in <= 1 && minimal == 1)
        p->shape |= HF_SHAPE_TREE;
    if (p->height == n)
        p->shape |= HF_SHAPE_CHAIN;
    if (p->edge_count == 0)
        p->shape |= HF_SHAPE_ANTICHAIN;

    if (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) {
        hf_i_free(ctx, p->closure);
        p->closure = NULL;
        p->closure_words = 0;
        if ((st = forest_views(p, !(p->shape & HF_SHAPE_FOREST)))) {
            hf_i_fail(err, st, 0, 0, "out of memory");
            goto fail;
        }
    }

    /* focus events */
    for (uint32_t v = 0; v < n; v++)
        p->focus_count += b->flags[v] & FLAG_FOCUS;
    if (p->focus_count) {
        p->focus = hf_i_alloc_array(ctx, p->focus_count, sizeof *p->focus);
        if (!p->focus) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
        uint32_t k = 0;
        for (uint32_t v = 0; v < n; v++)
            if (b->flags[v] & FLAG_FOCUS)
                p->focus[k++] = v;
    }

    if ((st = take_labels(ctx, n, &b->threads, &p->threads)) ||
        (st = take_labels(ctx, n, &b->objects, &p->objects)) || (st = take_access(p, b))) {
        hf_i_fail(err, st, 0, 0, "out of memory");
        goto fail;
    }

    if ((st = take_names(p, b))) {
        hf_i_fail(err, st, 0, 0, "out of memory");
        goto fail;
    }
    b->finished = true;
    *out = p;
    return HF_OK;
fail:
    hf_poset_free(p);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Queries                                                                                    */

uint32_t hf_poset_size(const hf_poset *p) { return p ? p->n : 0; }

const char *hf_poset_name(const hf_poset *p, uint32_t id)
{
    return p && id < p->n ? hf_i_name(p, id) : NULL;
}

hf_status hf_poset_find(const hf_poset *p, const char *name, uint32_t *id)
{
    if (!p || !name)
        return HF_EINVAL;
    if (p->n == 0)
        return HF_ENOTFOUND;
    uint32_t found = hf_i_strtab_find(&p->names, name, strlen(name), NULL);
    if (found == HF_NO_EVENT)
        return HF_ENOTFOUND;
    if (id)
        *id = found;
    return HF_OK;
}

size_t hf_poset_hasse_edge_count(const hf_poset *p) { return p ? p->edge_count : 0; }

/* Row id of the compressed rows (off, adj) of p; NULL and a count of 0 when there is none. */
static const uint32_t *hasse_row(const hf_poset *p, const size_t *off, const uint32_t *adj,
                                 uint32_t id, uint32_t *count)
{
    bool in = p && id < p->n;
    if (count)
        *count = in ? (uint32_t)(off[id + 1] - off[id]) : 0;
    return in ? adj + off[id] : NULL;
}

const uint32_t *hf_poset_hasse_succ(const hf_poset *p, uint32_t id, uint32_t *count)
{
    return hasse_row(p, p ? p->succ_off : NULL, p ? p->succ : NULL, id, count);
}

const uint32_t *hf_poset_hasse_pred(const hf_poset *p, uint32_t id, uint32_t *count)
{
    return hasse_row(p, p ? p->pred_off : NULL, p ? p->pred : NULL, id, count);
}

const uint32_t *hf_poset_topological_order(const hf_poset *p) { return p ? p->topo : NULL; }

uint32_t hf_poset_height(const hf_poset *p) { return p ? p->height : 0; }

bool hf_i_less(const hf_poset *p, uint32_t a, uint32_t b)
{
    if (a == b)
        return false;
    if (p->tin) {
        if (!p->dual)
            return p->tin[a] < p->tin[b] && p->tin[b] <= p->tout[a];
        return p->tin[b] < p->tin[a] && p->tin[a] <= p->tout[b];
    }
    return hf_i_bit_test(p->closure + (size_t)b * p->closure_words, a);
}

bool hf_poset_less(const hf_poset *p, uint32_t a, uint32_t b)
{
    return p && a < p->n && b < p->n && hf_i_less(p, a, b);
}

bool hf_poset_comparable(const hf_poset *p, uint32_t a, uint32_t b)
{
    return hf_poset_less(p, a, b) || hf_poset_less(p, b, a);
}

bool hf_poset_has_closure(const hf_poset *p) { return p && p->closure; }

unsigned hf_poset_shape(const hf_poset *p) { return p ? p->shape : 0; }

uint32_t hf_poset_parent(const hf_poset *p, uint32_t id)
{
    return p && p->parent && id < p->n ? p->parent[id] : HF_NO_EVENT;
}

uint32_t hf_poset_depth(const hf_poset *p, uint32_t id)
{
    return p && p->depth && id < p->n ? p->depth[id] : 0;
}

uint32_t hf_poset_subtree_size(const hf_poset *p, uint32_t id)
{
    return p && p->subtree && id < p->n ? p->subtree[id] : 0;
}

const uint32_t *hf_poset_focus(const hf_poset *p, uint32_t *count)
{
    if (count)
        *count = p ? p->focus_count : 0;
    return p ? p->focus : NULL;
}

uint32_t hf_poset_thread_count(const hf_poset *p) { return p ? p->threads.count : 0; }

uint32_t hf_poset_thread(const hf_poset *p, uint32_t id)
{
    return p && p->threads.of && id < p->n ? p->threads.of[id] : HF_NO_EVENT;
}

const char *hf_poset_thread_name(const hf_poset *p, uint32_t k)
{
    return p && k < p->threads.count ? hf_i_label_name(&p->threads, k) : NULL;
}

uint32_t hf_poset_object_count(const hf_poset *p) { return p ? p->objects.count : 0; }

uint32_t hf_poset_object(const hf_poset *p, uint32_t id)
{
    return p && p->objects.of && id < p->n ? p->objects.of[id] : HF_NO_EVENT;
}

const char *hf_poset_object_name(const hf_poset *p, uint32_t k)
{
    return p && k < p->objects.count ? hf_i_label_name(&p->objects, k) : NULL;
}

hf_access hf_poset_access(const hf_poset *p, uint32_t id)
{
    return p && p->access && id < p->n ? (hf_access)p->access[id] : HF_ACCESS_NONE;
}

bool hf_i_conflict(const hf_poset *p, uint32_t a, uint32_t b)
{
    if (a == b || hf_i_less(p, a, b) || hf_i_less(p, b, a))
        return false;
    if (!p->objects.of)
        return true;
    uint32_t o = p->objects.of[a];
    return o != HF_NO_EVENT && o == p->objects.of[b] &&
           (p->access[a] == HF_ACCESS_WRITE || p->access[b] == HF_ACCESS_WRITE);
}

bool hf_poset_conflict(const hf_poset *p, uint32_t a, uint32_t b)
{
    return p && a < p->n && b < p->n && hf_i_conflict(p, a, b);
}

/* Pairs u < v of a forest or in-forest (as its tree view: comparable pairs are an event and its
 * view ancestors) with both events in a class, counted per class: for each event v of class c,
 * the ancestors of v in class c. cls[v] is the class (HF_NO_EVENT: none) in 0..classes-1. One
 * pass over the DFS order with a stack of the current ancestors and a counter per class. */
static hf_status forest_class_pairs(const hf_poset *p, const uint32_t *cls, uint32_t classes,
                                    uint64_t *pairs)
{
    uint32_t *stack = hf_i_alloc_array(p->ctx, p->n ? p->n : 1, sizeof *stack);
    uint64_t *on_path = hf_i_calloc(p->ctx, classes ? classes : 1, sizeof *on_path);
    if (!stack || !on_path) {
        hf_i_free(p->ctx, stack);
        hf_i_free(p->ctx, on_path);
        return HF_ENOMEM;
    }
    uint32_t top = 0;
    uint64_t total = 0;
    for (uint32_t t = 0; t < p->n; t++) {
        uint32_t v = p->dfs_order[t];
        while (top && p->tout[stack[top - 1]] < p->tin[v]) {
            uint32_t u = stack[--top];
            if (cls[u] != HF_NO_EVENT)
                on_path[cls[u]]--;
        }
        if (cls[v] != HF_NO_EVENT)
            total += on_path[cls[v]]++;
        stack[top++] = v;
    }
    hf_i_free(p->ctx, stack);
    hf_i_free(p->ctx, on_path);
    *pairs = total;
    return HF_OK;
}

/* The same count over the closure: for each event v of a class, the events of its class in
 * its down-set. mask: one bitset of closure_words words per class. */
static hf_status closure_class_pairs(const hf_poset *p, const uint32_t *cls, uint32_t classes,
                                     uint64_t *pairs)
{
    size_t W = p->closure_words;
    hf_word *mask = hf_i_calloc(p->ctx, (size_t)(classes ? classes : 1) * W, sizeof *mask);
    if (!mask)
        return HF_ENOMEM;
    for (uint32_t v = 0; v < p->n; v++)
        if (cls[v] != HF_NO_EVENT)
            hf_i_bit_set(mask + (size_t)cls[v] * W, v);
    uint64_t total = 0;
    for (uint32_t v = 0; v < p->n; v++) {
        if (cls[v] == HF_NO_EVENT)
            continue;
        const hf_word *row = p->closure + (size_t)v * W, *m = mask + (size_t)cls[v] * W;
        for (size_t w = 0; w < W; w++)
            total += hf_i_popcount(row[w] & m[w]);
    }
    hf_i_free(p->ctx, mask);
    *pairs = total;
    return HF_OK;
}

static hf_status class_pairs(const hf_poset *p, const uint32_t *cls, uint32_t classes,
                             uint64_t *pairs)
{
    return p->tin ? forest_class_pairs(p, cls, classes, pairs)
                  : closure_class_pairs(p, cls, classes, pairs);
}

hf_status hf_poset_conflict_count(const hf_poset *p, uint64_t *count, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !count)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "hf_poset_conflict_count: NULL argument");
    *count = 0;
    /* cls: every event in class 0 (no objects), or its object; a second pass with the readers
     * of each object only */
    uint32_t classes = p->objects.of ? p->objects.count : 1;
    uint32_t *cls = hf_i_alloc_array(p->ctx, p->n ? p->n : 1, sizeof *cls);
    uint64_t *size = hf_i_calloc(p->ctx, classes ? classes : 1, sizeof *size);
    uint64_t *readers = hf_i_calloc(p->ctx, classes ? classes : 1, sizeof *readers);
    hf_status st = HF_ENOMEM;
    uint64_t comparable = 0, comparable_reads = 0;
    if (!cls || !size || !readers)
        goto out;
    for (uint32_t v = 0; v < p->n; v++) {
        cls[v] = p->objects.of ? p->objects.of[v] : 0;
        if (cls[v] != HF_NO_EVENT) {
            size[cls[v]]++;
            readers[cls[v]] += p->access && p->access[v] == HF_ACCESS_READ;
        }
    }
    if ((st = class_pairs(p, cls, classes, &comparable)))
        goto out;
    if (p->objects.of) {
        for (uint32_t v = 0; v < p->n; v++)
            if (p->access[v] != HF_ACCESS_READ)
                cls[v] = HF_NO_EVENT;
        if ((st = class_pairs(p, cls, classes, &comparable_reads)))
            goto out;
    }
    /* pairs within a class, less the read-read pairs, less the comparable ones among those */
    uint64_t total = 0;
    for (uint32_t c = 0; c < classes; c++)
        total += size[c] * (size[c] - (size[c] > 0)) / 2 -
                 readers[c] * (readers[c] - (readers[c] > 0)) / 2;
    *count = total - (comparable - comparable_reads);
out:
    hf_i_free(p->ctx, cls);
    hf_i_free(p->ctx, size);
    hf_i_free(p->ctx, readers);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory counting conflicting pairs");
    return st;
}

hf_ctx *hf_poset_ctx(const hf_poset *p) { return p ? p->ctx : NULL; }

void hf_i_or_down_set(const hf_poset *p, uint32_t v, hf_word *set)
{
    if (p->closure) {
        const hf_word *row = p->closure + (size_t)v * p->closure_words;
        for (size_t w = 0; w < p->closure_words; w++)
            set[w] |= row[w];
    } else if (!p->dual) {
        for (uint32_t u = p->parent[v]; u != HF_NO_EVENT && !hf_i_bit_test(set, u);
             u = p->parent[u])
            hf_i_bit_set(set, u);
    } else {
        for (uint32_t t = p->tin[v] + 1; t <= p->tout[v]; t++)
            hf_i_bit_set(set, p->dfs_order[t]);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Schedules                                                                                  */

hf_status hf_i_schedule_check(const hf_poset *p, const uint32_t *s, size_t index, int line,
                              hf_error *err)
{
    uint32_t n = p->n;
    char q1[96], q2[96], where[48];
    if (line > 0)
        snprintf(where, sizeof where, "schedule %zu (line %d)", index + 1, line);
    else
        snprintf(where, sizeof where, "schedule %zu", index + 1);
    uint32_t *pos = hf_i_alloc_array(p->ctx, n, sizeof *pos);
    if (!pos)
        return hf_i_fail(err, HF_ENOMEM, line, 0, "out of memory");
    memset(pos, 0xff, n * sizeof *pos);
    hf_status st = HF_OK;
    for (uint32_t i = 0; i < n && !st; i++) {
        uint32_t v = s[i];
        if (v >= n)
            st = hf_i_fail(err, HF_ESCHEDULE, line, 0, "%s: event id %" PRIu32 " out of range",
                           where, v);
        else if (pos[v] != UINT32_MAX)
            st = hf_i_fail(err, HF_ESCHEDULE, line, 0, "%s: event %s appears twice", where,
                           hf_i_name_quote(hf_i_name(p, v), q1, sizeof q1));
        else
            pos[v] = i;
    }
    for (uint32_t i = 0; i < n && !st; i++) {
        uint32_t v = s[i];
        for (size_t k = p->pred_off[v]; k < p->pred_off[v + 1]; k++) {
            uint32_t u = p->pred[k];
            if (pos[u] > i) {
                st = hf_i_fail(err, HF_ESCHEDULE, line, 0,
                               "%s: %s is scheduled before %s, but %s must happen before %s", where,
                               hf_i_name_quote(hf_i_name(p, v), q1, sizeof q1),
                               hf_i_name_quote(hf_i_name(p, u), q2, sizeof q2), q2, q1);
                break;
            }
        }
    }
    hf_i_free(p->ctx, pos);
    return st;
}

hf_status hf_schedule_check(const hf_poset *p, const uint32_t *s, size_t index, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || (!s && p->n > 0))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    return hf_i_schedule_check(p, s, index, 0, err);
}
