/* hitfam compare: the approaches a tester can take on one order, side by side. For each one,
 * the runs it needs and what it guarantees: hitting families (runs exact, every admissible
 * d-tuple hit), the samplers (runs until every tuple is hit, median and 90th percentile over
 * seeds; the smallest probability that one run hits a tuple), and exhaustive or bounded
 * enumeration (runs exact; the share of tuples the whole set hits). For every approach, the
 * share of admissible d-tuples hit after m runs (m = auto's family size) and after 10 m. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/count.h>
#include <hitfam/enum.h>
#include <hitfam/probability.h>

#include "cli.h"

static const char usage[] =
    "Usage: hitfam compare --d D [--seed S] [--seeds K] [--runs R] [--samples N]\n"
    "                      [--json] POSET.dot\n"
    "Compare, on the order in POSET.dot ('-' = stdin), what each approach to testing its\n"
    "schedules costs and guarantees for bugs of depth D:\n"
    "  - hitting families (auto and each method that applies): runs = the family's size,\n"
    "    and every admissible D-tuple is hit;\n"
    "  - the samplers random, rw, pct, pos and basicpos: runs until every tuple is hit\n"
    "    (median and 90th percentile over K seeds, each stopped at the samplers' cap), and\n"
    "    the smallest probability that one run hits a tuple (exact or estimated);\n"
    "  - every schedule (all), one per trace (traces), at most 0, 1 or 2 preemptions,\n"
    "    at most 0, 1 or 2 delays: runs = their exact number, and the share of tuples\n"
    "    all of them hit.\n"
    "Every row also gives the share of admissible tuples hit after m runs (m = auto's size)\n"
    "and after 10 m.\n"
    "\n"
    "  -d, --d D            bug depth (tuple size), 1..4 (required)\n"
    "  -s, --seed S         first seed of the samplers (default 0)\n"
    "  -k, --seeds K        seeds per sampler, 1..1000 (default 11)\n"
    "  -r, --runs R         coverage series of samplers and enumerations up to R runs\n"
    "                       (default and least 10 m; at most 100000)\n"
    "      --samples N      schedules per estimated probability (default 100000;\n"
    "                       1..100000000)\n"
    "  -j, --json           JSON output, with coverage-against-runs series and each\n"
    "                       seed's runs until covered\n"
    "  -h, --help           show this help\n"
    "\n"
    "Orders of at most "
    "64"
    " events are compared in full; larger ones are refused (the\n"
    "exhaustive approaches and the exact probabilities do not scale).\n"
    "\n"
    "Exit status: 0 compared, 2 invalid input.\n";

/* Largest order compared: enumeration, exact probabilities and greedy stay within seconds. */
#define COMPARE_MAX_EVENTS 64u
/* Schedules an enumeration is listed for its coverage (beyond: its share is not computed). */
#define COMPARE_MAX_LISTED 200000u

typedef struct row {
    char name[24];
    const char *kind;       /* "family", "sampler", "enumeration" */
    bool runs_known;        /* runs (families, enumerations) */
    char runs[64];          /* decimal, exact */
    uint64_t median, p90;   /* samplers: runs until covered */
    uint64_t *each;         /* samplers: runs until covered per seed (UINT64_MAX: capped) */
    unsigned capped, seeds; /* samplers: seeds that reached the cap without covering */
    const char *guarantee;  /* "all", "probability", or "share" */
    bool have_prob, prob_exact;
    double prob, prob_low, prob_high, expected_runs;
    uint32_t hardest[HF_MAX_D];
    unsigned hardest_len;
    double share_m, share_10m, share_all; /* < 0: not computed */
    /* coverage against runs: (runs, share) points */
    uint64_t series_runs[24];
    double series_share[24];
    unsigned series_len;
    char note[400];
} row;

typedef struct ctx {
    const hf_poset *p;
    unsigned d;
    mpz_t admissible;
    double admissible_d;
    uint64_t m;
    uint64_t horizon;       /* series length of samplers and enumerations: max(10 m, --runs) */
    uint64_t samples;       /* per estimated probability */
    unsigned phase, phases; /* the progress line's count of computations (one per approach) */
} cmp;

/* The progress line's phase: the approach measured now, and how far compare is. */
static void phase(cmp *c, const char *approach)
{
    char text[96];
    snprintf(text, sizeof text, "compare %s (%u of %u)", approach, ++c->phase, c->phases);
    progress_phase(text);
}

