/* hitfam gen: a d-hitting family of an order given in DOT, streamed to the output as the chosen
 * method produces it (hf_generate_ex), or kept in memory and minimised first (--minimize). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <hitfam/exact.h>

#include "cli.h"

static const char usage[] =
    "Usage: hitfam gen --d D [options] POSET.dot\n"
    "Write a d-hitting family of schedules of the partial order in POSET.dot ('-' = stdin):\n"
    "every admissible d-tuple of events appears in that order in some schedule.\n"
    "\n"
    "  -d, --d D            tuple size, 1..8 (required)\n"
    "  -m, --method M       auto (default: the smallest family that applies), dfs, simple,\n"
    "                       doubletree, pattern, random, greedy, chains, scramble, exact;\n"
    "                       or a sampler: random, rw (random walk), pct (depth D), pos,\n"
    "                       basicpos\n"
    "  -s, --seed S         seed of randomised methods (default 0)\n"
    "      --count M        a sampler: exactly M schedules (hitting or not)\n"
    "      --until-covered  a sampler: stop at the first d-hitting prefix (default)\n"
    "      --patterns P     method pattern: canonical (default), realised or all\n"
    "      --max-names N    refuse (before the first schedule when the size is known)\n"
    "                       a family of more than N names, schedules x events (default\n"
    "                       10000000000, about 20 GB of text; 0: no limit)\n"
    "      --conflicts N    method exact (and auto, which weighs it on small orders): the\n"
    "                       SAT solver's budget in conflicts (default 2000000; auto 6000)\n"
    "  -f, --focus FILE     only tuples of these events must be hit (one name per line);\n"
    "                       default: the nodes marked focus=true, if any\n"
    "  -p, --focus-prefix   instead, hit every tuple whose first d-2 events are focus\n"
    "                       events (the paper's pruning: method simple draws its prefixes\n"
    "                       from the focus set)\n"
    "      --format F       text (default), json, ids or bin\n"
    "      --rows A:B       write only schedules A to B of the family (counted from 1,\n"
    "                       inclusive; 'A:' to the end, 'A' one row): the same lines as\n"
    "                       in the whole output; the header adds rows=A:B and keeps the\n"
    "                       whole family's schedules=. A row beyond the family: exit 2\n"
    "  -o, --output FILE    write the family to FILE instead of standard output\n"
    "  -t, --threads N      1: all on one thread; 2: method doubletree builds rows on\n"
    "                       a second thread ahead of the writer (and the writer's\n"
    "                       names beside its preparation), and for the other\n"
    "                       methods a second thread writes -o FILE (default 0: 2 when\n"
    "                       there are 2 processors or more; the output is the same)\n"
    "      --minimize       keep the family in memory, make it smaller with the algorithm\n"
    "                       of 'hitfam minimize' (seeded by --seed, d <= 4), then write it;\n"
    "                       the header's method is then METHOD+minimize\n"
    "  -h, --help           show this help\n"
    "\n"
    "Method exact reports on standard error whether the family is proved to be a smallest\n"
    "one, or what is known when its budget ran out.\n"
    "Exit status: 0 written, 2 invalid input or no method applies.\n";

/* --rows A:B, A: (to the end) or A (one row), rows counted from 1. */
static void parse_rows(const char *arg, hf_gen_options *opt)
{
    const char *colon = strchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
    char first[32];
    bool ok = len > 0 && len < sizeof first;
    if (ok) {
        memcpy(first, arg, len);
        first[len] = '\0';
        ok = cli_parse_u64(first, &opt->row_first);
    }
    opt->row_last = 0;
    if (ok && !colon)
        opt->row_last = opt->row_first;
    else if (ok && colon[1])
        ok = cli_parse_u64(colon + 1, &opt->row_last);
    if (!ok)
        die_usage("--rows needs A:B, A: or A, numbers from 1 to 2^64 - 1 (got '%s')", arg);
    if (opt->row_first == 0 || (colon && colon[1] && opt->row_last == 0))
        die_usage("--rows: rows are counted from 1 (got '%s')", arg);
    if (opt->row_last && opt->row_last < opt->row_first)
        die_usage("--rows %s: the last row comes before the first", arg);
}

/* Write the family built in memory, or rows opt->row_first..row_last of it (the header then
 * gives the whole family's size and the rows). */
static int write_rows(const hf_poset *p, const hf_family *f, const hf_gen_options *opt,
                      const cli_options *o, hf_family_header *header)
{
    if (!opt->row_first)
        return write_family(p, f, o, header);
    size_t m = hf_family_size(f);
    uint64_t last = opt->row_last ? opt->row_last : m;
    if (opt->row_first > m || last > m) {
        report(NULL, 0,
               "row %" PRIu64 " is beyond the family, which has %zu schedules (rows are counted "
               "from 1)",
               opt->row_first > m ? opt->row_first : last, m);
        return EXIT_BAD;
    }
    hf_family *slice = NULL;
    hf_status st = hf_family_new(hf_poset_ctx(p), hf_poset_size(p), &slice);
    for (uint64_t r = opt->row_first; r <= last && !st; r++)
        st = hf_family_append(slice, hf_family_schedule(f, (size_t)r - 1));
    if (st) {
        hf_family_free(slice);
        report(NULL, 0, "%s", hf_strerror(st));
        return EXIT_BAD;
    }
    header->row_first = opt->row_first;
    header->row_last = last;
    int rc = write_family(p, slice, o, header);
    hf_family_free(slice);
    return rc;
}

