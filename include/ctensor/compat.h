/* ctensor: compatibility modes.
 *
 * ctensor follows PyTorch's newest documented behaviour by default. OneFlow documents the
 * same tensor attributes with a few differences; CT_COMPAT_ONEFLOW switches to those.
 * The mode is one process-wide setting read by the layers that differ:
 *  - devices (device.h): a device built from a string or a type name without an index gets
 *    a concrete one (cpu -> 0, an accelerator -> its current device), repr and str always
 *    show the index (`device(type='cpu', index=0)`, `cpu:0`), and a bare ordinal means
 *    CUDA (OneFlow's legacy rule) instead of the current accelerator.
 *  - arithmetic (ops.h): a zero-dim tensor promotes like a dimensioned one, so an int32
 *    tensor plus an int64 zero-dim tensor is int64 (Python numbers still count only by
 *    category); an in-place operation (`t += u`, add_, mul_, ...) requires the computation
 *    dtype to be self's dtype exactly, so float32 *= float64 and int32 *= int64 are errors
 *    ("result type oneflow.float64 can't be cast to the desired output type
 *    oneflow.float32"). `out=` keeps PyTorch's can_cast rule.
 */
#ifndef CTENSOR_COMPAT_H
#define CTENSOR_COMPAT_H

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

typedef enum ct_compat_mode {
    CT_COMPAT_PYTORCH = 0, /**< PyTorch's newest behaviour (the default) */
    CT_COMPAT_ONEFLOW = 1, /**< OneFlow's documented differences */
} ct_compat_mode;

/** The current compatibility mode (CT_COMPAT_PYTORCH at start). */
CT_API ct_compat_mode ct_get_compat_mode(void);

/** Change the compatibility mode. Process-wide: set it before other threads use the
 *  library (a concurrent change is not a data race, but threads may see either mode).
 *  Values already built (devices, tensors) keep what they are; only later calls see the
 *  new mode. Errors: CT_ERR_MISUSE for a value that is not a ct_compat_mode. */
CT_API ct_status ct_set_compat_mode(ct_compat_mode mode);

CT_EXTERN_C_END

#endif /* CTENSOR_COMPAT_H */
