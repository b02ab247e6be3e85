/* ctensor: reordering and reshaping tensors (PyTorch's flip, fliplr, flipud, roll, repeat,
 * tile, diagonal, unfold, resize_, resize_as_ and the in-place view ops t_,
 * transpose_, squeeze_, unsqueeze_, as_strided_).
 *
 * diagonal and unfold return views (strides as PyTorch's); flip, roll, repeat and tile
 * copy, without reading values, so they work for every dtype (the shell dtypes
 * float8, float4_e2m1fn_x2 and uint16..uint64 included). Results have PyTorch's memory
 * format: flip keeps the input's (empty_like), roll follows cat, repeat/tile are contiguous. On
 * meta tensors only shapes are computed. On other devices (cuda) flip, roll, repeat, tile,
 * diag_embed, diag and diag_out run on the cpu through host memory (the tensors are copied to
 * the host and the results back: correct, not fast); the view ops run on any device.
 *
 * Ownership as in tensor.h: tensors handed back are NEW references; on failure *out is NULL
 * and nothing is left allocated; an in-place op that fails leaves its tensor unchanged. A
 * NULL tensor is CT_ERR_MISUSE. Dims wrap Python-style with PyTorch's IndexError "Dimension
 * out of range (expected to be in range of [-2, 1], but got 2)".
 */
#ifndef CTENSOR_REORDER_H
#define CTENSOR_REORDER_H

#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/memformat.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** torch.flip(t, dims): the elements reversed along each of `dims` (ndims may be 0: a copy).
 *  Same dtype and memory format as t (empty_like). New reference.
 *  Errors: CT_ERR_RUNTIME "dim 0 appears multiple times in the list of dims"; dim range
 *  errors; CT_ERR_NOMEM; the device's copy errors. */
CT_API ct_status ct_tensor_flip(const ct_tensor *tensor, const int64_t *dims, int64_t ndims,
                                ct_tensor **out);
/** torch.fliplr: flip(dims=[1]). Errors: CT_ERR_RUNTIME "Input must be >= 2-d."; flip's. */
CT_API ct_status ct_tensor_fliplr(const ct_tensor *tensor, ct_tensor **out);
/** torch.flipud: flip(dims=[0]). Errors: CT_ERR_RUNTIME "Input must be >= 1-d."; flip's. */
CT_API ct_status ct_tensor_flipud(const ct_tensor *tensor, ct_tensor **out);

/** torch.roll(t, shifts, dims): elements shifted along dims[i] by shifts[i], wrapping round.
 *  ndims 0 with one shift rolls the flattened tensor and restores the shape. Each dim is a
 *  cat of two narrows (PyTorch's roll_cpu), so the strides follow cat's memory format; an
 *  empty tensor is cloned (preserve_format). New reference.
 *  Errors: CT_ERR_RUNTIME "`shifts` required" (nshifts 0), "shifts and dimensions must
 *  align. shifts: 2, dims:1"; dim range errors; those of cat. */
CT_API ct_status ct_tensor_roll(const ct_tensor *tensor, const int64_t *shifts, int64_t nshifts,
                                const int64_t *dims, int64_t ndims, ct_tensor **out);

/** Tensor.repeat(*repeats): t (with leading 1s added up to nrepeats dims) repeated
 *  repeats[i] times along dim i; contiguous. New reference.
 *  Errors: CT_ERR_RUNTIME "Number of dimensions of repeat dims can not be smaller than number
 *  of dimensions of tensor", "Trying to create tensor with negative dimension -3: [2, -3]";
 *  CT_ERR_NOMEM; those of ct_tensor_copy_. */
CT_API ct_status ct_tensor_repeat(const ct_tensor *tensor, const int64_t *repeats, int64_t nrepeats,
                                  ct_tensor **out);
/** torch.tile(t, reps): repeat with reps padded by leading 1s to t's dims (numpy.tile).
 *  Errors as ct_tensor_repeat. */
CT_API ct_status ct_tensor_tile(const ct_tensor *tensor, const int64_t *reps, int64_t nreps,
                                ct_tensor **out);

/** torch.diag_embed(t, offset, dim1, dim2): a new tensor of zeros with two dims of size
 *  |offset| + t.size(-1) inserted at dim1 and dim2 (wrapped against dim() + 1), whose
 *  diagonal (as ct_tensor_diagonal) holds t's values along its last dim. Contiguous, t's
 *  dtype and device. New reference. Errors: CT_ERR_RUNTIME
 *  "diagonal dimensions cannot be identical 1, 1"; dim range errors; CT_ERR_NOMEM. */
