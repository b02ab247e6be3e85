/* ctensor: sparse COO tensors (torch.sparse_coo), with PyTorch's semantics and messages.
 *
 * A sparse COO tensor of sizes [s_0, ..., s_{n-1}] splits its dims into sparse_dim leading
 * sparse dims and dense_dim = n - sparse_dim trailing dense dims. It holds two strided
 * tensors on one device: `indices`, int64 of shape [sparse_dim, nnz], and `values`, of shape
 * [nnz, s_{sparse_dim}, ..., s_{n-1}]. Column k of indices says where row k of values goes;
 * the tensor means the sum of its rows at their places, zero elsewhere. Its layout is
 * CT_LAYOUT_SPARSE_COO, its dtype the values' dtype, its device theirs; it has no storage
 * and no strides, so the strided-only functions of tensor.h refuse it
 * (CT_ERR_NOT_IMPLEMENTED) while the attribute getters (dim, sizes, numel, dtype, device,
 * layout) work.
 *
 * Coalesced means: indices sorted lexicographically by column, no column twice. A tensor
 * carries a flag saying it is known to be coalesced (is_coalesced()); as in PyTorch, the
 * flag can be false for indices that happen to be coalesced. Operations set it as
 * PyTorch 1.13 does (creation: nnz < 2; coalesce(), to_sparse(): true; add: see below).
 *
 * Ownership and errors as everywhere (ctensor.h): out-parameters receive new references
 * and are NULL after a failure, with nothing left allocated. Indices and values handed to
 * ct_sparse_coo_tensor are shared, not copied (PyTorch aliases them too); since tensor
 * metadata never changes, sharing is safe, but writing their data changes the sparse
 * tensor. Every size computation is overflow-checked.
 *
 * Devices: operations run on cpu tensors directly and on accelerator tensors by staging
 * indices and values through host memory (ct_tensor_copy_). Meta tensors have no data:
 * what needs none works (creation with given sizes, to_dense, dense + sparse, coalesce of
 * a coalesced tensor or nnz < 2); what depends on index values refuses with
 * CT_ERR_NOT_IMPLEMENTED "Cannot copy out of meta tensor; no data!".
 *
 * Arithmetic follows PyTorch 1.13's CPU kernels: values are summed in their dtype (integers
 * wrap, float16/bfloat16 round after each multiply and add, bool sums are "or"), and where
 * PyTorch picks between loops (add, to_dense) ctensor picks the same one. Where PyTorch has
 * no kernel for a dtype, neither has ctensor, with PyTorch's message, e.g.
 * CT_ERR_NOT_IMPLEMENTED "\"cadd_sparse\" not implemented for 'Bool'". Float results can
 * differ from PyTorch's in the last bit where PyTorch fuses a multiply-add (BLAS axpy,
 * vectorised add) and alpha is not 1. The dtypes only newest PyTorch has (uint16/32/64,
 * float8, float4) can be made sparse, converted to_sparse (but float4) and copied; no sum.
 */
#ifndef CTENSOR_SPARSE_H
#define CTENSOR_SPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/device.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/layout.h"
#include "ctensor/memformat.h"
#include "ctensor/ops.h"
#include "ctensor/print.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** The `ndim` of ct_sparse_coo_tensor that means "sizes not given: infer them". */
#define CT_SPARSE_INFER_SIZE (-1)

/** Options of ct_sparse_coo_tensor; start from CT_SPARSE_COO_OPTIONS_INIT. */
typedef struct ct_sparse_coo_options {
    /** UNDEFINED keeps the values' dtype; any other converts the values (a copy). */
    ct_dtype dtype;
    /** NULL keeps the values' device; any other moves indices and values there. */
    const ct_device *device;
    /** Check the indices against the sizes (reads them): PyTorch's check_invariants,
     *  on by default as torch.sparse_coo_tensor does for user input. */
    bool check_invariants;
    /** The caller says the indices are coalesced (newest PyTorch's is_coalesced=True);
     *  verified when check_invariants is set. false: coalesced iff nnz < 2. */
    bool is_coalesced;
} ct_sparse_coo_options;

#define CT_SPARSE_COO_OPTIONS_INIT                                                                 \
    { CT_DTYPE_UNDEFINED, NULL, true, false }

