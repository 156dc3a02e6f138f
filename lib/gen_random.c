/* Method random, any partial order and d <= 4: uniform random linear extensions from a seeded
 * PRNG, streamed until the first prefix of the random stream that is d-hitting (docs/math.md,
 * section 7.1: on antichains m >= d! * ln(#admissible tuples) samples suffice in expectation; a
 * chain of m events beside a free event makes some tuples as rare as 1 / (m + 1)).
 *
 * Samplers, chosen from the order alone (so a seed always gives the same bytes):
 * - forests: pick an available root with probability proportional to its subtree size (the
 *   hook-length formula: the extensions starting with root r are e(P) * |subtree(r)| / n);
 *   in-forests the same on the reversed order, then reversed. Exact; O(n log n) per sample
 *   (a Fenwick tree over the weights).
 * - other orders with at most SAMPLE_MAX_IDEALS (2^18) down-sets: e(I) = the number of linear
 *   extensions of P \ I for every down-set I (e(P) = 1, e(I) = sum of e(I + x) over the minimal
 *   x of P \ I), then walk from the empty set choosing x with probability e(I + x) / e(I),
 *   with exact big-integer arithmetic and uniform big integers built from our own 64-bit draws
 *   (no GMP random state). Exact; O(#down-sets * (n + e)) preprocessing, memory
 *   O(#down-sets * n / 64) words, then O(n * (n + e)) per sample.
 * - beyond: the Karzanov-Khachiyan Markov chain (pick an adjacent position uniformly; with
 *   probability 1/2 swap the two events unless one is a Hasse predecessor of the other), whose
 *   stationary law is uniform. Each sample runs T = ceil(n^3 ln(n) / 2) steps from the
 *   previous sample (the first from the topological order), capped at MC_MAX_STEPS. This is
 *   about five times the mixing time Wilson (2004) proved for the antichain (n^3 ln n / pi^2);
 *   Bubley and Dyer (1999) prove O(n^3 log n) mixing for every order for a closely related
 *   chain. So these samples are only approximately uniform and approximately independent; the
 *   family built from them is still exactly d-hitting (coverage is checked exactly). */
#include <math.h>
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */
#include <string.h>

#include <gmp.h>

#include "downsets.h"
#include "poset_i.h"
#include "sample.h"

/* Down-set DP limits: number of down-sets, and total words of their keys (64 MiB). */
#define SAMPLE_MAX_IDEALS    ((size_t)1 << 18)
#define SAMPLE_MAX_KEY_WORDS ((size_t)1 << 23)
#define MC_MAX_STEPS         ((uint64_t)1 << 28)

typedef enum { SAMPLE_FOREST, SAMPLE_IDEALS, SAMPLE_CHAIN } sample_kind;

typedef struct hf_i_uniform {
    const hf_poset *p;
    hf_ctx *ctx;
    hf_i_rng rng;
    uint32_t n;
    sample_kind kind;
    /* forest */
    uint64_t *fen;    /* Fenwick tree over the weights, 1-based, n + 1 */
    uint32_t *weight; /* current weight of each event (subtree size when available) */
    /* down-sets */
    hf_i_downsets sets;
    mpz_t *ext;     /* sets.count */
    hf_word *probe; /* sets.words scratch */
    mpz_t r, t;
    uint64_t *draw; /* scratch words for big draws */
    size_t draw_cap;
    /* Markov chain */
    uint32_t *cur;
    uint64_t steps;
} sampler;

static void sampler_free(sampler *s)
{
    if (!s)
        return;
    hf_ctx *ctx = s->ctx;
    hf_i_free(ctx, s->fen);
    hf_i_free(ctx, s->weight);
    if (s->ext) {
        for (size_t i = 0; i < s->sets.count; i++)
            mpz_clear(s->ext[i]);
        hf_i_free(ctx, s->ext);
    }
    hf_i_downsets_clear(ctx, &s->sets);
    hf_i_free(ctx, s->probe);
    hf_i_free(ctx, s->draw);
    hf_i_free(ctx, s->cur);
    mpz_clear(s->r);
    mpz_clear(s->t);
    hf_i_free(ctx, s);
}

