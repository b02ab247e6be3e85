#include "ctensor/version.h"

#define CT_STR2(x) #x
#define CT_STR(x) CT_STR2(x)

int ct_version_number(void) { return CT_VERSION_NUMBER; }

const char *ct_version_string(void) {
    return CT_STR(CT_VERSION_MAJOR) "." CT_STR(CT_VERSION_MINOR) "." CT_STR(CT_VERSION_PATCH);
}
