/* ctensor: storages and tensors.
 *
 * A ct_storage owns (or wraps) a block of bytes on one device and remembers its size and
 * device. A ct_tensor is a view of a storage: sizes and strides (in elements, as PyTorch
 * and DLPack count them), a storage offset, a dtype, a device and a layout. Views share
 * their storage and hold a reference to it, never to the tensor they came from, so a view
 * outlives its base and references may be released in any order.
 *
 * Ownership: every function that hands back a tensor or storage through an out-parameter
 * gives a NEW reference (release it with ct_tensor_release / ct_storage_release), also when
 * the result is the input itself (contiguous() of a contiguous tensor, to() without change);
 * accessors returning pointers return borrowed ones. Release functions accept NULL. On
 * failure out-parameters are set to NULL and nothing is left allocated.
 *
 * Tensor metadata (sizes, strides, offset, dtype, device) never changes after creation;
 * only the data and the wrapped-number flag do. So distinct threads may read and view the
 * same tensor concurrently; writing a tensor's data while another thread reads it is a data
 * race, as in PyTorch. Reference counts are atomic.
 *
 * Arguments: dims are wrapped Python-style (-1 is the last dim) with PyTorch's IndexError
 * "Dimension out of range (expected to be in range of [-2, 1], but got 2)"; a 0-dim tensor
 * accepts dims -1 and 0 where PyTorch does. Sizes are int64; every size, stride and offset
 * computation is overflow-checked (CT_ERR_OVERFLOW, with PyTorch's message where it has
 * one: "Stride calculation overflowed", "Storage size calculation overflowed with
 * sizes=[...]"). At most CT_MAX_DIMS (64) dims: CT_ERR_VALUE "maximum supported dimension
 * for a tensor is 64, found 65". A NULL tensor argument is CT_ERR_MISUSE.
 *
 * Devices: factory functions take `const ct_device *device`, NULL meaning the default
 * device (ct_device_resolve: innermost scope, else global default, else cpu); cpu tensors
 * never carry an index and accelerator tensors always carry the concrete one. Meta tensors
 * have metadata only: they have no data pointer, data-reading operations refuse them, and
 * writes into them do nothing. Data never moves between devices except in ct_tensor_copy_
 * and the to()/to_device functions that call it.
 */
#ifndef CTENSOR_TENSOR_H
#define CTENSOR_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/device.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/layout.h"
#include "ctensor/memformat.h"
#include "ctensor/scalar.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

typedef struct ct_storage ct_storage;
typedef struct ct_tensor ct_tensor;

/** The `stop` of ct_tensor_slice that means "to the end" (Python's None). */
#define CT_SLICE_END INT64_MAX

/* ---- storages ------------------------------------------------------------------------- */

/** Allocate `nbytes` on `device` (resolved as ct_device_alloc does: an accelerator without
 *  index means its current device). Meta storages have a size but no memory. The bytes are
 *  uninitialised. Returns a new reference in *out.
 *  Errors: those of ct_device_alloc (CT_ERR_NOMEM, CT_ERR_OVERFLOW, device errors). */
CT_API ct_status ct_storage_new(ct_device device, size_t nbytes, ct_storage **out);

/** Called once when a wrapping storage dies, with the `ctx` and `data` it was made with. */
typedef void (*ct_storage_finalizer)(void *ctx, void *data);

/** Wrap external memory: `nbytes` at `data` on `device` (a concrete device: cpu, meta, or
 *  an accelerator with index). ctensor never frees `data`; when the last reference goes, it
 *  calls `finalizer(ctx, data)` (if not NULL), e.g. a DLPack deleter. On failure nothing is
 *  taken over: the finalizer is NOT called and the caller still owns the memory.
 *  Errors: CT_ERR_MISUSE for NULL data with nbytes > 0 (except on meta), an accelerator
 *  device without index, an invalid device; CT_ERR_NOMEM. */
CT_API ct_status ct_storage_wrap(ct_device device, void *data, size_t nbytes,
                                 ct_storage_finalizer finalizer, void *ctx, ct_storage **out);

