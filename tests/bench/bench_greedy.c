/* Benchmark of method greedy: family sizes on antichains (sequence covering arrays) for d = 3
 * and 4 and on random DAGs against method random, each case verified, with time and peak memory. */
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
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_greedy", what, st, err)

/* BENCH_GREEDY_EVERY=N prints, every N schedules greedy chooses, their number and the processor
 * time so far (stderr); BENCH_GREEDY_STOP=N stops greedy after N schedules (the case then
 * prints its progress only). Both for the DAG cases, to time rounds without a whole run. */
static hf_ctx *progress_ctx;
static uint64_t progress_every, progress_stop;
static double cpu_now(void);
static char last_log[160]; /* greedy's last progress message (its tuples left) */

static void on_log(hf_log_level level, const char *message, void *user)
{
    (void)user;
    if (level == HF_LOG_PROGRESS && !strncmp(message, "greedy: ", 8))
        snprintf(last_log, sizeof last_log, "%s", message + 8);
}

static bool on_progress(const hf_progress *pr, void *user)
{
    (void)user;
    if (strcmp(pr->task, "greedy"))
        return true;
    if (progress_every && pr->done % progress_every == 0)
        fprintf(stderr, "greedy: %" PRIu64 " schedules, cpu %.2f s (%s)\n", pr->done, cpu_now(),
                last_log);
    return !progress_stop || pr->done < progress_stop;
}

static void progress_setup(void)
{
    const char *e = getenv("BENCH_GREEDY_EVERY"), *s = getenv("BENCH_GREEDY_STOP");
    progress_every = e ? strtoull(e, NULL, 10) : 0;
    progress_stop = s ? strtoull(s, NULL, 10) : 0;
    if (!progress_every && !progress_stop)
        return;
    if (hf_ctx_new(NULL, on_log, NULL, &progress_ctx) ||
        hf_ctx_set_progress(progress_ctx, on_progress, NULL))
        die("context", HF_ENOMEM, NULL);
}

/* An antichain (edges = 0) or a random DAG: for i < j in a random permutation of the events,
 * an edge with probability avg_deg / n. */
