/* Benchmark: reading an order of about 10^6 events (issue 16, item 3). The complete binary tree
 * of 2^20 - 1 events and a random recursive tree of 10^6 events are written as DOT and in the
 * compact order format; each is read by the libcgraph path, the fast DOT reader and the compact
 * reader, each read alone in a forked child, which reports its time (wall clock and CPU) and its
 * peak resident memory beyond the input file (the file is read into memory first; the peak is
 * reset after that through /proc/self/clear_refs, else measured from the resident size then).
 * Prints, per order: the three readings, fast / compact and libcgraph / fast ratios, and bytes
 * per event. Targets: fast DOT within 1.5x of the compact read, at most 150 bytes per event.
 * Then the issue's own yardstick, through the CLI: `hitfam gen --d 2 --format ids --rows 1:1`
 * on the DOT file and on the compact file, each run in a forked child (processor time of the
 * child), target: DOT within 1.5x of compact.
 * Usage: bench_dot [--best-of N] [--no-libcgraph] [--hitfam PATH] [EVENTS] (default 1,000,000;
 * the tree has the smallest 2^h - 1 >= EVENTS). --best-of runs each reading N times, in turn with
 * the others, and keeps the least processor time (a loaded machine slows some runs);
 * --no-libcgraph leaves out the slow libcgraph reading; --hitfam names the CLI (default: cli/hitfam
 * of the build directory holding this program, found through /proc/self/exe; `none` skips it). */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hitfam/order.h>

#include "bench_util.h"
#include "io_dot_fast.h"

static const char program[] = "bench_dot";

enum { READ_LIBCGRAPH, READ_FAST, READ_COMPACT, READERS };
static const char *const reader_names[READERS] = {"libcgraph", "fast DOT", "compact"};
static int best_of = 1;
static bool with_libcgraph = true;
static char hitfam_cli[4096]; /* "" when the CLI yardstick is skipped */

typedef struct result {
    int ok;
    double wall, cpu;
    long peak_kb; /* beyond the file */
    uint32_t n;
} result;

/* A field of /proc/self/status in kB, or -1. */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            v = strtol(line + n + 1, NULL, 10);
    fclose(f);
    return v;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

static double children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0)
        bench_die(program, path, HF_EIO, NULL);
    long size = ftell(f);
    rewind(f);
    char *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
        bench_die(program, path, HF_EIO, NULL);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

/* In a child: read `path` with `reader`, report through the pipe. */
static void child(int fd, const char *path, int reader)
{
    size_t len;
    char *data = read_whole(path, &len);
    result r = {0};
    int clear = open("/proc/self/clear_refs", O_WRONLY);
    bool reset = clear >= 0 && write(clear, "5", 1) == 1;
    if (clear >= 0)
        close(clear);
    long base = status_kb(reset ? "VmHWM" : "VmRSS");
    double w0 = bench_now(), c0 = cpu_seconds();
    hf_poset *p = NULL;
    hf_error err;
    hf_status st =
        reader == READ_COMPACT
            ? hf_order_read_mem(NULL, data, len, &p, &err)
            : hf_i_dot_read_path(NULL, data, len,
                                 reader == READ_FAST ? HF_I_DOT_FAST : HF_I_DOT_CGRAPH, &p, &err);
    r.wall = bench_now() - w0;
    r.cpu = cpu_seconds() - c0;
    r.peak_kb = status_kb("VmHWM") - base;
    r.ok = st == HF_OK;
    r.n = r.ok ? hf_poset_size(p) : 0;
    if (!r.ok)
        fprintf(stderr, "%s: %s: %s: %s\n", program, path, reader_names[reader], err.text);
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(3);
    _exit(0);
}

static result measure(const char *path, int reader)
{
    int fds[2];
    if (pipe(fds) != 0)
        bench_die(program, "pipe", HF_EIO, NULL);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        bench_die(program, "fork", HF_EIO, NULL);
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], path, reader);
    }
    close(fds[1]);
    result r = {0};
    if (read(fds[0], &r, sizeof r) != (ssize_t)sizeof r)
        r.ok = 0;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return r;
}

/* The processor time (user + system, seconds) of `hitfam gen --d 2 --format ids --rows 1:1
 * ORDER -o /dev/null` run in a child, or a negative number when it fails. */
static double gen_row_cpu(const char *order)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        bench_die(program, "fork", HF_EIO, NULL);
    if (pid == 0) {
        char *args[] = {hitfam_cli, "gen", "--d", "2",         "--format",    "ids",
                        "--rows",   "1:1", "-o",  "/dev/null", (char *)order, NULL};
        execv(hitfam_cli, args);
        _exit(127);
    }
    /* the processor time of the waited-for children grows by this child's alone */
    double before = children_cpu();
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return children_cpu() - before;
}

/* The CLI next to this program: BUILD/tests/bench/bench_dot -> BUILD/cli/hitfam. */
static void find_cli(void)
{
    char self[sizeof hitfam_cli];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(self, '/');
        if (!slash)
            return;
        *slash = '\0';
    }
    snprintf(hitfam_cli, sizeof hitfam_cli, "%.4000s/cli/hitfam", self);
    if (access(hitfam_cli, X_OK) != 0)
        hitfam_cli[0] = '\0';
}

