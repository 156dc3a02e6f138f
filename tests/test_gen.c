/* Tests of the registry across methods: on every rooted tree shape up to 8 events (as a tree,
 * a forest and an in-forest) and on random trees of several shape families, every applicable
 * method's family is checked by the project's verifier, its size equals its exact prediction,
 * and auto picks the smallest. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "util.h"

TU_SUITE(gen_all);

/* the methods auto weighs on forests (scramble: when the focus events are incomparable) */
static const hf_method tree_methods[] = {HF_METHOD_DFS, HF_METHOD_SIMPLE, HF_METHOD_DOUBLETREE,
                                         HF_METHOD_PATTERN, HF_METHOD_SCRAMBLE};

/* Generate with `method` (if it applies), verify, and compare with the prediction. Returns the
 * size, or 0 if the method does not apply. */
static uint64_t run_method(const hf_poset *p, unsigned d, hf_method method, const uint32_t *focus,
                           size_t fc, hf_method *method_used)
{
    hf_gen_options opt = tu_gen_options(d, method, focus, fc);
    hf_error err;
    if (hf_method_check(p, &opt, &err) != HF_OK)
        return 0;
    /* auto's prediction reruns exact's budgeted search on small orders (a second time, as
     * generating does): it is compared with the family on orders of up to 6 events; beyond,
     * the size auto announces before the first schedule is */
    bool predict = method != HF_METHOD_AUTO || hf_poset_size(p) <= 6;
    uint64_t predicted = 0;
    hf_method chosen = HF_METHOD_AUTO;
    if (predict)
        cr_assert_eq(hf_method_predict(p, &opt, &predicted, &chosen, &err), HF_OK, "%s", err.text);
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    hf_method used;
    hf_gen_info info;
    cr_assert_eq(hf_generate_ex(p, &opt, NULL, NULL, hf_family_sink(f), &info, &err), HF_OK, "%s",
                 err.text);
    used = info.method;
    if (predict) {
        cr_assert_eq(used, chosen);
    } else {
        cr_assert(info.schedules_known, "auto announced no size");
        predicted = info.schedules;
    }
    if (method_used)
        *method_used = used;
    cr_assert_eq(hf_family_size(f), predicted, "%s: predicted %llu, emitted %zu",
                 hf_method_name(used), (unsigned long long)predicted, hf_family_size(f));
    hf_verify_options vo = {.d = d, .focus = focus, .focus_count = fc};
    hf_verify_result res;
    cr_assert_eq(hf_verify(p, f, &vo, &res, &err), HF_OK, "%s: %s", hf_method_name(used), err.text);
    cr_assert(res.hitting, "%s family of %u events is not %u-hitting: (%u %u %u ...)",
              hf_method_name(used), hf_poset_size(p), d, res.witness[0], res.witness[1],
              res.witness[2]);
    hf_family_free(f);
    return predicted;
}

/* auto equals the smallest tree method, unless greedy or exact (weighed on small orders) is
 * smaller still; then it is exactly greedy's family, or exact's (checked in test_gen_exact.c) */
static void check_all(const hf_poset *p, unsigned d, const uint32_t *focus, size_t fc)
{
    uint64_t best = 0;
    for (size_t i = 0; i < sizeof tree_methods / sizeof *tree_methods; i++) {
        uint64_t s = run_method(p, d, tree_methods[i], focus, fc, NULL);
        /* auto leaves pattern out for d = 3 (lib/gen.c) */
        if (s && (!best || s < best) && !(tree_methods[i] == HF_METHOD_PATTERN && d == 3))
            best = s;
    }
    hf_method used;
    uint64_t a = run_method(p, d, HF_METHOD_AUTO, focus, fc, &used);
    if (used == HF_METHOD_EXACT) { /* exact is auto's choice only when it is smaller */
        cr_assert_lt(a, best, "auto took exact's %llu over %llu", (unsigned long long)a,
                     (unsigned long long)best);
    } else if (used == HF_METHOD_GREEDY) {
        cr_assert_lt(a, best, "auto took greedy's %llu over %llu", (unsigned long long)a,
                     (unsigned long long)best);
        cr_assert_eq(run_method(p, d, HF_METHOD_GREEDY, focus, fc, NULL), a);
    } else {
        cr_assert_eq(a, best, "auto gave %llu, best method %llu", (unsigned long long)a,
                     (unsigned long long)best);
    }
}

