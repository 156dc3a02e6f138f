/* hitfam verify: whether a family is d-hitting for an order (exit 0), or the first admissible
 * tuple no schedule orders (exit 1), after checking that every schedule is a linear extension. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>

#include <hitfam/count.h>
#include <hitfam/stream.h>

#include "cli.h"

static const char usage[] =
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
    "  -e, --explain FILE   when not d-hitting, also write the order with the uncovered\n"
    "                       tuple highlighted to FILE, as DOT for Graphviz (hitfam draw);\n"
    "                       nothing is written when the family is d-hitting\n"
    "  -t, --threads N      threads of the check (default 0: one per processor; the answer\n"
    "                       is the same for every N)\n"
    "      --shard I/K      check only shard I of K (I from 1): the tuples whose first event\n"
    "                       has rank I, I+K, I+2K, ... among the (focus) events in id order.\n"
    "                       The family is d-hitting iff every shard reports d-hitting; the\n"
    "                       counts of --count add up; the first uncovered tuple is the least\n"
    "                       of the shards' (K machines can split one check)\n"
    "  -m, --memory LIMIT   bytes (suffix K, M, G or T: powers of 1024) the schedules and\n"
    "                       the check's tables may take on the heap; beyond it they go to\n"
    "                       an unlinked temporary file in $TMPDIR (default /tmp) mapped into\n"
    "                       memory. Default: half the physical memory; 0: no limit. The\n"
    "                       family is read in chunks, never held whole\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 d-hitting, 1 not d-hitting (one uncovered tuple is printed),\n"
    "2 invalid input (unknown or missing event, a schedule that violates the order, ...).\n";

/* --shard I/K: 1 <= I <= K < 2^32, into a 0-based index and the count; exits with a usage message
 * otherwise. */
static void parse_shard(const char *arg, uint32_t *index, uint32_t *count)
{
    const char *slash = strchr(arg, '/');
    char head[32];
    uint64_t i = 0, k = 0;
    bool ok = slash && (size_t)(slash - arg) < sizeof head;
    if (ok) {
        memcpy(head, arg, (size_t)(slash - arg));
        head[slash - arg] = '\0';
        ok = cli_parse_u64(head, &i) && cli_parse_u64(slash + 1, &k);
    }
    if (!ok || k < 1 || k > UINT32_MAX || i < 1 || i > k)
        die_usage("--shard needs I/K with 1 <= I <= K, e.g. 2/4 (got '%s')", arg);
    *index = (uint32_t)(i - 1);
    *count = (uint32_t)k;
}

/* A name on stdout; a write error leaves the stream in error, which finish() in cli/main.c
 * reports when the command ends. */
static void put_name(const char *name)
{
    if (hf_name_write(stdout, name) != HF_OK)
        return;
}

/* --memory LIMIT: a byte count with an optional K, M, G or T (powers of 1024), then an optional
 * B or iB; exits with a usage message otherwise. */
static size_t parse_memory(const char *arg)
{
    const char *end = arg;
    while (*end >= '0' && *end <= '9')
        end++;
    char digits[32];
    size_t len = (size_t)(end - arg);
    uint64_t v = 0;
    bool ok = len > 0 && len < sizeof digits;
    if (ok) {
        memcpy(digits, arg, len);
        digits[len] = '\0';
        ok = cli_parse_u64(digits, &v);
    }
    unsigned shift = 0;
    const char *units = "KMGT", *u = *end ? strchr(units, *end & ~0x20) : NULL;
    if (u && *u) {
        shift = 10 * (unsigned)(u - units + 1);
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B' || *end == 'b')
            end++;
    } else if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (!ok || *end || (shift && v > (UINT64_MAX >> shift)) || (v << shift) > SIZE_MAX)
        die_usage("--memory needs a size such as 512M or 2G, or 0 for no limit (got '%s')", arg);
    return (size_t)(v << shift);
}

/* The default --memory: half the physical memory, or no limit when it is not known. */
static size_t default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0 || (uint64_t)pages > SIZE_MAX / 2 / (uint64_t)size)
        return 0;
    return (size_t)pages / 2 * (size_t)size;
}

/* "not d-hitting: no schedule orders a before b", then the tuple alone. */
static void print_uncovered(const hf_poset *p, unsigned d, const hf_verify_result *res)
{
    printf("not %u-hitting: no schedule orders", d);
    for (unsigned i = 0; i < res->d; i++) {
        fputs(i ? " before " : " ", stdout);
        put_name(hf_poset_name(p, res->witness[i]));
    }
    printf("\nuncovered:");
    for (unsigned i = 0; i < res->d; i++) {
        putchar(' ');
        put_name(hf_poset_name(p, res->witness[i]));
    }
    putchar('\n');
}

/* verify --explain FILE: the order with the uncovered tuple highlighted. EXIT_NOT_HIT once
 * written, EXIT_BAD after a message. */
