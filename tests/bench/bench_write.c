/* Benchmark of family output and input at scale (docs/formats.md, issue 16 item 1): on the
 * complete binary tree of 2^20 - 1 events and a random recursive tree of 10^6 events, the d = 3
 * family is generated to a file in text, ids and bin through the library, and with the writer as
 * it was before block output (kept here as the reference); each file is then copied as `cat`
 * would (read and write with a 1 MiB buffer) and the ratios gen/cat printed; `hitfam gen` is run
 * on a DOT file of the same order (DOT reading included); each family is read back (text, ids,
 * bin), against a pass of name lookups alone (the text reader's cost before it guessed names).
 * `hitfam verify --d 1` reads each file through the CLI (vfy). Usage: bench_write HITFAM
 * [DIR [OLD_HITFAM]]: DIR is where the files go (default $TMPDIR or /tmp; a tmpfs such as
 * /dev/shm measures the processor rather than the disk); OLD_HITFAM, a build from before block
 * output, adds its gen and verify to the text-old row. Wall and processor seconds are printed;
 * on a loaded machine the processor times are the steadier. BENCH_WRITE_GEN_ONLY=1 in the
 * environment: the writing rows alone (gen, cat, cli; no reading back, no old writer). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "hitfam/hitfam.h"

#define die(what, st, err) bench_die("bench_write", what, st, err)

typedef struct timing {
    double wall, cpu;
} timing;

static double tv(struct timeval t) { return (double)t.tv_sec + 1e-6 * (double)t.tv_usec; }

static double cpu_self(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return tv(ru.ru_utime) + tv(ru.ru_stime);
}

static void fail_errno(const char *what, const char *path)
{
    fprintf(stderr, "bench_write: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The limit: copying the file                                                               */

static timing copy_file(const char *from, const char *to)
{
    static char buf[1 << 20];
    double w0 = bench_now(), c0 = cpu_self();
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0)
        fail_errno("open", from);
    ssize_t k;
    while ((k = read(in, buf, sizeof buf)) > 0)
        for (ssize_t done = 0; done < k;) {
            ssize_t w = write(out, buf + done, (size_t)(k - done));
            if (w < 0)
                fail_errno("write", to);
            done += w;
        }
    if (k < 0)
        fail_errno("read", from);
    close(in);
    if (close(out) != 0)
        fail_errno("close", to);
    timing t = {bench_now() - w0, cpu_self() - c0};
    unlink(to);
    return t;
}

/* ---------------------------------------------------------------------------------------- */
/* Generating to a file                                                                      */

/* The text writer as it was before block output: each name through stdio (hf_name_write). */
typedef struct old_writer {
    const hf_poset *p;
    FILE *out;
} old_writer;

static hf_status old_put(void *user, const uint32_t *s, uint32_t n)
{
    old_writer *o = user;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && putc(' ', o->out) == EOF)
            return HF_EIO;
        hf_status st = hf_name_write(o->out, hf_poset_name(o->p, s[i]));
        if (st)
            return st;
    }
    return putc('\n', o->out) == EOF ? HF_EIO : HF_OK;
}

/* format < 0: the old text writer. */
static timing gen_file(const hf_poset *p, int format, const char *path, uint64_t *schedules,
                       const char **method)
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = 3;
    opt.threads = 2; /* as `hitfam gen` on two processors */
    hf_error err = {0};
    double w0 = bench_now(), c0 = cpu_self();
    uint64_t predicted = 0;
    hf_method chosen = HF_METHOD_AUTO;
    hf_status st = hf_method_predict(p, &opt, &predicted, &chosen, &err);
    if (st)
        die("predict", st, &err);
    FILE *out = fopen(path, "wb");
    if (!out)
        fail_errno("create", path);
    hf_family_header h = {3, hf_method_name(chosen), true, predicted, 0, 0};
    hf_method used = HF_METHOD_AUTO;
    if (format < 0) {
        fprintf(out, "# hitfam %s d=3 method=%s events=%u schedules=%llu\n", hf_version_string(),
                hf_method_name(chosen), (unsigned)hf_poset_size(p), (unsigned long long)predicted);
        old_writer o = {p, out};
        st = hf_generate(p, &opt, (hf_sink){old_put, &o}, &used, &err);
        *schedules = predicted;
    } else {
        hf_writer *w = NULL;
        if ((st = hf_writer_new(p, out, (hf_format)format, &h, &w)))
            die("writer", st, NULL);
        st = hf_generate(p, &opt, hf_writer_sink(w), &used, &err);
        *schedules = hf_writer_count(w);
        hf_status cst = hf_writer_close(w);
        if (!st)
            st = cst;
    }
    if (fclose(out) != 0 && !st)
        st = HF_EIO;
    if (st)
        die("generate", st, &err);
    *method = hf_method_name(used);
    return (timing){bench_now() - w0, cpu_self() - c0};
}

/* A command, timed with the child's own processor time; its output to /dev/null. */
static timing run_cmd(char *const argv[])
{
    double w0 = bench_now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        fail_errno("fork", argv[0]);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_write: %s %s failed (status %d)\n", argv[0], argv[1], status);
        exit(1);
    }
    return (timing){bench_now() - w0, tv(ru.ru_utime) + tv(ru.ru_stime)};
}

