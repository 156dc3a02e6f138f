/* Replays fuzz inputs without libFuzzer: runs LLVMFuzzerTestOneInput on every file named on the
 * command line or found in the named directories, so a corpus runs as an ordinary test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len, in);
        if (len < cap)
            break;
        uint8_t *grown = realloc(buf, cap * 2);
        if (grown == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int bad = buf == NULL || ferror(in);
    fclose(in);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return 1;
    }
    /* An exact-size copy, so that ASan catches a read one past the input as libFuzzer would. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory in name order, so that runs are reproducible. */
static int run_dir(const char *dir, unsigned long *passed, unsigned long *failed)
{
    DIR *dh = opendir(dir);
    if (dh == NULL)
        return 1;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **grown = realloc(names, ncap * sizeof *names);
            if (grown == NULL)
                break;
            names = grown;
            cap = ncap;
        }
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        names[count] = malloc(need);
        if (names[count] == NULL)
            break;
        snprintf(names[count], need, "%s/%s", dir, e->d_name);
        count++;
    }
    closedir(dh);
    if (count > 0)
        qsort(names, count, sizeof *names, cmp_names);
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) == 0)
                (*passed)++;
            else
                (*failed)++;
        }
        free(names[i]);
    }
    free(names);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long passed = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot stat %s\n", argv[i]);
            failed++;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &passed, &failed) != 0) {
                fprintf(stderr, "replay: cannot list %s\n", argv[i]);
                failed++;
            }
        } else if (run_file(argv[i]) == 0) {
            passed++;
        } else {
            failed++;
        }
    }
    printf("%lu passed, %lu failed\n", passed, failed);
    if (passed == 0)
        fprintf(stderr, "replay: no input ran (an empty or missing corpus tests nothing)\n");
    return failed || passed == 0 ? 1 : 0;
}
