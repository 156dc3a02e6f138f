/* The lattice of down-sets of lib/probability_i.h: built breadth first over the shared table
 * of down-sets (lib/downsets.h), then path counts and weights over its steps. */
#include <string.h>

#include "probability_i.h"

/* Memory bounds of the lattice besides max_ideals: the down-sets' bitsets (128 MiB) and the
 * steps between them (12 bytes each, 192 MiB). Past them the value is estimated. */
#define MAX_KEY_WORDS ((size_t)1 << 24)
#define MAX_STEPS     ((size_t)1 << 24)
/* Listing the down-sets tests every event against each: at most this many tests. */
#define MAX_BUILD_TESTS ((uint64_t)1 << 27)

void hf_i_lattice_free(hf_i_lattice *L)
{
    hf_ctx *ctx = L->ctx;
    if (L->num) { /* one value per down-set: before the table is emptied */
        for (size_t i = 0; i < L->sets.count; i++)
            mpz_clear(L->num[i]);
        hf_i_free(ctx, L->num);
    }
    hf_i_downsets_clear(ctx, &L->sets);
    hf_i_free(ctx, L->toff);
    hf_i_free(ctx, L->tx);
    hf_i_free(ctx, L->tto);
    mpz_clear(L->mult);
    mpz_clear(L->tmp);
}

/* Every down-set (at most `limit`, else HF_ETOOLARGE) and every step between them. */
hf_status hf_i_lattice_build(hf_i_lattice *L, const hf_poset *p, uint64_t limit)
{
    memset(L, 0, sizeof *L);
    mpz_init(L->mult);
    mpz_init(L->tmp);
    L->ctx = p->ctx;
    L->p = p;
    L->n = p->n;
    hf_i_downsets_init(&L->sets, hf_i_words(p->n), 0);
    size_t W = L->sets.words;
    hf_word *probe = hf_i_calloc(L->ctx, W, sizeof *probe);
    if (!probe)
        return HF_ENOMEM;
    /* the down-sets that fit in `limit`, MAX_KEY_WORDS and MAX_BUILD_TESTS */
    size_t room = limit < SIZE_MAX ? (size_t)limit : SIZE_MAX;
    if (room > MAX_KEY_WORDS / W)
        room = MAX_KEY_WORDS / W;
    if (L->n && room > MAX_BUILD_TESTS / L->n)
        room = (size_t)(MAX_BUILD_TESTS / L->n);
    size_t at;
    bool fresh;
    hf_status st = hf_i_downsets_add(L->ctx, &L->sets, probe, &room, &at, &fresh);
    if (!st && !(L->toff = hf_i_alloc_array(L->ctx, 64, sizeof *L->toff)))
        st = HF_ENOMEM;
    size_t toff_cap = 64;
    for (size_t k = 0; k < L->sets.count && !st; k++) {
        if (k + 2 > toff_cap) {
            size_t cap = 2 * toff_cap;
            size_t *t = hf_i_realloc_array(L->ctx, L->toff, cap, sizeof *t);
            if (!t) {
                st = HF_ENOMEM;
                break;
            }
            L->toff = t;
            toff_cap = cap;
        }
        L->toff[k] = L->steps;
        for (uint32_t x = 0; x < L->n && !st; x++) {
            if (!hf_i_downsets_minimal_outside(p, hf_i_downsets_key(&L->sets, k), x))
                continue;
            memcpy(probe, hf_i_downsets_key(&L->sets, k), W * sizeof *probe);
            hf_i_bit_set(probe, x);
            if ((st = hf_i_downsets_add(L->ctx, &L->sets, probe, &room, &at, &fresh)))
                break;
            if (L->steps == MAX_STEPS) {
                st = HF_ETOOLARGE;
                break;
            }
            if (L->steps == L->steps_cap) {
                size_t cap = L->steps_cap ? 2 * L->steps_cap : 256;
                uint32_t *tx = hf_i_realloc_array(L->ctx, L->tx, cap, sizeof *tx);
                if (tx)
                    L->tx = tx;
                size_t *tto = tx ? hf_i_realloc_array(L->ctx, L->tto, cap, sizeof *tto) : NULL;
                if (!tto) {
                    st = HF_ENOMEM;
                    break;
                }
                L->tto = tto;
                L->steps_cap = cap;
            }
            L->tx[L->steps] = x;
            L->tto[L->steps++] = at;
        }
    }
    if (!st)
        L->toff[L->sets.count] = L->steps;
    if (!st && !(L->num = hf_i_alloc_array(L->ctx, L->sets.count, sizeof *L->num)))
        st = HF_ENOMEM;
    if (!st) {
        for (size_t k = 0; k < L->sets.count; k++)
            mpz_init(L->num[k]);
        /* rw's common multiplier: lcm of the numbers of enabled events */
        mpz_set_ui(L->mult, 1);
        for (size_t k = 0; k < L->sets.count; k++)
            if (L->toff[k + 1] > L->toff[k])
                mpz_lcm_ui(L->mult, L->mult, (unsigned long)(L->toff[k + 1] - L->toff[k]));
    }
    hf_i_free(L->ctx, probe);
    return st;
}

/* The weight of the paths from the empty down-set to the whole order through down-sets that
 * contain a_j whenever they contain a_{j+1} (every down-set when d is 0): path counts (random),
 * or path probabilities times M^n (rw). Into L->num[count - 1]. */
void hf_i_lattice_paths(hf_i_lattice *L, bool rw, const uint32_t *tuple, unsigned d)
{
    for (size_t k = 0; k < L->sets.count; k++)
        mpz_set_ui(L->num[k], 0);
    mpz_set_ui(L->num[0], 1);
    for (size_t k = 0; k < L->sets.count; k++) {
        if (!mpz_sgn(L->num[k]) || L->toff[k] == L->toff[k + 1])
            continue;
        const hf_word *key = hf_i_downsets_key(&L->sets, k);
        if (rw) {
            mpz_mul(L->tmp, L->num[k], L->mult);
            mpz_divexact_ui(L->tmp, L->tmp, (unsigned long)(L->toff[k + 1] - L->toff[k]));
        }
        for (size_t s = L->toff[k]; s < L->toff[k + 1]; s++) {
            uint32_t x = L->tx[s];
            bool ok = true;
            for (unsigned j = 1; j < d && ok; j++)
                ok = tuple[j] != x || hf_i_bit_test(key, tuple[j - 1]);
            if (ok)
                mpz_add(L->num[L->tto[s]], L->num[L->tto[s]], rw ? L->tmp : L->num[k]);
        }
    }
}

/* The exact probability of `tuple` into q; `all` holds the denominator: e(P) (random) or M^n. */
void hf_i_lattice_prob(hf_i_lattice *L, bool rw, const uint32_t *tuple, unsigned d, const mpz_t all,
                       mpq_t q)
{
    hf_i_lattice_paths(L, rw, tuple, d);
    mpq_set_num(q, L->num[L->sets.count - 1]);
    mpq_set_den(q, all);
    mpq_canonicalize(q);
}
