/* DOT input through libcgraph, the parser of record: the input pre-scanned (lib/io_dot_scan.c),
 * libcgraph run under a lock with its messages captured and turned into hitfam's, and its graph
 * fed to the public poset builder; hf_dot_read_mem picks this path or the fast reader. */
#include <graphviz/cgraph.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io_dot_i.h"
#include "poset_i.h"

/* ---------------------------------------------------------------------------------------- */
/* Limits that keep libcgraph (Graphviz 2.4x) on its safe paths (its parser's: io_dot_scan.c) */

/* Its error callback path formats a message into a 1024-byte static buffer and, when the message
 * is longer, retries with an already consumed va_list (reading garbage). The buffer only ever
 * grows, so one long message without conversions, sent once per process, makes it large enough
 * for every message a parse can produce: those quote one bare token (at most HF_MAX_NAME bytes)
 * and a `# line "file"` name (at most HF_I_DOT_LINE_FILE_MAX bytes). */
#define PRIME_MESSAGE_LEN 16384u

/* One captured libcgraph message: the first error and the first warning of a read are kept. */
#define MESSAGE_CAP (HF_MAX_NAME + HF_I_DOT_LINE_FILE_MAX + 512u)

/* ---------------------------------------------------------------------------------------- */
/* libcgraph's process-wide error state                                                      */

typedef struct capture {
    int expect; /* 0: a level word or text, 1: the ": " after a level word, 2: text */
    int level;  /* level of the message being received: 0 warning, 1 error */
    unsigned errors, warnings;
    bool recording; /* the current message is the first of its level */
    char first[2][MESSAGE_CAP];
    size_t first_len[2];
} capture;

/* libcgraph's handler takes no user pointer: the one read in progress (under dot_lock) is here.
 * Together with `dot_primed` this is the module's only global state, both guarded by dot_lock. */
static pthread_mutex_t dot_lock = PTHREAD_MUTEX_INITIALIZER;
static capture *dot_capture;
static bool dot_primed;

/* libcgraph sends a message as "Error" or "Warning", then ": ", then the text (continuations
 * come as text alone). */
static int capture_message(char *msg)
{
    capture *c = dot_capture;
    if (!c || !msg)
        return 0;
    if (c->expect == 1) {
        c->expect = 2;
        if (strcmp(msg, ": ") == 0)
            return 0;
    }
    if (c->expect != 2 && (strcmp(msg, "Error") == 0 || strcmp(msg, "Warning") == 0)) {
        c->level = msg[0] == 'E';
        unsigned *count = c->level ? &c->errors : &c->warnings;
        c->recording = (*count)++ == 0;
        c->expect = 1;
        return 0;
    }
    c->expect = 0;
    if (c->recording) {
        size_t *n = &c->first_len[c->level];
        size_t add = strlen(msg);
        if (add > MESSAGE_CAP - 1 - *n)
            add = MESSAGE_CAP - 1 - *n;
        memcpy(c->first[c->level] + *n, msg, add);
        *n += add;
        c->first[c->level][*n] = '\0';
    }
    return 0;
}

static void capture_reset(capture *c)
{
    c->expect = 0;
    c->level = 0;
    c->errors = c->warnings = 0;
    c->recording = false;
    c->first_len[0] = c->first_len[1] = 0;
    c->first[0][0] = c->first[1][0] = '\0';
}

