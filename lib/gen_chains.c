/* Method chains, any partial order and any d: one schedule per (chain, admissible (d-2)-tuple)
 * over a minimum chain decomposition or the order's threads, each distinct schedule once.
 *
 * The construction. Let C_1..C_w partition the focus events F (all events without a focus set)
 * into chains and k = d - 2. For a chain c = (c_0 < c_1 < ... < c_{m-1}) let lc(x) be the number
 * of events of c strictly below x, and sigma_c the order of all events by the key
 *   x not in c: (lc(x), 0, rank(x)),      c_i: (i, 1),
 * i.e. the events not in c that lie above no c_i in topological order, then c_0, then those
 * above c_0 but not c_1, then c_1, and so on. sigma_c is a linear extension: a predecessor u of x
 * outside c has lc(u) <= lc(x) and a smaller rank; a predecessor c_i of x gives lc(x) >= i + 1,
 * so x's block follows c_i; c_i's predecessors outside c have lc <= i. (sigma_c is the greedy
 * order "take the available event outside c of smallest rank; only when there is none, c's next
 * event": before c_i is taken exactly the events of block i are available outside c.)
 * For an admissible k-tuple t = (a_1..a_k) of focus events let P(t) be the down-set of a_1 in
 * topological order, then the part of the down-set of a_2 not placed yet, ..., of a_k, and
 * D(t) the events of P(t). The schedule S(c,t) is P(t) followed by sigma_c without D(t); it is
 * a linear extension since D(t) is a down-set.
 *
 * Claim: if (a_1..a_d) is an admissible d-tuple of focus events with a_d in chain c, then
 * S(c, (a_1..a_{d-2})) hits it. Proof. Admissibility puts no later entry below an earlier one, so
 * a_i (i <= k) is in no down-set of a_1..a_{i-1}: it ends the i-th part of P(t), and a_{d-1},
 * a_d lie outside D(t). Say a_d = c_j. If a_{d-1} is in c it is comparable to a_d, hence below
 * it, hence earlier in c and in sigma_c. Otherwise a_{d-1} sits in block lc(a_{d-1}); were it
 * after c_j, then lc(a_{d-1}) >= j + 1, i.e. c_j < a_{d-1}, contradicting admissibility. So
 * a_1..a_{d-2} come in order in P(t) and a_{d-1} before a_d after it. For d = 2, t is empty
 * (w schedules: the classical dimension <= width bound); for d = 1 one topological order.
 *
 * Only the pairs that can hit something are built: t must leave at least two focus events
 * outside D(t) (else it is the prefix of no admissible d-tuple), c must have an event y outside
 * D(t), and not only one that lies below every other focus event outside D(t) (then no admissible
 * tuple ends at y). So at most w * n^(d-2) schedules (w * n(n-1)..(n-d+3)); equal schedules from
 * different pairs are emitted once (128-bit row hashes; two distinct rows with one hash would drop
 * one, a chance below 2^-80 at the size limit). With fewer than d focus events d is lowered to
 * their number, as hf_verify does (an order without events gets one empty schedule). With a focus
 * set only tuples of focus events are hit, and the chains partition the focus events only (the
 * proof never uses the events outside F); the schedules still order every event.
 *
 * The chains: the threads when some focus event has one (each thread restricted to F is a chain;
 * the focus events without a thread are split by a minimum decomposition of the order they
 * induce), else a minimum decomposition of F (see gen_chains.h): w is then the width of F.
 *
 * Cost: O(n + e) per chain for sigma_c. The admissible tuples are enumerated depth first, each
 * down-set placed by a search over predecessors and ordered in O(min(size log size, rank)).
 * When chains * n <= HF_I_CHAINS_SIGMA_BUDGET every sigma_c is kept and the tuples are enumerated
 * once (schedules come tuple by tuple); otherwise once per chain with one sigma_c in memory
 * (schedules come chain by chain). O(n) per schedule to build and hash it (plus O(|F|) when c has
 * one event left, to test that it lies below the rest). A first pass counts the (chain, tuple)
 * pairs, O(1) per tuple, and refuses beyond HF_I_CHAINS_MAX_SCHEDULES before anything is built.
 * Memory O(n + e) (or chains * n within the budget) plus 32 bytes per distinct schedule for the
 * hash set; never the family itself. predict() runs the construction without emitting.
 * Every order that is not a forest keeps a closure (the builder refuses larger ones), so the
 * minimum decomposition always applies; no greedy fallback is needed. */
