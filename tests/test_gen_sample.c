/* Tests of the samplers rw, pct, pos and basicpos (and random through the same streams): linear
 * extensions on many orders, determinism, until-covered families checked by the oracle, each
 * law against its definition (exact laws for rw, random and pct computed here by brute force;
 * pos and basicpos against a direct implementation of the paper's algorithm), pos's refresh on
 * hand-built labelled orders, pct's threads, PCT's bound, allocation failures, bad inputs. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "chisq.h"
#include "oracle.h"
#include "pct_model.h"
#include "sample.h"
#include "util.h"

TU_SUITE(gen_sample);

static const hf_method samplers[] = {HF_METHOD_RANDOM, HF_METHOD_RW, HF_METHOD_PCT, HF_METHOD_POS,
                                     HF_METHOD_BASICPOS};
#define N_SAMPLERS (sizeof samplers / sizeof samplers[0])

/* ---- labelled orders, with the labels the test chose kept beside them ---- */

typedef struct labels {
    uint32_t n;
    uint32_t thread[32]; /* HF_NO_EVENT: none */
    uint32_t obj[32];    /* HF_NO_EVENT: none */
    bool write[32];
    bool any_obj;
} labels;

/* q again (through ctx), with threads (each a chain by the closure of q's edges; with
 * `all_threads` every event has one, else about one in four has none) and, with `objects`,
 * objects among three (one event in five has none) read or written at random. */
static hf_poset *labelled(const hf_poset *q, hf_ctx *ctx, uint64_t *rng, bool threads,
                          bool all_threads, bool objects, labels *lab)
{
    uint32_t n = hf_poset_size(q);
    cr_assert_leq(n, 32);
    bool *lt = tu_closure(q);
    memset(lab, 0, sizeof *lab);
    lab->n = n;
    hf_poset_builder *b;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (uint32_t v = 0; v < n; v++)
        cr_assert_eq(hf_poset_builder_add_event(b, hf_poset_name(q, v), NULL), HF_OK);
    size_t m;
    const uint32_t(*e)[2] = tu_registered_edges(q, &m);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_poset_builder_add_order(b, e[i][0], e[i][1]), HF_OK);
    /* threads: in a topological order of the closure, join a thread whose last event is below */
    uint32_t last[32], count = 0;
    const uint32_t *topo = hf_poset_topological_order(q);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = topo[i];
        lab->thread[v] = HF_NO_EVENT;
        if (!threads || (!all_threads && tu_below(rng, 4) == 0))
            continue;
        uint32_t cand[32], k = 0;
        for (uint32_t t = 0; t < count; t++)
            if (lt[last[t] * n + v])
                cand[k++] = t;
        uint32_t t = k && tu_below(rng, 3) ? cand[tu_below(rng, k)] : count++;
        last[t] = v;
        lab->thread[v] = t;
        char name[16];
        snprintf(name, sizeof name, "t%u", (unsigned)t);
        cr_assert_eq(hf_poset_builder_set_thread(b, v, name), HF_OK);
    }
    for (uint32_t v = 0; v < n; v++) {
        lab->obj[v] = HF_NO_EVENT;
        if (!objects || tu_below(rng, 5) == 0)
            continue;
        lab->obj[v] = tu_below(rng, 3);
        lab->write[v] = tu_below(rng, 2);
        lab->any_obj = true;
        char name[16];
        snprintf(name, sizeof name, "o%u", (unsigned)lab->obj[v]);
        cr_assert_eq(hf_poset_builder_set_object(b, v, name,
                                                 lab->write[v] ? HF_ACCESS_WRITE : HF_ACCESS_READ),
                     HF_OK);
    }
    hf_poset *p;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    tu_register_edges(p, e, m);
    free(lt);
    return p;
}

/* Conflict by the test's own labels and closure. */
static bool conflict(const labels *lab, const bool *lt, uint32_t a, uint32_t b)
{
    uint32_t n = lab->n;
    if (a == b || lt[a * n + b] || lt[b * n + a])
        return false;
    if (!lab->any_obj)
        return true;
    return lab->obj[a] != HF_NO_EVENT && lab->obj[a] == lab->obj[b] &&
           (lab->write[a] || lab->write[b]);
}

/* ---- sampling and checking ---- */

static tu_collect sample(const hf_poset *p, hf_method m, unsigned d, uint64_t seed, uint64_t count)
{
    hf_gen_options opt = tu_gen_options(d, m, NULL, 0);
    opt.seed = seed;
    tu_collect c = {hf_poset_size(p), 0, 0, NULL};
    hf_error err;
    cr_assert_eq(hf_i_sample_count(p, &opt, m, count, tu_collect_sink(&c), &err), HF_OK, "%s: %s",
                 hf_method_name(m), err.text);
    cr_assert_eq(c.m, count);
    return c;
}

