/* Method greedy, any partial order and d <= 4: greedy set cover of the admissible d-tuples
 * (MATH.md, "Any poset"), each schedule built event by event from a seeded PRNG.
 *
 * A round builds CANDIDATES schedules and keeps the one that hits the most tuples not hit yet.
 * A candidate grows one event at a time among the available (minimal remaining) events; the
 * score of an available event y is the number of uncovered tuples (a_1..a_{d-1}, y) whose
 * first d-1 entries are already placed in that order. Placing y hits exactly those tuples
 * for sure (whatever comes later), so the scores of the events placed sum to the candidate's
 * true gain. Scores are kept incrementally: placing x adds 1 to every unplaced y such that
 * (P, x, y) is uncovered, for every ordered (d-2)-subsequence P of the focus events placed
 * before x, which is one bitset row per P. Ties are broken by the PRNG. If no candidate hits
 * anything new (rare), the round instead emits a schedule built around the first uncovered
 * tuple (its entries' down-sets in turn), so every round makes progress and the method
 * terminates with a d-hitting family. Finally each schedule (earliest first) is dropped if the
 * others already hit every tuple; so the schedules are emitted at the end, not one per round.
 * The score of y is this completion count plus a look-ahead: the uncovered tuples (P, y, z)
 * with P placed in order and z unplaced, one step from completion once y is placed.
 * Cost per candidate: O(n * C(m, d-2) * m / 64) word operations for the scores plus one
 * increment per tuple credited (at most C(m, d)), with m focus events; the pruning pass
 * O(s^2) coverage additions for s schedules; memory that of lib/coverage.c (m^d bits) plus
 * the s schedules. */
#include <string.h>

#include "coverage.h"

#define NONE UINT32_MAX
#define CANDIDATES 64u
/* predict() runs the whole generation: refuse beyond these sizes. */
#define PREDICT_MAX_N_D2 5000u
#define PREDICT_MAX_N_D3 300u
#define PREDICT_MAX_N_D4 60u

typedef struct greedy {
    const hf_poset *p;
    hf_ctx *ctx;
    hf_i_coverage *cov;
    hf_i_rng rng;
    uint32_t n, m;
    unsigned d;
    size_t W;
    uint32_t *indeg;   /* n: predecessors not placed yet */
    uint32_t *avail;   /* n: available events */
    uint64_t *score;   /* n */
    uint32_t *placed;  /* m: focus events placed so far (local ids), in order */
    hf_word *unplaced; /* W: focus events not placed yet (local ids) */
    uint32_t *cand;    /* n */
    uint32_t *best;    /* n */
} greedy;

static void greedy_free(greedy *g)
{
    hf_ctx *ctx = g->ctx;
    hf_i_free(ctx, g->indeg);
    hf_i_free(ctx, g->avail);
    hf_i_free(ctx, g->score);
    hf_i_free(ctx, g->placed);
    hf_i_free(ctx, g->unplaced);
    hf_i_free(ctx, g->cand);
    hf_i_free(ctx, g->best);
    hf_i_coverage_free(g->cov);
}

/* Add one to the score of every unplaced y with (prefix, y) uncovered. */
static void credit_row(greedy *g, const uint32_t *prefix)
{
    const hf_word *row = hf_i_coverage_row(g->cov, prefix);
    for (size_t w = 0; w < g->W; w++) {
        hf_word bits = row[w] & g->unplaced[w];
        while (bits) {
            unsigned b = hf_i_ctz(bits);
            bits &= bits - 1;
            uint32_t y = (uint32_t)(w * 64 + b);
            g->score[y]++; /* by local id; read back through the local map */
        }
    }
}

/* Every ordered (d-2)-subsequence of the placed focus events, followed by x. */
static void credit_after(greedy *g, uint32_t *prefix, unsigned depth, uint32_t from,
                         uint32_t t, uint32_t x)
{
    if (depth + 2 == g->d) {
        prefix[depth] = x;
        credit_row(g, prefix);
        return;
    }
    for (uint32_t i = from; i < t; i++) {
        prefix[depth] = g->placed[i];
        credit_after(g, prefix, depth + 1, i + 1, t, x);
    }
}

/* Tie-break within equal completion counts: the uncovered tuples (P, x, z) with P placed and
 * z unplaced, which placing x next keeps one step from completion. */
