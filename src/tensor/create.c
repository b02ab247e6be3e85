/* Factory functions: empty, empty_strided, zeros, ones, full, the *_like family,
 * from_data, scalar_tensor and wrapped numbers. (arange: arange.c; rand/randn: random.c.) */
#include <inttypes.h>
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/tensor_impl.h"

static const ct_device cpu_device = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};

/* ---- argument helpers ------------------------------------------------------------------ */

static ct_status check_out(ct_tensor **out, const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    return CT_OK;
}

/* dtype UNDEFINED -> `fallback` (the function's PyTorch default). */
static ct_status resolve_dtype(ct_dtype dtype, ct_dtype fallback, ct_dtype *out) {
    if (dtype == CT_DTYPE_UNDEFINED)
        dtype = fallback;
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "invalid dtype value %d", (int)dtype);
    *out = dtype;
    return CT_OK;
}

/* Only strided tensors are made here; sparse ones are built by the sparse layer. */
static ct_status check_layout(ct_layout layout, const char *fn) {
    if (!ct_layout_is_valid(layout))
        return ct_set_error(CT_ERR_MISUSE, "%s: invalid layout value %d", fn, (int)layout);
    if (layout != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED,
                            "%s: layout torch.%s is not supported by the tensor core", fn,
                            ct_layout_name(layout));
    return CT_OK;
}

/* ---- the allocation every factory ends in ---------------------------------------------- */

/* A tensor with its own storage of `nbytes` on `device`. */
static ct_status alloc_tensor(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                              ct_dtype dtype, ct_device device, size_t nbytes, ct_tensor **out) {
    return ct_tensor_impl_alloc(sizes, strides, ndim, dtype, device, nbytes, "empty_strided", out);
}

ct_status ct_tensor_impl_empty_strided(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                       ct_dtype dtype, ct_device device, ct_tensor **out) {
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    CT_TRY(ct_tensor_impl_shape_check_strides(strides, ndim, "empty_strided"));
    size_t nbytes = 0;
    CT_TRY(ct_tensor_impl_shape_storage_nbytes(sizes, strides, ndim, ct_dtype_table[dtype].itemsize,
                                               0, &nbytes));
    return alloc_tensor(sizes, strides, ndim, dtype, device, nbytes, out);
}

/* Storage size of a dense tensor: PyTorch's computeStorageNbytesContiguous. */
static ct_status contiguous_nbytes(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                                   size_t *out) {
    int64_t n = 1, bytes;
    bool overflow = false, zero = false;
    for (int64_t i = 0; i < ndim; i++) {
        zero |= sizes[i] == 0;
        overflow |= ct_checked_mul_i64(n, sizes[i], &n);
    }
    overflow |= ct_checked_mul_i64(n, (int64_t)ct_dtype_table[dtype].itemsize, &bytes);
    if (zero) { /* no elements: other sizes may be anything (PyTorch may flag them) */
        *out = 0;
        return CT_OK;
    }
    if (overflow) {
        char s[512];
        return ct_set_error(CT_ERR_OVERFLOW, "Storage size calculation overflowed with sizes=%s",
                            ct_tensor_impl_shape_format(s, sizeof s, sizes, ndim));
    }
    *out = (size_t)bytes;
    return CT_OK;
}

/* empty() with a concrete dtype and resolved device. */
static ct_status empty_impl(const int64_t *sizes, int64_t ndim, ct_dtype dtype, ct_device device,
                            ct_memory_format format, ct_tensor **out) {
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, ndim));
    size_t nbytes = 0;
    CT_TRY(contiguous_nbytes(sizes, ndim, dtype, &nbytes));
    /* the constructor makes contiguous strides itself; they cannot overflow when the
     * elements fit (with a zero size they can, and that error comes first) */
    if (format == CT_MEMFMT_CONTIGUOUS && nbytes > 0)
        return alloc_tensor(sizes, NULL, ndim, dtype, device, nbytes, out);
    int64_t strides[CT_MAX_DIMS];
    CT_TRY(ct_memory_format_strides(format, sizes, ndim, strides));
    return alloc_tensor(sizes, strides, ndim, dtype, device, nbytes, out);
}

/* The common prologue of factories: out, layout, dtype, device. */
static ct_status factory_args(ct_tensor **out, const char *fn, ct_layout layout, ct_dtype dtype,
                              ct_dtype fallback, const ct_device *device, ct_dtype *rdtype,
                              ct_device *rdevice) {
    CT_TRY(check_out(out, fn));
    CT_TRY(check_layout(layout, fn));
    CT_TRY(resolve_dtype(dtype, fallback, rdtype));
    return ct_device_resolve(device, rdevice);
}

ct_status ct_tensor_empty(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                          const ct_device *device, ct_layout layout, ct_memory_format format,
                          ct_tensor **out) {
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    ct_device dev = cpu_device;
    CT_TRY(factory_args(out, "ct_tensor_empty", layout, dtype, ct_get_default_dtype(), device, &dt,
                        &dev));
    return empty_impl(sizes, ndim, dt, dev, format, out);
}

