/* Benchmark of the pattern method (time and peak memory of prediction and generation, one forked
 * child per case) and, with `table`, the family sizes of papers/chistikov2016/pattern_table.md. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "gen_pattern.h"
#include "hitfam/count.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_pattern", what, st, err)

/* The first n events of the complete binary tree in heap order (T_h for n = 2^(h+1) - 1). */
static hf_poset *heap_tree(uint32_t n)
{
    uint32_t *parent = malloc(n * sizeof *parent);
    for (uint32_t i = 0; i < n; i++)
        parent[i] = i ? (i - 1) / 2 : HF_NO_EVENT;
    hf_poset *p = bench_from_parents("bench_pattern", n, parent);
    free(parent);
    return p;
}

/* A chain of `len` events with `side` leaves hung from evenly spaced chain events. */
static hf_poset *chain_with_leaves(uint32_t len, uint32_t side)
{
    uint32_t n = len + side, *parent = malloc(n * sizeof *parent);
    for (uint32_t i = 0; i < len; i++)
        parent[i] = i ? i - 1 : HF_NO_EVENT;
    for (uint32_t j = 0; j < side; j++)
        parent[len + j] = (uint32_t)((uint64_t)(j + 1) * len / (side + 1));
    hf_poset *p = bench_from_parents("bench_pattern", n, parent);
    free(parent);
    return p;
}

static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Timing: each case in a child, so that ru_maxrss is the case's own peak                     */

typedef struct outcome {
    hf_status st;
    double seconds;
    long rss_kib;
    hf_i_pattern_stats stats;
    uint64_t emitted;
} outcome;

static outcome timed(const hf_poset *p, unsigned d, hf_pattern_mode mode, bool generate)
{
    outcome o = {0};
    int fd[2];
    if (pipe(fd))
        die("pipe", HF_EIO, NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork", HF_EIO, NULL);
    if (pid == 0) {
        close(fd[0]);
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = d;
        opt.method = HF_METHOD_PATTERN;
        opt.pattern_mode = mode;
        hf_sink sink = {count_put, &o.emitted};
        double t0 = bench_now();
        o.st = hf_i_pattern_run(p, &opt, 0, generate ? &sink : NULL, &o.stats, NULL);
        o.seconds = bench_now() - t0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        o.rss_kib = ru.ru_maxrss;
        if (write(fd[1], &o, sizeof o) != (ssize_t)sizeof o)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], &o, sizeof o) != (ssize_t)sizeof o)
        die("child", HF_EIO, NULL);
    close(fd[0]);
    waitpid(pid, NULL, 0);
    return o;
}

static const char *mode_name(hf_pattern_mode m)
{
    return m == HF_PATTERN_CANONICAL ? "canonical" : m == HF_PATTERN_REALISED ? "realised" : "all";
}

static void bench_case(const char *name, const hf_poset *p, unsigned d, hf_pattern_mode mode)
{
    outcome pr = timed(p, d, mode, false), ge = timed(p, d, mode, true);
    if (pr.st || ge.st) {
        printf("| %s | %u | %s | %s | | | | | | |\n", name, d, mode_name(mode),
               hf_strerror(pr.st ? pr.st : ge.st));
        return;
    }
    printf("| %s | %u | %s | %" PRIu64 " | %" PRIu64 " | %.3f | %.1f | %.3f | %.1f | %.3f |\n",
           name, d, mode_name(mode), pr.stats.patterns, pr.stats.distinct, pr.seconds,
           pr.rss_kib / 1024.0, ge.seconds, ge.rss_kib / 1024.0,
           ge.seconds > 0 ? pr.seconds / ge.seconds : 0.0);
    if (ge.emitted != pr.stats.distinct) {
        fprintf(stderr, "bench_pattern: %s: predicted %" PRIu64 ", emitted %" PRIu64 "\n", name,
                pr.stats.distinct, ge.emitted);
        exit(1);
    }
}

