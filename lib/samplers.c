/* The schedulers hitfam compares hitting families with: the seeded streams of rw, pct, pos and
 * basicpos (random's uniform sampler is in lib/gen_random.c; the methods of gen that run them,
 * with their count and until-covered streams, in lib/gen_sample.c). docs/samplers.md explains
 * each and its known guarantee.
 *
 * Every sampler runs the order as a program would run: a step executes one enabled event (one
 * whose Hasse predecessors have all run), so each schedule is a linear extension.
 * - rw: the enabled event is drawn uniformly. The enabled set is an array with removal by
 *   swapping with the last entry: O(n + e) per schedule.
 * - pct (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010), depth d: the events are
 *   split into threads (chains, see below). Each schedule draws distinct initial priorities for
 *   the k threads (a uniform permutation) and d - 1 change points, distinct steps drawn
 *   uniformly among 1..n (fewer when n < d - 1). A step runs the enabled event of the thread of
 *   highest priority (a thread's events form a chain, so at most its next event is enabled);
 *   at the i-th change point (i = 1..d-1) the thread about to take the step first drops to
 *   priority -i, below every initial priority, and the step goes to the highest thread then
 *   (the same one if no other is enabled). So a change point inserts a preemption before the
 *   event it falls on, a thread's first event included. (Lowering the thread after its step
 *   instead, as the ASPLOS paper words it, cannot delay a thread's first event: on orders with
 *   one-event threads some 4-tuples then have probability 0, while the bound below held for
 *   every admissible tuple of every order tested this way: tests/test_gen_sample.c.)
 *   A max-heap of the threads whose next event is enabled: O(n log k + e) per schedule, plus
 *   O(d) per step to test the change points.
 *   Threads: with thread= labels (hf_poset_builder_set_thread), each named thread is one
 *   thread, its events in order (they must be pairwise ordered: otherwise HF_EINVAL naming two
 *   of them); the events without a label are split by a minimum chain decomposition of the
 *   order they induce, each chain one more thread. So an unlabelled event never joins a named
 *   thread, and without labels the threads are a minimum chain decomposition (Dilworth: as many
 *   as the width), computed once per stream (lib/chains_decompose.c: O(n) on forests and
 *   in-forests, Hopcroft-Karp over the closure otherwise).
 * - pos (Yuan, Yang, Gu, CAV 2018) and basicpos: every event holds a random priority and a step
 *   runs the enabled event of highest priority. pos gives a fresh priority, after each step, to
 *   every event that conflicts with the event just run (hf_poset_conflict: unordered, same
 *   object, one of the two writes; every unordered pair when no event has an object); basicpos
 *   never does. A priority is only ever compared while its event is enabled, so drawing it when
 *   the event becomes enabled, and refreshing only the enabled conflicting events, gives the
 *   same law as the paper's algorithm (the other events' priorities are unobserved).
 *   Priorities are kept as logarithms, key = log U = -E with E exponential, so that a group of
 *   m events refreshed together need not be drawn one by one: their largest key is -E/m, held
 *   by a uniformly chosen member, and the others stay iid below it (memorylessness), drawn only
 *   when that one has run. Events are grouped per object into readers and writers; running a
 *   write refreshes both groups of its object, a read the writers. Without objects all events
 *   form one group of writers: every step refreshes the whole enabled set, which makes pos
 *   sample exactly as rw does. Each step costs O(log n) heap work for the event run, for each
 *   event enabled, and for each group refreshed (at most two, plus one for the run event's own
 *   group), and each event leaves the heap at most once as an individual: O((n + e) log n) per
 *   schedule whatever the conflicts. basicpos is the heap alone: O((n + e) log n).
 * Exponentials are drawn by von Neumann's comparison method and keys combined with IEEE
 * subtraction and division only, so a seed gives the same bytes on every machine; equal keys
 * are broken by event id. */
#include <string.h>

#include "poset_i.h"
#include "sample.h"

