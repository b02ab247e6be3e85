/* ctensor: joining and splitting tensors (PyTorch's cat, stack, split, chunk, unbind,
 * unflatten, movedim).
 *
 * cat and stack copy; the others return views sharing the input's storage (strides as
 * PyTorch's). Ownership as in tensor.h: every tensor handed back is a NEW reference; lists
 * of tensors come back as an array of new references that ct_tensor_list_release frees
 * (the array and every reference). On failure out-parameters are NULL / 0 and nothing is
 * left allocated. A NULL tensor (or list with n > 0) is CT_ERR_MISUSE.
 *
 * Dims wrap Python-style with PyTorch's IndexError "Dimension out of range (expected to be
 * in range of [-2, 1], but got 2)".
 */
#ifndef CTENSOR_JOIN_H
#define CTENSOR_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.cat(tensors, dim): the result's dtype is the promotion of every input's dtype
 *  (shell dtypes such as float8 join their own kind: cat never reads values), its sizes the
 *  inputs' with `dim` summed, its memory format the inputs' common suggest_memory_format
 *  (contiguous when they differ), its device the first non-skipped input's. 1-D tensors of
 *  shape (0,) are skipped (but still take part in the dtype promotion), as in PyTorch; the
 *  dim is wrapped against the first input that is not skipped. Inputs are converted by the
 *  copy path of ct_tensor_copy_ (threaded). New reference in *out.
 *  Errors: CT_ERR_RUNTIME "torch.cat(): expected a non-empty list of Tensors" (n == 0),
 *  "zero-dimensional tensor (at position 0) cannot be concatenated", "Tensors must have same
 *  number of dimensions: got 2 and 3", "Sizes of tensors must match except in dimension 1.
 *  Expected size 2 but got size 3 for tensor number 1 in the list.", "Expected all tensors
 *  to be on the same device, but found at least two devices, cpu and meta!"; CT_ERR_INDEX
 *  dim out of range; the errors of ct_promote_types; CT_ERR_NOMEM; device errors. */
CT_API ct_status ct_tensor_cat(const ct_tensor *const *tensors, size_t n, int64_t dim,
                               ct_tensor **out);

/** torch.cat(tensors, dim, out=out): as ct_tensor_cat, writing into `out`, which is resized
 *  (PyTorch's resize_output: a warning when it had elements and another shape; a resized
 *  out takes the memory format of the result). Errors as ct_tensor_cat and:
 *  CT_ERR_RUNTIME "torch.cat(): input types can't be cast to the desired output type Int",
 *  "Expected out tensor to have device cpu, but got meta instead", the overlap errors of
 *  ct_tensor_copy_ when out shares memory with an input (or with itself); the errors of
 *  resizing ("Trying to resize storage that is not resizable"). On error out may have been
 *  resized but holds no partial result of an input that failed its checks. */
CT_API ct_status ct_tensor_cat_out(const ct_tensor *const *tensors, size_t n, int64_t dim,
                                   ct_tensor *out);

/** torch.stack(tensors, dim): the inputs (all the same shape) joined along a new dim
 *  (wrapped against dim() + 1). As PyTorch: for dim < dim() the result is cat along dim
 *  viewed with the new dim (so its strides follow cat's memory format). New reference.
 *  Errors: CT_ERR_RUNTIME "stack expects a non-empty TensorList", "stack expects each tensor
 *  to be equal size, but got [2, 3] at entry 0 and [3, 3] at entry 1"; those of cat. */
CT_API ct_status ct_tensor_stack(const ct_tensor *const *tensors, size_t n, int64_t dim,
                                 ct_tensor **out);

/** torch.stack(tensors, dim, out=out). Errors as ct_tensor_stack and ct_tensor_cat_out. */
CT_API ct_status ct_tensor_stack_out(const ct_tensor *const *tensors, size_t n, int64_t dim,
                                     ct_tensor *out);

/** torch.atleast_1d / atleast_2d / atleast_3d (ndim 1, 2 or 3): the tensor itself (a new
 *  reference to the same object) when it has at least ndim dims, else a view with dims of
 *  size 1 added as PyTorch adds them: a 0-dim tensor becomes (1), (1, 1) or (1, 1, 1); a
 *  vector (n) becomes (1, n) or (1, n, 1); a matrix (m, n) becomes (m, n, 1). Errors:
 *  CT_ERR_MISUSE for ndim outside 1..3. New reference in *out. */
CT_API ct_status ct_tensor_atleast(const ct_tensor *tensor, int ndim, ct_tensor **out);

/** The NumPy-style joins, each cat of views of its inputs, as PyTorch composes them. */
typedef enum ct_join_kind {
    CT_JOIN_HSTACK = 0,      /**< torch.hstack: atleast_1d, then cat along 0 for vectors, else 1 */
    CT_JOIN_VSTACK = 1,      /**< torch.vstack (row_stack): atleast_2d, then cat along 0 */
    CT_JOIN_DSTACK = 2,      /**< torch.dstack: atleast_3d, then cat along 2 */
    CT_JOIN_COLUMN_STACK = 3 /**< torch.column_stack: scalars and vectors as (n, 1) columns,
                                  then cat along 1 */
} ct_join_kind;