static void assert_extensions(const hf_poset *p, const tu_collect *c, const char *what)
{
    uint32_t n = hf_poset_size(p);
    uint32_t *pos = malloc((n + 1) * sizeof *pos);
    for (size_t s = 0; s < c->m; s++) {
        const uint32_t *row = c->rows + s * n;
        memset(pos, 0xff, (n + 1) * sizeof *pos);
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_lt(row[i], n, "%s: schedule %zu", what, s);
            cr_assert_eq(pos[row[i]], HF_NO_EVENT, "%s: schedule %zu repeats", what, s);
            pos[row[i]] = i;
        }
        cr_assert(tu_respects_edges(p, pos), "%s: schedule %zu breaks an edge", what, s);
    }
    free(pos);
}

/* Index of row among the extensions (lexicographic, as tu_all_extensions lists them). */
static size_t find_row(const tu_collect *ext, const uint32_t *row)
{
    uint32_t n = ext->n;
    size_t lo = 0, hi = ext->m;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = 0;
        for (uint32_t i = 0; i < n && !c; i++)
            c = ext->rows[mid * n + i] < row[i] ? -1 : ext->rows[mid * n + i] > row[i] ? 1 : 0;
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    cr_assert_fail("a sample is not a linear extension");
    return 0;
}

static uint64_t *histogram(const tu_collect *ext, const tu_collect *c)
{
    uint64_t *h = calloc(ext->m + 1, sizeof *h);
    for (size_t s = 0; s < c->m; s++)
        h[find_row(ext, c->rows + s * c->n)]++;
    return h;
}

Test(gen_sample, every_sampler_emits_linear_extensions)
{
    uint64_t rng = 5;
    unsigned runs = 0;
    for (unsigned i = 0; i < 90; i++) {
        uint32_t n = 1 + tu_below(&rng, 14);
        hf_poset *q = tu_some_order(i, n, &rng);
        labels lab;
        hf_poset *p = labelled(q, NULL, &rng, i % 3 != 0, i % 2, i % 4 != 0, &lab);
        hf_poset_free(q);
        for (size_t k = 0; k < N_SAMPLERS; k++) {
            tu_collect c = sample(p, samplers[k], 1 + i % 4, i, 40);
            char what[64];
            snprintf(what, sizeof what, "%s order %u n=%u", hf_method_name(samplers[k]), i, n);
            assert_extensions(p, &c, what);
            free(c.rows);
            runs++;
        }
        hf_poset_free(p);
    }
    /* larger orders: a random forest, its reverse, a random DAG */
    hf_poset *big[3] = {tu_random_forest(20000, 3, &rng), tu_random_inforest(20000, 2, &rng),
                        tu_random_dag(400, 1, 40, &rng)};
    for (int b = 0; b < 3; b++) {
        for (size_t k = 1; k < N_SAMPLERS; k++) {
            tu_collect c = sample(big[b], samplers[k], 3, 1, 2);
            assert_extensions(big[b], &c, hf_method_name(samplers[k]));
            free(c.rows);
            runs++;
        }
        hf_poset_free(big[b]);
    }
    cr_assert_eq(runs, 90 * N_SAMPLERS + 12);
}

Test(gen_sample, same_seed_same_schedules)
{
    uint64_t rng = 77;
    for (unsigned i = 0; i < 18; i++) {
        hf_poset *q = tu_some_order(i, 9, &rng);
        labels lab;
        hf_poset *p = labelled(q, NULL, &rng, true, false, true, &lab);
        hf_poset_free(q);
        for (size_t k = 0; k < N_SAMPLERS; k++) {
            tu_collect a = sample(p, samplers[k], 3, 42, 30), b = sample(p, samplers[k], 3, 42, 30),
                       c = sample(p, samplers[k], 3, 43, 30);
            cr_assert_eq(memcmp(a.rows, b.rows, 30 * 9 * sizeof *a.rows), 0);
            /* antichains and wide orders differ with another seed (30 schedules of 9 events) */
            if (i % 9 == 4)
                cr_assert_neq(memcmp(a.rows, c.rows, 30 * 9 * sizeof *a.rows), 0);
            free(a.rows);
            free(b.rows);
            free(c.rows);
        }
        hf_poset_free(p);
    }
}

/* The until-covered stream of every sampler is d-hitting, one schedule fewer is not, and
 * predict (which runs it) gives its length. */
Test(gen_sample, until_covered_is_the_first_hitting_prefix)
{
    static const struct hf_i_method *const methods[] = {&hf_i_method_rw, &hf_i_method_pct,
                                                        &hf_i_method_pos, &hf_i_method_basicpos};
    uint64_t rng = 31;
    unsigned orders = 0;
    for (unsigned d = 2; d <= 4; d++)
        for (unsigned i = 0; i < 27; i++) {
            uint32_t n = 2 + tu_below(&rng, d == 4 ? 5 : 7);
            hf_poset *q = tu_some_order(i, n, &rng);
            labels lab;
            hf_poset *p = labelled(q, NULL, &rng, i % 2, false, i % 3 != 0, &lab);
            hf_poset_free(q);
            for (int k = 0; k < 4; k++) {
                tu_collect c = tu_run_method(methods[k], p, d, i, NULL, 0, true);
                cr_assert(tu_oracle_hitting(p, c.rows, c.m, d, NULL), "%s order %u d=%u",
                          methods[k]->name, i, d);
                cr_assert(c.m == 0 || !tu_oracle_hitting(p, c.rows, c.m - 1, d, NULL),
                          "%s: not the shortest prefix", methods[k]->name);
                free(c.rows);
            }
            hf_poset_free(p);
            orders++;
        }
    cr_assert_eq(orders, 81);
}

