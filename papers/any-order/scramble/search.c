/* Search for the block families of method scramble (lib/gen_scramble.h): 2r rows of s events,
 * each cut in two halves, upper group rows 0..r-1 and lower group r..2r-1, such that the rows hit
 * every ordered triple of distinct events and each group separates every ordered pair (a row
 * with a before the cut and b after it).
 *
 *   cc -O2 -o search search.c -lm
 *   ./search S R ITERATIONS SEEDS > rows.txt
 *
 * Simulated annealing on the number of ordered triples no row hits plus 3 times the number of
 * ordered pairs a group does not separate; a move changes one row (its cut, a swap, or moving
 * one event). Counts are kept per triple and per pair, so a move costs O(s^3) for the row it
 * changes. Prints the rows as "CUT: e_1 ... e_s" on success (exit 0), progress on stderr.
 * Deterministic per seed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXS 128
#define MAXR 16

static int s, r;
static int perm[2 * MAXR][MAXS], cut[2 * MAXR];
static unsigned short *tri;                  /* s^3 hit counts */
static unsigned short sep[2][MAXS * MAXS];   /* per group: pair separation counts */
static long bad;
static unsigned long long state;

static unsigned long long next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* add (sign > 0) or remove row j's contribution */
static void apply(int j, int sign)
{
    const int *p = perm[j];
    for (int i = 0; i < s; i++)
        for (int k = i + 1; k < s; k++)
            for (int l = k + 1; l < s; l++) {
                unsigned short *t = &tri[(p[i] * s + p[k]) * s + p[l]];
                if (sign > 0)
                    bad -= (*t)++ == 0;
                else
                    bad += --(*t) == 0;
            }
    int g = j < r ? 0 : 1;
    for (int i = 0; i < cut[j]; i++)
        for (int k = cut[j]; k < s; k++) {
            unsigned short *t = &sep[g][p[i] * s + p[k]];
            if (sign > 0)
                bad -= 3 * ((*t)++ == 0);
            else
                bad += 3 * (--(*t) == 0);
        }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: search S R ITERATIONS SEEDS\n");
        return 2;
    }
    s = atoi(argv[1]);
    r = atoi(argv[2]);
    long iters = atol(argv[3]);
    int seeds = atoi(argv[4]);
    if (s < 2 || s > MAXS || r < 1 || r > MAXR || s > 255) {
        fprintf(stderr, "search: 2 <= S <= 128, 1 <= R <= 16\n");
        return 2;
    }
    int rows = 2 * r;
    tri = calloc((size_t)s * s * s, sizeof *tri);
    if (!tri)
        return 2;
    for (int seed = 0; seed < seeds; seed++) {
        state = 88172645463325252ULL + (unsigned long long)seed * 7919;
        memset(tri, 0, (size_t)s * s * s * sizeof *tri);
        memset(sep, 0, sizeof sep);
        bad = (long)s * (s - 1) * (s - 2) + 2L * 3 * s * (s - 1);
        for (int j = 0; j < rows; j++) {
            for (int i = 0; i < s; i++)
                perm[j][i] = i;
            for (int i = s - 1; i > 0; i--) {
                int k = (int)(next() % (unsigned)(i + 1)), t = perm[j][i];
                perm[j][i] = perm[j][k];
                perm[j][k] = t;
            }
            cut[j] = s / 2;
            apply(j, 1);
        }
        double temp = 3.0;
        long best = bad;
        for (long it = 0; it < iters && bad > 0; it++) {
            int j = (int)(next() % (unsigned)rows), save[MAXS], save_cut = cut[j];
            memcpy(save, perm[j], sizeof save);
            long before = bad;
            apply(j, -1);
            unsigned move = (unsigned)(next() % 10);
            if (move < 2) {
                cut[j] = 1 + (int)(next() % (unsigned)(s - 1));
            } else {
                int i = (int)(next() % (unsigned)s), k = (int)(next() % (unsigned)s);
                if (move < 6) {
                    int t = perm[j][i];
                    perm[j][i] = perm[j][k];
                    perm[j][k] = t;
                } else {
                    int x = perm[j][i];
                    if (i < k)
                        memmove(&perm[j][i], &perm[j][i + 1], (size_t)(k - i) * sizeof(int));
                    else
                        memmove(&perm[j][k + 1], &perm[j][k], (size_t)(i - k) * sizeof(int));
                    perm[j][k] = x;
                }
            }
            apply(j, 1);
            long delta = bad - before;
            if (delta > 0 && (double)(next() % 1000000) / 1e6 >= exp(-(double)delta / temp)) {
                apply(j, -1);
                memcpy(perm[j], save, sizeof save);
                cut[j] = save_cut;
                apply(j, 1);
            }
            if (bad < best)
                best = bad;
            temp = temp * 0.99999 < 0.1 ? 0.1 : temp * 0.99999;
        }
        fprintf(stderr, "seed %d: %ld left (best %ld)\n", seed, bad, best);
        if (bad == 0) {
            for (int j = 0; j < rows; j++) {
                printf("%d:", cut[j]);
                for (int i = 0; i < s; i++)
                    printf(" %d", perm[j][i]);
                printf("\n");
            }
            free(tri);
            return 0;
        }
    }
    free(tri);
    return 1;
}
