/* Fuzz target: the DOT reader (hf_dot_read_mem) on arbitrary bytes.
 * A poset that reads back is also queried, so that its views are walked under the sanitizers. */
#include <stdint.h>
#include <stdlib.h>

#include <hitfam/hitfam.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hf_poset *p = NULL;
    hf_error err;
    if (hf_dot_read_mem(NULL, (const char *)data, size, &p, &err) != HF_OK) {
        /* A failed read must leave no object behind. */
        if (p != NULL)
            abort();
        return 0;
    }
    uint32_t n = hf_poset_size(p);
    if (n == 0)
        abort(); /* "no events" is documented as an error */
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