#include <stdlib.h>
#include <string.h>

#include "gen_chains.h"
#include "keyset.h"
#include "poset_i.h"

/* ---------------------------------------------------------------------------------------- */
/* Chain decompositions                                                                     */

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

/* ---------------------------------------------------------------------------------------- */
/* The family                                                                               */

enum { MODE_COUNT, MODE_EMIT };

typedef struct run {
    const hf_poset *p;
    hf_ctx *ctx;
    uint32_t n;
    unsigned dd; /* d' = min(d, focus events) */
    unsigned k;  /* tuple length d' - 2 */
    int mode;
    hf_i_chains ch;
    uint8_t *in_f; /* n: focus events */
    uint32_t *fev; /* the focus events by id */
    uint32_t fcount;
    uint8_t *done;    /* n: placed by the prefix */
    uint32_t fdone;   /* focus events placed */
    uint32_t *cdone;  /* per chain: events placed (a prefix of the chain) */
    uint32_t cfull;   /* chains with every event placed */
    uint32_t *prefix; /* n: the placed events in order */
    uint32_t plen;
    uint32_t *stack;  /* n */
    uint32_t *sigma;  /* n: sigma_c of the current chain */
    uint32_t *sigmas; /* every chain's sigma_c, when they fit in HF_I_CHAINS_SIGMA_BUDGET */
    uint32_t *lc;     /* n */
    uint32_t *bucket; /* n + 1 */
    uint32_t *row;    /* n */
    uint32_t cur;     /* the current chain */
    uint64_t pairs;   /* MODE_COUNT: (chain, tuple) pairs */
    uint64_t limit;
    hf_i_keyset keys;
    hf_sink out; /* put NULL: count only */
    uint64_t emitted;
} run;

static void run_free(run *r)
{
    hf_ctx *ctx = r->ctx;
    hf_i_chains_free(ctx, &r->ch);
    void *arrays[] = {r->in_f,  r->fev, r->done,   r->cdone, r->prefix,    r->stack,
                      r->sigma, r->lc,  r->bucket, r->row,   r->keys.slot, r->sigmas};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        hf_i_free(ctx, arrays[i]);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void mark(run *r, uint32_t v, bool on)
{
    r->done[v] = on;
    if (!r->in_f[v])
        return;
    uint32_t c = r->ch.chain_of[v], size = r->ch.off[c + 1] - r->ch.off[c];
    if (on) {
        r->fdone++;
        r->cfull += ++r->cdone[c] == size;
    } else {
        r->fdone--;
        r->cfull -= r->cdone[c]-- == size;
    }
}

/* Append the unplaced part of a's down-set in topological order; returns how many. The part is
 * found by a search over predecessors (new events marked 2) and then ordered by sorting its
 * ranks or, when that costs more, by a scan of the topological order up to a. */
static uint32_t place(run *r, uint32_t a)
{
    const hf_poset *p = r->p;
    uint32_t start = r->plen, sp = 0, cnt = 0;
    r->stack[sp++] = a;
    r->done[a] = 2;
    while (sp > 0) {
        uint32_t v = r->stack[--sp];
        r->prefix[start + cnt++] = p->rank[v];
        for (size_t i = p->pred_off[v]; i < p->pred_off[v + 1]; i++)
            if (!r->done[p->pred[i]]) {
                r->done[p->pred[i]] = 2;
                r->stack[sp++] = p->pred[i];
            }
    }
    uint32_t lg = 1;
    while (lg < 32 && (cnt >> lg))
        lg++;
    if ((uint64_t)cnt * lg <= p->rank[a]) {
        qsort(r->prefix + start, cnt, sizeof *r->prefix, cmp_u32);
        for (uint32_t i = start; i < start + cnt; i++)
            r->prefix[i] = p->topo[r->prefix[i]];
    } else {
        uint32_t k = start;
        for (uint32_t i = 0; i <= p->rank[a]; i++)
            if (r->done[p->topo[i]] == 2)
                r->prefix[k++] = p->topo[i];
    }
    for (uint32_t i = start; i < start + cnt; i++)
        mark(r, r->prefix[i], true);
    r->plen = start + cnt;
    return cnt;
}

static void unplace(run *r, uint32_t count)
{
    for (uint32_t i = r->plen - count; i < r->plen; i++)
        mark(r, r->prefix[i], false);
    r->plen -= count;
}

/* sigma_c of chain c into out (see the header comment). O(n + e). */
static void build_sigma(run *r, uint32_t c, uint32_t *out)
{
    const hf_poset *p = r->p;
    uint32_t m = r->ch.off[c + 1] - r->ch.off[c];
    const uint32_t *ce = r->ch.ev + r->ch.off[c];
    memset(r->bucket, 0, ((size_t)m + 2) * sizeof *r->bucket);
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t x = p->topo[i], l = 0;
        for (size_t j = p->pred_off[x]; j < p->pred_off[x + 1]; j++) {
            uint32_t u = p->pred[j];
            uint32_t lu = r->lc[u] + (r->ch.chain_of[u] == c);
            l = lu > l ? lu : l;
        }
        r->lc[x] = l;
        if (r->ch.chain_of[x] != c)
            r->bucket[l + 1]++;
    }
    /* block b starts after the blocks below it and c_0..c_{b-1}; after the fill, bucket[b]
     * is where c_b goes */
    for (uint32_t b = 0; b < m; b++)
        r->bucket[b + 1] += r->bucket[b] + 1;
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t x = p->topo[i];
        if (r->ch.chain_of[x] != c)
            out[r->bucket[r->lc[x]]++] = x;
    }
    for (uint32_t b = 0; b < m; b++)
        out[r->bucket[b]] = ce[b];
}

