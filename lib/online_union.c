/* The union forest of an online session (lib/online_i.h): interned labels, the children of a
 * node as one block found by rank, the overflow children found by (parent, rank, label), and
 * the making of a new node when a run posts an event no run posted before. */
#include <math.h>
#include <string.h>

#include "online_i.h"

/* ---- labels, interned (lib/strtab.h): a node keeps the id of its label ---- */

/* The id of @p label, NOLABEL when it is not interned (or NULL). */
uint32_t hf_i_online_label_find(const hf_online *s, const char *label)
{
    uint32_t id = label ? hf_i_strtab_find(&s->lab, label, strlen(label), NULL) : HF_NO_EVENT;
    return id == HF_NO_EVENT ? NOLABEL : id;
}

hf_status hf_i_online_label_intern(hf_online *s, const char *label, size_t llen, uint32_t *id)
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
        if (label &&
            hf_i_online_label_intern(s, label, llen, &lid)) /* an unused label is harmless */
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
    if ((label && hf_i_online_label_intern(s, label, llen, &lid)) ||
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

/* ---- doubletree: gadgets weighed by what earlier runs showed (docs/online.md) ---- */

/* Where the gadget over the block nodes a..z (a < z) splits, as a node id t (its first half is
 * a..t-1): the first t whose prefix weight g[t - 1] is closest to half the range's weight, p0
 * being the prefix weight before a. Offline doubletree scans every point (lib/forest.c,
 * split_point); the prefix weights only grow, so the gap to half falls and then rises, and two
 * binary searches find the same point: the first prefix at or above half, then, when the one
 * before it is as close, the first point as close as that one. */
static uint32_t weighed_split(const double *g, uint32_t a, uint32_t z, double p0)
{
    double half = (p0 + g[z]) / 2;
    uint32_t lo = a + 1, hi = z + 1;
    while (lo < hi) { /* the first t with g[t - 1] >= half, z + 1 if none */
        uint32_t mid = lo + (hi - lo) / 2;
        if (g[mid - 1] < half)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t t = lo;
    if (t == a + 1)
        return t;
    if (t <= z && fabs(g[t - 1] - half) < fabs(g[t - 2] - half))
        return t;
    /* the best is t - 1 or a point before it with the same gap: below half, the gap only falls */
    double gap = fabs(g[t - 2] - half);
    lo = a + 1, hi = t - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (fabs(g[mid - 1] - half) > gap)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 2^e for -1000 <= e <= 0, as ldexp(1.0, e) gives it (a normal double: its exponent field alone),
 * without ldexp's call: a weighing makes one per union node. */
static inline double pow2(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

uint32_t hf_i_online_gadget_split(const hf_online *s, uint32_t lo, uint32_t hi)
{
    uint32_t a = s->ev[lo].node, z = s->ev[hi - 1].node;
    if (z < s->gw_n && z > a && z - a == hi - 1 - lo) {
        const unode *ua = &s->nodes[a], *uz = &s->nodes[z];
        /* both in one block, whose nodes are consecutive ids: so are those between */
        if (ua->parent == uz->parent && !((ua->label | uz->label) & OVER)) {
            const unode *ub = a > 0 ? &s->nodes[a - 1] : NULL;
            double p0 = ub && ub->parent == ua->parent && !(ub->label & OVER) ? s->gw[a - 1] : 0;
            return lo + (weighed_split(s->gw, a, z, p0) - a);
        }
    }
    return lo + (hi - lo + 1) / 2;
}

/* The block of @p v (NONE: the roots) at a node of the binarized forest, and the gadgets below
 * it: the record's flags as a run's expansion sets them (dt_expand in lib/online.c), and the
 * depth and sides of each block node in dep, und. @p stack holds 4 (block size) entries. */
static void record_block(hf_online *s, uint32_t a0, uint32_t m, uint32_t depth, uint8_t under,
                         uint32_t *dep, uint8_t *und, uint32_t *stack)
{
    if (m <= 2) { /* no gadget: the one or two nodes lie right below */
        s->useful[depth] |= hf_online_dt_flags(under, m == 2);
        for (uint32_t i = 0; i < m; i++) {
            dep[a0 + i] = depth + 1;
            und[a0 + i] = (uint8_t)(m == 1 ? under : under | (i == 0 ? 1 : 2));
        }
        if (depth + 1 > s->max_depth)
            s->max_depth = depth + 1;
        return;
    }
    uint32_t sp = 0;
    stack[sp++] = a0;
    stack[sp++] = a0 + m - 1;
    stack[sp++] = depth;
    stack[sp++] = under;
    while (sp > 0) {
        uint8_t u = (uint8_t)stack[--sp];
        uint32_t d = stack[--sp], z = stack[--sp], a = stack[--sp];
        uint32_t n = z - a + 1, cnt = n < 2 ? n : 2, part[2][2] = {{a, a}, {z, z}};
        if (n > 2) {
            uint32_t t = weighed_split(s->gw, a, z, a == a0 ? 0 : s->gw[a - 1]);
            part[0][1] = t - 1;
            part[1][0] = t;
        }
        s->useful[d] |= hf_online_dt_flags(u, cnt == 2);
        for (uint32_t i = 0; i < cnt; i++) {
            uint8_t cu = (uint8_t)(i == 0 ? u | (cnt == 2 ? 1 : 0) : u | 2);
            if (part[i][0] == part[i][1]) { /* an event */
                dep[part[i][0]] = d + 1;
                und[part[i][0]] = cu;
                if (d + 1 > s->max_depth)
                    s->max_depth = d + 1;
            } else { /* a gadget */
                stack[sp++] = part[i][0];
                stack[sp++] = part[i][1];
                stack[sp++] = d + 1;
                stack[sp++] = cu;
            }
        }
    }
}

/* The block that ends at node @p z - 1 (z > 0, that node no overflow child): its first node.
 * Every node that is no overflow child lies in its parent's block, and a parent has one block, so
 * the blocks are the longest runs of consecutive ids with one parent and no overflow child. */
static uint32_t block_start(const hf_online *s, uint32_t z)
{
    uint32_t p = s->nodes[z - 1].parent, a = z - 1;
    while (a > 0 && s->nodes[a - 1].parent == p && !(s->nodes[a - 1].label & OVER))
        a--;
    return a;
}

/* Weigh the union forest's blocks, and make the record that of its block forest (every node
 * reached from the roots through blocks: overflow children and what lies below them are left
 * out) binarized with the weighed gadgets. Both passes go through the blocks in the order of
 * their ids (a node's block comes after it), so they read the union forest in order instead of
 * jumping from each node to its block. */
static hf_status weigh(hf_online *s)
{
    hf_ctx *ctx = s->ctx;
    uint32_t n = s->n_nodes;
    if (ONLINE_GROW(s, s->gw, &s->gw_cap, (size_t)n + 1))
        return HF_ENOMEM;
    if (2 * (size_t)n + 2 > s->useful_cap) {
        size_t old = s->useful_cap;
        if (ONLINE_GROW_ZEROED(s, s->useful, &s->useful_cap, 2 * (size_t)n + 2))
            return HF_ENOMEM;
        memset(s->useful + old, 0, s->useful_cap - old);
    }
    /* everything allocated before anything is written, so that HF_ENOMEM leaves the weights and
     * the record as they were; the stack holds 4 entries per gadget of one block at most, and
     * only the part a block uses is touched */
    uint32_t *h = hf_i_alloc_array(ctx, 5 * (size_t)n + 4, sizeof *h);
    uint8_t *und = hf_i_alloc_array(ctx, (size_t)n + 1, 1);
    if (!h || !und) {
        hf_i_free(ctx, h);
        hf_i_free(ctx, und);
        return HF_ENOMEM;
    }
    hf_i_advise_huge(h, (5 * (size_t)n + 4) * sizeof *h); /* fresh memory, as the large arrays */
    hf_i_advise_huge(und, (size_t)n + 1);
    uint32_t *stack = h + n;
    /* bottom up, the blocks from the last: binarized heights (a node's block comes after it, so
     * its height is known when its parent's block is weighed), and the weights of each block by
     * its nodes' heights, as lib/forest.c weighs */
    memset(h, 0, (size_t)n * sizeof *h);
    for (uint32_t z = n; z > 0;) {
        if (s->nodes[z - 1].label & OVER) {
            z--;
            continue;
        }
        uint32_t a = block_start(s, z), m = z - a, v = s->nodes[a].parent, hmax = 0;
        z = a;
        if (m == 1) { /* its own weight alone, and its parent right above it */
            s->gw[a] = 1.0;
            if (v != NONE)
                h[v] = h[a] + 1;
            continue;
        }
        for (uint32_t j = 0; j < m; j++)
            hmax = h[a + j] > hmax ? h[a + j] : hmax;
        double sum = 0;
        for (uint32_t j = 0; j < m; j++) {
            int e = (int)h[a + j] - (int)hmax;
            s->gw[a + j] = sum += pow2(e < -1000 ? -1000 : e);
        }
        if (v == NONE)
            continue;
        if (m <= 2) {
            h[v] = hmax + 1;
            continue;
        }
        uint32_t sp = 0, hv = 0;
        stack[sp++] = a;
        stack[sp++] = a + m - 1;
        stack[sp++] = 0;
        while (sp > 0) {
            uint32_t d = stack[--sp], zz = stack[--sp], l = stack[--sp];
            uint32_t t = weighed_split(s->gw, l, zz, l == a ? 0 : s->gw[l - 1]);
            uint32_t part[2][2] = {{l, t - 1}, {t, zz}};
            for (int k = 0; k < 2; k++)
                if (part[k][0] == part[k][1]) {
                    uint32_t c = part[k][0];
                    hv = h[c] + d + 1 > hv ? h[c] + d + 1 : hv;
                } else {
                    stack[sp++] = part[k][0];
                    stack[sp++] = part[k][1];
                    stack[sp++] = d + 1;
                }
        }
        h[v] = hv;
    }
    /* top down, the blocks from the first: the record, and each node's depth and sides (h now
     * holds depths; a block's parent got its own before, or none when no block reaches it) */
    uint32_t *dep = h;
    memset(dep, 0xff, (size_t)n * sizeof *dep);
    memset(s->useful, 0, s->useful_cap);
    s->max_depth = 0;
    for (uint32_t a = 0; a < n;) {
        if (s->nodes[a].label & OVER) {
            a++;
            continue;
        }
        uint32_t v = s->nodes[a].parent, z = a + 1;
        while (z < n && s->nodes[z].parent == v && !(s->nodes[z].label & OVER))
            z++;
        uint32_t m = z - a;
        if (v != NONE) {
            if (dep[v] != NONE)
                record_block(s, a, m, dep[v], und[v], dep, und, stack);
        } else if (m == 1) {
            dep[a] = 0;
            und[a] = 0;
        } else { /* the virtual root */
            record_block(s, a, m, 0, 0, dep, und, stack);
        }
        a = z;
    }
    s->gw_n = n;
    hf_i_free(ctx, h);
    hf_i_free(ctx, und);
    return HF_OK;
}

/* The flags set in the record, the seen marks aside: flags are only added between weighings,
 * so a change shows in their number. */
static uint64_t record_bits(const hf_online *s)
{
    uint64_t bits = 0;
    size_t top = s->max_depth < s->useful_cap ? s->max_depth + 1 : s->useful_cap;
    for (size_t d = 0; d < top; d++)
        for (uint8_t f = (uint8_t)(s->useful[d] & ~(DT_SEEN_PRE | DT_SEEN_SUF)); f; f &= f - 1)
            bits++;
    return bits;
}

hf_status hf_i_online_dt_end(hf_online *s, hf_error *err)
{
    hf_status st = HF_OK;
    bool restart = false;
    if (s->runs == 1 && !s->dt_gadget && s->n_over == 0 && !s->gw_stale) {
        /* a first run that expanded no gadget: every block has one or two nodes and every node
         * lies in its parent's block (the block forest is the union forest), so the record and
         * the height the run made as it went are the weighing's, and no gadget reads a weight
         * (a later run's gadget over nodes weighed here would need a block of three); the
         * weights are made by the next weighing, when a run grows the union forest */
        s->gw_n = s->n_nodes;
        restart = true;
    } else if (s->created || s->runs == 1 || s->gw_stale) {
        st = weigh(s);
        s->gw_stale = st != HF_OK;
        restart = st == HF_OK;
    }
    uint64_t bits = record_bits(s);
    restart = restart || bits != s->dt_bits;
    s->dt_bits = bits;
    /* R(A, 0), the left-to-right preorder, is row 0 of every list: when the run that just ended
     * played it (run 1, say), the rows go on from row 1 of the new list */
    if (restart && s->runs - 1 != s->dt_base)
        s->dt_base = s->runs;
    if (st)
        return hf_i_fail(err, st, 0, 0, "out of memory");
    return HF_OK;
}
