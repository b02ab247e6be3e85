/* The views diagonal and unfold, and the ops that give a tensor object new metadata in
 * place: resize_, resize_as_, t_, transpose_, squeeze_, unsqueeze_, as_strided_
 * (include/ctensor/reorder.h). Shapes, strides and messages are PyTorch 1.13's.
 *
 * An in-place view op builds the view as the out-of-place op does (so the checks and
 * messages are that op's), then moves its geometry into the tensor with
 * ct_tensor_impl_resize, which cannot grow the storage here: the view already fits it. */
#include <inttypes.h>
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "ctensor/reorder.h"
#include "tensor/tensor_impl.h"

static ct_status begin(const ct_tensor *t, ct_tensor **out, const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    return ct_tensor_impl_check(t, fn);
}

/* ---- diagonal, unfold ------------------------------------------------------------------ */

ct_status ct_tensor_diagonal(const ct_tensor *t, int64_t offset, int64_t dim1, int64_t dim2,
                             ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_diagonal"));
    int64_t d1, d2;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim1, t->ndim, true, &d1));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim2, t->ndim, true, &d2));
    if (d1 == d2)
        return ct_set_error(CT_ERR_RUNTIME,
                            "diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, dim1,
                            dim2);
    int64_t n1 = t->sizes[d1], n2 = t->sizes[d2], len;
    if (offset >= 0)
        len = offset >= n2 ? 0 : (n1 < n2 - offset ? n1 : n2 - offset);
    else
        len = -offset >= n1 ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
    if (len < 0)
        len = 0;
    /* an offset past the end keeps the storage offset (PyTorch: "let's be kosher") */
    int64_t off = t->storage_offset;
    if (len > 0)
        off += offset >= 0 ? offset * t->strides[d2] : -offset * t->strides[d1];
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], k = 0;
    for (int32_t i = 0; i < t->ndim; i++) {
        if (i == d1 || i == d2)
            continue;
        sizes[k] = t->sizes[i];
        strides[k++] = t->strides[i];
    }
    sizes[k] = len;
    strides[k++] = t->strides[d1] + t->strides[d2];
    return ct_tensor_impl_view(t, sizes, strides, k, off, out);
}

ct_status ct_tensor_unfold(const ct_tensor *t, int64_t dimension, int64_t size, int64_t step,
                           ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_unfold"));
    if (t->ndim >= CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE, "unfold: too many dimensions (at most %d)", CT_MAX_DIMS);
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dimension, t->ndim, true, &d));
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size)
        return ct_set_error(CT_ERR_RUNTIME,
                            "maximum size for tensor at dimension %" PRId64 " is %" PRId64
                            " but size is %" PRId64,
                            d, max_size, size);
    if (step <= 0)
        return ct_set_error(CT_ERR_RUNTIME, "step is %" PRId64 " but must be > 0", step);
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    for (int32_t i = 0; i < t->ndim; i++) {
        sizes[i] = t->sizes[i];
        strides[i] = t->strides[i];
    }
    if (t->ndim > 0) {
        sizes[d] = (t->sizes[d] - size) / step + 1;
        if (ct_checked_mul_i64(step, t->strides[d], &strides[d]))
            return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
    }
    sizes[t->ndim] = size;
    strides[t->ndim] = t->ndim == 0 ? 1 : t->strides[d];
    /* as_strided: a negative size fails its storage check, with PyTorch's message */
    return ct_tensor_as_strided(t, sizes, strides, t->ndim + 1, NULL, out);
}

/* ---- in place --------------------------------------------------------------------------- */

/* Give t the geometry of view v (of t's storage, checked against it) and v's offset. */
static ct_status adopt(ct_tensor *t, const ct_tensor *v) {
    int64_t old = t->storage_offset;
    t->storage_offset = v->storage_offset; /* so the resize's bound check uses it */
    ct_status st = ct_tensor_impl_resize(t, v->sizes, v->ndim, v->strides);
    if (st != CT_OK)
        t->storage_offset = old;
    return st;
}

