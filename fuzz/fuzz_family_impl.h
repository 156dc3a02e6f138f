/* The body shared by the text and JSON family fuzz targets: read, check, write back, re-read.
 * FUZZ_FAMILY_JSON selects which syntax the target keeps (the other is left to its twin). */
#ifndef HITFAM_FUZZ_FAMILY_IMPL_H
#define HITFAM_FUZZ_FAMILY_IMPL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader decides on the first non-blank byte; keep each target on its own syntax so that the
 * two corpora do not drift into each other. */
static bool fuzz_is_json(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')
            continue;
        return data[i] == '{';
    }
    return false;
}

static bool fuzz_same_family(const hf_family *a, const hf_family *b)
{
    if (hf_family_size(a) != hf_family_size(b) || hf_family_events(a) != hf_family_events(b))
        return false;
    for (size_t i = 0; i < hf_family_size(a); i++)
        if (memcmp(hf_family_schedule(a, i), hf_family_schedule(b, i),
                   hf_family_events(a) * sizeof(uint32_t)) != 0)
            return false;
    return true;
}

/* Whatever reads must write back and read again as the same schedules (names round-trip). */
static void fuzz_round_trip(const hf_poset *p, const hf_family *f, const hf_family_header *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
        abort();
    hf_family_header out = {h->d, "fuzz", true, hf_family_size(f), 0, 0};
    hf_format format = FUZZ_FAMILY_JSON ? HF_FORMAT_JSON : HF_FORMAT_TEXT;
    if (hf_family_write(p, f, mem, format, &out) != HF_OK)
        abort();
    if (fclose(mem) != 0)
        abort();
    hf_family *again = NULL;
    hf_family_header h2;
    hf_error err;
    if (hf_family_read_mem(p, buf, len, &again, &h2, &err) != HF_OK)
        abort();
    if (!fuzz_same_family(f, again) || h2.d != h->d)
        abort();
    hf_family_free(again);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_is_json(data, size) != FUZZ_FAMILY_JSON)
        return 0;
    hf_poset *p = fuzz_fixed_poset();
    hf_family *f = NULL;
    hf_family_header h;
    hf_error err;
    hf_status st = hf_family_read_mem(p, (const char *)data, size, &f, &h, &err);
    if (st == HF_OK) {
        fuzz_check_permutations(p, f);
        fuzz_round_trip(p, f, &h);
        hf_family_free(f);
    } else if (f != NULL) {
        abort();
    }
    hf_poset_free(p);
    return 0;
}

#endif
