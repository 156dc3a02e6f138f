/* The command-line tool's shared parts (cli/common.c): messages, input, the context of a
 * command, the options several commands take, the -o output file, and the table of commands. */
#ifndef HITFAM_CLI_H
#define HITFAM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hitfam/hitfam.h>

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Exit statuses of every command. */
enum { EXIT_HIT = 0, EXIT_NOT_HIT = 1, EXIT_BAD = 2 };

/* ------------------------------------------------------------------------------------------ */
/* Commands (one file each, cli/cmd_NAME.c; the table is in cli/main.c)                       */

/* `hitfam NAME ARGS...` calls run with argv[0] = NAME; the return value is the exit status. */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line of `hitfam --help` */
} cli_command;

int cmd_gen(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_online(int argc, char **argv);
int cmd_enum(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* ------------------------------------------------------------------------------------------ */
/* Messages                                                                                   */

/* The command named in "Try 'hitfam gen --help'." ("hitfam" until a command runs). */
void cli_set_command(const char *name);

/* "hitfam: message" on standard error, one line: control bytes and bytes that are not UTF-8
 * (messages quote input, which may be binary) are written as \xNN. */
void say(const char *fmt, ...) CLI_PRINTF(1, 2);
/* say, then "Try 'COMMAND --help'.", then exit with EXIT_BAD. */
_Noreturn void die_usage(const char *fmt, ...) CLI_PRINTF(1, 2);
/* "hitfam: FILE:LINE: message" (FILE and LINE when known: NULL, 0 otherwise). */
void report(const char *file, int line, const char *fmt, ...) CLI_PRINTF(3, 4);
/* An error of the library about FILE, at err->line. Out of memory is never about the file: it
 * is reported as such, the same from every command. */
void report_error(const char *file, hf_status st, const hf_error *err);
/* Report out of memory and exit with EXIT_BAD. */
_Noreturn void die_nomem(void);
/* st, except out of memory, which ends the command (stats shows other failures, such as a count
 * past a limit, as "unknown"). */
hf_status unless_oom(hf_status st);
/* malloc for the CLI's own buffers: exits with the library's message when it fails. */
void *xmalloc(size_t size);

/* ------------------------------------------------------------------------------------------ */
/* Input and the command's context                                                            */

/* A whole file ("-" = standard input), malloc'd, length in *len. Exits with a message on
 * failure. */
char *slurp(const char *path, size_t *len);
/* A whole file ("-" = standard input) to read: a regular file mapped, anything else slurped
 * (cli/common.c says when and what mapping means). Exits with a message on failure. */
typedef struct cli_input {
    const char *data;
    size_t len;
    char *owned; /* slurped, or NULL */
    bool mapped;
} cli_input;
void input_open(const char *path, cli_input *in);
void input_close(cli_input *in);

/* The allocator of every library object: in hitfam cli/alloc.c's (large blocks in huge-page
 * mappings, freed ones kept for reuse; NULL, the C library's, where the system offers no such
 * mappings or under AddressSanitizer), one that fails on request in the test-only hitfam-chaos
 * (cli/chaos.c). */
const hf_allocator *cli_allocator(void);
/* The bytes cli/alloc.c has mapped for large blocks in use (live) and kept for reuse (kept), and
 * the most ever in use at once (peak): live + kept is at most peak. All 0 where its allocator is
 * the C library's. For its tests. */
typedef struct cli_alloc_usage {
    size_t live, kept, peak;
} cli_alloc_usage;
cli_alloc_usage cli_alloc_usage_now(void);
/* The one context of a command: every library object is made through it (the poset's, which
 * the family, writer and generators share). Exits with a message on failure. */
hf_ctx *ctx_new(void);
/* The progress line of cli/progress.c on the context's long computations (when standard error
 * is a terminal, or HITFAM_PROGRESS says so), and its erasure before messages and at the end. */
void progress_attach(hf_ctx *ctx);
void progress_clear(void);
/* The phase of a command made of several computations (compare: the approach measured), shown
 * at once and then before each task on the progress line; NULL or "" to drop it. */
void progress_phase(const char *text);
/* The order in a DOT file, with a context of its own. Exits with a message on failure. */
hf_poset *read_poset(const char *path);
/* Free a poset from read_poset and its context. */
void poset_free(hf_poset *p);

/* The focus set of a command: the events of the focus file at path (hf_focus_read_mem; stored
 * in *owned, which the caller frees with hf_focus_free), else the nodes marked focus=true, else
 * none (*focus NULL, *count 0). Exits with a message when the file cannot be read. */
void choose_focus(const hf_poset *p, const char *path, uint32_t **owned, const uint32_t **focus,
                  size_t *count);

/* ------------------------------------------------------------------------------------------ */
/* Options several commands take, parsed in one place                                         */

typedef struct cli_options {
    unsigned d;             /* --d D, 1..HF_MAX_D; 0 when not given */
    uint64_t seed;          /* --seed S */
    hf_format format;       /* --format text|json */
    const char *focus_path; /* --focus FILE */
    const char *out_path;   /* -o, --output FILE */
} cli_options;

/* Their long options, for a command's getopt_long table; the short ones are d: s: f: o: (there
 * is no short --format). (clang-format would take the braces for blocks.) */
/* clang-format off */
#define CLI_OPT_D      {"d", required_argument, NULL, 'd'}
#define CLI_OPT_SEED   {"seed", required_argument, NULL, 's'}
#define CLI_OPT_FOCUS  {"focus", required_argument, NULL, 'f'}
#define CLI_OPT_FORMAT {"format", required_argument, NULL, 'F'}
#define CLI_OPT_OUTPUT {"output", required_argument, NULL, 'o'}
#define CLI_OPT_HELP   {"help", no_argument, NULL, 'h'}
/* clang-format on */

/* Defaults: no d, seed 0, text, no focus file, standard output. */
void cli_options_init(cli_options *o);
/* Take option c with argument arg, as getopt_long returned them, if it is one of the shared ones
 * (true); false for any other option. A bad value exits with a usage message. */
bool cli_option(cli_options *o, int c, const char *arg);

/* An unsigned integer argument: decimal digits, or 0x and hexadecimal digits; no sign, no
 * blanks, at most 2^64 - 1. Every numeric option is read by it. */
bool cli_parse_u64(const char *s, uint64_t *v);
/* The positive integer `arg` of option `name`, or a usage error naming both. */
uint64_t cli_positive(const char *arg, const char *name);
/* The same, the usage error followed by "; " and `hint` (NULL: nothing). */
uint64_t cli_positive_hint(const char *arg, const char *name, const char *hint);
/* The integer `arg` of option `name` in lo..hi, or a usage error naming both and the range. */
uint64_t cli_in_range(const char *arg, const char *name, uint64_t lo, uint64_t hi);
/* --d's value (1..HF_MAX_D); exits with a usage message otherwise. */
unsigned cli_parse_d(const char *s);

/* ------------------------------------------------------------------------------------------ */
/* The output of a command (-o FILE or standard output)                                       */

/* -o FILE is written to a temporary file in FILE's directory, which replaces FILE only when the
 * command succeeds: a failed run leaves an existing FILE as it was and creates none. Devices,
 * pipes and other files that are not regular are written in place. */
typedef struct cli_output {
    FILE *stream;     /* where to write: stdout, the temporary file, or the file itself */
    const char *path; /* -o's FILE, or NULL */
    char *temp;       /* the temporary file's name, NULL when written in place */
    char *target;     /* the file the temporary one replaces (FILE, or where its link points) */
} cli_output;

/* Open the output (path NULL: standard output). Exits with "FILE: cannot create" on failure. */
void output_open(cli_output *o, const char *path);
/* Flush standard output or close the file: HF_EIO when that fails (errno says why). */
hf_status output_close(cli_output *o);
/* After output_close: with keep, the temporary file replaces FILE (0, or EXIT_BAD after a
 * message when it cannot); without, it is removed (EXIT_BAD). Frees what output_open allocated. */
int output_commit(cli_output *o, bool keep);

/* Write a whole family to the output of the options (-o FILE, --format): 0, or EXIT_BAD after a
 * message (and then no FILE is left). */
int write_family(const hf_poset *p, const hf_family *f, const cli_options *o,
                 const hf_family_header *header);

/* A family streamed to the output (gen, enum): the writer is made once the header is known
 * (stream_begin), the schedules go through stream_sink, and stream_close closes the writer and
 * the output and says what failed; output_commit(&s->out, ...) then keeps or drops the file. */
typedef struct cli_stream {
    const hf_poset *p;
    cli_output out;
    const char *name; /* -o's FILE, or "stdout" */
    hf_format format;
    hf_writer *w;
    hf_status writer_st; /* why the writer could not be made */
    hf_status put_st;    /* why the writer refused a schedule */
    int fail_errno;      /* errno after either failure (0: none) */
    /* the sink passed to the library (cli/common.c stream_sink); NULL: stream_put */
    hf_sink_watch *watch;
} cli_stream;

/* Open the output (path NULL: standard output), as output_open. */
void stream_open(cli_stream *s, const hf_poset *p, const char *path, hf_format format);
/* Before stream_begin: a -o FILE that is a regular file is then written by a second thread
 * (cli/out_thread.c), the stream handing it blocks; standard output, devices and pipes stay as
 * they are, and so does the stream if the thread cannot be started. Failures are reported by
 * stream_close as before (a failed write at the latest when the output is closed). */
void stream_thread(cli_stream *s);
/* A stream over `under` whose bytes a second thread writes to under's descriptor; closing it
 * closes under. NULL (under unchanged) if the thread or its buffers cannot be made. */
FILE *out_thread_open(FILE *under);
/* Make the writer and write the header: HF_OK, or its failure (kept for stream_close). */
hf_status stream_begin(cli_stream *s, const hf_family_header *header);
/* The sink that writes each schedule (after stream_begin). */
hf_sink stream_sink(cli_stream *s);
/* Schedules written so far (before stream_close). */
uint64_t stream_count(const cli_stream *s);
/* Close the writer and the output, then report the first failure: of making the writer, of a
 * write, of the closing, else the computation's own st (err, about input_path). 0 when all
 * went well, else EXIT_BAD after the message. */
int stream_close(cli_stream *s, hf_status st, const hf_error *err, const char *input_path);

/* ------------------------------------------------------------------------------------------ */
/* Drawings (cli/cmd_draw.c): an order as DOT for Graphviz, for draw and verify --explain       */

typedef struct draw_marks {
    const uint32_t *row;   /* a schedule laid over the order (n ids), or NULL */
    const uint32_t *tuple; /* a tuple to highlight, in order, or NULL */
    unsigned tuple_len;
    bool conflicts;    /* join conflicting pairs */
    const char *title; /* a graph label of plain words and digits, or NULL */
} draw_marks;

/* Why the order cannot be drawn (a name or label that no DOT ID reads back as itself), or NULL.
 * Check it before draw_order. */
const char *draw_refusal(const hf_poset *p, const draw_marks *marks);
/* The drawing: the Hasse diagram with every event labelled, and the marks. Write errors are
 * left in the stream's error flag. */
void draw_order(FILE *out, const hf_poset *p, const draw_marks *marks);

#endif /* HITFAM_CLI_H */
