/* Node attributes of DOT input as hitfam reads them (focus, thread, obj, access): truth values,
 * finding a value again in the text for a message's line, and an event's object. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io_dot_i.h"

bool hf_i_dot_truth_value(const char *v, bool *on)
{
    size_t n = strlen(v);
    if (n == 0 || hf_i_dot_word_is(v, n, "false") || hf_i_dot_word_is(v, n, "0") ||
        hf_i_dot_word_is(v, n, "no")) {
        *on = false;
        return true;
    }
    if (hf_i_dot_word_is(v, n, "true") || hf_i_dot_word_is(v, n, "1") ||
        hf_i_dot_word_is(v, n, "yes")) {
        *on = true;
        return true;
    }
    return false;
}

bool hf_i_dot_access_value(const char *v, hf_access *access)
{
    size_t n = strlen(v);
    if (hf_i_dot_word_is(v, n, "r") || hf_i_dot_word_is(v, n, "read"))
        *access = HF_ACCESS_READ;
    else if (hf_i_dot_word_is(v, n, "w") || hf_i_dot_word_is(v, n, "write"))
        *access = HF_ACCESS_WRITE;
    else
        return false;
    return true;
}

/* The line of the first `key = value` in the text whose key and value read as @p key and
 * @p value (0 if none): attribute values come from libcgraph without a position, so a message
 * about a bad one finds it again. Comments, quoted and <...> strings are skipped as the
 * scanner skips them. */
