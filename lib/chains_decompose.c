/* Chain decompositions of a set of events (gen_chains.h): minimum ones (Dilworth) by the tree on
 * forests and by Hopcroft-Karp matching elsewhere, or the order's threads. Method chains and the
 * pct sampler work on them. */
#include <string.h>

#include "gen_chains.h"
#include "poset_i.h"

void hf_i_chains_free(hf_ctx *ctx, hf_i_chains *c)
{
    if (!c)
        return;
    hf_i_free(ctx, c->chain_of);
    hf_i_free(ctx, c->off);
    hf_i_free(ctx, c->ev);
    memset(c, 0, sizeof *c);
}

hf_status hf_i_chains_check_threads(const hf_poset *p, const char *why, hf_error *err)
{
    if (!p->threads.of)
        return HF_OK;
    uint32_t *last =
        hf_i_alloc_array(p->ctx, p->threads.count ? p->threads.count : 1, sizeof *last);
    if (!last)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    memset(last, 0xff, p->threads.count * sizeof *last);
    hf_status st = HF_OK;
    /* in topological order a thread is a chain iff each event is above the one before */
    for (uint32_t i = 0; i < p->n && !st; i++) {
        uint32_t v = p->topo[i], t = p->threads.of[v];
        if (t == NONE)
            continue;
        if (last[t] != NONE && !hf_i_less(p, last[t], v)) {
            char q1[96], q2[96], q3[96];
            st = hf_i_fail(err, HF_EINVAL, 0, 0,
                           "thread %s is not a chain: its events %s and %s are not ordered "
                           "(%s)",
                           hf_i_name_quote(hf_i_label_name(&p->threads, t), q1, sizeof q1),
                           hf_i_name_quote(hf_i_name(p, last[t]), q2, sizeof q2),
                           hf_i_name_quote(hf_i_name(p, v), q3, sizeof q3), why);
        }
        last[t] = v;
    }
    hf_i_free(p->ctx, last);
    return st;
}

/* Forests and in-forests: in the tree of the forest views, link each event of R to its nearest
 * proper ancestor in R; the leaves of that tree form an antichain and each starts a chain that
 * climbs until it meets an event already taken, so the decomposition is minimum. O(n). */
static hf_status decompose_forest(const hf_poset *p, const uint8_t *in_r, uint32_t *chain_of,
                                  uint32_t *count)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    uint32_t *up = hf_i_alloc_array(ctx, n, sizeof *up);
    uint32_t *stack = hf_i_alloc_array(ctx, n, sizeof *stack);
    uint8_t *inner = hf_i_calloc(ctx, n, 1);
    if (!up || !stack || !inner) {
        hf_i_free(ctx, up);
        hf_i_free(ctx, stack);
        hf_i_free(ctx, inner);
        return HF_ENOMEM;
    }
    size_t sp = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = p->dfs_order[i];
        while (sp > 0 && p->tout[stack[sp - 1]] < p->tin[v])
            sp--;
        if (!in_r[v])
            continue;
        up[v] = sp ? stack[sp - 1] : NONE;
        if (up[v] != NONE)
            inner[up[v]] = 1;
        stack[sp++] = v;
    }
    uint32_t k = *count;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = p->dfs_order[i];
        if (!in_r[v] || inner[v])
            continue;
        for (uint32_t u = v; u != NONE && chain_of[u] == NONE; u = up[u])
            chain_of[u] = k;
        k++;
    }
    *count = k;
    hf_i_free(ctx, up);
    hf_i_free(ctx, stack);
    hf_i_free(ctx, inner);
    return HF_OK;
}

/* Hopcroft-Karp on the bipartite graph with an edge y -- x for x < y in R (y on the left).
 * A matching of size M gives |R| - M chains (x followed by y); maximum M gives minimum chains. */
typedef struct hk {
    const hf_poset *p;
    const hf_word *rmask;
    hf_word *open;     /* BFS: the x of R not reached yet in this phase */
    hf_word *avail;    /* DFS: the x of R not passed through yet in this phase */
    hf_word *freex;    /* the unmatched x of R */
    uint32_t found;    /* the BFS layer at which free x appear */
    uint32_t *match_l; /* y -> its chain predecessor x */
    uint32_t *match_r; /* x -> its chain successor y */
    uint32_t *dist;
    uint32_t *it; /* next bit position to scan in y's row */
    uint32_t *queue;
    uint32_t *stack;
    uint32_t *via;
} hk;

/* The next x in `mask` below y at or after position it[y], advancing it[y]; NONE when
 * exhausted. */
static uint32_t hk_next(hk *h, uint32_t y, const hf_word *mask)
{
    const hf_poset *p = h->p;
    const hf_word *row = p->closure + (size_t)y * p->closure_words;
    uint32_t pos = h->it[y];
    while (pos < p->n) {
        size_t w = pos / 64;
        hf_word bits = (row[w] & mask[w]) >> (pos % 64);
        if (bits) {
            pos += hf_i_ctz(bits);
            h->it[y] = pos + 1;
            return pos;
        }
        pos = (uint32_t)((w + 1) * 64);
    }
    h->it[y] = p->n;
    return NONE;
}