/* ---- laws ---- */

/* rw's law on extensions: each step a uniform choice among the enabled events. */
static double *rw_law(const hf_poset *p, const tu_collect *ext)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    double *law = malloc((ext->m + 1) * sizeof *law);
    for (size_t s = 0; s < ext->m; s++) {
        const uint32_t *row = ext->rows + s * n;
        bool done[32] = {0};
        double pr = 1;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t en = 0;
            for (uint32_t v = 0; v < n; v++) {
                bool ok = !done[v];
                for (uint32_t u = 0; u < n && ok; u++)
                    ok = done[u] || !lt[u * n + v];
                en += ok;
            }
            pr /= en;
            done[row[k]] = true;
        }
        law[s] = pr;
    }
    free(lt);
    return law;
}

static void assert_fits(const hf_poset *p, hf_method m, const double *law, const tu_collect *ext,
                        uint64_t seed, const char *what)
{
    uint64_t draws = 300 * (uint64_t)ext->m;
    draws = draws < 20000 ? 20000 : draws;
    tu_collect c = sample(p, m, 3, seed, draws);
    uint64_t *h = histogram(ext, &c);
    double chi;
    size_t df;
    double pv = tu_chisq_fit(h, law, ext->m, draws, &chi, &df);
    cr_log_info("%s %s: %zu extensions, chi-square %.1f, df %zu, p %.3g", hf_method_name(m), what,
                ext->m, chi, df, pv);
    cr_assert_geq(pv, 1e-4, "%s %s: chi-square %.1f with %zu degrees of freedom (p = %.3g)",
                  hf_method_name(m), what, chi, df, pv);
    free(h);
    free(c.rows);
}

Test(gen_sample, rw_and_random_follow_their_laws)
{
    uint64_t rng = 2024;
    for (unsigned i = 0; i < 12; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *p = tu_some_order(i, n, &rng);
        tu_collect ext = tu_all_extensions(p);
        double *law = rw_law(p, &ext);
        char what[32];
        snprintf(what, sizeof what, "order %u n=%u", i, n);
        assert_fits(p, HF_METHOD_RW, law, &ext, 100 + i, what);
        for (size_t s = 0; s < ext.m; s++)
            law[s] = 1.0 / (double)ext.m;
        assert_fits(p, HF_METHOD_RANDOM, law, &ext, 200 + i, what);
        free(law);
        free(ext.rows);
        hf_poset_free(p);
    }
}

/* The same statistic rejects a law that is slightly off: rw's samples against the uniform law
 * on an order where the two differ (an event beside a chain of three). */
Test(gen_sample, the_fit_test_rejects_another_law)
{
    const uint32_t e[][2] = {{0, 1}, {1, 2}};
    hf_poset *p = tu_poset(4, e, 2);
    tu_collect ext = tu_all_extensions(p);
    cr_assert_eq(ext.m, 4);
    double law[4] = {0.25, 0.25, 0.25, 0.25};
    tu_collect c = sample(p, HF_METHOD_RW, 2, 9, 20000);
    uint64_t *h = histogram(&ext, &c);
    cr_assert_lt(tu_chisq_fit(h, law, 4, 20000, NULL, NULL), 1e-4);
    free(h);
    free(c.rows);
    free(ext.rows);
    hf_poset_free(p);
}

/* pct's law on extensions, by the model */
typedef struct mass_of {
    const tu_collect *ext;
    double *mass;
} mass_of;

static void add_mass(void *user, const uint32_t *row, double w)
{
    mass_of *m = user;
    m->mass[find_row(m->ext, row)] += w;
}