/* ---- forests ---- */

static void fen_add(sampler *s, uint32_t v, int64_t delta)
{
    for (uint32_t i = v + 1; i <= s->n; i += i & (0u - i))
        s->fen[i] = (uint64_t)((int64_t)s->fen[i] + delta);
}

/* The event whose weight interval contains r (0 <= r < total weight). */
static uint32_t fen_find(const sampler *s, uint64_t r)
{
    uint32_t pos = 0, step = 1;
    while (step * 2 <= s->n)
        step *= 2;
    for (; step; step /= 2)
        if (pos + step <= s->n && s->fen[pos + step] <= r) {
            pos += step;
            r -= s->fen[pos];
        }
    return pos; /* 1-based pos + 1 is the event, so the 0-based id is pos */
}

static void set_weight(sampler *s, uint32_t v, uint32_t w)
{
    fen_add(s, v, (int64_t)w - (int64_t)s->weight[v]);
    s->weight[v] = w;
}

static void sample_forest(sampler *s, uint32_t *out)
{
    const hf_poset *p = s->p;
    bool dual = p->dual;
    /* the tree view: children are successors, or predecessors for an in-forest */
    const uint32_t *up_off = dual ? p->succ_off : p->pred_off;
    const uint32_t *down_off = dual ? p->pred_off : p->succ_off;
    const uint32_t *down = dual ? p->pred : p->succ;
    memset(s->fen, 0, (s->n + 1) * sizeof *s->fen);
    memset(s->weight, 0, s->n * sizeof *s->weight);
    for (uint32_t v = 0; v < s->n; v++)
        if (up_off[v] == up_off[v + 1])
            set_weight(s, v, p->subtree[v]);
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t v = fen_find(s, hf_i_rng_below(&s->rng, s->n - k));
        set_weight(s, v, 0);
        for (size_t i = down_off[v]; i < down_off[v + 1]; i++)
            set_weight(s, down[i], p->subtree[down[i]]);
        out[dual ? s->n - 1 - k : k] = v;
    }
}

/* ---- down-sets ---- */

/* Add a down-set unless present, out of *room. HF_ETOOLARGE past it (the caller then falls
 * back). */
static hf_status add_ideal(sampler *s, const hf_word *key, size_t *room)
{
    size_t at;
    bool fresh;
    return hf_i_downsets_add(s->ctx, &s->sets, key, room, &at, &fresh);
}

/* Enumerate the down-sets breadth first (so by size) and count the extensions of each
 * complement, largest down-sets first. */
static hf_status build_ideals(sampler *s)
{
    const hf_poset *p = s->p;
    hf_i_downsets *D = &s->sets;
    size_t W = D->words;
    s->probe = hf_i_calloc(s->ctx, W, sizeof *s->probe);
    if (!s->probe)
        return HF_ENOMEM;
    size_t room =
        SAMPLE_MAX_IDEALS < SAMPLE_MAX_KEY_WORDS / W ? SAMPLE_MAX_IDEALS : SAMPLE_MAX_KEY_WORDS / W;
    hf_status st = add_ideal(s, s->probe, &room); /* the empty down-set */
    for (size_t k = 0; k < D->count && !st; k++)
        for (uint32_t x = 0; x < s->n && !st; x++) {
            if (!hf_i_downsets_minimal_outside(p, hf_i_downsets_key(D, k), x))
                continue;
            memcpy(s->probe, hf_i_downsets_key(D, k), W * sizeof *s->probe);
            hf_i_bit_set(s->probe, x);
            st = add_ideal(s, s->probe, &room);
        }
    if (st)
        return st;
    s->ext = hf_i_alloc_array(s->ctx, D->count, sizeof *s->ext);
    if (!s->ext)
        return HF_ENOMEM;
    for (size_t k = 0; k < D->count; k++)
        mpz_init(s->ext[k]);
    for (size_t k = D->count; k-- > 0;) {
        const hf_word *key = hf_i_downsets_key(D, k);
        bool any = false;
        for (uint32_t x = 0; x < s->n; x++) {
            if (!hf_i_downsets_minimal_outside(p, key, x))
                continue;
            memcpy(s->probe, key, W * sizeof *s->probe);
            hf_i_bit_set(s->probe, x);
            mpz_add(s->ext[k], s->ext[k], s->ext[hf_i_downsets_find(D, s->probe)]);
            any = true;
        }
        if (!any)
            mpz_set_ui(s->ext[k], 1);
    }
    return HF_OK;
}

