/* hitfam convert: an order from DOT (or the compact format) to hitfam's compact order format
 * (docs/order-format.md), which every command reads wherever it takes ORDER.dot, without parsing
 * DOT; or back to DOT. */
#include <stdlib.h>
#include <string.h>

#include <hitfam/order.h>

#include "cli.h"

static const char usage[] =
    "Usage: hitfam convert [options] ORDER\n"
    "Write the order in ORDER ('-' = stdin; DOT, or hitfam's compact order format) in the\n"
    "compact order format (docs/order-format.md): the events with their names, the Hasse\n"
    "edges, focus marks, threads and objects, read back by every command that takes ORDER.dot\n"
    "without parsing DOT.\n"
    "\n"
    "      --to FORMAT      hfo (the compact format, the default) or dot\n"
    "  -o, --output FILE    write to FILE instead of standard output\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 written, 2 invalid input.\n";

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 'T'}, CLI_OPT_OUTPUT, CLI_OPT_HELP, {NULL, 0, NULL, 0}};
    cli_options o;
    cli_options_init(&o);
    bool to_dot = false;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        }
        if (c == 'T') {
            if (strcmp(optarg, "dot") == 0)
                to_dot = true;
            else if (strcmp(optarg, "hfo") == 0)
                to_dot = false;
            else
                die_usage("--to takes hfo or dot (got '%s')", optarg);
        } else if (!cli_option(&o, c, optarg)) {
            die_usage("invalid option");
        }
    }
    if (argc - optind < 1)
        die_usage("missing ORDER");
    if (argc - optind > 1)
        die_usage("too many arguments");
    hf_poset *p = read_poset(argv[optind]);
    cli_output out;
    output_open(&out, o.out_path);
    hf_status st = to_dot ? hf_dot_write(p, out.stream) : hf_order_write(p, out.stream);
    hf_status closed = output_close(&out);
    if (st == HF_EUNSUPPORTED)
        report(argv[optind], 0, "a name or label has no DOT form that reads back as itself");
    else if (st || closed)
        report(o.out_path ? o.out_path : "stdout", 0, "write failed");
    int rc = output_commit(&out, st == HF_OK && closed == HF_OK);
    poset_free(p);
    return rc;
}
