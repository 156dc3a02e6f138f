/* hitfam enum: every schedule of an order given in DOT, each exactly once: all linear extensions,
 * one per trace, or those of at most K preemptions or K delays (hitfam/enum.h); or only their
 * number. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/enum.h>

#include "cli.h"

static const char usage[] =
    "Usage: hitfam enum [--traces | --preemptions K | --delays K] [options] POSET.dot\n"
    "Write schedules of the partial order in POSET.dot ('-' = stdin), each exactly once:\n"
    "every linear extension (default), one per trace, or every one with at most K\n"
    "preemptions or K delays. The output is a family (header method=enum, traces,\n"
    "preemptions-K or delays-K) that 'hitfam verify --d D' reads.\n"
    "\n"
    "      --traces          one schedule per Mazurkiewicz trace: schedules that order every\n"
    "                        conflicting pair alike (unordered events touching one obj=, one\n"
    "                        of them writing) are one trace, given by its least schedule\n"
    "                        (event ids, position by position); without obj= labels every\n"
    "                        unordered pair conflicts\n"
    "      --preemptions K   every schedule with at most K preemptions: switches from an event\n"
    "                        of one thread= to another's while the first still has an event\n"
    "                        ready (an event without thread= is a thread of its own)\n"
    "      --delays K        every schedule with at most K delays: a round-robin scheduler\n"
    "                        runs a thread while it has an event ready, then the next\n"
    "                        thread with one (threads in order of first appearance, then\n"
    "                        each event without thread= as a thread of its own, by id);\n"
    "                        running the thread j ready threads past its pick costs j\n"
    "  -c, --count           print only the exact number of schedules\n"
    "  -l, --limit N         stop after N schedules (a note on standard error says so)\n"
    "      --format F        text (default), json, ids or bin\n"
    "  -o, --output FILE     write to FILE instead of standard output\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 written, 2 invalid input or a count beyond the counting bounds.\n";

/* The number of schedules the options select, or why it is unknown (st). */
static hf_status count(const hf_poset *p, const hf_enum_options *o, mpz_t v, hf_error *err)
{
    return unless_oom(hf_enum_count(p, o, v, err));
}

static int enum_count(const hf_poset *p, const hf_enum_options *o, const char *poset_path,
                      const char *out_path)
{
    mpz_t v;
    mpz_init(v);
    hf_error err;
    hf_status st = count(p, o, v, &err);
    if (st) {
        report_error(poset_path, st, &err);
        mpz_clear(v);
        return EXIT_BAD;
    }
    if (o->limit > 0 && mpz_cmp_ui(v, 0) > 0) {
        mpz_t lim;
        mpz_init(lim);
        mpz_import(lim, 1, -1, sizeof o->limit, 0, 0, &o->limit);
        if (mpz_cmp(v, lim) > 0) {
            char *all = mpz_get_str(NULL, 10, v);
            say("note: --limit %" PRIu64 " stops the enumeration before the %s schedules", o->limit,
                all);
            free(all);
            mpz_set(v, lim);
        }
        mpz_clear(lim);
    }
    cli_output out;
    output_open(&out, out_path);
    errno = 0;
    bool ok = mpz_out_str(out.stream, 10, v) > 0 && putc('\n', out.stream) != EOF;
    int write_errno = errno;
    mpz_clear(v);
    hf_status close_st = output_close(&out);
    if (!ok || close_st) {
        report(out_path ? out_path : "stdout", 0, "write failed: %s",
               write_errno ? strerror(write_errno) : hf_strerror(HF_EIO));
        output_commit(&out, false);
        return EXIT_BAD;
    }
    return output_commit(&out, true);
}

/* The schedules streamed to the output, after a header that gives their number when a count
 * within a small work bound finds it. */
