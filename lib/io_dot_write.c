/* DOT output: a poset's Hasse diagram, its focus and labels, written as DOT that reads back to
 * the same poset. */
#include <stdio.h>

#include "io_dot_i.h"
#include "poset_i.h"

/* One `key=value` of a node's attribute list: " [" before the first, ", " before the others. */
static hf_status write_attr(hf_ctx *ctx, FILE *out, bool *first, const char *key, const char *value)
{
    if (fputs(*first ? " [" : ", ", out) < 0 || fputs(key, out) < 0 || putc('=', out) == EOF)
        return HF_EIO;
    *first = false;
    return hf_i_dot_id_write(ctx, out, value, false);
}

hf_status hf_dot_write(const hf_poset *p, FILE *out)
{
    if (!p || !out)
        return HF_EINVAL;
    /* every name and label must read back as itself before anything is written */
    for (uint32_t v = 0; v < p->n; v++) {
        hf_status st = hf_i_dot_id_check(p->ctx, hf_i_name(p, v), true);
        if (st)
            return st;
    }
    const hf_i_labels *labels[] = {&p->threads, &p->objects};
    for (size_t l = 0; l < 2; l++)
        for (uint32_t k = 0; k < labels[l]->count; k++) {
            hf_status st = hf_i_dot_id_check(p->ctx, hf_i_label_name(labels[l], k), false);
            if (st)
                return st;
        }
    hf_status st = fputs("digraph {\n", out) >= 0 ? HF_OK : HF_EIO;
    uint32_t f = 0;
    for (uint32_t v = 0; v < p->n && !st; v++) {
        bool focus = f < p->focus_count && p->focus[f] == v, first = true;
        if (focus)
            f++;
        uint32_t t = p->threads.of ? p->threads.of[v] : HF_NO_EVENT;
        uint32_t o = p->objects.of ? p->objects.of[v] : HF_NO_EVENT;
        st = fputs("  ", out) >= 0 ? hf_i_dot_id_write(p->ctx, out, hf_i_name(p, v), true) : HF_EIO;
        if (!st && focus)
            st = write_attr(p->ctx, out, &first, "focus", "true");
        if (!st && t != HF_NO_EVENT)
            st = write_attr(p->ctx, out, &first, "thread", hf_i_label_name(&p->threads, t));
        if (!st && o != HF_NO_EVENT)
            st = write_attr(p->ctx, out, &first, "obj", hf_i_label_name(&p->objects, o));
        if (!st && o != HF_NO_EVENT && p->access[v] == HF_ACCESS_READ)
            st = write_attr(p->ctx, out, &first, "access", "r");
        if (!st && !first && putc(']', out) == EOF)
            st = HF_EIO;
        if (!st && putc('\n', out) == EOF)
            st = HF_EIO;
    }
    for (uint32_t u = 0; u < p->n && !st; u++)
        for (size_t i = p->succ_off[u]; i < p->succ_off[u + 1] && !st; i++) {
            st = fputs("  ", out) >= 0 ? hf_i_dot_id_write(p->ctx, out, hf_i_name(p, u), true)
                                       : HF_EIO;
            if (!st)
                st = fputs(" -> ", out) >= 0
                         ? hf_i_dot_id_write(p->ctx, out, hf_i_name(p, p->succ[i]), true)
                         : HF_EIO;
            if (!st && putc('\n', out) == EOF)
                st = HF_EIO;
        }
    if (!st && fputs("}\n", out) < 0)
        st = HF_EIO;
    if (!st && ferror(out))
        st = HF_EIO;
    return st;
}