ct_status ct_tensor_empty_strided(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                  ct_dtype dtype, const ct_device *device, ct_layout layout,
                                  ct_tensor **out) {
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    ct_device dev = cpu_device;
    CT_TRY(factory_args(out, "ct_tensor_empty_strided", layout, dtype, ct_get_default_dtype(),
                        device, &dt, &dev));
    if (ndim > 0 && strides == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_empty_strided: strides is NULL");
    return ct_tensor_impl_empty_strided(sizes, strides, ndim, dt, dev, out);
}

/* Fill a fresh tensor with one element's bytes, releasing it on failure. */
static ct_status fill_new(ct_tensor **out, const void *pattern) {
    ct_status st = ct_tensor_impl_fill_pattern(*out, pattern);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

ct_status ct_tensor_zeros(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                          const ct_device *device, ct_layout layout, ct_tensor **out) {
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    ct_device dev = cpu_device;
    CT_TRY(factory_args(out, "ct_tensor_zeros", layout, dtype, ct_get_default_dtype(), device, &dt,
                        &dev));
    CT_TRY(empty_impl(sizes, ndim, dt, dev, CT_MEMFMT_CONTIGUOUS, out));
    static const unsigned char zero[16] = {0};
    return fill_new(out, zero);
}

/* full() once dtype and device are known: the value is converted (and range-checked)
 * before anything is allocated. */
static ct_status full_impl(const int64_t *sizes, int64_t ndim, ct_scalar value, ct_dtype dt,
                           ct_device dev, ct_tensor **out) {
    unsigned char pattern[16];
    CT_TRY(ct_scalar_to_dtype(value, dt, pattern));
    CT_TRY(empty_impl(sizes, ndim, dt, dev, CT_MEMFMT_CONTIGUOUS, out));
    return fill_new(out, pattern);
}

ct_status ct_tensor_ones(const int64_t *sizes, int64_t ndim, ct_dtype dtype,
                         const ct_device *device, ct_layout layout, ct_tensor **out) {
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    ct_device dev = cpu_device;
    CT_TRY(factory_args(out, "ct_tensor_ones", layout, dtype, ct_get_default_dtype(), device, &dt,
                        &dev));
    return full_impl(sizes, ndim, ct_scalar_int(1), dt, dev, out);
}

ct_status ct_tensor_full(const int64_t *sizes, int64_t ndim, ct_scalar value, ct_dtype dtype,
                         const ct_device *device, ct_layout layout, ct_tensor **out) {
    CT_TRY(check_out(out, "ct_tensor_full"));
    if (layout == CT_LAYOUT_SPARSE_COO)
        return ct_set_error(CT_ERR_RUNTIME, "full(...) is not implemented for sparse layout");
    ct_dtype dt = CT_DTYPE_UNDEFINED, inferred;
    ct_device dev = cpu_device;
    CT_TRY(ct_full_dtype(value, CT_DTYPE_UNDEFINED, &inferred));
    CT_TRY(factory_args(out, "ct_tensor_full", layout, dtype, inferred, device, &dt, &dev));
    return full_impl(sizes, ndim, value, dt, dev, out);
}

/* ---- *_like ------------------------------------------------------------------------------ */

ct_status ct_tensor_impl_like_strides(const ct_tensor *t, ct_memory_format format,
                                      int64_t *strides) {
    if (format != CT_MEMFMT_PRESERVE)
        return ct_memory_format_strides(format, t->sizes, t->ndim, strides);
    if (t->flags & CT_TF_NON_OVERLAPPING_DENSE) {
        if (t->ndim > 0)
            memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
        return CT_OK;
    }
    return ct_infer_dense_strides(t->sizes, t->strides, t->ndim, strides);
}

ct_status ct_tensor_impl_empty_like(const ct_tensor *t, ct_dtype dtype, ct_device device,
                                    ct_memory_format format, ct_tensor **out) {
    if (!ct_memory_format_is_valid(format))
        return ct_set_error(CT_ERR_MISUSE, "invalid memory format value %d", (int)format);
    int64_t strides[CT_MAX_DIMS];
    CT_TRY(ct_tensor_impl_like_strides(t, format, strides));
    return ct_tensor_impl_empty_strided(t->sizes, strides, t->ndim, dtype, device, out);
}

ct_status ct_tensor_impl_like_device(const ct_tensor *t, const ct_device *device, ct_device *out) {
    if (device == NULL) {
        *out = t->device;
        return CT_OK;
    }
    return ct_device_resolve(device, out);
}

/* The prologue of *_like: checks, then dtype and device defaulting to the input's. */
static ct_status like_args(const ct_tensor *t, ct_tensor **out, const char *fn, ct_dtype dtype,
                           const ct_device *device, ct_dtype *rdtype, ct_device *rdevice) {
    CT_TRY(check_out(out, fn));
    CT_TRY(ct_tensor_impl_check(t, fn));
    CT_TRY(resolve_dtype(dtype, t->dtype, rdtype));
    return ct_tensor_impl_like_device(t, device, rdevice);
}

ct_status ct_tensor_empty_like(const ct_tensor *t, ct_dtype dtype, const ct_device *device,
                               ct_memory_format format, ct_tensor **out) {
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    ct_device dev = cpu_device;
    CT_TRY(like_args(t, out, "ct_tensor_empty_like", dtype, device, &dt, &dev));
    return ct_tensor_impl_empty_like(t, dt, dev, format, out);
}

static ct_status full_like(const ct_tensor *t, const void *value_or_null, ct_scalar value,
                           ct_dtype dtype, const ct_device *device, ct_memory_format format,
                           ct_tensor **out, const char *fn) {
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    ct_device dev = cpu_device;
    CT_TRY(like_args(t, out, fn, dtype, device, &dt, &dev));
    unsigned char pattern[16] = {0};
    if (value_or_null != NULL)
        CT_TRY(ct_scalar_to_dtype(value, dt, pattern));
    CT_TRY(ct_tensor_impl_empty_like(t, dt, dev, format, out));
    return fill_new(out, pattern);
}

ct_status ct_tensor_zeros_like(const ct_tensor *t, ct_dtype dtype, const ct_device *device,
                               ct_memory_format format, ct_tensor **out) {
    return full_like(t, NULL, ct_scalar_int(0), dtype, device, format, out, "ct_tensor_zeros_like");
}

ct_status ct_tensor_ones_like(const ct_tensor *t, ct_dtype dtype, const ct_device *device,
                              ct_memory_format format, ct_tensor **out) {
    ct_scalar one = ct_scalar_int(1);
    return full_like(t, &one, one, dtype, device, format, out, "ct_tensor_ones_like");
}

ct_status ct_tensor_full_like(const ct_tensor *t, ct_scalar value, ct_dtype dtype,
                              const ct_device *device, ct_memory_format format, ct_tensor **out) {
    return full_like(t, &value, value, dtype, device, format, out, "ct_tensor_full_like");
}

/* ---- from host data and scalars ---------------------------------------------------------- */

ct_status ct_tensor_from_data(const int64_t *sizes, int64_t ndim, ct_dtype dtype, const void *data,
                              const ct_device *device, ct_tensor **out) {
    CT_TRY(check_out(out, "ct_tensor_from_data"));
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_from_data: needs a concrete dtype, got %d",
                            (int)dtype);
    ct_device dev = cpu_device;
    CT_TRY(ct_device_resolve(device, &dev));
    CT_TRY(empty_impl(sizes, ndim, dtype, dev, CT_MEMFMT_CONTIGUOUS, out));
    ct_tensor *t = *out;
    size_t nbytes = (size_t)t->numel * ct_dtype_table[dtype].itemsize;
    ct_status st = CT_OK;
    if (nbytes > 0 && data == NULL)
        st = ct_set_error(CT_ERR_MISUSE, "ct_tensor_from_data: data is NULL for %zu bytes", nbytes);
    else if (nbytes > 0)
        st = ct_device_copy(t->device, ct_tensor_data_ptr(t), cpu_device, data, nbytes);
    if (st != CT_OK) {
        ct_tensor_release(t);
        *out = NULL;
    }
    return st;
}

ct_status ct_tensor_scalar_tensor(ct_scalar value, ct_dtype dtype, const ct_device *device,
                                  ct_tensor **out) {
    CT_TRY(check_out(out, "ct_tensor_scalar_tensor"));
    /* torch.tensor(value): complex takes the default complex dtype (unlike full) */
    ct_dtype fallback;
    CT_TRY(ct_full_dtype(value, CT_DTYPE_UNDEFINED, &fallback));
    if (value.kind == CT_SCALAR_COMPLEX)
        fallback = ct_get_default_complex_dtype();
    ct_dtype dt = CT_DTYPE_UNDEFINED;
    CT_TRY(resolve_dtype(dtype, fallback, &dt));
    unsigned char elem[16];
    CT_TRY(ct_scalar_to_dtype(value, dt, elem));
    return ct_tensor_from_data(NULL, 0, dt, elem, device, out);
}

ct_status ct_tensor_wrapped_number(ct_scalar value, ct_tensor **out) {
    CT_TRY(check_out(out, "ct_tensor_wrapped_number"));
    if (value.kind == CT_SCALAR_UINT)
        return ct_set_error(CT_ERR_OVERFLOW,
                            "value cannot be converted to type int64_t without overflow");
    ct_dtype dt = ct_scalar_dtype(value);
    if (dt == CT_DTYPE_UNDEFINED)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_wrapped_number: invalid scalar kind %d",
                            (int)value.kind);
    unsigned char elem[16];
    CT_TRY(ct_scalar_to_dtype(value, dt, elem));
    CT_TRY(ct_tensor_from_data(NULL, 0, dt, elem, &cpu_device, out));
    (*out)->flags |= CT_TF_WRAPPED_NUMBER;
    return CT_OK;
}