/* One phase: BFS layers from the free left vertices; true if an augmenting path exists. An x
 * once reached leaves `open`, so each row is scanned once and each x taken once: O(r * n / 64). */
static bool hk_bfs(hk *h, const uint32_t *rev, uint32_t r)
{
    uint32_t qh = 0, qt = 0, found = NONE;
    memcpy(h->open, h->rmask, hf_i_words(h->p->n) * sizeof *h->open);
    for (uint32_t i = 0; i < r; i++) {
        uint32_t y = rev[i];
        h->it[y] = 0;
        if (h->match_l[y] == NONE) {
            h->dist[y] = 0;
            h->queue[qt++] = y;
        } else {
            h->dist[y] = NONE;
        }
    }
    while (qh < qt) {
        uint32_t y = h->queue[qh++];
        if (found != NONE && h->dist[y] >= found)
            break;
        for (uint32_t x = hk_next(h, y, h->open); x != NONE; x = hk_next(h, y, h->open)) {
            hf_i_bit_clear(h->open, x);
            uint32_t z = h->match_r[x];
            if (z == NONE) {
                if (found == NONE)
                    found = h->dist[y] + 1;
            } else if (h->dist[z] == NONE) {
                h->dist[z] = h->dist[y] + 1;
                h->queue[qt++] = z;
            }
        }
    }
    for (uint32_t i = 0; i < r; i++)
        h->it[rev[i]] = 0;
    size_t W = hf_i_words(h->p->n);
    memcpy(h->avail, h->rmask, W * sizeof *h->avail);
    memset(h->freex, 0, W * sizeof *h->freex);
    for (uint32_t i = 0; i < r; i++)
        if (h->match_r[rev[i]] == NONE)
            hf_i_bit_set(h->freex, rev[i]);
    h->found = found;
    return found != NONE;
}

/* Layered augmenting path search from the free vertex y0, without recursion. A free x next to
 * a vertex of layer L would have given a shorter path, so only the layer before `found` looks
 * for free x, and the others only for x whose partner is one layer down; an x passed through is
 * not tried again in this phase (its partner either augmented or is dead). So each row is
 * scanned about once per phase. */
static void hk_dfs(hk *h, uint32_t y0)
{
    uint32_t sp = 0;
    h->stack[sp++] = y0;
    while (sp > 0) {
        uint32_t y = h->stack[sp - 1];
        bool last = h->dist[y] + 1 == h->found;
        uint32_t x = hk_next(h, y, last ? h->freex : h->avail);
        if (x == NONE) {
            h->dist[y] = NONE;
            sp--;
            continue;
        }
        if (last) {
            hf_i_bit_clear(h->freex, x);
            h->via[sp - 1] = x;
            for (uint32_t i = sp; i-- > 0;) {
                h->match_l[h->stack[i]] = h->via[i];
                h->match_r[h->via[i]] = h->stack[i];
            }
            return;
        }
        uint32_t z = h->match_r[x];
        if (z != NONE && h->dist[z] != NONE && h->dist[z] == h->dist[y] + 1) {
            hf_i_bit_clear(h->avail, x);
            h->via[sp - 1] = x;
            h->stack[sp++] = z;
        }
    }
}

static hf_status decompose_matching(const hf_poset *p, const uint8_t *in_r, uint32_t *chain_of,
                                    uint32_t *count)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n, r = 0;
    size_t W = hf_i_words(n);
    hk h = {.p = p};
    hf_word *rmask = hf_i_calloc(ctx, W ? W : 1, sizeof *rmask);
    h.open = hf_i_alloc_array(ctx, W ? W : 1, sizeof *h.open);
    h.avail = hf_i_alloc_array(ctx, W ? W : 1, sizeof *h.avail);
    h.freex = hf_i_alloc_array(ctx, W ? W : 1, sizeof *h.freex);
    uint32_t *rev = hf_i_alloc_array(ctx, n, sizeof *rev);
    h.match_l = hf_i_alloc_array(ctx, n, sizeof *h.match_l);
    h.match_r = hf_i_alloc_array(ctx, n, sizeof *h.match_r);
    h.dist = hf_i_alloc_array(ctx, n, sizeof *h.dist);
    h.it = hf_i_alloc_array(ctx, n, sizeof *h.it);
    h.queue = hf_i_alloc_array(ctx, n, sizeof *h.queue);
    h.stack = hf_i_alloc_array(ctx, n, sizeof *h.stack);
    h.via = hf_i_alloc_array(ctx, n, sizeof *h.via);
    hf_status st = HF_OK;
    if (!rmask || !h.open || !h.avail || !h.freex || !rev || !h.match_l || !h.match_r || !h.dist ||
        !h.it || !h.queue || !h.stack || !h.via) {
        st = HF_ENOMEM;
        goto out;
    }
    h.rmask = rmask;
    for (uint32_t i = 0; i < n; i++) { /* R in topological order */
        uint32_t v = p->topo[i];
        h.match_l[v] = h.match_r[v] = NONE;
        if (in_r[v]) {
            hf_i_bit_set(rmask, v);
            rev[r++] = v;
        }
    }
    /* a quick start: match along Hasse edges first */
    for (uint32_t i = 0; i < r; i++) {
        uint32_t y = rev[i];
        for (size_t j = p->pred_off[y]; j < p->pred_off[y + 1]; j++) {
            uint32_t x = p->pred[j];
            if (in_r[x] && h.match_r[x] == NONE) {
                h.match_l[y] = x;
                h.match_r[x] = y;
                break;
            }
        }
    }
    while (hk_bfs(&h, rev, r))
        for (uint32_t i = 0; i < r; i++)
            if (h.match_l[rev[i]] == NONE && h.dist[rev[i]] == 0)
                hk_dfs(&h, rev[i]);
    /* chains start at the events without a predecessor in the matching */
    uint32_t k = *count;
    for (uint32_t i = 0; i < r; i++) {
        uint32_t v = rev[i];
        if (h.match_l[v] != NONE)
            continue;
        for (uint32_t u = v; u != NONE; u = h.match_r[u])
            chain_of[u] = k;
        k++;
    }
    *count = k;
