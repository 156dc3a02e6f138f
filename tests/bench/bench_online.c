/* Scheduler overhead of hf_online: the time per event (post + next) of a run of 10^6 events,
 * against a plain FIFO queue driving the same program in the same process. Prints numbers; the
 * target is a ratio within 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hitfam/online_inline.h>

#include "bench_util.h"

static const char *prog = "bench_online";

/* CPU seconds of this thread (user and system, page faults included): on a shared machine wall
 * time mostly measures the wait for a core, which no ratio survives. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The program: a forest given by its children lists (CSR); a handler posts its children. */
typedef struct forest {
    uint32_t n, nroots;
    uint32_t *off, *kids, *roots;
} forest;

enum { RECURSIVE, DEEP, BINARY };

/* A random recursive forest (each event after the first r picks a parent among the earlier
 * ones), a "deep" one: a spine with side branches (each event's parent is the previous event
 * with probability 1/2, else a random earlier one among the last 64), or a complete binary tree
 * (ids in breadth-first order). */
static forest make_forest(uint32_t n, uint32_t r, int kind, uint64_t seed)
{
    forest f = {n, 0, NULL, NULL, NULL};
    uint32_t *par = malloc(n * sizeof *par);
    f.off = calloc((size_t)n + 2, sizeof *f.off);
    f.kids = malloc(n * sizeof *f.kids);
    f.roots = malloc(n * sizeof *f.roots);
    if (!par || !f.off || !f.kids || !f.roots)
        bench_die(prog, "malloc", HF_ENOMEM, NULL);
    for (uint32_t v = 0; v < n; v++) {
        if (v < r) {
            par[v] = HF_NO_EVENT;
            f.roots[f.nroots++] = v;
            continue;
        }
        uint64_t x = bench_next_u64(&seed);
        if (kind == BINARY)
            par[v] = (v - 1) / 2;
        else if (kind == DEEP)
            par[v] = (x & 1) ? v - 1 : v - 1 - (uint32_t)((x >> 1) % (v < 64 ? v : 64));
        else
            par[v] = (uint32_t)((x >> 1) % v);
    }
    for (uint32_t v = 0; v < n; v++)
        if (par[v] != HF_NO_EVENT)
            f.off[par[v] + 2]++;
    for (uint32_t v = 0; v < n; v++)
        f.off[v + 2] += f.off[v + 1];
    for (uint32_t v = 0; v < n; v++)
        if (par[v] != HF_NO_EVENT)
            f.kids[f.off[par[v] + 1]++] = v;
    free(par);
    return f;
}

static volatile uint64_t sink; /* the handlers' work: a checksum, so nothing is optimised away */

/* One run under a FIFO queue (a ring of event ids). Returns seconds. */
static double run_fifo(const forest *f)
{
    uint32_t *q = malloc(f->n * sizeof *q);
    if (!q)
        bench_die(prog, "malloc", HF_ENOMEM, NULL);
    double t0 = cpu_now();
    uint32_t head = 0, tail = 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < f->nroots; i++)
        q[tail++] = f->roots[i];
    while (head < tail) {
        uint32_t v = q[head++];
        sum += v;
        for (uint32_t k = f->off[v]; k < f->off[v + 1]; k++)
            q[tail++] = f->kids[k];
    }
    double t = cpu_now() - t0;
    sink = sum;
    free(q);
    return t;
}

/* One run under a plain stack (last in, first out), the order strategy dfs plays in its second
 * run: the same memory traffic as the online runs' order, without the scheduler. */
static double run_stack(const forest *f)
{
    uint32_t *q = malloc(f->n * sizeof *q);
    if (!q)
        bench_die(prog, "malloc", HF_ENOMEM, NULL);
    double t0 = cpu_now();
    uint32_t sp = 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < f->nroots; i++)
        q[sp++] = f->roots[i];
    while (sp > 0) {
        uint32_t v = q[--sp];
        sum += v;
        for (uint32_t k = f->off[v]; k < f->off[v + 1]; k++)
            q[sp++] = f->kids[k];
    }
    double t = cpu_now() - t0;
    sink = sum;
    free(q);
    return t;
}

static const char *names[] = {"click", "load", "timer", "xhr"};

