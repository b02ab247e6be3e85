/* ctensor: reductions (sum, prod, mean, amax, amin, all, any) with PyTorch's rules.
 *
 *   ct_reduce(op, input, dims, ndims, keepdim, dtype, &result)   torch.sum(input, dims, ...)
 *   ct_reduce_out(op, input, dims, ndims, keepdim, dtype, out)   torch.sum(..., out=out)
 *
 * Dims: dims[0 .. ndims), each in [-dim(), dim() - 1] (a 0-dim tensor takes -1 and 0);
 * dims NULL or ndims 0 reduce every dim (PyTorch's dim=None, and torch 1.13's dim=()).
 * CT_ERR_INDEX "Dimension out of range (expected to be in range of [-2, 1], but got 2)";
 * CT_ERR_RUNTIME "dim 0 appears multiple times in the list of dims". keepdim keeps the
 * reduced dims with size 1. A new result is contiguous.
 *
 * Dtypes (PyTorch's):
 *  - sum, prod: the result dtype is `dtype` when given (not CT_DTYPE_UNDEFINED), else
 *    out's dtype (ct_reduce_out), else int64 for bool and integer inputs, else the input's.
 *    The input is converted to the result dtype, then reduced. float16 and bfloat16 reduce
 *    in float32 and round once; integers reduce in int64 (wrapping) and convert. Float
 *    sums are cascade sums (Note [Reduction kernels], src/kernels/reduce.h). With both
 *    `dtype` and out of another dtype: CT_ERR_RUNTIME "Expected out tensor to have dtype
 *    double, but got float instead".
 *  - mean: the sum in the result dtype, divided by the count (sum of nothing / 0 = nan). The
 *    result dtype must be floating: CT_ERR_RUNTIME "mean(): could not infer output dtype.
 *    Input dtype must be either a floating point or complex dtype. Got: Long" ("Optional
 *    dtype must be ..." when `dtype` is the integer one).
 *  - amax, amin: the input's dtype (`dtype` must be UNDEFINED); NaN propagates. An out of
 *    another dtype: CT_ERR_RUNTIME "Expected the dtype for input and out to match, but got
 *    Float for input's dtype and Double for out's dtype.". Nothing to reduce:
 *    CT_ERR_RUNTIME "amax(): Expected reduction dim to be specified for input.numel() == 0.
 *    Specify the reduction dim with the 'dim' argument." (all dims), CT_ERR_INDEX
 *    "amax(): Expected reduction dim 0 to have non-zero size." (dims given).
 *  - all, any: bool (uint8 for a uint8 input; `dtype` must be UNDEFINED). An out of
 *    another dtype: CT_ERR_RUNTIME "all only supports bool tensor for result, got: Double".
 *  - Complex inputs and dtypes without CPU kernels (float8, float4, uint16-64):
 *    CT_ERR_NOT_IMPLEMENTED "\"sum_cpu\" not implemented for 'ComplexFloat'".
 *
 * out= tensors of another shape are resized (with PyTorch's UserWarning through ct_warn when
 * they had elements). Devices: cpu and host-accessible backends compute; meta tensors get
 * shape and dtype only; other devices: CT_ERR_NOT_IMPLEMENTED "sum: not implemented on cuda
 * yet". out must be on the input's device (CT_ERR_RUNTIME). Sparse inputs:
 * CT_ERR_NOT_IMPLEMENTED. Global tensors: ct_global_reduce (global.h).
 *
 * Threads: large reductions use ct_get_num_threads() threads; the result is the same bits
 * for every thread count. Errors common to every function: CT_ERR_MISUSE for NULL
 * arguments, an invalid op or a dtype the op does not take; CT_ERR_NOMEM. On error no new
 * tensor is returned and out keeps its metadata. */
#ifndef CTENSOR_REDUCE_H
#define CTENSOR_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

typedef enum ct_reduce_op {
    CT_REDUCE_SUM = 0,
    CT_REDUCE_PROD = 1,
    CT_REDUCE_MEAN = 2,
    CT_REDUCE_AMAX = 3,
    CT_REDUCE_AMIN = 4,
    CT_REDUCE_ALL = 5,
    CT_REDUCE_ANY = 6,
    CT_REDUCE_MAX = 7, /**< torch.max(input): amax over every dim, under max's name */
    CT_REDUCE_MIN = 8, /**< torch.min(input) */
    CT_NUM_REDUCE_OPS
} ct_reduce_op;

/** The op's name as PyTorch's messages say it ("sum"); NULL for an invalid op. */
CT_API const char *ct_reduce_op_name(ct_reduce_op op);

/** op(input, dims, keepdim, dtype=dtype) into a new tensor (*out). */
CT_API ct_status ct_reduce(ct_reduce_op op, const ct_tensor *input, const int64_t *dims,
                           int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor **out);
/** op(input, dims, keepdim, dtype=dtype, out=out). */
CT_API ct_status ct_reduce_out(ct_reduce_op op, const ct_tensor *input, const int64_t *dims,
                               int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out);

/** torch.sum(input) / torch.sum(input, dims, keepdim, dtype=dtype). */
CT_API ct_status ct_sum(const ct_tensor *input, const int64_t *dims, int64_t ndims, bool keepdim,
                        ct_dtype dtype, ct_tensor **out);
/** torch.mean(input, dims, keepdim, dtype=dtype). */
CT_API ct_status ct_mean(const ct_tensor *input, const int64_t *dims, int64_t ndims, bool keepdim,
                         ct_dtype dtype, ct_tensor **out);

/* ---- arg reductions ------------------------------------------------------------------------
 * max / min with a dim give the values (the input's dtype) and their indices (int64) along
 * it; argmax / argmin the indices alone, along a dim or (dim NULL) in the flattened input
 * (keepdim then keeps every dim with size 1). Of equal elements the first is taken, and a
 * NaN wins (the first NaN). Errors: the dim's (as ct_reduce); a reduced dim of size 0:
 * CT_ERR_INDEX "max(): Expected reduction dim 0 to have non-zero size."; argmax of nothing
 * without a dim: CT_ERR_INDEX "argmax(): Expected reduction dim to be specified for
 * input.numel() == 0."; complex inputs: CT_ERR_RUNTIME "max(): does not support complex
 * input", CT_ERR_NOT_IMPLEMENTED "\"argmax_cpu\" not implemented for 'ComplexFloat'"
 * (and for 'Bool'); other dtypes without kernels likewise. Devices as ct_reduce. out= forms
 * are not provided yet. New references in *values, *indices, *out. */

/** torch.max(input, dim, keepdim): (values, indices). */
CT_API ct_status ct_max_dim(const ct_tensor *input, int64_t dim, bool keepdim, ct_tensor **values,
                            ct_tensor **indices);
/** torch.min(input, dim, keepdim): (values, indices). */
CT_API ct_status ct_min_dim(const ct_tensor *input, int64_t dim, bool keepdim, ct_tensor **values,
                            ct_tensor **indices);
/** torch.argmax(input, dim, keepdim); dim NULL: the flattened input. */
CT_API ct_status ct_argmax(const ct_tensor *input, const int64_t *dim, bool keepdim,
                           ct_tensor **out);
/** torch.argmin(input, dim, keepdim); dim NULL: the flattened input. */
CT_API ct_status ct_argmin(const ct_tensor *input, const int64_t *dim, bool keepdim,
                           ct_tensor **out);

CT_EXTERN_C_END

#endif /* CTENSOR_REDUCE_H */
