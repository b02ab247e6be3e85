/* ctensor: version numbers. */
#ifndef CTENSOR_VERSION_H
#define CTENSOR_VERSION_H

#include "ctensor/export.h"

#define CT_VERSION_MAJOR 0
#define CT_VERSION_MINOR 1
#define CT_VERSION_PATCH 0
/** major*10000 + minor*100 + patch, comparable as an integer. */
#define CT_VERSION_NUMBER (CT_VERSION_MAJOR * 10000 + CT_VERSION_MINOR * 100 + CT_VERSION_PATCH)

CT_EXTERN_C_BEGIN

/** The CT_VERSION_NUMBER the library was built with (compare with the header's to catch
 *  a program running against a different library than it was compiled for). */
CT_API int ct_version_number(void);

/** The version as a static string such as "0.1.0". Never NULL. */
CT_API const char *ct_version_string(void);

CT_EXTERN_C_END

#endif /* CTENSOR_VERSION_H */