/* Two ids per step and two independent lanes: the multiply chains dominate generation. */
static hf_i_key row_key(const uint32_t *s, uint32_t n)
{
    uint64_t a = UINT64_C(0x6a09e667f3bcc909) ^ n, b = UINT64_C(0xbb67ae8584caa73b) + n;
    uint32_t i = 0;
    for (; i + 1 < n; i += 2) {
        uint64_t w = (uint64_t)s[i] | (uint64_t)s[i + 1] << 32;
        a = (a ^ w) * UINT64_C(0x9e3779b97f4a7c15);
        a ^= a >> 29;
        b = (b + w) * UINT64_C(0xd6e8feb86659fd93);
        b = (b << 31) | (b >> 33);
    }
    if (i < n) {
        a = (a ^ s[i]) * UINT64_C(0x9e3779b97f4a7c15);
        b = (b + s[i] + 1) * UINT64_C(0xd6e8feb86659fd93);
    }
    hf_i_key k = {hf_i_fmix64(a ^ (b >> 7)), hf_i_fmix64(b + UINT64_C(0xa54ff53a5f1d36f1))};
    k.a |= 1;
    return k;
}

/* Whether focus event y lies below every other unplaced focus event. O(|F|). */
static bool below_all(run *r, uint32_t y)
{
    for (uint32_t i = 0; i < r->fcount; i++) {
        uint32_t x = r->fev[i];
        if (x != y && !r->done[x] && !hf_i_less(r->p, y, x))
            return false;
    }
    return true;
}

/* S(c, t) for the tuple placed now, unless c cannot end an admissible d-tuple after it. */
static hf_status emit(run *r, uint32_t c, const uint32_t *sigma)
{
    uint32_t lo = r->ch.off[c], size = r->ch.off[c + 1] - lo;
    if (r->cdone[c] == size || (r->cdone[c] + 1 == size && below_all(r, r->ch.ev[lo + size - 1])))
        return HF_OK;
    uint32_t len = r->plen;
    memcpy(r->row, r->prefix, (size_t)len * sizeof *r->row);
    for (uint32_t i = 0; i < r->n; i++)
        if (!r->done[sigma[i]])
            r->row[len++] = sigma[i];
    bool fresh;
    if (hf_i_keyset_add(r->ctx, &r->keys, row_key(r->row, r->n), &fresh))
        return HF_ENOMEM;
    if (!fresh)
        return HF_OK;
    r->emitted++;
    return r->out.put ? r->out.put(r->out.user, r->row, r->n) : HF_OK;
}