/** torch.sparse_coo_tensor(indices, values, size): a sparse COO tensor sharing `indices`
 *  and `values` (after any dtype/device conversion asked for). A 0-dim `values` counts as
 *  shape [1]. sparse_dim = indices.size(0), dense_dim = values.dim() - 1. With ndim ==
 *  CT_SPARSE_INFER_SIZE (sizes may be NULL) the sizes are inferred: max index + 1 per
 *  sparse dim (0 when nnz is 0), then the values' dense sizes. `options` NULL means
 *  CT_SPARSE_COO_OPTIONS_INIT. The indices must be int64: unlike the Python function,
 *  which converts them, this one refuses others (as PyTorch's C++ API does).
 *  Errors (CT_ERR_RUNTIME unless said), in PyTorch's order:
 *   "indices must be sparse_dim x nnz, but got: [2]";
 *   "expected indices to be a dense tensor, but got indices of layout Sparse" (and values);
 *   "number of dimensions must be sparse_dim (1) + dense_dim (0), but got 2";
 *   "indices must be an int64 tensor";
 *   "found negative index -1 for dim 0" (also when inferring);
 *   "size is inconsistent with indices: for dim 0, size is 2 but found index 2";
 *   "backend of indices (CPU) must match backend of values (Meta)",
 *   "device of indices (0) must match device of values (1)";
 *   "indices and values must have same nnz, but got nnz from indices: 2, nnz from values: 3";
 *   "values has incorrect size, expected [2, 4], got [2, 3]";
 *   "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor";
 *   negative sizes ("Trying to create tensor with negative dimension ..."), CT_ERR_OVERFLOW
 *   for sizes whose numel or an inferred size overflows; "Cannot copy out of meta tensor;
 *   no data!" for inferring sizes from meta indices (checks that read indices are skipped
 *   on meta); conversion errors; CT_ERR_MISUSE for NULL tensors or a bad option. */
CT_API ct_status ct_sparse_coo_tensor(const ct_tensor *indices, const ct_tensor *values,
                                      const int64_t *sizes, int64_t ndim,
                                      const ct_sparse_coo_options *options, ct_tensor **out);

/** An all-zero sparse COO tensor (nnz 0, coalesced) with `sparse_dim` sparse dims: PyTorch's
 *  _sparse_coo_tensor_with_dims; torch.sparse_coo_tensor(size) and torch.zeros(size,
 *  layout=torch.sparse_coo) are sparse_dim = ndim. dtype UNDEFINED: the default dtype;
 *  device NULL: the default device (ct_device_resolve).
 *  Errors: CT_ERR_RUNTIME "sparse_dim must be in [0, 2], but got 3"; those of
 *  ct_tensor_empty. */
CT_API ct_status ct_sparse_coo_zeros(const int64_t *sizes, int64_t ndim, int64_t sparse_dim,
                                     ct_dtype dtype, const ct_device *device, ct_tensor **out);

/* ---- attributes ------------------------------------------------------------------------ */

/** Tensor.is_sparse: the layout is sparse COO. false for NULL. */
CT_API bool ct_sparse_is_sparse(const ct_tensor *tensor);

/** sparse_dim(): a sparse tensor's; 0 for a strided one (newest PyTorch). */
CT_API ct_status ct_sparse_dim(const ct_tensor *tensor, int64_t *out);
/** dense_dim(): a sparse tensor's; dim() for a strided one (newest PyTorch). */
CT_API ct_status ct_sparse_dense_dim(const ct_tensor *tensor, int64_t *out);
/** _nnz(): the number of stored columns (duplicates count).
 *  Errors: CT_ERR_NOT_IMPLEMENTED "Could not run 'aten::_nnz' with arguments from the 'CPU'
 *  backend." for a non-sparse tensor (the first sentence of PyTorch's message); the other
 *  accessors below say the same with their own name. */
CT_API ct_status ct_sparse_nnz(const ct_tensor *tensor, int64_t *out);
/** is_coalesced(): the flag. */
CT_API ct_status ct_sparse_is_coalesced(const ct_tensor *tensor, bool *out);
/** _coalesced_(flag): set the flag (PyTorch's unchecked setter; the caller vouches). Safe to
 *  call while other threads read the flag. */