hf_status hf_i_dot_attr_find(hf_ctx *ctx, const char *s, size_t len, const char *key,
                             const char *value, int *line_out, char *owner, size_t owner_cap)
{
    char *buf = hf_i_malloc(ctx, 2 * len + 2);
    *line_out = 0;
    if (owner_cap)
        owner[0] = '\0';
    if (!buf)
        return HF_ENOMEM;
    int line = 1, found = 0;
    bool in_brackets = false, edge_statement = false, node_list = false, prev_id = false;
    size_t last_len = 0;
    char last[80] = ""; /* the last ID outside brackets: the owner of the next '[' list */
    int state = 0;      /* 0: nothing, 1: saw the key, 2: saw key and '=' */
    bool bol = true;
    for (size_t i = 0; i < len && !found;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line++;
            bol = true;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (c == '#' && bol) {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        bol = false;
        if (c == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*')) {
            if (s[i + 1] == '/') {
                while (i < len && s[i] != '\n')
                    i++;
            } else {
                for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
                    line += s[i] == '\n';
                i += 2;
            }
            continue;
        }
        int tok_line = line;
        size_t tok_len = 0;
        bool is_id = true;
        if (c == '"') {
            size_t used = hf_i_dot_quoted_value(s + i + 1, len - i - 1, buf, &tok_len);
            if (used == 0)
                break;
            for (size_t k = i + 1; k < i + 1 + used; k++)
                line += s[k] == '\n';
            i += 1 + used;
        } else if (c == '<') {
            size_t k = i + 1, depth = 1;
            for (; k < len && depth > 0; k++) {
                depth += s[k] == '<';
                depth -= s[k] == '>';
                line += s[k] == '\n';
            }
            tok_len = k - i - 2 < len ? k - i - 2 : 0;
            memcpy(buf, s + i + 1, tok_len);
            i = k;
        } else if (hf_i_dot_is_letter(c) || hf_i_dot_is_digit(c) || c == '-' || c == '.') {
            size_t k = i;
            while (k < len &&
                   (hf_i_dot_is_letter((unsigned char)s[k]) ||
                    hf_i_dot_is_digit((unsigned char)s[k]) || s[k] == '-' || s[k] == '.'))
                k++;
            if (k == i + 1 && c == '-' && k < len && (s[k] == '>' || s[k] == '-')) {
                is_id = false;
                k++;
            }
            tok_len = k - i;
            memcpy(buf, s + i, tok_len);
            i = k;
        } else {
            is_id = false;
            buf[0] = (char)c;
            tok_len = 1;
            i++;
        }
        buf[tok_len] = '\0';
        if (!in_brackets && is_id && prev_id)
            edge_statement = false; /* two IDs in a row: a new statement began */
        if (!in_brackets)
            prev_id = is_id;
        if (!in_brackets && is_id) {
            last_len = tok_len < sizeof last - 1 ? tok_len : sizeof last - 1;
            memcpy(last, buf, last_len);
            last[last_len] = '\0';
        }
        if (!is_id && !in_brackets && tok_len == 2 && buf[0] == '-')
            edge_statement = true; /* -> or -- */
        if (!is_id && buf[0] == '[' && !in_brackets) {
            /* the attributes of a node, or of every node: not of edges or graphs */
            in_brackets = true;
            node_list = !edge_statement && !hf_i_dot_word_is(last, last_len, "edge") &&
                        !hf_i_dot_word_is(last, last_len, "graph");
            if (owner_cap)
                snprintf(owner, owner_cap, "%s", last);
        } else if (!is_id && (buf[0] == ']' || buf[0] == ';' || buf[0] == '{' || buf[0] == '}')) {
            in_brackets = false;
            edge_statement = false;
        }
        if (state == 2 && is_id && tok_len == strlen(value) && memcmp(buf, value, tok_len) == 0 &&
            in_brackets && node_list)
            found = tok_line;
        else if (state == 1 && !is_id && buf[0] == '=')
            state = 2;
        else
            state = is_id && strcmp(buf, key) == 0 ? 1 : 0;
    }
    hf_i_free(ctx, buf);
    if (!found && owner_cap)
        owner[0] = '\0';
    *line_out = found;
    return HF_OK;
}

/* A message about the value of attribute `key` of an event, at the value's line when the text
 * shows it (out of memory instead when looking for it fails). */
hf_status hf_i_dot_attr_fail(hf_ctx *ctx, const char *text, size_t text_len, const char *key,
                             const char *value, hf_error *err, const char *fmt, ...)
{
    int line;
    if (hf_i_dot_attr_find(ctx, text, text_len, key, value, &line, NULL, 0))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    char msg[sizeof err->text];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return hf_i_fail(err, HF_EPARSE, line, 0, "%s", msg);
}

/* The event's `obj=` and `access=` attributes (either may be absent: NULL or ""). */
hf_status hf_i_dot_read_object(hf_ctx *ctx, hf_poset_builder *b, uint32_t id, const char *name,
                               const char *ov, const char *av, const char *text, size_t text_len,
                               hf_error *err)
{
    char q[80], qv[80];
    hf_access access = HF_ACCESS_WRITE;
    if (av && av[0]) {
        if (!hf_i_dot_access_value(av, &access))
            return hf_i_dot_attr_fail(ctx, text, text_len, "access", av, err,
                                      "event %s: access=%s is not r or w (read or write)",
                                      hf_i_name_quote(name, q, sizeof q),
                                      hf_i_name_quote(av, qv, sizeof qv));
        if (!ov || !ov[0])
            return hf_i_dot_attr_fail(ctx, text, text_len, "access", av, err,
                                      "event %s: access=%s without obj=NAME (the object it %s)",
                                      hf_i_name_quote(name, q, sizeof q),
                                      hf_i_name_quote(av, qv, sizeof qv),
                                      access == HF_ACCESS_READ ? "reads" : "writes");
    }
    if (!ov || !ov[0])
        return HF_OK;
    hf_status st = hf_poset_builder_set_object(b, id, ov, access);
    if (st == HF_ETOOLARGE)
        return hf_i_fail(err, st, 0, 0, "event %s: object name longer than %u bytes",
                         hf_i_name_quote(name, q, sizeof q), HF_MAX_NAME);
    if (st)
        return hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
    return HF_OK;
}
