/* Hit probabilities of the samplers (include/hitfam/probability.h): exact rationals for random
 * and rw by path counting over the lattice of down-sets, estimates with Wilson intervals from
 * the samplers' own streams otherwise, and the minimum over the admissible d-tuples. */
#include <math.h>
#include <string.h>

#include "hitfam/probability.h"
#include "poset_i.h"
#include "probability_i.h"
#include "sample.h"

void hf_hitprob_options_init(hf_hitprob_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->method = HF_METHOD_RANDOM;
    o->samples = HF_HITPROB_DEFAULT_SAMPLES;
    o->max_ideals = HF_HITPROB_DEFAULT_MAX_IDEALS;
    o->max_work = HF_HITPROB_DEFAULT_MAX_WORK;
}

/* ---------------------------------------------------------------------------------------- */
/* Shared parts                                                                             */

static hf_status check_common(const hf_poset *p, unsigned d, const hf_hitprob_options *o,
                              hf_error *err)
{
    if (!p || !o)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (d < 1 || d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D, d);
    if (!hf_i_is_sampler(o->method))
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "hit probabilities are those of the samplers random, rw, pct, pos and "
                         "basicpos (method %d asked)",
                         (int)o->method);
    if (o->depth > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "PCT's depth must be between 1 and %u (got %u)",
                         HF_MAX_D, o->depth);
    if (o->samples == 0)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "an estimate needs at least one sample");
    if (o->exact_only && o->estimate_only)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "exact_only and estimate_only exclude each other");
    return HF_OK;
}

/* Wilson score interval at 95% for h hits in s samples. */
static void wilson(uint64_t h, uint64_t s, double *low, double *high)
{
    const double z = 1.96;
    double n = (double)s, ph = (double)h / n, z2 = z * z;
    double centre = (ph + z2 / (2 * n)) / (1 + z2 / n);
    double half = z * sqrt(ph * (1 - ph) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    /* the interval always holds ph; keep it so after rounding, and within [0, 1] */
    *low = centre - half < 0 ? 0 : centre - half > ph ? ph : centre - half;
    *high = centre + half > 1 ? 1 : centre + half < ph ? ph : centre + half;
}

static void set_estimate(hf_hitprob_result *r, uint64_t h, uint64_t s)
{
    r->exact = false;
    r->samples = s;
    r->hits = h;
    r->value = (double)h / (double)s;
    wilson(h, s, &r->low, &r->high);
    r->expected_runs = h ? (double)s / (double)h : INFINITY;
}

/* An exact probability q into the result, and into out unless it is NULL. */
static void set_exact(hf_hitprob_result *r, const mpq_t q, uint64_t ideals, mpq_ptr out)
{
    if (out)
        mpq_set(out, q);
    r->exact = true;
    r->samples = r->hits = 0;
    r->value = r->low = r->high = mpq_get_d(q);
    r->ideals = ideals;
    if (mpq_sgn(q)) {
        mpq_t inv;
        mpq_init(inv);
        mpq_inv(inv, q);
        r->expected_runs = mpq_get_d(inv);
        mpq_clear(inv);
    } else {
        r->expected_runs = INFINITY;
    }
}

/* q = h / s exactly, whatever the width of unsigned long. */
static void set_ratio(mpq_t q, uint64_t h, uint64_t s)
{
    mpz_import(mpq_numref(q), 1, -1, sizeof h, 0, 0, &h);
    mpz_import(mpq_denref(q), 1, -1, sizeof s, 0, 0, &s);
    mpq_canonicalize(q);
}

static bool exact_method(hf_method m) { return m == HF_METHOD_RANDOM || m == HF_METHOD_RW; }

/* The lattice when the method is exact and the order small enough; *have tells. ETOOLARGE is
 * not an error here (the caller estimates or refuses). @p all is initialised here: the caller
 * clears it unless an error is returned. */
static hf_status try_lattice(const hf_poset *p, const hf_hitprob_options *o, hf_i_lattice *L,
                             mpz_t all, bool *have, hf_error *err)
{
    mpz_init(all);
    *have = false;
    if (!exact_method(o->method) || !o->max_ideals || o->estimate_only)
        return HF_OK;
    hf_status st = hf_i_lattice_build(L, p, o->max_ideals);
    if (st == HF_ETOOLARGE) {
        hf_i_lattice_free(L);
        return HF_OK;
    }
    if (st) {
        hf_i_lattice_free(L);
        mpz_clear(all);
        return hf_i_fail(err, st, 0, 0, "out of memory");
    }
    bool rw = o->method == HF_METHOD_RW;
    if (rw)
        mpz_pow_ui(all, L->mult, p->n);
    else {
        hf_i_lattice_paths(L, false, NULL, 0);
        mpz_set(all, L->num[L->sets.count - 1]);
    }
    *have = true;
    return HF_OK;
}

static hf_status no_exact(const hf_poset *p, const hf_hitprob_options *o, hf_error *err)
{
    if (o->method == HF_METHOD_PCT)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "method pct has more than %" PRIu64 " equally likely schedules on this "
                         "order, or they would pass max_work: its exact hit probabilities are out "
                         "of reach (exact_only asked; %" PRIu32 " events)",
                         HF_HITPROB_PCT_MAX_SCHEDULES, p->n);
    if (!exact_method(o->method))
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "the hit probabilities of method %s are only estimated (exact_only "
                         "asked)",
                         hf_method_name(o->method));
    return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                     "the order has more than %" PRIu64 " down-sets: the exact hit probabilities "
                     "of method %s are out of reach (exact_only asked; %" PRIu32 " events)",
                     o->max_ideals, hf_method_name(o->method), p->n);
}

