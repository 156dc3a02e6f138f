/* Benchmark of the tree methods for d = 3: families of million-event trees streamed to a file
 * (time, peak memory, size against the cost of reading the file), a long chain, and wide trees. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "forest.h"
#include "gen.h"
#include "hitfam/count.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_trees", what, st, err)

/* ---------------------------------------------------------------------------------------- */
/* The shapes                                                                                */

typedef struct shape {
    const char *name;
    const char *desc;
    uint32_t n;
    uint32_t *parent;
} shape;

static uint32_t *parents_alloc(uint32_t n)
{
    uint32_t *p = malloc((size_t)n * sizeof *p);
    if (!p) {
        fprintf(stderr, "bench_trees: out of memory\n");
        exit(1);
    }
    return p;
}

/* Complete binary tree T_h in heap order. */
static shape complete_binary(uint32_t h)
{
    uint32_t n = (1u << (h + 1)) - 1;
    uint32_t *par = parents_alloc(n);
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < n; i++)
        par[i] = (i - 1) / 2;
    return (shape){"complete", "complete binary tree T_19 (heap order)", n, par};
}

/* Random recursive tree: event i hangs below a uniformly chosen earlier event. */
static shape random_recursive(uint32_t n, uint64_t seed)
{
    uint32_t *par = parents_alloc(n);
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < n; i++)
        par[i] = (uint32_t)(bench_next_u64(&seed) % i);
    return (shape){"random", "random recursive tree, seed 42", n, par};
}

/* The same random tree with ids renumbered in preorder (children in id order): the same family,
 * but the schedules read the order's arrays almost sequentially. */
static shape random_preorder(uint32_t n, uint64_t seed)
{
    shape s = random_recursive(n, seed);
    uint32_t *cnt = calloc((size_t)n + 1, sizeof *cnt), *kids = parents_alloc(n),
             *stack = parents_alloc(n), *pre = parents_alloc(n), *par = parents_alloc(n);
    if (!cnt) {
        fprintf(stderr, "bench_trees: out of memory\n");
        exit(1);
    }
    for (uint32_t i = 1; i < n; i++)
        cnt[s.parent[i] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        cnt[v + 1] += cnt[v];
    for (uint32_t i = 1; i < n; i++) /* increasing i: children in id order */
        kids[cnt[s.parent[i]]++] = i;
    for (uint32_t v = n; v > 0; v--) /* cnt[v] is now the end of v's children: shift back */
        cnt[v] = cnt[v - 1];
    cnt[0] = 0;
    uint32_t top = 0, k = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t v = stack[--top];
        pre[v] = k++;
        for (uint32_t j = cnt[v + 1]; j > cnt[v]; j--)
            stack[top++] = kids[j - 1];
    }
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < n; i++)
        par[pre[i]] = pre[s.parent[i]];
    free(cnt);
    free(kids);
    free(stack);
    free(pre);
    free(s.parent);
    return (shape){"random-pre", "random recursive tree, seed 42, preorder ids", n, par};
}

/* A chain c_0 < ... < c_{len-1}; chain event i with i % every == every - 1 gets a side child. */
static shape chain_with_sides(uint32_t len, uint32_t every)
{
    uint32_t sides = len / every, n = len + sides;
    uint32_t *par = parents_alloc(n);
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < len; i++)
        par[i] = i - 1;
    for (uint32_t s = 0; s < sides; s++)
        par[len + s] = s * every + every - 1;
    return (shape){"chain", "chain of 200,000 + a side leaf on every 1000th chain event", n, par};
}

/* Wide shape A: the root has `deg` children; `heavy` of them, spread evenly, are roots of
 * complete binary trees T_sub, the others are leaves. Height sub + 1 edges. */