static void shape_d3(const uint32_t *parent, uint32_t n)
{
    for (int form = 0; form < 3; form++) {
        uint32_t par[16];
        memcpy(par, parent, n * sizeof *par);
        if (form == 1) /* a forest: drop the root's edges */
            for (uint32_t v = 0; v < n; v++)
                if (par[v] == 0)
                    par[v] = HF_NO_EVENT;
        hf_poset *p = tu_parents_poset(par, n, form == 2);
        check_all(p, 3, NULL, 0);
        hf_poset_free(p);
    }
}

Test(gen_all, every_tree_up_to_8_events_d3)
{
    for (uint32_t n = 1; n <= 8; n++) {
        /* canonical level sequences l[0] = 0, 1 <= l[i] <= l[i-1] + 1, from all ones */
        uint32_t lv[16];
        lv[0] = 0;
        for (uint32_t i = 1; i < n; i++)
            lv[i] = 1;
        for (;;) {
            uint32_t parent[16], last[16];
            for (uint32_t i = 0; i < n; i++) {
                last[lv[i]] = i;
                parent[i] = lv[i] ? last[lv[i] - 1] : HF_NO_EVENT;
            }
            shape_d3(parent, n);
            int i = (int)n - 1;
            while (i >= 1 && lv[i] == lv[i - 1] + 1)
                i--;
            if (i < 1)
                break;
            lv[i]++;
            for (uint32_t j = (uint32_t)i + 1; j < n; j++)
                lv[j] = 1;
        }
    }
}

Test(gen_all, random_trees_of_every_family)
{
    uint64_t rng = 41;
    for (int iter = 0; iter < 120; iter++) {
        uint32_t n = 2 + tu_below(&rng, 150);
        uint32_t *parent = malloc(n * sizeof *parent);
        parent[0] = HF_NO_EVENT;
        int family = iter % 6;
        for (uint32_t v = 1; v < n; v++) {
            switch (family) {
            case 0:
                parent[v] = (v - 1) / 2;
                break; /* balanced */
            case 1:
                parent[v] = tu_below(&rng, v);
                break; /* recursive */
            case 2:
                parent[v] = v % 3 == 0 ? v - 1 : (v / 3) * 3;
                break; /* caterpillar */
            case 3:
                parent[v] = 0;
                break; /* star */
            case 4:
                parent[v] = tu_below(&rng, 8) ? v - 1 : tu_below(&rng, v);
                break; /* deep */
            default:
                parent[v] = tu_below(&rng, v < 6 ? v : 6);
                break; /* wide, shallow */
            }
        }
        hf_poset *p = tu_parents_poset(parent, n, iter % 5 == 4);
        check_all(p, 3, NULL, 0);
        if (n <= 40)
            check_all(p, 4, NULL, 0);
        /* a random focus set */
        uint32_t *focus = malloc(n * sizeof *focus);
        size_t fc = 0;
        for (uint32_t v = 0; v < n; v++)
            if (tu_below(&rng, 4) == 0)
                focus[fc++] = v;
        check_all(p, 3, focus, fc);
        free(focus);
        free(parent);
        hf_poset_free(p);
    }
}

/* Random forests up to the size on which auto runs greedy (32 events at d = 3, 9 at d = 4):
 * auto never gives more schedules than the tree methods (check_all), and takes greedy's family
 * where it is smaller. */
