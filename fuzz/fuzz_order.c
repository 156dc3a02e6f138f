/* Fuzz target: the compact order format (hitfam/order.h, docs/order-format.md), a binary input
 * every command reads wherever it takes an ORDER.dot.
 *
 * Layout: byte 0, bit 0: the rest follows the 16 bytes `HFORDER\0`, version 1 (so that the checks
 * behind the header are reached without the fuzzer finding the magic); then the bytes read.
 *
 * Promises checked (abort() when broken): no crash, leak or undefined behaviour on any input;
 * hf_order_is_compact is true of every input hf_order_read_mem reads; a failed read leaves
 * `*out` NULL and says why; an order that reads has every name finding its own id, Hasse edges
 * that are strict `<`, a focus set of ids in range, ascending; written back (hf_order_write) it
 * reads as an order whose writing is the same bytes (the writer's form is canonical); and, for an
 * order without objects whose names hf_dot_write accepts, its DOT reads (hf_dot_read_mem) as an
 * order written the same compact bytes again. */
#define _GNU_SOURCE /* open_memstream */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>
#include <hitfam/order.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Orders up to this many events go through the pairwise checks and the DOT round trip. */
#define FZ_PAIRS_MAX 64u

typedef struct bytes {
    char *p;
    size_t len;
} bytes;

/* What hf_order_write gives for @p p (status in *st). */
static bytes written(const hf_poset *p, hf_status *st, hf_status (*write)(const hf_poset *, FILE *))
{
    bytes b = {NULL, 0};
    FILE *f = open_memstream(&b.p, &b.len);
    if (!f)
        abort();
    *st = write(p, f);
    if (fclose(f) != 0)
        abort();
    return b;
}

static hf_status dot_write(const hf_poset *p, FILE *f) { return hf_dot_write(p, f); }

/* @p p written in the compact format is exactly the bytes @p want. */
static bool compact_is(const hf_poset *p, bytes want)
{
    hf_status st;
    bytes b = written(p, &st, hf_order_write);
    bool same = st == HF_OK && b.len == want.len && memcmp(b.p, want.p, want.len) == 0;
    free(b.p);
    return same;
}

static void check_poset(const hf_poset *p)
{
    uint32_t n = hf_poset_size(p);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t id;
        if (hf_poset_find(p, hf_poset_name(p, v), &id) != HF_OK || id != v)
            abort();
        uint32_t k;
        const uint32_t *succ = hf_poset_hasse_succ(p, v, &k);
        for (uint32_t i = 0; i < k; i++)
            if (succ[i] >= n || !hf_poset_less(p, v, succ[i]) || hf_poset_less(p, succ[i], v))
                abort();
    }
    uint32_t fc;
    const uint32_t *focus = hf_poset_focus(p, &fc);
    for (uint32_t i = 0; i < fc; i++)
        if (focus[i] >= n || (i > 0 && focus[i] <= focus[i - 1]))
            abort();
    if (n <= FZ_PAIRS_MAX)
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                if (hf_poset_less(p, a, b) && (a == b || hf_poset_less(p, b, a)))
                    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const char head[16] = {'H', 'F', 'O', 'R', 'D', 'E', 'R', 0, 1, 0, 0, 0};
    size_t len = size - 1 + ((data[0] & 1) ? sizeof head : 0);
    char *in = malloc(len ? len : 1);
    if (!in)
        abort();
    if (data[0] & 1) {
        memcpy(in, head, 12); /* magic and version; the flags come from the input */
        memcpy(in + 12, data + 1, size - 1);
        len = 12 + size - 1;
    } else {
        memcpy(in, data + 1, size - 1);
    }

    hf_poset *p = (hf_poset *)1;
    hf_error err;
    hf_status st = hf_order_read_mem(NULL, in, len, &p, &err);
    if (st != HF_OK) {
        if (p != NULL || err.text[0] == '\0')
            abort();
        free(in);
        return 0;
    }
    if (!hf_order_is_compact(in, len))
        abort();
    check_poset(p);

    hf_status wst;
    bytes once = written(p, &wst, hf_order_write);
    if (wst != HF_OK)
        abort();
    hf_poset *q = NULL;
    if (hf_order_read_mem(NULL, once.p, once.len, &q, &err) != HF_OK)
        abort();
    if (!compact_is(q, once))
        abort();

    /* hf_dot_write writes focus marks and threads, not objects */
    if (hf_poset_size(p) <= FZ_PAIRS_MAX && hf_poset_object_count(p) == 0) {
        bytes dot = written(p, &wst, dot_write);
        if (wst == HF_OK) {
            hf_poset *r = NULL;
            if (hf_dot_read_mem(NULL, dot.p, dot.len, &r, &err) != HF_OK)
                abort();
            if (!compact_is(r, once))
                abort();
            hf_poset_free(r);
        } else if (wst != HF_EUNSUPPORTED) {
            abort();
        }
        free(dot.p);
    }
    free(once.p);
    hf_poset_free(q);
    hf_poset_free(p);
    free(in);
    return 0;
}
