/* The tables of hf_verify, built once before the enumeration: the distinct schedules, the
 * positions, the per-event lists sorted by position and the suffix checkpoints. */
#include <stdlib.h>
#include <string.h>

#include "family_stream_i.h"
#include "poset_i.h"
#include "verify_i.h"

/* 2^25 words = 256 MiB of checkpoints before blocks grow beyond 64 positions. */
#define CHECKPOINT_BUDGET ((size_t)1 << 25)
void hf_i_ver_free(struct ver *v)
{
    hf_i_free(v->ctx, v->orig);
    hf_i_big_free(v->ctx, &v->pos_big);
    hf_i_big_free(v->ctx, &v->by_pos_big);
    hf_i_big_free(v->ctx, &v->by_pos_at_big);
    hf_i_big_free(v->ctx, &v->ck_big);
    v->pos = v->by_pos = v->by_pos_at = NULL;
    v->ck = NULL;
    hf_i_free(v->ctx, v->focus);
}

/* Number of checkpoint words for block size B, or SIZE_MAX when it does not fit in size_t. */
static size_t checkpoint_words(size_t m, uint32_t n, uint32_t B, size_t W)
{
    size_t boundaries = n == 0 ? 0 : ((size_t)n + B - 1) / B - 1;
    if (boundaries == 0 || m == 0)
        return 0;
    if (boundaries > SIZE_MAX / W || m > SIZE_MAX / (boundaries * W))
        return SIZE_MAX;
    return m * boundaries * W;
}

