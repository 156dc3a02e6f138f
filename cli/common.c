/* What every command of the CLI shares: messages, reading files, the command's context, the
 * options several commands take, and the -o output written to a temporary file first. */
#define _XOPEN_SOURCE   700 /* realpath */
#define _DEFAULT_SOURCE     /* MAP_POPULATE */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hitfam/order.h>

#include "cli.h"

/* ------------------------------------------------------------------------------------------ */
/* Messages                                                                                   */

static const char *command = "hitfam";

void cli_set_command(const char *name)
{
    static char buf[64];
    if (name)
        snprintf(buf, sizeof buf, "hitfam %.32s", name);
    command = name ? buf : "hitfam";
}

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

static void vsay(const char *fmt, va_list ap) CLI_PRINTF(1, 0);

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
    progress_clear();
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

void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help'.\n", command);
    exit(EXIT_BAD);
}

void report(const char *file, int line, const char *fmt, ...)
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

void report_error(const char *file, hf_status st, const hf_error *err)
{
    if (st == HF_ENOMEM)
        report(NULL, 0, "%s", hf_strerror(st));
    else
        report(file, err->line, "%s", err->text[0] ? err->text : hf_strerror(st));
}

void die_nomem(void)
{
    report(NULL, 0, "%s", hf_strerror(HF_ENOMEM));
    exit(EXIT_BAD);
}

hf_status unless_oom(hf_status st)
{
    if (st == HF_ENOMEM)
        die_nomem();
    return st;
}

void *xmalloc(size_t size)
{
    void *ptr = malloc(size ? size : 1);
    if (!ptr)
        die_nomem();
    return ptr;
}

/* ------------------------------------------------------------------------------------------ */
/* Input and the command's context                                                            */

char *slurp(const char *path, size_t *len)
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
        if (!bigger)
            die_nomem();
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

/* The temporary file of the output, removed if the command exits before committing it (see
 * Output below). */
static char *pending;

/* While a mapped input is read: its path and bytes, for the SIGBUS handler, and the handler it
 * replaced. */
static const char *volatile bus_path;
static const char *volatile bus_lo, *volatile bus_hi;
static struct sigaction bus_old;

static void write_all_stderr(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0 && errno != EINTR)
            return;
        if (w > 0)
            s += w, n -= (size_t)w;
    }
}

/* A page of the mapped input is gone: the file shrank while it was read. Say so and end as for
 * any bad input, removing the pending output (only async-signal-safe calls here). A SIGBUS
 * elsewhere is no input's doing: the signal's default action, as without the handler. */
static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    /* si_code <= 0: sent by a process (kill, raise), whose si_addr means nothing */
    const char *at = info && info->si_code > 0 ? (const char *)info->si_addr : NULL;
    if (!at || at < bus_lo || at >= bus_hi) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    write_all_stderr("hitfam: ");
    write_all_stderr(bus_path ? bus_path : "input");
    write_all_stderr(": the file shrank while it was read\n");
    if (pending)
        unlink(pending);
    _exit(EXIT_BAD);
}

/* A regular file's bytes are mapped rather than copied: no buffer to fill (the copy and the fresh
 * pages it touches were a fifth of the reading of a large order), and the pages are those of the
 * file cache. The mapping is private and read-only; MAP_POPULATE (Linux) maps every page at once
 * instead of one fault at a time. The readers take (data, len) and never read data[len], so a
 * file whose size is a multiple of the page size is no special case (the cli case
 * page_sized_order checks one). The usual caveats of mapping: a file truncated while hitfam
 * reads it loses the pages past its new end, whose reading raises SIGBUS, which the handler above
 * turns into a message and exit status 2; a file rewritten in place meanwhile may be read partly
 * old, partly new; a file replaced by renaming (as -o does) is read whole as it was. Standard
 * input, pipes and other files that are not regular, empty files,
 * and any failure to map fall back to slurp's copy. */