Test(gen_sample, pct_follows_its_definition)
{
    uint64_t rng = 606;
    for (unsigned i = 0; i < 10; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *q = tu_some_order(i, n, &rng);
        labels lab;
        /* every event in a named thread: the threads are the test's */
        hf_poset *p = labelled(q, NULL, &rng, true, true, false, &lab);
        hf_poset_free(q);
        unsigned d = 2 + i % 2;
        hf_i_sampler *s;
        cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_PCT, d, 1, &s, NULL), HF_OK);
        const hf_i_chains *c = hf_i_sampler_pct_threads(s);
        /* the library's threads are the labels */
        for (uint32_t u = 0; u < n; u++)
            for (uint32_t v = 0; v < n; v++)
                cr_assert_eq(c->chain_of[u] == c->chain_of[v], lab.thread[u] == lab.thread[v]);
        bool *lt = tu_closure(p);
        tu_collect ext = tu_all_extensions(p);
        pct_model m;
        pct_model_of(&m, c, lt, n, d);
        if (m.k > 5) { /* keep the enumeration small */
            hf_i_sampler_free(s);
            free(lt);
            free(ext.rows);
            hf_poset_free(p);
            continue;
        }
        double *law = calloc(ext.m + 1, sizeof *law);
        bool used[32] = {0};
        mass_of mo = {&ext, law};
        pct_perms(&m, 0, used, 1.0, add_mass, &mo);
        char what[48];
        snprintf(what, sizeof what, "order %u n=%u k=%u d=%u", i, n, m.k, d);
        uint64_t draws = 30000;
        hf_gen_options opt = tu_gen_options(d, HF_METHOD_PCT, NULL, 0);
        opt.seed = 300 + i;
        tu_collect got = {n, 0, 0, NULL};
        cr_assert_eq(hf_i_sample_count(p, &opt, HF_METHOD_PCT, draws, tu_collect_sink(&got), NULL),
                     HF_OK);
        uint64_t *h = histogram(&ext, &got);
        double chi;
        size_t df;
        double pv = tu_chisq_fit(h, law, ext.m, draws, &chi, &df);
        cr_log_info("pct %s: chi-square %.1f df %zu p %.3g", what, chi, df, pv);
        cr_assert_geq(pv, 1e-4, "pct %s: chi-square %.1f, %zu df, p %.3g", what, chi, df, pv);
        free(h);
        free(got.rows);
        free(law);
        free(ext.rows);
        free(lt);
        hf_i_sampler_free(s);
        hf_poset_free(p);
    }
}

/* PCT's guarantee, checked exactly: with k threads, n events and d - 1 change points, every
 * admissible d-tuple is hit with probability at least 1 / (k n^(d-1)). */
typedef struct tuple_mass {
    uint32_t n;
    unsigned d;
    const bool *lt;
    double *mass; /* n^d, by tuple in base n */
} tuple_mass;

static void add_tuples(void *user, const uint32_t *row, double w)
{
    tuple_mass *t = user;
    uint32_t n = t->n, pos[32];
    for (uint32_t i = 0; i < n; i++)
        pos[row[i]] = i;
    /* every d-tuple in schedule order: choose positions i1 < ... < id */
    uint32_t idx[8];
    for (unsigned j = 0; j < t->d; j++)
        idx[j] = j;
    for (;;) {
        size_t key = 0;
        for (unsigned j = 0; j < t->d; j++)
            key = key * n + row[idx[j]];
        t->mass[key] += w;
        int j = (int)t->d - 1;
        while (j >= 0 && idx[j] == n - t->d + (unsigned)j)
            j--;
        if (j < 0)
            break;
        idx[j]++;
        for (unsigned l = (unsigned)j + 1; l < t->d; l++)
            idx[l] = idx[l - 1] + 1;
    }
    (void)pos;
}

Test(gen_sample, pct_meets_its_bound_exactly)
{
    uint64_t rng = 4242;
    unsigned checked = 0;
    for (unsigned i = 0; i < 60; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *q = tu_some_order(i, n, &rng);
        labels lab;
        hf_poset *p = labelled(q, NULL, &rng, i % 4 == 0, false, false, &lab);
        hf_poset_free(q);
        unsigned d = 2 + i % 3;
        hf_i_sampler *s;
        cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_PCT, d, 1, &s, NULL), HF_OK);
        const hf_i_chains *c = hf_i_sampler_pct_threads(s);
        bool *lt = tu_closure(p);
        pct_model m;
        pct_model_of(&m, c, lt, n, d);
        if (m.k <= 5) {
            size_t cells = 1;
            for (unsigned j = 0; j < d; j++)
                cells *= n;
            tuple_mass t = {n, d, lt, calloc(cells, sizeof(double))};
            bool used[32] = {0};
            pct_perms(&m, 0, used, 1.0, add_tuples, &t);
            double bound = 1.0 / m.k;
            for (unsigned j = 1; j < d; j++)
                bound /= n;
            for (size_t key = 0; key < cells; key++) {
                uint32_t tup[8];
                size_t x = key;
                for (int j = (int)d - 1; j >= 0; j--) {
                    tup[j] = (uint32_t)(x % n);
                    x /= n;
                }
                bool distinct = true;
                for (unsigned a = 0; a < d; a++)
                    for (unsigned b = a + 1; b < d; b++)
                        distinct = distinct && tup[a] != tup[b];
                if (!distinct || !tu_admissible(lt, n, tup, d))
                    continue;
                cr_assert_geq(t.mass[key], bound * (1 - 1e-9),
                              "order %u: tuple hit with probability %g < 1/(k n^(d-1)) = %g", i,
                              t.mass[key], bound);
            }
            free(t.mass);
            checked++;
        }
        free(lt);
        hf_i_sampler_free(s);
        hf_poset_free(p);
    }
    cr_assert_geq(checked, 45);
}

