/* ctensor: gather and scatter along a dim, and the index_* family (PyTorch 1.13's
 * torch.gather, scatter, scatter_add, scatter_reduce, index_add, index_fill, index_copy).
 *
 * gather / scatter: `index` (int64) has self's number of dims (a 0-dim tensor counts as 1-D);
 * element i of index names, along `dim`, the element of self read (gather) or written
 * (scatter) for position i. index_*: a 1-D (or 0-dim) index names whole slices of self
 * along dim.
 *
 * Ownership as in tensor.h: results are NEW references; inputs are borrowed. A `_` function
 * changes self in place (any strides, views included). A non-NULL `out` is the out= form:
 * its dtype must be the result's (CT_ERR_RUNTIME "Expected out tensor to have dtype float,
 * but got long int instead"), it is resized as PyTorch resizes outputs, and *result is then
 * a new reference to it. On failure *result is NULL.
 *
 * Dtypes (torch 1.13's CPU kernels): bool, integers, float16, bfloat16, float32, float64,
 * complex64, complex128; scatter_reduce's mean not bool, amax/amin not complex, and
 * include_self=false not complex. Others (complex32, float8, uint16-64): CT_ERR_NOT_IMPLEMENTED
 * "\"scatter_gather_tensor_cpu\" not implemented for 'ComplexHalf'" (torch's kernel names).
 *
 * Common errors: CT_ERR_INDEX "Dimension out of range (expected to be in range of [-2, 1],
 * but got 3)"; CT_ERR_NOT_IMPLEMENTED for meta or non-strided tensors; CT_ERR_MISUSE for
 * NULL handles; CT_ERR_NOMEM.
 *
 * Devices: on an accelerator these ops run through host memory (the cpu's results and
 * errors; the `_` forms and out= write the device tensors, views included; on an error the
 * device self is left unchanged). All tensors (self, index, src, out) must be on one device:
 * CT_ERR_RUNTIME "Expected all tensors to be on the same device, but found at least two
 * devices, cuda:0 and cpu!" (the devices in argument order); index_fill_'s 0-dim value tensor
 * may be on any device. */
#ifndef CTENSOR_SCATTER_H
#define CTENSOR_SCATTER_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** How scatter combines a written value with the one in self. */
typedef enum ct_scatter_mode {
    CT_SCATTER_REDUCE_NONE = 0, /**< plain scatter: the value replaces */
    CT_SCATTER_REDUCE_SUM,      /**< 'sum' (scatter's 'add') */
    CT_SCATTER_REDUCE_PROD,     /**< 'prod' (scatter's 'multiply') */
    CT_SCATTER_REDUCE_MEAN,     /**< 'mean' (scatter_reduce only) */
    CT_SCATTER_REDUCE_AMAX,     /**< 'amax' (scatter_reduce only; NaN propagates) */
    CT_SCATTER_REDUCE_AMIN,     /**< 'amin' (scatter_reduce only) */
} ct_scatter_mode;

/** The reduction a `reduce=` string names. scatter's names (`new_options` false): "add",
 *  "multiply", else CT_ERR_RUNTIME "reduce argument must be either add or multiply.";
 *  scatter_reduce's (true): "sum" "prod" "mean" "amax" "amin", else "reduce argument must be
 *  either sum, prod, mean, amax or amin.". */
CT_API ct_status ct_scatter_reduce_parse(const char *name, bool new_options,
                                         ct_scatter_mode *out);

/** torch.gather(self, dim, index): a tensor of index's shape and self's dtype. Errors:
 *  CT_ERR_RUNTIME "gather(): Expected dtype int64 for index" (a non-empty index), "Index
 *  tensor must have the same number of dimensions as input tensor", "Size does not match at
 *  dimension 1 expected index [1, 4] to be smaller than self [2, 3] apart from dimension 0",
 *  "index 5 is out of bounds for dimension 1 with size 3" (negative indices too). */
CT_API ct_status ct_gather(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                           ct_tensor *out, ct_tensor **result);

/** self.scatter_(dim, index, src or value, reduce=): `src` (self's dtype) or, when src is
 *  NULL, `*value` (cast to self's dtype) is written at the places index names; reduce NONE,
 *  SUM or PROD. Errors: CT_ERR_RUNTIME "scatter(): Expected dtype int64 for index",
 *  "scatter(): Expected self.dtype to be equal to src.dtype", "Index tensor must have the same
 *  number of dimensions as self tensor" ("... as src tensor"), "Expected index [2, 2] to be
 *  smaller than self [2, 3] apart from dimension 1 and to be smaller size than src [1, 1]",
 *  "index 7 is out of bounds for dimension 1 with size 3"; CT_ERR_MISUSE for another
 *  reduce. On an out-of-range index self may be partly written (as in PyTorch). */