/** Add a reference; returns `storage` (NULL gives NULL). */
CT_API ct_storage *ct_storage_retain(ct_storage *storage);
/** Drop a reference; the last one frees the memory (or runs the finalizer). NULL is fine. */
CT_API void ct_storage_release(ct_storage *storage);
/** The data pointer (borrowed; NULL for meta and for an empty wrapped block). */
CT_API void *ct_storage_data(const ct_storage *storage);
CT_API size_t ct_storage_nbytes(const ct_storage *storage);
/** The concrete device (cpu and meta without index). */
CT_API ct_device ct_storage_device(const ct_storage *storage);
/** The current number of references (for tests and debugging; 0 for NULL). */
CT_API int64_t ct_storage_refcount(const ct_storage *storage);
/** true for storages made by ct_storage_wrap. */
CT_API bool ct_storage_is_external(const ct_storage *storage);

/* ---- tensor references ---------------------------------------------------------------- */

/** Add a reference; returns `tensor` (NULL gives NULL). */
CT_API ct_tensor *ct_tensor_retain(ct_tensor *tensor);
/** Drop a reference; the last one releases the storage reference. NULL is fine. */
CT_API void ct_tensor_release(ct_tensor *tensor);
/** The current number of references (for tests and debugging; 0 for NULL). */
CT_API int64_t ct_tensor_refcount(const ct_tensor *tensor);

/** A strided tensor over `storage` (PyTorch's set_ / as_strided on a storage), geometry
 *  first, then dtype: `strides` NULL means contiguous strides. The tensor's device is the
 *  storage's. New reference in *out.
 *  Errors: CT_ERR_RUNTIME "setStorage: sizes [2, 3], strides [3, 1], storage offset 0, and
 *  itemsize 4 requiring a storage size of 24 are out of bounds for storage of size 20";
 *  "as_strided: Negative strides are not supported at the moment, got strides: [-1]";
 *  "Tensor: invalid storage offset -1"; negative sizes; overflow; CT_ERR_MISUSE for NULL
 *  storage, NULL out or an invalid dtype. */
CT_API ct_status ct_tensor_from_storage(ct_storage *storage, const int64_t *sizes,
                                        const int64_t *strides, int64_t ndim,
                                        int64_t storage_offset, ct_dtype dtype, ct_tensor **out);

/* ---- attributes (all total: a NULL tensor gives 0 / NULL / false) --------------------- */

/** dim(): the number of dimensions. */
CT_API int64_t ct_tensor_dim(const ct_tensor *tensor);
/** The sizes (shape), dim() entries; borrowed, valid as long as the tensor. Never NULL for
 *  a tensor (a 0-dim tensor gives a pointer to no entries). */
CT_API const int64_t *ct_tensor_sizes(const ct_tensor *tensor);
/** The strides in elements, dim() entries; borrowed. NULL for non-strided layouts. */
CT_API const int64_t *ct_tensor_strides(const ct_tensor *tensor);
/** size(dim) with dim wrapping. Errors: CT_ERR_INDEX "Dimension out of range (...)", and
 *  for a 0-dim tensor "Dimension specified as 0 but tensor has no dimensions". */
CT_API ct_status ct_tensor_size(const ct_tensor *tensor, int64_t dim, int64_t *out);
/** stride(dim), as ct_tensor_size. */
CT_API ct_status ct_tensor_stride(const ct_tensor *tensor, int64_t dim, int64_t *out);
CT_API int64_t ct_tensor_storage_offset(const ct_tensor *tensor);
CT_API int64_t ct_tensor_numel(const ct_tensor *tensor);
/** element_size(): bytes per element (float4_e2m1fn_x2: per packed pair). */
CT_API size_t ct_tensor_element_size(const ct_tensor *tensor);
/** nbytes: numel() * element_size(). */
CT_API int64_t ct_tensor_nbytes(const ct_tensor *tensor);
CT_API ct_dtype ct_tensor_dtype(const ct_tensor *tensor);
/** The device the data lives on (cpu and meta without index, accelerators with one). */
CT_API ct_device ct_tensor_device(const ct_tensor *tensor);
CT_API ct_layout ct_tensor_layout(const ct_tensor *tensor);
/** get_device(): the index for accelerators, -1 for cpu and meta. */
CT_API int32_t ct_tensor_get_device(const ct_tensor *tensor);
CT_API bool ct_tensor_is_floating_point(const ct_tensor *tensor);
CT_API bool ct_tensor_is_complex(const ct_tensor *tensor);
CT_API bool ct_tensor_is_meta(const ct_tensor *tensor);
/** is_contiguous(memory_format), as ct_strides_are_contiguous (memformat.h) for the
 *  tensor's sizes and strides. Cached: O(1). false for an invalid format. Sparse COO tensors
 *  answer as PyTorch's: true for contiguous (and preserve), false for channels-last. */