CT_API ct_status ct_sparse_set_coalesced(ct_tensor *tensor, bool coalesced);

/** indices(): an alias of the indices of a coalesced tensor. Errors: CT_ERR_RUNTIME
 *  "Cannot get indices on an uncoalesced tensor, please call .coalesce() first". */
CT_API ct_status ct_sparse_indices(const ct_tensor *tensor, ct_tensor **out);
/** values(): an alias of the values of a coalesced tensor. Errors: CT_ERR_RUNTIME
 *  "Cannot get values on an uncoalesced tensor, please call .coalesce() first". */
CT_API ct_status ct_sparse_values(const ct_tensor *tensor, ct_tensor **out);
/** _indices(): the indices tensor itself (a new reference), coalesced or not. */
CT_API ct_status ct_sparse_raw_indices(const ct_tensor *tensor, ct_tensor **out);
/** _values(): the values tensor itself (a new reference), coalesced or not. */
CT_API ct_status ct_sparse_raw_values(const ct_tensor *tensor, ct_tensor **out);

/* ---- operations ------------------------------------------------------------------------ */

/** coalesce(): the tensor itself when flagged coalesced; a copy flagged coalesced when
 *  nnz < 2; otherwise columns sorted lexicographically (stable: equal columns are summed in
 *  their original order), duplicates summed in the values' dtype, new contiguous indices
 *  and values. Errors: CT_ERR_NOT_IMPLEMENTED "\"coalesce\" not implemented for 'UInt16'"
 *  (dtypes newer than PyTorch 1.13, nnz >= 2), "\"cpublas_axpy_impl\" not implemented for
 *  'ComplexHalf'" (complex32 when a sum is needed, as 1.13), the meta error. */
CT_API ct_status ct_sparse_coalesce(const ct_tensor *tensor, ct_tensor **out);

/** to_dense(): a strided tensor is returned itself; a sparse one becomes a new contiguous
 *  strided tensor of its sizes, dtype and device: zeros plus the sparse tensor (as
 *  dense + sparse below, so a stored -0.0 reads +0.0, as in PyTorch). Errors: those of
 *  dense + sparse (complex32 only works coalesced without dense dims, as in 1.13); other
 *  layouts. */
CT_API ct_status ct_sparse_to_dense(const ct_tensor *tensor, ct_tensor **out);

/** to_sparse(): ct_sparse_to_sparse_dim with sparse_dim = dim(). */
CT_API ct_status ct_sparse_to_sparse(const ct_tensor *tensor, ct_tensor **out);
/** to_sparse(sparse_dim): a strided tensor becomes a coalesced sparse COO tensor whose
 *  columns are the positions of the first sparse_dim dims where the dense slice has a
 *  nonzero (NaN counts, -0.0 does not), in lexicographic order; values are copies. A sparse
 *  tensor with that sparse_dim is returned itself (newest PyTorch).
 *  Errors (CT_ERR_RUNTIME): "sparse_dim must be >0 if dimensionality > 0", "sparse_dim must
 *  be less than or equal to self.dim()"; "sparse_coo_to_sparse: conversion from Sparse to
 *  Sparse with sparse_dim argument !=self.sparse_dim() is not supported";
 *  CT_ERR_NOT_IMPLEMENTED "Could not run 'aten::to_sparse' with arguments from the 'Meta'
 *  backend." and "\"nonzero_cpu\" not implemented for 'Float4_e2m1fn_x2'"; other layouts. */
CT_API ct_status ct_sparse_to_sparse_dim(const ct_tensor *tensor, int64_t sparse_dim,
                                         ct_tensor **out);

