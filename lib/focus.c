/* Focus files: one event name per line, bare or quoted as in the family text format, read into
 * event ids of an order (hf_focus_read_mem). The CLI's --focus FILE reads through this. */
#include <string.h>

#include "names.h"

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static hf_status focus_fail(hf_error *err, hf_status st, size_t line, size_t column,
                            const char *what, const hf_i_name_buf *name)
{
    int l = line > INT_MAX ? INT_MAX : (int)line, c = column > INT_MAX ? INT_MAX : (int)column;
    if (!name)
        return hf_i_fail(err, st, l, c, "%s", what);
    /* Always in quotes, bare names too: "unknown event "x"" reads better in a list of names. */
    char q[72];
    hf_i_name_quote(name->text, q, sizeof q);
    bool quoted = q[0] == '"';
    return hf_i_fail(err, st, l, c, "unknown event %s%s%s%s in the focus set", quoted ? "" : "\"",
                     q, quoted ? "" : "\"", name->bad ? " (too long or holds a NUL byte)" : "");
}

hf_status hf_focus_read_mem(const hf_poset *p, const char *data, size_t len, uint32_t **ids,
                            size_t *count, hf_error *err)
{
    hf_i_error_clear(err);
    if (ids)
        *ids = NULL;
    if (count)
        *count = 0;
    if (!p || !ids || !count || (!data && len > 0))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_ctx *ctx = hf_poset_ctx(p);
    uint32_t *out = NULL;
    size_t cap = 0, k = 0;
    hf_i_name_buf name = {.text = hf_i_malloc(ctx, HF_MAX_NAME + 1)};
    hf_status st = HF_OK;
    /* one slot at least, so that an empty focus set is a non-NULL array */
    if (!name.text || HF_I_GROW(ctx, out, &cap, 1) || hf_i_poset_index_names(p))
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    size_t i = len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0, line = 1, line_start = 0;
    while (!st && i < len) {
        while (i < len && is_blank(data[i]))
            i++;
        size_t eol = i;
        while (eol < len && data[eol] != '\n')
            eol++;
        size_t tl = line, tc = i - line_start + 1;
        bool named = true;
        if (i < len && data[i] == '"') {
            hf_i_unquoted where;
            if (!hf_i_name_unquote(data, len, i, &name, &where)) {
                st = focus_fail(err, HF_EPARSE, tl, tc, "unterminated quoted name", NULL);
                break;
            }
            if (where.lines) {
                line += where.lines;
                line_start = where.line_start;
            }
            for (i = where.end; i < len && data[i] != '\n'; i++)
                if (!is_blank(data[i]) && data[i] != '\r') {
                    st =
                        focus_fail(err, HF_EPARSE, line, i - line_start + 1,
                                   "unexpected text after a quoted name (one name per line)", NULL);
                    break;
                }
            eol = i;
        } else {
            /* A bare line is the name as it stands, blanks inside it included. */
            size_t end = eol;
            while (end > i && (is_blank(data[end - 1]) || data[end - 1] == '\r'))
                end--;
            named = end > i && data[i] != '#'; /* else a blank line or a comment */
            hf_i_name_buf_reset(&name);
            for (size_t j = i; named && j < end; j++)
                hf_i_name_buf_push(&name, data[j]);
        }
        if (!st && named) {
            uint32_t id;
            if (!hf_i_name_buf_find(&name, p, &id))
                st = focus_fail(err, HF_ENOTFOUND, tl, tc, NULL, &name);
            else if (HF_I_GROW(ctx, out, &cap, k + 1))
                st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
            else
                out[k++] = id;
        }
        i = eol + 1;
        line++;
        line_start = i;
    }
    hf_i_free(ctx, name.text);
    if (st) {
        hf_i_free(ctx, out);
        return st;
    }
    *ids = out;
    *count = k;
    return HF_OK;
}

void hf_focus_free(const hf_poset *p, uint32_t *ids)
{
    if (ids)
        hf_i_free(hf_poset_ctx(p), ids);
}
