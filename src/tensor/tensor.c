/* The tensor object: construction (every tensor goes through ct_tensor_impl_new, which
 * checks the geometry against the storage and caches the contiguity flags), references,
 * attributes, item(), the legacy type string and result_type over tensors. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

/* PyTorch keeps TensorImpl small for cache reasons; ours must stay a few lines. */
_Static_assert(sizeof(struct ct_tensor) <= 192, "ct_tensor grew: keep it within 3 cache lines");

static void free_tensor_struct(ct_tensor *t) {
    if (t->sizes != t->inline_dims)
        ct_free(t->sizes, 2 * (size_t)t->ndim * sizeof(int64_t), _Alignof(int64_t));
    ct_free(t, sizeof *t, _Alignof(ct_tensor));
}

/* Bounds of the view inside its storage (PyTorch's checkInBoundsForStorage). */
static ct_status check_bounds(const ct_storage *s, ct_dtype dtype, const int64_t *sizes,
                              const int64_t *strides, int64_t ndim, int64_t offset) {
    size_t itemsize = ct_dtype_table[dtype].itemsize;
    size_t need;
    CT_TRY(ct_tensor_impl_shape_storage_nbytes(sizes, strides, ndim, itemsize, offset, &need));
    if (need == 0 || need <= s->nbytes)
        return CT_OK;
    char a[300], b[300];
    return ct_set_error(CT_ERR_RUNTIME,
                        "setStorage: sizes %s, strides %s, storage offset %" PRId64
                        ", and itemsize %zu requiring a storage size of %zu are out of bounds "
                        "for storage of size %zu",
                        ct_tensor_impl_shape_format(a, sizeof a, sizes, ndim),
                        ct_tensor_impl_shape_format(b, sizeof b, strides, ndim), offset, itemsize,
                        need, s->nbytes);
}

/* The common case in one pass: every size > 0, every stride >= 0 (strides NULL: the
 * contiguous ones, written to `scratch` and returned in *strides), offset >= 0, no
 * overflow, and the view inside `storage`. Sets numel and whether the strides are the
 * contiguous ones. false when anything differs (an empty tensor included): the general
 * checks then decide, and report any error. */
static bool quick_geometry(const ct_storage *storage, size_t itemsize, const int64_t *sizes,
                           const int64_t **strides, int64_t ndim, int64_t offset,
                           int64_t *scratch, int64_t *numel, bool *contiguous) {
    if (ndim < 0 || ndim > CT_MAX_DIMS || (ndim > 0 && sizes == NULL) || offset < 0)
        return false;
    const int64_t *st = *strides;
    int64_t n = 1, last = offset, span, bytes, need;
    bool bad = false, contig = true;
    for (int64_t i = ndim - 1; i >= 0; i--) { /* n: the product of the sizes after i */
        int64_t size = sizes[i];
        int64_t stride = st != NULL ? st[i] : (scratch[i] = n);
        bad |= size <= 0 || stride < 0;
        contig &= size == 1 || stride == n; /* the test of ct_tensor_impl_memfmt_flags */
        /* size <= 0 is already bad; size - 1 of INT64_MIN would overflow */
        bad |= ct_checked_mul_i64(stride, size > 0 ? size - 1 : 0, &span);
        bad |= ct_checked_add_i64(last, span, &last);
        bad |= ct_checked_mul_i64(n, size, &n);
    }
    bad |= ct_checked_mul_i64(n, (int64_t)itemsize, &bytes); /* nbytes() representable */
    bad |= ct_checked_add_i64(last, 1, &last);
    bad |= ct_checked_mul_i64(last, (int64_t)itemsize, &need);
    if (bad || (uint64_t)need > storage->nbytes)
        return false;
    if (st == NULL)
        *strides = scratch;
    *numel = n;
    *contiguous = contig;
    return true;
}

