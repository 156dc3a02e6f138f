/* Tables of papers/smallest/ for issue 13: (b) antichains of 13..100 events at d = 3 (greedy,
 * greedy improved by minimize --sat, scramble, auto, the certified lower bound, the best known
 * size) and large antichains (scramble's Sperner family); (c) trees of 50..300 events (random
 * recursive, caterpillars, async-trace-like) with auto's size against the certified lower bound.
 * Every family is checked by hf_verify. Times are wall-clock seconds on this machine.
 *
 *   bench_bounds antichains [BUDGET]    table (b), n = 13..100 (BUDGET conflicts per SAT step)
 *   bench_bounds large                  scramble on 100..100,000 events (verified up to 2,000)
 *   bench_bounds trees [BUDGET]         table (c) (BUDGET: the bound's conflicts, 0 = default)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hitfam/bounds.h"
#include "hitfam/count.h"
#include "hitfam/exact.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_bounds", what, st, err)

static hf_family *run(const hf_poset *p, unsigned d, hf_method m, double *secs)
{
    hf_gen_options o;
    hf_gen_options_init(&o);
    o.d = d;
    o.method = m;
    hf_family *f = NULL;
    hf_error err;
    hf_status st = hf_family_new(NULL, hf_poset_size(p), &f);
    if (st)
        die("family", st, NULL);
    double t0 = bench_now();
    if ((st = hf_generate(p, &o, hf_family_sink(f), NULL, &err)))
        die(hf_method_name(m), st, &err);
    *secs = bench_now() - t0;
    return f;
}

static void check(const hf_poset *p, const hf_family *f, unsigned d, const char *what)
{
    hf_verify_options vo = {.d = d};
    hf_verify_result vr;
    hf_error err;
    hf_status st = hf_verify(p, f, &vo, &vr, &err);
    if (st)
        die(what, st, &err);
    if (!vr.hitting) {
        fprintf(stderr, "bench_bounds: %s: not %u-hitting\n", what, d);
        exit(1);
    }
}

static hf_bound *bound(const hf_poset *p, unsigned d, uint64_t conflicts, double *secs)
{
    hf_bound_options o;
    hf_bound_options_init(&o);
    o.d = d;
    o.conflicts = conflicts;
    hf_bound *b = NULL;
    hf_error err;
    double t0 = bench_now();
    hf_status st = hf_bound_compute(p, &o, &b, &err);
    if (st)
        die("bound", st, &err);
    *secs = bench_now() - t0;
    return b;
}

static hf_poset *antichain(uint32_t n) { return bench_from_pairs("bench_bounds", n, NULL, 0); }

/* Best known sizes (../shared/data/README.md, from Chee, Colbourn, Horsley, Zhou 2013). */
static const char *best_known(uint32_t n)
{
    switch (n) {
    case 13:
    case 14:
        return "<= 10";
    case 16:
        return "<= 11";
    default:
        return "-";
    }
}

static void antichains(uint64_t budget)
{
    static const uint32_t sizes[] = {13, 14, 15, 16, 18, 20, 24, 28, 32, 40, 48, 64, 80, 100};
    printf("| n | greedy | time (s) | + minimize --sat | SAT steps | time (s) | scramble | auto "
           "| certified lower bound | best known |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t n = sizes[i];
        hf_poset *p = antichain(n);
        double tg, ts, tb;
        hf_family *g = run(p, 3, HF_METHOD_GREEDY, &tg);
        check(p, g, 3, "greedy");
        size_t greedy = hf_family_size(g);
        /* minimize --sat until a step fails */
        hf_exact_options eo;
        hf_exact_options_init(&eo);
        eo.d = 3;
        eo.conflicts = budget;
        double t0 = bench_now();
        unsigned steps = 0;
        const char *end = "budget";
        for (;;) {
            hf_exact_verdict v;
            hf_error err;
            hf_status st = hf_exact_remove_one(p, g, &eo, &v, NULL, &err);
            if (st == HF_ETOOLARGE) {
                end = "too large";
                break;
            }
            if (st)
                die("minimize --sat", st, &err);
            steps++;
            if (v == HF_EXACT_MINIMAL)
                end = "minimal";
            if (v != HF_EXACT_IMPROVED)
                break;
        }
        double tm = bench_now() - t0;
        check(p, g, 3, "minimize --sat");
        hf_family *s = run(p, 3, HF_METHOD_SCRAMBLE, &ts);
        check(p, s, 3, "scramble");
        hf_gen_options ao;
        hf_gen_options_init(&ao);
        ao.d = 3;
        uint64_t autosize;
        hf_method chosen;
        hf_error err;
        hf_status st = hf_method_predict(p, &ao, &autosize, &chosen, &err);
        if (st)
            die("auto", st, &err);
        hf_bound *b = bound(p, 3, 0, &tb);
        printf("| %u | %zu | %.2f | %zu (%s) | %u | %.2f | %zu | %" PRIu64 " (%s) | %" PRIu64
               " (%s) | %s |\n",
               n, greedy, tg, hf_family_size(g), end, steps, tm, hf_family_size(s), autosize,
               hf_method_name(chosen), b->value, hf_bound_kind_name(b->kind), best_known(n));
        fflush(stdout);
        hf_bound_free(b);
        hf_family_free(g);
        hf_family_free(s);
        hf_poset_free(p);
    }
}

