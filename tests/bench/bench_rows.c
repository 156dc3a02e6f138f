/* Rows on demand (hf_gen_options.row_first/row_last, gen --rows): the time of one row k:k
 * against the whole family, per method, on a complete binary tree of 2^20 - 1 events and a
 * random recursive tree of 10^6 events (dfs, doubletree), and on trees of a few thousand events
 * where the whole simple and pattern families are affordable. The sink only reads each row
 * (no text is written): the writer costs the same per row either way.
 *
 * Usage: bench_rows [EVENTS [PART]]   (default 1048575; the random tree has the same size
 * rounded to 10^6 when EVENTS is the default; PART `large` runs only the 10^6-event trees,
 * `pattern` only method pattern, anything else or none everything) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

/* Processor seconds of this process: generation runs on one thread, and the machine the
 * numbers are taken on may be shared (wall time then measures the other load). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const program = "bench_rows";

typedef struct touch {
    uint64_t rows, sum;
} touch;

static hf_status touch_put(void *user, const uint32_t *s, uint32_t n)
{
    touch *t = user;
    t->rows++;
    t->sum += n ? s[0] + s[n - 1] : 0;
    return HF_OK;
}

/* Seconds for rows a..b (a 0: the whole family); the rows delivered in *rows. */
static double run(const hf_poset *p, hf_method m, unsigned d, uint64_t a, uint64_t b,
                  uint64_t *rows)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = m;
    opt.max_names = 0;
    opt.row_first = a;
    opt.row_last = b;
    touch t = {0, 0};
    hf_error err;
    double t0 = cpu_now();
    hf_status st = hf_generate(p, &opt, (hf_sink){touch_put, &t}, NULL, &err);
    double dt = cpu_now() - t0;
    if (st)
        bench_die(program, hf_method_name(m), st, &err);
    *rows = t.rows;
    return dt;
}

/* The least of three runs of one row (the machine may be shared). */
static double run_row(const hf_poset *p, hf_method m, unsigned d, uint64_t k, uint64_t *rows)
{
    double best = 0;
    for (int i = 0; i < 3; i++) {
        double t = run(p, m, d, k, k, rows);
        best = i == 0 || t < best ? t : best;
    }
    return best;
}

static void measure(const char *tree, const hf_poset *p, hf_method m, unsigned d)
{
    uint64_t whole_rows, r1, r2, r3;
    double whole = run(p, m, d, 0, 0, &whole_rows);
    double first = run_row(p, m, d, 1, &r1);
    double mid = run_row(p, m, d, whole_rows / 2 + 1, &r2);
    double last = run_row(p, m, d, whole_rows, &r3);
    if (r1 != 1 || r2 != 1 || r3 != 1)
        bench_die(program, "a row slice gave other than one row", HF_EINVAL, NULL);
    double worst = first > mid ? first : mid;
    worst = worst > last ? worst : last;
    uint32_t n = hf_poset_size(p);
    printf("%-25s %-10s d=%u %8" PRIu64 " rows  whole %8.3f s  row 1 %7.4f s  row m/2 %7.4f s  "
           "row m %7.4f s  whole/row %8.1f  row %6.1f ns/event\n",
           tree, hf_method_name(m), d, whole_rows, whole, first, mid, last, whole / worst,
           worst / n * 1e9);
    fflush(stdout);
}

/* Orders whose whole family is too large to build here: single rows against the predicted
 * size, and the time per event of a row. */
static void measure_rows(const char *tree, const hf_poset *p, hf_method m, unsigned d)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = m;
    uint64_t size, r1, r2, r3;
    hf_error err;
    double t0 = cpu_now();
    hf_status st = hf_method_predict(p, &opt, &size, NULL, &err);
    double predict = cpu_now() - t0;
    if (st)
        bench_die(program, "predict", st, &err);
    double first = run_row(p, m, d, 1, &r1);
    double mid = run_row(p, m, d, size / 2 + 1, &r2);
    double last = run_row(p, m, d, size, &r3);
    if (r1 != 1 || r2 != 1 || r3 != 1)
        bench_die(program, "a row slice gave other than one row", HF_EINVAL, NULL);
    double worst = first > mid ? first : mid;
    worst = worst > last ? worst : last;
    uint32_t n = hf_poset_size(p);
    printf("%-25s %-10s d=%u %8" PRIu64 " rows  (predicted in %.3f s; the whole family: about "
           "%.0f GB of text)  row 1 %7.4f s  row m/2 %7.4f s  row m %7.4f s  row %6.1f "
           "ns/event\n",
           tree, hf_method_name(m), d, size, predict, (double)size * n * 8 / 1e9, first, mid, last,
           worst / n * 1e9);
    fflush(stdout);
}