/* Every check of ct_tensor_impl_new, in PyTorch's order, with its messages. */
static ct_status full_geometry(const ct_storage *storage, ct_dtype dtype, const int64_t *sizes,
                               const int64_t **strides, int64_t ndim, int64_t offset,
                               const char *fn, int64_t *scratch, int64_t *numel) {
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    if (*strides == NULL) {
        CT_TRY(ct_memory_format_strides(CT_MEMFMT_CONTIGUOUS, sizes, ndim, scratch));
        *strides = scratch;
    }
    CT_TRY(ct_tensor_impl_shape_check_strides(*strides, ndim, fn));
    int64_t nbytes;
    CT_TRY(ct_tensor_impl_shape_numel(sizes, ndim, numel));
    /* nbytes() must be representable too */
    if (ct_checked_mul_i64(*numel, (int64_t)ct_dtype_table[dtype].itemsize, &nbytes))
        return ct_set_error(CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    if (offset < 0)
        return ct_set_error(CT_ERR_RUNTIME, "Tensor: invalid storage offset %" PRId64, offset);
    CT_TRY(check_bounds(storage, dtype, sizes, *strides, ndim, offset));
    /* data_ptr() adds offset * itemsize bytes: that must fit even when the view is empty
     * (check_bounds does not look at the offset of an empty view) */
    if (ct_checked_mul_i64(offset, (int64_t)ct_dtype_table[dtype].itemsize, &nbytes))
        return ct_set_error(CT_ERR_OVERFLOW,
                            "Storage offset calculation overflowed: offset %" PRId64
                            " of %zu-byte elements",
                            offset, ct_dtype_table[dtype].itemsize);
    return CT_OK;
}

/* ct_tensor_impl_new; `adopt`: take over the caller's reference instead of a new one. */
static ct_status construct(ct_storage *storage, bool adopt, ct_dtype dtype, const int64_t *sizes,
                           const int64_t *strides, int64_t ndim, int64_t offset, const char *fn,
                           ct_tensor **out) {
    *out = NULL;
    if (storage == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: storage is NULL", fn);
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid dtype value %d", fn, (int)dtype);
    int64_t scratch[CT_MAX_DIMS], numel;
    bool contiguous = false;
    bool quick = quick_geometry(storage, ct_dtype_table[dtype].itemsize, sizes, &strides, ndim,
                                offset, scratch, &numel, &contiguous);
    if (!quick)
        CT_TRY(full_geometry(storage, dtype, sizes, &strides, ndim, offset, fn, scratch, &numel));

    ct_tensor *t = ct_alloc(sizeof *t, _Alignof(ct_tensor));
    if (t == NULL)
        return CT_ERR_NOMEM;
    t->sizes = t->inline_dims;
    t->ndim = (int32_t)ndim;
    if (ndim > CT_TENSOR_INLINE_DIMS) {
        t->sizes = ct_alloc(2 * (size_t)ndim * sizeof(int64_t), _Alignof(int64_t));
        if (t->sizes == NULL) {
            ct_free(t, sizeof *t, _Alignof(ct_tensor));
            return CT_ERR_NOMEM;
        }
    }
    t->strides = t->sizes + ndim;
    if (ndim > 0) {
        memcpy(t->sizes, sizes, (size_t)ndim * sizeof(int64_t));
        memcpy(t->strides, strides, (size_t)ndim * sizeof(int64_t));
    }
    atomic_init(&t->refcount, 1);
    t->storage = adopt ? storage : ct_storage_retain(storage);
    t->storage_offset = offset;
    t->numel = numel;
    t->dtype = dtype;
    t->device = storage->device;
    t->layout = CT_LAYOUT_STRIDED;
    /* contiguous below 4 dims: no channels-last flag can hold (ct_tensor_impl_memfmt_flags) */
    t->flags = quick && contiguous && ndim < 4
                   ? (uint32_t)(CT_TF_CONTIGUOUS | CT_TF_NON_OVERLAPPING_DENSE)
                   : ct_tensor_impl_memfmt_flags(t->sizes, t->strides, ndim);
    t->ext = NULL;
    t->ext_free = NULL;
    *out = t;
    return CT_OK;
}

ct_status ct_tensor_impl_new(ct_storage *storage, ct_dtype dtype, const int64_t *sizes,
                             const int64_t *strides, int64_t ndim, int64_t offset, const char *fn,
                             ct_tensor **out) {
    return construct(storage, false, dtype, sizes, strides, ndim, offset, fn, out);
}

ct_status ct_tensor_impl_alloc(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                               ct_dtype dtype, ct_device device, size_t nbytes, const char *fn,
                               ct_tensor **out) {
    *out = NULL;
    ct_storage *s;
    CT_TRY(ct_storage_new(device, nbytes, &s));
    ct_status st = construct(s, true, dtype, sizes, strides, ndim, 0, fn, out);
    if (st != CT_OK)
        ct_storage_release(s);
    return st;
}

ct_status ct_tensor_impl_new_nonstrided(ct_layout layout, ct_dtype dtype, ct_device device,
                                        const int64_t *sizes, int64_t ndim, void *ext,
                                        void (*ext_free)(void *ext), ct_tensor **out) {
    *out = NULL;
    ct_status st = CT_OK;
    int64_t numel = 0;
    ct_tensor *t = NULL;
    CT_CHECK(ct_layout_is_valid(layout) && layout != CT_LAYOUT_STRIDED &&
                 ct_dtype_impl_valid(dtype),
             CT_ERR_MISUSE, "bad layout or dtype for a tensor without strided storage");
    if ((st = ct_tensor_impl_shape_check_sizes(sizes, ndim)) != CT_OK ||
        (st = ct_tensor_impl_shape_numel(sizes, ndim, &numel)) != CT_OK)
        goto fail;
    t = ct_alloc(sizeof *t, _Alignof(ct_tensor));
    if (t == NULL) {
        st = CT_ERR_NOMEM;
        goto fail;
    }
    t->sizes = t->inline_dims;
    t->ndim = (int32_t)ndim;
    if (ndim > CT_TENSOR_INLINE_DIMS) {
        t->sizes = ct_alloc(2 * (size_t)ndim * sizeof(int64_t), _Alignof(int64_t));
        if (t->sizes == NULL) {
            ct_free(t, sizeof *t, _Alignof(ct_tensor));
            st = CT_ERR_NOMEM;
            goto fail;
        }
    }
    t->strides = t->sizes + ndim;
    if (ndim > 0) {
        memcpy(t->sizes, sizes, (size_t)ndim * sizeof(int64_t));
        memset(t->strides, 0, (size_t)ndim * sizeof(int64_t));
    }
    atomic_init(&t->refcount, 1);
    t->storage = NULL;
    t->storage_offset = 0;
    t->numel = numel;
    t->dtype = dtype;
    t->device = device;
    t->layout = layout;
    t->flags = 0;
    t->ext = ext;
    t->ext_free = ext_free;
    *out = t;
    return CT_OK;
fail:
    if (ext_free != NULL)
        ext_free(ext);
    return st;
}

ct_status ct_tensor_impl_view(const ct_tensor *base, const int64_t *sizes, const int64_t *strides,
                              int64_t ndim, int64_t offset, ct_tensor **out) {
    return ct_tensor_impl_new(base->storage, base->dtype, sizes, strides, ndim, offset,
                              "as_strided", out);
}

ct_status ct_tensor_impl_check(const ct_tensor *t, const char *fn) {
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensor is NULL", fn);
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: not supported for layout torch.%s", fn,
                            ct_layout_name(t->layout));
    return CT_OK;
}

/* ---- references ------------------------------------------------------------------------ */

ct_tensor *ct_tensor_retain(ct_tensor *t) {
    if (t != NULL)
        atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    return t;
}

void ct_tensor_release(ct_tensor *t) {
    if (t == NULL || !ct_tensor_impl_refcount_drop(&t->refcount))
        return;
    if (t->ext_free != NULL)
        t->ext_free(t->ext);
    ct_storage_release(t->storage);
    free_tensor_struct(t);
}

int64_t ct_tensor_refcount(const ct_tensor *t) {
    return t != NULL
               ? (int64_t)atomic_load_explicit(&((ct_tensor *)t)->refcount, memory_order_relaxed)
               : 0;
}

ct_status ct_tensor_from_storage(ct_storage *storage, const int64_t *sizes, const int64_t *strides,
                                 int64_t ndim, int64_t storage_offset, ct_dtype dtype,
                                 ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_from_storage: out is NULL");
    return ct_tensor_impl_new(storage, dtype, sizes, strides, ndim, storage_offset, "as_strided",
                              out);
}

/* ---- attributes ------------------------------------------------------------------------- */

static const int64_t no_dims[1] = {0};

int64_t ct_tensor_dim(const ct_tensor *t) { return t != NULL ? t->ndim : 0; }
const int64_t *ct_tensor_sizes(const ct_tensor *t) {
    if (t == NULL)
        return NULL;
    return t->ndim > 0 ? t->sizes : no_dims;
}
const int64_t *ct_tensor_strides(const ct_tensor *t) {
    if (t == NULL || t->layout != CT_LAYOUT_STRIDED)
        return NULL;
    return t->ndim > 0 ? t->strides : no_dims;
}

static ct_status dim_value(const ct_tensor *t, int64_t dim, const int64_t *arr, int64_t *out,
                           const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = 0;
    CT_TRY(ct_tensor_impl_check(t, fn));
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, false, &d));
    *out = arr[d];
    return CT_OK;
}

