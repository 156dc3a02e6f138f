/* The progress line: on a terminal, a computation that runs longer than about a second says on
 * standard error what it is doing, one line rewritten in place (task, units done of the total,
 * seconds so far), from the library's progress callback (hf_ctx_set_progress). The line is
 * cleared before any message and when the command ends, so stderr keeps only the messages. A
 * command made of several computations (compare) names the one it is at (progress_phase) at the
 * head of the line.
 *
 * HITFAM_PROGRESS=never turns it off, HITFAM_PROGRESS=always shows it whatever standard error
 * is (for tests and logs); HITFAM_PROGRESS_DELAY=SECONDS sets the delay (default 1). Without
 * HITFAM_PROGRESS, the line is shown when standard error is a terminal and standard output is
 * not (schedules written to the same terminal would break the line). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static struct {
    bool started;   /* the clock runs from the first context */
    bool shown;     /* a line is on the terminal */
    double start;   /* when the command began (seconds) */
    double last;    /* when the line was last written */
    double delay;   /* no line before start + delay */
    unsigned width; /* the length of the last line (to clear it without escapes) */
} line;

/* What a command running several computations is at (progress_phase), shown before the task. */
static char phase[96];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool show(const hf_progress *p, void *user)
{
    (void)user;
    double t = now();
    /* a new phase (p NULL) is shown at once, reports at most ten times a second */
    if (t - line.start < line.delay || (p && line.shown && t - line.last < 0.1))
        return true;
    line.last = t;
    char text[256];
    const char *task = p && p->task ? p->task : "working";
    int n;
    if (!p)
        n = snprintf(text, sizeof text, "hitfam: %s, %.0f s", phase, t - line.start);
    else if (p->total)
        n = snprintf(text, sizeof text, "hitfam: %s%s%s: %llu of %llu (%.0f%%), %.0f s", phase,
                     phase[0] ? ": " : "", task, (unsigned long long)p->done,
                     (unsigned long long)p->total, 100.0 * (double)p->done / (double)p->total,
                     t - line.start);
    else
        n = snprintf(text, sizeof text, "hitfam: %s%s%s: %llu, %.0f s", phase, phase[0] ? ": " : "",
                     task, (unsigned long long)p->done, t - line.start);
    if (n < 0)
        return true;
    unsigned w = (unsigned)strlen(text);
    /* pad over a longer previous line instead of relying on terminal escapes */
    fprintf(stderr, "\r%s%*s", text, line.width > w ? (int)(line.width - w) : 0, "");
    fflush(stderr);
    line.width = w;
    line.shown = true;
    return true;
}

void progress_clear(void)
{
    if (!line.shown)
        return;
    fprintf(stderr, "\r%*s\r", (int)line.width, "");
    fflush(stderr);
    line.shown = false;
    line.width = 0;
}

void progress_phase(const char *text)
{
    snprintf(phase, sizeof phase, "%s", text ? text : "");
    if (line.started && phase[0])
        show(NULL, NULL);
}

void progress_attach(hf_ctx *ctx)
{
    const char *mode = getenv("HITFAM_PROGRESS");
    bool on;
    if (mode && strcmp(mode, "always") == 0)
        on = true;
    else if (mode && strcmp(mode, "never") == 0)
        on = false;
    else
        on = isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
    if (!on)
        return;
    if (!line.started) {
        line.started = true;
        line.start = now();
        line.delay = 1.0;
        const char *d = getenv("HITFAM_PROGRESS_DELAY");
        char *end;
        double v = d ? strtod(d, &end) : 0;
        if (d && end != d && *end == '\0' && v >= 0 && v < 1e6)
            line.delay = v;
    }
    if (hf_ctx_set_progress(ctx, show, NULL) != HF_OK)
        return; /* a NULL context: nothing to report on */
}
