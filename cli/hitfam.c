/* hitfam: the command-line tool. Builds (gen), checks (verify) and measures (stats) hitting
 * families of schedules; a client of the public library API like any other. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hitfam/count.h>
#include <hitfam/hitfam.h>

enum { EXIT_HIT = 0, EXIT_NOT_HIT = 1, EXIT_BAD = 2 };

static const char *command = "hitfam";

/* ------------------------------------------------------------------------------------------ */
/* Messages                                                                                   */

/* Length of the UTF-8 sequence at s (at most n bytes), 0 if it is not a valid one. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    size_t len = 0;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    /* overlong forms, surrogates and code points past U+10FFFF */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

/* Write "hitfam: ", then the message, then a newline to stderr. Messages quote input (event
 * names, file names, arguments) that may be binary: control bytes and bytes that are not
 * UTF-8 are written as \xNN so that the message stays one readable line. */
static void vsay(const char *fmt, va_list ap)
{
    char small[512], *buf = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (buf = malloc((size_t)n + 1)) != NULL)
        vsnprintf(buf, (size_t)n + 1, fmt, again);
    else if (n >= (int)sizeof small)
        buf = small, n = (int)sizeof small - 1; /* no memory: the start of the message */
    va_end(again);
    fputs("hitfam: ", stderr);
    const unsigned char *s = (const unsigned char *)buf;
    for (size_t i = 0, len; n > 0 && i < (size_t)n; i += len) {
        len = 1;
        if (s[i] >= 0x20 && s[i] < 0x7f)
            fputc(s[i], stderr);
        else if (s[i] >= 0x80 && (len = utf8_seq(s + i, (size_t)n - i)) > 0)
            fwrite(s + i, 1, len, stderr);
        else
            fprintf(stderr, "\\x%02x", s[i]), len = 1;
    }
    fputc('\n', stderr);
    if (buf != small)
        free(buf);
}

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

static void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help'.\n", command);
    exit(EXIT_BAD);
}

/* "hitfam: FILE:LINE: message" (LINE when known). */
static void report(const char *file, int line, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (file && line > 0)
        say("%s:%d: %s", file, line, text);
    else if (file)
        say("%s: %s", file, text);
    else
        say("%s", text);
}

/* An error of the library about FILE. Out of memory is never about the file: it is reported
 * as such, the same from every command. */
static void report_error(const char *file, hf_status st, const hf_error *err)
{
    if (st == HF_ENOMEM)
        report(NULL, 0, "%s", hf_strerror(st));
    else
        report(file, err->line, "%s", err->text[0] ? err->text : hf_strerror(st));
}

/* Pass @p st through, except out of memory: that ends the command (stats shows other failures,
 * such as a count past a limit, as "unknown"). */
static hf_status unless_oom(hf_status st)
{
    if (st == HF_ENOMEM) {
        report(NULL, 0, "%s", hf_strerror(st));
        exit(EXIT_BAD);
    }
    return st;
}

/* malloc for the CLI's own buffers: exits with the library's message when it fails. */
static void *xmalloc(size_t size)
{
    void *ptr = malloc(size ? size : 1);
    if (!ptr) {
        report(NULL, 0, "%s", hf_strerror(HF_ENOMEM));
        exit(EXIT_BAD);
    }
    return ptr;
}

/* ------------------------------------------------------------------------------------------ */
/* Input                                                                                      */

/* Read a whole file ("-" = standard input). Exits with a message on failure. */
static char *slurp(const char *path, size_t *len)
{
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in) {
        report(path, 0, "cannot open: %s", strerror(errno));
        exit(EXIT_BAD);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        n += fread(buf + n, 1, cap - n, in);
        if (n < cap)
            break;
        char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!bigger) {
            report(NULL, 0, "%s", hf_strerror(HF_ENOMEM));
            exit(EXIT_BAD);
        }
        buf = bigger;
        cap *= 2;
    }
    if (ferror(in)) {
        report(path, 0, "cannot read: %s", strerror(errno));
        exit(EXIT_BAD);
    }
    if (in != stdin)
        fclose(in);
    *len = n;
    return buf;
}

/* ------------------------------------------------------------------------------------------ */
/* The context                                                                                */

#ifdef HITFAM_CLI_CHAOS
/* TEST-ONLY HOOK, compiled into hitfam-chaos (never installed), not into hitfam: the context's
 * allocator fails allocation number HITFAM_CHAOS_FAIL_AT (1-based), and with
 * HITFAM_CHAOS_MODE=all every later one too, so that tests/cli_chaos.py reaches each
 * out-of-memory path of the commands. With HITFAM_CHAOS_COUNT set, the number of allocations
 * is printed to stderr at exit. Only the context's allocations fail: GMP, libcgraph and the
 * CLI's own buffers use malloc. */
static struct {
    long fail_at, calls;
    bool all;
} chaos;

static bool chaos_fails(void)
{
    long k = ++chaos.calls;
    return chaos.fail_at > 0 && (k == chaos.fail_at || (chaos.all && k > chaos.fail_at));
}
static void *chaos_malloc(size_t size, void *user)
{
    (void)user;
    return chaos_fails() ? NULL : malloc(size);
}
static void *chaos_realloc(void *ptr, size_t size, void *user)
{
    (void)user;
    return chaos_fails() ? NULL : realloc(ptr, size);
}
static void chaos_free(void *ptr, void *user)
{
    (void)user;
    free(ptr);
}
static void chaos_count(void) { fprintf(stderr, "hitfam-chaos: %ld allocations\n", chaos.calls); }