static int enum_write(const hf_poset *p, const hf_enum_options *o, const char *poset_path,
                      hf_format format, const char *out_path)
{
    char method[32];
    hf_enum_options co = *o;
    co.max_work = (uint64_t)1 << 22;
    mpz_t v;
    mpz_init(v);
    hf_error err;
    hf_family_header header = {.d = 0, .method = hf_enum_method_name(o, method, sizeof method)};
    if (count(p, &co, v, &err) == HF_OK) {
        if (o->limit > 0 && mpz_cmp_ui(v, 0) > 0 && mpz_sizeinbase(v, 2) <= 64) {
            uint64_t n = 0;
            mpz_export(&n, NULL, -1, sizeof n, 0, 0, v);
            header.schedules_known = true;
            header.schedules = n < o->limit ? n : o->limit;
        } else if (o->limit > 0) {
            header.schedules_known = true;
            header.schedules = o->limit;
        } else if (mpz_sizeinbase(v, 2) <= 64) {
            uint64_t n = 0;
            mpz_export(&n, NULL, -1, sizeof n, 0, 0, v);
            header.schedules_known = true;
            header.schedules = n;
        }
    }
    mpz_clear(v);
    cli_stream s;
    stream_open(&s, p, out_path, format);
    uint64_t written = 0;
    bool more = false;
    hf_status st = stream_begin(&s, &header);
    if (!st)
        st = hf_enum_run(p, o, stream_sink(&s), &written, &more, &err);
    int rc = stream_close(&s, st, &err, poset_path);
    if (!rc && more)
        say("note: stopped after %" PRIu64 " schedule%s (--limit); more follow", written,
            written == 1 ? "" : "s");
    int commit = output_commit(&s.out, rc == 0);
    return rc ? rc : commit;
}

int cmd_enum(int argc, char **argv)
{
    static const struct option opts[] = {{"traces", no_argument, NULL, 'T'},
                                         {"preemptions", required_argument, NULL, 'P'},
                                         {"delays", required_argument, NULL, 'D'},
                                         {"count", no_argument, NULL, 'c'},
                                         {"limit", required_argument, NULL, 'l'},
                                         CLI_OPT_FORMAT,
                                         CLI_OPT_OUTPUT,
                                         CLI_OPT_HELP,
                                         {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    hf_enum_options eo;
    hf_enum_options_init(&eo);
    bool traces = false, preemptions = false, delays = false, count_only = false;
    int c;
    while ((c = getopt_long(argc, argv, "cl:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return 0;
        case 'T':
            traces = true;
            break;
        case 'P': {
            uint64_t k;
            if (!cli_parse_u64(optarg, &k) || k > UINT32_MAX)
                die_usage("--preemptions needs a number of preemptions, 0 to %" PRIu32
                          " (got '%s')",
                          UINT32_MAX, optarg);
            eo.preemptions = (uint32_t)k;
            preemptions = true;
            break;
        }
        case 'D': {
            uint64_t k;
            if (!cli_parse_u64(optarg, &k) || k > UINT32_MAX)
                die_usage("--delays needs a number of delays, 0 to %" PRIu32 " (got '%s')",
                          UINT32_MAX, optarg);
            eo.delays = (uint32_t)k;
            delays = true;
            break;
        }
        case 'c':
            count_only = true;
            break;
        case 'l':
            eo.limit = cli_positive(optarg, "--limit");
            break;
        default:
            if (!cli_option(&o, c, optarg))
                die_usage("invalid option");
        }
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing POSET.dot" : "too many arguments");
    if (traces + preemptions + delays > 1)
        die_usage("--traces, --preemptions and --delays exclude each other");
    eo.mode = traces        ? HF_ENUM_TRACES
              : preemptions ? HF_ENUM_PREEMPTIONS
              : delays      ? HF_ENUM_DELAYS
                            : HF_ENUM_ALL;
    const char *poset_path = argv[optind];
    hf_poset *p = read_poset(poset_path);
    if (traces && hf_poset_object_count(p) == 0 && hf_poset_size(p) > 1)
        say("note: no event has obj=: every unordered pair conflicts, so each linear extension "
            "is a trace of its own");
    if (preemptions && hf_poset_thread_count(p) == 0 && hf_poset_size(p) > 1)
        say("note: no event has thread=: each event is a thread of its own, no switch is a "
            "preemption, and every linear extension is written");
    int rc = count_only ? enum_count(p, &eo, poset_path, o.out_path)
                        : enum_write(p, &eo, poset_path, o.format, o.out_path);
    poset_free(p);
    return rc;
}