void input_open(const char *path, cli_input *in)
{
    *in = (cli_input){0};
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            report(path, 0, "cannot open: %s", strerror(errno));
            exit(EXIT_BAD);
        }
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
            (uintmax_t)sb.st_size <= SIZE_MAX) {
            int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
            flags |= MAP_POPULATE;
#endif
            void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, flags, fd, 0);
            struct sigaction sa = {.sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO};
            sigemptyset(&sa.sa_mask);
            bus_lo = map;
            bus_hi = (const char *)map + sb.st_size;
            if (map != MAP_FAILED && sigaction(SIGBUS, &sa, &bus_old) == 0) {
                close(fd);
                bus_path = path;
                in->data = map;
                in->len = (size_t)sb.st_size;
                in->mapped = true;
                return;
            }
            if (map != MAP_FAILED)
                munmap(map, (size_t)sb.st_size);
        }
        close(fd);
    }
    in->owned = slurp(path, &in->len);
    in->data = in->owned;
}

void input_close(cli_input *in)
{
    if (in->mapped) {
        munmap((void *)in->data, in->len);
        sigaction(SIGBUS, &bus_old, NULL);
        bus_path = NULL;
    }
    free(in->owned);
    *in = (cli_input){0};
}

hf_ctx *ctx_new(void)
{
    hf_ctx *ctx = NULL;
    hf_status st = hf_ctx_new(cli_allocator(), NULL, NULL, &ctx);
    if (st) {
        report(NULL, 0, "%s", hf_strerror(st));
        exit(EXIT_BAD);
    }
    progress_attach(ctx);
    return ctx;
}