/* `hitfam gen --d 3 --format F -o OUT DOT` */
static timing run_gen(const char *hitfam, const char *format, const char *dot, const char *out)
{
    char *argv[] = {(char *)hitfam, "gen", "--d",       "3",         "--format",
                    (char *)format, "-o",  (char *)out, (char *)dot, NULL};
    return run_cmd(argv);
}

/* `hitfam verify --d 1 DOT FAMILY`: reading the family is nearly all of it. */
static timing run_read(const char *hitfam, const char *dot, const char *family)
{
    char *argv[] = {(char *)hitfam, "verify", "--d", "1", (char *)dot, (char *)family, NULL};
    return run_cmd(argv);
}

/* ---------------------------------------------------------------------------------------- */
/* Reading back                                                                              */

static timing read_back(const hf_poset *p, const char *path, hf_family **f)
{
    double w0 = bench_now(), c0 = cpu_self();
    FILE *in = fopen(path, "rb");
    if (!in)
        fail_errno("open", path);
    hf_error err = {0};
    hf_status st = hf_family_read_file(p, in, f, NULL, &err);
    fclose(in);
    if (st)
        die("read back", st, &err);
    return (timing){bench_now() - w0, cpu_self() - c0};
}

/* The old reader's core: every name of the text file looked up in the order's table. */
static timing lookups_only(const hf_poset *p, const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        fail_errno("open", path);
    uint64_t size = file_size(path);
    char *data = malloc(size + 1);
    if (!data || fread(data, 1, size, in) != size)
        fail_errno("read", path);
    fclose(in);
    data[size] = '\0';
    double w0 = bench_now(), c0 = cpu_self();
    char *s = strchr(data, '\n') + 1, *end = data + size;
    uint64_t found = 0;
    while (s < end) {
        char *t = s;
        while (*t != ' ' && *t != '\n')
            t++;
        char c = *t;
        *t = '\0';
        uint32_t id;
        found += hf_poset_find(p, s, &id) == HF_OK;
        *t = c;
        s = t + 1;
    }
    timing r = {bench_now() - w0, cpu_self() - c0};
    free(data);
    if (found == 0)
        die("lookups", HF_ENOTFOUND, NULL);
    return r;
}

/* How often the text reader's guess is right: the event that followed the previous event in
 * the previous schedule (the first schedule: the next id). */
static double guess_rate(const hf_family *f)
{
    uint32_t n = hf_family_events(f);
    uint32_t *after = malloc((size_t)n * sizeof *after);
    for (uint32_t v = 0; v < n; v++)
        after[v] = v + 1 < n ? v + 1 : 0;
    uint32_t first = 0;
    uint64_t hits = 0, total = 0;
    for (size_t k = 0; k < hf_family_size(f); k++) {
        const uint32_t *s = hf_family_schedule(f, k);
        uint32_t g = first;
        for (uint32_t i = 0; i < n; i++) {
            hits += s[i] == g;
            total++;
            g = after[s[i]];
        }
        first = s[0];
        for (uint32_t i = 0; i + 1 < n; i++)
            after[s[i]] = s[i + 1];
    }
    free(after);
    return total ? (double)hits / (double)total : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The shapes                                                                                */

static hf_poset *complete_binary(uint32_t *n)
{
    *n = (1u << 20) - 1;
    uint32_t *par = malloc((size_t)*n * sizeof *par);
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < *n; i++)
        par[i] = (i - 1) / 2;
    hf_poset *p = bench_from_parents("bench_write", *n, par);
    free(par);
    return p;
}

static hf_poset *random_recursive(uint32_t *n)
{
    *n = 1000000;
    uint64_t seed = 42;
    uint32_t *par = malloc((size_t)*n * sizeof *par);
    par[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < *n; i++)
        par[i] = (uint32_t)(bench_next_u64(&seed) % i);
    hf_poset *p = bench_from_parents("bench_write", *n, par);
    free(par);
    return p;
}

/* One row: what was measured for one format (negative: not measured). The ratios,
 * gen/cat and cli/cat, in wall time and in processor time (both threads of gen counted). */
static void row(const char *name, double mb, timing g, timing c, timing cl, timing r, timing v,
                const char *note)
{
    printf("%-9s %8.1f %7.2f %7.2f %6.2f %6.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f "
           "%7.2f %7.2f  %s\n",
           name, mb, g.wall, g.cpu, c.wall, c.cpu, g.wall / c.wall, g.cpu / c.cpu, cl.wall, cl.cpu,
           cl.wall / c.wall, cl.cpu / c.cpu, r.wall, r.cpu, v.wall, v.cpu, note);
}

/* BENCH_WRITE_GEN_ONLY set: only the writing (gen, cat, cli), no reading back, no verify, no
 * old writer: the rows of the gen/cat target in a few minutes on a loaded machine. */
static bool gen_only(void) { return getenv("BENCH_WRITE_GEN_ONLY") != NULL; }