/** torch.add(self, other, alpha=alpha) where an operand is sparse COO (self + alpha*other).
 *  The result dtype is result_type(self, other), computed in promote_types(self, other).
 *   - sparse + sparse: a sparse result. When both values are contiguous, PyTorch's merge of
 *     the two index lists (walked in order, equal columns added, so coalesced inputs give a
 *     coalesced result; the flag is the "and" of the inputs' flags); otherwise the
 *     concatenation of both (other's values times alpha), coalesced when nnz > numel, and
 *     flagged uncoalesced. An operand with nnz 0 gives a copy of the other (times alpha).
 *   - dense + sparse: a new contiguous strided result, self plus alpha times the sparse
 *     tensor, by PyTorch's add_out_dense_sparse_cpu loops: coalesced (flag or nnz 1) with
 *     contiguous values, column by column; uncoalesced with contiguous values and sparse
 *     dims, column by column in stored order (duplicates added one by one); otherwise
 *     coalesced first. On meta: the result's metadata only.
 *   - sparse + dense: refused, as PyTorch.
 *  Errors (CT_ERR_RUNTIME): "add(sparse, dense) is not supported. Use add(dense, sparse)
 *  instead."; "Boolean alpha only supported for Boolean results.", "For integral input
 *  tensors, argument alpha must not be a floating point number.", "For non-complex input
 *  tensors, argument alpha must not be a complex number."; "Expected all tensors to be on
 *  the same device, but found at least two devices, cpu and meta!"; "add: expected sizes
 *  of 'self' and 'other' to match, but [2] != [3]"; "add: expected 'self' and 'other' to
 *  have same size, but self has size [3] while other has size [2] (FYI: dense-sparse
 *  addition does not currently support broadcasting)"; "add: expected 'self' and 'other'
 *  to have same density, but 'self' has 2 sparse dimensions while 'other' has 1 sparse
 *  dimensions"; CT_ERR_NOT_IMPLEMENTED "\"cadd_sparse\" not implemented for 'Bool'" (sparse
 *  + sparse computes only in uint8..int64, float32, float64, complex64, complex128, as
 *  1.13), "\"add_out_sparse_cpu\" ..." on the concatenating path; CT_ERR_OVERFLOW "value
 *  cannot be converted to type uint8_t without overflow" for alpha; promotion errors; the
 *  errors of coalesce; CT_ERR_NOT_IMPLEMENTED "\"cpublas_axpy_impl\" not implemented for
 *  'ComplexHalf'" where 1.13's loop uses cpublas, "\"add_dense_sparse_non_hybrid\" not
 *  implemented for 'UInt16'" (dtypes newer than 1.13), "result type Long can't be cast to
 *  the desired output type Bool" (PyTorch's mul of other's values by alpha when self has
 *  nnz 0); CT_ERR_INDEX "index 2 is out of bounds for dimension 0 with size 2" for indices
 *  of a tensor made without the invariant checks; CT_ERR_NOT_IMPLEMENTED when neither
 *  operand is sparse or a layout other than strided and sparse COO is given. */
CT_API ct_status ct_sparse_add(const ct_tensor *self, const ct_tensor *other, ct_scalar alpha,
                               ct_tensor **out);

/** torch.sub(self, other, alpha=alpha) with a sparse COO operand: PyTorch's sub_check, then
 *  ct_sparse_add with -alpha. Errors: CT_ERR_RUNTIME "Subtraction, the `-` operator, with
 *  two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
 *  (and the one-bool form); those of ct_sparse_add. */
CT_API ct_status ct_sparse_sub(const ct_tensor *self, const ct_tensor *other, ct_scalar alpha,
                               ct_tensor **out);

/** torch.mul(self, other) with a sparse COO operand (the other one strided or sparse), the
 *  result sparse, of dtype result_type(self, other), as PyTorch 1.13's mul_out_sparse_cpu:
 *   - sparse * strided (either order): the strided operand broadcast with the sparse one,
 *     taken at the sparse indices and multiplied into the values (dense mul semantics);
 *     same indices (a copy), same flag; nnz 0 (or an empty operand) gives an empty result
 *     flagged coalesced. A strided operand with more dims than the sparse one makes its
 *     leading dims new sparse dims: the coalesced sparse operand repeated over them, a
 *     coalesced result.
 *   - sparse * 0-dim sparse: the 0-dim operand's value (zero when it has nnz 0, where
 *     PyTorch reads uninitialised memory), as above.
 *   - sparse * sparse, equal sizes, both flagged coalesced: the shared columns, products in
 *     promote_types, a coalesced result (CT_ERR_NOT_IMPLEMENTED "\"mul_out_sparse\" not
 *     implemented for 'Bool'" for bool and complex32 without dense dims, as 1.13); an
 *     operand with nnz 0 gives an empty result.
 *   - otherwise (an uncoalesced operand, or dense dims that broadcast): every column of the
 *     "source" operand (the uncoalesced one when only one is; else the one with fewer
 *     columns, self on a tie being searched) times every equal column of the other, in the
 *     source's order; flagged coalesced when both are. CT_ERR_RUNTIME
 *     "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal
 *     dimensionality, number of sparse dimensions, and shape of sparse dimensions".
 *  Errors also: broadcasting ("The size of tensor a (3) must match the size of tensor b (2)
 *  at non-singleton dimension 0"), devices, those of the dense mul; CT_ERR_NOT_IMPLEMENTED
 *  when neither operand is sparse. */