static hf_status leaf(run *r)
{
    if (r->fcount - r->fdone < 2)
        return HF_OK;
    if (r->mode == MODE_COUNT) {
        r->pairs += r->ch.count - r->cfull;
        return r->pairs > r->limit ? HF_ETOOLARGE : HF_OK;
    }
    if (!r->sigmas)
        return emit(r, r->cur, r->sigma);
    hf_status st = HF_OK;
    for (uint32_t c = 0; c < r->ch.count && !st; c++)
        st = emit(r, c, r->sigmas + (size_t)c * r->n);
    return st;
}

/* Every admissible tuple of focus events, extended at `depth`: its next entry is any unplaced
 * focus event (an event is admissible after the others iff it is below none of them, i.e. not
 * yet placed, the placed set being the union of their down-sets). */
static hf_status walk(run *r, unsigned depth)
{
    if (depth == r->k)
        return leaf(r);
    if (r->fcount - r->fdone < r->k - depth + 2)
        return HF_OK;
    for (uint32_t i = 0; i < r->fcount; i++) {
        uint32_t a = r->fev[i];
        if (r->done[a])
            continue;
        uint32_t added = place(r, a);
        hf_status st = walk(r, depth + 1);
        unplace(r, added);
        if (st)
            return st;
    }
    return HF_OK;
}

static hf_status run_init(run *r, const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->ctx = p->ctx;
    r->n = p->n;
    size_t n1 = p->n ? p->n : 1;
    r->in_f = hf_i_calloc(r->ctx, n1, 1);
    r->fev = hf_i_alloc_array(r->ctx, n1, sizeof *r->fev);
    if (!r->in_f || !r->fev) {
        run_free(r);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    if (opt->focus && opt->focus_count)
        for (size_t i = 0; i < opt->focus_count; i++)
            r->in_f[opt->focus[i]] = 1;
    else
        memset(r->in_f, 1, p->n);
    for (uint32_t v = 0; v < p->n; v++)
        if (r->in_f[v])
            r->fev[r->fcount++] = v;
    r->dd = opt->d < r->fcount ? opt->d : r->fcount;
    r->k = r->dd >= 2 ? r->dd - 2 : 0;
    if (r->dd < 2)
        return HF_OK;
    hf_status st = hf_i_chains_decompose(p, r->in_f, true, &r->ch, err);
    if (st) {
        run_free(r);
        return st;
    }
    r->done = hf_i_calloc(r->ctx, n1, 1);
    r->cdone = hf_i_calloc(r->ctx, r->ch.count ? r->ch.count : 1, sizeof *r->cdone);
    r->prefix = hf_i_alloc_array(r->ctx, n1, sizeof *r->prefix);
    r->stack = hf_i_alloc_array(r->ctx, n1, sizeof *r->stack);
    r->sigma = hf_i_alloc_array(r->ctx, n1, sizeof *r->sigma);
    r->lc = hf_i_alloc_array(r->ctx, n1, sizeof *r->lc);
    r->bucket = hf_i_alloc_array(r->ctx, (size_t)p->n + 2, sizeof *r->bucket);
    r->row = hf_i_alloc_array(r->ctx, n1, sizeof *r->row);
    if (!r->done || !r->cdone || !r->prefix || !r->stack || !r->sigma || !r->lc || !r->bucket ||
        !r->row) {
        run_free(r);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    return HF_OK;
}

/* The number of (chain, tuple) pairs, at most `limit` (else HF_ETOOLARGE, not yet failed). */
static hf_status count_pairs(run *r, uint64_t limit)
{
    r->mode = MODE_COUNT;
    r->limit = limit;
    r->pairs = 0;
    return walk(r, 0);
}

/* The whole method: schedules to sink (put NULL: only counted into *emitted). */
static hf_status run_chains(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                            uint64_t work_limit, uint64_t sigma_budget, uint64_t *emitted,
                            hf_error *err)
{
    run r;
    hf_status st = run_init(&r, p, opt, err);
    if (st)
        return st;
    r.out = sink;
    if (r.dd <= 1) { /* one schedule, any linear extension (the empty one when n = 0) */
        r.emitted = 1;
        if (sink.put)
            st = sink.put(sink.user, p->topo, p->n);
        goto out;
    }
    st = count_pairs(&r, HF_I_CHAINS_MAX_SCHEDULES);
    if (st == HF_ETOOLARGE) {
        st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                       "method chains would build more than %" PRIu64 " schedules at d=%u "
                       "(%" PRIu32 " chains, %" PRIu32 " events); use a focus set, a smaller d "
                       "or method random",
                       HF_I_CHAINS_MAX_SCHEDULES, opt->d, r.ch.count, r.fcount);
        goto out;
    }
    if (work_limit && r.pairs > work_limit / (r.n ? r.n : 1)) {
        st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                       "the size of a chains family is known only by building it; hitfam "
                       "predicts it up to %" PRIu64 " schedule events (this one needs about "
                       "%" PRIu64 " schedules of %" PRIu32 " events)",
                       work_limit, r.pairs, r.n);
        goto out;
    }
    r.mode = MODE_EMIT;
    if ((uint64_t)r.ch.count * r.n <= sigma_budget) {
        /* every sigma_c at once: the tuples are enumerated once, not once per chain */
        r.sigmas = hf_i_alloc_array(r.ctx, (size_t)r.ch.count * r.n, sizeof *r.sigmas);
        if (!r.sigmas) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        for (uint32_t c = 0; c < r.ch.count; c++)
            build_sigma(&r, c, r.sigmas + (size_t)c * r.n);
        st = walk(&r, 0);
    } else {
        for (r.cur = 0; r.cur < r.ch.count && !st; r.cur++) {
            build_sigma(&r, r.cur, r.sigma);
            st = walk(&r, 0);
            hf_i_log(r.ctx, HF_LOG_PROGRESS,
                     "chains: chain %" PRIu32 " of %" PRIu32 ", %" PRIu64 " schedules", r.cur + 1,
                     r.ch.count, r.emitted);
        }
    }
    if (st == HF_ENOMEM)
        hf_i_fail(err, st, 0, 0, "out of memory");
out:
    if (!st && emitted)
        *emitted = r.emitted;
    run_free(&r);
    return st;
}

