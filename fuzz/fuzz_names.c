/* Fuzz target: every byte string is a name that the family formats and the DOT writer give back
 * byte for byte. The input, split at NUL bytes, is a list of names (duplicates dropped); they
 * become an order (a chain of the first half, the rest free), which is written and read back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAMES 64u

static hf_poset *build(const uint8_t *data, size_t size)
{
    hf_poset_builder *b = NULL;
    if (hf_poset_builder_new(NULL, &b) != HF_OK)
        abort();
    char *copy = malloc(size + 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    copy[size] = '\0';
    uint32_t n = 0;
    for (size_t at = 0; at <= size && n < MAX_NAMES; at += strlen(copy + at) + 1) {
        hf_status st = hf_poset_builder_add_event(b, copy + at, NULL);
        if (st == HF_OK)
            n++;
        else if (st != HF_EDUPLICATE && st != HF_ETOOLARGE)
            abort();
    }
    free(copy);
    for (uint32_t i = 1; i < n / 2; i++)
        if (hf_poset_builder_add_order(b, i - 1, i) != HF_OK)
            abort();
    hf_poset *p = NULL;
    if (n == 0 || hf_poset_builder_finish(b, &p, NULL) != HF_OK)
        p = NULL;
    hf_poset_builder_free(b);
    return p;
}

/* Write the family {topological order} in a format and read it back: the same schedule. */
static void family_round_trip(const hf_poset *p, hf_format format)
{
    uint32_t n = hf_poset_size(p);
    const uint32_t *topo = hf_poset_topological_order(p);
    hf_family *f = NULL, *back = NULL;
    if (hf_family_new(NULL, n, &f) != HF_OK || hf_family_append(f, topo) != HF_OK)
        abort();
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    hf_family_header h = {.d = 2, .method = "fuzz"};
    if (!out || hf_family_write(p, f, out, format, &h) != HF_OK)
        abort();
    fclose(out);
    hf_error err;
    if (hf_family_read_mem(p, text, len, &back, NULL, &err) != HF_OK)
        abort();
    if (hf_family_size(back) != 1 || memcmp(hf_family_schedule(back, 0), topo, n * 4) != 0)
        abort();
    free(text);
    hf_family_free(f);
    hf_family_free(back);
}

/* Write the order as DOT and read it back: the same names in the same order, or a refusal that
 * names written one by one explain. */
static void dot_round_trip(const hf_poset *p)
{
    uint32_t n = hf_poset_size(p);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    hf_status st = hf_dot_write(p, out);
    fclose(out);
    if (st == HF_EUNSUPPORTED) {
        bool some = false;
        FILE *sink = fopen("/dev/null", "w");
        for (uint32_t v = 0; v < n && sink; v++)
            some = some || hf_dot_write_name(sink, hf_poset_name(p, v)) == HF_EUNSUPPORTED;
        if (sink)
            fclose(sink);
        if (!some || len != 0)
            abort();
        free(text);
        return;
    }
    hf_poset *q = NULL;
    hf_error err;
    if (st != HF_OK || hf_dot_read_mem(NULL, text, len, &q, &err) != HF_OK)
        abort();
    if (hf_poset_size(q) != n || hf_poset_hasse_edge_count(q) != hf_poset_hasse_edge_count(p))
        abort();
    for (uint32_t v = 0; v < n; v++) {
        uint32_t id = HF_NO_EVENT;
        if (strcmp(hf_poset_name(q, v), hf_poset_name(p, v)) != 0 ||
            hf_poset_find(q, hf_poset_name(p, v), &id) != HF_OK || id != v)
            abort();
    }
    /* the order read back (whose names the fast DOT reader may leave to be placed at the first
     * lookup) reads the families of its names too */
    family_round_trip(q, HF_FORMAT_TEXT);
    hf_poset_free(q);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hf_poset *p = build(data, size);
    if (!p)
        return 0;
    family_round_trip(p, HF_FORMAT_TEXT);
    family_round_trip(p, HF_FORMAT_JSON);
    dot_round_trip(p);
    hf_poset_free(p);
    return 0;
}