/* POS as the paper states it: every event holds a uniform priority from the start; after each
 * step every event (run or not, enabled or not) that conflicts with the one run draws a new one.
 * basicpos: never. */
static void naive_pos(const hf_poset *p, const labels *lab, const bool *lt, bool refresh,
                      uint64_t *rng, uint32_t *out)
{
    uint32_t n = hf_poset_size(p);
    double pr[32];
    bool done[32] = {0};
    for (uint32_t v = 0; v < n; v++)
        pr[v] = (double)(tu_next(rng) >> 11);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t best = HF_NO_EVENT;
        for (uint32_t v = 0; v < n; v++) {
            bool en = !done[v];
            for (uint32_t u = 0; u < n && en; u++)
                en = done[u] || !lt[u * n + v];
            if (en && (best == HF_NO_EVENT || pr[v] > pr[best]))
                best = v;
        }
        done[best] = true;
        out[k] = best;
        if (refresh)
            for (uint32_t u = 0; u < n; u++)
                if (conflict(lab, lt, best, u))
                    pr[u] = (double)(tu_next(rng) >> 11);
    }
}

/* pos and basicpos against the paper's algorithm on p: a two-sample test on their laws over
 * the extensions (and pos against rw's law when there are no objects). */
static void compare_with_paper(const hf_poset *p, const labels *lab, uint64_t seed,
                               const char *what)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    tu_collect ext = tu_all_extensions(p);
    for (int basic = 0; basic < 2; basic++) {
        hf_method m = basic ? HF_METHOD_BASICPOS : HF_METHOD_POS;
        uint64_t draws = 30000;
        tu_collect got = sample(p, m, 2, 500 + seed, draws);
        tu_collect ref = {n, 0, 0, NULL};
        uint32_t row[32];
        uint64_t r = 900 + seed;
        for (uint64_t s = 0; s < draws; s++) {
            naive_pos(p, lab, lt, !basic, &r, row);
            tu_collect_put(&ref, row, n);
        }
        uint64_t *a = histogram(&ext, &got), *b = histogram(&ext, &ref);
        double chi;
        size_t df;
        double pv = tu_chisq_two(a, b, ext.m, &chi, &df);
        cr_log_info("%s %s n=%u: %zu extensions, chi-square %.1f df %zu p %.3g", hf_method_name(m),
                    what, n, ext.m, chi, df, pv);
        cr_assert_geq(pv, 1e-4, "%s %s: chi-square %.1f, %zu df, p %.3g", hf_method_name(m), what,
                      chi, df, pv);
        free(a);
        free(b);
        free(got.rows);
        free(ref.rows);
    }
    /* without objects pos is rw */
    if (!lab->any_obj) {
        double *law = rw_law(p, &ext);
        assert_fits(p, HF_METHOD_POS, law, &ext, 700 + seed, "without objects");
        free(law);
    }
    free(ext.rows);
    free(lt);
}

/* The order of the refresh test below: x written by w1 and w2 (w2 after r1), read by r1 and
 * r2; y written by y1 and read by y2; n1 touches nothing. */
static hf_poset *hand_built(labels *lab)
{
    const char *dot = "digraph { w1 [obj=x]; r1 [obj=x, access=r]; r2 [obj=x, access=r]; "
                      "y1 [obj=y]; y2 [obj=y, access=r]; n1; w2 [obj=x]; r1 -> w2 }";
    hf_poset *p;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, dot, strlen(dot), &p, &err), HF_OK, "%s", err.text);
    static const uint32_t e[][2] = {{1, 6}};
    tu_register_edges(p, e, 1);
    memset(lab, 0, sizeof *lab);
    lab->n = 7;
    lab->any_obj = true;
    const uint32_t obj[] = {0, 0, 0, 1, 1, HF_NO_EVENT, 0};
    const bool wr[] = {true, false, false, true, false, false, true};
    for (uint32_t v = 0; v < 7; v++) {
        lab->obj[v] = obj[v];
        lab->write[v] = wr[v];
        lab->thread[v] = HF_NO_EVENT;
    }
    return p;
}

Test(gen_sample, pos_and_basicpos_follow_the_paper)
{
    uint64_t rng = 8080;
    for (unsigned i = 0; i < 16; i++) {
        uint32_t n = 4 + tu_below(&rng, 3);
        hf_poset *q = tu_some_order(i, n, &rng);
        labels lab;
        hf_poset *p = labelled(q, NULL, &rng, false, false, i % 4 != 3, &lab);
        hf_poset_free(q);
        char what[32];
        snprintf(what, sizeof what, "order %u", i);
        compare_with_paper(p, &lab, i, what);
        hf_poset_free(p);
    }
    /* one order where refreshes happen at almost every step, and pos and basicpos differ */
    labels lab;
    hf_poset *p = hand_built(&lab);
    compare_with_paper(p, &lab, 99, "by hand");
    tu_collect a = sample(p, HF_METHOD_POS, 2, 1, 30000),
               b = sample(p, HF_METHOD_BASICPOS, 2, 1, 30000);
    tu_collect ext = tu_all_extensions(p);
    uint64_t *ha = histogram(&ext, &a), *hb = histogram(&ext, &b);
    cr_assert_lt(tu_chisq_two(ha, hb, ext.m, NULL, NULL), 1e-4, "pos and basicpos agree");
    free(ha);
    free(hb);
    free(a.rows);
    free(b.rows);
    free(ext.rows);
    hf_poset_free(p);
}