static void run_shape(const char *title, hf_poset *(*make)(uint32_t *), const char *hitfam,
                      const char *old, const char *dir, const char *tag)
{
    uint32_t n;
    double t0 = bench_now();
    hf_poset *p = make(&n);
    char dot[512], path[512], copy[600], cli_out[600];
    snprintf(dot, sizeof dot, "%s/bench-write-%ld-%s.dot", dir, (long)getpid(), tag);
    FILE *d = fopen(dot, "w");
    if (!d)
        fail_errno("create", dot);
    hf_status st = hf_dot_write(p, d);
    if (fclose(d) != 0 || st)
        die("writing DOT", st ? st : HF_EIO, NULL);
    printf("\n%s: %u events (built in %.1f s), DOT %.1f MB\n", title, (unsigned)n, bench_now() - t0,
           (double)file_size(dot) / 1e6);
    printf("%-9s %8s %7s %7s %6s %6s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n", "format", "MB",
           "gen s", "gen cpu", "cat s", "cat cpu", "gen/cat", "cpu g/c", "cli s", "cli cpu",
           "cli/cat", "cpu c/c", "read s", "rd cpu", "vfy s", "vfy cpu");
    static const char *const names[] = {"text", "json", "ids", "bin"};
    const int formats[] = {-1, HF_FORMAT_TEXT, HF_FORMAT_IDS, HF_FORMAT_BIN};
    const timing none = {-1, -1};
    hf_family *first = NULL;
    for (int k = gen_only() ? 1 : 0; k < 4; k++) {
        int fmt = formats[k];
        const char *fname = fmt < 0 ? "text" : names[fmt];
        snprintf(path, sizeof path, "%s/bench-write-%ld-%s.%s", dir, (long)getpid(), tag,
                 fmt < 0 ? "old" : fname);
        snprintf(copy, sizeof copy, "%s.copy", path);
        snprintf(cli_out, sizeof cli_out, "%s.cli", path);
        uint64_t m;
        const char *method;
        timing g = gen_file(p, fmt, path, &m, &method);
        double mb = (double)file_size(path) / 1e6;
        timing c = copy_file(path, copy);
        char note[160];
        if (fmt < 0) {
            /* before: the old writer here; the old CLI's gen and verify, when given */
            timing cl = none, v = none;
            if (old) {
                cl = run_gen(old, "text", dot, cli_out);
                unlink(cli_out);
                v = run_read(old, dot, path);
            }
            timing l = lookups_only(p, path);
            snprintf(note, sizeof note,
                     "before (%s, %llu schedules); every name looked up alone: %.2f s, %.2f cpu",
                     method, (unsigned long long)m, l.wall, l.cpu);
            row("text-old", mb, g, c, cl, none, v, note);
            unlink(path);
            continue;
        }
        timing cl = run_gen(hitfam, fname, dot, cli_out);
        uint64_t cli_bytes = file_size(cli_out);
        unlink(cli_out);
        if (cli_bytes != file_size(path)) {
            fprintf(stderr, "bench_write: the CLI wrote %llu bytes, the library %llu\n",
                    (unsigned long long)cli_bytes, (unsigned long long)file_size(path));
            exit(1);
        }
        if (gen_only()) {
            row(fname, mb, g, c, cl, none, none, "");
            unlink(path);
            continue;
        }
        hf_family *f = NULL;
        timing r = read_back(p, path, &f);
        if (hf_family_size(f) != m) {
            fprintf(stderr, "bench_write: %s read back %zu schedules, wrote %llu\n", fname,
                    hf_family_size(f), (unsigned long long)m);
            exit(1);
        }
        timing v = run_read(hitfam, dot, path);
        note[0] = '\0';
        if (!first) {
            first = f;
            snprintf(note, sizeof note, "the reader's guess is right for %.1f%% of the names",
                     100 * guess_rate(f));
        } else {
            for (size_t i = 0; i < m; i++)
                if (memcmp(hf_family_schedule(f, i), hf_family_schedule(first, i),
                           (size_t)n * sizeof(uint32_t)) != 0) {
                    fprintf(stderr, "bench_write: %s read back differently\n", fname);
                    exit(1);
                }
            hf_family_free(f);
        }
        row(fname, mb, g, c, cl, r, v, note);
        unlink(path);
    }
    hf_family_free(first);
    unlink(dot);
    hf_poset_free(p);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_write HITFAM [DIR [OLD_HITFAM]]\n");
        return 2;
    }
    const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR");
    if (!dir)
        dir = "/tmp";
    printf("bench_write: d = 3 families to files in %s; gen/cat and cli/cat are wall-time ratios, "
           "cpu g/c and cpu c/c processor-time ratios (target: within 2x); gen = the library on "
           "two threads, cli = `hitfam gen` from the DOT file (DOT reading included)\n",
           dir);
    const char *old = argc > 3 ? argv[3] : NULL;
    run_shape("complete binary tree T_19", complete_binary, argv[1], old, dir, "complete");
    run_shape("random recursive tree (seed 42)", random_recursive, argv[1], old, dir, "random");
    return 0;
}
