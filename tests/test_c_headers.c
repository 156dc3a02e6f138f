/* The public headers in C. Each compiles alone as the first include of a translation unit
 * (tests/header_alone.c.in, one unit per header, linked here). And a header that includes GMP
 * includes <stdio.h> before it: GMP declares its functions on FILE (gmp_fprintf, mpz_out_str)
 * only when stdio.h came first, so a user who includes <hitfam/count.h> before <stdio.h> still
 * has them. Built with -Werror=implicit-function-declaration, this file does not compile when a
 * header includes GMP first. */
#include <hitfam/count.h>
#include <hitfam/enum.h>
#include <hitfam/probability.h>
#include <stdio.h>

/* PUBLIC_HEADERS(H): H(name) for each public header (tests/meson.build) */
#define DECLARE(h) int header_alone_##h(void);
PUBLIC_HEADERS(DECLARE)

int main(void)
{
    int failed = 0;
#define CALL(h) failed |= header_alone_##h();
    PUBLIC_HEADERS(CALL)
    mpz_t z;
    mpz_init_set_ui(z, 42);
    char buf[8];
    FILE *f = fopen("/dev/null", "w");
    if (!f)
        return 1;
    /* both write 42 */
    int written = gmp_fprintf(f, "%Zd", z);
    size_t out = mpz_out_str(f, 10, z);
    fclose(f);
    gmp_snprintf(buf, sizeof buf, "%Zd", z);
    mpz_clear(z);
    if (written != 2 || out != 2 || buf[0] != '4' || buf[1] != '2' || buf[2] != '\0') {
        fprintf(stderr, "GMP's FILE functions wrote %d and %zu bytes, \"%s\"\n", written, out, buf);
        return 1;
    }
    return failed;
}
