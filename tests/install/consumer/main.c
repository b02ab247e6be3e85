#include <ctensor/ctensor.h>
#include <stdio.h>

int main(void) {
    ct_dtype d;
    if (ct_promote_types(CT_INT64, CT_FLOAT16, &d) != CT_OK || d != CT_FLOAT16)
        return 1;
    if (ct_version_number() != CT_VERSION_NUMBER)
        return 2;
    /* pulls in the OpenMP runtime: a static consumer must link it (Libs.private) */
    if (ct_set_num_threads(2) != CT_OK || ct_get_num_threads() != 2)
        return 3;
    printf("consumer ok: %s\n", ct_dtype_name(d));
    return 0;
}
