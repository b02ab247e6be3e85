/* Giving an existing tensor object new geometry: PyTorch's resize_ (and as_strided_ after
 * it), as used for `out=` tensors of element-wise operations.
 *
 * PyTorch grows the storage object itself, so every view of it sees the new memory. Here a
 * storage that is too small is replaced, for this tensor only, by a new storage on the same
 * device holding a copy of the old bytes: other views keep the old memory. Everything that
 * can fail happens before the tensor is touched, so on error it keeps its old geometry. */
#include <string.h>

#include "ctensor/warning.h"

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

/* A new storage of `nbytes` on `old`'s device, starting with a copy of old's bytes. */
static ct_status grown_storage(const ct_storage *old, size_t nbytes, ct_storage **out) {
    if (old->external)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Trying to resize storage that is not resizable");
    CT_TRY(ct_storage_new(old->device, nbytes, out));
    size_t keep = old->nbytes < nbytes ? old->nbytes : nbytes;
    ct_status st = CT_OK;
    if (keep > 0 && old->data != NULL)
        st = ct_device_copy((*out)->device, (*out)->data, old->device, old->data, keep);
    if (st != CT_OK) {
        ct_storage_release(*out);
        *out = NULL;
    }
    return st;
}

ct_status ct_tensor_impl_resize(ct_tensor *t, const int64_t *sizes, int64_t ndim,
                                const int64_t *strides) {
    CT_TRY(ct_tensor_impl_check(t, "resize_"));
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    /* local copies: the arguments may point into t's own arrays */
    int64_t nsz[CT_MAX_DIMS], nst[CT_MAX_DIMS];
    if (ndim > 0)
        memcpy(nsz, sizes, (size_t)ndim * sizeof *nsz);
    if (strides == NULL)
        CT_TRY(ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, nsz, ndim, nst));
    else if (ndim > 0)
        memcpy(nst, strides, (size_t)ndim * sizeof *nst);
    sizes = nsz;
    strides = nst;
    CT_TRY(ct_tensor_impl_shape_check_strides(strides, ndim, "resize_"));
    size_t itemsize = ct_dtype_table[t->dtype].itemsize;
    int64_t numel, nbytes_elems;
    CT_TRY(ct_tensor_impl_shape_numel(sizes, ndim, &numel));
    if (ct_checked_mul_i64(numel, (int64_t)itemsize, &nbytes_elems))
        return ct_set_error(CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    size_t need;
    CT_TRY(ct_tensor_impl_shape_storage_nbytes(sizes, strides, ndim, itemsize, t->storage_offset,
                                               &need));

    ct_storage *fresh = NULL;
    if (need > t->storage->nbytes)
        CT_TRY(grown_storage(t->storage, need, &fresh));

    /* the sizes/strides block: inline, the current heap block when it fits, or a new one */
    int64_t *block = t->inline_dims;
    bool old_heap = t->sizes != t->inline_dims;
    if (ndim > CT_TENSOR_INLINE_DIMS) {
        if (old_heap && t->ndim == ndim) {
            block = t->sizes;
        } else {
            block = ct_alloc(2 * (size_t)ndim * sizeof(int64_t), _Alignof(int64_t));
            if (block == NULL) {
                ct_storage_release(fresh);
                return CT_ERR_NOMEM;
            }
        }
    }
    /* commit: nothing fails from here on */
    int64_t *old_block = t->sizes;
    int32_t old_ndim = t->ndim;
    if (ndim > 0) {
        memcpy(block, nsz, (size_t)ndim * sizeof(int64_t));
        memcpy(block + ndim, nst, (size_t)ndim * sizeof(int64_t));
    }
    if (old_heap && block != old_block)
        ct_free(old_block, 2 * (size_t)old_ndim * sizeof(int64_t), _Alignof(int64_t));
    t->sizes = block;
    t->strides = block + ndim;
    t->ndim = (int32_t)ndim;
    t->numel = numel;
    uint32_t wrapped = ndim == 0 ? (t->flags & CT_TF_WRAPPED_NUMBER) : 0;
    t->flags = ct_tensor_impl_memfmt_flags(t->sizes, t->strides, ndim) | wrapped;
    if (fresh != NULL) {
        ct_storage_release(t->storage);
        t->storage = fresh; /* our reference */
        t->device = fresh->device;
    }
    return CT_OK;
}

void ct_tensor_impl_warn_out_resized(const int64_t *old, int32_t old_ndim, const int64_t *now,
                                     int32_t now_ndim) {
    char was[256], want[256];
    ct_warn("An output with one or more elements was resized since it had shape %s, which does "
            "not match the required output shape %s. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0).",
            ct_tensor_impl_shape_format(was, sizeof was, old, old_ndim),
            ct_tensor_impl_shape_format(want, sizeof want, now, now_ndim));
}

ct_status ct_tensor_impl_save(const ct_tensor *t, ct_tensor_impl_saved *s) {
    memset(s, 0, sizeof *s);
    if (t == NULL || t->storage == NULL)
        return CT_OK;
    size_t bytes = 2 * (size_t)t->ndim * sizeof(int64_t);
    if (t->ndim > CT_TENSOR_INLINE_DIMS) {
        s->block = ct_alloc(bytes, _Alignof(int64_t));
        if (s->block == NULL)
            return CT_ERR_NOMEM; /* ct_alloc set the error */
    }
    s->ndim = t->ndim;
    if (t->ndim > 0) {
        memcpy(s->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
        memcpy(s->strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    }
    s->flags = t->flags;
    s->numel = t->numel;
    s->device = t->device;
    s->storage = ct_storage_retain(t->storage);
    return CT_OK;
}

void ct_tensor_impl_saved_drop(ct_tensor_impl_saved *s) {
    if (s->block != NULL)
        ct_free(s->block, 2 * (size_t)s->ndim * sizeof(int64_t), _Alignof(int64_t));
    ct_storage_release(s->storage);
    memset(s, 0, sizeof *s);
}

void ct_tensor_impl_restore(ct_tensor *t, ct_tensor_impl_saved *s) {
    if (t == NULL || s->storage == NULL)
        return;
    /* the dims block: inline, or the heap block when it has the right size, or the saved one */
    int64_t *block = t->inline_dims;
    if (s->ndim > CT_TENSOR_INLINE_DIMS) {
        if (t->sizes != t->inline_dims && t->ndim == s->ndim) {
            block = t->sizes;
        } else {
            block = s->block;
            s->block = NULL;
        }
    }
    if (t->sizes != t->inline_dims && t->sizes != block)
        ct_free(t->sizes, 2 * (size_t)t->ndim * sizeof(int64_t), _Alignof(int64_t));
    if (s->ndim > 0) {
        memcpy(block, s->sizes, (size_t)s->ndim * sizeof(int64_t));
        memcpy(block + s->ndim, s->strides, (size_t)s->ndim * sizeof(int64_t));
    }
    t->sizes = block;
    t->strides = block + s->ndim;
    t->ndim = s->ndim;
    t->numel = s->numel;
    t->flags = s->flags;
    t->device = s->device;
    ct_storage *now = t->storage;
    t->storage = s->storage; /* the saved reference moves back into t */
    s->storage = NULL;
    ct_storage_release(now);
    ct_tensor_impl_saved_drop(s);
}