/* ---- pos's refresh ---- */

typedef struct refresh_log {
    uint32_t executed[4096], event[4096];
    size_t count;
    unsigned calls;
} refresh_log;

static void on_refresh(void *user, uint32_t executed, const uint32_t *events, uint32_t count)
{
    refresh_log *l = user;
    cr_assert_gt(count, 0);
    l->calls++;
    for (uint32_t i = 0; i < count; i++) {
        cr_assert_lt(l->count, 4096);
        l->executed[l->count] = executed;
        l->event[l->count++] = events[i];
    }
}

/* The events refreshed after each step are exactly the enabled ones that conflict with the
 * event run. */
static void assert_refreshes(const hf_poset *p, const labels *lab, hf_i_sampler *s,
                             unsigned schedules)
{
    uint32_t n = hf_poset_size(p);
    bool *lt = tu_closure(p);
    refresh_log *log = calloc(1, sizeof *log);
    hf_i_sampler_on_refresh(s, on_refresh, log);
    for (unsigned k = 0; k < schedules; k++) {
        uint32_t row[32];
        log->count = 0;
        cr_assert_eq(hf_i_sampler_next(s, row), HF_OK);
        bool done[32] = {0};
        for (uint32_t step = 0; step < n; step++) {
            uint32_t e = row[step];
            bool want[32] = {0}, got[32] = {0};
            for (uint32_t u = 0; u < n; u++) {
                bool en = !done[u] && u != e;
                for (uint32_t w = 0; w < n && en; w++)
                    en = done[w] || !lt[w * n + u];
                want[u] = en && conflict(lab, lt, e, u);
            }
            for (size_t i = 0; i < log->count; i++)
                if (log->executed[i] == e) {
                    cr_assert_not(got[log->event[i]], "an event refreshed twice in one step");
                    got[log->event[i]] = true;
                }
            for (uint32_t u = 0; u < n; u++)
                cr_assert_eq(got[u], want[u], "step %u (%s run): event %s %s", step,
                             hf_poset_name(p, e), hf_poset_name(p, u),
                             want[u] ? "not refreshed" : "refreshed without a conflict");
            done[e] = true;
        }
    }
    hf_i_sampler_on_refresh(s, NULL, NULL);
    free(log);
    free(lt);
}

Test(gen_sample, pos_refreshes_exactly_the_conflicting_enabled_events)
{
    labels lab;
    hf_poset *p = hand_built(&lab);
    /* the first step, for each possible first event: who is refreshed */
    const char *const expect[7] = {"r1 r2 ", "w1 ", "w1 ", "y2 ", "y1 ", "", NULL};
    bool seen[7] = {0};
    for (uint64_t seed = 0; seed < 400; seed++) {
        hf_i_sampler *s;
        cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_POS, 2, seed, &s, NULL), HF_OK);
        refresh_log *log = calloc(1, sizeof *log);
        hf_i_sampler_on_refresh(s, on_refresh, log);
        uint32_t row[7];
        cr_assert_eq(hf_i_sampler_next(s, row), HF_OK);
        char names[64] = "";
        bool refreshed[7] = {0};
        for (size_t i = 0; i < log->count; i++)
            if (log->executed[i] == row[0])
                refreshed[log->event[i]] = true;
        for (uint32_t v = 0; v < 7; v++)
            if (refreshed[v]) {
                strcat(names, hf_poset_name(p, v));
                strcat(names, " ");
            }
        cr_assert_not_null(expect[row[0]]);
        cr_assert_str_eq(names, expect[row[0]], "first event %s", hf_poset_name(p, row[0]));
        seen[row[0]] = true;
        free(log);
        hf_i_sampler_on_refresh(s, NULL, NULL);
        assert_refreshes(p, &lab, s, 5);
        hf_i_sampler_free(s);
    }
    for (uint32_t v = 0; v < 6; v++)
        cr_assert(seen[v], "no seed started with %s", hf_poset_name(p, v));
    hf_poset_free(p);

    /* random labelled orders, and orders without objects (every unordered pair conflicts) */
    uint64_t rng = 12;
    for (unsigned i = 0; i < 60; i++) {
        uint32_t n = 2 + tu_below(&rng, 11);
        hf_poset *q = tu_some_order(i, n, &rng);
        labels l2;
        hf_poset *r = labelled(q, NULL, &rng, false, false, i % 3 != 0, &l2);
        hf_poset_free(q);
        hf_i_sampler *s;
        cr_assert_eq(hf_i_sampler_new(r, HF_METHOD_POS, 2, i, &s, NULL), HF_OK);
        assert_refreshes(r, &l2, s, 20);
        hf_i_sampler_free(s);
        /* basicpos never refreshes */
        cr_assert_eq(hf_i_sampler_new(r, HF_METHOD_BASICPOS, 2, i, &s, NULL), HF_OK);
        refresh_log *log = calloc(1, sizeof *log);
        hf_i_sampler_on_refresh(s, on_refresh, log);
        uint32_t row[32];
        for (int k = 0; k < 10; k++)
            cr_assert_eq(hf_i_sampler_next(s, row), HF_OK);
        cr_assert_eq(log->calls, 0);
        free(log);
        hf_i_sampler_free(s);
        hf_poset_free(r);
    }
}

