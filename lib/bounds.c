/* hitfam/bounds.h: certified lower bounds on d-hitting families, each with its certificate.
 *
 * Every bound rests on one fact (docs/bounds.md): restricting each schedule of a d-hitting
 * family of P to a set S of events gives a d-hitting family of the order P induces on S (a
 * tuple of events of S is admissible in that order exactly when it is in P). So the minimum of
 * any sub-order bounds the minimum of P from below, and the combinatorial bounds (antichains,
 * a chain with a free event) are minima or bounds of small sub-orders. The solver proves more:
 * for a few sub-orders of at most max_events events it refutes families of the current bound's
 * size, raising the bound by one per refutation, within a conflict budget. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds_i.h"
#include "hitfam/bounds.h"
#include "hitfam/exact.h"
#include "poset_i.h"

/* The proved SCAN(3, w) for w <= 8 (papers/smallest/README.md: each proved by method exact,
 * agreeing with Chee, Colbourn, Horsley, Zhou, SIAM J. Discrete Math. 2013). */
static const uint8_t scan3[] = {0, 1, 2, 6, 6, 7, 8, 8, 8};

/* The embedded complete binary tree may have this many events even when max_events is
 * smaller: height 4, whose minimum (12 at d = 3) the solver proves in about 500 conflicts. */
#define BINARY_EVENTS 15u
/* Candidate sub-orders handed to the solver at most. */
#define MAX_CANDIDATES 8u

void hf_bound_options_init(hf_bound_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->d = 3;
}

void hf_bound_free(hf_bound *b)
{
    if (!b)
        return;
    hf_ctx *ctx = b->ctx;
    hf_i_free(ctx, b->events);
    hf_i_free(ctx, b);
}

