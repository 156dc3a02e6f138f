/* Method greedy, any partial order and d <= 4: a greedy set cover of the admissible d-tuples
 * (docs/math.md, section 7.2) built by insertion, then shrunk by a tabu local search on hit counts.
 *
 * Everything works on the m focus events (all events without a focus set) and the order they
 * inherit; a sequence of them that respects that order always extends to a schedule (place the
 * other events by Kahn's algorithm, a focus event only when it is the next one of the
 * sequence), which happens only when the schedules are emitted.
 *
 * Construction. A round builds some seeded candidates and keeps the one hitting the most tuples
 * not hit yet. A candidate inserts the focus events one at a time, in a random order, each at
 * the slot allowed by the order (after its placed predecessors, before its placed successors)
 * that hits the most new tuples made of it and events already placed; ties go to the PRNG.
 * Later insertions never change the relative order of placed events, so the gains of the
 * insertions add up to the candidate's true gain. The gains by slot come from a difference
 * array over the ordered (d-1)-subsequences already placed (O(k^(d-1)) per insertion); for
 * d = 3 instead from one sweep over the k placed events with the uncovered set kept both by
 * rows and by columns (lib/coverage.c), O(k * m / 64) word operations per insertion, reading
 * only the positions between the event's allowed slots (few on tall orders), split between
 * threads when long (the same gains for any number of them). The number of candidates per
 * round is CAND_WORK divided by the cost of one, between 1 and CAND_MAX. The best one is then
 * hill-climbed: each event in turn is taken out and put back at its best allowed slot (the gain
 * changes by exactly the difference of the two slots' gains), for up to IMPROVE_PASSES passes (one
 * when the round affords a single candidate). If no candidate hits anything new the round takes a
 * schedule built around an uncovered tuple, so every round makes progress. On orders of
 * GREEDY_PACK_MIN_M focus events or more, from GREEDY_PACK_ROUNDS rounds on, once at most
 * GREEDY_PACK_OPEN tuples are open, packing rounds take over (lib/gen_greedy_pack.c): each builds
 * its schedule around as many open tuples as it can add without contradiction, at a cost of one
 * pass over the open tuples instead of m insertions (a random DAG of 1,000 events, mean degree 8:
 * 3,246 schedules in 139 s where the insertion rounds alone needed more than 16,100 and 658 s).
 * The family is then shrunk by the local search of lib/gen_greedy_search.c.
 *
 * Cost: about 2 m^2 * m/64 word operations per candidate at d = 3 (C(m, d) * d lookups
 * otherwise), CAND_WORK per round; the local search at most its budget plus one recount of
 * the family per repair. Memory: lib/coverage.c's m^d bits (twice that at d = 3), the
 * schedules, and the local search's tables above. At d = 3, 1000 events: about 260 MB, and
 * about two minutes on one core (random DAGs: most of it in the first hundred rounds). Same seed,
 * same family everywhere: all choices come from the seeded PRNG and all budgets count operations.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "gen_greedy.h"
#include "poset_i.h"

static void sweep_pool_free(greedy *g);

static void greedy_free(greedy *g)
{
    hf_ctx *ctx = g->ctx;
    hf_i_free(ctx, g->global);
    hf_i_free(ctx, g->order);
    hf_i_free(ctx, g->cand);
    hf_i_free(ctx, g->best);
    hf_i_free(ctx, g->gain);
    hf_i_free(ctx, g->acc);
    hf_i_free(ctx, g->placed);
    hf_i_free(ctx, g->pre);
    hf_i_free(ctx, g->rows);
    sweep_pool_free(g);
    hf_i_coverage_free(g->cov);
}

/* ---- construction ---- */

/* Difference array over slots 0..k: every ordered (d-1)-subsequence seq[idx[0..d-2]] with x at
 * rank r forms one tuple, hit by the slots after idx[r-1] and up to idx[r]. */
static void direct_rec(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t *idx,
                       unsigned depth, uint32_t from)
{
    unsigned e = g->d - 1;
    if (depth == e) {
        uint32_t t[HF_I_COVERAGE_MAX_D];
        for (unsigned r = 0; r <= e; r++) {
            for (unsigned i = 0, j = 0; i <= e; i++)
                t[i] = i == r ? x : seq[idx[j++]];
            if (!hf_i_coverage_open(g->cov, t))
                continue;
            uint32_t lo = r ? idx[r - 1] + 1 : 0, hi = r < e ? idx[r] : k;
            g->gain[lo]++;
            g->gain[hi + 1]--;
        }
        return;
    }
    for (uint32_t i = from; i + (e - depth) <= k; i++) {
        idx[depth] = i;
        direct_rec(g, seq, k, x, idx, depth + 1, i + 1);
    }
}

