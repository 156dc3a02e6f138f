/* Benchmark of hf_verify and hf_verify_count_uncovered: large and deep trees, random orders (d=3),
 * and the tuple-by-tuple check on the sizes it can do, timed in the same run. Prints a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>
#include <unistd.h>

#include "bench_util.h"
#include "hitfam/count.h"
#include "hitfam/hitfam.h"
#include "verify_ref.h"

#define die(what, st, err) bench_die("bench_verify", what, st, err)

static uint32_t below(uint64_t *s, uint32_t bound) { return (uint32_t)(bench_next_u64(s) % bound); }

static hf_poset *build(uint32_t n, const uint32_t *pairs, size_t m)
{
    return bench_from_pairs("bench_verify", n, pairs, m);
}

/* Random recursive tree: event i hangs below a uniformly chosen earlier event. */
static hf_poset *random_tree(uint32_t n, uint64_t *rng)
{
    uint32_t *pairs = malloc(2 * (size_t)n * sizeof *pairs);
    for (uint32_t i = 1; i < n; i++) {
        pairs[2 * (i - 1)] = below(rng, i);
        pairs[2 * (i - 1) + 1] = i;
    }
    hf_poset *p = build(n, pairs, n ? n - 1 : 0);
    free(pairs);
    return p;
}

/* Random DAG: for i < j in a random permutation, an edge with probability num/den. */
static hf_poset *random_dag(uint32_t n, uint32_t num, uint32_t den, uint64_t *rng)
{
    uint32_t *perm = malloc((size_t)n * sizeof *perm);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = below(rng, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    size_t cap = 1024, m = 0;
    uint32_t *pairs = malloc(2 * cap * sizeof *pairs);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (below(rng, den) < num) {
                if (m == cap)
                    pairs = realloc(pairs, 2 * (cap *= 2) * sizeof *pairs);
                pairs[2 * m] = perm[i];
                pairs[2 * m + 1] = perm[j];
                m++;
            }
    hf_poset *p = build(n, pairs, m);
    free(pairs);
    free(perm);
    return p;
}

/* DFS preorder of a tree, children by increasing (or decreasing) id. */
static void preorder(const hf_poset *p, int reverse, uint32_t *out)
{
    uint32_t n = hf_poset_size(p), k = 0, sp = 0;
    uint32_t *stack = malloc((size_t)n * sizeof *stack);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = reverse ? i : n - 1 - i, c;
        hf_poset_hasse_pred(p, r, &c);
        if (c == 0)
            stack[sp++] = r;
    }
    while (sp > 0) {
        uint32_t v = stack[--sp], c;
        out[k++] = v;
        const uint32_t *succ = hf_poset_hasse_succ(p, v, &c);
        for (uint32_t i = 0; i < c; i++)
            stack[sp++] = succ[reverse ? i : c - 1 - i];
    }
    free(stack);
}

/* A random topological sort; events in `placed` are taken as already scheduled (out receives
 * only the others). */
static uint32_t random_completion(const hf_poset *p, uint64_t *rng, unsigned char *placed,
                                  uint32_t *out)
{
    uint32_t n = hf_poset_size(p), na = 0, k = 0;
    uint32_t *indeg = calloc(n, sizeof *indeg), *avail = malloc((size_t)n * sizeof *avail);
    for (uint32_t v = 0; v < n; v++) {
        if (placed[v])
            continue;
        uint32_t c;
        const uint32_t *pred = hf_poset_hasse_pred(p, v, &c);
        for (uint32_t i = 0; i < c; i++)
            indeg[v] += !placed[pred[i]];
        if (indeg[v] == 0)
            avail[na++] = v;
    }
    while (na > 0) {
        uint32_t i = below(rng, na), v = avail[i], c;
        avail[i] = avail[--na];
        out[k++] = v;
        placed[v] = 1;
        const uint32_t *succ = hf_poset_hasse_succ(p, v, &c);
        for (uint32_t j = 0; j < c; j++)
            if (--indeg[succ[j]] == 0)
                avail[na++] = succ[j];
    }
    free(indeg);
    free(avail);
    return k;
}

static void random_extension(const hf_poset *p, uint64_t *rng, uint32_t *out)
{
    unsigned char *placed = calloc(hf_poset_size(p) + 1, 1);
    random_completion(p, rng, placed, out);
    free(placed);
}