/* Positions of a schedule. */
static void positions(const uint32_t *row, uint32_t n, uint32_t *pos)
{
    for (uint32_t i = 0; i < n; i++)
        pos[row[i]] = i;
}

static bool hits(const uint32_t *pos, const uint32_t *t, unsigned d)
{
    for (unsigned j = 1; j < d; j++)
        if (pos[t[j - 1]] > pos[t[j]])
            return false;
    return true;
}

/* work = a * b, saturating */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* The budget of each of the minimum's two batches (0: no limit). */
static uint64_t half_work(const hf_hitprob_options *o)
{
    return o->max_work ? (o->max_work / 2 ? o->max_work / 2 : 1) : 0;
}

/* Count the hits of `count` tuples (d each) in o->samples samples of the sampler seeded with
 * seed; refused (HF_ETOOLARGE) when drawing them would pass `budget` steps (0: no limit). */
static hf_status sample_hits(const hf_poset *p, const hf_hitprob_options *o, unsigned d,
                             uint64_t seed, const uint32_t *tuples, size_t count, uint64_t *h,
                             uint64_t budget, hf_error *err)
{
    hf_ctx *ctx = p->ctx;
    hf_i_sampler *s;
    unsigned depth = o->depth ? o->depth : d;
    hf_status st = hf_i_sampler_new(p, o->method, depth, seed, &s, err);
    if (st)
        return st;
    uint64_t cost = hf_i_sampler_cost(s);
    if (budget && mul_sat(o->samples, cost) > budget) {
        hf_i_sampler_free(s);
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "an estimate from %" PRIu64 " schedules of method %s, each costing "
                         "about %" PRIu64 " steps, passes max_work (%" PRIu64 ")",
                         o->samples, hf_method_name(o->method), cost, o->max_work);
    }
    size_t n1 = p->n ? p->n : 1;
    uint32_t *row = hf_i_alloc_array(ctx, n1, sizeof *row);
    uint32_t *pos = hf_i_alloc_array(ctx, n1, sizeof *pos);
    if (!row || !pos)
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    memset(h, 0, count * sizeof *h);
    for (uint64_t k = 0; k < o->samples && !st; k++) {
        if ((k & 63) == 0 && (st = hf_i_progress(ctx, "hitprob", k, o->samples, err)))
            break;
        if ((st = hf_i_sampler_next(s, row))) {
            st = hf_i_fail(err, st, 0, 0, "out of memory");
            break;
        }
        positions(row, p->n, pos);
        for (size_t i = 0; i < count; i++)
            h[i] += hits(pos, tuples + i * d, d);
    }
    hf_i_free(ctx, row);
    hf_i_free(ctx, pos);
    hf_i_sampler_free(s);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* PCT by enumeration                                                                       */

typedef struct pct_enum {
    hf_i_sampler *s;
    uint32_t n, c;
    uint32_t *prio, *row, *pos;
    uint32_t cps[HF_MAX_D];
    const uint32_t *tuples;
    size_t count;
    unsigned d;
    uint64_t *h;
} pct_enum;