const char *hf_bound_kind_name(hf_bound_kind k)
{
    static const char *const names[] = {"empty",     "one",       "pair", "chain",
                                        "factorial", "antichain", "sat"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

/* ---- the best bound so far ---- */

typedef struct best {
    hf_bound *b;
    hf_ctx *ctx;
} best;

/* Replace the bound when `value` is larger; the certificate is copied. */
static hf_status offer(best *bs, uint64_t value, hf_bound_kind kind, const uint32_t *ev,
                       size_t count, uint64_t conflicts)
{
    hf_bound *b = bs->b;
    if (value <= b->value)
        return HF_OK;
    uint32_t *copy = NULL;
    if (count) {
        copy = hf_i_alloc_array(bs->ctx, count, sizeof *copy);
        if (!copy)
            return HF_ENOMEM;
        memcpy(copy, ev, count * sizeof *copy);
    }
    hf_i_free(bs->ctx, b->events);
    b->events = copy;
    b->event_count = count;
    b->value = value;
    b->kind = kind;
    b->conflicts = conflicts;
    return HF_OK;
}

/* ---- the tree view of forests and in-forests ---- */

typedef struct view {
    uint32_t n;
    const uint32_t *off; /* children of v: adj[off[v] .. off[v + 1]) */
    const uint32_t *adj;
    const uint32_t *up_off; /* parent: up[up_off[v]] when up_off[v] < up_off[v + 1] */
    const uint32_t *up;
    uint32_t *order; /* n: parents before children (BFS from the roots, by id) */
    uint32_t *h;     /* n: events on the longest path down from v */
    uint32_t *size;  /* n: events in v's subtree */
    uint32_t *st;    /* n: Horton-Strahler number */
} view;

static void view_free(hf_ctx *ctx, view *t)
{
    hf_i_free(ctx, t->order);
    hf_i_free(ctx, t->h);
    hf_i_free(ctx, t->size);
    hf_i_free(ctx, t->st);
}

static uint32_t parent_of(const view *t, uint32_t v)
{
    return t->up_off[v] < t->up_off[v + 1] ? t->up[t->up_off[v]] : HF_NO_EVENT;
}

static hf_status view_new(const hf_poset *p, view *t)
{
    memset(t, 0, sizeof *t);
    bool out = (p->shape & HF_SHAPE_FOREST) != 0;
    t->n = p->n;
    t->off = out ? p->succ_off : p->pred_off;
    t->adj = out ? p->succ : p->pred;
    t->up_off = out ? p->pred_off : p->succ_off;
    t->up = out ? p->pred : p->succ;
    size_t n1 = p->n ? p->n : 1;
    t->order = hf_i_alloc_array(p->ctx, n1, sizeof *t->order);
    t->h = hf_i_alloc_array(p->ctx, n1, sizeof *t->h);
    t->size = hf_i_alloc_array(p->ctx, n1, sizeof *t->size);
    t->st = hf_i_alloc_array(p->ctx, n1, sizeof *t->st);
    if (!t->order || !t->h || !t->size || !t->st) {
        view_free(p->ctx, t);
        return HF_ENOMEM;
    }
    uint32_t k = 0;
    for (uint32_t v = 0; v < p->n; v++)
        if (parent_of(t, v) == HF_NO_EVENT)
            t->order[k++] = v;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t v = t->order[i];
        for (size_t e = t->off[v]; e < t->off[v + 1]; e++)
            t->order[k++] = t->adj[e];
    }
    for (uint32_t i = p->n; i-- > 0;) {
        uint32_t v = t->order[i], hm = 0, sz = 1, s1 = 0, s2 = 0;
        for (size_t e = t->off[v]; e < t->off[v + 1]; e++) {
            uint32_t c = t->adj[e];
            hm = t->h[c] > hm ? t->h[c] : hm;
            sz += t->size[c];
            if (t->st[c] > s1) {
                s2 = s1;
                s1 = t->st[c];
            } else if (t->st[c] > s2) {
                s2 = t->st[c];
            }
        }
        t->h[v] = hm + 1;
        t->size[v] = sz;
        t->st[v] = s1 == 0 ? 1 : s1 == s2 ? s1 + 1 : s1;
    }
    return HF_OK;
}

/* The child of v with the largest h (the first such), skipping `skip`; NONE if none. */
static uint32_t tallest_child(const view *t, uint32_t v, uint32_t skip)
{
    uint32_t best_c = HF_NO_EVENT;
    for (size_t e = t->off[v]; e < t->off[v + 1]; e++) {
        uint32_t c = t->adj[e];
        if (c != skip && (best_c == HF_NO_EVENT || t->h[c] > t->h[best_c]))
            best_c = c;
    }
    return best_c;
}

/* ---- the combinatorial bounds ---- */

/* Sperner: the smallest m with C(m - 1, floor((m - 1) / 2)) >= w - 1 (w >= 2). */
static uint64_t sperner_bound(uint64_t w)
{
    for (uint64_t m = 1;; m++) {
        uint64_t k = m - 1, c = 1; /* C(k, floor(k/2)), exact while it stays below w */
        for (uint64_t i = 1; i <= k / 2 && c < w; i++)
            c = c * (k - k / 2 + i) / i;
        if (c >= w - 1)
            return m;
    }
}

/* The largest of three antichains: maximal events, minimal events, the largest rank level
 * (events whose longest chain from below has the same number of events). */
static hf_status largest_antichain(const hf_poset *p, uint32_t **out, uint32_t *w)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    uint32_t *len = hf_i_calloc(ctx, n, sizeof *len);
    uint32_t *level = hf_i_calloc(ctx, (size_t)n + 1, sizeof *level);
    uint32_t *ev = hf_i_alloc_array(ctx, n, sizeof *ev);
    if (!len || !level || !ev) {
        hf_i_free(ctx, len);
        hf_i_free(ctx, level);
        hf_i_free(ctx, ev);
        return HF_ENOMEM;
    }
    uint32_t minimal = 0, maximal = 0, wide = 0, wide_level = 0;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t v = p->topo[t], m = 0;
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
            m = len[p->pred[i]] > m ? len[p->pred[i]] : m;
        len[v] = m + 1;
        if (++level[len[v]] > wide) {
            wide = level[len[v]];
            wide_level = len[v];
        }
        minimal += p->pred_off[v] == p->pred_off[v + 1];
        maximal += p->succ_off[v] == p->succ_off[v + 1];
    }
    uint32_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        bool take = maximal >= minimal && maximal >= wide ? p->succ_off[v] == p->succ_off[v + 1]
                    : minimal >= wide                     ? p->pred_off[v] == p->pred_off[v + 1]
                                                          : len[v] == wide_level;
        if (take)
            ev[k++] = v;
    }
    hf_i_free(ctx, len);
    hf_i_free(ctx, level);
    *out = ev;
    *w = k;
    return HF_OK;
}