/* A linear extension that hits the admissible tuple t: each entry right after the part of its
 * down-set not yet scheduled, then a random completion. */
static void extension_hitting(const hf_poset *p, const uint32_t *t, unsigned d, uint64_t *rng,
                              uint32_t *out)
{
    uint32_t n = hf_poset_size(p), k = 0;
    const uint32_t *topo = hf_poset_topological_order(p);
    unsigned char *placed = calloc(n + 1, 1);
    for (unsigned i = 0; i < d; i++) {
        for (uint32_t j = 0; j < n; j++) {
            uint32_t v = topo[j];
            if (!placed[v] && hf_poset_less(p, v, t[i])) {
                placed[v] = 1;
                out[k++] = v;
            }
        }
        placed[t[i]] = 1;
        out[k++] = t[i];
    }
    random_completion(p, rng, placed, out + k);
    free(placed);
}

/* ------------------------------------------------------------------------------------------ */
/* Timing                                                                                     */

typedef struct timing {
    double verify_ms, count_ms;
    int hitting;
    uint32_t witness[HF_MAX_D];
    char uncovered[64];
} timing;

/* Each call is repeated until 0.3 s have passed (at least 3 times, or once if a call takes
 * longer); the fastest run is reported, which is the figure least disturbed by other load. */
static timing time_library(const hf_poset *p, const hf_family *f, unsigned d)
{
    timing t;
    hf_verify_options opt = {.d = d};
    hf_verify_result res;
    hf_error err;
    double best = 1e30, start = bench_now();
    for (int reps = 0; reps < 3 || bench_now() - start < 0.3; reps++) {
        double t0 = bench_now();
        hf_status st = hf_verify(p, f, &opt, &res, &err);
        double t1 = bench_now();
        if (st)
            die("hf_verify", st, &err);
        best = t1 - t0 < best ? t1 - t0 : best;
        if (t1 - t0 > 0.3)
            break;
    }
    t.verify_ms = 1e3 * best;
    t.hitting = res.hitting;
    memcpy(t.witness, res.witness, sizeof t.witness);
    mpz_t c;
    mpz_init(c);
    best = 1e30;
    start = bench_now();
    for (int reps = 0; reps < 3 || bench_now() - start < 0.3; reps++) {
        double t0 = bench_now();
        hf_status st = hf_verify_count_uncovered(p, f, &opt, c, &err);
        double t1 = bench_now();
        if (st)
            die("hf_verify_count_uncovered", st, &err);
        best = t1 - t0 < best ? t1 - t0 : best;
        if (t1 - t0 > 0.3)
            break;
    }
    t.count_ms = 1e3 * best;
    gmp_snprintf(t.uncovered, sizeof t.uncovered, "%Zd", c);
    mpz_clear(c);
    return t;
}

/* ------------------------------------------------------------------------------------------ */
/* The tuple-by-tuple check, d = 2 and 3                                                      */

typedef struct naive {
    uint64_t uncovered;
    int hitting;
} naive;

static uint32_t *positions(const hf_family *f, uint32_t n)
{
    size_t m = hf_family_size(f);
    uint32_t *pos = malloc((m * n + 1) * sizeof *pos);
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = hf_family_schedule(f, s);
        for (uint32_t q = 0; q < n; q++)
            pos[s * n + row[q]] = q;
    }
    return pos;
}

/* Every ordered pair in lexicographic order, admissibility by hf_poset_less (O(1) on forests),
 * hit by scanning the schedules. first_only stops at the first uncovered pair. */
static naive naive_check2(const hf_poset *p, const hf_family *f, int first_only)
{
    uint32_t n = hf_poset_size(p);
    size_t m = hf_family_size(f);
    uint32_t *pos = positions(f, n);
    naive r = {0, 1};
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            if (b == a || hf_poset_less(p, b, a))
                continue;
            size_t s = 0;
            while (s < m && pos[s * n + a] > pos[s * n + b])
                s++;
            if (s == m) {
                r.uncovered++;
                r.hitting = 0;
                if (first_only)
                    goto done;
            }
        }
done:
    free(pos);
    return r;
}

