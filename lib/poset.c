/* The data model's builder: named events, "before" constraints, focus and labels, collected and
 * then finished into the immutable poset (the finishing steps are in lib/poset_finish.c, what a
 * finished poset answers in lib/poset_query.c). */
#include <stdlib.h>
#include <string.h>

#include "poset_finish_i.h"

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
    return hf_i_poset_builder_add_hashed(b, name, len, hf_i_strtab_hash(name, len), id);
}

hf_status hf_i_poset_builder_add_hashed(hf_poset_builder *b, const char *name, size_t len,
                                        uint64_t h, uint32_t *id)
{
    if (b->finished)
        return HF_ESTATE;
    if (len > HF_MAX_NAME)
        return HF_ETOOLARGE;
    hf_status st;
    if ((st = hf_i_strtab_index(b->ctx, &b->names)))
        return st;
    size_t slot;
    uint32_t found = hf_i_strtab_find_hashed(&b->names, name, len, h, &slot);
    if (found != HF_NO_EVENT) {
        if (id)
            *id = found;
        return HF_EDUPLICATE;
    }
    if (b->n >= HF_MAX_EVENTS)
        return HF_ETOOLARGE;
    /* both allocate before changing anything, so that a failure leaves the builder unchanged */
    if ((st = HF_I_GROW(b->ctx, b->flags, &b->flags_cap, (size_t)b->n + 1)) ||
        (st = hf_i_strtab_add_hashed(b->ctx, &b->names, name, len, h, slot)))
        return st;
    b->flags[b->n] = 0;
    if (id)
        *id = b->n;
    b->n++;
    return HF_OK;
}

hf_status hf_i_poset_builder_add_new(hf_poset_builder *b, const char *name, size_t len,
                                     uint32_t *id)
{
    if (b->finished)
        return HF_ESTATE;
    if (len > HF_MAX_NAME || b->n >= HF_MAX_EVENTS)
        return HF_ETOOLARGE;
    hf_status st;
    if ((st = HF_I_GROW(b->ctx, b->flags, &b->flags_cap, (size_t)b->n + 1)) ||
        (st = hf_i_strtab_append(b->ctx, &b->names, name, len)))
        return st;
    b->flags[b->n] = 0;
    if (id)
        *id = b->n;
    b->n++;
    return HF_OK;
}

hf_status hf_i_poset_builder_reserve(hf_poset_builder *b, size_t count)
{
    return b->finished ? HF_ESTATE : hf_i_strtab_reserve(b->ctx, &b->names, count);
}

const hf_i_strtab *hf_i_poset_builder_names(const hf_poset_builder *b) { return &b->names; }

hf_status hf_poset_builder_find(const hf_poset_builder *b, const char *name, uint32_t *id)
{
    if (!b || !name)
        return HF_EINVAL;
    if (b->finished)
        return HF_ESTATE;
    size_t len = strlen(name);
    const hf_i_strtab *t = &b->names;
    uint32_t found = hf_i_strtab_find(t, name, len, NULL);
    /* names appended but not placed yet (hf_i_poset_builder_add_new) are looked at in turn */
    for (uint32_t k = t->indexed; found == HF_NO_EVENT && k < t->count; k++)
        if (strcmp(hf_i_strtab_str(t, k), name) == 0)
            found = k;
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
/* Finishing (its steps are in lib/poset_finish.c)                                            */

static hf_status take_names(hf_poset *p, hf_poset_builder *b)
{
    hf_i_strtab *t = &b->names;
    if (t->indexed < t->count) {
        /* names appended without a place (hf_i_poset_builder_add_new): most commands never
         * look a name up, so they are placed at the first lookup (hf_i_poset_names_index) */
        hf_i_free(p->ctx, t->slots);
        t->slots = NULL;
        t->mask = 0;
        t->indexed = 0;
    }
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

    if (b->edge_count > HF_MAX_ORDER_PAIRS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the order has more than %u constraints (%zu, duplicates included)",
                         HF_MAX_ORDER_PAIRS, b->edge_count);
    hf_poset *p = hf_i_calloc(ctx, 1, sizeof *p);
    if (!p)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    p->ctx = ctx;
    p->n = n;
    atomic_init(&p->name_index, NULL);
    hf_status st;
    if ((st = hf_i_poset_hasse_rows(p, b->edges, b->edge_count))) {
        hf_i_fail(err, st, 0, 0, "out of memory");
        goto fail;
    }
    /* names are needed by the cycle message; borrow them without taking ownership yet */
    p->names = b->names;
    st = hf_i_poset_topo_sort(p, err);
    p->names = (hf_i_strtab){0};
    if (st)
        goto fail;

    uint32_t max_in, max_out;
    hf_i_poset_max_degrees(p, &max_in, &max_out);
    /* With in-degree (or out-degree) at most one there is no transitive edge to remove. */
    if (max_in > 1 && max_out > 1) {
        if (n > HF_CLOSURE_MAX_EVENTS) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "the order has %" PRIu32 " events and is neither a forest nor an "
                           "in-forest; such orders are limited to %u events",
                           n, HF_CLOSURE_MAX_EVENTS);
            goto fail;
        }
        if ((st = hf_i_poset_reduce(p, err)))
            goto fail;
        hf_i_poset_max_degrees(p, &max_in, &max_out);
    }

    if (max_in <= 1)
        p->shape |= HF_SHAPE_FOREST;
    if (max_out <= 1)
        p->shape |= HF_SHAPE_INFOREST;
    if (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) {
        hf_i_free(ctx, p->closure);
        p->closure = NULL;
        p->closure_words = 0;
        if ((st = hf_i_poset_forest_views(p, !(p->shape & HF_SHAPE_FOREST)))) {
            hf_i_fail(err, st, 0, 0, "out of memory");
            goto fail;
        }
        /* a longest chain is a path from a root of the forest (or in-forest) */
        for (uint32_t v = 0; v < n; v++)
            p->height = p->depth[v] + 1 > p->height ? p->depth[v] + 1 : p->height;
    } else {
        /* height: longest chain, in events */
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
    if (max_in <= 1 && minimal == 1)
        p->shape |= HF_SHAPE_TREE;
    if (p->height == n)
        p->shape |= HF_SHAPE_CHAIN;
    if (p->edge_count == 0)
        p->shape |= HF_SHAPE_ANTICHAIN;

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
