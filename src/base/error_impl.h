/* Internal helpers of the error model. */
#ifndef CT_BASE_ERROR_IMPL_H
#define CT_BASE_ERROR_IMPL_H

#include "ctensor/status.h"

/* Record an error and jump to the function's `fail:` label when `cond` is false. */
#define CT_CHECK(cond, status_, ...)                  \
    do {                                              \
        if (!(cond)) {                                \
            st = ct_set_error((status_), __VA_ARGS__); \
            goto fail;                                \
        }                                             \
    } while (0)

/* Return the status of a call when it failed (its message is already set). */
#define CT_TRY(call)                   \
    do {                               \
        ct_status ct_try_st_ = (call); \
        if (ct_try_st_ != CT_OK)       \
            return ct_try_st_;         \
    } while (0)

#endif /* CT_BASE_ERROR_IMPL_H */