/* Every ordered triple in lexicographic order; admissibility from an n*n closure table, hit by
 * scanning the schedules. */
static naive naive_check3(const hf_poset *p, const hf_family *f, int first_only)
{
    uint32_t n = hf_poset_size(p);
    size_t m = hf_family_size(f);
    unsigned char *lt = malloc((size_t)n * n);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            lt[(size_t)a * n + b] = hf_poset_less(p, a, b);
    uint32_t *pos = positions(f, n);
    naive r = {0, 1};
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            if (b == a || lt[(size_t)b * n + a])
                continue;
            for (uint32_t c = 0; c < n; c++) {
                if (c == a || c == b || lt[(size_t)c * n + a] || lt[(size_t)c * n + b])
                    continue;
                size_t s = 0;
                while (s < m &&
                       !(pos[s * n + a] < pos[s * n + b] && pos[s * n + b] < pos[s * n + c]))
                    s++;
                if (s == m) {
                    r.uncovered++;
                    r.hitting = 0;
                    if (first_only)
                        goto done;
                }
            }
        }
done:
    free(lt);
    free(pos);
    return r;
}

/* Fastest of up to 3 runs within 0.5 s, in ms. */
static double time_naive(const hf_poset *p, const hf_family *f, unsigned d, int first_only,
                         naive *out)
{
    double best = 1e30, start = bench_now();
    for (int reps = 0; reps < 3 && (reps == 0 || bench_now() - start < 0.5); reps++) {
        double t0 = bench_now();
        *out = d == 2 ? naive_check2(p, f, first_only) : naive_check3(p, f, first_only);
        double t1 = bench_now();
        best = t1 - t0 < best ? t1 - t0 : best;
    }
    return 1e3 * best;
}

/* Both sides must agree on hitting and on the count. */
static void check_agree(const timing *t, const naive *nv, const naive *nc)
{
    char got[64];
    snprintf(got, sizeof got, "%llu", (unsigned long long)nc->uncovered);
    if (nv->hitting != t->hitting || strcmp(got, t->uncovered) != 0) {
        fprintf(stderr, "bench_verify: the library and the naive check disagree\n");
        exit(1);
    }
}

static void header(void)
{
    printf("%-34s %6s %5s %2s %4s %10s %10s %12s %11s %11s %7s %7s\n", "case", "n", "m", "d", "hit",
           "verify ms", "count ms", "uncovered", "naive v ms", "naive c ms", "v ratio", "c ratio");
}

static void row(const char *what, const hf_poset *p, const hf_family *f, unsigned d,
                const timing *t, double naive_v, double naive_c)
{
    printf("%-34s %6u %5zu %2u %4s %10.3f %10.3f %12s", what, hf_poset_size(p), hf_family_size(f),
           d, t->hitting ? "yes" : "no", t->verify_ms, t->count_ms, t->uncovered);
    if (naive_v >= 0)
        printf(" %11.3f %11.3f %7.1f %7.1f\n", naive_v, naive_c, naive_v / t->verify_ms,
               naive_c / t->count_ms);
    else
        printf(" %11s %11s %7s %7s\n", "-", "-", "-", "-");
    fflush(stdout);
}

static hf_family *new_family(uint32_t n)
{
    hf_family *f;
    hf_status st = hf_family_new(NULL, n, &f);
    if (st)
        die("hf_family_new", st, NULL);
    return f;
}

static void append(hf_family *f, const uint32_t *s)
{
    hf_status st = hf_family_append(f, s);
    if (st)
        die("hf_family_append", st, NULL);
}

/* Seconds of processor time of the calling process, all threads. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One timed hf_verify (or the reference order) with the fastest of `reps` runs, wall and
 * processor seconds; exits on a wrong answer. */
static void time_variant(const hf_poset *p, const hf_family *f, const hf_verify_options *opt,
                         bool reference, int reps, double *wall, double *cpu, hf_verify_result *res)
{
    *wall = *cpu = 1e30;
    for (int r = 0; r < reps; r++) {
        hf_error err;
        double t0 = bench_now(), c0 = cpu_now();
        hf_status st = hf_i_verify_reference(p, f, opt, reference, res, &err);
        double t1 = bench_now(), c1 = cpu_now();
        if (st)
            die("hf_verify", st, &err);
        *wall = t1 - t0 < *wall ? t1 - t0 : *wall;
        *cpu = c1 - c0 < *cpu ? c1 - c0 : *cpu;
    }
}

