/* Benchmark of what `hitfam stats` computes, line by line, on trees of 10^6 events (a random
 * recursive tree and the complete binary tree of 2^20 - 1 events): the seconds of each library
 * call behind a line, so that each line can be held to "a few seconds". The order is built in
 * memory; reading its DOT file is measured elsewhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "hitfam/count.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_stats", what, st, err)

/* Processor seconds of this process: the machine is shared, wall time would measure the load. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void line(const char *what, double t0, hf_status st, const hf_error *err)
{
    double s = cpu_now() - t0;
    printf("  %-44s %8.3f s%s%s\n", what, s, st ? "  refused: " : "",
           st ? (err->text[0] ? err->text : hf_strerror(st)) : "");
}

static void stats_lines(const char *name, hf_poset *p)
{
    hf_error err;
    mpz_t v;
    mpz_init(v);
    printf("%s (%u events)\n", name, hf_poset_size(p));
    double t0 = cpu_now();
    (void)hf_poset_hasse_edge_count(p);
    (void)hf_poset_height(p);
    (void)hf_poset_shape(p);
    line("events, hasse edges, height, shape", t0, HF_OK, &err);
    double l = 0;
    t0 = cpu_now();
    hf_status st = hf_count_linear_extensions_log10(p, &l, &err);
    line("linear extensions, approximately (log10)", t0, st, &err);
    t0 = cpu_now();
    st = hf_count_linear_extensions(p, v, &err);
    line("linear extensions, exact (--exact)", t0, st, &err);
    if (!st) {
        long e2;
        double d = mpz_get_d_2exp(&e2, v);
        printf("  # log10: %.9f from the logarithms, %.9f from the exact number\n", l,
               log10(d) + (double)e2 * log10(2.0));
    }
    t0 = cpu_now();
    double t1 = cpu_now();
    size_t digits = mpz_sizeinbase(v, 10);
    char *text = malloc(digits + 2);
    mpz_get_str(text, 10, v);
    line("  and its decimal digits (--exact)", t1, HF_OK, &err);
    free(text);
    uint32_t h;
    t0 = cpu_now();
    st = hf_poset_tree_height(p, &h);
    line("binary tree height", t0, st, &err);
    for (unsigned d = 2; d <= 3; d++) {
        char what[64];
        t0 = cpu_now();
        st = hf_count_admissible(p, d, NULL, 0, v, &err);
        snprintf(what, sizeof what, "d=%u admissible tuples", d);
        line(what, t0, st, &err);
        t0 = cpu_now();
        st = hf_count_lower_bound(p, d, v, &err);
        snprintf(what, sizeof what, "d=%u lower bound", d);
        line(what, t0, st, &err);
        for (int m = HF_METHOD_DFS; m <= HF_METHOD_SCRAMBLE; m++) {
            hf_gen_options opt;
            hf_gen_options_init(&opt);
            opt.d = d;
            opt.method = (hf_method)m;
            t0 = cpu_now();
            bool runs = hf_method_predict_runs((hf_method)m) && hf_method_check(p, &opt, &err) == 0;
            st = runs ? HF_OK : hf_method_predict_mpz(p, &opt, v, NULL, &err);
            snprintf(what, sizeof what, "d=%u %s", d, hf_method_name((hf_method)m));
            line(what, t0, st, &err);
        }
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = d;
        hf_method chosen;
        t0 = cpu_now();
        st = hf_method_predict_mpz(p, &opt, v, &chosen, &err);
        snprintf(what, sizeof what, "d=%u auto", d);
        line(what, t0, st, &err);
    }
    mpz_clear(v);
}

int main(void)
{
    const uint32_t n = 1000000, nb = (1u << 20) - 1;
    uint32_t *parent = malloc((size_t)nb * sizeof *parent);
    uint64_t rng = 20261125;
    parent[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < n; i++)
        parent[i] = (uint32_t)(bench_next_u64(&rng) % i);
    hf_poset *p = bench_from_parents("bench_stats", n, parent);
    stats_lines("random recursive tree", p);
    hf_poset_free(p);
    for (uint32_t i = 1; i < nb; i++)
        parent[i] = (i - 1) / 2;
    p = bench_from_parents("bench_stats", nb, parent);
    stats_lines("complete binary tree", p);
    hf_poset_free(p);
    free(parent);
    return 0;
}
