/* Tests of the hit probabilities (hitfam/probability.h): exact values for random against the
 * extensions listed by brute force, for rw against a recursion over enabled sets written here,
 * the samplers' empirical laws against the exact values (chi-square), estimates and their
 * intervals, the minimum and its tuple, bounded work, allocation failures and bad input. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "chisq.h"
#include "hitfam/probability.h"
#include "oracle.h"
#include "pct_model.h"
#include "sample.h"
#include "util.h"

TU_SUITE(probability);

/* Every admissible d-tuple of p by the closure, in lexicographic order of ids. */
static size_t all_tuples(const bool *lt, uint32_t n, unsigned d, uint32_t *out, size_t cap)
{
    size_t count = 0;
    uint32_t t[8];
    size_t total = 1;
    for (unsigned j = 0; j < d; j++)
        total *= n;
    for (size_t key = 0; key < total; key++) {
        size_t x = key;
        for (int j = (int)d - 1; j >= 0; j--) {
            t[j] = (uint32_t)(x % n);
            x /= n;
        }
        bool ok = true;
        for (unsigned a = 0; a < d && ok; a++)
            for (unsigned b = a + 1; b < d && ok; b++)
                ok = t[a] != t[b];
        if (!ok || !tu_admissible(lt, n, t, d))
            continue;
        cr_assert_lt(count, cap);
        memcpy(out + count * d, t, d * sizeof *t);
        count++;
    }
    return count;
}

/* random: extensions with the tuple in order over all extensions, by listing them. */
static void brute_random(const tu_collect *ext, const uint32_t *t, unsigned d, mpq_t q)
{
    uint32_t n = ext->n, pos[32];
    uint64_t hit = 0;
    for (size_t s = 0; s < ext->m; s++) {
        for (uint32_t i = 0; i < n; i++)
            pos[ext->rows[s * n + i]] = i;
        bool in = true;
        for (unsigned j = 1; j < d && in; j++)
            in = pos[t[j - 1]] < pos[t[j]];
        hit += in;
    }
    mpq_set_ui(q, (unsigned long)hit, (unsigned long)ext->m);
    mpq_canonicalize(q);
}

/* rw: a recursion over the set of events run so far (memoised by bitmask): each enabled event
 * with probability 1 / (number enabled); a step that runs a_{j+1} before a_j fails. */
typedef struct rw_memo {
    uint32_t n;
    const bool *lt;
    const uint32_t *t;
    unsigned d;
    mpq_t *val;
    bool *known;
} rw_memo;

static void brute_rw_rec(rw_memo *m, uint32_t done, mpq_t out)
{
    if (m->known[done]) {
        mpq_set(out, m->val[done]);
        return;
    }
    uint32_t n = m->n, en[32], k = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (done >> v & 1u)
            continue;
        bool ok = true;
        for (uint32_t u = 0; u < n && ok; u++)
            ok = (done >> u & 1u) || !m->lt[u * n + v];
        if (ok)
            en[k++] = v;
    }
    mpq_set_ui(out, k == 0 ? 1 : 0, 1);
    mpq_t sub;
    mpq_init(sub);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t x = en[i];
        bool ok = true;
        for (unsigned j = 1; j < m->d && ok; j++)
            ok = m->t[j] != x || (done >> m->t[j - 1] & 1u);
        if (!ok)
            continue;
        brute_rw_rec(m, done | 1u << x, sub);
        mpq_add(out, out, sub);
    }
    if (k) {
        mpq_set_ui(sub, 1, k);
        mpq_mul(out, out, sub);
    }
    mpq_clear(sub);
    mpq_set(m->val[done], out);
    m->known[done] = true;
}

static void brute_rw(const bool *lt, uint32_t n, const uint32_t *t, unsigned d, mpq_t q)
{
    size_t masks = (size_t)1 << n;
    rw_memo m = {n, lt, t, d, malloc(masks * sizeof(mpq_t)), calloc(masks, 1)};
    for (size_t i = 0; i < masks; i++)
        mpq_init(m.val[i]);
    brute_rw_rec(&m, 0, q);
    for (size_t i = 0; i < masks; i++)
        mpq_clear(m.val[i]);
    free(m.val);
    free(m.known);
}

