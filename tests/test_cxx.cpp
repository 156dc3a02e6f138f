// The public headers compile as C++ and their declarations have C linkage.
#include <hitfam/count.h>
#include <hitfam/enum.h>
#include <hitfam/hitfam.h>
#include <hitfam/online.h>
#include <hitfam/online_inline.h>
#include <hitfam/order.h>
#include <hitfam/probability.h>

int main()
{
    hf_gen_options opt;
    hf_gen_options_init(&opt);
    const char *v = hf_version_string();
    return (v != nullptr && opt.d == 2) ? 0 : 1;
}
