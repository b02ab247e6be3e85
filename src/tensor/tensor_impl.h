/* Internals of the tensor layer shared between its files: the storage and tensor structs,
 * the one constructor every tensor goes through, and shape helpers.
 *
 * Layers above (sparse, DLPack, printing, the Python module) may include this header; the
 * `ext` slot of ct_tensor is for them (see below). */
#ifndef CT_TENSOR_TENSOR_IMPL_H
#define CT_TENSOR_TENSOR_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/tensor.h"

struct ct_storage {
    atomic_llong refcount;
    void *data; /* NULL on meta */
    size_t nbytes;
    size_t align;     /* what ct_device_alloc was asked for (owned storages) */
    ct_device device; /* concrete: cpu/meta without index, accelerators with one */
    bool external;    /* wraps memory it does not own */
    bool inline_data; /* data lives in this struct's block (storage.c, Note [Inline data]) */
    ct_storage_finalizer finalizer;
    void *finalizer_ctx;
};

/* Cached flags (PyTorch's TensorImpl bits), recomputed whenever geometry is set. */
enum {
    CT_TF_CONTIGUOUS = 1u << 0,
    CT_TF_CL_CONTIGUOUS = 1u << 1,   /* is_contiguous(channels_last) */
    CT_TF_CL3D_CONTIGUOUS = 1u << 2, /* is_contiguous(channels_last_3d) */
    CT_TF_CHANNELS_LAST = 1u << 3,   /* strides "like" channels last: suggest_memory_format */
    CT_TF_CHANNELS_LAST_3D = 1u << 4,
    CT_TF_NON_OVERLAPPING_DENSE = 1u << 5,
    CT_TF_GEOMETRY_MASK = (1u << 6) - 1,
    CT_TF_WRAPPED_NUMBER = 1u << 6,
};

/* Sizes and strides of up to this many dims live inside the struct; more go to the heap. */
#define CT_TENSOR_INLINE_DIMS 6

struct ct_tensor {
    atomic_llong refcount;
    ct_storage *storage; /* +1 reference; NULL only for non-strided layouts built above */
    int64_t *sizes;      /* ndim entries: inline_dims or a heap block */
    int64_t *strides;    /* ndim entries, right after sizes */
    int64_t storage_offset;
    int64_t numel;
    int32_t ndim;
    ct_dtype dtype;
    ct_device device;
    ct_layout layout;
    uint32_t flags;
    /* Payload of layouts built by higher layers (sparse COO: indices and values), freed
     * with ext_free when the tensor dies. NULL for strided tensors. */
    void *ext;
    void (*ext_free)(void *ext);
    int64_t inline_dims[2 * CT_TENSOR_INLINE_DIMS];
};

/* Drop one reference of a count; true when it was the last (the caller frees). A count of
 * 1 is the caller's own reference, which nobody else can copy while it is being dropped, so
 * the atomic decrement (the dearest step of freeing a small tensor) is skipped. acquire: the
 * freeing thread sees the writes of every thread that dropped a reference before. */
static inline bool ct_tensor_impl_refcount_drop(atomic_llong *count) {
    if (atomic_load_explicit(count, memory_order_acquire) == 1)
        return true;
    /* acq_rel rather than release plus an acquire fence: the same lock xadd on x86, and
     * ThreadSanitizer does not model fences (gcc refuses them under -fsanitize=thread). */
    return atomic_fetch_sub_explicit(count, 1, memory_order_acq_rel) == 1;
}

/* ---- tensor.c ---- */

/* The constructor every strided tensor goes through: checks ndim, sizes, strides, offset,
 * numel and the bounds of `storage` (skipped for empty tensors, as PyTorch), computes the
 * cached flags, and takes a reference to `storage`. `fn` names the caller in the negative-
 * stride message ("as_strided"). strides NULL means contiguous. */
ct_status ct_tensor_impl_new(ct_storage *storage, ct_dtype dtype, const int64_t *sizes,
                             const int64_t *strides, int64_t ndim, int64_t offset, const char *fn,
                             ct_tensor **out);