static hf_hitprob_options options(hf_method m)
{
    hf_hitprob_options o;
    hf_hitprob_options_init(&o);
    o.method = m;
    return o;
}

Test(probability, exact_values_match_brute_force)
{
    uint64_t rng = 101;
    unsigned checked = 0;
    uint32_t *tuples = malloc(10000 * 4 * sizeof *tuples);
    for (unsigned i = 0; i < 45; i++) {
        uint32_t n = 1 + tu_below(&rng, 7);
        hf_poset *p = tu_some_order(i, n, &rng);
        bool *lt = tu_closure(p);
        tu_collect ext = tu_all_extensions(p);
        for (unsigned d = 1; d <= 4 && d <= n; d++) {
            size_t count = all_tuples(lt, n, d, tuples, 10000);
            mpq_t got, want, mn_r, mn_w;
            mpq_inits(got, want, mn_r, mn_w, NULL);
            size_t arg_r = 0, arg_w = 0;
            for (size_t k = 0; k < count; k++) {
                const uint32_t *t = tuples + k * d;
                hf_hitprob_result r;
                hf_hitprob_options o = options(HF_METHOD_RANDOM);
                hf_error err;
                cr_assert_eq(hf_hitprob_tuple(p, t, d, &o, got, &r, &err), HF_OK, "%s", err.text);
                cr_assert(r.exact);
                brute_random(&ext, t, d, want);
                cr_assert(mpq_equal(got, want), "random: order %u d=%u tuple %zu", i, d, k);
                cr_assert_float_eq(r.value, mpq_get_d(want), 1e-12);
                cr_assert_float_eq(r.expected_runs, 1 / mpq_get_d(want), 1e-9);
                if (k == 0 || mpq_cmp(want, mn_r) < 0) {
                    mpq_set(mn_r, want);
                    arg_r = k;
                }
                o.method = HF_METHOD_RW;
                cr_assert_eq(hf_hitprob_tuple(p, t, d, &o, got, &r, &err), HF_OK, "%s", err.text);
                brute_rw(lt, n, t, d, want);
                cr_assert(mpq_equal(got, want), "rw: order %u d=%u tuple %zu", i, d, k);
                if (k == 0 || mpq_cmp(want, mn_w) < 0) {
                    mpq_set(mn_w, want);
                    arg_w = k;
                }
                checked++;
            }
            /* the minimum and the first tuple attaining it */
            for (int w = 0; w < 2; w++) {
                hf_hitprob_options o = options(w ? HF_METHOD_RW : HF_METHOD_RANDOM);
                hf_hitprob_result r;
                hf_error err;
                cr_assert_eq(hf_hitprob_min(p, d, &o, got, &r, &err), HF_OK, "%s", err.text);
                cr_assert(r.exact);
                cr_assert_eq(r.tuples, count);
                cr_assert(mpq_equal(got, w ? mn_w : mn_r), "min: order %u d=%u", i, d);
                cr_assert_eq(memcmp(r.tuple, tuples + (w ? arg_w : arg_r) * d, d * sizeof *r.tuple),
                             0);
            }
            mpq_clears(got, want, mn_r, mn_w, NULL);
        }
        free(ext.rows);
        free(lt);
        hf_poset_free(p);
    }
    free(tuples);
    cr_assert_geq(checked, 1000, "%u tuples", checked);
}

/* With d = n a tuple is a whole schedule: its exact probability is the sampler's law on
 * extensions, which the samples must follow. */