CT_API ct_status ct_scatter_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                             const ct_tensor *src, const ct_scalar *value,
                             ct_scatter_mode reduce);
/** torch.scatter(self, dim, index, src or value, reduce=, out=): a copy of self, scattered. */
CT_API ct_status ct_scatter(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                            const ct_tensor *src, const ct_scalar *value,
                            ct_scatter_mode reduce, ct_tensor *out, ct_tensor **result);

/** self.scatter_add_(dim, index, src): ct_scatter_ with SUM. */
CT_API ct_status ct_scatter_add_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                                 const ct_tensor *src);
/** torch.scatter_add(self, dim, index, src, out=). */
CT_API ct_status ct_scatter_add(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                                const ct_tensor *src, ct_tensor *out, ct_tensor **result);

/** self.scatter_reduce_(dim, index, src, reduce, include_self=): reduce any but NONE. With
 *  include_self false the places index names start from the reduction's identity (mean
 *  counts only the scattered values). mean of integers rounds down (floor). Errors as
 *  ct_scatter_ and CT_ERR_NOT_IMPLEMENTED "\"scatter_gather_tensor_cpu_reduce_mean\" not
 *  implemented for 'Bool'". */
CT_API ct_status ct_scatter_reduce_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                                    const ct_tensor *src, ct_scatter_mode reduce,
                                    bool include_self);
/** torch.scatter_reduce(self, dim, index, src, reduce, include_self=, out=). */
CT_API ct_status ct_scatter_reduce(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                                   const ct_tensor *src, ct_scatter_mode reduce,
                                   bool include_self, ct_tensor *out, ct_tensor **result);

/** self.index_add_(dim, index, source, alpha=): self[.., index[k], ..] += alpha *
 *  source[.., k, ..]; index int64 or int32. Errors: CT_ERR_INDEX "index_add_(): Index is
 *  supposed to be a vector, but got dim: 2 with type: Long and size: [1, 2]", "index out of
 *  range in self" (negative too); CT_ERR_RUNTIME "index_add_(): Expected dtype int32/int64 for
 *  index but got: Float", "index_add_(): self (Float) and source (Double) must have the same
 *  scalar type", "index_add_(): Number of indices (2) should be equal to source.size(dim):
 *  (3), for dim: 0", "The size of tensor a (3) must match the size of tensor b (4) at
 *  non-singleton dimension 0". */
CT_API ct_status ct_index_add_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                               const ct_tensor *source, ct_scalar alpha);
/** torch.index_add(self, dim, index, source, alpha=, out=). */
CT_API ct_status ct_index_add(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                              const ct_tensor *source, ct_scalar alpha, ct_tensor *out,
                              ct_tensor **result);

/** self.index_fill_(dim, index, value): the slices index names (negative counts from the
 *  end) set to value cast to self's dtype. Errors: CT_ERR_INDEX "index_fill_(): Expected
 *  dtype int64 for index.", "index 5 is out of bounds for dimension 1 with size 3";
 *  CT_ERR_RUNTIME "Index has to be a vector/scalar", "index_fill_(): Converting complex
 *  Scalar to non-complex type is not supported". */
CT_API ct_status ct_index_fill_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                                ct_scalar value);
/** The same with a tensor value: CT_ERR_RUNTIME "index_fill_ only supports a 0-dimensional
 *  value tensor, but got tensor with 1 dimension(s)." unless value is 0-dim. */
CT_API ct_status ct_index_fill_tensor_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                                       const ct_tensor *value);
/** torch.index_fill(self, dim, index, value): a copy of self (its strides kept), filled. */
CT_API ct_status ct_index_fill(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                               ct_scalar value, ct_tensor **result);

/** self.index_copy_(dim, index, source): self[.., index[k], ..] = source[.., k, ..]. Errors:
 *  CT_ERR_INDEX "index_copy_(): Index should have dimension 1 or 0 (got 2)", "index_copy_():
 *  Number of indices (2) should be equal to source.size(dim) (3)", "index_copy_(): index 5 is
 *  out of bounds for dimension 0 with size 2"; CT_ERR_RUNTIME "index_copy_(): Expected a long
 *  tensor for index, but got Int", "index_copy_(): self and source expected to have the same
 *  dtype, but got (self) Float and (source) Double", "index_copy_(): Source/destination
 *  tensor must have same slice shapes. ...". */
CT_API ct_status ct_index_copy_(ct_tensor *self, int64_t dim, const ct_tensor *index,
                                const ct_tensor *source);
/** torch.index_copy(self, dim, index, source, out=). */
CT_API ct_status ct_index_copy(const ct_tensor *self, int64_t dim, const ct_tensor *index,
                               const ct_tensor *source, ct_tensor *out, ct_tensor **result);

CT_EXTERN_C_END

#endif /* CTENSOR_SCATTER_H */