ct_status ct_tensor_size(const ct_tensor *t, int64_t dim, int64_t *out) {
    return dim_value(t, dim, t != NULL ? t->sizes : NULL, out, "ct_tensor_size");
}
ct_status ct_tensor_stride(const ct_tensor *t, int64_t dim, int64_t *out) {
    return dim_value(t, dim, t != NULL ? t->strides : NULL, out, "ct_tensor_stride");
}
int64_t ct_tensor_storage_offset(const ct_tensor *t) { return t != NULL ? t->storage_offset : 0; }
int64_t ct_tensor_numel(const ct_tensor *t) { return t != NULL ? t->numel : 0; }
size_t ct_tensor_element_size(const ct_tensor *t) {
    return t != NULL ? ct_dtype_table[t->dtype].itemsize : 0;
}
int64_t ct_tensor_nbytes(const ct_tensor *t) {
    return t != NULL ? t->numel * (int64_t)ct_dtype_table[t->dtype].itemsize : 0;
}
ct_dtype ct_tensor_dtype(const ct_tensor *t) { return t != NULL ? t->dtype : CT_DTYPE_UNDEFINED; }
ct_device ct_tensor_device(const ct_tensor *t) {
    ct_device d = {CT_DEVICE_UNDEFINED, CT_DEVICE_NO_INDEX};
    return t != NULL ? t->device : d;
}
ct_layout ct_tensor_layout(const ct_tensor *t) { return t != NULL ? t->layout : CT_LAYOUT_STRIDED; }
int32_t ct_tensor_get_device(const ct_tensor *t) {
    if (t == NULL || t->device.type == CT_DEVICE_CPU || t->device.type == CT_DEVICE_META)
        return -1;
    return t->device.index;
}
bool ct_tensor_is_floating_point(const ct_tensor *t) {
    return t != NULL && ct_dtype_is_floating_point(t->dtype);
}
bool ct_tensor_is_complex(const ct_tensor *t) { return t != NULL && ct_dtype_is_complex(t->dtype); }
bool ct_tensor_is_meta(const ct_tensor *t) { return t != NULL && t->device.type == CT_DEVICE_META; }