CT_API ct_status ct_tensor_diag_embed(const ct_tensor *tensor, int64_t offset, int64_t dim1,
                                      int64_t dim2, ct_tensor **out);
/** torch.diag(t, diagonal): a 1-D t becomes a matrix (diag_embed on dims 0, 1), a 2-D t
 *  gives a contiguous copy of its diagonal. New reference. Errors: CT_ERR_RUNTIME "matrix or
 *  a vector expected", "numel: integer multiplication overflow" (a 2-D diagonal past the
 *  end: PyTorch 1.13's words). */
CT_API ct_status ct_tensor_diag(const ct_tensor *tensor, int64_t diagonal, ct_tensor **out);
/** torch.diag(t, diagonal, out=out): out resized as PyTorch's resize_output. Errors as
 *  ct_tensor_diag and CT_ERR_RUNTIME "expected scalar type Float but found Int" (out's dtype
 *  must be t's), "diag: expected out on device cuda, got cpu". On error out keeps its
 *  geometry. */
CT_API ct_status ct_tensor_diag_out(const ct_tensor *tensor, int64_t diagonal, ct_tensor *out);

/** torch.diagonal(t, offset, dim1, dim2): a view of the diagonal of dims dim1/dim2, which
 *  are removed, the diagonal becoming the last dim (stride stride(dim1) + stride(dim2));
 *  an offset past the end gives size 0 and keeps t's storage offset, as PyTorch. New
 *  reference. Errors: CT_ERR_RUNTIME "diagonal dimensions cannot be identical 0, 0"; dim
 *  range errors. */
CT_API ct_status ct_tensor_diagonal(const ct_tensor *tensor, int64_t offset, int64_t dim1,
                                    int64_t dim2, ct_tensor **out);

/** Tensor.unfold(dimension, size, step): a view with every slice of `size` elements along
 *  `dimension`, `step` apart, in a new last dim. New reference. Errors: CT_ERR_RUNTIME
 *  "maximum size for tensor at dimension 0 is 3 but size is 4", "step is 0 but must be >
 *  0"; the as_strided errors of a negative size; dim range errors. */
CT_API ct_status ct_tensor_unfold(const ct_tensor *tensor, int64_t dimension, int64_t size,
                                  int64_t step, ct_tensor **out);

/* ---- in place: the tensor object itself gets new metadata (views of it do not) ---------- */

/** Tensor.resize_(sizes, memory_format=): t gets the sizes; with a format (non-NULL) the
 *  strides of that format, without one contiguous strides, or its own strides when the sizes
 *  are unchanged (PyTorch). Keeps the storage offset and the bytes t already had (a storage
 *  too small is replaced for t by a larger one holding a copy; see resize.c).
 *  Errors: CT_ERR_RUNTIME "Trying to resize storage that is not resizable" (memory t does
 *  not own), "numel: integer multiplication overflow" (a negative size, PyTorch's wording),
 *  "Unsupported memory formatPreserve", "required rank 4 tensor to use channels_last
 *  format"; CT_ERR_NOMEM. On error t is unchanged. */
CT_API ct_status ct_tensor_resize_(ct_tensor *tensor, const int64_t *sizes, int64_t ndim,
                                   const ct_memory_format *format);
/** Tensor.resize_as_(other, memory_format=): resize_(other's sizes, format); a
 *  CT_MEMFMT_PRESERVE format means other's suggest_memory_format. Errors as resize_. */
CT_API ct_status ct_tensor_resize_as_(ct_tensor *tensor, const ct_tensor *other,
                                      const ct_memory_format *format);

/** Tensor.t_(), transpose_(d0, d1), squeeze_(), squeeze_(dim), unsqueeze_(dim),
 *  as_strided_(sizes, strides, offset): the metadata of the view op put into t itself.
 *  Errors: those of the view ops (tensor.h). */
CT_API ct_status ct_tensor_t_(ct_tensor *tensor);
CT_API ct_status ct_tensor_transpose_(ct_tensor *tensor, int64_t dim0, int64_t dim1);
CT_API ct_status ct_tensor_squeeze_(ct_tensor *tensor);
CT_API ct_status ct_tensor_squeeze_dim_(ct_tensor *tensor, int64_t dim);
CT_API ct_status ct_tensor_unsqueeze_(ct_tensor *tensor, int64_t dim);
/** storage_offset NULL keeps t's. */
CT_API ct_status ct_tensor_as_strided_(ct_tensor *tensor, const int64_t *sizes,
                                       const int64_t *strides, int64_t ndim,
                                       const int64_t *storage_offset);

CT_EXTERN_C_END

#endif /* CTENSOR_REORDER_H */