/* Share of admissible tuples hit by the first k schedules of f (k <= size). */
static double share_hit(const cmp *c, const hf_family *f, size_t k)
{
    if (mpz_sgn(c->admissible) == 0)
        return 1;
    hf_family *g;
    if (unless_oom(hf_family_new(hf_poset_ctx(c->p), hf_poset_size(c->p), &g)))
        return -1;
    for (size_t i = 0; i < k && i < hf_family_size(f); i++)
        if (unless_oom(hf_family_append(g, hf_family_schedule(f, i))))
            die_nomem();
    hf_verify_options vo;
    hf_verify_options_init(&vo);
    vo.d = c->d;
    mpz_t un;
    mpz_init(un);
    hf_error err;
    double share = -1;
    if (unless_oom(hf_verify_count_uncovered(c->p, g, &vo, un, &err)) == HF_OK)
        share = 1 - mpz_get_d(un) / c->admissible_d;
    mpz_clear(un);
    hf_family_free(g);
    return share;
}

/* The coverage series of f: shares after 1, 2, 4, ... schedules and after all of them. */
static void series_of(const cmp *c, const hf_family *f, row *r)
{
    size_t m = hf_family_size(f);
    r->series_len = 0;
    for (size_t k = 1; k <= m && r->series_len + 1 < 24; k *= 2) {
        r->series_runs[r->series_len] = k;
        r->series_share[r->series_len++] = share_hit(c, f, k);
        if (k * 2 > m && k != m) {
            r->series_runs[r->series_len] = m;
            r->series_share[r->series_len++] = share_hit(c, f, m);
        }
    }
}

static hf_family *new_family(const cmp *c)
{
    hf_family *f;
    if (unless_oom(hf_family_new(hf_poset_ctx(c->p), hf_poset_size(c->p), &f)))
        die_nomem();
    return f;
}

/* A hitting-family method: its family, the runs, the shares after m and 10 m (a family repeats
 * nothing: after its last schedule every tuple is hit). */
static bool family_row(cmp *c, hf_method method, row *r)
{
    hf_gen_options o;
    hf_gen_options_init(&o);
    o.d = c->d;
    o.method = method;
    hf_error err;
    phase(c, hf_method_name(method));
    if (unless_oom(hf_method_check(c->p, &o, &err)))
        return false;
    hf_family *f = new_family(c);
    hf_method used = method;
    hf_status st = unless_oom(hf_generate(c->p, &o, hf_family_sink(f), &used, &err));
    if (st) {
        hf_family_free(f);
        return false;
    }
    snprintf(r->name, sizeof r->name, "%s", hf_method_name(method));
    if (method == HF_METHOD_AUTO)
        snprintf(r->note, sizeof r->note, "method %s", hf_method_name(used));
    r->kind = "family";
    r->guarantee = "all";
    r->runs_known = true;
    snprintf(r->runs, sizeof r->runs, "%zu", hf_family_size(f));
    if (method == HF_METHOD_AUTO)
        c->m = hf_family_size(f);
    r->share_m = share_hit(c, f, c->m);
    r->share_10m = share_hit(c, f, 10 * c->m);
    r->share_all = 1;
    series_of(c, f, r);
    hf_family_free(f);
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Schedules a sink has seen (counting only). */
static hf_status count_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    ++*(uint64_t *)user;
    return HF_OK;
}

