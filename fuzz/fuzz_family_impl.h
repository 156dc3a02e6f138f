/* The body shared by the family fuzz targets: read, check, write back, re-read (in the target's
 * format, ids and bin). FUZZ_FAMILY_JSON selects which syntax the text and JSON targets keep
 * (the other is left to its twin); text includes ids (a header with format=ids). */
#ifndef HITFAM_FUZZ_FAMILY_IMPL_H
#define HITFAM_FUZZ_FAMILY_IMPL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/family_i.h" /* hf_i_family_same */
#include "fuzz_common.h"
#if !FUZZ_FAMILY_BIN && !FUZZ_FAMILY_JSON
#include "../lib/io_family_read_i.h" /* hf_i_text_batches */
#endif

#ifndef FUZZ_FAMILY_BIN
#define FUZZ_FAMILY_BIN 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if !FUZZ_FAMILY_BIN
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
#endif

/* Binary families have their own target (fuzz_family_bin.c). */
static bool fuzz_is_bin(const uint8_t *data, size_t size)
{
    return size >= 4 && memcmp(data, "\x89HFB", 4) == 0;
}

/* Whatever reads must write back and read again as the same schedules (names round-trip), in
 * every format. */
static void fuzz_round_trip(const hf_poset *p, const hf_family *f, const hf_family_header *h,
                            hf_format format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
        abort();
    hf_family_header out = {h->d, "fuzz", true, hf_family_size(f), 0, 0};
    if (hf_family_write(p, f, mem, format, &out) != HF_OK)
        abort();
    if (fclose(mem) != 0)
        abort();
    hf_family *again = NULL;
    hf_family_header h2;
    hf_error err;
    if (hf_family_read_mem(p, buf, len, &again, &h2, &err) != HF_OK)
        abort();
    if (!hf_i_family_same(f, again) || h2.d != h->d)
        abort();
    hf_family_free(again);
    free(buf);
}

/* The target's own format, then the machine formats (ids and bin). */
static void fuzz_round_trips(const hf_poset *p, const hf_family *f, const hf_family_header *h,
                             hf_format own)
{
    fuzz_round_trip(p, f, h, own);
    fuzz_round_trip(p, f, h, HF_FORMAT_IDS);
    fuzz_round_trip(p, f, h, HF_FORMAT_BIN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if FUZZ_FAMILY_BIN
    /* Byte 0, bit 0 set: the trailer's checksum is made right, so that the checks after it are
     * reached; the rest is the file. */
    if (size < 1)
        return 0;
    bool fix = data[0] & 1;
    data++;
    size--;
    if (!fuzz_is_bin(data, size))
        return 0;
    uint8_t *copy = malloc(size);
    if (copy == NULL)
        abort();
    memcpy(copy, data, size);
    if (fix && size >= 8)
        fuzz_fix_checksum(copy, size);
    data = copy;
    hf_format own = HF_FORMAT_BIN;
#else
    if (fuzz_is_json(data, size) != FUZZ_FAMILY_JSON || fuzz_is_bin(data, size))
        return 0;
    hf_format own = FUZZ_FAMILY_JSON ? HF_FORMAT_JSON : HF_FORMAT_TEXT;
#endif
    hf_poset *p = fuzz_fixed_poset();
    hf_family *f = NULL;
    hf_family_header h;
    hf_error err;
    hf_status st = hf_family_read_mem(p, (const char *)data, size, &f, &h, &err);
#if !FUZZ_FAMILY_BIN && !FUZZ_FAMILY_JSON
    /* names looked up in batches read as one at a time: the same status, message, position,
     * header and schedules */
    hf_i_text_batches = false;
    hf_family *one = NULL;
    hf_family_header h1;
    hf_error err1;
    hf_status st1 = hf_family_read_mem(p, (const char *)data, size, &one, &h1, &err1);
    hf_i_text_batches = true;
    if (st1 != st || (st && (strcmp(err.text, err1.text) != 0 || err.line != err1.line ||
                             err.column != err1.column)))
        abort();
    if (!st && (!hf_i_family_same(f, one) || h.d != h1.d || h.schedules != h1.schedules))
        abort();
    hf_family_free(one);
#endif
    if (st == HF_OK) {
        fuzz_check_permutations(p, f);
        fuzz_round_trips(p, f, &h, own);
        hf_family_free(f);
    } else if (f != NULL) {
        abort();
    }
    hf_poset_free(p);
#if FUZZ_FAMILY_BIN
    free(copy);
#endif
    return 0;
}

#endif