/* gen --minimize: the whole family in memory, minimised, then written. */
static int gen_minimized(const hf_poset *p, const hf_gen_options *opt, const char *poset_path,
                         const cli_options *o)
{
    hf_error err;
    hf_family *f = NULL;
    hf_method used = opt->method;
    hf_status st = hf_method_check(p, opt, &err);
    if (!st && (st = hf_family_new(hf_poset_ctx(p), hf_poset_size(p), &f)) != HF_OK)
        snprintf(err.text, sizeof err.text, "%s", hf_strerror(st));
    hf_gen_options whole = *opt; /* --rows slices the minimised family */
    whole.row_first = whole.row_last = 0;
    if (!st)
        st = hf_generate(p, &whole, hf_family_sink(f), &used, &err);
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
    hf_family_header header = {
        .d = opt->d, .method = method, .schedules_known = true, .schedules = hf_family_size(f)};
    int rc = write_rows(p, f, opt, o, &header);
    hf_family_free(f);
    return rc;
}

/* gen --method exact: the family in memory (hf_exact_solve), written, and what was proved
 * reported on standard error. */
static int gen_exact(const hf_poset *p, const hf_gen_options *opt, const char *poset_path,
                     const cli_options *o)
{
    hf_error err;
    hf_status st = unless_oom(hf_method_check(p, opt, &err));
    if (st) {
        report_error(poset_path, st, &err);
        return EXIT_BAD;
    }
    hf_exact_options eo;
    hf_exact_options_init(&eo);
    eo.d = opt->d;
    eo.focus = opt->focus_prefix ? NULL : opt->focus; /* as every method but simple */
    eo.focus_count = opt->focus_prefix ? 0 : opt->focus_count;
    eo.conflicts = opt->conflicts;
    hf_family *f = NULL;
    hf_exact_result r;
    if ((st = unless_oom(hf_exact_solve(p, &eo, &f, &r, &err)))) {
        report_error(poset_path, st, &err);
        return EXIT_BAD;
    }
    hf_family_header header = {
        .d = opt->d, .method = "exact", .schedules_known = true, .schedules = hf_family_size(f)};
    int rc = write_rows(p, f, opt, o, &header);
    hf_family_free(f);
    if (rc)
        return rc;
    uint64_t budget = opt->conflicts ? opt->conflicts : HF_EXACT_DEFAULT_CONFLICTS;
    if (r.proved)
        report(NULL, 0,
               "exact: %zu schedules, proved minimal (%" PRIu64 " conflicts, %u solver calls)",
               r.schedules, r.conflicts, r.calls);
    else
        report(NULL, 0,
               "exact: %zu schedules, not proved minimal: %s after %" PRIu64
               " conflicts; every %u-hitting family has at least %zu",
               r.schedules,
               r.exhausted ? "the budget ran out" : "the solver's row limit was reached",
               r.conflicts < budget ? r.conflicts : budget, r.d, r.lower_bound);
    return 0;
}

/* gen's output: the writer is made when hf_generate_ex announces the method and size. */
typedef struct gen_output {
    cli_stream *s;
    unsigned d;
    bool thread; /* --threads 2 or more: an output thread for what the writer copies */
    uint64_t row_first, row_last; /* --rows (0: the whole family) */
} gen_output;

static hf_status gen_begin(void *user, const hf_gen_info *info)
{
    gen_output *g = user;
    /* doubletree's rows reach the file from the writer's renders with writev (no copy to hand
     * to a thread); the other methods' rows are copied into blocks that a second thread writes */
    if (g->thread && info->method != HF_METHOD_DOUBLETREE)
        stream_thread(g->s);
    hf_family_header header = {.d = g->d,
                               .method = hf_method_name(info->method),
                               .schedules_known = info->schedules_known,
                               .schedules = info->schedules};
    if (g->row_first) {
        /* the end of A: is known when the size is */
        header.row_first = g->row_first;
        header.row_last = g->row_last ? g->row_last : info->schedules_known ? info->schedules : 0;
        g->row_last = header.row_last;
    }
    return stream_begin(g->s, &header);
}

