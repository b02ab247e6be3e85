#include <ctensor/ctensor.h>
#include <stdio.h>

int main(void) {
    ct_dtype d;
    if (ct_promote_types(CT_INT64, CT_FLOAT16, &d) != CT_OK || d != CT_FLOAT16)
        return 1;
    if (ct_version_number() != CT_VERSION_NUMBER)
        return 2;
    printf("consumer ok: %s\n", ct_dtype_name(d));
    return 0;
}
