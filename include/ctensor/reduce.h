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
 *    The input is converted to the result dtype, then reduced: into bool, sum is any and
 *    prod is all of the input converted to bool. float16 and bfloat16 reduce
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
 * shape and dtype only; devices whose backend has a `launch` slot (cuda) compute through
 * REDUCE launches (backend.h), except complex sums and products (CT_ERR_NOT_IMPLEMENTED
 * "\"sum\" not implemented on cuda for 'ComplexFloat'"); so do max / min with a dim,
 * argmax / argmin, nanmean, logsumexp and real var / std (complex var / std refuse:
 * "\"var\" not implemented on cuda for 'ComplexFloat'"); other
 * devices: CT_ERR_NOT_IMPLEMENTED "sum: not implemented on cuda yet". out must be on the input's device (CT_ERR_RUNTIME). Sparse inputs:
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
    CT_REDUCE_NANSUM = 9,         /**< sum of the non-NaN elements (see "more reductions") */
    CT_REDUCE_NANMEAN = 10,       /**< mean of the non-NaN elements */
    CT_REDUCE_COUNT_NONZERO = 11, /**< how many elements are != 0 (int64) */
    CT_REDUCE_LOGSUMEXP = 12,     /**< log(sum(exp(x))), computed stably */
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
 * (and for 'Bool'); other dtypes without kernels likewise. As in PyTorch, argmax / argmin
 * along a given dim of size 1, or with an empty result, give 0s (or nothing) whatever the
 * dtype. Devices as ct_reduce. out= forms
 * (ct_max_dim_out): see below. New references in *values, *indices, *out. */

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

/** torch.max(input, dim, keepdim, out=(values, indices)): values must have the input's dtype
 *  (CT_ERR_RUNTIME "Expected out tensor to have dtype float, but got double instead"),
 *  indices int64 ("... dtype long int, but got int instead"); both are resized as reduction
 *  outputs are. Errors of ct_max_dim first. */
CT_API ct_status ct_max_dim_out(const ct_tensor *input, int64_t dim, bool keepdim,
                                ct_tensor *values, ct_tensor *indices);
/** torch.min(input, dim, keepdim, out=(values, indices)). */
CT_API ct_status ct_min_dim_out(const ct_tensor *input, int64_t dim, bool keepdim,
                                ct_tensor *values, ct_tensor *indices);
/** torch.argmax(input, dim, keepdim, out=out): out must be int64 (CT_ERR_RUNTIME "Expected
 *  out tensor to have dtype long int, but got int instead") and is resized as reduction
 *  outputs are. Errors of ct_argmax first. */
CT_API ct_status ct_argmax_out(const ct_tensor *input, const int64_t *dim, bool keepdim,
                               ct_tensor *out);
/** torch.argmin(input, dim, keepdim, out=out), as ct_argmax_out. */
CT_API ct_status ct_argmin_out(const ct_tensor *input, const int64_t *dim, bool keepdim,
                               ct_tensor *out);

/* ---- more reductions (src/ops/reduce_stats.c, src/ops/reduce_scan.c) ------------------------
 * The ops of ct_reduce / ct_reduce_out (dims, keepdim, out= and devices as above):
 *  - CT_REDUCE_NANSUM: bool and integer inputs are sum; floating ones add the non-NaN
 *    elements. The result dtype (`dtype`, else out's, else the input's) must be floating:
 *    CT_ERR_NOT_IMPLEMENTED "\"nansum_cpu\" not implemented for 'Long'"; complex input:
 *    CT_ERR_RUNTIME "nansum does not support complex inputs".
 *  - CT_REDUCE_NANMEAN: nansum / the count of non-NaN elements (none: nan). Input must be
 *    floating: CT_ERR_RUNTIME "nanmean(): expected input to have floating point dtype but
 *    got Long".
 *  - CT_REDUCE_COUNT_NONZERO: int64 counts (NaN counts as nonzero); `dtype` must be UNDEFINED.
 *  - CT_REDUCE_LOGSUMEXP: max + log(sum(exp(x - max))) (an infinite max shifts by 0). bool and
 *    integer inputs compute in the default dtype; the result dtype (out's, else that) must be
 *    floating: CT_ERR_RUNTIME "logsumexp(): Expected floating point type for result tensor,
 *    but got: Long"; float16: CT_ERR_NOT_IMPLEMENTED "\"exp_vml_cpu\" not implemented for
 *    'Half'". `dtype` must be UNDEFINED.
 * Float sums here accumulate in double in fixed chunks (the same bits for any thread count). */

