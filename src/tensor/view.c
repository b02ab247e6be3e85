/* Views that reshape or reorder: alias, view, reshape, t, transpose, permute, expand and
 * as_strided. (Views that cut: view_slice.c.) Every result goes through
 * ct_tensor_impl_view, which re-checks the geometry against the storage. */
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

ct_status ct_tensor_alias(const ct_tensor *t, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_alias"));
    return ct_tensor_impl_view(t, t->sizes, t->strides, t->ndim, t->storage_offset, out);
}

/* ---- view / reshape ---------------------------------------------------------------------- */

/* PyTorch's infer_size: resolve one -1 against numel. */
static ct_status infer_size(const int64_t *shape, int64_t n, int64_t numel, int64_t *res) {
    if (n < 0 || n > CT_MAX_DIMS) /* a negative count is misuse, not an empty shape */
        return ct_tensor_impl_shape_check_sizes(shape, n);
    if (n > 0 && shape == NULL)
        return ct_set_error(CT_ERR_MISUSE, "shape is NULL for %" PRId64 " dimensions", n);
    int64_t infer = -1, newsize = 1;
    bool zero = false, big = false;
    for (int64_t d = 0; d < n; d++) {
        if (shape[d] == -1) {
            if (infer >= 0)
                return ct_set_error(CT_ERR_RUNTIME, "only one dimension can be inferred");
            infer = d;
        } else if (shape[d] >= 0) {
            zero |= shape[d] == 0;
            big |= ct_checked_mul_i64(newsize, shape[d], &newsize);
        } else {
            return ct_set_error(CT_ERR_RUNTIME, "invalid shape dimension %" PRId64, shape[d]);
        }
    }
    if (zero)
        newsize = 0, big = false; /* a zero anywhere makes the product zero */
    if (n > 0)
        memcpy(res, shape, (size_t)n * sizeof *res);
    char s[512];
    if (infer >= 0) {
        /* Ambiguous only when nothing is left to infer from (PyTorch checks it after the
         * numel test, so 1 element into [0, -1] is an invalid shape, not an ambiguous one). */
        if (newsize == 0 && numel == 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "cannot reshape tensor of %" PRId64 " elements into shape %s "
                                "because the unspecified dimension size -1 can be any value and "
                                "is ambiguous",
                                numel, ct_tensor_impl_shape_format(s, sizeof s, shape, n));
        if (!big && newsize > 0 && numel % newsize == 0) {
            res[infer] = numel / newsize;
            return CT_OK;
        }
    } else if (!big && numel == newsize) {
        return CT_OK;
    }
    return ct_set_error(CT_ERR_RUNTIME, "shape '%s' is invalid for input of size %" PRId64,
                        ct_tensor_impl_shape_format(s, sizeof s, shape, n), numel);
}

/* PyTorch's computeStride: strides that view `t` with sizes `shape`, or false when the
 * old dims cannot be regrouped without a copy. Old dims split into chunks of memory-
 * contiguous dims; each chunk must be covered exactly by a run of new dims. */