static void large(void)
{
    static const uint32_t sizes[] = {100, 200, 500, 1000, 2000, 10000, 100000};
    printf("| n | scramble | Sperner-family size 2t | old recursion | time (s) | verified | "
           "certified lower bound |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t n = sizes[i];
        hf_poset *p = antichain(n);
        double ts, tb;
        hf_family *s = run(p, 3, HF_METHOD_SCRAMBLE, &ts);
        bool verified = n <= 2000;
        if (verified)
            check(p, s, 3, "scramble");
        unsigned t = 1;
        for (;; t++) {
            double c = 1;
            for (unsigned j = 1; j <= t / 2; j++)
                c = c * (t - t / 2 + j) / j;
            if (c + 0.5 >= n)
                break;
        }
        /* the recursion alone: 4 per doubling down to the searched bases (36 at 1,000) */
        hf_bound_options bo;
        hf_bound_options_init(&bo);
        bo.no_sat = true;
        hf_bound *b = NULL;
        hf_error err;
        double t0 = bench_now();
        hf_status st = hf_bound_compute(p, &bo, &b, &err);
        if (st)
            die("bound", st, &err);
        tb = bench_now() - t0;
        (void)tb;
        printf("| %u | %zu | %u | %s | %.2f | %s | %" PRIu64 " |\n", n, hf_family_size(s), 2 * t,
               n == 100    ? "22"
               : n == 1000 ? "36"
                           : "-",
               ts, verified ? "hf_verify" : "no", b->value);
        fflush(stdout);
        hf_bound_free(b);
        hf_family_free(s);
        hf_poset_free(p);
    }
}

/* ---- trees ---- */

/* random recursive: each event after the first picks a parent among the earlier ones */
static void shape_recursive(uint32_t n, uint64_t *rng, uint32_t *parent)
{
    parent[0] = HF_NO_EVENT;
    for (uint32_t v = 1; v < n; v++)
        parent[v] = (uint32_t)(bench_next_u64(rng) % v);
}

/* caterpillar: a path of ceil(n/2) events, each with one leaf (the last possibly without) */
static void shape_caterpillar(uint32_t n, uint64_t *rng, uint32_t *parent)
{
    (void)rng;
    uint32_t spine = (n + 1) / 2;
    for (uint32_t v = 0; v < spine; v++)
        parent[v] = v ? v - 1 : HF_NO_EVENT;
    for (uint32_t v = spine; v < n; v++)
        parent[v] = v - spine;
}

/* async-trace-like: a main chain of ticks; each tick schedules 0..3 callbacks, each callback a
 * chain of 1..3 continuations, some of which schedule a callback of their own */
static void shape_async(uint32_t n, uint64_t *rng, uint32_t *parent)
{
    uint32_t k = 0, tick = HF_NO_EVENT;
    uint32_t *open = malloc(n * sizeof *open), no = 0;
    if (!open)
        die("memory", HF_ENOMEM, NULL);
    while (k < n) {
        parent[k] = tick;
        tick = k++;
        unsigned cbs = (unsigned)(bench_next_u64(rng) % 4);
        for (unsigned c = 0; c < cbs && k < n; c++)
            open[no++] = tick;
        while (no && k < n && bench_next_u64(rng) % 3) {
            uint32_t at = open[--no];
            unsigned len = 1 + (unsigned)(bench_next_u64(rng) % 3);
            for (unsigned j = 0; j < len && k < n; j++) {
                parent[k] = at;
                at = k++;
                if (bench_next_u64(rng) % 5 == 0)
                    open[no++] = at;
            }
        }
    }
    free(open);
}

static void trees(uint64_t budget)
{
    static const uint32_t sizes[] = {50, 100, 200, 300};
    static const char *names[] = {"random recursive", "caterpillar", "async-like"};
    printf("| shape | n | auto | method | time (s) | certified lower bound | how | bound time (s) "
           "| stats' old bound | auto / bound |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (unsigned sh = 0; sh < 3; sh++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            uint32_t n = sizes[i];
            uint64_t rng = 1000 + 17 * n + sh;
            uint32_t *parent = malloc(n * sizeof *parent);
            if (!parent)
                die("memory", HF_ENOMEM, NULL);
            if (sh == 0)
                shape_recursive(n, &rng, parent);
            else if (sh == 1)
                shape_caterpillar(n, &rng, parent);
            else
                shape_async(n, &rng, parent);
            hf_poset *p = bench_from_parents("bench_bounds", n, parent);
            free(parent);
            double ta, tb;
            hf_family *f = run(p, 3, HF_METHOD_AUTO, &ta);
            check(p, f, 3, "auto");
            hf_gen_options ao;
            hf_gen_options_init(&ao);
            ao.d = 3;
            uint64_t size;
            hf_method chosen;
            hf_error err;
            hf_status st = hf_method_predict(p, &ao, &size, &chosen, &err);
            if (st)
                die("auto", st, &err);
            hf_bound *b = bound(p, 3, budget, &tb);
            mpz_t v;
            mpz_init(v);
            if ((st = hf_count_lower_bound(p, 3, v, &err)))
                die("count lower bound", st, &err);
            printf("| %s | %u | %zu | %s | %.2f | %" PRIu64 " | %s | %.2f | %lu | %.2f |\n",
                   names[sh], n, hf_family_size(f), hf_method_name(chosen), ta, b->value,
                   hf_bound_kind_name(b->kind), tb, mpz_get_ui(v),
                   (double)hf_family_size(f) / (double)b->value);
            fflush(stdout);
            mpz_clear(v);
            hf_bound_free(b);
            hf_family_free(f);
            hf_poset_free(p);
        }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "trees";
    uint64_t budget = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    if (!strcmp(mode, "antichains"))
        antichains(budget ? budget : 20000);
    else if (!strcmp(mode, "large"))
        large();
    else if (!strcmp(mode, "trees"))
        trees(budget);
    else {
        fprintf(stderr, "usage: bench_bounds antichains [BUDGET] | large | trees [BUDGET]\n");
        return 2;
    }
    return 0;
}
