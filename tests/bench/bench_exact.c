/* Method exact (hitfam/exact.h) measured: the time to prove the minimum on every rooted tree of a
 * given size (d = 3), the record tables of papers/smallest/ (every rooted tree up to 9 events:
 * proved optimum against auto; antichains: SCAN(d, n) against the published values).
 *   bench_exact [N]                 every N-event tree (default 8), time of each
 *   bench_exact table NMAX          every tree of 3..NMAX events: optimum, auto, doubletree
 *   bench_exact scan D NMAX BUDGET  antichains of D..NMAX events, BUDGET conflicts each */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hitfam/count.h"
#include "hitfam/exact.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_exact", what, st, err)
#define MAXN               32

/* The rooted trees of n events as canonical level sequences (root 0), in the order of Beyer
 * and Hedetniemi's successor rule ("Constant time generation of rooted trees", 1980): start
 * from the path; the next sequence copies, from the last level p above 1, the subtree pattern
 * beginning at the last earlier position q of level L[p] - 1. */
static bool next_tree(unsigned *L, unsigned n)
{
    unsigned p = n;
    while (p-- > 1)
        if (L[p] > 1)
            break;
    if (p == 0 || n < 3)
        return false;
    unsigned q = p;
    while (q-- > 0)
        if (L[q] == L[p] - 1)
            break;
    for (unsigned i = p; i < n; i++)
        L[i] = L[i - (p - q)];
    return true;
}

static hf_poset *tree_of(const unsigned *L, unsigned n)
{
    uint32_t parent[MAXN], last[MAXN];
    for (unsigned i = 0; i < n; i++) {
        parent[i] = L[i] == 0 ? HF_NO_EVENT : last[L[i] - 1];
        last[L[i]] = i;
    }
    return bench_from_parents("bench_exact", n, parent);
}

static void levels_text(const unsigned *L, unsigned n, char *buf)
{
    for (unsigned i = 0; i < n; i++)
        buf[i] = (char)('0' + L[i]);
    buf[n] = '\0';
}

static hf_exact_result solve(const hf_poset *p, unsigned d, uint64_t budget, double *secs)
{
    hf_exact_options o;
    hf_exact_options_init(&o);
    o.d = d;
    o.conflicts = budget;
    hf_family *f = NULL;
    hf_exact_result r;
    hf_error err = {0};
    double t0 = bench_now();
    hf_status st = hf_exact_solve(p, &o, &f, &r, &err);
    *secs = bench_now() - t0;
    if (st)
        die("exact", st, &err);
    hf_verify_options vo = {.d = d};
    hf_verify_result vr;
    if ((st = hf_verify(p, f, &vo, &vr, &err)) || !vr.hitting)
        die("exact's family is not hitting", st ? st : HF_EMISMATCH, &err);
    hf_family_free(f);
    return r;
}

static uint64_t predict(const hf_poset *p, unsigned d, hf_method m, hf_method *chosen, double *secs)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = m;
    uint64_t size = 0;
    hf_error err = {0};
    double t0 = bench_now();
    hf_status st = hf_method_predict(p, &opt, &size, chosen, &err);
    if (secs)
        *secs = bench_now() - t0;
    if (st)
        die("predict", st, &err);
    return size;
}

/* Every tree of n events: exact's time, its proof, and auto's size. */
static int trees(unsigned n)
{
    unsigned L[MAXN];
    for (unsigned i = 0; i < n; i++)
        L[i] = i;
    printf("method exact, d = 3, every rooted tree of %u events (default budget %u conflicts)\n", n,
           HF_EXACT_DEFAULT_CONFLICTS);
    printf("%-10s %4s %6s %9s %6s %9s %5s %-10s %8s\n", "levels", "opt", "proved", "conflicts",
           "calls", "time_s", "auto", "(method)", "auto_s");
    unsigned count = 0, unproved = 0, auto_off = 0;
    double total = 0, worst = 0, auto_worst = 0;
    do {
        hf_poset *p = tree_of(L, n);
        char text[MAXN + 1];
        levels_text(L, n, text);
        double secs, asecs;
        hf_exact_result r = solve(p, 3, 0, &secs);
        hf_method chosen;
        uint64_t a = predict(p, 3, HF_METHOD_AUTO, &chosen, &asecs);
        printf("%-10s %4zu %6s %9llu %6u %9.4f %5llu %-10s %8.4f\n", text, r.schedules,
               r.proved ? "yes" : "no", (unsigned long long)r.conflicts, r.calls, secs,
               (unsigned long long)a, hf_method_name(chosen), asecs);
        count++;
        unproved += !r.proved;
        auto_off += a != r.schedules;
        total += secs;
        worst = secs > worst ? secs : worst;
        auto_worst = asecs > auto_worst ? asecs : auto_worst;
        hf_poset_free(p);
    } while (next_tree(L, n));
    printf("\n%u trees: exact proved %u; time avg %.4f s, worst %.4f s (target: under 1 s "
           "each); auto equals the optimum on %u, auto's worst time %.4f s\n",
           count, count - unproved, total / count, worst, count - auto_off, auto_worst);
    return unproved || auto_off;
}

