/* Views that cut or regroup dims: narrow, select, slice, squeeze, unsqueeze, flatten. */
#include <inttypes.h>
#include <string.h>

#include "base/checked.h"
#include "base/error_impl.h"
#include "tensor/tensor_impl.h"

static ct_status begin(const ct_tensor *t, ct_tensor **out, const char *fn) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    return ct_tensor_impl_check(t, fn);
}

/* A view of t with dim `d` resized to `size`, strided by `stride`, starting `start` elements
 * into it. start * stride cannot overflow while the view has elements (they lie inside the
 * storage); an empty view that would start beyond int64 keeps the old offset. */
static ct_status cut(const ct_tensor *t, int64_t d, int64_t start, int64_t size, int64_t stride,
                     ct_tensor **out) {
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], off;
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    if (ct_checked_mul_i64(start, t->strides[d], &off) ||
        ct_checked_add_i64(off, t->storage_offset, &off)) {
        if (size != 0)
            return ct_set_error(CT_ERR_OVERFLOW, "Storage offset calculation overflowed");
        off = t->storage_offset; /* an empty view may start anywhere */
    }
    sizes[d] = size;
    strides[d] = stride;
    return ct_tensor_impl_view(t, sizes, strides, t->ndim, off, out);
}

ct_status ct_tensor_slice(const ct_tensor *t, int64_t dim, int64_t start, int64_t stop,
                          int64_t step, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_slice"));
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    if (step <= 0)
        return ct_set_error(CT_ERR_VALUE, "step must be greater than zero");
    int64_t size = t->sizes[d];
    /* Python's rules: negative bounds count from the end, then clamp to [0, size] */
    if (start < 0)
        start += size;
    if (stop < 0)
        stop += size;
    if (start < 0)
        start = 0;
    else if (start > size)
        start = size;
    if (stop < start)
        stop = start;
    else if (stop > size)
        stop = size;
    int64_t len = stop - start;
    int64_t n = len == 0 ? 0 : (len - 1) / step + 1;
    int64_t stride;
    if (ct_checked_mul_i64(t->strides[d], step, &stride)) {
        if (n > 1) /* cannot happen: the last element lies inside the tensor */
            return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
        stride = t->strides[d]; /* the stride of a dim of size <= 1 is never used */
    }
    return cut(t, d, start, n, stride, out);
}

ct_status ct_tensor_narrow(const ct_tensor *t, int64_t dim, int64_t start, int64_t length,
                           ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_narrow"));
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0)
        return ct_set_error(CT_ERR_RUNTIME, "narrow(): length must be non-negative.");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    int64_t cur = t->sizes[d];
    if (start < -cur || start > cur)
        return ct_set_error(CT_ERR_INDEX,
                            "start out of range (expected to be in range of [%" PRId64 ", %" PRId64
                            "], but got %" PRId64 ")",
                            -cur, cur, start);
    if (start < 0)
        start += cur;
    if (start > cur - length)
        return ct_set_error(CT_ERR_RUNTIME,
                            "start (%" PRId64 ") + length (%" PRId64
                            ") exceeds dimension size (%" PRId64 ").",
                            start, length, cur);
    return cut(t, d, start, length, t->strides[d], out);
}

/* A view of t without dim `d` (which has size 1 or is selected at `index`). */
static ct_status drop_dim(const ct_tensor *t, int64_t d, int64_t index, ct_tensor **out) {
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], n = 0;
    for (int64_t i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        sizes[n] = t->sizes[i];
        strides[n++] = t->strides[i];
    }
    /* inside the storage when t has elements; an empty t may have any offset and strides,
     * and then keeps its offset when the sum leaves int64 (as cut()) */
    int64_t off;
    if (ct_checked_mul_i64(index, t->strides[d], &off) ||
        ct_checked_add_i64(off, t->storage_offset, &off)) {
        if (t->numel != 0)
            return ct_set_error(CT_ERR_OVERFLOW, "Storage offset calculation overflowed");
        off = t->storage_offset;
    }
    return ct_tensor_impl_view(t, sizes, strides, n, off, out);
}

ct_status ct_tensor_select(const ct_tensor *t, int64_t dim, int64_t index, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_select"));
    if (t->ndim == 0)
        return ct_set_error(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    int64_t size = t->sizes[d];
    if (index < -size || index >= size) {
        char s[512];
        return ct_set_error(CT_ERR_INDEX,
                            "select(): index %" PRId64 " out of range for tensor of size %s at "
                            "dimension %" PRId64,
                            index, ct_tensor_impl_shape_format(s, sizeof s, t->sizes, t->ndim), d);
    }
    if (index < 0)
        index += size;
    return drop_dim(t, d, index, out);
}

ct_status ct_tensor_squeeze(const ct_tensor *t, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_squeeze"));
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], n = 0;
    for (int64_t i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 1)
            continue;
        sizes[n] = t->sizes[i];
        strides[n++] = t->strides[i];
    }
    return ct_tensor_impl_view(t, sizes, strides, n, t->storage_offset, out);
}

ct_status ct_tensor_squeeze_dim(const ct_tensor *t, int64_t dim, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_squeeze_dim"));
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, t->ndim, true, &d));
    if (t->ndim == 0 || t->sizes[d] != 1)
        return ct_tensor_impl_view(t, t->sizes, t->strides, t->ndim, t->storage_offset, out);
    return drop_dim(t, d, 0, out);
}

ct_status ct_tensor_unsqueeze(const ct_tensor *t, int64_t dim, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_unsqueeze"));
    int64_t d;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim, (int64_t)t->ndim + 1, true, &d));
    if (t->ndim + 1 > CT_MAX_DIMS)
        return ct_set_error(CT_ERR_VALUE,
                            "maximum supported dimension for a tensor is %d, found %d", CT_MAX_DIMS,
                            (int)t->ndim + 1);
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    /* the new dim's stride: as if it were the outer neighbour's span (PyTorch's
     * inferUnsqueezeGeometry) */
    int64_t stride = 1;
    if (d < t->ndim && ct_checked_mul_i64(t->sizes[d], t->strides[d], &stride))
        return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
    for (int64_t i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = stride;
        } else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j++];
        }
    }
    return ct_tensor_impl_view(t, sizes, strides, t->ndim + 1, t->storage_offset, out);
}

ct_status ct_tensor_flatten(const ct_tensor *t, int64_t start_dim, int64_t end_dim,
                            ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_flatten"));
    int64_t s, e;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(start_dim, t->ndim, true, &s));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(end_dim, t->ndim, true, &e));
    if (s > e)
        return ct_set_error(CT_ERR_RUNTIME,
                            "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) {
        int64_t one = 1;
        return ct_tensor_reshape(t, &one, 1, out);
    }
    if (s == e) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    int64_t shape[CT_MAX_DIMS], n = 0, merged;
    CT_TRY(ct_tensor_impl_shape_numel(t->sizes + s, e - s + 1, &merged));
    for (int64_t i = 0; i < s; i++)
        shape[n++] = t->sizes[i];
    shape[n++] = merged;
    for (int64_t i = e + 1; i < t->ndim; i++)
        shape[n++] = t->sizes[i];
    return ct_tensor_reshape(t, shape, n, out);
}
