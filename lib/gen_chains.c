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
 * induce), else a minimum decomposition of F (see gen_chains.h, lib/chains_decompose.c): w is
 * then the width of F.
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