CT_API ct_status ct_sparse_mul(const ct_tensor *self, const ct_tensor *other, ct_tensor **out);

/** torch.div(self, other, rounding_mode=mode) with sparse self and a 0-dim strided divisor
 *  (a Python number is a wrapped 0-dim tensor): the values divided (dense div semantics),
 *  same indices (a copy) and flag; with a rounding mode the tensor is coalesced first (the
 *  rounding does not distribute over duplicates), as 1.13. The result dtype is result_type, the
 * default dtype for integers without a rounding mode. Errors (CT_ERR_RUNTIME): "Sparse division
 * requires a scalar or zero-dim dense tensor divisor (got shape [2, 3] for divisor)", "... (got a
 *  sparse divisor)"; those of the dense div. */
CT_API ct_status ct_sparse_div(const ct_tensor *self, const ct_tensor *other, ct_rounding_mode mode,
                               ct_tensor **out);

/** neg(): the values negated (dense neg: bool refused with PyTorch's message), indices
 *  copied, flag kept. */
CT_API ct_status ct_sparse_neg(const ct_tensor *tensor, ct_tensor **out);
/** clone(): copies of indices and values, flag kept. */
CT_API ct_status ct_sparse_clone(const ct_tensor *tensor, ct_tensor **out);
/** to(dtype, device, copy): the values converted by ct_tensor_to (preserve format); the
 *  tensor itself when that returns the values themselves, else a sparse tensor with a copy
 *  of the indices, same flag. Errors: those of ct_tensor_to. */
CT_API ct_status ct_sparse_to(const ct_tensor *tensor, ct_dtype dtype, const ct_device *device,
                              bool copy, ct_tensor **out);
/** A sparse tensor with tensor's indices (a copy, on the values' device), sizes and flag and
 *  the strided `values` (shared), which must have the shape of tensor's values
 *  (CT_ERR_RUNTIME "values has incorrect size, expected [2], got [3]"); the tensor itself
 *  when `values` are its values. What conversions of the values build on. */
CT_API ct_status ct_sparse_with_values(const ct_tensor *tensor, const ct_tensor *values,
                                       ct_tensor **out);
/** transpose(dim0, dim1): dims wrapped as PyTorch's maybe_wrap_dim (CT_ERR_INDEX "Dimension
 *  out of range ..."); equal dims give a clone; otherwise both must be sparse dims
 *  (CT_ERR_RUNTIME "sparse transpose: transposed dimensions must be sparse Got sparse_dim:
 *  1, d0: 0, d1: 1"): index rows swapped (copies), values copied, flagged uncoalesced
 *  (nnz 0 keeps the flag). */
CT_API ct_status ct_sparse_transpose(const ct_tensor *tensor, int64_t dim0, int64_t dim1,
                                     ct_tensor **out);
/** t(): transpose(0, 1) (0, 0 below 2 dims). CT_ERR_RUNTIME "t() expects a tensor with <= 2
 *  sparse and 0 dense dimensions, but got 1 sparse and 1 dense dimensions". */
CT_API ct_status ct_sparse_t(const ct_tensor *tensor, ct_tensor **out);

/** transpose_(dim0, dim1) in place: dims wrapped and checked as ct_sparse_transpose (equal
 *  dims: nothing changes); the two rows of the indices tensor are swapped in place (aliases
 *  of it see the change, as in PyTorch), the sizes swapped and the coalesced flag cleared
 *  (kept when indices and values hold no elements). */
CT_API ct_status ct_sparse_transpose_(ct_tensor *tensor, int64_t dim0, int64_t dim1);
/** t_(): transpose_(0, 1) (0, 0 below 2 dims). CT_ERR_RUNTIME "t_() expects a tensor with <= 2
 *  sparse and 0 dense dimensions, but got 3 sparse and 0 dense dimensions". */
