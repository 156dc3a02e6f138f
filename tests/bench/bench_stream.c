/* Benchmark of verify without holding the family: writes a family of random linear extensions
 * (plus the two DFS preorders, so it is 2-hitting) of a random recursive tree to a temporary
 * text file, then verifies it in a child process each way:
 *   whole:  hf_family_read_file (the input read into one buffer) and hf_verify;
 *   stream: hf_family_store_read (in chunks, into a store of ids) and hf_verify_store, with the
 *           memory limit given (the store and the check's tables in a mapped temporary file
 *           beyond it), and with no limit.
 * Prints the time, the peak resident set (VmHWM: heap and touched pages of mapped files), the
 * peak anonymous resident memory (RssAnon sampled every 5 ms: what cannot be dropped without
 * swap) and both per (event x schedule).
 * With SHARDS > 1 only shard 1 of SHARDS is checked: the store and the tables are built whole
 * (the same memory), the enumeration covers a SHARDS-th of the first events, which keeps the
 * time of a 10^6-event check to minutes.
 * Usage: bench_stream [EVENTS [SCHEDULES [D [LIMIT_MIB [SHARDS]]]]] (default 1000000 40 2 64
 * 1000). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "hitfam/hitfam.h"
#include "hitfam/stream.h"

#define die(what, st, err) bench_die("bench_stream", what, st, err)

/* kB of a /proc/self/status field, or -1 */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t len = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            v = strtol(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static atomic_long peak_anon;
static atomic_bool sampling;

static void *sample(void *arg)
{
    (void)arg;
    while (atomic_load(&sampling)) {
        long a = status_kb("RssAnon");
        if (a > atomic_load(&peak_anon))
            atomic_store(&peak_anon, a);
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    return NULL;
}

struct report {
    double seconds;
    long hwm_kb, anon_kb, base_kb;
    int hitting;
    uint32_t witness[2];
    int mapped;
};

/* One verification in this (child) process. */
static uint32_t shards = 1000;

static struct report run(const hf_poset *p, const char *path, int mode, size_t limit, unsigned d)
{
    struct report r = {0};
    r.base_kb = status_kb("RssAnon"); /* the order, before the family */
    atomic_store(&peak_anon, r.base_kb);
    atomic_store(&sampling, true);
    pthread_t t;
    pthread_create(&t, NULL, sample, NULL);
    double t0 = bench_now();
    FILE *in = fopen(path, "rb");
    if (!in)
        die("opening the family", HF_EIO, NULL);
    hf_error err;
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = d;
    o.threads = 1;
    o.memory_limit = limit;
    o.shard_count = shards;
    hf_verify_result res;
    hf_status st;
    if (mode == 0) {
        hf_family *f = NULL;
        if ((st = hf_family_read_file(p, in, &f, NULL, &err)))
            die("reading the family", st, &err);
        if ((st = hf_verify(p, f, &o, &res, &err)))
            die("verify", st, &err);
        hf_family_free(f);
    } else {
        hf_family_store *s = NULL;
        if ((st = hf_family_store_read(p, in, limit, &s, NULL, &err)))
            die("reading the store", st, &err);
        r.mapped = hf_family_store_mapped(s);
        if ((st = hf_verify_store(p, s, &o, &res, &err)))
            die("verify", st, &err);
        hf_family_store_free(s);
    }
    fclose(in);
    r.seconds = bench_now() - t0;
    atomic_store(&sampling, false);
    pthread_join(t, NULL);
    r.hwm_kb = status_kb("VmHWM");
    r.anon_kb = atomic_load(&peak_anon);
    r.hitting = res.hitting;
    r.witness[0] = res.witness[0];
    r.witness[1] = res.witness[1];
    return r;
}

/* run() in a child process, so that each way starts from a fresh peak. */
static struct report in_child(const hf_poset *p, const char *path, int mode, size_t limit,
                              unsigned d)
{
    int fd[2];
    if (pipe(fd) != 0)
        die("pipe", HF_EIO, NULL);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        struct report r = run(p, path, mode, limit, d);
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    struct report r;
    ssize_t got = read(fd[0], &r, sizeof r);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("the child", HF_EIO, NULL);
    return r;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
    size_t m = argc > 2 ? strtoul(argv[2], NULL, 10) : 40;
    unsigned d = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 2;
    size_t limit = (argc > 4 ? strtoul(argv[4], NULL, 10) : 64) << 20;
    shards = argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 1000;
    uint64_t rng = 2026;
    uint32_t *parent = malloc((size_t)n * sizeof *parent);
    parent[0] = HF_NO_EVENT;
    for (uint32_t i = 1; i < n; i++)
        parent[i] = (uint32_t)(bench_next_u64(&rng) % i);
    hf_poset *p = bench_from_parents("bench_stream", n, parent);

    char path[] = "/tmp/hitfam-bench-stream-XXXXXX";
    int fd = mkstemp(path);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out)
        die("temporary file", HF_EIO, NULL);
    double t0 = bench_now();
    hf_family_header h = {d, "bench", true, m + 2, 0, 0};
    hf_writer *w = NULL;
    hf_status st = hf_writer_new(p, out, HF_FORMAT_TEXT, &h, &w);
    if (st)
        die("writer", st, NULL);
    hf_gen_options g;
    hf_gen_options_init(&g);
    g.d = 2;
    g.method = HF_METHOD_DFS;
    hf_error err;
    if ((st = hf_generate(p, &g, hf_writer_sink(w), NULL, &err)))
        die("the DFS schedules", st, &err);
    /* random linear extensions: a uniformly chosen available event at each step */
    uint32_t *kids = calloc((size_t)n + 1, sizeof *kids), *start = calloc((size_t)n + 2, 4);
    uint32_t *list = malloc((size_t)n * sizeof *list), *avail = malloc((size_t)n * sizeof *avail);
    uint32_t *row = malloc((size_t)n * sizeof *row);
    for (uint32_t i = 1; i < n; i++)
        start[parent[i] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (uint32_t i = 1; i < n; i++)
        list[start[parent[i]] + kids[parent[i]]++] = i;
    hf_sink sink = hf_writer_sink(w);
    for (size_t s = 0; s < m; s++) {
        uint32_t na = 0;
        avail[na++] = 0;
        for (uint32_t q = 0; q < n; q++) {
            uint32_t k = (uint32_t)(bench_next_u64(&rng) % na), x = avail[k];
            avail[k] = avail[--na];
            row[q] = x;
            for (uint32_t c = start[x]; c < start[x + 1]; c++)
                avail[na++] = list[c];
        }
        if ((st = sink.put(sink.user, row, n)))
            die("writing", st, NULL);
    }
    if ((st = hf_writer_close(w)) || fclose(out) != 0)
        die("closing", st ? st : HF_EIO, NULL);
    FILE *sz = fopen(path, "rb");
    fseek(sz, 0, SEEK_END);
    long bytes = ftell(sz);
    fclose(sz);
    double cells = (double)n * (double)(m + 2);
    printf("family: %u events (random recursive tree), %zu schedules, d=%u, %.1f MB of text "
           "(written in %.1f s); checked: shard 1 of %u\n",
           n, m + 2, d, bytes / 1e6, bench_now() - t0, shards);
    printf("(cell: one event of one schedule; anon: heap and other memory that cannot be dropped "
           "without swap; RSS: anon and the pages of mapped files the kernel keeps cached; "
           "order: anon memory of the order alone, before the family is read; anon B/cell: beyond "
           "the order)\n");
    printf("%-30s %8s %8s %8s %8s %10s %10s %s\n", "way", "seconds", "RSS MB", "anon MB",
           "order MB", "RSS B/cell", "anon B/cell", "answer");
    struct report rs[3];
    const char *names[3] = {"whole (read_file + verify)", "stream, limit", "stream, no limit"};
    size_t limits[3] = {0, limit, 0};
    for (int k = 0; k < 3; k++) {
        rs[k] = in_child(p, path, k == 0 ? 0 : 1, limits[k], d);
        char label[64];
        if (k == 1)
            snprintf(label, sizeof label, "stream, limit %zu MiB%s", limit >> 20,
                     rs[k].mapped ? " (mapped)" : "");
        printf("%-30s %8.2f %8.1f %8.1f %8.1f %10.2f %10.2f %s\n", k == 1 ? label : names[k],
               rs[k].seconds, rs[k].hwm_kb / 1024.0, rs[k].anon_kb / 1024.0, rs[k].base_kb / 1024.0,
               rs[k].hwm_kb * 1024.0 / cells, (rs[k].anon_kb - rs[k].base_kb) * 1024.0 / cells,
               rs[k].hitting ? "hitting" : "not hitting");
        if (rs[k].hitting != rs[0].hitting || memcmp(rs[k].witness, rs[0].witness, 8) != 0)
            die("the answers differ", HF_EMISMATCH, NULL);
    }
    printf("ratio whole/stream-limit: peak RSS %.2f, peak anon %.2f (beyond the order %.2f), "
           "time %.2f\n",
           (double)rs[0].hwm_kb / rs[1].hwm_kb, (double)rs[0].anon_kb / rs[1].anon_kb,
           (double)(rs[0].anon_kb - rs[0].base_kb) / (double)(rs[1].anon_kb - rs[1].base_kb),
           rs[0].seconds / rs[1].seconds);
    printf("ratio whole/stream-no-limit: peak RSS %.2f, time %.2f\n",
           (double)rs[0].hwm_kb / rs[2].hwm_kb, rs[0].seconds / rs[2].seconds);
    unlink(path);
    free(parent);
    free(kids);
    free(start);
    free(list);
    free(avail);
    free(row);
    hf_poset_free(p);
    return 0;
}