static void gains_direct(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x)
{
    memset(g->gain, 0, (size_t)(k + 2) * sizeof *g->gain);
    uint32_t idx[HF_I_COVERAGE_MAX_D];
    direct_rec(g, seq, k, x, idx, 0, 0);
    for (uint32_t s = 1; s <= k; s++)
        g->gain[s] += g->gain[s - 1];
}

/* The sweep's body is compiled twice (see gains_sweep_popcnt). */
#if defined(__GNUC__)
#define SWEEP_INLINE inline __attribute__((always_inline))
#else
#define SWEEP_INLINE inline
#endif

/* d = 3: with a at position i and b at position j > i, slot s hits (x,a,b) when s <= i,
 * (a,x,b) when i < s <= j and (a,b,x) when j < s. Summed over pairs:
 *   gain(s) = sum_{i >= s} X_i + sum_{i < s} (M_i - M'_i + L_i),
 * X_i = #b after a with (x,a,b) open, M_i = #b after a with (a,x,b) open,
 * M'_i = #c before a with (c,x,a) open, L_i = #c before a with (c,a,x) open:
 * rows give the first two, columns the last two. Only the allowed slots lo..hi are compared,
 * and their differences need the positions lo..hi-1 alone: the sweep reads those and leaves
 * out sum_{i >= hi} X_i + sum_{i < lo} Y_i, the same for every allowed slot (so the gains are
 * exact only when lo = 0 and hi = k; on a tall order most events have a few allowed slots).
 * Each position's X_i and Y_i depend on it alone, so a long sweep is split into contiguous
 * parts, one per thread (see sweep_pool), with the same sums for any number of parts. */
/* Positions ahead whose strided sets the sweep prefetches. */
#define SWEEP_AHEAD 8u

static SWEEP_INLINE void sweep_part_body(const greedy *g, const uint32_t *seq, uint32_t x,
                                         uint32_t from, uint32_t to, hf_word *pre)
{
    size_t W = g->W;
    memset(pre, 0, W * sizeof *pre);
    for (uint32_t i = 0; i < from; i++)
        hf_i_bit_set(pre, seq[i]);
    int64_t *X = g->acc, *Y = g->acc + g->m;
    const hf_word *adj = hf_i_coverage_adjacent(g->cov, x);
    for (uint32_t i = from; i < to; i++) {
        uint32_t a = seq[i], xa[2] = {x, a}, ax[2] = {a, x};
#if defined(__GNUC__)
        /* the sets of (a, x) lie m sets apart from one position to the next: ask for those of a
         * later position early */
        if (i + SWEEP_AHEAD < to && hf_i_bit_test(adj, seq[i + SWEEP_AHEAD])) {
            uint32_t b = seq[i + SWEEP_AHEAD], bx[2] = {b, x}, xb[2] = {x, b};
            const hf_word *sets[4] = {hf_i_coverage_row(g->cov, bx), hf_i_coverage_col(g->cov, bx),
                                      hf_i_coverage_row(g->cov, xb), hf_i_coverage_col(g->cov, xb)};
            for (unsigned s = 0; s < 4; s++)
                for (size_t w = 0; w < W; w += 8)
                    __builtin_prefetch(sets[s] + w);
        }
#endif
        if (!hf_i_bit_test(adj, a)) { /* the four sets below are empty */
            X[i] = Y[i] = 0;
            hf_i_bit_set(pre, a);
            continue;
        }
        const hf_word *rxa = hf_i_coverage_row(g->cov, xa), *rax = hf_i_coverage_row(g->cov, ax);
        const hf_word *cxa = hf_i_coverage_col(g->cov, xa), *cax = hf_i_coverage_col(g->cov, ax);
        int64_t xs = 0, ys = 0;
        for (size_t w = 0; w < W; w++) {
            hf_word after = g->placed[w] & ~pre[w], before = pre[w];
            xs += hf_i_popcount(rxa[w] & after);
            ys += (int64_t)hf_i_popcount(rax[w] & after) - hf_i_popcount(cxa[w] & before) +
                  hf_i_popcount(cax[w] & before);
        }
        X[i] = xs;
        Y[i] = ys;
        hf_i_bit_set(pre, a);
    }
}

