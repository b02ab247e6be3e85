/* ctensor: warnings.
 *
 * The library never prints. Where PyTorch emits a UserWarning (an `out=` tensor with elements
 * resized by an operation, ...) ctensor calls the warning handler of the calling thread's
 * process; without one the warning is dropped. The Python module installs a handler that
 * raises Python's UserWarning. */
#ifndef CTENSOR_WARNING_H
#define CTENSOR_WARNING_H

#include "ctensor/export.h"

CT_EXTERN_C_BEGIN

/** A warning handler: `message` is valid only during the call. It runs on the thread that
 *  raised the warning, which may hold no interpreter lock or other context of the caller. */
typedef void (*ct_warning_handler)(void *ctx, const char *message);

/** Install `handler` (NULL removes it) for the whole process; returns nothing. Not
 *  synchronised with warnings being raised: install it at start-up. */
CT_API void ct_set_warning_handler(ct_warning_handler handler, void *ctx);

/** Raise a warning (printf-style) through the installed handler; a no-op without one. */
CT_API void ct_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

CT_EXTERN_C_END

#endif /* CTENSOR_WARNING_H */