/* A chain of c events all incomparable to one event e, with c largest: into ev (chain, then
 * e), *c its length (0: none). Forests: the tallest member of a sibling group of two or more
 * and another member. Others: for each e, a longest path of the Hasse diagram among the events
 * incomparable to e (they form a convex set, so a longest chain there is such a path). */
static hf_status free_chain(const hf_poset *p, const view *t, uint32_t *ev, uint32_t *c)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    *c = 0;
    if (t) {
        uint32_t top = HF_NO_EVENT, other = HF_NO_EVENT; /* chain from top, free event other */
        uint32_t r1 = HF_NO_EVENT, r2 = HF_NO_EVENT;     /* two tallest roots */
        for (uint32_t v = 0; v < n; v++) {
            if (parent_of(t, v) == HF_NO_EVENT) {
                if (r1 == HF_NO_EVENT || t->h[v] > t->h[r1]) {
                    r2 = r1;
                    r1 = v;
                } else if (r2 == HF_NO_EVENT) {
                    r2 = v;
                }
            }
            uint32_t a = tallest_child(t, v, HF_NO_EVENT);
            uint32_t b = a == HF_NO_EVENT ? HF_NO_EVENT : tallest_child(t, v, a);
            if (b != HF_NO_EVENT && (top == HF_NO_EVENT || t->h[a] > t->h[top])) {
                top = a;
                other = b;
            }
        }
        if (r2 != HF_NO_EVENT && (top == HF_NO_EVENT || t->h[r1] > t->h[top])) {
            top = r1;
            other = r2;
        }
        if (top == HF_NO_EVENT)
            return HF_OK;
        for (uint32_t v = top; v != HF_NO_EVENT; v = tallest_child(t, v, HF_NO_EVENT))
            ev[(*c)++] = v;
        ev[*c] = other;
        return HF_OK;
    }
    uint32_t *len = hf_i_alloc_array(ctx, n, sizeof *len);
    uint32_t *from = hf_i_alloc_array(ctx, n, sizeof *from);
    if (!len || !from) {
        hf_i_free(ctx, len);
        hf_i_free(ctx, from);
        return HF_ENOMEM;
    }
    uint32_t best_len = 0;
    for (uint32_t e = 0; e < n && best_len < p->height; e++) {
        uint32_t end = HF_NO_EVENT;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = p->topo[i];
            len[v] = 0;
            if (v == e || hf_i_less(p, v, e) || hf_i_less(p, e, v))
                continue;
            len[v] = 1;
            from[v] = HF_NO_EVENT;
            for (size_t k = p->pred_off[v]; k < p->pred_off[v + 1]; k++) {
                uint32_t u = p->pred[k];
                if (len[u] && len[u] + 1 > len[v]) {
                    len[v] = len[u] + 1;
                    from[v] = u;
                }
            }
            if (end == HF_NO_EVENT || len[v] > len[end])
                end = v;
        }
        if (end != HF_NO_EVENT && len[end] > best_len) {
            best_len = len[end];
            uint32_t k = best_len;
            for (uint32_t v = end; v != HF_NO_EVENT; v = from[v])
                ev[--k] = v;
            ev[best_len] = e;
        }
    }
    *c = best_len;
    hf_i_free(ctx, len);
    hf_i_free(ctx, from);
    return HF_OK;
}

/* ---- candidate sub-orders for the solver ---- */

typedef struct cands {
    uint32_t *ev[MAX_CANDIDATES];
    uint32_t len[MAX_CANDIDATES];
    unsigned count;
} cands;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Add a candidate (sorted, deduplicated against the others); needs at least 3 events. */
static hf_status cand_add(hf_ctx *ctx, cands *cs, uint32_t *ev, uint32_t len)
{
    if (len < 3 || cs->count >= MAX_CANDIDATES)
        return HF_OK;
    qsort(ev, len, sizeof *ev, cmp_u32);
    for (unsigned i = 0; i < cs->count; i++)
        if (cs->len[i] == len && !memcmp(cs->ev[i], ev, len * sizeof *ev))
            return HF_OK;
    uint32_t *copy = hf_i_alloc_array(ctx, len, sizeof *copy);
    if (!copy)
        return HF_ENOMEM;
    memcpy(copy, ev, len * sizeof *copy);
    cs->ev[cs->count] = copy;
    cs->len[cs->count++] = len;
    return HF_OK;
}

