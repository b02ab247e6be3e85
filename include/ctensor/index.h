/* ctensor: advanced indexing (PyTorch's aten::index and index_put_, nonzero, masked_select,
 * index_select).
 *
 * An index list is PyTorch's list of optional tensors: entry i is NULL (the dim is taken
 * whole) or an index tensor. An int64 tensor indexes one dim; a bool (or uint8) mask of k
 * dims indexes the next k dims and stands for its nonzero() coordinates. Defined index
 * tensors are broadcast together; when they sit on adjacent dims the broadcast dims replace
 * them in place, otherwise (separated by a whole dim) they move to the front, as in PyTorch
 * and NumPy. Negative indices count from the end.
 *
 * Ownership as in tensor.h: tensors handed back are NEW references; inputs are borrowed.
 * On failure out-parameters are NULL and nothing is left allocated.
 *
 * Devices: on an accelerator these ops run through host memory (the cpu's results and
 * errors; in-place updates write the device tensor, views included). Index tensors of
 * ct_tensor_index may be on the cpu or on self's device (CT_ERR_INDEX "indices should be
 * either on cpu or on the same device as the indexed tensor (cuda:0)"); ct_tensor_index_put_
 * takes indices on any device (moved to self's), a 0-dim value tensor on any device and a
 * one-element cpu value where it fills a mask (PyTorch's canDispatchToMaskedFill); the
 * other functions want all their tensors (out= included) on one device: CT_ERR_RUNTIME
 * "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and
 * cpu!" (the devices in argument order).
 * Errors (PyTorch's words): CT_ERR_INDEX "too many indices for tensor of dimension 1",
 * "index 5 is out of bounds for dimension 0 with size 3" (the dimension counts indexed dims
 * only), "The shape of the mask [3] at index 0 does not match the shape of the indexed
 * tensor [4] at index 0", "tensors used as indices must be long, byte or bool tensors",
 * "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]";
 * CT_ERR_NOT_IMPLEMENTED for meta or non-strided tensors; CT_ERR_NOMEM; CT_ERR_MISUSE for
 * NULL handles.
 */
#ifndef CTENSOR_INDEX_H
#define CTENSOR_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** self[indices]: a new contiguous tensor (a copy) of self's dtype. `n` entries; NULL
 *  entries take a dim whole. New reference in *out. Errors: see the header comment. */
CT_API ct_status ct_tensor_index(const ct_tensor *self, const ct_tensor *const *indices,
                                 size_t n, ct_tensor **out);

/** self[indices] = values in place (index_put_). `values` must have self's dtype
 *  (CT_ERR_RUNTIME "Index put requires the source and destination dtypes match, got Float
 *  for the destination and Double for the source.") and broadcast to the shape of
 *  self[indices] (CT_ERR_RUNTIME "shape mismatch: value tensor of shape [3] cannot be
 *  broadcast to indexing result of shape [2, 4]"). With `accumulate` the values are added
 *  (duplicates add up); without it a duplicate index gets one of its values. As PyTorch's
 *  canDispatchToMaskedFill: with one index, a mask, and a one-element value, the value is
 *  cast to self's dtype and filled. CT_ERR_RUNTIME "unsupported operation: some elements of
 *  the input tensor and the written-to tensor refer to a single memory location. Please
 *  clone() the tensor before performing the operation." when values share self's memory.
 *  Errors also those of ct_tensor_index. */
CT_API ct_status ct_tensor_index_put_(ct_tensor *self, const ct_tensor *const *indices, size_t n,
                                      const ct_tensor *values, bool accumulate);

/** torch.nonzero(self): an int64 tensor (count, ndim) of the coordinates of the nonzero
 *  elements in row-major order. New reference in *out. */
CT_API ct_status ct_tensor_nonzero(const ct_tensor *self, ct_tensor **out);

/** torch.masked_select(self, mask): the 1-D copy of the elements where the bool (or uint8)
 *  mask is true, self and mask broadcast together. CT_ERR_RUNTIME "masked_select: expected
 *  BoolTensor or ByteTensor for mask" for another mask dtype. New reference in *out. */
CT_API ct_status ct_tensor_masked_select(const ct_tensor *self, const ct_tensor *mask,
                                         ct_tensor **out);

/** torch.index_select(self, dim, index): index a 1-D (or 0-dim) int64 tensor along dim.
 *  CT_ERR_INDEX "index_select(): Index is supposed to be a vector", "index out of range in
 *  self"; CT_ERR_RUNTIME "index_select(): Expected dtype int32 or int64 for index". New ref. */
CT_API ct_status ct_tensor_index_select(const ct_tensor *self, int64_t dim,
                                        const ct_tensor *index, ct_tensor **out);

/** torch.take(self, index): self flattened, indexed by the int64 `index` (negative counts
 *  from the end); the result has index's shape. CT_ERR_RUNTIME "take(): Expected a long
 *  tensor for index, but got Float"; CT_ERR_INDEX "out of range: tried to access index 6
 *  on a tensor of 6 elements.". New reference in *out. */
CT_API ct_status ct_tensor_take(const ct_tensor *self, const ct_tensor *index, ct_tensor **out);

/* ---- out= forms ------------------------------------------------------------------------------
 * The result of the functional form written into out as PyTorch's out= does: out keeps its
 * geometry when it has the result's shape, else takes the result's shape and strides (with
 * PyTorch's "An output with one or more elements was resized" warning when it had elements).
 * out's dtype must be the result's, with PyTorch's messages below; errors of the functional
 * form otherwise. */

/** torch.nonzero(self, out=out): out int64, else CT_ERR_RUNTIME "nonzero: Expected out tensor
 *  to have scalar type Long but got scalar typeFloat" (PyTorch's words). */
CT_API ct_status ct_tensor_nonzero_out(const ct_tensor *self, ct_tensor *out);
/** torch.index_select(self, dim, index, out=out): CT_ERR_RUNTIME "index_select(): self and
 *  result must have the same scalar type". */
CT_API ct_status ct_tensor_index_select_out(const ct_tensor *self, int64_t dim,
                                            const ct_tensor *index, ct_tensor *out);
/** torch.take(self, index, out=out): CT_ERR_RUNTIME "take(): self and out expected to have the
 *  same dtype, but got self.dtype = Float and out.dtype = Long". */
CT_API ct_status ct_tensor_take_out(const ct_tensor *self, const ct_tensor *index,
                                    ct_tensor *out);
/** torch.masked_select(self, mask, out=out): CT_ERR_RUNTIME "masked_select(): self and result
 *  must have the same scalar type". */
CT_API ct_status ct_tensor_masked_select_out(const ct_tensor *self, const ct_tensor *mask,
                                             ct_tensor *out);

CT_EXTERN_C_END

#endif /* CTENSOR_INDEX_H */