CT_API bool ct_tensor_is_contiguous(const ct_tensor *tensor, ct_memory_format format);
/** PyTorch's is_non_overlapping_and_dense: contiguous in some dimension order. Cached. */
CT_API bool ct_tensor_is_non_overlapping_and_dense(const ct_tensor *tensor);
/** suggest_memory_format(exact_match), as ct_strides_suggest_memory_format. */
CT_API ct_memory_format ct_tensor_suggest_memory_format(const ct_tensor *tensor, bool exact_match);
/** The address of element [0, ..., 0]: storage data + storage_offset * element_size.
 *  Borrowed; NULL for meta tensors. On an accelerator it is a device pointer. Valid while
 *  the tensor keeps its storage: an `out=` that grows the tensor gives it a new one and may
 *  free the old. Whatever hands the pointer on with a lifetime of its own (the exports of
 *  dlpack.h, Python's numpy()) holds an alias (ct_tensor_alias) or the storage instead. */
CT_API void *ct_tensor_data_ptr(const ct_tensor *tensor);
/** Tensor.data_ptr(): ct_tensor_data_ptr's address in *out (NULL for meta tensors). Errors:
 *  CT_ERR_RUNTIME "Cannot access data pointer of Tensor that doesn't have storage" for sparse
 *  tensors; CT_ERR_MISUSE for NULL arguments. */
CT_API ct_status ct_tensor_get_data_ptr(const ct_tensor *tensor, void **out);
/** The storage (borrowed; the same caveat as ct_tensor_data_ptr: retain it to keep it). */
CT_API ct_storage *ct_tensor_storage(const ct_tensor *tensor);
/** Whether the tensor is a "wrapped number" (a 0-dim tensor standing for a Python scalar,
 *  which counts in the lowest priority group of result_type). */
CT_API bool ct_tensor_is_wrapped_number(const ct_tensor *tensor);
/** Mark or unmark a 0-dim tensor as a wrapped number. Not synchronised: call it before the
 *  tensor is shared. Errors: CT_ERR_RUNTIME "wrapped number flag can only be set on 0-dim
 *  tensors, got a 2-dim tensor". */
CT_API ct_status ct_tensor_set_wrapped_number(ct_tensor *tensor, bool wrapped);
/** The legacy type string of tensor.type(): "torch.FloatTensor", "torch.cuda.LongTensor",
 *  "torch.meta.FloatTensor", "torch.<privateuse1 name>.FloatTensor",
 *  "torch.sparse.FloatTensor" (sparse COO). Written NUL-terminated into buf; 64 bytes
 *  always suffice. Errors: CT_ERR_MISUSE for NULL arguments or a buffer too small. */
CT_API ct_status ct_tensor_type_string(const ct_tensor *tensor, char *buf, size_t size);
/** item(): the single element as a scalar (bool -> BOOL, integers -> INT, or UINT above
 *  INT64_MAX, floating -> FLOAT, complex -> COMPLEX). Reads through the device.
 *  Errors: CT_ERR_RUNTIME "a Tensor with 2 elements cannot be converted to Scalar";
 *  CT_ERR_NOT_IMPLEMENTED "Tensor.item() cannot be called on meta tensors" and
 *  "\"item\" not implemented for 'Float4_e2m1fn_x2'"; device errors. */
