/* hitfam stats: what an order is (size, height, shape) and what its families cost: exact counts
 * of linear extensions and admissible tuples, a lower bound, and each method's family size. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/bounds.h>
#include <hitfam/count.h>
#include <hitfam/exact.h>

#include "cli.h"
#include "kv.h"

static const char usage[] =
    "Usage: hitfam stats [--d D] [--json] [--exact] POSET.dot\n"
    "Describe the order in POSET.dot ('-' = stdin): events, Hasse edges, height, shape, the\n"
    "exact number of linear extensions, the objects events touch (obj=) and the unordered\n"
    "pairs of events that conflict (every unordered pair when no event has obj=; else those\n"
    "on one object with a write), and for each d (default: 2 and 3) the exact number of\n"
    "admissible d-tuples, a lower bound on every d-hitting family, the exact family size\n"
    "each method would produce, and on orders of at most 16 events the smallest family size\n"
    "method exact finds within auto's budget, marked proved when it is the minimum. Counts of\n"
    "more than 60 digits print as 3.8e+5294567 (two significant digits); JSON gives the exact\n"
    "number (null when it has more than 60 digits and --exact is not given) and the\n"
    "approximation as a string in linear_extensions_approx and admissible_tuples_approx.\n"
    "\n"
    "  -d, --d D            only this d (1..8)\n"
    "  -j, --json           JSON output\n"
    "  -x, --exact          every digit of every count, however long (a tree of 10^6 events\n"
    "                       has some 5 million digits of linear extensions: seconds more)\n"
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

/* An exact count (as kv_count with its approximation, or as it is), or the reason there is
 * none: text "unknown (why)", JSON null. */
static void count_field(kv *w, const char *key, hf_status st, const mpz_t v, const hf_error *err,
                        bool approx)
{
    if (st == HF_OK) {
        if (approx)
            kv_count(w, key, v);
        else
            kv_mpz(w, key, v);
        return;
    }
    char text[sizeof err->text + 16];
    snprintf(text, sizeof text, "unknown (%s)", err->text[0] ? err->text : hf_strerror(st));
    kv_none(w, key, text);
}

/* Each method's exact family size at d, or why there is none: text "-  (why)", JSON null. */
static void method_sizes(kv *w, const hf_poset *p, unsigned d, mpz_t v)
{
    kv_object_begin(w, "methods", true);
    for (int m = HF_METHOD_DFS; m <= HF_METHOD_EXACT; m++) {
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = d;
        opt.method = (hf_method)m;
        const char *name = hf_method_name((hf_method)m);
        hf_error err;
        /* sizes known only by running the construction are left to `gen` */
        bool runs = hf_method_predict_runs((hf_method)m) &&
                    unless_oom(hf_method_check(p, &opt, &err)) == HF_OK;
        hf_status st =
            runs ? HF_EUNSUPPORTED : unless_oom(hf_method_predict_mpz(p, &opt, v, NULL, &err));
        if (runs)
            snprintf(err.text, sizeof err.text,
                     "applies; its size is known only by running it: hitfam gen --method %s", name);
        if (st == HF_OK) {
            kv_mpz(w, name, v);
            continue;
        }
        char text[sizeof err.text + 16];
        snprintf(text, sizeof text, "-  (%s)", err.text[0] ? err.text : hf_strerror(st));
        kv_none(w, name, text);
    }
    kv_object_end(w);
}

/* The certified lower bound of hitfam/bounds.h and how it was obtained: text "7 (SAT: no
 * 6-schedule family for the sub-order of ...)", JSON an object (value, how, reason, conflicts
 * of the proof, conflicts spent), or why there is none. */
static void certified_field(kv *w, const hf_poset *p, unsigned d)
{
    hf_bound_options bo;
    hf_bound_options_init(&bo);
    bo.d = d;
    hf_bound *b = NULL;
    hf_error err;
    hf_status st = unless_oom(hf_bound_compute(p, &bo, &b, &err));
    if (st) {
        char text[sizeof err.text + 16];
        snprintf(text, sizeof text, "unknown (%s)", err.text[0] ? err.text : hf_strerror(st));
        kv_none(w, "certified_lower_bound", text);
        return;
    }
    char why[512];
    hf_bound_describe(p, b, why, sizeof why);
    if (w->json) {
        kv_object_begin(w, "certified_lower_bound", false);
        kv_u64(w, "value", b->value);
        kv_str(w, "how", hf_bound_kind_name(b->kind));
        kv_str(w, "reason", why);
        kv_u64(w, "certificate_events", b->event_count);
        kv_u64(w, "conflicts", b->conflicts);
        kv_u64(w, "conflicts_spent", b->spent);
        kv_object_end(w);
    } else {
        char text[sizeof why + 32];
        snprintf(text, sizeof text, "%" PRIu64 " (%s)", b->value, why);
        kv_str(w, "certified_lower_bound", text);
    }
    hf_bound_free(b);
}

/* Orders on which stats asks method exact for the minimum (within auto's budget). */
#define STATS_EXACT_MAX_EVENTS 16u

/* The minimum size of a d-hitting family when method exact proves it within auto's budget:
 * text "9 (proved minimal by SAT)" or "unknown (why)", JSON the proved size or null. */