Test(gen_all, random_small_forests_against_the_tree_methods)
{
    uint64_t rng = 1613;
    for (int iter = 0; iter < 24; iter++) {
        uint32_t n = iter < 16 ? 9 + (uint32_t)iter % 8 : 17 + 2 * (uint32_t)(iter - 16),
                 parent[32];
        parent[0] = HF_NO_EVENT;
        for (uint32_t v = 1; v < n; v++)
            parent[v] = iter % 3 == 0   ? tu_below(&rng, v)
                        : iter % 3 == 1 ? tu_below(&rng, v < 3 ? v : 3)
                                        : (tu_below(&rng, 4) ? HF_NO_EVENT : tu_below(&rng, v));
        hf_poset *p = tu_parents_poset(parent, n, iter % 4 == 3);
        check_all(p, 3, NULL, 0);
        if (n <= 9)
            check_all(p, 4, NULL, 0);
        hf_poset_free(p);
    }
}

/* On a small random tree auto takes greedy's family, smaller than every tree method's, and the
 * same rows for the same seed. */
Test(gen_all, auto_takes_greedy_on_a_small_tree)
{
    uint64_t rng = 12;
    uint32_t parent[14];
    parent[0] = HF_NO_EVENT;
    for (uint32_t v = 1; v < 14; v++)
        parent[v] = tu_below(&rng, v);
    hf_poset *p = tu_parents_poset(parent, 14, false);
    hf_gen_options opt = tu_gen_options(3, HF_METHOD_AUTO, NULL, 0);
    opt.seed = 5;
    hf_family *f[2];
    hf_method used[2];
    hf_error err;
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(hf_family_new(NULL, 14, &f[k]), HF_OK);
        cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f[k]), &used[k], &err), HF_OK, "%s",
                     err.text);
        cr_assert_eq(used[k], HF_METHOD_GREEDY, "auto took %s", hf_method_name(used[k]));
    }
    cr_assert_eq(hf_family_size(f[0]), hf_family_size(f[1]));
    for (size_t i = 0; i < hf_family_size(f[0]); i++)
        cr_assert(memcmp(hf_family_schedule(f[0], i), hf_family_schedule(f[1], i),
                         14 * sizeof(uint32_t)) == 0,
                  "two runs with the same seed differ at schedule %zu", i);
    uint64_t dt = run_method(p, 3, HF_METHOD_DOUBLETREE, NULL, 0, NULL);
    cr_assert_lt(hf_family_size(f[0]), dt);
    hf_family_free(f[0]);
    hf_family_free(f[1]);
    hf_poset_free(p);
}

/* The method auto uses on a random recursive tree of n events at d. */
static hf_method auto_method(uint32_t n, unsigned d, uint64_t seed)
{
    uint64_t rng = seed;
    uint32_t parent[64];
    cr_assert(n <= 64);
    parent[0] = HF_NO_EVENT;
    for (uint32_t v = 1; v < n; v++)
        parent[v] = tu_below(&rng, v);
    hf_poset *p = tu_parents_poset(parent, n, false);
    hf_gen_options opt = tu_gen_options(d, HF_METHOD_AUTO, NULL, 0);
    hf_family *f;
    hf_method used;
    hf_error err;
    cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
    cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f), &used, &err), HF_OK, "%s", err.text);
    hf_family_free(f);
    hf_poset_free(p);
    return used;
}

/* auto weighs greedy on forests of up to 32 events at d = 3 and 9 at d = 4, where it is well
 * below the tree methods on random recursive trees, and leaves it to --method beyond. */
Test(gen_all, auto_weighs_greedy_on_forests_within_its_limits)
{
    for (uint64_t seed = 1; seed <= 2; seed++) {
        cr_assert_eq(auto_method(32, 3, seed), HF_METHOD_GREEDY);
        cr_assert_neq(auto_method(33, 3, seed), HF_METHOD_GREEDY);
        cr_assert_eq(auto_method(9, 4, seed), HF_METHOD_GREEDY);
        cr_assert_neq(auto_method(10, 4, seed), HF_METHOD_GREEDY);
    }
}

