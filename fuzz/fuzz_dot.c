/* Fuzz target: the DOT reader (hf_dot_read_mem) on arbitrary bytes.
 * A poset that reads back is compared with libcgraph's own reading of the same text (the same
 * nodes, byte for byte and in the same order, and the same order relation), and queried, so that
 * its views are walked under the sanitizers. Whenever the fast reader of the plain subset
 * (lib/io_dot_fast.c) accepts the text, its poset must be the libcgraph path's in every respect,
 * and hf_dot_read_mem (fast path first) must give the status the libcgraph path alone gives. */
#include <graphviz/cgraph.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>

#include "../lib/io_dot_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int quiet(char *message)
{
    (void)message;
    return 0;
}

/* Graphviz's reading of the text hitfam accepted (after a leading byte order mark, which hitfam
 * skips wherever it is): every node name equal to the event of the same rank, every edge an
 * order relation of the poset, every Hasse edge an edge of the graph. */
static void compare_with_libcgraph(const hf_poset *p, const uint8_t *data, size_t size)
{
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        size -= 3;
    }
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    agusererrf old_fn = agseterrf(quiet);
    agerrlevel_t old_level = agseterr(AGMAX);
    Agraph_t *g = agmemread(text);
    agseterr(old_level);
    agseterrf(old_fn);
    agreseterrors();
    free(text);
    if (!g)
        abort(); /* hitfam read a graph that Graphviz does not */
    uint32_t n = hf_poset_size(p);
    if ((uint32_t)agnnodes(g) != n)
        abort();
    uint32_t k = 0;
    for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v), k++) {
        if (strcmp(agnameof(v), hf_poset_name(p, k)) != 0)
            abort();
        for (Agedge_t *e = agfstout(g, v); e; e = agnxtout(g, e)) {
            uint32_t t, h;
            if (hf_poset_find(p, agnameof(agtail(e)), &t) != HF_OK ||
                hf_poset_find(p, agnameof(aghead(e)), &h) != HF_OK || !hf_poset_less(p, t, h))
                abort();
        }
    }
    for (uint32_t v = 0; v < n; v++) {
        uint32_t count;
        const uint32_t *succ = hf_poset_hasse_succ(p, v, &count);
        Agnode_t *tail = agnode(g, (char *)hf_poset_name(p, v), 0);
        for (uint32_t i = 0; i < count; i++) {
            Agnode_t *head = agnode(g, (char *)hf_poset_name(p, succ[i]), 0);
            if (!tail || !head || !agedge(g, tail, head, NULL, 0))
                abort();
        }
    }
    agclose(g);
}

static bool same_labels(const hf_poset *a, const hf_poset *b, uint32_t v)
{
    return hf_poset_thread(a, v) == hf_poset_thread(b, v) &&
           hf_poset_object(a, v) == hf_poset_object(b, v) &&
           hf_poset_access(a, v) == hf_poset_access(b, v);
}

/* The fast reader against the libcgraph path: equal posets when it accepts. */
static void compare_paths(const uint8_t *data, size_t size)
{
    hf_poset *pf = NULL, *pc = NULL;
    hf_error ef, ec;
    hf_status sf = hf_i_dot_read_path(NULL, (const char *)data, size, HF_I_DOT_FAST, &pf, &ef);
    if (sf == HF_EUNSUPPORTED) {
        if (pf)
            abort();
        return;
    }
    if (sf != HF_OK)
        abort();
    if (hf_i_dot_read_path(NULL, (const char *)data, size, HF_I_DOT_CGRAPH, &pc, &ec) != HF_OK)
        abort(); /* the fast reader took what the libcgraph path refuses */
    uint32_t n = hf_poset_size(pf);
    if (n != hf_poset_size(pc) || hf_poset_shape(pf) != hf_poset_shape(pc))
        abort();
    for (uint32_t v = 0; v < n; v++) {
        uint32_t cf, cc;
        const uint32_t *sf_ = hf_poset_hasse_succ(pf, v, &cf),
                       *sc_ = hf_poset_hasse_succ(pc, v, &cc);
        if (strcmp(hf_poset_name(pf, v), hf_poset_name(pc, v)) != 0 || cf != cc ||
            (cf && memcmp(sf_, sc_, cf * sizeof *sf_) != 0) || !same_labels(pf, pc, v))
            abort();
    }
    uint32_t ff, fc;
    const uint32_t *focus_f = hf_poset_focus(pf, &ff), *focus_c = hf_poset_focus(pc, &fc);
    if (ff != fc || (ff && memcmp(focus_f, focus_c, ff * sizeof *focus_f) != 0))
        abort();
    if (hf_poset_thread_count(pf) != hf_poset_thread_count(pc) ||
        hf_poset_object_count(pf) != hf_poset_object_count(pc))
        abort();
    for (uint32_t k = 0; k < hf_poset_thread_count(pf); k++)
        if (strcmp(hf_poset_thread_name(pf, k), hf_poset_thread_name(pc, k)) != 0)
            abort();
    for (uint32_t k = 0; k < hf_poset_object_count(pf); k++)
        if (strcmp(hf_poset_object_name(pf, k), hf_poset_object_name(pc, k)) != 0)
            abort();
    hf_poset_free(pf);
    hf_poset_free(pc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hf_poset *p = NULL;
    hf_error err;
    compare_paths(data, size);
    hf_poset *alone = NULL;
    hf_status st_alone =
        hf_i_dot_read_path(NULL, (const char *)data, size, HF_I_DOT_CGRAPH, &alone, &err);
    hf_poset_free(alone);
    hf_status st = hf_dot_read_mem(NULL, (const char *)data, size, &p, &err);
    if (st != st_alone)
        abort();
    if (st != HF_OK) {
        /* A failed read must leave no object behind. */
        if (p != NULL)
            abort();
        return 0;
    }
    uint32_t n = hf_poset_size(p);
    if (n == 0)
        abort(); /* "no events" is documented as an error */
    compare_with_libcgraph(p, data, size);
    const uint32_t *topo = hf_poset_topological_order(p);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        const char *name = hf_poset_name(p, topo[i]);
        if (name == NULL || hf_poset_find(p, name, &id) != HF_OK || id != topo[i])
            abort();
        uint32_t count;
        const uint32_t *succ = hf_poset_hasse_succ(p, topo[i], &count);
        for (uint32_t k = 0; k < count; k++)
            if (!hf_poset_less(p, topo[i], succ[k]))
                abort();
    }
    hf_poset_free(p);
    return 0;
}