/* The reference order, hf_verify on one thread and on @p threads (0: all processors) at d = 3,
 * each the fastest of 2 (wall and processor seconds in w[] and c[], in that order); exits when
 * they disagree on the answer or the witness. */
static void time_three(const hf_poset *p, const hf_family *f, unsigned threads, const char *what,
                       double w[3], double c[3], hf_verify_result r[3])
{
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = 3;
    for (int i = 0; i < 3; i++) {
        o.threads = i < 2 ? 1 : threads;
        time_variant(p, f, &o, i == 0, 2, &w[i], &c[i], &r[i]);
    }
    for (int i = 1; i < 3; i++)
        if (r[0].hitting != r[i].hitting ||
            memcmp(r[0].witness, r[i].witness, sizeof r[0].witness)) {
            fprintf(stderr, "bench_verify: the variants disagree on %s\n", what);
            exit(1);
        }
}

/* The d = 3 check of issue 16: a random recursive tree of 2,000 events and its generated
 * 3-hitting family, verified by the order of 0.1.0 (the reference: schedules by increasing
 * position of the prefix's last entry, one thread), by hf_verify on one thread (on a forest at
 * d = 3, the pair matrices of lib/verify_forest.c), on all processors, and as k shards (each on
 * one thread; their times summed and their largest). The speed-ups are ratios of processor time
 * (the steadier figure on a loaded machine), except the threads', which save wall time. */
static void tree_speedup(uint64_t *rng)
{
    const uint32_t n = 2000;
    hf_poset *p = random_tree(n, rng);
    hf_family *f = new_family(n);
    hf_gen_options g;
    hf_gen_options_init(&g);
    g.d = 3;
    hf_error err;
    hf_method used = g.method;
    hf_status st = hf_generate(p, &g, hf_family_sink(f), &used, &err);
    if (st)
        die("hf_generate", st, &err);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cores = online > 0 ? (unsigned)online : 1;
    printf("# d=3, random recursive tree of %u events, its %zu-schedule family (%s), %u "
           "processors online; wall (and processor) seconds, fastest of 2\n",
           n, hf_family_size(f), hf_method_name(used), cores);
    hf_verify_result r[3];
    double w[3], c[3];
    time_three(p, f, 0, "the tree", w, c, r);
    double ref_w = w[0], ref_c = c[0], one_w = w[1], one_c = c[1], all_w = w[2], all_c = c[2];
    printf("#   reference order, 1 thread: %8.3f s (%8.3f)\n", ref_w, ref_c);
    printf("#   hf_verify, 1 thread:       %8.3f s (%8.3f)  %6.2fx the reference (processor)\n",
           one_w, one_c, ref_c / one_c);
    printf("#   hf_verify, %u threads:      %8.3f s (%8.3f)  %6.2fx the reference (processor), "
           "%5.2fx 1 thread (wall)\n",
           cores, all_w, all_c, ref_c / all_c, one_w / all_w);
    const uint32_t k = 4;
    double sum = 0, most = 0, sum_c = 0;
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = 3;
    o.threads = 1;
    o.shard_count = k;
    for (uint32_t i = 0; i < k; i++) {
        hf_verify_result sr;
        double sw, sc;
        o.shard_index = i;
        time_variant(p, f, &o, false, 1, &sw, &sc, &sr);
        sum += sw;
        sum_c += sc;
        most = sw > most ? sw : most;
    }
    printf("#   %u shards, 1 thread each:   %8.3f s (%8.3f) in all, the longest %.3f s (%.2fx a "
           "quarter)\n",
           k, sum, sum_c, most, most / (sum / k));
    printf("verify d=3 tree speed-up: %.2fx the reference in processor time on 1 thread; "
           "%.2fx in wall time on %u threads\n",
           ref_c / one_c, ref_w / all_w, cores);
    hf_family_free(f);
    hf_poset_free(p);
}

/* One order of the shape comparison below: the reference order and hf_verify on 1 and 2
 * threads, processor seconds (the fastest of 2), checked equal (witness and count). */
