/* hitfam draw: an order as DOT for Graphviz's renderers (dot -Tsvg), with one schedule of a
 * family laid over it (each event's position, the schedule's steps as dashed edges), a tuple
 * highlighted (what `verify --explain` writes for an uncovered tuple), or the conflicting pairs
 * of a labelled order. The drawing, draw_order, is shared with verify. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "Usage: hitfam draw [options] POSET.dot [FAMILY --row I]\n"
    "Write the order in POSET.dot ('-' = stdin) as DOT for Graphviz (for example\n"
    "'hitfam draw order.dot | dot -Tsvg > order.svg'): its Hasse diagram, each event labelled\n"
    "with its name and, when set, its thread, object and access.\n"
    "\n"
    "      --row I          lay schedule I of FAMILY (counted from 1) over the order: each\n"
    "                       event shows its position, consecutive events are joined by\n"
    "                       dashed edges\n"
    "  -t, --tuple NAME     highlight event NAME as the next entry of a tuple (repeat the\n"
    "                       option for each entry, in order; names as written in the DOT)\n"
    "  -c, --conflicts      join the conflicting pairs (unordered, same object, one writes;\n"
    "                       every unordered pair when no event has an object) by red edges\n"
    "  -o, --output FILE    write to FILE instead of standard output\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 written, 2 invalid input.\n";

/* Conflict edges drawn at most: beyond, a drawing is no help and its size unbounded (n^2). */
#define DRAW_MAX_CONFLICTS 100000u

/* A growing string. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_put(text *t, char c)
{
    if (t->len + 2 > t->cap) {
        t->cap = t->cap * 2 + 64;
        char *grown = realloc(t->s, t->cap);
        if (!grown)
            die_nomem();
        t->s = grown;
    }
    t->s[t->len++] = c;
    t->s[t->len] = '\0';
}

/* Graphviz's label escapes (\n, \l, \N, ...) start with a backslash: a name's own backslashes
 * are doubled to be shown as they are. */
static void text_name(text *t, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            text_put(t, '\\');
        text_put(t, *s);
    }
}

/* Label markup as is: line breaks are written "\\n". */
static void text_raw(text *t, const char *s)
{
    for (; *s; s++)
        text_put(t, *s);
}

/* The label of event x: its name, thread, object and access, position in the row, tuple entry.
 * Malloc'd. */
static char *event_label(const hf_poset *p, uint32_t x, const uint32_t *pos, const uint32_t *rank)
{
    text t = {0};
    text_put(&t, '\0');
    t.len = 0;
    text_name(&t, hf_poset_name(p, x));
    uint32_t th = hf_poset_thread(p, x), ob = hf_poset_object(p, x);
    if (th != HF_NO_EVENT) {
        text_raw(&t, "\\nthread ");
        text_name(&t, hf_poset_thread_name(p, th));
    }
    if (ob != HF_NO_EVENT) {
        text_raw(&t, hf_poset_access(p, x) == HF_ACCESS_READ ? "\\nreads " : "\\nwrites ");
        text_name(&t, hf_poset_object_name(p, ob));
    }
    char piece[48];
    if (pos) {
        snprintf(piece, sizeof piece, "\\n#%" PRIu32, pos[x] + 1);
        text_raw(&t, piece);
    }
    if (rank && rank[x]) {
        snprintf(piece, sizeof piece, "\\ntuple entry %" PRIu32, rank[x]);
        text_raw(&t, piece);
    }
    return t.s;
}

/* Writes that fail leave the stream in error; output_close reports it. Every ID and value was
 * checked before (draw_refusal), so nothing else can fail here. */
static void put_id(FILE *out, const char *name)
{
    if (hf_dot_write_name(out, name) != HF_OK)
        return;
}

static void put_edge(FILE *out, const hf_poset *p, uint32_t a, uint32_t b, const char *attrs)
{
    fputs("  ", out);
    put_id(out, hf_poset_name(p, a));
    fputs(" -> ", out);
    put_id(out, hf_poset_name(p, b));
    fprintf(out, "%s;\n", attrs);
}