/* See PRIME_MESSAGE_LEN. Called with dot_lock held and no capture attached. */
static hf_status prime_libcgraph(hf_ctx *ctx)
{
    if (dot_primed)
        return HF_OK;
    char *msg = hf_i_malloc(ctx, PRIME_MESSAGE_LEN + 1);
    if (!msg)
        return HF_ENOMEM;
    memset(msg, 'x', PRIME_MESSAGE_LEN);
    msg[PRIME_MESSAGE_LEN] = '\0';
    agerr(AGWARN, msg);
    hf_i_free(ctx, msg);
    dot_primed = true;
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading                                                                                    */

typedef struct mem_chan {
    const char *data;
    size_t len, pos;
} mem_chan;

static int chan_read(void *chan, char *buf, int bufsize)
{
    mem_chan *m = chan;
    size_t n = m->len - m->pos;
    if (bufsize <= 0)
        return 0;
    if (n > (size_t)bufsize)
        n = (size_t)bufsize;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return (int)n;
}

static int chan_putstr(void *chan, const char *str)
{
    (void)chan;
    (void)str;
    return EOF;
}

static int chan_flush(void *chan)
{
    (void)chan;
    return 0;
}

/* Read graphs until libcgraph reports the end; only that path empties its scanner's buffer,
 * which would otherwise feed the next read, whoever makes it. */
static void drain(mem_chan *chan, Agdisc_t *disc, unsigned *graphs)
{
    Agraph_t *g;
    while ((g = agread(chan, disc)) != NULL) {
        if (graphs)
            (*graphs)++;
        agclose(g);
    }
}

/* Find "in line N" in a libcgraph message; 0 when absent. The phrase is msg[at, at + span). */
static int message_line(const char *msg, size_t *at, size_t *span)
{
    const char *p = strstr(msg, " in line ");
    if (!p)
        return 0;
    const char *q = p + 9;
    bool neg = *q == '-';
    if (neg)
        q++;
    if (!hf_i_dot_is_digit((unsigned char)*q))
        return 0;
    long v = 0;
    for (; hf_i_dot_is_digit((unsigned char)*q); q++)
        if (v < 1000000000L)
            v = v * 10 + (*q - '0');
    *at = (size_t)(p - msg);
    *span = (size_t)(q - p);
    return (int)(neg ? -v : v);
}

/* Copy s[0..n) for a message: control bytes become \xNN, long text ends in "...". */
static void quote_for_message(const char *s, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (k + 8 >= cap || i >= 48) {
            memcpy(buf + k, "...", 4);
            return;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(buf + k, cap - k, "\\x%02x", c);
            k += 4;
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k] = '\0';
}

/* Turn libcgraph's message into hitfam's: the line goes to err->line, the text says what is
 * wrong without the position (the CLI prints "FILE:LINE: text"). */
static hf_status explain(char *msg, bool warning, hf_error *err)
{
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = '\0';
    if (!*msg)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "Graphviz could not read the input");
    size_t at = 0, span = 0;
    int line = message_line(msg, &at, &span);
    char tok[80];
    const char *p;
    if ((p = strstr(msg, "memory exhausted")) != NULL) /* the pre-scan should prevent this */
        return hf_i_fail(err, HF_ETOOLARGE, line, 0,
                         "the Graphviz parser ran out of stack (subgraphs nested too deeply or "
                         "edge chain too long)");
    if (warning && (p = strstr(msg, "badly delimited number '")) != NULL) {
        p += strlen("badly delimited number '");
        const char *e = strstr(p, "' in line");
        quote_for_message(p, e ? (size_t)(e - p) : strlen(p), tok, sizeof tok);
        return hf_i_fail(err, HF_EPARSE, line, 0,
                         "ambiguous name '%s': a number directly followed by letters; put it in "
                         "quotes or separate the parts",
                         tok);
    }
    if ((p = strstr(msg, "syntax error")) != NULL) {
        const char *rest = span && msg + at >= p ? msg + at + span : p + strlen("syntax error");
        if (strncmp(rest, " near '", 7) == 0) {
            const char *t = rest + 7;
            size_t n = strlen(t);
            if (n > 0 && t[n - 1] == '\'')
                n--;
            quote_for_message(t, n, tok, sizeof tok);
            return hf_i_fail(err, HF_EPARSE, line, 0, "syntax error near '%s'", tok);
        }
        if (!*rest)
            return hf_i_fail(err, HF_EPARSE, line, 0, "syntax error at end of input");
        quote_for_message(rest, strlen(rest), tok, sizeof tok);
        return hf_i_fail(err, HF_EPARSE, line, 0, "syntax error%s", tok);
    }
    if (span)
        memmove(msg + at, msg + at + span, strlen(msg + at + span) + 1);
    char text[200];
    size_t n = strlen(msg);
    quote_for_message(msg, n, text, sizeof text);
    return hf_i_fail(err, HF_EPARSE, line, 0, "%s%s", warning ? "Graphviz warns: " : "", text);
}

/* Events in libcgraph's node order (first appearance), then every edge of the root graph (it
 * holds the edges of all subgraphs). */