static void shape_row(const char *what, const hf_poset *p, const hf_family *f)
{
    hf_verify_result r[3];
    double w[3], t[3], ref_k, one_k, two_k;
    time_three(p, f, 2, what, w, t, r);
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = 3;
    mpz_t c[3];
    double *ks[3] = {&ref_k, &one_k, &two_k};
    for (int i = 0; i < 3; i++) {
        mpz_init(c[i]);
        o.threads = i == 2 ? 2 : 1;
        double c0 = cpu_now();
        hf_error err;
        hf_status st = hf_i_verify_count_reference(p, f, &o, i == 0, c[i], &err);
        if (st)
            die("hf_verify_count_uncovered", st, &err);
        *ks[i] = cpu_now() - c0;
    }
    if (mpz_cmp(c[0], c[1]) || mpz_cmp(c[0], c[2])) {
        fprintf(stderr, "bench_verify: the variants disagree on %s\n", what);
        exit(1);
    }
    gmp_printf("%-30s %6u %4zu %4s %9Zd %8.3f %8.3f %8.3f %6.2f %8.3f %8.3f %8.3f\n", what,
               hf_poset_size(p), hf_family_size(f), r[0].hitting ? "yes" : "no", c[0], t[0], t[1],
               t[2], t[0] / t[1], ref_k, one_k, two_k);
    fflush(stdout);
    for (int i = 0; i < 3; i++)
        mpz_clear(c[i]);
}

/* A forest from parent[] (edges reversed for an in-forest) with its generated 3-hitting family,
 * or the given schedule, then shape_row. */
static void shape_case(const char *what, uint32_t n, const uint32_t *parent, bool in_forest,
                       const uint32_t *schedule)
{
    uint32_t *pairs = malloc(2 * (size_t)n * sizeof *pairs);
    size_t e = 0;
    for (uint32_t i = 0; i < n; i++)
        if (parent[i] != HF_NO_EVENT) {
            pairs[2 * e] = in_forest ? i : parent[i];
            pairs[2 * e++ + 1] = in_forest ? parent[i] : i;
        }
    hf_poset *p = build(n, pairs, e);
    free(pairs);
    hf_family *f = new_family(n);
    if (schedule) {
        append(f, schedule);
    } else {
        hf_gen_options g;
        hf_gen_options_init(&g);
        g.d = 3;
        hf_error err;
        hf_status st = hf_generate(p, &g, hf_family_sink(f), NULL, &err);
        if (st)
            die("hf_generate", st, &err);
    }
    shape_row(what, p, f);
    hf_family_free(f);
    hf_poset_free(p);
}

/* d = 3 on forests of several shapes (issue 16): deep ones, where the quick test settles
 * nearly every prefix, bushy ones, where the pair matrices do, and an in-forest. Processor
 * seconds of verify (witness) and count, the reference order against hf_verify on 1 and 2
 * threads, in one run. */
static void shapes(uint64_t *rng)
{
    const uint32_t n = 20000;
    uint32_t *parent = malloc((size_t)n * sizeof *parent), *s = malloc((size_t)n * sizeof *s);
    printf("# d=3 on forests, processor seconds (fastest of 2); ref = the reference order\n");
    printf("%-30s %6s %4s %4s %9s %8s %8s %8s %6s %8s %8s %8s\n", "case", "n", "m", "hit",
           "uncovered", "ref v", "1 thr v", "2 thr v", "ratio", "ref c", "1 thr c", "2 thr c");
    for (uint32_t i = 0; i < n; i++) {
        parent[i] = i ? i - 1 : HF_NO_EVENT;
        s[i] = i;
    }
    shape_case("chain, its schedule", n, parent, false, s);
    /* a spine at even ids, a leaf below each spine node at odd ones, with its generated family
     * (about 1.5 schedules per event) */
    for (uint32_t i = 0; i < n; i++)
        parent[i] = i == 0 ? HF_NO_EVENT : i % 2 ? i - 1 : i - 2;
    shape_case("spine with side leaves", 500, parent, false, NULL);
    const uint32_t nr = 2000;
    for (uint32_t i = 0; i < nr; i++)
        parent[i] = i ? below(rng, i) : HF_NO_EVENT;
    shape_case("random recursive tree", nr, parent, false, NULL);
    shape_case("random recursive in-tree", nr, parent, true, NULL);
    free(parent);
    free(s);
}