static uint64_t advance(greedy *g, uint32_t *prefix, unsigned depth, uint32_t from, uint32_t t,
                        uint32_t x)
{
    if (depth + 2 == g->d) {
        prefix[depth] = x;
        const hf_word *row = hf_i_coverage_row(g->cov, prefix);
        uint64_t c = 0;
        for (size_t w = 0; w < g->W; w++)
            c += hf_i_popcount(row[w] & g->unplaced[w]);
        return c;
    }
    uint64_t c = 0;
    for (uint32_t i = from; i < t; i++) {
        prefix[depth] = g->placed[i];
        c += advance(g, prefix, depth + 1, i + 1, t, x);
    }
    return c;
}

static void build_candidate(greedy *g, uint32_t *out)
{
    const hf_poset *p = g->p;
    uint32_t navail = 0, t = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        g->indeg[v] = (uint32_t)(p->pred_off[v + 1] - p->pred_off[v]);
        if (!g->indeg[v])
            g->avail[navail++] = v;
    }
    memset(g->score, 0, g->m * sizeof *g->score);
    memset(g->unplaced, 0, g->W * sizeof *g->unplaced);
    for (uint32_t a = 0; a < g->m; a++)
        hf_i_bit_set(g->unplaced, a);
    uint32_t prefix[HF_I_COVERAGE_MAX_D];
    for (uint32_t k = 0; k < g->n; k++) {
        uint32_t pick = 0, ties = 0;
        uint64_t top = 0, top_adv = 0;
        for (uint32_t i = 0; i < navail; i++) {
            uint32_t lx = hf_i_coverage_local(g->cov, g->avail[i]);
            uint64_t s = 0, a = 0;
            if (lx != NONE && g->d >= 2) {
                a = advance(g, prefix, 0, 0, t, lx);
                s = g->score[lx] + a;
            }
            if (ties == 0 || s > top || (s == top && a > top_adv)) {
                top = s;
                top_adv = a;
                pick = i;
                ties = 1;
            } else if (s == top && a == top_adv && hf_i_rng_below(&g->rng, ++ties) == 0) {
                pick = i; /* reservoir: each tied event equally likely */
            }
        }
        uint32_t x = g->avail[pick];
        g->avail[pick] = g->avail[--navail];
        out[k] = x;
        for (size_t i = p->succ_off[x]; i < p->succ_off[x + 1]; i++)
            if (--g->indeg[p->succ[i]] == 0)
                g->avail[navail++] = p->succ[i];
        uint32_t lx = hf_i_coverage_local(g->cov, x);
        if (lx == NONE)
            continue;
        hf_i_bit_clear(g->unplaced, lx);
        if (g->d >= 2)
            credit_after(g, prefix, 0, 0, t, lx);
        g->placed[t++] = lx;
    }
}

/* A schedule hitting the uncovered tuple: each entry's down-set in turn, then the rest, each
 * part in topological order. Admissibility keeps later entries out of earlier down-sets. */