Test(probability, samples_follow_the_exact_laws)
{
    uint64_t rng = 7;
    for (unsigned i = 0; i < 12; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *p = tu_some_order(i, n, &rng);
        tu_collect ext = tu_all_extensions(p);
        for (int w = 0; w < 2; w++) {
            hf_method m = w ? HF_METHOD_RW : HF_METHOD_RANDOM;
            hf_hitprob_options o = options(m);
            double *law = malloc(ext.m * sizeof *law), total = 0;
            for (size_t s = 0; s < ext.m; s++) {
                hf_hitprob_result r;
                cr_assert_eq(hf_hitprob_tuple(p, ext.rows + s * n, n, &o, NULL, &r, NULL), HF_OK);
                law[s] = r.value;
                total += r.value;
            }
            cr_assert_float_eq(total, 1.0, 1e-9);
            uint64_t draws = 20000;
            hf_gen_options g = tu_gen_options(2, m, NULL, 0);
            g.seed = 40 + i;
            tu_collect c = {n, 0, 0, NULL};
            cr_assert_eq(hf_i_sample_count(p, &g, m, draws, tu_collect_sink(&c), NULL), HF_OK);
            uint64_t *h = calloc(ext.m, sizeof *h);
            for (size_t s = 0; s < c.m; s++) {
                size_t j = 0;
                while (memcmp(ext.rows + j * n, c.rows + s * n, n * sizeof *c.rows) != 0)
                    j++;
                h[j]++;
            }
            double chi;
            size_t df;
            double pv = tu_chisq_fit(h, law, ext.m, draws, &chi, &df);
            cr_log_info("%s order %u: chi-square %.1f df %zu p %.3g", hf_method_name(m), i, chi, df,
                        pv);
            cr_assert_geq(pv, 1e-4, "%s order %u: chi-square %.1f, %zu df (p %.3g)",
                          hf_method_name(m), i, chi, df, pv);
            free(h);
            free(c.rows);
            free(law);
        }
        free(ext.rows);
        hf_poset_free(p);
    }
}

/* Estimates (forced with max_ideals = 0, and the samplers that are only estimated) lie within
 * five standard errors of the exact value, their intervals hold it in most cases, and the same
 * seed gives the same estimate. pos without objects is rw, so rw's exact values serve for it. */
Test(probability, estimates_and_intervals)
{
    uint64_t rng = 55;
    unsigned inside = 0, total = 0;
    uint32_t *tuples = malloc(4000 * 3 * sizeof *tuples);
    for (unsigned i = 0; i < 9; i++) {
        uint32_t n = 4 + tu_below(&rng, 4);
        hf_poset *p = tu_some_order(i, n, &rng);
        bool *lt = tu_closure(p);
        size_t count = all_tuples(lt, n, 3, tuples, 4000);
        for (size_t k = 0; k < count; k += 1 + count / 8) {
            const uint32_t *t = tuples + k * 3;
            for (int m = 0; m < 3; m++) {
                hf_hitprob_options o = options(m == 0 ? HF_METHOD_RANDOM : HF_METHOD_RW);
                mpq_t exact, est;
                mpq_inits(exact, est, NULL);
                cr_assert_eq(hf_hitprob_tuple(p, t, 3, &o, exact, NULL, NULL), HF_OK);
                if (m == 2)
                    o.method = HF_METHOD_POS;
                o.max_ideals = 0;
                o.samples = 4000;
                o.seed = k;
                hf_hitprob_result r, r2;
                cr_assert_eq(hf_hitprob_tuple(p, t, 3, &o, est, &r, NULL), HF_OK);
                cr_assert_not(r.exact);
                cr_assert_eq(r.samples, 4000);
                cr_assert_float_eq(mpq_get_d(est), (double)r.hits / 4000, 1e-15);
                double x = mpq_get_d(exact);
                double se = sqrt(x * (1 - x) / 4000) + 1e-9;
                cr_assert_leq(fabs(r.value - x), 5 * se, "%s: estimate %f, exact %f",
                              hf_method_name(o.method), r.value, x);
                cr_assert_leq(r.low, r.value);
                cr_assert_geq(r.high, r.value);
                inside += r.low <= x && x <= r.high;
                total++;
                cr_assert_eq(hf_hitprob_tuple(p, t, 3, &o, NULL, &r2, NULL), HF_OK);
                cr_assert_eq(r2.hits, r.hits, "same seed, same estimate");
                mpq_clears(exact, est, NULL);
            }
        }
        free(lt);
        hf_poset_free(p);
    }
    free(tuples);
    cr_log_info("%u of %u intervals hold the exact value", inside, total);
    cr_assert_geq(inside, total * 85 / 100, "%u of %u intervals hold the exact value", inside,
                  total);
}

