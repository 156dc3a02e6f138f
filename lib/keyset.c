/* The 128-bit key set of lib/keyset.h. */
#include "keyset.h"

hf_status hf_i_keyset_add(hf_ctx *ctx, hf_i_keyset *s, hf_i_key k, bool *fresh)
{
    if (2 * (s->used + 1) > s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 256;
        hf_i_key *nt = hf_i_calloc(ctx, ncap, sizeof *nt);
        if (!nt)
            return HF_ENOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i].a)
                continue;
            size_t j = hf_i_fmix64(s->slot[i].b) & (ncap - 1);
            while (nt[j].a)
                j = (j + 1) & (ncap - 1);
            nt[j] = s->slot[i];
        }
        hf_i_free(ctx, s->slot);
        s->slot = nt;
        s->cap = ncap;
    }
    size_t j = hf_i_fmix64(k.b) & (s->cap - 1);
    for (; s->slot[j].a; j = (j + 1) & (s->cap - 1))
        if (s->slot[j].a == k.a && s->slot[j].b == k.b) {
            *fresh = false;
            return HF_OK;
        }
    s->slot[j] = k;
    s->used++;
    *fresh = true;
    return HF_OK;
}

void hf_i_keyset_free(hf_ctx *ctx, hf_i_keyset *s)
{
    hf_i_free(ctx, s->slot);
    s->slot = NULL;
    s->cap = s->used = 0;
}