static hf_poset *build(uint32_t n, double avg_deg, uint64_t seed)
{
    uint32_t *pairs = NULL;
    size_t m = 0, cap = 0;
    if (avg_deg > 0) {
        uint32_t *perm = malloc((size_t)n * sizeof *perm);
        if (!perm)
            die("building an order", HF_ENOMEM, NULL);
        for (uint32_t i = 0; i < n; i++)
            perm[i] = i;
        for (uint32_t i = n; i > 1; i--) {
            uint32_t j = (uint32_t)(bench_next_u64(&seed) % i), t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        uint64_t thresh = (uint64_t)((avg_deg / n) * 18446744073709551615.0);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (bench_next_u64(&seed) < thresh) {
                    if (m == cap) {
                        cap = cap ? 2 * cap : 1024;
                        pairs = realloc(pairs, 2 * cap * sizeof *pairs);
                        if (!pairs)
                            die("building an order", HF_ENOMEM, NULL);
                    }
                    pairs[2 * m] = perm[i];
                    pairs[2 * m + 1] = perm[j];
                    m++;
                }
        free(perm);
    }
    hf_poset *p = bench_from_pairs_ctx("bench_greedy", progress_ctx, n, pairs, m);
    free(pairs);
    return p;
}

typedef struct result {
    size_t size;
    double secs, cpu; /* wall clock; processor time of this process */
    bool hitting;
    uint64_t hash; /* FNV-1a of the family's schedules, to compare builds */
} result;

/* A running hash of every schedule (the forests and auto groups print one per group), so that
 * two builds can be checked to give the same families. */
static uint64_t family_hash(const hf_family *f, uint64_t h)
{
    uint32_t n = hf_family_events(f);
    for (size_t i = 0; i < hf_family_size(f); i++) {
        const uint32_t *s = hf_family_schedule(f, i);
        for (uint32_t j = 0; j < n; j++)
            h = (h ^ s[j]) * 0x100000001b3u;
        h = (h ^ 0xffffffffu) * 0x100000001b3u;
    }
    return h;
}
#define HASH0 0xcbf29ce484222325u

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* size 0: the method failed (random gives up after its sample cap) */
static result run(const hf_poset *p, unsigned d, hf_method method, uint64_t count)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = method;
    opt.count = count;
    hf_family *f;
    hf_error err = {0};
    hf_status st = hf_family_new(NULL, hf_poset_size(p), &f);
    if (st)
        die("family", st, NULL);
    double t0 = bench_now(), c0 = cpu_now();
    if ((st = hf_generate(p, &opt, hf_family_sink(f), NULL, &err))) {
        if (st == HF_EABORTED && progress_stop) {
            fprintf(stderr, "bench_greedy: stopped after %" PRIu64 " schedules, cpu %.2f s\n",
                    progress_stop, cpu_now() - c0);
            exit(0);
        }
        if (method == HF_METHOD_GREEDY)
            die("generate", st, &err);
        fprintf(stderr, "bench_greedy: %s\n", err.text);
        hf_family_free(f);
        return (result){0, bench_now() - t0, cpu_now() - c0, true, 0};
    }
    result r = {hf_family_size(f), bench_now() - t0, cpu_now() - c0, false, 0};
    r.hash = family_hash(f, HASH0);
    hf_verify_options vo = {.d = d};
    hf_verify_result vr;
    if ((st = hf_verify(p, f, &vo, &vr, &err)))
        die("verify", st, &err);
    r.hitting = vr.hitting;
    hf_family_free(f);
    return r;
}

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Each case in a child process so that its peak memory is its own. */
static void antichain_case(uint32_t n, unsigned d, const char *best)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork", HF_EIO, NULL);
    if (pid == 0) {
        hf_poset *p = build(n, 0, 0);
        result r = run(p, d, HF_METHOD_GREEDY, 0);
        printf("antichain  %5u  %u  %8zu  %-10s %-8s %9.2f %9ld  (cpu %.2f s, family %016" PRIx64
               ")\n",
               (unsigned)n, d, r.size, best, r.hitting ? "yes" : "NO", r.secs, peak_kb() / 1024,
               r.cpu, r.hash);
        hf_poset_free(p);
        fflush(stdout);
        _exit(r.hitting ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        printf("antichain %u d=%u: child failed\n", (unsigned)n, d);
}

static void dag_case(uint32_t n, double deg)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork", HF_EIO, NULL);
    if (pid == 0) {
        hf_poset *p = build(n, deg, n);
        /* Random until covered needs thousands of samples here (and its Markov chain sampler
         * costs up to n^3 ln n steps each): instead take the first 2g samples of its stream;
         * if they do not hit every tuple, its until-covered family has more than 2g. */
        result g = run(p, 3, HF_METHOD_GREEDY, 0), r = {0, 0, 0, true, 0};
        char other[48] = "random -";
        if (n <= 200) {
            r = run(p, 3, HF_METHOD_RANDOM, 2 * g.size);
            snprintf(other, sizeof other, "random %s %zu", r.hitting ? "<=" : ">", r.size);
            r.hitting = true;
        }
        printf("dag deg %.0f %5u  3  %8zu  %-12s %-6s %9.2f %9ld  (cpu %.2f s, family %016" PRIx64
               ")\n",
               deg, (unsigned)n, g.size, other, g.hitting ? "yes" : "NO", g.secs, peak_kb() / 1024,
               g.cpu, g.hash);
        hf_poset_free(p);
        fflush(stdout);
        _exit(g.hitting && r.hitting ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        printf("dag %u: child failed\n", (unsigned)n);
}

static hf_status count_put(void *user, const uint32_t *schedule, uint32_t n)
{
    (void)schedule;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

/* The size of method `method`'s family (chains, ...) on the random DAG of dag_case(n, deg):
 * generated and counted, neither kept nor verified here (such families run to hundreds of
 * thousands of schedules). */
static void other_case(uint32_t n, double deg, hf_method method, const char *name)
{
    hf_poset *p = build(n, deg, n);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    opt.method = method;
    hf_error err = {0};
    uint64_t size = 0;
    double c0 = cpu_now();
    hf_sink count = {count_put, &size};
    hf_status st = hf_generate(p, &opt, count, NULL, &err);
    if (st)
        die("generate", st, &err);
    printf("%-8s deg %.0f %5u  3  %8" PRIu64 "  (not verified, cpu %.2f s)\n", name, deg,
           (unsigned)n, size, cpu_now() - c0);
    hf_poset_free(p);
}

/* A random recursive tree (each event's parent uniform among the earlier ones), as small
 * recorded async programs look: the 54- and 56-event trees of the greedy timing targets. */
static void tree_case(uint32_t n, uint64_t seed)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork", HF_EIO, NULL);
    if (pid == 0) {
        uint32_t parent[1024];
        uint64_t s = seed;
        parent[0] = HF_NO_EVENT;
        for (uint32_t v = 1; v < n && v < 1024; v++)
            parent[v] = (uint32_t)(bench_next_u64(&s) % v);
        hf_poset *p = bench_from_parents("bench_greedy", n, parent);
        result g = run(p, 3, HF_METHOD_GREEDY, 0), dt = run(p, 3, HF_METHOD_DOUBLETREE, 0);
        char other[48];
        snprintf(other, sizeof other, "doubletree %zu", dt.size);
        printf("rrt s%-4u %5u  3  %8zu  %-12s %-6s %9.2f %9ld  (cpu %.2f s, family %016" PRIx64
               ")\n",
               (unsigned)seed, (unsigned)n, g.size, other, g.hitting ? "yes" : "NO", g.secs,
               peak_kb() / 1024, g.cpu, g.hash);
        hf_poset_free(p);
        fflush(stdout);
        _exit(g.hitting && dt.hitting ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        printf("tree %u: child failed\n", (unsigned)n);
}

/* A random recursive tree of n <= 64 events: each event after the first hangs from a uniformly
 * chosen earlier one. */
static hf_poset *random_recursive_tree(uint32_t n, uint64_t *s)
{
    uint32_t parent[64];
    parent[0] = HF_NO_EVENT;
    for (uint32_t v = 1; v < n && v < 64; v++)
        parent[v] = (uint32_t)(bench_next_u64(s) % v);
    return bench_from_parents("bench_greedy", n, parent);
}

/* Small forests: `count` random recursive trees of n events (d = 3), greedy's processor time
 * (mean and largest, milliseconds) and its mean size against doubletree's. */
static void forests_case(uint32_t n, unsigned count)
{
    double sum = 0, worst = 0;
    size_t gs = 0, ds = 0;
    bool ok = true;
    uint64_t s = n, h = HASH0;
    for (unsigned i = 0; i < count; i++) {
        hf_poset *p = random_recursive_tree(n, &s);
        result g = run(p, 3, HF_METHOD_GREEDY, 0), dt = run(p, 3, HF_METHOD_DOUBLETREE, 0);
        h = (h ^ g.hash) * 0x100000001b3u;
        ok = ok && g.hitting && dt.hitting;
        sum += g.cpu;
        worst = g.cpu > worst ? g.cpu : worst;
        gs += g.size;
        ds += dt.size;
        hf_poset_free(p);
    }
    printf("forests %2u x %-3u  3  %8.2f  doubletree %-5.2f %-6s  cpu ms mean %.1f, max %.1f  "
           "(families %016" PRIx64 ")\n",
           count, (unsigned)n, (double)gs / count, (double)ds / count, ok ? "yes" : "NO",
           1000 * sum / count, 1000 * worst, h);
}

/* auto on small forests: `count` random recursive trees of n events (d = 3), auto's mean size
 * and processor time (mean and largest, milliseconds), how often it picked greedy, and the
 * smallest tree method's mean size (doubletree, simple, dfs, scramble) for comparison. */
static void auto_case(uint32_t n, unsigned count)
{
    static const hf_method trees[] = {HF_METHOD_DFS, HF_METHOD_DOUBLETREE, HF_METHOD_SIMPLE,
                                      HF_METHOD_SCRAMBLE};
    double sum = 0, worst = 0;
    size_t as = 0, ts = 0;
    unsigned greedy = 0, exact = 0;
    bool ok = true;
    uint64_t s = n;
    for (unsigned i = 0; i < count; i++) {
        hf_poset *p = random_recursive_tree(n, &s);
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = 3;
        hf_method used = HF_METHOD_AUTO;
        hf_error err = {0};
        uint64_t ignored;
        hf_status st = hf_method_predict(p, &opt, &ignored, &used, &err);
        if (st)
            die("auto", st, &err);
        greedy += used == HF_METHOD_GREEDY;
        exact += used == HF_METHOD_EXACT;
        result a = run(p, 3, HF_METHOD_AUTO, 0);
        ok = ok && a.hitting;
        sum += a.cpu;
        worst = a.cpu > worst ? a.cpu : worst;
        as += a.size;
        size_t best = 0;
        for (size_t k = 0; k < sizeof trees / sizeof *trees; k++) {
            hf_gen_options o = opt;
            o.method = trees[k];
            if (hf_method_check(p, &o, NULL) != HF_OK)
                continue;
            result t = run(p, 3, trees[k], 0);
            best = !best || (t.size && t.size < best) ? t.size : best;
        }
        ts += best;
        hf_poset_free(p);
    }
    printf("auto %2u x %-3u  3  %8.2f  tree methods %-5.2f %-6s  greedy %u, exact %u,  cpu ms "
           "mean %.1f, max %.1f\n",
           count, (unsigned)n, (double)as / count, (double)ts / count, ok ? "yes" : "NO", greedy,
           exact, 1000 * sum / count, 1000 * worst);
}

static bool wanted(int argc, char **argv, const char *group)
{
    if (argc < 2)
        return true;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], group))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    /* sequence covering arrays SCA(3, n), n = 4..16: the optima for n <= 8, then the targets
     * and the range of best known sizes given in the brief of this method */
    static const char *best3[] = {"6",     "7",     "8",     "8",     "8",     "<= 9", "<= 9",
                                  "~9-10", "~9-10", "~9-10", "~9-10", "~9-10", "~9-10"};
    printf("method greedy, seed 0 (case, events, d, schedules, best known or other method, "
           "verified, seconds, peak MiB)\n");
    printf("%-10s %6s %2s %9s  %-10s %-8s %9s %9s\n", "case", "n", "d", "size", "best", "hitting",
           "seconds", "peak MiB");
    progress_setup();
    if (wanted(argc, argv, "small"))
        for (uint32_t n = 4; n <= 16; n++)
            antichain_case(n, 3, best3[n - 4]);
    if (wanted(argc, argv, "large")) {
        antichain_case(100, 3, "< 28");
        antichain_case(200, 3, "-");
        antichain_case(1000, 3, "< 40");
    }
    if (wanted(argc, argv, "d4")) {
        antichain_case(6, 4, "24");
        antichain_case(10, 4, "-");
        antichain_case(20, 4, "-");
    }
    if (wanted(argc, argv, "dags")) {
        dag_case(50, 3);
        dag_case(200, 3);
        dag_case(1000, 3);
    }
    if (wanted(argc, argv, "trees")) {
        tree_case(54, 54);
        tree_case(56, 56);
    }
    if (wanted(argc, argv, "forests")) {
        forests_case(8, 20);
        forests_case(12, 20);
        forests_case(16, 20);
        forests_case(24, 10);
        forests_case(32, 10);
    }
    if (wanted(argc, argv, "auto")) {
        auto_case(8, 20);
        auto_case(12, 20);
        auto_case(16, 20);
        auto_case(24, 10);
        auto_case(32, 10);
    }
    if (wanted(argc, argv, "dag1000")) {
        dag_case(1000, 2);
        dag_case(1000, 8);
    }
    /* one random DAG: dag:N:DEG (N events, mean degree DEG), e.g. dag:1000:8; chains:N:DEG runs
     * method chains on the same DAG */
    for (int i = 1; i < argc; i++) {
        unsigned nn;
        double deg;
        if (sscanf(argv[i], "dag:%u:%lf", &nn, &deg) == 2 && nn > 0 && deg > 0)
            dag_case(nn, deg);
        else if (sscanf(argv[i], "chains:%u:%lf", &nn, &deg) == 2 && nn > 0 && deg > 0)
            other_case(nn, deg, HF_METHOD_CHAINS, "chains");
    }
    return 0;
}