/** torch.var / torch.std (take_sqrt) over dims (NULL or ndims 0: all) with `correction`
 *  (unbiased=True is 1, False is 0): sum((x - mean)^2) / max(0, N - correction), so N <=
 *  correction gives inf (or nan for 0 / 0), as torch 1.13 does (without a warning). Input
 *  must be floating or complex (CT_ERR_RUNTIME "std and var only support floating point and
 *  complex dtypes"); a complex input's variance is the real and imaginary parts' summed, in
 *  the real dtype. The result: `out` (resized; its dtype) when not NULL, else a new tensor.
 *  `mean` (not NULL: torch.var_mean) gets a new tensor of the mean in the input's dtype. The
 *  result is a new reference in *result (out retained when given). */
CT_API ct_status ct_std_var(const ct_tensor *input, const int64_t *dims, int64_t ndims,
                            double correction, bool keepdim, bool take_sqrt, ct_tensor *out,
                            ct_tensor **result, ct_tensor **mean);

/** torch.norm(input, p, dim, keepdim, out=out, dtype=dtype) for a number p: the vector norm
 *  of the elements over dims (NULL: all): p = 2 (computed without overflow or underflow in
 *  the squares), 1, inf (max |x|), -inf (min |x|), 0 (the count of nonzeros), other p
 *  (sum |x|^p)^(1/p). No elements: 0. The input is cast to `dtype` first when given; complex
 *  values use |x|. Result dtype: `dtype`, else out's, else the input's (real for complex).
 *  Errors: CT_ERR_RUNTIME "norm(): input dtype should be either floating point or complex.
 *  Got Long instead.", "norm(): the desired output dtype should be either floating point or
 *  complex. Got Long instead."; dims as ct_reduce. New reference in *result. */
CT_API ct_status ct_norm(const ct_tensor *input, double p, const int64_t *dims, int64_t ndims,
                         bool keepdim, ct_dtype dtype, ct_tensor *out, ct_tensor **result);
/** torch.norm(input, p_str, ...) for p given as a string: "fro" (the 2-norm over dims; at
 *  most 2 of them: CT_ERR_RUNTIME "Expected at most 2 dimensions, but got 3 dimensions
 *  instead."; `dtype` given: CT_ERR_VALUE "dtype argument is not supported in frobenius
 *  norm"; dims NULL with out NULL: every dim, else dims NULL means every dim as a list, as
 *  torch.norm passes them); "nuc" (the sum of the singular values, through LAPACK, of the
 *  matrix over two dims: dims NULL needs a 2-D input, CT_ERR_RUNTIME "Expected a tensor with
 *  2 dimensions, but got a tensor with 3 dimensions instead.", else exactly two distinct
 *  dims, CT_ERR_RUNTIME "nuclear norm requires a 'dim' argument of size 2" / "duplicate or
 *  invalid dimensions"; `dtype` given: CT_ERR_VALUE "dtype argument is not supported in
 *  nuclear norm"; float32/64 and complex inputs (real result), float16/bfloat16:
 *  CT_ERR_NOT_IMPLEMENTED "\"linalg_svd_cpu\" not implemented for 'Half'", integers:
 *  CT_ERR_RUNTIME "linalg.svd: Expected a floating point or complex tensor as input. Got
 *  Long"; a NaN or infinity: CT_ERR_RUNTIME "linalg.svd: The algorithm failed to converge
 *  because the input matrix contained non-finite values."; on accelerators (cuda) "nuc" runs
 *  on the cpu through host memory, out= on another device: CT_ERR_RUNTIME "Expected all
 *  tensors to be on the same device, ..."); other strings: CT_ERR_RUNTIME
 *  "only valid string values are 'fro' and 'nuc', found foo". */