static bool compute_stride(const ct_tensor *t, const int64_t *shape, int64_t n, int64_t *st,
                           bool *overflow) {
    *overflow = false;
    const int64_t *os = t->sizes, *ot = t->strides;
    int64_t on = t->ndim;
    if (on == 0) {
        for (int64_t i = 0; i < n; i++)
            st[i] = 1;
        return true;
    }
    if (t->numel == 0) {
        /* any strides work; NumPy keeps them when the shape is unchanged */
        if (on == n && memcmp(os, shape, (size_t)n * sizeof *os) == 0) {
            memcpy(st, ot, (size_t)n * sizeof *st);
            return true;
        }
        for (int64_t d = n - 1; d >= 0; d--) {
            if (d == n - 1)
                st[d] = 1;
            else
                *overflow |=
                    ct_checked_mul_i64(shape[d + 1] > 1 ? shape[d + 1] : 1, st[d + 1], &st[d]);
        }
        return !*overflow;
    }
    int64_t view_d = n - 1;
    int64_t chunk_base = ot[on - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int64_t d = on - 1; d >= 0; d--) {
        tensor_numel *= os[d]; /* <= numel: cannot overflow */
        bool chunk_end = d == 0;
        if (!chunk_end && os[d - 1] != 1) {
            int64_t expect;
            chunk_end =
                ct_checked_mul_i64(tensor_numel, chunk_base, &expect) || ot[d - 1] != expect;
        }
        if (!chunk_end)
            continue;
        while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
            *overflow |= ct_checked_mul_i64(view_numel, chunk_base, &st[view_d]);
            view_numel *= shape[view_d];
            view_d--;
        }
        if (view_numel != tensor_numel)
            return false;
        if (d > 0) {
            chunk_base = ot[d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1 && !*overflow;
}

ct_status ct_tensor_view(const ct_tensor *t, const int64_t *shape, int64_t n, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_view"));
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    CT_TRY(infer_size(shape, n, t->numel, sizes));
    bool overflow;
    if (!compute_stride(t, sizes, n, strides, &overflow)) {
        if (overflow)
            return ct_set_error(CT_ERR_OVERFLOW, "Stride calculation overflowed");
        return ct_set_error(CT_ERR_RUNTIME,
                            "view size is not compatible with input tensor's size and stride (at "
                            "least one dimension spans across two contiguous subspaces). Use "
                            ".reshape(...) instead.");
    }
    return ct_tensor_impl_view(t, sizes, strides, n, t->storage_offset, out);
}

ct_status ct_tensor_reshape(const ct_tensor *t, const int64_t *shape, int64_t n, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_reshape"));
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    CT_TRY(infer_size(shape, n, t->numel, sizes));
    bool overflow;
    if (compute_stride(t, sizes, n, strides, &overflow))
        return ct_tensor_impl_view(t, sizes, strides, n, t->storage_offset, out);
    /* no view possible: a contiguous copy, viewed with the new shape */
    ct_tensor *copy;
    CT_TRY(ct_tensor_clone(t, CT_MEMFMT_CONTIGUOUS, &copy));
    ct_status st = ct_tensor_impl_new(copy->storage, copy->dtype, sizes, NULL, n,
                                      copy->storage_offset, "reshape", out);
    ct_tensor_release(copy);
    return st;
}

/* ---- reordering ----------------------------------------------------------------------------- */

ct_status ct_tensor_transpose(const ct_tensor *t, int64_t dim0, int64_t dim1, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_transpose"));
    int64_t a, b;
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim0, t->ndim, true, &a));
    CT_TRY(ct_tensor_impl_shape_wrap_dim(dim1, t->ndim, true, &b));
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    if (a != b) { /* for a 0-dim tensor a == b == 0 */
        int64_t tmp = sizes[a];
        sizes[a] = sizes[b];
        sizes[b] = tmp;
        tmp = strides[a];
        strides[a] = strides[b];
        strides[b] = tmp;
    }
    return ct_tensor_impl_view(t, sizes, strides, t->ndim, t->storage_offset, out);
}

ct_status ct_tensor_t(const ct_tensor *t, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_t"));
    if (t->ndim > 2)
        return ct_set_error(CT_ERR_RUNTIME,
                            "t() expects a tensor with <= 2 dimensions, but self is %dD",
                            (int)t->ndim);
    return ct_tensor_transpose(t, 0, t->ndim < 2 ? 0 : 1, out);
}