static void sweep_part_plain(const greedy *g, const uint32_t *seq, uint32_t x, uint32_t from,
                             uint32_t to, hf_word *pre)
{
    sweep_part_body(g, seq, x, from, to, pre);
}

/* The sweep is mostly population counts: on x86-64 processors that have the instruction (the
 * library is built for the baseline, which has none), a copy compiled to use it. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static void sweep_part_popcnt(const greedy *g,
                                                                const uint32_t *seq, uint32_t x,
                                                                uint32_t from, uint32_t to,
                                                                hf_word *pre)
{
    sweep_part_body(g, seq, x, from, to, pre);
}
static bool have_popcnt(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt");
}
#else
static void sweep_part_popcnt(const greedy *g, const uint32_t *seq, uint32_t x, uint32_t from,
                              uint32_t to, hf_word *pre)
{
    sweep_part_body(g, seq, x, from, to, pre);
}
static bool have_popcnt(void) { return false; }
#endif

static void sweep_part(const greedy *g, const uint32_t *seq, uint32_t x, uint32_t from, uint32_t to,
                       hf_word *pre)
{
    if (g->popcnt)
        sweep_part_popcnt(g, seq, x, from, to, pre);
    else
        sweep_part_plain(g, seq, x, from, to, pre);
}

/* Part t of T of the positions lo..hi-1. */
static void part_bounds(uint32_t lo, uint32_t hi, unsigned t, unsigned parts, uint32_t *from,
                        uint32_t *to)
{
    uint64_t len = hi - lo;
    *from = lo + (uint32_t)(len * t / parts);
    *to = lo + (uint32_t)(len * (t + 1) / parts);
}

/* Threads that sweep parts of the positions: each waits for a new job (gen), sweeps its part
 * into its own scratch set, and reports. Started once per run; a thread that could not start
 * leaves its part to the calling one. */
struct sweep_pool {
    const greedy *g;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned parts;   /* threads, the calling one included */
    unsigned running; /* threads started: 1..running-1 */
    unsigned pending; /* started threads still on the current job */
    uint64_t gen;
    bool quit;
    const uint32_t *seq; /* the job: x over seq, positions lo..hi-1 */
    uint32_t x, lo, hi;
    hf_word *pres; /* parts * W */
    pthread_t tid[GREEDY_MAX_SWEEP_THREADS];
    struct sweep_arg {
        struct sweep_pool *pool;
        unsigned t;
    } args[GREEDY_MAX_SWEEP_THREADS];
};

static void *sweep_thread(void *arg)
{
    struct sweep_arg *a = arg;
    struct sweep_pool *sp = a->pool;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&sp->mu);
        while (sp->gen == seen && !sp->quit)
            pthread_cond_wait(&sp->go, &sp->mu);
        if (sp->quit) {
            pthread_mutex_unlock(&sp->mu);
            return NULL;
        }
        seen = sp->gen;
        const uint32_t *seq = sp->seq;
        uint32_t x = sp->x, from, to;
        part_bounds(sp->lo, sp->hi, a->t, sp->parts, &from, &to);
        pthread_mutex_unlock(&sp->mu);
        sweep_part(sp->g, seq, x, from, to, sp->pres + (size_t)a->t * sp->g->W);
        pthread_mutex_lock(&sp->mu);
        if (--sp->pending == 0)
            pthread_cond_signal(&sp->done);
        pthread_mutex_unlock(&sp->mu);
    }
}

/* A pool of `threads` parts (threads - 1 started), or NULL with HF_ENOMEM. */
static hf_status sweep_pool_new(greedy *g, unsigned threads, hf_error *err)
{
    if (threads > GREEDY_MAX_SWEEP_THREADS)
        threads = GREEDY_MAX_SWEEP_THREADS;
    struct sweep_pool *sp = hf_i_calloc(g->ctx, 1, sizeof *sp);
    hf_word *pres =
        sp ? hf_i_alloc_array(g->ctx, (size_t)threads * (g->W ? g->W : 1), sizeof *pres) : NULL;
    if (!pres) {
        hf_i_free(g->ctx, sp);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    if (pthread_mutex_init(&sp->mu, NULL)) {
        hf_i_free(g->ctx, pres);
        hf_i_free(g->ctx, sp);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "cannot make a mutex for greedy's threads");
    }
    if (pthread_cond_init(&sp->go, NULL)) {
        pthread_mutex_destroy(&sp->mu);
        hf_i_free(g->ctx, pres);
        hf_i_free(g->ctx, sp);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "cannot make a condition for greedy's threads");
    }
    if (pthread_cond_init(&sp->done, NULL)) {
        pthread_cond_destroy(&sp->go);
        pthread_mutex_destroy(&sp->mu);
        hf_i_free(g->ctx, pres);
        hf_i_free(g->ctx, sp);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "cannot make a condition for greedy's threads");
    }
    sp->g = g;
    sp->parts = threads;
    sp->pres = pres;
    sp->running = 1;
    for (unsigned t = 1; t < threads; t++) {
        sp->args[t] = (struct sweep_arg){sp, t};
        if (pthread_create(&sp->tid[t], NULL, sweep_thread, &sp->args[t]))
            break;
        sp->running++;
    }
    g->pool = sp;
    return HF_OK;
}

