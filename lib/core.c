/* Library-wide plumbing: version, status texts, the context with its allocator and log
 * callback, and error formatting. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include <sys/mman.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *hf_version_string(void) { return HF_VERSION_STRING; }

const char *hf_strerror(hf_status status)
{
    switch (status) {
    case HF_OK:
        return "success";
    case HF_EINVAL:
        return "invalid argument";
    case HF_ENOMEM:
        return "out of memory";
    case HF_ECYCLE:
        return "the order has a cycle";
    case HF_ESELFLOOP:
        return "an event is ordered before itself";
    case HF_EDUPLICATE:
        return "duplicate event name";
    case HF_ENOTFOUND:
        return "unknown event";
    case HF_ETOOLARGE:
        return "input exceeds a limit";
    case HF_EPARSE:
        return "syntax error";
    case HF_EIO:
        return "input/output error";
    case HF_EUNSUPPORTED:
        return "method does not apply";
    case HF_ESCHEDULE:
        return "not a linear extension of the order";
    case HF_ESTATE:
        return "call not allowed in this state";
    case HF_EABORTED:
        return "stopped by a callback";
    case HF_EMISMATCH:
        return "family does not match the order";
    }
    return "unknown status";
}

static void *std_malloc(size_t size, void *user)
{
    (void)user;
    return malloc(size);
}
static void *std_realloc(void *ptr, size_t size, void *user)
{
    (void)user;
    return realloc(ptr, size);
}
static void std_free(void *ptr, void *user)
{
    (void)user;
    free(ptr);
}

hf_status hf_ctx_new(const hf_allocator *alloc, hf_log_fn log, void *log_user, hf_ctx **out)
{
    if (!out)
        return HF_EINVAL;
    *out = NULL;
    if (alloc && (!alloc->malloc || !alloc->realloc || !alloc->free))
        return HF_EINVAL;
    hf_allocator a =
        alloc ? *alloc
              : (hf_allocator){
                    .malloc = std_malloc, .realloc = std_realloc, .free = std_free, .user = NULL};
    hf_ctx *ctx = a.malloc(sizeof *ctx, a.user);
    if (!ctx)
        return HF_ENOMEM;
    ctx->alloc = a;
    ctx->log = log;
    ctx->log_user = log_user;
    ctx->progress = NULL;
    ctx->progress_user = NULL;
    *out = ctx;
    return HF_OK;
}

hf_status hf_ctx_set_progress(hf_ctx *ctx, hf_progress_fn fn, void *user)
{
    if (!ctx)
        return HF_EINVAL;
    ctx->progress = fn;
    ctx->progress_user = fn ? user : NULL;
    return HF_OK;
}

hf_status hf_i_progress_report(hf_ctx *ctx, const char *task, uint64_t done, uint64_t total,
                               hf_error *err)
{
    hf_progress pr = {task, done, total};
    if (ctx->progress(&pr, ctx->progress_user))
        return HF_OK;
    return hf_i_fail(err, HF_EABORTED, 0, 0, "%s: stopped by the progress callback", task);
}

void hf_ctx_free(hf_ctx *ctx)
{
    if (ctx)
        ctx->alloc.free(ctx, ctx->alloc.user);
}

void *hf_i_malloc(hf_ctx *ctx, size_t size)
{
    if (size == 0)
        size = 1;
    return ctx ? ctx->alloc.malloc(size, ctx->alloc.user) : malloc(size);
}

void *hf_i_alloc_array(hf_ctx *ctx, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return hf_i_malloc(ctx, count * size);
}

void *hf_i_calloc(hf_ctx *ctx, size_t count, size_t size)
{
    void *p = hf_i_alloc_array(ctx, count, size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *hf_i_realloc_array(hf_ctx *ctx, void *ptr, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = (count * size) != 0 ? count * size : 1;
    return ctx ? ctx->alloc.realloc(ptr, bytes, ctx->alloc.user) : realloc(ptr, bytes);
}

void hf_i_free(hf_ctx *ctx, void *ptr)
{
    if (!ptr)
        return;
    if (ctx)
        ctx->alloc.free(ptr, ctx->alloc.user);
    else
        free(ptr);
}

char *hf_i_strdup(hf_ctx *ctx, const char *s)
{
    size_t len = strlen(s);
    char *d = hf_i_malloc(ctx, len + 1);
    if (d)
        memcpy(d, s, len + 1);
    return d;
}

/* slot holds an object pointer of any type; it is read and written through memcpy, so no
 * caller casts its T ** to void **. */
size_t hf_i_grown_cap(size_t cap, size_t need, size_t item_size)
{
    size_t c = cap ? cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / item_size)
            return 0;
        c *= 2;
    }
    return c;
}

hf_status hf_i_grow_slot(hf_ctx *ctx, void *slot, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return HF_OK;
    size_t c = hf_i_grown_cap(*cap, need, item_size);
    if (!c)
        return HF_ENOMEM;
    void *items;
    memcpy(&items, slot, sizeof items);
    void *p = hf_i_realloc_array(ctx, items, c, item_size);
    if (!p)
        return HF_ENOMEM;
    memcpy(slot, &p, sizeof p);
    *cap = c;
    return HF_OK;
}

void hf_i_log(hf_ctx *ctx, hf_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->log)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ctx->log(level, buf, ctx->log_user);
}

void hf_i_error_clear(hf_error *err)
{
    if (err) {
        err->line = 0;
        err->column = 0;
        err->text[0] = '\0';
    }
}

hf_status hf_i_fail(hf_error *err, hf_status status, int line, int column, const char *fmt, ...)
{
    if (err) {
        err->line = line;
        err->column = column;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return status;
}

hf_status hf_i_read_all(hf_ctx *ctx, FILE *in, char **buf, size_t *len)
{
    char *b = NULL;
    size_t cap = 0, n = 0;
    const size_t chunk = (size_t)1 << 16;
    for (;;) {
        if (n > SIZE_MAX - chunk || HF_I_GROW(ctx, b, &cap, n + chunk)) {
            hf_i_free(ctx, b);
            return HF_ENOMEM;
        }
        size_t got = fread(b + n, 1, cap - n, in);
        n += got;
        if (got == 0 || feof(in) || ferror(in))
            break;
    }
    if (ferror(in)) {
        hf_i_free(ctx, b);
        return HF_EIO;
    }
    *buf = b;
    *len = n;
    return HF_OK;
}

void hf_i_advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1),
              hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (lo < hi)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