static int write_explanation(const hf_poset *p, const hf_verify_result *res, const char *path)
{
    char title[64];
    snprintf(title, sizeof title, "uncovered %u-tuple", res->d);
    draw_marks marks = {.tuple = res->witness, .tuple_len = res->d, .title = title};
    const char *why = draw_refusal(p, &marks);
    if (why) {
        report(path, 0, "--explain: %s", why);
        return EXIT_BAD;
    }
    cli_output out;
    output_open(&out, path);
    draw_order(out.stream, p, &marks);
    hf_status st = output_close(&out);
    if (st)
        report(path, 0, "write failed");
    return output_commit(&out, st == HF_OK) ? EXIT_BAD : EXIT_NOT_HIT;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_D,
                                         CLI_OPT_FOCUS,
                                         {"count", no_argument, NULL, 'c'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"explain", required_argument, NULL, 'e'},
                                         {"threads", required_argument, NULL, 't'},
                                         {"shard", required_argument, NULL, 'K'},
                                         {"memory", required_argument, NULL, 'm'},
                                         CLI_OPT_HELP,
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    bool count = false, quiet = false;
    const char *explain = NULL;
    uint64_t threads = 0;
    uint32_t shard_index = 0, shard_count = 1;
    size_t memory = default_memory();
    int c;
    while ((c = getopt_long(argc, argv, "d:f:cqe:t:m:h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        }
        if (c == 'c')
            count = true;
        else if (c == 'q')
            quiet = true;
        else if (c == 'e')
            explain = optarg;
        else if (c == 't') {
            if (!cli_parse_u64(optarg, &threads) || threads > HF_VERIFY_MAX_THREADS)
                die_usage("--threads must be an integer from 0 to %u (got '%s')",
                          HF_VERIFY_MAX_THREADS, optarg);
        } else if (c == 'K')
            parse_shard(optarg, &shard_index, &shard_count);
        else if (c == 'm')
            memory = parse_memory(optarg);
        else if (!cli_option(&o, c, optarg))
            die_usage("invalid option");
    }
    if (argc - optind != 2)
        die_usage(argc - optind < 2 ? "missing POSET.dot or FAMILY" : "too many arguments");
    const char *poset_path = argv[optind], *family_path = argv[optind + 1];
    if (strcmp(poset_path, "-") == 0 && strcmp(family_path, "-") == 0)
        die_usage("the order and the family cannot both be read from standard input");
    hf_poset *p = read_poset(poset_path);
    FILE *in = strcmp(family_path, "-") == 0 ? stdin : fopen(family_path, "rb");
    if (!in) {
        report(family_path, 0, "cannot open: %s", strerror(errno));
        exit(EXIT_BAD);
    }
    /* the family is read in chunks into a store of ids (heap or mapped file, by --memory) */
    hf_family_store *f = NULL;
    hf_family_header header;
    hf_error err;
    uint32_t *focus = NULL;
    mpz_t uncovered;
    mpz_init(uncovered);
    int rc = EXIT_BAD; /* every failure below has reported, then frees everything */
    hf_status st = hf_family_store_read(p, in, memory, &f, &header, &err);
    if (in != stdin)
        fclose(in);
    if (st) {
        report_error(family_path, st, &err);
        goto out;
    }
    unsigned d = o.d;
    if (d == 0) {
        /* the reader refuses a d outside 1..HF_MAX_D: 0 here means none was given */
        if (header.d < 1)
            die_usage("--d is required: %s has no d in its header", family_path);
        d = header.d;
    }
    hf_verify_options vopt;
    hf_verify_options_init(&vopt);
    vopt.d = d;
    vopt.threads = (unsigned)threads;
    vopt.shard_index = shard_index;
    vopt.shard_count = shard_count;
    vopt.memory_limit = memory;
    choose_focus(p, o.focus_path, &focus, &vopt.focus, &vopt.focus_count);
    hf_verify_result res;
    st = unless_oom(hf_verify_store(p, f, &vopt, &res, &err));
    if (st) {
        /* a refused schedule read from text: its line is in err.line */
        report_error(family_path, st, &err);
        goto out;
    }
    /* counted before anything is printed: a failure leaves standard output empty */
    if (count && (st = hf_verify_store_count_uncovered(p, f, &vopt, uncovered, &err))) {
        report_error(family_path, st, &err);
        goto out;
    }
    if (res.hitting) {
        /* the events the check was about: the distinct focus events, or all of them; with
         * fewer of them than d the library checked the longest tuples there are (res.d) */
        size_t events = hf_poset_size(p);
        if (vopt.focus) {
            char *seen = calloc(events + 1, 1);
            if (!seen)
                unless_oom(HF_ENOMEM);
            events = 0;
            for (size_t i = 0; i < vopt.focus_count; i++)
                if (!seen[vopt.focus[i]]++)
                    events++;
            free(seen);
        }
        if (!quiet && shard_count > 1)
            printf("shard %" PRIu32 "/%" PRIu32 ": %zu schedules hit every admissible %u-tuple "
                   "of %zu events%s whose first event is in the shard (%zu of them); the family "
                   "is %u-hitting iff every shard is\n",
                   shard_index + 1, shard_count, hf_family_store_size(f), res.d, events,
                   vopt.focus ? " of the focus set" : "",
                   events / shard_count + (shard_index < events % shard_count), d);
        else if (!quiet && res.d < d)
            printf("%u-hitting: %zu schedules hit every admissible %u-tuple of the %zu "
                   "event%s%s (no %u-tuple exists)\n",
                   d, hf_family_store_size(f), res.d, events, events == 1 ? "" : "s",
                   vopt.focus ? " of the focus set" : "", d);
        else if (!quiet)
            printf("%u-hitting: %zu schedules hit every admissible %u-tuple of %zu events%s\n", d,
                   hf_family_store_size(f), d, events, vopt.focus ? " (focus set)" : "");
        rc = EXIT_HIT;
    } else {
        rc = explain ? write_explanation(p, &res, explain) : EXIT_NOT_HIT;
        if (rc == EXIT_NOT_HIT)
            print_uncovered(p, d, &res);
    }
    if (count && shard_count > 1)
        gmp_printf("uncovered tuples in shard %" PRIu32 "/%" PRIu32 ": %Zd\n", shard_index + 1,
                   shard_count, uncovered);
    else if (count)
        gmp_printf("uncovered tuples: %Zd\n", uncovered);
out:
    mpz_clear(uncovered);
    hf_focus_free(p, focus);
    hf_family_store_free(f);
    poset_free(p);
    return rc;
}
