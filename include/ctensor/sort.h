/* ctensor: sorting and selection (PyTorch 1.13's torch.sort, argsort, msort, topk, kthvalue
 * and unique with dim=None).
 *
 * Order: PyTorch's. NaN sorts as the largest value (last ascending, first descending), -0.0
 * and 0.0 are equal. Sorts are stable (ties keep their input order) whatever `stable` says,
 * which is one of the orders PyTorch allows for stable=False. topk and kthvalue take, of
 * equal elements, the first ones.
 *
 * Dtypes (torch 1.13's CPU kernels): sort, argsort, msort: bool, integers, float16,
 * bfloat16, float32, float64; topk, kthvalue: those but bool and float16; unique: those but
 * float16. Others (complex, float8, uint16-64): CT_ERR_NOT_IMPLEMENTED "\"topk_cpu\" not
 * implemented for 'ComplexFloat'" ("sorting_kernel_method_name" for the sorts, "kthvalue_cpu",
 * "unique").
 *
 * Common errors: CT_ERR_INDEX "Dimension out of range (expected to be in range of [-1, 0],
 * but got 2)" (a 0-dim tensor takes -1 and 0 and is one element); CT_ERR_MISUSE for NULL
 * arguments; CT_ERR_NOT_IMPLEMENTED for sparse inputs and devices that are neither host-
 * accessible nor meta ("sort: not implemented on cuda yet"); CT_ERR_NOMEM. Meta tensors get
 * shapes and dtypes only. Results are new contiguous tensors (new references); on error no
 * tensor is returned and out= tensors keep their metadata. */
#ifndef CTENSOR_SORT_H
#define CTENSOR_SORT_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.sort(input, dim, descending, stable=...): *values (the input's dtype and shape) and
 *  *indices (int64). out_values / out_indices (both or neither; NULL: new tensors): the
 *  out= form; their dtypes must be the input's and int64 (CT_ERR_RUNTIME "Expected out
 *  tensor to have dtype float, but got long int instead"), they are resized as reductions
 *  resize outputs, and *values / *indices then are new references to them. */
CT_API ct_status ct_sort(const ct_tensor *input, int64_t dim, bool descending, bool stable,
                         ct_tensor *out_values, ct_tensor *out_indices, ct_tensor **values,
                         ct_tensor **indices);

/** torch.argsort(input, dim, descending, stable=...): the indices of ct_sort. */
CT_API ct_status ct_argsort(const ct_tensor *input, int64_t dim, bool descending, bool stable,
                            ct_tensor **indices);

/** torch.msort(input): the values of ct_sort along dim 0. */
CT_API ct_status ct_msort(const ct_tensor *input, ct_tensor **values);

/** torch.topk(input, k, dim, largest, sorted): the k largest (smallest) along dim, in order
 *  (sorted=false gives the same order). Errors: CT_ERR_RUNTIME "selected index k out of
 *  range" for k < 0 or k > the dim's size (1 for a 0-dim tensor). A 0-dim input gives
 *  itself and index 0 for k = 0 as for k = 1, as PyTorch does. */
CT_API ct_status ct_topk(const ct_tensor *input, int64_t k, int64_t dim, bool largest,
                         bool sorted, ct_tensor **values, ct_tensor **indices);

/** torch.kthvalue(input, k, dim, keepdim): the k-th smallest along dim and its index.
 *  Errors: CT_ERR_INDEX "kthvalue(): Expected reduction dim 0 to have non-zero size.";
 *  CT_ERR_RUNTIME "kthvalue(): selected number k out of range for dimension 0". */
CT_API ct_status ct_kthvalue(const ct_tensor *input, int64_t k, int64_t dim, bool keepdim,
                             ct_tensor **values, ct_tensor **indices);

/** torch.topk(..., out=(values, indices)) and torch.kthvalue(..., out=(values, indices)): the
 *  results of ct_topk / ct_kthvalue written into out_values (the input's dtype) and
 *  out_indices (int64), resized as reduction outputs are; a wrong dtype: CT_ERR_RUNTIME
 *  "Expected out tensor to have dtype float, but got double instead". Errors of the
 *  functional forms first. */
CT_API ct_status ct_topk_out(const ct_tensor *input, int64_t k, int64_t dim, bool largest,
                             bool sorted, ct_tensor *out_values, ct_tensor *out_indices);
CT_API ct_status ct_kthvalue_out(const ct_tensor *input, int64_t k, int64_t dim, bool keepdim,
                                 ct_tensor *out_values, ct_tensor *out_indices);

/** torch.unique(input, sorted, return_inverse, return_counts) with dim=None: the distinct
 *  values ascending (1-D; sorted=false gives the same), and when inverse / counts are not
 *  NULL the index of each input element's value (int64, the input's shape) and how often
 *  each value occurs (int64). NaNs form one group (torch 1.13 gives no consistent answer). */
CT_API ct_status ct_unique(const ct_tensor *input, bool sorted, ct_tensor **output,
                           ct_tensor **inverse, ct_tensor **counts);

CT_EXTERN_C_END

#endif /* CTENSOR_SORT_H */
