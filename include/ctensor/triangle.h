/* ctensor: the triangles of matrices (PyTorch's tril, triu, their out= and in-place forms).
 *
 * They copy without reading values, so every dtype works (the shell dtypes included); the
 * elements outside the triangle become all-zero bytes, as zero_ writes them. cpu and meta
 * (shapes only); on other devices (cuda) they run on the cpu through host memory (tensors
 * copied to the host and the results back: correct, not fast). Ownership as in tensor.h: new references; on failure *out is NULL and
 * nothing is left allocated; a NULL tensor is CT_ERR_MISUSE.
 */
#ifndef CTENSOR_TRIANGLE_H
#define CTENSOR_TRIANGLE_H

#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.tril(t, diagonal) / torch.triu: the lower (upper) triangle of the last two dims,
 *  the other elements zero (all-zero bytes, as zero_). Contiguous result of t's dtype. New
 *  reference.
 *  Errors: CT_ERR_INDEX "Dimension out of range (expected to be in range of [-1,
 *  0], but got -2)" for 1-D, "Dimension specified as -2 but tensor has no dimensions" for
 *  0-D (not raised for an empty input, as PyTorch 1.13); CT_ERR_NOMEM; the device's copy
 *  errors. */
CT_API ct_status ct_tensor_tril(const ct_tensor *tensor, int64_t diagonal, ct_tensor **out);
CT_API ct_status ct_tensor_triu(const ct_tensor *tensor, int64_t diagonal, ct_tensor **out);
/** The out= forms: out is resized to t's shape (PyTorch's resize_output) and must have t's
 *  dtype and device. Errors as above and: CT_ERR_RUNTIME "Expected out tensor to have dtype
 *  float, but got int instead", "Expected out tensor to have device cpu, but got meta
 *  instead"; those of resizing. On error out keeps its geometry. */
CT_API ct_status ct_tensor_tril_out(const ct_tensor *tensor, int64_t diagonal, ct_tensor *out);
CT_API ct_status ct_tensor_triu_out(const ct_tensor *tensor, int64_t diagonal, ct_tensor *out);
/** tril_ / triu_: zero the other elements of t in place. Errors as ct_tensor_tril. */
CT_API ct_status ct_tensor_tril_(ct_tensor *tensor, int64_t diagonal);
CT_API ct_status ct_tensor_triu_(ct_tensor *tensor, int64_t diagonal);

CT_EXTERN_C_END

#endif /* CTENSOR_TRIANGLE_H */