/* An embedded complete binary tree of height s below v (st[v] >= s): a node u of v's subtree
 * with two children of Strahler number >= s - 1, and such trees of height s - 1 in both. */
static void embed(const view *t, uint32_t v, uint32_t s, uint32_t *ev, uint32_t *k)
{
    if (s <= 1) {
        ev[(*k)++] = v;
        return;
    }
    for (;;) {
        uint32_t a = HF_NO_EVENT, b = HF_NO_EVENT;
        for (size_t e = t->off[v]; e < t->off[v + 1] && b == HF_NO_EVENT; e++) {
            uint32_t c = t->adj[e];
            if (t->st[c] >= s - 1) {
                if (a == HF_NO_EVENT)
                    a = c;
                else
                    b = c;
            }
        }
        if (b != HF_NO_EVENT) {
            ev[(*k)++] = v;
            embed(t, a, s - 1, ev, k);
            embed(t, b, s - 1, ev, k);
            return;
        }
        v = a; /* the only child with st >= s - 1 has st = st[v] >= s */
    }
}

static hf_status candidates(const hf_poset *p, const view *t, uint32_t K, cands *cs, uint32_t *buf)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n, k = 0;
    hf_status st;
    if (n <= K) {
        for (uint32_t v = 0; v < n; v++)
            buf[v] = v;
        return cand_add(ctx, cs, buf, n);
    }
    if (!t) { /* first and last events in topological order */
        for (k = 0; k < K; k++)
            buf[k] = p->topo[k];
        if ((st = cand_add(ctx, cs, buf, K)))
            return st;
        for (k = 0; k < K; k++)
            buf[k] = p->topo[n - K + k];
        return cand_add(ctx, cs, buf, K);
    }
    /* an embedded complete binary tree of the largest height that fits */
    uint32_t root = HF_NO_EVENT;
    for (uint32_t v = 0; v < n; v++)
        if (parent_of(t, v) == HF_NO_EVENT && (root == HF_NO_EVENT || t->st[v] > t->st[root]))
            root = v;
    uint32_t s = t->st[root], kb = K > BINARY_EVENTS ? K : BINARY_EVENTS;
    while (s > 1 && (((uint64_t)1 << s) - 1) > kb)
        s--;
    k = 0;
    embed(t, root, s, buf, &k);
    if ((st = cand_add(ctx, cs, buf, k)))
        return st;
    /* a longest path with one side branch (its tallest other child) per event, top down */
    uint32_t top = HF_NO_EVENT;
    for (uint32_t v = 0; v < n; v++)
        if (parent_of(t, v) == HF_NO_EVENT && (top == HF_NO_EVENT || t->h[v] > t->h[top]))
            top = v;
    k = 0;
    for (uint32_t v = top; v != HF_NO_EVENT && k < K;) {
        buf[k++] = v;
        uint32_t next = tallest_child(t, v, HF_NO_EVENT);
        uint32_t side = next == HF_NO_EVENT ? HF_NO_EVENT : tallest_child(t, v, next);
        if (side != HF_NO_EVENT && k < K)
            buf[k++] = side;
        v = next;
    }
    if ((st = cand_add(ctx, cs, buf, k)))
        return st;
    /* the top events (breadth first from the roots: a down-closed set in the tree view) */
    for (k = 0; k < K; k++)
        buf[k] = t->order[k];
    if ((st = cand_add(ctx, cs, buf, K)))
        return st;
    /* the two largest subtrees of at most K events */
    for (unsigned round = 0; round < 2; round++) {
        uint32_t pick = HF_NO_EVENT;
        for (uint32_t v = 0; v < n; v++) {
            uint32_t par = parent_of(t, v);
            if (t->size[v] > K || (par != HF_NO_EVENT && t->size[par] <= K))
                continue;
            bool used = false;
            for (unsigned c = 0; c < cs->count && !used; c++)
                used = cs->len[c] == t->size[v] &&
                       bsearch(&v, cs->ev[c], cs->len[c], sizeof v, cmp_u32) != NULL;
            if (!used && (pick == HF_NO_EVENT || t->size[v] > t->size[pick]))
                pick = v;
        }
        if (pick == HF_NO_EVENT)
            break;
        /* the subtree: pick and everything after it in preorder of the tree view */
        k = 0;
        buf[k++] = pick;
        for (uint32_t i = 0; i < k; i++)
            for (size_t e = t->off[buf[i]]; e < t->off[buf[i] + 1]; e++)
                buf[k++] = t->adj[e];
        if ((st = cand_add(ctx, cs, buf, k)))
            return st;
    }
    return HF_OK;
}