static hf_status chaos_ctx_new(hf_ctx **out)
{
    const char *k = getenv("HITFAM_CHAOS_FAIL_AT"), *mode = getenv("HITFAM_CHAOS_MODE");
    chaos.fail_at = k ? strtol(k, NULL, 10) : 0;
    chaos.all = mode && strcmp(mode, "all") == 0;
    if (getenv("HITFAM_CHAOS_COUNT"))
        atexit(chaos_count);
    hf_allocator a = {.malloc = chaos_malloc, .realloc = chaos_realloc, .free = chaos_free};
    return hf_ctx_new(&a, NULL, NULL, out);
}
#endif /* HITFAM_CLI_CHAOS */

/* The one context of a command: every library object is made through it (the poset's, which
 * the family, writer and generators share). Exits with a message on failure. */
static hf_ctx *ctx_new(void)
{
    hf_ctx *ctx = NULL;
#ifdef HITFAM_CLI_CHAOS
    hf_status st = chaos_ctx_new(&ctx);
#else
    hf_status st = hf_ctx_new(NULL, NULL, NULL, &ctx);
#endif
    if (st) {
        report(NULL, 0, "%s", hf_strerror(st));
        exit(EXIT_BAD);
    }
    return ctx;
}

/* Free a poset from read_poset and its context. */
static void poset_free(hf_poset *p)
{
    hf_ctx *ctx = hf_poset_ctx(p);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

static hf_poset *read_poset(const char *path)
{
    size_t len;
    char *data = slurp(path, &len);
    hf_ctx *ctx = ctx_new();
    hf_poset *p = NULL;
    hf_error err;
    hf_status st = hf_dot_read_mem(ctx, data, len, &p, &err);
    free(data);
    if (st) {
        report_error(path, st, &err);
        hf_ctx_free(ctx);
        exit(EXIT_BAD);
    }
    return p;
}

/* The line of the k-th schedule of a text family (0-based k), 0 if unknown. */
static int schedule_line(const char *data, size_t len, size_t k)
{
    int line = 1;
    size_t seen = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && (data[j] == ' ' || data[j] == '\t' || data[j] == '\r'))
            j++;
        bool content = j < len && data[j] != '\n' && data[j] != '#';
        if (content && seen++ == k)
            return line;
        while (i < len && data[i] != '\n')
            i++;
        i++;
        line++;
    }
    return 0;
}

/* The line of a text family's header (its first line that is not blank), 0 for JSON. */
static int header_line(const char *data, size_t len)
{
    int line = 1;
    size_t i = len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    for (; i < len; i++) {
        if (data[i] == '\n')
            line++;
        else if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r')
            return data[i] == '#' ? line : 0;
    }
    return 0;
}

/* A focus file: one event name per line (optionally DOT-quoted), `#` comments, blank lines. */
static uint32_t *read_focus(const hf_poset *p, const char *path, size_t *count)
{
    size_t len;
    char *data = slurp(path, &len);
    uint32_t *ids = xmalloc((len + 1) * sizeof *ids);
    size_t k = 0;
    int line = 0;
    for (size_t i = 0; i < len;) {
        line++;
        size_t end = i;
        while (end < len && data[end] != '\n')
            end++;
        size_t a = i, b = end;
        while (a < b && (data[a] == ' ' || data[a] == '\t'))
            a++;
        while (b > a && (data[b - 1] == ' ' || data[b - 1] == '\t' || data[b - 1] == '\r'))
            b--;
        i = end + 1;
        if (a == b || data[a] == '#')
            continue;
        char *name = xmalloc(b - a + 1);
        size_t nl = 0;
        if (data[a] == '"' && b - a >= 2 && data[b - 1] == '"') {
            for (size_t j = a + 1; j + 1 < b; j++) {
                if (data[j] == '\\' && j + 2 < b && (data[j + 1] == '"' || data[j + 1] == '\\')) {
                    name[nl++] = data[++j];
                } else if (data[j] == '\\' && j + 2 < b && data[j + 1] == 'n') {
                    name[nl++] = '\n';
                    j++;
                } else {
                    name[nl++] = data[j];
                }
            }
        } else {
            memcpy(name, data + a, b - a);
            nl = b - a;
        }
        name[nl] = '\0';
        if (strlen(name) != nl || hf_poset_find(p, name, &ids[k]) != HF_OK) {
            report(path, line, "unknown event \"%.*s%s\" in the focus set", nl > 64 ? 60 : (int)nl,
                   name, nl > 64 ? "..." : "");
            exit(EXIT_BAD);
        }
        free(name);
        k++;
    }
    free(data);
    *count = k;
    return ids;
}

/* The focus set of a command: the events of --focus FILE (stored in *owned, which the caller
 * frees), else the nodes marked focus=true, else none (*focus NULL, *count 0). */
static void choose_focus(const hf_poset *p, const char *path, uint32_t **owned,
                         const uint32_t **focus, size_t *count)
{
    *owned = NULL;
    *focus = NULL;
    *count = 0;
    if (path) {
        *focus = *owned = read_focus(p, path, count);
        return;
    }
    uint32_t fc;
    const uint32_t *marked = hf_poset_focus(p, &fc);
    if (fc) {
        *focus = marked;
        *count = fc;
    }
}