static void sweep_pool_free(greedy *g)
{
    struct sweep_pool *sp = g->pool;
    if (!sp)
        return;
    pthread_mutex_lock(&sp->mu);
    sp->quit = true;
    pthread_cond_broadcast(&sp->go);
    pthread_mutex_unlock(&sp->mu);
    for (unsigned t = 1; t < sp->running; t++)
        pthread_join(sp->tid[t], NULL);
    pthread_cond_destroy(&sp->done);
    pthread_cond_destroy(&sp->go);
    pthread_mutex_destroy(&sp->mu);
    hf_i_free(g->ctx, sp->pres);
    hf_i_free(g->ctx, sp);
    g->pool = NULL;
}

/* The sweep of x over seq's positions lo..hi-1, in parts on the pool's threads when it is long
 * enough, then the gains of slots lo..hi (see above). */
static void gains_sweep(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t lo,
                        uint32_t hi)
{
    (void)k;
    struct sweep_pool *sp = g->pool;
    if (!sp || hi - lo < g->split_min) {
        sweep_part(g, seq, x, lo, hi, g->pre);
    } else {
        pthread_mutex_lock(&sp->mu);
        sp->seq = seq;
        sp->x = x;
        sp->lo = lo;
        sp->hi = hi;
        sp->gen++;
        sp->pending = sp->running - 1;
        pthread_cond_broadcast(&sp->go);
        pthread_mutex_unlock(&sp->mu);
        for (unsigned t = 0; t < sp->parts; t++) {
            if (t && t < sp->running)
                continue;
            uint32_t from, to;
            part_bounds(lo, hi, t, sp->parts, &from, &to);
            sweep_part(g, seq, x, from, to, sp->pres + (size_t)t * g->W);
        }
        pthread_mutex_lock(&sp->mu);
        while (sp->pending)
            pthread_cond_wait(&sp->done, &sp->mu);
        pthread_mutex_unlock(&sp->mu);
    }
    const int64_t *X = g->acc, *Y = g->acc + g->m;
    int64_t suf = 0;
    for (uint32_t i = lo; i < hi; i++)
        suf += X[i];
    int64_t pre = 0;
    for (uint32_t s = lo; s <= hi; s++) {
        g->gain[s] = suf + pre;
        if (s < hi) {
            suf -= X[s];
            pre += Y[s];
        }
    }
}

/* The allowed slots [lo, hi] of x among seq[0..k-1]: after its predecessors, before its
 * successors. */
static void allowed(const greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t *lo,
                    uint32_t *hi)
{
    *lo = 0;
    *hi = k;
    if (g->ordered)
        for (uint32_t i = 0; i < k; i++) {
            if (less(g, seq[i], x))
                *lo = i + 1;
            else if (*hi == k && less(g, x, seq[i]))
                *hi = i;
        }
}

/* Gains of x by allowed slot among seq[0..k-1] (g->placed holds exactly those events); the
 * best allowed slot, `keep` if it is among the best, else a random best one. The gains are
 * exact when *exact is set; otherwise they differ from the true ones by one amount, the same
 * for every allowed slot. */