static void bench(void)
{
    printf("Pattern method: prediction (piece hashes, no schedule built) and generation (a sink\n"
           "that only counts), one child process per run; peak = ru_maxrss of that child.\n\n");
    printf("| tree | d | mode | patterns walked | schedules | predict s | predict MiB | "
           "generate s | generate MiB | predict/generate |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    hf_poset *heap = heap_tree(4000);
    bench_case("heap-ordered binary tree, 4000 events (height 11)", heap, 4, HF_PATTERN_REALISED);
    bench_case("heap-ordered binary tree, 4000 events (height 11)", heap, 4, HF_PATTERN_CANONICAL);
    hf_poset_free(heap);
    for (uint32_t h = 10; h <= 12; h += 2) {
        hf_poset *t = heap_tree((1u << (h + 1)) - 1);
        char name[32];
        snprintf(name, sizeof name, "T_%u", (unsigned)h);
        bench_case(name, t, 4, HF_PATTERN_CANONICAL);
        bench_case(name, t, 4, HF_PATTERN_REALISED);
        hf_poset_free(t);
    }
    hf_poset *chain = chain_with_leaves(3000, 0), *side = chain_with_leaves(2000, 20);
    for (unsigned d = 3; d <= 4; d++) {
        bench_case("chain, 3000 events", chain, d, HF_PATTERN_CANONICAL);
        bench_case("chain of 2000 events with 20 side leaves", side, d, HF_PATTERN_CANONICAL);
    }
    hf_poset_free(chain);
    hf_poset_free(side);
}

/* ---------------------------------------------------------------------------------------- */
/* The table                                                                                  */

/* Pattern shapes with at most k non-leaf nodes: arity sequences in preorder (0, 1 or 2
 * children, the two children of a two-child node told apart). */
static uint64_t shapes(uint32_t open, uint32_t nonleaf, uint32_t k)
{
    if (open == 0)
        return 1;
    uint64_t s = shapes(open - 1, nonleaf, k);
    if (nonleaf < k)
        s += shapes(open, nonleaf + 1, k) + shapes(open + 1, nonleaf + 1, k);
    return s;
}

static void cell(char *buf, size_t len, hf_status st, uint64_t v)
{
    if (st == HF_OK)
        snprintf(buf, len, "%" PRIu64, v);
    else
        snprintf(buf, len, "%s", st == HF_ETOOLARGE ? "(limit)" : hf_strerror(st));
}

/* Cells past the method's work limit are computed when `nolimit`, and marked with a star. */
static void table(uint32_t max_h, bool nolimit)
{
    printf("| h | events | d | all: patterns | all: walked | all: distinct | realised: patterns | "
           "realised: walked | realised: distinct | canonical: patterns | canonical: walked | "
           "canonical: distinct | simple | doubletree | bound | auto |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (uint32_t h = 2; h <= max_h; h++) {
        uint32_t n = (1u << (h + 1)) - 1;
        hf_poset *p = heap_tree(n);
        for (unsigned d = 3; d <= 5; d++) {
            char c[9][32];
            const hf_pattern_mode modes[3] = {HF_PATTERN_ALL, HF_PATTERN_REALISED,
                                              HF_PATTERN_CANONICAL};
            for (int i = 0; i < 3; i++) {
                hf_gen_options opt;
                hf_gen_options_init(&opt);
                opt.d = d;
                opt.method = HF_METHOD_PATTERN;
                opt.pattern_mode = modes[i];
                hf_i_pattern_stats s;
                for (int k = 0; k < 2; k++) {
                    unsigned flags = k == 0 ? HF_I_PATTERN_UNREDUCED : 0;
                    hf_status st = hf_i_pattern_run(p, &opt, flags, NULL, &s, NULL);
                    bool star = st == HF_ETOOLARGE && nolimit;
                    if (star)
                        st = hf_i_pattern_run(p, &opt, flags | HF_I_PATTERN_NO_GUARD, NULL, &s,
                                              NULL);
                    char *at = c[k == 0 ? 3 * i : 3 * i + 1];
                    cell(at, sizeof c[0], st, s.patterns);
                    if (star)
                        strcat(at, "*");
                    if (k == 1) {
                        cell(c[3 * i + 2], sizeof c[0], st, s.distinct);
                        if (star)
                            strcat(c[3 * i + 2], "*");
                    }
                }
            }
            char simple[32], dtree[32] = "", autoc[64];
            hf_gen_options opt;
            hf_gen_options_init(&opt);
            opt.d = d;
            opt.method = HF_METHOD_SIMPLE;
            uint64_t v = 0;
            hf_method chosen;
            hf_status st = hf_method_predict(p, &opt, &v, NULL, NULL);
            cell(simple, sizeof simple, st, v);
            if (d == 3) {
                opt.method = HF_METHOD_DOUBLETREE;
                st = hf_method_predict(p, &opt, &v, NULL, NULL);
                cell(dtree, sizeof dtree, st, v);
            }
            opt.method = HF_METHOD_AUTO;
            st = hf_method_predict(p, &opt, &v, &chosen, NULL);
            if (st == HF_OK)
                snprintf(autoc, sizeof autoc, "%s (%" PRIu64 ")", hf_method_name(chosen), v);
            else if (st == HF_EUNSUPPORTED)
                snprintf(autoc, sizeof autoc, "none within the limits");
            else
                snprintf(autoc, sizeof autoc, "%s", hf_strerror(st));
            /* #shapes * h^(d-1) * (2d-1)! */
            mpz_t bound;
            mpz_init(bound);
            mpz_ui_pow_ui(bound, h, d - 1);
            mpz_mul_ui(bound, bound, (unsigned long)shapes(1, 0, d - 1));
            for (unsigned k = 2; k <= 2 * d - 1; k++)
                mpz_mul_ui(bound, bound, k);
            gmp_printf("| %u | %u | %u | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                       "%Zd | %s |\n",
                       (unsigned)h, (unsigned)n, d, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
                       c[8], simple, d == 3 ? dtree : "-", bound, autoc);
            fflush(stdout);
            mpz_clear(bound);
        }
        hf_poset_free(p);
    }
    printf("\nshapes with at most d-1 non-leaf nodes: d=3: %" PRIu64 ", d=4: %" PRIu64
           ", d=5: %" PRIu64 "\n",
           shapes(1, 0, 2), shapes(1, 0, 3), shapes(1, 0, 4));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "table") == 0) {
        table(argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 12,
              argc > 3 && strcmp(argv[3], "nolimit") == 0);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: bench_pattern [table [MAX_H [nolimit]]]\n");
        return 2;
    }
    bench();
    return 0;
}