static hf_status chains_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    (void)opt;
    if (!p->tin && !p->closure && p->n > 0)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method chains needs a forest, an in-forest or an order of at most %u "
                         "events",
                         HF_CLOSURE_MAX_EVENTS);
    return hf_i_chains_check_threads(
        p, "method chains needs the events of a thread to happen one after another", err);
}

static hf_status chains_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                hf_error *err)
{
    uint64_t count = 0;
    hf_status st = run_chains(p, opt, (hf_sink){NULL, NULL}, HF_I_CHAINS_PREDICT_MAX_WORK,
                              HF_I_CHAINS_SIGMA_BUDGET, &count, err);
    if (!st)
        mpz_import(size, 1, -1, sizeof count, 0, 0, &count);
    return st;
}

static hf_status chains_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                 hf_error *err)
{
    return run_chains(p, opt, sink, 0, HF_I_CHAINS_SIGMA_BUDGET, NULL, err);
}

hf_status hf_i_chains_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                               uint64_t sigma_budget, hf_error *err)
{
    hf_status st = chains_check(p, opt, err);
    return st ? st : run_chains(p, opt, sink, 0, sigma_budget, NULL, err);
}

/* On forests and in-forests the tree methods beat chains (w * n^(d-2) schedules for w leaves)
 * by far on every order measured, and predicting chains costs a run. */
static hf_i_auto_rule chains_auto_rule(const hf_poset *p, unsigned d)
{
    (void)d;
    return p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST) ? HF_I_AUTO_ADVISE : HF_I_AUTO_WEIGH;
}

const hf_i_method hf_i_method_chains = {
    .id = HF_METHOD_CHAINS,
    .name = "chains",
    .check = chains_check,
    .predict = chains_predict,
    .generate = chains_generate,
    .predict_runs = true,
    .auto_rule = chains_auto_rule,
};