Test(gen_all, trees_of_about_a_thousand_events)
{
    uint64_t rng = 42;
    for (int family = 0; family < 6; family++) {
        uint32_t n = 700 + tu_below(&rng, 300);
        uint32_t *parent = malloc(n * sizeof *parent);
        parent[0] = HF_NO_EVENT;
        for (uint32_t v = 1; v < n; v++) {
            switch (family) {
            case 0:
                parent[v] = (v - 1) / 2;
                break;
            case 1:
                parent[v] = tu_below(&rng, v);
                break;
            case 2:
                parent[v] = v % 3 == 0 ? v - 1 : (v / 3) * 3;
                break;
            case 3:
                parent[v] = 0;
                break;
            case 4:
                parent[v] = tu_below(&rng, 8) ? v - 1 : tu_below(&rng, v);
                break;
            default:
                parent[v] = tu_below(&rng, v < 6 ? v : 6);
                break;
            }
        }
        hf_poset *p = tu_parents_poset(parent, n, family == 5);
        run_method(p, 3, HF_METHOD_DOUBLETREE, NULL, 0, NULL);
        free(parent);
        hf_poset_free(p);
    }
}

/* Option values out of range are refused before any method runs. */
Test(gen_all, bad_options_are_refused)
{
    hf_poset *p = tu_antichain(4);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    hf_error err;
    opt.pattern_mode = (hf_pattern_mode)3;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "pattern mode"), "%s", err.text);
    opt.pattern_mode = HF_PATTERN_CANONICAL;
    opt.method = (hf_method)99;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    opt.method = HF_METHOD_AUTO;
    opt.d = 0;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    opt.d = HF_MAX_D + 1;
    cr_assert_eq(hf_method_check(p, &opt, &err), HF_EINVAL);
    cr_assert(strstr(err.text, "between 1 and"), "%s", err.text);
    hf_poset_free(p);
}

typedef struct announce {
    int calls;
    hf_gen_info info;
    size_t seen_before; /* schedules received before the announcement (must be 0) */
    tu_collect *c;
    hf_status answer;
} announce;

static hf_status on_begin(void *user, const hf_gen_info *info)
{
    announce *a = user;
    a->calls++;
    a->info = *info;
    a->seen_before = a->c->m;
    return a->answer;
}

/* hf_generate_ex announces the method and, where it is known without a second run, the exact
 * size, before the first schedule; a begin that fails stops everything. */
Test(gen_all, generate_ex_announces_size_first)
{
    uint64_t rng = 77;
    const hf_method methods[] = {HF_METHOD_AUTO,   HF_METHOD_DFS,    HF_METHOD_DOUBLETREE,
                                 HF_METHOD_SIMPLE, HF_METHOD_GREEDY, HF_METHOD_RANDOM};
    for (unsigned i = 0; i < 40; i++) {
        hf_poset *p = tu_some_order(i, 3 + i % 9, &rng);
        for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
            hf_gen_options opt;
            hf_gen_options_init(&opt);
            opt.d = methods[k] == HF_METHOD_DFS ? 2 : 3;
            opt.method = methods[k];
            if (methods[k] == HF_METHOD_RANDOM && i % 2)
                opt.count = 5;
            if (hf_method_check(p, &opt, NULL) != HF_OK)
                continue;
            tu_collect c = {hf_poset_size(p), 0, 0, NULL};
            announce a = {0, {HF_METHOD_AUTO, false, 0}, 0, &c, HF_OK};
            hf_gen_info info;
            hf_error err;
            cr_assert_eq(hf_generate_ex(p, &opt, on_begin, &a, tu_collect_sink(&c), &info, &err),
                         HF_OK, "%s", err.text);
            cr_assert_eq(a.calls, 1);
            cr_assert_eq(a.seen_before, 0);
            cr_assert_eq(info.method, a.info.method);
            cr_assert_neq(info.method, HF_METHOD_AUTO);
            if (methods[k] != HF_METHOD_AUTO)
                cr_assert_eq(info.method, methods[k]);
            bool runs = hf_method_predict_runs(methods[k]) && !opt.count;
            cr_assert_eq(info.schedules_known, !runs, "%s", hf_method_name(methods[k]));
            if (info.schedules_known)
                cr_assert_eq(info.schedules, c.m, "%s announced %llu, emitted %zu",
                             hf_method_name(info.method), (unsigned long long)info.schedules, c.m);
            cr_assert(tu_oracle_hitting(p, c.rows, c.m, opt.count ? 1 : opt.d, NULL));
            free(c.rows);
            /* a begin that refuses stops the generation before any schedule */
            tu_collect none = {hf_poset_size(p), 0, 0, NULL};
            announce stop = {0, {HF_METHOD_AUTO, false, 0}, 0, &none, HF_EIO};
            cr_assert_eq(
                hf_generate_ex(p, &opt, on_begin, &stop, tu_collect_sink(&none), NULL, NULL),
                HF_EIO);
            cr_assert_eq(none.m, 0);
            free(none.rows);
        }
        hf_poset_free(p);
    }
}

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