static hf_status build_from_graph(hf_ctx *ctx, Agraph_t *g, const char *text, size_t text_len,
                                  hf_poset_builder *b, hf_error *err)
{
    uint64_t max_seq = 0;
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
        if ((uint64_t)AGSEQ(n) > max_seq)
            max_seq = AGSEQ(n);
    if (max_seq >= SIZE_MAX / sizeof(uint32_t))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t *ids = hf_i_alloc_array(ctx, (size_t)max_seq + 1, sizeof *ids);
    hf_status st = HF_OK;
    char q[80], qv[80];
    if (!ids) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto done;
    }
    char focus_attr[] = "focus", thread_attr[] = "thread", obj_attr[] = "obj",
         access_attr[] = "access";
    Agsym_t *focus = agattr(g, AGNODE, focus_attr, NULL);
    Agsym_t *thread = agattr(g, AGNODE, thread_attr, NULL);
    Agsym_t *obj = agattr(g, AGNODE, obj_attr, NULL);
    Agsym_t *access = agattr(g, AGNODE, access_attr, NULL);
    if (obj) {
        /* libcgraph gives "" for an event without the attribute and for an explicit obj="": the
         * text tells them apart */
        char owner[80];
        int line;
        if ((st = hf_i_dot_attr_find(ctx, text, text_len, "obj", "", &line, owner, sizeof owner))) {
            hf_i_fail(err, st, 0, 0, "out of memory");
            goto done;
        }
        if (line) {
            st = hf_i_fail(err, HF_EPARSE, line, 0,
                           "%s%s: obj= is empty (name the object the event touches, or leave "
                           "the attribute out)",
                           hf_i_dot_word_is(owner, strlen(owner), "node") ? "node defaults"
                                                                          : "event ",
                           hf_i_dot_word_is(owner, strlen(owner), "node")
                               ? ""
                               : hf_i_name_quote(owner, q, sizeof q));
            goto done;
        }
    }
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const char *raw = agnameof(n);
        if (!raw)
            raw = "";
        if (raw[0] == '%') {
            /* libcgraph keeps such names as anonymous ids and prints its own "%N" */
            st = hf_i_fail(err, HF_EPARSE, 0, 0,
                           "a node name starts with '%%', which Graphviz reserves (it reads back "
                           "as %s); rename the node",
                           hf_i_name_quote(raw, q, sizeof q));
            goto done;
        }
        /* the name is what Graphviz made of the ID, byte for byte (its own escapes undone,
         * nothing more), so that hitfam and Graphviz's tools agree on every event */
        const char *name = raw;
        size_t len = strlen(raw);
        if (len > HF_MAX_NAME) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0, "event name longer than %u bytes (%zu): %s",
                           HF_MAX_NAME, len, hf_i_name_quote(name, q, 48));
            goto done;
        }
        uint32_t id;
        st = hf_poset_builder_add_event(b, name, &id);
        if (st == HF_ETOOLARGE) {
            hf_i_fail(err, st, 0, 0, "the graph has more than %u events", HF_MAX_EVENTS);
            goto done;
        }
        if (st) {
            hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
            goto done;
        }
        ids[AGSEQ(n)] = id;
        if (focus) {
            const char *v = agxget(n, focus);
            bool on = false;
            if (v && !hf_i_dot_truth_value(v, &on)) {
                st = hf_i_dot_attr_fail(
                    ctx, text, text_len, "focus", v, err,
                    "event %s: focus=%s is not a truth value (use true, false, yes, "
                    "no, 1 or 0)",
                    hf_i_name_quote(name, q, sizeof q), hf_i_name_quote(v, qv, sizeof qv));
                goto done;
            }
            if (on && (st = hf_poset_builder_set_focus(b, id))) {
                hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
                goto done;
            }
        }
        const char *tv = thread ? agxget(n, thread) : NULL;
        if (tv && tv[0]) {
            hf_i_name_quote(name, q, sizeof q);
            st = hf_poset_builder_set_thread(b, id, tv);
            if (st == HF_ETOOLARGE) {
                hf_i_fail(err, st, 0, 0, "event %s: thread name longer than %u bytes", q,
                          HF_MAX_NAME);
                goto done;
            }
            if (st) {
                hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
                goto done;
            }
        }
        if ((st = hf_i_dot_read_object(ctx, b, id, name, obj ? agxget(n, obj) : NULL,
                                       access ? agxget(n, access) : NULL, text, text_len, err)))
            goto done;
    }
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
        for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
            st = hf_poset_builder_add_order(b, ids[AGSEQ(agtail(e))], ids[AGSEQ(aghead(e))]);
            if (st) {
                hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
                goto done;
            }
        }
done:
    hf_i_free(ctx, ids);
    return st;
}

/* Run libcgraph on the input under the lock, with its error state captured and restored, and
 * feed the builder. */
