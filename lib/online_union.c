/* The union forest of an online session (lib/online_i.h): interned labels, the children of a
 * node as one block found by rank, the overflow children found by (parent, rank, label), and
 * the making of a new node when a run posts an event no run posted before. */
#include <string.h>

#include "online_i.h"

/* ---- labels, interned (lib/strtab.h): a node keeps the id of its label ---- */

/* The id of @p label, NOLABEL when it is not interned (or NULL). */
uint32_t hf_i_online_label_find(const hf_online *s, const char *label)
{
    uint32_t id = label ? hf_i_strtab_find(&s->lab, label, strlen(label), NULL) : HF_NO_EVENT;
    return id == HF_NO_EVENT ? NOLABEL : id;
}

/* Intern @p label (llen bytes, not NULL) in `*id`. HF_ENOMEM leaves the session as it was. */
static hf_status label_intern(hf_online *s, const char *label, size_t llen, uint32_t *id)
{
    /* a label read back from this session (hf_online_node_label) lives in the table, which may
     * move as it grows: a part of one that is not a label itself is copied first */
    const hf_i_strtab *t = &s->lab;
    if (t->data && label >= t->data && label < t->data + t->data_len &&
        hf_i_strtab_find(t, label, llen, NULL) == HF_NO_EVENT) {
        char copy[HF_MAX_NAME + 1];
        if (llen > HF_MAX_NAME)
            return HF_EINVAL;
        memcpy(copy, label, llen + 1);
        return hf_i_strtab_intern(s->ctx, &s->lab, copy, llen, id);
    }
    return hf_i_strtab_intern(s->ctx, &s->lab, label, llen, id);
}

/* ---- overflow children: (parent, rank, label) -> node ---- */

static size_t over_hash(uint32_t parent, uint32_t rank, uint32_t label)
{
    uint64_t h = ((uint64_t)parent * 0x9e3779b97f4a7c15u) ^ ((uint64_t)rank << 32 | label);
    h *= 0xff51afd7ed558ccdu;
    return (size_t)(h ^ (h >> 32));
}

uint32_t hf_i_online_over_find(const hf_online *s, uint32_t parent, uint32_t rank, uint32_t label)
{
    if (s->n_over == 0)
        return NONE;
    size_t mask = s->ohash_cap - 1;
    for (size_t i = over_hash(parent, rank, label) & mask;; i = (i + 1) & mask) {
        uint32_t k = s->ohash[i];
        if (k == NONE)
            return NONE;
        const uover *o = &s->over[k];
        if (o->parent == parent && o->rank == rank && o->label == label)
            return o->node;
    }
}

static void ohash_put(const uover *over, uint32_t *tab, size_t cap, uint32_t k)
{
    size_t mask = cap - 1, i = over_hash(over[k].parent, over[k].rank, over[k].label) & mask;
    while (tab[i] != NONE)
        i = (i + 1) & mask;
    tab[i] = k;
}

/* Room for @p more overflow children. */
static hf_status over_reserve(hf_online *s, size_t more)
{
    if (HF_I_GROW(s->ctx, s->over, &s->over_cap, s->n_over + more))
        return HF_ENOMEM;
    if (2 * (s->n_over + more) > s->ohash_cap) {
        size_t cap = s->ohash_cap ? 2 * s->ohash_cap : 16;
        while (2 * (s->n_over + more) > cap)
            cap *= 2;
        uint32_t *tab = hf_i_alloc_array(s->ctx, cap, sizeof *tab);
        if (!tab)
            return HF_ENOMEM;
        memset(tab, 0xff, cap * sizeof *tab);
        for (size_t k = 0; k < s->n_over; k++)
            ohash_put(s->over, tab, cap, (uint32_t)k);
        hf_i_free(s->ctx, s->ohash);
        s->ohash = tab;
        s->ohash_cap = cap;
    }
    return HF_OK;
}

uint32_t hf_i_online_rank(const hf_online *s, uint32_t node)
{
    uint32_t p = s->nodes[node].parent;
    if (!(s->nodes[node].label & OVER))
        return node - (p == NONE ? s->root : s->nodes[p]).kids;
    size_t lo = 0, hi = s->n_over; /* over is sorted by node */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->over[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_over && s->over[lo].node == node ? s->over[lo].rank : 0;
}

uint32_t hf_i_online_child_find(const hf_online *s, uint32_t rank, const char *label)
{
    uint32_t c = hf_i_online_block_child(s, s->cur.node, s->cur.kids, rank);
    if (c != NONE && hf_i_online_label_is(s, s->nodes[c].label, label))
        return c;
    if (s->n_over > 0) { /* a label that is not interned is no overflow child's */
        uint32_t lid = hf_i_online_label_find(s, label);
        if (!label || lid != NOLABEL)
            return hf_i_online_over_find(s, s->cur.node, rank, lid);
    }
    return NONE;
}

hf_status hf_i_online_prepare_children(hf_online *s, uint32_t n, const char *const *labels,
                                       hf_error *err)
{
    size_t make = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *label = labels ? labels[i] : NULL;
        if (hf_i_online_child_find(s, s->cur.posted + i, label) != NONE)
            continue;
        size_t llen = label ? strlen(label) : 0;
        uint32_t lid;
        if (llen > HF_MAX_NAME)
            return hf_i_fail(err, HF_EINVAL, 0, 0,
                             "label of child %" PRIu32 " longer than %u bytes", i, HF_MAX_NAME);
        if (label && label_intern(s, label, llen, &lid)) /* an unused label is harmless */
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        make++;
    }
    if (make > (size_t)HF_MAX_EVENTS - s->n_nodes)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "more than %u events in the union forest",
                         HF_MAX_EVENTS);
    /* each new node is a block node or an overflow child: room for both */
    if (make > 0 && (ONLINE_GROW(s, s->nodes, &s->nodes_cap, (size_t)s->n_nodes + make) ||
                     over_reserve(s, make)))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    return HF_OK;
}

/* Make the union node of the current parent's child of rank cur.posted and this label. */
hf_status hf_i_online_create_node(hf_online *s, const char *label, size_t llen, uint32_t *out,
                                  hf_error *err)
{
    if (s->n_nodes >= HF_MAX_EVENTS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "more than %u events in the union forest",
                         HF_MAX_EVENTS);
    uint32_t lid = NOLABEL, pnode = s->cur.node, rank = s->cur.posted, node = s->n_nodes;
    unode *p = pnode == NONE ? &s->root : &s->nodes[pnode];
    /* the block grows when the child comes right after it, in ids and in rank */
    bool block = p->kids == NONE
                     ? rank == 0
                     : rank > 0 && p->kids + rank == node &&
                           hf_i_online_block_child(s, pnode, p->kids, rank - 1) == node - 1;
    if ((label && label_intern(s, label, llen, &lid)) ||
        ONLINE_GROW(s, s->nodes, &s->nodes_cap, (size_t)node + 1) || (!block && over_reserve(s, 1)))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    p = pnode == NONE ? &s->root : &s->nodes[pnode]; /* nodes may have moved */
    s->nodes[node] = (unode){pnode, NONE, block ? lid : lid | OVER};
    if (block) {
        if (p->kids == NONE)
            p->kids = node;
        s->cur.kids = p->kids;
    } else {
        s->over[s->n_over] = (uover){pnode, rank, lid, node};
        ohash_put(s->over, s->ohash, s->ohash_cap, (uint32_t)s->n_over);
        s->n_over++;
    }
    s->n_nodes++;
    s->created = true;
    *out = node;
    return HF_OK;
}