static unsigned parse_d(const char *s)
{
    char *end;
    errno = 0;
    unsigned long d = strtoul(s, &end, 10);
    if (errno || *end || end == s || d < 1 || d > HF_MAX_D)
        die_usage("--d must be an integer from 1 to %u (got '%s')", HF_MAX_D, s);
    return (unsigned)d;
}

/* ------------------------------------------------------------------------------------------ */
/* gen                                                                                        */

static const char gen_usage[] =
    "Usage: hitfam gen --d D [options] POSET.dot\n"
    "Write a d-hitting family of schedules of the partial order in POSET.dot ('-' = stdin):\n"
    "every admissible d-tuple of events appears in that order in some schedule.\n"
    "\n"
    "  -d, --d D            tuple size, 1..8 (required)\n"
    "  -m, --method M       auto (default: the smallest family that applies), dfs, simple,\n"
    "                       doubletree, pattern, random, greedy, chains, scramble\n"
    "  -s, --seed S         seed of randomised methods (default 0)\n"
    "      --count M        method random: exactly M schedules (hitting or not)\n"
    "      --until-covered  method random: stop at the first d-hitting prefix (default)\n"
    "      --patterns P     method pattern: canonical (default), realised or all\n"
    "  -f, --focus FILE     only tuples of these events must be hit (one name per line);\n"
    "                       default: the nodes marked focus=true, if any\n"
    "  -p, --focus-prefix   instead, hit every tuple whose first d-2 events are focus\n"
    "                       events (the paper's pruning: method simple draws its prefixes\n"
    "                       from the focus set)\n"
    "      --format F       text (default) or json\n"
    "  -o, --output FILE    write the family to FILE instead of standard output\n"
    "      --minimize       keep the family in memory, make it smaller with the algorithm\n"
    "                       of 'hitfam minimize' (seeded by --seed, d <= 4), then write it;\n"
    "                       the header's method is then METHOD+minimize\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 written, 2 invalid input or no method applies.\n";

/* Write the family to out_path (NULL: stdout); 0, or 2 after a message. */
static int write_family(const hf_poset *p, const hf_family *f, const char *out_path,
                        hf_format format, const hf_family_header *header)
{
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "wb"))) {
        report(out_path, 0, "cannot create: %s", strerror(errno));
        return EXIT_BAD;
    }
    hf_status st = hf_family_write(p, f, out, format, header);
    if (out != stdout) {
        if (fclose(out) != 0 && !st)
            st = HF_EIO;
    } else if (fflush(out) != 0 && !st) {
        st = HF_EIO;
    }
    if (st) {
        report(out_path ? out_path : "stdout", 0, "write failed: %s", hf_strerror(st));
        if (out_path)
            remove(out_path);
        return EXIT_BAD;
    }
    return 0;
}

/* gen --minimize: the whole family in memory, minimised, then written. */
static int gen_minimized(const hf_poset *p, const hf_gen_options *opt, const char *poset_path,
                         const char *out_path, hf_format format)
{
    hf_error err;
    hf_family *f = NULL;
    hf_method used = opt->method;
    hf_status st = hf_method_check(p, opt, &err);
    if (!st && (st = hf_family_new(hf_poset_ctx(p), hf_poset_size(p), &f)) != HF_OK)
        snprintf(err.text, sizeof err.text, "%s", hf_strerror(st));
    if (!st)
        st = hf_generate(p, opt, hf_family_sink(f), &used, &err);
    hf_minimize_options mo;
    hf_minimize_options_init(&mo);
    mo.d = opt->d;
    mo.focus = opt->focus;
    mo.focus_count = opt->focus_count;
    mo.seed = opt->seed;
    if (!st)
        st = hf_family_minimize(p, f, &mo, NULL, &err);
    if (st) {
        report_error(poset_path, st, &err);
        hf_family_free(f);
        return EXIT_BAD;
    }
    char method[64];
    snprintf(method, sizeof method, "%s+minimize", hf_method_name(used));
    hf_family_header header = {.d = opt->d, .method = method, .schedules_known = true,
                               .schedules = hf_family_size(f)};
    int rc = write_family(p, f, out_path, format, &header);
    hf_family_free(f);
    return rc;
}

/* gen's output: the writer is made when hf_generate_ex announces the method and size. */
typedef struct gen_output {
    const hf_poset *p;
    FILE *out;
    hf_format format;
    unsigned d;
    hf_writer *w;
    hf_status writer_st; /* why the writer could not be made */
} gen_output;

static hf_status gen_begin(void *user, const hf_gen_info *info)
{
    gen_output *g = user;
    hf_family_header header = {.d = g->d, .method = hf_method_name(info->method),
                               .schedules_known = info->schedules_known,
                               .schedules = info->schedules};
    g->writer_st = hf_writer_new(g->p, g->out, g->format, &header, &g->w);
    return g->writer_st;
}

static hf_status gen_put(void *user, const uint32_t *schedule, uint32_t n)
{
    hf_sink ws = hf_writer_sink(((gen_output *)user)->w);
    return ws.put(ws.user, schedule, n);
}