static void minimum_field(kv *w, const hf_poset *p, unsigned d)
{
    char text[sizeof((hf_error *)0)->text + 64];
    hf_error err;
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = d;
    opt.method = HF_METHOD_EXACT;
    hf_status st = unless_oom(hf_method_check(p, &opt, &err));
    if (!st && hf_poset_size(p) > STATS_EXACT_MAX_EVENTS) {
        snprintf(text, sizeof text,
                 "unknown (stats solves orders of at most %u events: hitfam "
                 "gen --method exact)",
                 STATS_EXACT_MAX_EVENTS);
        kv_none(w, "minimum", text);
        return;
    }
    if (st) {
        snprintf(text, sizeof text, "unknown (%s)", err.text[0] ? err.text : hf_strerror(st));
        kv_none(w, "minimum", text);
        return;
    }
    hf_exact_options eo;
    hf_exact_options_init(&eo);
    eo.d = d;
    eo.conflicts = HF_EXACT_AUTO_CONFLICTS;
    hf_family *f = NULL;
    hf_exact_result r;
    st = unless_oom(hf_exact_solve(p, &eo, &f, &r, &err));
    hf_family_free(f);
    if (st) {
        snprintf(text, sizeof text, "unknown (%s)", err.text[0] ? err.text : hf_strerror(st));
        kv_none(w, "minimum", text);
    } else if (r.proved) {
        mpz_t v;
        mpz_init_set_ui(v, (unsigned long)r.schedules);
        snprintf(text, sizeof text, "%zu (proved minimal by SAT)", r.schedules);
        if (w->json) /* JSON: the proved size, or null */
            kv_mpz(w, "minimum", v);
        else
            kv_str(w, "minimum", text);
        mpz_clear(v);
    } else {
        snprintf(text, sizeof text,
                 "unknown (between %zu and %zu: method exact's budget of %u conflicts ran out)",
                 r.lower_bound, r.schedules, HF_EXACT_AUTO_CONFLICTS);
        kv_none(w, "minimum", text);
    }
}

int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_D,
                                         {"json", no_argument, NULL, 'j'},
                                         {"exact", no_argument, NULL, 'x'},
                                         CLI_OPT_HELP,
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    bool json = false, exact = false;
    int c;
    while ((c = getopt_long(argc, argv, "d:jxh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        }
        if (c == 'j')
            json = true;
        else if (c == 'x')
            exact = true;
        else if (!cli_option(&o, c, optarg))
            die_usage("invalid option");
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing POSET.dot" : "too many arguments");
    hf_poset *p = read_poset(argv[optind]);
    unsigned shape = hf_poset_shape(p);
    mpz_t v;
    mpz_init(v);
    hf_error err;
    /* counted before the record starts: running out of memory here leaves no partial output.
     * A forest's count is a product of n terms: without --exact only its logarithm is computed
     * when the number would be printed approximately anyway (a tree of 10^6 events: 0.1 s
     * instead of seconds for 5 million digits). */
    double log10_linext = -1;
    hf_status st = HF_OK;
    if (!exact && (shape & (HF_SHAPE_FOREST | HF_SHAPE_INFOREST)) &&
        unless_oom(hf_count_linear_extensions_log10(p, &log10_linext, &err)) == HF_OK &&
        log10_linext < KV_EXACT_DIGITS - 1)
        log10_linext = -1;
    if (log10_linext < 0)
        st = unless_oom(hf_count_linear_extensions(p, v, &err));
    kv w;
    kv_begin(&w, stdout, json);
    w.exact = exact;
    kv_u64(&w, "events", hf_poset_size(p));
    kv_u64(&w, "hasse_edges", hf_poset_hasse_edge_count(p));
    kv_u64(&w, "height", hf_poset_height(p));
    kv_str(&w, "shape", shape_name(shape));
    kv_json_bool(&w, "forest", shape & HF_SHAPE_FOREST);
    kv_json_bool(&w, "in_forest", shape & HF_SHAPE_INFOREST);
    if (log10_linext >= 0)
        kv_count_log10(&w, "linear_extensions", log10_linext);
    else
        count_field(&w, "linear_extensions", st, v, &err, true);
    uint32_t tree_height;
    if (unless_oom(hf_poset_tree_height(p, &tree_height)) == HF_OK)
        kv_u64(&w, "binary_tree_height", tree_height);
    /* labelled orders: the objects events touch, and the unordered pairs that conflict (all
     * unordered pairs when no event touches an object) */
    kv_u64(&w, "objects", hf_poset_object_count(p));
    uint64_t conflicts;
    if (unless_oom(hf_poset_conflict_count(p, &conflicts, &err)) == HF_OK)
        kv_u64(&w, "conflicting_pairs", conflicts);
    kv_list_begin(&w, "d");
    unsigned first = o.d ? o.d : 2, last = o.d ? o.d : 3;
    for (unsigned d = first; d <= last; d++) {
        kv_item_begin(&w, "d", d);
        st = unless_oom(hf_count_admissible(p, d, NULL, 0, v, &err));
        count_field(&w, "admissible_tuples", st, v, &err, true);
        st = unless_oom(hf_count_lower_bound(p, d, v, &err));
        count_field(&w, "lower_bound", st, v, &err, false);
        certified_field(&w, p, d);
        method_sizes(&w, p, d, v);
        hf_gen_options opt;
        hf_gen_options_init(&opt);
        opt.d = d;
        hf_method chosen;
        if (unless_oom(hf_method_predict_mpz(p, &opt, v, &chosen, &err)) == HF_OK) {
            kv_str(&w, "auto", hf_method_name(chosen));
            kv_mpz(&w, "auto_schedules", v);
        } else {
            kv_none(&w, "auto", "no method applies");
        }
        minimum_field(&w, p, d);
        kv_item_end(&w);
    }
    kv_list_end(&w);
    kv_end(&w);
    mpz_clear(v);
    poset_free(p);
    return 0;
}