out:
    hf_i_free(ctx, rmask);
    hf_i_free(ctx, h.open);
    hf_i_free(ctx, h.avail);
    hf_i_free(ctx, h.freex);
    hf_i_free(ctx, rev);
    hf_i_free(ctx, h.match_l);
    hf_i_free(ctx, h.match_r);
    hf_i_free(ctx, h.dist);
    hf_i_free(ctx, h.it);
    hf_i_free(ctx, h.queue);
    hf_i_free(ctx, h.stack);
    hf_i_free(ctx, h.via);
    return st;
}

hf_status hf_i_chains_decompose(const hf_poset *p, const uint8_t *in_set, bool use_threads,
                                hf_i_chains *out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    uint32_t n = p->n;
    memset(out, 0, sizeof *out);
    hf_status st;
    bool threads = false;
    if (use_threads && p->threads.of)
        for (uint32_t v = 0; v < n && !threads; v++)
            threads = (!in_set || in_set[v]) && p->threads.of[v] != NONE;
    if (threads &&
        (st = hf_i_chains_check_threads(
             p, "method chains needs the events of a thread to happen one after another", err)))
        return st;
    size_t n1 = n ? n : 1;
    out->chain_of = hf_i_alloc_array(ctx, n1, sizeof *out->chain_of);
    uint8_t *in_r = hf_i_calloc(ctx, n1, 1);
    uint32_t *tmap = NULL;
    if (!out->chain_of || !in_r)
        goto oom;
    memset(out->chain_of, 0xff, n * sizeof *out->chain_of);
    uint32_t count = 0, size = 0;
    if (threads) {
        tmap = hf_i_alloc_array(ctx, p->threads.count, sizeof *tmap);
        if (!tmap)
            goto oom;
        memset(tmap, 0xff, p->threads.count * sizeof *tmap);
    }
    for (uint32_t v = 0; v < n; v++) {
        if (in_set && !in_set[v])
            continue;
        size++;
        uint32_t t = threads ? p->threads.of[v] : NONE;
        if (t == NONE) {
            in_r[v] = 1;
            continue;
        }
        if (tmap[t] == NONE)
            tmap[t] = count++;
        out->chain_of[v] = tmap[t];
    }
    out->threads = count;
    st = p->tin ? decompose_forest(p, in_r, out->chain_of, &count)
                : decompose_matching(p, in_r, out->chain_of, &count);
    if (st)
        goto oom;
    out->count = count;
    out->off = hf_i_calloc(ctx, (size_t)count + 1, sizeof *out->off);
    out->ev = hf_i_alloc_array(ctx, size ? size : 1, sizeof *out->ev);
    if (!out->off || !out->ev)
        goto oom;
    for (uint32_t v = 0; v < n; v++)
        if (out->chain_of[v] != NONE)
            out->off[out->chain_of[v] + 1]++;
    for (uint32_t c = 0; c < count; c++)
        out->off[c + 1] += out->off[c];
    for (uint32_t i = 0; i < n; i++) { /* each chain in topological, i.e. increasing, order */
        uint32_t v = p->topo[i], c = out->chain_of[v];
        if (c != NONE)
            out->ev[out->off[c]++] = v;
    }
    for (uint32_t c = count; c > 0; c--)
        out->off[c] = out->off[c - 1];
    out->off[0] = 0;
    hf_i_free(ctx, in_r);
    hf_i_free(ctx, tmap);
    return HF_OK;
oom:
    hf_i_free(ctx, in_r);
    hf_i_free(ctx, tmap);
    hf_i_chains_free(ctx, out);
    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
}