CT_API ct_status ct_sparse_t_(ct_tensor *tensor);

/** stride() as PyTorch 1.13 answers it for a sparse tensor: 1 for dim 0, 0 for the others
 *  (the strides of the empty 1-dim tensor it starts as; newest PyTorch raises instead).
 *  `out` receives dim() values. */
CT_API ct_status ct_sparse_strides(const ct_tensor *tensor, int64_t *out);
/** stride(dim): the same, dim wrapped (CT_ERR_INDEX "Dimension specified as 0 but tensor has
 *  no dimensions", "Dimension out of range ..."). */
CT_API ct_status ct_sparse_stride(const ct_tensor *tensor, int64_t dim, int64_t *out);

/* ---- factories from a tensor, zero_ ----------------------------------------------------- */

/** Which *_like / new_* factory ct_sparse_like and ct_sparse_new run. */
typedef enum ct_sparse_fill {
    CT_SPARSE_FILL_EMPTY = 0, /**< empty_like, new_empty */
    CT_SPARSE_FILL_ZEROS,     /**< zeros_like, new_zeros */
    CT_SPARSE_FILL_ONES,      /**< ones_like, new_ones */
    CT_SPARSE_FILL_FULL,      /**< full_like, new_full (fill_value) */
    CT_SPARSE_FILL_RAND,      /**< rand_like */
    CT_SPARSE_FILL_RANDN,     /**< randn_like */
    CT_SPARSE_FILL_RANDINT,   /**< randint_like (refused on sparse results only) */
} ct_sparse_fill;

/** Options of ct_sparse_like / ct_sparse_new; start from CT_SPARSE_LIKE_OPTIONS_INIT. */
typedef struct ct_sparse_like_options {
    ct_dtype dtype;          /**< UNDEFINED: the input's */
    bool has_layout;         /**< layout= given (else the input's layout) */
    ct_layout layout;        /**< strided or sparse_coo */
    const ct_device *device; /**< NULL: the input's */
    bool has_memory_format;  /**< memory_format= given (not None) */
    ct_memory_format memory_format;
    ct_scalar fill_value; /**< FULL's value */
} ct_sparse_like_options;

#define CT_SPARSE_LIKE_OPTIONS_INIT                                                                \
    {                                                                                              \
        CT_DTYPE_UNDEFINED, false, CT_LAYOUT_STRIDED, NULL, false, CT_MEMFMT_PRESERVE, { 0 }       \
    }

/** torch.<fill>_like(tensor, dtype=, layout=, device=, memory_format=) where the input or the
 *  layout asked for is sparse COO, as PyTorch 1.13: a sparse result (the input's layout
 *  unless layout= says otherwise) is made by empty_like / zeros_like only, with nnz 0, flagged
 *  coalesced, the input's sparse_dim and dense_dim (zeros_like of a strided input: every dim
 *  sparse); a strided result (layout=strided from a sparse input) is the dense factory of
 *  the input's sizes (memory_format as given, preserve meaning contiguous).
 *  Errors: CT_ERR_RUNTIME "memory format option is only supported by strided tensors" (a
 *  sparse result with memory_format given); CT_ERR_NOT_IMPLEMENTED "Could not run
 *  'aten::fill_.Scalar' with arguments from the 'SparseCPU' backend." (ones, full; uniform_
 *  for rand, normal_ for randn, random_.from for randint), "Could not run
 *  'aten::empty_strided' ..." for a non-zeros factory of a strided input with layout
 *  sparse_coo; CT_ERR_MISUSE when neither side is sparse, for randint with a strided result,
 *  or another layout; those of the dense factories. New reference in *out. */
CT_API ct_status ct_sparse_like(const ct_tensor *tensor, ct_sparse_fill fill,
                                const ct_sparse_like_options *options, ct_tensor **out);

/** Tensor.new_<fill>(sizes, dtype=, layout=, device=) of a sparse COO tensor (or with
 *  layout sparse_coo): new_empty and new_zeros give an all-zero sparse tensor of `sizes`
 *  with every dim sparse (nnz 0, coalesced) in the input's dtype and device unless given;
 *  new_ones / new_full refuse as ct_sparse_like; layout=strided gives the dense factory.
 *  Errors as ct_sparse_like (rand fills: CT_ERR_MISUSE), negative sizes. */