/* The family streamed to the output as it is generated: one run, header first. */
static int gen_streamed(const hf_poset *p, const hf_gen_options *opt, const char *poset_path,
                        const cli_options *o)
{
    cli_stream s;
    stream_open(&s, p, o->out_path, o->format);
    gen_output g = {.s = &s,
                    .d = opt->d,
                    .thread = opt->threads >= 2,
                    .row_first = opt->row_first,
                    .row_last = opt->row_last};
    hf_gen_info info;
    hf_error err;
    hf_status st = hf_generate_ex(p, opt, gen_begin, &g, stream_sink(&s), &info, &err);
    uint64_t written = stream_count(&s);
    int rc = stream_close(&s, st, &err, poset_path);
    if (!rc && info.schedules_known && !g.row_first && written != info.schedules) {
        report(NULL, 0, "internal error: method %s wrote %" PRIu64 " schedules, predicted %" PRIu64,
               hf_method_name(info.method), written, info.schedules);
        rc = EXIT_BAD;
    } else if (!rc && g.row_first && g.row_last && written != g.row_last - g.row_first + 1) {
        report(NULL, 0,
               "internal error: method %s wrote %" PRIu64 " schedules of rows %" PRIu64 ":%" PRIu64,
               hf_method_name(info.method), written, g.row_first, g.row_last);
        rc = EXIT_BAD;
    }
    int commit = output_commit(&s.out, rc == 0);
    return rc ? rc : commit;
}

int cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_D,
                                         {"method", required_argument, NULL, 'm'},
                                         CLI_OPT_SEED,
                                         CLI_OPT_FOCUS,
                                         CLI_OPT_FORMAT,
                                         CLI_OPT_OUTPUT,
                                         {"focus-prefix", no_argument, NULL, 'p'},
                                         CLI_OPT_HELP,
                                         {"count", required_argument, NULL, 'C'},
                                         {"until-covered", no_argument, NULL, 'U'},
                                         {"patterns", required_argument, NULL, 'P'},
                                         {"minimize", no_argument, NULL, 'M'},
                                         {"conflicts", required_argument, NULL, 'K'},
                                         {"max-names", required_argument, NULL, 'N'},
                                         {"rows", required_argument, NULL, 'R'},
                                         {"threads", required_argument, NULL, 't'},
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    bool until_covered = false, count_given = false, patterns_given = false, minimize = false;
    uint64_t threads = 0;
    int c;
    while ((c = getopt_long(argc, argv, "d:m:s:f:o:pt:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return 0;
        case 'm':
            if (hf_method_from_name(optarg, &opt.method) != HF_OK)
                die_usage("unknown method '%s'", optarg);
            break;
        case 'p':
            opt.focus_prefix = true;
            break;
        case 'C':
            opt.count = cli_positive(optarg, "--count");
            count_given = true;
            break;
        case 'U':
            until_covered = true;
            break;
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
        case 'M':
            minimize = true;
            break;
        case 'K':
            opt.conflicts = cli_positive(optarg, "--conflicts");
            break;
        case 'R':
            parse_rows(optarg, &opt);
            break;
        case 't':
            if (!cli_parse_u64(optarg, &threads) || threads > 2)
                die_usage("--threads must be 0, 1 or 2 (got '%s')", optarg);
            break;
        case 'N':
            if (!cli_parse_u64(optarg, &opt.max_names))
                die_usage("--max-names needs a number, 0 for no limit (got '%s')", optarg);
            break;
        default:
            if (!cli_option(&o, c, optarg))
                die_usage("invalid option");
        }
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing POSET.dot" : "too many arguments");
    if (o.d == 0)
        die_usage("--d is required");
    if (minimize && count_given)
        die_usage("--minimize needs a d-hitting family: it excludes --count");
    if (minimize && opt.focus_prefix)
        die_usage("--minimize keeps every focus tuple hit: it excludes --focus-prefix");
    if (count_given && until_covered)
        die_usage("--count and --until-covered exclude each other");
    if ((count_given || until_covered) && !hf_method_is_sampler(opt.method))
        die_usage("--count and --until-covered are options of the samplers: --method random, "
                  "rw, pct, pos or basicpos");
    if (patterns_given && opt.method != HF_METHOD_PATTERN)
        die_usage("--patterns is an option of --method pattern");
    if (opt.conflicts && opt.method != HF_METHOD_EXACT && opt.method != HF_METHOD_AUTO)
        die_usage("--conflicts is an option of --method exact (and auto)");
        /* gen allocates and frees arrays of n entries several times (the order, auto's predictions,
         * the generation): kept in the heap for reuse, they are not faulted in afresh each time
         * (with glibc's defaults, blocks from 128 KiB up are mapped and unmapped per allocation).
         */
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    const char *poset_path = argv[optind];
    hf_poset *p = read_poset(poset_path);
    uint32_t *focus = NULL;
    choose_focus(p, o.focus_path, &focus, &opt.focus, &opt.focus_count);
    opt.d = o.d;
    opt.seed = o.seed;
    if (threads == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online >= 2 ? 2 : 1;
    }
    opt.threads = (unsigned)threads;
    if (opt.focus_prefix && !opt.focus)
        die_usage("--focus-prefix needs a focus set (--focus FILE or focus=true nodes)");
    int rc = minimize                        ? gen_minimized(p, &opt, poset_path, &o)
             : opt.method == HF_METHOD_EXACT ? gen_exact(p, &opt, poset_path, &o)
                                             : gen_streamed(p, &opt, poset_path, &o);
    hf_focus_free(p, focus);
    poset_free(p);
    return rc;
}