static void pct_steps(pct_enum *e, uint32_t i)
{
    if (i == e->c) {
        hf_i_pct_schedule(e->s, e->prio, e->cps, e->row);
        positions(e->row, e->n, e->pos);
        for (size_t t = 0; t < e->count; t++)
            e->h[t] += hits(e->pos, e->tuples + t * e->d, e->d);
        return;
    }
    for (uint32_t step = 1; step <= e->n; step++) {
        bool used = false;
        for (uint32_t j = 0; j < i && !used; j++)
            used = e->cps[j] == step;
        if (used)
            continue;
        e->cps[i] = step;
        pct_steps(e, i + 1);
    }
}

/* The next permutation in lexicographic order; false after the last. */
static bool next_perm(uint32_t *a, uint32_t k)
{
    if (k < 2)
        return false;
    uint32_t i = k - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0)
        return false;
    uint32_t j = k - 1;
    while (a[j] <= a[i - 1])
        j--;
    uint32_t x = a[i - 1];
    a[i - 1] = a[j];
    a[j] = x;
    for (uint32_t l = i, r = k - 1; l < r; l++, r--) {
        x = a[l];
        a[l] = a[r];
        a[r] = x;
    }
    return true;
}

/* PCT exactly: every order of the k thread priorities and every choice of the c change points
 * run once (k! n!/(n-c)! schedules, all equally likely), counting the hits of each tuple in h.
 * *configs receives the number of schedules; *done is false (nothing counted) when there are
 * more than HF_HITPROB_PCT_MAX_SCHEDULES or the work would pass max_work. */
static hf_status pct_exact(const hf_poset *p, const hf_hitprob_options *o, unsigned d,
                           const uint32_t *tuples, size_t count, uint64_t *h, uint64_t *configs,
                           bool *done, hf_error *err)
{
    *done = false;
    hf_ctx *ctx = p->ctx;
    hf_i_sampler *s;
    hf_status st = hf_i_sampler_new(p, HF_METHOD_PCT, o->depth ? o->depth : d, 0, &s, err);
    if (st)
        return st;
    const hf_i_chains *ch = hf_i_sampler_pct_threads(s);
    uint32_t k = ch->count, c = hf_i_pct_change_points(s);
    uint64_t total = 1;
    for (uint32_t i = 2; i <= k && total <= HF_HITPROB_PCT_MAX_SCHEDULES; i++)
        total = mul_sat(total, i);
    for (uint32_t i = 0; i < c && total <= HF_HITPROB_PCT_MAX_SCHEDULES; i++)
        total = mul_sat(total, p->n - i);
    uint64_t work = mul_sat(total, (uint64_t)p->n + mul_sat(count, d));
    if (total > HF_HITPROB_PCT_MAX_SCHEDULES || (o->max_work && work > o->max_work)) {
        hf_i_sampler_free(s);
        return HF_OK;
    }
    size_t n1 = p->n ? p->n : 1;
    pct_enum e = {s,
                  p->n,
                  c,
                  hf_i_alloc_array(ctx, k ? k : 1, sizeof(uint32_t)),
                  hf_i_alloc_array(ctx, n1, sizeof(uint32_t)),
                  hf_i_alloc_array(ctx, n1, sizeof(uint32_t)),
                  {0},
                  tuples,
                  count,
                  d,
                  h};
    if (!e.prio || !e.row || !e.pos) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    } else {
        memset(h, 0, count * sizeof *h);
        for (uint32_t t = 0; t < k; t++)
            e.prio[t] = t;
        uint64_t orders = 0, all_orders = 1;
        for (uint32_t i = 2; i <= k; i++)
            all_orders = mul_sat(all_orders, i);
        do
            st = hf_i_progress(ctx, "hitprob", orders++, all_orders, err);
        while (!st && (pct_steps(&e, 0), next_perm(e.prio, k)));
        *configs = total;
        *done = !st;
    }
    hf_i_free(ctx, e.prio);
    hf_i_free(ctx, e.row);
    hf_i_free(ctx, e.pos);
    hf_i_sampler_free(s);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* One tuple                                                                                */

