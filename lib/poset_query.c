/* Reading a finished poset: names, Hasse rows, the order, shapes and forest views, labels and
 * conflicts; and checking a schedule against it. */
#include <stdlib.h>
#include <string.h>

#include "poset_i.h"

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
    const hf_i_strtab *t = hf_i_poset_names_index(p);
    if (!t)
        return HF_ENOMEM;
    uint32_t found = hf_i_strtab_find(t, name, strlen(name), NULL);
    if (found == HF_NO_EVENT)
        return HF_ENOTFOUND;
    if (id)
        *id = found;
    return HF_OK;
}

const hf_i_strtab *hf_i_poset_names_index(const hf_poset *p)
{
    if (p->names.indexed == p->names.count)
        return &p->names;
    hf_poset *q = (hf_poset *)p; /* name_index is the one field a finished poset sets later */
    hf_i_strtab *t = atomic_load_explicit(&q->name_index, memory_order_acquire);
    if (t)
        return t;
    hf_i_strtab *mine = hf_i_malloc(p->ctx, sizeof *mine);
    if (!mine)
        return NULL;
    if (hf_i_strtab_index_borrowed(p->ctx, &p->names, mine)) {
        hf_i_free(p->ctx, mine);
        return NULL;
    }
    /* another thread may have made one meanwhile: the first kept, the others freed */
    if (!atomic_compare_exchange_strong_explicit(&q->name_index, &t, mine, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        hf_i_strtab_free_borrowed(p->ctx, mine);
        hf_i_free(p->ctx, mine);
        return t;
    }
    return mine;
}

hf_status hf_i_poset_index_names(const hf_poset *p)
{
    return hf_i_poset_names_index(p) ? HF_OK : HF_ENOMEM;
}

size_t hf_poset_hasse_edge_count(const hf_poset *p) { return p ? p->edge_count : 0; }

/* Row id of the compressed rows (off, adj) of p; NULL and a count of 0 when there is none. */
static const uint32_t *hasse_row(const hf_poset *p, const uint32_t *off, const uint32_t *adj,
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

hf_status hf_i_check_d_focus(const hf_poset *p, unsigned d, const uint32_t *focus,
                             size_t focus_count, hf_error *err)
{
    if (d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D, d);
    if (focus_count && !focus)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "focus_count without a focus array");
    for (size_t i = 0; i < focus_count; i++)
        if (focus[i] >= p->n)
            return hf_i_fail(err, HF_EINVAL, 0, 0, "focus event id %" PRIu32 " out of range",
                             focus[i]);
    return HF_OK;
}