static void sampler_row(cmp *c, hf_method method, uint64_t seed, unsigned seeds, row *r)
{
    phase(c, hf_method_name(method));
    snprintf(r->name, sizeof r->name, "%s", hf_method_name(method));
    r->kind = "sampler";
    r->guarantee = "probability";
    r->seeds = seeds;
    hf_error err;
    /* runs until covered over the seeds */
    uint64_t *runs = xmalloc(seeds * sizeof *runs);
    for (unsigned i = 0; i < seeds; i++) {
        hf_gen_options o;
        hf_gen_options_init(&o);
        o.d = c->d;
        o.method = method;
        o.seed = seed + i;
        uint64_t k = 0;
        hf_status st = unless_oom(hf_generate(c->p, &o, (hf_sink){count_put, &k}, NULL, &err));
        if (st == HF_ETOOLARGE) {
            r->capped++;
            k = UINT64_MAX; /* sorts last: past the cap */
        } else if (st) {
            snprintf(r->note, sizeof r->note, "%s", err.text);
            free(runs);
            r->seeds = 0;
            return;
        }
        runs[i] = k;
    }
    r->each = xmalloc(seeds * sizeof *r->each);
    memcpy(r->each, runs, seeds * sizeof *runs);
    qsort(runs, seeds, sizeof *runs, cmp_u64);
    r->median = runs[(seeds - 1) / 2];
    r->p90 = runs[(size_t)ceil(0.9 * seeds) - 1];
    free(runs);
    /* the smallest per-run probability */
    hf_hitprob_options ho;
    hf_hitprob_options_init(&ho);
    ho.method = method;
    ho.seed = seed;
    ho.samples = c->samples;
    hf_hitprob_result hr;
    mpq_t q;
    mpq_init(q);
    if (unless_oom(hf_hitprob_min(c->p, c->d, &ho, q, &hr, &err)) == HF_OK) {
        r->have_prob = true;
        r->prob_exact = hr.exact;
        r->prob = hr.value;
        r->prob_low = hr.exact ? hr.value : hr.low;
        r->prob_high = hr.exact ? hr.value : hr.high;
        r->expected_runs = hr.expected_runs;
        r->hardest_len = hr.d;
        memcpy(r->hardest, hr.tuple, sizeof r->hardest);
    } else if (!r->note[0]) {
        snprintf(r->note, sizeof r->note, "probability: %s", err.text);
    }
    mpq_clear(q);
    /* shares after m and 10 m schedules of the first seed */
    hf_gen_options o;
    hf_gen_options_init(&o);
    o.d = c->d;
    o.method = method;
    o.seed = seed;
    o.count = c->horizon;
    hf_family *f = new_family(c);
    r->share_m = r->share_10m = -1;
    if (unless_oom(hf_generate(c->p, &o, hf_family_sink(f), NULL, &err)) == HF_OK) {
        r->share_m = share_hit(c, f, c->m);
        r->share_10m = share_hit(c, f, 10 * c->m);
        series_of(c, f, r);
    }
    r->share_all = -1;
    hf_family_free(f);
}

static void enum_row(cmp *c, const char *name, hf_enum_mode mode, uint32_t k, row *r)
{
    phase(c, name);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = "enumeration";
    r->guarantee = mode == HF_ENUM_ALL ? "all" : "share";
    hf_enum_options eo;
    hf_enum_options_init(&eo);
    eo.mode = mode;
    eo.preemptions = k;
    eo.delays = k;
    hf_error err;
    mpz_t n;
    mpz_init(n);
    r->share_m = r->share_10m = r->share_all = -1;
    if (unless_oom(hf_enum_count(c->p, &eo, n, &err)) == HF_OK) {
        r->runs_known = true;
        gmp_snprintf(r->runs, sizeof r->runs, "%Zd", n);
    } else {
        snprintf(r->note, sizeof r->note, "count: %s", err.text);
    }
    /* the first 10 m schedules, and all of them when they are few enough to list */
    bool listable = r->runs_known && mpz_cmp_ui(n, COMPARE_MAX_LISTED) <= 0;
    eo.limit = listable ? 0 : c->horizon;
    hf_family *f = new_family(c);
    if (unless_oom(hf_enum_run(c->p, &eo, hf_family_sink(f), NULL, NULL, &err)) == HF_OK) {
        r->share_m = share_hit(c, f, c->m);
        r->share_10m = share_hit(c, f, 10 * c->m);
        if (listable)
            r->share_all = share_hit(c, f, hf_family_size(f));
        series_of(c, f, r);
    }
    if (mode == HF_ENUM_ALL && r->runs_known)
        r->share_all = 1;
    hf_family_free(f);
    mpz_clear(n);
}

static void print_share(double s)
{
    if (s < 0)
        printf(" %9s", "-");
    else
        printf(" %8.2f%%", 100 * s);
}

static void print_text(const cmp *c, const row *rows, size_t k)
{
    printf("order: %" PRIu32 " events, d=%u, ", hf_poset_size(c->p), c->d);
    gmp_printf("%Zd admissible %u-tuples; m = %" PRIu64 " (auto's family)\n", c->admissible, c->d,
               c->m);
    printf("%-14s %-11s %22s %-12s %11s %9s %9s %9s\n", "approach", "kind", "runs", "guarantee",
           "min p/run", "hit@m", "hit@10m", "hit@all");
    for (size_t i = 0; i < k; i++) {
        const row *r = rows + i;
        char runs[64];
        if (r->runs_known)
            snprintf(runs, sizeof runs, "%s", r->runs);
        else if (r->seeds)
            snprintf(runs, sizeof runs, "%s%" PRIu64 " / %s%" PRIu64,
                     r->median == UINT64_MAX ? ">" : "", r->median == UINT64_MAX ? 0 : r->median,
                     r->p90 == UINT64_MAX ? ">" : "", r->p90 == UINT64_MAX ? 0 : r->p90);
        else
            snprintf(runs, sizeof runs, "-");
        printf("%-14s %-11s %22s %-12s", r->name, r->kind, runs, r->guarantee);
        if (r->have_prob)
            printf(" %10.4g%s", r->prob, r->prob_exact ? " " : "~");
        else
            printf(" %11s", "-");
        print_share(r->share_m);
        print_share(r->share_10m);
        print_share(r->share_all);
        putchar('\n');
    }
    printf("samplers: runs are the median / 90th percentile over the seeds of the runs until\n"
           "every tuple is hit (>0: more than the cap); ~ marks an estimated probability.\n");
    for (size_t i = 0; i < k; i++)
        if (rows[i].capped)
            printf("%s: %u of %u seeds reached the cap before hitting every tuple\n", rows[i].name,
                   rows[i].capped, rows[i].seeds);
}