/* The largest number of children of an event, or of roots. */
static uint32_t max_children(const forest *f)
{
    uint32_t m = f->nroots;
    for (uint32_t v = 0; v < f->n; v++)
        m = f->off[v + 1] - f->off[v] > m ? f->off[v + 1] - f->off[v] : m;
    return m;
}

/* One run's loop of one step call per event (@p lab NULL: no labels): the sum of the events'
 * values. Written once for hf_online_step and once for hf_online_step_fast, each in a function
 * of its own, so that neither harness is compiled around the other's code. */
#define STEP_LOOP(name, step_fn)                                                                   \
    static uint64_t name(hf_online *s, const forest *f, const char **lab, uint64_t *val)           \
    {                                                                                              \
        uint32_t e;                                                                                \
        uint64_t v, sum = 0;                                                                       \
        hf_error err;                                                                              \
        for (uint32_t i = 0; i < f->nroots; i++) {                                                 \
            val[i] = f->roots[i];                                                                  \
            if (lab)                                                                               \
                lab[i] = names[i & 3];                                                             \
        }                                                                                          \
        hf_status rc = step_fn(s, f->nroots, lab, val, &e, &v, &err);                              \
        while (!rc && e != HF_NO_EVENT) {                                                          \
            sum += v;                                                                              \
            uint32_t k0 = f->off[v], k1 = f->off[v + 1];                                           \
            for (uint32_t k = k0; k < k1; k++) {                                                   \
                val[k - k0] = f->kids[k];                                                          \
                if (lab)                                                                           \
                    lab[k - k0] = names[k & 3];                                                    \
            }                                                                                      \
            rc = step_fn(s, k1 - k0, lab, val, &e, &v, &err);                                      \
        }                                                                                          \
        if (rc)                                                                                    \
            bench_die(prog, "step", rc, &err);                                                     \
        return sum;                                                                                \
    }
STEP_LOOP(step_loop, hf_online_step)
STEP_LOOP(step_loop_fast, hf_online_step_fast)

/* STEP_LOOP with the labels passed as the session's ids of them (@p lab NULL: no labels), through
 * hf_online_step_ids_fast. */
static uint64_t step_loop_ids(hf_online *s, const forest *f, uint32_t *lab, const uint32_t *ids,
                              uint64_t *val)
{
    uint32_t e;
    uint64_t v, sum = 0;
    hf_error err;
    for (uint32_t i = 0; i < f->nroots; i++) {
        val[i] = f->roots[i];
        if (lab)
            lab[i] = ids[i & 3];
    }
    hf_status rc = hf_online_step_ids_fast(s, f->nroots, lab, val, &e, &v, &err);
    while (!rc && e != HF_NO_EVENT) {
        sum += v;
        uint32_t k0 = f->off[v], k1 = f->off[v + 1];
        for (uint32_t k = k0; k < k1; k++) {
            val[k - k0] = f->kids[k];
            if (lab)
                lab[k - k0] = ids[k & 3];
        }
        rc = hf_online_step_ids_fast(s, k1 - k0, lab, val, &e, &v, &err);
    }
    if (rc)
        bench_die(prog, "step", rc, &err);
    return sum;
}

/* Runs of the same program under hf_online: seconds of each run (post + next + end_run). With
 * @p step false the harness posts one child at a time (hf_online_post_user, hf_online_next, the
 * event's value kept with it); else it makes one hf_online_step call per event (with @p fast,
 * hf_online_step_fast, whose usual case is compiled in here), which posts the event's children
 * and returns the next event. The step harness fills each event's labels and
 * values in small buffers as the one-at-a-time harness computes them for its calls, so it reads
 * no array the others do not, and the value travels with the event as there. */