static uint32_t best_slot(greedy *g, const uint32_t *seq, uint32_t k, uint32_t x, uint32_t keep,
                          bool *exact)
{
    uint32_t lo, hi;
    allowed(g, seq, k, x, &lo, &hi);
    *exact = true;
    if (g->d == 3) {
        gains_sweep(g, seq, k, x, lo, hi);
        *exact = lo == 0 && hi == k;
    } else {
        gains_direct(g, seq, k, x);
    }
    uint32_t pick = lo, ties = 1;
    for (uint32_t s = lo + 1; s <= hi; s++) {
        if (g->gain[s] > g->gain[pick]) {
            pick = s;
            ties = 1;
        } else if (g->gain[s] == g->gain[pick] && hf_i_rng_below(&g->rng, ++ties) == 0) {
            pick = s;
        }
    }
    if (keep != NONE && g->gain[keep] == g->gain[pick])
        pick = keep;
    return pick;
}

static void shuffle(greedy *g)
{
    for (uint32_t i = g->m; i > 1; i--) {
        uint32_t j = (uint32_t)hf_i_rng_below(&g->rng, i);
        uint32_t t = g->order[i - 1];
        g->order[i - 1] = g->order[j];
        g->order[j] = t;
    }
}

/* One candidate: insert the focus events in a random order, each at its best allowed slot.
 * Returns the number of open tuples it hits (the sum of the insertions' gains when they are
 * exact, else counted on the finished sequence); with !need_total, when the gains were not
 * all exact, only whether it hits one: 1 or 0 (a round of one candidate needs no more). */
static uint64_t build_candidate(greedy *g, uint32_t *seq, bool need_total)
{
    uint32_t m = g->m;
    shuffle(g);
    memset(g->placed, 0, g->W * sizeof *g->placed);
    uint64_t total = 0;
    bool all_exact = true;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t x = g->order[k];
        bool exact;
        uint32_t pick = best_slot(g, seq, k, x, NONE, &exact);
        memmove(seq + pick + 1, seq + pick, (size_t)(k - pick) * sizeof *seq);
        seq[pick] = x;
        hf_i_bit_set(g->placed, x);
        total += (uint64_t)g->gain[pick];
        all_exact = all_exact && exact;
    }
    return all_exact    ? total
           : need_total ? hf_i_coverage_count_new_local(g->cov, seq)
                        : hf_i_coverage_hits_local(g->cov, seq);
}

/* Hill climbing on one sequence: take each event out in turn (random order) and put it back
 * at its best allowed slot. Tuples without that event keep their order, so the sequence's gain
 * changes by exactly the difference of the two slots' gains. Returns the new gain. */
static uint64_t improve(greedy *g, uint32_t *seq, uint64_t total, unsigned passes)
{
    uint32_t m = g->m;
    for (unsigned pass = 0; pass < passes; pass++) {
        uint64_t before = total;
        shuffle(g);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t x = g->order[k], p = 0;
            while (seq[p] != x)
                p++;
            memmove(seq + p, seq + p + 1, (size_t)(m - 1 - p) * sizeof *seq);
            memset(g->placed, 0xff, g->W * sizeof *g->placed);
            hf_i_bit_clear(g->placed, x);
            if (m % 64)
                g->placed[g->W - 1] &= ((hf_word)1 << (m % 64)) - 1;
            bool exact; /* the difference of two allowed slots' gains is exact anyway */
            uint32_t pick = best_slot(g, seq, m - 1, x, p, &exact);
            total = total + (uint64_t)g->gain[pick] - (uint64_t)g->gain[p];
            memmove(seq + pick + 1, seq + pick, (size_t)(m - 1 - pick) * sizeof *seq);
            seq[pick] = x;
        }
        if (total == before)
            break;
    }
    return total;
}

/* A sequence hitting the open tuple: each entry's down-set in turn, then the rest, each part
 * in the order of local ids restricted to the down-sets (admissibility keeps later entries out
 * of earlier down-sets). */
static void build_forced(greedy *g, const uint32_t *tuple, uint32_t *seq)
{
    memset(g->placed, 0, g->W * sizeof *g->placed);
    uint32_t k = 0;
    for (unsigned i = 0; i <= g->d; i++) {
        /* a topological order of the focus events below tuple[i]: by depth-free repetition,
         * take events whose focus predecessors are all placed */
        bool more = true;
        while (more) {
            more = false;
            for (uint32_t v = 0; v < g->m; v++) {
                if (hf_i_bit_test(g->placed, v))
                    continue;
                if (i < g->d && v != tuple[i] && !less(g, v, tuple[i]))
                    continue;
                bool ready = true;
                for (uint32_t u = 0; u < g->m && ready; u++)
                    ready = hf_i_bit_test(g->placed, u) || !less(g, u, v);
                if (ready) {
                    hf_i_bit_set(g->placed, v);
                    seq[k++] = v;
                    more = true;
                }
            }
        }
    }
}