ct_status ct_tensor_permute(const ct_tensor *t, const int64_t *dims, int64_t n, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_permute"));
    if (n != t->ndim)
        return ct_set_error(CT_ERR_RUNTIME,
                            "permute(sparse_coo): number of dimensions in the tensor input does "
                            "not match the length of the desired ordering of dimensions i.e. "
                            "input.dim() = %d is not equal to len(dims) = %" PRId64,
                            (int)t->ndim, n);
    if (n > 0 && dims == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_permute: dims is NULL");
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    bool seen[CT_MAX_DIMS] = {false};
    for (int64_t i = 0; i < n; i++) {
        int64_t d;
        CT_TRY(ct_tensor_impl_shape_wrap_dim(dims[i], n, true, &d));
        if (seen[d])
            return ct_set_error(CT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return ct_tensor_impl_view(t, sizes, strides, n, t->storage_offset, out);
}

/* ---- expand -----------------------------------------------------------------------------------
 */

ct_status ct_tensor_expand(const ct_tensor *t, const int64_t *target, int64_t n, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_expand"));
    if (n > 0 && target == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_expand: sizes is NULL");
    if (n < 0 || n > CT_MAX_DIMS) /* a negative count is misuse, not too few sizes */
        return ct_tensor_impl_shape_check_sizes(target, n);
    char a[400], b[400];
    if (n < t->ndim) {
        char type[64];
        CT_TRY(ct_tensor_type_string(t, type, sizeof type));
        return ct_set_error(CT_ERR_RUNTIME,
                            "expand(%s{%s}, size=%s): the number of sizes provided (%" PRId64
                            ") must be greater or equal to the number of dimensions in the "
                            "tensor (%d)",
                            type, ct_tensor_impl_shape_format(a, sizeof a, t->sizes, t->ndim),
                            ct_tensor_impl_shape_format(b, sizeof b, target, n), n, (int)t->ndim);
    }
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    /* PyTorch's inferExpandGeometry, from the last dim backwards; a 0-dim tensor's dims are
     * all new and get stride 0. A -1 in a new leading dim is an error; other negative sizes
     * pass the loop in PyTorch (which then builds a tensor of negative size, or fails on a
     * dim further left), so they are refused after it. */
    for (int64_t i = n - 1; i >= 0; i--) {
        int64_t dim = t->ndim - 1 - (n - 1 - i);
        int64_t size = 1, stride;
        if (dim >= 0) {
            size = t->sizes[dim];
            stride = t->strides[dim];
        } else if (t->ndim == 0 || i == n - 1) {
            stride = t->ndim == 0 ? 0 : 1;
        } else if (ct_checked_mul_i64(sizes[i + 1], strides[i + 1], &stride)) {
            stride = 0; /* only ever the stride of a broadcast dim */
        }
        int64_t want = target[i];
        if (want == -1) {
            if (dim < 0)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "The expanded size of the tensor (%" PRId64
                                    ") isn't allowed in a leading, non-existing dimension %" PRId64,
                                    want, i);
            want = size;
        }
        if (size != want) {
            if (size != 1)
                return ct_set_error(CT_ERR_RUNTIME,
                                    "The expanded size of the tensor (%" PRId64
                                    ") must match the existing size (%" PRId64
                                    ") at non-singleton dimension %" PRId64
                                    ".  Target sizes: %s.  Tensor sizes: %s",
                                    want, size, i,
                                    ct_tensor_impl_shape_format(a, sizeof a, target, n),
                                    ct_tensor_impl_shape_format(b, sizeof b, t->sizes, t->ndim));
            size = want;
            stride = 0;
        }
        sizes[i] = size;
        strides[i] = stride;
    }
    CT_TRY(ct_tensor_impl_shape_check_sizes(sizes, n)); /* the negative-dimension message */
    return ct_tensor_impl_view(t, sizes, strides, n, t->storage_offset, out);
}

/* ---- as_strided ----------------------------------------------------------------------------- */

ct_status ct_tensor_as_strided(const ct_tensor *t, const int64_t *sizes, const int64_t *strides,
                               int64_t n, const int64_t *storage_offset, ct_tensor **out) {
    CT_TRY(begin(t, out, "ct_tensor_as_strided"));
    if (n > 0 && strides == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_tensor_as_strided: strides is NULL");
    int64_t offset = storage_offset != NULL ? *storage_offset : t->storage_offset;
    return ct_tensor_impl_new(t->storage, t->dtype, sizes, strides, n, offset, "as_strided", out);
}