/* s->r = uniform in [0, bound), bound > 0: draw sizeinbase(bound, 2) bits from our generator
 * and reject values >= bound (fewer than two draws on average). */
static hf_status draw_below(sampler *s, const mpz_t bound)
{
    size_t bits = mpz_sizeinbase(bound, 2);
    size_t words = (bits + 63) / 64;
    if (words > s->draw_cap) {
        uint64_t *d = hf_i_realloc_array(s->ctx, s->draw, words, sizeof *d);
        if (!d)
            return HF_ENOMEM;
        s->draw = d;
        s->draw_cap = words;
    }
    do {
        for (size_t i = 0; i < words; i++)
            s->draw[i] = hf_i_rng_next(&s->rng);
        if (bits % 64)
            s->draw[words - 1] &= ((uint64_t)1 << (bits % 64)) - 1;
        mpz_import(s->r, words, -1, sizeof(uint64_t), 0, 0, s->draw);
    } while (mpz_cmp(s->r, bound) >= 0);
    return HF_OK;
}

static hf_status sample_ideals(sampler *s, uint32_t *out)
{
    const hf_poset *p = s->p;
    size_t k = 0; /* the empty down-set was added first */
    for (uint32_t pos = 0; pos < s->n; pos++) {
        hf_status st = draw_below(s, s->ext[k]);
        if (st)
            return st;
        const hf_word *key = hf_i_downsets_key(&s->sets, k);
        size_t next = SIZE_MAX;
        uint32_t chosen = NONE;
        for (uint32_t x = 0; x < s->n && chosen == NONE; x++) {
            if (!hf_i_downsets_minimal_outside(p, key, x))
                continue;
            memcpy(s->probe, key, s->sets.words * sizeof *s->probe);
            hf_i_bit_set(s->probe, x);
            next = hf_i_downsets_find(&s->sets, s->probe);
            if (mpz_cmp(s->r, s->ext[next]) < 0)
                chosen = x;
            else
                mpz_sub(s->r, s->r, s->ext[next]);
        }
        out[pos] = chosen;
        k = next;
    }
    return HF_OK;
}

/* ---- Markov chain ---- */