/* A tensor with a new storage of `nbytes` on `device` (resolved by ct_storage_new) and the
 * geometry sizes/strides (strides NULL: contiguous), checked as by ct_tensor_impl_new. The
 * way to make a result tensor: the storage's first reference goes to the tensor, saving the
 * atomic retain and release of ct_storage_new + ct_tensor_impl_new + ct_storage_release. */
ct_status ct_tensor_impl_alloc(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                               ct_dtype dtype, ct_device device, size_t nbytes, const char *fn,
                               ct_tensor **out);

/* A tensor of a non-strided layout (sparse COO, ...) for the layers that build them: sizes
 * only, no storage and no strides, on `device` (concrete), owning `ext` (freed with
 * ext_free, also when this call fails). Views, copies and data accessors refuse such
 * tensors (CT_ERR_NOT_IMPLEMENTED) until their layer handles them. */
ct_status ct_tensor_impl_new_nonstrided(ct_layout layout, ct_dtype dtype, ct_device device,
                                        const int64_t *sizes, int64_t ndim, void *ext,
                                        void (*ext_free)(void *ext), ct_tensor **out);

/* A view of `base`'s storage with new geometry (same dtype). */
ct_status ct_tensor_impl_view(const ct_tensor *base, const int64_t *sizes, const int64_t *strides,
                              int64_t ndim, int64_t offset, ct_tensor **out);

/* Check a tensor argument: CT_ERR_MISUSE "<fn>: tensor is NULL"; non-strided layouts
 * CT_ERR_NOT_IMPLEMENTED. */
ct_status ct_tensor_impl_check(const ct_tensor *t, const char *fn);

/* ---- shape.c ---- */

/* Format "[a, b, c]" into buf (cap bytes; cut with "..." when too long). Returns buf. */
char *ct_tensor_impl_shape_format(char *buf, size_t cap, const int64_t *v, int64_t n);
/* PyTorch's maybe_wrap_dim. */
ct_status ct_tensor_impl_shape_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar, int64_t *out);
/* ndim within 0..CT_MAX_DIMS and every size >= 0 (PyTorch's check_size_nonnegative). */
ct_status ct_tensor_impl_shape_check_sizes(const int64_t *sizes, int64_t ndim);
/* The product of sizes, or CT_ERR_OVERFLOW "numel: integer multiplication overflow". A zero
 * size makes the product zero whatever the other sizes are. */
ct_status ct_tensor_impl_shape_numel(const int64_t *sizes, int64_t ndim, int64_t *out);
/* Bytes a storage needs for sizes/strides (elements) and itemsize: 0 when any size is 0,
 * else (1 + sum (size - 1) * stride) * itemsize. CT_ERR_OVERFLOW "Storage size calculation
 * overflowed with sizes=[..] and strides=[..]". Strides must be >= 0. */
ct_status ct_tensor_impl_shape_storage_nbytes(const int64_t *sizes, const int64_t *strides,
                                              int64_t ndim, size_t itemsize, int64_t offset,
                                              size_t *out);
/* The "<fn>: Negative strides are not supported at the moment, got strides: [..]" check. */
ct_status ct_tensor_impl_shape_check_strides(const int64_t *strides, int64_t ndim, const char *fn);

/* ---- memformat.c ---- */

/* The CT_TF_* geometry flags of sizes/strides (ndim <= CT_MAX_DIMS). */
uint32_t ct_tensor_impl_memfmt_flags(const int64_t *sizes, const int64_t *strides, int64_t ndim);
/* suggest_memory_format from cached flags. */
ct_memory_format ct_tensor_impl_memfmt_suggest(uint32_t flags, const int64_t *sizes,
                                               const int64_t *strides, int64_t ndim,
                                               bool exact_match);

/* ---- create.c ---- */

/* A new tensor with its own storage on `device` (resolved by ct_device_alloc) with the
 * given geometry; the storage has room for the last element. Uninitialised. */
ct_status ct_tensor_impl_empty_strided(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                       ct_dtype dtype, ct_device device, ct_tensor **out);
/* empty_like's geometry rule: strides for `format` (preserve: the input's strides when
 * non-overlapping and dense, else infer_dense_strides) into `strides`. */