/* papers/smallest table (a): every tree of 3..nmax events. */
static int table(unsigned nmax)
{
    printf("| levels | events | proved optimum | auto | auto's method | doubletree | simple | "
           "lower bound (stats) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    unsigned count = 0, unproved = 0, auto_opt = 0;
    mpz_t lb;
    mpz_init(lb);
    for (unsigned n = 3; n <= nmax; n++) {
        unsigned L[MAXN];
        for (unsigned i = 0; i < n; i++)
            L[i] = i;
        do {
            hf_poset *p = tree_of(L, n);
            char text[MAXN + 1];
            levels_text(L, n, text);
            double secs;
            hf_exact_result r = solve(p, 3, 0, &secs);
            hf_method chosen;
            uint64_t a = predict(p, 3, HF_METHOD_AUTO, &chosen, NULL);
            uint64_t dt = predict(p, 3, HF_METHOD_DOUBLETREE, NULL, NULL);
            uint64_t si = predict(p, 3, HF_METHOD_SIMPLE, NULL, NULL);
            hf_error err = {0};
            hf_status st = hf_count_lower_bound(p, 3, lb, &err);
            if (st)
                die("lower bound", st, &err);
            char opt[48];
            if (r.proved)
                snprintf(opt, sizeof opt, "%zu", r.schedules);
            else
                snprintf(opt, sizeof opt, "%zu..%zu (budget)", r.lower_bound, r.schedules);
            printf("| %s | %u | %s | %llu | %s | %llu | %llu | %lu |\n", text, n, opt,
                   (unsigned long long)a, hf_method_name(chosen), (unsigned long long)dt,
                   (unsigned long long)si, mpz_get_ui(lb));
            count++;
            unproved += !r.proved;
            auto_opt += r.proved && a == r.schedules;
            hf_poset_free(p);
        } while (next_tree(L, n));
    }
    mpz_clear(lb);
    printf("\n%u trees: optimum proved on %u; auto equals it on %u\n", count, count - unproved,
           auto_opt);
    return 0;
}

/* papers/smallest table (b): antichains. */
static int scan(unsigned d, unsigned nmax, uint64_t budget)
{
    printf("| n | SCAN(%u, n) by exact | proved | conflicts | time (s) | auto |\n", d);
    printf("|---|---|---|---|---|---|\n");
    for (unsigned n = d; n <= nmax; n++) {
        uint32_t parent[MAXN];
        for (unsigned i = 0; i < n; i++)
            parent[i] = HF_NO_EVENT;
        hf_poset *p = bench_from_parents("bench_exact", n, parent);
        double secs;
        hf_exact_result r = solve(p, d, budget, &secs);
        hf_method chosen;
        uint64_t a = predict(p, d, HF_METHOD_AUTO, &chosen, NULL);
        char opt[48];
        if (r.proved)
            snprintf(opt, sizeof opt, "%zu", r.schedules);
        else
            snprintf(opt, sizeof opt, "%zu..%zu", r.lower_bound, r.schedules);
        printf("| %u | %s | %s | %llu | %.2f | %llu (%s) |\n", n, opt, r.proved ? "yes" : "no",
               (unsigned long long)r.conflicts, secs, (unsigned long long)a,
               hf_method_name(chosen));
        fflush(stdout);
        hf_poset_free(p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (!hf_exact_available()) {
        printf("bench_exact: this build has no SAT solver (meson feature sat): nothing to "
               "measure\n");
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "table") == 0)
        return table(argc >= 3 ? (unsigned)atoi(argv[2]) : 9);
    if (argc >= 2 && strcmp(argv[1], "scan") == 0 && argc == 5)
        return scan((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]),
                    (uint64_t)strtoull(argv[4], NULL, 10));
    unsigned n = argc >= 2 ? (unsigned)atoi(argv[1]) : 8;
    if (n < 3 || n > 16) {
        fprintf(stderr, "usage: bench_exact [N] | table NMAX | scan D NMAX BUDGET\n");
        return 2;
    }
    return trees(n);
}
