/* Embedding libhitfam the way another testing tool would: read a recorded order from DOT, build a
 * d-hitting family in memory, check it, and print the schedules to run. Uses hitfam.h only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>

/* Every shape flag that holds, so that an antichain prints as all of them. */
static void print_shape(unsigned shape)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {
        {HF_SHAPE_TREE, "tree"},           {HF_SHAPE_FOREST, "forest"},
        {HF_SHAPE_INFOREST, "in-forest"},  {HF_SHAPE_CHAIN, "chain"},
        {HF_SHAPE_ANTICHAIN, "antichain"},
    };
    const char *sep = "";
    printf("shape:");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (shape & names[i].flag) {
            printf("%s %s", sep, names[i].name);
            sep = ",";
        }
    }
    printf("%s\n", *sep ? "" : " general order");
}

/* Reports the library's message when there is one; the status text otherwise. */
static int fail(const char *what, hf_status st, const hf_error *err)
{
    fprintf(stderr, "embed: %s: %s", what, hf_strerror(st));
    if (err && err->text[0]) {
        if (err->line > 0)
            fprintf(stderr, " (line %d)", err->line);
        fprintf(stderr, ": %s", err->text);
    }
    fputc('\n', stderr);
    return 2;
}

static int print_family(const hf_poset *p, const hf_family *f)
{
    uint32_t n = hf_family_events(f);
    for (size_t k = 0; k < hf_family_size(f); k++) {
        const uint32_t *s = hf_family_schedule(f, k);
        printf("%4zu:", k + 1);
        for (uint32_t i = 0; i < n; i++) {
            putchar(' ');
            /* hf_name_write quotes names the way the family format does, so this output can be
             * pasted into a family file and read back by `hitfam verify`. */
            if (hf_name_write(stdout, hf_poset_name(p, s[i])) != HF_OK)
                return 2;
        }
        putchar('\n');
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s POSET.dot D\n", argv[0]);
        return 2;
    }
    char *end = NULL;
    long d = strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || d < 1 || d > (long)HF_MAX_D) {
        fprintf(stderr, "embed: D must be 1..%u, not '%s'\n", HF_MAX_D, argv[2]);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 2;
    }

    /* A tool that wants its own allocator or progress log would pass them here. */
    hf_ctx *ctx = NULL;
    hf_poset *p = NULL;
    hf_family *fam = NULL;
    hf_error err = {0};
    int rc = 2;
    hf_status st = hf_ctx_new(NULL, NULL, NULL, &ctx);
    if (st != HF_OK) {
        rc = fail("context", st, NULL);
        goto out;
    }
    st = hf_dot_read_file(ctx, in, &p, &err);
    if (st != HF_OK) {
        rc = fail(argv[1], st, &err);
        goto out;
    }

    printf("hitfam %s (headers %s)\n", hf_version_string(), HF_VERSION_STRING);
    printf("events: %u\nheight: %u\n", hf_poset_size(p), hf_poset_height(p));
    print_shape(hf_poset_shape(p));

    hf_gen_options opt;
    hf_gen_options_init(&opt);
    opt.d = (unsigned)d;
    opt.method = HF_METHOD_AUTO;
    st = hf_family_new(ctx, hf_poset_size(p), &fam);
    if (st != HF_OK) {
        rc = fail("family", st, NULL);
        goto out;
    }
    hf_method used = HF_METHOD_AUTO;
    st = hf_generate(p, &opt, hf_family_sink(fam), &used, &err);
    if (st != HF_OK) {
        rc = fail("generate", st, &err);
        goto out;
    }
    printf("d=%ld method=%s schedules=%zu\n", d, hf_method_name(used), hf_family_size(fam));

    /* Checking what was generated costs little next to running the schedules, and a tool that
     * loads families from disk must do it anyway. */
    hf_verify_options vopt = {.d = (unsigned)d, .focus = NULL, .focus_count = 0};
    hf_verify_result res;
    st = hf_verify(p, fam, &vopt, &res, &err);
    if (st != HF_OK) {
        rc = fail("verify", st, &err);
        goto out;
    }
    if (print_family(p, fam) != 0) {
        rc = fail("stdout", HF_EIO, NULL);
        goto out;
    }
    if (res.hitting) {
        printf("verified: %u-hitting\n", res.d);
        rc = 0;
    } else {
        printf("NOT %u-hitting; first uncovered tuple:", res.d);
        rc = 1;
        for (unsigned i = 0; i < res.d && rc == 1; i++) {
            putchar(' ');
            if ((st = hf_name_write(stdout, hf_poset_name(p, res.witness[i]))) != HF_OK)
                rc = fail("stdout", st, NULL);
        }
        putchar('\n');
    }

out:
    hf_family_free(fam);
    hf_poset_free(p);
    hf_ctx_free(ctx);
    fclose(in);
    if (fflush(stdout) != 0)
        rc = 2;
    return rc;
}