/* pct's exact values (all its equally likely schedules) against the model written from the
 * definition (tests/pct_model.h), on the library's threads; the minimum and PCT's bound. */
typedef struct tuple_mass {
    uint32_t n;
    unsigned d;
    const uint32_t *tuples;
    size_t count;
    double *mass;
} tuple_mass;

static void add_tuple_mass(void *user, const uint32_t *row, double w)
{
    tuple_mass *t = user;
    uint32_t pos[32];
    for (uint32_t i = 0; i < t->n; i++)
        pos[row[i]] = i;
    for (size_t k = 0; k < t->count; k++) {
        const uint32_t *x = t->tuples + k * t->d;
        bool in = true;
        for (unsigned j = 1; j < t->d && in; j++)
            in = pos[x[j - 1]] < pos[x[j]];
        if (in)
            t->mass[k] += w;
    }
}

Test(probability, pct_exact_values_match_the_model)
{
    uint64_t rng = 313;
    unsigned orders = 0;
    uint32_t *tuples = malloc(4000 * 3 * sizeof *tuples);
    for (unsigned i = 0; i < 30; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *p = tu_some_order(i, n, &rng);
        unsigned d = 2 + i % 2;
        hf_i_sampler *s;
        cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_PCT, d, 0, &s, NULL), HF_OK);
        bool *lt = tu_closure(p);
        pct_model m;
        pct_model_of(&m, hf_i_sampler_pct_threads(s), lt, n, d);
        if (m.k <= 5) {
            size_t count = all_tuples(lt, n, d, tuples, 4000);
            tuple_mass t = {n, d, tuples, count, calloc(count + 1, sizeof(double))};
            bool used[32] = {0};
            pct_perms(&m, 0, used, 1.0, add_tuple_mass, &t);
            hf_hitprob_options o = options(HF_METHOD_PCT);
            double mn = 2, bound = 1.0 / m.k;
            for (unsigned j = 1; j < d; j++)
                bound /= n;
            for (size_t k = 0; k < count; k++) {
                hf_hitprob_result r;
                mpq_t q;
                mpq_init(q);
                hf_error err;
                cr_assert_eq(hf_hitprob_tuple(p, tuples + k * d, d, &o, q, &r, &err), HF_OK, "%s",
                             err.text);
                cr_assert(r.exact);
                cr_assert_float_eq(mpq_get_d(q), t.mass[k], 1e-12, "order %u tuple %zu", i, k);
                cr_assert_geq(r.value, bound * (1 - 1e-12));
                mn = t.mass[k] < mn ? t.mass[k] : mn;
                mpq_clear(q);
            }
            hf_hitprob_result r;
            cr_assert_eq(hf_hitprob_min(p, d, &o, NULL, &r, NULL), HF_OK);
            cr_assert(r.exact);
            cr_assert_eq(r.tuples, count);
            cr_assert_float_eq(r.value, mn, 1e-12);
            size_t at = 0;
            while (memcmp(tuples + at * d, r.tuple, d * sizeof *tuples) != 0)
                at++;
            cr_assert_float_eq(t.mass[at], mn, 1e-12);
            /* exact_only is refused beyond the enumeration's limits */
            o.exact_only = true;
            o.max_work = 10;
            hf_error err;
            cr_assert_eq(hf_hitprob_min(p, d, &o, NULL, &r, &err), HF_ETOOLARGE);
            free(t.mass);
            orders++;
        }
        free(lt);
        hf_i_sampler_free(s);
        hf_poset_free(p);
    }
    free(tuples);
    cr_assert_geq(orders, 20);
}