void poset_free(hf_poset *p)
{
    hf_ctx *ctx = hf_poset_ctx(p);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

hf_poset *read_poset(const char *path)
{
    cli_input in;
    input_open(path, &in);
    hf_ctx *ctx = ctx_new();
    hf_poset *p = NULL;
    hf_error err;
    /* hitfam's compact order format (hitfam convert) wherever DOT is taken */
    hf_status st = hf_order_is_compact(in.data, in.len)
                       ? hf_order_read_mem(ctx, in.data, in.len, &p, &err)
                       : hf_dot_read_mem(ctx, in.data, in.len, &p, &err);
    input_close(&in);
    if (st) {
        report_error(path, st, &err);
        hf_ctx_free(ctx);
        exit(EXIT_BAD);
    }
    return p;
}

void choose_focus(const hf_poset *p, const char *path, uint32_t **owned, const uint32_t **focus,
                  size_t *count)
{
    *owned = NULL;
    *focus = NULL;
    *count = 0;
    if (path) {
        size_t len;
        char *data = slurp(path, &len);
        hf_error err;
        hf_status st = hf_focus_read_mem(p, data, len, owned, count, &err);
        free(data);
        if (st) {
            report_error(path, st, &err);
            exit(EXIT_BAD);
        }
        *focus = *owned;
        return;
    }
    uint32_t fc;
    const uint32_t *marked = hf_poset_focus(p, &fc);
    if (fc) {
        *focus = marked;
        *count = fc;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Options                                                                                    */

void cli_options_init(cli_options *o)
{
    *o = (cli_options){.d = 0, .seed = 0, .format = HF_FORMAT_TEXT};
}

bool cli_parse_u64(const char *s, uint64_t *v)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    uint64_t x = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        unsigned c = (unsigned char)*s, digit;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (base == 16 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'))
            digit = (c | 0x20) - 'a' + 10;
        else
            return false;
        if (x > (UINT64_MAX - digit) / base)
            return false;
        x = x * base + digit;
    }
    *v = x;
    return true;
}

unsigned cli_parse_d(const char *s)
{
    uint64_t d;
    if (!cli_parse_u64(s, &d) || d < 1 || d > HF_MAX_D)
        die_usage("--d must be an integer from 1 to %u (got '%s')", HF_MAX_D, s);
    return (unsigned)d;
}

bool cli_option(cli_options *o, int c, const char *arg)
{
    switch (c) {
    case 'd':
        o->d = cli_parse_d(arg);
        return true;
    case 's':
        if (!cli_parse_u64(arg, &o->seed))
            die_usage("--seed needs an unsigned integer (got '%s')", arg);
        return true;
    case 'F':
        if (strcmp(arg, "text") == 0)
            o->format = HF_FORMAT_TEXT;
        else if (strcmp(arg, "json") == 0)
            o->format = HF_FORMAT_JSON;
        else if (strcmp(arg, "ids") == 0)
            o->format = HF_FORMAT_IDS;
        else if (strcmp(arg, "bin") == 0)
            o->format = HF_FORMAT_BIN;
        else
            die_usage("--format must be text, json, ids or bin (got '%s')", arg);
        return true;
    case 'f':
        o->focus_path = arg;
        return true;
    case 'o':
        o->out_path = arg;
        return true;
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                     */

/* `pending` (above): the temporary file of the output, removed if the command exits before
 * committing it (a message and exit(EXIT_BAD) from anywhere, or the SIGBUS handler). */

static void remove_pending(void)
{
    if (pending)
        remove(pending);
}

void output_open(cli_output *o, const char *path)
{
    *o = (cli_output){.stream = stdout, .path = path};
    if (!path)
        return;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) { /* a device, a pipe, a directory: no renaming */
        if (!(o->stream = fopen(path, "wb"))) {
            report(path, 0, "cannot create: %s", strerror(errno));
            exit(EXIT_BAD);
        }
        return;
    }
    /* Through a symbolic link the file it points to is replaced, not the link. */
    struct stat lst;
    char *target = NULL;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        target = realpath(path, NULL);
    if (!target) {
        target = xmalloc(strlen(path) + 1);
        strcpy(target, path);
    }
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    char *temp = xmalloc(strlen(target) + 16);
    snprintf(temp, strlen(target) + 16, "%.*s.%s.XXXXXX", (int)dir, target, target + dir);
    int fd = mkstemp(temp);
    if (fd < 0) {
        report(path, 0, "cannot create: %s", strerror(errno));
        exit(EXIT_BAD);
    }
    static bool registered;
    if (!registered)
        registered = atexit(remove_pending) == 0;
    pending = temp;
    /* the mode FILE has, or would get from fopen: mkstemp makes it 0600 */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
    if (!(o->stream = fdopen(fd, "wb"))) {
        report(path, 0, "cannot create: %s", strerror(errno));
        exit(EXIT_BAD);
    }
    o->temp = temp;
    o->target = target;
}

hf_status output_close(cli_output *o)
{
    if (o->stream == stdout)
        return fflush(stdout) == 0 ? HF_OK : HF_EIO;
    return fclose(o->stream) == 0 ? HF_OK : HF_EIO;
}

int output_commit(cli_output *o, bool keep)
{
    int rc = keep ? 0 : EXIT_BAD;
    if (o->temp) {
        if (keep && rename(o->temp, o->target) != 0) {
            report(o->path, 0, "cannot create: %s", strerror(errno));
            rc = EXIT_BAD;
        }
        if (rc)
            remove(o->temp);
        pending = NULL;
    }
    free(o->temp);
    free(o->target);
    o->temp = o->target = NULL;
    return rc;
}

int write_family(const hf_poset *p, const hf_family *f, const cli_options *o,
                 const hf_family_header *header)
{
    cli_output out;
    output_open(&out, o->out_path);
    hf_status st = hf_family_write(p, f, out.stream, o->format, header);
    hf_status cst = output_close(&out);
    if (!st)
        st = cst;
    if (st == HF_ENOMEM) /* the writer's own memory, not the output's fault */
        report(NULL, 0, "%s", hf_strerror(st));
    else if (st)
        report(o->out_path ? o->out_path : "stdout", 0, "write failed: %s", hf_strerror(st));
    return output_commit(&out, !st);
}

void stream_open(cli_stream *s, const hf_poset *p, const char *path, hf_format format)
{
    *s = (cli_stream){.p = p, .name = path ? path : "stdout", .format = format};
    output_open(&s->out, path);
}

void stream_thread(cli_stream *s)
{
    if (!s->out.temp)
        return;
    FILE *f = out_thread_open(s->out.stream);
    if (f)
        s->out.stream = f;
}

hf_status stream_begin(cli_stream *s, const hf_family_header *header)
{
    errno = 0;
    s->writer_st = hf_writer_new(s->p, s->out.stream, s->format, header, &s->w);
    s->fail_errno = errno;
    if (s->watch)
        s->watch->next = hf_writer_sink(s->w);
    return s->writer_st;
}

/* The writer's first refusal, with errno as the writer left it. */
static void stream_failed(void *user, hf_status st)
{
    cli_stream *s = user;
    if (!s->put_st) {
        s->put_st = st;
        s->fail_errno = errno;
    }
}

static hf_status stream_put(void *user, const uint32_t *schedule, uint32_t n)
{
    cli_stream *s = user;
    hf_sink ws = hf_writer_sink(s->w);
    errno = 0;
    hf_status st = ws.put(ws.user, schedule, n);
    if (st)
        stream_failed(s, st);
    return st;
}

hf_sink stream_sink(cli_stream *s)
{
    /* the library's watch passes the generators' own rows on to the writer as they come (see
     * hf_writer); the writer is set here or in stream_begin */
    if (!s->watch && (s->watch = malloc(sizeof *s->watch)) != NULL)
        *s->watch = (hf_sink_watch){hf_writer_sink(s->w), stream_failed, s};
    return s->watch ? hf_sink_watch_sink(s->watch) : (hf_sink){stream_put, s};
}

uint64_t stream_count(const cli_stream *s) { return s->w ? hf_writer_count(s->w) : 0; }

int stream_close(cli_stream *s, hf_status st, const hf_error *err, const char *input_path)
{
    errno = 0;
    hf_status close_st = hf_writer_close(s->w);
    if (s->out.stream != stdout && output_close(&s->out) != HF_OK && !close_st)
        close_st = HF_EIO;
    int write_errno = s->writer_st || s->put_st ? s->fail_errno : errno;
    s->w = NULL;
    free(s->watch);
    s->watch = NULL;
    /* the writer's own memory is not the output's fault */
    if (s->writer_st == HF_ENOMEM || s->put_st == HF_ENOMEM)
        report(NULL, 0, "%s", hf_strerror(HF_ENOMEM));
    else if (s->writer_st && s->writer_st != HF_EIO)
        report(s->name, 0, "%s", hf_strerror(s->writer_st));
    else if (s->writer_st || s->put_st || (!st && close_st))
        report(s->name, 0, "write failed: %s",
               write_errno ? strerror(write_errno) : hf_strerror(HF_EIO));
    else if (st)
        report_error(input_path, st, err);
    else
        return 0;
    return EXIT_BAD;
}

uint64_t cli_positive_hint(const char *arg, const char *name, const char *hint)
{
    uint64_t v;
    if (!cli_parse_u64(arg, &v) || v == 0)
        die_usage("%s needs a positive integer (got '%s')%s%s", name, arg, hint ? "; " : "",
                  hint ? hint : "");
    return v;
}

uint64_t cli_positive(const char *arg, const char *name)
{
    return cli_positive_hint(arg, name, NULL);
}

uint64_t cli_in_range(const char *arg, const char *name, uint64_t lo, uint64_t hi)
{
    uint64_t v;
    if (!cli_parse_u64(arg, &v) || v < lo || v > hi)
        die_usage("%s needs a number from %" PRIu64 " to %" PRIu64 " (got '%s')", name, lo, hi,
                  arg);
    return v;
}