static void run_online(const forest *f, bool step, bool fast, bool hint, bool by_id,
                       hf_online_strategy st, unsigned d, bool labels, int runs, double *secs)
{
    size_t mc = (size_t)max_children(f) + 1;
    const char **lab = malloc(mc * sizeof *lab);
    uint32_t *lab_ids = malloc(mc * sizeof *lab_ids), ids[4];
    uint64_t *val = malloc(mc * sizeof *val);
    if (!lab || !lab_ids || !val)
        bench_die(prog, "malloc", HF_ENOMEM, NULL);
    /* run 1 is charged for the session's creation, where a size hint reserves its memory */
    double t0 = cpu_now();
    hf_online_options o;
    hf_online_options_init(&o);
    o.d = d;
    o.strategy = st;
    if (hint) {
        o.size_hint = f->n;
        o.huge_pages = true;
    }
    hf_online *s;
    hf_error err;
    hf_status rc = hf_online_new(NULL, &o, &s, &err);
    if (rc)
        bench_die(prog, "hf_online_new", rc, &err);
    for (int i = 0; by_id && i < 4; i++)
        if ((rc = hf_online_label_id(s, names[i], &ids[i], &err)) != HF_OK)
            bench_die(prog, "hf_online_label_id", rc, &err);
    for (int r = 0; r < runs; r++) {
        if (r > 0)
            t0 = cpu_now();
        uint64_t sum = 0;
        if ((rc = hf_online_begin_run(s, &err)) != HF_OK)
            bench_die(prog, "begin_run", rc, &err);
        if (by_id) {
            sum = step_loop_ids(s, f, labels ? lab_ids : NULL, ids, val);
        } else if (step) {
            sum = fast ? step_loop_fast(s, f, labels ? lab : NULL, val)
                       : step_loop(s, f, labels ? lab : NULL, val);
        } else {
            for (uint32_t i = 0; i < f->nroots; i++) {
                if ((rc = hf_online_post_user(s, HF_NO_EVENT, labels ? names[i & 3] : NULL,
                                              f->roots[i], NULL, &err)))
                    bench_die(prog, "post", rc, &err);
            }
            while (hf_online_pending(s) > 0) {
                uint32_t e;
                if ((rc = hf_online_next(s, &e, &err)) != HF_OK)
                    bench_die(prog, "next", rc, &err);
                uint32_t v = (uint32_t)hf_online_event_user(s, e);
                sum += v;
                for (uint32_t k = f->off[v]; k < f->off[v + 1]; k++)
                    if ((rc = hf_online_post_user(s, e, labels ? names[k & 3] : NULL, f->kids[k],
                                                  NULL, &err)))
                        bench_die(prog, "post", rc, &err);
            }
        }
        hf_online_run_result res;
        if ((rc = hf_online_end_run(s, &res, &err)) != HF_OK)
            bench_die(prog, "end_run", rc, &err);
        secs[r] = cpu_now() - t0;
        sink = sum;
    }
    free(lab);
    free(lab_ids);
    free(val);
    hf_online_free(s);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    printf("# hf_online overhead: seconds per event of one run of %u events, against a FIFO\n"
           "# queue driving the same handlers (one queue push per child); thread CPU time, best\n"
           "# of 3; post: one hf_online_post_user per child, hf_online_next per event; step: one\n"
           "# hf_online_step per event (its children posted in the call); hint: step, with the\n"
           "# options size_hint (the run's events) and huge_pages; fast: hf_online_step_fast\n"
           "# (hitfam/online_inline.h), no hint; ids: hf_online_step_ids_fast, the labels\n"
           "# interned once by hf_online_label_id and passed as ids; ratio = online / fifo;\n"
           "# run 1 includes hf_online_new\n",
           n);
    printf("%-10s %-10s %-3s %3s %6s %6s | %7s %6s %5s | %7s %6s %5s | %7s %6s %5s | %7s %6s "
           "%5s | %7s %6s %5s\n",
           "forest", "strategy", "lab", "run", "fifo", "lifo", "post ns", "/fifo", "/lifo",
           "step ns", "/fifo", "/lifo", "hint ns", "/fifo", "/lifo", "fast ns", "/fifo", "/lifo",
           "ids ns", "/fifo", "/lifo");
    static const struct {
        const char *name;
        int kind;
        uint32_t roots;
    } shapes[] = {{"recursive", RECURSIVE, 4}, {"deep-spine", DEEP, 1}, {"binary", BINARY, 1}};
    static const struct {
        hf_online_strategy st;
        unsigned d;
    } strategies[] = {{HF_ONLINE_DFS, 2}, {HF_ONLINE_DOUBLETREE, 3}};
    enum { PATHS = 5 };
    double worst[PATHS][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}; /* [path][run] */
    /* optional selection, for profiling one case: a shape, a strategy, labels (yes or no), a
     * path (post, step, hint, fast, ids), how many runs each session plays (1: the first run
     * alone) and of how many sessions the best is taken; "all" or nothing for every one */
    const char *only = argc > 2 && strcmp(argv[2], "all") != 0 ? argv[2] : NULL;
    const char *only_st = argc > 3 && strcmp(argv[3], "all") != 0 ? argv[3] : NULL;
    const char *only_lab = argc > 4 && strcmp(argv[4], "all") != 0 ? argv[4] : NULL;
    const char *only_path = argc > 5 && strcmp(argv[5], "all") != 0 ? argv[5] : NULL;
    int nruns = argc > 6 ? atoi(argv[6]) : 2;
    int sessions = argc > 7 ? atoi(argv[7]) : 3; /* the best of how many (1: a fresh process's) */
    static const char *path_names[PATHS] = {"post", "step", "hint", "fast", "ids"};
    if (nruns < 1 || nruns > 2)
        nruns = 2;
    if (sessions < 1)
        sessions = 3;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        if (only && strcmp(only, shapes[i].name) != 0)
            continue;
        forest f = make_forest(n, shapes[i].roots, shapes[i].kind, 42 + i);
        double fifo = 1e9, lifo = 1e9;
        for (int k = 0; k < 3; k++) {
            double t = run_fifo(&f);
            fifo = t < fifo ? t : fifo;
            t = run_stack(&f);
            lifo = t < lifo ? t : lifo;
        }
        for (size_t j = 0; j < sizeof strategies / sizeof strategies[0]; j++)
            for (int labels = 0; labels <= 1; labels++) {
                if ((only_st && strcmp(only_st, hf_online_strategy_name(strategies[j].st)) != 0) ||
                    (only_lab && strcmp(only_lab, labels ? "yes" : "no") != 0))
                    continue;
                /* runs 1 and 2: the first builds the union forest, the second matches it; the
                 * paths alternate so that all see the same load; the fast path runs right
                 * after the step path it is compared with (a path run right after hint's
                 * huge-page sessions measured about 1 ns per event slower on the binary tree,
                 * whichever it was), and the ids path right after it */
                static const int order[PATHS] = {0, 1, 3, 4, 2};
                double best[PATHS][2] = {
                    {1e9, 1e9}, {1e9, 1e9}, {1e9, 1e9}, {1e9, 1e9}, {1e9, 1e9}};
                for (int k = 0; k < sessions; k++)
                    for (int p = 0; p < PATHS; p++) {
                        int path = order[p];
                        double secs[2] = {1e9, 1e9};
                        if (only_path && strcmp(only_path, path_names[path]) != 0)
                            continue;
                        run_online(&f, path >= 1, path == 3, path == 2, path == 4, strategies[j].st,
                                   strategies[j].d, labels, nruns, secs);
                        for (int r = 0; r < 2; r++)
                            best[path][r] = secs[r] < best[path][r] ? secs[r] : best[path][r];
                    }
                for (int r = 0; r < nruns; r++) {
                    printf("%-10s %-10s %-3s %3d %6.2f %6.2f", shapes[i].name,
                           hf_online_strategy_name(strategies[j].st), labels ? "yes" : "no", r + 1,
                           1e9 * fifo / n, 1e9 * lifo / n);
                    for (int path = 0; path < PATHS; path++) {
                        double ratio = best[path][r] / fifo;
                        if (best[path][r] >= 1e9) {
                            printf(" | %7s %6s %5s", "-", "-", "-");
                            continue;
                        }
                        worst[path][r] = ratio > worst[path][r] ? ratio : worst[path][r];
                        printf(" | %7.2f %6.2f %5.2f", 1e9 * best[path][r] / n, ratio,
                               best[path][r] / lifo);
                    }
                    printf("\n");
                }
            }
        free(f.off);
        free(f.kids);
        free(f.roots);
    }
    printf("# worst ratio to the FIFO queue: post: first run %.2f, later runs %.2f; step: first "
           "run %.2f, later runs %.2f; hint: first run %.2f, later runs %.2f; fast: first run "
           "%.2f, later runs %.2f; ids: first run %.2f, later runs %.2f (target: within 5)\n",
           worst[0][0], worst[0][1], worst[1][0], worst[1][1], worst[2][0], worst[2][1],
           worst[3][0], worst[3][1], worst[4][0], worst[4][1]);
    return 0;
}