/* ---- the method ---- */

/* The schedule of sequence seq: focus events in that order, the others by Kahn's algorithm
 * (as soon as they are available). indeg and stack are n-entry scratch arrays. */
static void extend(greedy *g, const uint32_t *seq, uint32_t *out, uint32_t *indeg, uint32_t *stack)
{
    const hf_poset *p = g->p;
    uint32_t n = g->n, top = 0, k = 0, next = 0;
    for (uint32_t v = 0; v < n; v++) {
        indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
        if (!indeg[v] && hf_i_coverage_local(g->cov, v) == NONE)
            stack[top++] = v;
    }
    while (k < n) {
        uint32_t v;
        if (top)
            v = stack[--top];
        else
            v = g->global[seq[next++]]; /* available: see the file's comment */
        out[k++] = v;
        for (size_t i = p->succ_off[v]; i < p->succ_off[v + 1]; i++) {
            uint32_t w = p->succ[i];
            if (--indeg[w] == 0 && hf_i_coverage_local(g->cov, w) == NONE)
                stack[top++] = w;
        }
    }
}

static hf_status greedy_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (opt->d > HF_I_COVERAGE_MAX_D)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method greedy tracks coverage of tuples of at most %u events (d=%u "
                         "asked); for forests use method simple or pattern",
                         HF_I_COVERAGE_MAX_D, opt->d);
    if (!p->tin && !p->closure)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "method greedy needs a forest, an in-forest or an order of at most %u "
                         "events",
                         HF_CLOSURE_MAX_EVENTS);
    return hf_i_coverage_check_size(p, opt->d, opt->focus, opt->focus_count, err);
}

/* Word operations of one candidate, for the number of candidates per round. */
static uint64_t candidate_cost(const greedy *g)
{
    uint64_t m = g->m;
    if (g->d == 0)
        return 1;
    if (g->d == 3)
        return m * m * 2 * (g->W ? g->W : 1) + m;
    uint64_t c = g->d ? g->d : 1;
    for (unsigned i = 0; i + 1 < g->d; i++)
        c = c * (m - i) / (i + 1);
    return c * m / g->d + m;
}

/* Threads for the marking of each chosen schedule (d = 3). */
static unsigned greedy_threads(const greedy *g, const hf_i_greedy_limits *lim)
{
    if (lim->threads)
        return lim->threads;
    if (g->m < GREEDY_THREADS_MIN_M)
        return 1;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online <= 1 ? 1u : online >= GREEDY_MAX_THREADS ? GREEDY_MAX_THREADS : (unsigned)online;
}

