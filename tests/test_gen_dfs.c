/* Tests of the d <= 2 DFS family and the method registry: every family is checked by a
 * brute-force pair oracle written here, on forests, in-forests and trees of any degree. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "hitfam/count.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(gen);
TU_SUITE(gen_dfs);

/* Brute force: every schedule a linear extension, every admissible pair (incomparable pairs in
 * both orders, comparable ones in their order) hit. Returns the number of schedules. */
static size_t check_2_hitting(const hf_poset *p, const hf_family *f, unsigned d)
{
    uint32_t n = hf_poset_size(p);
    size_t m = hf_family_size(f);
    bool *lt = tu_closure(p);
    uint32_t *pos = malloc((m * n + 1) * sizeof *pos);
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = hf_family_schedule(f, s);
        bool *seen = calloc(n + 1, 1);
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_lt(row[i], n);
            cr_assert_not(seen[row[i]], "schedule %zu repeats event %u at %u", s, row[i], i);
            seen[row[i]] = true;
            pos[s * n + row[i]] = i;
        }
        free(seen);
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                if (lt[(size_t)a * n + b])
                    cr_assert_lt(pos[s * n + a], pos[s * n + b], "schedule %zu breaks %u<%u", s, a,
                                 b);
    }
    if (d >= 2)
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++) {
                if (a == b || lt[(size_t)b * n + a])
                    continue;
                bool hit = false;
                for (size_t s = 0; s < m && !hit; s++)
                    hit = pos[s * n + a] < pos[s * n + b];
                cr_assert(hit, "pair (%u,%u) not hit", a, b);
            }
    if (n > 0)
        cr_assert_geq(m, 1);
    free(pos);
    free(lt);
    return m;
}

static hf_family *generate(const hf_poset *p, unsigned d, hf_method method, hf_method *used)
{
    hf_family *f;
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &f), HF_OK);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = method;
    hf_error err;
    hf_status st = hf_generate(p, &opt, hf_family_sink(f), used, &err);
    cr_assert_eq(st, HF_OK, "generate: %s", err.text);
    uint64_t predicted = 0;
    cr_assert_eq(hf_method_predict(p, &opt, &predicted, NULL, &err), HF_OK);
    cr_assert_eq(predicted, hf_family_size(f), "predicted %llu, got %zu",
                 (unsigned long long)predicted, hf_family_size(f));
    return f;
}

Test(gen_dfs, forests_inforests_and_any_degree_trees)
{
    uint64_t rng = 21;
    for (int iter = 0; iter < 600; iter++) {
        uint32_t n = tu_below(&rng, 24);
        uint32_t roots = 1 + tu_below(&rng, 4);
        hf_poset *p =
            iter % 3 == 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        hf_method used;
        hf_family *f = generate(p, 2, HF_METHOD_AUTO, &used);
        cr_assert_eq(used, HF_METHOD_DFS);
        size_t m = check_2_hitting(p, f, 2);
        bool chain = hf_poset_shape(p) & HF_SHAPE_CHAIN;
        cr_assert_eq(m, chain ? 1u : 2u, "n=%u chain=%d m=%zu", n, chain, m);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

Test(gen_dfs, named_shapes)
{
    hf_poset *ps[] = {tu_complete_binary(4),
                      tu_chain(7),
                      tu_antichain(6),
                      tu_chain(1),
                      tu_tree_from_levels("0111111"),
                      tu_tree_from_levels("0123321")};
    size_t want[] = {2, 1, 2, 1, 2, 2};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        hf_family *f = generate(ps[i], 2, HF_METHOD_DFS, NULL);
        cr_assert_eq(check_2_hitting(ps[i], f, 2), want[i]);
        hf_family_free(f);
        hf_poset_free(ps[i]);
    }
}

Test(gen_dfs, preorders_follow_child_order)
{
    /* root 0 with children 1 (which has child 3) and 2 */
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}};
    hf_poset *p = tu_poset(4, e, 3);
    hf_family *f = generate(p, 2, HF_METHOD_DFS, NULL);
    const uint32_t lambda[] = {0, 1, 3, 2}, rho[] = {0, 2, 1, 3};
    cr_assert_arr_eq(hf_family_schedule(f, 0), lambda, sizeof lambda);
    cr_assert_arr_eq(hf_family_schedule(f, 1), rho, sizeof rho);
    hf_family_free(f);
    hf_poset_free(p);
    /* the in-forest dual: schedules are reversed preorders of the reversed tree */
    const uint32_t r[][2] = {{1, 0}, {2, 0}, {3, 1}};
    p = tu_poset(4, r, 3);
    f = generate(p, 2, HF_METHOD_DFS, NULL);
    const uint32_t l2[] = {2, 3, 1, 0}, r2[] = {3, 1, 2, 0};
    cr_assert_arr_eq(hf_family_schedule(f, 0), l2, sizeof l2);
    cr_assert_arr_eq(hf_family_schedule(f, 1), r2, sizeof r2);
    check_2_hitting(p, f, 2);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(gen_dfs, d1_on_any_order_is_one_schedule)
{
    uint64_t rng = 22;
    for (int iter = 0; iter < 100; iter++) {
        hf_poset *p = tu_random_dag(tu_below(&rng, 12), 1, 3, &rng);
        hf_family *f = generate(p, 1, HF_METHOD_AUTO, NULL);
        cr_assert_eq(check_2_hitting(p, f, 1), 1);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* A sink that counts and checks schedules of a large tree in O(n) each. */
struct big_check {
    const hf_poset *p;
    uint32_t *pos;
    size_t count;
};
static hf_status big_put(void *user, const uint32_t *s, uint32_t n)
{
    struct big_check *c = user;
    for (uint32_t i = 0; i < n; i++)
        c->pos[s[i]] = i;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t par = hf_poset_parent(c->p, v);
        if (par != HF_NO_EVENT && c->pos[par] > c->pos[v])
            return HF_ESCHEDULE;
    }
    c->count++;
    return HF_OK;
}

Test(gen_dfs, a_million_events_stream)
{
    uint64_t rng = 23;
    hf_poset *p = tu_random_forest(1000000, 3, &rng);
    struct big_check c = {p, malloc(1000000 * sizeof(uint32_t)), 0};
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){big_put, &c}, NULL, NULL), HF_OK);
    cr_assert_eq(c.count, 2);
    free(c.pos);
    hf_poset_free(p);
}