static hf_status parse_locked(hf_ctx *ctx, const char *data, size_t len, const hf_i_dot_scan *sc,
                              capture *cap, hf_poset_builder *b, hf_error *err)
{
    Agiodisc_t io = {chan_read, chan_putstr, chan_flush};
    Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &io};
    mem_chan none = {"", 0, 0};
    mem_chan chan = {data, len, 0};
    hf_status st = HF_OK;

    pthread_mutex_lock(&dot_lock);
    agusererrf old_fn = agseterrf(capture_message);
    agerrlevel_t old_level = agseterr(AGWARN);
    int old_max = agerrors();
    dot_capture = NULL;
    if ((st = prime_libcgraph(ctx))) {
        hf_i_fail(err, st, 0, 0, "out of memory");
        goto restore;
    }
    drain(&none, &disc, NULL); /* someone else's unread input must not become ours */
    agsetfile(NULL);           /* no file name from an earlier `# line` directive; line 1 */

    capture_reset(cap);
    dot_capture = cap;
    Agraph_t *g = agread(&chan, &disc);
    if (!g || cap->errors || cap->warnings) {
        bool warning = cap->errors == 0 && cap->warnings > 0;
        if (g) {
            agclose(g);
            dot_capture = NULL;
            drain(&chan, &disc, NULL);
        }
        if (cap->errors || cap->warnings)
            st = explain(cap->first[warning ? 0 : 1], warning, err);
        else
            st = hf_i_fail(err, HF_EPARSE, 0, 0, "empty input: no graph");
        goto restore;
    }

    capture_reset(cap);
    unsigned more = 0;
    drain(&chan, &disc, &more);
    dot_capture = NULL;
    if (more > 0)
        st = hf_i_fail(err, HF_EPARSE, sc->second_line, 0,
                       "several graphs in one input (graph 2 starts at line %d)", sc->second_line);
    else if (cap->errors || cap->warnings)
        st = explain(cap->first[cap->errors ? 1 : 0], cap->errors == 0, err);
    else if (!agisdirected(g))
        st = hf_i_fail(err, HF_EPARSE, sc->first_line, 0, "undirected graph: use digraph and ->");
    else if (agnnodes(g) == 0)
        st = hf_i_fail(err, HF_EPARSE, sc->first_line, 0, "the graph has no events");
    else
        st = build_from_graph(ctx, g, data, len, b, err);
    agclose(g);

restore:
    dot_capture = NULL;
    if (old_max < AGERR && agerrors() >= AGERR)
        agreseterrors();
    agseterr(old_level);
    agseterrf(old_fn);
    pthread_mutex_unlock(&dot_lock);
    return st;
}

hf_status hf_dot_read_mem(hf_ctx *ctx, const char *data, size_t len, hf_poset **out, hf_error *err)
{
    hf_i_dot_path path = HF_I_DOT_AUTO;
    const char *env = getenv("HITFAM_DOT_READER");
    if (env && strcmp(env, "fast") == 0)
        path = HF_I_DOT_FAST;
    else if (env && strcmp(env, "libcgraph") == 0)
        path = HF_I_DOT_CGRAPH;
    return hf_i_dot_read_path(ctx, data, len, path, out, err);
}

hf_status hf_i_dot_read_path(hf_ctx *ctx, const char *data, size_t len, hf_i_dot_path path,
                             hf_poset **out, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!out || (!data && len))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (!data)
        data = "";
    /* libcgraph skips a byte order mark only when a blank follows it */
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        len -= 3;
    }
    if (path != HF_I_DOT_CGRAPH) {
        /* the plain subset in one pass; libcgraph reads (and explains) everything else */
        hf_status st = hf_i_dot_read_fast(ctx, data, len, out, err);
        if (st != HF_EUNSUPPORTED)
            return st;
        if (path == HF_I_DOT_FAST)
            return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                             "the input is not in the plain DOT subset of the fast reader");
    }
    return hf_i_dot_read_cgraph(ctx, data, len, out, err);
}

hf_status hf_i_dot_read_cgraph(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                               hf_error *err)
{
    hf_i_error_clear(err);
    *out = NULL;
    hf_i_dot_scan sc;
    hf_status st = hf_i_dot_prescan(ctx, data, len, &sc, err);
    if (st)
        return st;
    if (!sc.any_token)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "empty input: no graph");
    if (sc.undirected)
        return hf_i_fail(err, HF_EPARSE, sc.first_line, 0, "undirected graph: use digraph and ->");

    capture *cap = hf_i_malloc(ctx, sizeof *cap);
    hf_poset_builder *b = NULL;
    if (!cap || (st = hf_poset_builder_new(ctx, &b))) {
        hf_i_free(ctx, cap);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    st = parse_locked(ctx, data, len, &sc, cap, b, err);
    hf_i_free(ctx, cap);
    if (!st)
        st = hf_poset_builder_finish(b, out, err);
    hf_poset_builder_free(b);
    return st;
}

hf_status hf_dot_read_file(hf_ctx *ctx, FILE *in, hf_poset **out, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!in || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    char *buf = NULL;
    size_t len = 0;
    hf_status st = hf_i_read_all(ctx, in, &buf, &len);
    if (st)
        return hf_i_fail(err, st, 0, 0, "%s",
                         st == HF_EIO ? "reading the input failed" : "out of memory");
    st = hf_dot_read_mem(ctx, buf, len, out, err);
    hf_i_free(ctx, buf);
    return st;
}