CT_API ct_status ct_sparse_new(const ct_tensor *tensor, ct_sparse_fill fill, const int64_t *sizes,
                               int64_t ndim, const ct_sparse_like_options *options,
                               ct_tensor **out);

/** zero_() of a sparse COO tensor, in place: PyTorch 1.13's zeros_out(self, sizes), so every
 *  dim becomes sparse (a hybrid tensor loses its dense dims), nnz 0, flagged coalesced;
 *  dtype, device and sizes kept. Errors: CT_ERR_NOT_IMPLEMENTED "Could not run 'aten::zero_'
 *  ..." for a non-sparse tensor (use ct_tensor_zero_). */
CT_API ct_status ct_sparse_zero_(ct_tensor *tensor);

/* ---- element-wise ops with their own signatures ------------------------------------------
 * The unary.def rows reach sparse tensors through ct_unary; these are the ones outside it,
 * reached through their own entry points (ops.h): isnan, isinf, isposinf, isneginf (and the
 * _out forms of the last two) and pow with a wrapped-number exponent (square is pow 2).
 *  - isnan isinf isposinf isneginf: the strided op on the values of the coalesced input, a
 *    coalesced bool result; out= only into a sparse tensor (CT_ERR_RUNTIME "Expected
 *    self.is_sparse() && result.is_sparse() to be true, but got false.  (Could this ..."),
 *    which must be bool ("isposinf does not support non-boolean outputs."). isfinite and
 *    isreal have no sparse form in 1.13 (its composites fail: NotImplementedError "Could not
 *    run 'aten::ne.Scalar' ..." for floats, "'aten::view_as_real'" for complex, RuntimeError
 *    "memory format option is only supported by strided tensors" for the rest).
 *  - pow(sparse, number): CT_ERR_RUNTIME "pow: cannot raise to zeroth power on sparse
 *    tensor; it would make the result tensor dense" for 0; then the dense pow of the
 *    coalesced values computed into values of the input's dtype, so a result type other
 *    than the input's fails "Found dtype Long but expected Float" (int ** 2.5, bool ** 2);
 *    coalesced result. out= into a sparse tensor of the same dtype only (1.13 asserts on a
 *    strided one: CT_ERR_RUNTIME). pow_ and a tensor exponent (or base) are refused as 1.13:
 *    CT_ERR_NOT_IMPLEMENTED "Could not run 'aten::pow_.Scalar' ...", "... 'aten::pow.Tensor_Tensor'
 * ...". Meta: CT_ERR_NOT_IMPLEMENTED "Could not run 'aten::isnan' with arguments from the
 *  'SparseMeta' backend." (pow: 'aten::pow.Tensor_Scalar'). */

/* ---- printing -------------------------------------------------------------------------- */

/** repr(tensor) / str(tensor) of a sparse COO tensor, as PyTorch 1.13's _str_intern prints
 *  it: "tensor(indices=tensor([[0, 1]]),\n       values=tensor([1., 2.]),\n       size=(2,),
 *  nnz=2, layout=torch.sparse_coo)" (the suffixes always start a new line; a device suffix
 *  first for non-cpu tensors; dtype= unless the dtype is one a dense tensor prints without;
 *  empty indices or values add ", size=(2, 0)"). Meta tensors print "..." for indices and
 *  values and no nnz. `opts` NULL means the process-wide options; `name` NULL means
 *  "tensor" (ct_sparse_repr_named prints a subclass's name, as ct_tensor_repr_named). Other
 *  layouts are handed to ct_tensor_repr_named. *out is freed with ct_string_free.
 *  Errors: CT_ERR_MISUSE for NULL tensor or out; those of ct_print_options_check and of the
 *  dense printer (device copies); CT_ERR_NOMEM. *out is NULL on error. */
CT_API ct_status ct_sparse_repr(const ct_tensor *tensor, const ct_print_options *opts, char **out);
CT_API ct_status ct_sparse_repr_named(const ct_tensor *tensor, const ct_print_options *opts,
                                      const char *name, char **out);

CT_EXTERN_C_END

#endif /* CTENSOR_SPARSE_H */
