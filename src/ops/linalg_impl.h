/* What the matrix-product files of src/ops share (linalg.c, linalg_add.c); defined in
 * linalg_add.c. Layering: ops. */
#ifndef CT_OPS_LINALG_IMPL_H
#define CT_OPS_LINALG_IMPL_H

#include <stdbool.h>

#include "ctensor/scalar.h"
#include "ctensor/tensor.h"

/* Whether a beta (or alpha) scalar is zero of its kind: with beta == 0 the input's values
 * are ignored, NaN and inf included, as in PyTorch. */
bool ct_linalg_impl_scalar_is_zero(ct_scalar s);

/* An out= tensor must be on r's device: CT_ERR_RUNTIME "Expected out tensor to have device
 * cpu, but got meta instead" otherwise. */
ct_status ct_linalg_impl_check_out_device(const ct_tensor *out, const ct_tensor *r);

/* PyTorch's resize_output then copy_: out resized to r's shape when it differs (with the
 * deprecation warning when out had elements), then r copied in (not on meta). On error out
 * may be resized: callers that promise otherwise save and restore its geometry. */
ct_status ct_linalg_impl_resize_copy(ct_tensor *out, const ct_tensor *r);

#endif /* CT_OPS_LINALG_IMPL_H */