static shape wide_root(uint32_t deg, uint32_t heavy, uint32_t sub)
{
    uint32_t tsize = (1u << (sub + 1)) - 1;
    uint32_t n = 1 + deg + heavy * (tsize - 1);
    uint32_t *par = parents_alloc(n);
    par[0] = HF_NO_EVENT;
    for (uint32_t c = 0; c < deg; c++)
        par[1 + c] = 0;
    uint32_t next = 1 + deg;
    for (uint32_t k = 0; k < heavy; k++) {
        uint32_t croot = 1 + (uint32_t)((uint64_t)k * deg / heavy);
        /* heap-ordered T_sub whose heap index 0 is croot and index j >= 1 is next + j - 1 */
        for (uint32_t j = 1; j < tsize; j++) {
            uint32_t pj = (j - 1) / 2;
            par[next + j - 1] = pj == 0 ? croot : next + pj - 1;
        }
        next += tsize - 1;
    }
    return (shape){"wideA", NULL, n, par};
}

/* Wide shape B: complete binary tree T_h whose leftmost deepest leaf gets `deg` leaf children
 * (height h + 1 edges). */
static shape wide_leaf(uint32_t h, uint32_t deg)
{
    uint32_t tn = (1u << (h + 1)) - 1, n = tn + deg;
    uint32_t *par = parents_alloc(n);
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < tn; i++)
        par[i] = (i - 1) / 2;
    uint32_t leaf = (1u << h) - 1; /* first node of depth h in heap order */
    for (uint32_t c = 0; c < deg; c++)
        par[tn + c] = leaf;
    return (shape){"wideB", NULL, n, par};
}

/* Wide shape C: a spine of `len` events, each with `deg` - 1 leaf children and the next spine
 * event as its last child: the case where naive gadgets stack up (h * log2(degree)). */
static shape wide_spine(uint32_t len, uint32_t deg)
{
    uint32_t n = len + len * (deg - 1);
    uint32_t *par = parents_alloc(n);
    uint32_t next = len;
    for (uint32_t i = 0; i < len; i++) {
        par[i] = i ? i - 1 : HF_NO_EVENT;
        for (uint32_t c = 0; c + 1 < deg; c++)
            par[next++] = i;
    }
    return (shape){"wideC", NULL, n, par};
}

/* ---------------------------------------------------------------------------------------- */
/* (a)-(c): generation streamed to a file, one forked child per case                         */

typedef struct run_result {
    int ok;
    char method[16];
    double t_build, t_predict, t_gen;
    long rss_build_kib, rss_peak_kib;
    uint64_t predicted, schedules, bytes, dt_size, simple_size;
    uint32_t events, bin_height;
} run_result;