hf_status hf_hitprob_tuple(const hf_poset *p, const uint32_t *tuple, unsigned d,
                           const hf_hitprob_options *o, mpq_t out, hf_hitprob_result *r,
                           hf_error *err)
{
    hf_i_error_clear(err);
    hf_status st = check_common(p, d, o, err);
    if (st)
        return st;
    if (!tuple)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    for (unsigned j = 0; j < d; j++) {
        if (tuple[j] >= p->n)
            return hf_i_fail(err, HF_EINVAL, 0, 0, "event id %" PRIu32 " out of range", tuple[j]);
        for (unsigned i = 0; i < j; i++) {
            char q1[96], q2[96];
            if (tuple[i] == tuple[j])
                return hf_i_fail(err, HF_EINVAL, 0, 0, "event %s appears twice in the tuple",
                                 hf_i_name_quote(hf_i_name(p, tuple[j]), q1, sizeof q1));
            if (hf_i_less(p, tuple[j], tuple[i]))
                return hf_i_fail(err, HF_EINVAL, 0, 0,
                                 "the tuple is not admissible: %s comes after %s in it but "
                                 "happens before it",
                                 hf_i_name_quote(hf_i_name(p, tuple[j]), q1, sizeof q1),
                                 hf_i_name_quote(hf_i_name(p, tuple[i]), q2, sizeof q2));
        }
    }
    hf_hitprob_result res;
    memset(&res, 0, sizeof res);
    res.d = d;
    memcpy(res.tuple, tuple, d * sizeof *tuple);
    res.tuples = 1;
    hf_i_lattice L;
    mpz_t all;
    bool have;
    if ((st = try_lattice(p, o, &L, all, &have, err)))
        return st;
    if (have) {
        if (o->max_work && mul_sat(4, L.steps) > o->max_work)
            st =
                hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                          "the exact probability takes %zu steps, more than max_work (%" PRIu64 ")",
                          L.steps, o->max_work);
        mpq_t q;
        mpq_init(q);
        if (!st) {
            hf_i_lattice_prob(&L, o->method == HF_METHOD_RW, tuple, d, all, q);
            set_exact(&res, q, L.sets.count, out);
        }
        mpq_clear(q);
        hf_i_lattice_free(&L);
        mpz_clear(all);
        if (!st && r)
            *r = res;
        return st;
    }
    mpz_clear(all);
    if (o->method == HF_METHOD_PCT && !o->estimate_only) {
        uint64_t h = 0, configs = 0;
        bool done;
        if ((st = pct_exact(p, o, d, tuple, 1, &h, &configs, &done, err)))
            return st;
        if (done) {
            mpq_t q;
            mpq_init(q);
            set_ratio(q, h, configs);
            set_exact(&res, q, 0, out);
            mpq_clear(q);
            if (r)
                *r = res;
            return HF_OK;
        }
    }
    if (o->exact_only)
        return no_exact(p, o, err);
    uint64_t work = mul_sat(o->samples, (uint64_t)p->n + d);
    if (o->max_work && work > o->max_work)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                         "an estimate from %" PRIu64 " samples of %" PRIu32 " events passes "
                         "max_work (%" PRIu64 ")",
                         o->samples, p->n, o->max_work);
    uint64_t h;
    if ((st = sample_hits(p, o, d, o->seed, tuple, 1, &h, o->max_work, err)))
        return st;
    set_estimate(&res, h, o->samples);
    if (out)
        set_ratio(out, h, o->samples);
    if (r)
        *r = res;
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* The minimum                                                                              */

/* Every admissible d-tuple, in lexicographic order of ids, into a growing array; stops with
 * HF_ETOOLARGE past max tuples. */
typedef struct tuple_list {
    hf_ctx *ctx;
    uint32_t *t;
    size_t count, cap;
    uint64_t max;
    unsigned d;
} tuple_list;

static hf_status collect(const hf_poset *p, tuple_list *tl, uint32_t *cur, unsigned k)
{
    if (k == tl->d) {
        if (tl->count >= tl->max)
            return HF_ETOOLARGE;
        if (tl->count == tl->cap) {
            size_t cap = tl->cap ? 2 * tl->cap : 256;
            uint32_t *t = hf_i_realloc_array(tl->ctx, tl->t, cap * tl->d, sizeof *t);
            if (!t)
                return HF_ENOMEM;
            tl->t = t;
            tl->cap = cap;
        }
        memcpy(tl->t + tl->count * tl->d, cur, tl->d * sizeof *cur);
        tl->count++;
        return HF_OK;
    }
    for (uint32_t v = 0; v < p->n; v++) {
        bool ok = true;
        for (unsigned i = 0; i < k && ok; i++)
            ok = cur[i] != v && !hf_i_less(p, v, cur[i]);
        if (!ok)
            continue;
        cur[k] = v;
        hf_status st = collect(p, tl, cur, k + 1);
        if (st)
            return st;
    }
    return HF_OK;
}