static bool hasse_edge(const hf_poset *p, uint32_t a, uint32_t b)
{
    size_t lo = p->succ_off[a], hi = p->succ_off[a + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->succ[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->succ_off[a + 1] && p->succ[lo] == b;
}

static void sample_chain(sampler *s, uint32_t *out)
{
    uint32_t *c = s->cur;
    for (uint64_t t = 0; t < s->steps; t++) {
        uint64_t x = hf_i_rng_next(&s->rng);
        /* low bit: the lazy coin; the rest: the position (n >= 2 here) */
        if (!(x & 1u))
            continue;
        uint32_t i = (uint32_t)((x >> 1) % (s->n - 1));
        /* events adjacent in a linear extension are comparable iff they form a Hasse edge */
        if (!hasse_edge(s->p, c[i], c[i + 1])) {
            uint32_t tmp = c[i];
            c[i] = c[i + 1];
            c[i + 1] = tmp;
        }
    }
    memcpy(out, c, s->n * sizeof *out);
}

static uint64_t chain_steps(uint32_t n)
{
    double t = ceil((double)n * n * n * log((double)n) / 2);
    return t >= (double)MC_MAX_STEPS ? MC_MAX_STEPS : (uint64_t)t;
}

/* ---- sampler ---- */

static hf_status sampler_new(const hf_poset *p, uint64_t seed, sampler **out, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    sampler *s = hf_i_calloc(ctx, 1, sizeof *s);
    if (!s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->p = p;
    s->ctx = ctx;
    s->n = p->n;
    mpz_init(s->r);
    mpz_init(s->t);
    hf_i_rng_seed(&s->rng, seed);
    hf_i_downsets_init(&s->sets, hf_i_words(s->n), 0);
    hf_status st = HF_OK;
    if (p->tin) {
        s->kind = SAMPLE_FOREST;
        s->fen = hf_i_calloc(ctx, (size_t)s->n + 1, sizeof *s->fen);
        s->weight = hf_i_calloc(ctx, s->n ? s->n : 1, sizeof *s->weight);
        if (!s->fen || !s->weight)
            st = HF_ENOMEM;
    } else {
        s->kind = SAMPLE_IDEALS;
        st = build_ideals(s);
        if (st == HF_ETOOLARGE) {
            /* too many down-sets: drop the table and use the chain */
            hf_i_downsets_clear(ctx, &s->sets);
            s->kind = SAMPLE_CHAIN;
            s->steps = chain_steps(s->n);
            s->cur = hf_i_alloc_array(ctx, s->n, sizeof *s->cur);
            st = s->cur ? HF_OK : HF_ENOMEM;
            if (!st) {
                memcpy(s->cur, p->topo, s->n * sizeof *s->cur);
                hf_i_log(ctx, HF_LOG_INFO,
                         "random: more than %zu down-sets, sampling with a Markov chain of "
                         "%" PRIu64 " steps per schedule (approximately uniform)",
                         SAMPLE_MAX_IDEALS, s->steps);
            }
        }
    }
    if (st) {
        sampler_free(s);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    *out = s;
    return HF_OK;
}

static hf_status sampler_next(sampler *s, uint32_t *out)
{
    if (s->n == 0)
        return HF_OK;
    switch (s->kind) {
    case SAMPLE_FOREST:
        sample_forest(s, out);
        return HF_OK;
    case SAMPLE_IDEALS:
        return sample_ideals(s, out);
    case SAMPLE_CHAIN:
        sample_chain(s, out);
        return HF_OK;
    }
    return HF_OK;
}

/* ---- the method: the shared sampling machinery (lib/gen_sample.c) over this sampler ---- */

hf_status hf_i_uniform_new(const hf_poset *p, uint64_t seed, hf_i_uniform **out, hf_error *err)
{
    return sampler_new(p, seed, out, err);
}

hf_status hf_i_uniform_next(hf_i_uniform *u, uint32_t *row) { return sampler_next(u, row); }

void hf_i_uniform_free(hf_i_uniform *u) { sampler_free(u); }

uint64_t hf_i_uniform_cost(const hf_i_uniform *u)
{
    uint64_t n = u->n;
    switch (u->kind) {
    case SAMPLE_FOREST:
        return n;
    case SAMPLE_IDEALS:
        return n * n;
    case SAMPLE_CHAIN:
        return u->steps;
    }
    return n;
}

HF_I_SAMPLE_METHOD_FNS(random, HF_METHOD_RANDOM)

hf_status hf_i_random_generate_count(const hf_poset *p, const hf_gen_options *opt, uint64_t count,
                                     hf_sink sink, hf_error *err)
{
    return hf_i_sample_count(p, opt, HF_METHOD_RANDOM, count, sink, err);
}

const hf_i_method hf_i_method_random = {
    .id = HF_METHOD_RANDOM,
    .name = "random",
    .check = random_check,
    .predict = random_predict,
    .generate = random_generate,
    .predict_runs = true,
    .sampler = true,
    /* a baseline: never auto's choice, but named in its advice */
    .auto_rule = hf_i_auto_advise,
};