/** torch.hstack(tensors) and the other kinds: a new tensor (as ct_tensor_cat) in *out.
 *  Errors: CT_ERR_RUNTIME "hstack expects a non-empty TensorList" (n == 0; the kind's name);
 *  those of ct_tensor_cat ("Tensors must have same number of dimensions: got 1 and 2", ...);
 *  CT_ERR_MISUSE for an invalid kind or a NULL tensor. */
CT_API ct_status ct_tensor_join_kind(ct_join_kind kind, const ct_tensor *const *tensors, size_t n,
                                     ct_tensor **out);
/** torch.hstack(tensors, out=out) and the other kinds: as ct_tensor_cat_out. */
CT_API ct_status ct_tensor_join_kind_out(ct_join_kind kind, const ct_tensor *const *tensors,
                                         size_t n, ct_tensor *out);

/** torch.meshgrid(*tensors, indexing='ij' or 'xy' (xy true)): n >= 1 tensors of 0 or 1 dims,
 *  one dtype and one device; grid i is input i viewed along dim i and expanded to the sizes
 *  (numel of each input) — views with stride 0 along the other dims. 'xy' exchanges the
 *  roles of the first two inputs (their grids' first two dims). A list of n new references
 *  in *out (ct_tensor_list_release). Errors: CT_ERR_RUNTIME "meshgrid expects a non-empty
 *  TensorList", "meshgrid expects all tensors to have the same dtype" (and "... device"),
 *  "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of sizes [2,
 *  2]" (PyTorch prints the tensor); CT_ERR_VALUE for more than CT_MAX_DIMS inputs. */
CT_API ct_status ct_tensor_meshgrid(const ct_tensor *const *tensors, size_t n, bool xy,
                                    ct_tensor ***out);

/** Release every reference of a list returned below, then the array. NULL is fine. */
CT_API void ct_tensor_list_release(ct_tensor **list, int64_t n);

/** split(split_size, dim): views of `split_size` along dim, the last one shorter.
 *  *out gets a new array of *n new references (free with ct_tensor_list_release).
 *  Errors: CT_ERR_RUNTIME "split expects at least a 1-dimensional tensor", "split expects
 *  split_size be non-negative, but got split_size=-1", "split_size can only be 0 if
 *  dimension size is 0, but got dimension size of 3"; dim range errors. */
CT_API ct_status ct_tensor_split(const ct_tensor *tensor, int64_t split_size, int64_t dim,
                                 ct_tensor ***out, int64_t *n);

/** split_with_sizes(sizes, dim): one view per entry of `sizes`. Errors: CT_ERR_RUNTIME
 *  "split_with_sizes expects split_sizes have only non-negative entries, but got
 *  split_sizes=[-1, 4]", "split_with_sizes expects split_sizes to sum exactly to 3 (input
 *  tensor's size at dimension 0), but got split_sizes=[1, 1]"; those of ct_tensor_split. */
CT_API ct_status ct_tensor_split_with_sizes(const ct_tensor *tensor, const int64_t *sizes,
                                            int64_t nsizes, int64_t dim, ct_tensor ***out,
                                            int64_t *n);

/** chunk(chunks, dim): split with ceil(size / chunks) (so possibly fewer than `chunks`
 *  pieces), and `chunks` empty pieces for a dim of size 0. Errors: CT_ERR_RUNTIME "chunk
 *  expects at least a 1-dimensional tensor", "chunk expects `chunks` to be greater than 0,
 *  got: 0"; dim range errors. */
CT_API ct_status ct_tensor_chunk(const ct_tensor *tensor, int64_t chunks, int64_t dim,
                                 ct_tensor ***out, int64_t *n);

/** unbind(dim): the select(dim, i) views. Errors: CT_ERR_INDEX "Dimension specified as 0
 *  but tensor has no dimensions" for a 0-dim tensor (after checking dim in [-1, 0]); dim
 *  range errors. */
CT_API ct_status ct_tensor_unbind(const ct_tensor *tensor, int64_t dim, ct_tensor ***out,
                                  int64_t *n);

/** unflatten(dim, sizes): dim replaced by `sizes` (one entry may be -1), a view.
 *  Errors: CT_ERR_RUNTIME "unflatten: sizes must be non-empty", "unflatten: Provided sizes
 *  [2, 2] don't multiply up to the size of dim 0 (3) in the input tensor"; the shape errors
 *  of ct_tensor_view ("only one dimension can be inferred"); dim range errors. */
CT_API ct_status ct_tensor_unflatten(const ct_tensor *tensor, int64_t dim, const int64_t *sizes,
                                     int64_t nsizes, ct_tensor **out);

/** movedim(source, destination) (alias moveaxis): the dims in `source` moved to the
 *  positions in `destination`, the others keep their order; a view. Errors: CT_ERR_RUNTIME
 *  "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the
 *  same number of dims as destination ([0] dims)", "movedim: repeated dim in `source`
 *  ([0, 0])", "movedim: repeated dim in `destination` ([0, 0])"; dim range errors. */
CT_API ct_status ct_tensor_movedim(const ct_tensor *tensor, const int64_t *source, int64_t nsource,
                                   const int64_t *destination, int64_t ndest, ct_tensor **out);

CT_EXTERN_C_END

#endif /* CTENSOR_JOIN_H */