/* ---- the solver on the candidates ---- */

static hf_status sat_bounds(const hf_poset *p, const hf_bound_options *o, const view *t, best *bs,
                            hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t K = o->max_events ? o->max_events : HF_BOUND_DEFAULT_EVENTS;
    uint64_t budget = o->conflicts ? o->conflicts : HF_BOUND_DEFAULT_CONFLICTS;
    uint64_t per_call = budget / 4 ? budget / 4 : 1;
    cands cs;
    memset(&cs, 0, sizeof cs);
    uint32_t *buf =
        hf_i_alloc_array(ctx, (size_t)(K > BINARY_EVENTS ? K : BINARY_EVENTS) + 1, sizeof *buf);
    hf_status st = buf ? candidates(p, t, K, &cs, buf) : HF_ENOMEM;
    hf_bound *b = bs->b;
    for (unsigned c = 0; !st && c < cs.count && b->spent < budget; c++) {
        b->sub_orders++;
        /* a family of cs.len[c] events rarely needs more than twice as many schedules: past
         * that the encoding grows and the solver finds a family at once */
        while (b->spent < budget && b->value <= HF_EXACT_MAX_ROWS &&
               b->value <= 2 * (uint64_t)cs.len[c]) {
            uint64_t left = budget - b->spent, used = 0;
            int answer;
            st = hf_i_exact_refute(p, o->d, cs.ev[c], cs.len[c], (size_t)b->value,
                                   left < per_call ? left : per_call, &answer, &used, err);
            if (st == HF_ETOOLARGE || st == HF_EUNSUPPORTED) {
                st = HF_OK; /* this sub-order is beyond the encoding's limits */
                break;
            }
            if (st)
                break;
            b->calls++;
            b->spent += used;
            if (answer != HF_I_REFUTED)
                break;
            if ((st = offer(bs, b->value + 1, HF_BOUND_SAT, cs.ev[c], cs.len[c], used)))
                break;
        }
    }
    for (unsigned c = 0; c < cs.count; c++)
        hf_i_free(ctx, cs.ev[c]);
    hf_i_free(ctx, buf);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, st, 0, 0, "out of memory computing a lower bound");
    return st;
}

/* ---- the entry point ---- */

hf_status hf_bound_compute(const hf_poset *p, const hf_bound_options *o, hf_bound **out,
                           hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !o || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (o->d < 1 || o->d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D,
                         o->d);
    if (o->max_events > HF_EXACT_MAX_EVENTS)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "max_events must be at most %u (got %" PRIu32 ")",
                         HF_EXACT_MAX_EVENTS, o->max_events);
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    unsigned d = o->d;
    best bs = {hf_i_calloc(ctx, 1, sizeof(hf_bound)), ctx};
    if (!bs.b)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory computing a lower bound");
    bs.b->ctx = ctx;
    bs.b->d = d;
    bs.b->kind = HF_BOUND_EMPTY;
    view t;
    bool forest = (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) != 0;
    bool have_view = false;
    uint32_t *anti = NULL, *chain = NULL, w = 0, c = 0;
    hf_status st = HF_OK;
    if (n == 0)
        goto done;
    uint32_t first = 0;
    if ((st = offer(&bs, 1, HF_BOUND_ONE, &first, 1, 0)))
        goto done;
    if (forest) {
        if ((st = view_new(p, &t)))
            goto done;
        have_view = true;
    }
    if ((st = largest_antichain(p, &anti, &w)))
        goto done;
    if (d >= 2 && w >= 2 && (st = offer(&bs, 2, HF_BOUND_PAIR, anti, 2, 0)))
        goto done;
    if (d >= 3) {
        chain = hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *chain);
        if (!chain || (st = free_chain(p, have_view ? &t : NULL, chain, &c))) {
            st = HF_ENOMEM;
            goto done;
        }
        if (c >= 1 && (st = offer(&bs, (uint64_t)c + 1, HF_BOUND_CHAIN, chain, (size_t)c + 1, 0)))
            goto done;
    }
    if (w >= d && d >= 3) {
        uint64_t f = 1;
        for (unsigned k = 2; k <= d; k++)
            f *= k;
        if ((st = offer(&bs, f, HF_BOUND_FACTORIAL, anti, d, 0)))
            goto done;
    }
    if (d >= 3 && w >= 3) {
        uint64_t v = scan3[w < 8 ? w : 8], s = sperner_bound(w);
        if ((st = offer(&bs, v > s ? v : s, HF_BOUND_ANTICHAIN, anti, w, 0)))
            goto done;
    }
    if (!o->no_sat && d >= 2 && hf_exact_available())
        st = sat_bounds(p, o, have_view ? &t : NULL, &bs, err);