static hf_status count_put(void *user, const uint32_t *schedule, uint32_t n)
{
    (void)schedule;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

/* path NULL: the schedules are only counted (a family too large for any disk). */
static void run_child(const shape *s, const char *path, run_result *r)
{
    struct rusage ru;
    double t0 = bench_now();
    hf_poset *p = bench_from_parents("bench_trees", s->n, s->parent);
    r->t_build = bench_now() - t0;
    getrusage(RUSAGE_SELF, &ru);
    r->rss_build_kib = ru.ru_maxrss;
    r->events = hf_poset_size(p);
    hf_status st_h;
    if ((st_h = hf_poset_tree_height(p, &r->bin_height)) != HF_OK)
        die("tree height", st_h, NULL);

    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    opt.method = HF_METHOD_AUTO;
    hf_error err = {0};
    hf_method chosen = HF_METHOD_AUTO;
    t0 = bench_now();
    hf_status st = hf_method_predict(p, &opt, &r->predicted, &chosen, &err);
    r->t_predict = bench_now() - t0;
    if (st)
        die("predict", st, &err);
    opt.method = HF_METHOD_DOUBLETREE;
    if ((st = hf_method_predict(p, &opt, &r->dt_size, NULL, &err)))
        die("predict doubletree", st, &err);
    opt.method = HF_METHOD_SIMPLE;
    if ((st = hf_method_predict(p, &opt, &r->simple_size, NULL, &err)))
        die("predict simple", st, &err);
    opt.method = HF_METHOD_AUTO;

    t0 = bench_now();
    if (!path) {
        hf_method used = HF_METHOD_AUTO;
        st = hf_generate(p, &opt, (hf_sink){count_put, &r->schedules}, &used, &err);
        r->t_gen = bench_now() - t0;
        if (st)
            die("generate", st, &err);
        getrusage(RUSAGE_SELF, &ru);
        r->rss_peak_kib = ru.ru_maxrss;
        snprintf(r->method, sizeof r->method, "%s", hf_method_name(used));
        hf_poset_free(p);
        r->ok = 1;
        return;
    }
    FILE *out = fopen(path, "wb");
    if (!out) {
        perror(path);
        exit(1);
    }
    hf_family_header h = {3, hf_method_name(chosen), true, r->predicted, 0, 0};
    hf_writer *w;
    if ((st = hf_writer_new(p, out, HF_FORMAT_TEXT, &h, &w)))
        die("writer", st, NULL);
    hf_method used = HF_METHOD_AUTO;
    st = hf_generate(p, &opt, hf_writer_sink(w), &used, &err);
    r->schedules = hf_writer_count(w);
    hf_status cst = hf_writer_close(w);
    if (fclose(out) != 0 && !cst)
        cst = HF_EIO;
    r->t_gen = bench_now() - t0;
    if (st)
        die("generate", st, &err);
    if (cst)
        die("writing", cst, NULL);
    getrusage(RUSAGE_SELF, &ru);
    r->rss_peak_kib = ru.ru_maxrss;
    snprintf(r->method, sizeof r->method, "%s", hf_method_name(used));
    struct stat sb;
    r->bytes = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    hf_poset_free(p);
    r->ok = 1;
}

/* What `cat file > /dev/null` costs: read() into a 1 MiB buffer to the end. */
static double read_back(const char *path)
{
    static char buf[1 << 20];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return -1;
    }
    double t0 = bench_now();
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0)
        ;
    double t = bench_now() - t0;
    close(fd);
    return k < 0 ? -1 : t;
}

/* The shape is made in the child too, so that its arrays count in the child's peak and not in
 * the parent's (which every later child would inherit). */
static void run_case(shape (*make)(void), int to_file)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/hitfam-bench-trees-%ld.txt", (long)getpid());
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        close(fds[0]);
        run_result r;
        memset(&r, 0, sizeof r);
        shape s = make();
        run_child(&s, to_file ? path : NULL, &r);
        free(s.parent);
        if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r)
            _exit(2);
        _exit(0);
    }
    close(fds[1]);
    run_result r;
    memset(&r, 0, sizeof r);
    ssize_t got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    shape s = make(); /* only for its name and description */
    free(s.parent);
    if (got != (ssize_t)sizeof r || !r.ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("%-10s FAILED (child status %d)\n", s.name, status);
        unlink(path);
        return;
    }
    double t_cat = to_file ? read_back(path) : -1;
    if (to_file)
        unlink(path);
    printf("%-10s %9u %6u %-10s %6llu %8.3f %8.3f %8.3f %9.1f %9.1f", s.name, (unsigned)r.events,
           (unsigned)r.bin_height, r.method, (unsigned long long)r.schedules, r.t_build,
           r.t_predict, r.t_gen, r.rss_build_kib / 1024.0, r.rss_peak_kib / 1024.0);
    if (to_file)
        printf(" %10.1f", (double)r.bytes / (1024.0 * 1024.0));
    else
        printf(" %10s", "(counted)");
    if (t_cat > 0)
        printf(" %8.3f %8.1f", t_cat, r.t_gen / t_cat);
    printf("\n");
    printf("  (%s: doubletree would give %llu schedules, simple %llu)\n", s.name,
           (unsigned long long)r.dt_size, (unsigned long long)r.simple_size);
    if (r.predicted != r.schedules)
        printf("  ! predicted %llu schedules, wrote %llu\n", (unsigned long long)r.predicted,
               (unsigned long long)r.schedules);
}