CT_API ct_status ct_tensor_item(const ct_tensor *tensor, ct_scalar *out);

/* ---- creation --------------------------------------------------------------------------
 * dtype CT_DTYPE_UNDEFINED means PyTorch's default for the function (the default dtype for
 * empty/zeros/ones/rand/randn; inferred from the value for full and arange). `sizes` may be
 * NULL when ndim == 0. Layouts other than strided: CT_ERR_NOT_IMPLEMENTED "<fn>: layout
 * torch.sparse_coo is not supported by the tensor core" (the sparse layer builds those).
 * Shell dtypes (float8, float4, uint16/32/64) can be created, filled and copied.
 * Negative sizes: CT_ERR_RUNTIME "Trying to create tensor with negative dimension -1:
 * [-1, 3]"; sizes whose storage does not fit: CT_ERR_OVERFLOW "Storage size calculation
 * overflowed with sizes=[...]"; CT_ERR_MISUSE for an invalid dtype, layout or format. */

/** torch.empty: uninitialised. `format` contiguous, channels_last (4-D) or
 *  channels_last_3d (5-D); errors of ct_memory_format_strides ("unsupported memory format
 *  Preserve", "required rank 4 tensor to use channels_last format"). New reference in *out. */
CT_API ct_status ct_tensor_empty(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                 const ct_device *device, ct_layout layout, ct_memory_format format,
                                 ct_tensor **out);

/** torch.empty_strided: uninitialised, with the given strides (storage sized to reach the
 *  last element). Errors as ct_tensor_empty; negative strides: "empty_strided: Negative
 *  strides are not supported at the moment, got strides: [...]". New reference in *out. */
CT_API ct_status ct_tensor_empty_strided(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                         ct_dtype dtype, const ct_device *device, ct_layout layout,
                                         ct_tensor **out);

/** torch.zeros: every byte zero, for every dtype (float8_e8m0fnu: code 0x00 = 2^-127, as
 *  PyTorch's zero_ writes; complex: 0+0j). New reference in *out. */
CT_API ct_status ct_tensor_zeros(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                 const ct_device *device, ct_layout layout, ct_tensor **out);

/** torch.ones: ct_tensor_full with 1 (float8 formats: their encoding of 1.0; float4_e2m1fn_x2:
 *  both nibbles 1.0, byte 0x22). New reference in *out. */
CT_API ct_status ct_tensor_ones(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                const ct_device *device, ct_layout layout, ct_tensor **out);

/** The dtype torch.full(size, value, dtype=requested) makes: `requested` itself unless it is
 *  CT_DTYPE_UNDEFINED (not checked here: the factory that uses it checks it), else the one
 *  inferred from the value as PyTorch's infer_full_options does: bool for a bool, int64 for
 *  an integer (signed or not), complex128 for a complex when the default dtype is float64
 *  and complex64 otherwise, the default dtype for a float. ct_tensor_full and the global
 *  factories (ct_global_full) infer through it. Returns CT_OK with *out set.
 *  Errors: CT_ERR_MISUSE for a NULL out. */
CT_API ct_status ct_full_dtype(ct_scalar value, ct_dtype requested, ct_dtype *out);
/** torch.full(size, value): dtype UNDEFINED infers bool for a bool, int64 for an integer,
 *  complex128 for a complex when the default dtype is float64 and complex64 otherwise, and
 *  the default dtype for a float (PyTorch's infer_full_options). The value is converted by
 *  ct_scalar_to_dtype, with its overflow error. Sparse layout: CT_ERR_RUNTIME "full(...) is
 *  not implemented for sparse layout". New reference in *out. */
CT_API ct_status ct_tensor_full(const int64_t *sizes, int64_t ndim, ct_scalar value, ct_dtype dtype,
                                const ct_device *device, ct_layout layout, ct_tensor **out);

/** torch.empty_like(t, dtype, device, memory_format): dtype UNDEFINED and device NULL keep
 *  the input's (an explicit device is resolved: 'cuda' -> the current device). `format`
 *  preserve (PyTorch's default) gives exactly the input's strides when it is non-overlapping
 *  and dense, else dense strides in the input's dimension order (infer_dense_strides); any
 *  other format allocates that format. The result is never a wrapped number.
 *  New reference in *out. */