bool ct_tensor_is_contiguous(const ct_tensor *t, ct_memory_format format) {
    /* PyTorch's sparse tensors keep the default answer of a fresh tensor: contiguous, in no
     * channels-last format */
    if (t != NULL && t->layout == CT_LAYOUT_SPARSE_COO)
        return format == CT_MEMFMT_CONTIGUOUS || format == CT_MEMFMT_PRESERVE;
    if (t == NULL || t->layout != CT_LAYOUT_STRIDED)
        return false;
    switch (format) {
    case CT_MEMFMT_CONTIGUOUS:
    case CT_MEMFMT_PRESERVE:
        return (t->flags & CT_TF_CONTIGUOUS) != 0;
    case CT_MEMFMT_CHANNELS_LAST:
        return (t->flags & CT_TF_CL_CONTIGUOUS) != 0;
    case CT_MEMFMT_CHANNELS_LAST_3D:
        return (t->flags & CT_TF_CL3D_CONTIGUOUS) != 0;
    default:
        return false;
    }
}

bool ct_tensor_is_non_overlapping_and_dense(const ct_tensor *t) {
    return t != NULL && t->layout == CT_LAYOUT_STRIDED &&
           (t->flags & CT_TF_NON_OVERLAPPING_DENSE) != 0;
}

ct_memory_format ct_tensor_suggest_memory_format(const ct_tensor *t, bool exact_match) {
    if (t == NULL || t->layout != CT_LAYOUT_STRIDED)
        return CT_MEMFMT_CONTIGUOUS;
    return ct_tensor_impl_memfmt_suggest(t->flags, t->sizes, t->strides, t->ndim, exact_match);
}

void *ct_tensor_data_ptr(const ct_tensor *t) {
    if (t == NULL || t->storage == NULL || t->storage->data == NULL)
        return NULL;
    return (char *)t->storage->data +
           t->storage_offset * (int64_t)ct_dtype_table[t->dtype].itemsize;
}

