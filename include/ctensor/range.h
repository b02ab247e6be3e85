/* ctensor: value-filled factories (PyTorch's linspace, logspace, eye).
 *
 * Conventions as the creation functions of tensor.h: dtype CT_DTYPE_UNDEFINED means
 * PyTorch's default for the function, device NULL the default device, layouts other than
 * strided CT_ERR_NOT_IMPLEMENTED; every result is a NEW reference in *out (NULL on error).
 */
#ifndef CTENSOR_RANGE_H
#define CTENSOR_RANGE_H

#include <stdint.h>

#include "ctensor/device.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/layout.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.linspace(start, end, steps): 1-D, `steps` values from start to end. dtype
 *  UNDEFINED: the default complex dtype when start or end is complex, else the default
 *  dtype. Values are PyTorch 1.13's cpu kernel's, bit for bit on one thread (its AVX2
 *  vector loop: element i of the first half start + step * i, of the second half
 *  end - step * (steps - 1 - i), with its vector grouping and fused multiply-adds; integer
 *  dtypes step in double and truncate; float16/bfloat16 round every operation; complex
 *  dtypes run it per component).
 *  Errors: CT_ERR_RUNTIME "number of steps must be non-negative", "torch.linspace():
 *  inferred dtype c10::complex<float> can't be safely cast to passed dtype Float";
 *  CT_ERR_NOT_IMPLEMENTED "\"linspace_cpu\" not implemented for 'Bool'" (bool and the shell
 *  dtypes); the overflow error of converting start or end to the dtype. */
CT_API ct_status ct_tensor_linspace(ct_scalar start, ct_scalar end, int64_t steps, ct_dtype dtype,
                                    const ct_device *device, ct_layout layout, ct_tensor **out);

/** torch.logspace(start, end, steps, base): base ** linspace(start, end, steps) computed as
 *  PyTorch 1.13's cpu loop (exponents in double; integer dtypes raise a float base).
 *  dtype UNDEFINED as ct_tensor_linspace. Errors: as ct_tensor_linspace, with
 *  "logspace_cpu" and "torch.logspace()" in the messages. */
CT_API ct_status ct_tensor_logspace(ct_scalar start, ct_scalar end, int64_t steps, double base,
                                    ct_dtype dtype, const ct_device *device, ct_layout layout,
                                    ct_tensor **out);

/** torch.eye(n, m): an n x m matrix (torch.eye(n) is ct_tensor_eye(n, n, ...)) with ones on
 *  the diagonal and zeros elsewhere, for every dtype (shell dtypes included: the encoding of
 *  1). dtype UNDEFINED: the default dtype.
 *  Errors: CT_ERR_RUNTIME "n must be greater or equal to 0, got -1", "m must be greater or
 *  equal to 0, got -1"; those of ct_tensor_zeros. */
CT_API ct_status ct_tensor_eye(int64_t n, int64_t m, ct_dtype dtype, const ct_device *device,
                               ct_layout layout, ct_tensor **out);

CT_EXTERN_C_END

#endif /* CTENSOR_RANGE_H */
