/* Chi-square tests for the sampler suites: the upper tail of the chi-square law, a goodness-of-fit
 * test against exact probabilities and a two-sample test, each pooling the sparse classes. */
#ifndef HITFAM_TESTS_CHISQ_H
#define HITFAM_TESTS_CHISQ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Q(a, x) = Gamma(a, x) / Gamma(a), the regularised upper incomplete gamma function: the series
 * of P below x < a + 1, a continued fraction (modified Lentz) above. */
static inline double tu_gamma_q(double a, double x)
{
    if (x <= 0)
        return 1;
    double lead = exp(-x + a * log(x) - lgamma(a));
    if (x < a + 1) {
        double term = 1 / a, sum = term, ap = a;
        for (int i = 0; i < 100000 && term > sum * 1e-16; i++) {
            ap += 1;
            term *= x / ap;
            sum += term;
        }
        return 1 - sum * lead;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return lead * h;
}

/* P(X >= chi) for X chi-square with df degrees of freedom (1.0 when df is 0). */
static inline double tu_chisq_p(double chi, size_t df)
{
    return df == 0 ? 1.0 : tu_gamma_q((double)df / 2, chi / 2);
}

/* Goodness of fit of counts[k] (total draws) to probabilities prob[k] (summing to 1): classes
 * expected fewer than 5 times are pooled into one. Returns the p-value; *chi_out and *df_out
 * (may be NULL) receive the statistic and its degrees of freedom. */
static inline double tu_chisq_fit(const uint64_t *counts, const double *prob, size_t k,
                                  uint64_t draws, double *chi_out, size_t *df_out)
{
    double chi = 0, pooled_e = 0, pooled_o = 0;
    size_t classes = 0;
    for (size_t i = 0; i < k; i++) {
        double e = prob[i] * (double)draws;
        if (e < 5) {
            pooled_e += e;
            pooled_o += (double)counts[i];
            continue;
        }
        chi += ((double)counts[i] - e) * ((double)counts[i] - e) / e;
        classes++;
    }
    if (pooled_e > 0 || pooled_o > 0) {
        /* a class the law gives (almost) no mass: any draw in it is a failure */
        double e = pooled_e > 1e-9 ? pooled_e : 1e-9;
        chi += (pooled_o - e) * (pooled_o - e) / e;
        classes++;
    }
    size_t df = classes ? classes - 1 : 0;
    if (chi_out)
        *chi_out = chi;
    if (df_out)
        *df_out = df;
    return tu_chisq_p(chi, df);
}

/* Two samples of equal size, counts a[k] and b[k]: are they drawn from one law? Classes with
 * fewer than 10 draws in both together are pooled. Returns the p-value. */
static inline double tu_chisq_two(const uint64_t *a, const uint64_t *b, size_t k, double *chi_out,
                                  size_t *df_out)
{
    double chi = 0, pa = 0, pb = 0;
    size_t classes = 0;
    for (size_t i = 0; i < k; i++) {
        double x = (double)a[i], y = (double)b[i];
        if (x + y < 10) {
            pa += x;
            pb += y;
            continue;
        }
        chi += (x - y) * (x - y) / (x + y);
        classes++;
    }
    if (pa + pb > 0) {
        chi += (pa - pb) * (pa - pb) / (pa + pb);
        classes++;
    }
    size_t df = classes ? classes - 1 : 0;
    if (chi_out)
        *chi_out = chi;
    if (df_out)
        *df_out = df;
    return tu_chisq_p(chi, df);
}

#endif