/* Per-event position in the row and tuple rank (0: not in the tuple), malloc'd or NULL. */
static void marks_index(const hf_poset *p, const draw_marks *marks, uint32_t **pos, uint32_t **rank)
{
    uint32_t n = hf_poset_size(p);
    *pos = *rank = NULL;
    if (marks->row) {
        *pos = xmalloc((n ? n : 1) * sizeof **pos);
        for (uint32_t i = 0; i < n; i++)
            (*pos)[marks->row[i]] = i;
    }
    if (marks->tuple_len) {
        *rank = calloc(n ? n : 1, sizeof **rank);
        if (!*rank)
            die_nomem();
        for (unsigned i = 0; i < marks->tuple_len; i++)
            (*rank)[marks->tuple[i]] = i + 1;
    }
}

const char *draw_refusal(const hf_poset *p, const draw_marks *marks)
{
    static char why[200];
    uint32_t n = hf_poset_size(p), *pos, *rank;
    marks_index(p, marks, &pos, &rank);
    why[0] = '\0';
    for (uint32_t x = 0; x < n && !why[0]; x++) {
        char *label = event_label(p, x, pos, rank);
        hf_status st = hf_dot_check_name(hf_poset_name(p, x));
        if (st == HF_OK)
            st = hf_dot_check_value(label);
        free(label);
        if (st == HF_ENOMEM)
            die_nomem();
        if (st)
            snprintf(why, sizeof why,
                     "event %" PRIu32 " (of %" PRIu32 ") has a name or label no DOT ID reads back "
                     "as itself: it cannot be drawn",
                     x + 1, n);
    }
    free(pos);
    free(rank);
    return why[0] ? why : NULL;
}

