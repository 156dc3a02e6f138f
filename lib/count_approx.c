/* The decimal logarithm of the number of linear extensions, without the big number: for forests
 * and in-forests from the hook-length formula in double arithmetic. */
#include <math.h>

#include "count_i.h"
#include "hitfam/count.h"
#include "poset_i.h"

hf_status hf_count_linear_extensions_log10(const hf_poset *p, double *out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!p || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (hf_i_forest_like(p)) {
        /* n! / prod(subtree sizes): log10 n! by lgamma, then one logarithm per event (sizes
         * repeat, so each distinct size's logarithm is weighted by how often it occurs) */
        double l = lgamma((double)p->n + 1.0) / log(10.0);
        uint32_t *times = hf_i_calloc(p->ctx, (size_t)p->n + 1, sizeof *times);
        if (!times)
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory counting linear extensions");
        for (uint32_t v = 0; v < p->n; v++)
            times[p->subtree[v]]++;
        double sum = 0;
        for (uint32_t k = 2; k <= p->n; k++)
            if (times[k])
                sum += (double)times[k] * log10((double)k);
        hf_i_free(p->ctx, times);
        *out = l - sum > 0 ? l - sum : 0;
        return HF_OK;
    }
    mpz_t c;
    mpz_init(c);
    hf_status st = hf_count_linear_extensions(p, c, err);
    if (st == HF_OK) {
        long exp2;
        double d = mpz_get_d_2exp(&exp2, c);
        *out = log10(d) + (double)exp2 * log10(2.0);
    }
    mpz_clear(c);
    return st;
}