static shape make_complete(void) { return complete_binary(19); }
static shape make_random(void) { return random_recursive(1000000, 42); }
static shape make_random_pre(void) { return random_preorder(1000000, 42); }
static shape make_chain(void) { return chain_with_sides(200000, 1000); }

/* ---------------------------------------------------------------------------------------- */
/* (d): wide trees, weight-balanced against naive gadgets                                     */

static uint64_t predict_method(const hf_poset *p, hf_method m)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    opt.method = m;
    uint64_t size = 0;
    hf_error err = {0};
    hf_status st = hf_method_predict(p, &opt, &size, NULL, &err);
    if (st)
        die("predict", st, &err);
    return size;
}

/* The binarized tree with the given gadget, as an order of its own whose ids are the preorder
 * (so that id order is the tree's child order and no further gadget applies), and the exact
 * doubletree size on it: the dedup rule sees only the binary tree's shape, so this is the size
 * the doubletree family would have with that gadget. */
static void binarized(const hf_poset *p, hf_i_gadget g, uint32_t *height, uint64_t *dt_size)
{
    hf_i_tree_options topt = {g, NULL, 0};
    hf_i_tree *t;
    hf_error err = {0};
    hf_status st = hf_i_tree_new(p, &topt, &t, &err);
    if (st)
        die("binarizing", st, &err);
    *height = t->height;
    uint32_t *pre = parents_alloc(t->n), *stack = parents_alloc(t->n), *par = parents_alloc(t->n);
    uint32_t top = 0, k = 0;
    stack[top++] = t->root;
    while (top) {
        uint32_t v = stack[--top];
        pre[v] = k++;
        for (uint32_t i = t->child_off[v + 1]; i > t->child_off[v]; i--)
            stack[top++] = t->child[i - 1];
    }
    for (uint32_t v = 0; v < t->n; v++)
        par[pre[v]] = t->parent[v] == HF_NO_EVENT ? HF_NO_EVENT : pre[t->parent[v]];
    hf_poset *q = bench_from_parents("bench_trees", t->n, par);
    uint32_t qh = 0;
    hf_status st_h;
    if ((st_h = hf_poset_tree_height(q, &qh)) != HF_OK)
        die("tree height", st_h, NULL);
    if (qh != t->height)
        printf("  ! rebuilt binary tree has height %u, expected %u\n", (unsigned)qh,
               (unsigned)t->height);
    *dt_size = predict_method(q, HF_METHOD_DOUBLETREE);
    hf_poset_free(q);
    free(pre);
    free(stack);
    free(par);
    hf_i_tree_free(t);
}

static void wide_case(shape s, const char *desc)
{
    hf_poset *p = bench_from_parents("bench_trees", s.n, s.parent);
    uint32_t maxdeg = 0;
    for (uint32_t v = 0; v < s.n; v++) {
        uint32_t c;
        hf_poset_hasse_succ(p, v, &c);
        if (c > maxdeg)
            maxdeg = c;
    }
    uint32_t hw, hb, hpub = 0;
    uint64_t dtw_reb, dtb;
    binarized(p, HF_I_GADGET_WEIGHTED, &hw, &dtw_reb);
    binarized(p, HF_I_GADGET_BALANCED, &hb, &dtb);
    hf_status st_h;
    if ((st_h = hf_poset_tree_height(p, &hpub)) != HF_OK)
        die("tree height", st_h, NULL);
    uint64_t dtw = predict_method(p, HF_METHOD_DOUBLETREE);
    uint64_t simple = predict_method(p, HF_METHOD_SIMPLE);
    printf("%s: %s\n", s.name, desc);
    printf("  events %u, height %u edges, max degree %u\n", (unsigned)s.n,
           (unsigned)hf_poset_height(p) - 1, (unsigned)maxdeg);
    printf("  %-26s %8s %8s %12s\n", "gadget", "bin.h", "4*bin.h", "doubletree");
    printf("  %-26s %8u %8u %12llu\n", "weight-balanced (default)", (unsigned)hw, 4 * hw,
           (unsigned long long)dtw);
    printf("  %-26s %8u %8u %12llu\n", "naive balanced", (unsigned)hb, 4 * hb,
           (unsigned long long)dtb);
    printf("  simple (d=3): %llu schedules\n", (unsigned long long)simple);
    if (hpub == hw && dtw_reb == dtw)
        printf("  cross-check: hf_poset_tree_height and the doubletree size of the rebuilt "
               "weighted tree agree with the library's\n");
    else
        printf("  ! cross-check: hf_poset_tree_height %u, doubletree via rebuilt weighted tree "
               "%llu\n",
               (unsigned)hpub, (unsigned long long)dtw_reb);
    hf_poset_free(p);
    free(s.parent);
}

