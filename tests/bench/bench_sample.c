/* Benchmark of the samplers: the time of one schedule of each (random, rw, pct, pos, basicpos)
 * on random recursive trees of 10^5 and 10^6 events, unlabelled and with objects, printed as a
 * ratio against a plain pass that writes a depth-first order of the same tree, measured in the
 * same run. Also the one-off setup of each stream and hf_generate with a count of one.
 * With DOT files as arguments instead: each sampler's smallest hit probability over the
 * admissible d-tuples (d = 2, 3) of each order, its tuple and the expected runs until it is hit
 * (hitfam/probability.h; estimates from 100,000 schedules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hitfam/probability.h"
#include "sample.h"

#define die(what, st, err) bench_die("bench_sample", what, st, err)

static const hf_method methods[] = {HF_METHOD_RANDOM, HF_METHOD_RW, HF_METHOD_PCT, HF_METHOD_POS,
                                    HF_METHOD_BASICPOS};
#define N_METHODS (sizeof methods / sizeof methods[0])

/* A random recursive tree; with `objects` > 0 every event touches one of that many objects,
 * written with probability 1/2. */
static hf_poset *tree(uint32_t n, uint32_t objects, uint64_t seed)
{
    hf_poset_builder *b;
    hf_status st = hf_poset_builder_new(NULL, &b);
    char name[16];
    for (uint32_t i = 0; i < n && !st; i++) {
        snprintf(name, sizeof name, "%u", (unsigned)i);
        st = hf_poset_builder_add_event(b, name, NULL);
        if (!st && i > 0)
            st = hf_poset_builder_add_order(b, (uint32_t)(bench_next_u64(&seed) % i), i);
        if (!st && objects) {
            uint64_t r = bench_next_u64(&seed);
            snprintf(name, sizeof name, "o%u", (unsigned)(r % objects));
            st = hf_poset_builder_set_object(b, i, name,
                                             (r >> 32) & 1 ? HF_ACCESS_WRITE : HF_ACCESS_READ);
        }
    }
    hf_poset *p = NULL;
    hf_error err = {0};
    if (!st)
        st = hf_poset_builder_finish(b, &p, &err);
    hf_poset_builder_free(b);
    if (st)
        die("building a tree", st, &err);
    return p;
}