CT_API ct_status ct_tensor_empty_like(const ct_tensor *tensor, ct_dtype dtype,
                                      const ct_device *device, ct_memory_format format,
                                      ct_tensor **out);
/** torch.zeros_like: ct_tensor_empty_like, then every byte zero. New reference in *out. */
CT_API ct_status ct_tensor_zeros_like(const ct_tensor *tensor, ct_dtype dtype,
                                      const ct_device *device, ct_memory_format format,
                                      ct_tensor **out);
/** torch.ones_like: ct_tensor_empty_like, then filled with 1 (as ct_tensor_ones).
 *  New reference in *out. */
CT_API ct_status ct_tensor_ones_like(const ct_tensor *tensor, ct_dtype dtype,
                                     const ct_device *device, ct_memory_format format,
                                     ct_tensor **out);
/** torch.full_like: dtype UNDEFINED keeps the input's dtype (not inferred from the value).
 *  New reference in *out. */
CT_API ct_status ct_tensor_full_like(const ct_tensor *tensor, ct_scalar value, ct_dtype dtype,
                                     const ct_device *device, ct_memory_format format,
                                     ct_tensor **out);

/** torch.arange(start, end, step): 1-D, values start + i * step computed in PyTorch's
 *  accumulate type (int64 for integer dtypes, double for float32/float64, float for
 *  float16/bfloat16). dtype UNDEFINED: int64 when start, end and step are all integral
 *  (bool counts), else the default dtype. The size is ceil((end - start) / step) in double,
 *  except for int64, where integer arithmetic gives ceil of the truncated bounds as PyTorch.
 *  Errors: CT_ERR_NOT_IMPLEMENTED "\"arange_cpu\" not implemented for 'Bool'" (only uint8,
 *  int8, int16, int32, int64, float16, bfloat16, float32, float64); CT_ERR_RUNTIME "step
 *  must be nonzero", "unsupported range: 0 -> inf", "upper bound and larger bound
 *  inconsistent with step sign", "invalid size, possible overflow?"; the overflow error of
 *  converting a bound to the accumulate type ("value cannot be converted to type int64_t
 *  without overflow"). New reference in *out. */
CT_API ct_status ct_tensor_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype,
                                  const ct_device *device, ct_layout layout, ct_tensor **out);

/** A contiguous tensor holding a copy of the host array `data`: numel elements of `dtype`
 *  in C order, in the dtype's storage format (convert.h). `dtype` must be concrete.
 *  Errors: as ct_tensor_empty; CT_ERR_MISUSE for CT_DTYPE_UNDEFINED or NULL data with
 *  numel > 0. New reference in *out. */
CT_API ct_status ct_tensor_from_data(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                     const void *data, const ct_device *device, ct_tensor **out);

/** A 0-dim tensor holding `value` (torch.tensor(value, dtype=...)): dtype UNDEFINED infers
 *  bool / int64 / the default dtype / the default complex dtype from the value's kind.
 *  Errors: the overflow error of ct_scalar_to_dtype; those of ct_tensor_empty.
 *  New reference in *out. */
CT_API ct_status ct_tensor_scalar_tensor(ct_scalar value, ct_dtype dtype, const ct_device *device,
                                         ct_tensor **out);

/** A wrapped number: a 0-dim cpu tensor of the scalar's own dtype (bool, int64, float64,
 *  complex128) flagged as wrapped, as PyTorch turns a Python scalar operand into a tensor.
 *  Errors: CT_ERR_OVERFLOW "value cannot be converted to type int64_t without overflow" for
 *  CT_SCALAR_UINT (PyTorch refuses Python ints beyond int64 there); CT_ERR_NOMEM.
 *  New reference in *out. */
CT_API ct_status ct_tensor_wrapped_number(ct_scalar value, ct_tensor **out);

/* ---- in-place data operations ------------------------------------------------------------ */

