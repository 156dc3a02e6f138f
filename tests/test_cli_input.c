/* The CLI's input reading (cli/common.c): a regular file is mapped, and one that shrinks while
 * it is read ends the command with a message and exit status 2 (not SIGBUS); the SIGBUS
 * disposition is restored once the input is closed. */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

TU_SUITE(cli_input);

/* A file of n bytes of DOT-like text in a fresh temporary directory; its path, malloc'd. */
static char *make_file(size_t n)
{
    char dir[] = "/tmp/hitfam-input-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *path = malloc(strlen(dir) + 16);
    sprintf(path, "%s/order.dot", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < n; i++)
        fputc(i % 64 == 63 ? '\n' : 'a' + (int)(i % 26), f);
    cr_assert_eq(fclose(f), 0);
    return path;
}

static void remove_file(char *path)
{
    unlink(path);
    *strrchr(path, '/') = '\0';
    rmdir(path);
    free(path);
}

/* The child's exit status and what it wrote on stderr (up to cap - 1 bytes). */
static int run_child(void (*body)(const char *), const char *path, char *err, size_t cap)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        body(path);
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(fds[0], err + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    err[len] = '\0';
    close(fds[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* Maps the file, truncates it, reads the byte that was in its second page. */
static void shrink_while_reading(const char *path)
{
    cli_input in;
    input_open(path, &in);
    if (!in.mapped)
        _exit(50);
    if (truncate(path, 0) != 0)
        _exit(51);
    volatile char c = in.data[in.len - 1]; /* past the new end: SIGBUS */
    (void)c;
    _exit(52); /* not reached when the handler runs */
}

Test(cli_input, a_file_that_shrinks_is_reported)
{
    char *path = make_file(3 * 4096 + 100);
    char err[1024];
    int status = run_child(shrink_while_reading, path, err, sizeof err);
    cr_assert(WIFEXITED(status), "the child ended with signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    cr_assert_eq(WEXITSTATUS(status), EXIT_BAD, "exit %d", WEXITSTATUS(status));
    char want[512];
    snprintf(want, sizeof want, "hitfam: %s: the file shrank while it was read\n", path);
    cr_assert_str_eq(err, want);
    remove_file(path);
}

/* Reads the whole mapped file, closes it, and checks that SIGBUS has the action it had before
 * (the default one, or a sanitizer's) again. */
static void read_then_close(const char *path)
{
    struct sigaction before, now;
    if (sigaction(SIGBUS, NULL, &before) != 0)
        _exit(59);
    cli_input in;
    input_open(path, &in);
    if (!in.mapped || in.len != 2 * 4096)
        _exit(60);
    unsigned sum = 0;
    for (size_t i = 0; i < in.len; i++)
        sum += (unsigned char)in.data[i];
    if (sum == 0)
        _exit(61);
    if (sigaction(SIGBUS, NULL, &now) != 0 || now.sa_handler == before.sa_handler)
        _exit(62); /* the handler is there while the input is open */
    input_close(&in);
    if (sigaction(SIGBUS, NULL, &now) != 0 || now.sa_handler != before.sa_handler)
        _exit(63);
    _exit(0);
}

Test(cli_input, the_handler_lasts_while_the_input_is_open)
{
    char *path = make_file(2 * 4096);
    char err[256];
    int status = run_child(read_then_close, path, err, sizeof err);
    cr_assert(WIFEXITED(status));
    cr_assert_eq(WEXITSTATUS(status), 0, "exit %d", WEXITSTATUS(status));
    cr_assert_str_empty(err);
    remove_file(path);
}

/* A SIGBUS that is not a fault on the input's pages (here one sent by raise) keeps its default
 * action: the process ends by the signal, with no message. */
static void other_sigbus(const char *path)
{
    cli_input in;
    input_open(path, &in);
    if (!in.mapped)
        _exit(70);
    raise(SIGBUS);
    _exit(71);
}

Test(cli_input, another_sigbus_is_not_the_input)
{
    char *path = make_file(4096 + 1);
    char err[256];
    int status = run_child(other_sigbus, path, err, sizeof err);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "status %#x", status);
    cr_assert_null(strstr(err, "shrank"), "%s", err);
    remove_file(path);
}