/* ---- pct's threads ---- */

/* The width of the events `in` (a bitmask) by brute force over their subsets. */
static uint32_t width(const bool *lt, uint32_t n, uint32_t in)
{
    uint32_t best = 0;
    for (uint32_t set = in;; set = (set - 1) & in) {
        uint32_t size = 0;
        bool anti = true;
        for (uint32_t a = 0; a < n && anti; a++)
            if (set >> a & 1u) {
                size++;
                for (uint32_t b = 0; b < n && anti; b++)
                    anti = !(set >> b & 1u) || !lt[a * n + b];
            }
        if (anti && size > best)
            best = size;
        if (set == 0)
            break;
    }
    return best;
}

Test(gen_sample, pct_threads_are_the_labels_then_a_minimum_decomposition)
{
    uint64_t rng = 99;
    for (unsigned i = 0; i < 120; i++) {
        uint32_t n = 1 + tu_below(&rng, 12);
        hf_poset *q = tu_some_order(i, n, &rng);
        labels lab;
        int mode = i % 3; /* 0: no labels, 1: some events labelled, 2: all labelled */
        hf_poset *p = labelled(q, NULL, &rng, mode > 0, mode == 2, false, &lab);
        hf_poset_free(q);
        bool *lt = tu_closure(p);
        hf_i_sampler *s;
        cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_PCT, 3, 1, &s, NULL), HF_OK);
        const hf_i_chains *c = hf_i_sampler_pct_threads(s);
        cr_assert_eq(c->off[c->count], n);
        uint32_t seen = 0, labelled_count = 0, unlabelled = 0, names = 0;
        for (uint32_t v = 0; v < n; v++) {
            if (lab.thread[v] == HF_NO_EVENT)
                unlabelled |= 1u << v;
            else
                names = lab.thread[v] + 1 > names ? lab.thread[v] + 1 : names;
        }
        for (uint32_t t = 0; t < c->count; t++) {
            cr_assert_lt(c->off[t], c->off[t + 1], "an empty thread");
            bool named = lab.thread[c->ev[c->off[t]]] != HF_NO_EVENT;
            cr_assert_eq(named, t < c->threads, "named threads come first");
            labelled_count += named;
            for (uint32_t j = c->off[t]; j < c->off[t + 1]; j++) {
                uint32_t v = c->ev[j];
                cr_assert_eq(c->chain_of[v], t);
                seen |= 1u << v;
                /* one label per thread, and unlabelled events only with unlabelled ones */
                cr_assert_eq(lab.thread[v], lab.thread[c->ev[c->off[t]]]);
                if (j > c->off[t])
                    cr_assert(lt[c->ev[j - 1] * n + v], "a thread out of order");
            }
        }
        cr_assert_eq(seen, n == 32 ? UINT32_MAX : (1u << n) - 1);
        /* each label one thread; the unlabelled events in as few chains as possible */
        cr_assert_eq(labelled_count, names);
        cr_assert_eq(c->count - c->threads, unlabelled ? width(lt, n, unlabelled) : 0,
                     "order %u: %u unlabelled chains", i, c->count - c->threads);
        free(lt);
        hf_i_sampler_free(s);
        hf_poset_free(p);
    }
}

/* ---- the exponential variates ---- */

Test(gen_sample, exponential_variates)
{
    hf_i_rng r;
    hf_i_rng_seed(&r, 5);
    double sum = 0, sq = 0, above1 = 0;
    const int N = 200000;
    for (int i = 0; i < N; i++) {
        double x = hf_i_rng_exp(&r);
        cr_assert_geq(x, 0);
        sum += x;
        sq += x * x;
        above1 += x > 1;
    }
    double mean = sum / N, var = sq / N - mean * mean;
    /* mean 1 and variance 1: standard errors 0.0022 and about 0.0045 */
    cr_assert(fabs(mean - 1) < 0.012, "mean %f", mean);
    cr_assert(fabs(var - 1) < 0.04, "variance %f", var);
    cr_assert(fabs(above1 / N - exp(-1.0)) < 0.005, "P(X > 1) = %f", above1 / N);
}

/* ---- allocation failures and bad input ---- */