/* The plain pass: a depth-first preorder written into row, with an explicit stack. */
static void dfs_order(const hf_poset *p, uint32_t *row, uint32_t *stack)
{
    uint32_t n = hf_poset_size(p), k = 0, sp = 0;
    for (uint32_t v = n; v-- > 0;) {
        uint32_t c;
        hf_poset_hasse_pred(p, v, &c);
        if (c == 0)
            stack[sp++] = v;
    }
    while (sp) {
        uint32_t v = stack[--sp], c;
        row[k++] = v;
        const uint32_t *s = hf_poset_hasse_succ(p, v, &c);
        for (uint32_t i = c; i-- > 0;)
            stack[sp++] = s[i];
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of `reps` timings. */
static double median(double *t, int reps)
{
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

static void run(uint32_t n, uint32_t objects)
{
    const int reps = 5;
    hf_poset *p = tree(n, objects, 12345);
    uint32_t *row = malloc((size_t)n * sizeof *row), *stack = malloc((size_t)n * sizeof *stack);
    if (!row || !stack)
        die("allocating", HF_ENOMEM, NULL);
    double t[16];
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        dfs_order(p, row, stack);
        t[r] = bench_now() - t0;
    }
    double base = median(t, reps);
    hf_error err;
    if (hf_schedule_check(p, row, 0, &err) != HF_OK)
        die("the depth-first order", HF_ESCHEDULE, &err);
    char labels[48] = "no labels";
    if (objects)
        snprintf(labels, sizeof labels, "%u objects read or written", (unsigned)objects);
    printf("\nrandom recursive tree, %u events, %s: depth-first pass %.4f s\n", (unsigned)n, labels,
           base);
    printf("  %-9s %12s %12s %10s %12s\n", "sampler", "setup (s)", "sample (s)", "/ dfs",
           "count=1 (s)");
    for (size_t k = 0; k < N_METHODS; k++) {
        hf_i_sampler *s;
        double t0 = bench_now();
        hf_status st = hf_i_sampler_new(p, methods[k], 3, 7, &s, &err);
        double setup = bench_now() - t0;
        if (st)
            die(hf_method_name(methods[k]), st, &err);
        for (int r = 0; r < reps; r++) {
            t0 = bench_now();
            if ((st = hf_i_sampler_next(s, row)))
                die(hf_method_name(methods[k]), st, NULL);
            t[r] = bench_now() - t0;
        }
        double one = median(t, reps);
        if ((st = hf_schedule_check(p, row, 0, &err)))
            die(hf_method_name(methods[k]), st, &err);
        hf_i_sampler_free(s);
        /* through the public API: check, stream setup and one schedule */
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.method = methods[k];
        opt.d = 3;
        opt.count = 1;
        uint64_t got = 0;
        t0 = bench_now();
        if ((st = hf_generate(p, &opt, (hf_sink){count_put, &got}, NULL, &err)) || got != 1)
            die(hf_method_name(methods[k]), st, &err);
        double gen = bench_now() - t0;
        printf("  %-9s %12.4f %12.4f %10.2f %12.4f\n", hf_method_name(methods[k]), setup, one,
               one / base, gen);
    }
    free(row);
    free(stack);
    hf_poset_free(p);
}

/* The hardest tuple of each sampler on the order in `path`. */
static void probabilities(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        die(path, HF_EIO, NULL);
    hf_poset *p;
    hf_error err;
    hf_status st = hf_dot_read_file(NULL, in, &p, &err);
    fclose(in);
    if (st)
        die(path, st, &err);
    printf("\n%s: %u events\n", path, (unsigned)hf_poset_size(p));
    printf("  %-2s %-9s %-6s %12s %25s %12s %8s  %s\n", "d", "sampler", "kind", "min p",
           "95% interval", "runs (1/p)", "time (s)", "hardest tuple");
    for (unsigned d = 2; d <= 3; d++)
        for (size_t k = 0; k < N_METHODS; k++) {
            hf_hitprob_options o;
            hf_hitprob_options_init(&o);
            o.method = methods[k];
            o.max_work = 0;
            hf_hitprob_result r;
            double t0 = bench_now();
            if ((st = hf_hitprob_min(p, d, &o, NULL, &r, &err)))
                die(hf_method_name(methods[k]), st, &err);
            double t = bench_now() - t0;
            char tuple[256] = "", interval[64] = "-";
            for (unsigned j = 0; j < r.d; j++) {
                strncat(tuple, hf_poset_name(p, r.tuple[j]), sizeof tuple - strlen(tuple) - 2);
                strncat(tuple, j + 1 < r.d ? " " : "", sizeof tuple - strlen(tuple) - 1);
            }
            if (!r.exact)
                snprintf(interval, sizeof interval, "[%.3g, %.3g]", r.low, r.high);
            printf("  %-2u %-9s %-6s %12.4g %25s %12.1f %8.2f  %s\n", d, hf_method_name(methods[k]),
                   r.exact ? "exact" : "est.", r.value, interval, r.expected_runs, t, tuple);
        }
    hf_poset_free(p);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        printf("bench_sample: the smallest hit probability of each sampler\n");
        for (int i = 1; i < argc; i++)
            probabilities(argv[i]);
        return 0;
    }
    printf("bench_sample: one schedule of each sampler (median of 5), against a depth-first pass "
           "over the same tree in the same run\n");
    run(100000, 0);
    run(1000000, 0);
    run(1000000, 1000);
    run(1000000, 10);
    return 0;
}
