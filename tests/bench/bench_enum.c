/* Benchmark of enumeration (hitfam/enum.h): linear extensions given per second on an antichain
 * of 12, examples/page.dot and a random forest of 16, against their exact count and against a
 * plain loop writing as many permutations (lexicographic next permutation) into a buffer; then
 * traces and preemption-bounded schedules per second on a labelled program. */
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hitfam/enum.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_enum", what, st, err)

/* Seconds each measurement may run before it stops (the count is then of what was given). */
#define BUDGET 2.0

static volatile uint32_t sink_word;

/* Schedules given by the iterator within BUDGET seconds (or all of them), and the time. */
static uint64_t run_enum(const hf_poset *p, const hf_enum_options *o, double *secs, bool *all)
{
    hf_enum *e = NULL;
    hf_error err;
    hf_status st = hf_enum_new(p, o, &e, &err);
    if (st)
        die("hf_enum_new", st, &err);
    uint32_t n = hf_poset_size(p);
    uint32_t *buf = malloc((n ? n : 1) * sizeof *buf);
    uint32_t acc = 0;
    uint64_t count = 0;
    double t0 = bench_now();
    hf_enum_step step;
    *all = false;
    for (;;) {
        step = hf_enum_next(e, buf);
        if (step != HF_ENUM_SCHEDULE) {
            *all = step == HF_ENUM_DONE;
            break;
        }
        acc ^= buf[0] ^ buf[n - 1];
        if ((++count & 0xffff) == 0 && bench_now() - t0 > BUDGET)
            break;
    }
    *secs = bench_now() - t0;
    sink_word = acc;
    free(buf);
    hf_enum_free(e);
    return count;
}

/* The same number of permutations of n ids, each written into a buffer by a plain
 * lexicographic next-permutation loop (restarting from the identity when it wraps). */
static double run_perms(uint32_t n, uint64_t count)
{
    uint32_t *a = malloc(n * sizeof *a), *buf = malloc(n * sizeof *buf);
    for (uint32_t i = 0; i < n; i++)
        a[i] = i;
    uint32_t acc = 0;
    double t0 = bench_now();
    for (uint64_t c = 0; c < count; c++) {
        memcpy(buf, a, n * sizeof *buf);
        acc ^= buf[0] ^ buf[n - 1];
        uint32_t i = n - 1;
        while (i > 0 && a[i - 1] >= a[i])
            i--;
        if (i == 0) {
            for (uint32_t k = 0; k < n; k++)
                a[k] = k;
            continue;
        }
        uint32_t j = n - 1;
        while (a[j] <= a[i - 1])
            j--;
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
        for (uint32_t l = i, r = n - 1; l < r; l++, r--) {
            t = a[l];
            a[l] = a[r];
            a[r] = t;
        }
    }
    double secs = bench_now() - t0;
    sink_word = acc;
    free(a);
    free(buf);
    return secs;
}

static void line(const char *name, const hf_poset *p, const hf_enum_options *o, bool compare)
{
    mpz_t total;
    mpz_init(total);
    hf_error err;
    hf_status st = hf_enum_count(p, o, total, &err);
    char count_text[64] = "unknown";
    if (!st)
        gmp_snprintf(count_text, sizeof count_text, "%Zd", total);
    double secs;
    bool all;
    uint64_t given = run_enum(p, o, &secs, &all);
    double rate = secs > 0 ? (double)given / secs : 0;
    char method[32];
    printf("%-22s %-14s n=%-3u count %-12s given %-11llu %s %7.3f s  %10.3g /s", name,
           hf_enum_method_name(o, method, sizeof method), hf_poset_size(p), count_text,
           (unsigned long long)given, all ? "(all)  " : "(timed)", secs, rate);
    if (!st && all && mpz_cmp_ui(total, (unsigned long)given) != 0) {
        printf("\nbench_enum: %s: %llu schedules given, count says %s\n", name,
               (unsigned long long)given, count_text);
        exit(1);
    }
    if (compare) {
        double ps = run_perms(hf_poset_size(p), given);
        printf("  permutations %7.3f s, ratio %.2f", ps, ps > 0 ? secs / ps : 0);
    }
    putchar('\n');
    mpz_clear(total);
}

