/* hitfam: the command-line tool. Builds (gen), checks (verify), shrinks (minimize) and measures
 * (stats) hitting families of schedules; a client of the public library API like any other. */
#include <errno.h>
#include <string.h>

#include "cli.h"

/* Every command: a new one is a file cli/cmd_NAME.c, its run function in cli.h, and a line
 * here. `hitfam --help` lists them in this order. */
static const cli_command commands[] = {
    {"gen", cmd_gen, "write a d-hitting family for an order given in DOT"},
    {"verify", cmd_verify,
     "check that a family is d-hitting (exit 0), or print an uncovered tuple (1)"},
    {"minimize", cmd_minimize, "make a d-hitting family smaller (d <= 4), keeping it d-hitting"},
    {"stats", cmd_stats, "describe an order: counts, bounds, and the size each method would give"},
    {"draw", cmd_draw, "write an order as DOT for Graphviz, with a schedule or a tuple marked"},
    {"online", cmd_online,
     "play a forest online (events seen when their parent runs) and write the runs"},
    {"enum", cmd_enum, "list or count schedules: all, one per trace, or at most K preemptions"},
    {"compare", cmd_compare,
     "compare hitting families, samplers and enumeration: runs and guarantees"},
    {"convert", cmd_convert, "write an order in hitfam's compact order format (or as DOT)"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(void)
{
    int width = 0;
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if ((int)strlen(commands[i].name) > width)
            width = (int)strlen(commands[i].name);
    fputs("Usage: hitfam COMMAND [options] ...\n"
          "Build, check and measure hitting families of schedules for partial orders of events.\n"
          "\n"
          "Commands:\n",
          stdout);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        printf("  %-*s %s\n", width, commands[i].name, commands[i].summary);
    fputs("\n"
          "  -h, --help      show this help ('hitfam COMMAND --help' for a command)\n"
          "  -V, --version   show the version\n",
          stdout);
}

/* The exit status once standard output is flushed: a write error (a full disk) must not pass
 * for a result. Failed commands have reported already. */
static int finish(int rc)
{
    progress_clear();
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc != EXIT_BAD)
            report("stdout", 0, "write failed: %s", errno ? strerror(errno) : hf_strerror(HF_EIO));
        return EXIT_BAD;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die_usage("missing command");
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        usage();
        return finish(0);
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0) {
        printf("hitfam %s\n", hf_version_string());
        return finish(0);
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(name, commands[i].name) == 0) {
            cli_set_command(name);
            return finish(commands[i].run(argc - 1, argv + 1));
        }
    die_usage("unknown command '%s'", name);
}