static hf_status stop_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(int *)user;
    return HF_EABORTED;
}

Test(gen_dfs, a_sink_can_stop_the_generator)
{
    hf_poset *p = tu_complete_binary(3);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    int calls = 0;
    cr_assert_eq(hf_generate(p, &opt, (hf_sink){stop_put, &calls}, NULL, NULL), HF_EABORTED);
    cr_assert_eq(calls, 1);
    hf_poset_free(p);
}

Test(gen, method_names_round_trip)
{
    for (int m = HF_METHOD_AUTO; m <= HF_METHOD_GREEDY; m++) {
        const char *name = hf_method_name((hf_method)m);
        cr_assert_not_null(name);
        hf_method back;
        cr_assert_eq(hf_method_from_name(name, &back), HF_OK);
        cr_assert_eq((int)back, m);
    }
    hf_method back;
    cr_assert_eq(hf_method_from_name("quantum", &back), HF_ENOTFOUND);
    cr_assert_null(hf_method_name((hf_method)99));
}

Test(gen, refusals_say_why_and_what_to_use)
{
    hf_error err;
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    /* a diamond is no forest */
    const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    hf_poset *diamond = tu_poset(4, e, 4);
    /* auto falls back to greedy on a small general order ... */
    hf_method chosen;
    uint64_t size;
    cr_assert_eq(hf_method_predict(diamond, &opt, &size, &chosen, &err), HF_OK, "%s", err.text);
    cr_assert_eq(chosen, HF_METHOD_GREEDY);
    /* ... but not on a large one, and says what applies */
    hf_poset *big = tu_poset(400, e, 4);
    opt.d = 3;
    cr_assert_eq(hf_method_check(big, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "no method") && strstr(err.text, "random"), "%s", err.text);
    hf_poset_free(big);
    opt.d = 2;
    opt.method = HF_METHOD_DFS;
    cr_assert_eq(hf_method_check(diamond, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "forest"), "%s", err.text);
    hf_poset *tree = tu_complete_binary(2);
    opt.d = 3;
    cr_assert_eq(hf_method_check(tree, &opt, &err), HF_EUNSUPPORTED);
    cr_assert(strstr(err.text, "d=3"), "%s", err.text);
    opt.method = HF_METHOD_AUTO;
    cr_assert_eq(hf_method_check(tree, &opt, &err), HF_OK, "a tree method applies for d=3");
    opt.method = HF_METHOD_GREEDY;
    cr_assert_eq(hf_method_check(tree, &opt, &err), HF_OK, "greedy applies to any small order");
    opt.method = HF_METHOD_AUTO;
    opt.d = 0;
    cr_assert_eq(hf_method_check(tree, &opt, &err), HF_EINVAL);
    opt.d = 9;
    cr_assert_eq(hf_method_check(tree, &opt, &err), HF_EINVAL);
    opt.d = 2;
    uint32_t bad_focus = 99;
    opt.focus = &bad_focus;
    opt.focus_count = 1;
    cr_assert_eq(hf_method_check(tree, &opt, &err), HF_EINVAL);
    hf_poset_free(tree);
    hf_poset_free(diamond);
}

Test(gen, predict_mpz_matches)
{
    hf_poset *p = tu_complete_binary(3);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    mpz_t s;
    mpz_init(s);
    hf_method chosen;
    cr_assert_eq(hf_method_predict_mpz(p, &opt, s, &chosen, NULL), HF_OK);
    cr_assert_eq(mpz_cmp_ui(s, 2), 0);
    cr_assert_eq(chosen, HF_METHOD_DFS);
    mpz_clear(s);
    hf_poset_free(p);
}