/** fill_(value): every element becomes `value`, converted by ct_scalar_to_dtype (with its
 *  overflow error; nothing is written then). Works for any strides, also overlapping ones
 *  (fill is idempotent), on any device; meta tensors are left as they are. */
CT_API ct_status ct_tensor_fill_(ct_tensor *tensor, ct_scalar value);

/** zero_(): every element's bytes become zero. */
CT_API ct_status ct_tensor_zero_(ct_tensor *tensor);

/** copy_(src): write src, broadcast to dst's shape, into dst, converting dtypes as
 *  ct_convert does and moving data between devices through ct_device_copy (staged through
 *  host memory when dtype or strides differ too). src and dst may share memory: a full
 *  overlap is fine and any other overlap is resolved by copying src first (PyTorch refuses
 *  partial overlap of dense tensors; so does this). Copying into a meta tensor only checks
 *  shapes.
 *  Errors (nothing is written then, except after a device failure midway):
 *  CT_ERR_RUNTIME "The size of tensor a (3) must match the size of tensor b (2) at
 *  non-singleton dimension 1", "output with shape [3] doesn't match the broadcast shape
 *  [2, 3]", "unsupported operation: more than one element of the written-to tensor refers
 *  to a single memory location. Please clone() the tensor before performing the
 *  operation.", "unsupported operation: some elements of the input tensor and the
 *  written-to tensor refer to a single memory location. Please clone() the tensor before
 *  performing the operation."; CT_ERR_NOT_IMPLEMENTED "Cannot copy out of meta tensor; no
 *  data!" and "\"copy_\" not implemented for 'Float4_e2m1fn_x2'" (float4 with any other
 *  dtype); CT_ERR_NOMEM; device errors. */
CT_API ct_status ct_tensor_copy_(ct_tensor *dst, const ct_tensor *src);

/* ---- copies ----------------------------------------------------------------------------- */

/** clone(memory_format): a new tensor with a copy of the data, on the same device, with
 *  empty_like's strides for `format` (preserve: the input's strides when non-overlapping
 *  and dense, else infer_dense_strides). New reference in *out. */
CT_API ct_status ct_tensor_clone(const ct_tensor *tensor, ct_memory_format format, ct_tensor **out);

/** contiguous(memory_format): the tensor itself (a new reference) when it is already
 *  contiguous in `format`, else clone(format). Errors: CT_ERR_RUNTIME "preserve memory
 *  format is unsupported by the contiguous operator" for preserve on a non-contiguous
 *  tensor; the rank errors of channels-last formats. */
CT_API ct_status ct_tensor_contiguous(const ct_tensor *tensor, ct_memory_format format,
                                      ct_tensor **out);

/** The E2M1 codes of a cpu float4_e2m1fn_x2 tensor, one per byte (ml_dtypes' float4_e2m1fn
 *  layout): a new contiguous uint8 tensor whose last dim is twice `packed`'s (a 0-dim tensor
 *  gives 2 codes), element 0 of each byte (its low nibble) first. Errors: CT_ERR_TYPE for
 *  another dtype; CT_ERR_NOT_IMPLEMENTED off the cpu or for sparse. New reference in
 *  *codes. */
CT_API ct_status ct_tensor_float4_codes(const ct_tensor *packed, ct_tensor **codes);
/** The inverse of ct_tensor_float4_codes: codes (uint8, each < 16, a last dim of even size)
 *  packed two to a byte into a new contiguous float4_e2m1fn_x2 tensor. Errors: CT_ERR_TYPE
 *  for codes not uint8; CT_ERR_VALUE for an odd last dim (or 0-dim codes) or a code above
 *  15; CT_ERR_NOT_IMPLEMENTED off the cpu. New reference in *packed. */
CT_API ct_status ct_tensor_float4_pack_codes(const ct_tensor *codes, ct_tensor **packed);

/** Tensor.to(device, dtype, copy, memory_format): dtype UNDEFINED and device NULL keep the
 *  input's; the device is resolved ('cuda' -> current device, 'cpu:0' -> cpu). Returns the
 *  tensor itself (a new reference) when dtype and device are unchanged, copy is false and
 *  format is preserve or the input's suggest_memory_format(); otherwise a new tensor with
 *  empty_like's strides for `format`, filled by ct_tensor_copy_ (so the errors of both). */