Test(probability, minimum_of_the_estimated_samplers)
{
    uint64_t rng = 9;
    for (unsigned i = 0; i < 6; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *p = tu_some_order(i, n, &rng);
        bool *lt = tu_closure(p);
        const hf_method ms[] = {HF_METHOD_PCT, HF_METHOD_POS, HF_METHOD_BASICPOS};
        for (int k = 0; k < 3; k++) {
            hf_hitprob_options o = options(ms[k]);
            o.samples = 3000;
            o.estimate_only = true; /* pct would be exact on these orders */
            hf_hitprob_result r;
            hf_error err;
            mpq_t q;
            mpq_init(q);
            cr_assert_eq(hf_hitprob_min(p, 3, &o, q, &r, &err), HF_OK, "%s", err.text);
            cr_assert_not(r.exact);
            cr_assert(tu_admissible(lt, n, r.tuple, 3));
            cr_assert_eq(r.samples, 3000);
            cr_assert_leq(r.low, r.value);
            /* the tuple's estimate agrees with an estimate of that tuple alone */
            hf_hitprob_result one;
            o.seed = 1234;
            cr_assert_eq(hf_hitprob_tuple(p, r.tuple, 3, &o, NULL, &one, NULL), HF_OK);
            double se = sqrt(one.value * (1 - one.value) / 3000) + 1e-3;
            cr_assert_leq(fabs(one.value - r.value), 6 * se);
            if (ms[k] == HF_METHOD_POS) {
                /* without objects pos samples as rw: compare with rw's exact value */
                hf_hitprob_options e = options(HF_METHOD_RW);
                hf_hitprob_result x;
                cr_assert_eq(hf_hitprob_tuple(p, r.tuple, 3, &e, NULL, &x, NULL), HF_OK);
                cr_assert_leq(fabs(x.value - r.value), 5 * sqrt(x.value / 3000) + 1e-9);
            }
            mpq_clear(q);
        }
        free(lt);
        hf_poset_free(p);
    }
}