Test(gen_sample, allocation_failures)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    long base = chaos.live;
    uint64_t rng = 3;
    hf_poset *q = tu_random_dag(9, 1, 3, &rng);
    labels lab;
    hf_poset *p = labelled(q, ctx, &rng, true, false, true, &lab);
    hf_poset_free(q);
    for (size_t k = 0; k < N_SAMPLERS; k++)
        for (int until = 0; until < 2; until++) {
            hf_gen_options opt = tu_gen_options(2, samplers[k], NULL, 0);
            opt.seed = 4;
            opt.count = until ? 0 : 6;
            tu_collect want = {9, 0, 0, NULL};
            cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&want), NULL, NULL), HF_OK);
            bool done = false;
            for (long a = 0; !done; a++) {
                tu_collect got = {9, 0, 0, NULL};
                long live = chaos.live;
                chaos.left = a;
                chaos.once = false;
                hf_error err;
                hf_status st = hf_generate(p, &opt, tu_collect_sink(&got), NULL, &err);
                chaos.left = -1;
                cr_assert_eq(chaos.live, live, "%s: leak after failing allocation %ld",
                             hf_method_name(samplers[k]), a);
                if (st == HF_OK) {
                    cr_assert_eq(got.m, want.m);
                    cr_assert_eq(memcmp(got.rows, want.rows, want.m * 9 * sizeof *want.rows), 0);
                    done = true;
                } else {
                    cr_assert_eq(st, HF_ENOMEM, "%s allocation %ld: %s",
                                 hf_method_name(samplers[k]), a, err.text);
                    cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
                }
                free(got.rows);
            }
            free(want.rows);
        }
    hf_poset_free(p);
    cr_assert_eq(chaos.live, base);
    hf_ctx_free(ctx);
}

Test(gen_sample, names_and_bad_input)
{
    static const char *const names[] = {"rw", "pct", "pos", "basicpos"};
    for (int i = 0; i < 4; i++) {
        hf_method m;
        cr_assert_eq(hf_method_from_name(names[i], &m), HF_OK);
        cr_assert_eq((int)m, 10 + i);
        cr_assert_str_eq(hf_method_name(m), names[i]);
        cr_assert(hf_method_is_sampler(m));
        cr_assert(hf_method_predict_runs(m));
    }
    cr_assert(hf_method_is_sampler(HF_METHOD_RANDOM));
    cr_assert_not(hf_method_is_sampler(HF_METHOD_GREEDY));
    cr_assert_not(hf_method_is_sampler(HF_METHOD_AUTO));
    cr_assert_null(hf_method_name((hf_method)14));

    hf_poset *p = tu_antichain(5);
    hf_error err;
    hf_gen_options opt = tu_gen_options(2, HF_METHOD_PCT, NULL, 0);
    tu_collect c = {5, 0, 0, NULL};
    /* d out of range */
    opt.d = 0;
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, &err), HF_EINVAL);
    opt.d = 9;
    opt.count = 3;
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "between 1 and 8"), "%s", err.text);
    /* d = 8 with a count: fine; until covered: beyond the coverage bookkeeping */
    opt.d = 8;
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(c.m, 3);
    opt.count = 0;
    opt.d = 5;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "method pct tracks coverage"), "%s", err.text);
    /* a count with a method that is not a sampler, and with auto */
    opt.d = 2;
    opt.count = 3;
    opt.method = HF_METHOD_CHAINS;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "sampling methods only"), "%s", err.text);
    opt.method = HF_METHOD_AUTO;
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, &err), HF_EINVAL);
    /* auto never picks a sampler */
    opt.count = 0;
    hf_method used;
    cr_assert_eq(hf_method_predict(p, &opt, &(uint64_t){0}, &used, &err), HF_OK);
    cr_assert_not(hf_method_is_sampler(used));
    /* the internal stream refuses what is not a sampler */
    hf_i_sampler *s;
    cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_DFS, 2, 0, &s, NULL), HF_EINVAL);
    cr_assert_eq(hf_i_sampler_new(p, HF_METHOD_RW, 0, 0, &s, NULL), HF_EINVAL);
    free(c.rows);
    hf_poset_free(p);

    /* pct refuses a named thread that is not a chain */
    const char *dot = "digraph { s -> a; s -> b; a [thread=w]; b [thread=w] }";
    cr_assert_eq(hf_dot_read_mem(NULL, dot, strlen(dot), &p, &err), HF_OK);
    opt = tu_gen_options(3, HF_METHOD_PCT, NULL, 0);
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "thread w is not a chain: its events a and b are not ordered"), "%s",
              err.text);
    opt.method = HF_METHOD_POS; /* threads mean nothing to pos */
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_OK, "%s", err.text);
    hf_poset_free(p);

    /* no events: one empty schedule per count */
    p = tu_antichain(0);
    for (size_t k = 0; k < N_SAMPLERS; k++) {
        tu_collect e = sample(p, samplers[k], 2, 1, 2);
        free(e.rows);
    }
    hf_poset_free(p);
}