static int cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {
        {"d", required_argument, NULL, 'd'},      {"method", required_argument, NULL, 'm'},
        {"seed", required_argument, NULL, 's'},   {"focus", required_argument, NULL, 'f'},
        {"format", required_argument, NULL, 'F'}, {"output", required_argument, NULL, 'o'},
        {"focus-prefix", no_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
        {"count", required_argument, NULL, 'C'},  {"until-covered", no_argument, NULL, 'U'},
        {"patterns", required_argument, NULL, 'P'}, {"minimize", no_argument, NULL, 'M'},
        {NULL, 0, NULL, 0}};
    hf_gen_options opt;
    bool until_covered = false, count_given = false, patterns_given = false, minimize = false;
    hf_gen_options_init(&opt);
    unsigned d = 0;
    const char *focus_path = NULL, *out_path = NULL;
    hf_format format = HF_FORMAT_TEXT;
    int c;
    while ((c = getopt_long(argc, argv, "d:m:s:f:o:ph", opts, NULL)) != -1) {
        switch (c) {
        case 'd': d = parse_d(optarg); break;
        case 'm':
            if (hf_method_from_name(optarg, &opt.method) != HF_OK)
                die_usage("unknown method '%s'", optarg);
            break;
        case 's': {
            char *end;
            errno = 0;
            opt.seed = strtoull(optarg, &end, 0);
            if (errno || *end || end == optarg)
                die_usage("--seed needs an unsigned integer (got '%s')", optarg);
            break;
        }
        case 'f': focus_path = optarg; break;
        case 'F':
            if (strcmp(optarg, "text") == 0)
                format = HF_FORMAT_TEXT;
            else if (strcmp(optarg, "json") == 0)
                format = HF_FORMAT_JSON;
            else
                die_usage("--format must be text or json (got '%s')", optarg);
            break;
        case 'o': out_path = optarg; break;
        case 'p': opt.focus_prefix = true; break;
        case 'C': {
            char *end;
            errno = 0;
            opt.count = strtoull(optarg, &end, 10);
            if (errno || *end || end == optarg || optarg[0] == '-' || opt.count == 0)
                die_usage("--count needs a positive integer (got '%s')", optarg);
            count_given = true;
            break;
        }
        case 'U': until_covered = true; break;
        case 'P':
            if (strcmp(optarg, "canonical") == 0)
                opt.pattern_mode = HF_PATTERN_CANONICAL;
            else if (strcmp(optarg, "realised") == 0 || strcmp(optarg, "realized") == 0)
                opt.pattern_mode = HF_PATTERN_REALISED;
            else if (strcmp(optarg, "all") == 0)
                opt.pattern_mode = HF_PATTERN_ALL;
            else
                die_usage("--patterns must be canonical, realised or all (got '%s')", optarg);
            patterns_given = true;
            break;
        case 'M': minimize = true; break;
        case 'h': fputs(gen_usage, stdout); return 0;
        default: die_usage("invalid option");
        }
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing POSET.dot" : "too many arguments");
    if (d == 0)
        die_usage("--d is required");
    if (minimize && count_given)
        die_usage("--minimize needs a d-hitting family: it excludes --count");
    if (minimize && opt.focus_prefix)
        die_usage("--minimize keeps every focus tuple hit: it excludes --focus-prefix");
    if (count_given && until_covered)
        die_usage("--count and --until-covered exclude each other");
    if ((count_given || until_covered) && opt.method != HF_METHOD_RANDOM)
        die_usage("--count and --until-covered are options of --method random");
    if (patterns_given && opt.method != HF_METHOD_PATTERN)
        die_usage("--patterns is an option of --method pattern");
    const char *poset_path = argv[optind];
    hf_poset *p = read_poset(poset_path);
    uint32_t *focus = NULL;
    choose_focus(p, focus_path, &focus, &opt.focus, &opt.focus_count);
    opt.d = d;
    if (opt.focus_prefix && !opt.focus)
        die_usage("--focus-prefix needs a focus set (--focus FILE or focus=true nodes)");
    if (minimize) {
        int rc = gen_minimized(p, &opt, poset_path, out_path, format);
        free(focus);
        poset_free(p);
        return rc;
    }
    hf_error err;
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "wb"))) {
        report(out_path, 0, "cannot create: %s", strerror(errno));
        exit(EXIT_BAD);
    }
    /* A failed run removes its partial output, but never a device or a pipe (-o /dev/full) */
    struct stat out_stat;
    bool removable = out_path && fstat(fileno(out), &out_stat) == 0 && S_ISREG(out_stat.st_mode);
    /* the writer is made once the method and its size are known: one run, header first */
    gen_output g = {.p = p, .out = out, .format = format, .d = d};
    hf_gen_info info;
    errno = 0;
    hf_status st = hf_generate_ex(p, &opt, gen_begin, &g, (hf_sink){gen_put, &g}, &info, &err);
    int gen_errno = errno; /* with the sink's HF_EIO: the stream's reason, if it left one */
    uint64_t written = g.w ? hf_writer_count(g.w) : 0;
    errno = 0;
    hf_status close_st = hf_writer_close(g.w);
    if (out != stdout && fclose(out) != 0 && !close_st)
        close_st = HF_EIO;
    int write_errno = st == HF_EIO ? gen_errno : errno;
    int rc = 0;
    if (g.writer_st == HF_ENOMEM) {
        report(NULL, 0, "%s", hf_strerror(HF_ENOMEM));
        rc = EXIT_BAD;
    } else if (g.writer_st) {
        report(out_path ? out_path : "stdout", 0, "%s", hf_strerror(g.writer_st));
        rc = EXIT_BAD;
    } else if ((st == HF_EIO && g.w) || (!st && close_st)) { /* the output, not the order */
        report(out_path ? out_path : "stdout", 0, "write failed: %s",
               write_errno ? strerror(write_errno) : hf_strerror(HF_EIO));
        rc = EXIT_BAD;
    } else if (st) {
        report_error(poset_path, st, &err);
        rc = EXIT_BAD;
    } else if (info.schedules_known && written != info.schedules) {
        report(NULL, 0, "internal error: method %s wrote %" PRIu64 " schedules, predicted %" PRIu64,
               hf_method_name(info.method), written, info.schedules);
        rc = EXIT_BAD;
    }
    if (rc && removable)
        remove(out_path);
    free(focus);
    poset_free(p);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* verify                                                                                     */

