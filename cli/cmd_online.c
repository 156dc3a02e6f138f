/* hitfam online: play a forest online, as a program that reveals each event when its parent runs,
 * and write the schedules an online strategy played (hf_online_simulate). */
#include <stdlib.h>
#include <string.h>

#include <hitfam/online.h>

#include "cli.h"

static const char usage[] =
    "Usage: hitfam online --d D [options] ORDER.dot\n"
    "Simulate online scheduling on the forest in ORDER.dot ('-' = stdin): in each run an event\n"
    "becomes visible only when its parent has run, and the strategy chooses the next event\n"
    "among the visible ones, knowing nothing else. Runs continue until the strategy's runs\n"
    "are d-hitting for what it has seen. Writes the schedules played, one per run, as a family\n"
    "that 'hitfam verify' checks.\n"
    "\n"
    "  -d, --d D            tuple size, 1..4 (required)\n"
    "  -S, --strategy S     auto (default: dfs for d <= 2, doubletree for d = 3, learn for\n"
    "                       d = 4), dfs (d <= 2, 2 runs), doubletree (d <= 3, at most\n"
    "                       4 x the height of the forest binarized by balanced gadgets,\n"
    "                       each distinct row once),\n"
    "                       learn (d <= 4:\n"
    "                       the offline family of the forest seen so far, replayed)\n"
    "      --format F       text (default), json, ids or bin\n"
    "  -o, --output FILE    write the family to FILE instead of standard output\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 written, 2 invalid input (an order that is not a forest, a strategy that\n"
    "does not apply to d).\n";

int cmd_online(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_D,      {"strategy", required_argument, NULL, 'S'},
                                         CLI_OPT_FORMAT, CLI_OPT_OUTPUT,
                                         CLI_OPT_HELP,   {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    hf_online_options opt;
    hf_online_options_init(&opt);
    int c;
    while ((c = getopt_long(argc, argv, "d:S:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return 0;
        case 'S':
            if (hf_online_strategy_from_name(optarg, &opt.strategy) != HF_OK)
                die_usage("unknown strategy '%s' (auto, dfs, doubletree or learn)", optarg);
            break;
        default:
            if (c == 's' || c == 'f' || !cli_option(&o, c, optarg))
                die_usage("invalid option");
        }
    }
    if (optind + 1 != argc)
        die_usage(optind >= argc ? "missing ORDER.dot" : "too many arguments");
    if (o.d == 0)
        die_usage("--d is required");
    if (o.d > 4)
        die_usage("online strategies take d from 1 to 4 (got %u)", o.d);
    const char *path = argv[optind];
    hf_poset *p = read_poset(path);
    opt.d = o.d;
    hf_family *f = NULL;
    hf_error err;
    hf_online_sim_result r;
    hf_status st = hf_family_new(hf_poset_ctx(p), hf_poset_size(p), &f);
    if (st)
        die_nomem();
    st = hf_online_simulate(p, &opt, hf_family_sink(f), &r, &err);
    if (st) {
        report_error(path, st, &err);
        hf_family_free(f);
        poset_free(p);
        return EXIT_BAD;
    }
    char method[32];
    snprintf(method, sizeof method, "online-%s", hf_online_strategy_name(r.strategy));
    hf_family_header header = {
        .d = o.d, .method = method, .schedules_known = true, .schedules = hf_family_size(f)};
    int rc = write_family(p, f, &o, &header);
    hf_family_free(f);
    poset_free(p);
    return rc;
}