done:
    hf_i_free(ctx, anti);
    hf_i_free(ctx, chain);
    if (have_view)
        view_free(ctx, &t);
    if (st) {
        hf_bound_free(bs.b);
        if (st == HF_ENOMEM)
            return hf_i_fail(err, st, 0, 0, "out of memory computing a lower bound");
        return st;
    }
    *out = bs.b;
    return HF_OK;
}

/* ---- the certificate in words ---- */

typedef struct text {
    char *buf;
    size_t size, len;
} text;

static void put(text *x, const char *fmt, ...) HF_I_PRINTF(2, 3);

static void put(text *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = x->len < x->size ? x->buf + x->len : NULL;
    int k = vsnprintf(at, at ? x->size - x->len : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        x->len += (size_t)k;
}

/* 1234567 as "1,234,567". */
static void put_grouped(text *x, uint64_t v)
{
    char digits[32];
    int k = snprintf(digits, sizeof digits, "%" PRIu64, v);
    for (int i = 0; i < k; i++)
        put(x, "%s%c", i && (k - i) % 3 == 0 ? "," : "", digits[i]);
}

static void put_events(text *x, const hf_poset *p, const uint32_t *ev, size_t count)
{
    for (size_t i = 0; i < count && i < 8; i++)
        put(x, "%s%s", i ? ", " : "", ev[i] < p->n ? hf_i_name(p, ev[i]) : "?");
    if (count > 8)
        put(x, ", ...");
}

size_t hf_bound_describe(const hf_poset *p, const hf_bound *b, char *buf, size_t size)
{
    text x = {buf, size, 0};
    if (buf && size)
        buf[0] = '\0';
    if (!p || !b)
        return 0;
    switch (b->kind) {
    case HF_BOUND_EMPTY:
        put(&x, "no events");
        break;
    case HF_BOUND_ONE:
        put(&x, "one schedule at least");
        break;
    case HF_BOUND_PAIR:
        put(&x, "incomparable pair ");
        put_events(&x, p, b->events, b->event_count);
        put(&x, ": both orders needed");
        break;
    case HF_BOUND_CHAIN:
        put(&x, "chain of %zu events incomparable to %s: %zu gaps to fill", b->event_count - 1,
            hf_i_name(p, b->events[b->event_count - 1]), b->event_count);
        break;
    case HF_BOUND_FACTORIAL:
        put(&x, "antichain of %u events (", b->d);
        put_events(&x, p, b->events, b->event_count);
        put(&x, "): %u! orders", b->d);
        break;
    case HF_BOUND_ANTICHAIN: {
        size_t w = b->event_count;
        if (w <= 8 && b->value == scan3[w])
            put(&x, "antichain of %zu events: SCAN(3, %zu) = %" PRIu64, w, w, b->value);
        else if (w > 8 && b->value == scan3[8])
            put(&x, "antichain of %zu events: at least SCAN(3, 8) = 8", w);
        else
            put(&x,
                "antichain of %zu events: Sperner, C(%" PRIu64 ", %" PRIu64
                ") >= %zu needs %" PRIu64 " schedules",
                w, b->value - 1, (b->value - 1) / 2, w - 1, b->value);
        break;
    }
    case HF_BOUND_SAT:
        put(&x, "SAT: no %" PRIu64 "-schedule family for the sub-order of %s%zu events ",
            b->value - 1, b->event_count < p->n ? "" : "all ", b->event_count);
        put_events(&x, p, b->events, b->event_count);
        put(&x, "; ");
        put_grouped(&x, b->conflicts);
        put(&x, " conflicts");
        break;
    }
    return x.len;
}