/* ---------------------------------------------------------------------------------------- */
/* Random variates                                                                          */

/* Uniform in [0, 1) with 53 random bits. */
static double unit(hf_i_rng *r) { return (double)(hf_i_rng_next(r) >> 11) * 0x1p-53; }

double hf_i_rng_exp(hf_i_rng *r)
{
    /* Draw u, then further uniforms while they keep decreasing. Given u = x the decreasing run
     * has length at least j with probability x^(j-1)/(j-1)!, so it has odd length with
     * probability e^-x: accepting u then gives the exponential law cut to [0, 1), and each
     * rejection (probability 1/e) adds one to the integer part. */
    double k = 0;
    for (;;) {
        double u = unit(r), prev = u;
        unsigned len = 1;
        for (;;) {
            double v = unit(r);
            if (v >= prev)
                break;
            prev = v;
            len++;
        }
        if (len & 1u)
            return k + u;
        k += 1;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* The streams                                                                              */

struct hf_i_sampler {
    const hf_poset *p;
    hf_ctx *ctx;
    hf_method method;
    uint32_t n;
    unsigned d;
    hf_i_rng rng;
    hf_i_uniform *uniform; /* random */
    uint32_t *indeg;       /* n: Hasse predecessors of each event */
    uint32_t *pending;     /* n: those not run yet in the current schedule */
    uint32_t *ready;       /* rw: the enabled events */
    /* an indexed max-heap of ids (events, or pct's threads) by key, then smaller id */
    uint32_t *heap, *hpos;
    double *key;
    uint32_t heap_n;
    /* pct */
    hf_i_chains chains;
    uint32_t *next; /* per thread: how many of its events have run */
    uint32_t *perm; /* per thread: scratch for the initial priorities */
    uint32_t cps[HF_MAX_D];
    unsigned ncp;
    /* pos: groups of events that are refreshed together */
    uint32_t *group;  /* n: 2 * object + (writes), 0 for all without objects, NONE: none */
    uint32_t ngroups; /* 2 * objects, or 1 */
    uint32_t *g_off;  /* ngroups + 1: each group's slots */
    uint32_t *g_size; /* enabled members */
    uint32_t *g_bag;  /* of which the first g_bag slots are not drawn yet */
    uint32_t *g_top;  /* the member drawn last from the bag (NONE: none) */
    double *g_bound;  /* the bag's members have keys below this */
    uint32_t *slot;   /* n: members, group by group */
    uint32_t *where;  /* n: an enabled member's slot */
    hf_i_pos_refresh_fn on_refresh;
    void *refresh_user;
};

void hf_i_sampler_free(hf_i_sampler *s)
{
    if (!s)
        return;
    hf_ctx *ctx = s->ctx;
    hf_i_uniform_free(s->uniform);
    hf_i_free(ctx, s->indeg);
    hf_i_free(ctx, s->pending);
    hf_i_free(ctx, s->ready);
    hf_i_free(ctx, s->heap);
    hf_i_free(ctx, s->hpos);
    hf_i_free(ctx, s->key);
    hf_i_chains_free(ctx, &s->chains);
    hf_i_free(ctx, s->next);
    hf_i_free(ctx, s->perm);
    hf_i_free(ctx, s->group);
    hf_i_free(ctx, s->g_off);
    hf_i_free(ctx, s->g_size);
    hf_i_free(ctx, s->g_bag);
    hf_i_free(ctx, s->g_top);
    hf_i_free(ctx, s->g_bound);
    hf_i_free(ctx, s->slot);
    hf_i_free(ctx, s->where);
    hf_i_free(ctx, s);
}

/* ---- the heap ---- */

static bool above(const hf_i_sampler *s, uint32_t a, uint32_t b)
{
    return s->key[a] > s->key[b] || (s->key[a] == s->key[b] && a < b);
}

static void heap_place(hf_i_sampler *s, uint32_t i, uint32_t id)
{
    s->heap[i] = id;
    s->hpos[id] = i;
}

static void sift_up(hf_i_sampler *s, uint32_t i)
{
    uint32_t id = s->heap[i];
    while (i > 0 && above(s, id, s->heap[(i - 1) / 2])) {
        heap_place(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_place(s, i, id);
}

static void sift_down(hf_i_sampler *s, uint32_t i)
{
    uint32_t id = s->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= s->heap_n)
            break;
        if (c + 1 < s->heap_n && above(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!above(s, s->heap[c], id))
            break;
        heap_place(s, i, s->heap[c]);
        i = c;
    }
    heap_place(s, i, id);
}

static void heap_push(hf_i_sampler *s, uint32_t id)
{
    s->heap[s->heap_n] = id;
    sift_up(s, s->heap_n++);
}

static void heap_remove(hf_i_sampler *s, uint32_t id)
{
    uint32_t i = s->hpos[id];
    s->hpos[id] = NONE;
    uint32_t last = s->heap[--s->heap_n];
    if (i == s->heap_n)
        return;
    heap_place(s, i, last);
    if (i > 0 && above(s, last, s->heap[(i - 1) / 2]))
        sift_up(s, i);
    else
        sift_down(s, i);
}

static uint32_t heap_pop(hf_i_sampler *s)
{
    uint32_t top = s->heap[0];
    heap_remove(s, top);
    return top;
}

/* ---- rw ---- */

static void sample_rw(hf_i_sampler *s, uint32_t *out)
{
    const hf_poset *p = s->p;
    uint32_t count = 0;
    for (uint32_t v = 0; v < s->n; v++)
        if (!s->indeg[v])
            s->ready[count++] = v;
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t i = (uint32_t)hf_i_rng_below(&s->rng, count);
        uint32_t v = s->ready[i];
        s->ready[i] = s->ready[--count];
        out[k] = v;
        for (size_t j = p->succ_off[v]; j < p->succ_off[v + 1]; j++)
            if (--s->pending[p->succ[j]] == 0)
                s->ready[count++] = p->succ[j];
    }
}

/* ---- pct ---- */

hf_status hf_i_pct_check_threads(const hf_poset *p, hf_error *err)
{
    return hf_i_chains_check_threads(p, "method pct runs the events of a thread one after another",
                                     err);
}

/* One PCT schedule from the initial priorities prio[t] (distinct) and the ncp change points
 * cps (distinct steps, 1-based); pending must hold the in-degrees. */
static void run_pct(hf_i_sampler *s, const uint32_t *prio, const uint32_t *cps, unsigned ncp,
                    uint32_t *out)
{
    const hf_poset *p = s->p;
    const hf_i_chains *c = &s->chains;
    uint32_t k = c->count;
    for (uint32_t t = 0; t < k; t++) {
        s->key[t] = (double)prio[t];
        s->next[t] = 0;
    }
    s->heap_n = 0;
    for (uint32_t t = 0; t < k; t++)
        if (c->off[t] < c->off[t + 1] && !s->indeg[c->ev[c->off[t]]])
            heap_push(s, t);
    for (uint32_t step = 1; step <= s->n; step++) {
        uint32_t t = s->heap[0];
        /* a change point lowers the thread about to take the step, which then goes to the
         * highest thread enabled after it (the same one if it is the only one) */
        for (unsigned i = 0; i < ncp; i++)
            if (cps[i] == step) {
                s->key[t] = -(double)(i + 1);
                sift_down(s, 0);
                t = s->heap[0];
            }
        heap_remove(s, t);
        uint32_t v = c->ev[c->off[t] + s->next[t]++];
        out[step - 1] = v;
        /* a thread's next event becomes enabled only when its last predecessor runs, and then
         * its earlier events have all run (they lie below it) */
        for (size_t j = p->succ_off[v]; j < p->succ_off[v + 1]; j++)
            if (--s->pending[p->succ[j]] == 0)
                heap_push(s, c->chain_of[p->succ[j]]);
    }
}

static void sample_pct(hf_i_sampler *s, uint32_t *out)
{
    uint32_t k = s->chains.count;
    /* initial priorities: a uniform permutation of 0..k-1 */
    for (uint32_t t = 0; t < k; t++)
        s->perm[t] = t;
    for (uint32_t t = k; t > 1; t--) {
        uint32_t j = (uint32_t)hf_i_rng_below(&s->rng, t), x = s->perm[t - 1];
        s->perm[t - 1] = s->perm[j];
        s->perm[j] = x;
    }
    /* change points: distinct steps, 1-based */
    s->ncp = s->d - 1 < s->n ? s->d - 1 : s->n;
    for (unsigned i = 0; i < s->ncp; i++) {
        bool again = true;
        while (again) {
            s->cps[i] = 1 + (uint32_t)hf_i_rng_below(&s->rng, s->n);
            again = false;
            for (unsigned j = 0; j < i; j++)
                again = again || s->cps[j] == s->cps[i];
        }
    }
    run_pct(s, s->perm, s->cps, s->ncp, out);
}

uint32_t hf_i_pct_change_points(const hf_i_sampler *s) { return s->d - 1 < s->n ? s->d - 1 : s->n; }

void hf_i_pct_schedule(hf_i_sampler *s, const uint32_t *prio, const uint32_t *cps, uint32_t *row)
{
    if (s->n == 0)
        return;
    memcpy(s->pending, s->indeg, s->n * sizeof *s->pending);
    run_pct(s, prio, cps, hf_i_pct_change_points(s), row);
}

/* ---- pos and basicpos ---- */

static void slot_set(hf_i_sampler *s, uint32_t i, uint32_t v)
{
    s->slot[i] = v;
    s->where[v] = i;
}

/* Draw the largest key of group g's bag: a uniform member gets bound - E / m and leaves the
 * bag for the heap; the bag's other members stay iid below that key. */
static void group_draw(hf_i_sampler *s, uint32_t g)
{
    uint32_t m = s->g_bag[g], off = s->g_off[g];
    if (m == 0) {
        s->g_top[g] = NONE;
        return;
    }
    double k = s->g_bound[g] - hf_i_rng_exp(&s->rng) / (double)m;
    uint32_t i = (uint32_t)hf_i_rng_below(&s->rng, m);
    uint32_t u = s->slot[off + i];
    slot_set(s, off + i, s->slot[off + m - 1]);
    slot_set(s, off + m - 1, u);
    s->g_bag[g] = m - 1;
    s->g_bound[g] = k;
    s->g_top[g] = u;
    s->key[u] = k;
    heap_push(s, u);
}

/* Fresh priorities for every enabled member of group g: all of them go back to the bag. */
static void group_refresh(hf_i_sampler *s, uint32_t g, uint32_t executed)
{
    uint32_t off = s->g_off[g], size = s->g_size[g];
    if (size == 0)
        return;
    for (uint32_t i = s->g_bag[g]; i < size; i++)
        heap_remove(s, s->slot[off + i]);
    if (s->on_refresh)
        s->on_refresh(s->refresh_user, executed, s->slot + off, size);
    s->g_bag[g] = size;
    s->g_bound[g] = 0;
    group_draw(s, g);
}

/* An event becomes enabled: a fresh key of its own. */
static void pos_enable(hf_i_sampler *s, uint32_t v)
{
    s->key[v] = -hf_i_rng_exp(&s->rng);
    heap_push(s, v);
    uint32_t g = s->group ? s->group[v] : NONE;
    if (g != NONE)
        slot_set(s, s->g_off[g] + s->g_size[g]++, v);
}

static void sample_pos(hf_i_sampler *s, uint32_t *out)
{
    const hf_poset *p = s->p;
    bool refresh = s->method == HF_METHOD_POS;
    if (s->group)
        for (uint32_t g = 0; g < s->ngroups; g++) {
            s->g_size[g] = s->g_bag[g] = 0;
            s->g_top[g] = NONE;
        }
    s->heap_n = 0;
    for (uint32_t v = 0; v < s->n; v++)
        if (!s->indeg[v])
            pos_enable(s, v);
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t v = heap_pop(s);
        out[k] = v;
        uint32_t g = s->group ? s->group[v] : NONE;
        bool was_top = false;
        if (g != NONE) {
            /* v was drawn, so it sits among the group's last (drawn) slots */
            uint32_t off = s->g_off[g], last = off + --s->g_size[g];
            slot_set(s, s->where[v], s->slot[last]);
            was_top = s->g_top[g] == v;
            if (was_top)
                s->g_top[g] = NONE;
        }
        bool g_refreshed = false;
        if (refresh && g != NONE && s->ngroups == 1) {
            /* without objects every unordered pair conflicts: one group of writers */
            group_refresh(s, 0, v);
            g_refreshed = true;
        } else if (refresh && g != NONE) {
            /* object o: readers in group 2o, writers in 2o + 1; a write conflicts with both,
             * a read with the writers */
            uint32_t readers = g & ~1u;
            group_refresh(s, readers + 1, v);
            if (g & 1u)
                group_refresh(s, readers, v);
            g_refreshed = g & 1u;
        }
        if (was_top && !g_refreshed)
            group_draw(s, g);
        for (size_t j = p->succ_off[v]; j < p->succ_off[v + 1]; j++)
            if (--s->pending[p->succ[j]] == 0)
                pos_enable(s, p->succ[j]);
    }
}

/* The groups of pos: sizes counted, slots laid out. */
static hf_status pos_groups(hf_i_sampler *s)
{
    const hf_poset *p = s->p;
    hf_ctx *ctx = s->ctx;
    uint32_t n = s->n;
    size_t n1 = n ? n : 1;
    s->ngroups = p->objects.of ? 2 * p->objects.count : 1;
    s->group = hf_i_alloc_array(ctx, n1, sizeof *s->group);
    s->g_off = hf_i_calloc(ctx, (size_t)s->ngroups + 1, sizeof *s->g_off);
    s->g_size = hf_i_calloc(ctx, s->ngroups, sizeof *s->g_size);
    s->g_bag = hf_i_calloc(ctx, s->ngroups, sizeof *s->g_bag);
    s->g_top = hf_i_alloc_array(ctx, s->ngroups, sizeof *s->g_top);
    s->g_bound = hf_i_calloc(ctx, s->ngroups, sizeof *s->g_bound);
    s->slot = hf_i_alloc_array(ctx, n1, sizeof *s->slot);
    s->where = hf_i_alloc_array(ctx, n1, sizeof *s->where);
    if (!s->group || !s->g_off || !s->g_size || !s->g_bag || !s->g_top || !s->g_bound || !s->slot ||
        !s->where)
        return HF_ENOMEM;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t o = p->objects.of ? p->objects.of[v] : 0;
        s->group[v] = o == NONE                         ? NONE
                      : !p->objects.of                  ? 0
                      : p->access[v] == HF_ACCESS_WRITE ? 2 * o + 1
                                                        : 2 * o;
        if (s->group[v] != NONE)
            s->g_off[s->group[v] + 1]++;
    }
    for (uint32_t g = 0; g < s->ngroups; g++)
        s->g_off[g + 1] += s->g_off[g];
    return HF_OK;
}