CT_API ct_status ct_norm_str(const ct_tensor *input, const char *p, const int64_t *dims,
                             int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                             ct_tensor **result);

/** torch.aminmax(input, dim=dim, keepdim=keepdim, out=(out_min, out_max)): min and max over
 *  dim (NULL: every element). Errors: nothing to reduce with dim NULL: CT_ERR_RUNTIME
 *  "aminmax(): cannot compute aminmax over an empty dimension as the operation has no
 *  identity."; a dim of size 0: CT_ERR_INDEX "aminmax: Expected reduction dim 0 to have
 *  non-zero size."; float16, bfloat16, complex: CT_ERR_NOT_IMPLEMENTED "\"aminmax_cpu\" not
 *  implemented for 'Half'". out_min / out_max may be NULL (new tensors) or tensors of the
 *  input's dtype (ct_max_dim_out's checks). New references in *min and *max. */
CT_API ct_status ct_aminmax(const ct_tensor *input, const int64_t *dim, bool keepdim,
                            ct_tensor *out_min, ct_tensor *out_max, ct_tensor **min,
                            ct_tensor **max);

/** torch.cumsum / torch.cumprod (prod) along dim, out= (out, or NULL for a new tensor).
 *  Result dtype: `dtype`, else out's, else int64 for bool and integer inputs, else the
 *  input's; the input is cast to it first, then accumulated in double (floating), int64
 *  (integers, wrapping) or complex double, each step rounded to the result dtype. Errors:
 *  dim out of range (CT_ERR_INDEX, as ct_reduce); float16 and bool results:
 *  CT_ERR_NOT_IMPLEMENTED "\"cumsum_out_cpu\" not implemented for 'Half'"; dtype and out
 *  disagreeing: CT_ERR_RUNTIME "Expected out tensor to have dtype float, but got double
 *  instead". New reference in *result. */
CT_API ct_status ct_cumulative(bool prod, const ct_tensor *input, int64_t dim, ct_dtype dtype,
                               ct_tensor *out, ct_tensor **result);
/** Tensor.cumsum_(dim, dtype=dtype) / cumprod_: in place; dtype must be self's
 *  (CT_ERR_RUNTIME "Bad in-place call: input tensor dtype long int and output tensor dtype
 *  float should match"). */
CT_API ct_status ct_cumulative_(bool prod, ct_tensor *self, int64_t dim, ct_dtype dtype);

/** torch.softmax (log false) / torch.log_softmax (log true) of input along dim, out= (out, or
 *  NULL for a new tensor): exp(x - max) / sum(exp(x - max)), and x - max - log(sum(exp(x -
 *  max))), max and sums along dim. `dtype` (CT_DTYPE_UNDEFINED: none) casts the input first;
 *  the result has the (cast) input's dtype and is contiguous whatever the input's layout.
 *  float16 and bfloat16 compute in float32 and round once. A line holding NaN, or only -inf
 *  (or an inf), gives NaN, as in PyTorch. Every device whose backend runs amax, sum, exp and
 *  the arithmetic runs it; meta gives the shape and dtype. Errors: dim out of range
 *  (CT_ERR_INDEX, as ct_reduce); a (cast) input other than float16, bfloat16, float32 and
 *  float64: CT_ERR_NOT_IMPLEMENTED "\"softmax_lastdim_kernel_impl\" not implemented for
 *  'Long'" ("log_softmax_lastdim_kernel_impl" for log; "softmax_kernel_impl", for both,
 *  along another dim than the last);
 *  out of another dtype than the result: CT_ERR_RUNTIME "Expected out tensor to have dtype
 *  float, but got double instead"; out of another shape is resized (a warning when it had
 *  elements); a sparse input: CT_ERR_NOT_IMPLEMENTED. New reference in *result (out itself
 *  when given). */
CT_API ct_status ct_softmax(bool log, const ct_tensor *input, int64_t dim, ct_dtype dtype,
                            ct_tensor *out, ct_tensor **result);

CT_EXTERN_C_END

#endif /* CTENSOR_REDUCE_H */