static void build_forced(greedy *g, const uint32_t *tuple, uint32_t *out)
{
    const hf_poset *p = g->p;
    /* indeg doubles as the placed mark here */
    memset(g->indeg, 0, g->n * sizeof *g->indeg);
    uint32_t k = 0;
    for (unsigned i = 0; i <= g->d; i++)
        for (uint32_t j = 0; j < g->n; j++) {
            uint32_t v = p->topo[j];
            if (g->indeg[v])
                continue;
            if (i == g->d || v == tuple[i] || hf_i_less(p, v, tuple[i])) {
                g->indeg[v] = 1;
                out[k++] = v;
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
                         "events", HF_CLOSURE_MAX_EVENTS);
    return HF_OK;
}

/* The greedy family; schedules go to sink (only counted when sink.put is NULL). */
static hf_status run_greedy(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                            uint64_t *emitted, hf_error *err)
{
    greedy g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.ctx = p->ctx;
    g.n = p->n;
    const uint32_t *focus = opt->focus_prefix ? NULL : opt->focus;
    size_t focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    hf_status st = hf_i_coverage_new(p, opt->d, focus, focus_count, &g.cov, err);
    if (st)
        return st;
    hf_i_rng_seed(&g.rng, opt->seed);
    g.m = hf_i_coverage_events(g.cov);
    g.d = hf_i_coverage_d(g.cov);
    g.W = hf_i_coverage_row_words(g.cov);
    size_t n1 = g.n ? g.n : 1, m1 = g.m ? g.m : 1;
    g.indeg = hf_i_alloc_array(g.ctx, n1, sizeof *g.indeg);
    g.avail = hf_i_alloc_array(g.ctx, n1, sizeof *g.avail);
    g.score = hf_i_alloc_array(g.ctx, m1, sizeof *g.score);
    g.placed = hf_i_alloc_array(g.ctx, m1, sizeof *g.placed);
    g.unplaced = hf_i_alloc_array(g.ctx, g.W ? g.W : 1, sizeof *g.unplaced);
    g.cand = hf_i_alloc_array(g.ctx, n1, sizeof *g.cand);
    g.best = hf_i_alloc_array(g.ctx, n1, sizeof *g.best);
    if (!g.indeg || !g.avail || !g.score || !g.placed || !g.unplaced || !g.cand || !g.best) {
        greedy_free(&g);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    uint64_t total = hf_i_coverage_remaining(g.cov), count = 0;
    uint32_t *rows = NULL; /* the chosen schedules, kept for the pruning pass */
    bool *drop = NULL;
    size_t cap = 0;
    while (hf_i_coverage_remaining(g.cov) > 0) {
        uint64_t best_gain = 0;
        for (unsigned c = 0; c < CANDIDATES; c++) {
            build_candidate(&g, g.cand);
            uint64_t gain = hf_i_coverage_count_new(g.cov, g.cand);
            if (gain > best_gain) {
                best_gain = gain;
                memcpy(g.best, g.cand, g.n * sizeof *g.best);
            }
        }
        if (best_gain == 0) {
            uint32_t tuple[HF_I_COVERAGE_MAX_D];
            hf_i_coverage_first(g.cov, tuple);
            build_forced(&g, tuple, g.best);
        }
        hf_i_coverage_add(g.cov, g.best);
        if (hf_i_grow(g.ctx, (void **)&rows, &cap, (count + 1) * n1, sizeof *rows)) {
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            goto out;
        }
        memcpy(rows + count * n1, g.best, g.n * sizeof *rows);
        count++;
        hf_i_log(g.ctx, HF_LOG_PROGRESS,
                 "greedy: %" PRIu64 " schedules, %" PRIu64 " of %" PRIu64 " tuples left", count,
                 hf_i_coverage_remaining(g.cov), total);
    }
    /* Greedy's late schedules often cover, together, everything an early one added: drop each
     * schedule (earliest first) whose tuples the others still hit. O(count^2) coverage adds. */
    drop = hf_i_calloc(g.ctx, count ? count : 1, sizeof *drop);
    if (!drop) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    uint64_t kept = count;
    for (uint64_t i = 0; i < count && count > 1; i++) {
        hf_i_coverage *c2;
        if ((st = hf_i_coverage_new(p, opt->d, focus, focus_count, &c2, err)))
            goto out;
        for (uint64_t j = 0; j < count && hf_i_coverage_remaining(c2) > 0; j++)
            if (j != i && !drop[j])
                hf_i_coverage_add(c2, rows + j * n1);
        if (hf_i_coverage_remaining(c2) == 0) {
            drop[i] = true;
            kept--;
        }
        hf_i_coverage_free(c2);
    }
    for (uint64_t i = 0; i < count && sink.put; i++)
        if (!drop[i] && (st = sink.put(sink.user, rows + i * n1, g.n)))
            goto out;
    if (emitted)
        *emitted = kept;
out:
    hf_i_free(g.ctx, rows);
    hf_i_free(g.ctx, drop);
    greedy_free(&g);
    return st;
}

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
                         "predicts it for at most %u events at d=%u (this order has %" PRIu32
                         ")", limit, opt->d, p->n);
    uint64_t count = 0;
    hf_sink none = {NULL, NULL};
    hf_status st = run_greedy(p, opt, none, &count, err);
    if (!st)
        mpz_import(size, 1, -1, sizeof count, 0, 0, &count);
    return st;
}

static hf_status greedy_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                                 hf_error *err)
{
    return run_greedy(p, opt, sink, NULL, err);
}

const hf_i_method hf_i_method_greedy = {
    .id = HF_METHOD_GREEDY,
    .name = "greedy",
    .check = greedy_check,
    .predict = greedy_predict,
    .generate = greedy_generate,
    .predict_runs = true,
};
