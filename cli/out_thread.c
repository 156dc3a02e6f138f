/* A stream whose bytes a second thread writes to a file, so that the kernel's copying of a large
 * output (gen --threads 2) runs beside the generation instead of after each block of it. */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Blocks of the hand-over: the writer fills one while the thread writes the others. */
enum { BLOCKS = 4, BLOCK = 1 << 20 };

typedef struct out_thread {
    FILE *under; /* the file; only the thread writes to it, through its descriptor */
    char *block[BLOCKS];
    size_t len[BLOCKS];
    unsigned head, queued; /* the oldest full block, and how many wait for the thread */
    size_t fill;           /* bytes in block (head + queued) % BLOCKS, the one being filled */
    bool closing;
    int err; /* errno of the first failed write or close (0: none) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t tid;
} out_thread;

static int write_all(int fd, const char *b, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        b += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The thread: full blocks in order to the file; after a failure they are only dropped. */
static void *drain(void *arg)
{
    out_thread *t = arg;
    int fd = fileno(t->under);
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->queued == 0 && !t->closing)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->queued == 0)
            break;
        unsigned h = t->head;
        bool failed = t->err != 0;
        pthread_mutex_unlock(&t->mu);
        int e = failed ? 0 : write_all(fd, t->block[h], t->len[h]);
        pthread_mutex_lock(&t->mu);
        if (e && !t->err)
            t->err = e;
        t->head = (h + 1) % BLOCKS;
        t->queued--;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* The block being filled goes to the thread (t->mu held). */
static void hand_over(out_thread *t)
{
    t->len[(t->head + t->queued) % BLOCKS] = t->fill;
    t->queued++;
    t->fill = 0;
    pthread_cond_broadcast(&t->cv);
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    out_thread *t = cookie;
    size_t done = 0;
    pthread_mutex_lock(&t->mu);
    while (done < size && !t->err) {
        while (t->queued == BLOCKS && !t->err)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->err)
            break;
        /* the block being filled is the writer's: copied into without the lock */
        char *b = t->block[(t->head + t->queued) % BLOCKS];
        size_t take = size - done < BLOCK - t->fill ? size - done : BLOCK - t->fill;
        size_t at = t->fill;
        pthread_mutex_unlock(&t->mu);
        memcpy(b + at, buf + done, take);
        pthread_mutex_lock(&t->mu);
        t->fill += take;
        done += take;
        if (t->fill == BLOCK)
            hand_over(t);
    }
    int e = t->err;
    pthread_mutex_unlock(&t->mu);
    if (e) {
        errno = e;
        return -1;
    }
    return (ssize_t)size;
}

static void out_thread_free(out_thread *t)
{
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    for (int i = 0; i < BLOCKS; i++)
        free(t->block[i]);
    free(t);
}

/* The rest to the thread, the thread joined, the file closed: 0, or -1 with errno. */
static int cookie_close(void *cookie)
{
    out_thread *t = cookie;
    pthread_mutex_lock(&t->mu);
    if (t->fill > 0) {
        while (t->queued == BLOCKS)
            pthread_cond_wait(&t->cv, &t->mu);
        hand_over(t);
    }
    t->closing = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->tid, NULL);
    int e = t->err;
    if (fclose(t->under) != 0 && !e)
        e = errno ? errno : EIO;
    out_thread_free(t);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

FILE *out_thread_open(FILE *under)
{
    out_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->under = under;
    bool ok = pthread_mutex_init(&t->mu, NULL) == 0;
    if (ok && pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        ok = false;
    }
    if (!ok) {
        free(t);
        return NULL;
    }
    for (int i = 0; i < BLOCKS; i++)
        ok = ok && (t->block[i] = malloc(BLOCK)) != NULL;
    /* what stdio holds for under goes out first: the thread writes to the descriptor */
    if (!ok || fflush(under) != 0 || pthread_create(&t->tid, NULL, drain, t) != 0) {
        out_thread_free(t);
        return NULL;
    }
    cookie_io_functions_t io = {.write = cookie_write, .close = cookie_close};
    FILE *f = fopencookie(t, "w", io);
    if (!f) {
        pthread_mutex_lock(&t->mu);
        t->closing = true;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->tid, NULL);
        out_thread_free(t);
    }
    return f;
}