/* Run a view op on t and adopt its result. */
#define IN_PLACE(call)                                                                             \
    do {                                                                                           \
        ct_tensor *v_ = NULL;                                                                      \
        CT_TRY(call);                                                                              \
        ct_status st_ = adopt(t, v_);                                                              \
        ct_tensor_release(v_);                                                                     \
        return st_;                                                                                \
    } while (0)

ct_status ct_tensor_t_(ct_tensor *t) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_t_"));
    if (t->ndim > 2)
        return ct_set_error(CT_ERR_RUNTIME,
                            "t_() expects a tensor with <= 2 dimensions, but self is %dD",
                            (int)t->ndim);
    IN_PLACE(ct_tensor_t(t, &v_));
}

ct_status ct_tensor_transpose_(ct_tensor *t, int64_t dim0, int64_t dim1) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_transpose_"));
    IN_PLACE(ct_tensor_transpose(t, dim0, dim1, &v_));
}

ct_status ct_tensor_squeeze_(ct_tensor *t) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_squeeze_"));
    IN_PLACE(ct_tensor_squeeze(t, &v_));
}

ct_status ct_tensor_squeeze_dim_(ct_tensor *t, int64_t dim) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_squeeze_dim_"));
    IN_PLACE(ct_tensor_squeeze_dim(t, dim, &v_));
}

ct_status ct_tensor_unsqueeze_(ct_tensor *t, int64_t dim) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_unsqueeze_"));
    IN_PLACE(ct_tensor_unsqueeze(t, dim, &v_));
}

ct_status ct_tensor_as_strided_(ct_tensor *t, const int64_t *sizes, const int64_t *strides,
                                int64_t ndim, const int64_t *storage_offset) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_as_strided_"));
    IN_PLACE(ct_tensor_as_strided(t, sizes, strides, ndim, storage_offset, &v_));
}

/* ---- resize_ ---------------------------------------------------------------------------- */

ct_status ct_tensor_resize_(ct_tensor *t, const int64_t *sizes, int64_t ndim,
                            const ct_memory_format *format) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_resize_"));
    if (ndim < 0 || ndim > CT_MAX_DIMS || (ndim > 0 && sizes == NULL))
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_resize_: invalid sizes");
    if (format != NULL && *format == CT_MEMFMT_PRESERVE)
        return ct_set_error(CT_ERR_RUNTIME, "Unsupported memory formatPreserve");
    for (int64_t i = 0; i < ndim; i++)
        if (sizes[i] < 0) /* PyTorch's storage size computation fails first */
            return ct_set_error(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
    int64_t strides[CT_MAX_DIMS];
    CT_TRY(ct_memory_format_strides(format != NULL ? *format : CT_MEMFMT_CONTIGUOUS, sizes, ndim,
                                    strides));
    /* the same sizes keep their strides unless a format is given (PyTorch) */
    bool same = t->ndim == ndim &&
                (ndim == 0 || memcmp(t->sizes, sizes, (size_t)ndim * sizeof *sizes) == 0);
    return ct_tensor_impl_resize(t, sizes, ndim, same && format == NULL ? t->strides : strides);
}

ct_status ct_tensor_resize_as_(ct_tensor *t, const ct_tensor *other,
                               const ct_memory_format *format) {
    CT_TRY(ct_tensor_impl_check(t, "ct_tensor_resize_as_"));
    CT_TRY(ct_tensor_impl_check(other, "ct_tensor_resize_as_"));
    ct_memory_format f;
    if (format != NULL) { /* preserve: other's suggested format */
        f = *format == CT_MEMFMT_PRESERVE ? ct_tensor_suggest_memory_format(other, false) : *format;
        format = &f;
    }
    return ct_tensor_resize_(t, other->sizes, other->ndim, format);
}