CT_API ct_status ct_tensor_to(const ct_tensor *tensor, ct_dtype dtype, const ct_device *device,
                              bool copy, ct_memory_format format, ct_tensor **out);
/** to(dtype): ct_tensor_to(tensor, dtype, NULL, false, preserve). New reference in *out. */
CT_API ct_status ct_tensor_to_dtype(const ct_tensor *tensor, ct_dtype dtype, ct_tensor **out);
/** to(device): ct_tensor_to(tensor, UNDEFINED, device, false, preserve). New reference in *out. */
CT_API ct_status ct_tensor_to_device(const ct_tensor *tensor, ct_device device, ct_tensor **out);

/* ---- views -------------------------------------------------------------------------------
 * Each returns a new tensor sharing the input's storage. Shapes in messages print as
 * "[2, 5]". */

/** A new tensor object with the same metadata (PyTorch's alias()). New reference in *out. */
CT_API ct_status ct_tensor_alias(const ct_tensor *tensor, ct_tensor **out);

/** view(shape): one entry may be -1 (inferred). Errors: CT_ERR_RUNTIME "only one dimension
 *  can be inferred", "invalid shape dimension -2", "shape '[2, 5]' is invalid for input of
 *  size 6", "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified
 *  dimension size -1 can be any value and is ambiguous", "view size is not compatible with
 *  input tensor's size and stride (at least one dimension spans across two contiguous
 *  subspaces). Use .reshape(...) instead.". New reference in *out. */
CT_API ct_status ct_tensor_view(const ct_tensor *tensor, const int64_t *shape, int64_t ndim,
                                ct_tensor **out);

/** reshape(shape): a view when the strides allow one, else a contiguous copy (a tensor not
 *  sharing storage). Errors: the shape errors of ct_tensor_view; those of a copy.
 *  New reference in *out. */
CT_API ct_status ct_tensor_reshape(const ct_tensor *tensor, const int64_t *shape, int64_t ndim,
                                   ct_tensor **out);

/** t(): 0-D and 1-D unchanged (a new view), 2-D transposed. Errors: CT_ERR_RUNTIME
 *  "t() expects a tensor with <= 2 dimensions, but self is 3D". New reference in *out. */
CT_API ct_status ct_tensor_t(const ct_tensor *tensor, ct_tensor **out);

/** transpose(dim0, dim1): swaps sizes and strides. New reference in *out. */
CT_API ct_status ct_tensor_transpose(const ct_tensor *tensor, int64_t dim0, int64_t dim1,
                                     ct_tensor **out);

/** permute(dims): Errors: CT_ERR_RUNTIME "permute(sparse_coo): number of dimensions in the
 *  tensor input does not match the length of the desired ordering of dimensions i.e.
 *  input.dim() = 3 is not equal to len(dims) = 2" (PyTorch's text, also for dense tensors),
 *  "permute(): duplicate dims are not allowed."; dim range errors. New reference in *out. */
CT_API ct_status ct_tensor_permute(const ct_tensor *tensor, const int64_t *dims, int64_t ndim,
                                   ct_tensor **out);

/** expand(sizes): size-1 dims (and new leading dims) broadcast with stride 0; -1 keeps a
 *  size. Errors (CT_ERR_RUNTIME): "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number
 *  of sizes provided (1) must be greater or equal to the number of dimensions in the tensor
 *  (2)"; "The expanded size of the tensor (4) must match the existing size (3) at
 *  non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]"; "The expanded
 *  size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"; other
 *  negative sizes: "Trying to create tensor with negative dimension -2: [-2, 3]" (PyTorch
 *  would build a tensor with a negative size). New reference in *out. */
CT_API ct_status ct_tensor_expand(const ct_tensor *tensor, const int64_t *sizes, int64_t ndim,
                                  ct_tensor **out);