/* The greedy family; schedules go to sink (only counted when sink.put is NULL). */
hf_status hf_i_greedy_run(const hf_poset *p, const hf_gen_options *opt,
                          const hf_i_greedy_limits *lim, hf_sink sink, uint64_t *emitted,
                          hf_error *err)
{
    greedy g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.ctx = p->ctx;
    g.n = p->n;
    g.ordered = p->edge_count > 0;
    g.plain_moves = lim->plain_moves;
    g.popcnt = have_popcnt();
    const uint32_t *focus = opt->focus_prefix ? NULL : opt->focus;
    size_t focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    hf_status st = hf_i_coverage_new(p, opt->d, focus, focus_count, &g.cov, err);
    if (st)
        return st;
    hf_i_rng_seed(&g.rng, opt->seed);
    g.m = hf_i_coverage_events(g.cov);
    g.d = hf_i_coverage_d(g.cov);
    g.W = hf_i_coverage_row_words(g.cov);
    if (g.d == 3 && ((st = hf_i_coverage_columns(g.cov, err)) ||
                     (st = hf_i_coverage_threads(g.cov, greedy_threads(&g, lim), err)) ||
                     (greedy_threads(&g, lim) > 1 &&
                      (st = sweep_pool_new(&g, greedy_threads(&g, lim), err))))) {
        greedy_free(&g);
        return st;
    }
    g.split_min = lim->split_min ? lim->split_min : GREEDY_SPLIT_MIN;
    size_t n1 = g.n ? g.n : 1, m1 = g.m ? g.m : 1;
    uint32_t *out = NULL, *stack = NULL, *indeg = NULL;
    uint64_t *left = NULL; /* tuples left open after each round */
    size_t left_cap = 0;
    g.global = hf_i_alloc_array(g.ctx, m1, sizeof *g.global);
    g.order = hf_i_alloc_array(g.ctx, m1, sizeof *g.order);
    g.cand = hf_i_alloc_array(g.ctx, m1, sizeof *g.cand);
    g.best = hf_i_alloc_array(g.ctx, m1, sizeof *g.best);
    g.gain = hf_i_alloc_array(g.ctx, m1 + 2, sizeof *g.gain);
    g.acc = hf_i_alloc_array(g.ctx, 4 * m1, sizeof *g.acc);
    g.placed = hf_i_alloc_array(g.ctx, g.W ? g.W : 1, sizeof *g.placed);
    g.pre = hf_i_alloc_array(g.ctx, g.W ? g.W : 1, sizeof *g.pre);
    if (!g.global || !g.order || !g.cand || !g.best || !g.gain || !g.acc || !g.placed || !g.pre) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    for (uint32_t v = 0; v < g.n; v++) {
        uint32_t l = hf_i_coverage_local(g.cov, v);
        if (l != NONE)
            g.global[l] = v;
    }
    for (uint32_t a = 0; a < g.m; a++)
        g.order[a] = a;
    uint64_t total = hf_i_coverage_remaining(g.cov);
    uint64_t per_cand = candidate_cost(&g);
    unsigned cands = per_cand >= CAND_WORK              ? 1u
                     : CAND_WORK / per_cand >= CAND_MAX ? CAND_MAX
                                                        : (unsigned)(CAND_WORK / per_cand);
    /* the packing rounds: by default only on orders of GREEDY_PACK_MIN_M focus events or more */
    uint64_t pack_rounds = lim->pack_rounds           ? lim->pack_rounds
                           : g.m >= GREEDY_PACK_MIN_M ? GREEDY_PACK_ROUNDS
                                                      : UINT64_MAX;
    uint64_t pack_open = lim->pack_open ? lim->pack_open : GREEDY_PACK_OPEN;
    while (hf_i_coverage_remaining(g.cov) > 0) {
        uint64_t best_gain = 0;
        for (unsigned c = 0; c < cands; c++) {
            uint64_t gain = build_candidate(&g, g.cand, cands > 1);
            if (gain > best_gain) {
                best_gain = gain;
                memcpy(g.best, g.cand, g.m * sizeof *g.best);
            }
        }
        if (best_gain > 0)
            best_gain = improve(&g, g.best, best_gain, cands > 1 ? IMPROVE_PASSES : 1);
        if (best_gain == 0) {
            uint32_t tuple[HF_I_COVERAGE_MAX_D];
            hf_i_coverage_first(g.cov, tuple);
            for (unsigned i = 0; i < g.d; i++)
                tuple[i] = hf_i_coverage_local(g.cov, tuple[i]);
            build_forced(&g, tuple, g.best);
        }
        hf_i_coverage_add_local(g.cov, g.best);
        if (HF_I_GROW(g.ctx, g.rows, &g.cap, (g.count + 1) * m1)) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        memcpy(g.rows + g.count * m1, g.best, g.m * sizeof *g.rows);
        if (HF_I_GROW(g.ctx, left, &left_cap, g.count + 1)) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        left[g.count] = hf_i_coverage_remaining(g.cov);
        g.count++;
        if ((st = hf_i_progress(g.ctx, "greedy", g.count, 0, err)))
            goto out;
        hf_i_log(g.ctx, HF_LOG_PROGRESS,
                 "greedy: %zu schedules, %" PRIu64 " of %" PRIu64 " tuples left", g.count,
                 hf_i_coverage_remaining(g.cov), total);
        if (g.d >= 2 && g.count >= pack_rounds && hf_i_coverage_remaining(g.cov) > 0 &&
            hf_i_coverage_remaining(g.cov) <= pack_open) {
            if ((st = hf_i_greedy_pack(&g, &left, &left_cap, err)))
                goto out;
            break;
        }
    }
    uint64_t cells = 1;
    for (unsigned i = 0; i < g.d; i++)
        cells *= g.m;
    if (g.d >= 2 && g.count > 1) {
        if (g.count <= LS_MAX_ROWS && cells <= lim->dense_cells) {
            if ((st = hf_i_greedy_local_search(&g, total, err)))
                goto out;
        } else if ((st = hf_i_greedy_tail_search(&g, left, opt, lim->tail_tuples, err))) {
            goto out;
        }
    }
    if (sink.put) {
        out = hf_i_alloc_array(g.ctx, n1, sizeof *out);
        stack = hf_i_alloc_array(g.ctx, n1, sizeof *stack);
        indeg = hf_i_alloc_array(g.ctx, n1, sizeof *indeg);
        if (!out || !stack || !indeg) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < g.count; i++) {
            extend(&g, g.rows + i * m1, out, indeg, stack);
            if ((st = sink.put(sink.user, out, g.n)))
                goto out;
        }
    }
    if (emitted)
        *emitted = g.count;
