/* Schedule storage: a family keeps m schedules of n ids in one contiguous block, and doubles as
 * the sink generators stream into when the caller wants the schedules in memory. */
#include <string.h>

#include "family_i.h"
#include "internal.h"

/* What hf_family_schedule returns for a family over zero events: a schedule exists but has no
 * ids, and NULL would read as "no such schedule". */
static const uint32_t empty_schedule[1] = {0};

hf_status hf_family_new(hf_ctx *ctx, uint32_t n, hf_family **out)
{
    if (!out)
        return HF_EINVAL;
    *out = NULL;
    if (n > HF_MAX_EVENTS)
        return HF_ETOOLARGE;
    hf_family *f = hf_i_calloc(ctx, 1, sizeof *f);
    if (!f)
        return HF_ENOMEM;
    f->ctx = ctx;
    f->n = n;
    *out = f;
    return HF_OK;
}

void hf_family_free(hf_family *f)
{
    if (!f)
        return;
    hf_ctx *ctx = f->ctx;
    hf_i_free(ctx, f->rows);
    hf_i_free(ctx, f->method);
    hf_i_free(ctx, f->lines);
    hf_i_free(ctx, f);
}

hf_status hf_family_append(hf_family *f, const uint32_t *schedule)
{
    if (!f || (!schedule && f->n > 0))
        return HF_EINVAL;
    if (f->m == SIZE_MAX)
        return HF_ENOMEM;
    if (f->n > 0) {
        if (f->m + 1 > SIZE_MAX / f->n)
            return HF_ENOMEM;
        /* HF_I_GROW leaves rows and cap untouched when it fails: the family stays as it was. */
        hf_status st = HF_I_GROW(f->ctx, f->rows, &f->cap, (f->m + 1) * f->n);
        if (st)
            return st;
        memcpy(f->rows + f->m * f->n, schedule, f->n * sizeof *f->rows);
    }
    f->m++;
    return HF_OK;
}

hf_status hf_family_remove(hf_family *f, size_t index)
{
    if (!f || index >= f->m)
        return HF_EINVAL;
    if (f->n > 0) {
        uint32_t *dst = f->rows + index * f->n;
        memmove(dst, dst + f->n, (f->m - index - 1) * f->n * sizeof *f->rows);
    }
    if (index < f->lined) {
        memmove(f->lines + index, f->lines + index + 1, (f->lined - index - 1) * sizeof *f->lines);
        f->lined--;
    }
    f->m--;
    return HF_OK;
}

size_t hf_family_size(const hf_family *f) { return f ? f->m : 0; }

uint32_t hf_family_events(const hf_family *f) { return f ? f->n : 0; }

const uint32_t *hf_family_schedule(const hf_family *f, size_t index)
{
    if (!f || index >= f->m)
        return NULL;
    if (f->n == 0)
        return empty_schedule;
    return f->rows + index * f->n;
}

bool hf_i_family_same(const hf_family *a, const hf_family *b)
{
    if (a->n != b->n || a->m != b->m)
        return false;
    return a->m == 0 || memcmp(a->rows, b->rows, a->m * (size_t)a->n * sizeof *a->rows) == 0;
}

static hf_status family_put(void *user, const uint32_t *schedule, uint32_t n)
{
    hf_family *f = user;
    if (!f)
        return HF_EINVAL;
    if (n != f->n)
        return HF_EMISMATCH;
    return hf_family_append(f, schedule);
}

hf_sink hf_family_sink(hf_family *f) { return (hf_sink){.put = family_put, .user = f}; }
