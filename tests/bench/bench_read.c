/* Benchmark of reading text families at scale: each schedule's names looked up in batches whose
 * memory accesses overlap (lib/io_family_text.c, text_batch), against the same reader looking
 * names up one at a time after guessing them (hf_i_text_batches off: the reader as it was), in
 * the same run. Families of 10^6-event trees written as text: the double-tree family (d = 3),
 * the two depth-first schedules (d = 2) and 20 uniformly random schedules, on a random recursive
 * tree, a complete binary tree and a chain (whose 20 random schedules are one, repeated: names
 * that guessing reads best). Each is read whole by hf_family_read_mem from memory
 * (best of 3 in processor time, the two ways alternated) and both must give the same schedules.
 * Usage: bench_read [EVENTS] (default 10^6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "family_i.h"
#include "hitfam/hitfam.h"
#include "io_family_read_i.h"

static const char *prog = "bench_read";

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The family of method m (count schedules for a sampler) as text, in a malloc'd buffer. */
static char *family_text(const hf_poset *p, hf_method m, unsigned d, uint64_t count, size_t *len)
{
    char *buf = NULL;
    FILE *out = open_memstream(&buf, len);
    if (!out)
        bench_die(prog, "open_memstream", HF_ENOMEM, NULL);
    hf_family_header h = {d, hf_method_name(m), false, 0, 0, 0};
    hf_writer *w = NULL;
    hf_status st = hf_writer_new(p, out, HF_FORMAT_TEXT, &h, &w);
    if (st)
        bench_die(prog, "hf_writer_new", st, NULL);
    hf_gen_options o;
    hf_gen_options_init(&o);
    o.d = d;
    o.method = m;
    o.count = count;
    o.seed = 7;
    hf_error err;
    if ((st = hf_generate(p, &o, hf_writer_sink(w), NULL, &err)))
        bench_die(prog, "hf_generate", st, &err);
    if ((st = hf_writer_close(w)) || fclose(out) != 0)
        bench_die(prog, "writing", st ? st : HF_EIO, NULL);
    return buf;
}

/* Processor seconds of one whole read; the family in *f. */
static double read_once(const hf_poset *p, const char *text, size_t len, bool batches,
                        hf_family **f)
{
    hf_i_text_batches = batches;
    hf_error err;
    double t0 = cpu_now();
    hf_status st = hf_family_read_mem(p, text, len, f, NULL, &err);
    double t = cpu_now() - t0;
    hf_i_text_batches = true;
    if (st)
        bench_die(prog, "hf_family_read_mem", st, &err);
    return t;
}

static void measure(const char *shape, const char *what, const hf_poset *p, hf_method m, unsigned d,
                    uint64_t count)
{
    size_t len;
    char *text = family_text(p, m, d, count, &len);
    double best[2] = {1e9, 1e9};
    hf_family *first = NULL;
    for (int k = 0; k < 3; k++)
        for (int batches = 0; batches <= 1; batches++) {
            hf_family *f = NULL;
            double t = read_once(p, text, len, batches, &f);
            best[batches] = t < best[batches] ? t : best[batches];
            if (!first) {
                first = f;
            } else {
                if (!hf_i_family_same(first, f))
                    bench_die(prog, "the two readings differ", HF_EMISMATCH, NULL);
                hf_family_free(f);
            }
        }
    size_t names = hf_family_size(first) * hf_family_events(first);
    printf("%-10s %-22s %6zu %8.1f %9.3f %8.1f %9.3f %8.1f %6.2fx\n", shape, what,
           hf_family_size(first), len / 1e6, best[0], 1e9 * best[0] / (double)names, best[1],
           1e9 * best[1] / (double)names, best[0] / best[1]);
    fflush(stdout);
    hf_family_free(first);
    free(text);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    if (n < 2)
        n = 2;
    printf("# reading text families of %u-event orders: processor seconds of hf_family_read_mem "
           "(best of 3), names guessed then looked up one at a time (one) against looked up in "
           "batches (batch); ns per name; speed-up = one / batch\n",
           n);
    printf("%-10s %-22s %6s %8s %9s %8s %9s %8s %7s\n", "order", "family", "rows", "MB", "one s",
           "ns/name", "batch s", "ns/name", "speedup");
    uint32_t *par = malloc((size_t)n * sizeof *par);
    if (!par)
        bench_die(prog, "malloc", HF_ENOMEM, NULL);
    static const char *const shapes[] = {"recursive", "binary", "chain"};
    for (int sh = 0; sh < 3; sh++) {
        uint64_t seed = 42;
        par[0] = HF_NO_EVENT;
        for (uint32_t v = 1; v < n; v++)
            par[v] = sh == 0   ? (uint32_t)(bench_next_u64(&seed) % v)
                     : sh == 1 ? (v - 1) / 2
                               : v - 1;
        hf_poset *p = bench_from_parents(prog, n, par);
        if (sh < 2)
            measure(shapes[sh], "doubletree, d = 3", p, HF_METHOD_DOUBLETREE, 3, 0);
        measure(shapes[sh], "dfs, d = 2", p, HF_METHOD_DFS, 2, 0);
        /* on the chain, 20 copies of its one schedule: guessing keeps reading it */
        measure(shapes[sh], "20 random schedules", p, HF_METHOD_RANDOM, 2, 20);
        hf_poset_free(p);
    }
    free(par);
    return 0;
}