/* max_names: a family whose size is known is refused before its first schedule; one whose
 * size is known only by running it is stopped when it passes the limit; 0 lifts the limit. */
Test(gen_all, families_above_max_names_are_refused)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    cr_assert_eq(opt.max_names, HF_GEN_DEFAULT_MAX_NAMES);
    uint64_t rng = 9;
    hf_poset *p = tu_random_forest(60, 1, &rng);
    opt.d = 3;
    uint64_t size;
    hf_method chosen;
    cr_assert_eq(hf_method_predict(p, &opt, &size, &chosen, NULL), HF_OK);
    cr_assert_gt(size, 2);
    hf_method methods[] = {HF_METHOD_AUTO, HF_METHOD_DOUBLETREE, HF_METHOD_SIMPLE};
    for (size_t k = 0; k < 3; k++) {
        opt.method = methods[k];
        uint64_t want;
        cr_assert_eq(hf_method_predict(p, &opt, &want, NULL, NULL), HF_OK);
        /* exactly at the limit: generated; one name less: refused, nothing emitted */
        opt.max_names = want * 60;
        uint64_t got = 0;
        hf_error err;
        cr_assert_eq(hf_generate(p, &opt, (hf_sink){count_put, &got}, NULL, &err), HF_OK, "%s",
                     err.text);
        cr_assert_eq(got, want);
        opt.max_names = want * 60 - 1;
        got = 0;
        cr_assert_eq(hf_generate(p, &opt, (hf_sink){count_put, &got}, NULL, &err), HF_ETOOLARGE);
        cr_assert_eq(got, 0);
        cr_assert(strstr(err.text, "max_names") && strstr(err.text, "schedules of 60 events"), "%s",
                  err.text);
    }
    /* greedy's size is known only by running it: stopped as it passes the limit */
    opt.method = HF_METHOD_GREEDY;
    opt.max_names = 60 * 3;
    uint64_t got = 0;
    hf_error err;
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){count_put, &got}, NULL, &err), HF_ETOOLARGE);
    cr_assert_eq(got, 3);
    cr_assert(strstr(err.text, "max_names"), "%s", err.text);
    opt.max_names = 0;
    got = 0;
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){count_put, &got}, NULL, &err), HF_OK);
    cr_assert_gt(got, 3);
    hf_poset_free(p);

    /* a size past 2^64 is refused by its order of magnitude */
    p = tu_antichain(200);
    hf_gen_options_init(&opt);
    opt.d = 8;
    opt.method = HF_METHOD_CHAINS;
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){count_put, &got}, NULL, &err), HF_ETOOLARGE);
    hf_poset_free(p);
}