static void json_name(const hf_poset *p, uint32_t id)
{
    /* a JSON string of the event's name (bytes above 0x7f passed as they are) */
    putchar('"');
    for (const unsigned char *s = (const unsigned char *)hf_poset_name(p, id); *s; s++)
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if (*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    putchar('"');
}

static void json_num(double v)
{
    if (v < 0 || !isfinite(v))
        fputs("null", stdout);
    else
        printf("%.6g", v);
}

static void print_json(const cmp *c, const row *rows, size_t k)
{
    gmp_printf("{\"d\": %u, \"events\": %" PRIu32 ", \"admissible\": %Zd, \"m\": %" PRIu64
               ", \"approaches\": [",
               c->d, hf_poset_size(c->p), c->admissible, c->m);
    for (size_t i = 0; i < k; i++) {
        const row *r = rows + i;
        printf("%s\n{\"name\": \"%s\", \"kind\": \"%s\", \"guarantee\": \"%s\", \"runs\": ",
               i ? "," : "", r->name, r->kind, r->guarantee);
        if (r->runs_known)
            fputs(r->runs, stdout);
        else
            fputs("null", stdout);
        if (r->seeds) {
            printf(", \"seeds\": %u, \"capped\": %u, \"runs_median\": ", r->seeds, r->capped);
            if (r->median == UINT64_MAX)
                fputs("null", stdout);
            else
                printf("%" PRIu64, r->median);
            fputs(", \"runs_p90\": ", stdout);
            if (r->p90 == UINT64_MAX)
                fputs("null", stdout);
            else
                printf("%" PRIu64, r->p90);
            fputs(", \"runs_each\": [", stdout);
            for (unsigned j = 0; j < r->seeds; j++) {
                if (j)
                    fputs(", ", stdout);
                if (r->each[j] == UINT64_MAX)
                    fputs("null", stdout);
                else
                    printf("%" PRIu64, r->each[j]);
            }
            putchar(']');
        }
        if (r->have_prob) {
            printf(", \"min_hit_probability\": ");
            json_num(r->prob);
            printf(", \"probability_exact\": %s, \"probability_interval\": [",
                   r->prob_exact ? "true" : "false");
            json_num(r->prob_low);
            fputs(", ", stdout);
            json_num(r->prob_high);
            fputs("], \"expected_runs\": ", stdout);
            json_num(r->expected_runs);
            fputs(", \"hardest_tuple\": [", stdout);
            for (unsigned j = 0; j < r->hardest_len; j++) {
                if (j)
                    fputs(", ", stdout);
                json_name(c->p, r->hardest[j]);
            }
            putchar(']');
        }
        fputs(", \"hit_after_m\": ", stdout);
        json_num(r->share_m);
        fputs(", \"hit_after_10m\": ", stdout);
        json_num(r->share_10m);
        fputs(", \"hit_after_all\": ", stdout);
        json_num(r->share_all);
        fputs(", \"series\": [", stdout);
        for (unsigned j = 0; j < r->series_len; j++) {
            printf("%s[%" PRIu64 ", ", j ? ", " : "", r->series_runs[j]);
            json_num(r->series_share[j]);
            putchar(']');
        }
        putchar(']');
        if (r->note[0]) {
            fputs(", \"note\": \"", stdout);
            for (const char *s = r->note; *s; s++)
                if (*s == '"' || *s == '\\')
                    printf("\\%c", *s);
                else if ((unsigned char)*s >= 0x20)
                    putchar(*s);
            putchar('"');
        }
        putchar('}');
    }
    fputs("\n]}\n", stdout);
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_D,
                                         CLI_OPT_SEED,
                                         {"seeds", required_argument, NULL, 'k'},
                                         {"runs", required_argument, NULL, 'r'},
                                         {"samples", required_argument, NULL, 'S'},
                                         {"json", no_argument, NULL, 'j'},
                                         CLI_OPT_HELP,
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    bool json = false;
    uint64_t seeds = 11, horizon = 0, samples = HF_HITPROB_DEFAULT_SAMPLES;
    int ch;
    while ((ch = getopt_long(argc, argv, "d:s:k:r:jh", opts, NULL)) != -1) {
        if (ch == 'h') {
            fputs(usage, stdout);
            return 0;
        }
        if (ch == 'j')
            json = true;
        else if (ch == 'k')
            seeds = cli_in_range(optarg, "--seeds", 1, 1000);
        else if (ch == 'r')
            horizon = cli_in_range(optarg, "--runs", 1, 100000);
        else if (ch == 'S')
            samples = cli_in_range(optarg, "--samples", 1, 100000000);
        else if (!cli_option(&o, ch, optarg))
            die_usage("invalid option");
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing POSET.dot" : "too many arguments");
    if (o.d == 0)
        die_usage("--d is required");
    if (o.d > 4)
        die_usage("compare tracks tuples of at most 4 events (the samplers' coverage): --d %u",
                  o.d);
    hf_poset *p = read_poset(argv[optind]);
    if (hf_poset_size(p) > COMPARE_MAX_EVENTS) {
        report(argv[optind], 0,
               "the order has %" PRIu32 " events; compare takes at most %u (exhaustive "
               "enumeration and exact probabilities do not scale); use stats and gen",
               hf_poset_size(p), COMPARE_MAX_EVENTS);
        poset_free(p);
        return EXIT_BAD;
    }
    static const hf_method methods[] = {HF_METHOD_DFS,     HF_METHOD_SIMPLE,   HF_METHOD_DOUBLETREE,
                                        HF_METHOD_PATTERN, HF_METHOD_SCRAMBLE, HF_METHOD_CHAINS,
                                        HF_METHOD_GREEDY,  HF_METHOD_EXACT};
    static const hf_method samplers[] = {HF_METHOD_RANDOM, HF_METHOD_RW, HF_METHOD_PCT,
                                         HF_METHOD_POS, HF_METHOD_BASICPOS};
    /* one phase for the count, auto, the methods, the samplers, and five enumerations */
    const unsigned phases =
        2 + sizeof methods / sizeof methods[0] + sizeof samplers / sizeof samplers[0] + 5;
    cmp c = {.p = p, .d = o.d, .samples = samples, .phases = phases};
    mpz_init(c.admissible);
    hf_error err;
    int rc = EXIT_BAD;
    phase(&c, "admissible tuples");
    if (unless_oom(hf_count_admissible(p, o.d, NULL, 0, c.admissible, &err))) {
        report(argv[optind], 0, "%s", err.text);
        goto out;
    }
    c.admissible_d = mpz_get_d(c.admissible);
    row rows[32];
    memset(rows, 0, sizeof rows);
    size_t k = 0;
    /* auto first: its size is m */
    if (!family_row(&c, HF_METHOD_AUTO, &rows[k])) {
        report(argv[optind], 0, "no hitting-family method applies for d=%u", o.d);
        goto out;
    }
    k++;
    c.horizon = 10 * c.m > horizon ? 10 * c.m : horizon;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (family_row(&c, methods[i], &rows[k]))
            k++;
    for (size_t i = 0; i < sizeof samplers / sizeof samplers[0]; i++)
        sampler_row(&c, samplers[i], o.seed, (unsigned)seeds, &rows[k++]);
    enum_row(&c, "all", HF_ENUM_ALL, 0, &rows[k++]);
    enum_row(&c, "traces", HF_ENUM_TRACES, 0, &rows[k++]);
    for (uint32_t b = 0; b <= 2; b++) {
        char name[24];
        snprintf(name, sizeof name, "preemptions-%" PRIu32, b);
        enum_row(&c, name, HF_ENUM_PREEMPTIONS, b, &rows[k++]);
    }
    for (uint32_t b = 0; b <= 2; b++) {
        char name[24];
        snprintf(name, sizeof name, "delays-%" PRIu32, b);
        enum_row(&c, name, HF_ENUM_DELAYS, b, &rows[k++]);
    }
    progress_phase(NULL);
    if (json)
        print_json(&c, rows, k);
    else
        print_text(&c, rows, k);
    rc = 0;
    for (size_t i = 0; i < k; i++)
        free(rows[i].each);
out:
    mpz_clear(c.admissible);
    poset_free(p);
    return rc;
}