static bool wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return true;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return true;
    return false;
}

/* Arguments: the cases to run (complete random chain wide); none: all of them. */
int main(int argc, char **argv)
{
    printf("hitfam %s: tree families for d = 3, method auto, text format to a file in /tmp\n",
           hf_version_string());
    printf("times in seconds, RSS in MiB (ru_maxrss of a forked child per case), output in MiB\n");
    printf("build = building the order; predict = auto's size prediction of every method;\n"
           "gen = generation + writing (hf_generate into hf_writer, fclose); cat = read() of the\n"
           "file into a 1 MiB buffer (what `cat file > /dev/null` costs); bin.h = binarized "
           "height\n\n");
    printf("%-10s %9s %6s %-10s %6s %8s %8s %8s %9s %9s %10s %8s %8s\n", "case", "events", "bin.h",
           "method", "scheds", "build", "predict", "gen", "rss.build", "rss.peak", "out.MiB", "cat",
           "gen/cat");
    if (wanted(argc, argv, "complete"))
        run_case(make_complete, 1);
    if (wanted(argc, argv, "random")) {
        run_case(make_random, 1);
        run_case(make_random, 0); /* generation alone, to tell it from writing */
    }
    if (wanted(argc, argv, "random-pre")) {
        run_case(make_random_pre, 1);
        run_case(make_random_pre, 0);
    }
    if (wanted(argc, argv, "chain"))
        run_case(make_chain, 0);
    printf("\ncomplete: complete binary tree T_19, 2^20 - 1 = 1,048,575 events (heap order)\n");
    printf("random:   random recursive tree of 10^6 events (event i below a uniform earlier "
           "event; splitmix64, seed 42);\n          the second row only counts the schedules "
           "(generation without writing)\n");
    printf("random-pre: the same tree with its ids renumbered in preorder (same family, "
           "sequential memory access)\n");
    printf("chain:    chain of 200,000 events, chain events 999, 1999, ... each with one side "
           "leaf (200,200 events);\n          its family is only counted: the side leaf of "
           "event 999 alone forces 199,001 schedules\n          (chain-plus-free-event bound), "
           "about 1.4 MB each in text, some 270 GB\n\n");
    if (!wanted(argc, argv, "wide"))
        return 0;

    printf("Wide trees: binarized height and doubletree size by gadget (naive sizes: exact\n"
           "doubletree prediction on the naive binarized tree rebuilt as an order)\n\n");
    wide_case(wide_root(4000, 26, 10),
              "a root with 4,000 children: 26 of them (children 1, 154, 308, ... spread "
              "evenly) are roots of complete binary trees T_10 (2,047 events each), the "
              "other 3,974 are leaves");
    wide_case(wide_leaf(10, 4000),
              "complete binary tree T_10 (2,047 events) whose leftmost deepest leaf has "
              "4,000 leaf children");
    wide_case(wide_spine(12, 400),
              "a spine of 12 events, each with 399 leaf children and the next spine event "
              "as its last child");
    return 0;
}
