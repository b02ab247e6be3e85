/* ctensor: unique slices along a dim and unique_consecutive (PyTorch 1.13's torch.unique with
 * dim=, torch.unique_consecutive).
 *
 * Ownership as in tensor.h: results are NEW references; inputs are borrowed; `inverse` and
 * `counts` may be NULL when not wanted. On failure every out-parameter is NULL.
 *
 * Slices compare element by element in C order (ints exactly, floats as doubles; NaN equals
 * nothing, so NaN slices never merge). Dtypes: bool, integers, bfloat16, float32, float64;
 * others CT_ERR_NOT_IMPLEMENTED "\"unique_dim\" not implemented for 'Half'" ("unique" for
 * unique_consecutive without a dim). Accelerator (cuda) inputs run on the cpu through host
 * memory, the results copied back. Tensors not strided, or on meta: CT_ERR_NOT_IMPLEMENTED. CT_ERR_MISUSE for NULL handles; CT_ERR_NOMEM. */
#ifndef CTENSOR_UNIQUE_H
#define CTENSOR_UNIQUE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.unique(input, dim=dim) (consecutive false: the distinct slices along dim, sorted
 *  lexicographically) or torch.unique_consecutive(input, dim=dim) (consecutive true: runs of
 *  equal neighbouring slices collapse). *output has input's dims (dim's size: the number of
 *  slices kept); *inverse (int64, size(dim)) the kept slice of each input slice; *counts
 *  (int64) each kept slice's count. Errors: CT_ERR_INDEX "Dimension specified as 0 but tensor
 *  has no dimensions", "Dimension out of range (...)"; CT_ERR_RUNTIME "There are 0 sized
 *  dimensions, and they aren't selected, so unique cannot be applied", "Number of zero sized
 *  dimensions is more than one, so unique cannot be applied ". */
CT_API ct_status ct_unique_dim(const ct_tensor *input, int64_t dim, bool consecutive,
                               ct_tensor **output, ct_tensor **inverse, ct_tensor **counts);

/** torch.unique_consecutive(input) with dim=None: over the flattened input; *output 1-D,
 *  *inverse of input's shape, *counts 1-D. */
CT_API ct_status ct_unique_consecutive(const ct_tensor *input, ct_tensor **output,
                                       ct_tensor **inverse, ct_tensor **counts);

CT_EXTERN_C_END

#endif /* CTENSOR_UNIQUE_H */