hf_status hf_i_sampler_new(const hf_poset *p, hf_method m, unsigned d, uint64_t seed,
                           hf_i_sampler **out, hf_error *err)
{
    if (!p || !out || !hf_i_is_sampler(m) || d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    *out = NULL;
    hf_status st = m == HF_METHOD_PCT ? hf_i_pct_check_threads(p, err) : HF_OK;
    if (st)
        return st;
    hf_ctx *ctx = p->ctx;
    hf_i_sampler *s = hf_i_calloc(ctx, 1, sizeof *s);
    if (!s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->p = p;
    s->ctx = ctx;
    s->method = m;
    s->n = p->n;
    s->d = d;
    hf_i_rng_seed(&s->rng, seed);
    size_t n1 = p->n ? p->n : 1;
    if (m == HF_METHOD_RANDOM) {
        if ((st = hf_i_uniform_new(p, seed, &s->uniform, err))) {
            hf_i_sampler_free(s);
            return st;
        }
        *out = s;
        return HF_OK;
    }
    s->indeg = hf_i_alloc_array(ctx, n1, sizeof *s->indeg);
    s->pending = hf_i_alloc_array(ctx, n1, sizeof *s->pending);
    if (!s->indeg || !s->pending)
        st = HF_ENOMEM;
    for (uint32_t v = 0; v < p->n && !st; v++)
        s->indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
    /* the heap holds events (pos, basicpos) or threads (pct): at most n either way */
    if (!st && m != HF_METHOD_RW) {
        s->heap = hf_i_alloc_array(ctx, n1, sizeof *s->heap);
        s->hpos = hf_i_alloc_array(ctx, n1, sizeof *s->hpos);
        s->key = hf_i_alloc_array(ctx, n1, sizeof *s->key);
        if (!s->heap || !s->hpos || !s->key)
            st = HF_ENOMEM;
        else
            memset(s->hpos, 0xff, n1 * sizeof *s->hpos);
    }
    if (!st && m == HF_METHOD_RW && !(s->ready = hf_i_alloc_array(ctx, n1, sizeof *s->ready)))
        st = HF_ENOMEM;
    if (!st && m == HF_METHOD_PCT) {
        if ((st = hf_i_chains_decompose(p, NULL, true, &s->chains, err))) {
            hf_i_sampler_free(s);
            return st == HF_ENOMEM ? hf_i_fail(err, st, 0, 0, "out of memory") : st;
        }
        uint32_t k = s->chains.count ? s->chains.count : 1;
        s->next = hf_i_alloc_array(ctx, k, sizeof *s->next);
        s->perm = hf_i_alloc_array(ctx, k, sizeof *s->perm);
        if (!s->next || !s->perm)
            st = HF_ENOMEM;
    }
    if (!st && m == HF_METHOD_POS)
        st = pos_groups(s);
    if (st) {
        hf_i_sampler_free(s);
        return hf_i_fail(err, st, 0, 0, "out of memory");
    }
    *out = s;
    return HF_OK;
}

hf_status hf_i_sampler_next(hf_i_sampler *s, uint32_t *row)
{
    if (s->method == HF_METHOD_RANDOM)
        return hf_i_uniform_next(s->uniform, row);
    if (s->n == 0)
        return HF_OK;
    memcpy(s->pending, s->indeg, s->n * sizeof *s->pending);
    switch (s->method) {
    case HF_METHOD_RW:
        sample_rw(s, row);
        break;
    case HF_METHOD_PCT:
        sample_pct(s, row);
        break;
    default:
        sample_pos(s, row);
        break;
    }
    return HF_OK;
}

uint64_t hf_i_sampler_cost(const hf_i_sampler *s)
{
    if (s->method == HF_METHOD_RANDOM)
        return hf_i_uniform_cost(s->uniform);
    return (uint64_t)s->n + s->p->edge_count;
}

const hf_i_chains *hf_i_sampler_pct_threads(const hf_i_sampler *s)
{
    return s && s->method == HF_METHOD_PCT ? &s->chains : NULL;
}

void hf_i_sampler_on_refresh(hf_i_sampler *s, hf_i_pos_refresh_fn fn, void *user)
{
    s->on_refresh = fn;
    s->refresh_user = user;
}