/* Write p as DOT and as a compact file; their sizes in *dot_bytes, *hfo_bytes. */
static void write_files(const hf_poset *p, const char *dot, const char *hfo, long *dot_bytes,
                        long *hfo_bytes)
{
    FILE *f = fopen(dot, "wb");
    hf_status st = f ? hf_dot_write(p, f) : HF_EIO;
    if (st || fclose(f) != 0)
        bench_die(program, dot, st ? st : HF_EIO, NULL);
    f = fopen(hfo, "wb");
    st = f ? hf_order_write(p, f) : HF_EIO;
    if (st || fclose(f) != 0)
        bench_die(program, hfo, st ? st : HF_EIO, NULL);
    size_t len;
    free(read_whole(dot, &len));
    *dot_bytes = (long)len;
    free(read_whole(hfo, &len));
    *hfo_bytes = (long)len;
}

static void run(const char *title, uint32_t n, const uint32_t *parent)
{
    char dot[] = "/tmp/bench_dot_XXXXXX", hfo[] = "/tmp/bench_hfo_XXXXXX";
    int a = mkstemp(dot), b = mkstemp(hfo);
    if (a < 0 || b < 0)
        bench_die(program, "mkstemp", HF_EIO, NULL);
    close(a);
    close(b);
    long dot_bytes, hfo_bytes;
    {
        hf_poset *p = bench_from_parents(program, n, parent);
        write_files(p, dot, hfo, &dot_bytes, &hfo_bytes);
        hf_poset_free(p);
        malloc_trim(0);
    }
    printf("%s: %" PRIu32 " events, DOT %.1f MB, compact %.1f MB\n", title, n, dot_bytes / 1e6,
           hfo_bytes / 1e6);
    result r[READERS] = {{0}};
    for (int round = 0; round < best_of; round++)
        for (int k = with_libcgraph ? 0 : 1; k < READERS; k++) {
            result m = measure(k == READ_COMPACT ? hfo : dot, k);
            if (round == 0 || m.cpu < r[k].cpu)
                r[k] = m;
        }
    for (int k = with_libcgraph ? 0 : 1; k < READERS; k++) {
        printf("  %-10s %s  %7.3f s wall  %7.3f s cpu  peak beyond the file %7.1f MB = %6.1f "
               "bytes/event\n",
               reader_names[k], r[k].ok && r[k].n == n ? "ok  " : "FAIL", r[k].wall, r[k].cpu,
               r[k].peak_kb / 1024.0, r[k].peak_kb * 1024.0 / n);
    }
    printf("  fast DOT / compact: %.2fx wall, %.2fx cpu (target <= 1.5)\n",
           r[READ_FAST].wall / r[READ_COMPACT].wall, r[READ_FAST].cpu / r[READ_COMPACT].cpu);
    if (with_libcgraph)
        printf("  libcgraph / fast DOT: %.1fx wall, %.1fx cpu; memory %.1fx\n",
               r[READ_LIBCGRAPH].wall / r[READ_FAST].wall, r[READ_LIBCGRAPH].cpu / r[READ_FAST].cpu,
               (double)r[READ_LIBCGRAPH].peak_kb / (double)r[READ_FAST].peak_kb);
    printf("  fast DOT read %.0f MB/s (cpu) of DOT text; bytes/event target <= 150: %s\n",
           dot_bytes / 1e6 / r[READ_FAST].cpu,
           r[READ_FAST].peak_kb * 1024.0 / n <= 150 ? "met" : "MISSED");
    if (hitfam_cli[0]) {
        double gen[2] = {-1, -1}; /* DOT, compact */
        for (int round = 0; round < best_of; round++)
            for (int k = 0; k < 2; k++) {
                double t = gen_row_cpu(k == 0 ? dot : hfo);
                if (t >= 0 && (gen[k] < 0 || t < gen[k]))
                    gen[k] = t;
            }
        if (gen[0] < 0 || gen[1] < 0)
            printf("  gen --d 2 --format ids --rows 1:1: FAILED (%s)\n", hitfam_cli);
        else
            printf("  gen --d 2 --format ids --rows 1:1: DOT %.3f s cpu, compact %.3f s cpu, "
                   "DOT / compact %.2fx (target <= 1.5)\n",
                   gen[0], gen[1], gen[0] / gen[1]);
    } else {
        printf("  gen --d 2 --format ids --rows 1:1: skipped (no CLI found; --hitfam PATH)\n");
    }
    remove(dot);
    remove(hfo);
}

int main(int argc, char **argv)
{
    uint32_t events = 1000000u;
    find_cli();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--best-of") == 0 && i + 1 < argc)
            best_of = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (strcmp(argv[i], "--no-libcgraph") == 0)
            with_libcgraph = false;
        else if (strcmp(argv[i], "--hitfam") == 0 && i + 1 < argc)
            snprintf(hitfam_cli, sizeof hitfam_cli, "%s",
                     strcmp(argv[++i], "none") == 0 ? "" : argv[i]);
        else
            events = (uint32_t)strtoul(argv[i], NULL, 10);
    }
    if (events < 3)
        events = 3;
    uint32_t tree = 1; /* the smallest 2^h - 1 >= events: 2^20 - 1 for 10^6 */
    while (tree < events)
        tree = 2 * tree + 1;
    uint32_t *parent = malloc((events > tree ? events : tree) * sizeof *parent);
    if (!parent)
        bench_die(program, "memory", HF_ENOMEM, NULL);
    parent[0] = HF_NO_EVENT;
    for (uint32_t v = 1; v < tree; v++)
        parent[v] = (v - 1) / 2;
    char title[64];
    snprintf(title, sizeof title, "complete binary tree");
    run(title, tree, parent);
    uint64_t rng = 2016;
    for (uint32_t v = 1; v < events; v++)
        parent[v] = (uint32_t)(bench_next_u64(&rng) % v);
    run("random recursive tree", events, parent);
    free(parent);
    return 0;
}
