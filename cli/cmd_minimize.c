/* hitfam minimize: a smaller d-hitting family from a given one (hf_family_minimize), written with
 * a header that names the input's method followed by "+minimize". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/exact.h>

#include "cli.h"

static const char usage[] =
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
    "      --sat            instead, ask the SAT solver (method exact's encoding) for a\n"
    "                       d-hitting family of one schedule less: it reports 'improved' (the\n"
    "                       family found is written), 'proved minimal' (no smaller family\n"
    "                       exists) or 'budget exhausted' (the family is written unchanged)\n"
    "      --conflicts N    --sat: the solver's budget in conflicts (default 2000000)\n"
    "      --format F       text (default), json, ids or bin\n"
    "  -o, --output FILE    write the family to FILE instead of standard output\n"
    "  -v, --verbose        report 'minimized M -> K schedules' on standard error\n"
    "  -h, --help           show this help\n"
    "\n"
    "The header names the input header's method followed by '+minimize' (just 'minimize' when\n"
    "the input names none) and the number of schedules.\n"
    "With --sat the outcome is reported on standard error. Needs a build with the SAT solver\n"
    "(libcadical-dev).\n"
    "Exit status: 0 written, 1 FAMILY is not d-hitting (an uncovered tuple is named),\n"
    "2 invalid input (unknown or missing event, a schedule that violates the order, d > 4, ...).\n";

/* The output header's method: the input's, once followed by "+minimize". Caller frees. */
static char *minimized_method(const char *in)
{
    static const char suffix[] = "+minimize";
    size_t n = in ? strlen(in) : 0, sl = sizeof suffix - 1;
    if (n == 0) {
        char *m = xmalloc(sizeof "minimize");
        strcpy(m, "minimize");
        return m;
    }
    bool again = n >= sl && strcmp(in + n - sl, suffix) == 0;
    char *m = xmalloc(n + sl + 1);
    memcpy(m, in, n);
    strcpy(m + n, again ? "" : suffix);
    return m;
}

int cmd_minimize(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_D,
                                         CLI_OPT_FOCUS,
                                         CLI_OPT_SEED,
                                         {"rounds", required_argument, NULL, 'r'},
                                         {"drop-only", no_argument, NULL, 'D'},
                                         CLI_OPT_FORMAT,
                                         CLI_OPT_OUTPUT,
                                         {"verbose", no_argument, NULL, 'v'},
                                         {"sat", no_argument, NULL, 'S'},
                                         {"conflicts", required_argument, NULL, 'K'},
                                         CLI_OPT_HELP,
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    hf_minimize_options mo;
    hf_minimize_options_init(&mo);
    bool verbose = false, sat = false;
    uint64_t conflicts = 0;
    int c;
    while ((c = getopt_long(argc, argv, "d:f:s:r:o:vh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        }
        if (c == 'r') {
            mo.rounds = cli_positive_hint(optarg, "--rounds", "--drop-only makes no replacement");
        } else if (c == 'D') {
            mo.drop_only = true;
        } else if (c == 'v') {
            verbose = true;
        } else if (c == 'S') {
            sat = true;
        } else if (c == 'K') {
            conflicts = cli_positive(optarg, "--conflicts");
        } else if (!cli_option(&o, c, optarg)) {
            die_usage("invalid option");
        }
    }
    if (argc - optind != 2)
        die_usage(argc - optind < 2 ? "missing POSET.dot or FAMILY" : "too many arguments");
    if (mo.drop_only && mo.rounds)
        die_usage("--rounds and --drop-only exclude each other");
    if (sat && (mo.drop_only || mo.rounds))
        die_usage("--sat excludes --rounds and --drop-only");
    if (conflicts && !sat)
        die_usage("--conflicts is an option of --sat");
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
    free(data);
    if (st) {
        report_error(family_path, st, &err);
        poset_free(p);
        return EXIT_BAD;
    }
    unsigned d = o.d;
    if (d == 0) {
        if (in_header.d == 0) { /* the reader refuses a d outside 1..HF_MAX_D */
            hf_family_free(f);
            poset_free(p);
            die_usage("--d is required: %s has no d in its header", family_path);
        }
        d = in_header.d;
    }
    uint32_t *focus = NULL;
    choose_focus(p, o.focus_path, &focus, &mo.focus, &mo.focus_count);
    mo.d = d;
    mo.seed = o.seed;
    hf_minimize_result res;
    memset(&res, 0, sizeof res);
    hf_exact_verdict verdict = HF_EXACT_EXHAUSTED;
    hf_exact_result xr;
    size_t before = hf_family_size(f);
    if (sat) {
        hf_exact_options eo;
        hf_exact_options_init(&eo);
        eo.d = d;
        eo.focus = mo.focus;
        eo.focus_count = mo.focus_count;
        eo.conflicts = conflicts;
        st = unless_oom(hf_exact_remove_one(p, f, &eo, &verdict, &xr, &err));
        /* as hf_family_minimize reports a family that is not d-hitting */
        res.d = st == HF_EMISMATCH && hf_family_events(f) == hf_poset_size(p) ? d : 0;
    } else {
        st = unless_oom(hf_family_minimize(p, f, &mo, &res, &err));
    }
    int rc = 0;
    if (st) {
        report_error(family_path, st, &err);
        /* a family that is not d-hitting is refused like `verify` refuses it */
        rc = st == HF_EMISMATCH && res.d > 0 ? EXIT_NOT_HIT : EXIT_BAD;
    } else {
        char *method = minimized_method(hf_family_method(f));
        hf_family_header header = {
            .d = d, .method = method, .schedules_known = true, .schedules = hf_family_size(f)};
        rc = write_family(p, f, &o, &header);
        free(method);
        if (!rc && sat) {
            uint64_t budget = conflicts ? conflicts : HF_EXACT_DEFAULT_CONFLICTS;
            if (verdict == HF_EXACT_IMPROVED)
                report(NULL, 0, "improved: %zu -> %zu schedules (%" PRIu64 " conflicts)", before,
                       hf_family_size(f), xr.conflicts);
            else if (verdict == HF_EXACT_MINIMAL)
                report(NULL, 0,
                       "proved minimal: no %u-hitting family of %zu schedules exists (%" PRIu64
                       " conflicts)",
                       xr.d, before - 1, xr.conflicts);
            else
                report(NULL, 0,
                       "budget exhausted: %" PRIu64 " conflicts without a family of %zu "
                       "schedules or a proof that none exists; the family is unchanged",
                       budget, before - 1);
        } else if (!rc && verbose)
            report(NULL, 0,
                   "minimized %zu -> %zu schedules (%zu after dropping, %" PRIu64
                   " replacement attempts)",
                   res.before, res.after, res.after_drop, res.rounds_run);
    }
    hf_focus_free(p, focus);
    hf_family_free(f);
    poset_free(p);
    return rc;
}