/** narrow(dim, start, length). Errors: CT_ERR_RUNTIME "narrow() cannot be applied to a
 *  0-dim tensor.", "narrow(): length must be non-negative.", "start (1) + length (2) exceeds
 *  dimension size (2)."; CT_ERR_INDEX "start out of range (expected to be in range of [-2,
 *  2], but got 3)" and dim range errors. New reference in *out. */
CT_API ct_status ct_tensor_narrow(const ct_tensor *tensor, int64_t dim, int64_t start,
                                  int64_t length, ct_tensor **out);

/** select(dim, index): removes the dim. Errors (CT_ERR_INDEX): "select() cannot be applied
 *  to a 0-dim tensor.", "select(): index 5 out of range for tensor of size [2, 3] at
 *  dimension 0", dim range errors. New reference in *out. */
CT_API ct_status ct_tensor_select(const ct_tensor *tensor, int64_t dim, int64_t index,
                                  ct_tensor **out);

/** slice(dim, start, stop, step) with Python's semantics: negative bounds count from the
 *  end, out-of-range bounds are clamped, stop CT_SLICE_END means the end; the size is
 *  ceil((stop - start) / step). Errors: CT_ERR_VALUE "step must be greater than zero" (no
 *  negative steps, as PyTorch); CT_ERR_INDEX "slice() cannot be applied to a 0-dim
 *  tensor." and dim range errors. New reference in *out. */
CT_API ct_status ct_tensor_slice(const ct_tensor *tensor, int64_t dim, int64_t start, int64_t stop,
                                 int64_t step, ct_tensor **out);

/** squeeze(): removes every size-1 dim. New reference in *out. */
CT_API ct_status ct_tensor_squeeze(const ct_tensor *tensor, ct_tensor **out);
/** squeeze(dim): removes `dim` when its size is 1, else an unchanged view.
 *  New reference in *out. */
CT_API ct_status ct_tensor_squeeze_dim(const ct_tensor *tensor, int64_t dim, ct_tensor **out);
/** unsqueeze(dim): inserts a size-1 dim at `dim` in [-dim()-1, dim()]. New reference in *out. */
CT_API ct_status ct_tensor_unsqueeze(const ct_tensor *tensor, int64_t dim, ct_tensor **out);

/** flatten(start_dim, end_dim): a 0-dim tensor becomes 1-D; start == end gives the tensor
 *  itself (new reference); otherwise reshape (a view when possible, else a copy).
 *  Errors: CT_ERR_RUNTIME "flatten() has invalid args: start_dim cannot come after
 *  end_dim"; dim range errors. */
CT_API ct_status ct_tensor_flatten(const ct_tensor *tensor, int64_t start_dim, int64_t end_dim,
                                   ct_tensor **out);

/** as_strided(sizes, strides, storage_offset): any view of the same storage; offset NULL
 *  keeps the tensor's. Checked against the storage: the errors of ct_tensor_from_storage
 *  (out-of-bounds "setStorage: ..." message, negative strides, negative offset) and
 *  "Storage size calculation overflowed with sizes=[...] and strides=[...]".
 *  New reference in *out. */
CT_API ct_status ct_tensor_as_strided(const ct_tensor *tensor, const int64_t *sizes,
                                      const int64_t *strides, int64_t ndim,
                                      const int64_t *storage_offset, ct_tensor **out);

/* ---- result type -------------------------------------------------------------------------- */

/** Add a tensor operand to a result-type state in PyTorch's category: dim() > 0 ->
 *  dimensioned, a 0-dim wrapped number -> scalar, any other 0-dim tensor -> zero-dim.
 *  Errors: those of ct_result_type_update; CT_ERR_MISUSE for NULL. */
CT_API ct_status ct_result_type_update_tensor(ct_result_type_state *state, const ct_tensor *tensor);

/** torch.result_type over `n` tensors. Errors: those of ct_result_type_update_tensor and
 *  ct_result_type_finish. */
CT_API ct_status ct_tensor_result_type(const ct_tensor *const *tensors, size_t n, ct_dtype *out);

CT_EXTERN_C_END

#endif /* CTENSOR_TENSOR_H */