static hf_poset *complete_binary(uint32_t n)
{
    uint32_t *parent = malloc((size_t)n * sizeof *parent);
    for (uint32_t i = 0; i < n; i++)
        parent[i] = i ? (i - 1) / 2 : HF_NO_EVENT;
    hf_poset *p = bench_from_parents(program, n, parent);
    free(parent);
    return p;
}

static hf_poset *random_recursive(uint32_t n, uint64_t seed)
{
    uint32_t *parent = malloc((size_t)n * sizeof *parent);
    for (uint32_t i = 0; i < n; i++)
        parent[i] = i ? (uint32_t)(bench_next_u64(&seed) % i) : HF_NO_EVENT;
    hf_poset *p = bench_from_parents(program, n, parent);
    free(parent);
    return p;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1048575u;
    uint32_t nr = argc > 1 ? n : 1000000u;
    const char *part = argc > 2 ? argv[2] : "all";
    bool large = strcmp(part, "pattern") != 0, rest = strcmp(part, "large") != 0;
    printf("rows on demand: whole family vs one row (k:k), generation into a sink that reads "
           "each row; processor seconds\n");
    printf("whole/row: the whole family's time over the slowest of the three single rows (each "
           "the least of 3 runs, the order's preparation included); ns/event: that row's time "
           "per event of the order\n");
    char name[64];
    if (!large)
        goto pattern;
    hf_poset *t = complete_binary(n);
    snprintf(name, sizeof name, "complete binary %" PRIu32, n);
    measure(name, t, HF_METHOD_DFS, 2);
    measure(name, t, HF_METHOD_DOUBLETREE, 3);
    measure_rows(name, t, HF_METHOD_SIMPLE, 3);
    hf_poset_free(t);
    hf_poset *r = random_recursive(nr, 1);
    snprintf(name, sizeof name, "random recursive %" PRIu32, nr);
    measure(name, r, HF_METHOD_DFS, 2);
    measure(name, r, HF_METHOD_DOUBLETREE, 3);
    measure_rows(name, r, HF_METHOD_SIMPLE, 3);
    hf_poset_free(r);
    if (!rest)
        return 0;
    /* simple and pattern: whole families of a few hundred thousand rows */
    uint32_t small = n < 4095 ? n : 4095;
    t = complete_binary(small);
    snprintf(name, sizeof name, "complete binary %" PRIu32, small);
    measure(name, t, HF_METHOD_DOUBLETREE, 3);
    measure(name, t, HF_METHOD_SIMPLE, 3);
    hf_poset_free(t);
    uint32_t smallr = n < 4000 ? n : 4000;
    r = random_recursive(smallr, 2);
    snprintf(name, sizeof name, "random recursive %" PRIu32, smallr);
    measure(name, r, HF_METHOD_SIMPLE, 3);
    hf_poset_free(r);
pattern:
    /* pattern: d = 3 (hundreds of rows, the preparation dominates) and d = 4 */
    t = complete_binary(n < 4095 ? n : 4095);
    measure("complete binary 4095", t, HF_METHOD_PATTERN, 3);
    measure("complete binary 4095", t, HF_METHOD_PATTERN, 4);
    hf_poset_free(t);
    t = complete_binary(n < 1023 ? n : 1023);
    measure("complete binary 1023", t, HF_METHOD_PATTERN, 4);
    hf_poset_free(t);
    r = random_recursive(n < 4000 ? n : 4000, 4);
    measure("random recursive 4000", r, HF_METHOD_PATTERN, 3);
    hf_poset_free(r);
    r = random_recursive(n < 300 ? n : 300, 3);
    measure("random recursive 300", r, HF_METHOD_PATTERN, 4);
    if (!rest) {
        hf_poset_free(r);
        return 0;
    }
    measure("random recursive 300", r, HF_METHOD_SIMPLE, 4);
    hf_poset_free(r);
    hf_poset *a = NULL;
    {
        uint32_t na = 2000;
        a = bench_from_pairs(program, na, NULL, 0);
        measure("antichain 2000", a, HF_METHOD_SCRAMBLE, 3);
        hf_poset_free(a);
    }
    return 0;
}