int main(int argc, char **argv)
{
    uint64_t rng = 20240601;
    if (argc > 1 && strcmp(argv[1], "tree") == 0) {
        /* the d = 3 tree case alone */
        tree_speedup(&rng);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "shapes") == 0) {
        shapes(&rng);
        return 0;
    }
    header();

    /* d = 2, random recursive tree of 20,000 events with its two DFS preorders (2-hitting by
     * Claim 3.1, so both sides run to the end) */
    {
        const uint32_t n = 20000;
        hf_poset *p = random_tree(n, &rng);
        uint32_t *s = malloc(2 * (size_t)n * sizeof *s);
        preorder(p, 0, s);
        preorder(p, 1, s + n);
        hf_family *f = new_family(n);
        append(f, s);
        for (int k = 0; k < 2; k++) {
            if (k == 1)
                append(f, s + n);
            timing t = time_library(p, f, 2);
            naive nv, nc;
            double nv_ms = time_naive(p, f, 2, 1, &nv), nc_ms = time_naive(p, f, 2, 0, &nc);
            check_agree(&t, &nv, &nc);
            row(k == 0 ? "tree, lambda only" : "tree, lambda + rho", p, f, 2, &t, nv_ms, nc_ms);
        }
        hf_family_free(f);
        free(s);
        hf_poset_free(p);
    }

    /* deep forests: a chain of 200,000 events (d = 2) and of 20,000 (d = 3) with its one
     * schedule, and a caterpillar of 100,000 events (a spine, one leaf below each spine node)
     * with its two DFS preorders; most prefixes are settled by their first schedule */
    {
        const uint32_t sizes[] = {200000, 20000};
        for (unsigned k = 0; k < 2; k++) {
            uint32_t n = sizes[k];
            uint32_t *pairs = malloc(2 * (size_t)n * sizeof *pairs), *s = malloc(n * sizeof *s);
            for (uint32_t i = 0; i + 1 < n; i++) {
                pairs[2 * i] = i;
                pairs[2 * i + 1] = i + 1;
            }
            hf_poset *p = build(n, pairs, n - 1);
            for (uint32_t i = 0; i < n; i++)
                s[i] = i;
            hf_family *f = new_family(n);
            append(f, s);
            timing t = time_library(p, f, 2 + k);
            row(k == 0 ? "chain, its schedule" : "chain, its schedule (d=3)", p, f, 2 + k, &t, -1,
                -1);
            hf_family_free(f);
            hf_poset_free(p);
            free(pairs);
            free(s);
        }
        const uint32_t n = 100000;
        uint32_t *pairs = malloc(2 * (size_t)n * sizeof *pairs);
        uint32_t *s = malloc(2 * (size_t)n * sizeof *s);
        size_t e = 0;
        for (uint32_t i = 1; i < n; i++) {
            pairs[2 * e] = i % 2 ? i - 1 : i - 2; /* spine at even ids, leaves at odd ones */
            pairs[2 * e++ + 1] = i;
        }
        hf_poset *p = build(n, pairs, e);
        preorder(p, 0, s);
        preorder(p, 1, s + n);
        hf_family *f = new_family(n);
        append(f, s);
        append(f, s + n);
        timing t = time_library(p, f, 2);
        row("caterpillar, lambda + rho", p, f, 2, &t, -1, -1);
        hf_family_free(f);
        hf_poset_free(p);
        free(pairs);
        free(s);
    }

    /* d = 3, random order of 2,000 events with random linear extensions */
    {
        const uint32_t n = 2000;
        hf_poset *p = random_dag(n, 1, 400, &rng);
        printf("# 2000-event order: %zu Hasse edges, height %u\n", hf_poset_hasse_edge_count(p),
               hf_poset_height(p));
        uint32_t *s = malloc((size_t)n * sizeof *s);
        hf_family *f = new_family(n);
        const size_t sizes[] = {10, 30, 100};
        for (size_t k = 0; k < 3; k++) {
            while (hf_family_size(f) < sizes[k]) {
                random_extension(p, &rng, s);
                append(f, s);
            }
            timing t = time_library(p, f, 3);
            row("dag 1/400, random extensions", p, f, 3, &t, -1, -1);
        }
        hf_family_free(f);
        free(s);
        hf_poset_free(p);
    }

    /* d = 3, the tuple-by-tuple check beside the library: a family grown from witnesses until
     * it is 3-hitting (both sides then run to the end; n = 100 only, since growing one for
     * n = 200 takes minutes: thousands of schedules, one verification each), and 30 random
     * extensions (n = 100, 200, 400; the counts run to the end) */
    const uint32_t sizes[] = {100, 200, 400};
    for (size_t k = 0; k < 3; k++) {
        uint32_t n = sizes[k];
        hf_poset *p = random_dag(n, 1, n / 10, &rng);
        uint32_t *s = malloc((size_t)n * sizeof *s);
        for (int fam = n <= 100 ? 0 : 1; fam < 2; fam++) {
            hf_family *f = new_family(n);
            if (fam == 0) {
                double g0 = bench_now();
                for (;;) {
                    hf_verify_options opt = {.d = 3};
                    hf_verify_result res;
                    hf_error err;
                    hf_status st = hf_verify(p, f, &opt, &res, &err);
                    if (st)
                        die("hf_verify", st, &err);
                    if (res.hitting)
                        break;
                    extension_hitting(p, res.witness, 3, &rng, s);
                    append(f, s);
                }
                printf("# n=%u: grown to %zu schedules in %.1f s\n", n, hf_family_size(f),
                       bench_now() - g0);
            } else {
                for (int i = 0; i < 30; i++) {
                    random_extension(p, &rng, s);
                    append(f, s);
                }
            }
            timing t = time_library(p, f, 3);
            naive nv, nc;
            double nv_ms = time_naive(p, f, 3, 1, &nv), nc_ms = time_naive(p, f, 3, 0, &nc);
            check_agree(&t, &nv, &nc);
            row(fam == 0 ? "dag 1/(n/10), grown to 3-hitting" : "dag 1/(n/10), 30 random ext.", p,
                f, 3, &t, nv_ms, nc_ms);
            hf_family_free(f);
        }
        free(s);
        hf_poset_free(p);
    }

    /* a focus set: a star of 300,000 events with its 3-hitting family; verify checks the order and
     * the family projected onto the focus events, so its time follows the focus set (one pass over
     * the family aside) */
    {
        const uint32_t n = 300000;
        uint32_t *pairs = malloc(2 * (size_t)n * sizeof *pairs);
        for (uint32_t i = 1; i < n; i++) {
            pairs[2 * (i - 1)] = 0;
            pairs[2 * (i - 1) + 1] = i;
        }
        hf_poset *p = build(n, pairs, n - 1);
        free(pairs);
        hf_family *f = new_family(n);
        hf_gen_options g;
        hf_gen_options_init(&g);
        g.d = 3;
        hf_error err;
        hf_status st = hf_generate(p, &g, hf_family_sink(f), NULL, &err);
        if (st)
            die("hf_generate", st, &err);
        uint32_t *focus = malloc(3000 * sizeof *focus);
        for (uint32_t i = 0; i < 3000; i++)
            focus[i] = 1 + below(&rng, n - 1);
        printf("# star of %u events, its %zu-schedule 3-hitting family, focus sets of k random "
               "leaves (d=3)\n",
               n, hf_family_size(f));
        double base = 0;
        for (uint32_t k = 375; k <= 3000; k *= 2) {
            hf_verify_options opt = {.d = 3, .focus = focus, .focus_count = k};
            hf_verify_result res;
            double t0 = bench_now();
            if ((st = hf_verify(p, f, &opt, &res, &err)))
                die("hf_verify", st, &err);
            double ms = 1e3 * (bench_now() - t0);
            base = base ? base : ms;
            printf("#   k=%4u: %8.1f ms (%.2fx k=375), %s\n", k, ms, ms / base,
                   res.hitting ? "hitting" : "NOT hitting");
            if (!res.hitting) {
                fprintf(stderr, "bench_verify: the star's family misses a focus tuple\n");
                return 1;
            }
        }
        free(focus);
        hf_family_free(f);
        hf_poset_free(p);
    }
    tree_speedup(&rng);
    return 0;
}
