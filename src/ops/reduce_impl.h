/* What the reduction files of src/ops share (reduce.c, reduce_stats.c, reduce_scan.c).
 * Layering: ops. */
#ifndef CT_OPS_REDUCE_IMPL_H
#define CT_OPS_REDUCE_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/reduce.h"
#include "iter/reduce_plan.h"

/* caffe2's TypeMeta names, as "Expected out tensor to have dtype double" prints them. */
const char *ct_reduce_impl_meta_name(ct_dtype d);

/* Whether the CPU reductions take dtype d (PyTorch's CPU kernels; complex ones are left out). */
bool ct_reduce_impl_has_kernel(ct_dtype d);

/* The output of plan p: a new contiguous tensor of dtype res, or `out` checked (layout,
 * device) and resized to the plan's shape (with PyTorch's warning). New reference. */
ct_status ct_reduce_impl_output(const ct_tensor *in, const ct_reduce_plan *p, ct_dtype res,
                                ct_tensor *out, ct_tensor **result);

/* The end of a reduction into ct_reduce_impl_output's result r with out='s geometry saved
 * in keep (ct_tensor_impl_save): on failure (st not CT_OK) releases r, gives out its saved
 * geometry back and returns st; else drops keep and hands r to *result (released when result
 * is NULL) and returns CT_OK. */
struct ct_tensor_impl_saved;
ct_status ct_reduce_impl_finish(ct_status st, ct_tensor *out, struct ct_tensor_impl_saved *keep,
                                ct_tensor *r, ct_tensor **result);

/* nansum, nanmean, count_nonzero, logsumexp: ct_reduce's work for those ops (reduce_stats.c;
 * out NULL: a new tensor in *result). */
ct_status ct_reduce_impl_stat(ct_reduce_op op, const ct_tensor *in, const int64_t *dims,
                              int64_t ndims, bool keepdim, ct_dtype dtype, ct_tensor *out,
                              ct_tensor **result);

/* torch.norm(input, 'nuc', dim, keepdim, out=out): ct_norm_str's nuclear norm (norm_nuc.c).
 * dims NULL: the input must be a matrix; else exactly two distinct dims. */
ct_status ct_reduce_impl_norm_nuc(const ct_tensor *input, const int64_t *dims, int64_t ndims,
                                  bool keepdim, ct_tensor *out, ct_tensor **result);

/* Write src into an out= tensor of a tuple result (max(dim, out=), aminmax(out=)): out's dtype
 * must be src's (CT_ERR_RUNTIME "Expected out tensor to have dtype float, but got double
 * instead"), its device src's; resized to src's shape as reductions resize. */
ct_status ct_reduce_impl_fill_out(ct_tensor *out, const ct_tensor *src);
/* fill_out's checks alone (dtype, layout, device), so a tuple's outs are checked before any
 * is written. */
ct_status ct_reduce_impl_check_out(const ct_tensor *out, const ct_tensor *src);

/* ---- reductions on devices whose backend runs launches (reduce_launch.c) ---------------- */

/* Whether a reduction on `in`'s device runs as a REDUCE launch (not meta, not host
 * accessible, the backend has a launch slot). */
bool ct_reduce_impl_on_launch(const ct_tensor *in);

/* res = red_op(in) over plan p as one REDUCE launch (backend.h): `in` already in the dtype
 * the kernel reads (the caller's conversions done), acc the accumulation dtype; mean: the
 * sum is divided by the plan's count (backend.h's divisor). An empty input fills res with the identity instead (sum 0, prod
 * 1, all true, any false; mean nan). A res that is not dense and non-overlapping is computed
 * into a temporary and copied. Errors: the backend's (CT_ERR_NOT_IMPLEMENTED for a kernel it
 * lacks), CT_ERR_NOMEM. */
ct_status ct_reduce_impl_launch(int32_t red_op, const char *name, const ct_tensor *in,
                                const ct_reduce_plan *p, ct_tensor *res, ct_dtype acc, bool mean);

/* ---- reductions with multi-number accumulators as REDUCE launches (reduce_launch2.c) --- */

/* argmax / argmin (values NULL) or max / min with a dim: indices (int64) and values (the
 * input's dtype) of the plan's output shape. The plan reduces something (count > 0). */
ct_status ct_reduce_impl_launch_arg(bool is_max, const char *name, const ct_tensor *in,
                                    const ct_reduce_plan *p, ct_tensor *indices,
                                    ct_tensor *values);
/* var (take_sqrt: std) of a real floating `in` into res, its mean into `mean` (may be NULL);
 * an empty input gives nan. */
ct_status ct_reduce_impl_launch_var(const char *name, const ct_tensor *in,
                                    const ct_reduce_plan *p, double correction, bool take_sqrt,
                                    ct_tensor *res, ct_tensor *mean);
/* nanmean of a real floating `in` into res; no non-NaN element gives nan. */
ct_status ct_reduce_impl_launch_nanmean(const char *name, const ct_tensor *in,
                                        const ct_reduce_plan *p, ct_tensor *res);
/* logsumexp of a real floating `in` into res; an empty input gives -inf. */
ct_status ct_reduce_impl_launch_lse(const char *name, const ct_tensor *in,
                                    const ct_reduce_plan *p, ct_tensor *res);

#endif /* CT_OPS_REDUCE_IMPL_H */