static hf_poset *read_dot(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench_enum: cannot open %s\n", path);
        exit(1);
    }
    hf_poset *p = NULL;
    hf_error err;
    hf_status st = hf_dot_read_file(NULL, f, &p, &err);
    fclose(f);
    if (st)
        die(path, st, &err);
    return p;
}

/* A program of the POS micro-benchmark shape: `threads` threads of `per` events each, every
 * event reading or writing one of `objects` objects, and a few messages between threads. */
static hf_poset *program(uint32_t threads, uint32_t per, uint32_t objects, uint64_t seed)
{
    hf_poset_builder *b = NULL;
    hf_status st = hf_poset_builder_new(NULL, &b);
    uint32_t n = threads * per;
    for (uint32_t v = 0; v < n && !st; v++) {
        char name[32], th[16], obj[16];
        snprintf(name, sizeof name, "t%ue%u", v / per, v % per);
        snprintf(th, sizeof th, "t%u", v / per);
        snprintf(obj, sizeof obj, "x%u", (uint32_t)(bench_next_u64(&seed) % objects));
        hf_access acc = bench_next_u64(&seed) % 2 ? HF_ACCESS_WRITE : HF_ACCESS_READ;
        st = hf_poset_builder_add_event(b, name, NULL);
        if (!st)
            st = hf_poset_builder_set_thread(b, v, th);
        if (!st)
            st = hf_poset_builder_set_object(b, v, obj, acc);
        if (!st && v % per)
            st = hf_poset_builder_add_order(b, v - 1, v);
    }
    for (uint32_t k = 0; k < 2 && !st; k++) { /* messages from an earlier thread's event */
        uint32_t from = (uint32_t)(bench_next_u64(&seed) % (n - per));
        uint32_t to = (from / per + 1) * per + (uint32_t)(bench_next_u64(&seed) % per);
        st = hf_poset_builder_add_order(b, from, to);
    }
    hf_poset *p = NULL;
    hf_error err = {0};
    if (!st)
        st = hf_poset_builder_finish(b, &p, &err);
    hf_poset_builder_free(b);
    if (st)
        die("building a program", st, &err);
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_enum PAGE.dot\n");
        return 2;
    }
    hf_enum_options all;
    hf_enum_options_init(&all);
    printf("linear extensions: the iterator against a plain next-permutation loop writing as many\n"
           "permutations (ratio = iterator time / loop time); runs stop after %.0f s\n",
           BUDGET);
    hf_poset *p = bench_from_pairs("bench_enum", 12, NULL, 0);
    line("antichain-12", p, &all, true);
    hf_poset_free(p);
    p = read_dot(argv[1]);
    line("page.dot", p, &all, true);
    hf_poset_free(p);
    uint64_t seed = 16;
    uint32_t parent[16];
    for (uint32_t v = 0; v < 16; v++)
        parent[v] = v < 2 ? HF_NO_EVENT : (uint32_t)(bench_next_u64(&seed) % v);
    p = bench_from_parents("bench_enum", 16, parent);
    line("random-forest-16", p, &all, true);
    hf_poset_free(p);

    printf("\ntraces and preemption bounds on a program of 4 threads x 4 events, 4 objects\n");
    p = program(4, 4, 4, 7);
    line("program-4x4", p, &all, false);
    hf_enum_options o;
    hf_enum_options_init(&o);
    o.mode = HF_ENUM_TRACES;
    line("program-4x4", p, &o, false);
    o.mode = HF_ENUM_PREEMPTIONS;
    for (uint32_t k = 0; k <= 2; k++) {
        o.preemptions = k;
        line("program-4x4", p, &o, false);
    }
    hf_poset_free(p);
    return 0;
}