ct_status ct_tensor_impl_like_strides(const ct_tensor *t, ct_memory_format format,
                                      int64_t *strides);
/* ct_tensor_empty_like with a concrete dtype and device. */
ct_status ct_tensor_impl_empty_like(const ct_tensor *t, ct_dtype dtype, ct_device device,
                                    ct_memory_format format, ct_tensor **out);
/* The device of a *_like call: the input's, or the given one resolved. */
ct_status ct_tensor_impl_like_device(const ct_tensor *t, const ct_device *device, ct_device *out);

/* ---- fill.c ---- */

/* Write `pattern` (one element, itemsize bytes) into every element of t. */
ct_status ct_tensor_impl_fill_pattern(ct_tensor *t, const void *pattern);

/* ---- copy.c ---- */

/* copy_ with or without PyTorch's overlap checks (fill skips them: it is idempotent). */
ct_status ct_tensor_impl_copy(ct_tensor *dst, const ct_tensor *src, bool check_overlap);

/* ---- copy_loop.c ---- */

/* Convert-copy on host memory: for every index of `sizes`, the element of src at
 * sum(index * src_strides) becomes the element of dst at sum(index * dst_strides) (strides
 * in elements, dst's >= 0; src strides may be 0 for broadcasting, or negative to read
 * backwards from `src`, as flip does). Iterates in dst's memory
 * order, merges dims that are contiguous in both, and tiles transposes. */
ct_status ct_tensor_impl_copy_host(void *dst, ct_dtype dst_dtype, const int64_t *dst_strides,
                                   const void *src, ct_dtype src_dtype, const int64_t *src_strides,
                                   const int64_t *sizes, int64_t ndim);

/* ---- resize.c ---- */

/* PyTorch's resize_ for `out=` tensors: give `t` (strided) the geometry sizes/strides
 * (strides NULL: contiguous), keeping its storage offset. A storage too small for it is
 * replaced, for t only, by a new one on the same device holding a copy of the old bytes
 * (external storages: CT_ERR_RUNTIME "Trying to resize storage that is not resizable").
 * On error t is unchanged. Not synchronised with other users of t. */
ct_status ct_tensor_impl_resize(ct_tensor *t, const int64_t *sizes, int64_t ndim,
                                const int64_t *strides);
/* An out= tensor's geometry and storage as they were before an op resized it, so that the
 * op can put them back when it fails afterwards (an out= target keeps its metadata on
 * error). ct_tensor_impl_save takes a reference to t's storage and, for more than
 * CT_TENSOR_INLINE_DIMS dims, the block restore may need (CT_ERR_NOMEM: nothing kept);
 * ct_tensor_impl_restore puts it all back and cannot fail; ct_tensor_impl_saved_drop
 * discards it (after success). t NULL: all three do nothing. */
typedef struct ct_tensor_impl_saved {
    ct_storage *storage; /* a reference; NULL when nothing was saved */
    int64_t *block;      /* 2 * ndim entries when ndim > CT_TENSOR_INLINE_DIMS, else NULL */
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int32_t ndim;
    uint32_t flags;
    int64_t numel;
    ct_device device;
} ct_tensor_impl_saved;
ct_status ct_tensor_impl_save(const ct_tensor *t, ct_tensor_impl_saved *s);
void ct_tensor_impl_restore(ct_tensor *t, ct_tensor_impl_saved *s);
void ct_tensor_impl_saved_drop(ct_tensor_impl_saved *s);
/* PyTorch's deprecation warning for an out= tensor with elements that an op resized from
 * shape `old` to shape `now` (element-wise ops and reductions alike). */
void ct_tensor_impl_warn_out_resized(const int64_t *old, int32_t old_ndim, const int64_t *now,
                                     int32_t now_ndim);

/* ---- scalar.c ---- */

/* ---- join.c ---- */

/* An array for n tensor references (all NULL), freed by ct_tensor_list_release(list, n).
 * NULL (CT_ERR_NOMEM set) on failure. */
ct_tensor **ct_tensor_impl_list_alloc(int64_t n);

#endif /* CT_TENSOR_TENSOR_IMPL_H */