hf_status hf_hitprob_min(const hf_poset *p, unsigned d, const hf_hitprob_options *o, mpq_t out,
                         hf_hitprob_result *r, hf_error *err)
{
    hf_i_error_clear(err);
    hf_status st = check_common(p, d, o, err);
    if (st)
        return st;
    hf_hitprob_result res;
    memset(&res, 0, sizeof res);
    unsigned dd = d < p->n ? d : p->n;
    res.d = dd;
    if (p->n == 0) {
        mpq_t one;
        mpq_init(one);
        mpq_set_ui(one, 1, 1);
        set_exact(&res, one, 1, out);
        mpq_clear(one);
        if (r)
            *r = res;
        return HF_OK;
    }
    hf_i_lattice L;
    mpz_t all;
    bool have;
    if ((st = try_lattice(p, o, &L, all, &have, err)))
        return st;
    if (!have && o->exact_only && o->method != HF_METHOD_PCT) {
        mpz_clear(all);
        return no_exact(p, o, err);
    }
    /* the work per tuple: the steps of the lattice (a big-number addition counts 4), or one
     * test per sample of the first batch (the second batch tests one tuple) */
    uint64_t per = have ? mul_sat(4, L.steps ? L.steps : 1) : o->samples;
    uint64_t max_tuples = o->max_work ? o->max_work / per : UINT64_MAX;
    tuple_list tl = {p->ctx, NULL, 0, 0, max_tuples, dd};
    uint32_t cur[HF_MAX_D];
    st = collect(p, &tl, cur, 0);
    if (st == HF_ETOOLARGE)
        st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                       "more than %" PRIu64 " admissible %u-tuples, each costing about %" PRIu64
                       " steps: the minimum would pass max_work (%" PRIu64 ")",
                       max_tuples, dd, per, o->max_work);
    else if (st)
        st = hf_i_fail(err, st, 0, 0, "out of memory");
    /* pct: exactly when its schedules can all be enumerated */
    uint64_t *h = NULL, configs = 0;
    bool pct_done = false;
    if (!st && (h = hf_i_alloc_array(p->ctx, tl.count ? tl.count : 1, sizeof *h)) == NULL)
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    if (!st && !have && o->method == HF_METHOD_PCT && !o->estimate_only) {
        st = pct_exact(p, o, dd, tl.t, tl.count, h, &configs, &pct_done, err);
        if (!st && !pct_done && o->exact_only)
            st = no_exact(p, o, err);
    }
    if (!st && !have && !pct_done && o->max_work &&
        mul_sat(2 * o->samples, (uint64_t)p->n) > o->max_work - mul_sat(tl.count, per))
        st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                       "an estimate from %" PRIu64 " samples of %" PRIu32 " events over %zu "
                       "tuples passes max_work (%" PRIu64 ")",
                       o->samples, p->n, tl.count, o->max_work);
    res.tuples = tl.count;
    mpq_t best, q;
    mpq_init(best);
    mpq_init(q);
    size_t arg = 0;
    if (!st && have) {
        for (size_t i = 0; i < tl.count && !st; i++) {
            if ((i & 15) == 0 && (st = hf_i_progress(p->ctx, "hitprob", i, tl.count, err)))
                break;
            hf_i_lattice_prob(&L, o->method == HF_METHOD_RW, tl.t + i * dd, dd, all, q);
            if (i == 0 || mpq_cmp(q, best) < 0) {
                mpq_set(best, q);
                arg = i;
            }
        }
        if (!st)
            set_exact(&res, best, L.sets.count, out);
    } else if (!st && pct_done) {
        for (size_t i = 1; i < tl.count; i++)
            if (h[i] < h[arg])
                arg = i;
        set_ratio(best, tl.count ? h[arg] : configs, configs);
        set_exact(&res, best, 0, out);
    } else if (!st) {
        st = sample_hits(p, o, dd, o->seed, tl.t, tl.count, h, half_work(o), err);
        for (size_t i = 1; i < tl.count && !st; i++)
            if (h[i] < h[arg])
                arg = i;
        uint64_t again = 0;
        if (!st && tl.count)
            st = sample_hits(p, o, dd, o->seed + 0x9e3779b97f4a7c15u, tl.t + arg * dd, 1, &again,
                             half_work(o), err);
        if (!st) {
            set_estimate(&res, again, o->samples);
            if (out)
                set_ratio(out, again, o->samples);
        }
    }
    if (!st && tl.count)
        memcpy(res.tuple, tl.t + arg * dd, dd * sizeof *res.tuple);
    hf_i_free(p->ctx, h);
    mpq_clear(best);
    mpq_clear(q);
    hf_i_free(p->ctx, tl.t);
    if (have)
        hf_i_lattice_free(&L);
    mpz_clear(all);
    if (!st && r)
        *r = res;
    return st;
}
