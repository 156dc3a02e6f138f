/* One record written as text or as JSON by the same calls (cli/kv.c): "key: value" lines, or
 * one JSON object on one line. For commands whose output is a record, such as stats. */
#ifndef HITFAM_CLI_KV_H
#define HITFAM_CLI_KV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#define KV_MAX_DEPTH 8

/* Keys are JSON keys ("hasse_edges"); text writes them with spaces ("hasse edges: 9"). Text
 * indents nested fields by two spaces; a table object writes its fields as rows ("dfs        2"),
 * for keys that are names rather than words. Values stream out as they come. */
typedef struct kv {
    FILE *out;
    bool json;
    bool exact; /* kv_count: every digit, however many (stats --exact) */
    int depth;
    struct {
        bool first; /* JSON: no field at this level yet */
        bool table; /* text: fields are rows */
        int indent; /* text: spaces before each field */
    } level[KV_MAX_DEPTH];
} kv;

/* Start a record on out (JSON: "{"). */
void kv_begin(kv *w, FILE *out, bool json);
/* End it (JSON: "}" and a newline). */
void kv_end(kv *w);

void kv_u64(kv *w, const char *key, uint64_t v);
void kv_mpz(kv *w, const char *key, const mpz_t v);
void kv_str(kv *w, const char *key, const char *s);
/* Counts with more than KV_EXACT_DIGITS digits print in text as "3.8e+5294567 (about; 5294568
 * digits with --exact)" unless w->exact. JSON gives "key": the exact number (null when it has
 * more digits and w->exact is false) and "key_approx": the value as a string "3.8e+5294567"
 * (two significant digits). */
#define KV_EXACT_DIGITS 60
void kv_count(kv *w, const char *key, const mpz_t v);
/* A count known only by its decimal logarithm (its exact value was not computed): text as
 * kv_count's approximation, JSON "key": null and "key_approx". */
void kv_count_log10(kv *w, const char *key, double log10_value);
/* A field without a value: JSON null; text shows `text` (such as "unknown (why)"). */
void kv_none(kv *w, const char *key, const char *text);
/* A field only JSON carries (text says it otherwise, as "shape: tree" says forest: true). */
void kv_json_bool(kv *w, const char *key, bool v);

/* A list of records (JSON: "key": [ ... ]; text: nothing, the items say it). */
void kv_list_begin(kv *w, const char *key);
void kv_list_end(kv *w);
/* An item of the list, named by a field (JSON: {"key": v, ...}; text: "key=v:" and its fields
 * indented below). */
void kv_item_begin(kv *w, const char *key, uint64_t v);
void kv_item_end(kv *w);
/* A nested object (JSON: "key": {...}; text: "key:" and its fields indented below). */
void kv_object_begin(kv *w, const char *key, bool table);
void kv_object_end(kv *w);

#endif /* HITFAM_CLI_KV_H */