static const char verify_usage[] =
    "Usage: hitfam verify [--d D] [options] POSET.dot FAMILY\n"
    "Check that FAMILY (text or JSON, '-' = stdin) is a d-hitting family of the order in\n"
    "POSET.dot: every schedule is a linear extension, and every admissible d-tuple appears in\n"
    "that order in some schedule. Without --d, the d of the family's header is used.\n"
    "\n"
    "  -d, --d D            tuple size, 1..8\n"
    "  -f, --focus FILE     only tuples of these events must be hit (one name per line);\n"
    "                       default: the nodes marked focus=true, if any\n"
    "  -c, --count          also count the uncovered admissible tuples (exact)\n"
    "  -q, --quiet          print nothing on success\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 d-hitting, 1 not d-hitting (one uncovered tuple is printed),\n"
    "2 invalid input (unknown or missing event, a schedule that violates the order, ...).\n";

static int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"d", required_argument, NULL, 'd'}, {"focus", required_argument, NULL, 'f'},
        {"count", no_argument, NULL, 'c'},   {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},    {NULL, 0, NULL, 0}};
    unsigned d = 0;
    const char *focus_path = NULL;
    bool count = false, quiet = false;
    int c;
    while ((c = getopt_long(argc, argv, "d:f:cqh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': d = parse_d(optarg); break;
        case 'f': focus_path = optarg; break;
        case 'c': count = true; break;
        case 'q': quiet = true; break;
        case 'h': fputs(verify_usage, stdout); return 0;
        default: die_usage("invalid option");
        }
    }
    if (argc - optind != 2)
        die_usage(argc - optind < 2 ? "missing POSET.dot or FAMILY" : "too many arguments");
    const char *poset_path = argv[optind], *family_path = argv[optind + 1];
    if (strcmp(poset_path, "-") == 0 && strcmp(family_path, "-") == 0)
        die_usage("the order and the family cannot both be read from standard input");
    hf_poset *p = read_poset(poset_path);
    size_t len;
    char *data = slurp(family_path, &len);
    hf_family *f = NULL;
    hf_family_header header;
    hf_error err;
    uint32_t *focus = NULL;
    mpz_t uncovered;
    mpz_init(uncovered);
    int rc = EXIT_BAD; /* every failure below has reported, then frees everything */
    hf_status st = hf_family_read_mem(p, data, len, &f, &header, &err);
    if (st) {
        report_error(family_path, st, &err);
        goto out;
    }
    if (d == 0) {
        if (header.d > HF_MAX_D) {
            report(family_path, header_line(data, len),
                   "the header's d=%u is out of range (1 to %u); give --d", header.d, HF_MAX_D);
            goto out;
        }
        if (header.d < 1) {
            report(NULL, 0, "--d is required: %s has no d in its header", family_path);
            fprintf(stderr, "Try '%s --help'.\n", command);
            goto out;
        }
        d = header.d;
    }
    hf_verify_options vopt = {.d = d, .focus = NULL, .focus_count = 0};
    choose_focus(p, focus_path, &focus, &vopt.focus, &vopt.focus_count);
    hf_verify_result res;
    st = unless_oom(hf_verify(p, f, &vopt, &res, &err));
    if (st) {
        int line = 0;
        const char *sched = strstr(err.text, "schedule ");
        if (st == HF_ESCHEDULE && sched) {
            size_t k = strtoul(sched + 9, NULL, 10);
            size_t first = 0;
            while (first < len && (data[first] == ' ' || data[first] == '\n' ||
                                   data[first] == '\t' || data[first] == '\r'))
                first++;
            if (k > 0 && !(first < len && data[first] == '{'))
                line = schedule_line(data, len, k - 1);
        }
        report(family_path, line, "%s", err.text[0] ? err.text : hf_strerror(st));
        goto out;
    }
    /* counted before anything is printed: a failure leaves standard output empty */
    if (count && (st = hf_verify_count_uncovered(p, f, &vopt, uncovered, &err))) {
        report_error(family_path, st, &err);
        goto out;
    }
    if (res.hitting) {
        if (!quiet)
            printf("%u-hitting: %zu schedules hit every admissible %u-tuple of %" PRIu32
                   " events%s\n",
                   d, hf_family_size(f), d, hf_poset_size(p), vopt.focus ? " (focus set)" : "");
        rc = EXIT_HIT;
    } else {
        printf("not %u-hitting: no schedule orders", d);
        for (unsigned i = 0; i < res.d; i++) {
            fputs(i ? " before " : " ", stdout);
            hf_name_write(stdout, hf_poset_name(p, res.witness[i]));
        }
        printf("\nuncovered:");
        for (unsigned i = 0; i < res.d; i++) {
            putchar(' ');
            hf_name_write(stdout, hf_poset_name(p, res.witness[i]));
        }
        putchar('\n');
        rc = EXIT_NOT_HIT;
    }
    if (count)
        gmp_printf("uncovered tuples: %Zd\n", uncovered);
out:
    mpz_clear(uncovered);
    free(focus);
    free(data);
    hf_family_free(f);
    poset_free(p);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* minimize                                                                                   */

static const char minimize_usage[] =
    "Usage: hitfam minimize [--d D] [options] POSET.dot FAMILY\n"
    "Write a smaller d-hitting family: drop the schedules of FAMILY (text or JSON, '-' = stdin)\n"
    "whose tuples other schedules hit, then replace schedules one at a time, each by another\n"
    "schedule that still hits the tuples only it hits, so that more become redundant. The result\n"
    "is d-hitting, no larger, and no schedule in it is redundant. Without --d, the d of the\n"
    "family's header is used. The same input and seed give the same output on every machine.\n"
    "\n"
    "  -d, --d D            tuple size, 1..4\n"
    "  -f, --focus FILE     only tuples of these events must stay hit (one name per line);\n"
    "                       default: the nodes marked focus=true, if any\n"
    "  -s, --seed S         seed of the replacements (default 0)\n"
    "  -r, --rounds R       replacement attempts (default: 200 per schedule, fewer for large\n"
    "                       orders: at most 2^32 / C(events, d), but one per schedule)\n"
    "      --drop-only      only drop redundant schedules, no replacement\n"
    "      --format F       text (default) or json\n"
    "  -o, --output FILE    write the family to FILE instead of standard output\n"
    "  -v, --verbose        report 'minimized M -> K schedules' on standard error\n"
    "  -h, --help           show this help\n"
    "\n"
    "The header names the input header's method followed by '+minimize' (just 'minimize' when\n"
    "the input names none) and the number of schedules.\n"
    "Exit status: 0 written, 1 FAMILY is not d-hitting (an uncovered tuple is named),\n"
    "2 invalid input (unknown or missing event, a schedule that violates the order, d > 4, ...).\n";

/* The method a family's header names (text `method=NAME` or JSON "method": "NAME"), when it is
 * a plain name other than "unknown"; false otherwise. */
static bool input_method(const char *data, size_t len, char *buf, size_t cap)
{
    size_t i = 0, n = 0, at = SIZE_MAX;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    size_t end = i;
    bool json = i < len && data[i] == '{';
    if (len - i >= 9 && memcmp(data + i, "# hitfam ", 9) == 0) {
        while (end < len && data[end] != '\n')
            end++;
        for (; i + 8 <= end && at == SIZE_MAX; i++)
            if (memcmp(data + i, " method=", 8) == 0)
                at = i + 8;
    } else if (json) {
        end = len < i + 4096 ? len : i + 4096;
        for (; i + 8 <= end && at == SIZE_MAX; i++) {
            if (memcmp(data + i, "\"method\"", 8) != 0)
                continue;
            size_t j = i + 8;
            while (j < end && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n'))
                j++;
            if (j >= end || data[j] != ':')
                continue;
            j++;
            while (j < end && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n'))
                j++;
            if (j < end && data[j] == '"')
                at = j + 1;
        }
    }
    if (at == SIZE_MAX)
        return false;
    i = at;
    while (i + n < end && n + 1 < cap) {
        char c = data[i + n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '+' || c == '.'))
            break;
        buf[n] = c;
        n++;
    }
    buf[n] = '\0';
    char next = i + n < end ? data[i + n] : (json ? '\0' : ' ');
    bool closed = json ? next == '"' : (next == ' ' || next == '\t' || next == '\r');
    return n > 0 && closed && strcmp(buf, "unknown") != 0;
}

static int cmd_minimize(int argc, char **argv)
{
    static const struct option opts[] = {
        {"d", required_argument, NULL, 'd'},      {"focus", required_argument, NULL, 'f'},
        {"seed", required_argument, NULL, 's'},   {"rounds", required_argument, NULL, 'r'},
        {"drop-only", no_argument, NULL, 'D'},    {"format", required_argument, NULL, 'F'},
        {"output", required_argument, NULL, 'o'}, {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    hf_minimize_options mo;
    hf_minimize_options_init(&mo);
    unsigned d = 0;
    const char *focus_path = NULL, *out_path = NULL;
    hf_format format = HF_FORMAT_TEXT;
    bool verbose = false;
    int c;
    while ((c = getopt_long(argc, argv, "d:f:s:r:o:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': d = parse_d(optarg); break;
        case 'f': focus_path = optarg; break;
        case 's': {
            char *end;
            errno = 0;
            mo.seed = strtoull(optarg, &end, 0);
            if (errno || *end || end == optarg || optarg[0] == '-')
                die_usage("--seed needs an unsigned integer (got '%s')", optarg);
            break;
        }
        case 'r': {
            char *end;
            errno = 0;
            mo.rounds = strtoull(optarg, &end, 10);
            if (errno || *end || end == optarg || optarg[0] == '-' || mo.rounds == 0)
                die_usage("--rounds needs a positive integer (got '%s'); --drop-only makes "
                          "no replacement", optarg);
            break;
        }
        case 'D': mo.drop_only = true; break;
        case 'F':
            if (strcmp(optarg, "text") == 0)
                format = HF_FORMAT_TEXT;
            else if (strcmp(optarg, "json") == 0)
                format = HF_FORMAT_JSON;
            else
                die_usage("--format must be text or json (got '%s')", optarg);
            break;
        case 'o': out_path = optarg; break;
        case 'v': verbose = true; break;
        case 'h': fputs(minimize_usage, stdout); return 0;
        default: die_usage("invalid option");
        }
    }
    if (argc - optind != 2)
        die_usage(argc - optind < 2 ? "missing POSET.dot or FAMILY" : "too many arguments");
    if (mo.drop_only && mo.rounds)
        die_usage("--rounds and --drop-only exclude each other");
    const char *poset_path = argv[optind], *family_path = argv[optind + 1];
    if (strcmp(poset_path, "-") == 0 && strcmp(family_path, "-") == 0)
        die_usage("the order and the family cannot both be read from standard input");
    hf_poset *p = read_poset(poset_path);
    size_t len;
    char *data = slurp(family_path, &len);
    hf_family *f = NULL;
    hf_family_header in_header;
    hf_error err;
    hf_status st = hf_family_read_mem(p, data, len, &f, &in_header, &err);
    if (st) {
        report_error(family_path, st, &err);
        free(data);
        poset_free(p);
        return EXIT_BAD;
    }
    if (d == 0) {
        if (in_header.d < 1 || in_header.d > HF_MAX_D) {
            free(data);
            hf_family_free(f);
            poset_free(p);
            die_usage("--d is required: %s has no d in its header", family_path);
        }
        d = in_header.d;
    }
    uint32_t *focus = NULL;
    choose_focus(p, focus_path, &focus, &mo.focus, &mo.focus_count);
    mo.d = d;
    hf_minimize_result res;
    st = hf_family_minimize(p, f, &mo, &res, &err);
    if (st) {
        int line = 0;
        const char *sched = strstr(err.text, "schedule ");
        size_t first = 0;
        while (first < len && (data[first] == ' ' || data[first] == '\n' ||
                               data[first] == '\t' || data[first] == '\r'))
            first++;
        if (st == HF_ESCHEDULE && sched && !(first < len && data[first] == '{')) {
            size_t k = strtoul(sched + 9, NULL, 10);
            if (k > 0)
                line = schedule_line(data, len, k - 1);
        }
        report(family_path, line, "%s", err.text[0] ? err.text : hf_strerror(st));
        free(focus);
        free(data);
        hf_family_free(f);
        poset_free(p);
        /* a family that is not d-hitting is refused like `verify` refuses it */
        return st == HF_EMISMATCH && res.d > 0 ? EXIT_NOT_HIT : EXIT_BAD;
    }
    char in_method[64], method[80];
    if (input_method(data, len, in_method, sizeof in_method)) {
        size_t ml = strlen(in_method), sl = strlen("+minimize");
        bool again = ml >= sl && strcmp(in_method + ml - sl, "+minimize") == 0;
        snprintf(method, sizeof method, "%s%s", in_method, again ? "" : "+minimize");
    } else {
        snprintf(method, sizeof method, "minimize");
    }
    hf_family_header header = {.d = d, .method = method, .schedules_known = true,
                               .schedules = hf_family_size(f)};
    int rc = write_family(p, f, out_path, format, &header);
    if (!rc && verbose)
        report(NULL, 0, "minimized %zu -> %zu schedules (%zu after dropping, %" PRIu64
               " replacement attempts)",
               res.before, res.after, res.after_drop, res.rounds_run);
    free(focus);
    free(data);
    hf_family_free(f);
    poset_free(p);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* stats                                                                                      */

static const char stats_usage[] =
    "Usage: hitfam stats [--d D] [--json] POSET.dot\n"
    "Describe the order in POSET.dot ('-' = stdin): events, Hasse edges, height, shape, the\n"
    "exact number of linear extensions, and for each d (default: 2 and 3) the exact number of\n"
    "admissible d-tuples, a lower bound on every d-hitting family, and the exact family size\n"
    "each method would produce.\n"
    "\n"
    "  -d, --d D            only this d (1..8)\n"
    "  -j, --json           JSON output\n"
    "  -h, --help           show this help\n";

static const char *shape_name(unsigned shape)
{
    if (shape & HF_SHAPE_CHAIN)
        return "chain";
    if (shape & HF_SHAPE_ANTICHAIN)
        return "antichain";
    if (shape & HF_SHAPE_TREE)
        return "tree";
    if (shape & HF_SHAPE_FOREST)
        return "forest";
    if (shape & HF_SHAPE_INFOREST)
        return "in-forest";
    return "general";
}

/* An exact count, or the reason there is none (JSON: null), as text. Caller frees. */
static char *count_text(hf_status st, mpz_t v, const hf_error *err, bool json)
{
    if (st == HF_OK)
        return mpz_get_str(NULL, 10, v);
    const char *why = err->text[0] ? err->text : hf_strerror(st);
    size_t n = strlen(why) + 16;
    char *s = xmalloc(n);
    if (json)
        snprintf(s, n, "null");
    else
        snprintf(s, n, "unknown (%s)", why);
    return s;
}

static int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {{"d", required_argument, NULL, 'd'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    unsigned only_d = 0;
    bool json = false;
    int c;
    while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': only_d = parse_d(optarg); break;
        case 'j': json = true; break;
        case 'h': fputs(stats_usage, stdout); return 0;
        default: die_usage("invalid option");
        }
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing POSET.dot" : "too many arguments");
    hf_poset *p = read_poset(argv[optind]);
    unsigned shape = hf_poset_shape(p);
    mpz_t v;
    mpz_init(v);
    hf_error err;
    hf_status st = unless_oom(hf_count_linear_extensions(p, v, &err));
    char *linext = count_text(st, v, &err, json);
    if (json)
        printf("{\"events\": %" PRIu32 ", \"hasse_edges\": %zu, \"height\": %" PRIu32
               ", \"shape\": \"%s\", \"forest\": %s, \"in_forest\": %s, "
               "\"linear_extensions\": %s, ",
               hf_poset_size(p), hf_poset_hasse_edge_count(p), hf_poset_height(p),
               shape_name(shape), shape & HF_SHAPE_FOREST ? "true" : "false",
               shape & HF_SHAPE_INFOREST ? "true" : "false", linext);
    else
        printf("events: %" PRIu32 "\nhasse edges: %zu\nheight: %" PRIu32
               "\nshape: %s\nlinear extensions: %s\n",
               hf_poset_size(p), hf_poset_hasse_edge_count(p), hf_poset_height(p),
               shape_name(shape), linext);
    uint32_t tree_height;
    if (unless_oom(hf_poset_tree_height(p, &tree_height)) == HF_OK) {
        if (json)
            printf("\"binary_tree_height\": %" PRIu32 ", ", tree_height);
        else
            printf("binary tree height: %" PRIu32 "\n", tree_height);
    }
    if (json)
        printf("\"d\": [");
    free(linext);
    unsigned first = only_d ? only_d : 2, last = only_d ? only_d : 3;
    for (unsigned d = first; d <= last; d++) {
        st = unless_oom(hf_count_admissible(p, d, NULL, 0, v, &err));
        char *tuples = count_text(st, v, &err, json);
        st = unless_oom(hf_count_lower_bound(p, d, v, &err));
        char *bound = count_text(st, v, &err, json);
        if (json)
            printf("%s{\"d\": %u, \"admissible_tuples\": %s, \"lower_bound\": %s, \"methods\": {",
                   d > first ? ", " : "", d, tuples, bound);
        else
            printf("d=%u:\n  admissible tuples: %s\n  lower bound: %s\n  methods:\n", d, tuples,
                   bound);
        free(tuples);
        free(bound);
        for (int m = HF_METHOD_DFS; m <= HF_METHOD_SCRAMBLE; m++) {
            hf_gen_options opt;
            hf_gen_options_init(&opt);
            opt.d = d;
            opt.method = (hf_method)m;
            /* sizes known only by running the construction are left to `gen` */
            bool runs = hf_method_predict_runs((hf_method)m) &&
                        unless_oom(hf_method_check(p, &opt, &err)) == HF_OK;
            st = runs ? HF_EUNSUPPORTED : unless_oom(hf_method_predict_mpz(p, &opt, v, NULL, &err));
            if (runs)
                snprintf(err.text, sizeof err.text,
                         "applies; its size is known only by running it: hitfam gen --method %s",
                         hf_method_name((hf_method)m));
            if (json) {
                printf("%s\"%s\": ", m > HF_METHOD_DFS ? ", " : "", hf_method_name((hf_method)m));
                if (st == HF_OK)
                    gmp_printf("%Zd", v);
                else
                    printf("null");
            } else if (st == HF_OK) {
                gmp_printf("    %-10s %Zd\n", hf_method_name((hf_method)m), v);
            } else {
                printf("    %-10s -  (%s)\n", hf_method_name((hf_method)m),
                       err.text[0] ? err.text : hf_strerror(st));
            }
        }
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = d;
        hf_method chosen;
        st = unless_oom(hf_method_predict_mpz(p, &opt, v, &chosen, &err));
        if (json)
            printf("}, \"auto\": %s%s%s}", st ? "null" : "\"", st ? "" : hf_method_name(chosen),
                   st ? "" : "\"");
        else
            printf("  auto: %s\n", st ? "no method applies" : hf_method_name(chosen));
    }
    if (json)
        printf("]}\n");
    mpz_clear(v);
    poset_free(p);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

static const char main_usage[] =
    "Usage: hitfam COMMAND [options] ...\n"
    "Build, check and measure hitting families of schedules for partial orders of events.\n"
    "\n"
    "Commands:\n"
    "  gen      write a d-hitting family for an order given in DOT\n"
    "  verify   check that a family is d-hitting (exit 0), or print an uncovered tuple (1)\n"
    "  minimize make a d-hitting family smaller (d <= 4), keeping it d-hitting\n"
    "  stats    describe an order: counts, bounds, and the size each method would give\n"
    "\n"
    "  -h, --help      show this help ('hitfam COMMAND --help' for a command)\n"
    "  -V, --version   show the version\n";

/* The exit status once standard output is flushed: a write error (a full disk) must not pass
 * for a result. Failed commands have reported already. */
static int finish(int rc)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc != EXIT_BAD)
            report("stdout", 0, "write failed: %s", errno ? strerror(errno) : hf_strerror(HF_EIO));
        return EXIT_BAD;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die_usage("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(main_usage, stdout);
        return finish(0);
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("hitfam %s\n", hf_version_string());
        return finish(0);
    }
    static char name[64];
    snprintf(name, sizeof name, "hitfam %.32s", cmd);
    command = name;
    if (strcmp(cmd, "gen") == 0)
        return finish(cmd_gen(argc - 1, argv + 1));
    if (strcmp(cmd, "verify") == 0)
        return finish(cmd_verify(argc - 1, argv + 1));
    if (strcmp(cmd, "stats") == 0)
        return finish(cmd_stats(argc - 1, argv + 1));
    if (strcmp(cmd, "minimize") == 0)
        return finish(cmd_minimize(argc - 1, argv + 1));
    command = "hitfam";
    die_usage("unknown command '%s'", cmd);
    return EXIT_BAD;
}