out:
    hf_i_free(g.ctx, left);
    hf_i_free(g.ctx, out);
    hf_i_free(g.ctx, stack);
    hf_i_free(g.ctx, indeg);
    greedy_free(&g);
    return st;
}

static const hf_i_greedy_limits greedy_limits = {LS_MAX_CELLS, TAIL_MAX, false, 0, 0, 0, 0};

static hf_status greedy_predict(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                hf_error *err)
{
    /* the size is only known by running the (deterministic) construction without emitting */
    uint32_t limit = opt->d <= 2   ? PREDICT_MAX_N_D2
                     : opt->d == 3 ? PREDICT_MAX_N_D3
                                   : PREDICT_MAX_N_D4;
    if (p->n > limit)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the size of a greedy family is known only by building it; hitfam "
                         "predicts it for at most %u events at d=%u (this order has %" PRIu32 ")",
                         limit, opt->d, p->n);
    uint64_t count = 0;
    hf_sink none = {NULL, NULL};
    hf_status st = hf_i_greedy_run(p, opt, &greedy_limits, none, &count, err);
    if (!st)
        mpz_import(size, 1, -1, sizeof count, 0, 0, &count);
    return st;
}

static hf_status greedy_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                 hf_error *err)
{
    return hf_i_greedy_run(p, opt, &greedy_limits, sink, NULL, err);
}

/* The largest forests and in-forests on which auto runs greedy, whose size is known only by
 * running it: beyond these it is left to an explicit --method, so that auto stays quick. */
#define AUTO_FOREST_MAX_N_D3 32u
#define AUTO_FOREST_MAX_N_D4 9u

static hf_i_auto_rule greedy_auto_rule(const hf_poset *p, unsigned d)
{
    bool weigh;
    if (d == 1) /* dfs is optimal for d = 1 (one schedule) */
        weigh = false;
    else if (p->shape & HF_SHAPE_ANTICHAIN)
        /* On antichains greedy reaches the best known sizes (6, 7, 8, 8, 8 for 4..8 events at
         * d = 3) and stays 2 below scramble up to 64 events; auto runs it up to 32 events (4 s;
         * 64 events take 25 s) and, at d = 4, 10 events (2 s). dfs is optimal for d = 2. */
        weigh = (d == 3 && p->n <= 32) || (d == 4 && p->n <= 10);
    else if (p->shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST))
        /* On small forests greedy (with its local search) is well below the tree methods: mean
         * 8.3 against doubletree's 11.2 on random recursive trees of 8 events, 11.8 against 19.6
         * at 16, 15.8 against 28.6 at 32 (d = 3, bench_greedy `forests`); at d = 4 about half
         * of auto's other methods on stars, pairs and random recursive trees of 8 to 10
         * events. Its processor time grows with the admissible tuples: at d = 3 about 10 ms at
         * 8 events, 75 ms at 16, 0.3 s at 32 (at most 0.47 s, on the complete in-tree, among
         * stars, brooms, caterpillars, pairs, two stars and complete trees of 32); at d = 4
         * 0.08 s on a star of 7, 0.34 s on one of 9, 0.6 s on one of 10. auto runs it while it
         * stays under about half a second: 32 events at d = 3, 9 at d = 4. dfs is optimal for
         * d = 2. */
        weigh =
            (d == 3 && p->n <= AUTO_FOREST_MAX_N_D3) || (d == 4 && p->n <= AUTO_FOREST_MAX_N_D4);
    else
        weigh = p->n <= (d == 2 ? 2000u : d == 3 ? 200u : 40u);
    return weigh ? HF_I_AUTO_WEIGH : HF_I_AUTO_ADVISE;
}

const hf_i_method hf_i_method_greedy = {
    .id = HF_METHOD_GREEDY,
    .name = "greedy",
    .check = greedy_check,
    .predict = greedy_predict,
    .generate = greedy_generate,
    .predict_runs = true,
    .auto_rule = greedy_auto_rule,
};
