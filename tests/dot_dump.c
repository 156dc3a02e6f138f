/* Test helper for tests/dot_gvpr.py: reads each DOT file with hitfam's reader and prints what it
 * read in a byte-exact form, so that it can be compared with what Graphviz's gvpr reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>

/* --ids: read names from stdin as "<len> <bytes>\n" records; print "R" and the indices of the
 * names hf_dot_write_name refuses, then a DOT digraph with one node statement per other name. */
static int write_ids(void)
{
    char *name = NULL;
    size_t cap = 0, count = 0, refused_cap = 0, nref = 0;
    size_t *refused = NULL;
    char *dot = NULL;
    size_t dot_len = 0;
    FILE *out = open_memstream(&dot, &dot_len);
    if (!out)
        return 2;
    fputs("digraph {\n", out);
    size_t len;
    while (scanf("%zu", &len) == 1 && getchar() == ' ') {
        if (len + 1 > cap && !(name = realloc(name, cap = len + 1)))
            return 2;
        if (fread(name, 1, len, stdin) != len || getchar() != '\n')
            return 2;
        name[len] = '\0';
        long at = ftell(out);
        hf_status st = hf_dot_write_name(out, name);
        if (st == HF_EUNSUPPORTED && ftell(out) == at) {
            if (nref == refused_cap &&
                !(refused =
                      realloc(refused, (refused_cap = 2 * refused_cap + 8) * sizeof *refused)))
                return 2;
            refused[nref++] = count;
        } else if (st) {
            return 2;
        } else {
            fputs(";\n", out);
        }
        count++;
    }
    fputs("}\n", out);
    fclose(out);
    printf("R");
    for (size_t i = 0; i < nref; i++)
        printf(" %zu", refused[i]);
    printf("\n");
    fwrite(dot, 1, dot_len, stdout);
    free(dot);
    free(name);
    free(refused);
    return fflush(stdout) == 0 ? 0 : 2;
}

/* For each FILE: "F <len> <path>\n", then "X <status>\n" if hitfam refuses it, else one
 * "N <len> <name>\n" per event in id order and one "E <i> <j>\n" per Hasse edge. */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--ids") == 0)
        return write_ids();
    for (int a = 1; a < argc; a++) {
        printf("F %zu %s\n", strlen(argv[a]), argv[a]);
        FILE *in = fopen(argv[a], "rb");
        if (!in) {
            fprintf(stderr, "dot_dump: cannot open %s\n", argv[a]);
            return 2;
        }
        hf_poset *p = NULL;
        hf_error err;
        hf_status st = hf_dot_read_file(NULL, in, &p, &err);
        fclose(in);
        if (st) {
            printf("X %d\n", (int)st);
            continue;
        }
        uint32_t n = hf_poset_size(p);
        for (uint32_t v = 0; v < n; v++) {
            const char *name = hf_poset_name(p, v);
            printf("N %zu ", strlen(name));
            fwrite(name, 1, strlen(name), stdout);
            putchar('\n');
        }
        for (uint32_t v = 0; v < n; v++) {
            uint32_t k;
            const uint32_t *succ = hf_poset_hasse_succ(p, v, &k);
            for (uint32_t i = 0; i < k; i++)
                printf("E %u %u\n", v, succ[i]);
        }
        hf_poset_free(p);
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
