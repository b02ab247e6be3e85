/* ctensor: searching sorted sequences (PyTorch 1.13's torch.searchsorted and torch.bucketize).
 *
 * Ownership as in tensor.h: results are NEW references; inputs are borrowed. A non-NULL `out`
 * is the out= form: resized to the result's shape as PyTorch resizes outputs, and *result is
 * then a new reference to it. On failure *result is NULL.
 *
 * The values and the boundaries are compared in their promoted dtype. A search finds, for
 * value v, the first position whose boundary is >= v (right: > v), as PyTorch's loop does
 * (so NaN boundaries and values order as it orders them). Dtypes: integers, float16,
 * bfloat16, float32, float64; others CT_ERR_NOT_IMPLEMENTED "\"searchsorted_out_cpu\" not
 * implemented for 'Bool'" (an empty input is not searched and takes any dtype). Meta or
 * non-strided tensors: CT_ERR_NOT_IMPLEMENTED. CT_ERR_MISUSE for NULL handles; CT_ERR_NOMEM.
 * On an accelerator both run through host memory (the cpu's results and errors); all their
 * tensors (sorter and out= included) must be on one device: CT_ERR_RUNTIME "Expected all
 * tensors to be on the same device, but found at least two devices, cuda:0 and cpu!" (the
 * devices in argument order). */
#ifndef CTENSOR_SEARCH_H
#define CTENSOR_SEARCH_H

#include <stdbool.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.searchsorted(sorted_sequence, input, out_int32=, right=, side=, sorter=, out=): an
 *  int64 (out_int32: int32) tensor of input's shape. sorted_sequence is 1-D (searched for
 *  every value) or has input's leading dims (row i searched for the values of row i).
 *  `side` NULL, "left" or "right"; `sorter` NULL or int64 indices that sort each row.
 *  Errors (CT_ERR_RUNTIME, each prefixed "torch.searchsorted(): "): "side can only be 'left'
 *  or 'right' but got foo", "side and right can't be set to opposites, got side of left while
 *  right was True", "boundary and sorter must have the same size, but got boundary tensor
 *  [3]and got sorter tensor [2]", "sorter must be a tensor of long dtype but got dtype Int",
 *  "input value can be a scalar only when boundaries tensor dimension is 1, ...",
 *  "boundaries tensor should have positive dimension, but got 0 dimension", "boundaries tensor
 *  should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value
 *  tensor must match, but we got boundaries tensor [2, 2] and input value tensor [3, 1]",
 *  "output tensor's dtype is wrong, ...", "sorter index out of range". */
CT_API ct_status ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *input,
                                 bool out_int32, bool right, const char *side,
                                 const ct_tensor *sorter, ct_tensor *out, ct_tensor **result);

/** torch.bucketize(input, boundaries, out_int32=, right=, out=): ct_searchsorted with a 1-D
 *  boundaries tensor (CT_ERR_RUNTIME "boundaries tensor must be 1 dimension, but got
 *  dim(2)"). */
CT_API ct_status ct_bucketize(const ct_tensor *input, const ct_tensor *boundaries, bool out_int32,
                              bool right, ct_tensor *out, ct_tensor **result);

CT_EXTERN_C_END

#endif /* CTENSOR_SEARCH_H */
