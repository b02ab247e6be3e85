/* ctensor: the error model.
 *
 * Every fallible function returns a ct_status. CT_OK (0) means success; any other value
 * means failure, and the function has then left a message for the calling thread that
 * ct_last_error() returns. Results travel through out-parameters, which are set to a
 * neutral value (NULL, 0, CT_DTYPE_UNDEFINED) on failure. The library never aborts, exits
 * or prints because of bad input.
 *
 * Each error kind corresponds to the Python exception PyTorch raises for that mistake;
 * the Python module maps kinds onto exceptions one to one (see the comments below).
 * Values are appended only, never renumbered.
 */
#ifndef CTENSOR_STATUS_H
#define CTENSOR_STATUS_H

#include "ctensor/export.h"

CT_EXTERN_C_BEGIN

typedef enum ct_status {
    CT_OK = 0,
    CT_ERR_RUNTIME = 1,         /**< RuntimeError: a rule of the operation was broken. */
    CT_ERR_VALUE = 2,           /**< ValueError: an argument has a bad value. */
    CT_ERR_TYPE = 3,            /**< TypeError: an argument has the wrong type or dtype. */
    CT_ERR_INDEX = 4,           /**< IndexError: an index or dimension is out of range. */
    CT_ERR_NOT_IMPLEMENTED = 5, /**< NotImplementedError: no kernel for this dtype/device. */
    CT_ERR_NOMEM = 6,           /**< MemoryError: an allocation failed. */
    CT_ERR_MISUSE = 7,          /**< RuntimeError: the C API was called wrongly (NULL handle, ...). */
    CT_ERR_OVERFLOW = 8,        /**< RuntimeError: a size or value does not fit its type. */
} ct_status;

/** The number of ct_status values (one past the largest). */
#define CT_NUM_STATUS 9

/** The message of the calling thread's most recent error, or "" if there was none since
 *  ct_clear_error(). Borrowed: valid until the next ctensor call on this thread. */
CT_API const char *ct_last_error(void);

/** The kind of the calling thread's most recent error, or CT_OK. */
CT_API ct_status ct_last_error_kind(void);

/** Forget the calling thread's last error. */
CT_API void ct_clear_error(void);

/** A static name for a status, such as "CT_ERR_VALUE"; "CT_ERR_UNKNOWN" for values out of
 *  range. Never NULL. */
CT_API const char *ct_status_name(ct_status status);

/** Record an error for the calling thread and return `status` (so callers may write
 *  `return ct_set_error(CT_ERR_VALUE, "...")`). For backends and extensions built on
 *  ctensor that want to report through the same channel. The message is printf-formatted
 *  and truncated to 1023 bytes. */
CT_API ct_status ct_set_error(ct_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

CT_EXTERN_C_END

#endif /* CTENSOR_STATUS_H */