struct keyed {
    uint64_t hash;
    uint32_t index;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* v->orig = the family's schedules without repeats, first copies in family order. Hashing and
 * sorting: O(m * n + m log m). HF_ENOMEM (unexplained), or HF_EABORTED from the progress
 * callback (explained in err; *work: hf_i_ver_setup_tick's count). */
static hf_status distinct_schedules(struct ver *v, size_t m, uint64_t *work, hf_error *err)
{
    uint32_t n = v->n;
    struct keyed *key = hf_i_alloc_array(v->ctx, m, sizeof *key);
    uint8_t *copy = hf_i_calloc(v->ctx, m, 1);
    v->orig = hf_i_alloc_array(v->ctx, m, sizeof *v->orig);
    if (!key || !copy || !v->orig) {
        hf_i_free(v->ctx, key);
        hf_i_free(v->ctx, copy);
        return HF_ENOMEM;
    }
    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = v->rows + s * n;
        uint64_t h = 0x243f6a8885a308d3u;
        for (uint32_t q = 0; q < n; q++) {
            h = (h ^ row[q]) * 0x9e3779b97f4a7c15u;
            h ^= h >> 29;
        }
        key[s].hash = h;
        key[s].index = (uint32_t)s;
        hf_status st = hf_i_ver_setup_tick(v->ctx, work, (uint64_t)n + 1, err);
        if (st) {
            hf_i_free(v->ctx, key);
            hf_i_free(v->ctx, copy);
            return st;
        }
    }
    qsort(key, m, sizeof *key, keyed_cmp);
    for (size_t i = 0, run = 0; i < m; i++) {
        if (key[i].hash != key[run].hash)
            run = i;
        const uint32_t *row = v->rows + (size_t)key[i].index * n;
        for (size_t j = run; j < i && !copy[key[i].index]; j++)
            if (!copy[key[j].index] &&
                memcmp(v->rows + (size_t)key[j].index * n, row, n * sizeof *row) == 0)
                copy[key[i].index] = 1;
    }
    v->m = 0;
    for (size_t s = 0; s < m; s++)
        if (!copy[s])
            v->orig[v->m++] = (uint32_t)s;
    hf_i_free(v->ctx, key);
    hf_i_free(v->ctx, copy);
    return HF_OK;
}

/* Everything but the enumeration levels' content. Needs a validated input. Reports progress
 * (task "verify", nothing done yet) and may stop with HF_EABORTED. */
hf_status hf_i_ver_init(struct ver *v, const hf_poset *p, const struct rows *f,
                        const hf_verify_options *opt, hf_error *err)
{
    memset(v, 0, sizeof *v);
    v->p = p;
    v->ctx = p->ctx;
    v->n = p->n;
    v->m = f->m;
    v->d = opt->d;
    v->rows = f->rows;
    v->W = hf_i_words(v->n);
    hf_ctx *ctx = v->ctx;
    size_t W = v->W ? v->W : 1;

    v->focus = hf_i_calloc(ctx, W, sizeof *v->focus);
    if (!v->focus)
        goto nomem;
    if (opt->focus) {
        for (size_t i = 0; i < opt->focus_count; i++)
            hf_i_bit_set(v->focus, opt->focus[i]);
    } else {
        for (uint32_t x = 0; x < v->n; x++)
            hf_i_bit_set(v->focus, x);
    }
    for (size_t w = 0; w < v->W; w++)
        v->focus_events += hf_i_popcount(v->focus[w]);
    /* With fewer (focus) events than d there are no d-tuples; a d-hitting family must still be
     * d'-hitting for every d' <= d (docs/bounds.md, "Convention"), so the check falls back to
     * the longest tuples there are. d <= 1 is decided without the tables. */
    if (v->d > v->focus_events)
        v->d = (unsigned)v->focus_events;
    if (v->d <= 1)
        return HF_OK;

    uint32_t n = v->n;
    uint64_t work = 0;
    hf_status st;
    /* schedule indices are stored in 32 bits; so many schedules would not fit in memory */
    if (v->m > UINT32_MAX)
        goto nomem;
    if ((st = distinct_schedules(v, v->m, &work, err)) == HF_ENOMEM)
        goto nomem;
    if (st)
        goto stop;
    size_t m = v->m;
    v->B = 1;
    while (v->B < 64 && v->B < W)
        v->B *= 2;
    while (v->B < n && checkpoint_words(m, n, v->B, W) > CHECKPOINT_BUDGET)
        v->B *= 2;
    while (((uint32_t)1 << v->B_log) < v->B)
        v->B_log++;
    v->nb = (uint32_t)(((uint64_t)n + v->B - 1) / v->B);
    size_t ckw = checkpoint_words(m, n, v->B, W);
    if (ckw == SIZE_MAX || (m && n > SIZE_MAX / m))
        goto nomem;

    /* the tables go to a mapped file when they and the rows on the heap exceed the limit */
    uint64_t ids = (uint64_t)n * m, bytes = (v->d >= 3 ? 3 : 2) * ids * sizeof(uint32_t);
    bool mapped =
        opt->memory_limit && bytes + (uint64_t)ckw * sizeof(hf_word) + f->heap > opt->memory_limit;
    v->mapped = mapped;
    v->heap_bytes = bytes + (uint64_t)ckw * sizeof(hf_word) + f->heap;
    /* positions by schedule are needed only to order two prefix entries */
    if (v->d >= 3 &&
        !(v->pos = hf_i_big_alloc(ctx, (size_t)n * m, sizeof *v->pos, mapped, &v->pos_big)))
        goto nomem;
    v->by_pos = hf_i_big_alloc(ctx, (size_t)n * m, sizeof *v->by_pos, mapped, &v->by_pos_big);
    v->by_pos_at =
        hf_i_big_alloc(ctx, (size_t)n * m, sizeof *v->by_pos_at, mapped, &v->by_pos_at_big);
    v->ck = hf_i_big_alloc(ctx, ckw, sizeof *v->ck, mapped, &v->ck_big);
    v->tree = v->p->tin && !v->p->closure && (v->p->dual || v->p->parent);
    /* the running suffix set of the checkpoints below */
    hf_word *run = hf_i_calloc(ctx, W, sizeof *run);
    uint32_t *fill = hf_i_calloc(ctx, n, sizeof *fill);
    if (!v->by_pos || !v->by_pos_at || !v->ck || !run || !fill) {
        hf_i_free(ctx, run);
        hf_i_free(ctx, fill);
        goto nomem;
    }
    /* position by position, so that each event's list comes out sorted */
    for (uint32_t q = 0; q < n; q++) {
        for (size_t s = 0; s < m; s++) {
            uint32_t x = hf_i_ver_row(v, s)[q];
            v->by_pos_at[(size_t)x * m + fill[x]] = q;
            v->by_pos[(size_t)x * m + fill[x]++] = (uint32_t)s;
        }
        if ((st = hf_i_ver_setup_tick(ctx, &work, (uint64_t)m + 1, err))) {
            hf_i_free(ctx, run);
            hf_i_free(ctx, fill);
            goto stop;
        }
    }
    hf_i_free(ctx, fill);

    for (size_t s = 0; s < m; s++) {
        const uint32_t *row = hf_i_ver_row(v, s);
        for (uint32_t q = 0; q < n && v->pos; q++)
            v->pos[(size_t)row[q] * m + s] = q;
        /* suffix sets from the end */
        memset(run, 0, W * sizeof *run);
        for (uint32_t k = v->nb - 1; k >= 1; k--) {
            uint64_t end = (uint64_t)(k + 1) * v->B;
            for (uint32_t q = k * v->B; q < end && q < n; q++)
                hf_i_bit_set(run, row[q]);
            memcpy(v->ck + (s * (v->nb - 1) + k - 1) * W, run, W * sizeof *run);
        }
        if ((st = hf_i_ver_setup_tick(ctx, &work, (uint64_t)n + v->nb * W, err))) {
            hf_i_free(ctx, run);
            goto stop;
        }
    }
    hf_i_free(ctx, run);
    return HF_OK;
stop:
    hf_i_ver_free(v);
    return st;
nomem:
    hf_i_ver_free(v);
    return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory verifying a family of %zu schedules",
                     f->m);
}