void draw_order(FILE *out, const hf_poset *p, const draw_marks *marks)
{
    uint32_t n = hf_poset_size(p), *pos, *rank;
    marks_index(p, marks, &pos, &rank);
    fputs("digraph hitfam {\n"
          "  graph [rankdir=TB];\n"
          "  node [shape=box, style=\"rounded,filled\", fillcolor=white];\n",
          out);
    if (marks->title) /* digits and words of the caller's: a plain quoted value */
        fprintf(out, "  graph [labelloc=t, label=\"%s\"];\n", marks->title);
    for (uint32_t x = 0; x < n; x++) {
        char *label = event_label(p, x, pos, rank);
        fputs("  ", out);
        put_id(out, hf_poset_name(p, x));
        fputs(" [label=", out);
        if (hf_dot_write_value(out, label) != HF_OK) { /* see put_id */
        }
        free(label);
        if (rank && rank[x])
            fputs(", fillcolor=\"#f4a3a3\", penwidth=2", out);
        else if (pos)
            fprintf(out, ", fillcolor=\"0.58 %.3f 1.000\"",
                    n > 1 ? 0.1 + 0.5 * (double)pos[x] / (n - 1) : 0.1);
        fputs("];\n", out);
    }
    for (uint32_t x = 0; x < n; x++) {
        uint32_t count;
        const uint32_t *succ = hf_poset_hasse_succ(p, x, &count);
        for (uint32_t i = 0; i < count; i++)
            put_edge(out, p, x, succ[i], "");
    }
    for (uint32_t i = 0; pos && i + 1 < n; i++)
        put_edge(out, p, marks->row[i], marks->row[i + 1],
                 " [style=dashed, color=\"#3060c0\", constraint=false]");
    for (unsigned i = 0; i + 1 < marks->tuple_len; i++)
        put_edge(out, p, marks->tuple[i], marks->tuple[i + 1],
                 " [style=bold, color=\"#c03030\", constraint=false, label=\"then\"]");
    for (uint32_t a = 0; marks->conflicts && a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if (hf_poset_conflict(p, a, b))
                put_edge(out, p, a, b,
                         " [dir=none, style=dashed, color=\"#c03030\", constraint=false]");
    fputs("}\n", out);
    free(pos);
    free(rank);
}

/* Conflicting pairs up to limit + 1 (the test of a bound before anything is written). */
static uint64_t conflicts_upto(const hf_poset *p, uint64_t limit)
{
    uint32_t n = hf_poset_size(p);
    uint64_t k = 0;
    for (uint32_t a = 0; a < n && k <= limit; a++)
        for (uint32_t b = a + 1; b < n && k <= limit; b++)
            k += hf_poset_conflict(p, a, b);
    return k;
}

int cmd_draw(int argc, char **argv)
{
    static const struct option opts[] = {{"row", required_argument, NULL, 'r'},
                                         {"tuple", required_argument, NULL, 't'},
                                         {"conflicts", no_argument, NULL, 'c'},
                                         CLI_OPT_OUTPUT,
                                         CLI_OPT_HELP,
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    uint64_t row = 0;
    bool have_row = false, conflicts = false;
    const char *tuple_names[HF_MAX_D];
    unsigned tuple_len = 0;
    int c;
    while ((c = getopt_long(argc, argv, "t:co:h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        }
        if (c == 'r') {
            if (!cli_parse_u64(optarg, &row) || row == 0)
                die_usage("--row needs a schedule number from 1 (got '%s')", optarg);
            have_row = true;
        } else if (c == 't') {
            if (tuple_len == HF_MAX_D)
                die_usage("--tuple is given more than %u times (tuples have at most %u entries)",
                          HF_MAX_D, HF_MAX_D);
            tuple_names[tuple_len++] = optarg;
        } else if (c == 'c') {
            conflicts = true;
        } else if (!cli_option(&o, c, optarg)) {
            die_usage("invalid option");
        }
    }
    int args = argc - optind;
    if (args < 1)
        die_usage("missing POSET.dot");
    if (args > 2)
        die_usage("too many arguments");
    if (args == 2 && !have_row)
        die_usage("a FAMILY is drawn one schedule at a time: give --row I");
    if (args == 1 && have_row)
        die_usage("--row needs a FAMILY");
    const char *poset_path = argv[optind], *family_path = args == 2 ? argv[optind + 1] : NULL;
    if (family_path && strcmp(poset_path, "-") == 0 && strcmp(family_path, "-") == 0)
        die_usage("the order and the family cannot both be read from standard input");

    hf_poset *p = read_poset(poset_path);
    hf_family *f = NULL;
    int rc = EXIT_BAD; /* every failure below has reported, then frees everything */
    draw_marks marks = {.conflicts = conflicts};
    uint32_t tuple[HF_MAX_D];
    for (unsigned i = 0; i < tuple_len; i++) {
        hf_status st = hf_poset_find(p, tuple_names[i], &tuple[i]);
        if (st == HF_ENOMEM) {
            report(NULL, 0, "%s", hf_strerror(st));
            goto out;
        }
        if (st != HF_OK) {
            report(poset_path, 0, "--tuple: no event is named '%s'", tuple_names[i]);
            goto out;
        }
        for (unsigned j = 0; j < i; j++)
            if (tuple[j] == tuple[i]) {
                report(poset_path, 0, "--tuple: event '%s' is given twice", tuple_names[i]);
                goto out;
            }
    }
    marks.tuple = tuple;
    marks.tuple_len = tuple_len;
    if (conflicts && conflicts_upto(p, DRAW_MAX_CONFLICTS) > DRAW_MAX_CONFLICTS) {
        report(poset_path, 0,
               "--conflicts: the order has more than %u conflicting pairs, too many to draw",
               DRAW_MAX_CONFLICTS);
        goto out;
    }
    char title[96];
    if (family_path) {
        size_t len;
        char *data = slurp(family_path, &len);
        hf_family_header header;
        hf_error err;
        hf_status st = hf_family_read_mem(p, data, len, &f, &header, &err);
        free(data);
        if (st) {
            report_error(family_path, st, &err);
            goto out;
        }
        if (row > hf_family_size(f)) {
            report(family_path, 0, "--row %" PRIu64 ": the family has %zu schedule%s", row,
                   hf_family_size(f), hf_family_size(f) == 1 ? "" : "s");
            goto out;
        }
        if ((st =
                 unless_oom(hf_schedule_check(p, hf_family_schedule(f, row - 1), row - 1, &err)))) {
            report(family_path, 0, "%s", err.text);
            goto out;
        }
        marks.row = hf_family_schedule(f, row - 1);
        snprintf(title, sizeof title, "schedule %" PRIu64 " of %zu", row, hf_family_size(f));
        marks.title = title;
    }
    const char *why = draw_refusal(p, &marks);
    if (why) {
        report(poset_path, 0, "%s", why);
        goto out;
    }
    cli_output out;
    output_open(&out, o.out_path);
    draw_order(out.stream, p, &marks);
    hf_status st = output_close(&out);
    if (st)
        report(o.out_path ? o.out_path : "stdout", 0, "write failed");
    rc = output_commit(&out, st == HF_OK);
out:
    hf_family_free(f);
    poset_free(p);
    return rc;
}
