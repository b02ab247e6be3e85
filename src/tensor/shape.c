/* Shape helpers shared by the tensor files: formatting, dim wrapping, size checks and the
 * overflow-checked numel / storage-size arithmetic. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "tensor/tensor_impl.h"

char *ct_tensor_impl_shape_format(char *buf, size_t cap, const int64_t *v, int64_t n) {
    size_t len = 0;
    if (cap < 8) { /* never happens in practice: callers pass message-sized buffers */
        if (cap > 0)
            buf[0] = '\0';
        return buf;
    }
    buf[len++] = '[';
    for (int64_t i = 0; i < n; i++) {
        char item[32];
        int k = snprintf(item, sizeof item, "%s%" PRId64, i > 0 ? ", " : "", v[i]);
        if (len + (size_t)k + 5 > cap) { /* room for "...]" and NUL */
            memcpy(buf + len, "...", 3);
            len += 3;
            break;
        }
        memcpy(buf + len, item, (size_t)k);
        len += (size_t)k;
    }
    buf[len++] = ']';
    buf[len] = '\0';
    return buf;
}

ct_status ct_tensor_impl_shape_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar, int64_t *out) {
    if (ndim <= 0) {
        if (!wrap_scalar)
            return ct_set_error(CT_ERR_INDEX,
                                "Dimension specified as %" PRId64 " but tensor has no dimensions",
                                dim);
        ndim = 1; /* a scalar accepts [-1, 0] */
    }
    if (dim < -ndim || dim > ndim - 1)
        return ct_set_error(CT_ERR_INDEX,
                            "Dimension out of range (expected to be in range of [%" PRId64
                            ", %" PRId64 "], but got %" PRId64 ")",
                            -ndim, ndim - 1, dim);
    *out = dim < 0 ? dim + ndim : dim;
    return CT_OK;
}

ct_status ct_tensor_impl_shape_check_sizes(const int64_t *sizes, int64_t ndim) {
    if (ndim < 0)
        return ct_set_error(CT_ERR_MISUSE, "negative number of dimensions %" PRId64, ndim);
    if (ndim > CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE,
                            "maximum supported dimension for a tensor is %d, found %" PRId64,
                            CT_MAX_DIMS, ndim);
    if (ndim > 0 && sizes == NULL)
        return ct_set_error(CT_ERR_MISUSE, "sizes is NULL for %" PRId64 " dimensions", ndim);
    for (int64_t i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            char shape[512];
            return ct_set_error(
                CT_ERR_RUNTIME, "Trying to create tensor with negative dimension %" PRId64 ": %s",
                sizes[i], ct_tensor_impl_shape_format(shape, sizeof shape, sizes, ndim));
        }
    }
    return CT_OK;
}

ct_status ct_tensor_impl_shape_numel(const int64_t *sizes, int64_t ndim, int64_t *out) {
    int64_t n = 1;
    bool overflow = false;
    for (int64_t i = 0; i < ndim; i++) {
        if (sizes[i] == 0) {
            *out = 0;
            return CT_OK;
        }
        overflow |= ct_checked_mul_i64(n, sizes[i], &n);
    }
    if (overflow)
        return ct_set_error(CT_ERR_OVERFLOW, "numel: integer multiplication overflow");
    *out = n;
    return CT_OK;
}

ct_status ct_tensor_impl_shape_storage_nbytes(const int64_t *sizes, const int64_t *strides,
                                              int64_t ndim, size_t itemsize, int64_t offset,
                                              size_t *out) {
    *out = 0;
    for (int64_t i = 0; i < ndim; i++)
        if (sizes[i] == 0)
            return CT_OK;
    /* the storage is one element past the offset of the last element */
    int64_t last = offset;
    bool overflow = false;
    for (int64_t i = 0; i < ndim; i++) {
        int64_t span;
        overflow |= ct_checked_mul_i64(strides[i], sizes[i] - 1, &span);
        overflow |= ct_checked_add_i64(last, span, &last);
    }
    int64_t bytes = 0;
    overflow |= ct_checked_add_i64(last, 1, &last);
    overflow |= ct_checked_mul_i64(last, (int64_t)itemsize, &bytes);
    if (overflow) {
        char s[400], t[400];
        return ct_set_error(CT_ERR_OVERFLOW,
                            "Storage size calculation overflowed with sizes=%s and strides=%s",
                            ct_tensor_impl_shape_format(s, sizeof s, sizes, ndim),
                            ct_tensor_impl_shape_format(t, sizeof t, strides, ndim));
    }
    *out = (size_t)bytes;
    return CT_OK;
}

ct_status ct_tensor_impl_shape_check_strides(const int64_t *strides, int64_t ndim, const char *fn) {
    for (int64_t i = 0; i < ndim; i++) {
        if (strides[i] < 0) {
            char s[512];
            return ct_set_error(CT_ERR_RUNTIME,
                                "%s: Negative strides are not supported at the moment, got "
                                "strides: %s",
                                fn, ct_tensor_impl_shape_format(s, sizeof s, strides, ndim));
        }
    }
    return CT_OK;
}