Test(probability, bounded_work_and_bad_input)
{
    hf_poset *p = tu_antichain(6);
    hf_hitprob_options o = options(HF_METHOD_RANDOM);
    hf_error err;
    uint32_t t[3] = {0, 1, 2};
    cr_assert_eq(hf_hitprob_tuple(p, t, 0, &o, NULL, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_hitprob_tuple(p, t, 9, &o, NULL, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_hitprob_min(p, 0, &o, NULL, NULL, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "between 1 and 8"), "%s", err.text);
    cr_assert_eq(hf_hitprob_tuple(p, NULL, 2, &o, NULL, NULL, &err), HF_EINVAL);
    uint32_t rep[2] = {1, 1}, out_of[2] = {1, 6};
    cr_assert_eq(hf_hitprob_tuple(p, rep, 2, &o, NULL, NULL, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "twice"), "%s", err.text);
    cr_assert_eq(hf_hitprob_tuple(p, out_of, 2, &o, NULL, NULL, &err), HF_EINVAL);
    o.method = HF_METHOD_GREEDY;
    cr_assert_eq(hf_hitprob_tuple(p, t, 2, &o, NULL, NULL, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "samplers"), "%s", err.text);
    o.method = HF_METHOD_PCT;
    o.depth = 9;
    cr_assert_eq(hf_hitprob_tuple(p, t, 2, &o, NULL, NULL, &err), HF_EINVAL);
    o = options(HF_METHOD_POS);
    o.exact_only = o.estimate_only = true;
    cr_assert_eq(hf_hitprob_tuple(p, t, 2, &o, NULL, NULL, &err), HF_EINVAL);
    o = options(HF_METHOD_POS);
    o.samples = 0;
    cr_assert_eq(hf_hitprob_tuple(p, t, 2, &o, NULL, NULL, &err), HF_EINVAL);
    o = options(HF_METHOD_POS);
    o.exact_only = true;
    cr_assert_eq(hf_hitprob_tuple(p, t, 2, &o, NULL, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "only estimated"), "%s", err.text);
    o = options(HF_METHOD_RW);
    o.exact_only = true;
    o.max_ideals = 10; /* an antichain of 6 has 64 down-sets */
    cr_assert_eq(hf_hitprob_min(p, 2, &o, NULL, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "more than 10 down-sets"), "%s", err.text);
    o = options(HF_METHOD_RW);
    o.max_work = 100;
    cr_assert_eq(hf_hitprob_min(p, 3, &o, NULL, NULL, &err), HF_ETOOLARGE);
    cr_assert(strstr(err.text, "max_work"), "%s", err.text);
    o = options(HF_METHOD_POS);
    o.max_work = 1000;
    cr_assert_eq(hf_hitprob_tuple(p, t, 3, &o, NULL, NULL, &err), HF_ETOOLARGE);
    hf_poset_free(p);
    /* random's Markov chain (more than 2^18 down-sets, not a forest) is counted at its steps */
    {
        const uint32_t e26[][2] = {{22, 24}, {23, 24}, {23, 25}};
        hf_poset *big = tu_poset(26, e26, 3);
        uint32_t pair[2] = {0, 1};
        o = options(HF_METHOD_RANDOM);
        o.max_ideals = 0;
        cr_assert_eq(hf_hitprob_tuple(big, pair, 2, &o, NULL, NULL, &err), HF_ETOOLARGE);
        cr_assert(strstr(err.text, "each costing about"), "%s", err.text);
        o.samples = 20;
        hf_hitprob_result r;
        cr_assert_eq(hf_hitprob_tuple(big, pair, 2, &o, NULL, &r, &err), HF_OK, "%s", err.text);
        cr_assert_eq(r.samples, 20);
        hf_poset_free(big);
    }
    /* a large forest: too many down-sets to list (and 1.5 KiB each), so estimated, quickly */
    {
        uint64_t g = 8;
        hf_poset *big = tu_random_forest(100000, 3, &g);
        const uint32_t *topo = hf_poset_topological_order(big);
        uint32_t pair[2] = {topo[99999], topo[0]};
        if (hf_poset_less(big, pair[1], pair[0]))
            pair[1] = topo[1];
        for (int w = 0; w < 2; w++) {
            o = options(w ? HF_METHOD_RW : HF_METHOD_RANDOM);
            o.samples = 30;
            hf_hitprob_result r;
            cr_assert_eq(hf_hitprob_tuple(big, pair, 2, &o, NULL, &r, &err), HF_OK, "%s", err.text);
            cr_assert_not(r.exact);
            cr_assert_eq(r.samples, 30);
        }
        hf_poset_free(big);
    }
    /* not admissible */
    const uint32_t e[][2] = {{0, 1}};
    p = tu_poset(3, e, 1);
    uint32_t back[2] = {1, 0};
    o = options(HF_METHOD_RANDOM);
    cr_assert_eq(hf_hitprob_tuple(p, back, 2, &o, NULL, NULL, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "not admissible"), "%s", err.text);
    /* more d than events: the tuples of all n; an order without events: probability 1 */
    hf_hitprob_result r;
    mpq_t q;
    mpq_init(q);
    cr_assert_eq(hf_hitprob_min(p, 5, &o, q, &r, &err), HF_OK, "%s", err.text);
    cr_assert_eq(r.d, 3);
    cr_assert_eq(mpq_cmp_ui(q, 1, 3), 0); /* (0, 1, 2) etc.: 1 of 3 extensions each */
    hf_poset_free(p);
    p = tu_antichain(0);
    cr_assert_eq(hf_hitprob_min(p, 2, &o, q, &r, &err), HF_OK);
    cr_assert_eq(mpq_cmp_ui(q, 1, 1), 0);
    hf_poset_free(p);
    mpq_clear(q);
}

Test(probability, allocation_failures)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    long base = chaos.live;
    uint64_t rng = 4;
    hf_poset *q = tu_random_dag(7, 1, 3, &rng);
    hf_poset *p = tu_poset_copy(q, ctx);
    hf_poset_free(q);
    const hf_method ms[] = {HF_METHOD_RANDOM, HF_METHOD_RW, HF_METHOD_PCT, HF_METHOD_POS};
    for (int k = 0; k < 4; k++)
        for (int min = 0; min < 2; min++) {
            hf_hitprob_options o = options(ms[k]);
            o.samples = 200;
            const uint32_t *topo = hf_poset_topological_order(p);
            uint32_t t[2] = {topo[0], topo[6]};
            mpq_t want, got;
            mpq_inits(want, got, NULL);
            cr_assert_eq(min ? hf_hitprob_min(p, 2, &o, want, NULL, NULL)
                             : hf_hitprob_tuple(p, t, 2, &o, want, NULL, NULL),
                         HF_OK);
            bool done = false;
            for (long a = 0; !done; a++) {
                long live = chaos.live;
                chaos.left = a;
                hf_error err;
                hf_status st = min ? hf_hitprob_min(p, 2, &o, got, NULL, &err)
                                   : hf_hitprob_tuple(p, t, 2, &o, got, NULL, &err);
                chaos.left = -1;
                cr_assert_eq(chaos.live, live, "leak after failing allocation %ld", a);
                if (st == HF_OK) {
                    cr_assert(mpq_equal(got, want));
                    done = true;
                } else {
                    cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", a, err.text);
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
                }
            }
            mpq_clears(want, got, NULL);
        }
    hf_poset_free(p);
    cr_assert_eq(chaos.live, base);
    hf_ctx_free(ctx);
}

typedef struct hitprob_log {
    unsigned reports;
    bool stop;
    bool other_task;
} hitprob_log;

static bool on_hitprob(const hf_progress *pr, void *user)
{
    hitprob_log *l = user;
    l->reports++;
    l->other_task |= strcmp(pr->task, "hitprob") != 0;
    return !l->stop;
}

/* The minimum over the tuples reports progress (task "hitprob") on each of its three paths, the
 * lattice (rw), the enumeration of PCT's choices and sampling (pos), changes nothing when the
 * callback goes on, and stops with HF_EABORTED, nothing left allocated, when it asks to stop. */
Test(probability, minimum_reports_progress_and_stops)
{
    uint64_t rng = 5;
    hf_poset *base = tu_some_order(1, 6, &rng);
    const hf_method ms[] = {HF_METHOD_RW, HF_METHOD_PCT, HF_METHOD_POS};
    for (int k = 0; k < 3; k++) {
        tu_chaos chaos = {-1, false, 0, 0};
        hf_ctx *ctx = tu_chaos_ctx(&chaos);
        hitprob_log l = {0};
        cr_assert_eq(hf_ctx_set_progress(ctx, on_hitprob, &l), HF_OK);
        hf_poset *p = tu_poset_copy(base, ctx);
        hf_hitprob_options o = options(ms[k]);
        o.samples = 500;
        hf_hitprob_result quiet, seen;
        hf_error err;
        mpq_t a, b;
        mpq_init(a);
        mpq_init(b);
        cr_assert_eq(hf_hitprob_min(base, 3, &o, a, &quiet, &err), HF_OK, "%s", err.text);
        cr_assert_eq(hf_hitprob_min(p, 3, &o, b, &seen, &err), HF_OK, "%s", err.text);
        cr_assert(mpq_equal(a, b), "%s", hf_method_name(ms[k]));
        cr_assert_eq(seen.exact, quiet.exact);
        cr_assert_eq(memcmp(seen.tuple, quiet.tuple, sizeof seen.tuple), 0);
        cr_assert_gt(l.reports, 0u, "%s reports no progress", hf_method_name(ms[k]));
        cr_assert_not(l.other_task);
        long live = chaos.live;
        l = (hitprob_log){.stop = true};
        err = (hf_error){0};
        cr_assert_eq(hf_hitprob_min(p, 3, &o, b, &seen, &err), HF_EABORTED, "%s",
                     hf_method_name(ms[k]));
        cr_assert(strstr(err.text, "hitprob: stopped by the progress callback"), "%s", err.text);
        cr_assert_eq(l.reports, 1u);
        cr_assert_eq(chaos.live, live);
        mpq_clear(a);
        mpq_clear(b);
        hf_poset_free(p);
        hf_ctx_free(ctx);
    }
    hf_poset_free(base);
}