ct_status ct_tensor_get_data_ptr(const ct_tensor *t, void **out) {
    if (t == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_get_data_ptr: tensor and out must not be NULL");
    *out = NULL;
    if (t->layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Cannot access data pointer of Tensor that doesn't have storage");
    *out = ct_tensor_data_ptr(t);
    return CT_OK;
}

ct_storage *ct_tensor_storage(const ct_tensor *t) { return t != NULL ? t->storage : NULL; }

bool ct_tensor_is_wrapped_number(const ct_tensor *t) {
    return t != NULL && (t->flags & CT_TF_WRAPPED_NUMBER) != 0;
}

ct_status ct_tensor_set_wrapped_number(ct_tensor *t, bool wrapped) {
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_set_wrapped_number: tensor is NULL");
    if (t->ndim != 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "wrapped number flag can only be set on 0-dim tensors, got a "
                            "%d-dim tensor",
                            (int)t->ndim);
    if (wrapped)
        t->flags |= CT_TF_WRAPPED_NUMBER;
    else
        t->flags &= ~(uint32_t)CT_TF_WRAPPED_NUMBER;
    return CT_OK;
}

ct_status ct_tensor_type_string(const ct_tensor *t, char *buf, size_t size) {
    if (buf != NULL && size > 0)
        buf[0] = '\0';
    if (t == NULL || buf == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_type_string: NULL argument");
    /* "torch" for dense cpu, "torch.<device>" for other devices; sparse adds ".sparse" */
    char module[96] = "torch";
    if (t->device.type != CT_DEVICE_CPU) {
        const char *name = ct_device_type_name(t->device.type);
        snprintf(module, sizeof module, "torch.%s", name != NULL ? name : "unknown");
    }
    const char *sparse = t->layout == CT_LAYOUT_SPARSE_COO ? ".sparse" : "";
    int n = snprintf(buf, size, "%s%s.%sTensor", module, sparse, ct_dtype_impl_msg_name(t->dtype));
    if (n < 0 || (size_t)n >= size) {
        buf[0] = '\0';
        return ct_set_error(CT_ERR_MISUSE,
                            "ct_tensor_type_string: buffer of %zu bytes is too "
                            "small",
                            size);
    }
    return CT_OK;
}

ct_status ct_tensor_item(const ct_tensor *t, ct_scalar *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_item: out is NULL");
    *out = ct_scalar_int(0);
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_item"));
    if (t->numel != 1)
        return ct_set_error(CT_ERR_RUNTIME,
                            "a Tensor with %" PRId64 " elements cannot be converted to Scalar",
                            t->numel);
    if (t->device.type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "Tensor.item() cannot be called on meta tensors");
    if (t->dtype == CT_FLOAT4_E2M1FN_X2)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "\"item\" not implemented for 'Float4_e2m1fn_x2'");
    unsigned char raw[16];
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    size_t isz = ct_dtype_table[t->dtype].itemsize;
    CT_TRY(ct_device_copy(cpu, raw, t->device, ct_tensor_data_ptr(t), isz));
    ct_dtype_kind kind = ct_dtype_table[t->dtype].kind;
    if (t->dtype == CT_BOOL) {
        *out = ct_scalar_bool(raw[0] != 0);
    } else if (kind == CT_KIND_COMPLEX) {
        ct_complex128 c;
        CT_TRY(ct_convert(CT_COMPLEX128, &c, t->dtype, raw, 1));
        *out = ct_scalar_complex(c.re, c.im);
    } else if (kind == CT_KIND_FLOAT) {
        double d;
        CT_TRY(ct_convert(CT_FLOAT64, &d, t->dtype, raw, 1));
        *out = ct_scalar_float(d);
    } else if (t->dtype == CT_UINT64) {
        uint64_t u;
        memcpy(&u, raw, sizeof u);
        *out = ct_scalar_uint(u);
    } else {
        int64_t i;
        CT_TRY(ct_convert(CT_INT64, &i, t->dtype, raw, 1));
        *out = ct_scalar_int(i);
    }
    return CT_OK;
}

/* ---- result type -------------------------------------------------------------------------- */

ct_status ct_result_type_update_tensor(ct_result_type_state *state, const ct_tensor *t) {
    if (state == NULL || t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_result_type_update_tensor: NULL argument");
    ct_operand_category cat = CT_OPERAND_ZERO_DIM;
    if (t->ndim > 0)
        cat = CT_OPERAND_DIMENSIONED;
    else if (t->flags & CT_TF_WRAPPED_NUMBER)
        cat = CT_OPERAND_SCALAR;
    return ct_result_type_update(state, t->dtype, cat);
}

ct_status ct_tensor_result_type(const ct_tensor *const *tensors, size_t n, ct_dtype *out) {
    if (out != NULL)
        *out = CT_DTYPE_UNDEFINED;
    if (out == NULL || (tensors == NULL && n > 0))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_result_type: NULL argument");
    ct_result_type_state state = CT_RESULT_TYPE_STATE_INIT;
    for (size_t i = 0; i < n; i++)
        CT_TRY(ct_result_type_update_tensor(&state, tensors[i]));
    return ct_result_type_finish(&state, out);
}
